"""王 (jokers) in the hand evaluator: the `yongzhou` scoring family (docs/rules.md section 10).

R-WANG-4: each 王 in the hand stands for any kind (a fifth copy included), chosen for the best
score; a group a 王 completes scores as the group it stands for (王 + 二二 = 坎 of 二, 3 huxi);
three REAL cards of a kind are a locked 坎 (R-GROUP-1), a 王 never makes one.
R-WANG-5: with a 王 only a 自摸 wins. R-WANG-6: 单王吊 (one 王 + the winning card as the 将; needs a
跑/提) and 双王吊 (two 王 + the winning card in one group); the 王 stand for the winning card's
kind; the 王吊 group scores 0 huxi and the rest needs >= 15. R-WANG-7: score = tun x colour x way,
tun = 1 + (huxi - 15) // 3; colour 红胡 2 (red >= 10), 点朱胡 3 (red = 1), 黑胡 4 (red = 0), else
1, each 王 counted as its kind; way 双王吊 8, else 单王吊 4, else 自摸 2, else 1. D-17..D-19 of
docs/RULES-DECISIONS.md decide what docs/rules.md leaves open.

Every expected number is computed by hand in the comments. Notation: s1..s10 = 一..十, b1..b10 =
壹..拾, w = 王; red = points 2, 7, 10 (R-CARD-2). Huxi (section 3): 碰 1/3, 坎 偎 3/6, 跑 6/9,
提 9/12 (small/big); 句 一二三 二七十 3, 壹贰叁 贰柒拾 6, other 句 0; 绞 0; 将 0. A holding has 7
门子 (R-WIN-1): 21 cards in all without a 跑/提, 20 + (number of 跑/提) with them (win card and
王 included).

The property tests compare the evaluator with a brute force written here from docs/rules.md alone:
every substitution of each 王 by each of the 20 kinds, each substituted holding decomposed by a
plain exhaustive search (only three real cards of a kind are locked), plus the 王吊 readings.
"""

from __future__ import annotations

import random
from collections import Counter
from functools import lru_cache
from itertools import combinations_with_replacement

import pytest

from paohuzi_env import Win, evaluate_win, get_rules
from paohuzi_env.game.cards import WANG, parse
from paohuzi_env.game.rules import YONGZHOU
from paohuzi_env.game.scoring import evaluate_counts
from paohuzi_env.game.testing import winning_groups

Y = YONGZHOU
# Huxi minimum 0: the decomposition logic is compared on every holding, not only >= 15.
Y0 = get_rules(YONGZHOU, min_huxi=0, pinghu_min_huxi=0)


def ev(hand, melds=(), win=None, rules=Y, **flags) -> Win | None:
    flags.setdefault("self_drawn", True)  # with a 王 only 自摸 wins (R-WANG-5)
    return evaluate_win(hand, melds, win, rules=rules, **flags)


def check(w: Win | None, huxi: int, tun: int, fan: int, score: int, names: tuple[str, ...]):
    assert w is not None, "expected a win"
    assert (w.huxi, w.tun, w.fan, w.score) == (huxi, tun, fan, score), w
    assert Counter(w.names) == Counter(names), w.names
    assert w.score == w.tun * w.fan


# =============================================================================== worked examples


def test_worked_example_24_huxi_zimo_10_red():
    # docs/rules.md section 10: 24 huxi, 自摸 with no 王, 10 red -> tun 4, score 4 x 2 x 2 = 16.
    #   坎 贰 (6, red 3), 坎 柒 (6, red 3), 坎 四 (3), 坎 五 (3)          18
    #   二七十 (3, red 3), 一二三 (3, red 1: 二)                          6
    #   肆伍陆 (0; the drawn winning card is 伍)                          0
    #   = 24 huxi; red 3 + 3 + 3 + 1 = 10 -> 红胡 2; 自摸 2; tun 1 + (24 - 15) // 3 = 4.
    w = ev("b2b2b2 b7b7b7 s4s4s4 s5s5s5 s2s7s10 s1s2s3 b4b6", (), "b5")
    check(w, 24, 4, 4, 16, ("红胡", "自摸"))
    assert w.red == 10 and w.wang_as == ()


def test_worked_example_18_huxi_single_wang_diao_no_red():
    # docs/rules.md section 10: 18 huxi 单王吊, no red -> 2 x 4 x 4 = 32.
    #   table 提 壹 (12); hand 坎 三 (3), 坎 四 (3)                       18
    #   叁肆伍, 八八捌 (绞), 九玖玖 (绞): 0 each                           0
    #   王 + the drawn 五 as the 将 (单王吊, 0 huxi; the 王 is a 五, black)
    #   = 18 huxi without the 王吊 group; red 0 -> 黑胡 4; 单王吊 4; tun 1 + 3 // 3 = 2.
    #   21 cards = 20 + one 提. The 王 read otherwise (a 将 王 + 五, 自摸) scores 2 x 4 x 2 = 16.
    w = ev("s3s3s3 s4s4s4 b3b4b5 s8s8b8 s9b9b9 w", [("ti", "b1b1b1b1")], "s5")
    check(w, 18, 2, 16, 32, ("黑胡", "单王吊"))
    assert ("wang_diao", (4, 4)) in w.groups
    assert w.wang_as == ((w.groups.index(("wang_diao", (4, 4))), 4),)
    assert w.red == 0


