"""The compiled bots (paohuzi_env._fast.greedy_action / expert_action, _core/bots.cpp) against
the readable reference, paohuzi_env.bots.heuristic's GreedyAgent and ExpertAgent.

Positions come from seeded games of every preset, played by a seeded mix of the expert's, the
greedy bot's and uniformly random choices (so that near-win hands, claims and 比 chains are as
common as in bot play, and odd positions still occur). At every decision with more than one
legal action both compiled bots must choose exactly what the Python ones choose; at every
decision they must choose a legal action. The default suite runs ``CI_POSITIONS`` (600)
positions per preset (two worker processes); ``-m slow`` runs ``FULL_POSITIONS`` (4,000) and
the full ``SLOW_POSITIONS`` (50,000) per preset.

A mismatch is reported as ``(preset, seed, hand, step)``: ``_replay`` rebuilds that position.
"""

from __future__ import annotations

import dataclasses
import functools
import multiprocessing

import numpy as np
import pytest

from paohuzi_env.bots.heuristic import ExpertAgent, GreedyAgent
from paohuzi_env.game.engine import Game
from paohuzi_env.game.rules import get_rules, preset_names

try:
    from paohuzi_env import _fast
except ImportError:  # the extension is optional
    _fast = None

if _fast is None or not all(hasattr(_fast, f) for f in ("greedy_action", "expert_action")):
    pytest.skip("paohuzi_env._fast without the compiled bots", allow_module_level=True)

PRESETS = ("huaihua", "huaihua-468", "classic", "zipai", "hongshanzhang", "yongzhou")
CI_POSITIONS = 600
"""Positions (decisions with more than one legal action) per preset in the default suite."""
FULL_POSITIONS = 4_000
"""Positions per preset of the slow-marked sample size test (the former default count)."""
SLOW_POSITIONS = 50_000
"""Positions per preset with ``-m slow``."""
JOB = 1_000
"""Positions per worker job (one seed each)."""


def _actions(seed: int) -> np.random.Generator:
    return np.random.default_rng([seed, 1])


def _deal_seed(seed: int, hand: int) -> np.random.SeedSequence:
    return np.random.SeedSequence([seed, hand])


def _pick(rng: np.random.Generator, legal, expert: int, greedy: int) -> int:
    r = rng.random()
    if r < 0.5:
        return expert
    if r < 0.75:
        return greedy
    return int(legal[int(rng.integers(len(legal)))])


def _compare(job: tuple[str, int, int]) -> dict:
    """Play seeded games of ``preset`` until ``n`` positions are compared."""
    preset, seed, n = job
    rules = get_rules(preset)
    greedy, expert = GreedyAgent(rules=rules), ExpertAgent(rules=rules)
    rng = _actions(seed)
    out = {"positions": 0, "decisions": 0, "mismatches": [], "n_mismatches": 0, "illegal": [],
           "kinds": {}}
    hand = 0
    while out["positions"] < n:
        game = Game(rules, seed=_deal_seed(seed, hand))
        step = 0
        while not game.done and out["positions"] < n:
            view = game.view(game.current_player)
            cg = _fast.greedy_action(view, rules)
            ce = _fast.expert_action(view, rules)
            out["decisions"] += 1
            if cg not in view.legal or ce not in view.legal:
                out["illegal"].append((preset, seed, hand, step, view.legal, cg, ce))
            if len(view.legal) > 1:
                pg, pe = greedy.act(view), expert.act(view)
                out["positions"] += 1
                out["kinds"][view.decision] = out["kinds"].get(view.decision, 0) + 1
                if (cg, ce) != (pg, pe):
                    out["n_mismatches"] += 1
                    if len(out["mismatches"]) < 10:
                        out["mismatches"].append(
                            {"at": (preset, seed, hand, step), "decision": view.decision,
                             "greedy": (pg, cg), "expert": (pe, ce)})
                a = _pick(rng, view.legal, pe, pg)
            else:
                a = view.legal[0]
            game.step(a)
            step += 1
        hand += 1
    return out


def _replay(preset: str, seed: int, hand: int, step: int):
    """The view at ``(preset, seed, hand, step)`` of :func:`_compare` (to debug a mismatch)."""
    rules = get_rules(preset)
    greedy, expert = GreedyAgent(rules=rules), ExpertAgent(rules=rules)
    rng = _actions(seed)
    for h in range(hand + 1):
        game = Game(rules, seed=_deal_seed(seed, h))
        s = 0
        while not game.done:
            view = game.view(game.current_player)
            if h == hand and s == step:
                return view
            if len(view.legal) > 1:
                a = _pick(rng, view.legal, expert.act(view), greedy.act(view))
            else:
                a = view.legal[0]
            game.step(a)
            s += 1
    raise ValueError("no such position")


