"""The compiled engine (paohuzi_env.backends.fast, paohuzi_env/backends/_core/engine.cpp, observation.cpp,
vector.cpp) against the Python reference, decision by decision.

Differential play: each hand is dealt once (the Python engine's seeded deal) and played on both
engines with the same actions (uniformly random; greedy: HU, 碰, 吃 first; or the compiled
expert). At every decision both must agree on the decision kind, the seat, the legal set, the
card on offer, the acting seat's observation (bit for bit), its action mask and the full
``state()``; on every twentieth hand also on all three seats' views and observations and the
full-information fields. At the end: the result (winner, scores, the scored Win), the events,
the record, and the Python replay of the compiled engine's record.

The default suite plays a sample, 1,000 hands per preset and 200 per rule switch set, in two
worker processes; ``-m slow`` plays the full 20,000 per preset and 4,000 per switch set (about
10 minutes on 2 cores: the Python reference sets the pace) and 1,000,000 hands more.
``PAOHUZI_FAST_HANDS`` scales the sample (``.ci/sanitize`` uses 0.4). Then: VectorGame (shapes
and dtypes, masks equal to the legal sets, the observations and states of the Python engine,
determinism across batch sizes, the reset of finished hands, rewards per mode, clones and
playouts, errors on bad input), and the error semantics of ``fast.Game`` (IllegalActionError
messages, malformed decks and actions).
"""

from __future__ import annotations

import copy
import multiprocessing
import os
import subprocess
import sys
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import numpy as np
import pytest

from paohuzi_env import fast
from paohuzi_env.encode.observation import encode, obs_size
from paohuzi_env.encode.rewards import REWARD_MODES, reward_of
from paohuzi_env.encode.state import encode_state, state_extra, state_size
from paohuzi_env.game.actions import HU, NUM_ACTIONS, PENG, is_group
from paohuzi_env.game.engine import Game, IllegalActionError, check_invariants
from paohuzi_env.game.rules import PRESETS, Rules, get_rules

pytestmark = pytest.mark.skipif(not fast.available(), reason="paohuzi_env._fast is not built")

PRESET_NAMES = ("huaihua", "huaihua-468", "classic", "zipai", "hongshanzhang", "yongzhou")
SWITCHES: dict[str, dict[str, Any]] = {
    # R-FLOW-2 and R-FLOW-4.1 switches on
    "huaihua+tiwei+discardhu": {"win_on_own_ti_wei": True, "hu_on_discard": True},
    # R-CHOU-4 off
    "huaihua-chou_when_chi_blocked": {"chou_when_chi_blocked": False},
    # R-FLOW-4.3: no 吃 of discards, with huaihua's chou_rule any
    "huaihua-chi_on_discard": {"chi_on_discard": False, "chou_rule": "any"},
    # no 15-huxi 自摸 exception
    "huaihua-zimo_15": {"zimo_15": False},
}
SCALE = float(os.environ.get("PAOHUZI_FAST_HANDS", "1"))
CI_HANDS_PRESET = max(20, int(1_000 * SCALE))  # the default suite's sample
CI_HANDS_SWITCH = max(20, int(200 * SCALE))
FULL_HANDS_PRESET, FULL_HANDS_SWITCH = 20_000, 4_000  # -m slow (the former default counts)
SLOW_HANDS = 1_000_000
WORKERS = 2
FULL_EVERY = 20  # every twentieth hand: all three seats' views/observations, fields, replay


def rules_of(name: str) -> Rules:
    if name in SWITCHES:
        return get_rules("huaihua", **SWITCHES[name])
    return get_rules(name)


# ---------------------------------------------------------------------- differential play


def _choose(legal: list[int], policy: str, rng: np.random.Generator, f: fast.Game) -> int:
    if policy == "greedy":  # HU, else 碰, else a random 吃/比 group, else random
        for a in (HU, PENG):
            if a in legal:
                return a
        groups = [a for a in legal if is_group(a)]
        if groups:
            return groups[int(rng.integers(len(groups)))]
    elif policy == "expert":
        return f.expert_action()
    return legal[int(rng.integers(len(legal)))]


