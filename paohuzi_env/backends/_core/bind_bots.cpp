// Python binding of the bots (bots.hpp): greedy_action(view, rules), expert_action(view, rules)
// on a paohuzi_env.game.engine.PlayerView and a Rules (or a preset name), as
// paohuzi_env.bots.heuristic.GreedyAgent(rules=rules).act(view) / ExpertAgent's.
//
// The view is read attribute by attribute (any object with PlayerView's fields will do) and
// checked: a wrong type raises TypeError, a value out of range ValueError; nothing crashes.
#include <Python.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>
#include <vector>

#include "bind_common.hpp"
#include "bots.hpp"
#include "common.hpp"
#include "rules.hpp"
#include "view.hpp"

namespace py = pybind11;

namespace phz {
namespace {

[[noreturn]] void type_error(const std::string& m) { throw py::type_error(m); }
[[noreturn]] void value_error(const std::string& m) { throw py::value_error(m); }

std::string type_name(py::handle h) { return Py_TYPE(h.ptr())->tp_name; }

// An int (anything with __index__, not a bool) within [lo, hi].
int to_int(py::handle h, const std::string& what, long lo, long hi) {
    if (PyBool_Check(h.ptr()) || !PyIndex_Check(h.ptr()))
        type_error(what + " must be an int, got " + type_name(h));
    py::object idx = py::reinterpret_steal<py::object>(PyNumber_Index(h.ptr()));
    if (!idx) throw py::error_already_set();
    int overflow = 0;
    long v = PyLong_AsLongAndOverflow(idx.ptr(), &overflow);
    if (v == -1 && PyErr_Occurred()) throw py::error_already_set();
    if (overflow || v < lo || v > hi)
        value_error(what + " must be in " + std::to_string(lo) + ".." + std::to_string(hi) +
                    ", got " + std::string(py::str(h)));
    return int(v);
}

// The items of a tuple or list (a str is no sequence of cards here).
std::vector<py::handle> items(py::handle h, const std::string& what, long size = -1) {
    if (!PyTuple_Check(h.ptr()) && !PyList_Check(h.ptr()))
        type_error(what + " must be a tuple or list, got " + type_name(h));
    py::sequence s = py::reinterpret_borrow<py::sequence>(h);
    std::vector<py::handle> out;
    out.reserve(s.size());
    for (size_t i = 0; i < s.size(); ++i) out.push_back(PySequence_Fast_GET_ITEM(h.ptr(), i));
    if (size >= 0 && long(out.size()) != size)
        value_error(what + " must have " + std::to_string(size) + " items, got " +
                    std::to_string(out.size()));
    return out;
}

py::object field(py::handle view, const char* name) {
    if (!py::hasattr(view, name))
        type_error(std::string("expected a PlayerView (Game.view(seat)); got ") + type_name(view) +
                   " without ." + name);
    return view.attr(name);
}

std::string to_str(py::handle h, const std::string& what) {
    if (!PyUnicode_Check(h.ptr())) type_error(what + " must be a str, got " + type_name(h));
    return py::cast<std::string>(h);
}

// A frozenset (or any set, tuple, list) of kinds 0..20 as a bit mask.
uint32_t kind_mask(py::handle h, const std::string& what) {
    if (!PyAnySet_Check(h.ptr()) && !PyTuple_Check(h.ptr()) && !PyList_Check(h.ptr()))
        type_error(what + " must be a frozenset of kinds, got " + type_name(h));
    uint32_t m = 0;
    for (py::handle k : py::reinterpret_borrow<py::iterable>(h))
        m |= 1u << to_int(k, what + " item", 0, WANG);
    return m;
}

std::array<int, 3> three_ints(py::handle h, const std::string& what, long lo, long hi) {
    auto it = items(h, what, 3);
    return {to_int(it[0], what, lo, hi), to_int(it[1], what, lo, hi), to_int(it[2], what, lo, hi)};
}

// paohuzi_env.game.engine.PlayerView -> phz::View
View view_from_python(py::handle pv) {
    View v;
    v.seat = to_int(field(pv, "seat"), "view.seat", 0, NUM_SEATS - 1);
    {
        auto hand = items(field(pv, "hand"), "view.hand", NUM_KINDS);
        for (int k = 0; k < NUM_KINDS; ++k) v.hand[k] = to_int(hand[k], "view.hand count", 0, COPIES);
    }
    {
        auto table = items(field(pv, "table"), "view.table", NUM_SEATS);
        for (int s = 0; s < NUM_SEATS; ++s) {
            for (py::handle g : items(table[s], "view.table[seat]")) {
                auto tc = items(g, "a table group (type, cards)", 2);
                TableGroup tg;
                std::string t = to_str(tc[0], "a table group's type");
                GroupType gt;
                if (!group_type_from_name(t, &gt) || gt > G_TI)
                    value_error("unknown table group type '" + t + "'");
                tg.type = gt;
                if (tc[1].is_none()) {
                    tg.hidden = true;
                } else {
                    for (py::handle k : items(tc[1], "a table group's cards"))
                        tg.cards.push_back(to_int(k, "a table card", 0, NUM_KINDS - 1));
                    if (tg.cards.size() < 3 || tg.cards.size() > 4)
                        value_error("a table group has 3 or 4 cards");
                }
                v.table[s].push_back(std::move(tg));
            }
        }
    }
    {
        auto discards = items(field(pv, "discards"), "view.discards", NUM_SEATS);
        for (int s = 0; s < NUM_SEATS; ++s)
            for (py::handle k : items(discards[s], "view.discards[seat]"))
                v.discards[s].push_back(to_int(k, "a discarded card", 0, NUM_KINDS - 1));
    }
    v.hand_sizes = three_ints(field(pv, "hand_sizes"), "view.hand_sizes", 0, 30);
    v.wall = to_int(field(pv, "wall"), "view.wall", 0, NUM_CARDS + 2);
    v.dealer = to_int(field(pv, "dealer"), "view.dealer", 0, NUM_SEATS - 1);
    v.liang = to_int(field(pv, "liang"), "view.liang", 0, WANG);
    v.chou = kind_mask(field(pv, "chou"), "view.chou");
    v.chi_closed = kind_mask(field(pv, "chi_closed"), "view.chi_closed");
    v.declined_peng = kind_mask(field(pv, "declined_peng"), "view.declined_peng");
    v.hu_blocked = kind_mask(field(pv, "hu_blocked"), "view.hu_blocked");
    {
        py::object d = field(pv, "decision");
        if (d.is_none()) {
            v.decision = D_NONE;
        } else {
            std::string s = to_str(d, "view.decision");
            if (s == "tianhu") v.decision = D_TIANHU;
            else if (s == "hu") v.decision = D_HU;
            else if (s == "claim") v.decision = D_CLAIM;
            else if (s == "bi") v.decision = D_BI;
            else if (s == "discard") v.decision = D_DISCARD;
            else value_error("unknown decision '" + s + "'");
        }
    }
    {
        py::object o = field(pv, "offer");
        if (!o.is_none()) {
            auto it = items(o, "view.offer", 3);
            v.has_offer = true;
            v.offer_kind = to_int(it[0], "the offered card", 0, WANG);
            std::string src = to_str(it[1], "the offer's source");
            if (src == "draw") v.offer_source = S_DRAW;
            else if (src == "discard") v.offer_source = S_DISCARD;
            else if (src == "liang") v.offer_source = S_LIANG;
            else value_error("unknown offer source '" + src + "'");
            v.offer_from = to_int(it[2], "the offer's seat", 0, NUM_SEATS - 1);
        }
    }
    for (py::handle g : items(field(pv, "bi_groups"), "view.bi_groups")) {
        auto t = three_ints(g, "a 比 group", 0, NUM_KINDS - 1);
        std::sort(t.begin(), t.end());
        v.bi_groups.push_back(t);
    }
    v.bi_left = to_int(field(pv, "bi_left"), "view.bi_left", 0, COPIES);
    for (py::handle a : items(field(pv, "legal"), "view.legal"))
        v.legal.push_back(to_int(a, "a legal action", 0, NUM_ACTIONS - 1));  // order kept
    {
        py::object t = field(pv, "to_act");
        v.to_act = t.is_none() ? -1 : to_int(t, "view.to_act", 0, NUM_SEATS - 1);
    }
    {
        py::object d = field(pv, "done");
        if (!PyBool_Check(d.ptr())) type_error("view.done must be a bool, got " + type_name(d));
        v.done = d.ptr() == Py_True;
    }
    v.wang = to_int(field(pv, "wang"), "view.wang", 0, 2);
    v.wang_shown = three_ints(field(pv, "wang_shown"), "view.wang_shown", 0, 2);
    v.jokers = to_int(field(pv, "jokers"), "view.jokers", 0, 2);
    return v;
}

// A Rules, or a preset name (as heuristic._HeuristicAgent does with as_rules); another type
// is a TypeError.
const Rules& rules_of(py::handle rules) {
    if (!PyUnicode_Check(rules.ptr())) {
        if (!py::isinstance(rules, python_attr("paohuzi_env.game.rules", "Rules")))
            type_error("rules must be a paohuzi_env.game.rules.Rules or a preset name, got " +
                       type_name(rules));
    }
    return rules_ref_from_python(rules);
}

template <int (*F)(const View&, const Rules&)>
int call(py::handle view, py::handle rules) {
    const Rules& r = rules_of(rules);
    const View v = view_from_python(view);
    return F(v, r);
}

}  // namespace

void bind_bots(py::module_& m) {
    m.def("greedy_action", &call<greedy_action>, py::arg("view"), py::arg("rules"),
          "GreedyAgent(rules=rules).act(view) of paohuzi_env.bots.heuristic, compiled: the "
          "action id the greedy bot chooses on a PlayerView.");
    m.def("expert_action", &call<expert_action>, py::arg("view"), py::arg("rules"),
          "ExpertAgent(rules=rules).act(view) of paohuzi_env.bots.heuristic, compiled: the "
          "action id the expert bot chooses on a PlayerView.");
    m.def(
        "expert_action_values",
        [](py::handle view, py::handle rules) {
            const Rules& r = rules_of(rules);
            const View v = view_from_python(view);
            std::vector<double> values;
            const int a = bot_action_values(true, v, r, &values);
            py::list out;
            for (double x : values) out.append(x);
            return py::make_tuple(a, out);
        },
        py::arg("view"), py::arg("rules"),
        "The compiled expert's action on a PlayerView and its own value of each legal action, "
        "in view.legal's order (-inf: an option it does not weigh; all 0 where it weighs "
        "none): what the search's weighted worlds soften (search.hpp expert_log_prob).");
    m.attr("WAIT_FEATURES") = WAIT_FEATURES;
    m.def(
        "wait_features",
        [](py::handle view, py::handle rules) {
            const Rules& r = rules_of(rules);
            const View v = view_from_python(view);
            py::array_t<float> out(WAIT_FEATURES);
            wait_features(v, r, out.mutable_data());
            return out;
        },
        py::arg("view"), py::arg("rules"),
        "paohuzi_env.encode.features.wait_features(view, rules), compiled: the 80 wait features "
        "(float32) of a PlayerView's seat.");
    m.def("clear_bot_caches", &clear_bot_caches,
          "Drop the bots' memos (the compiled _structure and _win_scores caches).");
}

}  // namespace phz
