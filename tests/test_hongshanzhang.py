"""The `hongshanzhang` preset (docs/rules.md section 9; seed 002's 怀化 table "在红山掌的基础上翻").

As `huaihua` (min 15 huxi, 平胡 18, `zimo_15`, 自摸 +1 tun, dealer rule) with its own fans:
红胡 2 (10 <= red <= 12), 十三红 4 (red >= 13, replaces 红胡), 一点朱 3 (red = 1), 黑胡 5
(red = 0), 十八大 3+(big-18) (big >= 18), 十八小 4+(small-18) (small >= 18), 碰碰胡 4, 海底 2;
no 天胡 or 地胡 名堂 (D-16). fan = sum of the fans (or product, `fan_combine: multiply`), 1 for
平胡; score = tun x fan (R-SCORE-2); tun = 1 + (huxi - 15) // 3, +1 for 自摸 (R-SCORE-1).

Every expected number below is computed by hand in the comments. Notation: ``s1..s10`` =
一..十, ``b1..b10`` = 壹..拾; red = points 2, 7, 10 (R-CARD-2). Huxi (section 3): 碰 1/3,
坎 偎 3/6, 跑 6/9, 提 9/12 (small/big); 句 一二三 二七十 3, 壹贰叁 贰柒拾 6, other 句 0; 绞 0; 将 0.
Each holding has 7 门子 (R-WIN-1): 21 cards without a 跑/提, 20 + (number of 跑/提) with them.
"""

from __future__ import annotations

import warnings
from collections import Counter

import numpy as np
import pytest

from paohuzi_env import Win, get_rules
from paohuzi_env.apps.cli import main
from paohuzi_env.game.actions import HU, PENG, is_group
from paohuzi_env.game.engine import Game, check_invariants, play_random_hand
from paohuzi_env.game.rules import FAN_TABLES, PRESETS, SCORING_FAMILIES, preset_names
from tests import holdings as hd
from tests.holdings import H, all_cards, check, evaluate

HSZ = get_rules("hongshanzhang")
NAMES = {"红胡", "十三红", "一点朱", "黑胡", "十八大", "十八小", "碰碰胡", "海底"}


def ev(h: H, rules=HSZ, **flags) -> Win | None:
    return evaluate(h, rules, **flags)


# =============================================================================== fixtures
# ---- red counts (R-SCORE-3: over hand + table + winning card) ---------------------------
# R15: + 绞 s10 s10 b10 (r3), 绞 s2 b2 b2 (r3), 绞 s7 s7 b7 (r3; win b7), all 0 huxi
#      = 18 huxi; red 6+9 = 15; big 9+1+2+1 = 13; small 3+2+1+2 = 8.
R15 = H("s10 s10 b10 s2 b2 b2 s7 s7", hd.TR, "b7")

# ---- big counts -------------------------------------------------------------------------
# B20: + b1 b2 b3 (6, r1), 绞 b10 b10 s10 (0, r3): 27 huxi; red 6; big 15+3+2 = 20; small 1.
B20 = H("b8 b8 b8 b5 b7 b1 b2 b3 b10 b10 s10", hd.TB, "b6")

# ---- small counts -----------------------------------------------------------------------
# S18: + s2 s7 s10 (3, r3), b1 b2 b3 (6, r1): 24 huxi; small 15+3 = 18; big 3; red 8.
S18 = H("s6 s6 s6 s2 s10 s2 s7 s10 b1 b2 b3", hd.TS, "s7")
# S19: + s2 s7 s10 (3, r3), 绞 s5 b5 b5 (0): 18 huxi; small 15+3+1 = 19; big 2; red 7.
S19 = H("s6 s6 s6 s2 s10 s2 s7 s10 s5 b5 b5", hd.TS, "s7")
# S20: + s2 s7 s10 (3, r3), 绞 s5 s5 b5 (0): 18 huxi; small 15+3+2 = 20; big 1; red 7.
S20 = H("s6 s6 s6 s2 s10 s2 s7 s10 s5 s5 b5", hd.TS, "s7")

