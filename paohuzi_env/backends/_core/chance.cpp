// Control variates over the wall's chance events: chance.hpp, docs/aivat.md.
#include "chance.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "bots.hpp"

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

void chance_events(const Game& hand, std::vector<ChanceEvent>* events, std::vector<float>* feats,
                   std::vector<float>* probs) {
    Game g(hand.rules_ptr(), hand.deck(), hand.dealer());
    const int start = g.wall_pos();
    const size_t before = events->size();
    Collector c;
    c.events = events;
    c.feats = feats;
    c.probs = probs;
    c.kinds = chance_kinds(hand.rules());
    g.set_draw_hook(&c);
    try {
        for (int a : hand.actions()) {
            g.step(a);
            ++c.step;
        }
    } catch (...) {
        g.set_draw_hook(nullptr);
        throw;
    }
    g.set_draw_hook(nullptr);
    // every card the replay took from the wall was seen by the hook (none at the deal)
    if (int(events->size() - before) != g.wall_pos() - start || g.wall_pos() != hand.wall_pos())
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
}

namespace {
// y = W x + b (relu: then max(0, .)), W (out, in) row-major
void dense(const float* w, const float* b, const float* x, int in, int out, bool relu, float* y) {
    for (int o = 0; o < out; ++o) {
        const float* row = w + size_t(o) * size_t(in);
        float acc = b != nullptr ? b[o] : 0.0f;
        for (int i = 0; i < in; ++i) acc += row[i] * x[i];
        y[o] = relu && acc < 0.0f ? 0.0f : acc;
    }
}
}  // namespace

void ValueNet::forward(const float* x, float* out, std::vector<float>* scratch) const {
    scratch->resize(size_t(2 * hidden_ + 2 * head_ + CHANCE_KIND));
    float* h0 = scratch->data();
    float* h1 = h0 + hidden_;
    float* gk = h1 + hidden_;  // Wg g + bk
    float* z = gk + head_;
    float* phi = z + head_;
    dense(w_.w0.data(), w_.b0.data(), x, CHANCE_FEATURES, hidden_, true, h0);
    dense(w_.w1.data(), w_.b1.data(), h0, hidden_, hidden_, true, h1);
    dense(w_.wg.data(), w_.bk.data(), h1, hidden_, head_, false, gk);
    for (int k = 0; k < kinds_; ++k) {
        for (int j = 0; j < CHANCE_KIND; ++j) {
            const int i = index_[size_t(k * CHANCE_KIND + j)];
            phi[j] = i == CHANCE_ZERO ? 0.0f : i == CHANCE_ONE ? 1.0f : x[i];
        }
        const float* emb = w_.embed.data() + size_t(k) * size_t(head_);
        for (int o = 0; o < head_; ++o) {
            const float* row = w_.wk.data() + size_t(o) * CHANCE_KIND;
            float acc = gk[o] + emb[o];
            for (int j = 0; j < CHANCE_KIND; ++j) acc += row[j] * phi[j];
            z[o] = acc < 0.0f ? 0.0f : acc;
        }
        dense(w_.w3.data(), w_.b3.data(), z, head_, 3, false, out + 3 * k);
        for (int r = 0; r < 3; ++r)
            out[3 * k + r] = out[3 * k + r] * scale_ +
                             x[CHANCE_IMMEDIATE_AT + 3 * k + r] * CHANCE_POINTS;
    }
}

void chance_correction(const Game& hand, const ValueNet& net, double* out3, int* n_events) {
    const int kinds = chance_kinds(hand.rules());
    if (net.kinds() != kinds)
        throw std::invalid_argument("the value network covers " + std::to_string(net.kinds()) +
                                    " kinds of wall card; the hand's rules have " +
                                    std::to_string(kinds));
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

}  // namespace phz
