// The policy network's forward pass and playouts (netpolicy.hpp).
#include "netpolicy.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "dense.hpp"
#include "observation.hpp"

namespace phz {

namespace {

constexpr float MASK_VALUE = -1e8f;  // paohuzi_training/model.py MASK_VALUE

constexpr size_t LANES = DENSE_LANES;  // output sizes are padded to a multiple of this

size_t padded(int n) { return (size_t(n) + LANES - 1) / LANES * LANES; }

// (rows, cols) row-major -> (cols, padded(rows)) row-major, the padding zeros.
std::vector<float> transposed(const std::vector<float>& w, int rows, int cols) {
    const size_t stride = padded(rows);
    std::vector<float> t(size_t(cols) * stride, 0.0f);
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) t[size_t(c) * stride + r] = w[size_t(r) * cols + c];
    return t;
}

std::vector<float> padded_bias(std::vector<float> b) {
    b.resize(padded(int(b.size())), 0.0f);
    return b;
}

void check_size(const char* name, size_t got, size_t want) {
    if (got != want)
        throw std::invalid_argument(std::string("network tensor ") + name + " has " +
                                    std::to_string(got) + " values, the network needs " +
                                    std::to_string(want));
}

// out = b + x·W for the transposed weights wt (n_in, b.size()): one row added per non-zero
// input.
void affine(const float* x, int n_in, const std::vector<float>& wt, const std::vector<float>& b,
            std::vector<float>* out) {
    const size_t n_out = b.size();
    out->assign(b.begin(), b.end());
    for (int j = 0; j < n_in; ++j)
        if (x[j] != 0.0f) axpy(out->data(), wt.data() + size_t(j) * n_out, x[j], n_out);
}

void relu(std::vector<float>* h) {
    for (float& v : *h) v = std::max(v, 0.0f);
}

}  // namespace

NetPolicy::NetPolicy(int obs_size, int hidden, Policy prior, float prior_weight,
                     const std::vector<float>& w0, std::vector<float> b0,
                     const std::vector<float>& w1, std::vector<float> b1,
                     const std::vector<float>& w2, std::vector<float> b2,
                     const ConvStem& stem, bool waits)
    : obs_(obs_size), waits_(waits ? WAIT_FEATURES : 0), hidden_(hidden), prior_(prior), prior_weight_(prior_weight) {
    if (obs_size != OBS_SIZE && obs_size != OBS_SIZE_V2)
        throw std::invalid_argument("a network reads " + std::to_string(OBS_SIZE) + " or " +
                                    std::to_string(OBS_SIZE_V2) + " observation floats, not " +
                                    std::to_string(obs_size));
    if (hidden < 1 || hidden > 1 << 16)
        throw std::invalid_argument("hidden must be 1..65536, got " + std::to_string(hidden));
    if (prior != P_RANDOM && prior != P_GREEDY && prior != P_EXPERT)
        throw std::invalid_argument("a network's prior is none, greedy or expert");
    in_ = obs_ + waits_ + (prior_ == P_RANDOM ? 0 : NUM_ACTIONS);
    const size_t h = size_t(hidden);
    const bool conv = stem.channels > 0;
    const char* n0w = conv ? "actor.head.0.weight" : "actor.0.weight";
    if (stem.channels < 0 || stem.channels > 4096)
        throw std::invalid_argument("conv channels must be 0..4096, got " +
                                    std::to_string(stem.channels));
    const size_t head_in = size_t(in_) + (conv ? size_t(stem.channels) * 10 : 0);
    check_size(n0w, w0.size(), h * head_in);
    check_size(conv ? "actor.head.0.bias" : "actor.0.bias", b0.size(), h);
    check_size(conv ? "actor.head.2.weight" : "actor.2.weight", w1.size(), h * h);
    check_size(conv ? "actor.head.2.bias" : "actor.2.bias", b1.size(), h);
    check_size(conv ? "actor.head.4.weight" : "actor.4.weight", w2.size(), size_t(NUM_ACTIONS) * h);
    check_size(conv ? "actor.head.4.bias" : "actor.4.bias", b2.size(), size_t(NUM_ACTIONS));
    if (!conv) {
        wt0_ = transposed(w0, hidden, in_);
    } else {
        if (stem.rows.empty() || stem.rows.size() % NUM_KINDS != 0)
            throw std::invalid_argument("the conv stem's rows must be whole rows of " +
                                        std::to_string(NUM_KINDS) + " indices");
        for (int i : stem.rows)
            if (i < 0 || i >= obs_ + waits_)
                throw std::invalid_argument(
                    std::string("a conv stem row index is outside the observation") +
                    (waits_ ? " and its wait features" : "") + " (0.." +
                    std::to_string(obs_ + waits_ - 1) + "): " + std::to_string(i));
        channels_ = stem.channels;
        cin_ = int(stem.rows.size() / NUM_KINDS) * 2;
        cstride_ = padded(channels_);
        rows_ = stem.rows;
        for (int l = 0; l < 3; ++l) {
            const int ci = l == 0 ? cin_ : channels_;
            const std::string name = "actor.conv." + std::to_string(2 * l);
            check_size((name + ".weight").c_str(), stem.w[l].size(), size_t(channels_) * ci * 3);
            check_size((name + ".bias").c_str(), stem.b[l].size(), size_t(channels_));
            cw_[l].assign(size_t(ci) * 3 * cstride_, 0.0f);
            for (int o = 0; o < channels_; ++o)
                for (int i = 0; i < ci; ++i)
                    for (int t = 0; t < 3; ++t)
                        cw_[l][(size_t(i) * 3 + t) * cstride_ + o] =
                            stem.w[l][(size_t(o) * ci + i) * 3 + t];
            cb_[l] = stem.b[l];
            cb_[l].resize(cstride_, 0.0f);
        }
        // wt0_: one row per feature in the stem's order (position-major conv features, then
        // the input), each the column of w0 for torch's index (channel * 10 + position, or
        // 10 * channels + input index); padded channels get zero rows.
        const size_t stride = padded(hidden);
        const size_t nconv = 10 * cstride_;
        wt0_.assign((nconv + size_t(in_)) * stride, 0.0f);
        for (int r = 0; r < hidden; ++r) {
            const float* row = w0.data() + size_t(r) * head_in;
            for (int c = 0; c < channels_; ++c)
                for (int p = 0; p < 10; ++p)
                    wt0_[(size_t(p) * cstride_ + c) * stride + r] = row[size_t(c) * 10 + p];
            for (int j = 0; j < in_; ++j)
                wt0_[(nconv + j) * stride + r] = row[size_t(channels_) * 10 + j];
        }
    }
    wt1_ = transposed(w1, hidden, hidden);
    wt2_ = transposed(w2, NUM_ACTIONS, hidden);
    b0_ = padded_bias(std::move(b0));
    b1_ = padded_bias(std::move(b1));
    b2_ = padded_bias(std::move(b2));
}

