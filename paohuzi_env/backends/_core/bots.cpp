// The rule-based baselines `greedy` and `expert`: an exact port of
// paohuzi_env/bots/heuristic.py (GreedyAgent, ExpertAgent; see its docstring for the ideas).
//
// Exactness: the valuations are IEEE doubles, computed with the operations of the Python code
// in the same order ((a + b) + c for `a + b + c`), with no fused multiply-add, so that every
// comparison (`>`, `> best + 1e-9`) comes out as in Python. Sorts are stable where Python's
// are relied on for ties. tests/test_fast_bots.py checks the choices decision by decision.
#if defined(__clang__)
#pragma clang fp contract(off)
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#elif defined(_MSC_VER)
#pragma fp_contract(off)
#endif

#include <stdexcept>  // before rules.hpp, which uses std::out_of_range without it

#include "bots.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "chi.hpp"
#include "flat.hpp"
#include "observation.hpp"
#include "common.hpp"
#include "portable.hpp"
#include "scoring.hpp"

namespace phz {
namespace {

// ---------------------------------------------------------------------- the two agents

// _HeuristicAgent's class attributes; GreedyAgent keeps the defaults, ExpertAgent sets them.
struct Params {
    bool count_cards;
    double safety, edge_penalty, wait_weight, red_weight;
};
constexpr Params GREEDY{false, 0.0, 0.0, 0.0, 0.0};  // heuristic.GreedyAgent
constexpr Params EXPERT{true, 0.1, 0.1, 8.0, 4.0};   // heuristic.ExpertAgent

constexpr double NEG_INF = -std::numeric_limits<double>::infinity();
constexpr double OWN_DRAW_SHARE = 1.0 / 3.0;  // heuristic._OWN_DRAW_SHARE = 1 / 3

// ---------------------------------------------------------------------- packed counts

// heuristic._BITS / _UNIT / _get and scoring.pack_counts: 3 bits per kind.
constexpr int BITS = 3;
inline uint64_t unit(int k) { return uint64_t(1) << (BITS * k); }
inline int get(uint64_t p, int k) { return int((p >> (BITS * k)) & 7u); }
inline bool is_edge(int k) { return k == 0 || k == 9 || k == 10 || k == 19; }  // heuristic._EDGE

// scoring.pack_counts (the counts here are 0..4, so the packing is the Python int's bits).
inline uint64_t pack(const Counts& c) {
    uint64_t p = 0;
    for (int k = 0; k < NUM_KINDS; ++k)
        if (c[k]) p += uint64_t(int64_t(c[k])) * unit(k);
    return p;
}

// groups.sequence_huxi (== groups.group_huxi("chi", cards) for a sorted 句/绞).
inline int sequence_huxi(int a, int b, int c) {
    if ((a % 10 == 0 && b == a + 1 && c == a + 2) || (a % 10 == 1 && b == a + 5 && c == a + 8))
        return a >= 10 ? 6 : 3;
    return 0;
}
inline int sequence_huxi(const std::array<int, 3>& g) { return sequence_huxi(g[0], g[1], g[2]); }

// ---------------------------------------------------------------------- memos (per thread)

// clear_bot_caches() bumps the generation; each thread drops its memos when it sees a new one.
std::atomic<uint64_t> g_generation{0};

// _structure's memo. The answers of one decision share `live`, and the next decision has seen
// other cards: so the memo holds the answers of one `live` at a time, in an open-addressing
// table whose used slots are freed one by one when it changes (about once a decision, a few
// hundred entries). It grows for a large decision and goes back to its small size (64 KiB, in
// the core's L2 cache) when a decision hardly uses it. The parameters (w_huxi, edge_penalty) are
// a small index kept in the key's top bits. (Only speed depends on what the memo keeps: its
// answers are exact.)
class StructMemo {
public:
    // The index of (w_huxi, edge_penalty); the table starts again when a 16th pair comes.
    uint64_t params(double w, double edge) {
        const uint64_t wb = dbits(w), eb = dbits(edge);
        for (size_t n = 0; n < params_.size(); ++n)
            if (params_[n].first == wb && params_[n].second == eb) return uint64_t(n) << 60;
        if (params_.size() == 15) clear();
        params_.emplace_back(wb, eb);
        return uint64_t(params_.size() - 1) << 60;
    }
    // Before a search: the table holds the answers of this `live` (emptied if it held another's).
    void begin(uint64_t live) {
        if (live != live_ || slots_.empty()) restart(live);
    }
    // key_a: packed | params index << 60 (never 0: packed is not 0 here; 0 marks a free slot)
    const double* lookup(uint64_t key_a) const {
        for (size_t i = index(key_a);; i = (i + 1) & mask_) {
            const Slot& s = slots_[i];
            if (s.a == key_a) return &s.v;
            if (s.a == 0) return nullptr;
        }
    }
    // After a lookup() of key_a that returned nullptr (since begin()).
    void insert(uint64_t key_a, double v) {
        if ((size_ + 1) * 2 > slots_.size()) grow();
        for (size_t i = index(key_a);; i = (i + 1) & mask_) {
            Slot& s = slots_[i];
            if (s.a == 0) {
                s = Slot{key_a, v};
                used_.push_back(uint32_t(i));
                ++size_;
                return;
            }
            if (s.a == key_a) return;
        }
    }
    void clear() {
        slots_.clear();
        slots_.shrink_to_fit();
        used_.clear();
        used_.shrink_to_fit();
        size_ = 0;
        mask_ = 0;
        params_.clear();
        live_ = ~uint64_t(0);
    }

private:
    struct Slot { uint64_t a; double v; };  // 16 bytes: 4,096 of them fill 64 KiB
    static constexpr size_t MIN_SLOTS = size_t(1) << 12;
    std::vector<Slot> slots_;
    std::vector<uint32_t> used_;  // the slots in use, to free them one by one at a restart
    size_t size_ = 0, mask_ = 0;
    int shift_ = 63;  // 64 - log2(slots), set with the slots
    uint64_t live_ = ~uint64_t(0);  // the `live` the table holds
    std::vector<std::pair<uint64_t, uint64_t>> params_;