# ---- 碰碰胡 (no 句, no 绞 among the 7 门子; 坎 count like 偎) --------------------------------

# ---- seed 002's own example: 21 huxi 自摸 海底 黑胡 碰碰胡 ---------------------------------

# ---- huxi boundaries (the 平胡 minimum 18) ------------------------------------------------
# H15B: 偎 b9 (6) + 偎 b1 (6) + 碰 s1 (1) + 碰 s3 (1) + 碰 s8 (1) = 15 huxi; red 0; big 9;
#       small 12. Hand 句s: no 碰碰胡.
H15B = H(hd.HZ, (("wei", "b9 b9 b9"), ("wei", "b1 b1 b1"), ("peng", "s1 s1 s1"),
              ("peng", "s3 s3 s3"), ("peng", "s8 s8 s8")), "s5")

# ---- a dealer's 21 dealt cards (天胡 on its own cards, R-START-2) ------------------------
# T18: 坎 b3 (6), 坎 b9 (6), s1 s2 s3 (3), s2 s7 s10 (3), s4 s5 s6, 绞 s8 s8 b8, b4 b5 b6 (0)
#      = 18 huxi; red s2 s2 s7 s10 = 4; big 3+3+1+3 = 10; small 11.
T18 = H("b3 b3 b3 b9 b9 b9 s1 s2 s3 s2 s7 s10 s4 s5 s6 s8 s8 b8 b4 b5 b6")
# T15: as T18 with 坎 s9 (3) for 坎 b9 (6) = 15 huxi; red 4; big 7; small 14.
T15 = H("b3 b3 b3 s9 s9 s9 s1 s2 s3 s2 s7 s10 s4 s5 s6 s8 s8 b8 b4 b5 b6")
# F15: a forced 天胡 (R-START-1, 5 坎): 坎 s1 s2 s3 s4 s5 (3 each = 15, red 3 from s2) and
#      b4 b5 b6, b7 b8 b9 (0, red 1 from b7) = 15 huxi; red 4; big 6; small 15.
F15 = H("s1 s1 s1 s2 s2 s2 s3 s3 s3 s4 s4 s4 s5 s5 s5 b4 b5 b6 b7 b8 b9")

FIXTURES = {
    "R0": hd.R0, "R1": hd.R1, "R9": hd.R9, "R10": hd.R10, "R12": hd.R12, "R13": hd.R13, "R15": R15,
    "B17": hd.B17, "B18": hd.B18, "B19": hd.B19, "B20": B20,
    "S17": hd.S17, "S18": S18, "S19": S19, "S20": S20, "PP": hd.PP, "E44": hd.E44,
    "H15": hd.H15, "H17": hd.H17, "H18": hd.H18, "H15B": H15B, "T18": T18, "T15": T15, "F15": F15,
}


@pytest.mark.parametrize("key", FIXTURES)
def test_fixtures_are_legal_holdings(key):
    # R-CARD-1: at most 4 copies; R-WIN-1: 21 cards, or 20 + 1 with E44's single 提.
    h = FIXTURES[key]
    total = all_cards(h)
    assert max(total.values()) <= 4
    n_ti = sum(1 for t, _ in h.melds if t in ("ti", "pao"))
    assert sum(total.values()) == (20 + n_ti if n_ti else 21)


# =============================================================================== the preset


