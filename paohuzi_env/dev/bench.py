"""Benchmarks: ``python -m paohuzi_env.dev.bench {hu,engine,env,core} [--seconds S] [--seed N] [--rules R]``.

* ``hu``: µs per ``evaluate_win`` call over a fixed seeded sample of random holdings
  (:mod:`paohuzi_env.game.testing`), half of them winning, with caches cleared before every call
  (cold) and on a repeat pass (warm); then the same for ``yongzhou`` holdings with one or two
  王 (docs/rules.md section 10).
* ``engine``: random-legal hands for a fixed time; hands/s and decisions/s.
* ``env``: random masked play through the AEC API with observations (the default backend);
  steps/s.
* ``review`` (its own flags): CPU time of a hand's review (``paohuzi review``).
* ``search`` (its own flags): the compiled search against the Python reference, on the same
  positions; ``agent SPEC [SPEC ...]``: CPU time of one decision of any agent (a network:
  ``agent network:checkpoints/shipped/distilled.safetensors``), one position at a time.
* ``core``: the compiled core (:mod:`paohuzi_env.backends.fast`) against the Python engine, in one run:
  random play, ``VectorGame`` with observations and masks, the expert bot, the AEC env on both
  backends, and RLCard Mahjong / PettingZoo Texas Hold'em for scale (the ``bench`` extra:
  ``pip install -e '.[bench]'``). A table of rates and of ratios between figures of this run;
  ``--seconds`` is the time given to each figure. Exits 2 when the core is not built.

All figures are measured on the machine you run it on, one process (one core).
"""

from __future__ import annotations

import argparse
import importlib
import itertools
import os
import platform
import random
import sys
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np


def bench_hu(seconds: float, seed: int) -> None:
    """The ``hu`` figures: µs per ``evaluate_win`` call with a cold and a warm cache, printed."""
    from ..game.cards import counts_of
    from ..game.groups import normalise_meld
    from ..game.rules import get_rules
    from ..game.scoring import clear_caches, evaluate_counts, evaluate_win
    from ..game.testing import sample_holdings, sample_wang_holdings

    rules = get_rules("huaihua")
    sample = sample_holdings(2000, seed)
    wins = sum(evaluate_win(h, m, w, rules=rules) is not None for h, m, w in sample)
    clear_caches()
    t = time.perf_counter()
    for h, m, w in sample:
        clear_caches()
        evaluate_win(h, m, w, rules=rules)
    cold = (time.perf_counter() - t) / len(sample) * 1e6
    t = time.perf_counter()
    passes = 0
    while time.perf_counter() - t < seconds:
        for h, m, w in sample:
            evaluate_win(h, m, w, rules=rules)
        passes += 1
    warm = (time.perf_counter() - t) / (passes * len(sample)) * 1e6
    canon = [
        (tuple(counts_of(hand)), tuple(sorted(normalise_meld(x) for x in melds)), win)
        for hand, melds, win in sample
    ]
    t = time.perf_counter()
    passes = 0
    while time.perf_counter() - t < seconds:
        for ch, cm, cw in canon:
            evaluate_counts(ch, cm, cw, rules)
        passes += 1
    engine_warm = (time.perf_counter() - t) / (passes * len(sample)) * 1e6
    print(f"evaluate_win over {len(sample)} holdings ({wins} winning under huaihua):")
    print(f"  cold cache (caches cleared before each call): {cold:8.1f} µs/call")
    print(f"  warm cache (repeat pass, with input parsing):  {warm:8.1f} µs/call")
    print(f"  warm cache, canonical inputs (engine path):    {engine_warm:8.2f} µs/call")

    from ..game.rules import YONGZHOU

    wsample = sample_wang_holdings(400, seed)
    wins = sum(evaluate_win(h, m, w, rules=YONGZHOU, self_drawn=True) is not None
               for h, m, w in wsample)
    t = time.perf_counter()
    for h, m, w in wsample:
        clear_caches()
        evaluate_win(h, m, w, rules=YONGZHOU, self_drawn=True)
    cold = (time.perf_counter() - t) / len(wsample) * 1e6
    t = time.perf_counter()
    passes = 0
    while time.perf_counter() - t < seconds / 2:
        for h, m, w in wsample:
            evaluate_win(h, m, w, rules=YONGZHOU, self_drawn=True)
        passes += 1
    warm = (time.perf_counter() - t) / (passes * len(wsample)) * 1e6
    print(f"evaluate_win over {len(wsample)} yongzhou holdings with 1-2 王 ({wins} winning):")
    print(f"  cold cache (caches cleared before each call): {cold:8.1f} µs/call")
    print(f"  warm cache (repeat pass, with input parsing):  {warm:8.1f} µs/call")