def _same_fields(p: Game, f: fast.Game, where: object) -> None:
    assert f.hands == p.hands, where
    assert f.melds == p.melds, where
    assert f.discards == p.discards, where
    assert f.wang == p.wang and f.wang_shown == p.wang_shown, where
    assert (f.wall_pos, f.wall_left, f.liang, f.win_card) == (
        p.wall_pos, p.wall_left, p.liang, p.win_card), where
    assert (f.n_paoti, f.table_cards, f.played) == (p.n_paoti, p.table_cards, p.played), where
    assert [f.chou, f.chi_closed, f.declined_peng, f.hu_blocked] == [
        p.chou, p.chi_closed, p.declined_peng, p.hu_blocked], where
    check_invariants(f)  # type: ignore[arg-type]  # the Python checker reads fast.Game too
    for s in range(3):
        assert f.table_groups(s) == p.table_groups(s), where
        assert f.held(s) == p.held(s), where
        assert f.kind_sets(s) == (
            frozenset(p.chou[s]), frozenset(p.chi_closed[s]),
            frozenset(p.declined_peng[s]), frozenset(p.hu_blocked[s])), where


def play_pair(rules: Rules, seed: int, policy: str, full: bool) -> tuple[int, Counter, str]:
    """Play one hand on both engines; assert agreement; return (decisions, kinds, reason)."""
    deal_ss, act_ss = np.random.SeedSequence(seed).spawn(2)
    p = Game(rules, seed=deal_ss)
    f = fast.Game(rules, deck=p.deck, dealer=p.dealer)
    rng = np.random.default_rng(act_ss)
    n_obs = obs_size(rules)
    kinds: Counter = Counter()
    n = 0
    tag = f"{rules.name} {rules.overrides()} hand seed {seed} ({policy})"
    while not p.done:
        where: object = (tag, "decision", n)  # formatted only when an assertion fails
        s = p.current_player
        assert s is not None
        legal = p.legal_actions()
        assert (f.done, f.decision, f.current_player, f.legal_actions()) == (
            False, p.decision, s, legal), where
        assert f.offer == p.offer, where
        kinds[p.decision] += 1
        obs = encode(p.view(s))
        got = f.state(s)
        assert got[:n_obs].tobytes() == obs.tobytes(), (where, np.nonzero(got[:n_obs] != obs))
        assert got[n_obs:].tobytes() == state_extra(p, s).tobytes(), where
        assert f.observation(s).tobytes() == obs.tobytes(), where
        mask = np.zeros(NUM_ACTIONS, np.int8)
        mask[legal] = 1
        assert np.array_equal(f.action_mask(s), mask), where
        if full:
            for t in range(3):
                view = p.view(t)
                assert f.view(t) == view, (where, t)
                assert f.observation(t).tobytes() == encode(view).tobytes(), (where, t)
                if t != s:
                    assert not f.action_mask(t).any(), where
            _same_fields(p, f, where)
        a = _choose(legal, policy, rng, f)
        p.step(a)
        f.step(a)
        n += 1
    where = (tag, "at the end")
    assert f.done and f.current_player is None and f.decision is None and f.legal_actions() == []
    assert f.result == p.result, where
    assert f.events == p.events, where
    assert f.record() == p.record(), where
    assert f.offer is None
    if full:
        _same_fields(p, f, where)
        for t in range(3):
            assert f.view(t) == p.view(t), where
            assert f.state(t).tobytes() == encode_state(p, t).tobytes(), where
        assert Game.replay(f.record()).events == p.events, where
    assert p.result is not None
    return n, kinds, p.result.reason


def check_range(name: str, start: int, count: int) -> dict[str, Any]:
    """Worker: hands start..start+count-1 of rule set ``name``; the policies rotate (the
    compiled expert, the costliest, on one hand in ten)."""
    rules = rules_of(name)
    policies = ("uniform", "greedy") * 4 + ("uniform", "expert")
    decisions = 0
    kinds: Counter = Counter()
    reasons: Counter = Counter()
    for seed in range(start, start + count):
        n, k, reason = play_pair(rules, seed, policies[seed % len(policies)],
                                 full=seed % FULL_EVERY == 0)
        decisions += n
        kinds.update(k)
        reasons[reason] += 1
    return {"hands": count, "decisions": decisions, "kinds": kinds, "reasons": reasons}


