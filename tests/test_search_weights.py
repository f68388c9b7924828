"""Worlds weighted by the opponents' decisions (``search:weight=expert``, search.hpp
SearchOptions::weight): the default and ``weight=none`` are the unweighted search, answer for
answer as recorded before the option existed (tests/fixtures/search_unweighted.json); every
world's log-weight is recomputed here independently — the hand's public course replayed on the
world's deck with the Python engine, each other seat's decision scored by a softmax of the
compiled expert's values (``_fast.expert_action_values``) computed with numpy — and the weighted
means, standard errors and choice from the worlds' scores; a very large temperature is a
uniformly random opponent; bad options raise ValueError naming what is allowed; a finished hand,
a single legal action and a win on offer do not crash."""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path

import numpy as np
import pytest

from paohuzi_env import fast
from paohuzi_env.agents import make_agent
from paohuzi_env.agents.search import (
    WEIGHT_T,
    _knowledge,
    core_search,
    parse_search_spec,
    vector_search,
    world_log_weights,
)
from paohuzi_env.game.actions import GROUP_ID, HU, PASS, PENG
from paohuzi_env.game.engine import Game as PyGame
from tests.positions import expert_positions

pytestmark = pytest.mark.skipif(not fast.available(), reason="the search needs the compiled core")

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "search_unweighted.json"
UNWEIGHTED_KEYS = {"choice", "worlds", "attempts", "playouts", "legal", "means", "ses", "played"}
REF = {"guide": "none", "prune": 0}  # the reference's algorithm: every action in every world


def _same(a, b) -> bool:
    """Equal, NaN equal to NaN (lists and floats of the search's answers)."""
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return a == b


def _positions(n: int, rules: str = "huaihua", seed0: int = 70, skip: int = 1) -> list:
    """n positions with a choice and no win on offer, after the first ``skip`` of each hand's
    seat (so that the other seats have decided before)."""
    out = []
    for seed in itertools.count(seed0):
        for seat in range(3):
            for g in itertools.islice(expert_positions(rules, seed, seat, every=2), skip, None):
                if HU not in g.legal_actions():
                    out.append(g)
                    break
            if len(out) == n:
                return out


# ------------------------------------------------------------------ the brute-force weight


def _log_prob(values: list[float], i: int, t: float) -> float:
    """log softmax(values / t)[i]; uniform where the expert weighs no option (values all equal:
    all 0, or all -inf); -inf for an option it does not weigh."""
    v = np.asarray(values, dtype=float)
    n = len(v)
    if n == 1:
        return 0.0
    if np.all(v == v[0]):
        return -math.log(n)
    if v[i] == -np.inf:
        return -math.inf
    d = (v - v.max()) / t  # at most 0: no overflow at any temperature
    return float(d[i] - math.log(np.exp(d).sum()))


def _py_weight(real, seat: int, deck: list[int], t: float):
    """(log-weight, decisions weighed, the options the model spreads over at each: those the
    expert gives a finite value, or all where it weighs none) of the world ``deck`` at ``seat``'s
    decision in ``real``, by replaying the hand's public course with the Python engine: the
    other seats answer as the course says, and each of their decisions with more than one legal
    action adds the log-probability of the answer under the expert softened at ``t``. None when
    the deck does not replay the course."""
    core = fast._require()
    kn = _knowledge(real, seat)  # the reference's: the course's events and the seat's own moves
    events = kn.events
    g = PyGame(real.rules, deck=list(deck), dealer=kn.dealer)
    mine = iter(kn.mine)
    total, options = 0.0, []
    while True:
        n = len(g.events)
        if n > len(events) or list(g.events) != list(events[:n]) or g.done:
            return None
        s = g.current_player
        if s == seat:
            a = next(mine, None)
            if a is None:
                ok = n == len(events) and g.decision == kn.decision and g.legal_actions() == kn.legal
                return (total, len(options), options) if ok else None
        else:
            nxt = events[n] if n < len(events) else None
            mine_next = nxt is not None and nxt[1] == s
            if g.decision == "discard":
                if not (mine_next and nxt[0] == "discard"):
                    return None
                a = nxt[2]
            elif g.decision == "claim":
                a = (PENG if mine_next and nxt[0] == "peng" else
                     GROUP_ID[tuple(nxt[2])] if mine_next and nxt[0] == "chi" else PASS)
            elif g.decision == "bi":
                if not (mine_next and nxt[0] == "chi"):
                    a = PASS
                else:
                    j = n + len(g.view(s).bi_groups)  # the chi, then the bi groups named so far
                    if j >= len(events) or events[j][0] != "bi" or events[j][1] != s:
                        return None
                    a = GROUP_ID[tuple(events[j][2])]
            else:  # a win declined (the hand went on)
                a = HU if mine_next and nxt[0] == "hu" else PASS
            legal = g.legal_actions()
            if a not in legal:
                return None
            if len(legal) > 1:
                view = g.view(s)
                _, values = core.expert_action_values(view, g.rules)
                assert len(values) == len(view.legal)
                total += _log_prob(values, list(view.legal).index(a), t)
                finite = sum(math.isfinite(v) for v in values)
                options.append(len(legal) if len(set(values)) == 1 else finite)
        if a not in g.legal_actions():
            return None
        g.step(a)


