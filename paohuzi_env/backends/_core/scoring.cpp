// The hand evaluator: a port of paohuzi_env/game/scoring.py `evaluate_counts` and everything it calls
// (R-WIN-1..5, R-SCORE-*, R-START-1, R-WANG-4..7; docs/rules.md sections 4, 8, 9, 10).
//
// Literal port: each function below names the Python function it ports, and the search order
// (which decides which of two equally good decompositions is returned) is the Python order.
// Comparisons are strict (`>`) exactly where the Python ones are, so ties keep the first found.
//
// Memo (as Python's lru_caches):
//   * solve()      (_solve)      on (packed loose counts, pair);
//   * solve_wild() (_solve_wild) on (packed, pair, number of 王);
//   * evaluate()   (evaluate_counts) whole answers on the canonical EvalKey (rules id included).
// Decompositions are stored as linked lists through the memo entries (a group + the entry of the
// rest), which is how the Python tuples `(group,) + sub[1]` share their tails; the nodes of an
// stores (std::deque, appended to only) never move, so the links stay valid until a table is
// emptied, which happens only at the start of a top-level call (never during a search). The
// indexes are flat open-addressing tables (flat.hpp) of pointers into those stores.
// Thread safety: one mutex guards all three tables; evaluate() holds it for the whole call.
#include "scoring.hpp"

#include "bits.hpp"
#include "flat.hpp"

#include <algorithm>
#include <initializer_list>
#include <deque>
#include <memory>
#include <mutex>
#include <stdexcept>