def bench_engine(seconds: float, seed: int) -> None:
    """The ``engine`` figures: random-legal hands on the Python engine for ``seconds``; hands/s and
    decisions/s, printed."""
    from ..game.engine import Game

    ss = np.random.SeedSequence(seed)
    rng = np.random.default_rng(ss.spawn(1)[0])
    hands = decisions = 0
    t = time.perf_counter()
    while time.perf_counter() - t < seconds:
        g = Game("huaihua", seed=int(rng.integers(2**63)))
        while not g.done:
            legal = g.legal_actions()
            g.step(legal[int(rng.integers(len(legal)))])
            decisions += 1
        hands += 1
    el = time.perf_counter() - t
    print(f"engine: {hands / el:8.1f} hands/s  {decisions / el:9.1f} decisions/s "
          f"({decisions / max(1, hands):.1f} decisions/hand, {el:.1f} s)")


def bench_env(seconds: float, seed: int) -> None:
    """The ``env`` figure: random masked play through the AEC env for ``seconds``; steps/s, printed."""
    from .. import env as make_env

    e = make_env()
    rng = np.random.default_rng(seed)
    e.reset(seed=seed)
    steps = hands = 0
    t = time.perf_counter()
    while time.perf_counter() - t < seconds:
        for agent in e.agent_iter():
            obs, _, term, trunc, _ = e.last()
            if term or trunc:
                action = None
            else:
                legal = np.flatnonzero(obs["action_mask"])
                action = int(legal[rng.integers(len(legal))])
            e.step(action)
            steps += 1
        hands += 1
        e.reset()
    el = time.perf_counter() - t
    backend = getattr(e.unwrapped, "backend", "python")  # "auto" picks the compiled core when built
    print(f"env (wrapped AEC, backend {backend}, observations + masks): {steps / el:8.1f} steps/s "
          f"({hands / el:.1f} hands/s, {el:.1f} s)")


# ------------------------------------------------------------------------------------ core

INSTALL_HINT = "pip install -e '.[bench]'"
VECTOR_HANDS = 256
ROWS = ("1a", "1b", "1c", "1d", "1e", "2a", "2b", "2c", "3a", "3b", "4a", "4b", "4c", "4d", "5a", "5b")
"""The rows ``core`` prints, in order."""


@dataclass
class _Figure:
    """One row of ``core``: ``chunk()`` does some work and returns the units it did."""

    key: str
    label: str
    unit: str
    chunk: Callable[[], int] | None = None
    units: int = 0
    calls: int = 0
    seconds: float = 0.0  # wall-clock
    cpu: float = 0.0  # this process's CPU time
    missing: str | None = None  # why the figure could not be measured

    @property
    def rate(self) -> float:
        """Units per wall-clock second."""
        return self.units / self.seconds if self.seconds > 0 else 0.0

    @property
    def cpu_rate(self) -> float:
        """Units per CPU second of this process: what one unshared core would give, nearly."""
        return self.units / self.cpu if self.cpu > 0 else 0.0


def _race(figures: list[_Figure], seconds: float) -> None:
    """Give each figure ``seconds`` in all, in alternating rounds (up to ten), so that a change
    of load on a shared machine falls on every figure of the race alike."""
    live = [f for f in figures if f.chunk is not None]
    rounds = max(1, min(10, int(seconds / 0.25)))
    per = seconds / rounds
    for _ in range(rounds):
        for f in live:
            assert f.chunk is not None
            n = calls = 0
            c0 = time.process_time()
            t0 = t = time.perf_counter()
            while t - t0 < per:
                n += f.chunk()
                calls += 1
                t = time.perf_counter()
            f.cpu += time.process_time() - c0
            f.units += n
            f.calls += calls
            f.seconds += t - t0


