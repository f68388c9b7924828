// The search agent (search.hpp): a port of paohuzi_env/agents/search.py, draw for draw.
#include "search.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <cmath>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>

namespace phz {

// ---------------------------------------------------------------------------- generators

namespace {
constexpr int NT = NUM_KINDS + 1;  // the 20 kinds and the 王
using TCounts = std::array<int, NT>;

uint64_t splitmix(uint64_t* s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
}  // namespace

Pcg64 keyed_pcg64(uint64_t seed, uint64_t a, uint64_t b) {
    uint64_t s = seed ^ 0x5EA4C4ull;
    splitmix(&s);
    s ^= a * 0x9E3779B97F4A7C15ull;
    splitmix(&s);
    s ^= b + 0x632BE59BD9B4E019ull;
    Pcg64 r;
    const uint64_t w0 = splitmix(&s), w1 = splitmix(&s), w2 = splitmix(&s), w3 = splitmix(&s);
    r.state = U128{w0, w1};
    r.inc = U128{w2, w3 | 1};
    return r;
}

namespace {

// Generator.shuffle of a 1-d array (Fisher-Yates from the end), as Generator.permutation.
void shuffle(std::vector<int>* v, Pcg64& rng) {
    for (int i = int(v->size()) - 1; i > 0; --i) {
        const int j = int(rng.interval(uint64_t(i)));
        std::swap((*v)[i], (*v)[j]);
    }
}

// np.repeat(arange(21), counts): the kinds in order, each as often as counted.
void repeat_kinds(const TCounts& c, std::vector<int>* out) {
    out->clear();
    for (int k = 0; k < NT; ++k)
        for (int j = 0; j < c[k]; ++j) out->push_back(k);
}

bool same_event(const Event& a, const Event& b) {
    return a.kind == b.kind && a.seat == b.seat && a.data == b.data && a.cards == b.cards;
}

int next_seat(int s) { return (s + 1) % 3; }

// Deck positions dealt to each seat (engine.Game: dealer 0..20, next 21..40, prev 41..60).
void region(int dealer, int s, int* lo, int* hi) {
    if (s == dealer) { *lo = 0; *hi = 21; }
    else if (s == next_seat(dealer)) { *lo = 21; *hi = 41; }
    else { *lo = 41; *hi = 61; }
}

}  // namespace

// ---------------------------------------------------------------------------- knowledge

Knowledge knowledge(const Game& real, int me) {
    Knowledge kn;
    kn.me = me;
    kn.dealer = real.dealer();
    kn.num_cards = real.num_cards();
    kn.wall_pos = real.wall_pos();
    const int n = kn.num_cards;
    const std::vector<int>& deck = real.deck();
    kn.others = {me == 0 ? 1 : 0, me == 2 ? 1 : 2};
    std::vector<char> fixed(n, 0);
    int lo, hi;
    region(kn.dealer, me, &lo, &hi);
    for (int p = lo; p < hi; ++p) fixed[p] = 1;  // own dealt cards
    fixed[20] = 1;                                // the 亮张 (R-DEAL-2) is shown
    std::vector<char> secret(n, 0);
    for (int s : kn.others) {
        kn.hidden_wei[s] = real.hidden_wei_positions(s);
        for (int p : kn.hidden_wei[s]) secret[p] = 1;
    }
    // Every draw is shown, except those that made a face-down 偎.
    for (int p = 61; p < kn.wall_pos; ++p)
        if (!secret[p]) fixed[p] = 1;
    const int liang = real.liang();
    TCounts known_total{};
    for (int p = 0; p < n; ++p)
        if (fixed[p]) known_total[deck[p]] += 1;
    for (int s : kn.others) {
        TCounts dealt{};
        region(kn.dealer, s, &lo, &hi);
        for (int p = lo; p < hi; ++p) dealt[deck[p]] += 1;
        // What left the seat's hand, less the face-down 偎 pairs: its discards and the hand
        // cards of its shown groups — public, whatever the hidden cards are.
        TCounts held{};
        for (int k = 0; k < NUM_KINDS; ++k) held[k] = real.hand(s)[k];
        const int drawn_wang = real.wang_shown(s) - (s == kn.dealer && liang == WANG ? 1 : 0);
        held[WANG] = real.wang(s) - drawn_wang;
        TCounts left{};
        for (int k = 0; k < NT; ++k) left[k] = dealt[k] - held[k];
        for (int p : kn.hidden_wei[s]) left[deck[p]] -= 2;
        if (s == kn.dealer && liang != WANG) {
            if (left[liang] < 1) kn.force_liang = liang;  // the 亮张 card is still in the hand
            else left[liang] -= 1;                        // it is one of the cards seen leaving
        }
        for (int k = 0; k < NT; ++k)
            if (left[k] < 0) throw std::logic_error("search: negative count of cards seen leaving");
        kn.region_known[s] = left;
        for (int k = 0; k < NT; ++k) known_total[k] += left[k];
        int size = real.wang(s) - real.wang_shown(s);
        for (int k = 0; k < NUM_KINDS; ++k) size += real.hand(s)[k];
        kn.hidden_size[s] = size;
        for (int p = lo; p < hi; ++p)
            if (!fixed[p]) kn.region_free[s].push_back(p);
    }
    for (int k = 0; k < NUM_KINDS; ++k) kn.pool[k] = COPIES - known_total[k];
    kn.pool[WANG] = real.rules().wang - known_total[WANG];
    for (int k = 0; k < NT; ++k)
        if (kn.pool[k] < 0) throw std::logic_error("search: negative count of unseen cards");
    std::array<bool, NUM_KINDS> shown{};
    std::array<std::array<bool, NUM_KINDS>, 3> no_pair{}, none_left{};
    int offered = -1;
    for (const Event& e : real.events()) {
        if ((e.kind == E_REVEAL || e.kind == E_DISCARD) && e.data >= 0 && e.data != WANG) {
            shown[e.data] = true;
            offered = e.data;
            if (e.kind == E_REVEAL && e.seat >= 0 && e.seat != me) no_pair[e.seat][e.data] = true;
        } else if ((e.kind == E_PENG || e.kind == E_CHI) && e.seat >= 0 && e.seat != me &&
                   offered >= 0) {
            // R-CHI-2: after a 吃 and its 比 chain no copy of the card is left in the hand; a
            // 碰 takes a pair (a 坎 would have made it a 跑). Hands only shrink after the deal.
            none_left[e.seat][offered] = true;
        }
    }
    // The seat's own actions (its own information), by replaying the record.
    Game replay(real.rules_ptr(), deck, kn.dealer);
    for (int a : real.actions()) {
        if (replay.current_player() == me) kn.mine.push_back(a);
        replay.step(a);
    }
    for (int s : kn.others) {
        for (int k = 0; k < NUM_KINDS; ++k) {
            int c = shown[k] ? 2 : 3;
            if (no_pair[s][k]) c = std::min(c, 1);
            const int g = kn.region_known[s][k];
            if (g >= 1) c = std::min(c, std::max(0, 2 - g));
            if (none_left[s][k]) c = 0;
            kn.cap[s][k] = c;
        }
    }
    kn.deck.assign(n, -1);
    for (int p = 0; p < n; ++p)
        if (fixed[p]) kn.deck[p] = deck[p];
    for (int p = kn.wall_pos; p < n; ++p) kn.holes.push_back(p);
    kn.events = real.events();
    kn.decision = real.decision();
    kn.legal = real.legal();
    return kn;
}

// ---------------------------------------------------------------------------- sampling

bool sample_deck(const Knowledge& kn, Pcg64& rng, std::vector<int>* out, int tries) {
    std::vector<int> cards, passed, reg, wall;
    for (int t = 0; t < tries; ++t) {
        TCounts pool = kn.pool;
        std::vector<int>& deck = *out;
        deck = kn.deck;
        std::array<TCounts, 3> extra{};
        bool ok = true;
        for (int s : kn.others) {  // the face-down 偎: three of one kind each
            for (int p : kn.hidden_wei[s]) {
                // rng.choice(20, p=w / w.sum()): cdf = cumsum(p) / its last entry; the first
                // index whose cdf exceeds one uniform double (searchsorted, side="right").
                double w[NUM_KINDS];
                double sum = 0.0;
                for (int k = 0; k < NUM_KINDS; ++k) {
                    const double c = pool[k];
                    w[k] = pool[k] >= 3 ? c * (c - 1) * (c - 2) : 0.0;
                    sum += w[k];  // small integers: exact in any order
                }
                if (sum == 0.0) {
                    ok = false;
                    break;  // as the Python loop: the next seat's 偎 are still drawn
                }
                double cdf[NUM_KINDS];
                double acc = 0.0;
                for (int k = 0; k < NUM_KINDS; ++k) {
                    acc += w[k] / sum;
                    cdf[k] = acc;
                }
                const double last = cdf[NUM_KINDS - 1];
                for (int k = 0; k < NUM_KINDS; ++k) cdf[k] /= last;
                const double u = rng.random();
                int k = 0;
                while (k < NUM_KINDS && cdf[k] <= u) ++k;
                if (k >= NUM_KINDS) k = NUM_KINDS - 1;  // cannot happen: cdf ends at 1 > u
                pool[k] -= 3;
                deck[p] = k;
                extra[s][k] += 2;
            }
        }
        if (!ok) continue;
        // Deal the shuffled unseen cards in turn, passing over a card a hand may not hold (it
        // goes to the wall): the rules' facts about each hidden hand, checked as it is dealt.
        repeat_kinds(pool, &cards);
        shuffle(&cards, rng);
        passed.clear();
        size_t at = 0;
        for (int s : kn.others) {
            int size = kn.hidden_size[s];
            TCounts h{};
            const bool liang = s == kn.dealer && kn.force_liang >= 0;
            if (liang) {
                size -= 1;  // the 亮张 card, at position 20 (not in the pool)
                h[kn.force_liang] += 1;
            }
            // R-START-3: a dealt four is a 提 at once; R-FLOW-3.2/4.2: a 坎 must 跑 (or 提)
            // any copy shown since the deal; R-FLOW-2: a pair must 偎 its own drawn copy;
            // R-GROUP-1: a dealt 坎 never splits; R-CHI-2 and 碰: none of a claimed kind is
            // left, nor of a 偎's kind (it took the pair).
            TCounts cap{};
            for (int k = 0; k < NUM_KINDS; ++k) cap[k] = extra[s][k] > 0 ? 0 : kn.cap[s][k];
            cap[WANG] = 99;
            for (int k = 0; k < NT; ++k)
                if (h[k] > cap[k]) ok = false;
            if (!ok) break;
            while (size) {
                if (at == cards.size()) break;
                const int k = cards[at++];
                if (h[k] >= cap[k]) {
                    passed.push_back(k);
                    continue;
                }
                h[k] += 1;
                size -= 1;
            }
            if (size) {
                ok = false;
                break;
            }
            if (liang) h[kn.force_liang] -= 1;
            TCounts all{};
            for (int k = 0; k < NT; ++k) all[k] = h[k] + extra[s][k] + kn.region_known[s][k];
            repeat_kinds(all, &reg);
            shuffle(&reg, rng);
            const std::vector<int>& free = kn.region_free[s];
            if (reg.size() != free.size())
                throw std::logic_error("search: seat " + std::to_string(s) + ": " +
                                       std::to_string(reg.size()) + " cards for " +
                                       std::to_string(free.size()) + " positions");
            for (size_t i = 0; i < free.size(); ++i) deck[free[i]] = reg[i];
        }
        if (!ok) continue;
        wall = passed;
        wall.insert(wall.end(), cards.begin() + long(at), cards.end());
        shuffle(&wall, rng);
        if (wall.size() != kn.holes.size())
            throw std::logic_error("search: " + std::to_string(wall.size()) + " cards left for " +
                                   std::to_string(kn.holes.size()) + " wall positions");
        for (size_t i = 0; i < wall.size(); ++i) deck[kn.holes[i]] = wall[i];
        return true;
    }
    return false;
}

namespace {

// replay_world's replay, calling on_other(g, a) before each action `a` another seat takes in it
// (g: the world at that seat's decision).
template <class OnOther>
bool replay_course(const Knowledge& kn, const std::vector<int>& deck,
                   const std::shared_ptr<const Rules>& rules, Game* out, OnOther&& on_other) {
    Game g(rules, deck, kn.dealer);
    const std::vector<Event>& events = kn.events;
    const size_t ne = events.size();
    size_t mi = 0, seen = 0;
    while (true) {
        const std::vector<Event>& ev = g.events();
        const size_t n = ev.size();
        if (n > ne) return false;
        for (size_t i = seen; i < n; ++i)
            if (!same_event(ev[i], events[i])) return false;
        seen = n;
        if (g.done()) return false;
        const int s = g.current_player();
        const int d = g.decision();
        int a;
        if (s == kn.me) {
            if (mi == kn.mine.size()) {
                if (n == ne && d == kn.decision && g.legal() == kn.legal) {
                    *out = std::move(g);
                    return true;
                }
                return false;
            }
            a = kn.mine[mi++];
        } else {
            const Event* nxt = n < ne ? &events[n] : nullptr;
            if (d == D_DISCARD) {
                if (!nxt || nxt->kind != E_DISCARD || nxt->seat != s) return false;
                a = nxt->data;
            } else if (d == D_CLAIM) {
                if (nxt && nxt->seat == s && nxt->kind == E_PENG) a = PENG;
                else if (nxt && nxt->seat == s && nxt->kind == E_CHI)
                    a = group_id({nxt->cards[0], nxt->cards[1], nxt->cards[2]});
                else a = PASS;
            } else if (d == D_BI) {
                if (!nxt || nxt->kind != E_CHI || nxt->seat != s) {
                    a = PASS;  // the 吃 did not happen: the chain was cancelled
                } else {
                    const size_t m = size_t(g.bi().n) - 1;  // 比 groups named so far
                    const size_t j = n + 1 + m;
                    if (j >= ne || events[j].kind != E_BI || events[j].seat != s) return false;
                    a = group_id({events[j].cards[0], events[j].cards[1], events[j].cards[2]});
                }
            } else {  // hu / tianhu: a win ends the hand, so every offer so far was declined
                a = nxt && nxt->kind == E_HU && nxt->seat == s ? HU : PASS;
            }
        }
        if (a < 0 || !g.is_legal(a)) return false;
        if (s != kn.me) on_other(static_cast<const Game&>(g), a);
        g.step(a);
    }
}

}  // namespace

bool replay_world(const Knowledge& kn, const std::vector<int>& deck,
                  const std::shared_ptr<const Rules>& rules, Game* out) {
    return replay_course(kn, deck, rules, out, [](const Game&, int) {});
}

double expert_log_prob(const Game& g, int a, double t) {
    if (!(t > 0) || std::isinf(t))
        throw std::invalid_argument("the temperature must be positive and finite");
    if (g.done()) throw std::invalid_argument("the hand is over: there is no decision");
    const std::vector<int>& legal = g.legal();
    const auto at = std::find(legal.begin(), legal.end(), a);
    if (at == legal.end())
        throw std::invalid_argument("action " + std::to_string(a) + " is not legal here");
    const size_t n = legal.size();
    if (n == 1) return 0.0;
    View v;
    g.fill_view(g.current_player(), v);
    std::vector<double> values;
    bot_action_values(true, v, g.rules(), &values);
    double top = -INFINITY;
    for (double x : values) top = std::max(top, x);
    bool flat = true;  // the expert weighs no option: all its values are equal (0, or -inf)
    for (double x : values) flat = flat && x == values[0];
    if (flat || top == -INFINITY) return -std::log(double(n));
    // (v - max) / t: 0 for the best, at most 0 (or -inf) for the others, whatever t
    const double mine = (values[size_t(at - legal.begin())] - top) / t;
    if (mine == -INFINITY) return -INFINITY;
    double z = 0.0;
    for (double x : values) z += std::exp((x - top) / t);
    return mine - std::log(z);
}

bool world_log_weight(const Knowledge& kn, const std::vector<int>& deck,
                      const std::shared_ptr<const Rules>& rules, double t, double* logw,
                      int* decisions) {
    double sum = 0.0;
    int count = 0;
    Game out(rules, deck, kn.dealer);
    const bool ok = replay_course(kn, deck, rules, &out, [&](const Game& g, int a) {
        if (g.legal().size() < 2) return;
        sum += expert_log_prob(g, a, t);
        ++count;
    });
    if (!ok) return false;
    *logw = sum;
    if (decisions) *decisions = count;
    return true;
}

// ---------------------------------------------------------------------------- the search

namespace {

struct WorldJob {
    Game g;
    uint64_t pseed;
    double base = 0.0;  // with a leaf critic trained against the baseline: the deal's expert points
};

// Not played (a score is an int or a critic's value, never NaN).
constexpr double UNPLAYED = NAN;
inline bool is_played(double x) { return !std::isnan(x); }

// The playout's action at c's decision: the searching seat's own network where it acts and one
// is set (SearchOptions::own), else the rollout network or bot.
inline int rollout_action(const Game& c, int seat, const WorldJob& w, const SearchOptions& opt,
                          NetScratch* ns, View* view) {
    if (opt.own && c.current_player() == seat) return opt.own->action(c, ns);
    return opt.net ? opt.net->action(c, ns) : policy_action(c, opt.rollout, w.pseed, 0, view);
}

// The leaf value of the world `w` after a candidate (SearchOptions::leaf): `c` played on with the
// rollout (the seat's own moves before the leaf by SearchOptions::own where it is set) until
// `seat` is to act for the leaf_depth-th time, then the critic's value; a hand that ends first,
// its points on the critic's footing.
double leaf_value(Game* c, int seat, const WorldJob& w, const SearchOptions& opt) {
    NetScratch ns;
    View view;
    int turns = 0;
    while (!c->done()) {
        if (c->current_player() == seat && ++turns >= opt.leaf_depth)
            return opt.leaf->value(*c, seat, &ns);
        c->step(rollout_action(*c, seat, w, opt, &ns, &view));
    }
    return opt.leaf->terminal(double(c->result().scores[seat]), w.base);
}

// The playouts jobs[lo, hi) with the seat's own decisions by opt.own, in lockstep: each playout
// is played on with the rollout until the seat is to act (or the hand ends), then the waiting
// playouts' forward passes are one batch (NetPolicy::actions: the same actions as one at a
// time), and so on until every hand is over. The scores are those of play_round's playouts one
// by one: each hand's moves do not depend on the others in the batch.
void play_own_batched(const std::vector<WorldJob>& worlds, const std::vector<int>& legal,
                      const std::vector<std::pair<int, int>>& jobs, size_t lo, size_t hi, int seat,
                      const SearchOptions& opt, std::vector<std::vector<double>>* scores) {
    std::vector<Game> games;
    games.reserve(hi - lo);
    for (size_t i = lo; i < hi; ++i) {
        games.emplace_back(worlds[size_t(jobs[i].first)].g);
        games.back().step(legal[size_t(jobs[i].second)]);
    }
    NetScratch ns;
    View view;
    std::vector<NetScratch> batch;
    std::vector<const Game*> waiting;
    std::vector<size_t> which;
    std::vector<int> acts;
    for (;;) {
        waiting.clear();
        which.clear();
        for (size_t k = 0; k < games.size(); ++k) {
            Game& c = games[k];
            const WorldJob& w = worlds[size_t(jobs[lo + k].first)];
            while (!c.done() && c.current_player() != seat)
                c.step(rollout_action(c, seat, w, opt, &ns, &view));
            if (!c.done()) {
                waiting.push_back(&c);
                which.push_back(k);
            }
        }
        if (waiting.empty()) break;
        acts.resize(waiting.size());
        opt.own->actions(waiting, &batch, acts.data());
        for (size_t m = 0; m < which.size(); ++m) games[which[m]].step(acts[m]);
    }
    for (size_t k = 0; k < games.size(); ++k)
        (*scores)[size_t(jobs[lo + k].first)][size_t(jobs[lo + k].second)] =
            games[k].result().scores[seat];
}

// Plays the active actions out in each world of the round: scores[w][j] (UNPLAYED: not played).
// The playouts use opt.net when it is set, else opt.rollout, and opt.own for the seat's own
// moves where it is set (batched: play_own_batched); with opt.leaf they stop early.
void play_round(const std::vector<WorldJob>& worlds, const std::vector<int>& legal,
                const std::vector<char>& active, int seat, const SearchOptions& opt,
                std::vector<std::vector<double>>* scores) {
    const size_t na = legal.size();
    std::vector<std::pair<int, int>> jobs;
    scores->assign(worlds.size(), std::vector<double>(na, UNPLAYED));
    for (size_t w = 0; w < worlds.size(); ++w)
        for (size_t j = 0; j < na; ++j)
            if (active[j]) jobs.emplace_back(int(w), int(j));
    auto run = [&](size_t i) {
        const auto [w, j] = jobs[i];
        Game c(worlds[w].g);
        c.step(legal[j]);
        if (opt.leaf) {
            (*scores)[w][j] = leaf_value(&c, seat, worlds[w], opt);
            return;
        }
        if (!c.done()) {
            if (opt.net) playout(&c, *opt.net);
            else playout(&c, opt.rollout, worlds[w].pseed, 0);
        }
        (*scores)[w][j] = c.result().scores[seat];
    };
    const int nt = std::max(1, std::min<int>(opt.threads, int(jobs.size())));
    if (opt.own && !opt.leaf) {  // batched forward passes: each thread a contiguous share
        auto share = [&](int t) {
            play_own_batched(worlds, legal, jobs, jobs.size() * size_t(t) / size_t(nt),
                             jobs.size() * size_t(t + 1) / size_t(nt), seat, opt, scores);
        };
        std::exception_ptr err;
        std::mutex err_mu;
        std::vector<std::thread> pool;
        for (int t = 1; t < nt; ++t)
            pool.emplace_back([&, t]() {
                try {
                    share(t);
                } catch (...) {
                    std::lock_guard<std::mutex> l(err_mu);
                    if (!err) err = std::current_exception();
                }
            });
        try {
            share(0);  // the calling thread's share
        } catch (...) {
            std::lock_guard<std::mutex> l(err_mu);
            if (!err) err = std::current_exception();
        }
        for (auto& th : pool) th.join();
        if (err) std::rethrow_exception(err);
        return;
    }
    if (nt == 1) {
        for (size_t i = 0; i < jobs.size(); ++i) run(i);
        return;
    }
    std::atomic<size_t> next{0};
    std::exception_ptr err;
    std::atomic<bool> failed{false};
    auto worker = [&]() {
        try {
            for (size_t i; (i = next.fetch_add(1)) < jobs.size() && !failed.load();) run(i);
        } catch (...) {
            if (!failed.exchange(true)) err = std::current_exception();
        }
    };
    std::vector<std::thread> pool;
    for (int t = 1; t < nt; ++t) pool.emplace_back(worker);
    worker();
    for (auto& t : pool) t.join();
    if (err) std::rethrow_exception(err);
}

// The self-normalised weighted mean and standard error of xs under linear weights ws (>= 0,
// same length, at least 2): SearchOptions::weight. Weights that are all 0 count equally.
struct WStat {
    double mean, se, ess;
};

WStat weighted_stat(const std::vector<double>& xs, const std::vector<double>& ws) {
    const size_t n = xs.size();
    double sw = 0.0;
    for (double w : ws) sw += w;
    std::vector<double> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = sw > 0 ? ws[i] / sw : 1.0 / double(n);
    double mean = 0.0, s2 = 0.0;
    for (size_t i = 0; i < n; ++i) {
        mean += v[i] * xs[i];
        s2 += v[i] * v[i];
    }
    double sq = 0.0;
    for (size_t i = 0; i < n; ++i) {
        const double d = xs[i] - mean;
        sq += v[i] * v[i] * d * d;
    }
    const double ess = 1.0 / s2;
    const double se = ess > 1.0 ? std::sqrt(sq * ess / (ess - 1.0)) : INFINITY;
    return {mean, se, ess};
}

// Linear weights exp(lw - max lw) of the first n log-weights; all 1 (and *fallback set) when
// every one is -inf.
std::vector<double> linear_weights(const std::vector<double>& lw, size_t n, bool* fallback) {
    double top = -INFINITY;
    for (size_t i = 0; i < n; ++i) top = std::max(top, lw[i]);
    std::vector<double> w(n, 1.0);
    if (top == -INFINITY) {
        if (fallback) *fallback = true;
        return w;
    }
    for (size_t i = 0; i < n; ++i) w[i] = std::exp(lw[i] - top);
    return w;
}

}  // namespace

SearchResult search_action(const Game& g, int seat, const SearchOptions& opt, Pcg64& rng) {
    if (seat < 0 || seat > 2) throw std::invalid_argument("seat must be 0, 1 or 2, got " +
                                                          std::to_string(seat));
    if (g.done() || g.current_player() != seat)
        throw std::invalid_argument("seat " + std::to_string(seat) + " is not the seat to act (to act: " +
                                    (g.done() ? std::string("None, the hand is over")
                                              : std::to_string(g.current_player())) + ")");
    if (opt.samples < 1 || opt.playouts < 1 || opt.tries < 1 || opt.z < 0 || opt.margin < 0 ||
        opt.budget_ms < 0 || opt.prune < 0 || opt.prune_z < 0 || opt.threads < 1 || opt.top < 0 ||
        (opt.top > 0 && opt.top < 2) || (opt.top > 0 && (opt.rollout == P_RANDOM || opt.net)) ||
        (opt.top > 0 && opt.guide) || !(opt.guide_p >= 0.0 && opt.guide_p <= 1.0) ||
        opt.leaf_depth < 1 || (opt.weight != W_NONE && opt.weight != W_EXPERT) ||
        !(opt.weight_t > 0) || std::isinf(opt.weight_t))
        throw std::invalid_argument("bad search options");
    for (const NetPolicy* n : {opt.net.get(), opt.guide.get(), opt.own.get()})
        if (n && n->obs_size() != obs_size(g.rules()))
            throw std::invalid_argument(std::string(n == opt.net.get() ? "the rollout"
                                                    : n == opt.guide.get() ? "the guide"
                                                                           : "the own-seat") +
                                        " network reads " + std::to_string(n->obs_size()) +
                                        " observation floats; the hand's rules produce " +
                                        std::to_string(obs_size(g.rules())));
    if (opt.leaf && opt.leaf->obs_size() != obs_size(g.rules()))
        throw std::invalid_argument("the leaf critic reads " + std::to_string(opt.leaf->obs_size()) +
                                    " observation floats; the hand's rules produce " +
                                    std::to_string(obs_size(g.rules())));
    SearchResult r;
    r.legal = g.legal();
    const std::vector<int>& legal = r.legal;
    const size_t na = legal.size();
    int def;
    std::vector<double> values;  // the bot's own value of each legal action (option top)
    if (opt.net) {
        NetScratch ns;
        def = opt.net->action(g, &ns);
    } else if (opt.rollout == P_RANDOM) {
        def = legal[0];
    } else if (opt.top > 0 && int(na) > opt.top) {
        View v;
        g.fill_view(seat, v);
        def = bot_action_values(opt.rollout == P_EXPERT, v, g.rules(), &values);
    } else {
        View v;
        def = policy_action(g, opt.rollout, 0, 0, &v);
    }
    const bool has_hu = std::find(legal.begin(), legal.end(), HU) != legal.end();
    if (na == 1 || has_hu) {
        // A win is taken, as the expert takes it (see agents/search.py).
        r.choice = has_hu ? HU : legal[0];
        return r;
    }
    std::vector<char> active(na, 1);
    if (opt.guide) {
        // The guide's choice is kept unless a candidate clears the bar; the candidates are it,
        // the rollout's choice and the actions the guide gives at least guide_p.
        NetScratch ns;
        float logits[NUM_ACTIONS];
        const int bot = def;
        def = opt.guide->action(g, &ns, logits);
        double top_logit = -INFINITY, z_sum = 0.0;
        for (int a : legal) top_logit = std::max(top_logit, double(logits[a]));
        for (int a : legal) z_sum += std::exp(double(logits[a]) - top_logit);
        int left = 0;
        for (size_t j = 0; j < na; ++j) {
            const int a = legal[j];
            const double p = std::exp(double(logits[a]) - top_logit) / z_sum;
            active[j] = a == def || a == bot || p >= opt.guide_p;
            left += active[j];
        }
        if (left == 1) {
            r.choice = def;
            r.played.assign(na, 0);
            return r;
        }
    }
    const int di = int(std::find(legal.begin(), legal.end(), def) - legal.begin());
    const Knowledge kn = knowledge(g, seat);
    const int want = std::min(opt.samples, std::max(2, opt.playouts / int(na)));
    const int max_attempts = want * opt.tries;
    const int round = opt.prune > 0 ? opt.prune : (opt.threads > 1 ? 8 : 1);
    const auto start = std::chrono::steady_clock::now();
    auto over_budget = [&]() {
        if (opt.budget_ms <= 0) return false;
        const double ms = std::chrono::duration<double, std::milli>(
                              std::chrono::steady_clock::now() - start).count();
        return ms > opt.budget_ms;
    };
    std::vector<std::vector<double>> scores;  // per world, per legal action (UNPLAYED: not played)
    if (!values.empty()) {
        // Only the bot's choice and the next best `top - 1` by its own values are played out.
        std::vector<int> order(na);
        for (size_t j = 0; j < na; ++j) order[j] = int(j);
        std::stable_sort(order.begin(), order.end(), [&](int x, int y) {
            if (x == di || y == di) return x == di && y != di;
            return values[size_t(x)] > values[size_t(y)];
        });
        for (size_t r2 = size_t(opt.top); r2 < na; ++r2) active[size_t(order[r2])] = 0;
    }
    const bool weighted = opt.weight != W_NONE;
    std::vector<int> deck;
    std::vector<WorldJob> batch;
    std::vector<std::vector<double>> got;
    bool stop = false;
    while (!stop && int(scores.size()) < want && r.attempts < max_attempts) {
        batch.clear();
        while (int(scores.size() + batch.size()) < want && r.attempts < max_attempts &&
               int(batch.size()) < round) {
            if (over_budget()) {
                stop = true;
                break;
            }
            r.attempts += 1;
            if (!sample_deck(kn, rng, &deck)) continue;
            WorldJob job{g, 0};
            if (!replay_world(kn, deck, g.rules_ptr(), &job.g)) continue;
            job.pseed = rng.integers(uint64_t(1) << 31);
            if (weighted) {  // the generator is not touched: the worlds are the unweighted ones
                double lw = 0.0;
                if (!world_log_weight(kn, deck, g.rules_ptr(), opt.weight_t, &lw))
                    throw std::logic_error("search: a world that replays has no weight");
                r.log_weights.push_back(lw);
            }
            if (opt.keep_worlds) r.decks.push_back(deck);
            if (opt.leaf && opt.leaf->baseline()) {  // the deal as three experts play it
                Game fresh(g.rules_ptr(), deck, kn.dealer);
                playout(&fresh, P_EXPERT, 0, 0);
                job.base = double(fresh.result().scores[seat]);
            }
            batch.push_back(std::move(job));
        }
        if (batch.empty()) break;
        play_round(batch, legal, active, seat, opt, &got);
        for (auto& row : got) {
            for (size_t j = 0; j < na; ++j) r.playouts += is_played(row[j]);
            scores.push_back(std::move(row));
        }
        if (opt.prune > 0 && scores.size() >= 2 && weighted) {
            // The same rule on the weighted gains; bar: margin + z se projected to the worlds
            // wanted (se sqrt(n / want), the unweighted sd / sqrt(want) with equal weights).
            const size_t n = scores.size();
            const std::vector<double> w = linear_weights(r.log_weights, n, nullptr);
            std::vector<double> xs(n);
            int left = 0;
            for (size_t j = 0; j < na; ++j) {
                if (!active[j] || int(j) == di) continue;
                for (size_t i = 0; i < n; ++i) xs[i] = scores[i][j] - scores[i][size_t(di)];
                const WStat st = weighted_stat(xs, w);
                const double bar = opt.margin + (opt.prune_bar ? opt.z * st.se *
                                                 std::sqrt(double(n) / double(want)) : 0.0);
                if (std::isfinite(st.se) && st.mean + opt.prune_z * st.se <= bar) active[j] = 0;
                else ++left;
            }
            if (left == 0) stop = true;
        } else if (opt.prune > 0 && scores.size() >= 2) {
            // Drop an action whose gain over the bot's choice cannot plausibly clear the margin.
            const double n = double(scores.size());
            int left = 0;
            for (size_t j = 0; j < na; ++j) {
                if (!active[j] || int(j) == di) continue;
                double sum = 0;
                for (const auto& row : scores) sum += double(row[j] - row[di]);
                const double mean = sum / n;
                double sq = 0;
                for (const auto& row : scores) {
                    const double x = double(row[j] - row[di]) - mean;
                    sq += x * x;
                }
                const double sd = std::sqrt(sq / (n - 1));
                const double se = sd / std::sqrt(n);
                const double bar = opt.margin + (opt.prune_bar ? opt.z * sd / std::sqrt(double(want)) : 0.0);
                if (mean + opt.prune_z * se <= bar) active[j] = 0;
                else ++left;
            }
            if (left == 0) stop = true;
        }
    }
    r.worlds = int(scores.size());
    r.choice = def;
    if (opt.keep_worlds) r.scores = scores;
    if (weighted && r.worlds >= 1) {
        const std::vector<double> w = linear_weights(r.log_weights, scores.size(),
                                                     &r.weight_fallback);
        double sw = 0.0, sw2 = 0.0;
        for (double x : w) {
            sw += x;
            sw2 += x * x;
        }
        r.ess = sw * sw / sw2;
    }
    if (weighted && r.worlds >= 2) {
        const std::vector<double> w = linear_weights(r.log_weights, scores.size(), nullptr);
        r.means.assign(na, NAN);
        r.played.assign(na, 0);
        r.ses.assign(na, NAN);
        std::vector<double> lcb(na, -INFINITY);
        std::vector<double> xs, ws;
        for (size_t j = 0; j < na; ++j) {
            xs.clear();
            ws.clear();
            for (size_t i = 0; i < scores.size(); ++i)
                if (is_played(scores[i][j])) {
                    xs.push_back(scores[i][j]);
                    ws.push_back(w[i]);
                }
            const int cnt = int(xs.size());
            r.played[j] = cnt;
            if (cnt == 1) r.means[j] = xs[0];
            if (cnt >= 2) {
                const WStat st = weighted_stat(xs, ws);
                r.means[j] = st.mean;
                r.ses[j] = st.se;
            }
            if (cnt != r.worlds) continue;  // dropped: not a candidate
            for (size_t i = 0; i < scores.size(); ++i) xs[i] = scores[i][j] - scores[i][size_t(di)];
            const WStat st = weighted_stat(xs, w);
            if (std::isfinite(st.se)) lcb[j] = st.mean - opt.z * st.se;
        }
        size_t best = 0;
        for (size_t j = 1; j < na; ++j)
            if (lcb[j] > lcb[best]) best = j;
        if (lcb[best] > opt.margin) r.choice = legal[best];
    } else if (r.worlds >= 2) {
        const double n = double(r.worlds);
        r.means.assign(na, 0.0);
        r.played.assign(na, 0);
        r.ses.assign(na, NAN);
        std::vector<double> lcb(na, -INFINITY);
        for (size_t j = 0; j < na; ++j) {
            double sum = 0;
            int cnt = 0;
            for (const auto& row : scores)
                if (is_played(row[j])) {
                    sum += row[j];
                    ++cnt;
                }
            r.played[j] = cnt;
            r.means[j] = cnt ? sum / double(cnt) : NAN;
            if (cnt >= 2) {  // the standard error of that mean (ddof=1), for labelled data
                double sq = 0;
                for (const auto& row : scores)
                    if (is_played(row[j])) {
                        const double x = row[j] - r.means[j];
                        sq += x * x;
                    }
                r.ses[j] = std::sqrt(sq / double(cnt - 1)) / std::sqrt(double(cnt));
            }
            if (cnt != r.worlds) continue;  // dropped: not a candidate
            // numpy: diff.mean(axis=0) - z * diff.std(axis=0, ddof=1) / sqrt(n), summed in
            // row order.
            double ds = 0;
            for (const auto& row : scores) ds += double(row[j]) - double(row[di]);
            const double mean = ds / n;
            double sq = 0;
            for (const auto& row : scores) {
                const double x = (double(row[j]) - double(row[di])) - mean;
                sq += x * x;
            }
            lcb[j] = mean - opt.z * std::sqrt(sq / (n - 1)) / std::sqrt(n);
        }
        size_t best = 0;
        for (size_t j = 1; j < na; ++j)
            if (lcb[j] > lcb[best]) best = j;
        if (lcb[best] > opt.margin) r.choice = legal[best];
    } else {
        r.played.assign(na, 0);
        for (const auto& row : scores)
            for (size_t j = 0; j < na; ++j) r.played[j] += is_played(row[j]);
    }
    return r;
}

}  // namespace phz