    static uint64_t dbits(double x) {
        uint64_t u;
        std::memcpy(&u, &x, sizeof u);
        return u;
    }
    size_t index(uint64_t a) const {  // Fibonacci hashing: the product's top bits
        return size_t((a * 0x9E3779B97F4A7C15ull) >> shift_);
    }
    void restart(uint64_t live) {
        live_ = live;
        if (slots_.empty() || (slots_.size() > MIN_SLOTS && size_ * 32 < slots_.size())) {
            // first use, or a large table the last decision hardly used: back to the small one
            slots_.assign(MIN_SLOTS, Slot{0, 0.0});
            mask_ = MIN_SLOTS - 1;
            shift_ = 64 - ctz64(MIN_SLOTS);
        } else {
            for (uint32_t i : used_) slots_[i].a = 0;  // a decision's few hundred entries
        }
        used_.clear();
        size_ = 0;
    }
    void grow() {
        std::vector<Slot> old;
        old.swap(slots_);
        slots_.assign(old.size() * 2, Slot{0, 0.0});
        mask_ = slots_.size() - 1;
        shift_ = 64 - ctz64(slots_.size());
        size_ = 0;
        used_.clear();
        for (const Slot& s : old)
            if (s.a != 0) {
                for (size_t i = index(s.a);; i = (i + 1) & mask_)
                    if (slots_[i].a == 0) {
                        slots_[i] = s;
                        used_.push_back(uint32_t(i));
                        ++size_;
                        break;
                    }
            }
    }
};

struct Memos {
    uint64_t generation = 0;
    StructMemo structure;                                                    // _structure's lru_cache
    // waits.win_scores's lru_cache: key (scoring's EvalKey of the holding, the rules index in
    // rules_id) -> index into wins_store
    FlatMap<EvalKey, uint32_t, EvalKeyHash> wins;
    std::vector<std::vector<std::pair<int, int>>> wins_store;
    std::vector<std::pair<int, int>> wins_scratch;  // a holding too large for a key
    std::vector<std::string> rules_keys;  // interned rule fingerprints (the memo key of `rules`)
};

Memos& memos() {
    thread_local Memos m;
    uint64_t g = g_generation.load(std::memory_order_relaxed);
    if (m.generation != g) {
        m.structure.clear();
        m.wins.clear(true);
        m.wins_store.clear();
        m.rules_keys.clear();
        m.generation = g;
    }
    return m;
}

// waits.win_scores's memo cap (entries, per thread; the Python lru_cache's maxsize is 2^16):
// like the scoring memo caps (scoring.hpp), small enough to fill within a long run's first ~10%,
// with no loss of speed measured against 2^17.
constexpr size_t WINS_MAX = size_t(1) << 14;

// ---------------------------------------------------------------------- valuation

// heuristic._structure: best value of loose hand cards (no 坎) as groups, pairs, partials and
// singles; `live` packs, per kind, how many copies may still arrive (0-4).
// (memo.begin(live) first). The memo is looked up before the call, so a known answer costs no
// call.
struct Structure {
    uint64_t live;
    double w_huxi, edge_penalty;
    uint64_t params;
    StructMemo& memo;

