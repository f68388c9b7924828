// The rule switches of paohuzi_env.rules.Rules (RULES.md sections 9-10), as a plain struct.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace phz {

enum Family : int { F_HUAIHUA, F_CLASSIC, F_ZIPAI, F_HONGSHANZHANG, F_YONGZHOU };

struct Rules {
    std::string name = "huaihua";
    Family scoring = F_HUAIHUA;
    std::vector<std::pair<std::string, int>> fans;  // (名堂 UTF-8 name, fan), as Rules.fans
    int fan_level = 2;        // classic: 0 none, 1 basic, 2 half
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
    bool dealer_rule_classic = false;  // dealer_rule == "classic"
    int wang = 0;               // 王 in the deck: 0 or 2

    int fan(const std::string& n) const {  // Rules.fan(name); throws std::out_of_range if absent
        for (const auto& p : fans) if (p.first == n) return p.second;
        throw std::out_of_range("no fan " + n);
    }
    int id = 0;  // a process-unique id of this rule set (memo keys); set by the binding
                 // (0: evaluate() keys its memo on the contents instead)
};

}  // namespace phz