def test_preset_values():
    # Section 9: as `huaihua` in everything but the 名堂 family and its fans.
    r, base = HSZ, get_rules("huaihua")
    assert r.name == "hongshanzhang" and r.scoring == "hongshanzhang"
    assert (r.min_huxi, r.pinghu_min_huxi, r.zimo_15, r.zimo_tun) == (15, 18, True, True)
    for f in ("fan_combine", "tianhu_is_zimo", "win_on_own_ti_wei", "hu_on_discard",
              "chi_on_discard", "chou_rule", "chou_blocks_peng", "chou_when_chi_blocked", "dealer_rule"):
        assert getattr(r, f) == getattr(base, f), f
    assert r.fan_combine == "sum"
    assert dict(r.fans) == {
        "红胡": 2, "十三红": 4, "一点朱": 3, "黑胡": 5,
        "十八大": 3, "十八小": 4, "碰碰胡": 4, "海底": 2,
    }
    assert set(dict(r.fans)) == NAMES
    # No 天胡 or 地胡 fan (Decision; D-16).
    for n in ("天胡", "地胡"):
        with pytest.raises(KeyError):
            r.fan(n)
    assert "hongshanzhang" in preset_names() and PRESETS["hongshanzhang"] is r
    assert "hongshanzhang" in SCORING_FAMILIES and FAN_TABLES["hongshanzhang"] == dict(r.fans)


def test_overrides():
    r = get_rules("hongshanzhang", fan_combine="multiply", fans={"海底": 3})
    assert r.fan("海底") == 3 and r.fan("黑胡") == 5
    assert r.overrides() == {"fan_combine": "multiply", "fans": dict(r.fans)}
    with pytest.raises(ValueError):
        get_rules("hongshanzhang", fans={"乌胡": 5})  # a huaihua 名堂, not this family's
    # switching another preset to this family takes its fans
    assert dict(get_rules("huaihua", scoring="hongshanzhang").fans) == dict(HSZ.fans)


# =============================================================================== section 8


def test_seed_002_example_sum_44():
    # tun 1 + (21-15)//3 = 3, +1 自摸 = 4; fans 海底 2 + 黑胡 5 + 碰碰胡 4 = 11; 4 x 11 = 44.
    w = ev(hd.E44, self_drawn=True, haidi=True)
    check(w, 21, 4, 11, 44, ("黑胡", "碰碰胡", "海底", "自摸"), red=0, big=6, small=15)
    assert ("jiang", (12, 12)) in w.groups


def test_seed_002_example_multiply_160():
    # 番上番 (fan_combine: multiply): fans 2 x 5 x 4 = 40; 4 x 40 = 160.
    w = ev(hd.E44, get_rules("hongshanzhang", fan_combine="multiply"), self_drawn=True, haidi=True)
    check(w, 21, 4, 40, 160, ("黑胡", "碰碰胡", "海底", "自摸"))


def test_seed_002_example_in_huaihua():
    # The same hand under `huaihua`: 乌胡 5, 碰碰胡 4, 海底胡 2 -> 4 x 11 = 44; 4 x 40 = 160.
    check(ev(hd.E44, "huaihua", self_drawn=True, haidi=True), 21, 4, 11, 44,
          ("乌胡", "碰碰胡", "海底胡", "自摸"))
    w = ev(hd.E44, get_rules("huaihua", fan_combine="multiply"), self_drawn=True, haidi=True)
    check(w, 21, 4, 40, 160, ("乌胡", "碰碰胡", "海底胡", "自摸"))


# =============================================================================== each 名堂


def test_heihu():
    # R0: 21 huxi -> tun 3; red 0 -> 黑胡 5; 3 x 5 = 15.
    check(ev(hd.R0), 21, 3, 5, 15, ("黑胡",), red=0, big=10, small=11)


def test_yidianzhu():
    # R1: 21 huxi -> tun 3; red 1 -> 一点朱 3; 3 x 3 = 9.
    check(ev(hd.R1), 21, 3, 3, 9, ("一点朱",), red=1, big=10, small=11)


@pytest.mark.parametrize("h, red, big, small", [(hd.R10, 10, 10, 11), (hd.R12, 12, 12, 9)])
def test_honghu_10_to_12(h, red, big, small):
    # 21 huxi -> tun 3; 10 <= red <= 12 -> 红胡 2, which does not grow (huaihua: 2+(red-10));
    # 3 x 2 = 6.
    check(ev(h), 21, 3, 2, 6, ("红胡",), red=red, big=big, small=small)


