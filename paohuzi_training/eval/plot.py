"""Plot evaluation points against training steps from a checkpoint's history.

``python -m paohuzi_training.eval.plot checkpoints/ppo__1/latest.pt --out docs/training-curve.png``

``--eval STEP JSON`` (repeatable) adds evaluations measured apart from the run
(``paohuzi-eval ... --json JSON`` of the network at STEP steps; the first result of the file)
as their own series, labelled ``--eval-label``. ``--tb RUN_DIR --scalars TAG ...`` adds a second
panel with TensorBoard scalars of the run (``runs/<run>``), e.g. ``losses/kl_ref
losses/kl_coef``: how far PPO has moved from its reference network, and the penalty's weight.
"""

from __future__ import annotations

import argparse
import sys

from ..nets.checkpoint import load_checkpoint


def read_eval(path: str) -> dict:
    """The first result of a ``paohuzi-eval --json`` file: ``mean_points`` and ``ci95``."""
    import json
    from pathlib import Path

    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise ValueError(f"--eval {path}: cannot read it as JSON ({e})") from None
    res = data[0] if isinstance(data, list) and data else data
    if not isinstance(res, dict) or "mean_points" not in res or "ci95" not in res:
        raise ValueError(f"--eval {path}: not a paohuzi-eval result (needs mean_points and ci95)")
    return res


def read_scalars(run_dir: str, tags: list[str]) -> dict[str, list[tuple[int, float]]]:
    """TensorBoard scalars of a run directory, by tag, as (step, value) sorted by step."""
    from pathlib import Path

    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    if not Path(run_dir).is_dir():
        raise ValueError(f"--tb {run_dir}: no such directory")
    ea = EventAccumulator(run_dir, size_guidance={"scalars": 0})
    ea.Reload()
    have = ea.Tags()["scalars"]
    missing = [t for t in tags if t not in have]
    if missing:
        raise ValueError(f"--tb {run_dir}: no scalar {', '.join(missing)}; it has: "
                         f"{', '.join(sorted(have))}")
    return {t: sorted((e.step, e.value) for e in ea.Scalars(t)) for t in tags}


def plot(history: list[dict], out: str, title: str = "",
         evals: list[tuple[int, dict]] | None = None, eval_label: str = "measured apart",
         scalars: dict[str, list[tuple[int, float]]] | None = None) -> None:
    """Draw the evaluation history (mean points with 95% CI against training steps) to ``out``.

    Args:
        history: a checkpoint's ``eval_history``: dicts with ``step`` and one result per
            opponent (``final`` entries are left out).
        out: the image file to write.
        title: the plot's title (default: a generic one).
        evals: ``(step, result)`` pairs measured apart (:func:`read_eval`), drawn as their own series.
        eval_label: the legend of ``evals``.
        scalars: TensorBoard scalars by tag, drawn in a second panel (:func:`read_scalars`).
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    if scalars:
        fig, (ax, ax2) = plt.subplots(2, 1, figsize=(8, 7), dpi=120, sharex=True,
                                      gridspec_kw={"height_ratios": [3, 2]})
    else:
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
    if evals:
        pts = sorted(evals, key=lambda e: e[0])
        steps = [p for p, _ in pts]
        mean = [r["mean_points"] for _, r in pts]
        err = [[m - r["ci95"][0] for m, (_, r) in zip(mean, pts)],
               [r["ci95"][1] - m for m, (_, r) in zip(mean, pts)]]
        ax.errorbar(steps, mean, yerr=err, marker="s", ms=5, capsize=4, lw=1.5, label=eval_label)
    ax.axhline(0.0, color="black", lw=0.8)
    ax.set_ylabel("mean points per hand (95% CI over deals)")
    ax.set_title(title or "duplicate-deal evaluation during training")
    ax.legend()
    ax.grid(alpha=0.3)
    last = ax
    if scalars:
        for tag, pts2 in scalars.items():
            ax2.plot([p for p, _ in pts2], [v for _, v in pts2], label=tag)
        ax2.legend()
        ax2.grid(alpha=0.3)
        last = ax2
    last.set_xlabel("training steps (learner decisions)")
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
    """The command line: plot a checkpoint's evaluation history.

    Returns:
        The exit status: 2 when an input cannot be read, else 0.
    """
    p = argparse.ArgumentParser(prog="python -m paohuzi_training.eval.plot", description=__doc__)
    p.add_argument("checkpoint")
    p.add_argument("--out", default="training-curve.png")
    p.add_argument("--eval", nargs=2, action="append", default=[], metavar=("STEP", "JSON"),
                   help="an evaluation measured apart (paohuzi-eval --json) at STEP steps")
    p.add_argument("--eval-label", default="measured apart", help="legend of the --eval points")
    p.add_argument("--tb", metavar="RUN_DIR", help="TensorBoard run directory for --scalars")
    p.add_argument("--scalars", nargs="+", default=[], metavar="TAG",
                   help="TensorBoard scalars to draw in a second panel, e.g. losses/kl_ref")
    a = p.parse_args(argv)
    if bool(a.tb) != bool(a.scalars):
        p.error("--tb and --scalars go together")
    try:
        evals = []
        for step, path in a.eval:
            if not step.isdigit():
                raise ValueError(f"--eval {step} {path}: STEP must be a whole number of steps")
            evals.append((int(step), read_eval(path)))
        scalars = read_scalars(a.tb, a.scalars) if a.tb else None
        data = load_checkpoint(a.checkpoint)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    plot(data.get("eval_history", []), a.out,
         f"{data['config']['run_name']} ({data['rules']['name']})", evals, a.eval_label, scalars)
    print(f"wrote {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
