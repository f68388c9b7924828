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
    // Transposed: wt0 (in, hidden), wt1 (hidden, hidden), wt2 (hidden, 61), so that a layer adds
    // one row per non-zero input (the observation is mostly zeros, a ReLU output about half);
    // each row and bias padded with zeros to a multiple of 8 values.
    std::vector<float> wt0_, b0_, wt1_, b1_, wt2_, b2_;
};

// Play `g` to its end with the network in every seat.
void playout(Game* g, const NetPolicy& net);

}  // namespace phz
