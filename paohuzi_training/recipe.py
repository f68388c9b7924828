"""One resumable command for the whole training recipe: ``paohuzi-recipe RECIPE.yaml``.

``paohuzi-recipe configs/recipes/huaihua.yaml [--out DIR] [--seed N] [--smoke] [--stages a,b]
[--ray [ADDRESS]]``

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

A recipe may list its stages (``stages: [...]``). The evaluation and the export read PPO's
network, else (a round without PPO: ``[labels, distill, evaluate, export]``) the distillation's,
else the recipe's ``start``; without the distillation, PPO starts from ``start`` (a transfer:
``[ppo, evaluate, export]``) or, with no ``start``, from the clone (behaviour cloning then PPO:
``[clone, ppo, evaluate, export]``).

Each stage writes ``<stage>/stage.json``: the settings it ran with, the SHA-256 of the files it
was made from, the seed, whether it is complete and its wall clock (summed over the runs that
worked on it, kept up to date while it runs). A complete stage whose settings and inputs are
unchanged is skipped, so running the same command again after a finished run does nothing, and
after a kill it continues where it stopped: the labels skip their finished shards, the clone
reuses its demonstrations and fitted network, the distillation continues from its last epoch,
and PPO resumes from its ``latest.pt``. A stage whose settings or inputs changed is refused with
the keys that differ (use another ``--out``, or remove that stage's folder and the ones after
it). Ctrl-C or SIGTERM stops PPO after its iteration with its checkpoint saved.

``--ray`` runs every stage's workers on Ray (:mod:`paohuzi_training.cluster`): the labels' shards,
the clone's demonstrations and the evaluation's deals as Ray tasks, PPO's rollout workers as
actors. With no address it starts a Ray instance on this machine; ``--ray auto`` or
``--ray ray://head:10001`` joins a cluster (its nodes need this package and, for the evaluation,
the run folder: a shared file system). The jobs are those of local processes, so the run gives the
same labels, network and evaluation; the network stages' records keep the address, and a run may
continue with or without Ray.

The recipe file (``configs/recipes/*.yaml``) holds ``name``, ``rules``, ``seed``, optionally
``start`` (a committed network checkpoint, relative to where the command runs: the labels may
then use the search guided by it, ``guide=start``, and the distillation starts from it), ``network``
(trainer keys every network stage shares: ``actor``, ``hidden``, ...), one mapping per stage
(``labels``: the keys of ``paohuzi-label`` and ``workers``; ``clone``, ``distill``, ``ppo``:
trainer config keys, :class:`paohuzi_training.config.PPOConfig`; ``evaluate``: ``opponents``,
``deals``, ``seed``, ``workers``; ``export``: nothing yet), and ``smoke``: per-stage overrides
that make every stage tiny (``--smoke``: about a minute on 2 idle cores, run in CI).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import functools
import hashlib
import json
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from paohuzi_env.apps.helptext import plain_text

from .config import PPOConfig, flat_fields, from_flat, read_yaml_mapping, to_dict
from .nets.files import write_atomic

if TYPE_CHECKING:
    from paohuzi_env.game.rules import Rules

STAGES = ("labels", "clone", "distill", "ppo", "evaluate", "export")
"""The stages of a recipe, in the order they run."""
RECORD = "stage.json"
"""Each stage's record, in its folder."""
TOP_KEYS = {"name", "rules", "seed", "start", "stages", "network", "smoke", *STAGES}
LABEL_KEYS = {"hands", "search", "seats", "others", "shard_hands", "workers"}
EVAL_KEYS = {"opponents", "deals", "seed", "workers"}
EXPORT_KEYS: set[str] = set()
RECIPE_SET = {"rules", "seed", "run_name", "init_from", "distill_labels"}
"""Trainer keys the recipe sets itself (a stage may not)."""


class StageStopped(Exception):
    """A stage stopped before it was complete (Ctrl-C, SIGTERM): rerun the command to go on."""


# ---------------------------------------------------------------------- flat configs

