// Control variates over the wall's chance events: chance.hpp, docs/aivat.md.
#include "chance.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

#include "bots.hpp"
#include "dense.hpp"
#include "netpolicy.hpp"
#include "vector.hpp"

namespace phz {

void chance_features(const Game& g, int drawer, float* out) {
    if (g.done()) throw std::invalid_argument("the hand is over: no card is drawn");
    std::fill(out, out + CHANCE_FEATURES, 0.0f);
    const Rules& rules = g.rules();
    for (int r = 0; r < NUM_SEATS; ++r) {
        const int s = (drawer + r) % NUM_SEATS;
        float* f = out + r * CHANCE_SEAT;
        const Counts& h = g.hand(s);
        int held = g.wang(s);
        for (int k = 0; k < NUM_KINDS; ++k) {
            f[k] = float(h[k]) / 4.0f;
            held += h[k];
        }
        int groups4 = 0;
        for (const Meld& m : g.melds(s)) {
            for (int i = 0; i < m.n; ++i) f[20 + m.cards[i]] += 0.25f;
            held += m.n;
            if (m.n == 4) ++groups4;
        }
        for (const auto& cs : holding_wins(h, g.table_groups(s), g.wang(s), rules)) {
            if (cs.first < NUM_KINDS) {
                f[40 + cs.first] = 1.0f;
                f[60 + cs.first] = std::min(2.0f, float(cs.second) / 50.0f);
            } else {
                f[105] = 1.0f;
            }
        }
        const uint32_t chou = g.chou(s);
        for (int k = 0; k < NUM_KINDS; ++k)
            if (chou & (1u << k)) f[80 + k] = 1.0f;
        f[100] = float(g.wang(s)) / 2.0f;
        f[101] = float(g.table_huxi(s)) / 30.0f;
        f[102] = s == g.dealer() ? 1.0f : 0.0f;
        f[103] = g.played(s) ? 1.0f : 0.0f;
        f[104] = float(groups4) / 2.0f;
        f[106] = float(held) / 21.0f;
    }
    float* w = out + 3 * CHANCE_SEAT;
    const std::vector<int>& deck = g.deck();
    for (int i = g.wall_pos(); i < g.num_cards(); ++i) {
        const int k = deck[size_t(i)];
        if (k == WANG) w[20] += 0.5f;
        else w[k] += 0.25f;
    }
    w[21] = float(g.wall_left()) / 20.0f;
    float* hz = w + CHANCE_GLOBAL;
    for (int r = 0; r < NUM_SEATS; ++r) {
        const float* f = out + r * CHANCE_SEAT;
        float live = 0.0f, points = 0.0f, best = 0.0f, ready = 0.0f;
        for (int k = 0; k < NUM_KINDS; ++k) {
            if (f[40 + k] == 0.0f) continue;
            ready = 1.0f;
            const float n = w[k] * 4.0f, score = f[60 + k] * 50.0f;
            live += n;
            points += n * score;
            if (n > 0.0f) best = std::max(best, score);
        }
        if (f[105] > 0.0f) {
            ready = 1.0f;
            live += w[20] * 2.0f;
        }
        hz[4 * r] = std::min(live / 8.0f, 2.0f);
        hz[4 * r + 1] = std::min(points / 200.0f, 2.0f);
        hz[4 * r + 2] = best / 50.0f;
        hz[4 * r + 3] = ready;
    }
    immediate_outcomes(g, drawer, out + CHANCE_IMMEDIATE_AT);
    for (int i = 0; i < 3 * chance_kinds(rules); ++i) out[CHANCE_IMMEDIATE_AT + i] /= CHANCE_POINTS;
}

namespace {
struct StopDraw {};
// Lets the first draw through (the card of the kind asked for), stops at the next.
struct Stopper : DrawHook {
    bool first = true;
    void before_draw(const Game&, int) override {
        if (!first) throw StopDraw{};
        first = false;
    }
};
}  // namespace

void immediate_outcomes(const Game& g, int drawer, float* out) {
    const int kinds = chance_kinds(g.rules());
    std::fill(out, out + 3 * kinds, 0.0f);
    int count[NUM_KINDS + 1] = {};
    for (int i = g.wall_pos(); i < g.num_cards(); ++i) count[g.deck()[size_t(i)]] += 1;
    for (int k = 0; k < kinds; ++k) {
        if (count[k] == 0) continue;
        Stopper stop;
        Game c = g;
        c.set_draw_hook(&stop);
        try {
            c.draw_for_chance(drawer, k);
            while (!c.done() && c.decision() == D_HU && c.is_legal(HU)) c.step(HU);
        } catch (const StopDraw&) {
            continue;  // the hand goes on to another draw: not an immediate end
        }
        if (!c.done()) continue;
        for (int r = 0; r < NUM_SEATS; ++r)
            out[3 * k + r] = float(c.result().scores[size_t((drawer + r) % NUM_SEATS)]);
    }
}

void wall_probabilities(const Game& g, float* out) {
    const int kinds = chance_kinds(g.rules());
    const int left = g.wall_left();
    if (left <= 0) throw std::invalid_argument("the wall is empty: no card is drawn");
    std::fill(out, out + kinds, 0.0f);
    const std::vector<int>& deck = g.deck();
    for (int i = g.wall_pos(); i < g.num_cards(); ++i) out[deck[size_t(i)]] += 1.0f;
    for (int k = 0; k < kinds; ++k) out[k] /= float(left);
}

namespace {

struct Collector : DrawHook {
    std::vector<ChanceEvent>* events;
    std::vector<float>* feats;
    std::vector<float>* probs;
    int kinds;
    int step = 0;
    void before_draw(const Game& g, int seat) override {
        events->push_back(ChanceEvent{seat, g.deck()[size_t(g.wall_pos())], step, g.wall_pos()});
        const size_t f = feats->size(), p = probs->size();
        feats->resize(f + CHANCE_FEATURES);
        probs->resize(p + size_t(kinds));
        chance_features(g, seat, feats->data() + f);
        wall_probabilities(g, probs->data() + p);
    }
};

}  // namespace

namespace {

// Replay `hand` from its deck, dealer and actions with `hook` told of every draw; *step counts
// the actions replayed (the hook reads it). Returns the replay's wall positions after the deal
// and at the end.
std::pair<int, int> replay_hooked(const Game& hand, DrawHook* hook, int* step) {
    Game g(hand.rules_ptr(), hand.deck(), hand.dealer());
    const int start = g.wall_pos();
    g.set_draw_hook(hook);
    try {
        for (int a : hand.actions()) {
            g.step(a);
            ++*step;
        }
    } catch (...) {
        g.set_draw_hook(nullptr);
        throw;
    }
    g.set_draw_hook(nullptr);
    return {start, g.wall_pos()};
}

// std::invalid_argument unless `net` covers the kinds of wall card of the hand's rules.
void check_kinds(const ValueNet& net, const Game& hand) {
    const int kinds = chance_kinds(hand.rules());
    if (net.kinds() != kinds)
        throw std::invalid_argument("the value network covers " + std::to_string(net.kinds()) +
                                    " kinds of wall card; the hand's rules have " +
                                    std::to_string(kinds));
}

}  // namespace

void chance_events(const Game& hand, std::vector<ChanceEvent>* events, std::vector<float>* feats,
                   std::vector<float>* probs) {
    const size_t before = events->size();
    Collector c;
    c.events = events;
    c.feats = feats;
    c.probs = probs;
    c.kinds = chance_kinds(hand.rules());
    const auto [start, end] = replay_hooked(hand, &c, &c.step);
    // every card the replay took from the wall was seen by the hook (none at the deal)
    if (int(events->size() - before) != end - start || end != hand.wall_pos())
        throw std::logic_error("chance_events: the replay's draws do not match the hand's");
}

int chance_kind_index(int kind, int j) {
    if (kind < 0 || kind > NUM_KINDS || j < 0 || j >= CHANCE_KIND)
        throw std::invalid_argument("chance_kind_index: kind 0..20 and j 0..19");
    if (j >= 17) return CHANCE_IMMEDIATE_AT + 3 * kind + (j - 17);
    if (j < 15) {
        const int r = j / 5, slot = j % 5, base = r * CHANCE_SEAT;
        if (kind == NUM_KINDS) {  // 王
            if (slot == 0) return base + 100;
            if (slot == 2) return base + 105;
            return CHANCE_ZERO;
        }
        return base + 20 * slot + kind;  // hand, table, wins, score, 臭: blocks of 20
    }
    if (j == 15) return 3 * CHANCE_SEAT + kind;  // the wall's count (王: index 20)
    return kind == NUM_KINDS ? CHANCE_ONE : CHANCE_ZERO;
}

ValueNet::ValueNet(int kinds, int hidden, int head, float scale, ValueWeights w)
    : kinds_(kinds), hidden_(hidden), head_(head), scale_(scale), w_(std::move(w)) {
    if (kinds != NUM_KINDS && kinds != NUM_KINDS + 1)
        throw std::invalid_argument("kinds must be 20 or 21 (with 王), got " + std::to_string(kinds));
    if (hidden < 1 || hidden > 4096 || head < 1 || head > 4096)
        throw std::invalid_argument("hidden and head must be 1..4096, got " + std::to_string(hidden) +
                                    ", " + std::to_string(head));
    if (!std::isfinite(scale) || scale <= 0.0f)
        throw std::invalid_argument("scale must be a positive finite number");
    const size_t h = size_t(hidden), e = size_t(head), k = size_t(kinds);
    auto want = [](const std::vector<float>& v, size_t n, const char* name) {
        if (v.size() != n)
            throw std::invalid_argument(std::string("value network tensor ") + name + " must hold " +
                                        std::to_string(n) + " floats, got " +
                                        std::to_string(v.size()));
        for (float x : v)
            if (!std::isfinite(x))
                throw std::invalid_argument(std::string("value network tensor ") + name +
                                            " holds a non-finite value");
    };
    want(w_.w0, h * CHANCE_FEATURES, "w0");
    want(w_.b0, h, "b0");
    want(w_.w1, h * h, "w1");
    want(w_.b1, h, "b1");
    want(w_.wg, e * h, "wg");
    want(w_.wk, e * CHANCE_KIND, "wk");
    want(w_.bk, e, "bk");
    want(w_.embed, k * e, "embed");
    want(w_.w3, 3 * e, "w3");
    want(w_.b3, 3, "b3");
    for (int kind = 0; kind < kinds; ++kind)
        for (int j = 0; j < CHANCE_KIND; ++j) index_.push_back(chance_kind_index(kind, j));
    auto transpose = [](const std::vector<float>& w, size_t out, size_t in) {
        std::vector<float> t(out * in);
        for (size_t o = 0; o < out; ++o)
            for (size_t i = 0; i < in; ++i) t[i * out + o] = w[o * in + i];
        return t;
    };
    t0_ = transpose(w_.w0, h, CHANCE_FEATURES);
    t1_ = transpose(w_.w1, h, h);
    tg_ = transpose(w_.wg, e, h);
    tk_ = transpose(w_.wk, e, CHANCE_KIND);
}

namespace {
// y = b + sum_i x_i T[i] over the nonzero x_i (T: (in, out) row-major), then max(0, .) if relu.
void dense_t(const float* t, const float* b, const float* x, int in, int out, bool relu, float* y) {
    if (b != nullptr) std::copy(b, b + out, y);
    else std::fill(y, y + out, 0.0f);
    for (int i = 0; i < in; ++i) {
        const float xi = x[i];
        if (xi == 0.0f) continue;
        axpy(y, t + size_t(i) * size_t(out), xi, size_t(out));
    }
    if (relu)
        for (int o = 0; o < out; ++o) y[o] = y[o] < 0.0f ? 0.0f : y[o];
}
}  // namespace

void ValueNet::forward(const float* x, float* out, std::vector<float>* scratch) const {
    scratch->resize(size_t(2 * hidden_ + 2 * head_ + CHANCE_KIND));
    float* h0 = scratch->data();
    float* h1 = h0 + hidden_;
    float* gk = h1 + hidden_;  // Wg g + bk
    float* z = gk + head_;
    float* phi = z + head_;
    dense_t(t0_.data(), w_.b0.data(), x, CHANCE_FEATURES, hidden_, true, h0);
    dense_t(t1_.data(), w_.b1.data(), h0, hidden_, hidden_, true, h1);
    dense_t(tg_.data(), w_.bk.data(), h1, hidden_, head_, false, gk);
    for (int k = 0; k < kinds_; ++k) {
        for (int j = 0; j < CHANCE_KIND; ++j) {
            const int i = index_[size_t(k * CHANCE_KIND + j)];
            phi[j] = i == CHANCE_ZERO ? 0.0f : i == CHANCE_ONE ? 1.0f : x[i];
        }
        const float* emb = w_.embed.data() + size_t(k) * size_t(head_);
        for (int o = 0; o < head_; ++o) z[o] = gk[o] + emb[o];
        for (int j = 0; j < CHANCE_KIND; ++j) {
            const float pj = phi[j];
            if (pj == 0.0f) continue;
            axpy(z, tk_.data() + size_t(j) * size_t(head_), pj, size_t(head_));
        }
        for (int r = 0; r < 3; ++r) {
            const float* row = w_.w3.data() + size_t(r) * size_t(head_);
            float acc = w_.b3[size_t(r)];
            for (int o = 0; o < head_; ++o) acc += row[o] * (z[o] < 0.0f ? 0.0f : z[o]);
            out[3 * k + r] = acc * scale_ + x[CHANCE_IMMEDIATE_AT + 3 * k + r] * CHANCE_POINTS;
        }
    }
}

void chance_correction(const Game& hand, const ValueNet& net, double* out3, int* n_events) {
    check_kinds(net, hand);
    const int kinds = chance_kinds(hand.rules());
    thread_local std::vector<ChanceEvent> events;
    thread_local std::vector<float> feats, probs, y, scratch;
    events.clear();
    feats.clear();
    probs.clear();
    chance_events(hand, &events, &feats, &probs);
    y.resize(size_t(3 * kinds));
    out3[0] = out3[1] = out3[2] = 0.0;
    for (size_t e = 0; e < events.size(); ++e) {
        net.forward(feats.data() + e * CHANCE_FEATURES, y.data(), &scratch);
        const float* p = probs.data() + e * size_t(kinds);
        const int c = events[e].card;
        for (int r = 0; r < NUM_SEATS; ++r) {
            double expected = 0.0;
            for (int k = 0; k < kinds; ++k) expected += double(p[k]) * double(y[size_t(3 * k + r)]);
            out3[(events[e].drawer + r) % NUM_SEATS] += double(y[size_t(3 * c + r)]) - expected;
        }
    }
    if (n_events != nullptr) *n_events = int(events.size());
}

namespace {

// The network's expected value of each absolute seat just before `drawer` draws at g.
void expected_value(const Game& g, int drawer, const ValueNet& net, double* v3) {
    thread_local std::vector<float> x, y, p, scratch;
    const int kinds = chance_kinds(g.rules());
    x.resize(CHANCE_FEATURES);
    y.resize(size_t(3 * kinds));
    p.resize(size_t(kinds));
    chance_features(g, drawer, x.data());
    wall_probabilities(g, p.data());
    net.forward(x.data(), y.data(), &scratch);
    for (int r = 0; r < NUM_SEATS; ++r) {
        double e = 0.0;
        for (int k = 0; k < kinds; ++k) e += double(p[size_t(k)]) * double(y[size_t(3 * k + r)]);
        v3[(drawer + r) % NUM_SEATS] = e;
    }
}

void lookahead_values(const Game& g, int seat, const ValueNet& net,
                      const LookaheadPlayers& players, int depth, const float* p,
                      double (*val)[3]);

// v3[s] = sum_k p[k] val[k][s]: the expectation over the next card of per-kind values.
void expectation(const float* p, const double (*val)[3], int kinds, double* v3) {
    for (int s = 0; s < NUM_SEATS; ++s) {
        double e = 0.0;
        for (int k = 0; k < kinds; ++k) e += double(p[k]) * val[k][s];
        v3[s] = e;
    }
}

// The expected value of each absolute seat just before `drawer` draws at g, looking `depth`
// draws ahead: the network's (depth 0), else the expectation over the kinds of their lookahead
// values of depth `depth` (lookahead_values).
void lookahead_expectation(const Game& g, int drawer, const ValueNet& net,
                           const LookaheadPlayers& players, int depth, double* v3) {
    if (depth == 0) {
        expected_value(g, drawer, net, v3);
        return;
    }
    const int kinds = chance_kinds(g.rules());
    float p[NUM_KINDS + 1];
    wall_probabilities(g, p);
    double val[NUM_KINDS + 1][3];
    lookahead_values(g, drawer, net, players, depth, p, val);
    expectation(p, val, kinds, v3);
}

// On a copy: lets the first draw through, values the state before the next one (looking
// `depth` draws further ahead) and stops.
struct NextDraw : DrawHook {
    const ValueNet* net = nullptr;
    const LookaheadPlayers* players = nullptr;
    int depth = 0;
    bool first = true;
    double v3[3] = {0, 0, 0};
    void before_draw(const Game& g, int seat) override {
        if (first) {
            first = false;
            return;
        }
        lookahead_expectation(g, seat, *net, *players, depth, v3);
        throw StopDraw{};
    }
};

// The lookahead value of each kind at g before `seat` draws, `depth` draws ahead (1: on to the
// next draw): val[k][absolute seat] (0 for a kind of probability p[k] 0: none left in the wall).
// The copy's draws after the first are hooked before they happen, so no copy reads the wall's
// order at any depth.
void lookahead_values(const Game& g, int seat, const ValueNet& net,
                      const LookaheadPlayers& players, int depth, const float* p,
                      double (*val)[3]) {
    const int kinds = chance_kinds(g.rules());
    View view;
    // used within one action() only, never across the recursion (which runs inside step())
    thread_local NetScratch scratch;
    for (int k = 0; k < kinds; ++k) {
        val[k][0] = val[k][1] = val[k][2] = 0.0;
        if (p[k] == 0.0f) continue;
        NextDraw stop;
        stop.net = &net;
        stop.players = &players;
        stop.depth = depth - 1;
        Game c = g;
        c.set_draw_hook(&stop);
        try {
            c.draw_for_chance(seat, k);
            while (!c.done()) {
                const int s = c.current_player();
                const NetPolicy* np = players.nets[s];
                c.step(np != nullptr
                           ? np->action(c, &scratch)
                           : policy_action(c, Policy(players.policies[s]), 0, 0, &view));
            }
            for (int s = 0; s < NUM_SEATS; ++s) val[k][s] = double(c.result().scores[size_t(s)]);
        } catch (const StopDraw&) {
            for (int s = 0; s < NUM_SEATS; ++s) val[k][s] = stop.v3[s];
        }
    }
}

// Replays a hand with a lookahead at each draw: adds the terms to out3, or (out3 null) appends
// the draw's data set row.
struct Lookahead : DrawHook {
    const ValueNet* net = nullptr;
    const LookaheadPlayers* players = nullptr;
    int depth = 1;
    double* out3 = nullptr;
    std::vector<ChanceEvent>* events = nullptr;
    std::vector<float>*feats = nullptr, *probs = nullptr, *targets = nullptr;
    int n = 0;
    int step = 0;
    void before_draw(const Game& g, int seat) override {
        const int kinds = chance_kinds(g.rules());
        float p[NUM_KINDS + 1];
        wall_probabilities(g, p);
        double val[NUM_KINDS + 1][3];
        lookahead_values(g, seat, *net, *players, depth, p, val);
        const int drawn = g.deck()[size_t(g.wall_pos())];
        if (out3 != nullptr) {
            double e[3];
            expectation(p, val, kinds, e);
            for (int s = 0; s < NUM_SEATS; ++s) out3[s] += val[drawn][s] - e[s];
        } else {
            events->push_back(ChanceEvent{seat, drawn, step, g.wall_pos()});
            const size_t f = feats->size(), q = probs->size(), t = targets->size();
            feats->resize(f + CHANCE_FEATURES);
            probs->resize(q + size_t(kinds));
            targets->resize(t + size_t(3 * kinds));
            chance_features(g, seat, feats->data() + f);
            std::copy_n(p, kinds, probs->data() + q);
            for (int k = 0; k < kinds; ++k)
                for (int r = 0; r < NUM_SEATS; ++r)
                    (*targets)[t + size_t(3 * k + r)] = float(val[k][(seat + r) % NUM_SEATS]);
        }
        ++n;
    }
};

void replay_with(const Game& hand, Lookahead* la) {
    check_kinds(*la->net, hand);
    check_lookahead_depth(la->depth);
    for (int s = 0; s < NUM_SEATS; ++s)
        if (la->players->nets[s] == nullptr && la->players->policies[s] != P_GREEDY &&
            la->players->policies[s] != P_EXPERT)
            throw std::invalid_argument("a lookahead policy must be greedy or expert, got " +
                                        std::to_string(la->players->policies[s]));
    replay_hooked(hand, la, &la->step);
}

}  // namespace

void check_lookahead_depth(int depth) {
    if (depth < 1 || depth > MAX_LOOKAHEAD_DEPTH)
        throw std::invalid_argument("the lookahead depth must be 1.." +
                                    std::to_string(MAX_LOOKAHEAD_DEPTH) + ", got " +
                                    std::to_string(depth));
}

void chance_correction_lookahead(const Game& hand, const ValueNet& net,
                                 const LookaheadPlayers& players, int depth, double* out3,
                                 int* n_events) {
    Lookahead la;
    la.net = &net;
    la.players = &players;
    la.depth = depth;
    la.out3 = out3;
    out3[0] = out3[1] = out3[2] = 0.0;
    replay_with(hand, &la);
    if (n_events != nullptr) *n_events = la.n;
}

void chance_lookahead_dataset(const Game& hand, const ValueNet& net,
                              const LookaheadPlayers& players, int depth,
                              std::vector<ChanceEvent>* events,
                              std::vector<float>* feats, std::vector<float>* probs,
                              std::vector<float>* targets) {
    Lookahead la;
    la.net = &net;
    la.players = &players;
    la.depth = depth;
    la.events = events;
    la.feats = feats;
    la.probs = probs;
    la.targets = targets;
    replay_with(hand, &la);
}

}  // namespace phz