def _close(a: float, b: float, rel: float = 1e-9) -> bool:
    if math.isinf(a) or math.isinf(b):
        return a == b
    return abs(a - b) <= rel * max(abs(a), abs(b)) + 1e-12


def _weighted(x: np.ndarray, w: np.ndarray) -> tuple[float, float]:
    """The self-normalised mean and standard error (search.hpp SearchOptions::weight)."""
    v = w / w.sum() if w.sum() > 0 else np.full(len(w), 1.0 / len(w))
    mean = float((v * x).sum())
    ess = 1.0 / float((v * v).sum())
    sq = float((v * v * (x - mean) ** 2).sum())
    return mean, (math.sqrt(sq * ess / (ess - 1.0)) if ess > 1.0 else math.inf)


# ------------------------------------------------------------------ (a) the default is untouched


def test_the_default_and_weight_none_are_the_recorded_unweighted_search():
    """The answers recorded before the option existed, key for key, with and without
    weight=none: no new key, the same numbers."""
    cases = json.loads(FIXTURE.read_text())["cases"]
    assert len(cases) >= 30
    searched = 0
    for c in cases:
        g = next(itertools.islice(expert_positions(c["rules"], c["seed"], c["seat"],
                                                   every=c["every"]), c["index"], None))
        want = c["result"]
        for extra in ({}, {"weight": "none"}, {"weight": "none", "weight_t": 0.5}):
            got = core_search(g, c["seat"], seed=c["search_seed"], **c["options"], **extra)
            assert set(got) == UNWEIGHTED_KEYS
            for key in UNWEIGHTED_KEYS:
                assert _same(got[key], want[key]), (c, key, got[key], want[key])
        searched += want["worlds"] > 0
    assert searched >= 20


def test_the_agents_and_the_batched_search_with_weight_none_are_the_default():
    positions = _positions(4, seed0=90)
    a = make_agent("search:samples=6,playouts=48", seed=3)
    b = make_agent("search:samples=6,playouts=48,weight=none", seed=3)
    for g in positions:
        assert a.act_game(g, g.current_player) == b.act_game(g, g.current_player)
        assert "ess" not in b.last
    vg = fast.VectorGame(4, "huaihua", seed=11)
    out1 = vector_search(vg, seed=5, samples=4, playouts=32, guide="none")
    out2 = vector_search(vg, seed=5, samples=4, playouts=32, guide="none", weight="none")
    assert out1.tolist() == out2.tolist()


# ------------------------------------------------------------------ (b) brute force


@pytest.mark.parametrize("t", [1.0, WEIGHT_T, 40.0])
def test_each_worlds_weight_is_the_brute_force_one(t):
    core = fast._require()
    checked = weighed = differ = 0
    for k, g in enumerate(_positions(5, seed0=120 + int(t))):
        seat = g.current_player
        r = core_search(g, seat, seed=k, samples=8, playouts=200, weight="expert", weight_t=t,
                        keep_worlds=True, **REF)
        assert len(r["log_weights"]) == len(r["decks"]) == r["worlds"]
        for deck, lw in zip(r["decks"], r["log_weights"]):
            ref = _py_weight(g, seat, deck, t)
            assert ref is not None
            assert _close(lw, ref[0]), (lw, ref)
            got = core.search_world_log_weight(g._g, seat, deck, t)
            assert got[1] == ref[1] and _close(got[0], ref[0])
            checked += 1
            weighed += ref[1]
        differ += len({round(x, 6) for x in r["log_weights"]}) > 1
        # the helper draws the search's worlds with the same weights
        helper = world_log_weights(g, seat, seed=k, worlds=r["worlds"], weight_t=t)
        assert [d for d, _, _ in helper] == r["decks"]
        assert [lw for _, lw, _ in helper] == r["log_weights"]
    assert checked >= 20 and weighed >= checked  # the other seats decided in these worlds
    assert differ >= 2  # and the weights tell the worlds apart


