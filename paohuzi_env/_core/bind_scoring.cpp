// Python bindings of the evaluator and the 吃/比 search (paohuzi_env._fast.evaluate_counts,
// chi_groups, bi_groups, clear_caches), and the conversion helpers of bind_common.hpp.
//
// evaluate_counts mirrors paohuzi_env.scoring.evaluate_counts, lru_cache included: the same
// (canonical) arguments give the same Win object back.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <deque>
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

// Leaked on purpose: Python objects must not be destroyed after the interpreter is finalised.
py::object& py_rules_class() {
    static py::object* cls =
        new py::object(py::module_::import("paohuzi_env.rules").attr("Rules"));
    return *cls;
}
py::object& py_as_rules() {
    static py::object* f =
        new py::object(py::module_::import("paohuzi_env.rules").attr("as_rules"));
    return *f;
}
py::object& py_win_class() {
    static py::object* cls =
        new py::object(py::module_::import("paohuzi_env.scoring").attr("Win"));
    return *cls;
}

struct RulesCache {
    std::deque<Rules> store;                    // id = index + 1; never moves
    std::unordered_map<PyObject*, int> by_identity;  // holds a strong reference to each key
    py::dict by_value;                          // Rules object -> index
};
RulesCache& rules_cache() {
    static RulesCache* c = new RulesCache();
    return *c;
}
constexpr size_t IDENTITY_CAP = 1024;

Rules convert_rules(py::handle r) {
    Rules out;
    auto str = [&](const char* f) { return r.attr(f).cast<std::string>(); };
    auto boolean = [&](const char* f) { return r.attr(f).cast<bool>(); };
    auto integer = [&](const char* f) { return r.attr(f).cast<int>(); };
    out.name = str("name");
    const std::string fam = str("scoring");
    if (fam == "huaihua") out.scoring = F_HUAIHUA;
    else if (fam == "classic") out.scoring = F_CLASSIC;
    else if (fam == "zipai") out.scoring = F_ZIPAI;
    else if (fam == "hongshanzhang") out.scoring = F_HONGSHANZHANG;
    else if (fam == "yongzhou") out.scoring = F_YONGZHOU;
    else throw py::value_error("unknown scoring family " + fam);
    for (py::handle pair : r.attr("fans")) {
        py::tuple t = py::reinterpret_borrow<py::object>(pair).cast<py::tuple>();
        if (t.size() != 2) throw py::value_error("Rules.fans holds (name, fan) pairs");
        out.fans.emplace_back(t[0].cast<std::string>(), t[1].cast<int>());
    }
    const std::string level = str("fan_level");
    out.fan_level = level == "none" ? 0 : level == "basic" ? 1 : 2;
    out.fan_multiply = str("fan_combine") == "multiply";
    out.min_huxi = integer("min_huxi");
    out.pinghu_min_huxi = integer("pinghu_min_huxi");
    out.zimo_15 = boolean("zimo_15");
    out.zimo_tun = boolean("zimo_tun");
    out.tianhu_is_zimo = boolean("tianhu_is_zimo");
    out.win_on_own_ti_wei = boolean("win_on_own_ti_wei");
    out.hu_on_discard = boolean("hu_on_discard");
    out.chi_on_discard = boolean("chi_on_discard");
    out.chou_rule_chi = str("chou_rule") == "chi";
    out.chou_blocks_peng = boolean("chou_blocks_peng");
    out.chou_when_chi_blocked = boolean("chou_when_chi_blocked");
    out.dealer_rule_classic = str("dealer_rule") == "classic";
    out.wang = integer("wang");
    return out;
}

const char* const MELD_NAMES[] = {"chi", "peng", "wei", "chou_wei", "pao", "ti"};

long as_long(PyObject* o, const char* what) {
    if (!PyLong_Check(o)) throw py::value_error(std::string(what) + " must hold ints");
    const long v = PyLong_AsLong(o);
    if (v == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        throw py::value_error(std::string(what) + ": an int out of range");
    }
    return v;
}

int card_from_python(py::handle o, const char* what) {
    const long v = as_long(o.ptr(), what);
    if (v < 0 || v >= NUM_KINDS)
        throw py::value_error(std::string(what) + ": a card kind must be 0..19, got " +
                              std::to_string(v));
    return int(v);
}

