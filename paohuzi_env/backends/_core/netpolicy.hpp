// A trained policy network in the core: the actor of paohuzi_training/model.py's ActorCritic, played
// greedily, so that the search can play its worlds out with it (SearchOptions::net).
//
// The actor is an MLP: Linear(in, hidden) -> ReLU -> Linear(hidden, hidden) -> ReLU ->
// Linear(hidden, 61), read from the acting seat's observation (observation.hpp: paohuzi-obs-v1,
// or v2 with 王). The `conv` actor (paohuzi_training/model.py KindConvActor) puts a stem before that
// MLP: the observation's per-kind blocks (the 29 rows of 20 indices of
// paohuzi_env.encode.observation.kind_rows) as a (2 x 29 channels, 10 numbers) signal, small and big
// cards of a number in channels 2r and 2r + 1, through three width-3 (padding 1) convolutions
// with ReLU; the MLP then reads the flattened conv output (channel-major, as torch's flatten)
// followed by its usual input. A network trained with a prior bot (residual policy learning, `prior` greedy
// or expert) also reads the one-hot (61) of that bot's choice after the observation, and the
// choice gets `prior_weight` added to its logit. A network trained with the wait features
// (`waits`, training's `wait_features: true`) reads the 80 floats of bots.hpp's wait_features
// (paohuzi-waits-v1) right after the observation, before the prior's one-hot; its conv rows may
// index them. The action is the masked argmax: the legal
// action with the largest logit, ties to the lowest action id; an illegal action is never chosen.
//
// The weights are float32, read-only once built: one NetPolicy serves any number of threads, each
// with its own NetScratch. paohuzi_env/agents/network.py reads them from a .safetensors policy
// (numpy alone) and checks the rules; the constructor checks the shapes.
#pragma once

#include <vector>

#include "engine.hpp"
#include "vector.hpp"

namespace phz {

// Per-call (per-thread) buffers of a forward pass.
struct NetScratch {
    View view;
    std::vector<float> x, h0, h1, logits, c0, c1, feat;
};

// The conv actor's stem (channels 0: none, the plain MLP actor). Weights in PyTorch's layout:
// w[l] (channels, in channels, 3) with 2 x rows.size() / 20 in channels for l = 0 and
// `channels` after; b[l] (channels).
struct ConvStem {
    int channels = 0;
    std::vector<int> rows;  // the observation index of (row r, kind k) at r * 20 + k
    std::vector<float> w[3], b[3];
};

class NetPolicy {
public:
    // prior: P_RANDOM for none (the random bot is never a prior), P_GREEDY or P_EXPERT. The
    // weights in PyTorch's layout (row-major (out, in)): w0 (hidden, obs_size [+ 61 with a
    // prior]), w1 (hidden, hidden), w2 (61, hidden); biases b0, b1 (hidden) and b2 (61).
    // std::invalid_argument for sizes that do not fit.
    // With a conv stem (stem.channels > 0), w0 is (hidden, 10 x channels + the input above),
    // the conv features first.
    NetPolicy(int obs_size, int hidden, Policy prior, float prior_weight,
              const std::vector<float>& w0, std::vector<float> b0,
              const std::vector<float>& w1, std::vector<float> b1,
              const std::vector<float>& w2, std::vector<float> b2,
              const ConvStem& stem = ConvStem(), bool waits = false);

    int obs_size() const { return obs_; }
    int in_size() const { return in_; }
    bool waits() const { return waits_ > 0; }
    int hidden() const { return hidden_; }
    Policy prior() const { return prior_; }
    int conv_channels() const { return channels_; }
    float prior_weight() const { return prior_weight_; }

    // The network's action for g's acting seat (the hand must be live and its observation
    // obs_size() floats: std::invalid_argument otherwise). `logits` (optional): the 61 masked
    // logits (illegal actions -1e8, as paohuzi_training/model.py's MASK_VALUE).
    int action(const Game& g, NetScratch* s, float* logits = nullptr) const;

    // The network's action for each live hand gs[i] (its acting seat), into out[i]: the same
    // actions and logits as action() one hand at a time (each hand's sums in the same order),
    // with each dense layer's weight rows read once for the whole batch rather than once a
    // hand. ss must hold at least gs.size() scratches.
    void actions(const std::vector<const Game*>& gs, std::vector<NetScratch>* ss, int* out) const;