def test_red_9_is_pinghu():
    # R9: red 9 -> no colour 名堂; 21 huxi >= 18 -> 平胡: tun 3, fan 1, score 3.
    check(ev(hd.R9), 21, 3, 1, 3, (), red=9, big=12, small=9)


def test_shisanhong_replaces_honghu():
    # R13: 21 huxi -> tun 3; red 13 -> 十三红 4 alone (no 红胡 beside it); 3 x 4 = 12.
    check(ev(hd.R13), 21, 3, 4, 12, ("十三红",), red=13, big=12, small=9)
    # R15: 18 huxi -> tun 2; red 15 -> 十三红 still 4 (it does not grow); 2 x 4 = 8.
    check(ev(R15), 18, 2, 4, 8, ("十三红",), red=15, big=13, small=8)


def test_red_12_vs_huaihua():
    # The same R12 under huaihua: 红胡 2 + (12-10) = 4 -> 12 (here 红胡 2 -> 6).
    check(ev(hd.R12, "huaihua"), 21, 3, 4, 12, ("红胡",))


def test_shibada():
    # B17: big 17 -> nothing; red 5; 21 huxi -> 平胡 3 x 1 = 3.
    check(ev(hd.B17), 21, 3, 1, 3, (), red=5, big=17, small=4)
    # B18: big 18 -> 十八大 3; 3 x 3 = 9.
    check(ev(hd.B18), 21, 3, 3, 9, ("十八大",), red=5, big=18, small=3)
    # B19: 十八大 3 + 1 = 4; 3 x 4 = 12 (seed: "19大4番").
    check(ev(hd.B19), 21, 3, 4, 12, ("十八大",), red=5, big=19, small=2)
    # B20: 27 huxi -> tun 1 + 12//3 = 5; 十八大 3 + 2 = 5 ("20大5番"); 5 x 5 = 25.
    check(ev(B20), 27, 5, 5, 25, ("十八大",), red=6, big=20, small=1)


def test_shibaxiao():
    # S17: small 17 -> nothing; 21 huxi -> 平胡 3.
    check(ev(hd.S17), 21, 3, 1, 3, (), red=5, big=4, small=17)
    # S18: 24 huxi -> tun 1 + 9//3 = 4; small 18 -> 十八小 4; 4 x 4 = 16.
    check(ev(S18), 24, 4, 4, 16, ("十八小",), red=8, big=3, small=18)
    # S19: 18 huxi -> tun 2; 十八小 4 + 1 = 5; 2 x 5 = 10 ("18小亦如此").
    check(ev(S19), 18, 2, 5, 10, ("十八小",), red=7, big=2, small=19)
    # S20: 十八小 4 + 2 = 6; 2 x 6 = 12.
    check(ev(S20), 18, 2, 6, 12, ("十八小",), red=7, big=1, small=20)


def test_shibaxiao_16_17_is_no_shiliuxiao():
    # huaihua's 十六小 (small >= 16) does not exist here: S17 is a 十六小 +1 = 5 in huaihua
    # (3 x 5 = 15) but a 平胡 here (3).
    check(ev(hd.S17, "huaihua"), 21, 3, 5, 15, ("十六小",))
    check(ev(hd.S17), 21, 3, 1, 3, ())


def test_pengpenghu():
    # PP: 23 huxi -> tun 1 + 8//3 = 3; red 3, big 9, small 12 -> 碰碰胡 4 only; 3 x 4 = 12.
    check(ev(hd.PP), 23, 3, 4, 12, ("碰碰胡",), red=3, big=9, small=12)
    # 自摸 of s1 onto the pair s1 s1 is a forced 偎 (R-FLOW-2; D-15): 23 - 1 + 3 = 25 huxi
    # -> tun 1 + 10//3 = 4, +1 = 5; still no 句/绞 -> 碰碰胡 4; 5 x 4 = 20.
    check(ev(hd.PP, self_drawn=True), 25, 5, 4, 20, ("碰碰胡", "自摸"))