START_KEY = "init_from"
"""The flat key naming the network a ``paohuzi-train`` config starts from (the start input of its
first network stage)."""
RETIRED = {"belief_coef": 0.0}
"""Keys of an older trainer a config file may still hold, at the only value they may have (the
belief head was removed: ``belief_coef`` measured -0.030 [-0.099, +0.039])."""


def _sections() -> tuple[type, ...]:
    """The config dataclasses of the stages a flat config feeds (imported when first needed, so
    that a command's ``--help`` loads no torch)."""
    from .stages.clone import CloneConfig
    from .stages.distill import DistillConfig
    from .stages.evaluate import EvalKeys

    return PPOConfig, CloneConfig, DistillConfig, EvalKeys


def config_fields() -> list[str]:
    """The valid keys of a flat config: every stage's, the start network's and the retired ones."""
    keys: dict[str, None] = {}
    for cls in _sections():
        keys.update(dict.fromkeys(flat_fields(cls)))
    return [*keys, START_KEY, *RETIRED]


def _unknown_keys(keys: Any, where: str) -> None:
    """``ValueError`` naming unknown keys (with the closest valid one) and ``where`` they came
    from."""
    import difflib

    valid = config_fields()
    unknown = sorted(set(keys) - set(valid))
    if not unknown:
        return
    hints = []
    for k in unknown:
        close = difflib.get_close_matches(k, valid, n=1)
        hints.append(f"{k!r} (did you mean {close[0]!r}?)" if close else repr(k))
    raise ValueError(f"unknown config key(s) {', '.join(hints)} {where}; valid keys: "
                     f"{', '.join(valid)}")


class TrainConfig:
    """A flat trainer config (a ``paohuzi-train`` file with its overrides), each key read by the
    stages that have it: :attr:`ppo`, :attr:`clone`, :attr:`distill` (their configs),
    :attr:`evaluate` (the evaluation keys) and :attr:`start` (``init_from``). ``cfg.KEY`` reads
    any key's value; :meth:`to_dict` gives the whole mapping back."""

    def __init__(self, values: dict[str, Any]) -> None:
        ppo_cls, clone_cls, distill_cls, eval_cls = _sections()
        for key, allowed in RETIRED.items():
            if (values.get(key) or allowed) != allowed:
                raise ValueError(f"config {key!r} is no longer a trainer key (the belief head was "
                                 f"removed; the trainer of commit a7f5325 has it); got {values[key]!r}")
        start = values.get(START_KEY, "") or ""
        if not isinstance(start, str):
            raise ValueError(f"config {START_KEY!r} must be a network file, got {start!r}")
        self.ppo: PPOConfig = from_flat(ppo_cls, values)
        self.clone: Any = from_flat(clone_cls, values)
        self.distill: Any = from_flat(distill_cls, values)
        self.evaluate: Any = from_flat(eval_cls, values)
        self.start: str = start
        self.values: dict[str, Any] = {**to_dict(self.clone), **to_dict(self.distill),
                                       **dataclasses.asdict(self.evaluate), **to_dict(self.ppo),
                                       START_KEY: start}
        if self.ppo.total_steps < (0 if self.distill.distill_labels else 1):
            raise ValueError(f"config 'total_steps' must be >= 1 (0 only with distill_labels: "
                             f"distillation alone), got {self.ppo.total_steps}")

    def __getattr__(self, name: str) -> Any:
        values = self.__dict__.get("values", {})
        if name in values:
            return values[name]
        raise AttributeError(f"no config key {name!r}")

    @property
    def resolved_rules(self) -> Rules:
        """The run's rules (:attr:`paohuzi_training.config.RunConfig.resolved_rules`)."""
        return self.ppo.resolved_rules

    @property
    def league(self) -> Any:
        """PPO's opponents (:class:`paohuzi_training.config.LeagueConfig`)."""
        return self.ppo.league

    @property
    def aux(self) -> Any:
        """PPO's auxiliary loss (:class:`paohuzi_training.config.AuxConfig`)."""
        return self.ppo.aux

    def to_dict(self) -> dict[str, Any]:
        """Every key's value, flat."""
        return dict(self.values)

    def replace(self, **changes: Any) -> TrainConfig:
        """A copy with ``changes`` applied (checked as a new config)."""
        return make_config({**self.values, **changes})