    double value(uint64_t packed) {
        if (packed == 0) return 0.0;
        if (const double* found = memo.lookup(packed | params)) return *found;
        return search(packed);
    }

    // A memo miss: every way of placing the lowest kind, then the memo.
    double search(uint64_t packed) {
        const int i = ctz64(packed) / BITS;
        const int c = get(packed, i);
        const uint64_t u = unit(i);
        const int p = i % 10;
        const bool big = i >= 10;
        // a single card left alone
        double best = value(packed - u) - (is_edge(i) ? edge_penalty : 0.0);
        const int li = get(live, i);
        // complete groups with i as their lowest card
        if (p <= 7 && get(packed, i + 1) && get(packed, i + 2)) {
            const int h = sequence_huxi(i, i + 1, i + 2);
            double v = 10.0 + w_huxi * h + value(packed - u - unit(i + 1) - unit(i + 2));
            best = std::max(best, v);
        }
        if (p == 1 && get(packed, i + 5) && get(packed, i + 8)) {
            double v =
                10.0 + w_huxi * (big ? 6 : 3) + value(packed - u - unit(i + 5) - unit(i + 8));
            best = std::max(best, v);
        }
        if (!big) {
            const int j = i + 10;
            const int cj = get(packed, j);
            if (c >= 2 && cj >= 1) best = std::max(best, 10.0 + value(packed - 2 * u - unit(j)));
            if (cj >= 2) best = std::max(best, 10.0 + value(packed - u - 2 * unit(j)));
            if (cj >= 1) {  // 绞 partial: needs another i or j
                double v = 1.0 + 0.5 * (li + get(live, j));
                best = std::max(best, v + value(packed - u - unit(j)));
            }
        }
        // pair: a 碰 / 偎 / 将 / 绞 chance
        if (c >= 2) {
            double v = 3.0 + 1.5 * std::min(li, 2) + w_huxi * (li ? 0.5 : 0.0) * (big ? 3 : 1);
            best = std::max(best, v + value(packed - 2 * u));
        }
        // two-card partial sequences with i lowest: (other card, live copies that complete, bonus)
        struct Partial { int j, need; double bonus; };
        Partial partials[5];
        int np = 0;
        const double seq_bonus = w_huxi * (big ? 6 : 3) * 0.3;
        if (p <= 8 && get(packed, i + 1)) {
            int need = (p >= 1 ? get(live, i - 1) : 0) + (p <= 7 ? get(live, i + 2) : 0);
            partials[np++] = {i + 1, need, (p == 0 || p == 1) ? seq_bonus : 0.0};
        }
        if (p <= 7 && get(packed, i + 2))
            partials[np++] = {i + 2, get(live, i + 1), p == 0 ? seq_bonus : 0.0};
        if (p == 1) {
            const int pairs[2][2] = {{i + 5, i + 8}, {i + 8, i + 5}};
            for (const auto& ab : pairs)
                if (get(packed, ab[0])) partials[np++] = {ab[0], get(live, ab[1]), seq_bonus};
        }
        if (p == 6 && get(packed, i + 3))  // 七十 waiting for 二
            partials[np++] = {i + 3, get(live, i - 5), seq_bonus};
        for (int n = 0; n < np; ++n) {
            // Python adds the int 0 where there is no bonus: x + 0 == x + 0.0 for these finite x
            double v = 1.0 + 0.5 * std::min(partials[n].need, 6) + partials[n].bonus;
            best = std::max(best, v + value(packed - u - unit(partials[n].j)));
        }
        memo.insert(packed | params, best);
        return best;
    }
};

// A rule set's fingerprint: every field (the memo of waits.win_scores is keyed on `rules` itself).
int rules_index(const Rules& r, Memos& m) {
    // bind_common's rules_ref_from_python gives equal rule sets one id (1, 2, ...); a Rules
    // built elsewhere (id 0) is known by all its fields (rules.hpp rules_key)
    std::string s = r.id != 0 ? "#" + std::to_string(r.id) : rules_key(r);
    for (size_t n = 0; n < m.rules_keys.size(); ++n)
        if (m.rules_keys[n] == s) return int(n);
    if (m.rules_keys.size() >= 1024) {  // many rule sets: start again (the keys index wins)
        m.rules_keys.clear();
        m.wins.clear();
        m.wins_store.clear();
    }
    m.rules_keys.push_back(std::move(s));
    return int(m.rules_keys.size() - 1);
}

// game.waits.win_scores: (kind, score) for every card that would win this holding: a 自摸
// where our own draw would be revealed (no forced 偎/提), else on another player's draw. A
// holder of 王 wins only on its own draws (R-WANG-5), a drawn 王 included (kind WANG).
const std::vector<std::pair<int, int>>& win_scores(const Counts& hand,
                                                   const std::vector<Group>& melds,
                                                   const Rules& rules, int rules_idx, int wang,
                                                   Memos& m) {
    EvalArgs ka;
    ka.wang = wang;
    EvalKey key;
    const bool memo = eval_key_tagged(hand, melds, -1, ka, uint32_t(rules_idx), &key);
    if (memo) {
        if (const uint32_t* found = m.wins.find(key)) return m.wins_store[*found];
    }

    std::vector<std::pair<int, int>> out;
    uint32_t wei = 0;
    for (const Group& g : melds)
        if ((g.type == G_WEI || g.type == G_CHOU_WEI) && !g.cards.empty()) wei |= 1u << g.cards[0];
    // without 王, most cards surely win nothing: evaluate_score would say so, one call each
    // (so the arguments are checked once here, and evaluate_score told they were screened)
    const bool screened = wang == 0;
    if (screened) check_eval_args(hand, melds, -1);
    const uint32_t maybe = screened ? maybe_winning_cards(hand) : ~uint32_t(0);
    for (int c = 0; c < NUM_KINDS; ++c) {
        if (hand[c] >= 3 || !has(maybe, c)) continue;
        bool wins = false;
        int score = 0;
        if (hand[c] < 2 && !has(wei, c)) {
            EvalArgs a;
            a.self_drawn = true;
            a.wang = wang;
            wins = evaluate_score(hand, melds, c, rules, a, &score, screened);
        }
        if (!wins && !wang)
            wins = evaluate_score(hand, melds, c, rules, EvalArgs{}, &score, screened);
        if (wins) out.emplace_back(c, score);
    }
    if (rules.wang && wang < rules.wang) {
        EvalArgs a;
        a.self_drawn = true;
        a.wang = wang + 1;
        int score = 0;
        if (evaluate_score(hand, melds, -1, rules, a, &score)) out.emplace_back(WANG, score);
    }
    if (!memo) {
        m.wins_scratch = std::move(out);
        return m.wins_scratch;
    }
    if (m.wins.size() >= WINS_MAX) {
        m.wins.clear();
        m.wins_store.clear();
    }
    m.wins.insert(key, uint32_t(m.wins_store.size()));
    m.wins_store.push_back(std::move(out));
    return m.wins_store.back();
}

// One decision of a _HeuristicAgent: the agent's parameters, the view and what act() sets.
struct Agent {
    const Params& P;
    const View& view;
    const Rules& rules;
    Memos& m;
    int rules_idx;
    int table_red = 0;  // _table_red

