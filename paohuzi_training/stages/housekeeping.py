"""The PPO loop's housekeeping, kept out of :mod:`paohuzi_training.stages.ppo` so that the loop reads
top to bottom: the device, what a resumed run may change and the check of it, the start from
another network (:func:`load_start`, which the distill stage uses too) and the frozen KL
reference, the TensorBoard scalars of an iteration, and the stop signals (SIGINT, SIGTERM: finish
the iteration, save, stop)."""

from __future__ import annotations

import signal
from typing import Any

import numpy as np
import torch

from paohuzi_env.encode.observation import obs_version
from paohuzi_env.game.rules import as_rules

from ..config import PPOConfig, to_dict
from ..nets.checkpoint import checkpoint_rules, load_checkpoint
from ..nets.model import widen_for_waits


def resolve_device(name: str) -> torch.device:
    """The torch device for the config's ``device``: ``auto`` is CUDA when available, else CPU.

    Raises:
        ValueError: ``cuda`` is asked for but no CUDA device is available.
    """
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name == "cuda" and not torch.cuda.is_available():
        raise ValueError("device 'cuda' was asked for but no CUDA device is available")
    return torch.device(name)


def bfloat16_update(precision: str, device: Any) -> bool:
    """Whether the PPO update runs its matrix products in bfloat16: ``update_precision``
    ``bfloat16``, or ``auto`` on hardware that does them natively (a CUDA device with bfloat16,
    a CPU with AVX512-BF16 or AMX); ``float32`` never."""
    if precision != "auto":
        return precision == "bfloat16"
    if torch.device(device).type == "cuda":
        return bool(torch.cuda.is_bf16_supported())
    try:
        return bool(torch.ops.mkldnn._is_mkldnn_bf16_supported())
    except (AttributeError, RuntimeError):
        return False


RESUME_MAY_CHANGE = frozenset({
    "total_steps", "workers", "save_every", "save_minutes", "device", "backend", "overlap",
    "torch_threads", "ray", "update_precision",
})
"""Config keys a resumed run may change (the rest must match the checkpoint)."""


# ---------------------------------------------------------------------- the loop


RETIRED = {"belief_coef": 0.0}
"""Keys of an older trainer that a saved config may hold, at the value they must have to resume:
the belief head (``belief_coef`` > 0) was removed (it measured -0.030 [-0.099, +0.039]; resume
such a run with the trainer of commit a7f5325)."""


def resume_state(resume: str, cfg: PPOConfig, log, trust: bool | None = None) -> dict:
    """The checkpoint to continue from, checked against the config: PPO's keys (with the run's
    and the network's) must match the saved ones, but for :data:`RESUME_MAY_CHANGE`. The saved
    config's other keys (another stage's: cloning, distillation, the start network, evaluation)
    are not PPO's to compare; a key the saved config lacks (added since) counts at its default."""
    data = load_checkpoint(resume, rules=cfg.resolved_rules, trust=trust)
    if data.get("policy_only"):
        raise ValueError(f"{resume} is a play-only export; resume from the run's latest.pt")
    for key, allowed in RETIRED.items():
        if (data["config"].get(key) or allowed) != allowed:
            raise ValueError(f"{resume} was trained with {key}: {data['config'][key]}, which this "
                             f"trainer no longer has; resume it with the trainer of commit a7f5325")
    given = to_dict(cfg)
    saved = {**to_dict(PPOConfig()), **{k: v for k, v in data["config"].items() if k in given}}
    diff = sorted(k for k in given if saved.get(k) != given.get(k))
    fixed = [k for k in diff if k not in RESUME_MAY_CHANGE]
    if fixed:
        raise ValueError(
            f"cannot resume {resume} with a different {fixed}: a run keeps its config; "
            f"only {sorted(RESUME_MAY_CHANGE)} may change on resume"
        )
    if diff:
        log(f"resuming with changed {diff}")
    return data


def log_line(*args: Any) -> None:
    """print, flushed (a log redirected to a file shows each line as it happens)."""
    print(*args, flush=True)


def frozen(model, state: dict):
    """``model`` with ``state`` loaded, in eval mode and without gradients (the KL reference)."""
    model.load_state_dict(state)
    model.eval()
    for p in model.parameters():
        p.requires_grad_(False)
    return model


