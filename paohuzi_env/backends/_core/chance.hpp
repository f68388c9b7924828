// Control variates over the wall's chance events (AIVAT, Burch et al. 2018): docs/aivat.md.
//
// Every card taken from the wall is a chance event: given everything that happened before it
// (all hands included: the evaluator sees them), the card is uniform over the cards still in
// the wall, because the deck was shuffled uniformly and no agent saw the wall's order. For a
// fixed value function V(h, k) (the points each seat ends the hand with, expected after the
// card of kind k is drawn at history h), the term
//
//     V(h, c) - sum_k P(k | h) V(h, k)          (c: the card that was drawn)
//
// has expectation zero given h, so subtracting the sum of the terms over a hand from the seat's
// points leaves an unbiased estimate of its expected points with (for a good V) less variance.
//
// The value function here is a small MLP (ValueNet) over chance_features(): the state just
// before the draw, relative to the seat about to draw, with hidden cards but without the wall's
// order (only the remaining multiset, which the history determines). Its output holds, per kind
// k (20, or 21 with 王), the three seats' points (drawer, next, previous) after drawing k.
#pragma once

#include <array>
#include <vector>

#include "engine.hpp"

namespace phz {

class NetPolicy;  // netpolicy.hpp

// Kinds a wall card can be: the 20, and 王 under rules with jokers.
inline int chance_kinds(const Rules& r) { return r.wang ? NUM_KINDS + 1 : NUM_KINDS; }

// paohuzi-chance-v1. Per seat (drawer, next, previous), CHANCE_SEAT floats:
//   [0, 20)    the hand by kind, count / 4
//   [20, 40)   the seat's table cards by kind (hidden 偎 included), count / 4
//   [40, 60)   1 where a card of that kind would win the holding (game/waits.py win_scores)
//   [60, 80)   that win's score / 50 (at most 2)
//   [80, 100)  the kinds the seat may not take (臭, R-CHOU)
//   100 王 held / 2, 101 table 胡息 / 30, 102 is the dealer, 103 has played,
//   104 提/跑 groups / 2, 105 a drawn 王 would win, 106 cards held / 21
// then CHANCE_GLOBAL floats: [0, 20) the wall's cards by kind, count / 4; 20 王 in the wall / 2;
// 21 cards left in the wall / 20; then CHANCE_HAZARD floats, per seat (drawer, next, previous):
// the wall's cards that would win its holding / 8, the same weighted by the win's score / 200,
// the largest such score / 50, 1 if some card (in the wall or not) would win it; then
// CHANCE_IMMEDIATE = 21 x 3 floats: for each kind k (王 last), the points of (drawer, next,
// previous) / 50 if drawing k now ends the hand at once (immediate_outcomes), else 0.
constexpr int CHANCE_SEAT = 107;
constexpr int CHANCE_GLOBAL = 22;
constexpr int CHANCE_HAZARD = 12;
constexpr int CHANCE_IMMEDIATE_AT = 3 * CHANCE_SEAT + CHANCE_GLOBAL + CHANCE_HAZARD;  // 355
constexpr int CHANCE_FEATURES = CHANCE_IMMEDIATE_AT + 3 * (NUM_KINDS + 1);  // 418
constexpr float CHANCE_POINTS = 50.0f;  // the immediate block's unit

// What drawing each kind k would do at once (chance_kinds floats x 3, index 3 k + r, points of
// seat r relative to the drawer): the engine draws a copy's card of kind k (Game::
// draw_for_chance) and, while a win is offered, the offered seat takes it (HU). The points of
// the hand's end if it ends so, before any later card is drawn; else 0 (and 0 for a kind no
// longer in the wall). An exact function of the history and k: the copy stops at its next draw
// and never reads the wall's order.
void immediate_outcomes(const Game& g, int drawer, float* out);

// The features of g just before `drawer` takes the next wall card (g must not be over).
void chance_features(const Game& g, int drawer, float* out);

// P(kind | history) of the next wall card: the remaining wall by kind / cards left
// (chance_kinds(rules) floats). The wall must not be empty.
void wall_probabilities(const Game& g, float* out);

// One chance event of a hand, found by replaying it (chance_events).
struct ChanceEvent {
    int drawer = 0;
    int card = 0;  // the kind drawn (WANG for a 王)
    int step = 0;  // the hand's actions before the one whose step drew it
    int wall_pos = 0;  // the card's position in the deck
};

// Replay `hand` (over or not) from its deck, dealer and actions, and append, for every card it
// took from the wall, the event, its chance_features (CHANCE_FEATURES floats) and its
// wall_probabilities (chance_kinds floats) to the vectors.
void chance_events(const Game& hand, std::vector<ChanceEvent>* events, std::vector<float>* feats,
                   std::vector<float>* probs);

// The per-kind inputs of the value network's head: CHANCE_KIND floats for each kind k, read
// from the chance features. For each seat r (drawer, next, previous): its count of k in hand, on
// its table, whether k would win its holding, that win's score / 50, whether k is 臭 to it; then
// the wall's count of k, 1 for 王, and the immediate outcome of k for the three seats. For 王
// (k = 20): the seat's 王 / 2 in the hand slot and "a drawn 王 would win" in the win slot (the
// others 0), the wall's 王 / 2. An index table over the features: CHANCE_ZERO for 0, CHANCE_ONE
// for 1.
constexpr int CHANCE_KIND = 20;
constexpr int CHANCE_ZERO = -1, CHANCE_ONE = -2;
int chance_kind_index(int kind, int j);

// The value function. A trunk reads the chance features x:
//     g = relu(W1 relu(W0 x + b0) + b1)                       (hidden)
// and a head shared by the kinds reads g and kind k's inputs phi_k (CHANCE_KIND):
//     out_k = scale (W3 relu(Wg g + Wk phi_k + bk + E[k]) + b3) + immediate_k
// (3: drawer, next, previous; points): the head learns what the draw does beyond the hand's
// immediate end, which the engine computes exactly. Shared weights see "this card wins that seat's holding" once for every
// kind. Weights in PyTorch's row-major (out, in) layout: w0 (hidden, 418), w1 (hidden, hidden),
// wg (head, hidden), wk (head, 20), bk (head), embed (kinds, head), w3 (3, head), b3 (3).
// Read-only once built (any number of threads may use one).
struct ValueWeights {
    std::vector<float> w0, b0, w1, b1, wg, wk, bk, embed, w3, b3;
};

class ValueNet {
public:
    // std::invalid_argument for sizes that do not fit or non-finite values.
    ValueNet(int kinds, int hidden, int head, float scale, ValueWeights w);
    int kinds() const { return kinds_; }
    int hidden() const { return hidden_; }
    int head() const { return head_; }
    float scale() const { return scale_; }
    // out: 3 x kinds() points for the features x (CHANCE_FEATURES floats), index 3 k + r.
    void forward(const float* x, float* out, std::vector<float>* scratch) const;

private:
    int kinds_, hidden_, head_;
    float scale_;
    ValueWeights w_;
    // w0, w1, wg and wk transposed (in, out): the forward pass adds a column per nonzero input
    // (the features and the ReLU layers are mostly zeros), in SIMD blocks (dense.hpp's axpy).
    std::vector<float> t0_, t1_, tg_, tk_;
    std::vector<int> index_;  // chance_kind_index(k, j) at k * CHANCE_KIND + j
};

// The sum over `hand`'s chance events of V(h, c) - E_k V(h, k), per absolute seat, into out3
// (points); the number of events into *n_events (optional). std::invalid_argument when the
// network's kinds do not match the hand's rules.
void chance_correction(const Game& hand, const ValueNet& net, double* out3, int* n_events);

// The same sum with a lookahead (docs/aivat.md, "aivat-lookahead"): with depth 1, V(h, k) is
// the value of the state the hand reaches when k is drawn and every seat plays on by its policy
// (policies[seat]: P_GREEDY or P_EXPERT, the seats' own bots or stand-ins for them) until the
// next draw: the points if the hand ends first, else the network's expected value there,
// sum_k' P(k') V_net(h', k'). With depth d > 1, the value there is instead sum_k' P(k')
// V_{d-1}(h', k'): every kind of the next d - 1 draws is played out the same way, and the
// network values the states d draws ahead (about 15 times the work per extra draw). Where the
// policies are the agents that played, V(h, c) is the expected value at the next draw the hand
// really made, so the sum telescopes and only the network's inconsistencies between d and d + 1
// draws ahead are left, averaged over the d - 1 draws between. std::invalid_argument for a
// bot policy that is neither, a depth outside 1..MAX_LOOKAHEAD_DEPTH, or a network for other kinds.
// Who plays each seat in a lookahead's copies: the bot policies[seat] (P_GREEDY or P_EXPERT)
// or, where nets[seat] is set, that policy network by its argmax (NetPolicy::action), the agent
// itself where a network played the seat, so that its copies move as it did.
struct LookaheadPlayers {
    const int* policies = nullptr;  // 3
    const NetPolicy* nets[3] = {nullptr, nullptr, nullptr};
};
constexpr int MAX_LOOKAHEAD_DEPTH = 3;
// std::invalid_argument for a depth outside 1..MAX_LOOKAHEAD_DEPTH.
void check_lookahead_depth(int depth);
void chance_correction_lookahead(const Game& hand, const ValueNet& net,
                                 const LookaheadPlayers& players, int depth, double* out3,
                                 int* n_events);

// For training a value function consistent with its own lookahead: every draw of `hand`
// replayed, its event, chance_features and wall_probabilities (as chance_events) and, for each
// kind k, the lookahead value V(h, k) of chance_correction_lookahead of that depth relative to
// the drawer (index 3 k + r; 0 for a kind not in the wall), appended to `targets`.
void chance_lookahead_dataset(const Game& hand, const ValueNet& net,
                              const LookaheadPlayers& players, int depth, std::vector<ChanceEvent>* events,
                              std::vector<float>* feats, std::vector<float>* probs,
                              std::vector<float>* targets);

}  // namespace phz