# =============================================================================== the seed's table
# Each holding keeps all its real groups on the table, so the hand holds only the 王 (or one
# card): no reading but the intended one can score more. All have 15 huxi (tun 1), so the score
# is colour x way: 红胡 2, 点朱胡 3, 黑胡 4 x 自摸 2, 单王吊 4, 双王吊 8 (seed 002's table:
# 红胡 4/8/16, 点朱胡 6/12/24, 黑胡 8/16/32).

# With a 提 (the 将 is needed): 提 壹 12 + 偎 三 3 = 15 huxi; four 吃 groups, 0 huxi each.
_TI = [("ti", "b1b1b1b1"), ("wei", "s3s3s3")]
_BLACK4 = _TI + [("chi", "b3b4b5"), ("chi", "s4s5s6"), ("chi", "s8s8b8"), ("chi", "s9b9b9")]
# red 1: 五六七 (七) for 四五六.
_DOT4 = _TI + [("chi", "b3b4b5"), ("chi", "s5s6s7"), ("chi", "s8s8b8"), ("chi", "s9b9b9")]
# red 8: 二二贰 3, 七柒柒 3, 八九十 1, 陆柒捌 1; the 将 拾拾 adds 2 -> 10.
_RED4 = _TI + [("chi", "s2s2b2"), ("chi", "s7b7b7"), ("chi", "s8s9s10"), ("chi", "b6b7b8")]
# Without a 跑/提 (no 将): 偎 叁 6 + 偎 肆 6 + 偎 一 3 = 15 huxi; three 吃 groups.
_WEI = [("wei", "b3b3b3"), ("wei", "b4b4b4"), ("wei", "s1s1s1")]
_BLACK3 = _WEI + [("chi", "s4s5s6"), ("chi", "s8s8b8"), ("chi", "s9b9b9")]
_DOT3 = _WEI + [("chi", "s5s6s7"), ("chi", "s8s8b8"), ("chi", "s9b9b9")]
# red 7: 二二贰 3, 七柒柒 3, 八九十 1; the 王吊 拾拾拾 adds 3 -> 10.
_RED3 = _WEI + [("chi", "s2s2b2"), ("chi", "s7b7b7"), ("chi", "s8s9s10")]


@pytest.mark.parametrize(
    "hand, melds, win, score, names",
    [
        # 自摸, no 王: hand one card, the drawn copy makes the 将.
        ("b10", _RED4, "b10", 4, ("红胡", "自摸")),  # red 8 + 拾拾 = 10: 1 x 2 x 2
        ("b6", _DOT4, "b6", 6, ("点朱胡", "自摸")),  # red 1 (七): 1 x 3 x 2
        ("b6", _BLACK4, "b6", 8, ("黑胡", "自摸")),  # red 0: 1 x 4 x 2
        # 单王吊: hand 王, the drawn card and the 王 are the 将.
        ("w", _RED4, "b10", 8, ("红胡", "单王吊")),  # 王 as 拾: red 10: 1 x 2 x 4
        ("w", _DOT4, "b6", 12, ("点朱胡", "单王吊")),  # 王 as 陆 (black): 1 x 3 x 4
        ("w", _BLACK4, "b6", 16, ("黑胡", "单王吊")),  # 1 x 4 x 4
        # 双王吊: hand 王王, the drawn card and both 王 are one group (0 huxi).
        ("ww", _RED3, "b10", 16, ("红胡", "双王吊")),  # 王王 as 拾拾: red 7 + 3 = 10: 1 x 2 x 8
        ("ww", _DOT3, "b6", 24, ("点朱胡", "双王吊")),  # 1 x 3 x 8
        ("ww", _BLACK3, "b6", 32, ("黑胡", "双王吊")),  # 1 x 4 x 8
    ],
)
def test_seed_table_r_wang_7(hand, melds, win, score, names):
    w = ev(hand, melds, win)
    colour = {"红胡": 2, "点朱胡": 3, "黑胡": 4}[names[0]]
    way = {"自摸": 2, "单王吊": 4, "双王吊": 8}[names[1]]
    check(w, 15, 1, colour * way, score, names)
    assert colour * way == score


def test_seed_table_alternatives_score_less():
    # 双王吊 黑胡 above: 王王 + 陆 read as a 坎 of 陆 (6) instead: 21 huxi, tun 3, 自摸:
    # 3 x 4 x 2 = 24 < 32; the evaluator keeps the 王吊. With 偎 一 a 碰 一 (1 huxi) the rest has
    # 6 + 6 + 1 = 13 < 15: the 王吊 is no win (R-WANG-6), and the 坎 reading (13 + 6 = 19, tun 2,
    # 黑胡, 自摸) is: 2 x 4 x 2 = 16.
    w = ev("ww", _BLACK3, "b6")
    assert w is not None and "双王吊" in w.names and w.score == 32
    melds = [m if m != ("wei", "s1s1s1") else ("peng", "s1s1s1") for m in _BLACK3]
    w = ev("ww", melds, "b6")
    check(w, 19, 2, 8, 16, ("黑胡", "自摸"))
    assert ("kan", (15, 15, 15)) in w.groups


# =============================================================================== R-WANG-4


