"""The trainer's batches: per-transition arrays, GAE over one trajectory, and the carry.

A rollout (:class:`paohuzi_training.rollout.Rollout`) collects transitions of finished hands into lists
per key of :data:`BATCH_KEYS`; :func:`trajectory_gae` appends one (hand, seat) trajectory with
its advantages; :func:`finish_batch` cuts exactly the asked number and keeps the rest as the
rollout's ``carry`` for its next call (:func:`take_carry`), so every iteration has the same size
and a resumed run reaches the same step count; :func:`merge` joins the batches of the workers.
"""

from __future__ import annotations

from typing import Any, NamedTuple, Protocol

import numpy as np

from paohuzi_env.game.actions import NUM_ACTIONS

from .config import PPOConfig

BATCH_KEYS = ("obs", "mask", "action", "logp", "value", "adv", "ret", "extra", "prior")
"""The per-transition arrays of a batch."""


class HasCarry(Protocol):
    """What the carry helpers need of a rollout: its config and the transitions it kept."""

    cfg: PPOConfig
    carry: dict[str, np.ndarray] | None


class TickBuffers(NamedTuple):
    """The arrays a VectorGame's ``observe`` and ``step`` fill each tick, one row per hand."""

    obs: np.ndarray  # (n, obs_size) float32
    mask: np.ndarray  # (n, NUM_ACTIONS) int8
    seat: np.ndarray  # (n,) int64, the seat to act
    decision: np.ndarray  # (n,) int64, the decision kind
    actions: np.ndarray  # (n,) int64, zeros
    prior: np.ndarray  # (n,) int64, zeros (a prior policy's actions)
    rewards: np.ndarray  # (n, 3) float32
    done: np.ndarray  # (n,) bool


def tick_buffers(vg: Any) -> TickBuffers:
    """Fresh per-tick buffers for the ``vg.num_hands`` hands of a VectorGame (either backend)."""
    n = vg.num_hands
    return TickBuffers(
        obs=np.empty((n, vg.obs_size), np.float32),
        mask=np.empty((n, NUM_ACTIONS), np.int8),
        seat=np.empty(n, np.int64),
        decision=np.empty(n, np.int64),
        actions=np.zeros(n, np.int64),
        prior=np.zeros(n, np.int64),
        rewards=np.empty((n, 3), np.float32),
        done=np.empty(n, np.bool_),
    )


def new_batch() -> dict[str, list]:
    """Empty lists, one per key of :data:`BATCH_KEYS`."""
    return {k: [] for k in BATCH_KEYS}


def take_carry(roll: HasCarry, out: dict) -> int:
    """Start ``out`` (lists per key) with the transitions a rollout kept from its last call;
    returns how many."""
    carry = roll.carry
    roll.carry = None
    if not carry:
        return 0
    for k in BATCH_KEYS:
        out[k].append(carry[k])
    return len(carry["action"])


def finish_batch(roll: HasCarry, out: dict, n: int) -> dict:
    """Concatenate ``out``'s lists; keep all but the first ``n`` transitions in ``roll.carry``
    for the next call; returns the first ``n``."""
    total = sum(len(x) for x in out["action"])
    joined: dict[str, Any] = {}
    for k in BATCH_KEYS:
        if k == "extra" and not roll.cfg.central_critic:
            joined[k] = np.zeros((total, 0), np.float32)
        else:
            joined[k] = np.concatenate(out[k]) if out[k] else np.zeros(0)
    roll.carry = {k: v[n:] for k, v in joined.items()} if total > n else None
    return {k: v[:n] for k, v in joined.items()}


def trajectory_gae(traj: list[tuple], reward: float, cfg: PPOConfig, out: dict) -> int:
    """Append one (hand, seat) trajectory to ``out`` with its GAE; returns its length.

    ``traj`` holds (obs, mask, action, logp, value, extra, prior, rollout advantage) per
    decision; ``reward`` arrives on the last one (hands are end-rewarded)."""
    T = len(traj)
    values = np.array([t[4] for t in traj], dtype=np.float32)
    rewards = np.zeros(T, dtype=np.float32)
    rewards[-1] = reward
    adv = np.zeros(T, dtype=np.float32)
    last = 0.0
    for t in range(T - 1, -1, -1):
        next_v = values[t + 1] if t + 1 < T else 0.0
        delta = rewards[t] + cfg.gamma * next_v - values[t]
        last = delta + cfg.gamma * cfg.gae_lambda * last
        adv[t] = last
    out["obs"].append(np.stack([t[0] for t in traj]))
    out["mask"].append(np.stack([t[1] for t in traj]))
    out["action"].append(np.array([t[2] for t in traj], dtype=np.int64))
    out["logp"].append(np.array([t[3] for t in traj], dtype=np.float32))
    out["value"].append(values)
    out["ret"].append(adv + values)
    if cfg.advantage == "rollout":
        adv = np.array([t[7] for t in traj], dtype=np.float32)
    out["adv"].append(adv)
    out["prior"].append(np.array([t[6] for t in traj], dtype=np.int64))
    if cfg.central_critic:
        out["extra"].append(np.stack([t[5] for t in traj]))
    return T


def merge(batches: list[dict]) -> dict:
    """The workers' batches as one."""
    return {k: np.concatenate([b[k] for b in batches]) for k in BATCH_KEYS}
