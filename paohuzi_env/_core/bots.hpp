// The rule-based baselines: a port of paohuzi_env.agents.heuristic (GreedyAgent, ExpertAgent).
// Both are deterministic functions of the view and the rules.
#pragma once

#include "rules.hpp"
#include "view.hpp"

namespace phz {

int greedy_action(const View& v, const Rules& rules);
int expert_action(const View& v, const Rules& rules);
void clear_bot_caches();

}  // namespace phz
