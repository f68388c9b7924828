"""One resumable command for the whole training recipe: ``paohuzi-recipe RECIPE.yaml``.

``paohuzi-recipe configs/recipes/huaihua.yaml [--out DIR] [--seed N] [--smoke] [--stages a,b]``

The stages, in order, each in its own folder of the run folder ``DIR`` (default
``recipes/<name>__<seed>``, ``...-smoke`` with ``--smoke``):

1. ``labels`` — the search labels hands (:mod:`paohuzi_training.stages.label`; shards in ``labels/``);
2. ``clone`` — the network imitates ``expert``'s decisions (:mod:`paohuzi_training.stages.clone`;
   ``clone/model.pt``); with ``start: PATH`` in the recipe (a round of expert iteration) there
   is no cloning: the distillation starts from that trained network instead;
3. ``distill`` — it then learns the search's labels (:mod:`paohuzi_training.stages.distill`;
   ``distill/checkpoints/distill__<seed>/final.pt``);
4. ``ppo`` — PPO with a KL penalty toward the distilled network (:mod:`paohuzi_training.stages.ppo`;
   ``ppo/checkpoints/ppo__<seed>/final.pt``, TensorBoard in ``ppo/runs``);
5. ``evaluate`` — duplicate deals against each opponent on the recipe's evaluation seed
   (``evaluate/vs-<opponent>.json``, the JSON of ``paohuzi-eval``);
6. ``export`` — the network as ``export/<name>.safetensors`` + ``.json`` (``network:`` and
   ``checkpoint:`` both read it).

Each stage writes ``<stage>/stage.json``: the settings it ran with, the SHA-256 of the files it
was made from, the seed, whether it is complete and its wall clock (summed over the runs that
worked on it, kept up to date while it runs). A complete stage whose settings and inputs are
unchanged is skipped, so running the same command again after a finished run does nothing, and
after a kill it continues where it stopped: the labels skip their finished shards, the clone
reuses its demonstrations and fitted network, the distillation continues from its last epoch,
and PPO resumes from its ``latest.pt``. A stage whose settings or inputs changed is refused with
the keys that differ (use another ``--out``, or remove that stage's folder and the ones after
it). Ctrl-C or SIGTERM stops PPO after its iteration with its checkpoint saved.

The recipe file (``configs/recipes/*.yaml``) holds ``name``, ``rules``, ``seed``, optionally
``start`` (a committed network checkpoint, relative to where the command runs: the labels may
then use the search guided by it, ``guide=start``, and the distillation starts from it), ``network``
(trainer keys every network stage shares: ``actor``, ``hidden``, ...), one mapping per stage
(``labels``: the keys of ``paohuzi-label`` and ``workers``; ``clone``, ``distill``, ``ppo``:
trainer config keys, :class:`paohuzi_training.config.PPOConfig`; ``evaluate``: ``opponents``,
``deals``, ``seed``, ``workers``; ``export``: nothing yet), and ``smoke``: per-stage overrides
that make every stage tiny (``--smoke``, a few minutes on 2 cores, run in CI).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import hashlib
import json
import os
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .config import PPOConfig, make_config, read_yaml_mapping, to_dict
from .nets.files import write_atomic

STAGES = ("labels", "clone", "distill", "ppo", "evaluate", "export")
"""The stages of a recipe, in the order they run."""
RECORD = "stage.json"
"""Each stage's record, in its folder."""
TOP_KEYS = {"name", "rules", "seed", "start", "network", "smoke", *STAGES}
LABEL_KEYS = {"hands", "search", "seats", "others", "shard_hands", "workers"}
EVAL_KEYS = {"opponents", "deals", "seed", "workers"}
EXPORT_KEYS: set[str] = set()
RECIPE_SET = {"rules", "seed", "run_name", "init_from", "distill_labels"}
"""Trainer keys the recipe sets itself (a stage may not)."""


class StageStopped(Exception):
    """A stage stopped before it was complete (Ctrl-C, SIGTERM): rerun the command to go on."""


# ---------------------------------------------------------------------- the recipe file