def run_parallel(name: str, hands: int, start: int = 0) -> dict[str, Any]:
    chunk = max(1, -(-hands // (WORKERS * 8)))
    jobs = [(name, s, min(chunk, start + hands - s)) for s in range(start, start + hands, chunk)]
    total: dict[str, Any] = {"hands": 0, "decisions": 0, "kinds": Counter(), "reasons": Counter()}
    # forkserver, not fork: a child forked while another thread of this process holds the
    # allocator's lock (ProcessPoolExecutor runs threads) can deadlock, and does under ASan
    # (.ci/sanitize). Workers start from a clean server process instead.
    methods = multiprocessing.get_all_start_methods()
    ctx = multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")
    with ProcessPoolExecutor(WORKERS, mp_context=ctx) as pool:
        for r in pool.map(check_range, *zip(*jobs)):
            total["hands"] += r["hands"]
            total["decisions"] += r["decisions"]
            total["kinds"].update(r["kinds"])
            total["reasons"].update(r["reasons"])
    return total


@pytest.mark.parametrize("full", [False, pytest.param(True, marks=pytest.mark.slow)],
                         ids=["sample", "full"])
@pytest.mark.parametrize("name", PRESET_NAMES + tuple(SWITCHES))
def test_differential_random_play(name, full):
    hands = (FULL_HANDS_PRESET, FULL_HANDS_SWITCH) if full else (CI_HANDS_PRESET, CI_HANDS_SWITCH)
    hands = hands[0] if name in PRESET_NAMES else hands[1]
    got = run_parallel(name, hands)
    assert got["hands"] == hands
    # the play reaches what it is meant to compare
    assert {"hu", "claim", "bi", "discard"} <= set(got["kinds"]), got["kinds"]
    assert {"hu", "draw"} <= set(got["reasons"]), got["reasons"]


@pytest.mark.slow
@pytest.mark.parametrize("name", PRESET_NAMES + tuple(SWITCHES))
def test_differential_random_play_slow(name):
    # 1,000,000 hands in all: 100,000 per rule set, after the CI ones
    per = SLOW_HANDS // (len(PRESET_NAMES) + len(SWITCHES))
    got = run_parallel(name, per, start=10_000_000)
    assert got["hands"] == per


def test_tianhu_offers_and_start_paths_agree():
    """Deals that reach the rare start paths (a 亮张 HU offer, R-START-2; a forced 天胡,
    R-START-1; a 亮张 王, R-WANG-3) agree too: found by scanning seeds on the Python engine."""
    found: Counter[tuple[str, str]] = Counter()
    for name in ("huaihua", "classic", "yongzhou"):
        rules = get_rules(name)
        for seed in range(3000):
            deal_ss, _ = np.random.SeedSequence(seed).spawn(2)
            p = Game(rules, seed=deal_ss)
            key = ("tianhu" if p.decision == "tianhu" else "forced" if p.done
                   else "liang_wang" if p.liang == 20 else None)
            if key is None or found[name, key] >= 3:
                continue
            found[name, key] += 1
            for policy in ("uniform", "greedy"):
                play_pair(rules, seed, policy, full=True)
    assert found[("huaihua", "tianhu")] + found[("classic", "tianhu")] >= 1, found
    assert found[("yongzhou", "liang_wang")] >= 1, found


def test_forced_tianhu_hand():
    """R-START-1: a deck dealing the dealer five 坎 ends at the deal, on both engines."""
    deck = [k for k in range(5) for _ in range(3)] + [5, 5, 6, 6, 7, 8]
    rest = [k for k in range(20) for _ in range(4)]
    for k in deck:
        rest.remove(k)
    deck = deck + rest
    for name in ("huaihua", "classic", "zipai"):
        p = Game(name, deck=deck, dealer=1)
        f = fast.Game(name, deck=deck, dealer=1)
        assert p.done and f.done
        assert f.result == p.result and f.events == p.events and f.record() == p.record()
        assert f.result is not None and f.result.reason == "tianhu"


# ---------------------------------------------------------------------- fast.Game surface


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_seeded_deal_matches_python(name):
    for seed in (0, 1, 12345, np.random.SeedSequence(7)):
        p, f = Game(name, seed=seed), fast.Game(name, seed=copy.deepcopy(seed))
        assert (f.deck, f.dealer) == (p.deck, p.dealer)
        assert f.record() == p.record()
    p, f = Game(name, seed=3, dealer=2), fast.Game(name, seed=3, dealer=2)
    assert (f.deck, f.dealer) == (p.deck, p.dealer)


def test_core_deals_int_seeds_exactly_as_numpy():
    """fast.Game(rules, seed=int) deals in C++ (numpy_rng.hpp: SeedSequence, PCG64, integers,
    shuffle ported): the (dealer, deck) of numpy.random.default_rng(seed) for every int seed up
    to 2**64 - 1, with 0 or 2 王 and with the dealer drawn or given (engine.draw_deal)."""
    from paohuzi_env import _fast

    rng = np.random.default_rng(20261201)
    seeds = [0, 1, 2**32 - 1, 2**32, 2**63, 2**64 - 1, *range(2, 300)]
    seeds += [int(x) for x in rng.integers(0, 2**63, 300)]
    seeds += [int(x) << 1 for x in rng.integers(0, 2**63, 100)]  # above 2**63 too
    for n_wang in (0, 1, 2):
        cards = np.concatenate([np.repeat(np.arange(20), 4), np.full(n_wang, 20)])
        for seed in seeds:
            r = np.random.default_rng(seed)
            dealer = int(r.integers(3))
            assert _fast.numpy_deal(seed, n_wang) == (dealer, r.permutation(cards).tolist()), seed
            r = np.random.default_rng(seed)
            assert _fast.numpy_deal(seed, n_wang, 1) == (1, r.permutation(cards).tolist()), seed
    for seed in seeds[:60]:
        for name in ("huaihua", "yongzhou"):
            p, f = Game(name, seed=seed), fast.Game(name, seed=seed)
            assert (f.deck, f.dealer) == (p.deck, p.dealer)
    with pytest.raises(ValueError, match="dealer must be a seat"):
        _fast.numpy_deal(1, 0, 3)
    with pytest.raises(ValueError, match="dealer must be a seat"):  # the numpy path's message
        fast.Game("huaihua", seed=1, dealer=3)


def test_illegal_actions_raise_like_python():
    p, f = Game("huaihua", seed=11), fast.Game("huaihua", seed=11)
    legal = p.legal_actions()
    bad = next(a for a in range(NUM_ACTIONS) if a not in legal)
    actions: list[Any] = [bad, np.int64(bad), 3.7, "x", None, -1, 61, 10**30, -(10**30),
                          (legal[0],), (), (legal[0], bad), [legal[0]]]  # no sequence is an action
    for action in actions:
        with pytest.raises(IllegalActionError) as pe:
            p.step(action)
        with pytest.raises(IllegalActionError) as fe:
            f.step(action)
        assert str(fe.value) == str(pe.value)
    assert f.legal_actions() == legal and f.actions == []  # nothing changed
    f.step(np.int64(legal[0]))  # numpy ints are actions
    p.step(legal[0])
    assert f.record() == p.record()
    while not p.done:
        a = p.legal_actions()[0]
        p.step(a)
        f.step(a)
    with pytest.raises(IllegalActionError, match="the hand is over"):
        f.step(0)
    assert f.result == p.result


def test_hot_methods_never_crash_and_serve_subclasses():
    # done / current_player / legal_actions / step are CPython descriptors reading the wrapper's
    # _g slot (bind_engine.cpp): a Game whose __init__ never ran, or whose _g is not an engine,
    # raises; a subclass plays as the Python engine does.
    blank = fast.Game.__new__(fast.Game)
    calls: list[Callable[[], Any]] = [
        lambda: blank.done, lambda: blank.current_player, blank.legal_actions,
        lambda: blank.step(0),
    ]
    for call in calls:
        with pytest.raises(AttributeError, match="no engine"):
            call()
    for wrong in (object(), None):
        blank._g = wrong
        for call in calls:
            with pytest.raises(TypeError, match="not a _fast.Game"):
                call()

    class Sub(fast.Game):
        pass

    s, p = Sub("huaihua", seed=3), Game("huaihua", seed=3)
    rng = np.random.default_rng(3)
    while not p.done:
        assert (s.done, s.current_player, s.legal_actions()) == (
            p.done, p.current_player, p.legal_actions())
        a = int(rng.choice(p.legal_actions()))
        s.step(a)
        p.step(a)
    assert s.done and s.current_player is None and s.legal_actions() == []
    assert s.record() == p.record()


def test_malformed_deals_raise_value_errors():
    deck = Game("huaihua", seed=1).deck
    bads: list[Any] = [deck[:-1], deck + [0], [0] * 80, deck[:-1] + [20], ["a"] + deck[1:],
                       [1.5] + deck[1:], [10**30] + deck[1:]]
    for bad in bads:
        with pytest.raises(ValueError) as pe:
            Game("huaihua", deck=bad, dealer=0)
        with pytest.raises(ValueError) as fe:
            fast.Game("huaihua", deck=bad, dealer=0)
        assert str(fe.value) == str(pe.value)
    for dealer in (-1, 3, 1.0, True, "0"):
        with pytest.raises(ValueError):
            fast.Game("huaihua", deck=deck, dealer=dealer)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        fast.Game("huaihua", deck=deck + [20, 20], dealer=0)  # 王 without the yongzhou deck
    with pytest.raises(ValueError):
        fast.Game("no-such-preset")
    f = fast.Game("huaihua", deck=deck, dealer=0)
    for seat in (-1, 3):
        with pytest.raises(ValueError):
            f.view(seat)
        with pytest.raises(ValueError):
            f.observation(seat)
        with pytest.raises(ValueError):
            f.state(seat)
    with pytest.raises(ValueError):
        f.observation(0, out=np.zeros(10, np.float32))
    with pytest.raises(ValueError):
        f.observation(0, out=np.zeros(763, np.float64))


def test_clone_is_independent_and_playout_leaves_the_hand():
    f = fast.Game("yongzhou", seed=5)
    c = f.clone()
    d = copy.deepcopy(f)
    a = f.legal_actions()[0]
    f.step(a)
    assert c.actions == [] and d.actions == [] and f.actions == [a]
    c.step(a)
    assert c.record() == f.record()
    end = f.playout("random", seed=3)
    assert end.done and not f.done
    assert end.actions[: len(f.actions)] == f.actions
    assert end.record() == f.playout("random", seed=3).record()  # seeded
    assert Game.replay(end.record()).result == end.result
    for policy in ("greedy", "expert"):
        g = f.playout(policy)
        assert Game.replay(g.record()).result == g.result
    with pytest.raises(ValueError):
        f.playout("nobody")


def test_bots_agree_with_python_bots():
    from paohuzi_env.bots.heuristic import ExpertAgent, GreedyAgent

    for name in ("huaihua", "yongzhou"):
        for seed in range(20):
            f = fast.Game(name, seed=seed)
            expert, greedy = ExpertAgent(rules=name), GreedyAgent(rules=name)
            while not f.done:
                seat = f.current_player
                assert seat is not None
                view = f.view(seat)
                assert f.greedy_action() == greedy.act(view)
                a = f.expert_action()
                assert a == expert.act(view)
                f.step(a)


# ---------------------------------------------------------------------- VectorGame


def _python_game(vg: fast.VectorGame, i: int) -> Game:
    return Game.replay(vg.hand(i).record())


@pytest.mark.parametrize("name", ["huaihua", "yongzhou"])
def test_vector_game_shapes_masks_and_encodings(name):
    rules = get_rules(name)
    n = 6
    vg = fast.VectorGame(n, rules, seed=1)
    assert (vg.num_hands, vg.obs_size, vg.state_size) == (n, obs_size(rules), state_size(rules))
    for _ in range(40):
        obs, mask, seat, decision = vg.observe()
        assert obs.shape == (n, obs_size(rules)) and obs.dtype == np.float32
        assert mask.shape == (n, NUM_ACTIONS) and mask.dtype == np.int8
        assert seat.shape == (n,) and seat.dtype == np.int64
        assert decision.shape == (n,) and decision.dtype == np.int64
        states = vg.state()
        assert states.shape == (n, state_size(rules)) and states.dtype == np.float32
        for i in range(n):
            h = vg.hand(i)
            p = _python_game(vg, i)
            assert list(np.flatnonzero(mask[i])) == h.legal_actions() == p.legal_actions()
            assert seat[i] == h.current_player == p.current_player
            kinds = ("tianhu", "hu", "claim", "bi", "discard")
            assert kinds[decision[i]] == h.decision == p.decision
            assert obs[i].tobytes() == encode(p.view(int(seat[i]))).tobytes()
            assert states[i].tobytes() == encode_state(p, int(seat[i])).tobytes()
        rewards, done = vg.step(vg.random_actions())
        assert rewards.shape == (n, 3) and rewards.dtype == np.float32
        assert done.shape == (n,) and done.dtype == np.bool_


def test_vector_game_resets_finished_hands_with_rewards():
    for mode in REWARD_MODES:
        vg = fast.VectorGame(8, "yongzhou", seed=2, reward=mode)
        finished = 0
        deals = [vg.deal_index(i) for i in range(8)]
        assert deals == list(range(8)) or vg.skipped_deals
        while finished < 30:
            rewards, done = vg.step(vg.random_actions())
            for i in np.flatnonzero(done):
                finished += 1
                last = vg.last_hand(int(i))
                assert last is not None
                g, deal = last
                assert deal == deals[i] and g.done
                result = g.result
                assert result is not None
                want = [reward_of(result, s, mode) for s in range(3)]
                assert rewards[i].tolist() == pytest.approx(want, abs=0)
                assert np.array(want, np.float32).tobytes() == rewards[i].tobytes()
                # the slot holds the next deal, fresh
                assert vg.deal_index(int(i)) > deal and vg.hand(int(i)).actions == []
                deals[i] = vg.deal_index(int(i))
                # the finished hand is the Python engine's hand
                assert Game.replay(g.record()).result == result
                deck, dealer = fast.deal(vg.seed, deal, "yongzhou")
                assert (g.deck, g.dealer) == (deck, dealer)
            assert not rewards[~done].any()
        assert vg.hands_finished == finished


def _finished_by_deal(n: int, steps: int, policy: str) -> dict[int, dict[str, Any]]:
    vg = fast.VectorGame(n, "huaihua", seed=99)
    out = {}
    for _ in range(steps):
        _, done = vg.step(vg.policy_actions(policy))
        for i in np.flatnonzero(done):
            last = vg.last_hand(int(i))
            assert last is not None
            out[last[1]] = last[0].record()
    return out


@pytest.mark.parametrize("policy", ["random", "expert"])
def test_vector_game_same_deals_whatever_the_batch(policy):
    a = _finished_by_deal(3, 300, policy)
    b = _finished_by_deal(7, 200, policy)
    common = set(a) & set(b)
    assert len(common) >= 10
    for d in common:
        assert a[d] == b[d], d
    vg1, vg2 = fast.VectorGame(5, "huaihua", seed=4), fast.VectorGame(5, "huaihua", seed=4)
    for _ in range(50):
        a1, a2 = vg1.random_actions(), vg2.random_actions()
        assert np.array_equal(a1, a2)
        r1, d1 = vg1.step(a1)
        r2, d2 = vg2.step(a2)
        assert np.array_equal(r1, r2) and np.array_equal(d1, d2)
    assert np.array_equal(vg1.observe()[0], vg2.observe()[0])
    other = fast.VectorGame(5, "huaihua", seed=5)
    assert [other.hand(i).deck for i in range(5)] != [vg1.hand(i).deck for i in range(5)]


def test_vector_game_bots_clone_playout_and_set_hand():
    vg = fast.VectorGame(4, "huaihua", seed=3)
    for _ in range(10):
        e, g = vg.expert_actions(), vg.greedy_actions()
        for i in range(4):
            h = vg.hand(i)
            assert e[i] == h.expert_action() and g[i] == h.greedy_action()
        vg.step(e)
    c = vg.clone()
    before = [vg.hand(i).record() for i in range(4)]
    r1 = vg.playout("random", seed=8)
    assert [vg.hand(i).record() for i in range(4)] == before  # playouts move nothing
    assert np.array_equal(r1, vg.playout("random", seed=8))
    for i in range(4):
        end = vg.hand(i).playout("random", seed=8)
        assert end.result is not None
        assert r1[i].tolist() == [float(x) for x in end.result.scores]
    vg.step(vg.random_actions())
    assert [c.hand(i).record() for i in range(4)] == before  # the clone did not move
    h = fast.Game("huaihua", seed=123)
    c.set_hand(2, h)
    assert c.hand(2).record() == h.record()
    with pytest.raises(ValueError):
        c.set_hand(0, fast.Game("yongzhou", seed=1))
    done_game = h.playout()
    with pytest.raises(ValueError):
        c.set_hand(0, done_game)
    with pytest.raises(IndexError):
        c.hand(4)


def test_vector_game_rejects_bad_input():
    vg = fast.VectorGame(3, "huaihua", seed=0)
    n = 3
    bad_calls = [
        lambda: vg.observe(obs=np.zeros((n, 763), np.float64)),
        lambda: vg.observe(obs=np.zeros((n, 762), np.float32)),
        lambda: vg.observe(obs=np.zeros((n + 1, 763), np.float32)),
        lambda: vg.observe(obs=np.zeros((763, n), np.float32).T),
        lambda: vg.observe(obs=[[0.0] * 763] * n),  # type: ignore[arg-type]
        lambda: vg.observe(mask=np.zeros((n, NUM_ACTIONS), np.int64)),
        lambda: vg.observe(seat=np.zeros(n, np.int32)),
        lambda: vg.observe(decision=np.zeros((n, 1), np.int64)),
        lambda: vg.step(np.zeros(n + 1, np.int64)),
        lambda: vg.step(np.zeros(n, np.float32)),
        lambda: vg.step(np.zeros(n, bool)),
        lambda: vg.step(vg.random_actions(), rewards=np.zeros((n, 2), np.float32)),
        lambda: vg.step(vg.random_actions(), done=np.zeros(n, np.int8)),
        lambda: vg.state(out=np.zeros((n, 900), np.float32)),
        lambda: vg.random_actions(out=np.zeros(n, np.int32)),
        lambda: vg.playout("random", out=np.zeros((n, 3), np.float64)),
        lambda: vg.policy_actions("nobody"),
        lambda: fast.VectorGame(0, "huaihua"),
        lambda: fast.VectorGame(2, "huaihua", seed=-1),
        lambda: fast.VectorGame(2, "huaihua", reward="points"),
        lambda: fast.VectorGame(2, "no-such-preset"),
    ]
    for call in bad_calls:
        with pytest.raises(ValueError):
            call()
    readonly = np.zeros((n, 763), np.float32)
    readonly.flags.writeable = False
    with pytest.raises(ValueError):
        vg.observe(obs=readonly)
    # an illegal action anywhere: IllegalActionError, and no hand moves
    before = [vg.hand(i).record() for i in range(n)]
    a = vg.random_actions()
    legal0 = vg.hand(0).legal_actions()
    a[1] = next(x for x in range(NUM_ACTIONS) if x not in vg.hand(1).legal_actions())
    for bad in (a, np.array([legal0[0], 10**6, 0]), np.array([-1, 0, 0])):
        with pytest.raises(IllegalActionError):
            vg.step(bad)
    assert [vg.hand(i).record() for i in range(n)] == before
    with pytest.raises(IllegalActionError):
        vg.step(np.array([2**63 - 1, 0, 0], np.uint64))


def test_without_the_extension_fast_warns_once_and_refuses():
    code = (
        "import sys, warnings\n"
        "sys.modules['paohuzi_env._fast'] = None  # the import fails\n"
        "with warnings.catch_warnings(record=True) as w:\n"
        "    warnings.simplefilter('always')\n"
        "    from paohuzi_env import fast\n"
        "    import paohuzi_env.backends.fast\n"
        "assert len([x for x in w if 'paohuzi_env._fast' in str(x.message)]) == 1, w\n"
        "assert not fast.available() and 'cannot be imported' in fast.unavailable_reason()\n"
        "for make in (lambda: fast.Game('huaihua', seed=1), lambda: fast.VectorGame(2)):\n"
        "    try:\n"
        "        make()\n"
        "    except RuntimeError as e:\n"
        "        assert 'not available' in str(e)\n"
        "    else:\n"
        "        raise AssertionError('no error')\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))


def test_available_and_presets_known():
    assert fast.available() and fast.unavailable_reason() is None
    assert set(PRESET_NAMES) == set(PRESETS)
