"""The cost and the CI of a variance-reduced evaluation against a plain one on the same deals.

``python -m paohuzi_training.tools.aivat_bench CANDIDATE [--vs OPPONENT] [--deals N] [--seed S]
[--methods M ...]`` plays the deals plain, then corrected by each method
(:mod:`paohuzi_training.eval.aivat`; default ``aivat``, ``aivat-lookahead`` and ``aivat-lookahead2``:
``aivat-lookahead3`` costs about a second a deal), in this process (one worker), and prints
the seconds a deal of each, their ratio to the plain one, the CIs' widths, and what decides
between them: the CPU time a method needs for the plain CI's precision, relative to plain play
(the cost ratio times the square of the width ratio, since the deals needed scale with the
square of the width; below 1 the method saves time). A benchmark measures; nothing here
asserts a speed.
"""

from __future__ import annotations

import argparse
import sys

from ..eval.aivat import METHODS
from ..eval.evaluate import evaluate


def main(argv: list[str] | None = None) -> int:
    """Plain, then corrected, on the same deals.

    Returns:
        The exit status: 2 for a bad spec or option, else 0.
    """
    p = argparse.ArgumentParser(prog="python -m paohuzi_training.tools.aivat_bench", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("candidate")
    p.add_argument("--vs", default="expert")
    p.add_argument("--deals", type=int, default=300)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--rules", default="huaihua")
    p.add_argument("--methods", nargs="+", choices=[m for m in METHODS if m != "none"],
                   default=["aivat", "aivat-lookahead", "aivat-lookahead2"])
    a = p.parse_args(argv)
    try:
        kw = dict(deals=a.deals, seed=a.seed, rules=a.rules, workers=1, progress=False)
        evaluate(a.candidate, a.vs, **{**kw, "deals": 2})  # warm-up: loads, caches
        plain = evaluate(a.candidate, a.vs, **kw)
        corrected = {m: evaluate(a.candidate, a.vs, variance_reduction=m, **kw)
                     for m in a.methods}
    except ValueError as e:
        print(f"python -m paohuzi_training.tools.aivat_bench: error: {e}", file=sys.stderr)
        return 2
    tp = plain["wall_seconds"] / a.deals
    print(f"{a.candidate} vs {a.vs}, {a.rules}, {a.deals} deals, seed {a.seed}, one process")
    print(f"  {'plain':16s} {1000 * tp:8.2f} ms a deal   mean {plain['mean_points']:+.3f} "
          f"[{plain['ci95'][0]:+.3f}, {plain['ci95'][1]:+.3f}]")
    for m, res in corrected.items():
        v = res["variance_reduction"]
        tc = res["wall_seconds"] / a.deals
        deals = v["ci_width_ratio"] ** 2
        print(f"  {m:16s} {1000 * tc:8.2f} ms a deal   mean {v['mean_points']:+.3f} "
              f"[{v['ci95'][0]:+.3f}, {v['ci95'][1]:+.3f}]   cost ratio {tc / tp:.2f}x   "
              f"CI width ratio {v['ci_width_ratio']:.3f} (deals for the same precision: "
              f"{deals:.2f}x; CPU for it: {deals * tc / tp:.2f}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
