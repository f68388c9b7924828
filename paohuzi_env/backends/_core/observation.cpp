// Ports of paohuzi_env/encode/observation.py (encode: paohuzi-obs-v1, and v2 with 王 — docs/rules.md section
// 10) and paohuzi_env/encode/state.py (state_extra, encode_state). Layouts: the Python module docstrings.
#include "observation.hpp"

#include <algorithm>
#include <cstring>

namespace phz {

namespace {

// observation.py offsets
constexpr int SEAT_BLOCK = 80, SEAT_SIZE = 162;
constexpr int OFFER = SEAT_BLOCK + 3 * SEAT_SIZE;  // 566
constexpr int OFFER_SOURCE = OFFER + 20;
constexpr int OFFER_FROM = OFFER_SOURCE + 3;
constexpr int DECISION = OFFER_FROM + 3;  // 592
constexpr int BI_GROUPS = DECISION + 5;
constexpr int BI_LEFT = BI_GROUPS + NUM_GROUPS;
constexpr int CHOU = BI_LEFT + 1;  // 636
constexpr int CHI_CLOSED = CHOU + 20;
constexpr int DECLINED_PENG = CHI_CLOSED + 20;
constexpr int HU_BLOCKED = DECLINED_PENG + 20;
constexpr int WALL = HU_BLOCKED + 20;  // 716
constexpr int DEALER = WALL + 1;
constexpr int LIANG = DEALER + 3;
constexpr int UNSEEN = LIANG + 20;  // 740
static_assert(UNSEEN == OBS_UNSEEN, "observation.hpp's OBS_UNSEEN");
constexpr int TO_ACT = UNSEEN + 20;
static_assert(TO_ACT + 3 == OBS_SIZE, "observation layout");
constexpr int OWN_WANG = OBS_SIZE;  // v2 only
constexpr int WANG_SHOWN = OWN_WANG + 1;
constexpr int WANG_UNSEEN = WANG_SHOWN + 3;
constexpr int OFFER_WANG = WANG_UNSEEN + 1;
constexpr int LIANG_WANG = OFFER_WANG + 1;
constexpr int HU_BLOCKED_WANG = LIANG_WANG + 1;
static_assert(HU_BLOCKED_WANG + 1 == OBS_SIZE_V2, "observation v2 layout");
constexpr double WANG_COPIES = 2.0;  // cards.WANG_COPIES

// state.py offsets (into the extra)
constexpr int S_HANDS = 0, S_WEI = 40, S_WALL = 80, S_NEXT = 100, S_NEXT_CARDS = 3;
constexpr int S_WANG_HANDS = 160, S_WANG_WALL = 162, S_WANG_NEXT = 163;

// observation._TYPE_OFFSET: peng 0, wei 20, chou_wei 40, pao 60, ti 80.
int type_offset(GroupType t) {
    switch (t) {
        case G_PENG: return 0;
        case G_WEI: return 20;
        case G_CHOU_WEI: return 40;
        case G_PAO: return 60;
        case G_TI: return 80;
        default: return -1;
    }
}

inline int rel(int who, int me) { return ((who - me) % 3 + 3) % 3; }  // Python's (who - me) % 3
inline float f32(double x) { return static_cast<float>(x); }          // array('f') store
inline void add(float* x, int i, double d) { x[i] = f32(double(x[i]) + d); }  // x[i] += d

}  // namespace

// observation.encode
void encode(const View& v, float* x) {
    const bool v2 = v.jokers > 0;
    std::memset(x, 0, sizeof(float) * (v2 ? OBS_SIZE_V2 : OBS_SIZE));
    const int me = v.seat;
    std::array<int, NUM_KINDS> seen;
    for (int k = 0; k < NUM_KINDS; ++k) seen[k] = v.hand[k];
    for (int k = 0; k < NUM_KINDS; ++k) {
        const int n = v.hand[k];
        for (int j = 0; j < 4; ++j) x[4 * k + j] = n > j ? 1.0f : 0.0f;  // _LEVEL[n]
    }
    for (int r = 0; r < 3; ++r) {
        const int s = (me + r) % 3;
        const int base = SEAT_BLOCK + r * SEAT_SIZE;
        int hidden = 0, huxi = 0, paoti = 0;
        for (const TableGroup& g : v.table[s]) {
            if (g.hidden) {
                hidden += 1;
                continue;
            }
            for (int k : g.cards) seen[k] += 1;
            huxi += group_huxi(g.type, g.cards);
            if (g.type == G_CHI) {
                const int id = group_id({g.cards[0], g.cards[1], g.cards[2]});
                add(x, base + 101 + id - GROUP_BASE, 0.25);
            } else {
                x[base + type_offset(g.type) + g.cards[0]] = 1.0f;
                if (g.type == G_PAO || g.type == G_TI) paoti += 1;
            }
        }
        x[base + 100] = f32(hidden / 7.0);
        for (int k : v.discards[s]) {
            add(x, base + 139 + k, 0.25);
            seen[k] += 1;
        }
        x[base + 159] = f32(huxi / 100.0);
        x[base + 160] = f32(paoti / 7.0);
        x[base + 161] = f32(v.hand_sizes[s] / 21.0);
    }
    if (v.has_offer) {
        const int k = v.offer_kind;
        if (k == WANG) {
            x[OFFER_WANG] = 1.0f;  // only with 王 in the deck (v2)
        } else {
            x[OFFER + k] = 1.0f;
            if (v.offer_source != S_LIANG) seen[k] += 1;
        }
        x[OFFER_SOURCE + v.offer_source] = 1.0f;
        x[OFFER_FROM + rel(v.offer_from, me)] = 1.0f;
    }
    if (v.decision != D_NONE) x[DECISION + v.decision] = 1.0f;
    for (const auto& g : v.bi_groups) add(x, BI_GROUPS + group_id(g) - GROUP_BASE, 0.25);
    x[BI_LEFT] = f32(v.bi_left / 3.0);
    const std::pair<int, uint32_t> sets[4] = {
        {CHOU, v.chou}, {CHI_CLOSED, v.chi_closed}, {DECLINED_PENG, v.declined_peng},
        {HU_BLOCKED, v.hu_blocked}};
    for (const auto& p : sets)
        for (int k = 0; k < NUM_KINDS; ++k)
            if (has(p.second, k)) x[p.first + k] = 1.0f;
    x[WALL] = f32(v.wall / (v2 ? 21.0 : 19.0));
    x[DEALER + rel(v.dealer, me)] = 1.0f;
    if (v.liang != WANG) x[LIANG + v.liang] = 1.0f;
    for (int k = 0; k < NUM_KINDS; ++k) x[UNSEEN + k] = f32(std::max(0, 4 - seen[k]) / 4.0);
    if (v.to_act >= 0) x[TO_ACT + rel(v.to_act, me)] = 1.0f;
    if (v2) {
        x[OWN_WANG] = f32(v.wang / WANG_COPIES);
        int others_shown = 0;
        for (int r = 0; r < 3; ++r) {
            const int s = (me + r) % 3;
            x[WANG_SHOWN + r] = f32(v.wang_shown[s] / WANG_COPIES);
            if (r) others_shown += v.wang_shown[s];
        }
        x[WANG_UNSEEN] = f32(std::max(0, v.jokers - v.wang - others_shown) / WANG_COPIES);
        x[LIANG_WANG] = v.liang == WANG ? 1.0f : 0.0f;
        x[HU_BLOCKED_WANG] = has(v.hu_blocked, WANG) ? 1.0f : 0.0f;
    }
}

// state.state_extra: hidden information relative to `seat` (other hands, their 偎 kinds, the
// wall by kind and its next three cards; with 王 the six entries after the 160).
void state_extra(const Game& g, int seat, float* x) {
    const int wang = g.rules().wang;
    std::memset(x, 0, sizeof(float) * state_extra_size(g.rules()));
    for (int r = 1; r <= 2; ++r) {
        const int s = (seat + r) % 3;
        const Counts& h = g.hand(s);
        for (int k = 0; k < NUM_KINDS; ++k)
            x[S_HANDS + NUM_KINDS * (r - 1) + k] = static_cast<float>(h[k]) / 4.0f;
        for (const Meld& m : g.melds(s))
            if (m.type == G_WEI) x[S_WEI + NUM_KINDS * (r - 1) + m.cards[0]] = 1.0f;
    }
    const auto& deck = g.deck();
    for (int i = g.wall_pos(); i < int(deck.size()); ++i) {
        const int k = deck[i];
        if (k == WANG) add(x, S_WANG_WALL, 1.0 / WANG_COPIES);
        else add(x, S_WALL + k, 0.25);
    }
    for (int i = 0; i < S_NEXT_CARDS && g.wall_pos() + i < int(deck.size()); ++i) {
        const int k = deck[g.wall_pos() + i];
        if (k == WANG) x[S_WANG_NEXT + i] = 1.0f;
        else x[S_NEXT + NUM_KINDS * i + k] = 1.0f;
    }
    if (wang)
        for (int r = 1; r <= 2; ++r)
            x[S_WANG_HANDS + r - 1] = f32(g.wang((seat + r) % 3) / WANG_COPIES);
}

// state.encode_state
void encode_state(const Game& g, int seat, float* out, View* scratch) {
    View local;
    View& v = scratch ? *scratch : local;
    g.fill_view(seat, v);
    encode(v, out);
    state_extra(g, seat, out + obs_size(g.rules()));
}

}  // namespace phz