@dataclasses.dataclass
class Recipe:
    """A recipe file, resolved: the stage settings that will run (``--smoke`` applied)."""

    name: str
    rules: str
    seed: int
    network: dict[str, Any]
    stages: dict[str, dict[str, Any]]
    path: str
    start: str = ""
    """The network a round of expert iteration starts from (an absolute path), or "" (the clone
    stage makes the first network)."""


def _check_keys(where: str, got: dict, allowed: set[str]) -> None:
    bad = sorted(set(got) - allowed)
    if bad:
        raise ValueError(f"{where}: unknown key(s) {bad}; allowed: {sorted(allowed)}")


def load_recipe(path: str | os.PathLike[str], smoke: bool = False,
                seed: int | None = None) -> Recipe:
    """Read and check a recipe file.

    Raises:
        ValueError: a missing or malformed file, an unknown key (naming the allowed ones), or
            stage settings the trainer or the labeller would refuse.
    """
    p = Path(path)
    data = read_yaml_mapping(p, "recipe", Path("configs/recipes"))
    _check_keys(f"recipe {path}", data, TOP_KEYS)
    for key in ("name", "rules"):
        if not isinstance(data.get(key), str) or not data[key]:
            raise ValueError(f"recipe {path}: {key!r} must be a non-empty string")
    base_seed = data.get("seed", 1) if seed is None else seed
    if isinstance(base_seed, bool) or not isinstance(base_seed, int) or base_seed < 0:
        raise ValueError(f"recipe {path}: seed must be an integer >= 0, got {base_seed!r}")
    smoke_data = data.get("smoke") or {}
    if not isinstance(smoke_data, dict):
        raise ValueError(f"recipe {path}: 'smoke' must be a mapping of stage -> overrides")
    _check_keys(f"recipe {path} smoke", smoke_data, set(STAGES))
    network = data.get("network") or {}
    stages: dict[str, dict[str, Any]] = {}
    for stage in (*STAGES, "network"):
        got = data.get(stage) or {}
        if not isinstance(got, dict):
            raise ValueError(f"recipe {path}: {stage!r} must be a mapping")
        if smoke and stage in smoke_data:
            extra = smoke_data[stage] or {}
            if not isinstance(extra, dict):
                raise ValueError(f"recipe {path}: smoke.{stage} must be a mapping")
            got = {**got, **extra}
        if stage == "network":
            network = got
        else:
            stages[stage] = got
    start = data.get("start") or ""
    if start:
        if not isinstance(start, str) or not Path(start).is_file():
            raise ValueError(f"recipe {path}: start must name a network checkpoint file (a "
                             f"committed .pt or .safetensors, relative to where the command runs), got "
                             f"{start!r}")
        start = str(Path(start).resolve())
    search = stages["labels"].get("search")
    if isinstance(search, str) and ":" in search:
        stages["labels"]["search"] = _resolve_guide(search, start, str(p))
    recipe = Recipe(str(data["name"]), str(data["rules"]), int(base_seed), network, stages,
                    str(p), start)
    _check_recipe(recipe)
    return recipe


def _check_recipe(r: Recipe) -> None:
    where = f"recipe {r.path}"
    _check_keys(f"{where} labels", r.stages["labels"], LABEL_KEYS)
    _check_keys(f"{where} evaluate", r.stages["evaluate"], EVAL_KEYS)
    _check_keys(f"{where} export", r.stages["export"], EXPORT_KEYS)
    for stage in ("network", "clone", "distill", "ppo"):
        got = r.network if stage == "network" else r.stages[stage]
        mine = sorted(set(got) & RECIPE_SET)
        if mine:
            raise ValueError(f"{where} {stage}: {mine} are set by the recipe itself (rules and "
                             "seed at the top; init_from and distill_labels are the stages' "
                             "outputs)")
    for stage in ("clone", "distill", "ppo"):
        try:
            trainer_config(r, stage)
        except ValueError as e:
            raise ValueError(f"{where} {stage}: {e}") from None
    label_config(r).check()
    ev = r.stages["evaluate"]
    opponents = ev.get("opponents", ["expert"])
    if not isinstance(opponents, list) or not opponents or \
            not all(isinstance(o, str) for o in opponents):
        raise ValueError(f"{where} evaluate: opponents must be a list of agent specs")
    for key in ("deals", "seed"):
        v = ev.get(key, 1 if key == "deals" else 0)
        if isinstance(v, bool) or not isinstance(v, int) or v < (1 if key == "deals" else 0):
            raise ValueError(f"{where} evaluate: {key} must be an integer >= "
                             f"{1 if key == 'deals' else 0}, got {v!r}")


