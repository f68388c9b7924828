// The rule-based baselines: a port of paohuzi_env.agents.heuristic (GreedyAgent, ExpertAgent).
// Both are deterministic functions of the view and the rules.
#pragma once

#include "rules.hpp"
#include "view.hpp"

namespace phz {

int greedy_action(const View& v, const Rules& rules);
int expert_action(const View& v, const Rules& rules);
// The same decision as expert_action (expert) or greedy_action, with the bot's own value of each
// legal action in `values` (legal's order; -inf: an option the bot does not weigh; all 0 where it
// weighs none). The search's `top` option ranks actions by them.
int bot_action_values(bool expert, const View& v, const Rules& rules, std::vector<double>* values);
void clear_bot_caches();

}  // namespace phz
