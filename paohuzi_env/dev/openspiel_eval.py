"""``python -m paohuzi_env.dev.openspiel_eval CANDIDATE --vs OPPONENT [--deals N] [--seed S]
[--rules R]``: a duplicate-deal evaluation run entirely through OpenSpiel, to set beside
``paohuzi-eval CANDIDATE --vs OPPONENT``.

Each deal is played three times with ``pyspiel.evaluate_bots``, the candidate in each seat in
turn against two opponents, every agent a ``pyspiel.Bot`` from
:func:`paohuzi_env.envs.openspiel.make_bot`. ``evaluate_bots`` draws the chance outcomes from its
seed in the order the chance nodes come, and every chance node deals or draws the next card, so
one seed per deal gives the three rotations the same deck (the players' moves never consume
it). Prints the candidate's mean points per deal (over the three rotations) with a 95% normal
confidence interval over deals, as ``paohuzi-eval`` computes it. The deals are OpenSpiel's, not
``paohuzi-eval``'s: the two figures agree within their intervals, not deal for deal.
"""

from __future__ import annotations

import argparse
import math
import sys
import time

import numpy as np


def evaluate(candidate: str, opponent: str, deals: int, seed: int, rules: str = "huaihua",
             ) -> tuple[float, float, list[float]]:
    """``(mean, half-width of the 95% CI, per-deal means)`` of ``candidate`` against two
    ``opponent`` (agent specs), over ``deals`` duplicate deals."""
    import pyspiel

    from ..envs.openspiel import GAME_NAME, make_bot

    game = pyspiel.load_game(GAME_NAME, {"rules": rules})
    per_deal = []
    for deal in range(deals):
        deal_seed = int(np.random.SeedSequence([seed, deal]).generate_state(1)[0] % 2**31)
        total = 0.0
        for seat in range(3):
            bots = [make_bot(candidate if s == seat else opponent, s, seed=[seed, deal, seat, s],
                             rules=rules) for s in range(3)]
            total += pyspiel.evaluate_bots(game.new_initial_state(), bots, deal_seed)[seat]
        per_deal.append(total / 3)
    x = np.asarray(per_deal)
    half = 1.96 * float(x.std(ddof=1)) / math.sqrt(len(x)) if len(x) > 1 else float("nan")
    return float(x.mean()), half, per_deal


def main(argv: list[str] | None = None) -> None:
    """Run the evaluation and print its figure."""
    p = argparse.ArgumentParser(prog="python -m paohuzi_env.dev.openspiel_eval", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("candidate")
    p.add_argument("--vs", required=True, dest="opponent")
    p.add_argument("--deals", type=int, default=200)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--rules", default="huaihua")
    a = p.parse_args(argv)
    if a.deals < 1:
        p.error(f"--deals must be at least 1, got {a.deals}")
    try:
        import pyspiel  # noqa: F401
    except ImportError as e:
        print(f"openspiel_eval needs OpenSpiel: {e}", file=sys.stderr)
        sys.exit(2)
    t = time.perf_counter()
    mean, half, _ = evaluate(a.candidate, a.opponent, a.deals, a.seed, a.rules)
    print(f"{a.candidate} vs {a.opponent} (pyspiel.evaluate_bots, {a.rules}, {a.deals} duplicate "
          f"deals, seed {a.seed}): {mean:+.3f} [{mean - half:+.3f}, {mean + half:+.3f}] points a deal "
          f"({time.perf_counter() - t:.0f} s)")


if __name__ == "__main__":
    main()
