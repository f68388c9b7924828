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
    """A league (``paohuzi-eval --league ... --json``) as two bar charts: each agent's
    OpenSkill mu with ±2 sigma (finishing order), and its points per hand against the field
    with the 95% CI (the score the game is played for); best first in each."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = league["ratings"]
    has_points = all("mean_points" in r for r in rows)
    fig, axes = plt.subplots(1, 2 if has_points else 1, figsize=(13 if has_points else 8,
                             0.55 * len(rows) + 1.6), dpi=120, squeeze=False)
    panels = [("mu", lambda r: r["mu"], lambda r: (2 * r["sigma"], 2 * r["sigma"]),
               "OpenSkill (Plackett-Luce) mu, ±2 sigma")]
    if has_points:
        panels.append(("points", lambda r: r["mean_points"],
                       lambda r: (r["mean_points"] - r["points_ci95"][0],
                                  r["points_ci95"][1] - r["mean_points"]),
                       "points per hand vs the field, 95% CI"))
    for ax, (_, value, err, label) in zip(axes[0], panels):
        order = sorted(rows, key=value)
        y = list(range(len(order)))
        e = [err(r) for r in order]
        ax.barh(y, [value(r) for r in order], xerr=[[a for a, _ in e], [b for _, b in e]],
                color="#8c2d19", alpha=0.8, capsize=4)
        ax.set_yticks(y, [r["agent"].replace("checkpoint:", "ckpt:") for r in order])
        ax.set_xlabel(label)
        ax.grid(axis="x", alpha=0.3)
        ax.axvline(0.0, color="black", lw=0.6)
    fig.suptitle(title or "strength ladder")
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