def _deal_seed(seed: int, i: int) -> int:
    """The seed of hand ``i``: deals the same hand on both engines, and seeds its picks."""
    return (seed * 2**32 + i) % 2**63


def _play_random(g: Any, pick: Callable[[int], int]) -> int:
    """Play ``g`` (either engine) to its end with legal actions picked in Python; decisions."""
    n = 0
    while not g.done:
        legal = g.legal_actions()
        g.step(legal[pick(len(legal))])
        n += 1
    return n


def _random_play_figures(rules: str, seed: int) -> list[_Figure]:
    from ..backends.fast import Game as FastGame
    from ..game.engine import Game as PyGame

    def python_picks(cls: Any) -> Callable[[], int]:
        hands = itertools.count()

        def chunk() -> int:
            s = _deal_seed(seed, next(hands))
            return _play_random(cls(rules, seed=s), random.Random(s).randrange)

        return chunk

    core_hands = itertools.count()

    def core_picks() -> int:
        s = _deal_seed(seed, next(core_hands))
        g = FastGame(rules, seed=s)
        n = 0
        while not g.done:
            g.step(g.random_action(s))
            n += 1
        return n

    playout_hands = itertools.count()

    def playout() -> int:
        s = _deal_seed(seed, next(playout_hands))
        return len(FastGame(rules, seed=s).playout("random", s).actions)

    built = itertools.count()

    def construct() -> int:
        FastGame(rules, seed=_deal_seed(seed, next(built)))
        return 1

    return [
        _Figure("1a", "engine.Game (Python), actions picked in Python", "decision",
                python_picks(PyGame)),
        _Figure("1b", "fast.Game, the same deals and picks in Python", "decision",
                python_picks(FastGame)),
        _Figure("1c", "fast.Game, the same deals, random_action() (C++)", "decision", core_picks),
        _Figure("1d", 'fast.Game.playout("random"): a hand per call', "decision", playout),
        _Figure("1e", "fast.Game(rules, seed=...) alone (the deal)", "hand", construct),
    ]


def _same_play(rules: str, seed: int, hands: int = 20) -> bool:
    """Whether the first ``hands`` hands of 1a and 1b are played move for move alike."""
    from ..backends.fast import Game as FastGame
    from ..game.engine import Game as PyGame

    for i in range(hands):
        s = _deal_seed(seed, i)
        played = []
        for cls in (PyGame, FastGame):
            g = cls(rules, seed=s)
            _play_random(g, random.Random(s).randrange)
            played.append(list(g.actions))
        if played[0] != played[1]:
            return False
    return True


def _aec_chunk(e: Any, seed: int) -> Callable[[], int]:
    """One hand of random masked play through an AEC env per call; returns its decisions (the
    ``step(None)`` calls that close the hand are timed, not counted)."""
    pick = random.Random(seed).randrange
    e.reset(seed=seed)

    def chunk() -> int:
        n = 0
        for _agent in e.agent_iter():
            obs, _, term, trunc, _ = e.last()
            if term or trunc:
                e.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            e.step(int(legal[pick(len(legal))]))
            n += 1
        e.reset()
        return n

    return chunk


def _vector_chunk(rules: str, seed: int, observe: bool) -> Callable[[], int]:
    """One tick of a ``VectorGame(VECTOR_HANDS)`` per call (observe? + random_actions + step)."""
    from ..backends.fast import VectorGame

    v = VectorGame(VECTOR_HANDS, rules, seed)
    obs, mask, seat, decision = v.observe()
    actions = np.empty(VECTOR_HANDS, np.int64)
    rewards = np.empty((VECTOR_HANDS, 3), np.float32)
    done = np.empty(VECTOR_HANDS, np.bool_)

    def chunk() -> int:
        if observe:
            v.observe(obs, mask, seat, decision)
        v.random_actions(actions)
        v.step(actions, rewards, done)
        return VECTOR_HANDS

    return chunk