int NetPolicy::action(const Game& g, NetScratch* s, float* logits) const {
    const int pa = prepare(g, s);
    forward(s);
    return choose(g, s, pa, logits);
}

int NetPolicy::prepare(const Game& g, NetScratch* s) const {
    if (g.done()) throw std::invalid_argument("the hand is over; no action is legal");
    if (phz::obs_size(g.rules()) != obs_)
        throw std::invalid_argument("this network reads " + std::to_string(obs_) +
                                    " observation floats; the hand's rules produce " +
                                    std::to_string(phz::obs_size(g.rules())));
    g.fill_view(g.current_player(), s->view);
    s->x.assign(size_t(in_), 0.0f);
    encode(s->view, s->x.data());
    if ((waits_ || prior_ != P_RANDOM) && !bots_linked())
        throw std::logic_error("the compiled bots (wait_features, greedy_action, expert_action) "
                               "are not built");
    if (waits_) wait_features(s->view, g.rules(), s->x.data() + obs_);
    int pa = -1;  // the prior bot's choice
    if (prior_ != P_RANDOM) {
        if (!bots_linked())
            throw std::logic_error("the compiled bots (greedy_action, expert_action) are not built");
        pa = prior_ == P_GREEDY ? greedy_action(s->view, g.rules())
                                : expert_action(s->view, g.rules());
        if (!g.is_legal(pa)) throw std::logic_error("a bot chose an illegal action");
        s->x[size_t(obs_ + waits_ + pa)] = 1.0f;
    }
    return pa;
}

int NetPolicy::choose(const Game& g, NetScratch* s, int pa, float* logits) const {
    if (pa >= 0) s->logits[size_t(pa)] += prior_weight_;
    // The masked argmax: legal() is ascending, so a strict > keeps the lowest id of a tie.
    const std::vector<int>& legal = g.legal();
    int best = legal.at(0);
    for (int a : legal)
        if (s->logits[size_t(a)] > s->logits[size_t(best)]) best = a;
    if (logits) {
        std::fill(logits, logits + NUM_ACTIONS, MASK_VALUE);
        for (int a : legal) logits[a] = s->logits[size_t(a)];
    }
    return best;
}

