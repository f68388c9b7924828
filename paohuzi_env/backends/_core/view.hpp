// What one seat may know: a port of paohuzi_env.game.engine.PlayerView. The observation encoder and
// the bots read only this.
#pragma once

#include "common.hpp"

namespace phz {

enum Decision : int { D_NONE = -1, D_TIANHU = 0, D_HU = 1, D_CLAIM = 2, D_BI = 3, D_DISCARD = 4 };
enum Source : int { S_DRAW = 0, S_DISCARD = 1, S_LIANG = 2 };

struct TableGroup {  // one entry of PlayerView.table[s], in placement order
    GroupType type;
    std::vector<int> cards;  // empty when hidden
    bool hidden = false;     // another seat's 偎 (Python: ("wei", None))
};

struct View {
    int seat = 0;
    Counts hand{};
    std::array<std::vector<TableGroup>, 3> table;
    std::array<std::vector<int>, 3> discards;
    std::array<int, 3> hand_sizes{};
    int wall = 0, dealer = 0, liang = 0;
    // kind sets as bit masks over kinds 0..20 (bit WANG for a blocked win on a 王)
    uint32_t chou = 0, chi_closed = 0, declined_peng = 0, hu_blocked = 0;
    int decision = D_NONE;
    bool has_offer = false;
    int offer_kind = 0, offer_source = 0, offer_from = 0;
    std::vector<std::array<int, 3>> bi_groups;  // sorted kind triples
    int bi_left = 0;
    std::vector<int> legal;  // sorted
    int to_act = -1;         // -1: None
    bool done = false;
    int wang = 0;
    std::array<int, 3> wang_shown{};
    int jokers = 0;
};

inline bool has(uint32_t set, int k) { return (set >> k) & 1u; }

}  // namespace phz
