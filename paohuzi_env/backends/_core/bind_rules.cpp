// The one conversion of a paohuzi_env.game.rules.Rules into the core's phz::Rules (rules.hpp
// PHZ_RULE_FIELDS), with its cache (bind_common.hpp rules_ref_from_python), and the module
// functions about rule sets (_fast.rules_id, rule_fields, rules_key).
#include <pybind11/pybind11.h>

#include <deque>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "bind_common.hpp"
#include "rules.hpp"

namespace py = pybind11;

namespace phz {

namespace {

py::object& py_rules_class() { return python_attr("paohuzi_env.game.rules", "Rules"); }
py::object& py_as_rules() { return python_attr("paohuzi_env.game.rules", "as_rules"); }
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

// Readers of one Python field value each (PHZ_RULE_FIELDS names them); a wrong value raises
// ValueError naming the field and what is allowed.
int read_choice(py::handle v, const char* field, std::initializer_list<const char*> allowed) {
    const std::string s = py::cast<std::string>(v);
    int j = 0;
    std::string names;
    for (const char* a : allowed) {
        if (s == a) return j;
        names += (j ? ", " : "") + std::string(a);
        ++j;
    }
    throw py::value_error(std::string("rule '") + field + "' must be one of (" + names + "), got '" +
                          s + "'");
}
std::string read_text(py::handle v, const char*) { return py::cast<std::string>(v); }
int read_integer(py::handle v, const char*) { return py::cast<int>(v); }
bool read_boolean(py::handle v, const char*) { return py::cast<bool>(v); }
Family read_family(py::handle v, const char* f) {  // rules.SCORING_FAMILIES, in Family order
    return Family(read_choice(v, f, {"huaihua", "classic", "zipai", "hongshanzhang", "yongzhou"}));
}
int read_fan_level(py::handle v, const char* f) {  // rules.FAN_LEVELS
    return read_choice(v, f, {"none", "basic", "half"});
}
bool read_fan_combine(py::handle v, const char* f) {  // rules.FAN_COMBINES: multiply?
    return read_choice(v, f, {"sum", "multiply"}) == 1;
}
bool read_chou_rule(py::handle v, const char* f) {  // rules.CHOU_RULES: chi?
    return read_choice(v, f, {"any", "chi"}) == 1;
}
bool read_dealer_rule(py::handle v, const char* f) {  // rules.DEALER_RULES: classic?
    return read_choice(v, f, {"winner", "classic"}) == 1;
}
Fans read_fans(py::handle v, const char*) {
    Fans out;
    for (py::handle pair : v) {
        py::tuple t = py::reinterpret_borrow<py::object>(pair).cast<py::tuple>();
        if (t.size() != 2) throw py::value_error("Rules.fans holds (name, fan) pairs");
        out.emplace_back(t[0].cast<std::string>(), t[1].cast<int>());
    }
    return out;
}

// Once per process: the fields of paohuzi_env.game.rules.Rules are exactly PHZ_RULE_FIELDS's (a
// field added in Python and not here would otherwise be silently ignored by the core).
void check_rule_fields() {
    static bool checked = false;
    if (checked) return;
    std::vector<std::string> py_names;
    for (py::handle f : py::module_::import("dataclasses").attr("fields")(py_rules_class()))
        py_names.push_back(f.attr("name").cast<std::string>());
    const std::vector<std::string> core(rule_field_names().begin(), rule_field_names().end());
    if (py_names != core) {
        std::string a, b;
        for (const auto& n : py_names) a += (a.empty() ? "" : ", ") + n;
        for (const auto& n : core) b += (b.empty() ? "" : ", ") + n;
        throw std::runtime_error("paohuzi_env.game.rules.Rules has the fields (" + a +
                                 ") but the compiled core converts (" + b +
                                 "): add the field to PHZ_RULE_FIELDS in _core/rules.hpp and "
                                 "rebuild (python setup.py build_ext --inplace)");
    }
    checked = true;
}

// The one conversion of a Python Rules into the core's struct: every field of PHZ_RULE_FIELDS.
Rules convert_rules(py::handle r) {
    check_rule_fields();
    Rules out;
#define PHZ_RULE_READ_(member, py, reader) out.member = read_##reader(r.attr(py), py);
    PHZ_RULE_FIELDS(PHZ_RULE_READ_)
#undef PHZ_RULE_READ_
    return out;
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
        throw py::value_error("rules must be a paohuzi_env.game.rules.Rules or a preset name");
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

void bind_rules(py::module_& m) {
    m.def(
        "rules_id",
        [](py::handle rules) { return rules_ref_from_python(rules).id; }, py::arg("rules"),
        "The core's id of a rule set (equal Rules share one).");

    m.def(
        "rule_fields",
        []() {
            py::list out;
            for (const char* n : rule_field_names()) out.append(py::str(n));
            return py::tuple(out);
        },
        "The fields of paohuzi_env.game.rules.Rules the core converts (_core/rules.hpp "
        "PHZ_RULE_FIELDS), in order.");

    m.def(
        "rules_key",
        [](py::handle rules) { return py::bytes(rules_key(rules_ref_from_python(rules))); },
        py::arg("rules"),
        "The core's fingerprint of a rule set, as bytes: every field of the converted struct "
        "(equal exactly when every field is equal; the bots' memo key).");
}

}  // namespace phz
