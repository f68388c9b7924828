"""Plot evaluation points against training steps from a checkpoint's history.

``python -m training.plot checkpoints/ppo__1/latest.pt --out docs/training-curve.png``
"""

from __future__ import annotations

import argparse
import sys

from .checkpoint import load_checkpoint


def plot(history: list[dict], out: str, title: str = "") -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4.5), dpi=120)
    opponents = sorted({k for h in history for k in h if k not in ("step", "final")})
    for opp in opponents:
        pts = [(h["step"], h[opp]) for h in history if opp in h and not h.get("final")]
        if not pts:
            continue
        steps = [p[0] for p in pts]
        mean = [p[1]["mean_points"] for p in pts]
        lo = [p[1]["ci95"][0] for p in pts]
        hi = [p[1]["ci95"][1] for p in pts]
        line, = ax.plot(steps, mean, marker="o", ms=3, label=f"vs {opp}")
        ax.fill_between(steps, lo, hi, alpha=0.2, color=line.get_color())
    ax.axhline(0.0, color="black", lw=0.8)
    ax.set_xlabel("training steps (learner decisions)")
    ax.set_ylabel("mean points per hand (95% CI over deals)")
    ax.set_title(title or "duplicate-deal evaluation during training")
    ax.legend()
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(out)


def plot_ladder(league: dict, out: str, title: str = "") -> None:
    """A bar chart of a league's OpenSkill ratings (``paohuzi-eval --league ... --json``):
    each agent's mu with its ±2 sigma interval, best first."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = league["ratings"]
    names = [r["agent"] for r in rows]
    mu = [r["mu"] for r in rows]
    err = [2 * r["sigma"] for r in rows]
    fig, ax = plt.subplots(figsize=(8, 0.55 * len(rows) + 1.5), dpi=120)
    y = list(range(len(rows)))[::-1]
    ax.barh(y, mu, xerr=err, color="#8c2d19", alpha=0.8, capsize=4)
    ax.set_yticks(y, names)
    ax.set_xlabel("OpenSkill (Plackett-Luce) mu, error bars ±2 sigma")
    ax.set_title(title or "strength ladder")
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    fig.savefig(out)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m training.plot", description=__doc__)
    p.add_argument("checkpoint")
    p.add_argument("--out", default="training-curve.png")
    a = p.parse_args(argv)
    try:
        data = load_checkpoint(a.checkpoint)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    plot(data.get("eval_history", []), a.out, f"{data['config']['run_name']} ({data['rules']['name']})")
    print(f"wrote {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