    Agent(const Params& p, const View& v, const Rules& r, Memos& mm)
        : P(p), view(v), rules(r), m(mm), rules_idx(-1) {}

    // _HeuristicAgent._live
    Counts live() const {
        Counts out;
        if (!P.count_cards) {
            out.fill(2);
            return out;
        }
        Counts seen = view.hand;
        for (const auto& groups : view.table)
            for (const TableGroup& g : groups)
                if (!g.hidden)
                    for (int k : g.cards) seen[k] += 1;
        for (const auto& d : view.discards)
            for (int k : d) seen[k] += 1;
        if (view.has_offer && view.offer_source != S_LIANG) seen[view.offer_kind] += 1;
        for (int k = 0; k < NUM_KINDS; ++k) out[k] = std::max(0, 4 - seen[k]);
        return out;
    }

    // _HeuristicAgent._w_huxi
    double w_huxi() const {
        if (!P.count_cards) return 1.0;
        int table = 0;
        for (const TableGroup& g : view.table[view.seat]) table += group_huxi(g.type, g.cards);
        return table < 15 ? 2.0 : 0.7;
    }

    // _HeuristicAgent._value
    double value(const Counts& hand, const Counts& live, double w) {
        Counts loose, lv;
        for (int k = 0; k < NUM_KINDS; ++k) {
            loose[k] = hand[k] < 3 ? hand[k] : 0;
            lv[k] = std::min(live[k], 4);
        }
        const uint64_t params = m.structure.params(w, P.edge_penalty);
        const uint64_t live_packed = pack(lv);
        m.structure.begin(live_packed);
        Structure search{live_packed, w, P.edge_penalty, params, m.structure};
        double v = search.value(pack(loose));
        for (int k = 0; k < NUM_KINDS; ++k)
            if (hand[k] >= 3)  // a 坎: complete, 3/6 huxi, a 提/跑 chance while the 4th is live
                v += 10.0 + w * (k >= 10 ? 6 : 3) + (live[k] ? 2.0 : 0.0);
        if (P.red_weight != 0.0) {
            // 红胡 (10+ red cards) doubles a win or better: keep red cards when many are held
            int red = 0;
            for (int k = 0; k < NUM_KINDS; ++k)
                if (is_red(k)) red += hand[k];
            red += table_red;
            v += P.red_weight * std::max(0, red - 7);
        }
        return v;
    }

