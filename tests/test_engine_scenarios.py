"""Scripted hands for the engine: one or more scenario per rule of docs/rules.md sections 4–7.

Each test fixes a deal with :func:`tests.deals.new_game` (R-DEAL-1 layout: dealer, next,
prev, then the first wall cards; the dealer's last card is the 亮张), plays actions, and
asserts the decisions, the exact legal action lists and the resulting hands, table groups,
臭 sets and scores. ``play`` runs ``check_invariants`` after every step.

Most tests start from the BASE deal below, built to be *quiet*: the free cards of the three
hands are points 1, 2, 8, 9, 10 only, and the first wall cards are 五, 六 and 肆, which no hand
can group, 碰 or 跑 — so a test changes just the few cards it is about. Turn order with no
take-ins: the dealer (seat 0) discards, then wall card i is drawn by seat (1 + i) % 3.
"""

from __future__ import annotations

import pytest

from paohuzi_env.game.actions import HU, PASS, PENG
from paohuzi_env.game.engine import IllegalActionError
from paohuzi_env.game.rules import get_rules
from tests.deals import D, G, build_deck, cards, hand, new_game, play, table

# The quiet BASE deal (dealer seat 0; 亮张 捌).
#   dealer: 坎 三 七 四 + 五 六 (dead cards) + free cards
#   next:   坎 叁 伍 + free cards          prev: 坎 柒 陆 + free cards
#   wall:   五五五 六六六 肆肆肆肆 (dead), then the 4th 三七叁柒四伍陆 (which 跑/提), 玖 拾
BD = "三三三 七七七 四四四 五六 一二八九九十壹贰贰 捌"
BN = "叁叁叁 伍伍伍 一一二八八九十壹壹贰捌玖玖拾"
BP = "柒柒柒 陆陆陆 一二二八九十十壹贰捌捌玖拾拾"
BW = "五五五六六六肆肆肆肆 三七叁柒四伍陆 玖拾"

FREE_BD = [D(c) for c in "一二五六八九十壹贰捌"]  # the base dealer's discardable kinds


def kinds(spec: str) -> list[int]:
    """Sorted distinct kind ids of some cards."""
    return sorted(set(cards(spec)))


def test_build_deck_layout_and_errors():
    deck = build_deck(BD, BN, BP, BW)
    assert deck[:21] == cards(BD) and deck[20] == D("捌")
    assert deck[21:41] == cards(BN) and deck[41:61] == cards(BP) and deck[61:] == cards(BW)
    # a partial wall is completed with the leftover cards in ascending kind order
    short = build_deck(BD, BN, BP, "五五五")
    assert short[61:64] == cards("五五五") and short[64:] == sorted(short[64:])
    assert sorted(short) == sorted(deck)
    assert build_deck(BD[:-2], BN, BP, BW, liang="捌") == deck
    with pytest.raises(ValueError, match="more than 4"):
        build_deck(BD, BN, BP, "三三")  # five 三
    with pytest.raises(ValueError, match="21 cards"):
        build_deck(BD[:-2], BN, BP)
    with pytest.raises(ValueError, match="next hand needs 20"):
        build_deck(BD, BN + "五", BP)
    with pytest.raises(ValueError, match="dealer"):
        build_deck(BD, BN, BP, dealer=3)


# =========================================================================== 4. start


def test_start_1_tianhu_five_kan_dealer_counts_liang():
    # R-START-1: 4 坎 in hand + the 亮张 九 making a fifth 坎 -> a forced 天胡 at once (no
    # decision). Huxi: five small 坎 = 15; the rest (二八十壹贰捌) forms no group and adds 0.
    g = new_game("一一一三三三七七七四四四九九二八十壹贰捌 九",
                 "叁叁叁伍伍伍二二八八十十壹壹贰贰捌捌玖拾",
                 "柒柒柒陆陆陆一二八十壹贰捌玖玖拾肆肆拾拾")
    assert g.done and g.decision is None and g.legal_actions() == []
    r = g.result
    assert (r.winner, r.reason) == (0, "tianhu")
    # 天胡 4 + 十六小 (18 small cards: 4 + 2) = 10 fan; 15 huxi = 1 tun (天胡 is no 自摸)
    assert (r.win.huxi, r.win.tun, r.win.fan) == (15, 1, 10)
    assert r.win.names == ("天胡", "十六小")
    assert r.scores == (20, -10, -10)
    assert sorted(c for t, c in r.win.groups if t == "kan") == [
        (k, k, k) for k in kinds("一三四七九")
    ]
    assert g.events == [("liang", 0, D("九")), ("hu", 0, ("天胡", "十六小"))]


def test_start_1_three_ti_wins_first_in_seat_order():
    # R-START-1: next has 3 four-of-a-kinds, prev has 5 坎: both are forced 天胡; the order is
    # dealer, next, prev, so next wins. Its other cards (八九十捌玖拾伍陆) do not decompose:
    # huxi = three small 提 = 27 (tun 5), fan 天胡 4.
    g = new_game("四五六六七七八八九九十十壹贰叁肆伍陆柒拾 柒",
                 "一一一一二二二二三三三三八九十捌玖拾伍陆",
                 "壹壹壹叁叁叁贰贰贰捌捌捌玖玖玖柒肆四五拾")
    r = g.result
    assert (r.winner, r.reason, r.win.huxi, r.win.names) == (1, "tianhu", 27, ("天胡",))
    assert r.scores == (-20, 40, -20)
    assert ("loose", tuple(sorted(cards("八九十捌玖拾伍陆")))) in r.win.groups


def test_start_1_classic_tianhu_counts_as_zimo():
    # R-START-1 with `classic`: 天胡 has no fan of its own and counts as 自摸 (+1 tun).
    g = new_game("四五六六七七八八九九十十壹贰叁肆伍陆柒拾 柒",
                 "一一一一二二二二三三三三八九十捌玖拾伍陆",
                 "壹壹壹叁叁叁贰贰贰捌捌捌玖玖玖柒肆四五拾", rules="classic")
    r = g.result
    assert (r.winner, r.win.huxi, r.win.tun, r.win.fan) == (1, 27, 6, 1)
    assert r.win.names == ("天胡", "自摸")


# 亮张 九: the dealer's 21 cards are 7 groups (一二三 3 + 壹贰叁 6 + 贰柒拾 6 = 15 huxi), and
# next's 20 cards + 九 are too (七八九 + 一二三 + 壹贰叁 + 贰柒拾 + 四五六 + 八捌捌 + 六陆陆 = 15).
LIANG_D = "一二三壹贰叁贰柒拾四五六肆伍陆八八捌九玖 九"
LIANG_N = "七八 一二三 壹贰叁 贰柒拾 四五六 捌捌八 陆陆六"
LIANG_P = "四五七七十十十壹叁肆肆伍伍柒拾捌玖玖二三"


def test_start_2_dealer_wins_on_liang():
    # R-START-2: the dealer is asked first; its win is 天胡 (huaihua: 4 fan, no 自摸 tun).
    g = new_game(LIANG_D, LIANG_N, LIANG_P)
    assert (g.current_player, g.decision, g.legal_actions()) == (0, "tianhu", [HU, PASS])
    assert g.view(1).offer == (D("九"), "liang", 0) and g.view(1).legal == ()
    play(g, HU)
    r = g.result
    assert (r.winner, r.reason, r.win.huxi, r.win.names) == (0, "tianhu", 15, ("天胡",))
    assert r.scores == (8, -4, -4)


def test_start_2_order_dealer_then_next_and_chou_hu():
    # R-START-2: dealer, then next; the first HU wins. A non-dealer's 亮张 win is 地胡 in
    # huaihua (section 9). The dealer's PASS makes 九 臭胡 for it (R-CHOU-5).
    g = new_game(LIANG_D, LIANG_N, LIANG_P)
    play(g, PASS)
    assert g.hu_blocked[0] == {D("九")}
    assert (g.current_player, g.decision, g.legal_actions()) == (1, "tianhu", [HU, PASS])
    play(g, HU)
    r = g.result
    assert (r.winner, r.reason, r.win.huxi, r.win.names) == (1, "tianhu", 15, ("地胡",))
    assert r.scores == (-3, 6, -3)


def test_start_2_all_pass_then_play_starts():
    # R-START-2 then R-START-3/4: both PASS; no four-of-a-kind; the dealer owes a discard.
    g = new_game(LIANG_D, LIANG_N, LIANG_P)
    play(g, PASS, PASS)
    assert (g.current_player, g.decision) == (0, "discard")
    assert g.hu_blocked == [{D("九")}, {D("九")}, set()]


