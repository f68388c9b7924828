"""Trainer throughput: ``python -m paohuzi_training.tools.bench [--config PATH ...] [--iterations N]``.

Prints, in one run, a fixed reference ceiling (:func:`reference_ceiling`: the network compute of
a 256-wide MLP actor and critic, no game at all), then for each config (by default the MLP
``configs/ppo.yaml`` and the conv actor of ``configs/recipes/huaihua.yaml``'s PPO stage):

(a) the pure network compute rate: the rollout inference (the actor's and the critic's forward
    pass at the tick batch of ``games_per_worker`` hands, one torch thread per worker process,
    the workers in parallel) plus the PPO update (``update_epochs`` over a batch of
    ``workers x steps_per_worker``, in ``minibatch_size`` steps, on the threads the trainer gives
    it: ``torch_threads``, or torch's default), on random tensors of the real shapes, on an
    otherwise idle machine; learner decisions per second;
(b) the trainer's end-to-end learner decisions per second: ``paohuzi_training.stages.ppo.train`` run for
    ``--iterations`` iterations of the config (in a scratch folder; evaluations and behaviour
    cloning off), over the wall time of the iterations after the first (the steady state a long
    run sees; the first, with torch's and the core's warm-up, is printed too; worker start-up
    is never an iteration's);

and (b) as a fraction of the ceiling. The bars (issue 40): at least 0.75 for the default MLP
config and 0.25 for the conv actor. A benchmark measures; nothing here asserts a speed.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

from paohuzi_env.game.actions import NUM_ACTIONS

from ..config import PPOConfig, from_flat, to_dict
from ..nets.model import model_for
from ..recipe import TrainConfig, load_config, make_config
from ..stages.ppo import ppo_update, resolve_device


def _random_batch(cfg: PPOConfig, n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """A batch of the real shapes: observations in [0, 1], about 8 legal actions a row."""
    model = model_for(cfg)
    mask = rng.random((n, NUM_ACTIONS)) < 8 / NUM_ACTIONS
    mask[np.arange(n), rng.integers(NUM_ACTIONS, size=n)] = True
    action = np.array([rng.choice(np.flatnonzero(m)) for m in mask], np.int64)
    return {
        "obs": rng.random((n, model.in_size), dtype=np.float32),
        "mask": mask,
        "action": action,
        "logp": np.log(np.full(n, 1 / 8, np.float32)),
        "value": rng.standard_normal(n).astype(np.float32) * 0.1,
        "adv": rng.standard_normal(n).astype(np.float32),
        "ret": rng.standard_normal(n).astype(np.float32) * 0.1,
        "extra": rng.random((n, model.extra_size if cfg.central_critic else 0), dtype=np.float32),
        "prior": action.copy(),
        "oracle": rng.random((n, model.extra_size if cfg.oracle_steps > 0 else 0),
                             dtype=np.float32),
    }


def network_rate(cfg: PPOConfig, seconds: float = 3.0) -> dict[str, float]:
    """(a): seconds per learner decision of inference (per worker) and of the update."""
    rng = np.random.default_rng(0)
    workers = cfg.workers or os.cpu_count() or 1
    model = model_for(cfg)
    model.eval()
    b = cfg.games_per_worker
    tick = _random_batch(cfg, b, rng)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # as a rollout worker
    try:
        with torch.no_grad():
            o, m = torch.from_numpy(tick["obs"]), torch.from_numpy(tick["mask"])
            p = torch.from_numpy(tick["prior"]) if cfg.prior != "none" else None
            e = torch.from_numpy(tick["extra"]) if cfg.central_critic else None
            orc = torch.from_numpy(tick["oracle"]) if cfg.oracle_steps > 0 else None
            n = 0
            t0 = time.perf_counter()
            while time.perf_counter() - t0 < seconds:
                logits = model.masked_logits(o, m, p, orc)
                torch.log_softmax(logits, -1)
                model.value(o, e)
                n += b
            t_inf = (time.perf_counter() - t0) / n
    finally:
        torch.set_num_threads(threads)
    device = resolve_device(cfg.device)
    if cfg.torch_threads:  # the update runs on the threads the trainer gives it
        torch.set_num_threads(cfg.torch_threads)
    model = model_for(cfg).to(device)
    opt = torch.optim.Adam(model.parameters(), lr=cfg.learning_rate, eps=1e-5)
    per_iter = workers * cfg.steps_per_worker
    batch = _random_batch(cfg, per_iter, rng)
    full = dataclasses.replace(cfg, target_kl=None)  # every epoch, as the config allows at most
    ppo_update(model, opt, batch, full, device, rng)  # warm-up
    n = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds or n == 0:
        ppo_update(model, opt, batch, full, device, rng)
        n += per_iter
    t_upd = (time.perf_counter() - t0) / n
    torch.set_num_threads(threads)
    return {"inference_s": t_inf, "update_s": t_upd, "workers": workers,
            "update_threads": cfg.torch_threads or threads,
            "rate": 1.0 / (t_inf / workers + t_upd)}


def trainer_rate(cfg: TrainConfig, iterations: int) -> dict[str, float]:
    """(b): ``train`` for ``iterations`` iterations in a scratch folder; decisions per second of
    the iterations' wall time (start-up excluded)."""
    from ..nets.checkpoint import load_checkpoint
    from ..train import train

    workers = cfg.workers or os.cpu_count() or 1
    per_iter = workers * cfg.steps_per_worker
    run = cfg.replace(run_name="bench", total_steps=iterations * per_iter, eval_every=0,
                      final_eval_deals=0, bc_steps=0, distill_labels=[], save_every=10**9,
                      save_minutes=0.0)
    old = Path.cwd()
    with tempfile.TemporaryDirectory() as tmp:
        os.chdir(tmp)
        try:
            with open(os.devnull, "w") as null, contextlib.redirect_stderr(null):
                final = train(run, log=lambda *a: None)
            data = load_checkpoint(final)
        finally:
            os.chdir(old)
    times = data["iteration_seconds"]
    steady = per_iter * (len(times) - 1) / sum(times[1:]) if len(times) > 1 else float("nan")
    return {"steps": float(data["global_step"]), "seconds": float(data["train_seconds"]),
            "first": float(times[0]), "rate": steady,
            "overall": data["global_step"] / data["train_seconds"]}


