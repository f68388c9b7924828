"""The evaluate stage: a network against each opponent on duplicate deals
(:func:`paohuzi_training.eval.evaluate.evaluate`), written as ``paohuzi-eval``'s JSON.

``run(EvalConfig, EvalInputs) -> dict`` evaluates the network ``inputs.network`` against each of
``config.opponents`` on ``config.deals`` deals of ``config.seed`` and writes
``vs-<opponent>.json`` in ``inputs.out`` (and, with ``save_records``, the games it scored worst,
as hand records). :func:`periodic` is the same measurement made inside the PPO stage every
``every`` iterations (the learning curve). A flat config file names these keys ``eval_every``,
``eval_deals``, ``eval_opponents`` (the periodic evaluation), ``final_eval_deals`` and
``save_records`` (the evaluation that ends ``paohuzi-train``); :class:`EvalKeys` holds them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..nets.files import write_atomic


@dataclass
class EvalKeys:
    """The evaluation keys of a flat trainer config (``paohuzi-train``'s file)."""

    eval_every: int = 25
    """Iterations between evaluations through the duplicate-deal harness (0: never)."""
    eval_deals: int = 100
    """Deals per periodic evaluation (each played three times)."""
    eval_opponents: list = field(default_factory=lambda: ["expert", "greedy"])
    """Opponents of the periodic evaluations."""
    final_eval_deals: int = 300
    """Deals of the evaluation against every baseline that ends a run (0: none)."""
    save_records: int = 5
    """Hand records kept from that final evaluation: against each baseline, the games where the
    agent scored worst, in ``checkpoints/<run>/records/`` (``paohuzi replay FILE --html OUT``
    shows one, with the agent's action probabilities); 0: none."""

    def check(self) -> None:
        """Range checks with messages that say what is allowed (``ValueError``)."""
        for name in ("eval_every", "eval_deals", "final_eval_deals", "save_records"):
            if getattr(self, name) < 0:
                raise ValueError(f"config {name!r} must be >= 0, got {getattr(self, name)}")
        if not all(isinstance(o, str) for o in self.eval_opponents):
            raise ValueError("config 'eval_opponents' must be a list of agent specs")


@dataclass
class EvalConfig:
    """What an evaluation plays: against each of ``opponents`` (agent specs), ``deals`` duplicate
    deals of ``seed`` under ``rules``, in ``workers`` processes (None: one per core) or, with
    ``ray`` (a Ray address, :mod:`paohuzi_training.cluster`), as Ray tasks (the same numbers);
    with ``save_records``, that many of the games it scored worst against each are kept.
    ``every``: for the periodic evaluation inside PPO, the iterations between two (0: none)."""

    opponents: list[str] = field(default_factory=lambda: ["expert"])
    deals: int = 1000
    seed: int = 0
    rules: Any = "huaihua"
    workers: int | None = None
    save_records: int = 0
    every: int = 0
    ray: str = ""


@dataclass
class EvalInputs:
    """The network to evaluate (a checkpoint or an exported policy) and the folder the JSON goes
    to (None: none written)."""

    network: Path
    out: Path | None = None


def evaluate_network(path: Path, config: EvalConfig, records: Path | None = None) -> dict[str, dict]:
    """``paohuzi-eval``'s result (without its rows) against each opponent; with ``records`` and
    ``config.save_records``, the games the network scored worst are saved there."""
    from ..eval.evaluate import evaluate, save_records

    out = {}
    for opp in config.opponents:
        res = evaluate(f"checkpoint:{path}", opp, deals=config.deals, seed=config.seed,
                       rules=config.rules, workers=config.workers, progress=False,
                       mp_context="spawn", ray=config.ray)
        rows = res.pop("rows")
        if records is not None and config.save_records:
            save_records(rows, f"checkpoint:{path}", [opp, opp], records / f"vs-{opp}",
                         config.save_records, which="worst", seed=config.seed, rules=config.rules)
        out[opp] = res
    return out


def summary(res: dict[str, dict]) -> dict[str, dict]:
    """The figures of each opponent's evaluation kept in a checkpoint's ``eval_history``."""
    return {o: {"mean_points": r["mean_points"], "ci95": r["ci95"], "win_rate": r["win_rate"]}
            for o, r in res.items()}


def periodic(path: Path, config: EvalConfig, writer: Any, step: int) -> tuple[dict, str]:
    """The periodic evaluation of the PPO stage: its TensorBoard scalars at ``step``, the summary
    kept in the checkpoint and the text shown beside the progress bar."""
    res = evaluate_network(path, config)
    parts = []
    for opp, r in res.items():
        writer.add_scalar(f"eval/{opp}/mean_points", r["mean_points"], step)
        writer.add_scalar(f"eval/{opp}/ci_low", r["ci95"][0], step)
        writer.add_scalar(f"eval/{opp}/ci_high", r["ci95"][1], step)
        writer.add_scalar(f"eval/{opp}/win_rate", r["win_rate"], step)
        parts.append(f"{opp} {r['mean_points']:+.2f}")
    return {"step": step, **summary(res)}, "eval " + " ".join(parts)


def run(config: EvalConfig, inputs: EvalInputs, log=print) -> dict[str, Any]:
    """Evaluate ``inputs.network`` against each opponent; writes ``vs-<opponent>.json`` in
    ``inputs.out`` and prints the table. Returns each opponent's mean, CI, deals and seed."""
    from ..eval.evaluate import evaluate, print_table

    out: dict[str, Any] = {}
    results = []
    records = inputs.out / "records" if inputs.out is not None else None
    for opp in config.opponents:
        res = evaluate(f"checkpoint:{inputs.network}", opp, deals=config.deals, seed=config.seed,
                       rules=config.rules, workers=config.workers, mp_context="spawn",
                       ray=config.ray)
        rows = res.pop("rows", None)
        if records is not None and config.save_records and rows is not None:
            from ..eval.evaluate import save_records

            save_records(rows, f"checkpoint:{inputs.network}", [opp, opp], records / f"vs-{opp}",
                         config.save_records, which="worst", seed=config.seed, rules=config.rules)
        res["seed"] = config.seed
        if inputs.out is not None:
            inputs.out.mkdir(parents=True, exist_ok=True)
            write_atomic(inputs.out / f"vs-{opp.replace(':', '_')}.json",
                         json.dumps(res, indent=2, ensure_ascii=False).encode())
        out[opp] = {"mean_points": res["mean_points"], "ci95": res["ci95"], "deals": res["deals"],
                    "seed": res["seed"]}
        results.append(res)
    print_table(results)
    return {"results": out, "full": results}


def run_final(config: EvalConfig, inputs: EvalInputs, log=print) -> dict[str, dict]:
    """The evaluation that ends ``paohuzi-train``: against each opponent, the table, the games
    scored worst as hand records in ``<out>/records``, ``<out>/final_eval.json`` (each opponent's
    ``paohuzi-eval`` JSON), and the summary appended to the checkpoint's ``eval_history``."""
    from ..eval.evaluate import print_table
    from ..nets.checkpoint import load_checkpoint, save_checkpoint

    folder = inputs.out if inputs.out is not None else inputs.network.parent
    res = evaluate_network(inputs.network, config, records=folder / "records")
    print_table(list(res.values()))
    data = load_checkpoint(inputs.network)
    data["eval_history"] = [*data.get("eval_history", []),
                            {"step": data.get("global_step", 0), "final": True, **summary(res)}]
    save_checkpoint(inputs.network, data)
    write_atomic(folder / "final_eval.json", json.dumps(res, indent=2, ensure_ascii=False).encode())
    return res