def _env_figures(rules: str, seed: int) -> list[_Figure]:
    from ..envs.aec_env import env, raw_env

    def aec(make: Callable[..., Any], backend: str) -> Callable[[], int]:
        return _aec_chunk(make(rules=rules, backend=backend), seed)

    n = VECTOR_HANDS
    return [
        _Figure("2a", 'AEC env, wrapped, backend="python"', "step", aec(env, "python")),
        _Figure("2b", f"VectorGame({n}): observe + random_actions + step", "step",
                _vector_chunk(rules, seed, True)),
        _Figure("2c", f"VectorGame({n}): random_actions + step, no observe", "step",
                _vector_chunk(rules, seed, False)),
        _Figure("4a", 'AEC raw_env, backend="python"', "step", aec(raw_env, "python")),
        _Figure("4b", 'AEC raw_env, backend="fast"', "step", aec(raw_env, "fast")),
        _Figure("4c", 'AEC env, wrapped, backend="python" (= 2a)', "step"),
        _Figure("4d", 'AEC env, wrapped, backend="fast"', "step", aec(env, "fast")),
    ]


def _expert_figures(rules: str, seed: int, seconds: float, tables: int = 32,
                    stride: int = 5) -> tuple[_Figure, _Figure, int]:
    """The Python ``ExpertAgent`` and ``fast.Game.expert_action`` on the same positions: every
    ``stride``-th position of ``tables`` hands of compiled-expert self-play advanced together (so
    that the positions span whole hands, not only their first decisions, which cost both bots the
    most: the hands are fullest), each met once by each bot (neither has decided it before);
    returns the two figures and how many actions agree.

    Each bot is timed over the positions in its own stretch: the Python agent batch by batch
    while they are played, then the compiled one over all of them, its memos emptied first (they
    saw the positions being played), in passes that each start empty. Timing the two in
    alternation would leave each bot's memos and the CPU's caches cold for the other (the Python
    agent's milliseconds per position evict the core's tables), a cost neither pays when it plays
    alone, as in ``paohuzi-eval``."""
    from ..agents import make_agent
    from ..backends import fast

    agent = make_agent("expert", seed, rules)
    py = _Figure("3a", "agents ExpertAgent (Python) on game.view(seat)", "position")
    core = _Figure("3b", "fast.Game.expert_action(), the same positions", "position")
    deals = itertools.count()
    games: list[Any] = [fast.Game(rules, seed=_deal_seed(seed, next(deals))) for _ in range(tables)]
    positions: list[Any] = []
    py_actions: list[int] = []
    while py.seconds < seconds:
        games = [g if not g.done else fast.Game(rules, seed=_deal_seed(seed, next(deals)))
                 for g in games]
        positions.extend(g.clone() for g in games)
        views = [g.view(g.current_player) for g in games]
        c0, t0 = time.process_time(), time.perf_counter()
        py_actions.extend(agent(v) for v in views)
        py.seconds += time.perf_counter() - t0
        py.cpu += time.process_time() - c0
        py.units += len(games)
        for _ in range(stride):
            for g in games:
                if not g.done:
                    g.step(g.expert_action())
    core_actions: list[int] = []
    while not core_actions or core.cpu < seconds / 4:
        fast.clear_caches()
        c0, t0 = time.process_time(), time.perf_counter()
        core_actions = [g.expert_action() for g in positions]
        core.seconds += time.perf_counter() - t0
        core.cpu += time.process_time() - c0
        core.units += len(positions)
    agree = sum(a == b for a, b in zip(py_actions, core_actions))
    return py, core, agree