def test_a_deck_that_does_not_replay_has_no_weight():
    core = fast._require()
    g = _positions(1, seed0=140)[0]
    seat = g.current_player
    deck = list(g.deck)
    rng = np.random.default_rng(0)
    refused = 0
    for _ in range(20):
        d = list(deck)
        i, j = rng.integers(61, len(d), size=2)  # swap two wall cards, some already drawn
        d[i], d[j] = d[j], d[i]
        got = core.search_world_log_weight(g._g, seat, d, 3.0)
        ref = _py_weight(g, seat, d, 3.0)
        assert (got is None) == (ref is None)
        if got is None:
            refused += 1
        else:
            assert _close(got[0], ref[0])
    assert refused >= 1
    assert core.search_world_log_weight(g._g, seat, deck, 3.0) is not None  # the real deal


@pytest.mark.parametrize("options", [REF, {"guide": "none", "prune": 2, "prune_z": 0.5}])
def test_the_weighted_means_ses_and_choice_are_the_self_normalised_ones(options):
    compared = 0
    for k, g in enumerate(_positions(6, seed0=160)):
        seat = g.current_player
        r = core_search(g, seat, seed=k, samples=10, playouts=300, weight="expert",
                        keep_worlds=True, z=0.5, **options)
        if r["worlds"] < 2:
            continue
        lw = np.asarray(r["log_weights"])
        w = np.exp(lw - lw.max()) if np.isfinite(lw.max()) else np.ones(len(lw))
        assert r["weight_fallback"] == (not np.isfinite(lw.max()))
        assert _close(r["ess"], float(w.sum() ** 2 / (w * w).sum()))
        pts = np.asarray(r["scores"], dtype=float)
        for j in range(len(r["legal"])):
            played = ~np.isnan(pts[:, j])
            assert r["played"][j] == int(played.sum())
            if played.sum() >= 2:
                mean, se = _weighted(pts[played, j], w[played])
                assert _close(r["means"][j], mean) and _close(r["ses"][j], se)
                compared += 1
        # the choice: the rollout bot's unless a full candidate's weighted gain clears the bar
        bot = g.expert_action()
        di = r["legal"].index(bot)
        lcb = np.full(len(r["legal"]), -np.inf)
        for j in range(len(r["legal"])):
            if not np.isnan(pts[:, j]).any():
                mean, se = _weighted(pts[:, j] - pts[:, di], w)
                if math.isfinite(se):
                    lcb[j] = mean - 0.5 * se
        best = int(np.argmax(lcb))
        want = r["legal"][best] if lcb[best] > 0 else bot
        assert r["choice"] == want
        if options is REF:  # the same worlds as the unweighted search, only counted otherwise
            u = core_search(g, seat, seed=k, samples=10, playouts=300, z=0.5, **options)
            assert u["worlds"] == r["worlds"] and u["attempts"] == r["attempts"]
            assert np.allclose(u["means"], pts.mean(axis=0), rtol=1e-12)
    assert compared >= 15


# ------------------------------------------------------------------ (c) the temperature's limits


def test_a_very_large_temperature_is_a_uniformly_random_opponent():
    """As t grows the softened expert becomes uniform over the options it weighs: a world's
    weight tends to the product of 1 / (options) over the other seats' decisions. The worlds
    where they had more options weigh less, as under a random opponent: the weights do not all
    become equal (they are equal where no other seat has had a choice, tested below)."""
    t = 1e12
    worlds = 0
    spread: set[float] = set()
    for k, g in enumerate(_positions(4, seed0=180)):
        seat = g.current_player
        for deck, lw, n in world_log_weights(g, seat, seed=k, worlds=6, weight_t=t):
            ref = _py_weight(g, seat, deck, t)
            assert ref is not None and ref[1] == n
            uniform = -sum(math.log(m) for m in ref[2])
            if math.isfinite(lw):  # -inf: an answer the expert does not weigh, at any t
                assert abs(lw - uniform) <= 1e-6 * max(1.0, abs(uniform))
                worlds += 1
                spread.add(round(lw, 6))
    assert worlds >= 12 and len(spread) >= 2


