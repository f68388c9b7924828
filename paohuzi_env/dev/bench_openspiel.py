"""``python -m paohuzi_env.dev.bench_openspiel [--seconds S] [--seed N] [--rules R]``: stepping
through the pyspiel game ``python_paohuzi`` against the AEC env, in one run.

Random legal play in every figure, one hand after another; a figure's unit is a player decision
(chance nodes are played in the pyspiel figures, as the AEC env deals inside ``reset``, but not
counted). Figures, raced in alternating rounds so that a change of load on a shared machine
falls on all alike (``--seconds`` each):

* AEC env (wrapped, the compiled core), reading ``last()``'s observation and mask each step;
* AEC ``raw_env`` (the compiled core), the same;
* pyspiel, reading ``observation_tensor`` of the seat to act and ``legal_actions()`` each step;
* pyspiel, ``legal_actions()`` only;
* pyspiel ``clone()`` of a position in the middle of a hand (clones per second).

Prints decisions per wall-clock and per CPU second of this process, and the pyspiel figures as a
ratio of the wrapped AEC env's (CPU rates). Needs the ``openspiel`` extra and the compiled core.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Callable
from typing import Any

import numpy as np

from .bench import _aec_chunk, _Figure, _race


def _pyspiel_chunk(game: Any, seed: int, observe: bool) -> Callable[[], int]:
    """One hand of random play through pyspiel per call; returns its player decisions."""
    rng = random.Random(seed)

    def chunk() -> int:
        state = game.new_initial_state()
        n = 0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                x = rng.random()
                for a, p in outcomes:
                    x -= p
                    if x <= 0:
                        break
                state.apply_action(a)
                continue
            if observe:
                state.observation_tensor(state.current_player())
            legal = state.legal_actions()
            state.apply_action(legal[rng.randrange(len(legal))])
            n += 1
        return n

    return chunk


def _clone_chunk(game: Any, seed: int) -> Callable[[], int]:
    """100 clones of a position 40 decisions into a hand per call."""
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    decisions = 0
    while decisions < 40 and not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(outcomes, p=probs)))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
            decisions += 1

    def chunk() -> int:
        for _ in range(100):
            state.clone()
        return 100

    return chunk


def main(argv: list[str] | None = None) -> None:
    """Run the race and print the table."""
    p = argparse.ArgumentParser(prog="python -m paohuzi_env.dev.bench_openspiel", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seconds", type=float, default=5.0, help="time given to each figure")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--rules", default="huaihua")
    a = p.parse_args(argv)
    try:
        import pyspiel

        from ..envs import openspiel  # noqa: F401  (registers python_paohuzi)
    except ImportError as e:
        print(f"bench_openspiel needs OpenSpiel: {e}", file=sys.stderr)
        sys.exit(2)
    from .. import fast
    from ..envs.aec_env import env, raw_env

    if not fast.available():
        print(f"the compiled core is not built: {fast.unavailable_reason()}", file=sys.stderr)
        sys.exit(2)
    game = pyspiel.load_game(openspiel.GAME_NAME, {"rules": a.rules})
    figures = [
        _Figure("aec", "AEC env, wrapped (compiled core): last() + step", "decision",
                _aec_chunk(env(rules=a.rules, backend="fast"), a.seed)),
        _Figure("raw", "AEC raw_env (compiled core): last() + step", "decision",
                _aec_chunk(raw_env(rules=a.rules, backend="fast"), a.seed)),
        _Figure("os", "pyspiel: observation_tensor + legal_actions + apply_action", "decision",
                _pyspiel_chunk(game, a.seed, True)),
        _Figure("os-bare", "pyspiel: legal_actions + apply_action", "decision",
                _pyspiel_chunk(game, a.seed, False)),
        _Figure("clone", "pyspiel: clone() mid-hand", "clone", _clone_chunk(game, a.seed)),
    ]
    _race(figures, a.seconds)
    base = figures[0]
    print(f"rules {a.rules}, seed {a.seed}, {a.seconds:g} s a figure, one process")
    print(f"{'figure':<72} {'/s (wall)':>11} {'/s (CPU)':>11} {'x AEC env':>10}")
    for f in figures:
        times = f"{f.cpu_rate / base.cpu_rate:.2f}" if f.unit == "decision" else "-"
        print(f"{f.label + ' (' + f.unit + 's)':<72} {f.rate:>11,.0f} {f.cpu_rate:>11,.0f} {times:>10}")
    ratio = figures[2].cpu_rate / base.cpu_rate
    print(f"pyspiel steps at {ratio:.2f}x the wrapped AEC env's decisions per CPU second")


if __name__ == "__main__":
    main()