    // The 61 logits (unmasked, without the prior's bonus) of the network's input in s->x
    // (in_size() floats: the observation, the wait features for a network that reads them, then
    // the prior's one-hot for a network with a prior),
    // into s->logits.
    void forward(NetScratch* s) const;

private:
    int obs_, waits_, in_, hidden_;
    Policy prior_;
    float prior_weight_;
    // The conv stem: rows_, the in channels, the padded channel stride; per layer the
    // transposed weights ((in channels x 3) rows of cstride_ values: row i * 3 + t holds tap t
    // of in channel i for every out channel) and the padded bias. The features are kept
    // position-major (p * cstride_ + channel); wt0_'s rows are ordered to match.
    int channels_ = 0, cin_ = 0;
    size_t cstride_ = 0;
    std::vector<int> rows_;
    std::vector<float> cw_[3], cb_[3];
    void stem(NetScratch* s) const;  // s->x -> s->feat (conv features, then s->x)
    // action()'s two halves: the input of g's acting seat into s->x (returns the prior bot's
    // choice, -1 without a prior), and the masked argmax of s->logits after the forward pass.
    int prepare(const Game& g, NetScratch* s) const;
    int choose(const Game& g, NetScratch* s, int pa, float* logits) const;
    // Transposed: wt0 (in, hidden), wt1 (hidden, hidden), wt2 (hidden, 61), so that a layer adds
    // one row per non-zero input (the observation is mostly zeros, a ReLU output about half);
    // each row and bias padded with zeros to a multiple of 8 values.
    std::vector<float> wt0_, b0_, wt1_, b1_, wt2_, b2_;
};

// Play `g` to its end with the network in every seat.
void playout(Game* g, const NetPolicy& net);

// A trained critic in the core: the value head of paohuzi_training/model.py's ActorCritic,
// Linear(in, hidden) -> ReLU -> Linear(hidden, hidden) -> ReLU -> Linear(hidden, 1), reading a
// seat's observation, then its 80 wait features for a network trained with them, then (a
// central critic) the full-information features of observation.hpp's state_extra for that seat.
// The search reads it at its leaves (SearchOptions::leaf). A network with a prior is not read
// (its critic also reads the prior's one-hot).
//
// The critic estimates the hand's reward on the training's scale: the seat's points (less the
// points the same deal gives it when three experts play it, with the expert baseline), divided
// by `scale` and, where the reward was clipped, clipped to [-clip, clip] points first. value()
// answers in points on that footing: the critic's output times `scale`; terminal() the same for
// a finished hand's points.
class NetValue {
public:
    // Weights in PyTorch's layout: w0 (hidden, in_size()), w1 (hidden, hidden), w2 (1, hidden);
    // b0, b1 (hidden), b2 (1). std::invalid_argument for sizes that do not fit or a scale that
    // is not positive and finite.
    NetValue(int obs_size, int hidden, bool waits, bool central, float scale, float clip,
             bool baseline, const std::vector<float>& w0, std::vector<float> b0,
             const std::vector<float>& w1, std::vector<float> b1, const std::vector<float>& w2,
             float b2);

    int obs_size() const { return obs_; }
    int in_size() const { return in_; }
    int hidden() const { return hidden_; }
    bool waits() const { return waits_ > 0; }
    bool central() const { return extra_ > 0; }
    float scale() const { return scale_; }
    float clip() const { return clip_; }
    // The critic was trained against the expert baseline: a finished hand's points are taken
    // less the points the deal gives the seat when three experts play it.
    bool baseline() const { return baseline_; }

    // The critic's estimate for `seat` in the live hand g, in points (see above).
    double value(const Game& g, int seat, NetScratch* s) const;
    // A finished hand's `points` for the seat (less `base`, the deal's expert points, with the
    // baseline) on the critic's footing: clipped to [-clip, clip] where clip > 0.
    double terminal(double points, double base) const;

private:
    int obs_, waits_, extra_, in_, hidden_;
    float scale_, clip_;
    bool baseline_;
    std::vector<float> wt0_, b0_, wt1_, b1_, w2_;  // transposed, padded as NetPolicy's
    float b2_;
};

}  // namespace phz
