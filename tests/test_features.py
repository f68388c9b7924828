"""The wait features (paohuzi_env/encode/features.py, paohuzi-waits-v1): a holding worked out by hand,
the compiled core against the readable reference on every preset, and bad input."""

from __future__ import annotations

import dataclasses
import os

import numpy as np
import pytest

from paohuzi_env import fast
from paohuzi_env.encode.features import (
    LIVE_AFTER,
    POINTS_AFTER,
    READY_AFTER,
    WAIT_FEATURES,
    WIN_NOW,
    wait_features,
)
from paohuzi_env.game.cards import parse
from paohuzi_env.game.engine import Game
from paohuzi_env.game.rules import get_rules, preset_names

needs_core = pytest.mark.skipif(not fast.available(), reason="needs the compiled core")
HANDS = max(2, round(6 * float(os.environ.get("PAOHUZI_FAST_HANDS", "1"))))
"""Seeded hands per preset in the differential test (``.ci/sanitize`` scales it by 0.4)."""


def _counts(cards: str) -> tuple[int, ...]:
    c = [0] * 20
    for k in parse(cards):
        c[k] += 1
    return tuple(c)


def _view(hand: str):
    """Seat 0 of a huaihua hand, its cards replaced: `hand` concealed, and on its table
    偎 b9 (6 huxi), 偎 b3 (6) and 碰 b1 (3) = 15 huxi; nothing else seen."""
    base = Game("huaihua", seed=0).view(0)
    b1, b3, b9 = parse("b1 b3 b9")
    return dataclasses.replace(
        base, hand=_counts(hand),
        table=((("wei", (b9, b9, b9)), ("wei", (b3, b3, b3)), ("peng", (b1, b1, b1))), (), ()),
        discards=((), (), ()), offer=None, decision="discard", legal=(), bi_groups=(),
        bi_left=0)


READY = "s1 s2 s3 s4 s5 s6 s7 s8 s9 s10 s10"
"""With the table's 3 门子 and 15 huxi, a ready holding (R-WIN-1: 7 门子; R-WIN-3: 15 huxi):
* s10 wins: s1s2s3 (一二三, 3) s4s5s6 s7s8s9 and s10 s10 s10 with the winning card (a 碰-like
  triple, 1; R-WIN-2): 19 huxi;
* b10 wins: 绞 s10 s10 b10 (0): 18 huxi;
* s2 wins: s1s2s3 (3) s2s7s10 (二七十, 3) s4s5s6 s8s9s10: 21 huxi;
* b1, b3 and b9 win as a 跑胡 (R-WIN-2): a revealed b1 turns the table's 碰 b1 into a 跑, a b3
  or b9 the 偎 into a 跑 or 提 (R-FLOW-3.2), and with a 跑 the win takes one 将 (R-WIN-1):
  s1s2s3 s4s5s6 s7s8s9, 将 s10 s10, and the three table groups, 7 门子, 24 huxi or more;
* no other big card wins: in the hand a big card needs two partners among the hand's cards,
  and the hand holds no big card and two of a small kind only for s10 (so no 句 and no 绞 of
  b2, b4..b8), and the table has no group of those kinds."""


def _kind(card: str) -> int:
    return parse(card)[0]


def _both(view, rules="huaihua"):
    py = wait_features(view, rules)
    if fast.available():
        from paohuzi_env import _fast

        assert np.array_equal(py, _fast.wait_features(view, get_rules(rules)))
    return py


def test_a_ready_holding_by_hand():
    f = _both(_view(READY))
    assert f.shape == (WAIT_FEATURES,) and f.dtype == np.float32
    for card in ("s10", "b10", "s2", "b1", "b3", "b9"):
        assert f[WIN_NOW + _kind(card)] == 1.0, card
    for card in "b2 b4 b5 b6 b7 b8".split():
        assert f[WIN_NOW + _kind(card)] == 0.0, card