def _differential(per_preset: int, presets: tuple[str, ...] = PRESETS) -> None:
    jobs = []
    for preset in presets:
        i = PRESETS.index(preset)  # the seeds of a preset's jobs do not depend on the others
        for j in range(0, per_preset, JOB):
            jobs.append((preset, 1000 * i + j // JOB, min(JOB, per_preset - j)))
    with multiprocessing.get_context("fork").Pool(2) as pool:
        results = pool.map(_compare, jobs, chunksize=1)
    counts = dict.fromkeys(presets, 0)
    kinds: dict[str, set] = {p: set() for p in presets}
    for (preset, _, _), r in zip(jobs, results):
        counts[preset] += r["positions"]
        kinds[preset].update(r["kinds"])
    assert all(counts[p] >= per_preset for p in presets), counts
    # every kind of choice is compared (a 亮张 天胡 offer is too rare to require)
    assert all({"hu", "claim", "bi", "discard"} <= kinds[p] for p in presets), kinds
    illegal = [x for r in results for x in r["illegal"]]
    assert not illegal, f"a compiled bot chose an illegal action: {illegal[:5]}"
    n_bad = sum(r["n_mismatches"] for r in results)
    bad = [x for r in results for x in r["mismatches"]]
    assert n_bad == 0, f"{n_bad} of {sum(counts.values())} positions differ, e.g. {bad[:5]}"


def test_presets_covered():
    assert set(PRESETS) == set(preset_names())


@pytest.mark.parametrize("positions", [CI_POSITIONS, pytest.param(FULL_POSITIONS, marks=pytest.mark.slow)])
def test_bots_match_python_ci(positions):
    _differential(positions)


@pytest.mark.slow
@pytest.mark.parametrize("preset", PRESETS)
def test_bots_match_python_full(preset):
    # one preset a test (the same positions as all six in one run): about 40 minutes each on 2
    # cores, so the slow suite can be run, and confirmed, in pieces
    _differential(SLOW_POSITIONS, (preset,))


# ---------------------------------------------------------------------- malformed input


@functools.cache
def _some_views(preset: str = "yongzhou"):
    """A discard, a claim and a 比 view (and others) from one seeded game per kind needed."""
    rules = get_rules(preset)
    found = {}
    seed = 0
    while len(found) < 3 and seed < 200:
        game = Game(rules, seed=seed)
        rng = np.random.default_rng(seed)
        while not game.done:
            view = game.view(game.current_player)
            if view.decision in ("discard", "claim", "bi") and len(view.legal) > 1:
                found.setdefault(view.decision, view)
            legal = view.legal
            # take claims so that 比 chains occur
            groups = [a for a in legal if 20 <= a < 58]
            game.step(groups[0] if groups and rng.random() < 0.8 else legal[int(rng.integers(len(legal)))])
        seed += 1
    assert set(found) == {"discard", "claim", "bi"}
    return rules, found


def test_views_of_every_decision_kind_agree():
    rules, views = _some_views()
    for view in views.values():
        assert _fast.greedy_action(view, rules) == GreedyAgent(rules=rules).act(view)
        assert _fast.expert_action(view, rules) == ExpertAgent(rules=rules).act(view)
        assert _fast.expert_action(view, "yongzhou") == _fast.expert_action(view, rules)


BAD_VIEWS = [
    ({"hand": (5,) + (0,) * 19}, ValueError),
    ({"hand": (1,) * 19}, ValueError),
    ({"hand": (-1,) + (0,) * 19}, ValueError),
    ({"hand": "0" * 20}, TypeError),
    ({"hand": (1.5,) + (0,) * 19}, TypeError),
    ({"seat": 3}, ValueError),
    ({"seat": None}, TypeError),
    ({"table": ((), ())}, ValueError),
    ({"table": ((("kan", (1, 1, 1)),), (), ())}, ValueError),
    ({"table": ((("chi", (1, 2, 25)),), (), ())}, ValueError),
    ({"table": ((("chi", 3),), (), ())}, TypeError),
    ({"discards": ((99,), (), ())}, ValueError),
    ({"decision": "fold"}, ValueError),
    ({"decision": 4}, TypeError),
    ({"legal": (61,)}, ValueError),
    ({"legal": ()}, ValueError),
    ({"legal": None}, TypeError),
    ({"offer": (3, "air", 0)}, ValueError),
    ({"offer": (3, "draw")}, ValueError),
    ({"hu_blocked": frozenset({21})}, ValueError),
    ({"hu_blocked": 3}, TypeError),
    ({"wang": 3}, ValueError),
    ({"done": 0}, TypeError),
]


@pytest.mark.parametrize("bot", ["greedy_action", "expert_action"])
@pytest.mark.parametrize("change,error", BAD_VIEWS)
def test_malformed_views_raise(bot, change, error):
    rules, views = _some_views()
    fn = getattr(_fast, bot)
    for view in views.values():
        with pytest.raises(error):
            fn(dataclasses.replace(view, **change), rules)


@pytest.mark.parametrize("bot", ["greedy_action", "expert_action"])
def test_inconsistent_views_raise(bot):
    rules, views = _some_views()
    fn = getattr(_fast, bot)
    # a discard decision offering a non-card action, a claim with nothing on offer,
    # a seat's own hidden 偎, a view of a seat that is not to act
    with pytest.raises(ValueError):
        fn(dataclasses.replace(views["discard"], legal=(0, 60)), rules)
    with pytest.raises(ValueError):
        fn(dataclasses.replace(views["claim"], offer=None), rules)
    seat = views["discard"].seat
    table = list(views["discard"].table)
    table[seat] = (("wei", None),)
    with pytest.raises(ValueError):
        fn(dataclasses.replace(views["discard"], table=tuple(table)), rules)
    with pytest.raises(ValueError):
        fn(dataclasses.replace(views["discard"], decision=None, legal=()), rules)


@pytest.mark.parametrize("bot", ["greedy_action", "expert_action"])
def test_wrong_argument_types_raise(bot):
    rules, views = _some_views()
    fn = getattr(_fast, bot)
    with pytest.raises(TypeError):
        fn(object(), rules)
    with pytest.raises(TypeError):
        fn(views["discard"], 3)
    with pytest.raises(ValueError):
        fn(views["discard"], "no-such-preset")