def test_start_2_others_win_on_liang_that_makes_dealers_four():
    # R-START-2 (seed 000 "庄家亮张的牌正好构成一提，其他玩家仍然能胡这个亮张牌"): the 亮张 十 gives
    # the dealer four 十, yet next wins on it (八九十); the dealer is not asked (no win).
    g = new_game("十十十 一二三三四五六六七七八九壹贰贰肆伍 十",
                 "八九 一二三 壹贰叁 贰柒拾 四五六 肆伍陆 捌捌八",
                 "一一二二三四四五五六七七八九九壹壹叁叁陆")
    assert (g.current_player, g.decision, g.legal_actions()) == (1, "tianhu", [HU, PASS])
    play(g, HU)
    r = g.result
    assert (r.winner, r.win.huxi, r.win.names, r.scores) == (1, 15, ("地胡",), (-3, 6, -3))


def test_start_3_four_of_a_kind_becomes_ti_and_is_shown():
    # R-START-3: every four-of-a-kind becomes a 提 at once (dealer 四, next 伍), shown to all;
    # R-START-4: the dealer with one 提 holds 21 > 20 and discards; 坎 cards are not offered.
    g = new_game("三三三七七七四四四四 六 一二八九九十壹贰贰 捌",
                 "叁叁叁伍伍伍伍 一一二八八九十壹壹贰捌玖玖",
                 BP,
                 "五五五六六六肆肆肆肆 三七叁柒五拾陆 玖拾")
    assert table(g, 0) == [("ti", "四四四四")] and table(g, 1) == [("ti", "伍伍伍伍")]
    assert g.view(2).table[0] == (("ti", (3, 3, 3, 3)),)
    assert g.view(2).table[1] == (("ti", (14, 14, 14, 14)),)
    assert g.events[1:] == [("ti", 0, D("四")), ("ti", 1, D("伍"))]
    assert (g.current_player, g.decision) == (0, "discard")
    assert g.legal_actions() == [k for k in FREE_BD if k != D("五")]
    assert g.n_paoti == [1, 1, 0]


def test_start_4_dealer_with_two_ti_does_not_discard():
    # R-START-4 (seed 000): the 亮张 七 makes the dealer's second 提: target 21 = held, so no
    # discard; next draws at once (九, which it may 吃).
    g = new_game("三三三 四四四四 七七七 六 一二八九九十壹贰贰 七",
                 BN,
                 "柒柒柒陆陆陆 一二二八五十十壹贰捌捌玖拾拾",
                 "九 五五六六六肆肆肆肆 三五叁柒捌伍陆 玖拾")
    assert table(g, 0) == [("ti", "四四四四"), ("ti", "七七七七")]
    assert g.events == [
        ("liang", 0, D("七")), ("ti", 0, D("四")), ("ti", 0, D("七")), ("reveal", 1, D("九")),
    ]
    assert g.discards == [[], [], []] and sum(g.hands[0]) == 13
    # the dealer holds 九九: the 碰 candidate is asked first (R-CLAIM)
    assert (g.current_player, g.decision, g.legal_actions()) == (0, "claim", [PENG, PASS])


def test_start_4_dealer_with_one_ti_discards():
    # R-START-4: one initial 提 (the 亮张 四 completing it) -> the dealer discards.
    g = new_game("三三三七七七四四四 五六 一二八九九十壹贰贰 四",
                 BN, BP, "五五五六六六肆肆肆肆 三七叁柒捌伍陆 玖拾")
    assert table(g, 0) == [("ti", "四四四四")]
    assert (g.current_player, g.decision) == (0, "discard")
    assert g.legal_actions() == [k for k in FREE_BD if k != D("捌")]


# =========================================================================== 5. turn flow


def pass_claims(g):
    """Answer PASS to every pending claim decision."""
    while g.decision == "claim":
        play(g, PASS)


# The QUIET deal: every wall card (五 伍 六 陆 肆) is dead — no hand can group, 碰, 偎 or 跑 it.
QD = "三三三七七七叁叁叁柒柒柒 肆八捌贰 一二九十 壹"
QN = "捌捌捌贰贰贰 柒叁四 一一二二九十壹玖玖拾拾"
QP = "四四四八八八 三七 一二九九十十壹壹玖玖拾拾"
QW = "五五五五伍伍伍伍六六六六陆陆陆陆肆肆肆"


def test_flow_1_huangzhuang():
    # R-FLOW-1 / R-END-2: the dealer discards 一, next passes its 碰, then all 19 wall cards
    # are shown and untaken (R-FLOW-3.4); the draw that finds the wall empty ends the hand.
    g = new_game(QD, QN, QP, QW)
    play(g, D("一"))
    assert (g.current_player, g.decision, g.legal_actions()) == (1, "claim", [PENG, PASS])
    play(g, PASS)
    r = g.result
    assert g.done and (r.winner, r.win, r.reason, r.scores) == (None, None, "draw", (0, 0, 0))
    assert g.wall_left == 0 and g.events[-1] == ("huangzhuang", None, None)
    reveals = [e for e in g.events if e[0] == "reveal"]
    assert [e[1] for e in reveals] == [1, 2, 0] * 6 + [1]
    # an untaken own draw goes to the drawer's discard area but is no discard (R-CHOU-1)
    assert [len(d) for d in g.discards] == [7, 7, 6]
    assert g.chou[0] == {D("一")} and g.chou[2] == set()


# 海底: prev (叁 柒 坎, 一二三, 二七, 九九玖, 一壹壹, 拾拾十) waits on 十 for 二七十, and the last
# wall card is 十. 18 huxi = 坎 叁 6 + 坎 柒 6 + 一二三 3 + 二七十 3.
HD = "三三三七七七四四四八八八 肆捌贰 一二九十壹 玖"
HN = "捌捌捌贰贰贰 叁柒四八陆 一二九十壹玖玖拾拾"
HP = "叁叁叁柒柒柒 一二三 二七 九九玖 一壹壹 拾拾十"
HW = "五五五五伍伍伍伍六六六六陆陆陆肆肆肆 十"


def test_haidi_win_on_last_wall_card():
    # R-WIN-5 / R-FLOW-3.1: next draws the last wall card 十; prev wins on it: 海底胡, and 地胡
    # (it never played or took a card in); 10 red cards: 红胡 2. (2 tun) x (3 + 2 + 2) = 14.
    g = new_game(HD, HN, HP, HW)
    play(g, D("一"), PASS, PASS)  # prev's 碰 and next's 吃 of 一 (一一壹)
    play(g, PASS)  # next's 吃 伍陆柒 of the dealer's 伍
    assert g.wall_left == 0 and g.offer == (D("十"), "draw", 1)
    assert (g.current_player, g.decision, g.legal_actions()) == (2, "hu", [HU, PASS])
    play(g, HU)
    r = g.result
    assert (r.winner, r.reason, r.win.huxi, r.win.tun) == (2, "hu", 18, 2)
    assert r.win.names == ("地胡", "红胡", "海底胡")
    assert r.scores == (-14, -14, 28)


def test_haidi_not_on_a_discard_after_the_last_draw():
    # R-WIN-5 with hu_on_discard: next 吃s the last wall card 壹 and discards 十; prev wins on
    # that discard. The winning card is not the last wall card: no 海底胡 (engine fix).
    rules = get_rules("huaihua", hu_on_discard=True)
    g = new_game("三三三七七七四四四八八八 肆捌贰 一二九十拾 玖",
                 "捌捌捌贰贰贰 叁柒四八陆 一二九十十壹玖玖拾",
                 HP, HW[:-1] + "壹", rules=rules)
    play(g, D("一"), PASS, PASS)  # prev's 碰 and next's 吃 of 一 (一一壹)
    play(g, PASS)  # next's 吃 伍陆柒 of the dealer's 伍
    assert g.wall_left == 0 and g.offer == (D("壹"), "draw", 1)
    play(g, PASS)  # prev's 碰 of 壹
    assert (g.current_player, g.legal_actions()) == (1, [G("一壹壹"), PASS])
    play(g, G("一壹壹"), D("十"))
    assert (g.current_player, g.decision, g.legal_actions()) == (2, "hu", [HU, PASS])
    play(g, HU)
    r = g.result
    assert (r.winner, r.win.huxi) == (2, 18)
    assert "海底胡" not in r.win.names and r.win.names == ("地胡", "红胡")


def test_flow_2_wei_is_hidden_then_becomes_ti():
    # R-FLOW-2: next draws 一 holding 一一 -> a 偎, automatic, not shown: the others see a 偎
    # of unknown kind; next owes a discard (R-GROUP-3). Its later own 一 turns the 偎 into a
    # 提 (kind shown), and it owes a discard again (first 提: target stays 20).
    g = new_game("三三三 七七七 四四四 五五六 二八九九十壹贰贰 捌",
                 BN,
                 "柒柒柒 陆陆陆 五二二八九十十壹贰捌捌玖拾拾",
                 "一 五 六 一 六六 肆肆肆肆 三七叁柒四伍陆 玖拾")
    play(g, D("五"))
    assert g.events[-1] == ("wei", 1, None)
    assert ("reveal", 1, D("一")) not in g.events
    assert table(g, 1) == [("wei", "一一一")]
    assert g.view(1).table[1] == (("wei", (0, 0, 0)),)
    assert g.view(0).table[1] == (("wei", None),) == g.view(2).table[1]
    assert g.view(0).offer is None
    assert (g.current_player, g.decision) == (1, "discard")
    assert g.legal_actions() == kinds("二八九十壹贰捌玖拾")
    play(g, D("九"))
    # the dealer (九九) may 碰; prev may 吃 九 only as 九九玖: 八九十 would leave its own 九
    # with no 比 group (R-CHI-3)
    assert (g.current_player, g.legal_actions()) == (0, [PENG, PASS])
    play(g, PASS)
    assert (g.current_player, g.legal_actions()) == (2, [G("九九玖"), PASS])
    play(g, PASS)
    # prev draws 五, the dealer 六 (both dead), next draws the 4th 一: 偎 -> 提
    assert g.events[-1] == ("ti", 1, D("一"))
    assert table(g, 1) == [("ti", "一一一一")]
    assert g.view(0).table[1] == (("ti", (0, 0, 0, 0)),)
    assert (g.current_player, g.decision, g.held(1)) == (1, "discard", 21)