def make_config(values: dict[str, Any]) -> TrainConfig:
    """A flat config from a mapping; unknown keys raise ``ValueError`` listing the valid ones."""
    _unknown_keys(values, "in the config")
    return TrainConfig(values)


def load_config(path: str | Path | None, overrides: list[str] | None = None,
                base: dict[str, Any] | None = None) -> TrainConfig:
    """Read a YAML config and apply ``key=value`` overrides; ``base``: values to start from
    (a checkpoint's own config) instead of the defaults."""
    values: dict[str, Any] = {k: v for k, v in (base or {}).items() if k in set(config_fields())}
    if path is not None:
        data = read_yaml_mapping(path, "config file", Path("configs"))
        _unknown_keys(data, f"in {path}")
        values.update(data)
    given: dict[str, Any] = {}
    for item in overrides or []:
        if "=" not in item:
            raise ValueError(f"override {item!r} must look like key=value")
        k, v = item.split("=", 1)
        given[k.strip()] = v
    _unknown_keys(given, "in the command-line overrides")
    values.update(given)
    try:
        return make_config(values)
    except ValueError as e:
        where = f"{path} with overrides {list(given)}" if path and given else (
            path or (f"overrides {list(given)}" if given else "the default config"))
        raise ValueError(f"{where}: {e}") from None


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
    order: tuple[str, ...] = STAGES
    """The recipe's stages (its ``stages`` key; default all, in :data:`STAGES` order). Without
    ``labels`` and ``distill`` (a transfer: ``stages: [ppo, evaluate, export]``) PPO starts from
    the recipe's ``start``."""
    ray: str = ""
    """Where the stages' workers run: "" (local processes) or a Ray address (``--ray``: ``local``,
    ``auto``, ``ray://host:10001``); not part of the recipe file."""


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
    if isinstance(start, str) and start.startswith("zoo:"):
        from paohuzi_env.agents import zoo

        try:
            start = str(zoo.network_path(start[len("zoo:"):]))
        except ValueError as e:
            raise ValueError(f"recipe {path}: start {data['start']!r}: {e}") from None
    if start:
        if not isinstance(start, str) or not Path(start).is_file():
            raise ValueError(f"recipe {path}: start must name a network checkpoint file (a "
                             f"committed .pt or .safetensors, relative to where the command runs, "
                             f"or zoo:NAME), got {start!r}")
        start = str(Path(start).resolve())
    search = stages["labels"].get("search")
    if isinstance(search, str) and ":" in search:
        stages["labels"]["search"] = _resolve_guide(search, start, str(p))
    order = data.get("stages", list(STAGES))
    if not isinstance(order, list) or not order or any(o not in STAGES for o in order):
        raise ValueError(f"recipe {path}: stages must be a list of stages from {', '.join(STAGES)}, "
                         f"got {order!r}")
    order = tuple(s for s in STAGES if s in order)
    if "ppo" in order and not {"distill", "clone"} & set(order) and not start:
        raise ValueError(f"recipe {path}: without the distill or clone stage, PPO starts from the "
                         "recipe's start: name it (start: PATH or zoo:NAME)")
    if {"evaluate", "export"} & set(order) and not {"ppo", "distill"} & set(order) and not start:
        raise ValueError(f"recipe {path}: the evaluate and export stages read PPO's network, else "
                         "the distillation's, else the recipe's start: name one of them")
    recipe = Recipe(str(data["name"]), str(data["rules"]), int(base_seed), network, stages,
                    str(p), start, order)
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
    # a start of another preset guides as a transfer (its observation is checked by the stage
    # that writes it): the other settings are checked with the unguided search
    _with_guide(r, label_config(r), "guide=none").check()
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