    // _HeuristicAgent._waits: live-weighted points of the cards that would win this holding.
    double waits(const Counts& hand, const std::vector<Group>& melds, const Counts& live) {
        if (P.wait_weight == 0.0) return 0.0;
        double total = 0.0;
        const double share = view.wang ? OWN_DRAW_SHARE : 1.0;
        const auto& ws = win_scores(hand, melds, rules, rules_idx, view.wang, m);
        for (const auto& cs : ws) {
            const int c = cs.first, score = cs.second;
            if (c == WANG) {
                const int others = view.wang_shown[0] + view.wang_shown[1] + view.wang_shown[2] -
                                   view.wang_shown[view.seat];
                const int unseen = std::max(0, view.jokers - view.wang - others);
                if (!has(view.hu_blocked, WANG)) total += OWN_DRAW_SHARE * unseen * score;
            } else if (live[c] > 0 && !has(view.hu_blocked, c)) {
                total += share * live[c] * score;
            }
        }
        return P.wait_weight * total;
    }

    // _HeuristicAgent._melds: own table groups plus `extra`, sorted as Python sorts tuples.
    std::vector<Group> melds(const std::vector<Group>& extra = {}) const {
        std::vector<Group> own;
        own.reserve(view.table[view.seat].size() + extra.size());
        for (const TableGroup& g : view.table[view.seat]) own.push_back(Group{g.type, g.cards});
        own.insert(own.end(), extra.begin(), extra.end());
        std::stable_sort(own.begin(), own.end());
        return own;
    }

    // _HeuristicAgent._discard_cost
    double discard_cost(int k, const Counts& live) const {
        if (P.safety == 0.0) return 0.0;
        double cost = 0.0;
        if (live[k] >= 2) cost += P.safety;  // two unseen copies: someone may 碰 it
        bool seen_discarded = false;
        for (const auto& d : view.discards)
            if (std::find(d.begin(), d.end(), k) != d.end()) seen_discarded = true;
        if (!seen_discarded) cost += 0.5 * P.safety;  // a 生张 may feed the next player's 吃
        return cost;
    }

