"""The compiled search (paohuzi_env/backends/_core/search.cpp) against the Python reference
(paohuzi_env/agents/search.py): the same generator state gives the same sampled deals, the same
replay verdicts, the same generator state afterwards, and the same decisions, worlds, attempts
and mean outcomes. Also its batched form on a VectorGame, its extra options (pruning, threads)
and its errors on bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest

from paohuzi_env import fast
from paohuzi_env.agents import SearchAgent, make_agent
from paohuzi_env.agents.search import (
    _knowledge,
    _rng_state,
    _sample_deck,
    _world,
    core_search,
    vector_search,
)
from paohuzi_env.game.rules import preset_names
from tests.positions import expert_positions

pytestmark = pytest.mark.skipif(not fast.available(), reason="the search needs the compiled core")


@pytest.mark.parametrize("rules", preset_names())
def test_sampled_worlds_are_the_reference_draw_for_draw(rules):
    """search_worlds draws as _sample_deck then _world: the same decks (or None), the same
    replay verdicts, and the generator left in the same state."""
    core = fast._require()
    compared = accepted = 0
    for seed in range(2):
        for seat in range(3):
            for g in expert_positions(rules, 20 + seed, seat, every=2):
                py_rng = np.random.default_rng(seed * 7 + seat)
                c_rng = np.random.default_rng(seed * 7 + seat)
                kn = _knowledge(g, seat)
                got, state = core.search_worlds(g._g, seat, _rng_state(c_rng), 4)
                for deck, ok in got:
                    ref = _sample_deck(kn, py_rng)
                    assert deck == ref
                    world = None if ref is None else _world(kn, ref, g.rules)
                    assert ok == (world is not None)
                    accepted += ok
                    compared += 1
                assert state == _rng_state(py_rng)
    assert compared >= 40
    assert accepted >= 10


def test_worlds_with_face_down_wei_are_the_reference():
    """Positions where another seat holds a face-down 偎 (its kind drawn by rng.choice with
    weights): the compiled draw is still the reference's."""
    core = fast._require()
    seen = 0
    for seed in range(40):
        for seat in range(3):
            for g in expert_positions("huaihua", 300 + seed, seat, every=2):
                if not any(g.hidden_wei_positions(s) for s in range(3) if s != seat):
                    continue
                py_rng, c_rng = np.random.default_rng(seed), np.random.default_rng(seed)
                kn = _knowledge(g, seat)
                got, state = core.search_worlds(g._g, seat, _rng_state(c_rng), 3)
                for deck, ok in got:
                    ref = _sample_deck(kn, py_rng)
                    assert deck == ref
                    assert ok == (ref is not None and _world(kn, ref, g.rules) is not None)
                assert state == _rng_state(py_rng)
                seen += 1
        if seen >= 6:
            break
    assert seen >= 6


@pytest.mark.parametrize("rules,options", [
    ("huaihua", {}),
    ("huaihua", {"rollout": "greedy", "z": 1.0}),
    ("huaihua", {"rollout": "random", "margin": 0.5, "playouts": 20}),
    ("yongzhou", {}),
    ("zipai", {"z": 0.5}),
])
def test_decisions_are_the_reference(rules, options):
    """The agent on the compiled search and on the Python reference, each with the same seed,
    play whole hands side by side (the generator carried across decisions): the same choice and
    the same worlds, attempts and mean outcomes at every decision."""
    compared = 0
    for seed in range(2):
        core = SearchAgent(seed=11 + seed, rules=rules, samples=5, prune=0, guide="none", **options)
        ref = SearchAgent(seed=11 + seed, rules=rules, samples=5, impl="python", **options)
        g = fast.Game(rules, seed=50 + seed)
        while not g.done:
            s = g.current_player
            if s == seed % 3:
                a = core.act_game(g, s)
                assert ref.act_game(g, s) == a
                assert core.last == ref.last
                compared += 1
            else:
                a = g.expert_action()
            g.step(a)
    assert compared >= 10


def test_same_seed_same_answer():
    g = next(expert_positions("huaihua", 5, 1))
    a = core_search(g, 1, seed=9, samples=6)
    b = core_search(g, 1, seed=9, samples=6)
    assert a == b
    assert a["choice"] in g.legal_actions()
    assert a["legal"] == g.legal_actions()
    assert sum(a["played"]) == a["playouts"]


