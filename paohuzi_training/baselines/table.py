r"""The baseline table: every algorithm at the same wall-clock budget, then all of them on the
same deals (issue 64; docs/baselines.md).

    python -m paohuzi_training.baselines.table run ALGO --minutes 60 --out runs/baselines/ALGO --seed 1
    python -m paohuzi_training.baselines.table eval --runs runs/baselines --deals 5000 \\
        --curve-deals 1000 --seed SEED --out docs/results/baselines.json

``ALGO`` is one of :data:`ALGORITHMS`: ``recipe`` (this project's recipe scaled to the budget,
``configs/baselines/recipes/recipe-60min.yaml``), ``ppo-mlp`` (its plain MLP PPO,
``configs/baselines/ppo-mlp-60min.yaml``), ``dmc`` (:mod:`.dmc`), ``nfsp`` (OpenSpiel's NFSP),
``maskable-ppo`` (sb3-contrib's MaskablePPO through ``SingleAgentEnv``) and ``rllib-ppo`` (RLlib's
PPO, multi-agent self-play). ``run`` trains for ``--minutes`` of wall clock, counted from the
command's start (imports, Ray's start and the trainer's own stages included), and leaves a
playable agent at 1/6, 1/3, 1/2 and all of the budget (10, 20, 30 and 60 minutes of an hour):
``network:`` files (``.safetensors`` + sidecar) for this project's trainers and DMC, ``mlp:``
files (:mod:`paohuzi_env.envs.mlp_policy`: the policy net's weights, no pickle) for
MaskablePPO, NFSP and RLlib (whose own checkpoint is kept beside it). ``OUT/run.json`` records them:
the algorithm, library, budget, seed, each point's spec (relative to ``OUT``), steps and
seconds. ``--set KEY=VALUE`` changes one of the algorithm's settings (the tests' miniature runs);
``--config`` replaces the recipe's or PPO's config file (used as it is, not scaled).

``eval`` plays every run's final agent on ``--deals`` duplicate deals and every curve point on
``--curve-deals``, all against two ``expert``s on the one ``--seed`` (so every algorithm plays
the same deals), and writes the rows (:func:`table_rows`), the recipe's paired gain over the
best other algorithm on the same deals, a plot of the curves (``--plot``) and the Markdown table
(``--markdown``).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from paohuzi_env.agents.records import read_json_record

ALGORITHMS = ("recipe", "ppo-mlp", "dmc", "nfsp", "maskable-ppo", "rllib-ppo")
"""The algorithms of the table, in its order."""
LIBRARIES = {
    "recipe": "paohuzi_training (this project's recipe)",
    "ppo-mlp": "paohuzi_training (this project's PPO)",
    "dmc": "paohuzi_training.baselines.dmc (DouZero's method)",
    "nfsp": "OpenSpiel",
    "maskable-ppo": "sb3-contrib",
    "rllib-ppo": "Ray RLlib",
}
STEPS_UNIT = {
    "recipe": "PPO learner decisions",
    "ppo-mlp": "PPO learner decisions",
    "dmc": "samples trained on",
    "nfsp": "self-play decisions (all seats)",
    "maskable-ppo": "environment steps (learner decisions)",
    "rllib-ppo": "environment steps sampled (all seats)",
}
FRACTIONS = (1 / 6, 1 / 3, 1 / 2, 1.0)
"""The curve points, as fractions of the budget (10, 20, 30 and 60 minutes of an hour)."""
MANIFEST = "run.json"
MANIFEST_FORMAT = "paohuzi-baseline-run-v1"
CONFIGS = Path(__file__).resolve().parents[2] / "configs" / "baselines"
"""The 60-minute configs of the recipe and the MLP PPO (scaled to other budgets)."""
CONFIG_MINUTES = 60.0
"""The budget the configs in :data:`CONFIGS` are sized for."""
RULES = "huaihua"
OPPONENT = "expert"


def point_minutes(minutes: float, frac: float) -> float:
    """The nominal minutes of the curve point ``frac`` of a ``minutes`` budget (3 decimals)."""
    return round(minutes * frac, 3)


def point_name(minutes: float) -> str:
    """A curve point's file stem: ``curve-10min``, ``curve-0.05min``."""
    return f"curve-{int(minutes):02d}min" if float(minutes).is_integer() else f"curve-{minutes:g}min"


@dataclass
class Run:
    """A run in progress: where it writes, its budget and clock, and the points it saved."""

    algorithm: str
    out: Path
    minutes: float
    seed: int
    sets: dict[str, str]
    t0: float = field(default_factory=time.monotonic)
    points: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def elapsed(self) -> float:
        """Seconds since the run's start."""
        return time.monotonic() - self.t0

    @property
    def budget_s(self) -> float:
        """The budget in seconds."""
        return 60.0 * self.minutes

    def due(self) -> list[float]:
        """The curve fractions whose time has come and that have no point yet."""
        done = {p["fraction"] for p in self.points}
        return [f for f in FRACTIONS if f not in done and self.elapsed() >= f * self.budget_s]

    def add(self, frac: float, kind: str, file: str, steps: int, **extra: Any) -> None:
        """Record the point ``frac``: the spec ``kind:OUT/file`` after ``steps``."""
        self.points.append({"fraction": frac, "minutes": point_minutes(self.minutes, frac),
                            "seconds": round(self.elapsed(), 1), "steps": int(steps),
                            "kind": kind, "file": file, **extra})
        self.write()

    def write(self, done: bool = False) -> None:
        """Write ``OUT/run.json`` (after every point, so a killed run keeps its points)."""
        record = {"format": MANIFEST_FORMAT, "algorithm": self.algorithm,
                  "library": LIBRARIES[self.algorithm], "steps_unit": STEPS_UNIT[self.algorithm],
                  "budget_minutes": self.minutes, "seed": self.seed, "rules": RULES,
                  "settings": self.sets, "complete": done, "seconds": round(self.elapsed(), 1),
                  "notes": self.notes,
                  "curve": sorted(self.points, key=lambda p: p["fraction"])}
        tmp = self.out / (MANIFEST + ".tmp")
        tmp.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
        os.replace(tmp, self.out / MANIFEST)


