// Python bindings of the engine (paohuzi_env._fast.Game), the observation/state encoders and
// VectorGame. paohuzi_env/backends/fast.py is the typed, documented API over these; the names and data
// follow paohuzi_env.game.engine.Game (events, result, view) so that Python code reads either.
//
// Malformed input raises a Python exception (ValueError for bad values, array shapes and
// dtypes; paohuzi_env.game.engine.IllegalActionError for an illegal action), never crashes.
#include <Python.h>
#include <structmember.h>  // T_OBJECT_EX: the fast.Game slot the hot methods read
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <array>
#include <memory>
#include <new>
#include <stdexcept>
#include <mutex>
#include <string>
#include <vector>

#include "bind_common.hpp"
#include "bots.hpp"
#include "engine.hpp"
#include "numpy_rng.hpp"
#include "observation.hpp"
#include "vector.hpp"

namespace py = pybind11;

namespace phz {

namespace {

const char* const DECISION_NAMES[5] = {"tianhu", "hu", "claim", "bi", "discard"};
const char* const SOURCE_NAMES[3] = {"draw", "discard", "liang"};

py::object decision_str(int d) {
    if (d < 0 || d > 4) return py::none();
    return py::str(DECISION_NAMES[d]);
}

py::object opt_int(int x) { return x < 0 ? py::object(py::none()) : py::object(py::int_(x)); }

template <class C>
py::tuple int_tuple(const C& c) {
    py::tuple t(c.size());
    size_t i = 0;
    for (auto x : c) t[i++] = py::int_(int(x));
    return t;
}

py::list int_list(const std::vector<int>& c) {
    py::list l(c.size());
    for (size_t i = 0; i < c.size(); ++i) l[i] = py::int_(c[i]);
    return l;
}

py::frozenset kind_set(uint32_t bits) {
    py::set s;
    for (int k = 0; k <= WANG; ++k)
        if ((bits >> k) & 1u) s.add(py::int_(k));
    return py::frozenset(s);
}

// A shared_ptr to the cached Rules struct of bind_common (valid for the process): no copy.
std::shared_ptr<const Rules> rules_ptr_from(py::handle rules) {
    const Rules& r = rules_ref_from_python(rules);
    return std::shared_ptr<const Rules>(&r, [](const Rules*) {});
}

int index_int(py::handle h, const char* what) {
    if (PyBool_Check(h.ptr()) || !PyIndex_Check(h.ptr()))
        throw py::value_error(std::string(what) + " must be an int, got " +
                              Py_TYPE(h.ptr())->tp_name);
    py::object idx = py::reinterpret_steal<py::object>(PyNumber_Index(h.ptr()));
    if (!idx) throw py::error_already_set();
    int overflow = 0;
    const long v = PyLong_AsLongAndOverflow(idx.ptr(), &overflow);
    if (v == -1 && PyErr_Occurred()) throw py::error_already_set();
    if (overflow || v < -1000000 || v > 1000000)
        throw py::value_error(std::string(what) + " out of range: " + std::string(py::repr(h)));
    return int(v);
}

std::vector<int> deck_from(py::handle deck) {
    if (!PySequence_Check(deck.ptr()) || PyUnicode_Check(deck.ptr()))
        throw py::value_error("deck must be a sequence of kind ids");
    py::sequence s = py::reinterpret_borrow<py::sequence>(deck);
    std::vector<int> out;
    out.reserve(s.size());
    for (size_t i = 0; i < s.size(); ++i) out.push_back(index_int(s[i], "a deck entry"));
    return out;
}

int seat_arg(int seat) {
    if (seat < 0 || seat >= NUM_SEATS)
        throw py::value_error("seat must be 0, 1 or 2, got " + std::to_string(seat));
    return seat;
}

Policy policy_from(const std::string& p) {
    Policy out;
    if (find_policy(p, &out)) return out;
    throw py::value_error("policy must be one of " + policy_names() + ", got '" + p + "'");
}

RewardMode reward_from(const std::string& r) {
    if (r == "score") return RW_SCORE;
    if (r == "win") return RW_WIN;
    if (r == "normalized") return RW_NORMALIZED;
    throw py::value_error("reward must be one of ('score', 'win', 'normalized'), got '" + r + "'");
}

// ---- array checks: dtype (kind + size), shape, C order, writability, with a clear ValueError

std::string shape_str(const py::array& a) {
    std::string s = "(";
    for (py::ssize_t i = 0; i < a.ndim(); ++i) s += (i ? ", " : "") + std::to_string(a.shape(i));
    if (a.ndim() == 1) s += ",";
    return s + ")";
}

template <class T>
T* checked(py::handle h, const char* name, char kind, std::vector<py::ssize_t> shape,
           bool write, const char* dtype_name) {
    if (!py::isinstance<py::array>(h))
        throw py::value_error(std::string(name) + " must be a numpy array of dtype " +
                              dtype_name + ", got " + Py_TYPE(h.ptr())->tp_name);
    py::array a = py::reinterpret_borrow<py::array>(h);
    if (a.dtype().kind() != kind || a.dtype().itemsize() != py::ssize_t(sizeof(T)))
        throw py::value_error(std::string(name) + " must have dtype " + dtype_name + ", got " +
                              std::string(py::str(a.dtype())));
    bool ok = a.ndim() == py::ssize_t(shape.size());
    for (size_t i = 0; ok && i < shape.size(); ++i) ok = a.shape(i) == shape[i];
    if (!ok) {
        std::string want = "(";
        for (size_t i = 0; i < shape.size(); ++i) want += (i ? ", " : "") + std::to_string(shape[i]);
        if (shape.size() == 1) want += ",";
        throw py::value_error(std::string(name) + " must have shape " + want + "), got " +
                              shape_str(a));
    }
    if (!(a.flags() & py::array::c_style))
        throw py::value_error(std::string(name) + " must be C-contiguous");
    if (write && !a.writeable()) throw py::value_error(std::string(name) + " must be writeable");
    return static_cast<T*>(write ? a.mutable_data() : const_cast<void*>(a.data()));
}

// ---- Game -> Python

py::object event_to_python(const Game& g, const Event& e) {
    py::object kind = py::str(event_kind_name(e.kind));
    py::object seat = opt_int(e.seat);
    py::object data;
    if (e.kind == E_CHI || e.kind == E_BI) {
        data = py::make_tuple(int(e.cards[0]), int(e.cards[1]), int(e.cards[2]));
    } else if (e.kind == E_HU) {
        const auto& names = g.result().win.names;
        py::tuple t(names.size());
        for (size_t i = 0; i < names.size(); ++i) t[i] = py::str(names[i]);
        data = t;
    } else {
        data = opt_int(e.data);
    }
    return py::make_tuple(kind, seat, data);
}

py::list events_to_python(const Game& g, py::ssize_t start) {
    const auto& ev = g.events();
    if (start < 0) start = 0;
    py::list out;
    for (size_t i = size_t(start); i < ev.size(); ++i) out.append(event_to_python(g, ev[i]));
    return out;
}

py::object offer_to_python(int kind, int source, int from) {
    return py::make_tuple(kind, SOURCE_NAMES[source], from);
}

// engine.PlayerView from a phz::View.
py::object view_to_python(const View& v) {
    py::tuple table(3);
    for (int s = 0; s < 3; ++s) {
        py::tuple groups(v.table[s].size());
        for (size_t i = 0; i < v.table[s].size(); ++i) {
            const TableGroup& tg = v.table[s][i];
            groups[i] = py::make_tuple(
                group_type_name(tg.type),
                tg.hidden ? py::object(py::none()) : py::object(int_tuple(tg.cards)));
        }
        table[s] = groups;
    }
    py::tuple discards(3);
    for (int s = 0; s < 3; ++s) discards[s] = int_tuple(v.discards[s]);
    py::tuple bi(v.bi_groups.size());
    for (size_t i = 0; i < v.bi_groups.size(); ++i) bi[i] = int_tuple(v.bi_groups[i]);
    py::dict kw;
    kw["seat"] = v.seat;
    kw["hand"] = int_tuple(v.hand);
    kw["table"] = table;
    kw["discards"] = discards;
    kw["hand_sizes"] = int_tuple(v.hand_sizes);
    kw["wall"] = v.wall;
    kw["dealer"] = v.dealer;
    kw["liang"] = v.liang;
    kw["chou"] = kind_set(v.chou);
    kw["chi_closed"] = kind_set(v.chi_closed);
    kw["declined_peng"] = kind_set(v.declined_peng);
    kw["hu_blocked"] = kind_set(v.hu_blocked);
    kw["decision"] = decision_str(v.decision);
    kw["offer"] = v.has_offer ? offer_to_python(v.offer_kind, v.offer_source, v.offer_from)
                              : py::object(py::none());
    kw["bi_groups"] = bi;
    kw["bi_left"] = v.bi_left;
    kw["legal"] = int_tuple(v.legal);
    kw["to_act"] = opt_int(v.to_act);
    kw["done"] = v.done;
    kw["wang"] = v.wang;
    kw["wang_shown"] = int_tuple(v.wang_shown);
    kw["jokers"] = v.jokers;
    return python_attr("paohuzi_env.game.engine", "PlayerView")(**kw);
}

py::object result_to_python(const Game& g) {
    if (!g.done()) return py::none();
    const Result& r = g.result();
    return py::make_tuple(opt_int(r.winner), int_tuple(r.scores),
                          r.has_win ? win_to_python(r.win) : py::object(py::none()),
                          reason_name(r.reason));
}

py::array_t<float> float_out(py::object out, py::ssize_t n, const char* name) {
    if (out.is_none()) return py::array_t<float>(n);
    checked<float>(out, name, 'f', {n}, true, "float32");
    return py::reinterpret_borrow<py::array_t<float>>(out);
}

int acting_or_error(const Game& g) {
    if (g.done()) throw py::value_error("the hand is over: no seat is to act");
    return g.current_player();
}

// ---------------------------------------------------------------- fast.Game's hot methods
//
// A loop that plays with `while not g.done: ... g.step(g.legal_actions()[i])` spends as much
// time in the calls as in the engine, and a pybind11 call costs several times a plain CPython
// one. So fast.Game's `done`, `current_player`, `legal_actions()` and `step()` are replaced, when
// the module is imported, by CPython descriptors (below) that read the engine straight from the
// wrapper's `_g` slot. They behave as the Python definitions in fast.py, which stay the
// documented reference: `step` handles an int legal action here and hands anything else to
// `Game._step_slow`, which raises the error the Python engine would.
struct Hot {
    Py_ssize_t slot = -1;              // offset of fast.Game's `_g` slot
    PyTypeObject* core_type = nullptr;  // _fast.Game
};
Hot hot;

// The engine a fast.Game wraps; nullptr with a Python exception set.
Game* hot_game(PyObject* self) {
    PyObject* core = *reinterpret_cast<PyObject**>(reinterpret_cast<char*>(self) + hot.slot);
    if (core == nullptr) {
        PyErr_SetString(PyExc_AttributeError, "this fast.Game has no engine (__init__ did not run)");
        return nullptr;
    }
    if (Py_TYPE(core) == hot.core_type) {  // the usual case: the value pointer, read directly
        auto* inst = reinterpret_cast<py::detail::instance*>(core);
        if (inst->simple_layout && inst->simple_holder_constructed)
            return static_cast<Game*>(inst->simple_value_holder[0]);
    }
    Game* g = nullptr;
    try {
        g = py::cast<Game*>(py::handle(core));  // nullptr for None
    } catch (const py::cast_error&) {
        g = nullptr;
    }
    if (g == nullptr) PyErr_SetString(PyExc_TypeError, "fast.Game._g is not a _fast.Game");
    return g;
}

// An engine exception that escaped (an engine invariant broke) as the Python exception pybind11
// would raise; never a crash.
PyObject* hot_error(const std::exception& e) {
    PyObject* type = PyExc_RuntimeError;
    if (dynamic_cast<const std::invalid_argument*>(&e) != nullptr) type = PyExc_ValueError;
    if (dynamic_cast<const std::bad_alloc*>(&e) != nullptr) type = PyExc_MemoryError;
    PyErr_SetString(type, e.what());
    return nullptr;
}

PyObject* hot_done(PyObject* self, void*) {
    Game* g = hot_game(self);
    if (g == nullptr) return nullptr;
    return PyBool_FromLong(g->done());
}

PyObject* hot_current_player(PyObject* self, void*) {
    Game* g = hot_game(self);
    if (g == nullptr) return nullptr;
    if (g->current_player() < 0) Py_RETURN_NONE;
    return PyLong_FromLong(g->current_player());
}

PyObject* hot_legal_actions(PyObject* self, PyObject*) {
    Game* g = hot_game(self);
    if (g == nullptr) return nullptr;
    // Copied first: the allocations below may run a garbage collection, and a finaliser could
    // drop this engine (legal ids are distinct, so at most NUM_ACTIONS of them).
    std::array<int, NUM_ACTIONS> legal;
    const size_t n = std::min(g->legal().size(), legal.size());
    std::copy_n(g->legal().begin(), n, legal.begin());
    PyObject* out = PyList_New(Py_ssize_t(n));
    if (out == nullptr) return nullptr;
    for (size_t i = 0; i < n; ++i) {
        PyObject* x = PyLong_FromLong(legal[i]);
        if (x == nullptr) {
            Py_DECREF(out);
            return nullptr;
        }
        PyList_SET_ITEM(out, Py_ssize_t(i), x);
    }
    return out;
}

PyObject* hot_step(PyObject* self, PyObject* action) {
    Game* g = hot_game(self);
    if (g == nullptr) return nullptr;
    if (!g->done() && PyLong_Check(action)) {
        int overflow = 0;
        const long v = PyLong_AsLongAndOverflow(action, &overflow);
        if (v == -1 && PyErr_Occurred()) return nullptr;
        if (!overflow && v >= 0 && v < NUM_ACTIONS && g->is_legal(int(v))) {
            try {
                g->step(int(v));
            } catch (const std::exception& e) {
                return hot_error(e);
            }
            Py_RETURN_NONE;
        }
    }
    static PyObject* slow = nullptr;  // interned once, kept for the process
    if (slow == nullptr) slow = PyUnicode_InternFromString("_step_slow");
    if (slow == nullptr) return nullptr;
    return PyObject_CallMethodOneArg(self, slow, action);  // raises the right error
}

PyGetSetDef HOT_DONE{"done", hot_done, nullptr, "The hand is over.", nullptr};
PyGetSetDef HOT_CURRENT{"current_player", hot_current_player, nullptr,
                        "The seat to act, or None when the hand is over.", nullptr};
PyMethodDef HOT_LEGAL{"legal_actions", hot_legal_actions, METH_NOARGS,
                      "Sorted legal action ids of current_player ([] when the hand is over)."};
PyMethodDef HOT_STEP{"step", hot_step, METH_O,
                     "Apply the current player's action; forced moves that follow run at once.\n\n"
                     "Raises IllegalActionError naming the action and the legal ones."};

void install_hot_methods(py::handle cls) {
    if (!PyType_Check(cls.ptr())) throw py::type_error("expected the fast.Game class");
    auto* type = reinterpret_cast<PyTypeObject*>(cls.ptr());
    py::object slot = py::reinterpret_steal<py::object>(PyObject_GetAttrString(cls.ptr(), "_g"));
    if (!slot) throw py::error_already_set();
    if (Py_TYPE(slot.ptr()) != &PyMemberDescr_Type)
        throw py::type_error("fast.Game._g must be a __slots__ member");
    const PyMemberDef* member = reinterpret_cast<PyMemberDescrObject*>(slot.ptr())->d_member;
    if (member->type != T_OBJECT_EX) throw py::type_error("fast.Game._g must be an object slot");
    hot.slot = member->offset;
    hot.core_type = reinterpret_cast<PyTypeObject*>(py::type::of<Game>().ptr());
    auto put = [&](const char* name, PyObject* descr) {
        if (descr == nullptr || PyObject_SetAttrString(cls.ptr(), name, descr) < 0) {
            Py_XDECREF(descr);
            throw py::error_already_set();
        }
        Py_DECREF(descr);
    };
    put("done", PyDescr_NewGetSet(type, &HOT_DONE));
    put("current_player", PyDescr_NewGetSet(type, &HOT_CURRENT));
    put("legal_actions", PyDescr_NewMethod(type, &HOT_LEGAL));
    put("step", PyDescr_NewMethod(type, &HOT_STEP));
}

}  // namespace

void bind_engine(py::module_& m) {
    {
        py::tuple names(std::size(POLICY_NAMES));
        for (std::size_t i = 0; i < std::size(POLICY_NAMES); ++i) names[i] = POLICY_NAMES[i].name;
        m.attr("POLICIES") = names;  // the compiled bots (vector.hpp POLICY_NAMES)
    }
    m.def("_install_hot_methods", &install_hot_methods, py::arg("cls"),
          "Give fast.Game its CPython done / current_player / legal_actions / step "
          "(bind_engine.cpp); fast.py calls it once at import.");
    // phz::IllegalAction -> paohuzi_env.game.engine.IllegalActionError (a ValueError).
    py::register_exception_translator([](std::exception_ptr p) {
        try {
            if (p) std::rethrow_exception(p);
        } catch (const IllegalAction& e) {
            py::object cls = python_attr("paohuzi_env.game.engine", "IllegalActionError");
            PyErr_SetString(cls.ptr(), e.what());
        }
    });

    m.attr("OBS_SIZE") = OBS_SIZE;
    m.attr("OBS_SIZE_V2") = OBS_SIZE_V2;
    m.attr("STATE_EXTRA_SIZE") = STATE_EXTRA_SIZE;
    m.attr("STATE_EXTRA_SIZE_V2") = STATE_EXTRA_SIZE_V2;
    m.def("bots_linked", &bots_linked, "Whether the compiled bots are part of this build.");
    m.def(
        "make_deal",
        [](uint64_t seed, uint64_t index, int n_wang) {
            if (n_wang != 0 && n_wang != 2) throw py::value_error("n_wang must be 0 or 2");
            std::vector<int> deck;
            int dealer = 0;
            make_deal(seed, index, n_wang, &deck, &dealer);
            return py::make_tuple(int_list(deck), dealer);
        },
        py::arg("seed"), py::arg("index"), py::arg("n_wang") = 0,
        "The (deck, dealer) of deal number `index` under `seed` (VectorGame's deals).");

    m.def(
        "numpy_deal",
        [](uint64_t seed, int n_wang, int dealer) {
            if (n_wang < 0 || n_wang > 2) throw py::value_error("n_wang must be 0, 1 or 2");
            if (dealer < -1 || dealer >= NUM_SEATS)
                throw py::value_error("dealer must be a seat 0, 1 or 2 (or -1 to draw it)");
            std::vector<int> deck;
            numpy_deal(seed, n_wang, &dealer, &deck);
            return py::make_tuple(dealer, int_list(deck));
        },
        py::arg("seed"), py::arg("n_wang") = 0, py::arg("dealer") = -1,
        "The (dealer, deck) engine.draw_deal draws from numpy.random.default_rng(seed) for an int "
        "seed 0 <= seed < 2**64, without numpy (dealer -1: drawn, else kept).");

    py::class_<Game>(m, "Game", "paohuzi_env.game.engine.Game in C++ (see paohuzi_env.backends.fast.Game).")
        .def(py::init([](py::handle rules, py::handle deck, int dealer) {
                 std::vector<int> d = deck_from(deck);
                 auto r = rules_ptr_from(rules);
                 try {
                     return Game(r, d, dealer);
                 } catch (const std::invalid_argument& e) {
                     throw py::value_error(e.what());
                 }
             }),
             py::arg("rules"), py::arg("deck"), py::arg("dealer"))
        .def_static(
            "seeded",
            [](py::handle rules, uint64_t seed, int dealer) {
                if (dealer < -1 || dealer >= NUM_SEATS)
                    throw py::value_error("dealer must be a seat 0, 1 or 2 (or -1 to draw it)");
                auto r = rules_ptr_from(rules);
                std::vector<int> deck;
                numpy_deal(seed, r->wang, &dealer, &deck);
                return Game(r, deck, dealer);
            },
            py::arg("rules"), py::arg("seed"), py::arg("dealer") = -1,
            "The hand engine.Game(rules, seed=seed, dealer=...) deals (numpy's default_rng, "
            "ported; dealer -1 draws it).")
        .def_property_readonly("current_player",
                               [](const Game& g) { return opt_int(g.current_player()); })
        .def_property_readonly("decision", [](const Game& g) { return decision_str(g.decision()); })
        .def_property_readonly("decision_id", [](const Game& g) { return g.decision(); })
        .def_property_readonly("done", &Game::done)
        .def("legal_actions", [](const Game& g) { return int_list(g.legal()); })
        .def("is_legal", [](const Game& g, int a) { return !g.done() && g.is_legal(a); })
        .def("try_step",
             [](Game& g, py::handle a) {
                 if (g.done() || !PyLong_Check(a.ptr())) return false;
                 int overflow = 0;
                 const long v = PyLong_AsLongAndOverflow(a.ptr(), &overflow);
                 if (overflow || v < 0 || v >= NUM_ACTIONS || !g.is_legal(int(v))) return false;
                 g.step(int(v));
                 return true;
             },
             "Apply an int action if legal; False (nothing changes) otherwise.")
        .def("step", [](Game& g, int a) { g.step(a); })
        .def("result", &result_to_python)
        .def_property_readonly("winner", [](const Game& g) {
            return g.done() ? opt_int(g.result().winner) : py::object(py::none());
        })
        .def_property_readonly("scores", [](const Game& g) {
            return g.done() ? py::object(int_tuple(g.result().scores)) : py::object(py::none());
        })
        .def("events", &events_to_python, py::arg("start") = 0)
        .def_property_readonly("n_events", [](const Game& g) { return g.events().size(); })
        .def_property_readonly("offer", [](const Game& g) {
            return g.has_offer() ? offer_to_python(g.offer_kind(), g.offer_source(), g.offer_from())
                                 : py::object(py::none());
        })
        .def("view", [](const Game& g, int seat) { return view_to_python(g.view(seat_arg(seat))); },
             py::arg("seat"))
        .def(
            "observation",
            [](const Game& g, int seat, py::object out) {
                seat_arg(seat);
                auto arr = float_out(out, obs_size(g.rules()), "out");
                View v;
                g.fill_view(seat, v);
                encode(v, arr.mutable_data());
                return arr;
            },
            py::arg("seat"), py::arg("out") = py::none())
        .def(
            "wait_features",
            [](const Game& g, int seat, py::object out) {
                seat_arg(seat);
                auto arr = float_out(out, WAIT_FEATURES, "out");
                View v;
                g.fill_view(seat, v);
                wait_features(v, g.rules(), arr.mutable_data());
                return arr;
            },
            py::arg("seat"), py::arg("out") = py::none())
        .def(
            "action_mask",
            [](const Game& g, int seat) {
                seat_arg(seat);
                py::array_t<int8_t> mask(NUM_ACTIONS);
                int8_t* m = mask.mutable_data();
                std::fill(m, m + NUM_ACTIONS, int8_t(0));
                if (!g.done() && g.current_player() == seat)
                    for (int a : g.legal()) m[a] = 1;
                return mask;
            },
            py::arg("seat"))
        .def(
            "state",
            [](const Game& g, int seat, py::object out) {
                seat_arg(seat);
                auto arr = float_out(out, state_size(g.rules()), "out");
                encode_state(g, seat, arr.mutable_data());
                return arr;
            },
            py::arg("seat"), py::arg("out") = py::none())
        .def("clone", [](const Game& g) { return Game(g); })
        .def("__copy__", [](const Game& g) { return Game(g); })
        .def("__deepcopy__", [](const Game& g, py::handle) { return Game(g); }, py::arg("memo"))
        .def("put_on_wall", &Game::put_on_wall, py::arg("pos"), py::arg("kind"),
             "Put a wall card of `kind` at undrawn position `pos` (ValueError if none is left "
             "there): the chance nodes of the OpenSpiel game fix the wall one draw at a time.")
        .def("policy_action",
             [](const Game& g, const std::string& policy, uint64_t seed, uint64_t deal) {
                 acting_or_error(g);
                 const Policy p = policy_from(policy);
                 if (p != P_RANDOM && !bots_linked())
                     throw py::value_error("the compiled bots are not part of this build");
                 View v;
                 return policy_action(g, p, seed, deal, &v);
             },
             py::arg("policy"), py::arg("seed") = 0, py::arg("deal") = 0)
        .def("playout",
             [](const Game& g, const std::string& policy, uint64_t seed, uint64_t deal) {
                 const Policy p = policy_from(policy);
                 if (p != P_RANDOM && !bots_linked())
                     throw py::value_error("the compiled bots are not part of this build");
                 Game c(g);
                 {
                     py::gil_scoped_release nogil;
                     playout(&c, p, seed, deal);
                 }
                 return c;
             },
             py::arg("policy") = "random", py::arg("seed") = 0, py::arg("deal") = 0,
             "A copy of this hand played to its end with `policy`.")
        .def_property_readonly("deck", [](const Game& g) { return int_list(g.deck()); })
        .def_property_readonly("dealer", &Game::dealer)
        .def_property_readonly("actions", [](const Game& g) { return int_list(g.actions()); })
        .def_property_readonly("wall_left", &Game::wall_left)
        .def_property_readonly("wall_pos", &Game::wall_pos)
        .def_property_readonly("num_cards", &Game::num_cards)
        .def_property_readonly("liang", &Game::liang)
        .def_property_readonly("win_card", [](const Game& g) { return opt_int(g.win_card()); })
        .def_property_readonly("hands", [](const Game& g) {
            py::list l;
            for (int s = 0; s < 3; ++s) l.append(py::cast(std::vector<int>(g.hand(s).begin(), g.hand(s).end())));
            return l;
        })
        .def_property_readonly("wang", [](const Game& g) {
            return py::make_tuple(g.wang(0), g.wang(1), g.wang(2));
        })
        .def_property_readonly("wang_shown", [](const Game& g) {
            return py::make_tuple(g.wang_shown(0), g.wang_shown(1), g.wang_shown(2));
        })
        .def_property_readonly("melds", [](const Game& g) {
            py::list out;
            for (int s = 0; s < 3; ++s) {
                py::list ms;
                for (const Meld& m : g.melds(s)) {
                    py::list pair;
                    pair.append(group_type_name(m.type));
                    py::tuple cards(m.n);
                    for (int i = 0; i < m.n; ++i) cards[i] = py::int_(int(m.cards[i]));
                    pair.append(cards);
                    ms.append(pair);
                }
                out.append(ms);
            }
            return out;
        })
        .def_property_readonly("discards", [](const Game& g) {
            py::list out;
            for (int s = 0; s < 3; ++s) out.append(int_list(g.discards(s)));
            return out;
        })
        .def_property_readonly("n_paoti", [](const Game& g) {
            return py::make_tuple(g.n_paoti(0), g.n_paoti(1), g.n_paoti(2));
        })
        .def_property_readonly("table_cards", [](const Game& g) {
            return py::make_tuple(g.table_cards(0), g.table_cards(1), g.table_cards(2));
        })
        .def_property_readonly("played", [](const Game& g) {
            return py::make_tuple(g.played(0), g.played(1), g.played(2));
        })
        .def("kind_sets", [](const Game& g, int seat) {
            seat_arg(seat);
            return py::make_tuple(kind_set(g.chou(seat)), kind_set(g.chi_closed(seat)),
                                  kind_set(g.declined_peng(seat)), kind_set(g.hu_blocked(seat)));
        }, py::arg("seat"), "(chou, chi_closed, declined_peng, hu_blocked) of a seat.")
        .def("held", [](const Game& g, int seat) { return g.held(seat_arg(seat)); })
        .def("hidden_wei_positions", [](const Game& g, int seat) {
            return int_list(g.hidden_wei_positions(seat_arg(seat)));
        }, py::arg("seat"), "Wall positions of the draws that made the seat's face-down 偎.")
        .def("table_groups", [](const Game& g, int seat) {
            const auto& groups = g.table_groups(seat_arg(seat));
            py::tuple t(groups.size());
            for (size_t i = 0; i < groups.size(); ++i) t[i] = group_to_python(groups[i]);
            return t;
        }, py::arg("seat"));

    py::class_<VectorGame>(m, "VectorGame", "Many hands stepped per call (paohuzi_env.backends.fast.VectorGame).")
        .def(py::init([](int n, py::handle rules, uint64_t seed, const std::string& reward) {
                 if (n <= 0 || n > (1 << 20))
                     throw py::value_error("num_hands must be in 1..1048576, got " + std::to_string(n));
                 const RewardMode mode = reward_from(reward);
                 auto r = rules_ptr_from(rules);
                 py::gil_scoped_release nogil;
                 return new VectorGame(n, r, seed, mode);
             }),
             py::arg("num_hands"), py::arg("rules"), py::arg("seed"), py::arg("reward") = "score")
        .def_property_readonly("num_hands", &VectorGame::size)
        .def_property_readonly("obs_size", &VectorGame::obs_size)
        .def_property_readonly("state_size", &VectorGame::state_size)
        .def_property_readonly("seed", &VectorGame::seed)
        .def_property_readonly("deals_dealt", &VectorGame::deals_dealt)
        .def_property_readonly("skipped_deals", &VectorGame::skipped_deals)
        .def_property_readonly("hands_finished", &VectorGame::hands_finished)
        .def(
            "observe",
            [](VectorGame& vg, py::handle obs, py::handle mask, py::handle seat, py::handle dec) {
                const py::ssize_t n = vg.size();
                float* o = obs.is_none() ? nullptr
                                         : checked<float>(obs, "obs", 'f', {n, vg.obs_size()}, true, "float32");
                int8_t* mk = mask.is_none() ? nullptr
                                            : checked<int8_t>(mask, "mask", 'i', {n, NUM_ACTIONS}, true, "int8");
                int64_t* st = seat.is_none() ? nullptr
                                             : checked<int64_t>(seat, "seat", 'i', {n}, true, "int64");
                int64_t* dc = dec.is_none() ? nullptr
                                            : checked<int64_t>(dec, "decision", 'i', {n}, true, "int64");
                py::gil_scoped_release nogil;
                std::lock_guard<std::mutex> lock(vg.mutex());
                vg.observe(o, mk, st, dc);
            },
            py::arg("obs"), py::arg("mask"), py::arg("seat"), py::arg("decision"))
        .def(
            "step",
            [](VectorGame& vg, py::handle actions, py::handle rewards, py::handle done) {
                const py::ssize_t n = vg.size();
                const int64_t* a = checked<int64_t>(actions, "actions", 'i', {n}, false, "int64");
                float* rw = checked<float>(rewards, "rewards", 'f', {n, 3}, true, "float32");
                uint8_t* dn = checked<uint8_t>(done, "done", 'b', {n}, true, "bool");
                std::unique_lock<std::mutex> lock(vg.mutex(), std::defer_lock);
                {
                    py::gil_scoped_release nogil;
                    lock.lock();
                }
                const int bad = vg.first_illegal(a);
                if (bad >= 0) {
                    const Game& g = vg.hand(bad);
                    std::string legal;
                    for (int x : g.legal()) legal += (legal.empty() ? "" : ", ") + std::to_string(x);
                    throw IllegalAction("hand " + std::to_string(bad) + ": action " +
                                        std::to_string(a[bad]) + " is not legal for seat " +
                                        std::to_string(g.current_player()) + " at this " +
                                        DECISION_NAMES[g.decision()] +
                                        " decision; legal: " + legal + " (no hand was stepped)");
                }
                py::gil_scoped_release nogil;
                vg.step(a, rw, dn);
                lock.unlock();
            },
            py::arg("actions"), py::arg("rewards"), py::arg("done"))
        .def(
            "policy_actions",
            [](VectorGame& vg, const std::string& policy, py::handle out, py::handle which) {
                const Policy p = policy_from(policy);
                if (p != P_RANDOM && !bots_linked())
                    throw py::value_error("the compiled bots are not part of this build");
                int64_t* o = checked<int64_t>(out, "out", 'i', {vg.size()}, true, "int64");
                const uint8_t* w = which.is_none() ? nullptr
                    : checked<uint8_t>(which, "which", 'b', {vg.size()}, false, "bool");
                py::gil_scoped_release nogil;
                std::lock_guard<std::mutex> lock(vg.mutex());
                vg.actions_of(p, o, w);
            },
            py::arg("policy"), py::arg("out"), py::arg("which") = py::none())
        .def(
            "playout_after",
            [](const VectorGame& vg, py::handle actions, py::handle which,
               const std::string& policy, uint64_t seed, py::handle out) {
                const Policy p = policy_from(policy);
                if (p != P_RANDOM && !bots_linked())
                    throw py::value_error("the compiled bots are not part of this build");
                const int n = vg.size();
                const int64_t* a = checked<int64_t>(actions, "actions", 'i', {n}, false, "int64");
                const uint8_t* w = checked<uint8_t>(which, "which", 'b', {n}, false, "bool");
                float* o = checked<float>(out, "out", 'f', {n, 3}, true, "float32");
                py::gil_scoped_release nogil;
                std::lock_guard<std::mutex> lock(vg.mutex());
                vg.playout_after(a, w, p, seed, o);
            },
            py::arg("actions"), py::arg("which"), py::arg("policy"), py::arg("seed"),
            py::arg("out"))
        .def(
            "state",
            [](VectorGame& vg, py::handle out) {
                float* o = checked<float>(out, "out", 'f', {vg.size(), vg.state_size()}, true, "float32");
                py::gil_scoped_release nogil;
                std::lock_guard<std::mutex> lock(vg.mutex());
                vg.state(o);
            },
            py::arg("out"))
        .def(
            "wait_features",
            [](VectorGame& vg, py::handle out) {
                float* o = checked<float>(out, "out", 'f', {vg.size(), WAIT_FEATURES}, true,
                                          "float32");
                py::gil_scoped_release nogil;
                std::lock_guard<std::mutex> lock(vg.mutex());
                View view;
                for (int i = 0; i < vg.size(); ++i) {
                    const Game& g = vg.hand(i);
                    g.fill_view(g.current_player(), view);
                    wait_features(view, g.rules(), o + size_t(i) * WAIT_FEATURES);
                }
            },
            py::arg("out"))
        .def(
            "playout",
            [](const VectorGame& vg, const std::string& policy, uint64_t seed, py::handle out) {
                const Policy p = policy_from(policy);
                if (p != P_RANDOM && !bots_linked())
                    throw py::value_error("the compiled bots are not part of this build");
                float* o = checked<float>(out, "out", 'f', {vg.size(), 3}, true, "float32");
                py::gil_scoped_release nogil;
                std::lock_guard<std::mutex> lock(vg.mutex());
                vg.playout_all(p, seed, o);
            },
            py::arg("policy"), py::arg("seed"), py::arg("out"))
        .def("clone", [](const VectorGame& vg) {
            py::gil_scoped_release nogil;
            std::lock_guard<std::mutex> lock(vg.mutex());
            return new VectorGame(vg);
        })
        .def("hand", [](const VectorGame& vg, int i) {
            if (i < 0 || i >= vg.size()) throw py::index_error("hand index out of range");
            std::unique_lock<std::mutex> lock(vg.mutex(), std::defer_lock);
            {
                py::gil_scoped_release nogil;
                lock.lock();
            }
            return Game(vg.hand(i));
        }, py::arg("i"))
        .def("set_hand", [](VectorGame& vg, int i, const Game& g, uint64_t deal) {
            if (i < 0 || i >= vg.size()) throw py::index_error("hand index out of range");
            std::unique_lock<std::mutex> lock(vg.mutex(), std::defer_lock);
            {
                py::gil_scoped_release nogil;
                lock.lock();
            }
            try {
                vg.set_hand(i, g, deal);
            } catch (const std::invalid_argument& e) {
                throw py::value_error(e.what());
            }
        }, py::arg("i"), py::arg("game"), py::arg("deal"))
        .def("deal_index", [](const VectorGame& vg, int i) {
            if (i < 0 || i >= vg.size()) throw py::index_error("hand index out of range");
            std::unique_lock<std::mutex> lock(vg.mutex(), std::defer_lock);
            {
                py::gil_scoped_release nogil;
                lock.lock();
            }
            return vg.deal_index(i);
        }, py::arg("i"))
        .def("last_hand", [](const VectorGame& vg, int i) -> py::object {
            if (i < 0 || i >= vg.size()) throw py::index_error("hand index out of range");
            std::unique_lock<std::mutex> lock(vg.mutex(), std::defer_lock);
            {
                py::gil_scoped_release nogil;
                lock.lock();
            }
            if (!vg.has_last(i)) return py::none();
            return py::make_tuple(py::cast(Game(vg.last_hand(i))), vg.last_deal_index(i));
        }, py::arg("i"), "(the last finished hand of slot i, its deal number), or None.");
}

}  // namespace phz