namespace phz {

namespace {

constexpr int BITS = 3;  // scoring._BITS
inline uint64_t unit(int k) { return uint64_t(1) << (BITS * k); }
inline int count_of(uint64_t packed, int k) { return int((packed >> (BITS * k)) & 7); }

// scoring.pack_counts (counts must be 0..7)
uint64_t pack_counts(const Counts& c) {
    uint64_t p = 0;
    for (int k = 0; k < NUM_KINDS; ++k) p += uint64_t(c[k]) * unit(k);
    return p;
}

inline int lowest_kind(uint64_t packed) {  // (low.bit_length() - 1) // _BITS
    return ctz64(packed) / BITS;
}

inline int floordiv(int a, int b) {  // Python's //
    int q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
    return q;
}

// ------------------------------------------------------------------ _solve

constexpr uint8_t NO_GROUP = 255;

// A hand group of a decomposition: type, and its 2 (jiang) or 3 cards.
struct SG {
    uint8_t type = NO_GROUP;
    uint8_t n = 0;
    uint8_t c[3] = {0, 0, 0};
};

inline SG sg(GroupType t, int a, int b) {
    SG g; g.type = t; g.n = 2; g.c[0] = uint8_t(a); g.c[1] = uint8_t(b); return g;
}
inline SG sg(GroupType t, int a, int b, int c) {
    SG g; g.type = t; g.n = 3; g.c[0] = uint8_t(a); g.c[1] = uint8_t(b); g.c[2] = uint8_t(c);
    return g;
}

// scoring._Solved: (best_huxi, best_groups, pp_huxi, pp_groups). The groups are a list: `bg`
// then the best list of `bnext`; the 碰碰胡 list: `pg` then the pp list of `pnext`. The
// terminal (packed 0, no pair) has no group.
struct Solved {
    int bh = -1;  // -1: None
    SG bg;
    const Solved* bnext = nullptr;
    int ph = -1;  // -1: no pp decomposition
    SG pg;
    const Solved* pnext = nullptr;
};

const Solved TERMINAL = [] { Solved s; s.bh = 0; s.ph = 0; return s; }();

std::mutex mu;  // guards every table of this file
std::deque<Solved> solve_store;                        // every answer of solve(), None included
FlatMap<uint64_t, const Solved*, U64Hash> solve_memo;  // key -> its answer in solve_store

// scoring._solve: best decomposition of the loose cards into 句/绞 (and 碰-like triples, which
// only the winning card can make, R-WIN-2) with exactly one 将 when `pair`; also the best with
// no 句/绞 at all (碰碰胡). nullptr for None.
const Solved* solve(uint64_t packed, bool pair) {
    if (packed == 0) return pair ? nullptr : &TERMINAL;
    const uint64_t key = packed << 1 | uint64_t(pair);
    if (const Solved* const* hit = solve_memo.find(key)) return (*hit)->bh < 0 ? nullptr : *hit;

    const int i = lowest_kind(packed);
    const int c = count_of(packed, i);
    const uint64_t u = unit(i);
    Solved out;  // best_h = -1, pp_h = -1

    auto take = [&](uint64_t rest, bool still_pair, SG group, int h, bool pp_ok) {
        const Solved* sub = solve(rest, still_pair);
        if (sub == nullptr) return;
        if (sub->bh + h > out.bh) { out.bh = sub->bh + h; out.bg = group; out.bnext = sub; }
        if (pp_ok && sub->ph >= 0 && sub->ph + h > out.ph) {
            out.ph = sub->ph + h; out.pg = group; out.pnext = sub;
        }
    };

    if (pair && c >= 2) take(packed - 2 * u, false, sg(G_JIANG, i, i), 0, true);
    if (c >= 3)  // a hand pair + the winning card: a 碰-like triple (R-WIN-2)
        take(packed - 3 * u, pair, sg(G_PENG, i, i, i), i >= 10 ? 3 : 1, true);
    const int p = i % 10;
    if (p <= 7 && count_of(packed, i + 1) && count_of(packed, i + 2)) {
        const int h = p == 0 ? (i >= 10 ? 6 : 3) : 0;
        take(packed - u - unit(i + 1) - unit(i + 2), pair, sg(G_JU, i, i + 1, i + 2), h, false);
    }
    if (p == 1 && count_of(packed, i + 5) && count_of(packed, i + 8)) {
        const int h = i >= 10 ? 6 : 3;
        take(packed - u - unit(i + 5) - unit(i + 8), pair, sg(G_JU, i, i + 5, i + 8), h, false);
    }
    if (i < 10) {
        const int j = i + 10;
        const int cj = count_of(packed, j);
        if (c >= 2 && cj >= 1) take(packed - 2 * u - unit(j), pair, sg(G_JIAO, i, i, j), 0, false);
        if (cj >= 2) take(packed - u - 2 * unit(j), pair, sg(G_JIAO, i, j, j), 0, false);
    }
    if (out.bh < 0) out = Solved{};  // None (bh -1)
    solve_store.push_back(out);
    const Solved* ins = &solve_store.back();
    solve_memo.insert(key, ins);
    return ins->bh < 0 ? nullptr : ins;
}

void emit(const SG& g, std::vector<Group>* out) {
    Group gr;
    gr.type = static_cast<GroupType>(g.type);
    gr.cards.assign(g.c, g.c + g.n);
    out->push_back(std::move(gr));
}

// The groups of a Solved's best list (solved[1]) / pp list (solved[3]).
void best_list(const Solved* s, std::vector<Group>* out) {
    for (; s != nullptr && s->bg.type != NO_GROUP; s = s->bnext) emit(s->bg, out);
}
void pp_list(const Solved* s, std::vector<Group>* out) {
    for (; s != nullptr && s->pg.type != NO_GROUP; s = s->pnext) emit(s->pg, out);
}
bool best_list_empty(const Solved* s) { return s == nullptr || s->bg.type == NO_GROUP; }
bool list_has_sequence(const Solved* s, bool pp) {  // any group of the list a 句/绞
    for (; s != nullptr; s = pp ? s->pnext : s->bnext) {
        const SG& g = pp ? s->pg : s->bg;
        if (g.type == NO_GROUP) break;
        if (g.type == G_JU || g.type == G_JIAO) return true;
    }
    return false;
}

// ------------------------------------------------------------------ _solve_wild (王)

// scoring._WGroup: (type, cards it stands for, kinds of its 王).
struct WG {
    SG g;
    uint8_t nw = 0;
    uint8_t wk[2] = {0, 0};
};

// One best[r] of scoring._WSolved: (huxi, groups). The groups: `g`, then the list of `wnext`
// (a wild entry) or else the best list of `snext` (a plain _solve answer), or nothing.
struct WEntry {
    int h = -1;  // -1: None
    WG g;
    const WEntry* wnext = nullptr;
    const Solved* snext = nullptr;
};
struct WSolved { WEntry e[3]; };

// scoring._WILD_TEMPLATES: per kind i, the hand groups containing i: (type, cards, others,
// huxi) where `others` are the cards besides one i (each of which a 王 may replace).
struct Template {
    GroupType type;
    SG cards;
    int n_others;
    int others[2];
    int huxi;
};

int seq_huxi3(int a, int b, int c) {  // groups.sequence_huxi on a sorted triple
    if ((a % 10 == 0 && b == a + 1 && c == a + 2) || (a % 10 == 1 && b == a + 5 && c == a + 8))
        return a >= 10 ? 6 : 3;
    return 0;
}

std::array<std::vector<Template>, NUM_KINDS> make_templates() {
    // groups.SEQUENCES: the 句 sorted by (first card is big), stably; groups.JIAOS: the 绞.
    std::vector<std::array<int, 3>> seqs, jiaos;
    for (int pass = 0; pass < 2; ++pass)
        for (const auto& g : CHI_GROUPS) {
            const bool jiao = g[0] == g[1] || g[1] == g[2];
            if (!jiao && (g[0] >= 10) == (pass == 1)) seqs.push_back(g);
        }
    for (const auto& g : CHI_GROUPS)
        if (g[0] == g[1] || g[1] == g[2]) jiaos.push_back(g);

    std::array<std::vector<Template>, NUM_KINDS> out;
    for (int i = 0; i < NUM_KINDS; ++i) {
        out[i].push_back(Template{G_JIANG, sg(G_JIANG, i, i), 1, {i, 0}, 0});
        out[i].push_back(Template{G_KAN, sg(G_KAN, i, i, i), 2, {i, i}, i >= 10 ? 6 : 3});
        for (int pass = 0; pass < 2; ++pass) {
            const GroupType t = pass == 0 ? G_JU : G_JIAO;
            for (const auto& g : pass == 0 ? seqs : jiaos) {
                if (g[0] != i && g[1] != i && g[2] != i) continue;
                // rest.remove(i): drop the first i, keep the order of the others
                int others[2], n = 0;
                bool removed = false;
                for (int k : g) {
                    if (!removed && k == i) { removed = true; continue; }
                    others[n++] = k;
                }
                out[i].push_back(Template{t, sg(t, g[0], g[1], g[2]), 2, {others[0], others[1]},
                                          seq_huxi3(g[0], g[1], g[2])});
            }
        }
    }
    return out;
}

const std::array<std::vector<Template>, NUM_KINDS>& templates() {
    static const auto t = make_templates();
    return t;
}

// scoring._NO_WILD and scoring._WANG_PAIR (two 王 alone as the 将: black 一 or red 二, R-WANG-4).
const WSolved NO_WILD{};
const WSolved WANG_PAIR = [] {
    WSolved s;
    s.e[0].h = 0; s.e[0].g.g = sg(G_JIANG, 0, 0); s.e[0].g.nw = 2; s.e[0].g.wk[0] = 0; s.e[0].g.wk[1] = 0;
    s.e[2].h = 0; s.e[2].g.g = sg(G_JIANG, 1, 1); s.e[2].g.nw = 2; s.e[2].g.wk[0] = 1; s.e[2].g.wk[1] = 1;
    return s;
}();

std::deque<WSolved> wild_store;
FlatMap<uint64_t, const WSolved*, U64Hash> wild_memo;

// scoring._solve_wild: _solve with w (1 or 2) 王 among the loose cards (R-WANG-4): for r = 0,
// 1, 2 red cards among the kinds the 王 stand for, the best (huxi, groups), or None.
const WSolved& solve_wild(uint64_t packed, bool pair, int w) {
    if (packed == 0) return pair && w == 2 ? WANG_PAIR : NO_WILD;
    const uint64_t key = packed << 3 | uint64_t(pair) << 2 | uint64_t(w);
    if (const WSolved* const* hit = wild_memo.find(key)) return **hit;

    const int i = lowest_kind(packed);
    WSolved best;
    struct Seen { uint64_t rest; bool still_pair; int nw; int wk[2]; };
    std::vector<Seen> seen;
    seen.reserve(32);
    for (const Template& tp : templates()[i]) {
        if (tp.type == G_JIANG && !pair) continue;
        const int n = tp.n_others;
        for (int mask = 0; mask < (1 << n); ++mask) {
            int wk[2], nwk = 0;
            for (int j = 0; j < n; ++j)
                if (mask >> j & 1) wk[nwk++] = tp.others[j];
            if (nwk > w) continue;
            uint64_t rest = packed - unit(i);
            bool ok = true;
            for (int j = 0; j < n; ++j) {
                if (mask >> j & 1) continue;
                const int k = tp.others[j];
                if (!count_of(rest, k)) { ok = false; break; }
                rest -= unit(k);
            }
            if (!ok) continue;
            const bool still_pair = pair && tp.type != G_JIANG;
            bool dup = false;
            for (const Seen& s : seen)
                if (s.rest == rest && s.still_pair == still_pair && s.nw == nwk &&
                    (nwk < 1 || s.wk[0] == wk[0]) && (nwk < 2 || s.wk[1] == wk[1])) {
                    dup = true;
                    break;
                }
            if (dup) continue;
            seen.push_back(Seen{rest, still_pair, nwk, {nwk > 0 ? wk[0] : 0, nwk > 1 ? wk[1] : 0}});
            WG group;
            group.g = tp.cards;
            int hx = tp.huxi;
            if (tp.type == G_KAN && nwk == 0) {  // a hand pair + the winning card
                group.g.type = G_PENG;
                hx = i >= 10 ? 3 : 1;
            }
            group.nw = uint8_t(nwk);
            for (int j = 0; j < nwk; ++j) group.wk[j] = uint8_t(wk[j]);
            int red = 0;
            for (int j = 0; j < nwk; ++j) red += is_red(wk[j]) ? 1 : 0;
            const int nw = w - nwk;
            if (nw) {
                const WSolved& sub = solve_wild(rest, still_pair, nw);
                for (int r = 0; r < 3; ++r) {
                    const WEntry& e = sub.e[r];
                    if (e.h < 0) continue;
                    WEntry& cur = best.e[r + red];
                    if (cur.h < 0 || e.h + hx > cur.h) {
                        cur.h = e.h + hx; cur.g = group; cur.wnext = &e; cur.snext = nullptr;
                    }
                }
            } else {
                const Solved* plain = solve(rest, still_pair);
                if (plain == nullptr) continue;
                WEntry& cur = best.e[red];
                if (cur.h < 0 || plain->bh + hx > cur.h) {
                    cur.h = plain->bh + hx; cur.g = group; cur.wnext = nullptr; cur.snext = plain;
                }
            }
        }
    }
    wild_store.push_back(best);
    wild_memo.insert(key, &wild_store.back());
    return wild_store.back();
}

// The groups of a wild entry, and its 王 as (index into the groups + base, kind).
void wild_list(const WEntry* e, int base, std::vector<Group>* groups,
               std::vector<std::pair<int, int>>* wang_as) {
    while (e != nullptr) {
        const int j = int(groups->size()) - base;
        emit(e->g.g, groups);
        if (wang_as)
            for (int x = 0; x < e->g.nw; ++x) wang_as->emplace_back(base + j, e->g.wk[x]);
        if (e->wnext) {
            e = e->wnext;
        } else {
            best_list(e->snext, groups);
            break;
        }
    }
}
int wild_red(const WEntry* e) {  // red cards among the kinds the 王 of the list stand for
    int red = 0;
    for (; e != nullptr; e = e->wnext)
        for (int x = 0; x < e->g.nw; ++x) red += is_red(e->g.wk[x]) ? 1 : 0;
    return red;
}

// ------------------------------------------------------------------ _score

struct Named { const char* name; int fan; bool has_fan; };

struct ScoreOut {
    int tun = 0, fan = 0, score = 0;
    int n_names = 0;
    const char* names[16];
};

// Python's ints do not overflow; Win's are int: refuse a fan or score beyond it (only custom
// fan tables can get there) rather than wrap.
int checked(long long v) {
    if (v > 2147483647LL || v < -2147483647LL)
        throw std::overflow_error("fan or score beyond the core's int range (custom fans?)");
    return int(v);
}

int combine(const int* fans, int n, bool multiply) {  // scoring._combine
    if (n == 0) return 1;
    long long total = multiply ? 1 : 0;
    for (int j = 0; j < n; ++j) total = checked(multiply ? total * fans[j] : total + fans[j]);
    return int(total);
}

// scoring._tun (R-SCORE-1): 1 + (huxi - min_huxi) // 3, at least 1.
int tun_of(int huxi, const Rules& rules) {
    return std::max(1, 1 + floordiv(huxi - rules.min_huxi, 3));
}

// scoring._score: (tun, fan, score, names) of one reading, or false if it is no legal win.
// The 名堂 of the rules' family (docs/rules.md section 9, R-SCORE-2; yongzhou R-WANG-7), the 平胡
// minimum (R-WIN-3), the 自摸 tun (R-WIN-4); `forced` (R-START-1) wins whatever its huxi.
bool score(const Rules& rules, int huxi, bool pp, int red, int big, int small, bool self_drawn,
           bool haidi, bool tianhu, bool dihu, bool shuahou, bool forced, int wang_diao,
           ScoreOut* out) {
    const Family fam = rules.scoring;
    auto F = [&](const char* n) { return rules.fan(n); };
    Named named[16];
    int nn = 0;
    auto add = [&](const char* n, int f) { named[nn++] = Named{n, f, true}; };
    auto add_none = [&](const char* n) { named[nn++] = Named{n, 0, false}; };
    auto any_fan = [&]() {
        for (int j = 0; j < nn; ++j) if (named[j].has_fan) return true;
        return false;
    };
    int fans[16];
    int nf = 0;
    int fan = 1;
    if (fam == F_HUAIHUA) {
        if (tianhu) add("天胡", F("天胡"));
        else if (dihu) add("地胡", F("地胡"));
        if (red == 0) add("乌胡", F("乌胡"));
        else if (red == 1) add("点胡", F("点胡"));
        else if (red >= 10) add("红胡", F("红胡") + red - 10);
        if (pp) add("碰碰胡", F("碰碰胡"));
        if (big >= 18) add("十八大", F("十八大") + big - 18);
        if (small >= 16) add("十六小", F("十六小") + small - 16);
        if (haidi) add("海底胡", F("海底胡"));
        for (int j = 0; j < nn; ++j) if (named[j].has_fan) fans[nf++] = named[j].fan;
        fan = combine(fans, nf, rules.fan_multiply);
    } else if (fam == F_CLASSIC) {
        if (tianhu) add_none("天胡");
        if (rules.fan_level != 0) {  // != "none"
            if (red == 0) add("乌胡", F("乌胡"));
            else if (red == 1) add("点胡", F("点胡"));
            else if (10 <= red && red < 13) add("红胡", F("红胡"));
            else if (red >= 13) add("红乌", F("红乌"));
        }
        if (rules.fan_level == 2) {  // "half"
            if (pp) add("对对胡", F("对对胡"));
            if (haidi) {
                const bool others = any_fan();
                add("海底", others ? F("海底") : 1);
            }
        }
        auto is_wu_dui = [](const char* n) {
            return std::string(n) == "乌胡" || std::string(n) == "对对胡";
        };
        bool have_wu = false, have_dui = false;
        for (int j = 0; j < nn; ++j) {
            const std::string n = named[j].name;
            have_wu |= n == "乌胡";
            have_dui |= n == "对对胡";
            if (named[j].has_fan && !is_wu_dui(named[j].name)) fans[nf++] = named[j].fan;
        }
        if (have_wu && have_dui) {
            fans[nf++] = 10;  // seed 004: 乌胡 with 对对胡 is 10 together
        } else {
            for (int j = 0; j < nn; ++j)
                if (is_wu_dui(named[j].name) && named[j].has_fan) fans[nf++] = named[j].fan;
        }
        fan = combine(fans, nf, rules.fan_multiply);
    } else if (fam == F_HONGSHANZHANG) {
        // seed 002's 红山掌 table; 天胡 and 地胡 are no 名堂 here (D-16).
        if (red == 0) add("黑胡", F("黑胡"));
        else if (red == 1) add("一点朱", F("一点朱"));
        else if (red >= 13) add("十三红", F("十三红"));
        else if (red >= 10) add("红胡", F("红胡"));
        if (pp) add("碰碰胡", F("碰碰胡"));
        if (big >= 18) add("十八大", F("十八大") + big - 18);
        if (small >= 18) add("十八小", F("十八小") + small - 18);
        if (haidi) add("海底", F("海底"));
        for (int j = 0; j < nn; ++j) if (named[j].has_fan) fans[nf++] = named[j].fan;
        fan = combine(fans, nf, rules.fan_multiply);
    } else if (fam == F_YONGZHOU) {
        // R-WANG-7: colour times way; no other 名堂.
        if (red == 0) add("黑胡", F("黑胡"));
        else if (red == 1) add("点朱胡", F("点朱胡"));
        else if (red >= 10) add("红胡", F("红胡"));
        if (wang_diao == 2) add("双王吊", F("双王吊"));
        else if (wang_diao == 1) add("单王吊", F("单王吊"));
        else if (tianhu ? rules.tianhu_is_zimo : self_drawn) add("自摸", F("自摸"));
        for (int j = 0; j < nn; ++j) if (named[j].has_fan) fans[nf++] = named[j].fan;
        fan = combine(fans, nf, rules.fan_multiply);
    } else {  // zipai (seed 003)
        const int cap = F("封顶");
        if (tianhu) add_none("天胡");
        if (red == 0) add("乌胡", F("乌胡"));
        else if (red == 1) add("真点胡", F("真点胡"));
        else if (red == 10) add("假点胡", F("假点胡"));
        else if (red == 11 || red == 12) add("红胡", F("红胡"));
        else if (red >= 13) add("红乌", std::min(cap, F("红乌") + red - 13));
        if (pp) add("对对胡", F("对对胡"));
        if (big >= 18) add("大字胡", std::min(cap, F("大字胡") + big - 18));
        if (small >= 16) add("小字胡", std::min(cap, F("小字胡") + small - 16));
        if (haidi) {
            const bool others = any_fan();
            add("海底", others ? F("海底加") : F("海底"));
        }
        for (int j = 0; j < nn; ++j) if (named[j].has_fan) fans[nf++] = named[j].fan;
        fan = combine(fans, nf, rules.fan_multiply);
        if (shuahou) {
            add_none("耍猴");
            fan = checked(static_cast<long long>(fan) * F("耍猴"));
        }
    }
    const bool zimo = tianhu ? rules.tianhu_is_zimo : self_drawn;
    if (!forced) {
        if (huxi < rules.min_huxi) return false;
        if (huxi < rules.pinghu_min_huxi && nn == 0 && !(zimo && rules.zimo_15)) return false;
    }
    const int tun_huxi = (fam == F_ZIPAI && tianhu) ? huxi * F("天胡") : huxi;
    int tun = tun_of(tun_huxi, rules);
    out->n_names = 0;
    for (int j = 0; j < nn; ++j) out->names[out->n_names++] = named[j].name;
    if (zimo && rules.zimo_tun) {
        tun += 1;
        bool has = false;
        for (int j = 0; j < out->n_names; ++j)
            if (std::string(out->names[j]) == "自摸") has = true;
        if (!has) out->names[out->n_names++] = "自摸";
    }
    out->tun = tun;
    out->fan = fan;
    out->score = checked(static_cast<long long>(tun) * fan);
    return true;
}

// ------------------------------------------------------------------ readings

// A reading of the winning card (scoring._readings): the table groups t = melds less
// `drop_meld` plus `add_meld` (of kind c) at the end; the locked groups lk = locked less the
// one of kind c when `drop_locked_c`, plus `add_locked` (of kind c) at the end; the loose
// counts; whether the winning card is loose.
constexpr GroupType NO_TYPE = G_NUM_TYPES;
struct Reading {
    int drop_meld = -1;
    GroupType add_meld = NO_TYPE;
    bool drop_locked_c = false;
    GroupType add_locked = NO_TYPE;
    Counts lo{};
    bool c_loose = false;
};

struct Ctx {
    const Counts& h;
    const std::vector<Group>& melds;
    int c;  // -1: None
};

int same_kind_size(GroupType t) { return (t == G_PAO || t == G_TI) ? 4 : 3; }

// Calls f(type, kind-or-cards-holder) for the table groups then the locked groups of a reading.
template <class F>
void for_each_fixed(const Ctx& x, const Reading& r, F&& f) {
    for (int m = 0; m < int(x.melds.size()); ++m)
        if (m != r.drop_meld) f(x.melds[m].type, &x.melds[m].cards, -1);
    if (r.add_meld != NO_TYPE) f(r.add_meld, nullptr, x.c);
    for (int k = 0; k < NUM_KINDS; ++k)
        if (x.h[k] >= 3 && !(r.drop_locked_c && k == x.c))
            f(x.h[k] == 4 ? G_TI : G_KAN, nullptr, k);
    if (r.add_locked != NO_TYPE) f(r.add_locked, nullptr, x.c);
}

// groups.group_huxi of a same-kind group (type t, kind k): (small, big) of R-GROUP's table.
int same_kind_huxi(GroupType t, int k) {
    int small = 0, big = 0;
    switch (t) {
        case G_PENG: small = 1; big = 3; break;
        case G_KAN: case G_WEI: case G_CHOU_WEI: small = 3; big = 6; break;
        case G_PAO: small = 6; big = 9; break;
        case G_TI: small = 9; big = 12; break;
        default: break;
    }
    return k >= 10 ? big : small;
}

int fixed_huxi(const Ctx& x, const Reading& r) {
    int total = 0;
    for_each_fixed(x, r, [&](GroupType t, const std::vector<int>* cards, int k) {
        total += cards ? group_huxi(t, *cards) : same_kind_huxi(t, k);
    });
    return total;
}

// The table groups then the locked groups of a reading, as Python's `t + lk`.
void fixed_groups(const Ctx& x, const Reading& r, std::vector<Group>* out) {
    for_each_fixed(x, r, [&](GroupType t, const std::vector<int>* cards, int k) {
        Group g;
        g.type = t;
        if (cards) g.cards = *cards;
        else g.cards.assign(same_kind_size(t), k);  // (k,) * 3 or 4 (locked: h[k] is 3 or 4)
        out->push_back(std::move(g));
    });
}

// scoring._readings (R-WIN-2, R-FLOW-2/3/4.2).
int make_readings(const Ctx& x, const Counts& loose, bool self_drawn, bool from_discard,
                  Reading out[3]) {
    const int c = x.c;
    int n = 0;
    if (c < 0) {
        out[n] = Reading{};
        out[n].lo = loose;
        return 1;
    }
    int moc = -1;  // meld_of_c: the first non-吃 table group of kind c
    for (int m = 0; m < int(x.melds.size()); ++m)
        if (!x.melds[m].cards.empty() && x.melds[m].cards[0] == c && x.melds[m].type != G_CHI) {
            moc = m;
            break;
        }
    const GroupType mt = moc >= 0 ? x.melds[moc].type : NO_TYPE;
    const int hc = x.h[c];
    if (self_drawn && (hc == 2 || hc == 3 || mt == G_WEI || mt == G_CHOU_WEI)) {
        // The draw is forced into a 偎 or 提 (R-FLOW-2); it is read only as that.
        Reading r;
        r.lo = loose;
        if (hc == 3) {
            r.drop_locked_c = true;
            r.add_locked = G_TI;
        } else if (hc == 2) {
            r.lo[c] = 0;
            r.add_locked = G_WEI;
        } else {
            r.drop_meld = moc;
            r.add_meld = G_TI;
        }
        out[n++] = r;
    } else {
        Reading r;
        r.lo = loose;
        r.lo[c] += 1;
        r.c_loose = true;
        out[n++] = r;  // the card as a loose card
        if (hc == 3 && !self_drawn) {  // 跑胡 (R-FLOW-3.2)
            Reading p;
            p.lo = loose;
            p.drop_locked_c = true;
            p.add_locked = G_PAO;
            out[n++] = p;
        }
        if (moc >= 0 && (((mt == G_WEI || mt == G_CHOU_WEI) && !self_drawn) ||
                         (mt == G_PENG && !from_discard))) {  // 跑胡 (R-FLOW-3.2 / 4.2)
            Reading p;
            p.lo = loose;
            p.drop_meld = moc;
            p.add_meld = G_PAO;
            out[n++] = p;
        }
    }
    return n;
}

// scoring._shape (R-WIN-1 on counts): 1 if a 将 is needed, 0 if not, -1 when the cards cannot
// make exactly 7 门子.
int shape(const Ctx& x, const Reading& r, int n_loose) {
    int n_fixed = 0, n_paoti = 0;
    for_each_fixed(x, r, [&](GroupType t, const std::vector<int>*, int) {
        ++n_fixed;
        if (t == G_PAO || t == G_TI) ++n_paoti;
    });
    const bool need_pair = n_paoti > 0;
    const int rest = n_loose - (need_pair ? 2 : 0);
    if (rest < 0 || rest % 3) return -1;
    if (n_fixed + rest / 3 + (need_pair ? 1 : 0) != 7) return -1;  // R-WIN-1: exactly 7 门子
    return need_pair ? 1 : 0;
}

int sum_counts(const Counts& c) {
    int s = 0;
    for (int n : c) s += n;
    return s;
}

// scoring._whole_counts: hand + table groups + the winning card.
Counts whole_counts(const Counts& hand, const std::vector<Group>& melds, int c) {
    Counts total = hand;
    for (const Group& m : melds)
        for (int k : m.cards)
            if (0 <= k && k < NUM_KINDS) total[k] += 1;
    if (c >= 0) total[c] += 1;
    return total;
}

// scoring._colours (R-SCORE-3)
void colours(const Counts& counts, int* red, int* big, int* small) {
    *red = *big = *small = 0;
    for (int k = 0; k < NUM_KINDS; ++k) {
        const int n = counts[k];
        if (!n) continue;
        if (is_red(k)) *red += n;
        if (k >= 10) *big += n; else *small += n;
    }
}

void fill_names(const ScoreOut& sc, Win* w) {
    w->tun = sc.tun;
    w->fan = sc.fan;
    w->score = sc.score;
    w->names.assign(sc.names, sc.names + sc.n_names);
}

// R-START-1: a forced 天胡 (3 four-of-a-kinds, or 5 坎/提) of a complete holding with no melds.
bool forced_tianhu_of(const Counts& h) {
    int n4 = 0, n3 = 0;
    for (int n : h) { n4 += n == 4; n3 += n == 3; }
    return n4 >= 3 || n4 + n3 >= 5;
}

// ------------------------------------------------------------------ a quick "no win"

// Kind k, held once or twice among the loose cards `lo`, is *stranded* when it can join no hand
// group of _solve but a 将: no 句 through k (a run of three in its suit, or 二七十) has both other
// cards, and no 绞 of k and the other size's same number can form (a single k needs two of the
// other, a pair one). A stranded single card can join nothing.
//
// A sound shortcut of evaluate_plain: true only when it would return None. Every reading of
// make_readings has as loose cards the hand's loose cards, plus `c` in the first, and _solve must
// place every loose card in a group, with at most one 将. A kind other than `c` stranded in the
// first reading's cards is stranded in every reading (the others have fewer cards). So: a
// stranded single, or two stranded pairs (both could only be the 将), mean no win. (A forced
// 天胡, R-START-1, needs no decomposition: surely_loses does not ask for one.)
// The loose bits with one more copy of kind c (`n` its loose count before).
LooseBits plus_one(LooseBits b, int c, int n) {
    const uint32_t bit = 1u << c;
    b.P |= bit;
    b.ONE &= ~bit;
    b.TWO &= ~bit;
    if (n == 0) b.ONE |= bit;
    if (n == 1) b.TWO |= bit;
    if (n >= 1) b.GE2 |= bit;
    return b;
}

// The test above on the loose bits (which hold `c`, -1 for none), every kind at once.
bool no_win_bits(const LooseBits& b, int c) {
    constexpr uint32_t ALL = (1u << NUM_KINDS) - 1;
    constexpr auto at = [](std::initializer_list<int> ps) {  // these numbers 0..9, both sizes
        uint32_t m = 0;
        for (int q : ps) m |= (1u << q) | (1u << (q + 10));
        return m;
    };
    constexpr uint32_t P_GE2 = at({2, 3, 4, 5, 6, 7, 8, 9}), P_MID = at({1, 2, 3, 4, 5, 6, 7, 8}),
                       P_LE7 = at({0, 1, 2, 3, 4, 5, 6, 7}), P1 = at({1}), P6 = at({6}),
                       P9 = at({9});
    const uint32_t P = b.P;
    uint32_t joined = ((P << 1) & (P << 2) & P_GE2)    // k-2, k-1
                      | ((P << 1) & (P >> 1) & P_MID)  // k-1, k+1
                      | ((P >> 1) & (P >> 2) & P_LE7)  // k+1, k+2
                      | ((P >> 5) & (P >> 8) & P1)     // 二七十: 七 and 十 with 二
                      | ((P << 5) & (P >> 3) & P6)     // 二 and 十 with 七
                      | ((P << 8) & (P << 3) & P9);    // 二 and 七 with 十
    const uint32_t other = ((P >> 10) | (P << 10)) & ALL;
    const uint32_t other2 = ((b.GE2 >> 10) | (b.GE2 << 10)) & ALL;
    joined |= (b.ONE & other2) | (b.TWO & other);  // 绞 (k, j, j) / (k, k, j)
    uint32_t alone = (b.ONE | b.TWO) & ~joined;
    if (c >= 0) alone &= ~(1u << c);
    return (alone & b.ONE) != 0 || popcount32(alone & b.TWO) >= 2;
}

bool surely_no_win(const Counts& hand, int c) {
    const LooseBits b = loose_bits(hand);
    return no_win_bits(c < 0 ? b : plus_one(b, c, hand[c] < 3 ? hand[c] : 0), c);
}

// Whether _solve(packed, pair) has an answer (solve() != nullptr), searched without the memo: most
// holdings that reach it have none, and this search is cheaper than filling the memo with them.
// Its choices at each step are solve()'s. After `budget` positions it gives up and says yes
// (solve() then decides), so an unlucky holding costs no more than that.
bool decomposes(uint64_t packed, bool pair, int* budget) {
    if (packed == 0) return !pair;
    if (--*budget < 0) return true;
    const int i = lowest_kind(packed);
    const int c = count_of(packed, i);
    const uint64_t u = unit(i);
    if (pair && c >= 2 && decomposes(packed - 2 * u, false, budget)) return true;
    if (c >= 3 && decomposes(packed - 3 * u, pair, budget)) return true;
    const int p = i % 10;
    if (p <= 7 && count_of(packed, i + 1) && count_of(packed, i + 2) &&
        decomposes(packed - u - unit(i + 1) - unit(i + 2), pair, budget))
        return true;
    if (p == 1 && count_of(packed, i + 5) && count_of(packed, i + 8) &&
        decomposes(packed - u - unit(i + 5) - unit(i + 8), pair, budget))
        return true;
    if (i < 10) {
        const int j = i + 10;
        const int cj = count_of(packed, j);
        if (c >= 2 && cj >= 1 && decomposes(packed - 2 * u - unit(j), pair, budget)) return true;
        if (cj >= 2 && decomposes(packed - u - 2 * unit(j), pair, budget)) return true;
    }
    return false;
}

// ------------------------------------------------------------------ evaluate_counts

// scoring.evaluate_counts without 王.
std::unique_ptr<Win> evaluate_plain(const Counts& hand, const std::vector<Group>& melds, int c,
                                    const Rules& rules, const EvalArgs& a) {
    bool tianhu = a.tianhu;
    if (tianhu && c >= 0 && rules.scoring == F_YONGZHOU)
        tianhu = false;  // R-WANG-7: a non-dealer's 亮张 win is no 天胡-as-自摸
    const Counts& h = hand;
    Counts loose;
    for (int k = 0; k < NUM_KINDS; ++k) loose[k] = h[k] < 3 ? h[k] : 0;
    const Ctx x{h, melds, c};
    Reading readings[3];
    const int nr = make_readings(x, loose, a.self_drawn, a.from_discard, readings);

    // Phase 1: which readings decompose into exactly 7 门子.
    struct Solvable { int r; const Solved* s; };
    Solvable solvable[3];
    int ns = 0;
    for (int j = 0; j < nr; ++j) {
        const int need = shape(x, readings[j], sum_counts(readings[j].lo));
        if (need < 0) continue;
        const uint64_t packed = pack_counts(readings[j].lo);
        int budget = 256;
        if (!decomposes(packed, need == 1, &budget)) continue;
        const Solved* s = solve(packed, need == 1);
        if (s != nullptr) solvable[ns++] = Solvable{j, s};
    }
    const bool forced = tianhu && c < 0 && melds.empty() && forced_tianhu_of(h);
    if (ns == 0 && !forced) return nullptr;

    // Phase 2: colours and sizes of the whole winning hand (R-SCORE-3), then scores.
    int red, big, small;
    colours(whole_counts(hand, melds, c), &red, &big, &small);
    bool table_has_seq = false;
    for (const Group& m : melds) table_has_seq |= m.type == G_CHI;
    const bool shuahou = c >= 0 && sum_counts(hand) == 1;

    struct Best {
        bool set = false;
        int score = 0, huxi = 0;
        ScoreOut sc;
        int kind = 0;  // 0: a reading's decomposition, 1: forced 天胡
        int r = 0;
        const Solved* s = nullptr;
        bool use_pp = false;
    } best;
    auto better = [&](int sc, int hx) {
        return !best.set || sc > best.score || (sc == best.score && hx > best.huxi);
    };
    for (int j = 0; j < ns; ++j) {
        const Reading& rd = readings[solvable[j].r];
        const Solved* s = solvable[j].s;
        const int fixed = fixed_huxi(x, rd);
        for (int opt = 0; opt < 2; ++opt) {
            if (opt == 1 && !(!table_has_seq && s->ph >= 0)) continue;
            const int hx = opt == 0 ? s->bh : s->ph;
            const int huxi = fixed + hx;
            const bool pp = opt == 1 || (!table_has_seq && !list_has_sequence(s, opt == 1));
            ScoreOut sc;
            if (!score(rules, huxi, pp, red, big, small, a.self_drawn, a.haidi, tianhu, a.dihu,
                       shuahou, false, 0, &sc))
                continue;
            if (better(sc.score, huxi)) {
                best.set = true; best.score = sc.score; best.huxi = huxi; best.sc = sc;
                best.kind = 0; best.r = solvable[j].r; best.s = s; best.use_pp = opt == 1;
            }
        }
    }

    // R-START-1 forced 天胡: 提 and 坎 count; the rest adds its best decomposition (with at most
    // one 将) if it has one, else 0 and it stays loose.
    const Solved* rest = nullptr;
    if (forced) {
        Reading none;  // the locked groups as they are
        none.lo = loose;
        const Ctx x0{h, melds, -1};
        const int fixed = fixed_huxi(x0, none);
        int rest_h = 0;
        const uint64_t packed = pack_counts(loose);
        for (bool need : {false, true}) {
            const Solved* s = solve(packed, need);
            if (s != nullptr && s->bh >= rest_h && (best_list_empty(rest) || s->bh > rest_h)) {
                rest_h = s->bh;
                rest = s;
            }
        }
        const int huxi = fixed + rest_h;
        ScoreOut sc;
        score(rules, huxi, false, red, big, small, a.self_drawn, a.haidi, true, false, false,
              true, 0, &sc);  // forced: always a win
        if (better(sc.score, huxi)) {
            best.set = true; best.score = sc.score; best.huxi = huxi; best.sc = sc;
            best.kind = 1;
        }
    }
    if (!best.set) return nullptr;

    auto w = std::make_unique<Win>();
    w->huxi = best.huxi;
    fill_names(best.sc, w.get());
    if (best.kind == 0) {
        fixed_groups(x, readings[best.r], &w->groups);
        if (best.use_pp) pp_list(best.s, &w->groups); else best_list(best.s, &w->groups);
    } else {
        Reading none;
        none.lo = loose;
        const Ctx x0{h, melds, -1};
        fixed_groups(x0, none, &w->groups);
        if (!best_list_empty(rest)) {
            best_list(rest, &w->groups);
        } else if (pack_counts(loose) != 0) {
            Group g;  // ("loose", kinds_of(loose))
            g.type = G_LOOSE;
            for (int k = 0; k < NUM_KINDS; ++k) g.cards.insert(g.cards.end(), loose[k], k);
            w->groups.push_back(std::move(g));
        }
    }
    w->red = red;
    w->big = big;
    w->small = small;
    return w;
}

// scoring._evaluate_wang: evaluate_counts for a hand with `wang` 王 (docs/rules.md section 10).
std::unique_ptr<Win> evaluate_wang(const Counts& hand, const std::vector<Group>& melds, int c,
                                   const Rules& rules, const EvalArgs& a) {
    const int wang = a.wang;
    if (!(0 < wang && wang <= rules.wang))
        throw std::invalid_argument(std::to_string(wang) + " 王 in the hand, but the " +
                                    rules.name + " rules have " + std::to_string(rules.wang) +
                                    " in the deck");
    if (c >= 0 && !a.self_drawn) return nullptr;  // R-WANG-5: a 王 holder wins only 自摸
    bool tianhu = a.tianhu;
    if (tianhu && c >= 0 && rules.scoring == F_YONGZHOU)
        tianhu = false;  // R-WANG-7: a non-dealer's 亮张 win is no 天胡-as-自摸
    const Counts& h = hand;
    Counts loose;  // R-GROUP-1 / R-WANG-4: only three or four REAL cards of a kind are locked
    for (int k = 0; k < NUM_KINDS; ++k) loose[k] = h[k] < 3 ? h[k] : 0;
    const Ctx x{h, melds, c};
    Reading readings[3];
    const int nr = make_readings(x, loose, a.self_drawn, false, readings);

    // candidates: (huxi, reading, 王 as (group index, kind), 王吊 1/2 or 0)
    struct Cand {
        int huxi;
        int r;
        const WEntry* e;      // a wild decomposition (R-WANG-4), or
        const Solved* diao;   // the rest of a 王吊 reading (R-WANG-6)
    };
    std::vector<Cand> cands;
    for (int j = 0; j < nr; ++j) {
        const Reading& rd = readings[j];
        const int need = shape(x, rd, sum_counts(rd.lo) + wang);
        if (need < 0) continue;
        const int fixed = fixed_huxi(x, rd);
        const WSolved& ws = solve_wild(pack_counts(rd.lo), need == 1, wang);
        for (int r = 0; r < 3; ++r)
            if (ws.e[r].h >= 0) cands.push_back(Cand{fixed + ws.e[r].h, j, &ws.e[r], nullptr});
        if (c >= 0 && rd.c_loose && (wang == 2 || need == 1)) {
            // R-WANG-6: 单王吊 (the 王 + c as the 将) or 双王吊 (both 王 + c); the 王 stand for c.
            Counts lo2 = rd.lo;
            lo2[c] -= 1;
            const Solved* sub = solve(pack_counts(lo2), need == 1 && wang == 2);
            if (sub != nullptr) cands.push_back(Cand{fixed + sub->bh, j, nullptr, sub});
        }
    }
    // R-START-1 counts real 提 and 坎 only (R-WANG-4).
    const bool forced = tianhu && c < 0 && melds.empty() && forced_tianhu_of(h);
    if (cands.empty() && !forced) return nullptr;

    Counts whole = whole_counts(hand, melds, c);
    int red0 = 0;
    for (int k = 0; k < NUM_KINDS; ++k) if (is_red(k)) red0 += whole[k];

    struct Best {
        bool set = false;
        int score = 0, huxi = 0;
        ScoreOut sc;
        int kind = 0;  // 0: reading candidate, 1: forced wild, 2: forced loose
        Cand cand{};
        const WEntry* fe = nullptr;
    } best;
    auto consider = [&](int huxi, int wang_red, int diao, bool forced_win) -> const ScoreOut* {
        static thread_local ScoreOut sc;
        if (!score(rules, huxi, false, red0 + wang_red, 0, 0, a.self_drawn, a.haidi, tianhu,
                   a.dihu, false, forced_win, diao, &sc))
            return nullptr;
        if (!best.set || sc.score > best.score || (sc.score == best.score && huxi > best.huxi))
            return &sc;
        return nullptr;
    };
    for (const Cand& cd : cands) {
        const int diao = cd.diao ? wang : 0;
        const int wang_red = cd.diao ? (is_red(c) ? wang : 0) : wild_red(cd.e);
        if (const ScoreOut* sc = consider(cd.huxi, wang_red, diao, false)) {
            best.set = true; best.score = sc->score; best.huxi = cd.huxi; best.sc = *sc;
            best.kind = 0; best.cand = cd;
        }
    }
    Reading none;
    none.lo = loose;
    const Ctx x0{h, melds, -1};
    if (forced) {
        // R-START-1 with 王 (D-4): the rest (loose real cards and the 王) adds its best
        // decomposition with at most one 将, the 王 as wildcards; else it stays loose, 0 huxi.
        const int fixed = fixed_huxi(x0, none);
        const uint64_t packed = pack_counts(loose);
        bool found = false;
        for (bool need : {false, true}) {
            const WSolved& ws = solve_wild(packed, need, wang);
            for (int r = 0; r < 3; ++r) {
                const WEntry* e = &ws.e[r];
                if (e->h < 0) continue;
                found = true;
                if (const ScoreOut* sc = consider(fixed + e->h, wild_red(e), 0, true)) {
                    best.set = true; best.score = sc->score; best.huxi = fixed + e->h;
                    best.sc = *sc; best.kind = 1; best.fe = e;
                }
            }
        }
        if (!found) {
            if (const ScoreOut* sc = consider(fixed, 0, 0, true)) {
                best.set = true; best.score = sc->score; best.huxi = fixed; best.sc = *sc;
                best.kind = 2;
            }
        }
    }
    if (!best.set) return nullptr;

    auto w = std::make_unique<Win>();
    w->huxi = best.huxi;
    fill_names(best.sc, w.get());
    if (best.kind == 0) {
        const Reading& rd = readings[best.cand.r];
        fixed_groups(x, rd, &w->groups);
        const int base = int(w->groups.size());
        if (best.cand.e) {
            wild_list(best.cand.e, base, &w->groups, &w->wang_as);
        } else {
            Group d;
            d.type = G_WANG_DIAO;
            d.cards.assign(wang + 1, c);
            w->groups.push_back(std::move(d));
            best_list(best.cand.diao, &w->groups);
            for (int j = 0; j < wang; ++j) w->wang_as.emplace_back(base, c);
        }
    } else {
        fixed_groups(x0, none, &w->groups);
        const int base = int(w->groups.size());
        if (best.kind == 1) {
            wild_list(best.fe, base, &w->groups, &w->wang_as);
        } else {
            Group g;  // ("loose", kinds_of(loose, wang))
            g.type = G_LOOSE;
            for (int k = 0; k < NUM_KINDS; ++k) g.cards.insert(g.cards.end(), loose[k], k);
            g.cards.insert(g.cards.end(), wang, WANG);
            w->groups.push_back(std::move(g));
            for (int j = 0; j < wang; ++j) w->wang_as.emplace_back(base, WANG);
        }
    }
    for (const auto& p : w->wang_as)
        if (p.second != WANG) whole[p.second] += 1;
    colours(whole, &w->red, &w->big, &w->small);
    return w;
}

// ------------------------------------------------------------------ the whole-answer memo

// Two generations; each owns the Wins it holds (`owned`, indexed by the entries' `idx`; no-win
// answers hold nullptr and own nothing). A hit in `old` moves the Win into `cur` (its address
// unchanged) and leaves a stale entry in `old`, which is never read again: `cur` is looked up
// first, and `old` is emptied as a whole when `cur` fills.
struct WinRef {
    const Win* w = nullptr;
    uint32_t idx = 0;  // into the generation's `owned` (when w != nullptr)
};
struct WinGen {
    FlatMap<EvalKey, WinRef, EvalKeyHash> map;
    std::vector<std::unique_ptr<Win>> owned;
    void add(const EvalKey& k, std::unique_ptr<Win> w) {
        WinRef r{w.get(), uint32_t(owned.size())};
        if (w) owned.push_back(std::move(w));
        map.insert(k, r);
    }
    void clear(bool release = false) {
        map.clear(release);
        owned.clear();
        if (release) owned.shrink_to_fit();
    }
};
struct WinMemo {
    WinGen cur, old;
};
WinMemo win_memo;
std::unique_ptr<Win> unmemoised;  // the answer of the last call whose input has no EvalKey

size_t SOLVE_CAP = SOLVE_MEMO_CAP;  // (scoring.hpp: why these sizes)
size_t WILD_CAP = WILD_MEMO_CAP;
size_t WIN_CAP = WIN_MEMO_CAP;  // per generation

// A full `cur` becomes `old` (the previous `old` and its Wins are dropped).
void roll_if_full() {
    if (win_memo.cur.map.size() < WIN_CAP) return;
    std::swap(win_memo.cur, win_memo.old);
    win_memo.cur.clear();
}

// A memo id for a Rules whose `id` is 0 (built in C++, not by the binding): equal rule sets
// (every field: rules.hpp same_rules) share one, above the binding's ids.
uint32_t content_id(const Rules& r) {
    static std::mutex content_mu;
    static std::vector<Rules> seen;
    std::lock_guard<std::mutex> lock(content_mu);
    for (size_t j = 0; j < seen.size(); ++j)
        if (same_rules(seen[j], r)) return 0x80000000u + uint32_t(j);
    seen.push_back(r);
    return 0x80000000u + uint32_t(seen.size() - 1);
}

}  // namespace

// An EvalKey (eval_key_tagged: with the given rules_id): the hand packed 3 bits a kind; up to 8 melds, a byte each (chi: group index + 1;
// others: 39 + 20 * (type - 1) + kind); win card, flags and 王 in `misc`; the rules id (where
// Rules::id is 0, an id by content: content_id).
bool eval_key_tagged(const Counts& hand, const std::vector<Group>& melds, int win_card,
                     const EvalArgs& a, uint32_t rules_id, EvalKey* out) {
    uint64_t ph = 0;
    for (int k = 0; k < NUM_KINDS; ++k) {
        if (hand[k] < 0 || hand[k] > 7) return false;
        ph |= uint64_t(hand[k]) << (3 * k);
    }
    if (melds.size() > 8) return false;
    uint64_t pm = 0;
    for (size_t j = 0; j < melds.size(); ++j) {
        const Group& m = melds[j];
        int code;
        if (m.type == G_CHI) {
            if (m.cards.size() != 3) return false;
            const int id = group_id({m.cards[0], m.cards[1], m.cards[2]});
            if (id < 0) return false;
            code = id - GROUP_BASE + 1;
        } else if (m.type >= G_PENG && m.type <= G_TI) {
            if (int(m.cards.size()) != same_kind_size(m.type)) return false;
            const int k = m.cards[0];
            if (k < 0 || k >= NUM_KINDS) return false;
            for (int x : m.cards) if (x != k) return false;
            code = 39 + 20 * (int(m.type) - 1) + k;
        } else {
            return false;
        }
        pm |= uint64_t(code) << (8 * j);
    }
    if (win_card < -1 || win_card >= NUM_KINDS || a.wang < 0 || a.wang > 3) return false;
    const uint32_t misc = uint32_t(win_card + 1) | uint32_t(a.self_drawn) << 5 |
                          uint32_t(a.haidi) << 6 | uint32_t(a.tianhu) << 7 |
                          uint32_t(a.dihu) << 8 | uint32_t(a.from_discard) << 9 |
                          uint32_t(a.wang) << 10;
    *out = EvalKey{ph, pm, misc, rules_id};
    return true;
}

bool eval_key(const Counts& hand, const std::vector<Group>& melds, int win_card,
              const Rules& rules, const EvalArgs& a, EvalKey* out) {
    return eval_key_tagged(hand, melds, win_card, a,
                           rules.id != 0 ? uint32_t(rules.id) : content_id(rules), out);
}

// evaluate()'s argument checks (std::invalid_argument naming what is allowed).
void check_eval_args(const Counts& hand, const std::vector<Group>& melds, int win_card) {
    if (win_card < -1 || win_card >= NUM_KINDS)
        throw std::invalid_argument("win_card must be an ordinary kind 0..19 or -1 (None)");
    for (int n : hand)
        if (n < 0 || n > 4) throw std::invalid_argument("hand counts must be 0..4");
    for (const Group& m : melds) {
        if (m.cards.empty() || m.cards.size() > 4)
            throw std::invalid_argument("a meld has 3 or 4 cards");
        for (int k : m.cards)
            if (k < 0 || k >= NUM_KINDS) throw std::invalid_argument("meld cards must be 0..19");
    }
}

// surely_no_win covers every reading of make_readings, so it is sound whenever evaluate_plain
// needs a decomposition: always but for a forced 天胡 (R-START-1), which needs none (its test
// here ignores the melds, so it keeps the shortcut off in more cases than needed, never fewer).
// Holdings with 王 go to evaluate_wang, which it does not cover.
bool surely_loses(const Counts& hand, int win_card, const EvalArgs& a) {
    if (a.wang != 0) return false;
    if (a.tianhu && win_card < 0 && forced_tianhu_of(hand)) return false;
    return surely_no_win(hand, win_card);
}

uint32_t maybe_winning_cards(const Counts& hand) {
    const LooseBits b = loose_bits(hand);
    uint32_t out = 0;
    for (int c = 0; c < NUM_KINDS; ++c)
        if (!no_win_bits(plus_one(b, c, hand[c] < 3 ? hand[c] : 0), c)) out |= 1u << c;
    return out;
}

// Empty the decomposition memos when they outgrow their caps; the caller holds `mu`. Only
// between searches: their nodes are linked to each other.
static void trim_decomposition_memos() {
    if (solve_memo.size() > SOLVE_CAP || wild_memo.size() > WILD_CAP) {
        solve_memo.clear();
        solve_store.clear();
        wild_memo.clear();
        wild_store.clear();
    }
}

const Win* evaluate(const Counts& hand, const std::vector<Group>& melds, int win_card,
                    const Rules& rules, const EvalArgs& a) {
    check_eval_args(hand, melds, win_card);
    if (surely_loses(hand, win_card, a)) return nullptr;
    std::lock_guard<std::mutex> lock(mu);
    trim_decomposition_memos();
    EvalKey key;
    const bool memo = eval_key(hand, melds, win_card, rules, a, &key);
    if (memo) {
        if (const WinRef* hit = win_memo.cur.map.find(key)) return hit->w;
        if (const WinRef* old = win_memo.old.map.find(key)) {  // promote: the Win keeps its address
            const Win* w = old->w;
            std::unique_ptr<Win> moved;
            if (w != nullptr) moved = std::move(win_memo.old.owned[old->idx]);
            roll_if_full();
            win_memo.cur.add(key, std::move(moved));
            return w;
        }
    }
    std::unique_ptr<Win> w = a.wang ? evaluate_wang(hand, melds, win_card, rules, a)
                                    : evaluate_plain(hand, melds, win_card, rules, a);
    const Win* out = w.get();
    if (memo) {
        roll_if_full();
        win_memo.cur.add(key, std::move(w));
    } else {
        unmemoised = std::move(w);
    }
    return out;
}

bool evaluate_score(const Counts& hand, const std::vector<Group>& melds, int win_card,
                    const Rules& rules, const EvalArgs& a, int* score, bool screened) {
    if (!screened) {
        check_eval_args(hand, melds, win_card);
        if (surely_loses(hand, win_card, a)) return false;
    }
    std::lock_guard<std::mutex> lock(mu);
    trim_decomposition_memos();
    const std::unique_ptr<Win> w = a.wang ? evaluate_wang(hand, melds, win_card, rules, a)
                                          : evaluate_plain(hand, melds, win_card, rules, a);
    if (w == nullptr) return false;
    *score = w->score;
    return true;
}

void set_scoring_memo_caps(size_t solve, size_t wild, size_t win) {
    std::lock_guard<std::mutex> lock(mu);
    SOLVE_CAP = solve ? solve : SOLVE_MEMO_CAP;
    WILD_CAP = wild ? wild : WILD_MEMO_CAP;
    WIN_CAP = win ? win : WIN_MEMO_CAP;
}

void clear_scoring_caches() {  // (fresh tables: clear() would keep the bucket arrays)
    std::lock_guard<std::mutex> lock(mu);
    solve_memo.clear(true);
    solve_store = decltype(solve_store)();
    wild_memo.clear(true);
    wild_store = decltype(wild_store)();
    win_memo.cur.clear(true);
    win_memo.old.clear(true);
}

}  // namespace phz