def _value(text: str) -> Any:
    """A ``--set`` value: JSON when it parses (numbers, true, lists), else the string."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def _sidecar_steps(path: Path, key: str = "global_step") -> int:
    meta = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
    return int(meta.get(key) or meta.get("steps") or 0)


# ----------------------------------------------------------------------- this project's trainers


NETWORK_FILES = ("model.pt", "clone.pt", "distilled.pt", "latest.pt", "final.pt")
"""The network checkpoints a recipe or ``paohuzi-train`` run writes (the newest is its latest
network)."""


def newest_network(folder: Path) -> Path | None:
    """The newest network checkpoint under ``folder`` (:data:`NETWORK_FILES`), or None."""
    found = [p for name in NETWORK_FILES for p in folder.rglob(name) if p.is_file()]
    return max(found, key=lambda p: p.stat().st_mtime_ns) if found else None


def _export_point(run: Run, frac: float, train_dir: Path) -> None:
    """Export the newest network of ``train_dir`` as the curve point ``frac`` (``network:``)."""
    from ..nets.checkpoint import export_policy

    src = newest_network(train_dir)
    if src is None:  # the point is taken as soon as there is one (its seconds say when)
        note = (f"no network yet at {point_minutes(run.minutes, frac):g} min: that point is the "
                "first network written after it")
        if note not in run.notes:
            run.notes.append(note)
            run.write()
        return
    name = point_name(point_minutes(run.minutes, frac)) + ".safetensors"
    for _ in range(3):  # the trainer may replace the file while it is read: read it again
        try:
            export_policy(src, run.out / name, actor_only=True)
            break
        except ValueError:
            time.sleep(1.0)
    else:
        raise RuntimeError(f"could not read the trainer's checkpoint {src}")
    run.add(frac, "network", name, _sidecar_steps(run.out / name),
            source=str(src.relative_to(run.out)))


def watch(run: Run, cmd: Sequence[str], cwd: Path, train_dir: Path, grace_s: float = 300.0) -> None:
    """Run a trainer's command for the budget: export its newest network at each curve point,
    SIGTERM it when the budget is spent (the trainers save and stop after their iteration),
    then export the last network as the final point. A trainer that ends before the budget
    gives its final network to the points still to come."""
    log_path = run.out / "train.log"
    with open(log_path, "ab") as log:
        proc = subprocess.Popen(list(cmd), cwd=cwd, stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True)
        stopped = False
        try:
            while proc.poll() is None:
                for frac in run.due():
                    if frac < 1.0:
                        _export_point(run, frac, train_dir)
                if run.elapsed() >= run.budget_s:
                    proc.send_signal(signal.SIGTERM)
                    stopped = True
                    try:
                        proc.wait(timeout=grace_s)
                    except subprocess.TimeoutExpired:
                        os.killpg(proc.pid, signal.SIGKILL)
                        proc.wait()
                        run.notes.append(f"the trainer did not stop within {grace_s:g} s of "
                                         "SIGTERM and was killed")
                    break
                time.sleep(0.5)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
    if proc.returncode != 0 and not stopped:
        tail = log_path.read_text(encoding="utf-8", errors="replace")[-3000:]
        raise RuntimeError(f"{cmd[0]} ... exited with status {proc.returncode}; the end of "
                           f"{log_path}:\n{tail}")
    if not stopped:
        run.notes.append(f"the trainer finished its steps after {run.elapsed():.0f} s, before "
                         "the budget; the later points are its final network")
    run.notes.append(f"{'stopped' if stopped else 'ended'} at {run.elapsed():.0f} s of the "
                     f"{run.budget_s:.0f} s budget")
    for frac in FRACTIONS:
        if frac not in {p["fraction"] for p in run.points}:
            _export_point(run, frac, train_dir)
    if 1.0 not in {p["fraction"] for p in run.points}:
        raise RuntimeError(f"{run.algorithm}: no network was written within the budget "
                           f"({run.minutes:g} min); see {log_path}")


def _read_yaml(path: Path) -> dict[str, Any]:
    from ..config import read_yaml_mapping

    return read_yaml_mapping(path, "config", CONFIGS)


def run_recipe(run: Run, config: Path | None) -> None:
    """The recipe (``paohuzi-recipe``) without its evaluate and export stages, stopped by time.
    The default config is sized for 60 minutes; its PPO steps and KL decay are scaled by
    ``minutes / 60`` (a ``--config`` is used as it is)."""
    import yaml

    recipe = _read_yaml(config or CONFIGS / "recipes" / "recipe-60min.yaml")
    if config is None:
        scale = run.minutes / CONFIG_MINUTES
        ppo = recipe.setdefault("ppo", {})
        for key in ("total_steps", "kl_decay_steps"):
            if key in ppo:
                ppo[key] = max(1, int(ppo[key] * scale))
    for key, value in run.sets.items():  # STAGE.KEY=VALUE
        stage, _, name = key.partition(".")
        if not name:
            raise ValueError(f"recipe settings are STAGE.KEY=VALUE (ppo.total_steps=...), got {key!r}")
        recipe.setdefault(stage, {})[name] = _value(value)
    path = run.out / "recipe.yaml"
    path.write_text(yaml.safe_dump(recipe, sort_keys=False), encoding="utf-8")
    cmd = [sys.executable, "-m", "paohuzi_training.recipe", str(path), "--out", str(run.out / "train"),
           "--seed", str(run.seed), "--stages", "labels,clone,distill,ppo"]
    watch(run, cmd, run.out, run.out / "train")


def run_ppo_mlp(run: Run, config: Path | None) -> None:
    """``paohuzi-train`` on the MLP PPO config, stopped by time; the default config's
    ``total_steps`` is scaled by ``minutes / 60`` (a ``--config`` is used as it is)."""
    path = config or CONFIGS / "ppo-mlp-60min.yaml"
    overrides = [f"seed={run.seed}"]
    if config is None:
        steps = int(_read_yaml(path)["total_steps"])
        overrides.append(f"total_steps={max(1, int(steps * run.minutes / CONFIG_MINUTES))}")
    overrides += [f"{k}={v}" for k, v in run.sets.items()]
    cmd = [sys.executable, "-m", "paohuzi_training.train", "--config", str(Path(path).resolve()),
           *overrides]
    (run.out / "train").mkdir(exist_ok=True)
    watch(run, cmd, run.out / "train", run.out / "train")


# ----------------------------------------------------------------------- DMC


def run_dmc(run: Run, config: Path | None) -> None:
    """DMC (:mod:`.dmc`) with its defaults, its snapshots at the curve points."""
    import dataclasses

    from . import dmc

    if config is not None:
        raise ValueError("dmc takes no --config; change its settings with --set KEY=VALUE")
    fields = {f.name for f in dataclasses.fields(dmc.DMCConfig)}
    bad = sorted(set(run.sets) - fields)
    if bad:
        raise ValueError(f"dmc has no setting {', '.join(bad)}; its settings: {', '.join(sorted(fields))}")
    # the budget counts from this command's start: DMC's own clock starts a little later
    left = (run.budget_s - run.elapsed()) / 60.0
    snaps = tuple(point_minutes(run.minutes, f) - run.elapsed() / 60.0 for f in FRACTIONS[:-1])
    cfg = dmc.DMCConfig(seed=run.seed, rules=RULES, minutes=left,
                        snapshot_minutes=tuple(max(1e-3, round(m, 4)) for m in snaps),
                        **{k: _value(v) for k, v in run.sets.items()})
    offset = run.elapsed()
    final = dmc.train(cfg, run.out / "train")
    if final is None:
        raise RuntimeError("dmc was stopped before its budget was spent")
    for frac, m in zip(FRACTIONS[:-1], cfg.snapshot_minutes, strict=True):
        snap = run.out / "train" / dmc.snapshot_name(m)
        if snap.is_file():
            rel = str(snap.relative_to(run.out))
            run.add(frac, "network", rel, _sidecar_steps(snap))
            run.points[-1]["seconds"] = round(offset + _train_seconds(snap), 1)
    run.add(1.0, "network", str(final.relative_to(run.out)), _sidecar_steps(final))


def _train_seconds(path: Path) -> float:
    """The ``train_seconds`` of a DMC export's sidecar (DMC's own clock)."""
    return float(json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))["train_seconds"])


# ----------------------------------------------------------------------- MaskablePPO


def torch_threads(run: Run, n: Any) -> None:
    """Run torch on ``n`` threads in this process (1 by default: on the 2-core machine, shared
    with the rollout, two threads made a small network's forward pass far slower than one, as
    docs/baselines.md measures for DMC)."""
    import torch

    torch.set_num_threads(int(n))
    run.notes.append(f"torch on {int(n)} thread(s) in the learner's process")


def _single_agent_env(seed: int) -> Any:
    """One learner seat (drawn each hand) against two compiled ``expert``s, normalized reward."""
    from paohuzi_env.envs.wrappers import SingleAgentEnv

    return SingleAgentEnv(opponents=OPPONENT, seat=None, rules=RULES, reward="normalized", seed=seed)


def export_sb3(model: Any, path: Path, steps: int) -> None:
    """Write a MaskablePPO ``MlpPolicy``'s actor (its policy MLP and action head) as an ``mlp:``
    policy, greedy as SB3's ``deterministic=True``."""
    import torch.nn as nn
    from stable_baselines3.common.torch_layers import FlattenExtractor

    from paohuzi_env.envs.mlp_policy import write_mlp_policy

    policy = model.policy
    acts = {nn.Tanh: "tanh", nn.ReLU: "relu"}
    if policy.activation_fn not in acts or not isinstance(policy.pi_features_extractor, FlattenExtractor):
        raise ValueError("only an MlpPolicy with Tanh or ReLU and the flatten extractor exports")
    linears = [m for m in policy.mlp_extractor.policy_net if isinstance(m, nn.Linear)]
    linears.append(policy.action_net)
    layers = [(m.weight.detach().cpu().numpy(), m.bias.detach().cpu().numpy()) for m in linears]
    write_mlp_policy(path, layers, activation=acts[policy.activation_fn], play="argmax",
                     rules=RULES, library="sb3-contrib", algorithm="MaskablePPO", steps=steps)


