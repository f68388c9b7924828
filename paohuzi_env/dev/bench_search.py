"""``python -m paohuzi_env.dev.bench search``: decision time of the ``search`` agent, the compiled
search against the Python reference in the same run, on the same positions.

Positions: the seat to act in hands of expert self-play (deals ``seed``, ``seed + 1``, ...),
every decision with more than one legal action and no win (a win is taken without a search).
Each row decides every position once, position ``i`` with a fresh agent seeded
``seed * 1000003 + i`` (so every row draws the same worlds in the same order: a pruned search
plays a prefix of the reference's); ``mean ms`` etc. are CPU time of this process per decision
(all threads counted), ``wall ms`` the mean wall-clock time. The rows:

* ``python`` — the readable reference (``search:impl=python``, samples 32, at most 256 playouts);
* ``core, reference settings`` — the compiled search with the reference's settings
  (``search:prune=0,guide=none``): the same decisions as ``python`` (tests/test_fast_search.py);
* ``core, default`` — the default spec ``search`` (pruning and, under huaihua and yongzhou, a
  guide network; see docs/SEARCH.md);
* further rows for the options named with ``--specs``.

The ``x python`` column divides the ``python`` row's mean CPU time by each row's. ``same``
counts the decisions equal to the ``core, reference settings`` row's; in that row, the
decisions equal to the ``python`` row's (``py``: the differential check, position by position).
"""

from __future__ import annotations

import argparse
import os
import time
from typing import Any

import numpy as np

REFERENCE = "search:prune=0,guide=none"
DEFAULT = "search"


def _positions(rules: str, seed: int, count: int) -> list[Any]:
    from ..backends.fast import Game

    out: list[Any] = []
    deal = seed
    while len(out) < count:
        g = Game(rules, seed=deal)
        deal += 1
        while not g.done and len(out) < count:
            legal = g.legal_actions()
            if len(legal) > 1 and 59 not in legal:  # 59: HU, taken without a search
                out.append(g.clone())
            g.step(g.expert_action())
    return out


def _load() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:  # pragma: no cover - not on every platform
        return "n/a"


def _ms_stats(seconds: list[float]) -> dict[str, float]:
    """Mean, median, 99th percentile and maximum of CPU times, in milliseconds."""
    ms = np.asarray(seconds) * 1000
    return {"mean_ms": float(ms.mean()), "p50_ms": float(np.percentile(ms, 50)),
            "p99_ms": float(np.percentile(ms, 99)), "max_ms": float(ms.max())}


def bench_search(positions: int = 100, seed: int = 0, rules: str = "huaihua",
                 specs: tuple[str, ...] = (), python_positions: int | None = None) -> list[dict]:
    """Time each row over the same positions; print the table and return its rows."""
    from ..agents import make_agent

    pos = _positions(rules, seed, positions)
    n_py = min(positions, python_positions or positions)
    rows: list[dict] = []
    ref_choices: list[int] | None = None
    py_choices: list[int] = []
    print(f"search decision time, {rules}: {len(pos)} positions of expert self-play from deal "
          f"{seed} (the python row: the first {n_py}); CPU time of this process")
    print(f"{'row':<44} {'decisions':>9} {'mean ms':>8} {'p50':>7} {'p99':>7} {'max':>7} "
          f"{'wall ms':>7} {'playouts':>8} {'worlds':>6} {'x python':>8} {'same':>10}")
    table = [("python", "search:impl=python", n_py), ("core, reference settings", REFERENCE, len(pos)),
             ("core, default (search)", DEFAULT, len(pos))]
    table += [(s, s, len(pos)) for s in specs]
    py_mean = None
    for label, spec, count in table:
        times, walls, choices, worlds, playouts = [], [], [], 0, 0
        for i, g in enumerate(pos[:count]):
            # a fresh generator per position: every row sees the same worlds in the same order
            agent: Any = make_agent(spec, seed=seed * 1_000_003 + i, rules=rules)
            c0, w0 = time.process_time(), time.perf_counter()
            choices.append(agent.act_game(g, g.current_player))
            times.append(time.process_time() - c0)
            walls.append(time.perf_counter() - w0)
            worlds += agent.last["worlds"]
            playouts += agent.last.get("playouts", 0)
        st = _ms_stats(times)
        mean = st["mean_ms"]
        if label == "python":
            py_mean = mean
            py_choices = choices
        if spec == REFERENCE:
            ref_choices = choices
            # the differential check: the python row's decisions, position by position
            same = f"{sum(a == b for a, b in zip(choices, py_choices))}/{len(py_choices)} py"
        else:
            same = "" if ref_choices is None else \
                f"{sum(a == b for a, b in zip(choices, ref_choices))}/{len(choices)}"
        ratio = "" if py_mean is None else f"{py_mean / mean:.1f}"
        n = len(times)
        pl = f"{playouts / n:.1f}"
        print(f"{label:<44} {n:>9} {mean:>8.2f} {st['p50_ms']:>7.2f} "
              f"{st['p99_ms']:>7.2f} {st['max_ms']:>7.2f} {np.mean(walls) * 1000:>7.2f} "
              f"{pl:>8} {worlds / n:>6.1f} "
              f"{ratio:>8} {same:>10}", flush=True)
        rows.append({"row": label, "spec": spec, "decisions": n, **st, "choices": choices})
    print(f"Load average {_load()} at the end.")
    return rows


