"""The 王 through the engine and the environment (`yongzhou`, docs/rules.md section 10, R-WANG-1..8).

The evaluator's side (R-WANG-4/6/7) is tests/test_wang_scoring.py; here: the 82-card deal, a
dealt 王 hidden, a drawn 王 shown and kept (then HU or the counts rule), the 亮张 王, 王 never
discarded or claimed, only-自摸 for holders, the 荒庄 payment, the observation v2 and state, and
random-play invariants."""

from __future__ import annotations

import numpy as np
import pytest

import paohuzi_env
from paohuzi_env.encode import observation as O
from paohuzi_env.encode.observation import OBS_SIZE_V2, encode
from paohuzi_env.encode.state import state_size
from paohuzi_env.game.actions import HU, PASS
from paohuzi_env.game.cards import WANG
from paohuzi_env.game.engine import Game, check_invariants, play_random_hand, wang_payments
from tests.deals import D, build_deck, new_game, play

YZ = "yongzhou"
# next's hand: 王 + 一二三 (3) 壹贰叁 (6) 贰柒拾 (6) 二七十 (3) 坎 玖 (6) 肆伍陆 (0) + 四: 24 huxi in six
# groups; a second 王 makes 四王王 a seventh group.
N_WIN = "王 一二三 壹贰叁 贰柒拾 二七十 玖玖玖 肆伍陆 四"
# Deals found by a seeded search for the situation each test needs, then checked by hand.
D_HAND = "二二三三四五六七八八九壹贰叁肆肆陆捌捌捌 肆"  # dealer: 21, 亮张 肆; it discards 八
P_HAND = "一三四五五六六六七八九壹叁伍伍伍陆柒玖拾"
WALL_1 = "王 一一四五七八九九十十十壹贰叁陆柒柒捌拾拾"  # next draws the second 王 first
# next without 王 (at target after a drawn 王) and with two 提 (short of target)
D_2, N_2, P_2 = ("一三四四五七八壹肆肆肆伍陆陆陆陆柒柒捌捌 贰", "叁叁叁 伍伍伍 一一二八八九十壹壹贰捌玖玖拾",
                 "一二二四五五五六六七七九九壹贰叁肆柒捌拾")
W_2 = "王 二三三三四六六七八九十十十贰柒玖玖拾拾 王"  # the dealer discards 四
D_3, N_3, P_3 = ("一二二四五六七七七八九十贰肆陆柒柒捌玖拾 肆", "叁叁叁叁 伍伍伍伍 一一二八八九十十壹贰捌玖",
                 "一二三三三三五五六六九十壹壹壹肆柒柒捌拾")
W_3 = "王 四四四五六七八九贰贰肆陆陆陆捌玖玖拾拾 王"  # the dealer discards 四


def test_wang_1_2_deck_of_82_and_the_deal():
    # R-WANG-1/2: 80 cards + two 王 (id 20); dealer deck[0:21], next [21:41], prev [41:61],
    # wall deck[61:82] (21 cards).
    g = Game(YZ, seed=3, dealer=0)
    assert sorted(g.deck) == sorted(list(range(20)) * 4 + [WANG, WANG])
    deck = g.deck
    for seat, (lo, hi) in ((0, (0, 21)), (1, (21, 41)), (2, (41, 61))):
        assert g.wang[seat] == deck[lo:hi].count(WANG)
        assert sum(g.hands[seat]) + g.wang[seat] == hi - lo or g.n_paoti[seat]
    assert g.num_cards == 82
    # an 80-card deck is refused under yongzhou, and a deck with 王 elsewhere
    with pytest.raises(ValueError, match="82 cards.*2 王"):
        Game(YZ, deck=list(range(20)) * 4, dealer=0)
    with pytest.raises(ValueError, match="80 cards"):
        Game("huaihua", deck=deck, dealer=0)