def run_maskable_ppo(run: Run, config: Path | None) -> None:
    """sb3-contrib's MaskablePPO with its defaults on ``n_envs`` copies of the single-seat env
    (one process each when more than one: both cores), stopped by a callback at the budget."""
    import functools

    import numpy as np
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    if config is not None:
        raise ValueError("maskable-ppo takes no --config; change its settings with --set KEY=VALUE")
    sets = {k: _value(v) for k, v in run.sets.items()}
    n_envs = int(sets.pop("n_envs", os.cpu_count() or 1))
    net_arch = sets.pop("net_arch", None)
    if net_arch is not None:
        sets["policy_kwargs"] = {"net_arch": list(net_arch)}
    torch_threads(run, sets.pop("torch_threads", 1))
    seeds = np.random.SeedSequence([run.seed, 64]).generate_state(n_envs)
    fns: list[Callable[[], Any]] = [functools.partial(_single_agent_env, int(s)) for s in seeds]
    env = SubprocVecEnv(fns) if n_envs > 1 else DummyVecEnv(fns)
    model = MaskablePPO("MlpPolicy", env, seed=run.seed, verbose=0, **sets)

    class Clock(BaseCallback):
        def _on_step(self) -> bool:
            for frac in run.due():
                if frac < 1.0:
                    name = point_name(point_minutes(run.minutes, frac)) + ".safetensors"
                    export_sb3(self.model, run.out / name, self.model.num_timesteps)
                    run.add(frac, "mlp", name, self.model.num_timesteps)
            return run.elapsed() < run.budget_s

    try:
        model.learn(total_timesteps=10**12, callback=Clock())
    finally:
        env.close()
    export_sb3(model, run.out / "final.safetensors", model.num_timesteps)
    run.add(1.0, "mlp", "final.safetensors", model.num_timesteps)
    if n_envs == 1:
        run.notes.append("one environment in the learner's process: one core for the rollout")