def flat_config(r: Recipe, stage: str) -> TrainConfig:
    """The flat config of a network stage (``clone``, ``distill``, ``ppo``): the recipe's rules and
    seed, its ``network`` block and the stage's block, every key checked."""
    values: dict[str, Any] = {"rules": r.rules, "seed": r.seed, "run_name": stage,
                              **r.network, **r.stages[stage], **({"ray": r.ray} if r.ray else {})}
    if stage == "clone":
        values.setdefault("total_steps", 1)  # unused: the clone stage runs no PPO
    elif stage == "distill":
        values.update(distill_labels=["labels"], total_steps=0, central_critic=False)
    elif stage == "ppo" and values.get("aux_coef") and "labels" in r.order:
        values.setdefault("aux_labels", ["labels"])  # the auxiliary loss reads this run's labels
    return make_config(values)


def trainer_config(r: Recipe, stage: str) -> Any:
    """The config of a network stage, paths relative to the run folder: a
    :class:`~paohuzi_training.stages.clone.CloneConfig`, a
    :class:`~paohuzi_training.stages.distill.DistillConfig` or a :class:`PPOConfig`."""
    flat = flat_config(r, stage)
    if stage == "clone":
        if flat.clone.bc_steps < 1 and not r.start:
            raise ValueError("the clone stage needs bc_steps >= 1")
        return flat.clone
    return flat.distill if stage == "distill" else flat.ppo


def _final(r: Recipe) -> str:
    """The network the evaluation and the export read: PPO's, else the distillation's (a round
    of expert iteration without PPO: ``stages: [labels, distill, evaluate, export]``), else the
    recipe's ``start`` (a recipe that ships its start under its own rules)."""
    if "ppo" in r.order:
        return _ckpt("ppo", r.seed)
    if "distill" in r.order:
        return _ckpt("distill", r.seed)
    return r.start


def _start(r: Recipe, stage: str) -> str:
    """The network a network stage starts from: the distillation from the recipe's ``start`` or
    the clone, PPO from the distilled network (in a recipe without distill: from ``start``, else
    from the clone)."""
    if stage == "distill" or "distill" not in r.order:
        return r.start or CLONE_OUT
    return _ckpt("distill", r.seed)


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
    names = STAGE_INPUTS[stage]
    if stage == "ppo" and "distill" not in r.order:
        names = [_start(r, stage)]
    if stage == "ppo" and r.stages["ppo"].get("aux_coef") and "labels" in r.order:
        names = [*names, "labels"]  # the auxiliary loss reads them
    if stage in ("evaluate", "export") and "ppo" not in r.order:
        names = ["distill" if "distill" in r.order else r.start]
    for name in names:
        path = _outputs(r).get(name, name)
        if not Path(path).exists():
            raise ValueError(f"stage {stage} needs {path}, which the stage before it makes; "
                             f"run that stage first (--stages)")
        out[path] = _labels_digest() if path == "labels" else _digest(Path(path))
    return out


def _settings(r: Recipe, stage: str) -> dict[str, Any]:
    if stage == "clone" and r.start:
        return {"start": r.start}
    if stage == "clone":
        return to_dict(trainer_config(r, stage))
    if stage == "distill":
        return {**to_dict(trainer_config(r, stage)), "start": _start(r, stage)}
    if stage == "ppo":
        ev = flat_config(r, stage).evaluate
        return {**to_dict(trainer_config(r, stage)), "start": _start(r, stage),
                "eval_every": ev.eval_every, "eval_deals": ev.eval_deals,
                "eval_opponents": ev.eval_opponents}
    if stage == "labels":
        return {**dataclasses.asdict(label_config(r)), "seats": list(label_config(r).seats)}
    if stage == "evaluate":
        ev = r.stages["evaluate"]
        return {"opponents": ev.get("opponents", ["expert"]), "deals": ev.get("deals", 1000),
                "seed": ev.get("seed", 0), "rules": r.rules}
    return {"name": r.name}


def _saved_settings(r: Recipe, stage: str, saved: dict[str, Any]) -> dict[str, Any]:
    """A record's settings as this trainer names them: a key added since at its default, and the
    start network of an older record (which named it ``init_from``)."""
    if stage not in ("clone", "distill", "ppo") or "start" in saved and stage == "clone":
        return saved
    cls = type(trainer_config(r, stage))
    out = {**to_dict(cls()), **saved}
    if stage != "clone":
        out.setdefault("start", saved.get("init_from", ""))
    return out