def label_config(r: Recipe):
    """The labelling run's settings (:class:`paohuzi_training.stages.label.LabelConfig`)."""
    from .stages.label import LabelConfig

    got = {k: v for k, v in r.stages["labels"].items() if k != "workers"}
    if "seats" in got:
        got["seats"] = tuple(got["seats"])
    return LabelConfig(rules=r.rules, seed=r.seed, **got)


def _resolve_guide(search: str, start: str, path: str) -> str:
    """The labels' search spec with its guide as an absolute path, read where the command runs
    (the stages run inside the run folder): ``guide=start`` is the ``.safetensors`` beside the
    recipe's ``start``; ``guide=checkpoint:PATH`` is PATH resolved."""
    head, opts = search.split(":", 1)
    out = []
    for o in opts.split(","):
        if o == "guide=start":
            if not start:
                raise ValueError(f"recipe {path} labels: guide=start needs the recipe's 'start'")
            guide = Path(start).with_suffix(".safetensors")
            if not guide.is_file():
                raise ValueError(f"recipe {path} labels: guide=start reads the .safetensors "
                                 f"beside start ({guide}), which is missing: python -m "
                                 f"paohuzi_training.nets.checkpoint export {start} {guide}")
            o = f"guide=checkpoint:{guide}"
        elif o.startswith("guide=checkpoint:"):
            o = f"guide=checkpoint:{Path(o.split(':', 1)[1]).resolve()}"
        out.append(o)
    return head + ":" + ",".join(out)


CLONE_OUT = "clone/model.pt"


def _ckpt(stage: str, seed: int, name: str = "final.pt") -> str:
    return f"{stage}/checkpoints/{stage}__{seed}/{name}"


def trainer_config(r: Recipe, stage: str) -> PPOConfig:
    """The trainer config of a network stage (``clone``, ``distill``, ``ppo``), paths relative
    to the run folder."""
    values: dict[str, Any] = {"rules": r.rules, "seed": r.seed, "run_name": stage,
                              **r.network, **r.stages[stage]}
    if stage == "clone":
        values.setdefault("total_steps", 1)  # unused: the clone stage runs no PPO
    elif stage == "distill":
        values.update(init_from=r.start or CLONE_OUT, distill_labels=["labels"], total_steps=0,
                      central_critic=False, eval_every=0, final_eval_deals=0)
    else:
        values.update(init_from=_ckpt("distill", r.seed), final_eval_deals=0)
    cfg = make_config(values)
    if stage == "clone" and cfg.bc_steps < 1 and not r.start:
        raise ValueError("the clone stage needs bc_steps >= 1")
    return cfg


# ---------------------------------------------------------------------- records