# ----------------------------------------------------------------------- NFSP


def export_nfsp(agent: Any, path: Path, steps: int) -> None:
    """Write an OpenSpiel NFSP agent's average-policy network as an ``mlp:`` policy, sampled (the
    average policy is a mixed strategy)."""
    import torch.nn as nn

    from paohuzi_env.envs.mlp_policy import write_mlp_policy

    linears = [m for m in agent._avg_network.modules() if isinstance(m, nn.Linear)]
    layers = [(m.weight.detach().cpu().numpy(), m.bias.detach().cpu().numpy()) for m in linears]
    write_mlp_policy(path, layers, activation="relu", play="sample", rules=RULES,
                     library="open_spiel", algorithm="NFSP (average policy)", steps=steps)


def run_nfsp(run: Run, config: Path | None) -> None:
    """OpenSpiel's NFSP, three agents in self-play on ``python_paohuzi`` (:mod:`.nfsp_openspiel`'s
    settings), until the budget; seat 0's average policy is the agent (the dealer is drawn each
    hand, so it has played every position)."""
    import pyspiel
    from open_spiel.python import rl_environment

    import paohuzi_env.envs.openspiel  # noqa: F401  (registers python_paohuzi)

    from .nfsp_openspiel import make_agents, self_play_hand

    if config is not None:
        raise ValueError("nfsp takes no --config; change its settings with --set KEY=VALUE")
    allowed = {"hidden", "min_buffer", "buffer", "batch", "torch_threads"}
    bad = sorted(set(run.sets) - allowed)
    if bad:
        raise ValueError(f"nfsp has no setting {', '.join(bad)}; its settings: {', '.join(sorted(allowed))}")
    game = pyspiel.load_game("python_paohuzi", {"rules": RULES, "reward": "normalized"})
    env = rl_environment.Environment(
        game, chance_event_sampler=rl_environment.ChanceEventSampler(seed=run.seed))
    sets = {k: int(v) for k, v in run.sets.items()}
    torch_threads(run, sets.pop("torch_threads", 1))
    agents = make_agents(game, run.seed, **sets)
    steps = 0
    while run.elapsed() < run.budget_s:
        steps += self_play_hand(env, agents)
        for frac in run.due():
            if frac < 1.0:
                name = point_name(point_minutes(run.minutes, frac)) + ".safetensors"
                export_nfsp(agents[0], run.out / name, steps)
                run.add(frac, "mlp", name, steps)
    export_nfsp(agents[0], run.out / "final.safetensors", steps)
    run.add(1.0, "mlp", "final.safetensors", steps)
    run.notes.append("one Python process (OpenSpiel's rl_environment loop): one core")


