// The hand evaluator: a port of paohuzi_env.scoring.evaluate_counts (R-WIN-*, R-SCORE-*,
// R-WANG-4..7), memoised like the Python one.
#pragma once

#include <memory>
#include <optional>

#include "common.hpp"
#include "rules.hpp"

namespace phz {

struct Win {  // scoring.Win
    int huxi = 0, tun = 0, fan = 0, score = 0;
    std::vector<std::string> names;   // UTF-8, in the Python order
    std::vector<Group> groups;        // table groups then hand groups, as Python
    int red = 0, big = 0, small = 0;
    std::vector<std::pair<int, int>> wang_as;  // (group index, kind)
};

struct EvalArgs {
    bool self_drawn = false, haidi = false, tianhu = false, dihu = false, from_discard = false;
    int wang = 0;
};

// evaluate_counts(hand, melds, win_card, rules, ...): `melds` sorted as Python sorts them
// (Group::operator<); win_card -1 for None. Returns the same Win as Python, or nullptr.
// The returned pointer is owned by the memo (valid for the life of the process).
const Win* evaluate(const Counts& hand, const std::vector<Group>& melds, int win_card,
                    const Rules& rules, const EvalArgs& a);

void clear_scoring_caches();

}  // namespace phz