def test_flow_2_ti_from_kan_then_chongpao_without_discard():
    # R-FLOW-2 + R-GROUP-3: the dealer draws its 4th 三 -> 提 (first 提: discard owed); later
    # its 4th 七 -> second 提 (重跑/八块): target 21 = held, no discard; next draws at once.
    g = new_game(BD, BN,
                 "柒柒柒 陆陆陆 一二二八五十十壹贰捌捌玖拾拾",
                 "五 六 三 五 六 七 九 六 肆肆肆肆 叁柒四伍陆 玖拾")
    play(g, D("五"))
    assert g.events[-1] == ("ti", 0, D("三"))
    assert (g.current_player, g.decision) == (0, "discard")
    assert g.legal_actions() == kinds("一二六八九十壹贰捌")
    play(g, D("六"))
    assert g.events[-2:] == [("ti", 0, D("七")), ("reveal", 1, D("九"))]
    assert table(g, 0) == [("ti", "三三三三"), ("ti", "七七七七")]
    assert g.n_paoti[0] == 2 and g.held(0) == 21
    assert g.discards[0] == [D("五"), D("六")]
    # the dealer holds 九九: it is the 碰 candidate, asked first (R-CLAIM)
    assert (g.current_player, g.decision, g.legal_actions()) == (0, "claim", [PENG, PASS])


# next holds 坎 壹 + 一二三 四五六 七八九 肆伍陆 柒捌玖 + 拾拾: its own 壹 makes a 提 (12) and a
# complete hand (15 huxi, 将 拾拾).
TD = "一二三四五六七八九十贰贰叁叁肆伍陆柒捌玖 十"
TN = "壹壹壹 一二三 四五六 七八九 肆伍陆 柒捌玖 拾拾"
TP = "一二三四五六七八九十贰贰叁叁肆伍陆柒捌玖"


def test_flow_2_no_win_on_own_ti_by_default():
    # R-FLOW-2: nobody may win on a card that was 提'd: the 提 is made, no HU is offered, and
    # the player owes a discard (first 提).
    g = new_game(TD, TN, TP, "壹")
    play(g, D("十"))
    assert g.current_player == 1
    assert g.legal_actions() == [G("八九十"), G("二七十"), G("十拾拾"), PASS]
    play(g, PASS)
    assert g.events[-1] == ("ti", 1, D("壹"))
    assert (g.current_player, g.decision) == (1, "discard")
    assert g.legal_actions() == kinds("一二三四五六七八九肆伍陆柒捌玖拾")


def test_flow_2_tihu_with_win_on_own_ti_wei():
    # R-FLOW-2 switch `win_on_own_ti_wei`: P is asked HU on its own 提 (自摸), the card read only
    # as that 提. The card is not shown: the others' view has no offer. Score: 15 huxi -> 1
    # tun + 1 自摸 tun; 地胡 3 (it took nothing in, played nothing) -> 6.
    rules = get_rules("huaihua", win_on_own_ti_wei=True)
    g = new_game(TD, TN, TP, "壹", rules=rules)
    play(g, D("十"), PASS)
    assert (g.current_player, g.decision, g.legal_actions()) == (1, "hu", [HU, PASS])
    assert g.view(1).offer == (D("壹"), "draw", 1)
    assert g.view(0).offer is None and g.view(2).offer is None
    assert ("ti", 1, D("壹")) not in g.events
    play(g, HU)
    r = g.result
    assert (r.winner, r.reason, r.win.huxi, r.win.tun, r.win.fan) == (1, "hu", 15, 2, 3)
    assert r.win.names == ("地胡", "自摸")
    assert ("ti", (10,) * 4) in r.win.groups and ("jiang", (19, 19)) in r.win.groups
    assert r.scores == (-6, 12, -6)


def test_flow_2_tihu_declined_then_ti_is_made():
    # R-FLOW-2 + R-CHOU-5: PASS on the 提胡 -> the 提 is made anyway (R-FLOW-5); 壹 becomes
    # 臭胡, but the 提 changes the table huxi (0 -> 12), which lifts it at once.
    rules = get_rules("huaihua", win_on_own_ti_wei=True)
    g = new_game(TD, TN, TP, "壹", rules=rules)
    play(g, D("十"), PASS, PASS)
    assert g.events[-1] == ("ti", 1, D("壹")) and table(g, 1) == [("ti", "壹壹壹壹")]
    assert g.hu_blocked[1] == set()
    assert (g.current_player, g.decision) == (1, "discard")


# Both next (七八 + ...) and prev (八十 + ...) wait on 九; the dealer holds the 4th 九.
#   next: 七八 一二三 壹贰叁 贰柒拾 四五六 三四五 六七八   (+九: 15 huxi)
#   prev: 八十 一二三 壹贰叁 贰柒拾 四五六 捌玖拾 陆陆六   (+九: 15 huxi; 碰 陆 -> 18)
WD = "一二三四五七七八九十十壹叁肆伍陆柒捌捌玖 拾"
WN = "七八 一二三 壹贰叁 贰柒拾 四五六 三四五 六七八"
WP = "八十 一二三 壹贰叁 贰柒拾 四五六 捌玖拾 陆陆六"
WW = "九九陆九"


def test_flow_3_hu_order_drawer_first_then_next():
    # R-FLOW-3.1: a revealed card is offered HU in the order P, next(P), prev(P). next draws
    # 九: its own 自摸 chance comes first; it passes (臭胡, R-CHOU-5) and prev wins: 15 huxi
    # and 地胡 (3) -> 3.
    g = new_game(WD, WN, WP, WW)
    play(g, D("一"))
    pass_claims(g)
    assert g.offer == (D("九"), "draw", 1)
    assert (g.current_player, g.decision, g.legal_actions()) == (1, "hu", [HU, PASS])
    play(g, PASS)
    assert g.hu_blocked[1] == {D("九")}
    assert (g.current_player, g.decision, g.legal_actions()) == (2, "hu", [HU, PASS])
    play(g, HU)
    r = g.result
    assert (r.winner, r.win.huxi, r.win.names, r.scores) == (2, 15, ("地胡",), (-3, -3, 6))


def test_chou_5_declined_hu_until_huxi_changes():
    # R-CHOU-5: both decline HU on 九 -> 九 is 臭胡 for both. Then (R-CHOU-1) both pass their
    # 吃 of it, so prev's own 九 next turn is offered to nobody. The dealer's draw 陆 is 碰'd
    # by prev (R-CLAIM): its table huxi changes (0 -> 3), which lifts its 臭胡; it discards
    # 六, and on the dealer's draw of the last 九 prev is asked HU again (next is not) and
    # wins: 碰 陆 3 + 15 = 18 huxi, 平胡 (no 地胡 after a take-in): 2 tun x 1 = 2.
    g = new_game(WD, WN, WP, WW)
    play(g, D("一"))
    pass_claims(g)
    play(g, PASS, PASS)  # both decline HU on 九
    assert g.hu_blocked == [set(), {D("九")}, {D("九")}]
    assert (g.current_player, g.legal_actions()) == (1, [G("七八九"), PASS])
    play(g, PASS)
    assert (g.current_player, g.legal_actions()) == (2, [G("八九十"), PASS])
    play(g, PASS)
    assert g.chou[1] >= {D("九")} and g.chou[2] >= {D("九")}
    # prev's own 九: no HU (both 臭胡), no 吃 for prev (臭); the dealer may 吃 (九九玖)
    assert g.offer == (D("九"), "draw", 2)
    assert (g.current_player, g.legal_actions()) == (0, [G("九九玖"), PASS])
    play(g, PASS)
    assert g.offer == (D("陆"), "draw", 0)
    assert (g.current_player, g.legal_actions()) == (2, [PENG, PASS])
    play(g, PENG)
    assert table(g, 2) == [("peng", "陆陆陆")] and g.hu_blocked[2] == set()
    assert g.hu_blocked[1] == {D("九")}
    play(g, D("六"))
    pass_claims(g)
    assert g.offer == (D("九"), "draw", 0)
    assert (g.current_player, g.decision, g.legal_actions()) == (2, "hu", [HU, PASS])
    play(g, HU)
    r = g.result
    assert (r.winner, r.win.huxi, r.win.names, r.scores) == (2, 18, (), (-2, -2, 4))