void NetPolicy::forward(NetScratch* s) const {
    if (s->x.size() != size_t(in_))
        throw std::invalid_argument("the network's input has " + std::to_string(in_) +
                                    " floats, got " + std::to_string(s->x.size()));
    if (channels_ > 0) {
        stem(s);
        affine(s->feat.data(), int(s->feat.size()), wt0_, b0_, &s->h0);
    } else {
        affine(s->x.data(), in_, wt0_, b0_, &s->h0);
    }
    relu(&s->h0);
    affine(s->h0.data(), hidden_, wt1_, b1_, &s->h1);
    relu(&s->h1);
    affine(s->h1.data(), hidden_, wt2_, b2_, &s->logits);
    s->logits.resize(NUM_ACTIONS);
}

namespace {

// For each sample i: outs[i] = b + ins[i]·W (the transposed weights wt, n_in rows of b.size()),
// adding row j for each non-zero ins[i][j] in ascending j, as affine() does for one sample (so
// the same sums in the same order), but row j is read once for all the samples.
void affine_batch(const std::vector<const float*>& ins, int n_in, const std::vector<float>& wt,
                  const std::vector<float>& b, const std::vector<std::vector<float>*>& outs) {
    const size_t n_out = b.size();
    for (std::vector<float>* o : outs) o->assign(b.begin(), b.end());
    const size_t n = ins.size();
    for (int j = 0; j < n_in; ++j) {
        const float* row = wt.data() + size_t(j) * n_out;
        for (size_t i = 0; i < n; ++i) {
            const float v = ins[i][j];
            if (v != 0.0f) axpy(outs[i]->data(), row, v, n_out);
        }
    }
}

}  // namespace

void NetPolicy::actions(const std::vector<const Game*>& gs, std::vector<NetScratch>* ss,
                        int* out) const {
    const size_t n = gs.size();
    if (ss->size() < n) ss->resize(n);
    std::vector<int> pa(n);
    std::vector<const float*> ins(n);
    std::vector<std::vector<float>*> h0(n), h1(n), lg(n);
    for (size_t i = 0; i < n; ++i) {
        NetScratch* s = &(*ss)[i];
        pa[i] = prepare(*gs[i], s);
        if (channels_ > 0) stem(s);
        ins[i] = channels_ > 0 ? s->feat.data() : s->x.data();
        h0[i] = &s->h0;
        h1[i] = &s->h1;
        lg[i] = &s->logits;
    }
    if (n == 0) return;
    const int n0 = channels_ > 0 ? int((*ss)[0].feat.size()) : in_;
    affine_batch(ins, n0, wt0_, b0_, h0);
    for (size_t i = 0; i < n; ++i) {
        relu(h0[i]);
        ins[i] = h0[i]->data();
    }
    affine_batch(ins, hidden_, wt1_, b1_, h1);
    for (size_t i = 0; i < n; ++i) {
        relu(h1[i]);
        ins[i] = h1[i]->data();
    }
    affine_batch(ins, hidden_, wt2_, b2_, lg);
    for (size_t i = 0; i < n; ++i) {
        lg[i]->resize(NUM_ACTIONS);
        out[i] = choose(*gs[i], &(*ss)[i], pa[i], nullptr);
    }
}

void NetPolicy::stem(NetScratch* s) const {
    // the input signal, position-major: (p, in channel) at p * cin_ + channel
    std::vector<float>& a = s->c0;
    std::vector<float>& b = s->c1;
    a.assign(size_t(10) * cin_, 0.0f);
    const int nrows = int(rows_.size() / NUM_KINDS);
    for (int r = 0; r < nrows; ++r)
        for (int k = 0; k < NUM_KINDS; ++k)
            a[size_t(k % 10) * cin_ + 2 * r + k / 10] = s->x[size_t(rows_[size_t(r) * NUM_KINDS + k])];
    // three width-3 convolutions (padding 1): in (p, i) adds tap t's weights of channel i to
    // out position q = p + 1 - t; then ReLU. The last writes into feat, before the input.
    const size_t nconv = 10 * cstride_;
    for (int l = 0; l < 3; ++l) {
        const int ci = l == 0 ? cin_ : channels_;
        const size_t istride = l == 0 ? size_t(cin_) : cstride_;
        std::vector<float>& out = l == 2 ? s->feat : b;
        out.assign(nconv + (l == 2 ? size_t(in_) : 0), 0.0f);
        for (int q = 0; q < 10; ++q)
            std::copy(cb_[l].begin(), cb_[l].end(), out.begin() + long(size_t(q) * cstride_));
        for (int p = 0; p < 10; ++p)
            for (int i = 0; i < ci; ++i) {
                const float v = a[size_t(p) * istride + i];
                if (v == 0.0f) continue;
                for (int t = 0; t < 3; ++t) {
                    const int q = p + 1 - t;
                    if (q < 0 || q > 9) continue;
                    axpy(out.data() + size_t(q) * cstride_,
                         cw_[l].data() + (size_t(i) * 3 + t) * cstride_, v, cstride_);
                }
            }
        for (size_t j = 0; j < nconv; ++j) out[j] = std::max(out[j], 0.0f);
        if (l < 2) std::swap(a, b);
    }
    std::copy(s->x.begin(), s->x.end(), s->feat.begin() + long(nconv));
}