def bench_agents(specs: tuple[str, ...], positions: int = 1000, seed: int = 0,
                 rules: str = "huaihua") -> list[dict]:
    """``python -m paohuzi_env.dev.bench agent SPEC ...``: CPU time of one decision of each agent,
    asked one position at a time (``agent.act_game``, as ``paohuzi play`` asks it), on the
    same positions of expert self-play as the search rows; after 20 untimed warm-up decisions
    (loading a network, caches). Print the table and return its rows."""
    from ..agents import make_agent

    pos = _positions(rules, seed, positions)
    print(f"decision time, {rules}: {len(pos)} positions of expert self-play from deal {seed}, "
          f"one at a time; CPU time of this process")
    print(f"{'agent':<60} {'decisions':>9} {'mean ms':>8} {'p50':>7} {'p99':>7} {'max':>7}")
    rows: list[dict] = []
    for spec in specs:
        agent: Any = make_agent(spec, seed=seed, rules=rules)
        for g in pos[:20]:
            agent.act_game(g, g.current_player)
        times = []
        for g in pos:
            c0 = time.process_time()
            agent.act_game(g, g.current_player)
            times.append(time.process_time() - c0)
        row = {"agent": spec, "decisions": len(times), **_ms_stats(times)}
        print(f"{spec:<60} {len(times):>9} {row['mean_ms']:>8.3f} {row['p50_ms']:>7.3f} "
              f"{row['p99_ms']:>7.3f} {row['max_ms']:>7.3f}", flush=True)
        rows.append(row)
    print(f"Load average {_load()} at the end.")
    return rows


def main_agents(argv: list[str] | None = None) -> None:
    """``bench agent SPEC ...``: parse ``argv`` and run :func:`bench_agents`."""
    p = argparse.ArgumentParser(prog="python -m paohuzi_env.dev.bench agent",
                                description=bench_agents.__doc__)
    p.add_argument("specs", nargs="+", metavar="SPEC",
                   help="agent specs, e.g. expert network:checkpoints/shipped/distilled.safetensors")
    p.add_argument("--positions", type=int, default=1000, help="positions (default 1000)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--rules", default="huaihua")
    a = p.parse_args(argv)
    if a.positions < 1:
        p.error("--positions must be at least 1")
    bench_agents(tuple(a.specs), a.positions, a.seed, a.rules)


def main(argv: list[str] | None = None) -> None:
    """``bench search``: parse ``argv`` and run :func:`bench_search`."""
    p = argparse.ArgumentParser(prog="python -m paohuzi_env.dev.bench search", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--positions", type=int, default=100, help="positions per row (default 100)")
    p.add_argument("--python-positions", type=int, default=None,
                   help="positions for the (slow) python row (default: all)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--rules", default="huaihua")
    p.add_argument("--specs", nargs="*", default=[], help="more agent specs to time, e.g. "
                   "search:prune=4,prune_z=0 search:threads=2")
    a = p.parse_args(argv)
    if a.positions < 1:
        p.error("--positions must be at least 1")
    bench_search(a.positions, a.seed, a.rules, tuple(a.specs), a.python_positions)


if __name__ == "__main__":
    main()