def test_flow_4_no_hu_on_a_discard_by_default():
    # R-FLOW-4.1: the dealer discards 九, which next and prev both wait on: nobody is asked
    # HU (不抓炮); next is only asked its 吃 (七八九).
    g = new_game(WD, WN, WP, WW)
    play(g, D("九"))
    assert (g.current_player, g.decision, g.legal_actions()) == (1, "claim", [G("七八九"), PASS])


def test_flow_4_hu_on_discard_switch():
    # R-FLOW-4.1 with `hu_on_discard`: HU is offered to next(P), then prev(P); not 自摸.
    g = new_game(WD, WN, WP, WW, rules=get_rules("huaihua", hu_on_discard=True))
    play(g, D("九"))
    assert (g.current_player, g.decision, g.legal_actions()) == (1, "hu", [HU, PASS])
    play(g, PASS)
    assert (g.current_player, g.decision, g.legal_actions()) == (2, "hu", [HU, PASS])
    play(g, HU)
    r = g.result
    assert (r.winner, r.win.huxi, r.win.names, r.scores) == (2, 15, ("地胡",), (-3, -3, 6))


def test_flow_3_pao_hu_beats_the_pao():
    # R-FLOW-3 / R-WIN-2 (破跑胡): prev holds 坎 拾 and wins with next's revealed 拾 read as a
    # 跑: 跑 拾 9 + 壹贰叁 6 + 一二三 3 = 18 huxi, 将 捌捌; 地胡 3 -> 2 tun x 3 = 6.
    g = new_game("一二三四五六七八九十壹贰叁肆伍陆柒捌玖十 柒",
                 "一二三四五六七八九十壹贰叁肆伍陆柒捌玖十",
                 "拾拾拾 壹贰叁 一二三 四五六 七八九 肆伍陆 捌捌",
                 "拾")
    play(g, D("十"), PASS)  # next passes its 碰 of 十
    assert g.offer == (D("拾"), "draw", 1)
    assert (g.current_player, g.decision, g.legal_actions()) == (2, "hu", [HU, PASS])
    play(g, HU)
    r = g.result
    assert (r.winner, r.win.huxi, r.win.names, r.scores) == (2, 18, ("地胡",), (-6, -6, 12))
    assert ("pao", (19,) * 4) in r.win.groups and ("jiang", (17, 17)) in r.win.groups


def test_flow_3_pao_from_kan_is_forced_after_hu_pass():
    # R-FLOW-3.2 / R-FLOW-5: declining the win, prev must 跑 (no decision); first 跑 -> it holds
    # 21 > 20 and discards (R-GROUP-3); it may not discard 坎 cards (none left).
    g = new_game("一二三四五六七八九十壹贰叁肆伍陆柒捌玖十 柒",
                 "一二三四五六七八九十壹贰叁肆伍陆柒捌玖十",
                 "拾拾拾 壹贰叁 一二三 四五六 七八九 肆伍陆 捌捌",
                 "拾")
    play(g, D("十"), PASS, PASS)
    assert g.events[-1] == ("pao", 2, D("拾")) and table(g, 2) == [("pao", "拾拾拾拾")]
    assert (g.current_player, g.decision, g.held(2)) == (2, "discard", 21)
    assert g.legal_actions() == kinds("一二三四五六七八九壹贰叁肆伍陆捌")
    assert g.discards[1] == []  # the 跑'd card never reaches the drawer's discard area


# next holds 一一 and 偎s its own 一; prev waits on 一 (二三 + 壹贰叁 贰柒拾 ...: 15 huxi).
VD = "二三三四四五五六七七八九十壹贰肆陆柒捌玖 拾"
VN = "一一 叁叁叁 伍伍伍 八九十 捌玖拾 六 七 二 十 柒 肆"
VP = "二三 壹贰叁 贰柒拾 四五六 肆伍陆 八八捌 玖玖九"
VW = "一陆一"


def test_flow_8_wei_beats_hu_and_hu_beats_the_pao_of_a_wei():
    # R-FLOW-8 (提/偎 > 胡 > 跑): next's own 一 becomes a 偎 at once: it is never shown, so prev,
    # waiting on 一, is not asked. The dealer's later 一 is shown: prev is asked HU before
    # next's forced 跑 of its 偎 (破跑胡), and wins: 15 huxi, 地胡 -> 3.
    g = new_game(VD, VN, VP, VW)
    play(g, D("二"))
    assert g.events[-1] == ("wei", 1, None)
    assert (g.current_player, g.decision) == (1, "discard")
    play(g, D("六"))
    assert (g.current_player, g.legal_actions()) == (2, [G("六六陆"), PASS])
    play(g, PASS)
    assert g.offer == (D("陆"), "draw", 2)
    assert g.current_player == 2
    assert g.legal_actions() == [G("肆伍陆"), G("陆柒捌"), G("六陆陆"), PASS]
    play(g, PASS)
    assert (g.current_player, g.legal_actions()) == (0, [G("六陆陆"), PASS])
    play(g, PASS)
    assert g.offer == (D("一"), "draw", 0)
    assert (g.current_player, g.decision, g.legal_actions()) == (2, "hu", [HU, PASS])
    play(g, HU)
    r = g.result
    assert (r.winner, r.win.huxi, r.win.names, r.scores) == (2, 15, ("地胡",), (-3, -3, 6))
    assert table(g, 1) == [("wei", "一一一")]


def test_flow_3_pao_of_a_wei_on_a_revealed_card():
    # R-FLOW-3.2: the same, prev declining: next's 偎 becomes a 跑 (shown), next discards.
    g = new_game(VD, VN, VP, VW)
    play(g, D("二"), D("六"), PASS, PASS, PASS, PASS)
    assert g.events[-1] == ("pao", 1, D("一"))
    assert table(g, 1) == [("pao", "一一一一")]
    assert g.view(0).table[1] == (("pao", (0, 0, 0, 0)),)
    assert (g.current_player, g.decision, g.held(1)) == (1, "discard", 21)


# next 碰s the dealer's 一; the 4th 一 (from prev) comes later.
PENG_P = "柒柒柒 陆陆陆 五二二八九十十壹贰捌捌玖拾拾"  # BP with 一 -> 五


@pytest.mark.parametrize("wall, drawer", [
    ("五一五六六六肆肆肆肆三七叁柒四伍陆玖拾", 0),  # the dealer draws 一
    ("五五一六六六肆肆肆肆三七叁柒四伍陆玖拾", 1),  # next draws 一 itself
])
def test_flow_3_peng_becomes_pao_on_a_drawn_card(wall, drawer):
    # R-FLOW-3.2: a 碰 on the table becomes a 跑 on a drawn card, whoever drew it (another
    # player, or the 碰's owner itself); first 跑 -> a discard is owed.
    g = new_game(BD, BN, PENG_P, wall)
    play(g, D("一"))
    assert (g.current_player, g.decision, g.legal_actions()) == (1, "claim", [PENG, PASS])
    play(g, PENG)
    assert table(g, 1) == [("peng", "一一一")] and (g.current_player, g.decision) == (1, "discard")
    play(g, D("八"))  # prev may 吃 八: it passes
    pass_claims(g)
    assert g.events[-2:] == [("reveal", drawer, D("一")), ("pao", 1, D("一"))]
    assert table(g, 1) == [("pao", "一一一一")]
    assert (g.current_player, g.decision, g.held(1)) == (1, "discard", 21)


def test_flow_4_peng_never_becomes_pao_on_a_discard():
    # R-FLOW-4.2 (seed 003 碰的跑法): next has 碰 一; prev discards the 4th 一: no 跑, nobody
    # can take it (the dealer discarded 一: 臭), so it stays in prev's discard area.
    g = new_game(BD, BN, BP, BW)
    play(g, D("一"), PENG, D("拾"))
    # prev (十十 拾拾 捌捌 玖) may 碰, or 吃 捌玖拾 (比 十拾拾) or 十拾拾 (比 捌玖拾)
    assert (g.current_player, g.legal_actions()) == (2, [G("捌玖拾"), G("十拾拾"), PENG, PASS])
    play(g, PENG)
    assert (g.current_player, g.decision) == (2, "discard")
    n = len(g.events)
    play(g, D("一"))
    assert g.events[n:n + 3] == [("discard", 2, D("一")), ("to_discards", 2, D("一")),
                                 ("reveal", 0, D("五"))]
    assert table(g, 1) == [("peng", "一一一")] and g.discards[2][0] == D("一")