# ----------------------------------------------------------------------- RLlib


def run_rllib_ppo(run: Run, config: Path | None) -> None:
    """RLlib's PPO (new API stack) with its defaults (batch, minibatch, epochs, learning rate and
    env runners read from ``PPOConfig()``), one action-masking module for every seat
    (:mod:`.rllib_ppo`), until the budget; each point an RLlib checkpoint and its policy exported
    as an ``mlp:`` file (:func:`export_rllib`)."""
    import ray
    from ray.rllib.algorithms.ppo import PPOConfig

    from paohuzi_env.game.rules import as_rules

    from .rllib_ppo import _save, ppo_config

    if config is not None:
        raise ValueError("rllib-ppo takes no --config; change its settings with --set KEY=VALUE")
    d = PPOConfig()
    settings: dict[str, Any] = {"num_env_runners": d.num_env_runners,
                                "train_batch_size": d.train_batch_size_per_learner,
                                "minibatch_size": d.minibatch_size, "num_epochs": d.num_epochs,
                                "lr": d.lr, "hiddens": (256, 256)}
    bad = sorted(set(run.sets) - set(settings))
    if bad:
        raise ValueError(f"rllib-ppo has no setting {', '.join(bad)}; its settings: "
                         f"{', '.join(sorted(settings))}")
    settings.update({k: _value(v) for k, v in run.sets.items()})
    settings["hiddens"] = tuple(settings["hiddens"])
    started = not ray.is_initialized()
    if started:
        ray.init(num_cpus=os.cpu_count(), include_dashboard=False, log_to_driver=False)
    rules = as_rules(RULES)
    algo = ppo_config(rules, "normalized", seed=run.seed, **settings).build_algo()
    steps, it = 0, 0
    try:
        while True:
            result = algo.train()
            it += 1
            steps = int(result.get("env_runners", {}).get("num_env_steps_sampled_lifetime", steps))
            for frac in run.due():
                name = "final" if frac == 1.0 else point_name(point_minutes(run.minutes, frac))
                _save(algo, str(run.out / name), rules, it)
                export_rllib(run.out / name, run.out / f"{name}.safetensors", steps)
                run.add(frac, "mlp", f"{name}.safetensors", steps, iterations=it,
                        checkpoint=name)
            if run.elapsed() >= run.budget_s:
                break
    finally:
        algo.stop()
        if started:
            ray.shutdown()
    run.notes.append(f"{settings['num_env_runners']} env runner process(es) besides the driver")


def export_rllib(checkpoint: Path, path: Path, steps: int) -> None:
    """Write the policy of an RLlib checkpoint that this harness just saved (its action-masking
    module: the actor encoder's MLP, then the ``pi`` head of one linear layer) as an ``mlp:``
    policy, greedy as the ``rllib:`` agent plays it. The table plays this file, not the
    checkpoint: RLlib's checkpoints are read with pickle, an ``mlp:`` file is data."""
    import torch.nn as nn
    from ray.rllib.core.rl_module.rl_module import RLModule

    from paohuzi_env.envs.mlp_policy import write_mlp_policy
    from paohuzi_env.envs.rllib import module_path

    module: Any = RLModule.from_checkpoint(str(Path(module_path(str(checkpoint))).resolve()))
    body = list(module.encoder.actor_encoder.net.mlp)
    head = list(module.pi.net.mlp)
    if len(head) != 1 or not isinstance(head[0], nn.Linear):
        raise ValueError("only a pi head of one linear layer exports (head_fcnet_hiddens [])")
    kinds = {type(m) for m in body if not isinstance(m, nn.Linear)}
    acts = {nn.Tanh: "tanh", nn.ReLU: "relu"}
    if len(kinds) != 1 or next(iter(kinds)) not in acts:
        raise ValueError(f"the encoder's activations must be one of Tanh or ReLU, got {kinds}")
    linears = [m for m in body if isinstance(m, nn.Linear)] + head
    layers = [(m.weight.detach().cpu().numpy(), m.bias.detach().cpu().numpy()) for m in linears]
    write_mlp_policy(path, layers, activation=acts[next(iter(kinds))], play="argmax", rules=RULES,
                     library="ray[rllib]", algorithm="PPO", steps=steps,
                     source={"checkpoint": checkpoint.name})


RUNNERS: dict[str, Callable[[Run, Path | None], None]] = {
    "recipe": run_recipe, "ppo-mlp": run_ppo_mlp, "dmc": run_dmc, "nfsp": run_nfsp,
    "maskable-ppo": run_maskable_ppo, "rllib-ppo": run_rllib_ppo,
}


