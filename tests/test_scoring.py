"""The hand evaluator: win detection, huxi, tun, 名堂 and score (docs/rules.md sections 8 and 9).

Every expected number below was computed by hand from docs/rules.md; the arithmetic is in the
comments. Notation: ``s1..s10`` = 一..十, ``b1..b10`` = 壹..拾; red = points 2, 7, 10 (R-CARD-2).

Huxi table (section 3): 碰 1/3, 坎 偎 臭偎 3/6, 跑 6/9, 提 9/12 (small/big); 句 一二三 二七十 3,
壹贰叁 贰柒拾 6, other 句 0; 绞 0; 将 0. tun = 1 + (huxi - 15) // 3, +1 for 自摸 (R-SCORE-1).
score = tun x fan, fan = sum of the fans of the 名堂 or 1 (R-SCORE-2).

Each hand fixture is a legal holding: 7 门子 (R-WIN-1), 21 cards without a 跑/提 and 20 + (number of
跑/提) cards with them, a 将 exactly when there is a 跑/提, at most 4 copies of a kind, and no kind
three times in the hand unless it is meant as a 坎 (R-GROUP-1).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from paohuzi_env import Win, evaluate_win, get_rules, load_rules
from paohuzi_env.game.cards import parse
from tests import holdings as hd
from tests.holdings import H, all_cards, check, evaluate

CONFIGS = Path(__file__).resolve().parent.parent / "configs" / "rules"

def ev(h: H, rules="huaihua", **flags) -> Win | None:
    return evaluate(h, rules, **flags)


def group_cards(w: Win) -> Counter:
    c: Counter = Counter()
    for _, cards in w.groups:
        c.update(cards)
    return c


# =============================================================================== fixtures
# ---- red-count hands (R-SCORE-3: red over the whole winning hand) -----------------------


# R11: + 绞 s10 s10 b10 (0, r3), s1 s2 s3 (3, r1), s6 s7 s8 (0, r1; win s8)
#      = 21 huxi, red 6+5 = 11, big 10, small 11.
R11 = H("s10 s10 b10 s1 s2 s3 s6 s7", hd.TR, "s8")

# ---- big / small count hands ------------------------------------------------------------

# S15: + b4 b5 b6 (0): 21 huxi, red 5, small 15, big 6.
S15 = H("s6 s6 s6 s2 s10 b1 b2 b3 b4 b5 b6", hd.TS, "s7")
# S16: + 绞 s5 b5 b5 (0): 21 huxi, red 5, small 16, big 5.
S16 = H("s6 s6 s6 s2 s10 b1 b2 b3 s5 b5 b5", hd.TS, "s7")

# ---- 碰碰胡 / 对对胡 hands (no 句, no 绞; 坎 count like 偎) ---------------------------------
# PP0: as PP with 碰 s3 (1) for 碰 s2: 23 huxi, red 0.
PP0 = H("s4 s4 s4 b5 b5 b5 s8 s8 s8 s1 s1",
        (("peng", "b1 b1 b1"), ("peng", "s3 s3 s3"), ("wei", "b9 b9 b9")), "s1")

# ---- a dealer's 21 dealt cards (天胡 on its own cards, R-START-2) ------------------------
# T1: 坎 b3 (6), 坎 b9 (6), s1 s2 s3 (3), s2 s7 s10 (3), s4 s5 s6, 绞 s8 s8 b8, b4 b5 b6 (0)
#     = 18 huxi; red s2 s2 s7 s10 = 4; big 3+3+1+3 = 10; small 11.
T1 = H("b3 b3 b3 b9 b9 b9 s1 s2 s3 s2 s7 s10 s4 s5 s6 s8 s8 b8 b4 b5 b6")

# ---- huxi boundary hands ----------------------------------------------------------------
# H14: 吃 b2b7b10 (6) + 偎 b9 (6) + 碰 s1 (1) + 碰 s3 (1) + 吃 s7s8s9 (0) = 14; red 4,
#      big 3+3+3 = 9, small 3+3+3+3 = 12.
H14 = H(hd.HZ, (("chi", "b2 b7 b10"), ("wei", "b9 b9 b9"), ("peng", "s1 s1 s1"),
             ("peng", "s3 s3 s3"), ("chi", "s7 s8 s9")), "s5")
# H20: 6 + 6 + 偎 b1 (6) + 碰 s1 (1) + 碰 s3 (1) = 20; red 3, big 12, small 9.
H20 = H(hd.HZ, (("chi", "b2 b7 b10"), ("wei", "b9 b9 b9"), ("wei", "b1 b1 b1"),
             ("peng", "s1 s1 s1"), ("peng", "s3 s3 s3")), "s5")
# H21: 6 + 6 + 偎 b1 (6) + 偎 s1 (3) + 吃 s7s8s9 (0) = 21; red 4, big 12, small 9.
H21 = H(hd.HZ, (("chi", "b2 b7 b10"), ("wei", "b9 b9 b9"), ("wei", "b1 b1 b1"),
             ("wei", "s1 s1 s1"), ("chi", "s7 s8 s9")), "s5")

FIXTURES = {
    "R0": hd.R0, "R1": hd.R1, "R9": hd.R9, "R10": hd.R10, "R11": R11, "R12": hd.R12, "R13": hd.R13,
    "B17": hd.B17, "B18": hd.B18, "B19": hd.B19, "S15": S15, "S16": S16, "S17": hd.S17,
    "PP": hd.PP, "PP0": PP0, "T1": T1,
    "H14": H14, "H15": hd.H15, "H17": hd.H17, "H18": hd.H18, "H20": H20, "H21": H21,
}


@pytest.mark.parametrize("key", FIXTURES)
def test_fixtures_are_legal_holdings(key):
    # R-CARD-1 / R-WIN-1: at most 4 copies; 21 cards (no 跑/提 in these fixtures) and 7 门子.
    h = FIXTURES[key]
    total = all_cards(h)
    assert max(total.values()) <= 4
    assert sum(total.values()) == 21
    n_hand_groups = 7 - len(h.melds)
    assert len(parse(h.hand)) + (h.win is not None) == 3 * n_hand_groups


# =============================================================================== section 8


def test_worked_example_huaihua_28():
    # docs/rules.md section 8: `huaihua`, 21 huxi, 自摸, 乌胡, 海底 -> (3+1) x (5+2) = 28.
    # R0 (21 huxi, no red card, see the fixture) with the winning card s5 drawn by the winner
    # from the last wall card (R-WIN-4, R-WIN-5): s5 is revealed and used loose in s4 s5 s6.
    # tun = 1 + (21-15)//3 = 3, +1 自摸 = 4; fans 乌胡 5 + 海底胡 2 = 7; 4 x 7 = 28.
    w = ev(hd.R0, self_drawn=True, haidi=True)
    check(w, 21, 4, 7, 28, ("乌胡", "海底胡", "自摸"), red=0, big=10, small=11)
    assert group_cards(w) == all_cards(hd.R0)




def test_worked_example_seed_002_sum_44():
    # tun 1 + (21-15)//3 = 3, +1 自摸 = 4; fans 海底胡 2 + 乌胡 5 + 碰碰胡 4 = 11; 4 x 11 = 44.
    w = ev(hd.E44, self_drawn=True, haidi=True)
    check(w, 21, 4, 11, 44, ("乌胡", "碰碰胡", "海底胡", "自摸"), red=0, big=6, small=15)
    assert ("jiang", (12, 12)) in w.groups
    assert group_cards(w) == all_cards(hd.E44)
    assert sum(all_cards(hd.E44).values()) == 21


def test_worked_example_seed_002_multiply_160():
    # fan_combine: multiply (番上番, R-SCORE-2): fans 2 x 5 x 4 = 40; 4 x 40 = 160.
    rules = get_rules("huaihua", fan_combine="multiply")
    w = ev(hd.E44, rules, self_drawn=True, haidi=True)
    check(w, 21, 4, 40, 160, ("乌胡", "碰碰胡", "海底胡", "自摸"))


def test_seed_001_own_example_with_haidi_3():
    # Seed 001: "21胡息自摸黑胡海底胡；分数=(3囤+1自摸)*(乌胡5+海底胡3)=32分". docs/rules.md keeps
    # 海底胡 2 (the table wins), but the seed's value is one override away: (3+1) x (5+3) = 32.
    rules = get_rules("huaihua", fans={"海底胡": 3})
    check(ev(hd.R0, rules, self_drawn=True, haidi=True), 21, 4, 8, 32, ("乌胡", "海底胡", "自摸"))


def test_multiply_rule_file_example():
    rules = load_rules(CONFIGS / "huaihua-multiply.yaml")
    # 番上番 with 海底胡 3: E44 -> 4 x (3 x 5 x 4) = 240.
    check(ev(hd.E44, rules, self_drawn=True, haidi=True), 21, 4, 60, 240,
          ("乌胡", "碰碰胡", "海底胡", "自摸"))


# =============================================================================== red counts
# R-SCORE-2 / R-SCORE-3 and the section 9 fan tables.
# Each Rxx hand has 21 huxi (tun 3), is no 碰碰胡/对对胡, big < 18 and small < 16, so only the
# red-count 名堂 apply.

RED_HANDS = [("R0", hd.R0, 0, 10, 11), ("R1", hd.R1, 1, 10, 11), ("R9", hd.R9, 9, 12, 9),
             ("R10", hd.R10, 10, 10, 11), ("R11", R11, 11, 10, 11), ("R12", hd.R12, 12, 12, 9),
             ("R13", hd.R13, 13, 12, 9)]


@pytest.mark.parametrize(
    "key, fan, names",
    [
        # huaihua: 乌胡 5 (red 0), 点胡 3 (red 1), 红胡 2+(red-10) (red >= 10).
        ("R0", 5, ("乌胡",)),
        ("R1", 3, ("点胡",)),
        ("R9", 1, ()),  # 平胡, 21 >= 18
        ("R10", 2, ("红胡",)),  # 2 + 0
        ("R11", 3, ("红胡",)),  # 2 + 1
        ("R12", 4, ("红胡",)),  # 2 + 2
        ("R13", 5, ("红胡",)),  # 2 + 3
    ],
)
def test_red_huaihua(key, fan, names):
    h, red, big, small = next((h, r, b, s) for k, h, r, b, s in RED_HANDS if k == key)
    check(ev(h, "huaihua"), 21, 3, fan, 3 * fan, names, red=red, big=big, small=small)


@pytest.mark.parametrize(
    "key, fan, names",
    [
        # huaihua-468: 乌胡 8, 点胡 6, 红胡 4+(red-10).
        ("R0", 8, ("乌胡",)),
        ("R1", 6, ("点胡",)),
        ("R9", 1, ()),
        ("R10", 4, ("红胡",)),
        ("R11", 5, ("红胡",)),
        ("R12", 6, ("红胡",)),
        ("R13", 7, ("红胡",)),
    ],
)
def test_red_huaihua_468(key, fan, names):
    h = FIXTURES[key]
    check(ev(h, "huaihua-468"), 21, 3, fan, 3 * fan, names)


@pytest.mark.parametrize(
    "key, fan, names",
    [
        # classic basic/half: 乌胡 5 (red 0), 点胡 3 (red 1), 红胡 2 (10 <= red < 13),
        # 红乌 4 (red >= 13).
        ("R0", 5, ("乌胡",)),
        ("R1", 3, ("点胡",)),
        ("R9", 1, ()),
        ("R10", 2, ("红胡",)),
        ("R11", 2, ("红胡",)),
        ("R12", 2, ("红胡",)),
        ("R13", 4, ("红乌",)),
    ],
)
@pytest.mark.parametrize("level", ["basic", "half"])
def test_red_classic(key, fan, names, level):
    rules = get_rules("classic", fan_level=level)
    check(ev(FIXTURES[key], rules), 21, 3, fan, 3 * fan, names)


@pytest.mark.parametrize("key", ["R0", "R1", "R9", "R10", "R12", "R13"])
def test_red_classic_level_none(key):
    # classic fan level `none`: 平胡 only, whatever the colours: fan 1, tun 3.
    rules = get_rules("classic", fan_level="none")
    check(ev(FIXTURES[key], rules), 21, 3, 1, 3, ())


@pytest.mark.parametrize(
    "key, fan, names",
    [
        # zipai: 乌胡 6, 真点胡 5 (red 1), 假点胡 4 (red 10), 红胡 4 (11..12),
        # 红乌 9+(red-13) (red >= 13); red 2..9 no 名堂.
        ("R0", 6, ("乌胡",)),
        ("R1", 5, ("真点胡",)),
        ("R9", 1, ()),
        ("R10", 4, ("假点胡",)),
        ("R11", 4, ("红胡",)),
        ("R12", 4, ("红胡",)),
        ("R13", 9, ("红乌",)),
    ],
)
def test_red_zipai(key, fan, names):
    check(ev(FIXTURES[key], "zipai"), 21, 3, fan, 3 * fan, names)


# =============================================================================== big / small
# R-SCORE-3 (all cards count) and the section 9 fan tables.


@pytest.mark.parametrize(
    "key, rules, fan, names",
    [
        # huaihua 十八大 4+(big-18) (big >= 18); 十六小 4+(small-16) (small >= 16).
        ("B17", "huaihua", 1, ()),
        ("B18", "huaihua", 4, ("十八大",)),
        ("B19", "huaihua", 5, ("十八大",)),
        ("S15", "huaihua", 1, ()),
        ("S16", "huaihua", 4, ("十六小",)),
        ("S17", "huaihua", 5, ("十六小",)),
        # huaihua-468: 十八大 8+n, 十六小 8+n.
        ("B17", "huaihua-468", 1, ()),
        ("B18", "huaihua-468", 8, ("十八大",)),
        ("B19", "huaihua-468", 9, ("十八大",)),
        ("S15", "huaihua-468", 1, ()),
        ("S16", "huaihua-468", 8, ("十六小",)),
        ("S17", "huaihua-468", 9, ("十六小",)),
        # zipai 大字胡 9+(big-18) (big >= 18), 小字胡 9+(small-16) (small >= 16).
        ("B17", "zipai", 1, ()),
        ("B18", "zipai", 9, ("大字胡",)),
        ("B19", "zipai", 10, ("大字胡",)),
        ("S15", "zipai", 1, ()),
        ("S16", "zipai", 9, ("小字胡",)),
        ("S17", "zipai", 10, ("小字胡",)),
        # classic has no big/small 名堂 (red 5 here: no colour 名堂 either).
        ("B19", "classic", 1, ()),
        ("S17", "classic", 1, ()),
    ],
)
def test_big_small(key, rules, fan, names):
    # every B/S hand: 21 huxi -> tun 3, red 5.
    w = ev(FIXTURES[key], rules)
    check(w, 21, 3, fan, 3 * fan, names)
    assert w.red == 5
    expected_big = {"B17": 17, "B18": 18, "B19": 19, "S15": 6, "S16": 5, "S17": 4}[key]
    assert (w.big, w.small) == (expected_big, 21 - expected_big)


def test_zipai_cap():
    # zipai: the growing fans are at most 封顶 (20). With 封顶 lowered to 9: B18's 大字胡 is
    # 9 (not capped), B19's would be 10 and is capped to 9.
    rules = get_rules("zipai", fans={"封顶": 9})
    check(ev(hd.B18, rules), 21, 3, 9, 27, ("大字胡",))
    check(ev(hd.B19, rules), 21, 3, 9, 27, ("大字胡",))
    # R13's 红乌 9 stays; a cap of 8 clips it.
    check(ev(hd.R13, get_rules("zipai", fans={"封顶": 8})), 21, 3, 8, 24, ("红乌",))


# =============================================================================== 碰碰胡 / 对对胡
# Section 9 (碰碰胡 / 对对胡: no 句 and no 绞 among the 7 门子), R-WIN-1, R-WIN-2.


@pytest.mark.parametrize(
    "key, rules, fan, names",
    [
        # PP: 23 huxi -> tun 1 + 8//3 = 3; red 3.
        ("PP", "huaihua", 4, ("碰碰胡",)),
        ("PP", "huaihua-468", 8, ("碰碰胡",)),
        ("PP", get_rules("classic", fan_level="half"), 4, ("对对胡",)),
        ("PP", get_rules("classic", fan_level="basic"), 1, ()),  # no 对对胡 in basic
        ("PP", get_rules("classic", fan_level="none"), 1, ()),
        ("PP", "zipai", 6, ("对对胡",)),
        # PP0: also no red card.
        ("PP0", "huaihua", 9, ("乌胡", "碰碰胡")),  # 5 + 4
        ("PP0", "huaihua-468", 16, ("乌胡", "碰碰胡")),  # 8 + 8
        ("PP0", "classic", 10, ("乌胡", "对对胡")),  # seed 004: 乌胡 with 对对胡 = 10 together
        ("PP0", get_rules("classic", fan_level="basic"), 5, ("乌胡",)),
        ("PP0", get_rules("classic", fan_level="none"), 1, ()),
        ("PP0", "zipai", 12, ("乌胡", "对对胡")),  # 6 + 6
    ],
)
def test_pengpeng(key, rules, fan, names):
    w = ev(FIXTURES[key], rules)
    check(w, 23, 3, fan, 3 * fan, names)
    assert ("peng", (0, 0, 0)) in w.groups  # the 碰-like triple s1 s1 + s1 (R-WIN-2)
    assert not any(t in ("ju", "jiao", "chi") for t, _ in w.groups)


def test_pengpeng_self_drawn_reads_a_wei():
    # PP with the s1 drawn by the winner itself: with a pair in hand the draw is read only as
    # the forced 偎 s1 (3) (R-FLOW-2), not as a 碰 (1): huxi 23 - 1 + 3 = 25,
    # tun 1 + 10//3 = 4, +1 自摸 = 5; 碰碰胡 4 -> 20.
    w = ev(hd.PP, self_drawn=True)
    check(w, 25, 5, 4, 20, ("碰碰胡", "自摸"))
    assert ("wei", (0, 0, 0)) in w.groups


def test_kan_counts_like_wei_for_pengpeng():
    # Section 9 Decision: 坎 count like 偎 for 碰碰胡. PP holds three 坎 and is still 碰碰胡
    # (above); a hand 句 anywhere spoils it: R0 (坎 + 句 + 绞) is no 碰碰胡.
    assert "碰碰胡" not in ev(hd.R0).names


def test_table_chi_spoils_pengpeng():
    # 碰碰胡 needs no 句/绞 among all 7 门子, table groups included. PP with a table 吃 s2 s2 b2
    # (绞, 0) instead of its 碰 s2 (1): huxi 23 - 1 = 22 -> tun 3; red 3 (s2 s2 b2);
    # no 碰碰胡 -> 平胡 at 22 >= 18: fan 1.
    h = H(hd.PP.hand, (("peng", "b1 b1 b1"), ("chi", "s2 s2 b2"), ("wei", "b9 b9 b9")), "s1")
    check(ev(h), 22, 3, 1, 3, ())


# =============================================================================== 海底
# R-WIN-5 (海底 = the winning card is the last wall card) and section 9.


@pytest.mark.parametrize(
    "key, rules, fan, names",
    [
        # R9: 21 huxi, tun 3, no other 名堂.
        ("R9", "huaihua", 2, ("海底胡",)),
        ("R9", "huaihua-468", 6, ("海底胡",)),
        ("R9", "classic", 1, ("海底",)),  # classic half: 海底 with no other fan-bearing 名堂 = 1
        ("R9", get_rules("classic", fan_level="basic"), 1, ()),  # basic has no 海底
        ("R9", "zipai", 6, ("海底",)),  # zipai: 6 alone
        # R0 (乌胡): 海底 next to another fan-bearing 名堂.
        ("R0", "huaihua", 7, ("乌胡", "海底胡")),  # 5 + 2
        ("R0", "classic", 7, ("乌胡", "海底")),  # 5 + 2
        ("R0", "zipai", 10, ("乌胡", "海底")),  # 6 + 4
        # PP0 (乌胡 对对胡) in classic: 10 + 2 = 12.
        ("PP0", "classic", 12, ("乌胡", "对对胡", "海底")),
    ],
)
def test_haidi(key, rules, fan, names):
    h = FIXTURES[key]
    w = ev(h, rules, haidi=True)
    huxi = 23 if key == "PP0" else 21
    check(w, huxi, 3, fan, 3 * fan, names)


def test_classic_multiply():
    # classic with 番上番: PP0 haidi -> (乌胡+对对胡 = 10) x 海底 2 = 20; tun 3 -> 60.
    rules = get_rules("classic", fan_combine="multiply")
    check(ev(PP0, rules, haidi=True), 23, 3, 20, 60, ("乌胡", "对对胡", "海底"))


# =============================================================================== 天胡 / 地胡
# R-START-1 (forced), R-START-2 (亮张 / the dealer's own cards) and section 9.


@pytest.mark.parametrize(
    "rules, tun, fan, names",
    [
        # T1: 18 huxi; the dealer wins on its own 21 dealt cards (R-START-2).
        # huaihua: 天胡 4, tun 1 + 3//3 = 2, no 自摸 tun (天胡不算自摸).
        ("huaihua", 2, 4, ("天胡",)),
        ("huaihua-468", 2, 8, ("天胡",)),
        # classic: 天胡 has no fan of its own and counts as 自摸: tun 2+1 = 3; red 4 -> fan 1.
        ("classic", 3, 1, ("天胡", "自摸")),
        (get_rules("classic", fan_level="none"), 3, 1, ("天胡", "自摸")),
        # zipai: huxi x4 = 72 for tun: 1 + (72-15)//3 = 20; fan 1; Win.huxi stays 18.
        ("zipai", 20, 1, ("天胡",)),
    ],
)
def test_tianhu_on_dealt_cards(rules, tun, fan, names):
    w = ev(T1, rules, tianhu=True)
    check(w, 18, tun, fan, tun * fan, names, red=4, big=10, small=11)
    assert len(w.groups) == 7


def test_tianhu_is_not_zimo_in_huaihua():
    # Section 9 huaihua: 天胡 does not count as 自摸, even when flagged self-drawn.
    check(ev(T1, tianhu=True, self_drawn=True), 18, 2, 4, 8, ("天胡",))


def test_dealt_hand_without_tianhu_flag():
    # The same 21 cards without the flag: 18 huxi 平胡 -> tun 2, fan 1.
    check(ev(T1), 18, 2, 1, 2, ())


@pytest.mark.parametrize(
    "rules, fan, names",
    [
        # R9 (21 huxi, tun 3, no other 名堂) won as 地胡 (the engine decides when).
        ("huaihua", 3, ("地胡",)),
        ("huaihua-468", 6, ("地胡",)),
        ("classic", 1, ()),  # classic: no 地胡
        ("zipai", 1, ()),  # zipai names no 地胡
    ],
)
def test_dihu(rules, fan, names):
    check(ev(hd.R9, rules, dihu=True), 21, 3, fan, 3 * fan, names)


def test_tianhu_excludes_dihu():
    # Section 9: 地胡 ... "and it is no 天胡".
    check(ev(T1, tianhu=True, dihu=True), 18, 2, 4, 8, ("天胡",))


def test_dihu_is_a_mingtang_for_the_15_minimum():
    # H15 (15 huxi) wins in huaihua as 地胡: tun 1, fan 3.
    check(ev(hd.H15, dihu=True), 15, 1, 3, 3, ("地胡",))


# ---- forced 天胡 (R-START-1) -------------------------------------------------------------

# F3T: a dealer's 21 cards with three four-of-a-kinds: 提 b1 (12), 提 s3 (9), 提 s5 (9) = 30;
#      the other 9 cards s1 s4 s7 s9 b3 b4 b6 b8 b10 form no group (they add 0).
#      red s7 b10 = 2; big 4+5 = 9; small 8+4 = 12.
F3T = H("b1 b1 b1 b1 s3 s3 s3 s3 s5 s5 s5 s5 s1 s4 s7 s9 b3 b4 b6 b8 b10")
# F5K: five 坎: s1 (3), s3 (3), s4 (3), b5 (6), b8 (6) = 21; rest s2 s6 s9 b1 b4 b10 no group.
#      red s2 b10 = 2; big 9; small 12.
F5K = H("s1 s1 s1 s3 s3 s3 s4 s4 s4 b5 b5 b5 b8 b8 b8 s2 s6 s9 b1 b4 b10")
# F2T3K: two four-of-a-kinds counted with three 坎 (a four may count as a 坎):
#      提 s1 (9), 提 b2 (12), 坎 s4 (3), 坎 s6 (3), 坎 b9 (6) = 33; rest s3 s5 b6 b8 no group.
#      red b2 x4 = 4; big 4+3+2 = 9; small 4+6+2 = 12.
F2T3K = H("s1 s1 s1 s1 b2 b2 b2 b2 s4 s4 s4 s6 s6 s6 b9 b9 b9 s3 s5 b6 b8")
# F3T20: a non-dealer's 20 cards: 提 s1 (9), 提 b3 (12), 提 s9 (9) = 30; the rest decomposes
#      as s2 s7 s10 (3) + b4 b5 b6 (0) + 将 s5 s5 -> 33. red 3; big 7; small 13.
F3T20 = H("s1 s1 s1 s1 b3 b3 b3 b3 s9 s9 s9 s9 s2 s7 s10 b4 b5 b6 s5 s5")


@pytest.mark.parametrize(
    "h, rules, huxi, tun, fan, names",
    [
        # F3T: 30 huxi -> tun 1 + 15//3 = 6.
        (F3T, "huaihua", 30, 6, 4, ("天胡",)),
        (F3T, "huaihua-468", 30, 6, 8, ("天胡",)),
        (F3T, "classic", 30, 7, 1, ("天胡", "自摸")),  # 天胡 counts as 自摸: 6+1
        (F3T, "zipai", 30, 36, 1, ("天胡",)),  # 30 x 4 = 120 -> 1 + 105//3 = 36
        # F5K: 21 huxi -> tun 3.
        (F5K, "huaihua", 21, 3, 4, ("天胡",)),
        (F5K, "classic", 21, 4, 1, ("天胡", "自摸")),
        (F5K, "zipai", 21, 24, 1, ("天胡",)),  # 84 -> 1 + 69//3 = 24
        # F2T3K: 33 huxi -> tun 1 + 18//3 = 7.
        (F2T3K, "huaihua", 33, 7, 4, ("天胡",)),
        # F3T20: 33 huxi -> tun 7.
        (F3T20, "huaihua", 33, 7, 4, ("天胡",)),
    ],
)
def test_forced_tianhu(h, rules, huxi, tun, fan, names):
    w = ev(h, rules, tianhu=True)
    check(w, huxi, tun, fan, tun * fan, names)
    assert group_cards(w) == all_cards(h)


def test_forced_tianhu_facts():
    w = ev(F3T, tianhu=True)
    assert (w.red, w.big, w.small) == (2, 9, 12)
    assert sum(1 for t, _ in w.groups if t == "ti") == 3
    w = ev(F5K, tianhu=True)
    assert (w.red, w.big, w.small) == (2, 9, 12)
    assert sum(1 for t, _ in w.groups if t == "kan") == 5
    w = ev(F3T20, tianhu=True)
    assert ("jiang", (4, 4)) in w.groups


@pytest.mark.parametrize("h", [F3T, F5K, F2T3K, F3T20])
def test_forced_hands_do_not_win_without_the_flag(h):
    # None of them decomposes into 7 门子: without 天胡 they are no win.
    assert ev(h) is None


# F7K: a dealer dealt seven 坎: s1 (3), s2 (3), s3 (3), s4 (3), b5 (6), b6 (6), b7 (6) = 30 huxi.
#      It is a forced 天胡 (>= 5 坎) that also decomposes into 7 门子 with no 句/绞, so 碰碰胡
#      applies (R-START-1: "名堂 that need a decomposition apply only if the whole hand
#      decomposes"). red s2 x3 + b7 x3 = 6; big 9; small 12.
F7K = H("s1 s1 s1 s2 s2 s2 s3 s3 s3 s4 s4 s4 b5 b5 b5 b6 b6 b6 b7 b7 b7")


@pytest.mark.parametrize(
    "rules, tun, fan, names",
    [
        # 30 huxi -> tun 1 + 15//3 = 6.
        ("huaihua", 6, 8, ("天胡", "碰碰胡")),  # 4 + 4
        ("huaihua-468", 6, 16, ("天胡", "碰碰胡")),  # 8 + 8
        ("classic", 7, 4, ("天胡", "对对胡", "自摸")),  # 天胡 no fan, counts as 自摸
        ("zipai", 36, 6, ("天胡", "对对胡")),  # tun from 120: 1 + 105//3 = 36
    ],
)
def test_forced_tianhu_that_decomposes_gets_pengpeng(rules, tun, fan, names):
    w = ev(F7K, rules, tianhu=True)
    check(w, 30, tun, fan, tun * fan, names, red=6, big=9, small=12)
    assert sum(1 for t, _ in w.groups if t == "kan") == 7


def test_forced_tianhu_without_decomposition_has_no_pengpeng():
    # F5K's five 坎 and six loose cards: no decomposition, so no 碰碰胡 although no 句/绞 was
    # formed (R-START-1).
    assert "碰碰胡" not in ev(F5K, tianhu=True).names


def test_four_groups_are_not_a_forced_tianhu():
    # R-START-1: 2 four-of-a-kinds + 2 坎 = 4 groups (< 5, and < 3 fours): no forced win.
    h = H("s1 s1 s1 s1 b2 b2 b2 b2 s4 s4 s4 s6 s6 s6 s3 s5 b6 b8 s8 s9 b10")
    assert ev(h, tianhu=True) is None


# =============================================================================== 耍猴 (zipai)
# Section 9 zipai: 耍猴 = the winner held a single hand card before the winning card.

# SH: table 跑 b1 (9), 碰 b4 (3), 吃 b2 b7 b10 (6), 偎 s9 (3), 吃 s1 s2 s3 (3), 吃 s6 s7 s8 (0);
#     one hand card s5 and the winning s5 make the 将 -> 24 huxi. red 3+1+1 = 5; big 10;
#     small 11; 21 cards with one 跑.
SH = H("s5", (("pao", "b1 b1 b1 b1"), ("peng", "b4 b4 b4"), ("chi", "b2 b7 b10"),
              ("wei", "s9 s9 s9"), ("chi", "s1 s2 s3"), ("chi", "s6 s7 s8")), "s5")
# SH2: table 跑 b1 (9), 碰 b4 (3), 偎 s9 (3), 碰 s3 (1), 碰 b5 (3), 碰 s6 (1); hand s8 + s8
#      -> 20 huxi, no red, no 句/绞. big 10; small 11.
SH2 = H("s8", (("pao", "b1 b1 b1 b1"), ("peng", "b4 b4 b4"), ("wei", "s9 s9 s9"),
               ("peng", "s3 s3 s3"), ("peng", "b5 b5 b5"), ("peng", "s6 s6 s6")), "s8")


def test_shuahou_zipai():
    # 24 huxi -> tun 1 + 9//3 = 4; no fan-bearing 名堂 -> 1, x6 for 耍猴 = 6; 24.
    check(ev(SH, "zipai"), 24, 4, 6, 24, ("耍猴",), red=5, big=10, small=11)
    # self-drawn: tun 5 -> 30.
    check(ev(SH, "zipai", self_drawn=True), 24, 5, 6, 30, ("耍猴", "自摸"))


def test_shuahou_multiplies_the_fan_total():
    # SH2: 20 huxi -> tun 2; (乌胡 6 + 对对胡 6) x 6 = 72; 2 x 72 = 144.
    check(ev(SH2, "zipai"), 20, 2, 72, 144, ("乌胡", "对对胡", "耍猴"))


def test_shuahou_is_zipai_only():
    # huaihua: SH is a 24-huxi 平胡 (tun 4); SH2 is 乌胡 5 + 碰碰胡 4 = 9 at tun 2.
    check(ev(SH), 24, 4, 1, 4, ())
    check(ev(SH2), 20, 2, 9, 18, ("乌胡", "碰碰胡"))


# =============================================================================== huxi boundaries
# R-WIN-3 (min_huxi 15 + the preset's conditions), R-SCORE-1 (tun), section 9.


@pytest.mark.parametrize("rules", ["huaihua", "huaihua-468", "classic", "zipai"])
def test_14_huxi_never_wins(rules):
    # R-WIN-3: every win needs 15 huxi, with 名堂 or 自摸 or not.
    assert ev(H14, rules) is None
    assert ev(H14, rules, haidi=True) is None
    assert ev(H14, rules, self_drawn=True) is None
    assert ev(H14, rules, dihu=True) is None


def test_huaihua_pinghu_boundaries():
    # huaihua 平胡 needs 18 huxi (section 9). Hands have red 3 or 4, no 名堂.
    assert ev(hd.H15) is None
    assert ev(hd.H17) is None
    check(ev(hd.H18), 18, 2, 1, 2, (), red=4, big=12, small=9)  # tun 1 + 3//3 = 2
    check(ev(H20), 20, 2, 1, 2, (), red=3, big=12, small=9)  # tun 1 + 5//3 = 2
    check(ev(H21), 21, 3, 1, 3, (), red=4, big=12, small=9)  # tun 1 + 6//3 = 3


def test_huaihua_15_with_a_mingtang():
    # >= 15 with at least one 名堂: 海底胡 2 -> tun 1 x 2 = 2; H17: tun 1 + 2//3 = 1.
    check(ev(hd.H15, haidi=True), 15, 1, 2, 2, ("海底胡",), red=3, big=9, small=12)
    check(ev(hd.H17, haidi=True), 17, 1, 2, 2, ("海底胡",))


def test_huaihua_15_as_zimo():
    # >= 15 as 自摸 when zimo_15 (default on): tun 1 + 1 = 2, fan 1.
    check(ev(hd.H15, self_drawn=True), 15, 2, 1, 2, ("自摸",))
    check(ev(hd.H17, self_drawn=True), 17, 2, 1, 2, ("自摸",))
    check(ev(hd.H18, self_drawn=True), 18, 3, 1, 3, ("自摸",))


def test_huaihua_15_as_zimo_switched_off():
    rules = get_rules("huaihua", zimo_15=False)
    assert ev(hd.H15, rules, self_drawn=True) is None
    assert ev(hd.H17, rules, self_drawn=True) is None
    # 18 is a 平胡 anyway; and a 名堂 still opens the 15 door.
    check(ev(hd.H18, rules, self_drawn=True), 18, 3, 1, 3, ("自摸",))
    check(ev(hd.H15, rules, self_drawn=True, haidi=True), 15, 2, 2, 4, ("海底胡", "自摸"))


def test_huaihua_no_zimo15_rule_file():
    rules = load_rules(CONFIGS / "huaihua-no-zimo15.yaml")
    assert ev(hd.H15, rules, self_drawn=True) is None


def test_zimo_tun_off():
    # R-WIN-4: 自摸 adds a tun "where the preset says so".
    rules = get_rules("huaihua", zimo_tun=False)
    check(ev(hd.R9, rules, self_drawn=True), 21, 3, 1, 3, ())


@pytest.mark.parametrize("rules", ["classic", "zipai"])
def test_15_huxi_pinghu_wins_in_classic_and_zipai(rules):
    # classic: >= 15 huxi; zipai inherits min 15 (pinghu 15).
    check(ev(hd.H15, rules), 15, 1, 1, 1, ())
    check(ev(hd.H17, rules), 17, 1, 1, 1, ())
    check(ev(hd.H18, rules), 18, 2, 1, 2, ())
    check(ev(hd.H15, rules, self_drawn=True), 15, 2, 1, 2, ("自摸",))


def test_huaihua_468_pinghu_boundaries():
    # "as huaihua": 平胡 from 18.
    assert ev(hd.H17, "huaihua-468") is None
    check(ev(hd.H18, "huaihua-468"), 18, 2, 1, 2, ())
    check(ev(hd.H15, "huaihua-468", haidi=True), 15, 1, 6, 6, ("海底胡",))


@pytest.mark.parametrize(
    "h, huxi, tun",
    [(hd.H15, 15, 1), (hd.H17, 17, 1), (hd.H18, 18, 2), (H20, 20, 2), (H21, 21, 3)],
)
def test_tun_formula(h, huxi, tun):
    # R-SCORE-1: 15 -> 1, 18 -> 2, 20 -> 2, 21 -> 3 (seeds 000/002/004); classic lets 平胡 show it.
    check(ev(h, "classic"), huxi, tun, 1, tun, ())


# =============================================================================== R-WIN-1 shapes

# Table 吃 b2b7b10 (6), 偎 b9 (6), 偎 b1 (6), 碰 s8 (1) = 19 huxi, red 3, big 9, small 3.
T19 = (("chi", "b2 b7 b10"), ("wei", "b9 b9 b9"), ("wei", "b1 b1 b1"), ("peng", "s8 s8 s8"))


def test_a_kan_is_never_split():
    # R-GROUP-1 / R-WIN-1: hand s1 s2 s2 s3 s3 s3 s4 s4 + s5 would be s1s2s3 s2s3s4 s3s4s5 if
    # the 坎 s3 could be split; it cannot, and s1 s2 s2 s4 s4 s5 form no groups -> no win.
    assert ev(H("s1 s2 s2 s3 s3 s3 s4 s4", T19, "s5")) is None
    assert ev(H("s1 s2 s2 s3 s3 s3 s4 s4", T19, "s5"), self_drawn=True) is None


def test_the_same_cards_win_when_the_third_copy_is_the_winning_card():
    # Control: hand s1 s2 s2 s3 s3 s4 s4 s5 (a pair of s3, no 坎) + winning s3:
    # s1s2s3 (3) + s2s3s4 (0) + s3s4s5 (0) -> 19 + 3 = 22, tun 1 + 7//3 = 3; red 3+2 = 5.
    check(ev(H("s1 s2 s2 s3 s3 s4 s4 s5", T19, "s3")), 22, 3, 1, 3, (), red=5, big=9, small=12)


def test_pao_without_a_pair_is_no_win():
    # R-WIN-1: with a 跑/提 there must be exactly one 将. Table 跑 b1 (9), 偎 b9, 吃 b2b7b10,
    # 碰 s8 + hand s1s2s3, s4s5s6, b4b5b6 is 7 门子 but has no 将.
    h = H("s1 s2 s3 s4 s6 b4 b5 b6",
          (("pao", "b1 b1 b1 b1"), ("wei", "b9 b9 b9"), ("chi", "b2 b7 b10"),
           ("peng", "s8 s8 s8")), "s5")
    assert ev(h) is None


def test_pair_without_pao_is_no_win():
    # R-WIN-1: no 跑/提 -> no pair. 4 table triples + s1s2s3 + s4s5s6 + pair b5 b5 (20 cards).
    h = H("s1 s2 s3 s4 s6 b5 b5", T19, "s5")
    assert ev(h) is None
    assert ev(h, self_drawn=True) is None


def test_pair_with_pao_wins():
    # Control: the same hand with the table 偎 b9 turned into a 跑 b9 (9): the pair is the 将.
    # huxi 9 + 6 + 6 + 1 + 3 + 0 + 0 = 25 -> tun 1 + 10//3 = 4; red 3+1 = 4; big 4+3+3+2 = 12.
    h = H("s1 s2 s3 s4 s6 b5 b5",
          (("chi", "b2 b7 b10"), ("pao", "b9 b9 b9 b9"), ("wei", "b1 b1 b1"),
           ("peng", "s8 s8 s8")), "s5")
    w = ev(h)
    check(w, 25, 4, 1, 4, (), red=4, big=12, small=9)
    assert ("jiang", (14, 14)) in w.groups


def test_wrong_number_of_groups():
    # 6 门子 only (T19 + s1 s2 s3 + s4 s5 s6 would need a 7th group): no win.
    assert ev(H("s1 s2 s3 s4 s6", T19, "s5")) is None
    # 8 门子 (too many cards): no win.
    assert ev(H("s1 s2 s3 s4 s6 b4 b5 b6 s7 s8 s9", T19, "s5")) is None


def test_seven_groups_without_win_card_need_tianhu_or_not():
    # win_card None evaluates the holding as it is (the dealer's 21 cards).
    w = ev(H(T1.hand))
    assert w is not None and w.huxi == 18


# =============================================================================== readings
# R-WIN-2 (readings of the winning card), R-FLOW-2 (forced 偎/提), R-FLOW-3.2 (跑).


# PAOHU: table 吃 b2b7b10 (6), 偎 b1 (6), 碰 s8 (1), 吃 s1s2s3 (3); hand 坎 b3, pair s5 s5,
#        s7 s8 s9 (0). The b3 shown by another player: the 坎 becomes a 跑 b3 (9) and
#        s5 s5 is the 将 -> 6+6+1+3+9+0+0 = 25. red 3+1+1 = 5; big 3+3+4 = 10; small 11.
PAOHU_MELDS = (("chi", "b2 b7 b10"), ("wei", "b1 b1 b1"), ("peng", "s8 s8 s8"),
               ("chi", "s1 s2 s3"))
PAOHU = H("b3 b3 b3 s5 s5 s7 s8 s9", PAOHU_MELDS, "b3")


def test_paohu_from_a_kan():
    # R-WIN-2 跑胡: tun 1 + 10//3 = 4, 平胡 -> 4. The loose reading (b3 next to the 坎, no 将
    # allowed without a 跑) does not decompose, so only the 跑 reading wins.
    w = ev(PAOHU)
    check(w, 25, 4, 1, 4, (), red=5, big=10, small=11)
    assert ("pao", (12, 12, 12, 12)) in w.groups
    assert ("jiang", (4, 4)) in w.groups
    assert group_cards(w) == all_cards(PAOHU)


def test_self_drawn_card_on_a_kan_is_a_ti():
    # R-FLOW-2: the winner's own draw on its 坎 is read only as the forced 提 b3 (12):
    # 6+6+1+3+12 = 28 -> tun 1 + 13//3 = 5, +1 自摸 = 6.
    w = ev(PAOHU, self_drawn=True)
    check(w, 28, 6, 1, 6, ("自摸",))
    assert ("ti", (12, 12, 12, 12)) in w.groups


def test_paohu_from_a_table_wei():
    # 偎 b3 on the table (6) and 坎 b1 in the hand (6) instead: the same 25 huxi as 跑 b3 (9).
    melds = (("chi", "b2 b7 b10"), ("wei", "b3 b3 b3"), ("peng", "s8 s8 s8"), ("chi", "s1 s2 s3"))
    h = H("b1 b1 b1 s5 s5 s7 s8 s9", melds, "b3")
    w = ev(h)
    check(w, 25, 4, 1, 4, ())
    assert ("pao", (12,) * 4) in w.groups
    # self-drawn: the 偎 becomes a 提 (12): 28 -> tun 6 with 自摸.
    w = ev(h, self_drawn=True)
    check(w, 28, 6, 1, 6, ("自摸",))
    assert ("ti", (12,) * 4) in w.groups
    # a 臭偎 behaves like a 偎.
    h2 = H(h.hand, (("chi", "b2 b7 b10"), ("chou_wei", "b3 b3 b3"), ("peng", "s8 s8 s8"),
                    ("chi", "s1 s2 s3")), "b3")
    check(ev(h2), 25, 4, 1, 4, ())
    check(ev(h2, self_drawn=True), 28, 6, 1, 6, ("自摸",))


def test_paohu_from_a_table_peng():
    # 碰 b3 on the table (3): a drawn b3 makes it a 跑 b3 (9) whoever drew it (R-FLOW-3.2):
    # 6 + 9 + 1 + 3 + 坎 b1 6 = 25 -> tun 4; drawn by the winner: +1 自摸 -> 5.
    melds = (("chi", "b2 b7 b10"), ("peng", "b3 b3 b3"), ("peng", "s8 s8 s8"), ("chi", "s1 s2 s3"))
    h = H("b1 b1 b1 s5 s5 s7 s8 s9", melds, "b3")
    w = ev(h)
    check(w, 25, 4, 1, 4, ())
    assert ("pao", (12,) * 4) in w.groups
    w = ev(h, self_drawn=True)
    check(w, 25, 5, 1, 5, ("自摸",))
    assert ("pao", (12,) * 4) in w.groups


def test_po_pao_hu_card_used_loose():
    # R-WIN-2 破跑胡 (seed 000): the s3 that would make the 坎 s3 a 跑 is won on, used loose.
    # Table 吃 b2b7b10 (6), 偎 b9 (6), 碰 b1 (3), 碰 s8 (1) = 16; hand 坎 s3 (3), s1 s2 + s3 (3),
    # s4 s5 s6 (0) -> 22, tun 3. The 跑 reading would need a 将 that s1 s2 s4 s5 s6 lack.
    melds = (("chi", "b2 b7 b10"), ("wei", "b9 b9 b9"), ("peng", "b1 b1 b1"), ("peng", "s8 s8 s8"))
    h = H("s3 s3 s3 s1 s2 s4 s5 s6", melds, "s3")
    w = ev(h)
    check(w, 22, 3, 1, 3, (), red=4, big=9, small=12)
    assert ("kan", (2, 2, 2)) in w.groups
    assert ("ju", (0, 1, 2)) in w.groups
    assert not any(t == "pao" for t, _ in w.groups)


def test_po_pao_hu_on_a_table_peng():
    # R-WIN-2 破跑胡 on a 碰: table 碰 s3 (1); the winner draws s3 and uses it in s1 s2 s3
    # instead of making the 跑.
    # 吃 b2b7b10 6 + 偎 b9 6 + 碰 b1 3 + 碰 s3 1 + s1s2s3 3 + s4s5s6 0 + 坎 s8 3 = 22,
    # tun 3 + 1 自摸 = 4. (跑 s3 would need a 将.)
    melds = (("chi", "b2 b7 b10"), ("wei", "b9 b9 b9"), ("peng", "b1 b1 b1"), ("peng", "s3 s3 s3"))
    h = H("s1 s2 s4 s5 s6 s8 s8 s8", melds, "s3")
    w = ev(h, self_drawn=True)
    check(w, 22, 4, 1, 4, ("自摸",), red=4, big=9, small=12)
    assert ("peng", (2, 2, 2)) in w.groups


def test_best_reading_counts():
    # R-WIN-2: all readings are tried. Hand 坎 s3, b3 b3, s4 s5 s6 + winning s3 from another
    # player; table 吃 b2b7b10 (6), 偎 b9 (6), 碰 b1 (3), 吃 s7s8s9 (0) = 15.
    #   跑 reading: 跑 s3 (6) + 将 b3 b3 + s4s5s6 -> 21 huxi, tun 3.
    #   破跑 reading: 坎 s3 (3) + 绞 s3 b3 b3 (0) + s4s5s6 -> 18 huxi, tun 2.
    # The 跑 reading scores more: 21, tun 3, 平胡 -> 3. red 3+1 = 4; big 3+3+3+2 = 11.
    melds = (("chi", "b2 b7 b10"), ("wei", "b9 b9 b9"), ("peng", "b1 b1 b1"), ("chi", "s7 s8 s9"))
    h = H("s3 s3 s3 b3 b3 s4 s5 s6", melds, "s3")
    w = ev(h)
    check(w, 21, 3, 1, 3, (), red=4, big=11, small=10)
    assert ("pao", (2, 2, 2, 2)) in w.groups
    assert ("jiang", (12, 12)) in w.groups


def test_self_drawn_pair_is_read_only_as_wei():
    # Table 吃 b2b7b10 (6), 偎 b9 (6), 偎 b1 (6), 碰 s8 (1) = 19; hand s5 s5 s4 s6 b5 s1 s2 s3.
    # Winning s5 from another player: s4s5s6 (0) + 绞 s5 s5 b5 (0) + s1s2s3 (3) = 22 -> tun 3.
    h = H("s5 s5 s4 s6 b5 s1 s2 s3", T19, "s5")
    check(ev(h), 22, 3, 1, 3, (), red=4, big=10, small=11)
    # Drawn by the winner: the pair + draw is the forced 偎 s5 (R-FLOW-2), leaving s4 s6 b5
    # s1 s2 s3 that do not decompose: no win.
    assert ev(h, self_drawn=True) is None


def test_self_drawn_wei_versus_peng_like_triple():
    # Table 吃 b2b7b10 (6), 偎 b9 (6), 碰 b1 (3), 碰 s8 (1) = 16; hand s5 s5, s1 s2 s3 (3),
    # b4 b5 b6 (0); red 3+1 = 4, big 12, small 9.
    melds = (("chi", "b2 b7 b10"), ("wei", "b9 b9 b9"), ("peng", "b1 b1 b1"), ("peng", "s8 s8 s8"))
    h = H("s5 s5 s1 s2 s3 b4 b5 b6", melds, "s5")
    # another player's s5: 碰-like triple s5 (1) -> 16+1+3 = 20, tun 2 -> 2.
    w = ev(h)
    check(w, 20, 2, 1, 2, (), red=4, big=12, small=9)
    assert ("peng", (4, 4, 4)) in w.groups
    # own draw: 偎 s5 (3) -> 22, tun 3 + 1 = 4.
    w = ev(h, self_drawn=True)
    check(w, 22, 4, 1, 4, ("自摸",))
    assert ("wei", (4, 4, 4)) in w.groups


def test_win_card_completes_the_jiang():
    # SH without 耍猴 (huaihua): the winning s5 pairs with the lone s5 as the 将.
    w = ev(SH)
    assert ("jiang", (4, 4)) in w.groups


def test_four_in_hand_count_as_ti():
    # R-START-2: four-of-a-kinds still in a hand count as 提 (so a 将 is needed).
    # A dealer's 21 cards: 提 s1 (9) + 坎 b3 (6) + 坎 b9 (6) + s2 s7 s10 (3) + b4 b5 b6 (0)
    # + s4 s5 s6 (0) + 将 s8 s8 = 24 huxi -> tun 4; red 3; 21 cards = 20 + one 提.
    h = H("s1 s1 s1 s1 b3 b3 b3 b9 b9 b9 s2 s7 s10 b4 b5 b6 s4 s5 s6 s8 s8")
    w = ev(h)
    check(w, 24, 4, 1, 4, (), red=3, big=9, small=12)
    assert ("ti", (0, 0, 0, 0)) in w.groups


# =============================================================================== inputs
# R-CARD-1 (4 copies), R-CARD-3 (notation), R-GROUP-2 (no mixed 句), section 3 meld types.


def test_inputs_in_any_notation():
    a = ev(hd.R9)
    b = evaluate_win("六八陆柒捌一二三", [("chi", "贰柒拾"), ("chi", "二七十"), ("peng", "肆肆肆"),
                                          ("wei", "玖玖玖")], "七")
    c = evaluate_win(parse(hd.R9.hand), [(t, parse(x)) for t, x in hd.TR], parse("s7")[0])
    d = evaluate_win(hd.R9.hand, list(reversed(hd.TR)), "s7", rules=get_rules("huaihua"))
    assert a == b == c == d


def test_order_does_not_matter():
    hand = parse(hd.R13.hand)
    assert ev(hd.R13) == evaluate_win(list(reversed(hand)), hd.TR[::-1], "s3")


@pytest.mark.parametrize(
    "call",
    [
        lambda: evaluate_win("s1 s2", [("kong", "s3 s3 s3")], "s4"),  # bad meld type
        lambda: evaluate_win("s1 s2", [("kan", "s3 s3 s3")], "s4"),  # 坎 is no table meld
        lambda: evaluate_win("s1 s2", [("chi", "s3 s4 b5")], "s4"),  # chi not a group
        lambda: evaluate_win("s1 s2", [("peng", "s3 s3")], "s4"),  # short 碰
        lambda: evaluate_win("s1 s2", [("pao", "s3 s3 s3 s4")], "s4"),
        lambda: evaluate_win("s1 s2", ["chi"], "s4"),  # meld not a pair
        lambda: evaluate_win("s1 s1", [("peng", "s1 s1 s1")], "s4"),  # 5 copies of s1
        lambda: evaluate_win("s1 s1 s1 s1", (), "s1"),  # 5 copies with the win card
        lambda: evaluate_win("s1", [("ti", "s1 s1 s1 s1")]),
        lambda: evaluate_win("s1", [("chi", "s1 s2 s3"), ("wei", "s1 s1 s1")], "s1"),
        lambda: evaluate_win("s1 s1 s1 s1 s1"),
        lambda: evaluate_win("s1 s11"),  # bad token
        lambda: evaluate_win("s1 x"),
        lambda: evaluate_win("s1", (), "s2 s3"),  # two winning cards
        lambda: evaluate_win("s1", (), 20),  # no such kind
        lambda: evaluate_win("s1", (), ""),
        lambda: evaluate_win("s1", rules="sichuan"),  # unknown preset
    ],
)
def test_malformed_input_raises(call):
    with pytest.raises(ValueError):
        call()


def test_five_copies_error_names_the_kind():
    with pytest.raises(ValueError) as ei:
        evaluate_win("b10 b10", [("peng", "b10 b10 b10")], None)
    assert "19" in str(ei.value) or "拾" in str(ei.value) or "b10" in str(ei.value)


def test_groups_cover_exactly_the_cards():
    for key, h in FIXTURES.items():
        w = ev(h, tianhu=(key == "T1"))
        if w is None:
            continue
        assert group_cards(w) == all_cards(h), key
        assert len(w.groups) == 7, key