def _digest(path: Path) -> str:
    """SHA-256 of a file, or of a folder's files (names and contents, sorted)."""
    h = hashlib.sha256()
    files = sorted(q for q in path.rglob("*") if q.is_file()) if path.is_dir() else [path]
    for q in files:
        if path.is_dir():
            h.update(str(q.relative_to(path)).encode() + b"\0")
        with open(q, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
    return h.hexdigest()


def _labels_digest() -> str:
    """The labels' digest: their settings and finished shards (the lock file and temporaries
    of a killed run left out)."""
    h = hashlib.sha256()
    for q in sorted(Path("labels").glob("labels.json")) + sorted(Path("labels").glob("shard-*.npz")):
        h.update(q.name.encode() + b"\0" + _digest(q).encode())
    return h.hexdigest()


STAGE_INPUTS = {"labels": [], "clone": [], "distill": ["labels", "clone"],
                "ppo": ["distill"], "evaluate": ["ppo"], "export": ["ppo"]}
"""What each stage reads: another stage's output (by stage name) or a file."""


def _outputs(r: Recipe) -> dict[str, str]:
    return {"labels": "labels", "clone": r.start or CLONE_OUT, "distill": _ckpt("distill", r.seed),
            "ppo": _ckpt("ppo", r.seed), "evaluate": "evaluate",
            "export": f"export/{r.name}.safetensors"}


def _inputs(r: Recipe, stage: str) -> dict[str, str]:
    out = {}
    for name in STAGE_INPUTS[stage]:
        path = _outputs(r).get(name, name)
        if not Path(path).exists():
            raise ValueError(f"stage {stage} needs {path}, which the stage before it makes; "
                             f"run that stage first (--stages)")
        out[path] = _labels_digest() if path == "labels" else _digest(Path(path))
    return out


def _settings(r: Recipe, stage: str) -> dict[str, Any]:
    if stage == "clone" and r.start:
        return {"start": r.start}
    if stage in ("clone", "distill", "ppo"):
        return to_dict(trainer_config(r, stage))
    if stage == "labels":
        return {**dataclasses.asdict(label_config(r)), "seats": list(label_config(r).seats)}
    if stage == "evaluate":
        ev = r.stages["evaluate"]
        return {"opponents": ev.get("opponents", ["expert"]), "deals": ev.get("deals", 1000),
                "seed": ev.get("seed", 0), "rules": r.rules}
    return {"name": r.name}


# Settings that may change between runs of a stage without making it another stage (as PPO's
# resume allows): how many processes and how often to save, not what is computed.
MAY_CHANGE = {"workers", "eval_every", "eval_deals", "save_every", "save_minutes", "device",
              "torch_threads", "ray", "update_precision"}


def _diff(a: dict, b: dict) -> list[str]:
    return sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k) and k not in MAY_CHANGE)


class _Clock:
    """A stage's record, its wall clock kept up to date every few seconds while it runs (so a
    killed run still counts its time)."""

    def __init__(self, stage: str, record: dict[str, Any]) -> None:
        self.path = Path(stage) / RECORD
        self.record = record
        self.base = float(record.get("seconds", 0.0))
        self.t0 = time.monotonic()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._tick, daemon=True)

    def _tick(self) -> None:
        while not self._stop.wait(5.0):
            self.write()

    def write(self, complete: bool | None = None, **extra: Any) -> None:
        self.record["seconds"] = self.base + time.monotonic() - self.t0
        if complete is not None:
            self.record["complete"] = complete
        self.record.update(extra)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(self.path, json.dumps(self.record, indent=2, ensure_ascii=False).encode())

    def __enter__(self) -> _Clock:
        self.write()
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        self._thread.join()
        self.write()


def read_record(stage: str) -> dict[str, Any] | None:
    """A stage's record in the current run folder, or None."""
    p = Path(stage) / RECORD
    return json.loads(p.read_text(encoding="utf-8")) if p.is_file() else None


# ---------------------------------------------------------------------- the stages


def _run_labels(r: Recipe, log) -> dict[str, Any]:
    from .stages.label import label

    res = label(label_config(r), "labels", workers=r.stages["labels"].get("workers") or None)
    log(f"labels: {res['labels']:,} labels from {res['hands']:,} hands this run "
        f"({res['skipped']} shard(s) finished before)")
    return {"labels_this_run": res["labels"]}


def _run_clone(r: Recipe, log) -> dict[str, Any]:
    if r.start:
        log(f"clone: none; the distillation starts from {r.start}")
        return {}
    import numpy as np
    import torch

    from .nets.checkpoint import save_checkpoint
    from .nets.model import model_for
    from .stages.clone import behaviour_clone
    from .stages.housekeeping import resolve_device

    cfg = trainer_config(r, "clone")
    torch.manual_seed(cfg.seed)
    rng = np.random.default_rng(np.random.SeedSequence([cfg.seed, 1]))
    device = resolve_device(cfg.device)
    model = model_for(cfg).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg.learning_rate, eps=1e-5)
    behaviour_clone(model, optimizer, cfg, device, rng, log, Path("clone"))
    save_checkpoint(CLONE_OUT, {"model": {k: v.cpu() for k, v in model.state_dict().items()},
                                "config": to_dict(cfg), "rules": cfg.resolved_rules.to_record(),
                                "global_step": 0, "iteration": 0, "train_seconds": 0.0})
    return {}