def test_threads_do_not_change_the_answer_and_pruning_plays_fewer():
    compared = 0
    full_playouts = pruned_playouts = 0
    for g in expert_positions("huaihua", 7, 0, every=2):
        one = core_search(g, 0, seed=3, samples=16, prune=4, guide="none")
        three = core_search(g, 0, seed=3, samples=16, prune=4, threads=3, guide="none")
        assert one == three
        assert core_search(g, 0, seed=3, samples=8, threads=2, guide="none") == \
            core_search(g, 0, seed=3, samples=8, guide="none")
        full = core_search(g, 0, seed=3, samples=16, prune=0, guide="none")
        assert one["choice"] in g.legal_actions()
        # the rollout bot's own choice is played in every world; no action in more
        d = one["legal"].index(g.expert_action())
        assert one["played"][d] == one["worlds"] == max(one["played"])
        full_playouts += full["playouts"]
        pruned_playouts += one["playouts"]
        compared += 1
    assert compared >= 3
    assert pruned_playouts < full_playouts


def test_top_plays_out_only_the_bots_best_actions():
    """``top=K``: the rollout bot's choice and the K - 1 actions it values next are played out;
    the others never (played 0, NaN mean). The bot's values give the bot's own choice first."""
    seen = 0
    positions = (g for seed in range(11, 31) for g in expert_positions("huaihua", seed, 0))
    for g in positions:
        legal = g.legal_actions()
        if len(legal) < 4 or 59 in legal:  # 59: HU, taken without a search
            continue
        for k in (2, 3):
            r = core_search(g, 0, seed=5, samples=6, prune=0, top=k, guide="none")
            played = [a for a, n in zip(r["legal"], r["played"]) if n > 0]
            assert len(played) == k and g.expert_action() in played
            assert r["choice"] in played
            assert all(math.isnan(m) for m, n in zip(r["means"], r["played"]) if n == 0)
        # top at least the number of legal actions: the full search
        assert core_search(g, 0, seed=5, samples=6, prune=0, top=len(legal),
                           guide="none") == \
            core_search(g, 0, seed=5, samples=6, prune=0, guide="none")
        seen += 1
        if seen == 4:
            break
    assert seen == 4
    g = next(expert_positions("huaihua", 11, 0))
    for opts, msg in [({"top": 1}, "top must be 0"), ({"top": -2}, "top must be 0"),
                      ({"top": 3, "rollout": "random"}, "rollout=random")]:
        with pytest.raises(ValueError, match=msg):
            core_search(g, 0, seed=0, **opts)
    with pytest.raises(ValueError, match="network rollout"):  # it ranks by the bot's values
        make_agent("search:top=3,rollout=checkpoint:checkpoints/shipped/distilled.safetensors")


def test_vector_search_asks_only_the_marked_hands():
    core = fast._require()
    vg = fast.VectorGame(6, "huaihua", seed=4)
    for _ in range(5):  # move the hands on a little
        vg.step(vg.expert_actions())
    which = np.array([True, False, True, True, False, True])
    out = np.full(6, -7, np.int64)
    vector_search(vg, which, out, seed=2, samples=4)
    assert (out[~which] == -7).all()
    all_out = vector_search(vg, None, seed=2, samples=4, threads=2)
    assert (all_out[which] == out[which]).all()
    for i in range(6):
        g = vg.hand(i)
        assert all_out[i] in g.legal_actions()
        rng = np.random.default_rng()
        t = core.search_rng_state(2, vg.deal_index(i), len(g.actions))
        rng.bit_generator.state = {"bit_generator": "PCG64",
                                   "state": {"state": (t[0] << 64) | t[1], "inc": (t[2] << 64) | t[3]},
                                   "has_uint32": t[4], "uinteger": t[5]}
        assert core_search(g, g.current_player, rng=rng, samples=4)["choice"] == all_out[i]