NetValue::NetValue(int obs_size, int hidden, bool waits, bool central, float scale, float clip,
                   bool baseline, const std::vector<float>& w0, std::vector<float> b0,
                   const std::vector<float>& w1, std::vector<float> b1,
                   const std::vector<float>& w2, float b2)
    : obs_(obs_size), waits_(waits ? WAIT_FEATURES : 0), hidden_(hidden), scale_(scale),
      clip_(clip), baseline_(baseline), b2_(b2) {
    if (obs_size != OBS_SIZE && obs_size != OBS_SIZE_V2)
        throw std::invalid_argument("a critic reads " + std::to_string(OBS_SIZE) + " or " +
                                    std::to_string(OBS_SIZE_V2) + " observation floats, not " +
                                    std::to_string(obs_size));
    if (hidden < 1 || hidden > 1 << 16)
        throw std::invalid_argument("hidden must be 1..65536, got " + std::to_string(hidden));
    if (!(scale > 0.0f) || std::isinf(scale) || !(clip >= 0.0f) || std::isinf(clip))
        throw std::invalid_argument("a critic's scale must be positive and its clip >= 0, both finite");
    extra_ = central ? (obs_size == OBS_SIZE ? STATE_EXTRA_SIZE : STATE_EXTRA_SIZE_V2) : 0;
    in_ = obs_ + waits_ + extra_;
    const size_t h = size_t(hidden);
    check_size("critic.0.weight", w0.size(), h * size_t(in_));
    check_size("critic.0.bias", b0.size(), h);
    check_size("critic.2.weight", w1.size(), h * h);
    check_size("critic.2.bias", b1.size(), h);
    check_size("critic.4.weight", w2.size(), h);
    wt0_ = transposed(w0, hidden, in_);
    wt1_ = transposed(w1, hidden, hidden);
    b0_ = padded_bias(std::move(b0));
    b1_ = padded_bias(std::move(b1));
    w2_ = padded_bias(w2);
}

double NetValue::value(const Game& g, int seat, NetScratch* s) const {
    if (g.done()) throw std::invalid_argument("the hand is over: a critic values live hands");
    if (phz::obs_size(g.rules()) != obs_)
        throw std::invalid_argument("this critic reads " + std::to_string(obs_) +
                                    " observation floats; the hand's rules produce " +
                                    std::to_string(phz::obs_size(g.rules())));
    g.fill_view(seat, s->view);
    s->x.assign(size_t(in_), 0.0f);
    encode(s->view, s->x.data());
    if (waits_) {
        if (!bots_linked())
            throw std::logic_error("the compiled bots (wait_features) are not built");
        wait_features(s->view, g.rules(), s->x.data() + obs_);
    }
    if (extra_) state_extra(g, seat, s->x.data() + obs_ + waits_);
    affine(s->x.data(), in_, wt0_, b0_, &s->h0);
    relu(&s->h0);
    affine(s->h0.data(), hidden_, wt1_, b1_, &s->h1);
    relu(&s->h1);
    float v = b2_;
    for (int i = 0; i < hidden_; ++i) v += s->h1[size_t(i)] * w2_[size_t(i)];
    return double(v) * double(scale_);
}

double NetValue::terminal(double points, double base) const {
    const double x = baseline_ ? points - base : points;
    return clip_ > 0.0f ? std::max(-double(clip_), std::min(double(clip_), x)) : x;
}

void playout(Game* g, const NetPolicy& net) {
    NetScratch s;
    while (!g->done()) g->step(net.action(*g, &s));
}

}  // namespace phz
