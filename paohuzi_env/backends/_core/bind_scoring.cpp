// Python bindings of the evaluator and the 吃/比 search (paohuzi_env._fast.evaluate_counts,
// chi_groups, bi_groups, clear_caches), and the conversion helpers of bind_common.hpp but the
// rules' (bind_rules.cpp).
//
// evaluate_counts mirrors paohuzi_env.game.scoring.evaluate_counts, lru_cache included: the same
// (canonical) arguments give the same Win object back.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <chrono>
#include <cstring>
#include <string>
#include <unordered_map>

#include "bind_common.hpp"
#include "chi.hpp"
#include "common.hpp"
#include "rules.hpp"
#include "scoring.hpp"

namespace py = pybind11;

namespace phz {

namespace {

// Kept in a static reference: win_to_python calls this on every new Win.
py::object& py_win_class() {
    static py::object& cls = python_attr("paohuzi_env.game.scoring", "Win");
    return cls;
}



// The binding's own lru_cache: EvalKey -> the Python Win (or None) it returned.
std::unordered_map<EvalKey, py::object, EvalKeyHash>& py_win_cache() {
    static auto* c = new std::unordered_map<EvalKey, py::object, EvalKeyHash>();
    return *c;
}
size_t PY_WIN_CAP = WIN_MEMO_CAP;  // (scoring.hpp)

py::tuple ints_to_tuple(const std::vector<int>& v) {
    PyObject* t = PyTuple_New(Py_ssize_t(v.size()));
    if (t == nullptr) throw py::error_already_set();
    for (size_t j = 0; j < v.size(); ++j) PyTuple_SET_ITEM(t, Py_ssize_t(j), PyLong_FromLong(v[j]));
    return py::reinterpret_steal<py::tuple>(t);
}

// Interned Python strings, made once and kept (leaked: see python_attr in bind_common.hpp).
PyObject* interned(const char* s) {
    static auto* cache = new std::unordered_map<std::string, PyObject*>();
    auto it = cache->find(s);
    if (it != cache->end()) return it->second;
    PyObject* u = PyUnicode_FromString(s);
    if (u == nullptr) throw py::error_already_set();
    PyUnicode_InternInPlace(&u);
    cache->emplace(s, u);
    return u;
}
PyObject* type_str(GroupType t) {  // "chi", "peng", ...
    static PyObject* names[G_NUM_TYPES] = {};
    if (t >= G_NUM_TYPES) throw py::value_error("bad group type");
    if (names[t] == nullptr) names[t] = interned(group_type_name(t));
    return names[t];
}

// One table group read from Python (no allocation): type, 1..4 cards.
struct MeldIn {
    GroupType type;
    int n;
    int cards[4];
};
const char* const MELD_NAMES_[] = {"chi", "peng", "wei", "chou_wei", "pao", "ti"};

long as_long_(PyObject* o, const char* what) {
    if (!PyLong_Check(o)) {  // numpy integers and other __index__ types too; never floats
        if (!PyIndex_Check(o)) throw py::value_error(std::string(what) + " must hold ints");
        PyObject* i = PyNumber_Index(o);
        if (i == nullptr) {
            PyErr_Clear();
            throw py::value_error(std::string(what) + " must hold ints");
        }
        py::object hold = py::reinterpret_steal<py::object>(i);
        return as_long_(i, what);
    }
    const long v = PyLong_AsLong(o);
    if (v == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        throw py::value_error(std::string(what) + ": an int out of range");
    }
    return v;
}

// Validates one (type, cards) pair as groups.normalise_meld would accept it (cards sorted).
MeldIn parse_meld(PyObject* m) {
    if (!(PyTuple_Check(m) || PyList_Check(m)) || PySequence_Fast_GET_SIZE(m) != 2)
        throw py::value_error("a meld is a (type, cards) pair");
    PyObject* t = PySequence_Fast_GET_ITEM(m, 0);
    PyObject* cards = PySequence_Fast_GET_ITEM(m, 1);
    if (!PyUnicode_Check(t)) throw py::value_error("a meld type must be a str");
    const char* utf8 = PyUnicode_AsUTF8(t);
    if (utf8 == nullptr) {
        PyErr_Clear();
        throw py::value_error("a meld type must be a str");
    }
    MeldIn out{};
    int ti = -1;
    for (int j = 0; j < 6; ++j)
        if (std::strcmp(utf8, MELD_NAMES_[j]) == 0) ti = j;
    if (ti < 0)
        throw py::value_error(std::string("unknown meld type '") + utf8 +
                              "'; valid types: chi, peng, wei, chou_wei, pao, ti");
    group_type_from_name(MELD_NAMES_[ti], &out.type);
    if (!(PyTuple_Check(cards) || PyList_Check(cards)))
        throw py::value_error("meld cards must be a tuple or list of kind ids");
    const Py_ssize_t nc = PySequence_Fast_GET_SIZE(cards);
    const int size = out.type == G_CHI ? 3 : (out.type == G_PAO || out.type == G_TI) ? 4 : 3;
    if (nc != size)
        throw py::value_error(std::string(utf8) + " meld needs " + std::to_string(size) +
                              " cards, got " + std::to_string(nc));
    out.n = int(nc);
    for (int x = 0; x < out.n; ++x) {
        const long v = as_long_(PySequence_Fast_GET_ITEM(cards, x), "meld cards");
        if (v < 0 || v >= NUM_KINDS)
            throw py::value_error("meld cards: a card kind must be 0..19, got " +
                                  std::to_string(v));
        out.cards[x] = int(v);
    }
    if (out.type == G_CHI) {
        if (group_id({out.cards[0], out.cards[1], out.cards[2]}) < 0)
            throw py::value_error("a chi meld must be a sorted 句 or 绞 (R-GROUP-2)");
    } else {
        for (int x = 1; x < out.n; ++x)
            if (out.cards[x] != out.cards[0])
                throw py::value_error(std::string(utf8) + " meld needs cards of one kind");
    }
    return out;
}

Group to_group(const MeldIn& m) {
    Group g;
    g.type = m.type;
    g.cards.assign(m.cards, m.cards + m.n);
    return g;
}

}  // namespace

// ---------------------------------------------------------------- bind_common.hpp

py::tuple group_to_python(const Group& g) {
    PyObject* t = PyTuple_New(2);
    if (t == nullptr) throw py::error_already_set();
    PyObject* name = type_str(g.type);
    Py_INCREF(name);
    PyTuple_SET_ITEM(t, 0, name);
    PyTuple_SET_ITEM(t, 1, ints_to_tuple(g.cards).release().ptr());
    return py::reinterpret_steal<py::tuple>(t);
}

// Builds the instance without running the frozen dataclass's __init__ (one
// object.__setattr__ per field, ~2 us): object.__new__(Win) and its __dict__ filled with the
// ten fields in field order; equal to, and indistinguishable from, Win(...). Used only while
// Win is a plain dataclass with a __dict__ and no __post_init__ (checked once); else Win(...).
bool win_fast_path() {
    static int ok = -1;
    if (ok < 0) {
        py::object cls = py_win_class();
        ok = !py::hasattr(cls, "__slots__") && !py::hasattr(cls, "__post_init__") &&
             py::hasattr(cls, "__dataclass_fields__") &&
             py::len(cls.attr("__dataclass_fields__")) == 10;
    }
    return ok == 1;
}

py::object win_to_python(const Win& w) {
    PyObject* names = PyTuple_New(Py_ssize_t(w.names.size()));
    if (names == nullptr) throw py::error_already_set();
    py::object names_o = py::reinterpret_steal<py::object>(names);
    for (size_t j = 0; j < w.names.size(); ++j) {
        PyObject* n = interned(w.names[j].c_str());
        Py_INCREF(n);
        PyTuple_SET_ITEM(names, Py_ssize_t(j), n);
    }
    PyObject* groups = PyTuple_New(Py_ssize_t(w.groups.size()));
    if (groups == nullptr) throw py::error_already_set();
    py::object groups_o = py::reinterpret_steal<py::object>(groups);
    for (size_t j = 0; j < w.groups.size(); ++j)
        PyTuple_SET_ITEM(groups, Py_ssize_t(j), group_to_python(w.groups[j]).release().ptr());
    PyObject* wang_as = PyTuple_New(Py_ssize_t(w.wang_as.size()));
    if (wang_as == nullptr) throw py::error_already_set();
    py::object wang_as_o = py::reinterpret_steal<py::object>(wang_as);
    for (size_t j = 0; j < w.wang_as.size(); ++j) {
        PyObject* p = PyTuple_New(2);
        PyTuple_SET_ITEM(p, 0, PyLong_FromLong(w.wang_as[j].first));
        PyTuple_SET_ITEM(p, 1, PyLong_FromLong(w.wang_as[j].second));
        PyTuple_SET_ITEM(wang_as, Py_ssize_t(j), p);
    }
    if (!win_fast_path())
        return py_win_class()(w.huxi, w.tun, w.fan, w.score, names_o, groups_o, w.red, w.big,
                              w.small, wang_as_o);
    PyTypeObject* type = reinterpret_cast<PyTypeObject*>(py_win_class().ptr());
    py::object empty = py::reinterpret_steal<py::object>(PyTuple_New(0));
    py::object obj = py::reinterpret_steal<py::object>(
        PyBaseObject_Type.tp_new(type, empty.ptr(), nullptr));
    if (!obj) throw py::error_already_set();
    PyObject* dict = PyObject_GenericGetDict(obj.ptr(), nullptr);
    if (dict == nullptr) throw py::error_already_set();
    py::object d = py::reinterpret_steal<py::object>(dict);
    auto set = [&](const char* k, PyObject* v, bool steal) {
        const int rc = PyDict_SetItem(dict, interned(k), v);
        if (steal) Py_DECREF(v);
        if (rc < 0) throw py::error_already_set();
    };
    set("huxi", PyLong_FromLong(w.huxi), true);
    set("tun", PyLong_FromLong(w.tun), true);
    set("fan", PyLong_FromLong(w.fan), true);
    set("score", PyLong_FromLong(w.score), true);
    set("names", names, false);
    set("groups", groups, false);
    set("red", PyLong_FromLong(w.red), true);
    set("big", PyLong_FromLong(w.big), true);
    set("small", PyLong_FromLong(w.small), true);
    set("wang_as", wang_as, false);
    return obj;
}

Counts counts_from_python(py::handle seq, const char* what, int max_count) {
    PyObject* fast = PySequence_Fast(seq.ptr(), "");
    if (fast == nullptr) {
        PyErr_Clear();
        throw py::value_error(std::string(what) + " must be a sequence of 20 counts");
    }
    py::object hold = py::reinterpret_steal<py::object>(fast);
    if (PySequence_Fast_GET_SIZE(fast) != NUM_KINDS)
        throw py::value_error(std::string(what) + " must hold 20 counts, got " +
                              std::to_string(PySequence_Fast_GET_SIZE(fast)));
    PyObject** items = PySequence_Fast_ITEMS(fast);
    Counts out;
    for (int k = 0; k < NUM_KINDS; ++k) {
        const long v = as_long_(items[k], what);
        if (v < 0 || v > max_count)
            throw py::value_error(std::string(what) + ": count of kind " + std::to_string(k) +
                                  " must be 0.." + std::to_string(max_count) + ", got " +
                                  std::to_string(v));
        out[k] = int(v);
    }
    return out;
}

std::vector<Group> melds_from_python(py::handle melds) {
    std::vector<Group> out;
    if (melds.is_none()) return out;
    PyObject* fast = PySequence_Fast(melds.ptr(), "");
    if (fast == nullptr) {
        PyErr_Clear();
        throw py::value_error("melds must be a sequence of (type, cards) pairs");
    }
    py::object hold = py::reinterpret_steal<py::object>(fast);
    const Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    out.reserve(size_t(n));
    for (Py_ssize_t j = 0; j < n; ++j) out.push_back(to_group(parse_meld(PySequence_Fast_GET_ITEM(fast, j))));
    return out;
}

namespace {

// The binding's own lru_cache key: the hand, up to 8 melds (a byte each), win card, flags,
// 王 and the rules id; false when it cannot encode the call (then nothing is cached).
bool py_key(const Counts& h, const MeldIn* ms, size_t nm, int c, const EvalArgs& a,
            int rules_id, EvalKey* out) {
    if (nm > 8) return false;
    uint64_t ph = 0;
    for (int k = 0; k < NUM_KINDS; ++k) ph |= uint64_t(h[k]) << (3 * k);
    uint64_t pm = 0;
    for (size_t j = 0; j < nm; ++j) {
        const MeldIn& m = ms[j];
        const int code = m.type == G_CHI
                             ? group_id({m.cards[0], m.cards[1], m.cards[2]}) - GROUP_BASE + 1
                             : 39 + 20 * (int(m.type) - 1) + m.cards[0];
        pm |= uint64_t(code) << (8 * j);
    }
    const uint32_t misc = uint32_t(c + 1) | uint32_t(a.self_drawn) << 5 |
                          uint32_t(a.haidi) << 6 | uint32_t(a.tianhu) << 7 |
                          uint32_t(a.dihu) << 8 | uint32_t(a.from_discard) << 9 |
                          uint32_t(a.wang) << 10;
    *out = EvalKey{ph, pm, misc, uint32_t(rules_id)};
    return true;
}

// evaluate_counts(hand, melds, win_card, rules, *, self_drawn=False, haidi=False,
// tianhu=False, dihu=False, from_discard=False, wang=0): a METH_FASTCALL function (pybind11's
// general argument handling costs about as much as a whole memo hit).
py::object evaluate_counts_impl(PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
    static const char* const NAMES[10] = {"hand", "melds", "win_card", "rules", "self_drawn",
                                          "haidi", "tianhu", "dihu", "from_discard", "wang"};
    PyObject* v[10] = {};
    if (nargs > 4)
        throw py::type_error("evaluate_counts() takes 4 positional arguments (hand, melds, "
                             "win_card, rules); the flags are keyword-only");
    for (Py_ssize_t j = 0; j < nargs; ++j) v[j] = args[j];
    const Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    for (Py_ssize_t j = 0; j < nkw; ++j) {
        const char* k = PyUnicode_AsUTF8(PyTuple_GET_ITEM(kwnames, j));
        if (k == nullptr) throw py::error_already_set();
        int slot = -1;
        for (int x = 0; x < 10; ++x)
            if (std::strcmp(k, NAMES[x]) == 0) slot = x;
        if (slot < 0)
            throw py::type_error(std::string("evaluate_counts() got an unexpected keyword "
                                             "argument '") + k + "'");
        if (v[slot] != nullptr)
            throw py::type_error(std::string("evaluate_counts() got multiple values for "
                                             "argument '") + k + "'");
        v[slot] = args[nargs + j];
    }
    for (int x = 0; x < 4; ++x)
        if (v[x] == nullptr)
            throw py::type_error(std::string("evaluate_counts() missing required argument '") +
                                 NAMES[x] + "'");
    const Counts h = counts_from_python(v[0], "hand");
    // melds
    MeldIn small[8];
    std::vector<MeldIn> many;
    const MeldIn* ms = small;
    size_t nm = 0;
    if (v[1] != Py_None) {
        PyObject* fast = PySequence_Fast(v[1], "");
        if (fast == nullptr) {
            PyErr_Clear();
            throw py::value_error("melds must be a sequence of (type, cards) pairs");
        }
        py::object hold = py::reinterpret_steal<py::object>(fast);
        nm = size_t(PySequence_Fast_GET_SIZE(fast));
        if (nm > 8) many.resize(nm);
        MeldIn* dst = nm > 8 ? many.data() : small;
        for (size_t j = 0; j < nm; ++j)
            dst[j] = parse_meld(PySequence_Fast_GET_ITEM(fast, Py_ssize_t(j)));
        ms = dst;
    }
    int c = -1;
    if (v[2] != Py_None) {
        const long k = as_long_(v[2], "win_card");
        if (k < 0 || k >= NUM_KINDS)
            throw py::value_error("win_card must be a kind 0..19 or None, got " +
                                  std::to_string(k));
        c = int(k);
    }
    const Rules& r = rules_ref_from_python(v[3]);
    EvalArgs a;
    bool* flags[5] = {&a.self_drawn, &a.haidi, &a.tianhu, &a.dihu, &a.from_discard};
    for (int x = 0; x < 5; ++x) {
        if (v[4 + x] == nullptr) continue;
        const int t = PyObject_IsTrue(v[4 + x]);
        if (t < 0) throw py::error_already_set();
        *flags[x] = t == 1;
    }
    if (v[9] != nullptr) {
        const long w = as_long_(v[9], "wang");
        if (w < 0 || w > 2) throw py::value_error("wang must be 0..2, got " + std::to_string(w));
        a.wang = int(w);
    }
    EvalKey key;
    const bool memo = py_key(h, ms, nm, c, a, r.id, &key);
    auto& cache = py_win_cache();
    if (memo) {
        auto it = cache.find(key);
        if (it != cache.end()) return it->second;
    }
    std::vector<Group> groups;
    groups.reserve(nm);
    for (size_t j = 0; j < nm; ++j) groups.push_back(to_group(ms[j]));
    const Win* w = evaluate(h, groups, c, r, a);  // std::invalid_argument -> ValueError
    py::object out = w ? win_to_python(*w) : py::none();
    if (memo) {
        if (cache.size() >= PY_WIN_CAP) cache.clear();
        cache.emplace(key, out);
    }
    return out;
}

PyObject* evaluate_counts_fastcall(PyObject*, PyObject* const* args, Py_ssize_t nargs,
                                   PyObject* kwnames) {
    try {
        return evaluate_counts_impl(args, nargs, kwnames).release().ptr();
    } catch (py::error_already_set& e) {
        e.restore();
    } catch (py::builtin_exception& e) {
        e.set_error();
    } catch (std::invalid_argument& e) {
        PyErr_SetString(PyExc_ValueError, e.what());
    } catch (std::out_of_range& e) {
        PyErr_SetString(PyExc_ValueError, e.what());
    } catch (std::overflow_error& e) {
        PyErr_SetString(PyExc_OverflowError, e.what());
    } catch (std::exception& e) {
        PyErr_SetString(PyExc_RuntimeError, e.what());
    }
    return nullptr;
}

PyMethodDef EVALUATE_DEF = {
    "evaluate_counts", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)(void)>(
                           &evaluate_counts_fastcall)),
    METH_FASTCALL | METH_KEYWORDS,
    "evaluate_counts(hand, melds, win_card, rules, *, self_drawn=False, haidi=False, "
    "tianhu=False, dihu=False, from_discard=False, wang=0)\n--\n\n"
    "paohuzi_env.game.scoring.evaluate_counts in C++: the same Win (or None) on the same canonical "
    "arguments (hand: 20 counts; melds: sorted (type, cards) pairs; win_card: a kind or None; "
    "rules: a Rules or a preset name). Memoised like the Python one (the same arguments give "
    "the same Win object). Malformed input raises ValueError."};

}  // namespace