def test_flow_4_kan_becomes_pao_on_a_discard():
    # R-FLOW-4.2: the dealer holds 坎 三; prev 碰s the dealer's 十 and discards the 4th 三:
    # the dealer must 跑 (first 跑 -> it discards again).
    g = new_game(BD, BN, "柒柒柒 陆陆陆 三二二八九十十壹贰捌捌玖拾拾",
                 "五五五六六六肆肆肆肆一七叁柒四伍陆玖拾")
    play(g, D("十"))
    assert (g.current_player, g.legal_actions()) == (2, [PENG, PASS])  # peng first
    play(g, PENG, D("三"))
    assert g.events[-2:] == [("discard", 2, D("三")), ("pao", 0, D("三"))]
    assert table(g, 0) == [("pao", "三三三三")]
    assert (g.current_player, g.decision, g.held(0)) == (0, "discard", 21)


def test_flow_4_wei_becomes_pao_on_a_discard():
    # R-FLOW-4.2: next has a 偎 of 一; prev 碰s next's 二 and discards the 4th 一 -> next's 偎
    # becomes a 跑, shown.
    g = new_game("三三三 七七七 四四四 五五六 二八九九十壹贰贰 捌", BN, BP,
                 "一 五五 六六六 肆肆肆肆 三七叁柒四伍陆 玖拾")
    play(g, D("五"))
    assert table(g, 1) == [("wei", "一一一")]
    play(g, D("二"))
    assert (g.current_player, g.legal_actions()) == (2, [PENG, PASS])
    play(g, PENG, D("一"))
    assert g.events[-2:] == [("discard", 2, D("一")), ("pao", 1, D("一"))]
    assert g.view(0).table[1] == (("pao", (0, 0, 0, 0)),)
    assert (g.current_player, g.decision) == (1, "discard")


def test_flow_4_zipai_discard_offers_peng_but_no_chi():
    # R-FLOW-4.3 with `chi_on_discard` off (zipai): next holds 八八 九十 捌 (under huaihua it may
    # 碰 the dealer's 八 or 吃 it with 九十 or 八捌) and is asked only PENG or PASS. It passes:
    # with `chou_rule: chi` (R-CHOU-1) a passed 碰 makes no 臭, but it is a declined 碰
    # (R-CHOU-3); the dealer's own discard makes no 臭 either. The card stays in the discard
    # area and next draws.
    g = new_game(BD, BN, BP, BW, rules="huaihua")
    play(g, D("八"))
    assert (g.current_player, g.legal_actions()) == (1, [G("八九十"), G("八八捌"), PENG, PASS])
    g = new_game(BD, BN, BP, BW, rules="zipai")
    play(g, D("八"))
    assert (g.current_player, g.legal_actions()) == (1, [PENG, PASS])
    play(g, PASS)
    assert g.events[1:4] == [("discard", 0, D("八")), ("to_discards", 0, D("八")),
                             ("reveal", 1, D("五"))]
    assert g.chou == [set(), set(), set()] and g.declined_peng[1] == {D("八")}


def test_flow_4_zipai_peng_takes_a_discard():
    # R-FLOW-4.3 (zipai, seed 003 "别家打出一张相同牌叫碰"): next 碰s the dealer's 一.
    g = new_game(BD, BN, BP, BW, rules="zipai")
    play(g, D("一"), PENG)
    assert table(g, 1) == [("peng", "一一一")]
    assert (g.current_player, g.decision, g.held(1)) == (1, "discard", 21)


# next draws 拾 first: prev (拾拾, 捌捌玖) may 碰 it or 吃 捌玖拾; next (十 拾) may 吃 十拾拾.
PASS_W = "拾 五五五六六六肆肆肆肆 三七叁柒四伍陆 玖"


def test_chou_1_zipai_only_a_passed_chi_makes_chou():
    # R-CHOU-1 with `chou_rule: chi` (zipai, seed 003 "可吃而未吃，则这张牌成臭牌"): both seats
    # asked about next's drawn 拾 with a 吃 among their options pass -> 拾 is 臭 for both; the
    # dealer's own discard 五 is not 臭 for it.
    g = new_game(BD, BN, BP, PASS_W, rules="zipai")
    play(g, D("五"))
    assert g.offer == (D("拾"), "draw", 1)
    assert g.current_player == 2 and PENG in g.legal_actions() and G("捌玖拾") in g.legal_actions()
    play(g, PASS)
    assert (g.current_player, g.legal_actions()) == (1, [G("十拾拾"), PASS])
    play(g, PASS)
    assert g.chou == [set(), {D("拾")}, {D("拾")}]
    assert g.declined_peng[2] == {D("拾")}
    # under huaihua the same passes give the same 臭, and the dealer's discard is 臭 for it too
    h = new_game(BD, BN, BP, PASS_W, rules="huaihua")
    play(h, D("五"), PASS, PASS)
    assert h.chou == [{D("五")}, {D("拾")}, {D("拾")}]


def test_flow_6_7_peng_then_discard_then_next_may_chi_and_draws():
    # R-FLOW-6: after a 碰 a player at target discards; R-FLOW-7: its next player may 吃 that
    # discard and draws next. (prev: 八 九 十十 捌捌 -> 八九十 needs 比 八捌捌.)
    g = new_game(BD, BN, BP, BW)
    play(g, D("一"), PENG)
    assert (g.current_player, g.decision, g.held(1)) == (1, "discard", 21)
    assert g.legal_actions() == kinds("二八九十壹贰捌玖拾")
    play(g, D("八"))
    assert (g.current_player, g.decision) == (2, "claim")
    assert g.legal_actions() == [G("八九十"), G("八八捌"), G("八捌捌"), PASS]
    n = len(g.events)
    play(g, PASS)
    assert g.events[n:n + 2] == [("to_discards", 1, D("八")), ("reveal", 2, D("五"))]


def test_flow_6_player_short_of_target_takes_in_without_discarding():
    # R-GROUP-3 / R-FLOW-6 (seed 000 两门提牌): next starts with two 提 -> target 21, it holds 20;
    # its first take-in (碰 一) brings it to 21: no discard, prev draws at once. Its second
    # take-in (碰 十) owes a discard.
    g = new_game(BD, "叁叁叁叁 伍伍伍伍 一一二八八九十十壹贰捌玖",
                 "柒柒柒 陆陆陆 一二二八九十壹壹贰捌捌玖拾拾",
                 "五五五六六六肆肆肆肆三七玖柒四拾陆玖拾")
    assert g.n_paoti[1] == 2 and g.held(1) == 20
    play(g, D("一"))
    assert (g.current_player, g.legal_actions()) == (1, [PENG, PASS])
    n = len(g.events)
    play(g, PENG)
    assert g.events[n:n + 2] == [("peng", 1, D("一")), ("reveal", 2, D("五"))]
    assert g.held(1) == 21 and not any(e[0] == "discard" and e[1] == 1 for e in g.events)
    # quiet draws until the dealer's 4th 三 makes a 提 and it discards 十
    assert (g.current_player, g.decision) == (0, "discard")
    play(g, D("十"))
    # (八九十 would leave 十十 with no 比 group: R-CHI-3)
    assert (g.current_player, g.legal_actions()) == (1, [PENG, PASS])
    play(g, PENG)
    assert (g.current_player, g.decision, g.held(1)) == (1, "discard", 22)


# =========================================================================== R-CLAIM

# next draws 九; prev (九九) is the 碰 candidate and may also 吃; next (八八 十 玖玖) may 吃.
CD = "三三三 七七七 四四四 五五六 一二八九十壹贰贰 捌"
CN = "叁叁叁 伍伍伍 一一二八八五十壹壹贰捌玖玖拾"
CP = "柒柒柒 陆陆陆 九二二八九十十壹贰捌捌玖拾拾"
CW = "九 五 六六六 肆肆肆肆 三七叁柒四伍陆 玖拾 一"


def claim_game():
    g = new_game(CD, CN, CP, CW)
    play(g, D("五"))
    assert g.offer == (D("九"), "draw", 1)
    # R-CLAIM order: the 碰 candidate first (prev), then the 吃 candidates P, next(P)
    assert (g.current_player, g.decision) == (2, "claim")
    assert g.legal_actions() == [G("八九十"), G("九九玖"), PENG, PASS]
    return g


def test_claim_peng_beats_chi_and_unasked_players_get_no_chou():
    # R-CLAIM / R-FLOW-8 (碰 > 吃): prev's 碰 wins; next, whose 吃 could not win the card any
    # more, is not asked and gets no 臭 (seed 000 特殊 1).
    g = claim_game()
    play(g, PENG)
    assert table(g, 2) == [("peng", "九九九")]
    assert (g.current_player, g.decision) == (2, "discard")
    assert g.chou == [{D("五")}, set(), set()]
    assert g.declined_peng[2] == set()