def test_not_pengpenghu_with_ju_or_jiao():
    # R0 holds 句 s4 s5 s6 and 绞 s8 s8 b8: 黑胡 only (see test_heihu).
    assert "碰碰胡" not in ev(hd.R0).names


def test_haidi():
    # R9 (平胡, 21 huxi, tun 3) on the last wall card: 海底 2; 3 x 2 = 6.
    check(ev(hd.R9, haidi=True), 21, 3, 2, 6, ("海底",))
    # with another 名堂 it adds: R10 红胡 2 + 海底 2 = 4; 3 x 4 = 12.
    check(ev(hd.R10, haidi=True), 21, 3, 4, 12, ("红胡", "海底"))


def test_multiply_with_growing_fan():
    # S20 海底, 番上番: 十八小 6 x 海底 2 = 12; tun 2 -> 24 (sum: 6 + 2 = 8 -> 16).
    rules = get_rules("hongshanzhang", fan_combine="multiply")
    check(ev(S20, rules, haidi=True), 18, 2, 12, 24, ("十八小", "海底"))
    check(ev(S20, haidi=True), 18, 2, 8, 16, ("十八小", "海底"))


# =============================================================================== 平胡 needs 18


def test_pinghu_needs_18():
    # H15 / H17 have no 名堂 and are not 自摸: no win below 18 (R-WIN-3, section 9).
    assert ev(hd.H15) is None
    assert ev(hd.H17) is None
    # H18: 18 huxi -> 平胡: tun 2, fan 1, score 2.
    check(ev(hd.H18), 18, 2, 1, 2, (), red=4, big=12, small=9)


def test_15_with_a_mingtang_wins():
    # H15B: 15 huxi -> tun 1; 黑胡 5; 1 x 5 = 5.
    check(ev(H15B), 15, 1, 5, 5, ("黑胡",), red=0, big=9, small=12)
    # H15 on the last wall card (drawn by another player): 海底 2 is a 名堂 -> 1 x 2 = 2.
    check(ev(hd.H15, haidi=True), 15, 1, 2, 2, ("海底",))


def test_zimo_15():
    # H15 自摸 (zimo_15 on): tun 1 + 1 = 2, fan 1, score 2.
    check(ev(hd.H15, self_drawn=True), 15, 2, 1, 2, ("自摸",))
    # with zimo_15 off a 平胡 自摸 needs 18 again.
    assert ev(hd.H15, get_rules("hongshanzhang", zimo_15=False), self_drawn=True) is None


# =============================================================================== 天胡 / 地胡


def test_tianhu_has_no_mingtang():
    # D-16. A dealer's win on its own 21 cards (R-START-2) with 18 huxi: a 平胡 here,
    # tun 2 x 1 = 2 and no 天胡 in the names (huaihua: 天胡 4 -> 2 x 4 = 8). Not 自摸
    # (tianhu_is_zimo off, as huaihua: "天胡不算自摸").
    check(ev(T18, tianhu=True), 18, 2, 1, 2, (), red=4, big=10, small=11)
    check(ev(T18, "huaihua", tianhu=True), 18, 2, 4, 8, ("天胡",))
    # T15: 15 huxi, red 4, no 名堂 of this table: no win (huaihua: 天胡 4 -> 1 x 4 = 4).
    assert ev(T15, tianhu=True) is None
    check(ev(T15, "huaihua", tianhu=True), 15, 1, 4, 4, ("天胡",))


def test_dihu_has_no_mingtang():
    # D-16. H15 as a 地胡 (the winner has not discarded yet): no 名堂 here -> no win below 18;
    # huaihua: 地胡 3 -> 1 x 3 = 3. The engine passes a non-dealer's 亮张 win to this family as
    # tianhu (it is 地胡 only in the huaihua family): no win either way.
    assert ev(hd.H15, dihu=True) is None
    assert ev(hd.H15, tianhu=True) is None
    check(ev(hd.H15, "huaihua", dihu=True), 15, 1, 3, 3, ("地胡",))
    # with a 名堂 of the table it wins as usual, and 地胡 adds nothing: H15B 黑胡 -> 5.
    check(ev(H15B, dihu=True), 15, 1, 5, 5, ("黑胡",))


