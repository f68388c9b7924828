// Helpers shared by the binding files (bind_*.cpp): Python <-> core conversions. Defined in
// bind_scoring.cpp, the rules' in bind_rules.cpp. Every function needs the GIL. Malformed input
// raises ValueError (pybind11::value_error), never crashes.
#pragma once

#include <pybind11/pybind11.h>

#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "common.hpp"
#include "rules.hpp"
#include "scoring.hpp"
#include "vector.hpp"

namespace phz {

// The names of vector.hpp's POLICY_NAMES joined by ", " (for error messages).
inline std::string policy_names() {
    std::string out;
    for (const PolicyName& p : POLICY_NAMES) out += (out.empty() ? "" : ", ") + std::string(p.name);
    return out;
}

// The compiled bot `name` names (POLICY_NAMES); false when none does.
inline bool find_policy(const std::string& name, Policy* out) {
    for (const PolicyName& p : POLICY_NAMES)
        if (name == p.name) {
            *out = p.policy;
            return true;
        }
    return false;
}

// The Python object `module.attr` (a class or function of paohuzi_env), imported on first use
// and kept for the process. Leaked on purpose: Python objects must not be destroyed after the
// interpreter is finalised. A handful of distinct (module, attr) pairs, looked up by content.
inline pybind11::object& python_attr(const char* module, const char* attr) {
    static std::vector<std::pair<std::pair<const char*, const char*>, pybind11::object*>> table;
    for (auto& e : table)
        if (std::strcmp(e.first.first, module) == 0 && std::strcmp(e.first.second, attr) == 0)
            return *e.second;
    auto* obj = new pybind11::object(pybind11::module_::import(module).attr(attr));
    table.push_back({{module, attr}, obj});
    return *obj;
}

// A paohuzi_env.game.rules.Rules (or a preset name, via rules.as_rules) as a phz::Rules. Cached: by
// the object's identity first (a strong reference is kept, so an id is never reused), then by
// value (the frozen dataclass's hash/eq), so equal rule sets share one stable `Rules::id`
// (1, 2, ...). The reference form returns the cached struct (valid for the process) and avoids
// copying its strings; prefer it on hot paths.
const Rules& rules_ref_from_python(pybind11::handle rules);
Rules rules_from_python(pybind11::handle rules);

// The module functions about rule sets (rules_id, rule_fields, rules_key); bind_scoring calls it.
void bind_rules(pybind11::module_& m);

// A real paohuzi_env.game.scoring.Win dataclass instance: names a tuple of str, groups a tuple of
// (type str, tuple of ints), wang_as a tuple of (int, int).
pybind11::object win_to_python(const Win& w);

// A count vector over the 20 kinds: a sequence of 20 ints, each 0..max_count (ValueError else).
Counts counts_from_python(pybind11::handle seq, const char* what, int max_count = 4);

// Table groups: a sequence of (type str, cards) with type one of groups.MELD_TYPES and cards a
// sequence of kinds 0..19 forming that group (a sorted 句/绞 for chi; 3 or 4 of one kind),
// kept in the order given. ValueError naming the problem otherwise.
std::vector<Group> melds_from_python(pybind11::handle melds);

// A Group as Python's (type str, tuple of ints).
pybind11::tuple group_to_python(const Group& g);

}  // namespace phz