def test_claim_drawer_chi_beats_next_chi():
    # R-CLAIM: prev answers 吃 八九十 (+ compulsory 比 九九玖); next, the drawer, is asked after it
    # and its 吃 wins (the drawer before its next player). prev's losing claim brings no 臭;
    # it did decline its 碰 (R-CHOU-3: 忍碰, the engine's reading of 吃-instead-of-碰).
    g = claim_game()
    play(g, G("八九十"))
    assert (g.current_player, g.decision, g.legal_actions()) == (2, "bi", [G("九九玖"), PASS])
    assert g.view(2).bi_groups == (tuple(cards("八九十")),) and g.view(2).bi_left == 2
    play(g, G("九九玖"))
    assert (g.current_player, g.decision) == (1, "claim")
    assert g.legal_actions() == [G("八九十"), G("九玖玖"), PASS]
    play(g, G("八九十"))
    assert table(g, 1) == [("chi", "八九十")] and table(g, 2) == []
    assert hand(g, 2).count("九") == 2  # nothing of prev's answer was applied
    assert g.chou[2] == set() and g.declined_peng[2] == {D("九")}
    assert (g.current_player, g.decision) == (1, "discard")


def test_claim_next_chi_wins_when_drawer_passes():
    # R-CLAIM: prev's 吃 (with its 比) is applied when the drawer passes; the drawer gets 臭.
    g = claim_game()
    play(g, G("九九玖"), G("八九十"), PASS)
    assert table(g, 2) == [("chi", "九九玖"), ("chi", "八九十")]
    assert g.events[-2:] == [("chi", 2, (8, 8, 18)), ("bi", 2, (7, 8, 9))]
    assert g.chou[1] == {D("九")} and g.chou[2] == set()
    assert (g.current_player, g.decision) == (2, "discard")


def test_claim_all_pass_gives_chou_and_card_goes_to_discard_area():
    # R-CLAIM / R-CHOU-1 / R-FLOW-3.4: both pass -> 臭 for both, 忍碰 for prev; 九 lies in the
    # drawer's discard area and prev draws.
    g = claim_game()
    play(g, PASS, PASS)
    assert g.chou[1] == {D("九")} and g.chou[2] == {D("九")}
    assert g.declined_peng[2] == {D("九")}
    assert g.discards[1][0] == D("九")
    assert ("reveal", 2, D("五")) in g.events


@pytest.mark.parametrize("answer", [
    [PASS],
    [G("八九十"), G("九九玖")],
    [G("九九玖"), G("八九十")],
    [G("八九十"), PASS],  # 吃, then PASS in the 比 chain: the whole answer is PASS (R-CHI-3)
])
def test_claim_answers_are_hidden_from_later_asked_players(answer):
    # R-CLAIM: answers stay hidden until the window closes: next's view when it is asked is the
    # same whatever prev answered before it (and so is the dealer's).
    ref = claim_game()
    play(ref, PASS)
    g = claim_game()
    play(g, *answer)
    assert (g.current_player, g.decision) == (1, "claim")
    assert g.view(1) == ref.view(1)
    assert g.view(0) == ref.view(0)


def test_claim_chou_4_closure_is_applied_when_the_window_closes():
    # R-CLAIM + R-CHOU-4: next draws 九; the dealer (九九) is asked its 碰 first, then next
    # itself is reached as a 吃 candidate whose grouping is illegal (八九十 would strand its
    # own 九), then prev (吃). While prev decides, next's own view must not yet show 九 closed
    # (that would reveal the dealer's PASS before the window closes); it does afterwards.
    g = new_game(BD, "叁叁叁 伍伍伍 一一二八八九十壹壹贰捌五六拾",
                 "柒柒柒 陆陆陆 一二二八玖十十壹贰捌捌玖拾拾",
                 "九 五五 六六 玖 肆肆肆肆 三七叁柒四伍陆 玖拾")
    play(g, D("五"))
    assert g.offer == (D("九"), "draw", 1)
    assert (g.current_player, g.legal_actions()) == (0, [PENG, PASS])
    play(g, PASS)
    assert (g.current_player, g.legal_actions()) == (2, [G("八九十"), G("九玖玖"), PASS])
    assert g.view(1).chi_closed == frozenset() and g.chi_closed[1] == set()
    play(g, PASS)
    assert g.view(1).chi_closed == {D("九")}
    assert g.chou == [{D("五"), D("九")}, set(), {D("九")}]


# =========================================================================== R-DISC


def test_disc_1_kan_cards_cannot_be_discarded():
    # R-DISC-1 / R-GROUP-1: the dealer's 坎 三, 七, 四 are not offered.
    g = new_game(BD, BN, BP, BW)
    assert (g.current_player, g.decision, g.legal_actions()) == (0, "discard", FREE_BD)
    with pytest.raises(IllegalActionError, match="not legal"):
        g.step(D("三"))


def test_disc_2_only_kan_cards_left_one_may_be_broken():
    # R-DISC-2: next (4 坎 + 一一 二二 九九 十 拾) 碰s 一 and 二, discarding 十 and 拾, then 偎s its
    # own 九: it owes a discard and holds only 坎 cards -> any of them may go (the 坎 breaks).
    g = new_game("一 三三三 七七七 四 五 八 九 十 壹壹 贰贰 柒 捌捌 玖 拾",
                 "叁叁叁 伍伍伍 陆陆陆 肆肆肆 一一 二二 九九 十 拾",
                 "四四四 六六六 三 七 二 八八 十 壹 贰 柒柒 捌 玖玖 拾",
                 "二五五九")
    play(g, D("一"), PENG, D("十"), PASS)
    assert (g.current_player, g.legal_actions()) == (1, [PENG, PASS])  # prev's 二
    play(g, PENG)
    assert g.legal_actions() == kinds("九拾")
    play(g, D("拾"), PASS)
    assert g.events[-1] == ("wei", 1, None) and hand(g, 1) == "叁叁叁肆肆肆伍伍伍陆陆陆"
    assert (g.current_player, g.decision, g.legal_actions()) == (1, "discard", kinds("叁肆伍陆"))
    play(g, D("叁"))
    assert hand(g, 1) == "叁叁肆肆肆伍伍伍陆陆陆" and D("叁") in g.chou[1]


# A recorded random hand (seed 6983 of play_random_hand; dealer 2) where seat 1's hand is
# just 玖玖 when it draws a 玖: the 偎 empties its hand; it owes a discard but has no card, so
# it skips it (R-DISC-2).
SKIP_DECK = ("五七八四九十拾三一拾七六壹玖四八二九三拾八",
             "五十六一九肆九叁捌一肆壹陆伍四二拾六伍七",
             "叁五壹捌伍壹柒陆十四三叁柒二八玖七贰玖三",
             "叁捌贰十肆陆六柒一贰柒五伍玖贰捌陆肆二")
SKIP_ACTIONS = [2, 58, 6, 58, 2, 21, 10, 58, 16, 58, 9, 60, 49, 3, 60, 60, 17, 60, 58, 4, 42,
                7, 10, 32, 14, 32, 17, 60]


def test_disc_2_empty_hand_skips_the_discard():
    # R-DISC-2 (and check_invariants: after the skip the seat may hold more than target).
    g = new_game(*SKIP_DECK, dealer=2)
    play(g, *SKIP_ACTIONS[:-1])
    assert hand(g, 1) == "玖玖" and g.held(1) == 20
    n = len(g.events)
    play(g, SKIP_ACTIONS[-1])
    ev = g.events[n:]
    i = ev.index(("wei", 1, None))
    assert ev[i + 1] == ("reveal", 2, D("贰"))  # no discard: next(1) draws at once
    assert g.held(1) == 21 and sum(g.hands[1]) == 0
    assert not any(e[0] == "discard" and e[1] == 1 for e in ev)


# =========================================================================== 6. 吃 and 比


def test_chi_1_kan_cards_never_make_a_chi():
    # R-CHI-1 / R-GROUP-1: next holds 坎 伍伍伍; the dealer's 五 could make 五伍伍 only with 坎
    # cards: no 吃 is offered, and (the hand cannot group 五 at all) nothing is closed.
    g = new_game(BD, BN, BP, BW)
    n = len(g.events)
    play(g, D("五"))
    assert g.events[n:n + 3] == [("discard", 0, D("五")), ("to_discards", 0, D("五")),
                                 ("reveal", 1, D("五"))]
    assert g.chi_closed[1] == set() and g.chou[1] == set()


def test_chi_seed_000_a_bi_in_sequence_or_jiao():
    # R-CHI-1/2, seed 000 (a): hand 一 二二 三三 壹壹; the dealer discards 一. 吃 一二三 -> the
    # other 一 must 比: in 一二三 or 一壹壹 (一一壹 needs two 一). 吃 一一壹 (both 一 out) needs no
    # 比; 吃 一壹壹 leaves 一 for a 比 一二三.
    g = new_game("一 四四四 七七七 肆肆肆 八九十 捌玖拾 贰 柒 五 六 拾",
                 "一 二二 三三 壹壹 伍伍伍 六六 五五 八九 十 捌 陆 叁",
                 "一 二二 三三 壹壹 叁叁 柒柒 陆陆 捌捌 玖玖 贰贰 伍")
    play(g, D("一"))
    assert (g.current_player, g.decision) == (1, "claim")
    assert g.legal_actions() == [G("一二三"), G("一一壹"), G("一壹壹"), PASS]
    play(g, G("一二三"))
    assert (g.current_player, g.decision) == (1, "bi")
    assert g.legal_actions() == [G("一二三"), G("一壹壹"), PASS]
    play(g, G("一壹壹"))
    assert table(g, 1) == [("chi", "一二三"), ("chi", "一壹壹")]
    assert g.events[-2:] == [("chi", 1, (0, 1, 2)), ("bi", 1, (0, 10, 10))]
    assert (g.current_player, g.decision, g.held(1)) == (1, "discard", 21)