# Settings that may change between runs of a stage without making it another stage (as PPO's
# resume allows): how many processes and how often to save, not what is computed.
MAY_CHANGE = {"workers", "eval_every", "eval_deals", "save_every", "save_minutes", "device",
              "torch_threads", "ray", "update_precision"}


def _diff(saved: dict, settings: dict) -> list[str]:
    """The settings that differ from a record's, but for :data:`MAY_CHANGE` (a key the stage no
    longer reads, say one that moved to another stage, is not compared)."""
    return sorted(k for k in settings if saved.get(k) != settings.get(k) and k not in MAY_CHANGE)


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
        # one writer at a time: the ticking thread and the stage's own writes share the record,
        # and write_atomic removes a killed writer's temporary files, which a concurrent write's
        # still is
        self._lock = threading.Lock()

    TICK_S = 5.0
    """How often the record is rewritten while the stage runs (seconds)."""

    def _tick(self) -> None:
        while not self._stop.wait(self.TICK_S):
            self.write()

    def write(self, complete: bool | None = None, **extra: Any) -> None:
        with self._lock:
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


def _with_guide(r: Recipe, cfg, guide: str):
    """``cfg`` (the labels' settings) with its guide, when that is the recipe's start trained
    under another preset, replaced by ``guide`` (a search option); ``cfg`` itself when the
    guide is not such a start."""
    if not r.start:
        return cfg
    start = f"guide=checkpoint:{Path(r.start).with_suffix('.safetensors')}"
    head, _, opts = cfg.search.partition(":")
    if start not in opts.split(","):
        return cfg
    from .nets.checkpoint import checkpoint_rules, load_checkpoint

    if checkpoint_rules(load_checkpoint(r.start)).name == r.rules:
        return cfg
    opts = ",".join(guide if o == start else o for o in opts.split(","))
    return dataclasses.replace(cfg, search=f"{head}:{opts}")


def _transferred_guide(r: Recipe, cfg, log):
    """``cfg`` with a guide that is the recipe's start trained under another preset (the same
    observation) replaced by the start as a transfer to the recipe's rules, written beside the
    labels (``labels/guide-<rules>.safetensors``: the same tensors, its sidecar naming the
    recipe's rules), since the search plays a network only under the rules it names."""
    out = Path("labels") / f"guide-{r.rules}.safetensors"
    got = _with_guide(r, cfg, f"guide=checkpoint:{out.resolve()}")
    if got is cfg:
        return cfg
    from .nets.checkpoint import transfer_policy

    out.parent.mkdir(parents=True, exist_ok=True)
    transfer_policy(r.start, out, r.rules)
    log(f"labels: the guide is the start as a transfer to {r.rules!r}: {out}")
    return got


def _run_labels(r: Recipe, log) -> dict[str, Any]:
    from .stages import label

    cfg = _transferred_guide(r, label_config(r), log)
    res = label.run(cfg, label.LabelInputs(
        Path("labels"), r.stages["labels"].get("workers") or None, ray=r.ray), log)
    return {"labels_this_run": res["labels"]}


def _run_clone(r: Recipe, log) -> dict[str, Any]:
    if r.start:
        log(f"clone: none; the distillation starts from {r.start}")
        return {}
    from .stages import clone

    clone.run(trainer_config(r, "clone"), clone.CloneInputs(Path("clone").resolve(),
                                                            Path(CLONE_OUT).resolve()), log)
    return {}


def _run_distill(r: Recipe, log) -> dict[str, Any]:
    from .stages import distill

    run_id = f"distill__{r.seed}"
    distill.run(trainer_config(r, "distill"), distill.DistillInputs(
        folder=Path("distill/checkpoints").resolve() / run_id,
        out=Path(_ckpt("distill", r.seed)).resolve(), start=_start(r, "distill"),
        runs=Path("distill/runs").resolve() / run_id), log)
    return {}


