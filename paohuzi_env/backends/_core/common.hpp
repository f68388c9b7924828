// paohuzi-env compiled core: shared constants and small types.
//
// The Python package is the readable reference (paohuzi_env/*.py); every function here is a port
// of a named Python function and must agree with it decision by decision (tests/test_fast_*.py).
// Rule ids (R-...) are those of docs/rules.md.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace phz {

constexpr int NUM_KINDS = 20;   // ordinary kinds 0..19 (cards.NUM_KINDS)
constexpr int WANG = 20;        // the joker 王 (cards.WANG), counted apart from the kinds
constexpr int COPIES = 4;
constexpr int NUM_CARDS = 80;   // without 王
constexpr int NUM_SEATS = 3;
constexpr int NUM_ACTIONS = 61; // actions.NUM_ACTIONS
constexpr int GROUP_BASE = 20;  // actions.GROUP_BASE
constexpr int NUM_GROUPS = 38;  // actions.NUM_GROUPS
constexpr int PENG = 58, HU = 59, PASS = 60;

using Counts = std::array<int, NUM_KINDS>;  // a hand as counts over the 20 kinds

// Group types: the strings of paohuzi_env.game.groups, in one enum. Names via group_type_name().
enum GroupType : uint8_t {
    G_CHI, G_PENG, G_WEI, G_CHOU_WEI, G_PAO, G_TI,       // table groups (MELD_TYPES)
    G_JU, G_JIAO, G_KAN, G_JIANG, G_LOOSE, G_WANG_DIAO,  // hand groups (HAND_TYPES)
    G_NUM_TYPES
};
const char* group_type_name(GroupType t);       // "chi", "peng", ... as in Python
int group_type_name_rank(GroupType t);          // its place among the names in sorted order
bool group_type_from_name(const std::string& s, GroupType* out);

// A group (门子): type and its sorted kinds (3 or 4 for groups, 2 for a 将; a `loose` group of a
// forced 天胡 may hold any number of kinds, WANG included).
struct Group {
    GroupType type;
    std::vector<int> cards;
    bool operator==(const Group& o) const { return type == o.type && cards == o.cards; }
    bool operator<(const Group& o) const {  // Python's tuple order: by type *name*, then cards
        if (type != o.type) return group_type_name_rank(type) < group_type_name_rank(o.type);
        return cards < o.cards;
    }
};

// The 38 吃 groups in action-id order (groups.CHI_GROUPS): CHI_GROUPS[a - GROUP_BASE].
extern const std::array<std::array<int, 3>, NUM_GROUPS> CHI_GROUPS;
// GROUPS_WITH[k]: the group action ids containing kind k, ascending (actions.GROUPS_WITH).
// (CHI_GROUPS is constant-initialised; GROUPS_WITH is built at start-up, so do not read it from
// another file's static initialiser.)
extern const std::array<std::vector<int>, NUM_KINDS> GROUPS_WITH;
int group_id(const std::array<int, 3>& sorted_cards);  // actions.GROUP_ID, -1 if none
int group_huxi(GroupType t, const std::vector<int>& cards);  // groups.group_huxi

inline bool is_red(int k) { return k < NUM_KINDS && (k % 10 == 1 || k % 10 == 6 || k % 10 == 9); }

}  // namespace phz