def test_discards_that_keep_or_break_the_ready_holding():
    # the ready holding plus a lone b5: discarding b5 leaves it ready. Unseen (nothing else
    # seen): s10 4 - 2 = 2, b10 4, s2 4 - 1 = 3: at least 9 winning copies, capped at 8 -> 1.
    f = _both(_view(READY + " b5"))
    b5 = _kind("b5")
    assert f[READY_AFTER + b5] == 1.0
    assert f[LIVE_AFTER + b5] == 1.0
    assert 0.0 < f[POINTS_AFTER + b5] <= 1.0
    # discarding s1 keeps b5, which can join a group only as 绞 s5 b5 b5 or s5 s5 b5 (the
    # winning card being b5 or s5); the 9 cards left (s2 s3 s4 s6 s7 s8 s9 s10 s10) then make
    # no three groups (the s9 and two s10 need s8, taken by s6s7s8 or s8s9s10 each way); nor
    # does a 跑 of b1, b3 or b9 help: with s10 s10 as its 将, b5 is left with s5 alone
    s1 = _kind("s1")
    assert f[READY_AFTER + s1] == 0.0 and f[LIVE_AFTER + s1] == 0.0 and f[POINTS_AFTER + s1] == 0.0
    # kinds the seat does not hold, and a 坎, have no discard entries
    held = {k for k, n in enumerate(_counts(READY + " b5")) if 1 <= n <= 2}
    for k in range(20):
        if k not in held:
            assert f[READY_AFTER + k] == f[LIVE_AFTER + k] == f[POINTS_AFTER + k] == 0.0


def test_seen_copies_lower_the_live_count():
    # three more s2 and three b10 shown in the others' discard areas: unseen s2 0, b10 1, and
    # s10 2 -> the live count after discarding b5 counts them so
    v = dataclasses.replace(_view(READY + " b5"),
                            discards=((), tuple(parse("s2 s2 s2")), tuple(parse("b10 b10 b10"))))
    f = _both(v)
    b5 = _kind("b5")
    full = wait_features(_view(READY + " b5"), "huaihua")
    assert f[READY_AFTER + b5] == 1.0
    assert f[LIVE_AFTER + b5] < full[LIVE_AFTER + b5]


@needs_core
@pytest.mark.parametrize("preset", preset_names())
def test_core_equals_the_reference(preset):
    """Every seat's view at every step of seeded hands (expert play with random moves mixed
    in): fast.Game.wait_features and _fast.wait_features equal the Python reference."""
    from paohuzi_env import _fast

    rules = get_rules(preset)
    views = ready = 0
    for seed in range(HANDS):
        game = fast.Game(rules, seed=seed)
        rng = np.random.default_rng(seed)
        while not game.done:
            for seat in range(3):
                v = game.view(seat)
                py = wait_features(v, rules)
                assert np.array_equal(py, game.wait_features(seat)), (preset, seed, seat)
                assert np.array_equal(py, _fast.wait_features(v, rules))
                views += 1
                ready += bool(py[READY_AFTER:READY_AFTER + 20].any())
            legal = game.legal_actions()
            game.step(game.expert_action() if rng.random() < 0.8
                      else legal[int(rng.integers(len(legal)))])
        assert np.array_equal(wait_features(game.view(0), rules), game.wait_features(0))
    assert views > 50 * HANDS and ready > 0


@needs_core
def test_bad_input():
    from paohuzi_env import _fast

    game = fast.Game("huaihua", seed=1)
    with pytest.raises(ValueError):
        game.wait_features(3)
    with pytest.raises(ValueError):
        game.wait_features(0, np.zeros(79, np.float32))
    out = np.full(WAIT_FEATURES, 7.0, np.float32)
    assert game.wait_features(0, out) is out or np.array_equal(game.wait_features(0), out)
    with pytest.raises(ValueError, match="hand count"):
        _fast.wait_features(dataclasses.replace(game.view(0), hand=(5,) + (0,) * 19), "huaihua")
    with pytest.raises(ValueError, match="out must be float32"):
        wait_features(game.view(0), "huaihua", np.zeros(80, np.float64))


@needs_core
@pytest.mark.parametrize("preset", ["huaihua", "yongzhou"])
def test_vector_game_batches_the_acting_seats(preset):
    """VectorGame.wait_features: row i is hand i's acting seat's features, as
    fast.Game.wait_features gives them, through steps with hands ending and dealt again."""
    from paohuzi_env import _fast

    assert _fast.WAIT_FEATURES == WAIT_FEATURES
    vg = fast.VectorGame(4, preset, seed=3)
    out = np.full((4, WAIT_FEATURES), 9.0, np.float32)
    for _ in range(40):
        got = vg.wait_features(out)
        assert got is out
        for i in range(4):
            hand = vg.hand(i)
            assert np.array_equal(out[i], hand.wait_features(hand.current_player)), (i, preset)
        vg.step(vg.policy_actions("expert"))
    with pytest.raises(ValueError):
        vg.wait_features(np.zeros((4, 79), np.float32))
    with pytest.raises(ValueError):
        vg.wait_features(np.zeros((4, WAIT_FEATURES), np.float64))