def train(algorithm: str, minutes: float, out: str | Path, seed: int = 1, *,
          config: str | Path | None = None, sets: Sequence[str] = ()) -> dict[str, Any]:
    """Train ``algorithm`` for ``minutes`` of wall clock into ``out``; returns ``run.json``.

    Raises:
        ValueError: an unknown algorithm, a bad budget or setting, or an ``out`` that holds a run.
    """
    if algorithm not in RUNNERS:
        raise ValueError(f"algorithm must be one of {', '.join(ALGORITHMS)}, got {algorithm!r}")
    if not minutes > 0:
        raise ValueError(f"--minutes must be positive, got {minutes}")
    parsed: dict[str, str] = {}
    for item in sets:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ValueError(f"--set takes KEY=VALUE, got {item!r}")
        parsed[key] = value
    out = Path(out)
    if (out / MANIFEST).exists():
        raise ValueError(f"{out} already holds a run ({MANIFEST}); give another --out")
    out.mkdir(parents=True, exist_ok=True)
    run = Run(algorithm, out, float(minutes), int(seed), parsed)
    run.write()
    RUNNERS[algorithm](run, None if config is None else Path(config).resolve())
    run.write(done=True)
    return json.loads((out / MANIFEST).read_text(encoding="utf-8"))


# ----------------------------------------------------------------------- the table


def read_run(folder: Path) -> dict[str, Any]:
    """A finished run's ``run.json``, checked: every point's file is there.

    Raises:
        ValueError: naming the folder and what is wrong with it.
    """
    path = folder / MANIFEST
    if not path.is_file():
        raise ValueError(f"{folder} is not a baseline run: it has no {MANIFEST} (make one with "
                         "`python -m paohuzi_training.baselines.table run ALGO --out DIR`)")
    data = read_json_record(path, "the run record", "a baseline run record", MANIFEST_FORMAT)
    if data.get("algorithm") not in ALGORITHMS:
        raise ValueError(f"{path}: algorithm must be one of {', '.join(ALGORITHMS)}, "
                         f"got {data.get('algorithm')!r}")
    if not data.get("complete"):
        raise ValueError(f"{path}: the run did not finish (complete is false); run it again "
                         "into a fresh folder")
    fracs = [p.get("fraction") for p in data.get("curve", [])]
    if 1.0 not in fracs:
        raise ValueError(f"{path}: the run has no final point")
    for p in data["curve"]:
        if not (folder / p["file"]).exists():
            raise ValueError(f"{path}: the point at {p['minutes']} min names {p['file']}, "
                             f"which is not in {folder}")
    return data


def spec_of(folder: Path, point: dict[str, Any]) -> str:
    """The agent spec of a run's point, its path under ``folder``."""
    return f"{point['kind']}:{(folder / point['file']).as_posix()}"


def find_runs(root: Path) -> list[Path]:
    """The run folders under ``root`` (each subfolder), in the table's order.

    Raises:
        ValueError: for a missing ``root`` or one without run folders.
    """
    if not root.is_dir():
        raise ValueError(f"--runs {root} is not a folder")
    folders = sorted(p for p in root.iterdir() if p.is_dir())
    if not folders:
        raise ValueError(f"--runs {root} holds no run folders")
    return folders


EVALS = "evals"
"""A run folder's sub-folder of the evaluations already made (:func:`measured_once`)."""


def _file_digest(path: Path) -> str:
    h = hashlib.sha256()
    for q in sorted([path, path.with_suffix(".json")] if path.suffix == ".safetensors" else [path]):
        if q.is_file():
            h.update(q.read_bytes())
    return h.hexdigest()


def measured_once(play: Callable[..., dict], folder: Path, point: dict[str, Any], *, deals: int,
                  seed: int, rules: str, workers: int | None) -> dict:
    """``play``'s evaluation of a run's point against two ``expert``s on ``deals`` deals of
    ``seed``, made once: the answer is kept in ``folder/evals/`` with the SHA-256 of the agent's
    files, and a later call with the same point, deals and seed reads it back rather than
    playing again (so a table can be assembled over several sessions, each run evaluated when it
    finishes, and every figure is still measured once). A kept answer whose agent files changed
    since is refused by name."""
    from ..eval.rows import GameRow

    spec = spec_of(folder, point)
    stem = Path(point["file"]).with_suffix("").as_posix().replace("/", "__")
    kept = folder / EVALS / f"{stem}-{deals}-deals-seed-{seed}.json"
    digest = _file_digest(folder / point["file"])
    if kept.is_file():
        got = json.loads(kept.read_text(encoding="utf-8"))
        if got.get("agent_sha256") != digest:
            raise ValueError(f"{kept} was measured on other files than {folder / point['file']} "
                             "holds now; remove it to measure the new agent")
        if (got.get("opponent"), got.get("rules"), got.get("deals"), got.get("seed")) != \
                (OPPONENT, rules, deals, seed):
            raise ValueError(f"{kept} holds another measurement (opponent {got.get('opponent')}, "
                             f"rules {got.get('rules')}, {got.get('deals')} deals, seed "
                             f"{got.get('seed')}); remove it to measure again")
        res = dict(got["result"])
        res["rows"] = [GameRow(**{**r, "scores": tuple(r["scores"])}) for r in res["rows"]]
        return res
    res = play(spec, OPPONENT, deals=deals, seed=seed, rules=rules, workers=workers,
               progress=False)
    kept.parent.mkdir(parents=True, exist_ok=True)
    tmp = kept.with_suffix(".tmp")
    stored = {**res, "rows": [dataclasses.asdict(r) for r in res["rows"]]}
    tmp.write_text(json.dumps({"spec": spec, "agent_sha256": digest, "opponent": OPPONENT,
                               "rules": rules, "deals": deals, "seed": seed,
                               "result": stored}) + "\n",
                   encoding="utf-8")
    os.replace(tmp, kept)
    return dict(res)