def _run_ppo(r: Recipe, log) -> dict[str, Any]:
    from .stages import ppo
    from .stages.evaluate import EvalConfig

    flat = flat_config(r, "ppo")
    latest = Path(_ckpt("ppo", r.seed, "latest.pt"))
    resume = str(latest) if latest.is_file() else None
    if resume:
        log(f"ppo: continuing {latest.resolve()}")
    ev = flat.evaluate
    inputs = ppo.PPOInputs(start=_start(r, "ppo"), kl_ref="start", resume=resume,
                           root=Path("ppo").resolve(),  # the log's paths: absolute
                           evaluate=EvalConfig(opponents=ev.eval_opponents, deals=ev.eval_deals,
                                               seed=r.seed + 12345, rules=flat.resolved_rules,
                                               every=ev.eval_every),
                           continue_with="rerun the recipe (the same command) to continue")
    final = ppo.run(flat.ppo, inputs, log)
    if final.name != "final.pt":
        raise StageStopped(f"ppo stopped at its checkpoint {final}")
    return {"kl_ref": ppo.kl_reference(flat.ppo, inputs)}


def _run_evaluate(r: Recipe, log) -> dict[str, Any]:
    from .stages import evaluate

    ev = r.stages["evaluate"]
    res = evaluate.run(evaluate.EvalConfig(opponents=ev.get("opponents", ["expert"]),
                                           deals=ev.get("deals", 1000), seed=ev.get("seed", 0),
                                           rules=r.rules, workers=ev.get("workers"), ray=r.ray),
                       evaluate.EvalInputs(Path(_final(r)), Path("evaluate").resolve()), log)
    return {"results": res["results"]}


def _run_export(r: Recipe, log) -> dict[str, Any]:
    from .stages import export

    export.run(export.ExportConfig(), export.ExportInputs(
        Path(_final(r)), Path(f"export/{r.name}.safetensors").resolve()), log)
    return {}


RUNNERS = {"labels": _run_labels, "clone": _run_clone, "distill": _run_distill, "ppo": _run_ppo,
           "evaluate": _run_evaluate, "export": _run_export}


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


@dataclasses.dataclass
class Step:
    """One stage of a run: its name and ``run(log) -> result`` (the stage module's ``run`` with
    its config and inputs); for a recipe's records, its ``settings``, the digests of what it
    reads (``inputs``) and the ``output`` it makes."""

    stage: str
    run: Callable[[Any], dict[str, Any]]
    settings: Callable[[], dict[str, Any]] | None = None
    inputs: Callable[[], dict[str, str]] | None = None
    output: str = ""
    saved: Callable[[dict[str, Any]], dict[str, Any]] | None = None
    """A record's settings as the stage now names them (a record of an older trainer)."""


def run_stages(steps: list[Step], log=print, *, record: dict[str, Any] | None = None,
               where: Path = Path(".")) -> list[dict[str, Any]]:
    """The one orchestrator: run ``steps`` in order. With ``record`` (a recipe's ``recipe``,
    ``name`` and ``seed``), each stage keeps its record in ``<stage>/stage.json`` under the
    current folder (``where`` names it in messages), and a complete stage whose settings and
    inputs are unchanged is skipped; returns each stage's record with ``status`` (ran, skipped).

    Raises:
        ValueError: a stage's settings or inputs changed since it ran, or its input is missing.
        StageStopped: a stage stopped (Ctrl-C, SIGTERM) before it was complete.
    """
    done: list[dict[str, Any]] = []
    for k, step in enumerate(steps):
        head = f"[{k + 1}/{len(steps)}] {step.stage}"
        if record is None or step.settings is None or step.inputs is None:
            log(head)
            done.append({"stage": step.stage, "status": "ran", **step.run(log)})
            continue
        settings = step.settings()
        inputs = step.inputs()
        rec = read_record(step.stage)
        if rec is not None:
            saved = rec.get("settings", {})
            changed = _diff(step.saved(saved) if step.saved else saved, settings)
            if rec.get("inputs") != inputs:
                changed.append("inputs (" + ", ".join(
                    p for p in inputs if rec.get("inputs", {}).get(p) != inputs[p]) + ")")
            if changed:
                raise ValueError(
                    f"{where / step.stage} was made with other settings ({', '.join(changed)}"
                    f" differ): use another --out, or remove {where / step.stage} and the "
                    "stages after it")
            if rec.get("complete"):
                log(f"{head}: complete ({_clock(rec['seconds'])}), skipped")
                done.append({**rec, "status": "skipped"})
                continue
        log(head + (" (continuing)" if rec else ""))
        rec = rec or {"stage": step.stage, **record}
        rec.update(settings=settings, inputs=inputs, seed=record["seed"], complete=False,
                   runs=int(rec.get("runs", 0)) + 1)
        with _Clock(step.stage, rec) as clock:
            result = step.run(log)
            clock.write(complete=True, output=step.output, **result)
        done.append({**clock.record, "status": "ran"})
    return done


