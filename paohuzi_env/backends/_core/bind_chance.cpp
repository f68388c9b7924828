// Binding of the chance events' control variates (chance.hpp): _fast.ValueNet,
// _fast.chance_corrections and _fast.chance_dataset, wrapped by paohuzi_env.backends.fast
// (chance_corrections, chance_dataset) and read by paohuzi_training.aivat. The work runs without
// the GIL; bad input raises ValueError naming what is allowed, never crashes.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <array>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "bind_common.hpp"
#include "chance.hpp"
#include "netpolicy.hpp"
#include "vector.hpp"

namespace py = pybind11;

namespace phz {
namespace {

using F32 = py::array_t<float, py::array::c_style | py::array::forcecast>;

std::vector<float> floats(const F32& a) { return std::vector<float>(a.data(), a.data() + a.size()); }

// The core games of a sequence of _fast.Game (the GIL is held; the sequence keeps them alive).
std::vector<const Game*> games_of(const py::sequence& games) {
    std::vector<const Game*> out;
    out.reserve(size_t(py::len(games)));
    for (const py::handle item : games) {
        if (!py::isinstance<Game>(item))
            throw py::type_error("games must be compiled hands (_fast.Game), got " +
                                 std::string(py::str(py::type::handle_of(item).attr("__name__"))));
        out.push_back(&item.cast<const Game&>());
    }
    return out;
}

// Who plays each seat in the lookahead: None (no lookahead: empty), or (n, 3) ints, each
// P_GREEDY or P_EXPERT.
std::vector<int> policies_of(const py::object& policies, size_t n) {
    if (policies.is_none()) return {};
    const auto a = py::array_t<int, py::array::c_style | py::array::forcecast>::ensure(policies);
    if (!a || a.ndim() != 2 || size_t(a.shape(0)) != n || a.shape(1) != 3)
        throw py::value_error("policies must be an (n, 3) array of ints, one row per hand");
    std::vector<int> out(a.data(), a.data() + a.size());
    for (int p : out)
        if (p != P_GREEDY && p != P_EXPERT)
            throw py::value_error("each lookahead policy must be P_GREEDY (" +
                                  std::to_string(int(P_GREEDY)) + ") or P_EXPERT (" +
                                  std::to_string(int(P_EXPERT)) + "), got " + std::to_string(p));
    return out;
}

// The policy networks that play seats in the lookahead: None (the bots everywhere: empty), or
// one entry per hand of three, each a _fast.NetPolicy (that seat's agent) or None (its bot).
// Held by shared pointers while the work runs without the GIL.
using SeatNets = std::array<std::shared_ptr<NetPolicy>, 3>;
std::vector<SeatNets> networks_of(const py::object& networks, size_t n) {
    if (networks.is_none()) return {};
    const py::sequence rows = networks.cast<py::sequence>();
    if (size_t(py::len(rows)) != n)
        throw py::value_error("networks must give one entry per hand (" + std::to_string(n) +
                              "), got " + std::to_string(py::len(rows)));
    std::vector<SeatNets> out(n);
    for (size_t i = 0; i < n; ++i) {
        const py::sequence seats = rows[i].cast<py::sequence>();
        if (py::len(seats) != 3)
            throw py::value_error("each entry of networks names the three seats' networks");
        for (size_t s = 0; s < 3; ++s) {
            const py::object x = seats[s];
            if (x.is_none()) continue;
            if (!py::isinstance<NetPolicy>(x))
                throw py::type_error("a seat's network must be a _fast.NetPolicy or None");
            out[i][s] = x.cast<std::shared_ptr<NetPolicy>>();
        }
    }
    return out;
}

// The players of hand i's lookahead.
LookaheadPlayers players_of(const std::vector<int>& pol, const std::vector<SeatNets>& nets,
                            size_t i) {
    LookaheadPlayers p;
    p.policies = pol.data() + 3 * i;
    if (!nets.empty())
        for (size_t s = 0; s < 3; ++s) p.nets[s] = nets[i][s].get();
    return p;
}

}  // namespace

void bind_chance(py::module_& m) {
    m.attr("MAX_LOOKAHEAD_DEPTH") = MAX_LOOKAHEAD_DEPTH;
    m.attr("LOOKAHEAD_GREEDY") = int(P_GREEDY);  // the policies of chance_corrections' lookahead
    m.attr("LOOKAHEAD_EXPERT") = int(P_EXPERT);
    m.attr("CHANCE_FEATURES") = CHANCE_FEATURES;
    m.attr("CHANCE_IMMEDIATE_AT") = CHANCE_IMMEDIATE_AT;
    m.attr("CHANCE_POINTS") = CHANCE_POINTS;
    m.def(
        "chance_kind_index",
        [](int kinds) {
            if (kinds != NUM_KINDS && kinds != NUM_KINDS + 1)
                throw py::value_error("kinds must be 20 or 21 (with 王), got " + std::to_string(kinds));
            py::array_t<int64_t> out({py::ssize_t(kinds), py::ssize_t(CHANCE_KIND)});
            for (int k = 0; k < kinds; ++k)
                for (int j = 0; j < CHANCE_KIND; ++j)
                    out.mutable_data()[k * CHANCE_KIND + j] = chance_kind_index(k, j);
            return out;
        },
        py::arg("kinds"),
        "The head's per-kind inputs as indices into the chance features (kinds, 20): -1 for 0, "
        "-2 for 1 (chance.hpp).");
    py::class_<ValueNet, std::shared_ptr<ValueNet>>(
        m, "ValueNet",
        "The value function of the chance events' control variates (chance.hpp): an MLP from the "
        "418 chance features to 3 x kinds points (paohuzi_training.aivat loads it).")
        .def(py::init([](int kinds, int hidden, int head, double scale, const py::dict& t) {
                 const char* names[] = {"w0", "b0", "w1", "b1", "wg", "wk", "bk", "embed", "w3", "b3"};
                 ValueWeights w;
                 std::vector<float>* slots[] = {&w.w0, &w.b0, &w.w1, &w.b1, &w.wg,
                                                &w.wk, &w.bk, &w.embed, &w.w3, &w.b3};
                 for (size_t i = 0; i < 10; ++i) {
                     if (!t.contains(names[i]))
                         throw py::value_error(std::string("the value network lacks tensor ") +
                                               names[i]);
                     *slots[i] = floats(F32::ensure(t[names[i]]));
                 }
                 try {
                     return std::make_shared<ValueNet>(kinds, hidden, head, float(scale), std::move(w));
                 } catch (const std::invalid_argument& e) {
                     throw py::value_error(e.what());
                 }
             }),
             py::arg("kinds"), py::arg("hidden"), py::arg("head"), py::arg("scale"),
             py::arg("tensors"))
        .def_property_readonly("kinds", &ValueNet::kinds)
        .def_property_readonly("hidden", &ValueNet::hidden)
        .def_property_readonly("scale", &ValueNet::scale)
        .def(
            "values",
            [](const ValueNet& net, const F32& x) {
                if (x.ndim() != 2 || x.shape(1) != CHANCE_FEATURES)
                    throw py::value_error("features must have shape (n, " +
                                          std::to_string(CHANCE_FEATURES) + ")");
                const py::ssize_t n = x.shape(0), o = 3 * net.kinds();
                py::array_t<float> out({n, o});
                const float* xp = x.data();
                float* op = out.mutable_data();
                {
                    py::gil_scoped_release release;
                    std::vector<float> scratch;
                    for (py::ssize_t i = 0; i < n; ++i)
                        net.forward(xp + i * CHANCE_FEATURES, op + i * o, &scratch);
                }
                return out;
            },
            py::arg("features"),
            "The network's output (n, 3 x kinds) for rows of chance features: the points of "
            "(drawer, next, previous) after each kind, kind-major.");

    m.def(
        "chance_corrections",
        [](const py::sequence& games, const ValueNet& net, const py::object& policies, int depth,
           const py::object& networks) {
            const std::vector<const Game*> gs = games_of(games);
            const py::ssize_t n = py::ssize_t(gs.size());
            const std::vector<int> pol = policies_of(policies, size_t(n));
            check_lookahead_depth(depth);  // std::invalid_argument: ValueError
            if (policies.is_none() && (depth != 1 || !networks.is_none()))
                throw py::value_error("a lookahead depth or networks need the policies (without "
                                      "them the draws are valued by the network's own output)");
            const std::vector<SeatNets> nets = networks_of(networks, size_t(n));
            py::array_t<double> out({n, py::ssize_t(3)});
            py::array_t<int64_t> events(n);
            double* op = out.mutable_data();
            int64_t* ep = events.mutable_data();
            std::string error;
            {
                py::gil_scoped_release release;
                try {
                    for (py::ssize_t i = 0; i < n; ++i) {
                        int k = 0;
                        if (pol.empty())
                            chance_correction(*gs[size_t(i)], net, op + 3 * i, &k);
                        else
                            chance_correction_lookahead(*gs[size_t(i)], net,
                                                        players_of(pol, nets, size_t(i)), depth,
                                                        op + 3 * i, &k);
                        ep[i] = k;
                    }
                } catch (const std::invalid_argument& e) {
                    error = e.what();
                } catch (const IllegalAction& e) {
                    error = std::string("a hand does not replay: ") + e.what();
                }
            }
            if (!error.empty()) throw py::value_error(error);
            return py::make_tuple(out, events);
        },
        py::arg("games"), py::arg("net"), py::arg("policies") = py::none(), py::arg("depth") = 1,
        py::arg("networks") = py::none(),
        "Per hand, the sum over its wall draws of V(h, c) - E_k V(h, k) for each seat (n, 3) "
        "float64, and the number of draws (n,). With policies ((n, 3) ints, each P_GREEDY or "
        "P_EXPERT: who plays each seat in the lookahead), V is the lookahead of `depth` draws "
        "(1..MAX_LOOKAHEAD_DEPTH; chance_correction_lookahead), and with networks (per hand three "
        "NetPolicy or None) those seats are played by their network instead of the bot; "
        "without, the network's own output.");

    m.def(
        "chance_lookahead_dataset",
        [](const py::sequence& games, const ValueNet& net, const py::object& policies, int threads,
           int depth, const py::object& networks) {
            const std::vector<const Game*> gs = games_of(games);
            const size_t n = gs.size();
            const std::vector<int> pol = policies_of(policies, n);
            if (policies.is_none())
                throw py::value_error("chance_lookahead_dataset needs the policies");
            check_lookahead_depth(depth);
            const std::vector<SeatNets> nets = networks_of(networks, n);
            if (threads < 1 || threads > 256)
                throw py::value_error("threads must be 1..256, got " + std::to_string(threads));
            const size_t nt = size_t(threads);
            struct Part {
                std::vector<ChanceEvent> events;
                std::vector<float> feats, probs, targets;
                std::vector<int64_t> game;
                std::string error;
            };
            std::vector<Part> parts(nt);
            {
                py::gil_scoped_release release;
                auto run = [&](size_t t) {
                    Part& part = parts[t];
                    try {
                        for (size_t i = t; i < n; i += nt) {
                            chance_lookahead_dataset(*gs[i], net, players_of(pol, nets, i), depth,
                                                     &part.events,
                                                     &part.feats, &part.probs, &part.targets);
                            part.game.resize(part.events.size(), int64_t(i));
                        }
                    } catch (const std::invalid_argument& e) {
                        part.error = e.what();
                    } catch (const IllegalAction& e) {
                        part.error = std::string("a hand does not replay: ") + e.what();
                    }
                };
                std::vector<std::thread> pool;
                for (size_t t = 1; t < nt; ++t) pool.emplace_back(run, t);
                run(0);
                for (auto& th : pool) th.join();
            }
            for (const Part& part : parts)
                if (!part.error.empty()) throw py::value_error(part.error);
            // the rows in game order (each thread's games are in order; merge them by game)
            size_t total = 0;
            for (const Part& part : parts) total += part.events.size();
            const py::ssize_t rows = py::ssize_t(total), kinds = net.kinds();
            py::array_t<float> feats({rows, py::ssize_t(CHANCE_FEATURES)});
            py::array_t<float> probs({rows, kinds});
            py::array_t<float> targets({rows, kinds, py::ssize_t(3)});
            py::array_t<int64_t> card(rows), drawer(rows), game(rows);
            std::vector<size_t> at(nt, 0);
            size_t o = 0;
            for (size_t i = 0; i < n; ++i) {
                Part& part = parts[i % nt];
                size_t& j = at[i % nt];
                for (; j < part.events.size() && part.game[j] == int64_t(i); ++j, ++o) {
                    std::copy_n(part.feats.data() + j * CHANCE_FEATURES, CHANCE_FEATURES,
                                feats.mutable_data() + o * CHANCE_FEATURES);
                    std::copy_n(part.probs.data() + j * size_t(kinds), size_t(kinds),
                                probs.mutable_data() + o * size_t(kinds));
                    std::copy_n(part.targets.data() + j * size_t(3 * kinds), size_t(3 * kinds),
                                targets.mutable_data() + o * size_t(3 * kinds));
                    card.mutable_data()[o] = part.events[j].card;
                    drawer.mutable_data()[o] = part.events[j].drawer;
                    game.mutable_data()[o] = int64_t(i);
                }
            }
            return py::make_tuple(feats, probs, targets, card, drawer, game);
        },
        py::arg("games"), py::arg("net"), py::arg("policies"), py::arg("threads") = 1,
        py::arg("depth") = 1, py::arg("networks") = py::none(),
        "Every wall draw of the hands (in order) for training a value function consistent with "
        "its lookahead: (features (m, 418), probabilities (m, kinds), lookahead values (m, kinds, "
        "3) of (drawer, next, previous), `depth` draws ahead, kind drawn (m,), drawer (m,), hand "
        "index (m,)); the hands split over `threads` threads without the GIL.");

    m.def(
        "chance_dataset",
        [](const py::sequence& games) {
            const std::vector<const Game*> gs = games_of(games);
            std::vector<ChanceEvent> events;
            std::vector<float> feats, probs;
            std::vector<int64_t> game;
            int kinds = -1;
            std::string error;
            {
                py::gil_scoped_release release;
                try {
                    for (size_t i = 0; i < gs.size(); ++i) {
                        const int k = chance_kinds(gs[i]->rules());
                        if (kinds >= 0 && k != kinds)
                            throw std::invalid_argument(
                                "the hands mix rules with and without 王 (kinds of wall card differ)");
                        kinds = k;
                        chance_events(*gs[i], &events, &feats, &probs);
                        game.resize(events.size(), int64_t(i));
                    }
                } catch (const std::invalid_argument& e) {
                    error = e.what();
                } catch (const IllegalAction& e) {
                    error = std::string("a hand does not replay: ") + e.what();
                }
            }
            if (!error.empty()) throw py::value_error(error);
            if (kinds < 0) kinds = NUM_KINDS;
            const py::ssize_t e = py::ssize_t(events.size());
            py::array_t<float> f({e, py::ssize_t(CHANCE_FEATURES)});
            py::array_t<float> p({e, py::ssize_t(kinds)});
            py::array_t<int64_t> drawer(e), card(e), gi(e), step(e), pos(e);
            std::copy(feats.begin(), feats.end(), f.mutable_data());
            std::copy(probs.begin(), probs.end(), p.mutable_data());
            for (py::ssize_t i = 0; i < e; ++i) {
                drawer.mutable_data()[i] = events[size_t(i)].drawer;
                card.mutable_data()[i] = events[size_t(i)].card;
                gi.mutable_data()[i] = game[size_t(i)];
                step.mutable_data()[i] = events[size_t(i)].step;
                pos.mutable_data()[i] = events[size_t(i)].wall_pos;
            }
            return py::make_tuple(f, p, drawer, card, gi, step, pos);
        },
        py::arg("games"),
        "Every wall draw of the hands: (features (E, 418) float32, probabilities (E, kinds), "
        "drawer (E,), card (E,), hand index (E,), the actions before the step that drew it (E,), "
        "its deck position (E,)).");
}

}  // namespace phz