def test_wang_3_dealt_wang_is_hidden_and_counts_as_held():
    # R-WANG-3: a dealt 王 is only its holder's knowledge; it is a held card (R-GROUP-3).
    g = new_game(D_HAND, N_WIN, P_HAND, WALL_1, rules=YZ)
    assert g.wang == [0, 1, 0] and g.wang_shown == [0, 0, 0]
    assert g.held(1) == 20 and g.view(0).hand_sizes[1] == 20
    v1, v0 = g.view(1), g.view(0)
    assert v1.wang == 1 and v0.wang == 0 and v0.wang_shown == (0, 0, 0)
    x0, x1 = encode(v0), encode(v1)
    assert len(x0) == OBS_SIZE_V2 == 771
    # own 王 / 2; 王 unseen: seat 0 has seen none (2 / 2), seat 1 its own (1 / 2)
    assert (x0[O.OWN_WANG], x0[O.WANG_UNSEEN]) == (0.0, 1.0)
    assert (x1[O.OWN_WANG], x1[O.WANG_UNSEEN]) == (0.5, 0.5)


def test_wang_3_drawn_wang_is_shown_kept_and_then_the_counts_rule():
    # R-WANG-3: the dealer discards 四 (nobody takes it); next draws a 王: shown to all, kept; it
    # cannot win, and now holds 21 > 20: it owes a discard. Nobody else was offered anything.
    g = new_game(D_2, N_2, P_2, W_2, rules=YZ)
    play(g, D("四"))
    assert g.events[-3:-1] == [("discard", 0, D("四")), ("to_discards", 0, D("四"))]
    assert g.events[-1] == ("wang", 1, None)
    assert g.wang == [0, 1, 0] and g.wang_shown == [0, 1, 0]
    assert (g.current_player, g.decision, g.held(1)) == (1, "discard", 21)
    assert WANG not in g.legal_actions() and all(a < 20 for a in g.legal_actions())
    assert g.view(0).wang_shown == (0, 1, 0) and g.view(0).hand_sizes[1] == 21
    x = encode(g.view(2))  # prev sees next's shown 王: unseen 1
    assert x[O.WANG_SHOWN + 2] == 0.5 and x[O.WANG_UNSEEN] == 0.5


def test_wang_3_drawn_wang_by_a_player_short_of_target_owes_nothing():
    # R-WANG-3 + R-GROUP-3: next starts with two 提 (target 21, holds 20): a drawn 王 brings it
    # to 21, no discard; prev draws at once.
    g = new_game(D_3, N_3, P_3, W_3, rules=YZ)
    assert g.n_paoti[1] == 2 and g.held(1) == 20
    play(g, D("四"))
    i = g.events.index(("wang", 1, None))
    assert g.events[i + 1] == ("reveal", 2, D("四"))
    assert g.held(1) == 21 and g.wang[1] == 1


def test_wang_3_5_6_drawn_wang_win_is_offered_to_its_drawer_alone():
    # R-WANG-3/5: next (one 王) draws the second 王: it alone is asked HU (自摸). HU: 四王王 reads
    # best as 坎 四 (3): 24 + 3 = 27 huxi, tun 1 + 12 // 3 = 5; red 8 (二, 贰, 贰柒拾, 二七十):
    # no colour; way 自摸 2 (D-17: no 王吊 on a drawn 王) -> 5 × 1 × 2 = 10, each loser pays.
    g = new_game(D_HAND, N_WIN, P_HAND, WALL_1, rules=YZ)
    play(g, D("八"))
    assert g.events[-1] == ("wang", 1, None)
    assert (g.current_player, g.decision, g.legal_actions()) == (1, "hu", [HU, PASS])
    assert g.offer == (WANG, "draw", 1) and g.view(0).offer == (WANG, "draw", 1)
    assert encode(g.view(1))[O.OFFER_WANG] == 1.0
    h = new_game(D_HAND, N_WIN, P_HAND, WALL_1, rules=YZ)
    play(h, D("八"), HU)
    r = h.result
    assert (r.winner, r.reason, r.win.huxi, r.win.score, r.scores) == (1, "hu", 27, 10, (-10, 20, -10))
    assert r.win.names == ("自摸",)
    # PASS instead: R-CHOU-5 blocks a win on a 王 until its huxi changes; the counts rule
    # then asks for its discard (21 > 20).
    play(g, PASS)
    assert WANG in g.hu_blocked[1] and encode(g.view(1))[O.HU_BLOCKED_WANG] == 1.0
    assert (g.current_player, g.decision) == (1, "discard")


