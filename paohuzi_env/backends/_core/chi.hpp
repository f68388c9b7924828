// 吃/比 legality: a port of paohuzi_env.game.chi (R-CHI-1..4, R-GROUP-3).
#pragma once

#include "common.hpp"

namespace phz {

inline int discard_target(int n_paoti) { return 20 + (n_paoti > 1 ? n_paoti - 1 : 0); }
Counts usable(const Counts& hand);
bool bi_completable(const Counts& usable, int c, bool keep_one);
// chi.chi_groups: legal 吃 group ids (ascending) and whether any group fits (R-CHOU-4).
std::vector<int> chi_groups(const Counts& hand, int c, bool owes_after, bool* fits);
// The same into `out` (cleared first; its storage is reused).
void chi_groups_into(const Counts& hand, int c, bool owes_after, bool* fits, std::vector<int>* out);
// chi.bi_groups: legal next 比 group ids (ascending).
std::vector<int> bi_groups(const Counts& usable, int c, bool owes_after);
Counts chi_need(int action, int c);
Counts group_counts(int action);
// chi.py's lru_caches have no counterpart here (chi.cpp keeps no memo): nothing to empty.
void clear_chi_caches();

}  // namespace phz