def test_vector_search_with_rng_states_draws_as_each_hands_agent():
    """``rng_states``: hand i draws from the PCG64 state in row i, advanced in place exactly as
    core_search advances a Generator in that state (the batched harness relies on it)."""
    from paohuzi_env.agents.search import rng_state_row, set_rng_from_row

    vg = fast.VectorGame(5, "huaihua", seed=6)
    for _ in range(4):
        vg.step(vg.expert_actions())
    which = np.array([True, True, False, True, True])
    gens = [np.random.default_rng([6, i]) for i in range(5)]
    states = np.zeros((5, 6), np.uint64)
    for i, r in enumerate(gens):
        rng_state_row(r, states[i])
    before = states.copy()
    out = np.full(5, -1, np.int64)
    vector_search(vg, which, out, samples=4, prune=2, rng_states=states)
    assert (states[2] == before[2]).all() and out[2] == -1  # unmarked: untouched
    for i in np.flatnonzero(which):
        g = vg.hand(int(i))
        r = np.random.default_rng([6, int(i)])
        assert core_search(g, g.current_player, rng=r, samples=4, prune=2)["choice"] == out[i]
        after = np.random.default_rng()
        set_rng_from_row(after, states[i])
        assert after.bit_generator.state == r.bit_generator.state
    for bad in (np.zeros((5, 6), np.int64), np.zeros((4, 6), np.uint64),
                np.zeros((5, 6), np.uint64)[:, ::-1], [[0] * 6] * 5):
        with pytest.raises(ValueError, match="rng_states"):
            vector_search(vg, which, out, samples=4, rng_states=bad)
        with pytest.raises(ValueError, match="rng_states"):
            fast._require().search_actions(vg._v, out, which, 0, samples=4, rng_states=bad)


def test_make_agent_uses_the_compiled_search():
    agent = make_agent("search:samples=4,prune=2,threads=2", seed=1)
    assert isinstance(agent, SearchAgent) and agent.impl == "core" and agent.prune == 2
    default = make_agent("search", seed=1)
    assert default.impl == "core" and default.prune == 4 and default.prune_z == 1.5
    assert default.prune_bar == 1
    ref = make_agent("search:samples=4,impl=python", seed=1)
    assert ref.impl == "python" and ref.prune == 0


def test_bad_input_raises_clear_errors():
    g = fast.Game("huaihua", seed=0)
    s = g.current_player
    with pytest.raises(ValueError, match="not the seat to act"):
        core_search(g, (s + 1) % 3, seed=0)
    for bad_seat in (3, -1, True, "0"):
        with pytest.raises(ValueError, match="seat must be 0, 1 or 2"):
            core_search(g, bad_seat, seed=0)
    done = g.clone()
    while not done.done:
        done.step(done.expert_action())
    with pytest.raises(ValueError, match="hand is over"):
        core_search(done, 0, seed=0)
    for opts, msg in [({"samples": 0}, "at least 1"), ({"playouts": -3}, "at least 1"),
                      ({"rollout": "mcts"}, "rollout must be one of"),
                      ({"z": -1.0}, "must be finite and >= 0"),
                      ({"z": float("nan")}, "must be finite and >= 0"),
                      ({"margin": float("inf")}, "must be finite and >= 0"),
                      ({"tries": 0}, "tries >= 1"), ({"prune": -1}, "prune >= 0"),
                      ({"threads": 0}, "threads must be 1..256")]:
        with pytest.raises(ValueError, match=msg):
            core_search(g, s, seed=0, **opts)
    with pytest.raises(ValueError, match="PCG64"):
        core_search(g, s, rng=np.random.Generator(np.random.Philox(0)))
    with pytest.raises(ValueError, match="prune_bar must be 0 or 1"):
        make_agent("search:prune_bar=2")
    with pytest.raises(ValueError, match="impl must be one of"):
        SearchAgent(impl="gpu")
    with pytest.raises(ValueError, match="compiled search"):
        SearchAgent(impl="python", prune=4)
    vg = fast.VectorGame(3, "huaihua", seed=0)
    with pytest.raises(ValueError, match="which must be a bool array"):
        vector_search(vg, np.ones(2, bool))
    with pytest.raises(ValueError, match="out must be an int64 array"):
        vector_search(vg, None, np.zeros(3, np.int32))
    with pytest.raises(ValueError, match="threads must be 1..256"):
        vector_search(vg, None, threads=0)
    with pytest.raises(ValueError, match="rollout must be one of"):
        vector_search(vg, None, rollout="x")


def test_bench_search_times_the_reference_and_the_compiled_search(capsys):
    from paohuzi_env.dev import bench

    bench.main(["search", "--positions", "3", "--python-positions", "2", "--specs",
                "search:prune=2,samples=4"])
    out = capsys.readouterr().out
    assert "python " in out and "core, reference settings" in out
    # the reference's settings on the core take the Python reference's decisions ('same')
    assert out.split("core, reference settings")[1].splitlines()[0].endswith(" 2/2 py")
    assert "search:prune=2,samples=4" in out
    with pytest.raises(SystemExit):
        bench.main(["search", "--positions", "0"])
