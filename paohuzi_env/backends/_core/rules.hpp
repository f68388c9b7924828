// The rule switches of paohuzi_env.game.rules.Rules (docs/rules.md sections 9-10), as a plain struct.
//
// PHZ_RULE_FIELDS is the one list of the rule fields: the struct's members, the binding's
// conversion from Python (bind_rules.cpp, convert_rules), equality (memo ids) and the
// fingerprint `rules_key` (memo keys of the bots) are all derived from it. A new field of
// paohuzi_env.game.rules.Rules gets one line here (and a member below); the binding refuses to
// convert a Rules whose fields differ from this list, and tests/test_fast_rules.py checks that
// every field reaches the core.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace phz {

enum Family : int { F_HUAIHUA, F_CLASSIC, F_ZIPAI, F_HONGSHANZHANG, F_YONGZHOU };

// X(member, "Rules field", reader): reader names how the binding reads the Python value
// (bind_rules.cpp: read_<reader>). In the order of dataclasses.fields(Rules).
#define PHZ_RULE_FIELDS(X)                                      \
    X(name, "name", text)                                       \
    X(scoring, "scoring", family)                               \
    X(fans, "fans", fans)                                       \
    X(fan_level, "fan_level", fan_level)                        \
    X(fan_multiply, "fan_combine", fan_combine)                 \
    X(min_huxi, "min_huxi", integer)                            \
    X(pinghu_min_huxi, "pinghu_min_huxi", integer)              \
    X(zimo_15, "zimo_15", boolean)                              \
    X(zimo_tun, "zimo_tun", boolean)                            \
    X(tianhu_is_zimo, "tianhu_is_zimo", boolean)                \
    X(win_on_own_ti_wei, "win_on_own_ti_wei", boolean)          \
    X(hu_on_discard, "hu_on_discard", boolean)                  \
    X(chi_on_discard, "chi_on_discard", boolean)                \
    X(chou_rule_chi, "chou_rule", chou_rule)                    \
    X(chou_blocks_peng, "chou_blocks_peng", boolean)            \
    X(chou_when_chi_blocked, "chou_when_chi_blocked", boolean)  \
    X(dealer_rule_classic, "dealer_rule", dealer_rule)          \
    X(wang, "wang", integer)

using Fans = std::vector<std::pair<std::string, int>>;

struct Rules {
    std::string name = "huaihua";
    Family scoring = F_HUAIHUA;
    Fans fans;                  // (名堂 UTF-8 name, fan), as Rules.fans
    int fan_level = 2;          // classic: 0 none, 1 basic, 2 half (rules.FAN_LEVELS' index)
    bool fan_multiply = false;  // fan_combine == "multiply"
    int min_huxi = 15;
    int pinghu_min_huxi = 18;
    bool zimo_15 = true;
    bool zimo_tun = true;
    bool tianhu_is_zimo = false;
    bool win_on_own_ti_wei = false;
    bool hu_on_discard = false;
    bool chi_on_discard = true;
    bool chou_rule_chi = false;  // chou_rule == "chi"
    bool chou_blocks_peng = true;
    bool chou_when_chi_blocked = true;
    // dealer_rule == "classic". Not read by the core, which plays one hand: the dealer of the
    // next hand is engine.next_dealer's (Python) business. Kept so that the struct is the
    // whole rule set (equality, keys).
    bool dealer_rule_classic = false;
    int wang = 0;  // 王 in the deck: 0 or 2

    int fan(const std::string& n) const {  // Rules.fan(name); throws std::out_of_range if absent
        for (const auto& p : fans) if (p.first == n) return p.second;
        throw std::out_of_range("no fan " + n);
    }
    int id = 0;  // a process-unique id of this rule set (memo keys); set by the binding
                 // (0: evaluate() keys its memo on the contents instead). Not a rule field.
};

// The Python names of the rule fields, in PHZ_RULE_FIELDS order.
inline const std::vector<const char*>& rule_field_names() {
    static const std::vector<const char*> names = {
#define PHZ_RULE_NAME_(member, py, reader) py,
        PHZ_RULE_FIELDS(PHZ_RULE_NAME_)
#undef PHZ_RULE_NAME_
    };
    return names;
}

// Every rule field equal (the id aside).
inline bool same_rules(const Rules& a, const Rules& b) {
    return true
#define PHZ_RULE_SAME_(member, py, reader) && a.member == b.member
        PHZ_RULE_FIELDS(PHZ_RULE_SAME_)
#undef PHZ_RULE_SAME_
        ;
}

namespace rules_detail {
inline void key_part(std::string& s, const std::string& v) {  // length-prefixed: injective
    s += std::to_string(v.size()) + '#' + v;
}
inline void key_part(std::string& s, bool v) { s += v ? '1' : '0'; }
inline void key_part(std::string& s, int v) { s += std::to_string(v); }
inline void key_part(std::string& s, Family v) { s += std::to_string(int(v)); }
inline void key_part(std::string& s, const Fans& v) {
    for (const auto& f : v) {
        key_part(s, f.first);
        s += '=' + std::to_string(f.second) + ';';
    }
}
}  // namespace rules_detail

// A fingerprint of every rule field (the id aside): equal strings exactly for same_rules.
// Each field is written as "<python name>:<value>;" (strings length-prefixed, so that no two
// rule sets share a key).
inline std::string rules_key(const Rules& r) {
    std::string s;
#define PHZ_RULE_KEY_(member, py, reader) \
    s += py;                              \
    s += ':';                             \
    rules_detail::key_part(s, r.member);  \
    s += ';';
    PHZ_RULE_FIELDS(PHZ_RULE_KEY_)
#undef PHZ_RULE_KEY_
    return s;
}

}  // namespace phz