REFERENCE = "a 256-wide MLP actor (763 in, 61 out) and critic (923 in)"
BARS = {"configs/ppo.yaml": 0.75, "configs/recipes/huaihua.yaml": 0.25}
"""The issue's bars, as fractions of the reference ceiling: the default MLP config, and the conv
actor with the wait features (the huaihua recipe's PPO stage)."""


def reference_ceiling(seconds: float = 3.0) -> float:
    """The fixed reference ceiling, learner decisions per second: :data:`REFERENCE`, inference at
    batch 1,024 plus two update epochs at minibatch 1,024, on 2 torch threads, random tensors of
    the real shapes. It does not depend on any config, so ratios to it compare configs and
    machines."""
    ref = from_flat(PPOConfig, dict(hidden=256, central_critic=True, update_epochs=2,
                                    minibatch_size=1024, games_per_worker=1024, workers=1,
                                    torch_threads=2, target_kl=None, device="cpu"))
    model = model_for(ref)
    assert (model.in_size, model.in_size + model.extra_size) == (763, 923)
    threads = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        rng = np.random.default_rng(0)
        tick = _random_batch(ref, 1024, rng)
        o, m, e = (torch.from_numpy(tick[k]) for k in ("obs", "mask", "extra"))
        with torch.no_grad():
            n, t0 = 0, time.perf_counter()
            while time.perf_counter() - t0 < seconds or n == 0:
                torch.log_softmax(model.masked_logits(o, m), -1)
                model.value(o, e)
                n += 1024
            t_inf = (time.perf_counter() - t0) / n
        opt = torch.optim.Adam(model.parameters(), lr=1e-4, eps=1e-5)
        batch = _random_batch(ref, 8192, rng)
        ppo_update(model, opt, batch, ref, "cpu", rng)  # warm-up
        n, t0 = 0, time.perf_counter()
        while time.perf_counter() - t0 < seconds or n == 0:
            ppo_update(model, opt, batch, ref, "cpu", rng)
            n += 8192
        t_upd = (time.perf_counter() - t0) / n
    finally:
        torch.set_num_threads(threads)
    return 1.0 / (t_inf + t_upd)


