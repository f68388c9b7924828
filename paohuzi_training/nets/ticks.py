"""The per-tick buffers a VectorGame (either backend) fills each tick: what the rollouts of
training (:mod:`paohuzi_training.stages.rollout`) and the batched evaluation
(:mod:`paohuzi_training.eval.batched_eval`) both step hands with."""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from paohuzi_env.game.actions import NUM_ACTIONS


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