def test_wang_5_holder_is_never_offered_anothers_card():
    # R-WANG-5 over random play: every HU offer to a 王 holder is on its own draw (or, for the
    # dealer, its 21 cards at the start).
    rng = np.random.default_rng(0)
    asked = 0
    for i in range(400):
        g = Game(YZ, seed=i)
        while not g.done:
            s = g.current_player
            if g.decision in ("hu", "tianhu") and g.wang[s]:
                asked += 1
                if g.decision == "hu":
                    assert g.offer is not None and g.offer[1] == "draw" and g.offer[2] == s
                else:
                    assert s == g.dealer
            legal = g.legal_actions()
            g.step(HU if HU in legal else legal[int(rng.integers(len(legal)))])
    assert asked > 0


def test_wang_3_liang_wang_is_the_dealers_shown_card():
    # R-WANG-3: a 亮张 王 is shown, kept by the dealer; nobody else may win on it.
    g = new_game(D_HAND.split()[0], N_WIN.replace("王 ", "一 "), P_HAND, liang="王", rules=YZ)
    assert g.liang == WANG and g.wang == [1, 0, 0] and g.wang_shown == [1, 0, 0]
    assert g.events[0] == ("liang", 0, WANG)
    assert (g.current_player, g.decision, g.held(0)) == (0, "discard", 21)
    x = encode(g.view(1))
    assert x[O.LIANG_WANG] == 1.0 and x[O.LIANG: O.LIANG + 20].sum() == 0
    assert x[O.WANG_SHOWN + 2] == 0.5  # the dealer is seat 1's previous player


def test_wang_8_payments_worked_examples():
    # R-WANG-8: each 王 in a hand at 荒庄 costs its holder 5 to every seat holding none.
    # docs/rules.md: one 王 in seat 1's hand -> seat 1 −10, the other two +5 each; one in seat 1's
    # and one in seat 2's -> seat 0 +10, seats 1 and 2 −5. Both 王 in seat 0's: −20, +10, +10.
    assert wang_payments([0, 1, 0]) == (5, -10, 5)
    assert wang_payments([0, 1, 1]) == (10, -5, -5)
    assert wang_payments([2, 0, 0]) == (-20, 10, 10)
    assert wang_payments([0, 0, 0]) == (0, 0, 0)


def test_wang_8_huangzhuang_in_play_pays_and_random_play_invariants():
    draws = wins = 0
    for i in range(600):
        g = play_random_hand(YZ, seed=i, check=True)
        r = g.result
        if r.winner is None:
            draws += 1
            assert sum(g.wang) == 2  # the wall is empty: both 王 are in hands
            assert r.scores == wang_payments(g.wang) and sum(r.scores) == 0
        else:
            wins += 1
    assert draws > 50 and wins > 50


def test_yongzhou_env_and_state():
    env = paohuzi_env.env(rules=YZ)
    env.reset(seed=2)
    raw = env.unwrapped
    assert raw.obs_version == "paohuzi-obs-v2"
    assert env.observation_space("player_0")["observation"].shape == (OBS_SIZE_V2,)
    assert raw.state().shape == (state_size(YZ),) == (OBS_SIZE_V2 + 166,)
    rng = np.random.default_rng(1)
    for agent in env.agent_iter():
        obs, rew, term, trunc, _ = env.last()
        assert obs["observation"].shape == (OBS_SIZE_V2,)
        assert 0.0 <= obs["observation"].min() and obs["observation"].max() <= 1.0
        s = raw.state()
        assert 0.0 <= s.min() and s.max() <= 1.0
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    # presets without 王 keep paohuzi-obs-v1
    assert paohuzi_env.raw_env(rules="huaihua").obs_version == "paohuzi-obs-v1"


def test_build_deck_with_wang_layout():
    deck = build_deck(D_HAND, N_WIN, P_HAND, wall="王", wang=2)
    assert len(deck) == 82 and deck.count(WANG) == 2 and deck[61] == WANG
    with pytest.raises(ValueError, match="王 x3"):
        build_deck(D_HAND, N_WIN, P_HAND, wall="王 王", wang=2)
    check_invariants(Game(YZ, deck=deck, dealer=0))
