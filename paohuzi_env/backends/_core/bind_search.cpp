// Binding of the compiled search (search.hpp): _fast.search_action, _fast.search_worlds and
// _fast.search_actions. paohuzi_env.backends.fast wraps them (fast.Game.search_action,
// fast.VectorGame.search_actions); paohuzi_env.agents.search.SearchAgent calls them. Also the
// policy network of the search's playouts (netpolicy.hpp): _fast.NetPolicy, built by
// paohuzi_env.agents.network, and _fast.net_policy_action (its decision at one position, for the
// tests). Bad input raises ValueError naming what is allowed, never crashes.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <array>
#include <atomic>
#include <cmath>
#include <exception>
#include <mutex>
#include <string>
#include <thread>

#include "bind_common.hpp"
#include "search.hpp"

namespace py = pybind11;

namespace phz {
namespace {

using RngTuple = std::tuple<uint64_t, uint64_t, uint64_t, uint64_t, int, uint64_t>;

// (state_hi, state_lo, inc_hi, inc_lo, has_uint32, uinteger) of numpy's PCG64 state dict.
Pcg64 rng_from(const RngTuple& t) {
    Pcg64 r;
    r.state = U128{std::get<0>(t), std::get<1>(t)};
    r.inc = U128{std::get<2>(t), std::get<3>(t)};
    r.has32 = std::get<4>(t) != 0;
    r.buf32 = uint32_t(std::get<5>(t));
    return r;
}

RngTuple rng_to(const Pcg64& r) {
    return RngTuple(r.state.hi, r.state.lo, r.inc.hi, r.inc.lo, r.has32 ? 1 : 0,
                    uint64_t(r.buf32));
}

using NetPtr = std::shared_ptr<NetPolicy>;
using ValuePtr = std::shared_ptr<NetValue>;

// rollout "network" plays the worlds out with `net` (which must be given then, and only then).
SearchOptions options(int samples, int playouts, const std::string& rollout, double z,
                      double margin, double budget_ms, int tries, int prune, double prune_z,
                      int threads, bool prune_bar, int top, const NetPtr& net,
                      const NetPtr& guide, double guide_p, const ValuePtr& leaf,
                      int leaf_depth, const std::string& weight, double weight_t,
                      const NetPtr& own) {
    SearchOptions o;
    if (weight == "none") o.weight = W_NONE;
    else if (weight == "expert") o.weight = W_EXPERT;
    else throw py::value_error("weight must be one of none, expert, got '" + weight + "'");
    if (!(weight_t > 0) || std::isinf(weight_t))
        throw py::value_error("weight_t (the temperature of the softened expert) must be positive "
                              "and finite, got " + std::to_string(weight_t));
    o.weight_t = weight_t;
    if (samples < 1 || playouts < 1)
        throw py::value_error("samples and playouts must be at least 1, got samples=" +
                              std::to_string(samples) + ", playouts=" + std::to_string(playouts));
    if (rollout == "network") o.net = net;
    else if (!find_policy(rollout, &o.rollout))
        throw py::value_error("rollout must be one of " + policy_names() + ", network, got '" +
                              rollout + "'");
    if ((rollout == "network") != bool(net))
        throw py::value_error(net ? "a network is given: rollout must be 'network'"
                                  : "rollout 'network' needs the network (net=NetPolicy)");
    if (net && net->prior() != P_RANDOM && !bots_linked())
        throw py::value_error("the compiled bots are not part of this build");
    auto bad = [](double x) { return !(x >= 0) || std::isinf(x); };
    if (bad(z) || bad(margin) || bad(budget_ms) || bad(prune_z) || tries < 1 || prune < 0)
        throw py::value_error("z, margin, budget_ms and prune_z must be finite and >= 0, tries >= 1 "
                              "and prune >= 0, got z=" + std::to_string(z) + ", margin=" +
                              std::to_string(margin) + ", budget_ms=" + std::to_string(budget_ms) +
                              ", prune_z=" + std::to_string(prune_z) + ", tries=" +
                              std::to_string(tries) + ", prune=" + std::to_string(prune));
    if (threads < 1 || threads > 256)
        throw py::value_error("threads must be 1..256, got " + std::to_string(threads));
    if (top < 0 || top == 1)
        throw py::value_error("top must be 0 (every action) or at least 2, got " + std::to_string(top));
    if (top > 0 && (o.rollout == P_RANDOM || o.net))
        throw py::value_error("top ranks actions by the rollout bot's values: not with rollout=random "
                              "or a network rollout");
    if (!o.net && o.rollout != P_RANDOM && !bots_linked())
        throw py::value_error("the compiled bots are not part of this build");
    if (guide && top > 0)
        throw py::value_error("top ranks actions by the rollout bot's values: not with a guide "
                              "network (its probabilities choose the candidates)");
    if (guide && guide->prior() != P_RANDOM && !bots_linked())
        throw py::value_error("the compiled bots are not part of this build");
    if (!(guide_p >= 0.0 && guide_p <= 1.0))
        throw py::value_error("guide_p must be a probability in [0, 1], got " + std::to_string(guide_p));
    if (leaf_depth < 1 || leaf_depth > 1000)
        throw py::value_error("leaf_depth must be 1..1000 (the seat's turns played before the "
                              "critic values the hand), got " + std::to_string(leaf_depth));
    if (leaf && (leaf->waits() || leaf->baseline()) && !bots_linked())  // the baseline: expert playouts
        throw py::value_error("the compiled bots are not part of this build");
    if (own && own->prior() != P_RANDOM && !bots_linked())
        throw py::value_error("the compiled bots are not part of this build");
    o.own = own;
    o.guide = guide;
    o.guide_p = guide_p;
    o.leaf = leaf;
    o.leaf_depth = leaf_depth;
    o.samples = samples;
    o.playouts = playouts;
    o.z = z;
    o.margin = margin;
    o.budget_ms = budget_ms;
    o.tries = tries;
    o.prune = prune;
    o.prune_z = prune_z;
    o.prune_bar = prune_bar;
    o.threads = threads;
    o.top = top;
    return o;
}

void acting_seat(const Game& g, int seat) {
    if (seat < 0 || seat > 2) throw py::value_error("seat must be 0, 1 or 2, got " + std::to_string(seat));
    if (g.done()) throw py::value_error("the hand is over: there is no decision to search");
    if (g.current_player() != seat)
        throw py::value_error("seat " + std::to_string(seat) + " is not the seat to act (to act: " +
                              std::to_string(g.current_player()) + ")");
}

template <class Net>
void check_rules_fit(const std::shared_ptr<Net>& net, const Rules& rules,
                     const char* what = "the network") {
    if (net && net->obs_size() != obs_size(rules))
        throw py::value_error(std::string(what) + " reads " + std::to_string(net->obs_size()) +
                              " observation floats, but rules '" + rules.name + "' produce " +
                              std::to_string(obs_size(rules)));
}

// A float32 copy of `a`, which must have exactly the shape (rows[, cols]).
std::vector<float> tensor(const py::array_t<float, py::array::c_style | py::array::forcecast>& a,
                          const char* name, py::ssize_t rows, py::ssize_t cols = -1) {
    const bool ok = cols < 0 ? (a.ndim() == 1 && a.shape(0) == rows)
                             : (a.ndim() == 2 && a.shape(0) == rows && a.shape(1) == cols);
    if (!ok) {
        std::string got = "(";
        for (py::ssize_t i = 0; i < a.ndim(); ++i)
            got += (i ? ", " : "") + std::to_string(a.shape(i));
        throw py::value_error(std::string("network tensor ") + name + " must have shape (" +
                              std::to_string(rows) + (cols < 0 ? "," : ", " + std::to_string(cols)) +
                              "), got " + got + ")");
    }
    for (py::ssize_t i = 0; i < a.size(); ++i)
        if (!std::isfinite(a.data()[i]))
            throw py::value_error(std::string("network tensor ") + name + " holds a non-finite value");
    return std::vector<float>(a.data(), a.data() + a.size());
}

// A network's observation size (v1 or v2) and hidden width, as the constructors take them.
void check_net_size(int obs_size, int hidden) {
    if (obs_size != OBS_SIZE && obs_size != OBS_SIZE_V2)
        throw py::value_error("obs_size must be " + std::to_string(OBS_SIZE) + " or " +
                              std::to_string(OBS_SIZE_V2) + ", got " + std::to_string(obs_size));
    if (hidden < 1 || hidden > 1 << 16)
        throw py::value_error("hidden must be 1..65536, got " + std::to_string(hidden));
}

py::dict result_dict(const SearchResult& r) {
    py::dict d;
    d["choice"] = r.choice;
    d["worlds"] = r.worlds;
    d["attempts"] = r.attempts;
    d["playouts"] = r.playouts;
    d["legal"] = r.legal;
    d["means"] = r.means;
    d["played"] = r.played;
    d["ses"] = r.ses;
    return d;
}

// The weighting's fields (only with a weight model) and the worlds (only with keep_worlds).
void add_weights(py::dict& d, const SearchResult& r, const SearchOptions& o) {
    if (o.weight != W_NONE) {
        d["log_weights"] = r.log_weights;
        d["ess"] = r.ess;
        d["weight_fallback"] = r.weight_fallback;
    }
    if (o.keep_worlds) {
        d["decks"] = r.decks;
        d["scores"] = r.scores;
    }
}

double checked_t(double t) {
    if (!(t > 0) || std::isinf(t))
        throw py::value_error("weight_t (the temperature of the softened expert) must be positive "
                              "and finite, got " + std::to_string(t));
    return t;
}

}  // namespace

void bind_search(py::module_& m) {
    using F32 = py::array_t<float, py::array::c_style | py::array::forcecast>;
    py::class_<NetPolicy, std::shared_ptr<NetPolicy>>(
        m, "NetPolicy",
        "A policy network's actor (paohuzi_training/model.py), played by its masked argmax in the "
        "search's playouts (paohuzi_env.agents.network builds it from a .safetensors policy).")
        .def(py::init([](int obs_size, int hidden, const std::string& prior, double prior_weight,
                         const F32& w0, const F32& b0, const F32& w1, const F32& b1,
                         const F32& w2, const F32& b2, int conv_channels, py::object rows,
                         py::object conv, bool waits) {
                 Policy p;
                 if (prior == "none") p = P_RANDOM;  // the random bot is never a prior
                 else if (!find_policy(prior, &p) || p == P_RANDOM)
                     throw py::value_error("prior must be none or a compiled bot other than random "
                                           "(" + policy_names() + "), got '" + prior + "'");
                 if (!std::isfinite(prior_weight))
                     throw py::value_error("prior_weight must be finite");
                 check_net_size(obs_size, hidden);
                 if (conv_channels < 0 || conv_channels > 4096)
                     throw py::value_error("conv_channels must be 0 (the mlp actor) or 1..4096, got " +
                                           std::to_string(conv_channels));
                 const int n_rows = obs_size + (waits ? WAIT_FEATURES : 0);  // what rows may index
                 const py::ssize_t in = n_rows + (p == P_RANDOM ? 0 : NUM_ACTIONS);
                 ConvStem stem;
                 const bool c = conv_channels > 0;
                 if (c != !rows.is_none() || c != !conv.is_none())
                     throw py::value_error("a conv actor needs conv_channels > 0, rows and conv (its "
                                           "six stem tensors); the mlp actor none of them");
                 if (c) {
                     stem.channels = conv_channels;
                     const py::array raw = py::array::ensure(rows);
                     if (!raw || raw.dtype().kind() != 'i')
                         throw py::value_error("rows must be an int array of shape (rows, 20), "
                                               "1 to 64 rows");
                     auto r = py::array_t<int64_t, py::array::c_style | py::array::forcecast>::ensure(raw);
                     if (!r || r.ndim() != 2 || r.shape(1) != NUM_KINDS || r.shape(0) < 1 ||
                         r.shape(0) > 64)
                         throw py::value_error("rows must be an int array of shape (rows, 20), "
                                               "1 to 64 rows");
                     for (py::ssize_t i = 0; i < r.size(); ++i) {
                         const int64_t v = r.data()[i];
                         if (v < 0 || v >= n_rows)
                             throw py::value_error("rows holds " + std::to_string(v) +
                                                   ", outside the observation" +
                                                   (waits ? " and its wait features" : "") +
                                                   " (0.." + std::to_string(n_rows - 1) + ")");
                         stem.rows.push_back(int(v));
                     }
                     std::vector<F32> parts;
                     if (py::isinstance<py::str>(conv) || !py::isinstance<py::sequence>(conv))
                         throw py::value_error("conv must be a list of six float arrays (weight, "
                                               "bias of actor.conv.0, .2 and .4)");
                     for (const py::handle item : conv.cast<py::sequence>()) {
                         auto a = F32::ensure(item);
                         if (!a) throw py::value_error("conv must be a list of six float arrays");
                         parts.push_back(a);
                     }
                     if (parts.size() != 6)
                         throw py::value_error("conv must hold six tensors (weight, bias of "
                                               "actor.conv.0, .2 and .4)");
                     const py::ssize_t cin = 2 * r.shape(0);
                     for (int l = 0; l < 3; ++l) {
                         const std::string name = "actor.conv." + std::to_string(2 * l);
                         const py::ssize_t ci = l == 0 ? cin : conv_channels;
                         const F32& w = parts[size_t(2 * l)];
                         if (w.ndim() != 3 || w.shape(0) != conv_channels || w.shape(1) != ci ||
                             w.shape(2) != 3)
                             throw py::value_error("network tensor " + name + ".weight must have "
                                                   "shape (" + std::to_string(conv_channels) + ", " +
                                                   std::to_string(ci) + ", 3)");
                         for (py::ssize_t i = 0; i < w.size(); ++i)
                             if (!std::isfinite(w.data()[i]))
                                 throw py::value_error("network tensor " + name +
                                                       ".weight holds a non-finite value");
                         stem.w[l].assign(w.data(), w.data() + w.size());
                         stem.b[l] = tensor(parts[size_t(2 * l + 1)], (name + ".bias").c_str(),
                                            conv_channels);
                     }
                 }
                 const py::ssize_t head_in = in + (c ? py::ssize_t(conv_channels) * 10 : 0);
                 const char* pre = c ? "actor.head." : "actor.";
                 const std::string n0 = std::string(pre) + "0", n2 = std::string(pre) + "2",
                                   n4 = std::string(pre) + "4";
                 return std::make_shared<NetPolicy>(
                     obs_size, hidden, p, float(prior_weight),
                     tensor(w0, (n0 + ".weight").c_str(), hidden, head_in),
                     tensor(b0, (n0 + ".bias").c_str(), hidden),
                     tensor(w1, (n2 + ".weight").c_str(), hidden, hidden),
                     tensor(b1, (n2 + ".bias").c_str(), hidden),
                     tensor(w2, (n4 + ".weight").c_str(), NUM_ACTIONS, hidden),
                     tensor(b2, (n4 + ".bias").c_str(), NUM_ACTIONS), stem, waits);
             }),
             py::arg("obs_size"), py::arg("hidden"), py::arg("prior"), py::arg("prior_weight"),
             py::arg("w0"), py::arg("b0"), py::arg("w1"), py::arg("b1"), py::arg("w2"),
             py::arg("b2"), py::arg("conv_channels") = 0, py::arg("rows") = py::none(),
             py::arg("conv") = py::none(), py::arg("waits") = false)
        .def_property_readonly("obs_size", &NetPolicy::obs_size)
        .def_property_readonly("waits", &NetPolicy::waits)
        .def_property_readonly("in_size", &NetPolicy::in_size)
        .def_property_readonly("hidden", &NetPolicy::hidden)
        .def_property_readonly("conv_channels", &NetPolicy::conv_channels)
        .def_property_readonly("prior", [](const NetPolicy& n) {
            return n.prior() == P_GREEDY ? "greedy" : n.prior() == P_EXPERT ? "expert" : "none";
        })
        .def_property_readonly("prior_weight", &NetPolicy::prior_weight);

    py::class_<NetValue, std::shared_ptr<NetValue>>(
        m, "NetValue",
        "A network's critic (paohuzi_training/model.py ActorCritic.critic), the search's leaf value "
        "(paohuzi_env.agents.network.load_critic builds it from a .safetensors network).")
        .def(py::init([](int obs_size, int hidden, bool waits, bool central, double scale,
                         double clip, bool baseline, const F32& w0, const F32& b0, const F32& w1,
                         const F32& b1, const F32& w2, const F32& b2) {
                 check_net_size(obs_size, hidden);
                 if (!(scale > 0) || std::isinf(scale) || !(clip >= 0) || std::isinf(clip))
                     throw py::value_error("scale must be positive and clip >= 0, both finite");
                 const py::ssize_t extra =
                     central ? (obs_size == OBS_SIZE ? STATE_EXTRA_SIZE : STATE_EXTRA_SIZE_V2) : 0;
                 const py::ssize_t in = obs_size + (waits ? WAIT_FEATURES : 0) + extra;
                 const std::vector<float> bias = tensor(b2, "critic.4.bias", 1);
                 return std::make_shared<NetValue>(
                     obs_size, hidden, waits, central, float(scale), float(clip), baseline,
                     tensor(w0, "critic.0.weight", hidden, in), tensor(b0, "critic.0.bias", hidden),
                     tensor(w1, "critic.2.weight", hidden, hidden),
                     tensor(b1, "critic.2.bias", hidden), tensor(w2, "critic.4.weight", 1, hidden),
                     bias[0]);
             }),
             py::arg("obs_size"), py::arg("hidden"), py::arg("waits"), py::arg("central"),
             py::arg("scale"), py::arg("clip"), py::arg("baseline"), py::arg("w0"), py::arg("b0"),
             py::arg("w1"), py::arg("b1"), py::arg("w2"), py::arg("b2"))
        .def_property_readonly("obs_size", &NetValue::obs_size)
        .def_property_readonly("in_size", &NetValue::in_size)
        .def_property_readonly("hidden", &NetValue::hidden)
        .def_property_readonly("waits", &NetValue::waits)
        .def_property_readonly("central", &NetValue::central)
        .def_property_readonly("scale", &NetValue::scale)
        .def_property_readonly("clip", &NetValue::clip)
        .def_property_readonly("baseline", &NetValue::baseline);

    m.def(
        "net_value",
        [](const Game& g, int seat, const NetValue& critic) {
            if (seat < 0 || seat > 2)
                throw py::value_error("seat must be 0, 1 or 2, got " + std::to_string(seat));
            if (g.done()) throw py::value_error("the hand is over: a critic values live hands");
            if (critic.obs_size() != obs_size(g.rules()))
                throw py::value_error("the critic reads " + std::to_string(critic.obs_size()) +
                                      " observation floats; the hand's rules produce " +
                                      std::to_string(obs_size(g.rules())));
            NetScratch s;
            return critic.value(g, seat, &s);
        },
        py::arg("game"), py::arg("seat"), py::arg("critic"),
        "The critic's value of the live hand for `seat`, in points (its output times its scale): "
        "what the search's leaves read.");

    m.def(
        "net_policy_action",
        [](const Game& g, const NetPolicy& net) {
            if (g.done()) throw py::value_error("the hand is over: there is no decision");
            if (net.obs_size() != obs_size(g.rules()))
                throw py::value_error("the network reads " + std::to_string(net.obs_size()) +
                                      " observation floats; the hand's rules produce " +
                                      std::to_string(obs_size(g.rules())));
            py::array_t<float> logits(NUM_ACTIONS);
            NetScratch s;
            const int a = net.action(g, &s, logits.mutable_data());
            return py::make_tuple(a, logits);
        },
        py::arg("game"), py::arg("net"),
        "The network's action at the hand's decision (its acting seat) and its 61 masked logits "
        "(illegal actions -1e8): the decision the search's playouts take there.");

    m.def(
        "net_policy_logits",
        [](const NetPolicy& net, const F32& x) {
            if (x.ndim() != 1 || x.shape(0) != net.in_size())
                throw py::value_error("the network reads " + std::to_string(net.in_size()) +
                                      " floats (the observation" +
                                      (net.waits() ? ", then its wait features" : "") +
                                      (net.prior() != P_RANDOM ? ", then the prior's one-hot" : "") +
                                      "), got an array of shape (" +
                                      (x.ndim() == 1 ? std::to_string(x.shape(0)) : "...") + ")");
            for (py::ssize_t i = 0; i < x.size(); ++i)
                if (!std::isfinite(x.data()[i]))
                    throw py::value_error("the network's input holds a non-finite value");
            NetScratch s;
            s.x.assign(x.data(), x.data() + x.size());
            {
                py::gil_scoped_release nogil;
                net.forward(&s);
            }
            py::array_t<float> out(NUM_ACTIONS);
            std::copy(s.logits.begin(), s.logits.end(), out.mutable_data());
            return out;
        },
        py::arg("net"), py::arg("x"),
        "The network's 61 logits (unmasked, without the prior's bonus) for its input `x`: the "
        "observation (then its 80 wait features for a network that reads them, then the prior's "
        "one-hot for a network with a prior).");

    m.def(
        "search_action",
        [](const Game& g, int seat, const RngTuple& rng_state, int samples, int playouts,
           const std::string& rollout, double z, double margin, double budget_ms, int tries,
           int prune, double prune_z, int threads, bool prune_bar, int top, const NetPtr& net,
           const NetPtr& guide, double guide_p, const ValuePtr& leaf, int leaf_depth,
           const std::string& weight, double weight_t, bool keep_worlds, const NetPtr& own_net) {
            acting_seat(g, seat);
            SearchOptions o = options(samples, playouts, rollout, z, margin, budget_ms, tries,
                                      prune, prune_z, threads, prune_bar, top, net, guide,
                                      guide_p, leaf, leaf_depth, weight, weight_t, own_net);
            o.keep_worlds = keep_worlds;
            if (o.weight != W_NONE && !bots_linked())
                throw py::value_error("the compiled bots are not part of this build");
            check_rules_fit(net, g.rules());
            check_rules_fit(guide, g.rules(), "the guide network");
            check_rules_fit(leaf, g.rules(), "the leaf critic");
            check_rules_fit(own_net, g.rules(), "the own-seat network");
            Pcg64 rng = rng_from(rng_state);
            SearchResult r;
            const Game own(g);  // another Python thread may step `g` while the GIL is released
            {
                py::gil_scoped_release nogil;
                r = search_action(own, seat, o, rng);
            }
            py::dict d = result_dict(r);
            add_weights(d, r, o);
            d["rng_state"] = rng_to(rng);
            return d;
        },
        py::arg("game"), py::arg("seat"), py::arg("rng_state"), py::arg("samples") = 32,
        py::arg("playouts") = 256, py::arg("rollout") = "expert", py::arg("z") = 2.0,
        py::arg("margin") = 0.0, py::arg("budget_ms") = 0.0, py::arg("tries") = 8,
        py::arg("prune") = 0, py::arg("prune_z") = 1.0, py::arg("threads") = 1,
        py::arg("prune_bar") = false, py::arg("top") = 0, py::arg("net") = NetPtr(),
        py::arg("guide") = NetPtr(), py::arg("guide_p") = 1.0, py::arg("leaf") = ValuePtr(),
        py::arg("leaf_depth") = 1, py::arg("weight") = "none",
        py::arg("weight_t") = DEFAULT_WEIGHT_T, py::arg("keep_worlds") = false,
        py::arg("own") = NetPtr(),
        "The search's action for `seat` in `game` (a dict: choice, worlds, attempts, playouts, "
        "legal, means, ses, played, rng_state). rollout 'network' plays out with `net`; `guide` "
        "(a NetPolicy) chooses the candidates and the choice kept; `leaf` (a NetValue) values "
        "the playouts, cut at the seat's leaf_depth-th turn (search.hpp). weight 'expert' "
        "weights each world by the softened expert's probability of the other seats' decisions "
        "at temperature weight_t (the dict then holds log_weights, ess and weight_fallback); "
        "keep_worlds adds each world's deck and scores (decks, scores); `own` (a NetPolicy) "
        "plays the searching seat's own decisions in the playouts, the rollout the others'.");

    m.def(
        "search_world_log_weight",
        [](const Game& g, int seat, const std::vector<int>& deck, double weight_t) -> py::object {
            acting_seat(g, seat);
            checked_t(weight_t);
            if (!bots_linked()) throw py::value_error("the compiled bots are not part of this build");
            if (int(deck.size()) != g.num_cards())
                throw py::value_error("deck must hold " + std::to_string(g.num_cards()) +
                                      " cards, got " + std::to_string(deck.size()));
            std::array<int, NUM_KINDS + 1> count{};
            for (int k : deck) {
                if (k < 0 || k > NUM_KINDS)
                    throw py::value_error("deck cards must be kinds 0..20, got " + std::to_string(k));
                count[size_t(k)] += 1;
            }
            for (int k = 0; k < NUM_KINDS; ++k)
                if (count[size_t(k)] != COPIES)
                    throw py::value_error("deck must hold every kind 4 times");
            if (count[NUM_KINDS] != g.rules().wang)
                throw py::value_error("deck must hold the rules' 王 count");
            const Knowledge kn = knowledge(g, seat);
            double lw = 0.0;
            int decisions = 0;
            if (!world_log_weight(kn, deck, g.rules_ptr(), weight_t, &lw, &decisions))
                return py::none();
            return py::make_tuple(lw, decisions);
        },
        py::arg("game"), py::arg("seat"), py::arg("deck"), py::arg("weight_t") = DEFAULT_WEIGHT_T,
        "The log-weight of the world `deck` at `seat`'s decision and the number of the other "
        "seats' decisions weighed (with more than one legal action), or None when the deck does "
        "not replay the hand's public course (search.hpp world_log_weight).");

    m.def(
        "search_world_weights",
        [](const Game& g, int seat, const RngTuple& rng_state, int worlds, int tries,
           double weight_t) {
            acting_seat(g, seat);
            checked_t(weight_t);
            if (!bots_linked()) throw py::value_error("the compiled bots are not part of this build");
            if (worlds < 0 || tries < 1)
                throw py::value_error("worlds must be >= 0 and tries >= 1");
            Pcg64 rng = rng_from(rng_state);
            const Knowledge kn = knowledge(g, seat);
            py::list out;
            std::vector<int> deck;
            int got = 0;
            for (int attempts = 0; got < worlds && attempts < worlds * tries; ++attempts) {
                if (!sample_deck(kn, rng, &deck)) continue;
                Game w = g;
                if (!replay_world(kn, deck, g.rules_ptr(), &w)) continue;
                rng.integers(uint64_t(1) << 31);  // the world's playout seed, as the search draws it
                double lw = 0.0;
                int decisions = 0;
                world_log_weight(kn, deck, g.rules_ptr(), weight_t, &lw, &decisions);
                out.append(py::make_tuple(deck, lw, decisions));
                ++got;
            }
            return py::make_tuple(out, rng_to(rng));
        },
        py::arg("game"), py::arg("seat"), py::arg("rng_state"), py::arg("worlds"),
        py::arg("tries") = 8, py::arg("weight_t") = DEFAULT_WEIGHT_T,
        "The worlds the search samples from `rng_state` (at most `worlds`, in worlds * tries "
        "attempts, the search's draws without its playouts or time budget), each as (deck, "
        "log_weight, decisions weighed), and the advanced rng state.");

    m.def(
        "search_worlds",
        [](const Game& g, int seat, const RngTuple& rng_state, int count) {
            acting_seat(g, seat);
            if (count < 0) throw py::value_error("count must be >= 0");
            Pcg64 rng = rng_from(rng_state);
            const Knowledge kn = knowledge(g, seat);
            py::list out;
            std::vector<int> deck;
            for (int i = 0; i < count; ++i) {
                if (!sample_deck(kn, rng, &deck)) {
                    out.append(py::make_tuple(py::none(), false));
                    continue;
                }
                Game w = g;
                const bool ok = replay_world(kn, deck, g.rules_ptr(), &w);
                out.append(py::make_tuple(deck, ok));
            }
            return py::make_tuple(out, rng_to(rng));
        },
        py::arg("game"), py::arg("seat"), py::arg("rng_state"), py::arg("count"),
        "`count` sampled deals (None: gave up) and whether each replays the public course, "
        "drawn as agents/search.py's _sample_deck then _world; and the advanced rng state.");

    m.def(
        "search_rng_state",
        [](uint64_t seed, uint64_t deal, uint64_t decisions) {
            return rng_to(keyed_pcg64(seed, deal, decisions));
        },
        py::arg("seed"), py::arg("deal"), py::arg("decisions"),
        "The generator state search_actions uses for a hand: keyed by (seed, the hand's deal "
        "number, the actions taken in it so far).");

    m.def(
        "search_actions",
        [](VectorGame& vg, py::array_t<int64_t, py::array::c_style> out, py::object which,
           uint64_t seed, int samples, int playouts, const std::string& rollout, double z,
           double margin, int tries, int prune, double prune_z, int threads, bool prune_bar,
           int top, py::object rng_states, const NetPtr& net, const NetPtr& guide,
           double guide_p, const ValuePtr& leaf, int leaf_depth, const std::string& weight,
           double weight_t, const NetPtr& own) {
            const int n = vg.size();
            if (out.ndim() != 1 || out.shape(0) != n)
                throw py::value_error("out must be an int64 array of shape (" + std::to_string(n) + ",)");
            // Optional per-hand generator states (n, 6) uint64, read and advanced in place: hand
            // i then draws exactly as a SearchAgent whose generator is in that state.
            uint64_t* states = nullptr;
            py::array_t<uint64_t> st_arr;
            if (!rng_states.is_none()) {
                if (!py::isinstance<py::array_t<uint64_t>>(rng_states))
                    throw py::value_error("rng_states must be a uint64 array of shape (" +
                                          std::to_string(n) + ", 6)");
                st_arr = rng_states.cast<py::array_t<uint64_t>>();
                if (st_arr.ndim() != 2 || st_arr.shape(0) != n || st_arr.shape(1) != 6 ||
                    !(st_arr.flags() & py::array::c_style) || !st_arr.writeable())
                    throw py::value_error("rng_states must be a writable C-contiguous uint64 array "
                                          "of shape (" + std::to_string(n) + ", 6)");
                states = st_arr.mutable_data();
            }
            std::vector<uint8_t> mark(n, 1);
            if (!which.is_none()) {
                auto w = py::array_t<bool, py::array::c_style | py::array::forcecast>::ensure(which);
                if (!w || w.ndim() != 1 || w.shape(0) != n)
                    throw py::value_error("which must be a bool array of shape (" + std::to_string(n) + ",)");
                for (int i = 0; i < n; ++i) mark[i] = w.data()[i] ? 1 : 0;
            }
            if (threads < 1 || threads > 256)
                throw py::value_error("threads must be 1..256, got " + std::to_string(threads));
            const SearchOptions o = options(samples, playouts, rollout, z, margin, 0.0, tries,
                                            prune, prune_z, 1, prune_bar, top, net, guide,
                                            guide_p, leaf, leaf_depth, weight, weight_t, own);
            if (o.weight != W_NONE && !bots_linked())
                throw py::value_error("the compiled bots are not part of this build");
            check_rules_fit(net, vg.rules());
            check_rules_fit(guide, vg.rules(), "the guide network");
            check_rules_fit(leaf, vg.rules(), "the leaf critic");
            check_rules_fit(own, vg.rules(), "the own-seat network");
            int64_t* dst = out.mutable_data();
            {
                py::gil_scoped_release nogil;
                std::lock_guard<std::mutex> lock(vg.mutex());
                std::vector<int> todo;
                for (int i = 0; i < n; ++i)
                    if (mark[i]) todo.push_back(i);
                // Threads over hands; each hand's generator is keyed by (seed, its deal number,
                // decisions so far), so the answers do not depend on the thread count or batch.
                std::atomic<size_t> next{0};
                std::exception_ptr err;
                std::mutex err_mu;
                auto worker = [&]() {
                    for (size_t k; (k = next.fetch_add(1)) < todo.size();) {
                        const int i = todo[k];
                        try {
                            const Game& g = vg.hand(i);
                            if (g.done()) throw std::invalid_argument(
                                "hand " + std::to_string(i) + " is over: there is no decision to search");
                            if (states) {
                                uint64_t* q = states + size_t(i) * 6;
                                Pcg64 rng = rng_from(RngTuple(q[0], q[1], q[2], q[3], int(q[4]), q[5]));
                                dst[i] = search_action(g, g.current_player(), o, rng).choice;
                                const RngTuple t = rng_to(rng);
                                q[0] = std::get<0>(t); q[1] = std::get<1>(t); q[2] = std::get<2>(t);
                                q[3] = std::get<3>(t); q[4] = uint64_t(std::get<4>(t)); q[5] = std::get<5>(t);
                            } else {
                                Pcg64 rng = keyed_pcg64(seed, vg.deal_index(i), g.actions().size());
                                dst[i] = search_action(g, g.current_player(), o, rng).choice;
                            }
                        } catch (...) {
                            std::lock_guard<std::mutex> l(err_mu);
                            if (!err) err = std::current_exception();
                        }
                    }
                };
                const int nt = std::max(1, std::min<int>(threads, int(todo.size())));
                std::vector<std::thread> pool;
                for (int t = 1; t < nt; ++t) pool.emplace_back(worker);
                worker();
                for (auto& t : pool) t.join();
                if (err) std::rethrow_exception(err);
            }
            return out;
        },
        py::arg("vector_game"), py::arg("out"), py::arg("which") = py::none(), py::arg("seed") = 0,
        py::arg("samples") = 32, py::arg("playouts") = 256, py::arg("rollout") = "expert",
        py::arg("z") = 2.0, py::arg("margin") = 0.0, py::arg("tries") = 8, py::arg("prune") = 0,
        py::arg("prune_z") = 1.0, py::arg("threads") = 1, py::arg("prune_bar") = false,
        py::arg("top") = 0, py::arg("rng_states") = py::none(), py::arg("net") = NetPtr(),
        py::arg("guide") = NetPtr(), py::arg("guide_p") = 1.0, py::arg("leaf") = ValuePtr(),
        py::arg("leaf_depth") = 1, py::arg("weight") = "none",
        py::arg("weight_t") = DEFAULT_WEIGHT_T, py::arg("own") = NetPtr(),
        "The search's action in each hand `which` marks (all if None), written into `out`.");
}

}  // namespace phz