def test_wang_as_a_fifth_copy_r_wang_4():
    # All four 二 are on the table (提 二, 9 huxi); the 王 stands for a fifth 二 in 一二三 (3): 一 fits
    # no other group here (一一壹 / 一壹壹 would need two 王).
    #   table 提 二 9, 偎 捌 6, 吃 四五六 0                                  15
    #   hand 一 王 三 -> 一二三 3; 叁肆伍 0; 九玖玖 0; 将 五五 (drawn 五)       3
    #   = 18 huxi, tun 2; red: 提 二 4 + the 王 as 二 1 = 5 -> no colour; 自摸 2 -> 2 x 1 x 2 = 4.
    melds = [("ti", "s2s2s2s2"), ("wei", "b8b8b8"), ("chi", "s4s5s6")]
    w = ev("s1 w s3 b3b4b5 s9b9b9 s5", melds, "s5")
    check(w, 18, 2, 2, 4, ("自摸",))
    assert ("ju", (0, 1, 2)) in w.groups
    assert w.wang_as == ((w.groups.index(("ju", (0, 1, 2))), 1),)
    assert w.red == 5  # the 王 counted as the 二 it stands for (R-WANG-7)
    assert sum(cards.count(1) for _, cards in w.groups) == 5  # five 二


def test_wang_with_a_pair_is_a_kan_r_wang_4():
    # 王 + 二二 = 坎 of 二, 3 huxi; 王 + 贰贰 = 坎 of 贰, 6 huxi.
    #   table 偎 叁 6, 偎 肆 6                                            12
    #   hand 二二王 (坎 3), 四五六 0, 八八捌 0, 九玖玖 0, 伍陆柒 (drawn 柒) 0    3
    #   = 15 huxi, tun 1; red 二二 + 王 as 二 + 柒 = 4 -> no colour; 自摸 2 -> 2.
    melds = [("wei", "b3b3b3"), ("wei", "b4b4b4")]
    w = ev("s2s2 w s4s5s6 s8s8b8 s9b9b9 b5b6", melds, "b7")
    check(w, 15, 1, 2, 2, ("自摸",))
    assert ("kan", (1, 1, 1)) in w.groups and w.red == 4
    # the same with 贰贰: 12 + 6 = 18 huxi, tun 2; red 贰贰 + 王 + 柒 = 4 -> 2 x 1 x 2 = 4.
    w = ev("b2b2 w s4s5s6 s8s8b8 s9b9b9 b5b6", melds, "b7")
    check(w, 18, 2, 2, 4, ("自摸",))
    assert ("kan", (11, 11, 11)) in w.groups


def test_wang_pair_is_not_locked_r_wang_4():
    # A 王 never makes a real 坎: 二二 + 王 may be split. 一 二 二 三 四 王: only 一二三 + 二三四 (王
    # as 三, or 一二王 + 二三四) decompose it; read as a 坎 of 二 the rest 一 三 四 is no group.
    #   table 偎 叁 6, 偎 肆 6, 偎 壹 6 = 18; hand 一二三 3, 二三四 0, 八八捌 0, 九玖玖 (drawn 九) 0
    #   -> 21 huxi, tun 3; red 二二 = 2 -> no colour; 自摸 -> 3 x 1 x 2 = 6.
    melds = [("wei", "b3b3b3"), ("wei", "b4b4b4"), ("wei", "b1b1b1")]
    w = ev("s1 s2 s2 s3 s4 w s8s8b8 b9b9", melds, "s9")
    check(w, 21, 3, 2, 6, ("自摸",))
    assert ("ju", (1, 2, 3)) in w.groups and ("ju", (0, 1, 2)) in w.groups


def test_real_kan_stays_locked_r_wang_4():
    # Three REAL 一 are a locked 坎 (R-GROUP-1): 坎 一 + 二二三三壹王 must decompose without them.
    # 二二三三壹王: 二三王 + 二三壹 no; 二二王 + 三三壹 no; 三三王 + 二二壹 no -> no win. Splitting
    # the 坎 (一二三, 一二三, 一壹 + 王 as a 绞) is not allowed.
    #   table 偎 伍 6, 偎 陆 6; hand 坎 一, 二二三三壹王, 七九 + drawn 八, 柒捌玖: 21 cards.
    melds = [("wei", "b5b5b5"), ("wei", "b6b6b6")]
    assert ev("s1s1s1 s2s2s3s3 b1 w s7s9 b7b8b9", melds, "s8") is None
    assert ev("s1s1s1 s2s2s3s3 b1 w s7s9 b7b8b9", melds, "s8", rules=Y0) is None
    # Control: one 一 replaced by a second 王 (一一 is a loose pair) wins:
    #   一二三 3, 一二三 3, 王王壹 as 坎 壹 6 (or 壹贰叁 6), 七八九 0, 柒捌玖 0, 偎 6, 偎 6 = 24 huxi,
    #   tun 4; red 二二 + 七 + 柒 = 4 (5 with a 王 as 贰) -> no colour; 自摸 2 -> 4 x 1 x 2 = 8.
    w = ev("s1s1 w s2s2s3s3 b1 w s7s9 b7b8b9", melds, "s8")
    check(w, 24, 4, 2, 8, ("自摸",))