def load_start(model, path: str, rules, log, trust: bool | None) -> None:
    """Start ``model`` from the network in ``path`` (a checkpoint or an exported policy): its
    actor, and its critic when the shapes match (a distilled plain critic under a central critic
    is left fresh); a network without wait features is widened with zero weights.

    A network trained under another preset whose observation is the same (every preset but
    ``yongzhou`` reads ``paohuzi-obs-v1``) starts the run as a transfer, said in the log: the
    rules it goes on under are the run's. Resuming a run never changes its rules
    (:func:`load_checkpoint` with the run's rules there)."""
    try:
        data = load_checkpoint(path, rules=rules, trust=trust)
    except ValueError:
        data = load_checkpoint(path, trust=trust)  # its own rules: readable at all?
        own, target = checkpoint_rules(data), as_rules(rules)
        if obs_version(own) != obs_version(target):
            raise ValueError(
                f"start {path} was trained under rules {own.name!r} ({obs_version(own)}), but "
                f"rules {target.name!r} produce {obs_version(target)}: a network can start only "
                "a run whose rules produce the observation it reads") from None
        log(f"start {path}: trained under rules {own.name!r}; a transfer to {target.name!r} "
            f"(the same observation, {obs_version(target)})")
    src = data["model"]
    own = model.state_dict()
    src_waits = bool((data.get("config") or {}).get("wait_features", False))
    if model.waits and not src_waits:
        src = widen_for_waits(src, model)
        log(f"start {path}: a network without wait features; their weights start at zero")
    elif src_waits and not model.waits:
        raise ValueError(f"start {path}: that network reads the wait features; "
                         "set wait_features: true")
    actor = {k: v for k, v in src.items() if k.startswith("actor.")}
    bad = [k for k, v in actor.items() if k not in own or own[k].shape != v.shape]
    if bad or len(actor) != sum(k.startswith("actor.") for k in own):
        raise ValueError(f"start {path}: its actor does not fit this config's network (prior "
                         f"{model.prior!r}, the same actor, hidden and wait features?); mismatched: {bad}")
    critic = {k: v for k, v in src.items() if k.startswith("critic.")}
    fits = all(k in own and own[k].shape == v.shape for k, v in critic.items()) and critic
    model.load_state_dict({**own, **actor, **(critic if fits else {})})
    log(f"start {path}: actor loaded, critic "
        + ("loaded" if fits else "fresh (its shape differs: e.g. a central critic)"))


def log_iteration(writer, step: int, batches: list[dict], stats: dict, n: int, dt: float,
                   t_roll: float, t_upd: float, lr: float) -> dict[str, list]:
    """TensorBoard scalars of one iteration; returns the learner's points and hands against
    each opponent kind (for the league)."""
    by_opp: dict[str, list] = {}
    for b in batches:
        for k, (pts, cnt) in b["stats"]["by_opponent"].items():
            acc = by_opp.setdefault(k, [0.0, 0])
            acc[0] += pts
            acc[1] += cnt
    for k, (pts, cnt) in by_opp.items():
        writer.add_scalar(f"charts/points_vs_{k.replace(':', '_')}", pts / cnt, step)
    writer.add_scalar("charts/SPS", n / dt, step)
    writer.add_scalar("charts/rollout_SPS", n / t_roll, step)
    # the split of an iteration's wall time: rollouts (of which the workers' forward passes,
    # averaged over workers), the PPO update, and the rest
    t_inf = float(np.mean([b["stats"].get("seconds", {}).get("inference", 0.0) for b in batches]))
    writer.add_scalar("time/rollout_s", t_roll, step)
    writer.add_scalar("time/inference_s", t_inf, step)
    writer.add_scalar("time/update_s", t_upd, step)
    writer.add_scalar("time/other_s", max(0.0, dt - t_roll - t_upd), step)
    writer.add_scalar("charts/learning_rate", lr, step)
    writer.add_scalar("charts/invalid_actions", sum(b["stats"]["invalid_actions"] for b in batches), step)
    writer.add_scalar("charts/hands", sum(b["stats"]["hands"] for b in batches), step)
    for k, v in stats.items():
        writer.add_scalar(f"losses/{k}", v, step)
    return by_opp


class StopFlag:
    """SIGINT (Ctrl-C) and SIGTERM ask the training loop to stop: the iteration under way
    finishes, ``latest.pt`` is written (atomically) and the run ends cleanly. A second Ctrl-C
    stops at once (``KeyboardInterrupt``), keeping the last checkpoint written."""

    def __init__(self, log) -> None:
        self.requested: str | None = None
        self._log = log
        self._old: dict[int, Any] = {}
        try:
            for sig in (signal.SIGINT, signal.SIGTERM):
                self._old[sig] = signal.signal(sig, self._handle)
        except ValueError:  # not the main thread: leave the signals alone
            self._old = {}

    def _handle(self, signum, frame) -> None:
        name = signal.Signals(signum).name
        if self.requested and signum == signal.SIGINT:
            raise KeyboardInterrupt
        self.requested = name
        self._log(f"\n{name}: finishing this iteration, then saving and stopping "
                  "(Ctrl-C again to stop at once, keeping the last checkpoint)")

    def restore(self) -> None:
        """Put back the signal handlers that were there before."""
        for sig, old in self._old.items():
            signal.signal(sig, old)
        self._old = {}
