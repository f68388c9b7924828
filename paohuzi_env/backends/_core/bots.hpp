// The rule-based baselines: a port of paohuzi_env.bots.heuristic (GreedyAgent, ExpertAgent).
// Both are deterministic functions of the view and the rules.
#pragma once

#include <utility>
#include <vector>

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

// paohuzi_env.encode.features.wait_features (paohuzi-waits-v1): the 80 wait features of the view's
// seat, written to out: which cards win the holding now; per kind it holds one or two of,
// whether discarding one leaves a ready holding, the unseen winning copies then (/ 8, at most
// 1) and those copies times the win's points (/ 200, at most 1). The winning cards are the
// expert's (game/waits.py's win_scores, with its memo).
constexpr int WAIT_FEATURES = 80;
// game.waits.win_scores of a holding (hand, its table groups in Game::table_groups' order, 王
// held): (kind, score) for every card that would win it, WANG included; memoised per thread as
// the bots' own (the reference stays valid until the next call on this thread).
const std::vector<std::pair<int, int>>& holding_wins(const Counts& hand,
                                                     const std::vector<Group>& melds, int wang,
                                                     const Rules& rules);
void wait_features(const View& v, const Rules& rules, float* out);

}  // namespace phz
