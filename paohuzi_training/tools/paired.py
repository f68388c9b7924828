"""Two candidates on the same deals, and the gain of one over the other paired over deals:
``python -m paohuzi_training.tools.paired A B [--vs SPEC] [--deals N] [--seed S] [--rules R] [--json OUT]``.

Each candidate plays the same duplicate deals (every deal three times, the candidate in each seat)
against the same opponents (``--vs``: one spec for both other seats, default ``expert``); the
gain is A's mean points minus B's, with a 95% CI over deals of each deal's difference of the two
means over its rotations (:func:`paohuzi_training.exploit.paired_gain`). Pairing removes the
deal's luck that both candidates share, so the CI of the gain is much narrower than either
candidate's own. It is the go/no-go measurement of a training piece against its start.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from ..eval.evaluate import evaluate
from ..exploit import paired_gain


def compare(a: str, b: str, *, vs: str = "expert", deals: int = 20000, seed: int = 0,
            rules: str = "huaihua", workers: int | None = None,
            progress: bool = True) -> dict[str, Any]:
    """A and B each against two ``vs`` on the same ``deals`` of ``seed``; returns both summaries
    (without their rows) and ``gain_a_over_b`` (mean points, 95% CI, deals)."""
    ra = evaluate(a, vs, deals=deals, seed=seed, rules=rules, workers=workers, progress=progress)
    rb = evaluate(b, vs, deals=deals, seed=seed, rules=rules, workers=workers, progress=progress)
    gain = paired_gain(ra.pop("rows"), rb.pop("rows"))
    return {"opponent": vs, "deals": deals, "seed": seed, "rules": rules, "a": ra, "b": rb,
            "gain_a_over_b": gain}


def main(argv: list[str] | None = None) -> int:
    """The command line; exit 2 on a bad spec or count."""
    p = argparse.ArgumentParser(prog="python -m paohuzi_training.tools.paired",
                                description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("a", help="the candidate whose gain is measured (an agent spec)")
    p.add_argument("b", help="the candidate it is measured against, e.g. its start")
    p.add_argument("--vs", default="expert", help="the opponents' spec (default: expert)")
    p.add_argument("--deals", type=int, default=20000, help="deals (default: 20000)")
    p.add_argument("--seed", type=int, default=0, help="the deals' seed (default: 0)")
    p.add_argument("--rules", default="huaihua", help="a preset (default: huaihua)")
    p.add_argument("--workers", type=int, default=None, help="processes (default: all cores)")
    p.add_argument("--json", default=None, help="write the result here")
    p.add_argument("--no-progress", action="store_true")
    args = p.parse_args(argv)
    try:
        out = compare(args.a, args.b, vs=args.vs, deals=args.deals, seed=args.seed,
                      rules=args.rules, workers=args.workers, progress=not args.no_progress)
    except ValueError as e:
        print(f"paired: error: {e}", file=sys.stderr)
        return 2
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    g = out["gain_a_over_b"]
    for key, spec in (("a", args.a), ("b", args.b)):
        r = out[key]
        print(f"{spec}: {r['mean_points']:+.3f} [{r['ci95'][0]:+.3f}, {r['ci95'][1]:+.3f}]")
    print(f"gain of A over B, paired over {g['deals']} deals: {g['mean_points']:+.3f} "
          f"[{g['ci95'][0]:+.3f}, {g['ci95'][1]:+.3f}]")
    return 0


if __name__ == "__main__":
    sys.exit(main())