def run_recipe(r: Recipe, out: str | os.PathLike[str], stages: list[str] | None = None,
               log=print) -> list[dict[str, Any]]:
    """Run (or continue) the recipe's ``stages`` (default all) in the run folder ``out``
    through :func:`run_stages`; returns each stage's record with ``status`` (ran, skipped).

    Raises:
        ValueError: a stage's settings or inputs changed since it ran, or its input is missing.
        StageStopped: a stage stopped (Ctrl-C, SIGTERM) before it was complete.
    """
    todo = list(r.order) if stages is None else stages
    bad = [s for s in todo if s not in r.order]
    if bad:
        raise ValueError(f"unknown stage(s) {bad}; this recipe's stages are {', '.join(r.order)}")
    steps = [Step(stage, functools.partial(RUNNERS[stage], r), functools.partial(_settings, r, stage),
                  functools.partial(_inputs, r, stage), _outputs(r)[stage],
                  functools.partial(_saved_settings, r, stage))
             for stage in STAGES if stage in todo]
    with _in_folder(Path(out)):
        return run_stages(steps, log, record={"recipe": r.path, "name": r.name, "seed": r.seed},
                          where=Path(out))


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
    p = argparse.ArgumentParser(prog="paohuzi-recipe", description=plain_text(__doc__),
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("recipe", help="the recipe file (configs/recipes/huaihua.yaml)")
    p.add_argument("--out", default=None,
                   help="the run folder (default recipes/<name>__<seed>[-smoke])")
    p.add_argument("--seed", type=int, default=None, help="the recipe's seed (default: its own)")
    p.add_argument("--smoke", action="store_true",
                   help="every stage in miniature (the recipe's smoke overrides): about a "
                        "minute on 2 idle cores")
    p.add_argument("--stages", default=None,
                   help=f"comma-separated stages to run (default all: {','.join(STAGES)})")
    p.add_argument("--ray", nargs="?", const="local", default=None, metavar="ADDRESS",
                   help="run every stage's workers on Ray (labels, demonstrations, evaluation: "
                        "tasks; PPO's rollout workers: actors): a Ray instance started here, "
                        "or the cluster at ADDRESS (auto, ray://host:10001); the same numbers")
    a = p.parse_args(argv)
    try:
        recipe = load_recipe(a.recipe, smoke=a.smoke, seed=a.seed)
        if a.ray:
            from .cluster import connect

            recipe = dataclasses.replace(recipe, ray=a.ray)
            connect(a.ray, log=lambda *x: print(*x, flush=True))
        stages = None if a.stages is None else [s.strip() for s in a.stages.split(",") if s.strip()]
        out = Path(a.out) if a.out else default_out(recipe, a.smoke)
        print(f"paohuzi-recipe: {recipe.name} ({recipe.rules}, seed {recipe.seed}"
              + (", smoke" if a.smoke else "") + f") in {out.resolve()}", flush=True)
        done = run_recipe(recipe, out, stages, log=lambda *x: print(*x, flush=True))
    except ValueError as e:
        print(f"paohuzi-recipe: error: {e}", file=sys.stderr)
        return 2
    except (StageStopped, KeyboardInterrupt) as e:
        print(f"paohuzi-recipe: stopped ({e or 'interrupted'}); rerun the recipe: run the same "
              "command again to continue", file=sys.stderr)
        return 130
    print(summary(done))
    return 0


if __name__ == "__main__":
    sys.exit(main())