def _run_trainer(r: Recipe, stage: str, log) -> dict[str, Any]:
    from .stages.ppo import train

    cfg = trainer_config(r, stage)
    latest = Path(_ckpt(stage, r.seed, "latest.pt"))
    resume = str(latest) if stage == "ppo" and latest.is_file() else None
    if resume:
        log(f"{stage}: continuing {resume}")
    final = train(cfg, resume=resume, log=log, root=stage)
    if final.name != "final.pt":
        raise StageStopped(f"{stage} stopped at its checkpoint {final}")
    return {}


def _run_evaluate(r: Recipe, log) -> dict[str, Any]:
    from .eval.evaluate import evaluate, print_table

    ev = r.stages["evaluate"]
    out: dict[str, Any] = {}
    Path("evaluate").mkdir(exist_ok=True)
    results = []
    for opp in ev.get("opponents", ["expert"]):
        res = evaluate(f"checkpoint:{_ckpt('ppo', r.seed)}", opp, deals=ev.get("deals", 1000),
                       seed=ev.get("seed", 0), rules=r.rules, workers=ev.get("workers"),
                       mp_context="spawn")
        res.pop("rows", None)
        res["seed"] = ev.get("seed", 0)
        write_atomic(Path("evaluate") / f"vs-{opp.replace(':', '_')}.json",
                     json.dumps(res, indent=2, ensure_ascii=False).encode())
        out[opp] = {"mean_points": res["mean_points"], "ci95": res["ci95"],
                    "deals": res["deals"], "seed": res["seed"]}
        results.append(res)
    print_table(results)
    return {"results": out}


def _run_export(r: Recipe, log) -> dict[str, Any]:
    from .nets.checkpoint import export_policy

    Path("export").mkdir(exist_ok=True)
    dst = export_policy(_ckpt("ppo", r.seed), f"export/{r.name}.safetensors")
    log(f"export: {dst} and {dst.with_suffix('.json')}")
    return {}


RUNNERS = {"labels": _run_labels, "clone": _run_clone, "evaluate": _run_evaluate,
           "export": _run_export}


@contextlib.contextmanager
def _in_folder(path: Path) -> Iterator[None]:
    old = Path.cwd()
    path.mkdir(parents=True, exist_ok=True)
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(old)


def default_out(r: Recipe, smoke: bool) -> Path:
    """``recipes/<name>__<seed>`` (``-smoke`` appended for ``--smoke``)."""
    return Path("recipes") / (f"{r.name}__{r.seed}" + ("-smoke" if smoke else ""))