def test_wang_counts_toward_no_tianhu_r_wang_4():
    # R-START-1 counts real 提 and 坎 only: 4 坎 + 王 + 二二 is no forced 天胡 (it would be 5 坎).
    # As a dealer's 21 cards (天胡 counts as 自摸, R-WANG-7) it still wins if it decomposes:
    #   坎 壹 6, 坎 叁 6, 坎 肆 6, 坎 一 3, 王二二 (坎 二) 3 = 24; 五六七 0, 八八捌 0 -> 24 huxi,
    #   tun 4; red 二二 + 王 as 二 + 七 = 4 -> no colour; 自摸 2 -> 8.
    hand = "b1b1b1 b3b3b3 b4b4b4 s1s1s1 s2s2 w s5s6s7 s8s8b8"
    w = ev(hand, (), None, tianhu=True, self_drawn=False)
    check(w, 24, 4, 2, 8, ("自摸",))
    # with 五 九 十 八 捌 拾 instead of 五六七 八八捌 it does not decompose: no win at all
    h2 = "b1b1b1 b3b3b3 b4b4b4 s1s1s1 s2s2 w s5s9s10 s8 b8 b10"
    assert ev(h2, (), None, tianhu=True, self_drawn=False) is None
    # while 5 real 坎 are a forced 天胡 whatever the rest (D-19): 坎 壹 叁 肆 6 + 6 + 6, 坎 一 二
    # 3 + 3 = 24; 八九十 0; 王 五 捌 fit no group and stay loose: 24 huxi, tun 4; red 二二二 + 十 = 4
    # -> no colour; 天胡 as 自摸 2 -> 8.
    h3 = "b1b1b1 b3b3b3 b4b4b4 s1s1s1 s2s2s2 w s5s9s10 s8 b8"
    w = ev(h3, (), None, tianhu=True, self_drawn=False)
    check(w, 24, 4, 2, 8, ("自摸",))
    loose = [i for i, g in enumerate(w.groups) if g[0] == "loose"]
    assert len(loose) == 1 and w.wang_as == ((loose[0], WANG),)


# =============================================================================== R-WANG-5/6


def test_wang_holder_wins_only_self_drawn_r_wang_5():
    melds = [("ti", "b1b1b1b1")]
    hand = "s3s3s3 s4s4s4 b3b4b5 s8s8b8 s9b9b9 w"
    assert ev(hand, melds, "s5", self_drawn=False) is None
    assert ev(hand, melds, "s5", self_drawn=True) is not None
    # evaluate_counts (the engine path) answers the same
    counts = tuple(Counter(parse(hand.replace("w", ""))).get(k, 0) for k in range(20))
    norm = (("ti", (10, 10, 10, 10)),)
    assert evaluate_counts(counts, norm, 4, Y, wang=1) is None
    assert evaluate_counts(counts, norm, 4, Y, self_drawn=True, wang=1).score == 32


def test_double_wang_diao_group_scores_zero_r_wang_6():
    # 双王吊: table 偎 叁 6, 偎 肆 6, 碰 壹 3 = 15; hand 四五六 0, 八八捌 0, 九玖玖 0, 王王; drawn 陆.
    #   王吊 group 陆陆陆 (0 huxi, not the 6 of a 坎 of 陆): 15 huxi, tun 1; red 0 -> 黑胡 4;
    #   双王吊 8 -> 32. (Read as a 坎: 21 huxi, tun 3, 自摸 2 -> 24 < 32; as 肆伍陆: 15 -> 8.)
    melds = [("wei", "b3b3b3"), ("wei", "b4b4b4"), ("peng", "b1b1b1")]
    w = ev("s4s5s6 s8s8b8 s9b9b9 w w", melds, "b6")
    check(w, 15, 1, 32, 32, ("黑胡", "双王吊"))
    g = w.groups.index(("wang_diao", (15, 15, 15)))
    assert w.wang_as == ((g, 15), (g, 15)) and w.red == 0
    assert sum(1 for t, _ in w.groups if t == "wang_diao") == 1


def test_wang_diao_needs_15_without_its_group_r_wang_6():
    # 单王吊 with 12 huxi besides the group: 提 壹 12; 吃 五伍伍 0; hand 三四五, 叁肆伍, 八八捌, 九玖玖,
    # 王; drawn 陆. No 王吊 (12 < 15), and no other reading reaches 15 -> no win. With min_huxi 0
    # it is a 单王吊 of 12 huxi.
    melds = [("ti", "b1b1b1b1"), ("chi", "s5b5b5")]
    hand = "s3s4s5 b3b4b5 s8s8b8 s9b9b9 w"
    assert ev(hand, melds, "b6") is None
    w = ev(hand, melds, "b6", rules=Y0)
    assert w is not None and w.huxi == 12 and "单王吊" in w.names
    # 双王吊 with 12 besides the group, but the 坎 reading reaches 15: it wins as a plain 自摸
    # (D-18). 偎 叁 6, 偎 肆 6, 吃 一一壹 0 = 12; hand 四五六, 八八捌, 九玖玖, 王王; drawn 一: 王王一 as
    # 坎 一 (3) -> 15 huxi, tun 1; red 0 -> 黑胡 4; 自摸 2 -> 8 (as 一二三: red 1, 点朱胡 -> 6).
    melds = [("wei", "b3b3b3"), ("wei", "b4b4b4"), ("chi", "s1s1b1")]
    w = ev("s4s5s6 s8s8b8 s9b9b9 w w", melds, "s1")
    check(w, 15, 1, 8, 8, ("黑胡", "自摸"))
    assert ("kan", (0, 0, 0)) in w.groups