def test_worlds_with_no_decision_of_another_seat_weigh_alike_and_give_the_unweighted_search():
    """At the dealer's first discard no other seat has decided: every weight is 1, and the
    weighted search is the unweighted one (its formulas reduce to the unweighted mean and se)."""
    found = 0
    for seed in range(200, 260):
        g = fast.Game("huaihua", seed=seed)
        while not g.done and g.decision != "discard":
            g.step(g.expert_action())
        seat = g.current_player
        if g.done or len(g.legal_actions()) < 2 or any(
                e[0] in ("peng", "chi") for e in g.events):
            continue
        for t in (0.1, WEIGHT_T):
            r = core_search(g, seat, seed=seed, samples=6, playouts=400, weight="expert",
                            weight_t=t, z=0.5, **REF)
            u = core_search(g, seat, seed=seed, samples=6, playouts=400, z=0.5, **REF)
            if r["worlds"] < 2 or r["log_weights"] != [0.0] * r["worlds"]:
                continue  # (another seat had a choice before, in some world)
            assert _close(r["ess"], r["worlds"])
            assert r["choice"] == u["choice"]
            assert np.allclose(r["means"], u["means"], rtol=1e-12, atol=1e-12)
            assert np.allclose(r["ses"], u["ses"], rtol=1e-9, atol=1e-12)
            found += 1
        if found >= 4:
            break
    assert found >= 4


def test_weights_that_are_all_zero_fall_back_to_equal_weights():
    """At the smallest temperature every answer other than the expert's first choice has
    probability 0; against random opponents every world then has weight 0, and the search
    says so and counts the worlds equally: the unweighted search's choice, means and ses."""
    rng = np.random.default_rng(1)
    found = 0
    for seed in range(300, 340):
        g = fast.Game("huaihua", seed=seed)
        while not g.done and found < 3:
            legal = g.legal_actions()
            if len(legal) > 1 and HU not in legal and len(g.actions) > 12:
                seat = g.current_player
                r = core_search(g, seat, seed=seed, samples=6, playouts=300, z=0.5,
                                weight="expert", weight_t=5e-324, **REF)
                if r["worlds"] >= 2 and r["weight_fallback"]:
                    assert all(lw == -math.inf for lw in r["log_weights"])
                    assert _close(r["ess"], r["worlds"])
                    u = core_search(g, seat, seed=seed, samples=6, playouts=300, z=0.5, **REF)
                    assert r["choice"] == u["choice"]
                    assert np.allclose(r["means"], u["means"], rtol=1e-12, atol=1e-12)
                    assert np.allclose(r["ses"], u["ses"], rtol=1e-9, atol=1e-12)
                    found += 1
                    break
            g.step(int(rng.choice(legal)))
        if found >= 3:
            break
    assert found >= 3


def test_the_weighted_search_does_not_depend_on_threads():
    for k, g in enumerate(_positions(3, seed0=280)):
        seat = g.current_player
        one = core_search(g, seat, seed=k, samples=8, playouts=200, weight="expert", threads=1)
        two = core_search(g, seat, seed=k, samples=8, playouts=200, weight="expert", threads=2)
        assert all(_same(one[key], two[key]) for key in one)


# ------------------------------------------------------------------ (d) bad options