// ---------------------------------------------------------------- the module functions

void bind_scoring(py::module_& m) {
    bind_rules(m);  // rules_id, rule_fields, rules_key (bind_rules.cpp)
    {
        PyObject* f = PyCFunction_NewEx(&EVALUATE_DEF, nullptr, m.attr("__name__").ptr());
        if (f == nullptr) throw py::error_already_set();
        m.add_object("evaluate_counts", py::reinterpret_steal<py::object>(f));
    }

    m.def(
        "chi_groups",
        [](py::handle hand, int c, bool owes_after) {
            const Counts h = counts_from_python(hand, "hand");
            if (c < 0 || c >= NUM_KINDS) throw py::value_error("c must be a kind 0..19");
            bool fits = false;
            const std::vector<int> legal = chi_groups(h, c, owes_after, &fits);
            return py::make_tuple(ints_to_tuple(legal), py::bool_(fits));
        },
        py::arg("hand"), py::arg("c"), py::arg("owes_after"),
        "paohuzi_env.game.chi.chi_groups: (legal 吃 group ids, whether any group fits).");

    m.def(
        "bi_groups",
        [](py::handle usable_counts, int c, bool owes_after) {
            const Counts u = counts_from_python(usable_counts, "usable");
            if (c < 0 || c >= NUM_KINDS) throw py::value_error("c must be a kind 0..19");
            return ints_to_tuple(bi_groups(u, c, owes_after));
        },
        py::arg("usable"), py::arg("c"), py::arg("owes_after"),
        "paohuzi_env.game.chi.bi_groups: the legal next 比 group ids.");

    m.def(
        "_bench_evaluate",
        [](py::handle cases, py::handle rules, int repeat, const std::string& clear,
           bool self_drawn) {
            // Times the core alone (no Python objects per call): seconds for `repeat` passes
            // over `cases` [(hand counts, melds, win_card[, wang])]. clear: "call" empties the
            // memo before every call (the cold figure), "pass" before each pass, "never".
            if (clear != "call" && clear != "pass" && clear != "never")
                throw py::value_error("clear must be 'call', 'pass' or 'never'");
            const bool clear_each = clear == "call", clear_pass = clear == "pass";
            struct Case { Counts h; std::vector<Group> m; int c; int wang; };
            std::vector<Case> cs;
            for (py::handle t : cases) {
                py::tuple tt = py::reinterpret_borrow<py::tuple>(t);
                cs.push_back(Case{counts_from_python(tt[0], "hand"), melds_from_python(tt[1]),
                                  tt[2].is_none() ? -1 : tt[2].cast<int>(),
                                  tt.size() > 3 ? tt[3].cast<int>() : 0});
            }
            const Rules& r = rules_ref_from_python(rules);
            EvalArgs a;
            a.self_drawn = self_drawn;
            long wins = 0;
            if (!cs.empty()) {  // malformed input raises here, not inside the timed loop
                a.wang = cs[0].wang;
                evaluate(cs[0].h, cs[0].m, cs[0].c, r, a);
            }
            py::gil_scoped_release nogil;
            const auto t0 = std::chrono::steady_clock::now();
            for (int rep = 0; rep < repeat; ++rep) {
                if (clear_pass) clear_scoring_caches();
                for (const Case& c : cs) {
                    if (clear_each) clear_scoring_caches();
                    a.wang = c.wang;
                    wins += evaluate(c.h, c.m, c.c, r, a) != nullptr;
                }
            }
            const auto t1 = std::chrono::steady_clock::now();
            (void)wins;
            return std::chrono::duration<double>(t1 - t0).count();
        },
        py::arg("cases"), py::arg("rules"), py::arg("repeat") = 1, py::arg("clear") = "pass",
        py::arg("self_drawn") = false);

    m.def(
        "_set_memo_caps",
        [](size_t solve, size_t wild, size_t win) {
            set_scoring_memo_caps(solve, wild, win);
            PY_WIN_CAP = win ? win : WIN_MEMO_CAP;
        },
        py::arg("solve") = 0, py::arg("wild") = 0, py::arg("win") = 0,
        "Memo sizes (0: the defaults); small ones exercise the eviction paths in tests.");

    m.def(
        "_tables",
        []() {
            // The core's group tables, for tests against groups.py / actions.py:
            // (CHI_GROUPS, GROUPS_WITH, group type names in enum order).
            py::list chi, with, names;
            for (const auto& g : CHI_GROUPS) chi.append(py::make_tuple(g[0], g[1], g[2]));
            for (const auto& v : GROUPS_WITH) with.append(ints_to_tuple(v));
            for (int t = 0; t < G_NUM_TYPES; ++t)
                names.append(py::str(group_type_name(static_cast<GroupType>(t))));
            return py::make_tuple(py::tuple(chi), py::tuple(with), py::tuple(names));
        },
        "(CHI_GROUPS, GROUPS_WITH, group type names) as the core holds them (for tests).");

    m.def(
        "_group_huxi",
        [](const std::string& type, const std::vector<int>& cards) {
            GroupType t;
            if (!group_type_from_name(type, &t)) throw py::value_error("unknown group type " + type);
            return group_huxi(t, cards);
        },
        py::arg("type"), py::arg("cards"), "groups.group_huxi in the core (for tests).");

    m.def(
        "_group_id",
        [](int a, int b, int c) { return group_id({a, b, c}); },
        "actions.GROUP_ID.get((a, b, c), -1) in the core (for tests).");

    m.def(
        "clear_caches",
        []() {
            py_win_cache() = std::unordered_map<EvalKey, py::object, EvalKeyHash>();
            clear_scoring_caches();
            clear_chi_caches();
        },
        "Empty the evaluator's and the 吃/比 search's memo tables (cold-cache measurements).");
}

}  // namespace phz
