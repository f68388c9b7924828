// Binding of the compiled search (search.hpp): _fast.search_action, _fast.search_worlds and
// _fast.search_actions. paohuzi_env.fast wraps them (fast.Game.search_action,
// fast.VectorGame.search_actions); paohuzi_env.agents.search.SearchAgent calls them. Bad input
// raises ValueError naming what is allowed, never crashes.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <atomic>
#include <cmath>
#include <exception>
#include <mutex>
#include <string>
#include <thread>

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

SearchOptions options(int samples, int playouts, const std::string& rollout, double z,
                      double margin, double budget_ms, int tries, int prune, double prune_z,
                      int threads, bool prune_bar, int top) {
    SearchOptions o;
    if (samples < 1 || playouts < 1)
        throw py::value_error("samples and playouts must be at least 1, got samples=" +
                              std::to_string(samples) + ", playouts=" + std::to_string(playouts));
    if (rollout == "expert") o.rollout = P_EXPERT;
    else if (rollout == "greedy") o.rollout = P_GREEDY;
    else if (rollout == "random") o.rollout = P_RANDOM;
    else throw py::value_error("rollout must be one of expert, greedy, random, got '" + rollout + "'");
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
    if (top > 0 && o.rollout == P_RANDOM)
        throw py::value_error("top ranks actions by the rollout bot's values: not with rollout=random");
    if (o.rollout != P_RANDOM && !bots_linked())
        throw py::value_error("the compiled bots are not part of this build");
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

}  // namespace

void bind_search(py::module_& m) {
    m.def(
        "search_action",
        [](const Game& g, int seat, const RngTuple& rng_state, int samples, int playouts,
           const std::string& rollout, double z, double margin, double budget_ms, int tries,
           int prune, double prune_z, int threads, bool prune_bar, int top) {
            acting_seat(g, seat);
            const SearchOptions o = options(samples, playouts, rollout, z, margin, budget_ms,
                                            tries, prune, prune_z, threads, prune_bar, top);
            Pcg64 rng = rng_from(rng_state);
            SearchResult r;
            const Game own(g);  // another Python thread may step `g` while the GIL is released
            {
                py::gil_scoped_release nogil;
                r = search_action(own, seat, o, rng);
            }
            py::dict d = result_dict(r);
            d["rng_state"] = rng_to(rng);
            return d;
        },
        py::arg("game"), py::arg("seat"), py::arg("rng_state"), py::arg("samples") = 32,
        py::arg("playouts") = 256, py::arg("rollout") = "expert", py::arg("z") = 2.0,
        py::arg("margin") = 0.0, py::arg("budget_ms") = 0.0, py::arg("tries") = 8,
        py::arg("prune") = 0, py::arg("prune_z") = 1.0, py::arg("threads") = 1,
        py::arg("prune_bar") = false, py::arg("top") = 0,
        "The search's action for `seat` in `game` (a dict: choice, worlds, attempts, playouts, "
        "legal, means, ses, played, rng_state).");

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
           int top, py::object rng_states) {
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
                                            prune, prune_z, 1, prune_bar, top);
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
        py::arg("top") = 0, py::arg("rng_states") = py::none(),
        "The search's action in each hand `which` marks (all if None), written into `out`.");
}

}  // namespace phz
