"""``python -m paohuzi_env.dev.bench review [--hands N] [--seed S] [--rules R] [--analyser SPEC]``:
the time of a hand's review (:mod:`paohuzi_env.apps.review`) on one core.

Hands: expert self-play on deals ``seed``, ``seed + 1``, ...; each seat of each hand that has a
choice is reviewed with the analyser (default: the review's default,
:data:`paohuzi_env.apps.review.ANALYSER`). Prints the CPU time of this process per reviewed
hand and seat (mean, median, max; the search runs on one thread), the decisions reviewed per
hand and the CPU time per decision, and the median standard error of the reviewed means.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from .. import fast
from ..apps.review import ANALYSER, review


def main(argv: list[str] | None = None) -> None:
    """Run the benchmark and print its figures."""
    p = argparse.ArgumentParser(prog="python -m paohuzi_env.dev.bench review", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--hands", type=int, default=10)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--rules", default="huaihua")
    p.add_argument("--analyser", default=ANALYSER)
    a = p.parse_args(argv)
    if a.hands < 1:
        p.error("--hands must be at least 1")
    times: list[float] = []
    counts: list[int] = []
    ses: list[float] = []
    for h in range(a.hands):
        g = fast.Game(a.rules, seed=a.seed + h)
        while not g.done:
            g.step(g.expert_action())
        rec = g.record()
        for seat in range(3):
            t0 = time.process_time()
            try:
                rev = review(rec, seat, analyser=a.analyser, seed=h)
            except ValueError:  # the seat never had a choice
                continue
            times.append(time.process_time() - t0)
            counts.append(len(rev["decisions"]))
            ses += [r["se"] for d in rev["decisions"] for r in d["legal"]]
    if not times:
        p.error("no seat had a choice in these hands")
    t, n = np.array(times), np.array(counts)
    print(f"review of a hand (one seat), {a.rules}, analyser {a.analyser}, {len(t)} reviews of "
          f"{a.hands} hands (expert self-play, deals from {a.seed})")
    print(f"  CPU s per hand: mean {t.mean():.2f}, median {np.median(t):.2f}, max {t.max():.2f}")
    print(f"  decisions reviewed per hand: mean {n.mean():.1f}, max {n.max()}; "
          f"CPU ms per decision {1000 * t.sum() / n.sum():.0f}")
    print(f"  median standard error of an action's mean: {np.median(ses):.2f} points")


if __name__ == "__main__":
    main()