def test_single_wang_diao_needs_a_pao_or_ti_r_wang_6():
    # Without a 跑/提 a hand has no 将 (R-WIN-1): 6 groups + 王 + the drawn card are 20 cards, and
    # no 7 门子. 偎 叁 6, 偎 肆 6, 偎 一 3 = 15; hand 四五六, 八八捌, 九玖玖, 王; drawn 陆.
    melds = [("wei", "b3b3b3"), ("wei", "b4b4b4"), ("wei", "s1s1s1")]
    assert ev("s4s5s6 s8s8b8 s9b9b9 w", melds, "b6") is None
    # With 偎 一 a 提 一 (9): 21 cards, 6 门子 + the 将 王陆: 单王吊, 6 + 6 + 9 = 21 huxi, tun 3;
    # red 0 -> 黑胡 4; 单王吊 4 -> 3 x 4 x 4 = 48.
    melds = [("wei", "b3b3b3"), ("wei", "b4b4b4"), ("ti", "s1s1s1s1")]
    w = ev("s4s5s6 s8s8b8 s9b9b9 w", melds, "b6")
    check(w, 21, 3, 16, 48, ("黑胡", "单王吊"))
    # One 王 without a 跑/提, 21 cards: the 王 with the drawn card in a group is no 王吊 (no 将):
    # hand 四 王 + drawn 六 -> 四五六 (王 as 五); 八八捌, 九玖玖, 肆伍陆; 15 huxi, red 0 -> 黑胡 4,
    # 自摸 2 -> 8.
    melds = [("wei", "b3b3b3"), ("wei", "b4b4b4"), ("wei", "s1s1s1")]
    w = ev("s4 w s8s8b8 s9b9b9 b4b5b6", melds, "s6")
    check(w, 15, 1, 8, 8, ("黑胡", "自摸"))


def test_double_wang_diao_with_a_ti_keeps_the_jiang():
    # 双王吊 with a 提 (so a 将 elsewhere): table 提 壹 12, 偎 三 3, 吃 叁肆伍 0 = 15; hand 四五六,
    # 八八捌, 将 陆陆, 王王; drawn 九: 九九九 is the 王吊 group. 15 huxi, tun 1; red 0 -> 黑胡 4;
    # 双王吊 8 -> 32. (王 + 陆陆 as a 坎 of 陆 and 王 + 九 as the 将: 21 huxi, 自摸 -> 3 x 4 x 2 = 24.)
    melds = [("ti", "b1b1b1b1"), ("wei", "s3s3s3"), ("chi", "b3b4b5")]
    w = ev("s4s5s6 s8s8b8 b6b6 w w", melds, "s9")
    check(w, 15, 1, 32, 32, ("黑胡", "双王吊"))
    assert ("wang_diao", (8, 8, 8)) in w.groups and ("jiang", (15, 15)) in w.groups


def test_drawn_wang_is_never_wang_diao_d_17():
    # D-17: a drawn 王 completing the hand is a plain 自摸 (win_card=None, self-drawn; or win_card
    # 王). _BLACK4 with 王 in the hand: drawn 陆 -> 单王吊 16 (seed table); drawn 王 -> 王王 the 将
    # (any kind, black here): 15 huxi, tun 1; 黑胡 4; 自摸 2 -> 8 (no 单王吊, no 双王吊).
    assert ev("w", _BLACK4, "b6").score == 16
    for w in (ev("w w", _BLACK4, None), ev("w", _BLACK4, "w")):
        check(w, 15, 1, 8, 8, ("黑胡", "自摸"))
        j = next(i for i, g in enumerate(w.groups) if g[0] == "jiang")
        assert [i for i, _ in w.wang_as] == [j, j]
    # a drawn 王 is nobody else's winning card (R-WANG-3)
    assert ev("w", _BLACK4, "w", self_drawn=False) is None
    # The dealer's start win with a 王 is a 天胡 as 自摸, never a 王吊 (D-17): the worked
    # example's hand as dealt (提 壹 still in the hand, the 亮张 五 among the 21): 18 huxi, tun 2,
    # 黑胡 4, 自摸 2 -> 16 (not 32).
    w = ev("b1b1b1b1 s3s3s3 s4s4s4 b3b4b5 s8s8b8 s9b9b9 w s5", (), None, tianhu=True,
           self_drawn=False)
    check(w, 18, 2, 8, 16, ("黑胡", "自摸"))


def test_wang_pair_chooses_its_colour_r_wang_7():
    # 王王 as the 将 stand for one kind, chosen for the best colour.
    # No real red: 提 壹 12 + 偎 三 3 = 15, 吃 四五六, 八八捌, 九玖玖; hand 叁肆 王王, drawn 伍:
    # 叁肆伍 + 将 王王 (black) -> 15 huxi, tun 1, 黑胡 4, 自摸 2 -> 8 (a 王 as 贰 in 贰叁肆 with
    # 王伍 the 将: red 1, 点朱胡 -> 6; 王王伍 as a 坎 leaves 叁肆 -> no).
    melds = [("ti", "b1b1b1b1"), ("wei", "s3s3s3"), ("chi", "s4s5s6"), ("chi", "s8s8b8"),
             ("chi", "s9b9b9")]
    w = ev("b3b4 w w", melds, "b5")
    check(w, 15, 1, 8, 8, ("黑胡", "自摸"))
    assert w.red == 0
    # 8 real red: 提 壹, 偎 三, 吃 二二贰 3, 七柒柒 3, 陆柒捌 1; hand 八九 王王, drawn 十 (1): 王王 red
    # (or a 王 as 七/十 with 八九 and the other as 十 with the drawn 十) -> 10 -> 红胡 2 (black: 8 red,
    # colour 1): 15 huxi, tun 1, 自摸 2 -> 4.
    melds = [("ti", "b1b1b1b1"), ("wei", "s3s3s3"), ("chi", "s2s2b2"), ("chi", "s7b7b7"),
             ("chi", "b6b7b8")]
    w = ev("s8s9 w w", melds, "s10")
    check(w, 15, 1, 4, 4, ("红胡", "自摸"))
    assert w.red == 10