def _scale_figures(seed: int) -> list[_Figure]:
    """RLCard Mahjong and PettingZoo Texas Hold'em, random legal play, when installed."""
    mahjong = _Figure("5a", "RLCard Mahjong, rlcard.make('mahjong')", "step")
    holdem = _Figure("5b", "PettingZoo texas_holdem_v4.env(), wrapped", "step")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            rlcard = importlib.import_module("rlcard")  # untyped: imported as Any
            e = rlcard.make("mahjong", config={"seed": seed})
            pick = random.Random(seed).randrange

            def mahjong_hand() -> int:
                state, _ = e.reset()
                n = 0
                while not e.is_over():
                    legal = list(state["legal_actions"])
                    state, _ = e.step(legal[pick(len(legal))])
                    n += 1
                return n

            mahjong.chunk = mahjong_hand
        except Exception as exc:  # ImportError, or a dependency of it missing or broken
            mahjong.missing = f"{type(exc).__name__}: {exc}"
        try:
            from pettingzoo.classic import texas_holdem_v4

            holdem.chunk = _aec_chunk(texas_holdem_v4.env(), seed)
        except Exception as exc:  # needs rlcard and pygame
            holdem.missing = f"{type(exc).__name__}: {exc}"
    return [mahjong, holdem]


def _load() -> str:
    try:
        return f"{os.getloadavg()[0]:.2f}"
    except (AttributeError, OSError):  # pragma: no cover - not on this platform
        return "n/a"


def _row(f: _Figure, base: _Figure | None = None, target: float | None = None,
         min_rate: float | None = None) -> str:
    """A table row; ratios and targets are judged on CPU-time rates."""
    if f.missing is not None or f.seconds == 0:
        why = (f.missing or "not measured")[:70]
        return f" {f.key}  {f.label:<50} {f.unit:<8} not installed ({INSTALL_HINT}): {why}"
    ratio = ""
    verdict: list[str] = []
    if base is not None and base.cpu_rate > 0:
        x = f.cpu_rate / base.cpu_rate
        ratio = f"{x:6.1f}× {base.key}"
        if target is not None:
            verdict.append(f"≥ {target:g}× {'met' if x >= target else 'BELOW'}")
    if min_rate is not None:
        verdict.append(f"≥ {min_rate:,.0f}/s {'met' if f.cpu_rate >= min_rate else 'BELOW'}")
    return (f" {f.key}  {f.label:<50} {f.unit:<8} {f.cpu_rate:>10,.0f} {f.rate:>10,.0f}  "
            f"{ratio:<10}  " + ", ".join(verdict)).rstrip()


