"""Holdings shared by the scoring tests (tests/test_scoring.py, tests/test_hongshanzhang.py):
the holding type ``H``, the checks on a ``Win``, and hand-built holdings whose huxi, red, big
and small counts are worked out by hand in the comments.

Notation: s1..s10 = 一..十, b1..b10 = 壹..拾; red = points 2, 7, 10 (R-CARD-2). Huxi (section
3): 碰 1/3, 坎 偎 3/6, 跑 6/9, 提 9/12 (small/big); 句 一二三 二七十 3, 壹贰叁 贰柒拾 6, other
句 0; 绞 0; 将 0.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from paohuzi_env import Win, evaluate_win
from paohuzi_env.game.cards import parse


@dataclass(frozen=True)
class H:
    """A holding: concealed hand before the winning card, table melds, winning card."""

    hand: str
    melds: tuple = field(default_factory=tuple)
    win: str | None = None


def evaluate(h: H, rules, **flags) -> Win | None:
    """``evaluate_win`` on a holding."""
    return evaluate_win(h.hand, h.melds, h.win, rules=rules, **flags)


def check(w: Win | None, huxi, tun, fan, score, names=(), *, red=None, big=None, small=None):
    """A win with these huxi, tun, fan, score and 名堂 (each once), and the counts if given."""
    assert w is not None, "expected a win"
    assert (w.huxi, w.tun, w.fan, w.score) == (huxi, tun, fan, score), w
    assert Counter(w.names) == Counter(names), w.names
    assert len(w.names) == len(set(w.names))
    if red is not None:
        assert (w.red, w.big, w.small) == (red, big, small), w
    assert w.score == w.tun * w.fan  # R-SCORE-2


def all_cards(h: H) -> Counter:
    """Every card of the holding (hand, table, winning card) by kind."""
    c = Counter(parse(h.hand))
    for _, cards in h.melds:
        c.update(parse(cards))
    if h.win is not None:
        c.update(parse(h.win))
    return c


# ---- red counts (R-SCORE-3: red over the whole winning hand) ----------------------------
# R0: no red card.                                                        huxi
#   table 偎 b1 (6), 碰 b4 (3)                                              9
#   hand 坎 b3 (6), 坎 s9 (3), 坎 s1 (3)                                    12
#   hand s4 s5 s6 (0, win card s5), 绞 s8 s8 b8 (0)                         0
#   = 21 huxi; red 0; big 3+3+3+1 = 10; small 3+3+3+2 = 11; 21 cards; not 碰碰胡.
T9 = (("wei", "b1 b1 b1"), ("peng", "b4 b4 b4"))
R0 = H("b3 b3 b3 s9 s9 s9 s1 s1 s1 s4 s6 s8 s8 b8", T9, "s5")
# R1: as R0 with 坎 s1 replaced by 句 s1 s2 s3 (3): 21 huxi, red 1 (s2), big 10, small 11.
R1 = H("b3 b3 b3 s9 s9 s9 s1 s2 s3 s4 s6 s8 s8 b8", T9, "s5")
# TR: table 吃 b2 b7 b10 (6, red 3), 吃 s2 s7 s10 (3, red 3), 碰 b4 (3), 偎 b9 (6)
#     = 18 huxi, red 6, big 9, small 3.
TR = (("chi", "b2 b7 b10"), ("chi", "s2 s7 s10"), ("peng", "b4 b4 b4"), ("wei", "b9 b9 b9"))
# R9:  + s6 s7 s8 (0, r1; win s7), b6 b7 b8 (0, r1), s1 s2 s3 (3, r1)
#      = 21 huxi, red 6+3 = 9, big 9+3 = 12, small 3+6 = 9.
R9 = H("s6 s8 b6 b7 b8 s1 s2 s3", TR, "s7")
# R10: + 绞 s10 s10 b10 (0, r3), s1 s2 s3 (3, r1), s4 s5 s6 (0; win s5)
#      = 21 huxi, red 6+4 = 10, big 9+1 = 10, small 3+8 = 11.
R10 = H("s10 s10 b10 s1 s2 s3 s4 s6", TR, "s5")
# R12: + 绞 s10 s10 b10 (0, r3; win b10), 绞 s2 b2 b2 (0, r3), 坎 s1 (3)
#      = 21 huxi, red 6+6 = 12, big 9+1+2 = 12, small 3+2+1+3 = 9.
R12 = H("s10 s10 s2 b2 b2 s1 s1 s1", TR, "b10")
# R13: + 绞 s10 s10 b10 (0, r3), 绞 s2 b2 b2 (0, r3), s1 s2 s3 (3, r1; win s3)
#      = 21 huxi, red 6+7 = 13, big 12, small 9.
R13 = H("s10 s10 b10 s2 b2 b2 s1 s2", TR, "s3")

# ---- big / small count hands ------------------------------------------------------------
# TB: table 吃 b1 b2 b3 (6, r1), 偎 b9 (6), 碰 b4 (3) = 15 huxi, red 1, big 9.
#     hand 坎 b8 (6), b5 b6 b7 (0, r1; win b6)  -> 21 huxi so far, big 15, red 2.
TB = (("chi", "b1 b2 b3"), ("wei", "b9 b9 b9"), ("peng", "b4 b4 b4"))
# B17: + s4 s5 s6 (0), 绞 b10 b10 s10 (0, r3): 21 huxi, red 5, big 15+2 = 17, small 4.
B17 = H("b8 b8 b8 b5 b7 s4 s5 s6 b10 b10 s10", TB, "b6")
# B18: + 绞 s5 s5 b5 (0), 绞 b10 b10 s10 (0, r3): 21 huxi, red 5, big 15+1+2 = 18, small 3.
B18 = H("b8 b8 b8 b5 b7 s5 s5 b5 b10 b10 s10", TB, "b6")
# B19: + 绞 s3 b3 b3 (0), 绞 b10 b10 s10 (0, r3): 21 huxi, red 5, big 15+2+2 = 19, small 2.
B19 = H("b8 b8 b8 b5 b7 s3 b3 b3 b10 b10 s10", TB, "b6")
# TS: table 吃 s1 s2 s3 (3, r1), 偎 s9 (3), 偎 s4 (3) = 9 huxi, red 1, small 9.
#     hand 坎 s6 (3), s2 s7 s10 (3, r3; win s7), b1 b2 b3 (6, r1) -> 21 huxi, red 5,
#     small 15, big 3.
TS = (("chi", "s1 s2 s3"), ("wei", "s9 s9 s9"), ("wei", "s4 s4 s4"))
# S17: + 绞 s5 s5 b5 (0): 21 huxi, red 5, small 17, big 4.
S17 = H("s6 s6 s6 s2 s10 b1 b2 b3 s5 s5 b5", TS, "s7")

# ---- 碰碰胡 / 对对胡 hands (no 句, no 绞; 坎 count like 偎) ---------------------------------
# PP: table 碰 b1 (3), 碰 s2 (1, r3), 偎 b9 (6); hand 坎 s4 (3), 坎 b5 (6), 坎 s8 (3);
#     hand pair s1 s1 + win s1 from another player = 碰-like triple (1, R-WIN-2)
#     = 3+1+6+3+6+3+1 = 23 huxi; red 3; big 9; small 12.
PP = H("s4 s4 s4 b5 b5 b5 s8 s8 s8 s1 s1",
       (("peng", "b1 b1 b1"), ("peng", "s2 s2 s2"), ("wei", "b9 b9 b9")), "s1")
# Seed 002's 怀化 answer: 21 huxi 自摸 海底 黑胡 碰碰胡.
# E44: table 提 b1 (12), 碰 s3 (1), 碰 s4 (1), 碰 s5 (1); hand 坎 s6 (3), 坎 s8 (3), b3;
#      the winner draws b3 (the last wall card) and it makes the 将 b3 b3 with its single b3.
#      huxi 12 + 1+1+1 + 3+3 + 0 = 21. 7 门子 (提, 3 碰, 2 坎, 将), one 提 -> 21 cards.
#      red 0 (b1 s3 s4 s5 s6 s8 b3 are black); big 4+2 = 6 (<18); small 15 (<16).
#      No 句/绞 -> 碰碰胡.
E44 = H("s6 s6 s6 s8 s8 s8 b3",
        (("ti", "b1 b1 b1 b1"), ("peng", "s3 s3 s3"), ("peng", "s4 s4 s4"),
         ("peng", "s5 s5 s5")), "b3")

# ---- huxi boundary hands ----------------------------------------------------------------
# hand s4 s5 s6 (win s5) and b4 b5 b6: 0 huxi, red 0, small 3, big 3; five table melds:
HZ = "s4 s6 b4 b5 b6"
# H15: 6 + 6 + 碰 s1 (1) + 碰 s3 (1) + 碰 s8 (1) = 15; red 3, big 9, small 12.
H15 = H(HZ, (("chi", "b2 b7 b10"), ("wei", "b9 b9 b9"), ("peng", "s1 s1 s1"),
             ("peng", "s3 s3 s3"), ("peng", "s8 s8 s8")), "s5")
# H17: 6 + 6 + 碰 b1 (3) + 碰 s1 (1) + 碰 s3 (1) = 17; red 3, big 12, small 9.
H17 = H(HZ, (("chi", "b2 b7 b10"), ("wei", "b9 b9 b9"), ("peng", "b1 b1 b1"),
             ("peng", "s1 s1 s1"), ("peng", "s3 s3 s3")), "s5")
# H18: 6 + 6 + 碰 b1 (3) + 偎 s1 (3) + 吃 s7s8s9 (0) = 18; red 4, big 12, small 9.
H18 = H(HZ, (("chi", "b2 b7 b10"), ("wei", "b9 b9 b9"), ("peng", "b1 b1 b1"),
             ("wei", "s1 s1 s1"), ("chi", "s7 s8 s9")), "s5")