def test_single_red_from_a_wang_r_wang_7():
    # 点朱胡 through a 王: no real red; the 王 as 七 in 六七八 makes red 1 -> 点朱胡 3.
    #   偎 叁 6, 偎 肆 6, 偎 一 3 = 15, 吃 九玖玖, 吃 五伍伍; hand 六 王 八, 四 五, drawn 六:
    #   六七八 (王 as 七: nothing else fits 六_八 with 四五六 taking the other 六), 四五六 -> 15 huxi,
    #   tun 1, 点朱胡 3, 自摸 2 -> 6.
    melds = [("wei", "b3b3b3"), ("wei", "b4b4b4"), ("wei", "s1s1s1"), ("chi", "s9b9b9"),
             ("chi", "s5b5b5")]
    w = ev("s6 w s8 s4 s5", melds, "s6")
    check(w, 15, 1, 6, 6, ("点朱胡", "自摸"))
    assert w.red == 1 and w.wang_as[0][1] == 6


def test_errors():
    with pytest.raises(ValueError) as ei:
        evaluate_win("s1 w", (), None, rules="huaihua")
    assert "王" in str(ei.value)
    with pytest.raises(ValueError):
        evaluate_win("s1", [("peng", "www")], None, rules=Y)
    with pytest.raises(ValueError):
        evaluate_win("s1 w w", (), "w", rules=Y, self_drawn=True)  # three 王
    with pytest.raises(ValueError):
        evaluate_counts((0,) * 20, (), None, get_rules("huaihua"), wang=1)


def test_no_wang_yongzhou_is_the_plain_path():
    # A yongzhou hand without 王 and not 自摸: colour only, way 1. The 24-huxi example taken on
    # the 亮张 by a non-dealer (win_card given, tianhu=True): no 自摸 (R-WANG-7) -> 4 x 2 = 8.
    hand = "b2b2b2 b7b7b7 s4s4s4 s5s5s5 s2s7s10 s1s2s3 b4b6"
    check(evaluate_win(hand, (), "b5", rules=Y), 24, 4, 2, 8, ("红胡",))
    check(evaluate_win(hand, (), "b5", rules=Y, tianhu=True), 24, 4, 2, 8, ("红胡",))
    # the dealer's own 21 cards (win_card None) with tianhu: 天胡 counts as 自摸 -> 16
    w = evaluate_win(hand + " b5", (), None, rules=Y, tianhu=True)
    check(w, 24, 4, 4, 16, ("红胡", "自摸"))
    # 12 huxi is no win (min 15), whatever the colour and 自摸: 提 一 9 + 偎 三 3 and four 0-huxi
    # 吃 groups, 将 陆陆 (drawn); it is one with min_huxi 0 (tun 1 + 12 // 3 = 5, 黑胡, 自摸: 40).
    melds = [("ti", "s1s1s1s1"), ("wei", "s3s3s3"), ("chi", "b3b4b5"), ("chi", "s4s5s6"),
             ("chi", "s8s8b8"), ("chi", "s9b9b9")]
    assert ev("b6", melds, "b6") is None
    check(ev("b6", melds, "b6", rules=Y0), 12, 5, 8, 40, ("黑胡", "自摸"))


# =============================================================================== brute force

_SEQS = [(b + p, b + p + 1, b + p + 2) for b in (0, 10) for p in range(8)] + [(1, 6, 9), (11, 16, 19)]
_JIAOS = [(p, p, p + 10) for p in range(10)] + [(p, p + 10, p + 10) for p in range(10)]
_TRIPLES = [(g, "ju") for g in _SEQS] + [(g, "jiao") for g in _JIAOS]
_SAME = {"peng": (1, 3), "kan": (3, 6), "wei": (3, 6), "chou_wei": (3, 6), "pao": (6, 9), "ti": (9, 12)}
_REDK = {1, 6, 9, 11, 16, 19}


def _seq_huxi(g) -> int:
    return {(0, 1, 2): 3, (1, 6, 9): 3, (10, 11, 12): 6, (11, 16, 19): 6}.get(tuple(g), 0)


def _meld_huxi(t, cards) -> int:
    if t == "chi":
        return _seq_huxi(sorted(cards))
    return _SAME[t][1 if cards[0] >= 10 else 0]