def test_forced_tianhu_still_wins():
    # F15: 5 坎 at the deal is a forced win (R-START-1, "直接胡牌") whatever its huxi: 15 huxi
    # -> tun 1; red 4, big 6, small 15: no 名堂 -> fan 1, score 1 (huaihua: 天胡 4 -> 4).
    check(ev(F15, tianhu=True), 15, 1, 1, 1, (), red=4, big=6, small=15)
    check(ev(F15, "huaihua", tianhu=True), 15, 1, 4, 4, ("天胡",))


# =============================================================================== engine & tools


def _greedy_hand(seed: int) -> Game:
    """HU whenever offered, else 碰, else a random 吃/比 group, else a random legal action."""
    deal_ss, act_ss = np.random.SeedSequence(seed).spawn(2)
    g = Game(HSZ, seed=deal_ss)
    rng = np.random.default_rng(act_ss)
    while not g.done:
        check_invariants(g)
        legal = g.legal_actions()
        pick = next((a for a in (HU, PENG) if a in legal), None)
        if pick is None:
            pool = [a for a in legal if is_group(a)] or legal
            pick = pool[int(rng.integers(len(pool)))]
        g.step(pick)
    check_invariants(g)
    return g


def _check_result(g: Game) -> str:
    res = g.result
    assert res is not None
    assert sum(res.scores) == 0  # R-SCORE-2: zero-sum
    if res.winner is None:
        assert res.scores == (0, 0, 0)  # R-END-2
        return "draw"
    w = res.win
    assert w is not None and w.score == w.tun * w.fan >= 1
    assert res.scores[res.winner] == 2 * w.score
    assert all(res.scores[s] == -w.score for s in range(3) if s != res.winner)
    # only this table's 名堂 (D-16: never 天胡 / 地胡)
    assert set(w.names) <= NAMES | {"自摸"}, w.names
    mingtang = [n for n in w.names if n != "自摸"]
    if w.huxi < 18 and res.reason != "tianhu":
        assert mingtang or "自摸" in w.names  # R-WIN-3 / section 9
    if not mingtang:
        assert w.fan == 1
    return res.reason


def test_random_hands_zero_sum():
    # 300 seeded hands of random legal play through the engine, invariants checked at every
    # step (check=True), then 150 greedy hands (HU whenever offered) so that wins are common.
    reasons: Counter = Counter()
    for i in range(300):
        g = play_random_hand("hongshanzhang", seed=i, check=True)
        assert g.rules is HSZ
        reasons[_check_result(g)] += 1
    for i in range(150):
        reasons[_check_result(_greedy_hand(10_000 + i))] += 1
    assert reasons["hu"] > 0 and reasons["draw"] > 0, reasons


def test_cli_score(capsys):
    # `paohuzi score ... --rules hongshanzhang` (cli.py reads the presets from preset_names).
    hand = "s6 s6 s6 s8 s8 s8 b3"
    melds = "ti:b1b1b1b1,peng:s3s3s3,peng:s4s4s4,peng:s5s5s5"
    argv = ["score", hand, "--melds", melds, "--win", "b3", "--self-drawn", "--haidi",
            "--rules", "hongshanzhang"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "hongshanzhang" in out and "黑胡" in out and "= 44 分" in out
    assert main(["score", "s1 s2 s3", "--rules", "hongshanzhang"]) == 1  # no win


def test_pettingzoo_registry():
    import pettingzoo
    from pettingzoo.test import api_test

    e = pettingzoo.make("aec", "paohuzi/hongshanzhang-v0")
    assert e.unwrapped.rules is HSZ
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(pettingzoo.make("aec", "paohuzi/hongshanzhang-v0"), num_cycles=100)