def bench_config(path: str, overrides: list[str]) -> TrainConfig:
    """A trainer config to measure: a config file, or a recipe (its ``ppo`` stage, started from
    a fresh network of the same shape instead of the distilled one)."""
    if Path(path).parent.name != "recipes":
        return load_config(path, overrides)
    from ..recipe import load_recipe, trainer_config

    bad = [o for o in overrides if "=" not in o]
    if bad:
        raise ValueError(f"override {bad[0]!r} must look like key=value")
    given = dict(o.split("=", 1) for o in overrides)
    return make_config({**to_dict(trainer_config(load_recipe(path), "ppo")), **given})


def main(argv: list[str] | None = None) -> int:
    """The command line: print the reference ceiling, then for each config the network's
    compute rate (a), the trainer's end-to-end rate (b) and (b) as a fraction of the ceiling.

    Returns:
        The exit status: 2 for a bad config, else 0.
    """
    p = argparse.ArgumentParser(prog="python -m paohuzi_training.tools.bench", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--config", action="append", default=None,
                   help="a trainer config or a recipe (repeatable; default: "
                        + " and ".join(BARS) + ")")
    p.add_argument("--iterations", type=int, default=6, help="trainer iterations for (b)")
    p.add_argument("--seconds", type=float, default=3.0, help="time per network figure")
    p.add_argument("overrides", nargs="*", help="key=value config overrides (every config)")
    a = p.parse_args(argv)
    paths = a.config or list(BARS)
    try:
        cfgs = [bench_config(c, a.overrides) for c in paths]
    except ValueError as e:
        print(f"paohuzi_training.tools.bench: error: {e}", file=sys.stderr)
        return 2
    if a.iterations < 2 or a.seconds <= 0:
        p.error("--iterations must be >= 2 and --seconds positive")
    print(f"paohuzi_training.tools.bench: torch {torch.__version__}, {os.cpu_count()} CPUs "
          f"{' '.join(a.overrides)}".rstrip())
    ceiling = reference_ceiling(a.seconds)
    print(f"reference ceiling: {REFERENCE}, inference at batch 1,024 + 2 update epochs at "
          f"minibatch 1,024, 2 torch threads -> {ceiling:,.0f} decisions/s")
    for path, cfg in zip(paths, cfgs):
        workers = cfg.workers or os.cpu_count() or 1
        print(f"{path}: actor {cfg.actor}, hidden {cfg.hidden}, critic "
              f"{cfg.critic_hidden or cfg.hidden}{' central' if cfg.central_critic else ''}, "
              f"wait features {cfg.wait_features}, {workers} worker(s) x {cfg.games_per_worker} "
              f"hands, batch {workers * cfg.steps_per_worker}, minibatch {cfg.minibatch_size}, "
              f"{cfg.update_epochs} epoch(s), update in {cfg.update_precision}")
        net = network_rate(cfg.ppo, a.seconds)
        print(f"  (a) network compute: inference {net['inference_s'] * 1e6:.1f} µs/decision per "
              f"worker (÷{net['workers']} in parallel), update {net['update_s'] * 1e6:.1f} "
              f"µs/decision on {net['update_threads']} thread(s) -> {net['rate']:,.0f} decisions/s")
        tr = trainer_rate(cfg, a.iterations)
        print(f"  (b) trainer end to end: {tr['steps']:,.0f} decisions in {tr['seconds']:.1f} s "
              f"of iterations; after the first ({tr['first']:.1f} s: warm-up) -> "
              f"{tr['rate']:,.0f} decisions/s")
        ratio = tr["rate"] / ceiling
        bar = BARS.get(path)
        print(f"  (b) / ceiling = {ratio:.2f}" + ("" if bar is None else
              f" (bar >= {bar}: {'met' if ratio >= bar else 'BELOW'})")
              + f"; (b) / (a) = {tr['rate'] / net['rate']:.2f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
