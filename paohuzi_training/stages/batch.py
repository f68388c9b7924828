"""The trainer's batches: the per-tick buffers, the learner's transitions and their advantages.

A rollout (:class:`paohuzi_training.stages.rollout.Rollout`) adds each tick's learner transitions to a
:class:`TransitionStore` as arrays, closes a (hand, seat) trajectory with its reward when the
hand ends, and takes exactly the asked number of finished transitions, with GAE computed over
every trajectory at once (:func:`_advantages`; trajectories of different seats or hands never
mix); what finished beyond that number is the store's ``carry`` and opens the next batch, so
every iteration has the same size and a resumed run reaches the same step count. :func:`merge`
joins the batches of the workers.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..config import PPOConfig

BATCH_KEYS = ("obs", "mask", "action", "logp", "value", "adv", "ret", "extra", "prior", "oracle")
"""The per-transition arrays of a batch (``extra``: the central critic's features, ``oracle``:
oracle guiding's input; each ``(n, 0)`` when not in use)."""


class TransitionStore:
    """The learner's transitions of one rollout, kept as one array chunk per tick (no Python
    object per transition), each row tagged with its trajectory: one (hand, learner seat).

    :meth:`add` appends a tick's rows; :meth:`finish` closes a trajectory with its reward (on
    its last transition: hands are end-rewarded); :meth:`take` returns the first ``n``
    transitions of finished trajectories, in the order they finished (and chronological within
    each), with their advantages (GAE over each trajectory alone, or the rollout advantages of
    ``advantage: rollout``) and returns. Finished transitions beyond ``n`` are kept as
    :attr:`carry` and open the next batch, so every iteration has the same size; unfinished
    trajectories wait for their hands to end."""

    def __init__(self, cfg: PPOConfig) -> None:
        self.cfg = cfg
        self.chunks: list[dict[str, np.ndarray]] = []
        self.finished: dict[int, tuple[int, float]] = {}  # trajectory -> (finish order, reward)
        self.order = 0
        self.carry: dict[str, np.ndarray] | None = None

    def add(self, tid: np.ndarray, **rows: np.ndarray | None) -> None:
        """One tick's rows (``BATCH_KEYS`` but ``adv`` and ``ret``, plus ``dev``: the rollout
        advantage), row ``j`` of trajectory ``tid[j]``."""
        self.chunks.append({"tid": tid, **{k: v for k, v in rows.items() if v is not None}})

    def finish(self, tid: int, reward: float) -> None:
        """Trajectory ``tid`` is complete; ``reward`` arrives on its last transition."""
        self.finished[tid] = (self.order, reward)
        self.order += 1

    def take(self, n: int) -> dict[str, Any]:
        """The first ``n`` finished transitions (see the class docstring)."""
        cfg = self.cfg
        optional = {"extra": cfg.central_critic, "oracle": cfg.oracle_steps > 0}  # in use?
        keys = [k for k in BATCH_KEYS if k not in ("adv", "ret", *optional)] + ["dev"]
        keys += [k for k, on in optional.items() if on]
        rows: dict[str, Any] = {k: np.concatenate([c[k] for c in self.chunks]) if self.chunks else None
                for k in ["tid", *keys]}
        new: dict[str, np.ndarray] = {}
        if rows["tid"] is not None and self.finished:
            tid = rows["tid"]
            fin = np.fromiter((t in self.finished for t in tid.tolist()), np.bool_, len(tid))
            self.chunks = [{k: v[~fin] for k, v in rows.items() if v is not None}] \
                if not fin.all() else []
            order = np.array([self.finished[t][0] for t in tid[fin].tolist()], np.int64)
            pick = np.flatnonzero(fin)[np.argsort(order, kind="stable")]
            t = tid[pick]
            reward = np.array([self.finished[x][1] for x in t.tolist()], np.float32)
            for x in set(t.tolist()):
                del self.finished[x]
            new = {k: rows[k][pick] for k in keys}
            new["adv"], new["ret"] = _advantages(t, new["value"], reward, new.pop("dev"), cfg)
        joined: dict[str, Any] = {}
        for k in BATCH_KEYS:
            parts = [x[k] for x in (self.carry, new) if x and k in x]
            if k in optional and not optional[k]:  # (n, 0), however the carry was made
                total = sum(len(x["action"]) for x in (self.carry, new) if x)
                joined[k] = np.zeros((total, 0), np.float32)
            else:
                joined[k] = np.concatenate(parts) if parts else np.zeros(0)
        total = len(joined["action"])
        self.carry = {k: v[n:] for k, v in joined.items()} if total > n else None
        return {k: v[:n] for k, v in joined.items()}


def _advantages(tid: np.ndarray, values: np.ndarray, reward: np.ndarray, dev: np.ndarray,
                cfg: PPOConfig) -> tuple[np.ndarray, np.ndarray]:
    """GAE over each trajectory (rows grouped by ``tid``, chronological within; ``reward``: each
    row's trajectory reward, paid on its last row), all trajectories at once, one step of the
    backward recursion per position; and the returns (advantage + value). With ``advantage:
    rollout`` the advantages are the rollout's own (``dev``)."""
    n = len(tid)
    last = np.ones(n, np.bool_)
    last[:-1] = tid[1:] != tid[:-1]
    start = np.ones(n, np.bool_)
    start[1:] = tid[1:] != tid[:-1]
    first = np.maximum.accumulate(np.where(start, np.arange(n), 0))
    pos = np.arange(n) - first
    rewards = np.where(last, reward, np.float32(0)).astype(np.float32)
    next_v = np.zeros(n, np.float32)
    next_v[:-1] = np.where(last[:-1], np.float32(0), values[1:])
    delta = rewards + cfg.gamma * next_v - values
    adv = np.zeros(n, np.float32)
    gl = cfg.gamma * cfg.gae_lambda
    for k in range(int(pos.max()) if n else -1, -1, -1):
        at = np.flatnonzero(pos == k)
        nxt = np.zeros(len(at), np.float32)
        inner = ~last[at]
        nxt[inner] = adv[at[inner] + 1]
        adv[at] = delta[at] + gl * nxt
    ret = adv + values
    if cfg.advantage == "rollout":
        adv = dev.astype(np.float32)
    return adv, ret


def merge(batches: list[dict]) -> dict:
    """The workers' batches as one."""
    return {k: np.concatenate([b[k] for b in batches]) for k in BATCH_KEYS}