// The binding's own lru_cache: EvalKey -> the Python Win (or None) it returned.
std::unordered_map<EvalKey, py::object, EvalKeyHash>& py_win_cache() {
    static auto* c = new std::unordered_map<EvalKey, py::object, EvalKeyHash>();
    return *c;
}
constexpr size_t PY_WIN_CAP = size_t(1) << 18;

py::tuple ints_to_tuple(const std::vector<int>& v) {
    py::tuple t(v.size());
    for (size_t j = 0; j < v.size(); ++j) t[j] = py::int_(v[j]);
    return t;
}

}  // namespace

// ---------------------------------------------------------------- bind_common.hpp

const Rules& rules_ref_from_python(py::handle rules) {
    RulesCache& c = rules_cache();
    auto it = c.by_identity.find(rules.ptr());
    if (it != c.by_identity.end()) return c.store[it->second];
    py::object obj = py::reinterpret_borrow<py::object>(rules);
    if (py::isinstance<py::str>(obj)) obj = py_as_rules()(obj);  // a preset name
    if (!py::isinstance(obj, py_rules_class()))
        throw py::value_error("rules must be a paohuzi_env.rules.Rules or a preset name");
    int index;
    if (c.by_value.contains(obj)) {
        index = c.by_value[obj].cast<int>();
    } else {
        Rules r = convert_rules(obj);
        index = int(c.store.size());
        r.id = index + 1;
        c.store.push_back(std::move(r));
        c.by_value[obj] = py::int_(index);
    }
    if (c.by_identity.size() >= IDENTITY_CAP) {
        for (auto& kv : c.by_identity) Py_DECREF(kv.first);
        c.by_identity.clear();
    }
    Py_INCREF(rules.ptr());
    c.by_identity.emplace(rules.ptr(), index);
    return c.store[index];
}

Rules rules_from_python(py::handle rules) { return rules_ref_from_python(rules); }

py::tuple group_to_python(const Group& g) {
    return py::make_tuple(py::str(group_type_name(g.type)), ints_to_tuple(g.cards));
}

py::object win_to_python(const Win& w) {
    py::tuple names(w.names.size());
    for (size_t j = 0; j < w.names.size(); ++j) names[j] = py::str(w.names[j]);
    py::tuple groups(w.groups.size());
    for (size_t j = 0; j < w.groups.size(); ++j) groups[j] = group_to_python(w.groups[j]);
    py::tuple wang_as(w.wang_as.size());
    for (size_t j = 0; j < w.wang_as.size(); ++j)
        wang_as[j] = py::make_tuple(w.wang_as[j].first, w.wang_as[j].second);
    return py_win_class()(w.huxi, w.tun, w.fan, w.score, names, groups, w.red, w.big, w.small,
                          wang_as);
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
        const long v = as_long(items[k], what);
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
    for (Py_ssize_t j = 0; j < n; ++j) {
        py::handle m = PySequence_Fast_GET_ITEM(fast, j);
        if (!py::isinstance<py::tuple>(m) && !py::isinstance<py::list>(m))
            throw py::value_error("a meld is a (type, cards) pair");
        py::sequence pair = py::reinterpret_borrow<py::sequence>(m);
        if (pair.size() != 2) throw py::value_error("a meld is a (type, cards) pair");
        py::object t = pair[0];
        if (!py::isinstance<py::str>(t)) throw py::value_error("a meld type must be a str");
        const std::string name = t.cast<std::string>();
        GroupType type;
        bool ok = false;
        for (const char* mn : MELD_NAMES) ok |= name == mn;
        if (!ok || !group_type_from_name(name, &type))
            throw py::value_error("unknown meld type '" + name +
                                  "'; valid types: chi, peng, wei, chou_wei, pao, ti");
        py::object cards_obj = pair[1];
        if (py::isinstance<py::str>(cards_obj))
            throw py::value_error("meld cards must be a sequence of kind ids");
        PyObject* cf = PySequence_Fast(cards_obj.ptr(), "");
        if (cf == nullptr) {
            PyErr_Clear();
            throw py::value_error("meld cards must be a sequence of kind ids");
        }
        py::object hold_c = py::reinterpret_steal<py::object>(cf);
        Group g;
        g.type = type;
        const Py_ssize_t nc = PySequence_Fast_GET_SIZE(cf);
        for (Py_ssize_t x = 0; x < nc; ++x)
            g.cards.push_back(card_from_python(PySequence_Fast_GET_ITEM(cf, x), "meld cards"));
        if (type == G_CHI) {
            if (g.cards.size() != 3 || group_id({g.cards[0], g.cards[1], g.cards[2]}) < 0)
                throw py::value_error("a chi meld must be a sorted 句 or 绞 (R-GROUP-2)");
        } else {
            const size_t size = (type == G_PAO || type == G_TI) ? 4 : 3;
            bool same = g.cards.size() == size;
            for (int k : g.cards) same = same && k == g.cards[0];
            if (!same)
                throw py::value_error(name + " meld needs " + std::to_string(size) +
                                      " cards of one kind");
        }
        out.push_back(std::move(g));
    }
    return out;
}