def table_rows(root: str | Path, *, deals: int, curve_deals: int, seed: int,
               workers: int | None = None, evaluate: Callable[..., dict] | None = None
               ) -> dict[str, Any]:
    """Evaluate every run under ``root``: the final agent on ``deals``, each curve point on
    ``curve_deals``, against two ``expert``s on ``seed`` (each made once: :func:`measured_once`);
    the rows, in :data:`ALGORITHMS`'s order, and the recipe's paired gain over the best other
    algorithm (when there is a recipe run and another)."""
    from ..eval.evaluate import evaluate as default_evaluate
    from ..exploit import paired_gain

    play = evaluate or default_evaluate
    if deals < 1 or curve_deals < 1:
        raise ValueError(f"--deals and --curve-deals must be at least 1, got {deals}, {curve_deals}")
    runs = [(f, read_run(f)) for f in find_runs(Path(root))]
    seen: dict[str, Path] = {}
    for f, r in runs:
        if r["algorithm"] in seen:
            raise ValueError(f"two runs of {r['algorithm']}: {seen[r['algorithm']]} and {f}")
        seen[r["algorithm"]] = f
    runs.sort(key=lambda fr: ALGORITHMS.index(fr[1]["algorithm"]))
    rows, final_rows = [], {}
    for folder, r in runs:
        final = next(p for p in r["curve"] if p["fraction"] == 1.0)
        res = measured_once(play, folder, final, deals=deals, seed=seed, rules=r["rules"],
                            workers=workers)
        final_rows[r["algorithm"]] = res.pop("rows")
        curve = []
        for p in r["curve"]:
            c = measured_once(play, folder, p, deals=curve_deals, seed=seed, rules=r["rules"],
                              workers=workers)
            curve.append({"minutes": p["minutes"], "seconds": p["seconds"], "steps": p["steps"],
                          "spec": spec_of(folder, p), "mean_points": c["mean_points"],
                          "ci95": c["ci95"], "deals": curve_deals})
        rows.append({"algorithm": r["algorithm"], "library": r["library"],
                     "budget": f"{r['budget_minutes']:g} min wall clock", "budget_minutes":
                     r["budget_minutes"], "steps": final["steps"], "steps_unit": r["steps_unit"],
                     "spec": spec_of(folder, final), "mean_points": res["mean_points"],
                     "ci95": res["ci95"], "win_rate": res["win_rate"], "deals": deals,
                     "seed": seed, "train_seed": r["seed"], "seconds": r["seconds"],
                     "notes": r.get("notes", []), "curve": curve})
    out: dict[str, Any] = {"opponents": [OPPONENT, OPPONENT], "seed": seed, "deals": deals,
                           "curve_deals": curve_deals, "rows": rows}
    budgets = {r["budget_minutes"] for r in rows}
    if len(budgets) > 1:
        out["warning"] = f"the runs have different budgets: {sorted(budgets)} minutes"
    others = [r for r in rows if r["algorithm"] != "recipe"]
    if "recipe" in final_rows and others:
        best = max(others, key=lambda r: r["mean_points"])
        gain = paired_gain(final_rows["recipe"], final_rows[best["algorithm"]])
        out["recipe_vs_best"] = {"best_other": best["algorithm"], **gain}
    return out


def ship(table: dict[str, Any], dest: str | Path) -> list[Path]:
    """Copy each row's final agent (its ``.safetensors`` and JSON sidecar, byte for byte, so
    the SHA-256 its evaluation was kept with still holds) to ``dest/ALGO.safetensors`` and point
    the row's ``spec`` there (``run_spec`` keeps the run folder's); the curve points stay in the
    run folders. A file already in ``dest`` with other bytes is refused by name rather than
    replaced. Returns the shipped networks; a card ``dest/ALGO.md`` is written by hand.

    Raises:
        ValueError: for a row whose agent is not a file pair, or an existing file that differs.
    """
    dest = Path(dest)
    shipped = []
    for row in table["rows"]:
        kind, _, path = row["spec"].partition(":")
        src = Path(path)
        pairs = [(src, dest / f"{row['algorithm']}{src.suffix}")]
        if src.with_suffix(".json").is_file():
            pairs.append((src.with_suffix(".json"), dest / f"{row['algorithm']}.json"))
        for a, b in pairs:
            if not a.is_file():
                raise ValueError(f"{row['algorithm']}: its agent {a} is not a file")
            if b.exists() and b.read_bytes() != a.read_bytes():
                raise ValueError(f"{b} exists and differs from {a}: remove it to ship the new "
                                 "agent")
        dest.mkdir(parents=True, exist_ok=True)
        for a, b in pairs:
            if not b.exists():
                tmp = b.with_name(b.name + ".tmp")
                tmp.write_bytes(a.read_bytes())
                os.replace(tmp, b)
        row["run_spec"] = row["spec"]
        row["spec"] = f"{kind}:{pairs[0][1].as_posix()}"
        shipped.append(pairs[0][1])
    return shipped


def _fmt(m: float, ci: Sequence[float]) -> str:
    return f"{m:+.3f} [{ci[0]:+.3f}, {ci[1]:+.3f}]".replace("-", "−")


