"""The league of past selves: the snapshot pool the learner plays against.

Every ``snapshot_every`` iterations a frozen copy of the network joins the pool (at most
``snapshot_pool``, the oldest leaving first). Each snapshot keeps an exponential moving average
of the learner's points against it (0.8 old, 0.2 new per iteration it was met); a rollout draws
a snapshot table's opponent with weight ``exp(-ema / 2)``, so the snapshots the learner beats
least are met most. The pool and its averages are saved in checkpoints (``snapshots``,
``snapshot_ema``) and restored on resume.
"""

from __future__ import annotations

import numpy as np
import torch

from ..config import PPOConfig


def frozen_state(model: torch.nn.Module) -> dict:
    """A CPU copy of the network's weights that does not follow later updates (on a CPU device
    ``.cpu()`` is the live tensor)."""
    return {k: v.detach().cpu().clone() for k, v in model.state_dict().items()}


class League:
    """The snapshot pool and its sampling weights (see the module docstring)."""

    def __init__(self, cfg: PPOConfig, snapshots: list[dict] | None = None,
                 ema: list[float] | None = None) -> None:
        self.cfg = cfg
        self.snapshots: list[dict] = list(snapshots or [])
        self.ema: list[float] = list(ema or [])

    def weights(self) -> np.ndarray | None:
        """The sampling weights of the snapshots (None while the pool is empty)."""
        return np.exp(-np.array(self.ema) / 2.0) if self.snapshots else None

    def record(self, by_opponent: dict[str, list]) -> None:
        """Fold one iteration's points against each opponent (``"snap:i"`` keys) into the
        averages."""
        for k, (pts, cnt) in by_opponent.items():
            if k.startswith("snap:"):
                i = int(k.split(":")[1])
                if i < len(self.ema):
                    self.ema[i] = 0.8 * self.ema[i] + 0.2 * (pts / cnt)

    def after_iteration(self, model: torch.nn.Module, iteration: int) -> None:
        """Every ``snapshot_every`` iterations, a frozen copy joins (the oldest leaves a full
        pool)."""
        if iteration % self.cfg.league.snapshot_every == 0:
            self.snapshots.append(frozen_state(model))
            self.ema.append(0.0)
            if len(self.snapshots) > self.cfg.league.snapshot_pool:
                self.snapshots.pop(0)
                self.ema.pop(0)