// ---------------------------------------------------------------- the module functions

void bind_scoring(py::module_& m) {
    m.def(
        "evaluate_counts",
        [](py::handle hand, py::handle melds, py::handle win_card, py::handle rules,
           bool self_drawn, bool haidi, bool tianhu, bool dihu, bool from_discard,
           int wang) -> py::object {
            const Counts h = counts_from_python(hand, "hand");
            const std::vector<Group> ms = melds_from_python(melds);
            const int c = win_card.is_none() ? -1 : card_from_python(win_card, "win_card");
            const Rules& r = rules_ref_from_python(rules);
            if (wang < 0 || wang > 2) throw py::value_error("wang must be 0..2");
            EvalArgs a;
            a.self_drawn = self_drawn; a.haidi = haidi; a.tianhu = tianhu; a.dihu = dihu;
            a.from_discard = from_discard; a.wang = wang;
            EvalKey key;
            const bool memo = eval_key(h, ms, c, r, a, &key);
            auto& cache = py_win_cache();
            if (memo) {
                auto it = cache.find(key);
                if (it != cache.end()) return it->second;
            }
            const Win* w = evaluate(h, ms, c, r, a);  // std::invalid_argument -> ValueError
            py::object out = w ? win_to_python(*w) : py::none();
            if (memo) {
                if (cache.size() >= PY_WIN_CAP) cache.clear();
                cache.emplace(key, out);
            }
            return out;
        },
        py::arg("hand"), py::arg("melds"), py::arg("win_card"), py::arg("rules"), py::kw_only(),
        py::arg("self_drawn") = false, py::arg("haidi") = false, py::arg("tianhu") = false,
        py::arg("dihu") = false, py::arg("from_discard") = false, py::arg("wang") = 0,
        "paohuzi_env.scoring.evaluate_counts in C++: the same Win (or None) on the same "
        "canonical arguments (hand: 20 counts; melds: sorted (type, cards) pairs; win_card: a "
        "kind or None). Malformed input raises ValueError.");

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
        "paohuzi_env.chi.chi_groups: (legal 吃 group ids, whether any group fits).");

    m.def(
        "bi_groups",
        [](py::handle usable_counts, int c, bool owes_after) {
            const Counts u = counts_from_python(usable_counts, "usable");
            if (c < 0 || c >= NUM_KINDS) throw py::value_error("c must be a kind 0..19");
            return ints_to_tuple(bi_groups(u, c, owes_after));
        },
        py::arg("usable"), py::arg("c"), py::arg("owes_after"),
        "paohuzi_env.chi.bi_groups: the legal next 比 group ids.");

    m.def(
        "rules_id",
        [](py::handle rules) { return rules_ref_from_python(rules).id; }, py::arg("rules"),
        "The core's id of a rule set (equal Rules share one).");

    m.def(
        "clear_caches",
        []() {
            py_win_cache().clear();
            clear_scoring_caches();
            clear_chi_caches();
        },
        "Empty the evaluator's and the 吃/比 search's memo tables (cold-cache measurements).");
}

}  // namespace phz