def markdown(table: dict[str, Any]) -> str:
    """The table for docs/baselines.md: one line per algorithm, its curve, then the pairing."""
    marks = sorted({c["minutes"] for r in table["rows"] for c in r["curve"]})
    head = ("| algorithm | library | steps | mean points vs two `expert`s [95% CI] | "
            + " | ".join(f"{m:g} min" for m in marks) + " |")
    lines = [head, "|" + "---|" * (4 + len(marks))]
    for r in table["rows"]:
        by = {c["minutes"]: f"{c['mean_points']:+.3f}".replace("-", "−") for c in r["curve"]}
        lines.append(f"| {r['algorithm']} | {r['library']} | {r['steps']:,} {r['steps_unit']} | "
                     f"{_fmt(r['mean_points'], r['ci95'])} | "
                     + " | ".join(by.get(m, "") for m in marks) + " |")
    text = "\n".join(lines) + "\n\n" + (
        f"Final agents on {table['deals']:,} duplicate deals, curve points on "
        f"{table['curve_deals']:,}, seed {table['seed']}.\n")
    vs = table.get("recipe_vs_best")
    if vs:
        text += (f"The recipe against the best other algorithm ({vs['best_other']}) on the same "
                 f"{vs['deals']:,} deals: {_fmt(vs['mean_points'], vs['ci95'])} points a hand.\n")
    return text


def plot(table: dict[str, Any], path: str | Path) -> Path:
    """The learning curves, one line per algorithm with its 95% CIs, as one PNG; each point at
    the wall clock it was taken (a run that finished its steps early ends there)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5))
    for r in table["rows"]:
        xs = [c.get("seconds", 60.0 * c["minutes"]) / 60.0 for c in r["curve"]]
        ys = [c["mean_points"] for c in r["curve"]]
        err = [[y - c["ci95"][0] for y, c in zip(ys, r["curve"], strict=True)],
               [c["ci95"][1] - y for y, c in zip(ys, r["curve"], strict=True)]]
        ax.errorbar(xs, ys, yerr=err, marker="o", capsize=3, label=r["algorithm"])
    ax.axhline(0.0, color="grey", lw=0.8)
    ax.set_xlabel("wall clock (minutes)")
    ax.set_ylabel(f"mean points a hand vs two {OPPONENT}s")
    ax.set_title(f"Baselines: curve points on {table['curve_deals']:,} deals (seed {table['seed']})")
    ax.legend()
    fig.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def main(argv: list[str] | None = None) -> int:
    """The command line (``run`` and ``eval``); exit 2 on a bad option or run folder."""
    p = argparse.ArgumentParser(prog="python -m paohuzi_training.baselines.table",
                                description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run", help="train one algorithm for a wall-clock budget")
    r.add_argument("algorithm", choices=ALGORITHMS)
    r.add_argument("--minutes", type=float, default=60.0)
    r.add_argument("--out", required=True)
    r.add_argument("--seed", type=int, default=1)
    r.add_argument("--config", default=None, help="recipe / ppo-mlp: this config, as it is")
    r.add_argument("--set", dest="sets", action="append", default=[], metavar="KEY=VALUE",
                   help="one of the algorithm's settings (repeatable)")
    e = sub.add_parser("eval", help="evaluate every run and write the table")
    e.add_argument("--runs", default="runs/baselines")
    e.add_argument("--deals", type=int, default=5000)
    e.add_argument("--curve-deals", type=int, default=1000)
    e.add_argument("--seed", type=int, required=True, help="the evaluation seed, fixed before the runs")
    e.add_argument("--out", default="docs/results/baselines.json")
    e.add_argument("--plot", default=None, help="the curves' PNG (default: OUT with .png)")
    e.add_argument("--markdown", default=None, help="the Markdown table (default: OUT with .md)")
    e.add_argument("--workers", type=int, default=None)
    e.add_argument("--ship", default=None, metavar="DIR",
                   help="copy each final agent to DIR/ALGO.safetensors (+ sidecar) and give "
                        "that path as the row's spec (e.g. checkpoints/baselines)")
    a = p.parse_args(argv)
    try:
        if a.command == "run":
            rec = train(a.algorithm, a.minutes, a.out, a.seed, config=a.config, sets=a.sets)
            for pt in rec["curve"]:
                print(f"{pt['minutes']:g} min ({pt['seconds']:.0f} s): {pt['steps']:,} steps, "
                      f"{pt['kind']}:{Path(a.out) / pt['file']}")
            return 0
        table = table_rows(a.runs, deals=a.deals, curve_deals=a.curve_deals, seed=a.seed,
                           workers=a.workers)
        if a.ship:
            for path in ship(table, a.ship):
                if not path.with_suffix(".md").is_file():
                    print(f"{path}: shipped; write its card {path.with_suffix('.md')}",
                          file=sys.stderr)
    except ValueError as err:
        print(f"baselines table: error: {err}", file=sys.stderr)
        return 2
    out = Path(a.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(table, indent=1) + "\n", encoding="utf-8")
    plot(table, a.plot or out.with_suffix(".png"))
    md = markdown(table)
    Path(a.markdown or out.with_suffix(".md")).write_text(md, encoding="utf-8")
    print(md)
    return 0


if __name__ == "__main__":
    with contextlib.suppress(BrokenPipeError):
        sys.exit(main())