def test_chi_seed_000_a_one_jiao_carries_two_copies():
    # R-CHI-2: hand 一一 二三 壹: 吃 一 with 二三, then one 比 一一壹 takes both 一 at once.
    g = new_game("一 四四四 七七七 肆肆肆 八九十 捌玖拾 贰 柒 五 六 拾",
                 "一一 二三 壹 伍伍伍 六六 五五 八九 十 捌 陆 叁 玖 拾",
                 "二二三三壹壹叁叁柒柒陆陆捌捌玖贰贰伍六七")
    play(g, D("一"))
    assert g.legal_actions() == [G("一二三"), G("一一壹"), PENG, PASS]
    play(g, G("一二三"))
    assert g.legal_actions() == [G("一一壹"), PASS] and g.view(1).bi_left == 2
    play(g, G("一一壹"))
    assert table(g, 1) == [("chi", "一二三"), ("chi", "一一壹")]
    assert (g.current_player, g.decision) == (1, "discard")


B_DEALER = "二 四四四 七七七 肆肆肆 八九十 捌玖拾 叁 柒 五 六 拾"
B_NEXT = "一 二二 三三 四 贰贰 伍伍伍 六六 五五 八九 十 捌 陆"
B_PREV = "一一二三三六七八九十壹壹壹贰叁叁陆柒捌玖"


@pytest.mark.parametrize("chi, chain", [
    # 吃 with 贰贰 -> 比 一二三 and 二三四, in either order
    ("二贰贰", [("一二三", ["二三四"]), ("二三四", [])]),
    ("二贰贰", [("二三四", ["一二三"]), ("一二三", [])]),
    # 吃 with 一三 -> 比 二二贰 (done), or 二贰贰 then 二三四, or 二三四 then 二贰贰
    ("一二三", [("二二贰", [])]),
    ("一二三", [("二贰贰", ["二三四"]), ("二三四", [])]),
    ("一二三", [("二三四", ["二贰贰"]), ("二贰贰", [])]),
])
def test_chi_seed_000_b_every_bi_order(chi, chain):
    # R-CHI-2, seed 000 (b): hand 一 二二 三三 四 贰贰, 吃 二. The 碰 is also offered.
    g = new_game(B_DEALER, B_NEXT, B_PREV)
    play(g, D("二"))
    assert g.legal_actions() == [G("一二三"), G("二三四"), G("二二贰"), G("二贰贰"), PENG, PASS]
    play(g, G(chi))
    first = {"二贰贰": ["一二三", "二三四"], "一二三": ["二三四", "二二贰", "二贰贰"]}[chi]
    assert g.decision == "bi" and g.legal_actions() == sorted(G(x) for x in first) + [PASS]
    placed = [chi]
    for group, then in chain:
        play(g, G(group))
        placed.append(group)
        if then:
            assert g.legal_actions() == [G(x) for x in then] + [PASS]
    assert table(g, 1) == [("chi", "".join(sorted(x, key=lambda c: cards(c)[0])))
                           for x in placed]
    assert (g.current_player, g.decision) == (1, "discard")
    assert hand(g, 1).count("二") == 0


C004_DEALER = "三 四四四 七七七 肆肆肆 八九十 捌玖拾 叁 柒 贰 六 拾"
C004_NEXT = "一二三四五 伍伍伍 八八 九 十 捌 玖 拾 壹 贰 六 柒 陆"
C004_PREV = "一一二三五六七八九十壹贰叁肆伍陆柒捌玖拾"


def test_chi_seed_004_bi_is_compulsory():
    # R-CHI-2/3, seed 004: hand 一二三四五, 吃 三 with 四五 -> 比 一二三 is compulsory; 二三四 is
    # no legal 吃 (its 比 cannot be completed).
    g = new_game(C004_DEALER, C004_NEXT, C004_PREV)
    play(g, D("三"))
    assert g.legal_actions() == [G("一二三"), G("三四五"), PASS]
    play(g, G("三四五"))
    assert (g.decision, g.legal_actions()) == ("bi", [G("一二三"), PASS])
    play(g, G("一二三"))
    assert table(g, 1) == [("chi", "三四五"), ("chi", "一二三")]


def test_chi_3_pass_in_bi_chain_cancels_and_counts_as_passed():
    # R-CHI-3: PASS during the 比 chain cancels the whole 吃 (nothing placed) and 三 becomes 臭
    # for the player (R-CHOU-1).
    g = new_game(C004_DEALER, C004_NEXT, C004_PREV)
    play(g, D("三"), G("三四五"), PASS)
    assert table(g, 1) == [] and hand(g, 1).count("三") == 1
    assert D("三") in g.chou[1]
    assert g.discards[0][0] == D("三")
    assert not any(e[0] in ("chi", "bi") for e in g.events)


C001_DEALER = "三 四四四 七七七 肆肆肆 八九十 捌玖拾 叁 柒 贰 六 拾"
C001_NEXT = "二三四五 伍伍伍 八八 九 十 捌 玖 拾 壹 贰 六 柒柒 陆"
C001_PREV = "一二五六七八九十壹贰叁肆伍陆柒捌玖拾二壹"
C001_WALL = "一五三"


def test_chi_seed_001_no_legal_chi_and_chou_4():
    # R-CHI-3 + R-CHOU-4, seed 001: hand 二三四五, 三 appears: no legal 吃 (every group leaves a
    # 三 or a gap), so next is not asked, but 三 becomes closed to its 吃. It later 吃s 一 (with
    # 二三); when 三 shows again it could group it (三四五) yet is not asked.
    g = new_game(C001_DEALER, C001_NEXT, C001_PREV, C001_WALL)
    play(g, D("三"))
    assert g.chi_closed[1] == {D("三")} and g.chou[1] == set()
    assert g.offer == (D("一"), "draw", 1)
    assert (g.current_player, g.legal_actions()) == (1, [G("一二三"), PASS])
    play(g, G("一二三"), D("六"))
    pass_claims(g)
    assert ("reveal", 0, D("三")) in g.events
    i = g.events.index(("reveal", 0, D("三")))
    assert g.events[i + 1] == ("to_discards", 0, D("三"))  # nobody was asked
    assert "三" not in hand(g, 1) and "四五" in hand(g, 1)


def test_chi_seed_001_without_chou_4_switch():
    # The same deal with `classic` (chou_when_chi_blocked off): the later 三 is offered.
    g = new_game(C001_DEALER, C001_NEXT, C001_PREV, C001_WALL, rules="classic")
    play(g, D("三"))
    assert g.chi_closed[1] == set()
    play(g, G("一二三"), D("六"), PASS)  # prev: 六六陆
    assert g.offer == (D("五"), "draw", 2)
    play(g, PASS)  # prev: 五五伍
    assert g.offer == (D("三"), "draw", 0)
    assert (g.current_player, g.legal_actions()) == (1, [G("三四五"), PASS])


# next: 4 small 坎 + 九九 + 十 + 肆 伍伍 陆陆. 吃 肆 needs 比 肆伍陆, taking all of 肆伍伍陆陆.
# (The hand + 肆 would be 7 门子 with only 15 huxi: no win when 肆 is not its own draw.)
K4_DEALER = "一一 六六 七七 八 九 十十 壹壹 贰贰 叁叁 柒柒 拾拾 壹"
K4_NEXT = "二二二 三三三 四四四 五五五 九九 十 肆 伍伍 陆陆"
K4_PREV = "一一 六六 七七 十 壹 贰贰 叁叁 伍 陆陆 玖玖玖 八 肆"


def test_chi_4_chi_refused_when_nothing_would_be_left_to_discard():
    # R-CHI-4: next 偎s its own 九 and discards 十: its free cards are 肆 伍伍 陆陆. On the
    # dealer's 肆, 吃 肆伍陆 + 比 肆伍陆 would leave only 坎 cards while it owes a discard:
    # illegal, so next is not asked (and, huaihua, 肆 is closed to its 吃: R-CHOU-4).
    g = new_game(K4_DEALER, K4_NEXT, K4_PREV, "九捌肆捌")
    play(g, D("八"), PASS)
    assert g.events[-1] == ("wei", 1, None)
    assert g.legal_actions() == kinds("十肆伍陆")
    play(g, D("十"), PASS)  # the dealer's 碰 of 十
    assert g.offer == (D("肆"), "draw", 0)
    assert (g.current_player, g.legal_actions()) == (0, [G("贰叁肆"), PASS])
    play(g, PASS)
    i = g.events.index(("reveal", 0, D("肆")))
    assert g.events[i + 1] == ("to_discards", 0, D("肆"))  # next was not asked
    assert g.chi_closed[1] == {D("肆")} and D("肆") not in g.chou[1]


