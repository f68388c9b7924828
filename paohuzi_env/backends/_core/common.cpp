// Shared tables of the compiled core: ports of paohuzi_env/game/groups.py (CHI_GROUPS, group_huxi,
// the group type names) and paohuzi_env/game/actions.py (GROUPS_WITH, GROUP_ID). docs/rules.md section 3
// (R-GROUP-*) and the action catalogue.
#include "common.hpp"

#include <cstring>

namespace phz {

namespace {

// groups._chi_groups: small runs from point 1..8, big runs 1..8, 二七十, 贰柒拾, then the 绞 two
// small + one big (point 1..10) and one small + two big (1..10).
constexpr std::array<std::array<int, 3>, NUM_GROUPS> make_chi_groups() {
    std::array<std::array<int, 3>, NUM_GROUPS> out{};
    int n = 0;
    for (int base = 0; base <= 10; base += 10)
        for (int p = 0; p < 8; ++p) out[n++] = {base + p, base + p + 1, base + p + 2};
    out[n++] = {1, 6, 9};
    out[n++] = {11, 16, 19};
    for (int p = 0; p < 10; ++p) out[n++] = {p, p, p + 10};
    for (int p = 0; p < 10; ++p) out[n++] = {p, p + 10, p + 10};
    return out;
}

const char* const TYPE_NAMES[G_NUM_TYPES] = {
    "chi", "peng", "wei", "chou_wei", "pao", "ti",
    "ju", "jiao", "kan", "jiang", "loose", "wang_diao",
};

}  // namespace

// constexpr-built, so constant-initialised: safe to read from other files' static initialisers.
const std::array<std::array<int, 3>, NUM_GROUPS> CHI_GROUPS = make_chi_groups();

// actions.GROUPS_WITH: for each kind, the group action ids that contain it, ascending.
const std::array<std::vector<int>, NUM_KINDS> GROUPS_WITH = [] {
    std::array<std::vector<int>, NUM_KINDS> out;
    const auto groups = make_chi_groups();  // CHI_GROUPS may not be initialised yet here
    for (int k = 0; k < NUM_KINDS; ++k)
        for (int i = 0; i < NUM_GROUPS; ++i) {
            const auto& g = groups[i];
            if (g[0] == k || g[1] == k || g[2] == k) out[k].push_back(GROUP_BASE + i);
        }
    return out;
}();

// actions.GROUP_ID: sorted kind triple -> action id (a table over all triples of kinds).
namespace {
struct GroupIdTable {
    int8_t id[NUM_KINDS * NUM_KINDS * NUM_KINDS];
    constexpr GroupIdTable() : id() {
        for (int j = 0; j < NUM_KINDS * NUM_KINDS * NUM_KINDS; ++j) id[j] = -1;
        const auto groups = make_chi_groups();
        for (int i = 0; i < NUM_GROUPS; ++i) {
            const auto& g = groups[i];
            id[(g[0] * NUM_KINDS + g[1]) * NUM_KINDS + g[2]] = int8_t(i);
        }
    }
};
constexpr GroupIdTable GROUP_ID_TABLE{};
}  // namespace

int group_id(const std::array<int, 3>& sorted_cards) {
    const int a = sorted_cards[0], b = sorted_cards[1], c = sorted_cards[2];
    if (a < 0 || b < 0 || c < 0 || a >= NUM_KINDS || b >= NUM_KINDS || c >= NUM_KINDS) return -1;
    const int i = GROUP_ID_TABLE.id[(a * NUM_KINDS + b) * NUM_KINDS + c];
    return i < 0 ? -1 : GROUP_BASE + i;
}

const char* group_type_name(GroupType t) {
    return t < G_NUM_TYPES ? TYPE_NAMES[t] : "?";
}

int group_type_name_rank(GroupType t) {
    static const std::array<int, G_NUM_TYPES> rank = [] {
        std::array<int, G_NUM_TYPES> r{};
        for (int t = 0; t < G_NUM_TYPES; ++t)
            for (int u = 0; u < G_NUM_TYPES; ++u)
                r[t] += std::string(TYPE_NAMES[u]) < std::string(TYPE_NAMES[t]);
        return r;
    }();
    return t < G_NUM_TYPES ? rank[t] : -1;  // "?" sorts before every (lower-case) name
}

bool group_type_from_name(const std::string& s, GroupType* out) {
    for (int t = 0; t < G_NUM_TYPES; ++t)
        if (s == TYPE_NAMES[t]) {
            if (out) *out = static_cast<GroupType>(t);
            return true;
        }
    return false;
}

// groups.sequence_huxi: 一二三 / 二七十 3, 壹贰叁 / 贰柒拾 6, other 句 and every 绞 0.
static int sequence_huxi(const std::vector<int>& cards) {
    if (cards.size() < 3) return 0;
    const int a = cards[0];
    if ((a % 10 == 0 && cards[1] == a + 1 && cards[2] == a + 2) ||
        (a % 10 == 1 && cards[1] == a + 5 && cards[2] == a + 8))
        return a >= 10 ? 6 : 3;
    return 0;
}

// groups.group_huxi: the table of docs/rules.md section 3 (R-GROUP-*), (small, big).
int group_huxi(GroupType t, const std::vector<int>& cards) {
    switch (t) {
        case G_CHI: case G_JU: case G_JIAO: return sequence_huxi(cards);
        default: break;
    }
    int small, big;
    switch (t) {
        case G_PENG: small = 1; big = 3; break;
        case G_KAN: case G_WEI: case G_CHOU_WEI: small = 3; big = 6; break;
        case G_PAO: small = 6; big = 9; break;
        case G_TI: small = 9; big = 12; break;
        default: return 0;  // jiang, loose, wang_diao
    }
    if (cards.empty()) return 0;
    return cards[0] >= 10 ? big : small;
}

}  // namespace phz