def run_recipe(r: Recipe, out: str | os.PathLike[str], stages: list[str] | None = None,
               log=print) -> list[dict[str, Any]]:
    """Run (or continue) the recipe's ``stages`` (default all) in the run folder ``out``;
    returns each stage's record with ``status`` (ran, skipped).

    Raises:
        ValueError: a stage's settings or inputs changed since it ran, or its input is missing.
        StageStopped: a stage stopped (Ctrl-C, SIGTERM) before it was complete.
    """
    todo = list(STAGES) if stages is None else stages
    bad = [s for s in todo if s not in STAGES]
    if bad:
        raise ValueError(f"unknown stage(s) {bad}; the stages are {', '.join(STAGES)}")
    done: list[dict[str, Any]] = []
    with _in_folder(Path(out)):
        for k, stage in enumerate(s for s in STAGES if s in todo):
            settings = _settings(r, stage)
            inputs = _inputs(r, stage)
            rec = read_record(stage)
            if rec is not None:
                saved = rec.get("settings", {})
                if stage in ("clone", "distill", "ppo") and "start" not in saved:
                    # a trainer key added since: its default
                    saved = {**to_dict(PPOConfig()), **saved}
                changed = _diff(saved, settings)
                if rec.get("inputs") != inputs:
                    changed.append("inputs (" + ", ".join(
                        p for p in inputs if rec.get("inputs", {}).get(p) != inputs[p]) + ")")
                if changed:
                    raise ValueError(
                        f"{Path(out) / stage} was made with other settings ({', '.join(changed)}"
                        f" differ): use another --out, or remove {Path(out) / stage} and the "
                        "stages after it")
                if rec.get("complete"):
                    log(f"[{k + 1}/{len(todo)}] {stage}: complete "
                        f"({_clock(rec['seconds'])}), skipped")
                    done.append({**rec, "status": "skipped"})
                    continue
            log(f"[{k + 1}/{len(todo)}] {stage}" + (" (continuing)" if rec else ""))
            record = rec or {"stage": stage, "recipe": r.path, "name": r.name}
            record.update(settings=settings, inputs=inputs, seed=r.seed, complete=False,
                          runs=int(record.get("runs", 0)) + 1)
            with _Clock(stage, record) as clock:
                runner = RUNNERS.get(stage)
                result = runner(r, log) if runner else _run_trainer(r, stage, log)
                clock.write(complete=True, output=_outputs(r)[stage], **result)
            done.append({**clock.record, "status": "ran"})
    return done


def _clock(seconds: float) -> str:
    s = int(round(seconds))
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}"


def summary(done: list[dict[str, Any]]) -> str:
    """The closing table: each stage's wall clock, then the final evaluation with its CI."""
    lines = ["| stage | this run | wall clock (all runs) |", "|---|---|---|"]
    total = 0.0
    for rec in done:
        total += rec.get("seconds", 0.0)
        lines.append(f"| {rec['stage']} | {rec['status']} | {_clock(rec.get('seconds', 0.0))} |")
    lines.append(f"| total | | {_clock(total)} |")
    for rec in done:
        for opp, res in (rec.get("results") or {}).items():
            lo, hi = res["ci95"]
            lines.append(f"\nagainst two {opp}: {res['mean_points']:+.3f} [{lo:+.3f}, {hi:+.3f}] "
                         f"points a hand over {res['deals']:,} duplicate deals (seed {res['seed']})")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """The ``paohuzi-recipe`` command.

    Returns:
        0 when every stage asked for is complete, 2 for a bad recipe, option or changed stage,
        130 when stopped (run the same command again to continue).
    """
    p = argparse.ArgumentParser(prog="paohuzi-recipe", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("recipe", help="the recipe file (configs/recipes/huaihua.yaml)")
    p.add_argument("--out", default=None,
                   help="the run folder (default recipes/<name>__<seed>[-smoke])")
    p.add_argument("--seed", type=int, default=None, help="the recipe's seed (default: its own)")
    p.add_argument("--smoke", action="store_true",
                   help="every stage in miniature (the recipe's smoke overrides)")
    p.add_argument("--stages", default=None,
                   help=f"comma-separated stages to run (default all: {','.join(STAGES)})")
    a = p.parse_args(argv)
    try:
        recipe = load_recipe(a.recipe, smoke=a.smoke, seed=a.seed)
        stages = None if a.stages is None else [s.strip() for s in a.stages.split(",") if s.strip()]
        out = Path(a.out) if a.out else default_out(recipe, a.smoke)
        print(f"paohuzi-recipe: {recipe.name} ({recipe.rules}, seed {recipe.seed}"
              + (", smoke" if a.smoke else "") + f") in {out}", flush=True)
        done = run_recipe(recipe, out, stages, log=lambda *x: print(*x, flush=True))
    except ValueError as e:
        print(f"paohuzi-recipe: error: {e}", file=sys.stderr)
        return 2
    except (StageStopped, KeyboardInterrupt) as e:
        print(f"paohuzi-recipe: stopped ({e or 'interrupted'}); run the same command again "
              "to continue", file=sys.stderr)
        return 130
    print(summary(done))
    return 0


if __name__ == "__main__":
    sys.exit(main())