def test_bad_weight_options_are_refused_naming_what_is_allowed():
    core = fast._require()
    g = _positions(1, seed0=240)[0]
    seat = g.current_player
    assert parse_search_spec("weight=expert,weight_t=2.5") == {"weight": "expert", "weight_t": 2.5}
    with pytest.raises(ValueError, match="weight must be one of none, expert, got 'network'"):
        make_agent("search:weight=network")
    with pytest.raises(ValueError, match="search option weight_t must be float"):
        parse_search_spec("weight_t=hot")
    for bad in ("0", "-1", "inf", "nan"):
        with pytest.raises(ValueError, match="weight_t .* must be a positive finite number"):
            make_agent(f"search:weight=expert,weight_t={bad}")
    with pytest.raises(ValueError, match="weight are options of the compiled search"):
        make_agent("search:impl=python,weight=expert")
    with pytest.raises(ValueError, match="weight must be one of none, expert"):
        core_search(g, seat, weight="Expert")
    with pytest.raises(ValueError, match="weight_t .* must be a positive finite number"):
        core_search(g, seat, weight="expert", weight_t=0.0)
    with pytest.raises(ValueError, match="weight_t .* must be a positive finite number"):
        world_log_weights(g, seat, weight_t=-2.0)
    vg = fast.VectorGame(2, "huaihua", seed=0)
    with pytest.raises(ValueError, match="weight must be one of none, expert"):
        vector_search(vg, weight="opponent")
    # the binding itself, past the Python checks
    state = (0, 1, 0, 3, 0, 0)
    with pytest.raises(ValueError, match="weight must be one of none, expert, got 'x'"):
        core.search_action(g._g, seat, state, weight="x")
    with pytest.raises(ValueError, match="weight_t .* must be positive and finite"):
        core.search_action(g._g, seat, state, weight="expert", weight_t=float("nan"))
    with pytest.raises(ValueError, match="deck must hold"):
        core.search_world_log_weight(g._g, seat, [0] * 80, 1.0)
    with pytest.raises(ValueError, match="deck must hold 80 cards"):
        core.search_world_log_weight(g._g, seat, [0] * 3, 1.0)
    with pytest.raises(ValueError, match="is not the seat to act"):
        core.search_world_weights(g._g, (seat + 1) % 3, state, 2)


# ------------------------------------------------------------------ (e) no crash at the edges


def test_a_finished_hand_a_single_action_and_a_win_do_not_crash():
    core = fast._require()
    single = win = None
    for seed in range(3, 80):
        g = fast.Game("huaihua", seed=seed)
        while not g.done:
            legal = g.legal_actions()
            if len(legal) == 1 and single is None:
                single = g.clone()
            if HU in legal and win is None:
                win = g.clone()
            g.step(g.expert_action())
        if single is not None and win is not None:
            break
    assert single is not None and win is not None
    for pos in (single, win):
        r = core_search(pos, pos.current_player, seed=1, weight="expert", keep_worlds=True)
        assert r["choice"] in pos.legal_actions() and r["worlds"] == 0
        assert r["log_weights"] == [] and math.isnan(r["ess"]) and not r["weight_fallback"]
    with pytest.raises(ValueError, match="the hand is over|is not the seat to act"):
        core_search(g, 0, weight="expert")
    with pytest.raises(ValueError, match="the hand is over"):
        core.search_world_weights(g._g, 0, (0, 1, 0, 3, 0, 0), 2)
    with pytest.raises(ValueError, match="the hand is over"):
        world_log_weights(g, 0, seed=0)
    agent = make_agent("search:weight=expert,weight_t=3,samples=4,playouts=40,guide=none",
                       seed=2)
    assert agent.batch_options()["weight"] == "expert"
    pos = _positions(1, seed0=250, skip=2)[0]
    a = agent.act_game(pos, pos.current_player)
    assert a in pos.legal_actions() and agent.last["ess"] > 0
    vg = fast.VectorGame(3, "huaihua", seed=2)
    out = vector_search(vg, seed=1, samples=3, playouts=30, guide="none", weight="expert")
    assert all(int(a) in vg.hand(i).legal_actions() for i, a in enumerate(out))


def test_the_batched_harness_weighs_as_the_agent_does():
    """paohuzi-eval's batched path (vector_search with each agent's generator state) passes the
    weighting on: the same rows as asking the agent at each decision."""
    pytest.importorskip("torch")
    from paohuzi_training.eval import batched_eval
    from paohuzi_training.eval.evaluate import play_deal

    spec = "search:samples=3,playouts=12,weight=expert,weight_t=2,guide=none"
    assert batched_eval.search_options(spec, make_agent(spec).rules)["weight"] == "expert"
    got = batched_eval.play_deals(spec, ["expert", "greedy"], [0, 1], 5, "huaihua", slots=4)
    want = [row for d in (0, 1) for row in play_deal(spec, ["expert", "greedy"], d, 5, "huaihua",
                                                     "fast")]
    assert got == want