    // _HeuristicAgent._best_discard -> (action, value)
    std::pair<int, double> best_discard(const Counts& hand, const Counts& live, double w,
                                        const std::vector<int>& legal,
                                        const std::vector<Group>& melds,
                                        std::vector<double>* values = nullptr) {
        struct Scored { double v; int a; Counts h; };
        std::vector<Scored> scored;
        scored.reserve(legal.size());
        for (int a : legal) {
            if (a < 0 || a >= NUM_KINDS)
                throw std::invalid_argument("a discard option must be a card kind 0..19, got " +
                                            std::to_string(a));
            Counts h = hand;
            h[a] -= 1;
            scored.push_back({value(h, live, w) - discard_cost(a, live), a, h});
        }
        if (P.wait_weight != 0.0) {
            // exact waits only for the structurally best few (scored.sort(key=lambda x: -x[0]))
            std::stable_sort(scored.begin(), scored.end(),
                             [](const Scored& x, const Scored& y) { return -x.v < -y.v; });
            for (size_t i = 0; i < scored.size() && i < 3; ++i)
                scored[i].v = scored[i].v + waits(scored[i].h, melds, live);
        }
        // sorted(scored, key=lambda x: x[1])
        std::stable_sort(scored.begin(), scored.end(),
                         [](const Scored& x, const Scored& y) { return x.a < y.a; });
        int best_a = legal.at(0);
        double best_v = NEG_INF;
        for (const Scored& s : scored)
            if (s.v > best_v + 1e-9) {
                best_a = s.a;
                best_v = s.v;
            }
        if (values) {  // per legal action (a discard option is a kind: legal holds each once)
            values->assign(legal.size(), NEG_INF);
            for (const Scored& s : scored)
                for (size_t i = 0; i < legal.size(); ++i)
                    if (legal[i] == s.a) (*values)[i] = s.v;
        }
        return {best_a, best_v};
    }

    // _HeuristicAgent._owes_after
    bool owes_after() const {
        int table_cards = 0, n = 0;
        for (const TableGroup& g : view.table[view.seat]) {
            table_cards += g.hidden ? 3 : int(g.cards.size());
            if (g.type == G_PAO || g.type == G_TI) ++n;
        }
        int held = 0;
        for (int x : view.hand) held += x;
        return held + view.wang + table_cards + 1 > discard_target(n);  // 王 count (R-WANG-3)
    }

    // _HeuristicAgent._after_take
    double after_take(const Counts& hand, const Counts& live, double w,
                      const std::vector<Group>& melds) {
        bool loose = false;
        for (int x : hand) loose = loose || (0 < x && x < 3);
        if (owes_after() && loose) {
            std::vector<int> options;
            for (int k = 0; k < NUM_KINDS; ++k)
                if (0 < hand[k] && hand[k] < 3) options.push_back(k);
            return best_discard(hand, live, w, options, melds).second;
        }
        return value(hand, live, w) + waits(hand, melds, live);
    }

    // _HeuristicAgent._complete_bi: greedy 比 completion, the group that keeps the most value
    // at each step. Returns the gain (-inf when stuck); `h` and `groups` as Python's.
    double complete_bi(Counts& h, int c, const Counts& live, double w, std::vector<Group>& groups) {
        double gained = 0.0;
        while (h[c] > 0) {
            bool found = false;
            double best_v = 0.0;
            Counts best_rest{};
            int best_g = -1;
            for (int a : GROUPS_WITH[c]) {
                const auto& cards = CHI_GROUPS[a - GROUP_BASE];
                Counts need{};
                for (int k : cards) need[k] += 1;
                bool skip = false;
                for (int k : cards)
                    if (h[k] < need[k] || h[k] >= 3) skip = true;
                if (skip) continue;
                Counts rest, use;
                for (int k = 0; k < NUM_KINDS; ++k) {
                    rest[k] = h[k] - need[k];
                    use[k] = rest[k] < 3 ? rest[k] : 0;
                }
                if (!bi_completable(use, c, false)) continue;
                double v = value(rest, live, w) + 10.0 + w * sequence_huxi(cards);
                if (!found || v > best_v) {
                    found = true;
                    best_v = v;
                    best_rest = rest;
                    best_g = a;
                }
            }
            if (!found) return NEG_INF;
            h = best_rest;
            const auto& cards = CHI_GROUPS[best_g - GROUP_BASE];
            groups.push_back(Group{G_CHI, {cards[0], cards[1], cards[2]}});
            gained += 10.0 + w * sequence_huxi(cards);
        }
        return gained;
    }