@lru_cache(maxsize=1 << 20)
def _best_huxi(counts: tuple[int, ...], wild: tuple[int, ...], pair: bool) -> int | None:
    """Most huxi of a split of ``counts`` (the loose cards, substituted 王 included) into 句/绞/
    same-kind triples and one 将 iff ``pair``; ``wild[k]`` of the kind-k cards are 王: a same-kind
    triple with a 王 is a 坎 (3/6), all real a 碰-like triple (1/3, only the winning card makes
    one)."""
    i = next((k for k in range(20) if counts[k]), None)
    if i is None:
        return None if pair else 0
    best = None

    def sub(take: dict[int, int], still_pair: bool, h: int, wild_used: int = 0) -> None:
        nonlocal best
        c = list(counts)
        for k, n in take.items():
            if c[k] < n:
                return
            c[k] -= n
        w = list(wild)
        # the 王 of a kind go into same-kind triples; elsewhere real copies are used first
        w[i] -= wild_used
        for k in range(20):
            w[k] = min(w[k], c[k])
        r = _best_huxi(tuple(c), tuple(w), still_pair)
        if r is not None and (best is None or r + h > best):
            best = r + h

    if pair and counts[i] >= 2:
        sub({i: 2}, False, 0)
    if counts[i] >= 3:
        big = i >= 10
        if wild[i]:
            sub({i: 3}, pair, 6 if big else 3, 1)
        else:
            sub({i: 3}, pair, 3 if big else 1)
    for g, _ in _TRIPLES:
        if i in g:
            take = Counter(g)
            sub(dict(take), pair, _seq_huxi(g))
    return best