def test_chi_4_control_same_chi_is_legal_with_a_spare_card():
    # R-CHI-4 control: without the 偎 (first wall card 捌 instead of 九) next still holds 九九
    # 十 after the 吃 and its 比: the 吃 is offered.
    g = new_game(K4_DEALER, K4_NEXT, K4_PREV, "捌捌肆九")
    play(g, D("八"), PASS, PASS)  # next passes 八, the dealer passes 肆
    assert g.offer == (D("肆"), "draw", 0)
    assert (g.current_player, g.legal_actions()) == (1, [G("肆伍陆"), PASS])
    play(g, G("肆伍陆"))
    assert g.legal_actions() == [G("肆伍陆"), PASS]
    play(g, G("肆伍陆"))
    assert table(g, 1) == [("chi", "肆伍陆"), ("chi", "肆伍陆")]
    assert (g.current_player, g.decision) == (1, "discard")
    assert g.legal_actions() == kinds("九十")


# =========================================================================== 7. 臭


OWN_P = "柒柒柒 陆陆陆 一二二八九十五壹贰捌捌玖拾拾"  # BP with one 十 -> 五
OWN_W = "五五十六六六肆肆肆肆三七叁柒四伍陆玖拾"  # the dealer draws 十 (3rd wall card)


def test_chou_1_own_discard_blocks_chi_of_own_draw():
    # R-CHOU-1/2: the dealer discards 十; later it draws 十 itself and could group it (八九十),
    # but 十 is 臭 for it: not asked. next passed its 吃 of 十 (十十拾): 臭 too. Nobody is asked;
    # the untaken own draw is no discard (R-CHOU-1) and changes nothing.
    g = new_game(BD, BN, OWN_P, OWN_W)
    play(g, D("十"))
    assert (g.current_player, g.legal_actions()) == (1, [G("十十拾"), PASS])
    play(g, PASS)
    i = g.events.index(("reveal", 0, D("十")))
    assert g.events[i + 1] == ("to_discards", 0, D("十"))
    assert g.chou[0] == {D("十")} and g.chou[1] == {D("十")}
    # the dealer holds 八 九 and no 十: 吃 八九十 would need no 比; only 臭 stopped it
    assert "八九" in hand(g, 0) and "十" not in hand(g, 0)


CHI_P = "柒柒柒 陆陆陆 一二二八五十十壹贰捌捌玖拾拾"  # BP with 九 -> 五
CHI_W = "九 五五 六六六 肆肆肆肆 三七叁柒四伍陆 玖拾"


def test_chou_1_passed_chi_blocks_later_chi():
    # R-CHOU-1/2: next passes its 吃 of the dealer's 九; when it draws 九 itself it is not
    # asked (臭), only prev (八九十) is.
    g = new_game(BD, BN, CHI_P, CHI_W)
    play(g, D("九"))
    assert g.legal_actions() == [G("八九十"), G("九九玖"), G("九玖玖"), PASS]
    play(g, PASS)
    assert g.chou[1] == {D("九")} and g.chou[0] == {D("九")}
    assert g.offer == (D("九"), "draw", 1)
    assert (g.current_player, g.legal_actions()) == (2, [G("八九十"), PASS])


def test_chou_1_control_unpassed_chi_is_offered():
    # control: the dealer discards 五 instead: it is now the 碰 candidate (九九) and, once it
    # passes, next is asked its 吃.
    g = new_game(BD, BN, CHI_P, CHI_W)
    play(g, D("五"))
    assert g.offer == (D("九"), "draw", 1)
    assert (g.current_player, g.legal_actions()) == (0, [PENG, PASS])
    play(g, PASS)
    assert g.current_player == 1
    assert g.legal_actions() == [G("八九十"), G("九九玖"), G("九玖玖"), PASS]


PENG_D = "三三三 七七七 四四四 五五六 一八九九十壹贰贰 捌"  # BD with 二 -> 五
PENG_N = "叁叁叁 伍伍伍 一一五八八九十壹壹贰捌玖玖拾"  # BN with 二 -> 五
PENG_W = "二 五 六 二 六六 肆肆肆肆 三七叁柒四伍陆 玖拾"  # next draws 二 twice


def test_chou_2_chou_blocks_peng():
    # R-CHOU-2: prev (二二) declines the 碰 of next's 二 -> 臭; on next's second 二 it is not
    # asked again. (Its 吃 二二贰 would strand its other 二: R-CHOU-4 closes 二 as well.)
    g = new_game(PENG_D, PENG_N, BP, PENG_W)
    play(g, D("五"))
    assert g.offer == (D("二"), "draw", 1)
    assert (g.current_player, g.legal_actions()) == (2, [PENG, PASS])
    play(g, PASS)
    assert g.chou[2] == {D("二")} and g.declined_peng[2] == {D("二")}
    assert g.chi_closed[2] == {D("二")}
    i = [k for k, e in enumerate(g.events) if e == ("reveal", 1, D("二"))]
    assert len(i) == 2 and g.events[i[1] + 1] == ("to_discards", 1, D("二"))


def test_chou_2_zipai_chou_does_not_block_peng():
    # R-CHOU-2 with `chou_blocks_peng` off (zipai): the second 二 is offered to 碰 again.
    g = new_game(PENG_D, PENG_N, BP, PENG_W, rules="zipai")
    play(g, D("五"))
    assert (g.current_player, g.legal_actions()) == (2, [PENG, PASS])
    play(g, PASS)
    # `chou_rule: chi`: only 碰 was offered (its 吃 would strand a 二, R-CHOU-4), so no 臭
    assert g.chou[2] == set() and g.chi_closed[2] == {D("二")}
    assert g.offer == (D("二"), "draw", 1)
    assert (g.current_player, g.legal_actions()) == (2, [PENG, PASS])
    play(g, PENG)
    assert table(g, 2) == [("peng", "二二二")]


def test_chou_3_declined_peng_makes_a_chou_wei():
    # R-CHOU-3, seed 000's example: hand 一 二二 三 贰; the previous player (the dealer)
    # discards 二; the player passes (忍碰, and 二 is 臭). Its own later 二 is a 臭偎 (R-CHOU-2:
    # 臭 never stops a 偎): one card face up, so the kind is visible to the others.
    g = new_game("三三三 七七七 四四四 五六 一二八九九十壹贰贰 捌",
                 "叁叁叁 伍伍伍 一二二三八八九十壹贰捌玖玖拾",
                 "柒柒柒 陆陆陆 一一壹八九十十壹贰捌捌玖拾拾",
                 "二 五五五六六六肆肆肆肆 七叁柒四伍陆 玖拾")
    play(g, D("二"))
    assert g.legal_actions() == [G("一二三"), G("二二贰"), PENG, PASS]
    play(g, PASS)
    assert g.chou[1] == {D("二")} and g.declined_peng[1] == {D("二")}
    assert g.events[-1] == ("chou_wei", 1, D("二"))
    assert table(g, 1) == [("chou_wei", "二二二")]
    assert g.view(0).table[1] == (("chou_wei", (1, 1, 1)),)
    assert (g.current_player, g.decision, g.held(1)) == (1, "discard", 21)


def test_dihu_follows_the_first_discard_not_the_first_take_in(monkeypatch):
    # 地胡 in huaihua (section 9, seed 001 "未打牌就算手牌未变动"): a win is 地胡 while the winner has
    # not discarded yet, even after it took cards in without owing a discard. Next (two 提) 碰s
    # 一 and owes no discard: the engine still asks every later HU of next's as 地胡; once next
    # has discarded, no longer. (The deal of the test above; every HU evaluation is recorded.)
    import paohuzi_env.game.engine as engine

    seen: list[tuple[int, bool]] = []
    real = engine.evaluate_counts

    def spy(hand, melds, card, rules, **kw):
        seen.append((sum(hand), kw.get("dihu", False)))
        return real(hand, melds, card, rules, **kw)

    g = new_game(BD, "叁叁叁叁 伍伍伍伍 一一二八八九十十壹贰捌玖",
                 "柒柒柒 陆陆陆 一二二八九十壹壹贰捌捌玖拾拾",
                 "五五五六六六肆肆肆肆三七玖柒四拾陆玖拾")
    play(g, D("一"), PENG)
    assert not g.played[1] and g.held(1) == 21
    monkeypatch.setattr(engine, "evaluate_counts", spy)
    assert g._win_of(1, D("五"), self_drawn=False) is None  # not a winning hand; flag recorded
    assert seen[-1][1] is True
    play(g, D("十"), PENG, g.legal_actions()[0])  # next 碰s 十, then discards
    assert g.played[1]
    g._win_of(1, D("五"), self_drawn=False)
    assert seen[-1][1] is False