def bench_core(seconds: float, seed: int, rules: str = "huaihua") -> None:
    """The ``core`` table; exits 2 when the compiled core is not built."""
    from ..backends import fast
    from ..game.rules import get_rules

    if not fast.available():
        print(f"core: the compiled core is not available ({fast.unavailable_reason()}); build it "
              "with a C++17 compiler (pip install -e .) and run again", file=sys.stderr)
        raise SystemExit(2)
    get_rules(rules)  # an unknown preset fails here, before anything is measured
    load_start = _load()
    rounds = max(1, min(10, int(seconds / 0.25)))
    print(f"paohuzi_env.dev.bench core: rules {rules}, seed {seed}, {seconds:g} s per figure "
          f"({rounds} alternating round{'s' if rounds > 1 else ''} per race)")
    print(f"Python {platform.python_version()}, numpy {np.__version__}, {platform.system()} "
          f"{platform.machine()}, {os.cpu_count()} CPUs, load average {load_start} at the start; "
          "one process, one thread (the core starts none)")
    head = (f" {'#':<3} {'figure':<50} {'unit':<8} {'per CPU-s':>10} {'per wall-s':>10}  "
            f"{'ratio':<10}  target")
    print()
    print(head)

    print("1. Random play, one hand at a time, the same seeded deals on every row")
    one = _random_play_figures(rules, seed)
    _race(one, seconds)
    a, b, c, d, e = one
    print(_row(a, a))
    print(_row(b, a, target=50))
    print(_row(c, a))
    print(_row(d, a))
    print(_row(e))
    same = "yes" if _same_play(rules, seed) else "NO"
    print("     1b is the like-for-like figure (the issue's target); 1c and 1d pick in C++.\n"
          f"     1a and 1b play the first 20 hands move for move alike: {same}.")
    if e.rate > 0 and b.calls > 0:
        per_hand = b.seconds / b.calls * 1e6
        print(f"     fast.Game(rules, seed=...) takes {1e6 / e.rate:,.1f} µs of 1b's {per_hand:,.1f} "
              f"µs per hand ({1e6 / e.rate / per_hand:.0%}); {b.units / b.calls:.1f} decisions per hand")

    print("2. Batched play with observations and masks, vs the Python AEC env")
    envs = _env_figures(rules, seed)
    _race(envs, seconds)
    f2a, f2b, f2c, f4a, f4b, f4c, f4d = envs
    print(_row(f2a, f2a))
    print(_row(f2b, f2a, target=25, min_rate=200_000))
    print(_row(f2c, f2a))

    print("3. The expert bot, decisions on the same positions (every 5th of compiled-expert self-play),\n"
          "   each bot timed in a stretch of its own, the core's memos emptied first")
    f3a, f3b, agree = _expert_figures(rules, seed, seconds)
    print(_row(f3a, f3a))
    print(_row(f3b, f3a, target=100))
    print(f"     the two bots chose the same action at {agree:,} of {f3a.units:,} positions")

    print("4. The AEC env on the compiled core vs the Python engine (one race with 2)")
    f4c.units, f4c.calls, f4c.seconds, f4c.cpu = f2a.units, f2a.calls, f2a.seconds, f2a.cpu
    print(_row(f4a, f4a))
    print(_row(f4b, f4a, target=2.5))
    print(_row(f4c, f4c))
    print(_row(f4d, f4c, target=2.5))

    print("5. For scale: other card-game environments, random legal play")
    scale = _scale_figures(seed)
    _race(scale, seconds)
    for f in scale:
        print(_row(f, f2a))

    print()
    print("Units. decision: one Game.step(action) by the seat to act (forced moves that follow run "
          "inside it);\n  every hand starts with Game(rules, seed=...), timed (1e: that alone). "
          "step: one decision with the\n  observation and action mask of the agent to act: AEC "
          "last() + step(action), the step(None) calls\n  that close a hand timed but not counted; "
          f"VectorGame one hand's share of a tick over {VECTOR_HANDS} hands;\n  RLCard one "
          "env.step(action) with its state. position: one call of the bot on one position.\n"
          "  Rates are units per CPU second of this process (the core to itself, nearly) and per "
          "wall-clock\n  second; ratios divide CPU-time rates of this run (by the row named after "
          "×), and targets are\n  judged on them. Figures in one race alternate in rounds. 5a-5b "
          "are relative to 2a."
          f"\nLoad average {_load()} at the end.")


def main(argv: list[str] | None = None) -> None:
    """The command line (``argv``, default ``sys.argv[1:]``): run the chosen benchmark and print it."""
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["search"]:  # the compiled search against the Python one (bench_search.py)
        importlib.import_module(".bench_search", __package__).main(args[1:])
        return
    if args[:1] == ["agent"]:  # any agent's decision time (bench_search.py)
        importlib.import_module(".bench_search", __package__).main_agents(args[1:])
        return
    if args[:1] == ["review"]:  # a hand's review (bench_review.py)
        importlib.import_module(".bench_review", __package__).main(args[1:])
        return
    if args[:1] == ["soak"]:  # its own flags: paohuzi_env.dev.soak
        from .soak import main as soak_main

        raise SystemExit(soak_main(args[1:]))
    p = argparse.ArgumentParser(prog="python -m paohuzi_env.dev.bench", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("what", choices=["hu", "engine", "env", "core", "search", "agent", "review", "soak"],
                   help="search, agent, review, soak: see python -m paohuzi_env.dev.bench "
                   "search|agent|review|soak --help")
    p.add_argument("--seconds", type=float, default=10.0,
                   help="time per figure (core: per row; default 10)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--rules", default=None,
                   help="core and search only: the rules preset (default huaihua)")
    a = p.parse_args(argv)
    if a.seconds <= 0:
        p.error("--seconds must be positive")
    if a.what == "core":
        bench_core(a.seconds, a.seed, a.rules or "huaihua")
        return
    if a.rules is not None:
        p.error("--rules applies to core and search only")
    {"hu": bench_hu, "engine": bench_engine, "env": bench_env}[a.what](a.seconds, a.seed)


if __name__ == "__main__":
    main()