    // _HeuristicAgent._claim
    int claim(const std::vector<int>& legal, std::vector<double>* values = nullptr) {
        if (!view.has_offer) throw std::invalid_argument("a claim decision needs a card on offer");
        const int c = view.offer_kind;
        if (c < 0 || c >= NUM_KINDS)
            throw std::invalid_argument("a claimed card must be a kind 0..19, got " +
                                        std::to_string(c));
        const Counts lv = live();
        const double w = w_huxi();
        int best_a = PASS;
        double best_v = value(view.hand, lv, w) + waits(view.hand, melds(), lv);
        if (values) {
            values->assign(legal.size(), NEG_INF);
            for (size_t i = 0; i < legal.size(); ++i)
                if (legal[i] == PASS) (*values)[i] = best_v;
        }
        for (size_t li = 0; li < legal.size(); ++li) {
            const int a = legal[li];
            double v;
            if (a == PENG) {
                Counts h = view.hand;
                h[c] -= 2;
                const auto ms = melds({Group{G_PENG, {c, c, c}}});
                v = after_take(h, lv, w, ms) + 10.0 + w * (c >= 10 ? 3 : 1) +
                    (lv[c] ? 1.5 : 0.0);
            } else if (a >= GROUP_BASE && a < GROUP_BASE + NUM_GROUPS) {
                const auto& g = CHI_GROUPS[a - GROUP_BASE];
                std::vector<int> cards(g.begin(), g.end());
                auto it = std::find(cards.begin(), cards.end(), c);
                if (it == cards.end())
                    throw std::invalid_argument("a 吃 group must hold the card on offer");
                cards.erase(it);
                Counts h = view.hand;
                for (int k : cards) h[k] -= 1;
                std::vector<Group> bis;
                const double gained = complete_bi(h, c, lv, w, bis);
                if (gained == NEG_INF) continue;
                std::vector<Group> extra{Group{G_CHI, {g[0], g[1], g[2]}}};
                extra.insert(extra.end(), bis.begin(), bis.end());
                const auto ms = melds(extra);
                v = after_take(h, lv, w, ms) + gained + 10.0 + w * sequence_huxi(g);
            } else {
                continue;
            }
            if (values) (*values)[li] = v;
            if (v > best_v + 1e-9) {
                best_a = a;
                best_v = v;
            }
        }
        return best_a;
    }

    // _HeuristicAgent._bi
    int bi(const std::vector<int>& legal, std::vector<double>* values = nullptr) {
        const Counts lv = live();
        const double w = w_huxi();
        int best_a = legal.at(0);
        double best_v = NEG_INF;
        if (values) values->assign(legal.size(), NEG_INF);
        for (size_t li = 0; li < legal.size(); ++li) {
            const int a = legal[li];
            if (!(a >= GROUP_BASE && a < GROUP_BASE + NUM_GROUPS)) continue;
            const auto& g = CHI_GROUPS[a - GROUP_BASE];
            Counts h = view.hand;
            for (int k : g) h[k] -= 1;
            double v = value(h, lv, w) + w * sequence_huxi(g);
            if (values) (*values)[li] = v;
            if (v > best_v) {
                best_a = a;
                best_v = v;
            }
        }
        return best_a;
    }