def _brute(hand: list[int], melds, win: int | None, n_wang: int, rules) -> tuple[int, int] | None:
    """(score, huxi) of the best win of a self-drawn holding with ``n_wang`` 王 (R-WANG-4..7),
    by substitution; None when there is none."""
    h = [hand.count(k) for k in range(20)]
    loose = [n if n < 3 else 0 for n in h]

    def same(t: str, k: int) -> int:
        return _SAME[t][1 if k >= 10 else 0]

    table_h = sum(_meld_huxi(t, c) for t, c in melds)
    locked_h = sum(same("ti" if h[k] == 4 else "kan", k) for k in range(20) if h[k] >= 3)
    n_groups = len(melds) + sum(1 for k in range(20) if h[k] >= 3)
    paoti = sum(1 for t, _ in melds if t in ("pao", "ti")) + sum(1 for k in range(20) if h[k] == 4)
    real_red = sum(1 for k in hand if k in _REDK) + sum(1 for _, c in melds for k in c if k in _REDK)
    # readings of the drawn card: (fixed huxi, 门子 so far, 跑/提 count, loose counts, card loose)
    readings = []
    if win is None:
        readings.append((table_h + locked_h, n_groups, paoti, loose, False))
    else:
        real_red += win in _REDK
        own = next((t for t, c in melds if t != "chi" and c[0] == win), None)
        if h[win] == 3:  # 坎 + own draw = 提 (R-FLOW-2), read only so
            fixed = table_h + locked_h - same("kan", win) + same("ti", win)
            readings.append((fixed, n_groups, paoti + 1, loose, False))
        elif h[win] == 2:  # pair + own draw = 偎
            lo = list(loose)
            lo[win] = 0
            readings.append((table_h + locked_h + same("wei", win), n_groups + 1, paoti, lo, False))
        elif own in ("wei", "chou_wei"):  # 偎 + own draw = 提
            fixed = table_h + locked_h - same(own, win) + same("ti", win)
            readings.append((fixed, n_groups, paoti + 1, loose, False))
        else:
            lo = list(loose)
            lo[win] += 1
            readings.append((table_h + locked_h, n_groups, paoti, lo, True))
            if own == "peng":  # the drawer's own 碰 becomes a 跑 (R-FLOW-3.2)
                fixed = table_h + locked_h - same("peng", win) + same("pao", win)
                readings.append((fixed, n_groups, paoti + 1, loose, False))
    best = None

    def score(huxi: int, red: int, diao: int) -> None:
        nonlocal best
        if huxi < rules.min_huxi:
            return
        tun = max(1, 1 + (huxi - rules.min_huxi) // 3)
        colour = 4 if red == 0 else 3 if red == 1 else 2 if red >= 10 else 1
        way = {2: 8, 1: 4}.get(diao, 2)  # always self-drawn here
        cand = (tun * colour * way, huxi)
        if best is None or cand > best:
            best = cand

    for fixed, groups, n_pt, lo, win_loose in readings:
        need = n_pt > 0
        rest = sum(lo) + n_wang - (2 if need else 0)
        if rest < 0 or rest % 3 or groups + rest // 3 + need != 7:
            continue  # R-WIN-1
        for subs in combinations_with_replacement(range(20), n_wang):
            c = list(lo)
            w = [0] * 20
            for k in subs:
                c[k] += 1
                w[k] += 1
            r = _best_huxi(tuple(c), tuple(w), need)
            if r is not None:
                score(fixed + r, real_red + sum(1 for k in subs if k in _REDK), 0)
        if win_loose and (n_wang == 2 or (n_wang == 1 and need)):  # R-WANG-6
            c = list(lo)
            c[win] -= 1
            r = _best_huxi(tuple(c), (0,) * 20, need and n_wang == 2)
            if r is not None:
                score(fixed + r, real_red + (n_wang if win in _REDK else 0), n_wang)
    return best


def _check_groups(w: Win, hand: list[int], melds, win: int | None, n_wang: int) -> None:
    """The reported reading is a real one: its cards are the holding's with each 王 replaced by
    the kind ``wang_as`` names; huxi is the groups' (a 王吊 group 0); red counts the 王 as kinds."""
    assert len(w.wang_as) == n_wang
    got = Counter(k for _, cards in w.groups for k in cards)
    want = Counter(hand) + Counter(k for _, c in melds for k in c)
    if win is not None:
        want[win] += 1
    for _, k in w.wang_as:
        want[k] += 1
    assert got == want, (w, hand, melds, win)
    for i, k in w.wang_as:
        assert k in w.groups[i][1]
    assert len(w.groups) == 7
    huxi = sum(0 if t in ("wang_diao", "jiang", "jiao") else
               _seq_huxi(c) if t == "ju" else _meld_huxi(t, c) for t, c in w.groups)
    assert huxi == w.huxi
    assert w.red == sum(n for k, n in want.items() if k in _REDK)


# ---- random holdings -----------------------------------------------------------------------


def _holding_with_wang(rng: random.Random, n_wang: int, shape: str):
    """A holding with ``n_wang`` 王, self-drawn: ``(hand, melds, win)``.

    shape ``sub``: a built winning holding with random cards (the winning card may be one)
    replaced by 王; ``diao``: the 将 (one 王) or a hand group (two 王) turned into a 王吊 wait;
    ``miss``: ``sub`` with one real hand card changed to another kind (mostly not winning);
    ``deal``: random cards."""
    if shape == "deal":
        deck = [k for k in range(20) for _ in range(4)]
        rng.shuffle(deck)
        n_paoti = rng.choice([0, 0, 1])
        melds = []
        if n_paoti:
            k = deck.pop()
            while deck.count(k) < 3:
                k = deck.pop()
            for _ in range(3):
                deck.remove(k)
            melds.append(("ti", (k,) * 4))
        n = 20 - 4 * n_paoti - n_wang  # 21 cards in all with the drawn one (R-WIN-1)
        if rng.random() < 0.2:  # the drawn card was a 王
            return deck[: n + 1] + [WANG] * n_wang, melds, None
        return deck[:n] + [WANG] * n_wang, melds, deck[n]
    built = None
    while built is None:
        built = winning_groups(rng)
    hand, melds, groups = built
    if shape == "diao":  # a 王吊 wait: the 将 (单) or a hand group (双) becomes 王 + the drawn card
        options = [g for g in groups if len(g) == n_wang + 1]
        if not options:
            return None
        g = list(rng.choice(options))
        win = g.pop(rng.randrange(len(g)))
        for k in g + [win]:
            hand.remove(k)
        return hand + [WANG] * n_wang, melds, win
    cards = list(hand)
    if len(cards) < n_wang:
        return None
    rng.shuffle(cards)
    for j in range(n_wang):
        cards[j] = WANG
    real = [k for k in cards if k != WANG]
    if shape == "miss" and real:
        j = rng.randrange(len(real))
        total = Counter(real) + Counter(k for _, c in melds for k in c)
        k = rng.randrange(20)
        if total[k] < 4:
            real[j] = k
    cnt = Counter(real)
    choices = [k for k in real if cnt[k] < 3]
    if not choices or rng.random() < 0.15:
        return real + [WANG] * n_wang, melds, None  # the last card drawn was a 王 (D-17)
    win = rng.choice(choices)
    real.remove(win)
    return real + [WANG] * n_wang, melds, win


def _cases(seed: int, n: int, n_wang: int):
    rng = random.Random(seed)
    shapes = ["sub", "sub", "diao", "miss", "deal"]
    out = []
    while len(out) < n:
        h = _holding_with_wang(rng, n_wang, shapes[len(out) % len(shapes)])
        if h is not None:
            out.append(h)
    return out


@pytest.mark.parametrize("n", [500, pytest.param(1500, marks=pytest.mark.slow)])
@pytest.mark.parametrize("n_wang", [1, 2])
@pytest.mark.parametrize("rules", [Y, Y0], ids=["min15", "min0"])
def test_against_brute_force(n_wang, rules, n):
    # R-WANG-4/6/7 against substitution: 500 holdings per 王 count and rule set in the default
    # suite (2,000 in all), 1,500 (6,000) under -m slow. The first 500 cases are the same in both.
    wins = diao = 0
    for hand, melds, win in _cases(1000 * n_wang + rules.min_huxi, n, n_wang):
        got = evaluate_win(hand, melds, win, rules=rules, self_drawn=True)
        real = [k for k in hand if k != WANG]
        want = _brute(real, melds, win, n_wang, rules)
        assert (None if got is None else (got.score, got.huxi)) == want, (hand, melds, win, got)
        if got is not None:
            wins += 1
            diao += any(t == "wang_diao" for t, _ in got.groups)
            _check_groups(got, real, melds, win, n_wang)
            # R-WANG-5: the same holding on another player's card is no win
            if win is not None:
                assert evaluate_win(hand, melds, win, rules=rules, self_drawn=False) is None
    # both winning and non-winning holdings, and 王吊 among the wins
    print(f"{n_wang} 王, min {rules.min_huxi}: {wins} wins of {n}, {diao} 王吊")
    assert n * 0.2 < wins < n * 0.9, wins
    assert diao > n * 0.02, diao


def test_brute_force_agrees_without_wang():
    # The brute force itself, on plain holdings (n_wang = 0), agrees with the evaluator.
    rng = random.Random(7)
    done = 0
    while done < 400:
        built = winning_groups(rng)
        if built is None:
            continue
        hand, melds, _ = built
        cnt = Counter(hand)
        win = rng.choice([k for k in hand if cnt[k] < 3] or [None])
        if win is None:
            continue
        hand.remove(win)
        got = evaluate_win(hand, melds, win, rules=Y0, self_drawn=True)
        assert (None if got is None else (got.score, got.huxi)) == _brute(hand, melds, win, 0, Y0)
        done += 1