    // _HeuristicAgent.act. `values` (optional): the agent's own value of each legal action, in
    // legal's order (-inf: an option it does not weigh, such as a 吃 it cannot complete), or all
    // 0 where it weighs none (a win, a single option, other decisions).
    int act(std::vector<double>* values = nullptr) {
        if (values) values->assign(view.legal.size(), 0.0);
        const std::vector<int>& legal = view.legal;
        table_red = 0;
        for (const TableGroup& g : view.table[view.seat])
            if (!g.hidden)
                for (int k : g.cards)
                    if (is_red(k)) ++table_red;
        if (std::find(legal.begin(), legal.end(), HU) != legal.end()) return HU;
        if (legal.empty()) throw std::invalid_argument("the view has no legal action to choose");
        if (view.decision == D_DISCARD) {
            const Counts lv = live();
            return best_discard(view.hand, lv, w_huxi(), legal, melds(), values).first;
        }
        if (view.decision == D_CLAIM) return claim(legal, values);
        if (view.decision == D_BI) return bi(legal, values);
        return legal[0];
    }
};

void bad_view(const std::string& what) { throw std::invalid_argument("malformed view: " + what); }

// What the Python code would index out of range: refused before any work (check_view, and the
// wait features, which read any seat's view).
void check_view_ranges(const View& v) {
    auto bad = bad_view;
    if (v.seat < 0 || v.seat >= NUM_SEATS) bad("seat must be 0..2");
    for (int k = 0; k < NUM_KINDS; ++k)
        if (v.hand[k] < 0 || v.hand[k] > COPIES) bad("hand counts must be 0..4");
    for (const auto& groups : v.table)
        for (const TableGroup& g : groups) {
            if (int(g.type) >= int(G_NUM_TYPES)) bad("unknown group type");
            if (!g.hidden && g.cards.size() > 4) bad("a table group has at most 4 cards");
            for (int k : g.cards)
                if (k < 0 || k >= NUM_KINDS) bad("table cards must be kinds 0..19");
        }
    for (const TableGroup& g : v.table[v.seat])
        if (g.hidden) bad("the seat's own table groups are never hidden");
    for (const auto& d : v.discards)
        for (int k : d)
            if (k < 0 || k >= NUM_KINDS) bad("discarded cards must be kinds 0..19");
    if (v.has_offer) {
        if (v.offer_kind < 0 || v.offer_kind > WANG) bad("the offered card must be a kind 0..20");
        if (v.offer_source < S_DRAW || v.offer_source > S_LIANG) bad("unknown offer source");
    }
    for (int a : v.legal)
        if (a < 0 || a >= NUM_ACTIONS) bad("legal actions must be ids 0..60");
    if (v.wang < 0 || v.wang > 2 || v.jokers < 0 || v.jokers > 2) bad("王 counts must be 0..2");
    for (int x : v.wang_shown)
        if (x < 0 || x > 2) bad("王 shown must be 0..2");
}

// ... and what the bots cannot mean: a view to decide on.
void check_view(const View& v) {
    check_view_ranges(v);
    if (v.has_offer && v.offer_kind == WANG && v.offer_source != S_LIANG && v.decision != D_HU &&
        v.decision != D_TIANHU)
        bad_view("a 王 on offer outside a HU decision");
}

int decide(const Params& p, const View& v, const Rules& rules,
           std::vector<double>* values = nullptr) {
    check_view(v);
    Memos& m = memos();
    Agent agent(p, v, rules, m);
    agent.rules_idx = rules_index(rules, m);
    return agent.act(values);
}

}  // namespace

int greedy_action(const View& v, const Rules& rules) { return decide(GREEDY, v, rules); }
int expert_action(const View& v, const Rules& rules) { return decide(EXPERT, v, rules); }
int bot_action_values(bool expert, const View& v, const Rules& rules,
                      std::vector<double>* values) {
    return decide(expert ? EXPERT : GREEDY, v, rules, values);
}

const std::vector<std::pair<int, int>>& holding_wins(const Counts& hand,
                                                     const std::vector<Group>& melds, int wang,
                                                     const Rules& rules) {
    Memos& m = memos();
    return win_scores(hand, melds, rules, rules_index(rules, m), wang, m);
}

void clear_bot_caches() { g_generation.fetch_add(1, std::memory_order_relaxed); }

void wait_features(const View& v, const Rules& rules, float* out) {
    check_view_ranges(v);
    std::fill(out, out + WAIT_FEATURES, 0.0f);
    Memos& m = memos();
    const int ridx = rules_index(rules, m);
    // the seat's own table groups, sorted as Python sorts the tuples (Agent::melds)
    std::vector<Group> melds;
    for (const TableGroup& g : v.table[v.seat]) melds.push_back(Group{g.type, g.cards});
    std::stable_sort(melds.begin(), melds.end());
    // unseen copies as the observation counts them (observation.encode's UNSEEN block)
    float obs[OBS_SIZE_V2];
    encode(v, obs);
    int unseen[NUM_KINDS];
    for (int k = 0; k < NUM_KINDS; ++k) unseen[k] = int(std::lround(double(obs[OBS_UNSEEN + k]) * 4.0));
    for (const auto& cs : win_scores(v.hand, melds, rules, ridx, v.wang, m))
        if (cs.first < NUM_KINDS) out[cs.first] = 1.0f;
    for (int k = 0; k < NUM_KINDS; ++k) {
        if (v.hand[k] < 1 || v.hand[k] > 2) continue;
        Counts after = v.hand;
        after[k] -= 1;
        const auto& wins = win_scores(after, melds, rules, ridx, v.wang, m);
        if (wins.empty()) continue;
        int live = 0, points = 0;
        for (const auto& cs : wins)
            if (cs.first < NUM_KINDS) {
                live += unseen[cs.first];
                points += unseen[cs.first] * cs.second;
            }
        out[20 + k] = 1.0f;
        out[40 + k] = float(double(std::min(live, 8)) / 8.0);
        out[60 + k] = float(double(std::min(points, 200)) / 200.0);
    }
}

}  // namespace phz
