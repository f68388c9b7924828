"""Deep Monte Carlo (DMC), the method of DouZero (Zha et al., 2021), for 跑胡子 in one file.

    python -m paohuzi_training.baselines.dmc --minutes 60 --seed 1 --out runs/dmc-1
    paohuzi-eval network:runs/dmc-1/final.safetensors --vs expert --deals 1000 --seed 64

The method, as DouZero describes it and as it is done here:

- **A Q network.** DouZero scores each (state, action) pair with one network, the action given
  as a card encoding. Here the action set is small and fixed (61 actions), so the action's
  encoding is its output index: one pass of a multilayer perceptron over the seat's observation
  (``paohuzi-obs-v1``, float32 as the core writes it: many entries are fractions, which an int8
  buffer would zero) gives Q(s, a) for every action at once, masked to the legal ones.
- **Monte Carlo targets.** Every decision a learning seat takes is one sample; its target is
  that seat's reward for the whole hand (no bootstrapping, no discount: hands are short and
  rewarded only at the end), and the loss is the squared error of the Q value of the action
  taken. The reward is the trainer's ``normalized`` one by default: the seat's zero-sum points
  / 64, clipped to [-1, 1] (:mod:`paohuzi_env.encode.rewards`). Fewer than 0.3% of seat results
  exceed 64 points in ``expert`` play, so this is the points objective the evaluation measures,
  on a scale where the squared error and the learning rate behave, and one 180-point hand does
  not swamp a batch.
- **ε-greedy actors.** Actors play the current network's masked argmax, or with probability ε a
  uniformly random legal action; ε falls linearly from ``epsilon_start`` to ``epsilon_end`` over
  the first ``epsilon_anneal_steps`` trained samples (DouZero keeps 0.01 throughout; a fresh
  network's argmax is arbitrary, so more exploration first). Each sample is trained on once, in
  the order it arrives (DouZero's buffers: no replay).
- **RMSprop**, DouZero's settings: learning rate 1e-4, alpha 0.99, eps 1e-5, no momentum,
  gradients clipped to norm 40, 3,200 samples per step (its 32 x 100).
- **Batched acting.** An actor holds ``hands_per_actor`` hands of the compiled core's
  :class:`paohuzi_env.backends.fast.VectorGame` and steps them all at once: one ``observe`` in
  C++, one forward pass over every hand where the network acts, the rule bot answered in C++
  for the hands where it acts, one ``step``. ``num_actors`` actor processes feed one learner
  (DouZero's layout), and the learner acts too whenever no actor's samples are waiting, so
  neither core idles; with ``num_actors: 0`` the learner alone acts between its steps, which
  makes a run on one thread a function of its seed.
- **Opponents.** A share ``self_play`` of the hands seat the network in all three seats (every
  seat's decisions are samples); the rest seat one network (a random seat, its decisions the
  samples) against two copies of the ``opponent`` rule bot. No trained network is ever a teacher,
  a start or an opponent.

What differs from DouZero, and why: one network for every seat (the game is symmetric up to
who deals, which the observation carries; DouZero's landlord and farmers play different
roles); no LSTM over the history (the observation already summarises what was played);
decisions with a single legal action are played but not trained on (their Q value never
changes a choice).

The exported network (``final.safetensors``, ``snapshot-MMmin.safetensors``, each with its JSON
sidecar) has exactly the layout of the PPO trainer's ``mlp`` actor without a prior (tensors
``actor.0``, ``actor.2``, ``actor.4``), so ``network:PATH`` plays it through the compiled core,
without torch. A ``network:`` agent plays the masked argmax of its outputs (ties: the lowest
action id), which for this network is the greedy Q policy: no sampling, no ε.

``--out DIR`` holds:

- ``state.pt``: the resumable state (network, optimizer, counters, config; plain tensors and
  numbers, read with ``torch.load(weights_only=True)``), written every ``save_minutes``, at the
  end, and when the run is stopped by Ctrl-C or SIGTERM. Running the same command again
  continues from it (the wall-clock budget counts the time already trained; new deals are drawn,
  and the hands in progress when it stopped are dropped).
- ``snapshot-MMmin.safetensors``: the network after MM minutes of training (``snapshot_minutes``),
  for learning curves.
- ``final.safetensors``: the network when the budget is spent, and ``summary.json``: steps,
  hands and rates of the run.
- ``tb/``: TensorBoard logs (loss, ε, the network's points per hand against the bot while it
  trains, acting and learning rates).
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import hashlib
import inspect
import io
import json
import os
import queue as queue_mod
import signal
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from paohuzi_env.agents.network import SIDECAR_FORMAT
from paohuzi_env.backends.fast import POLICIES, VectorGame
from paohuzi_env.encode.observation import obs_size, obs_version
from paohuzi_env.encode.rewards import NORMALIZER
from paohuzi_env.game.actions import NUM_ACTIONS
from paohuzi_env.game.rules import Rules, get_rules, preset_names

STATE_FORMAT = "paohuzi-dmc-state-v1"
"""The ``format`` of ``state.pt``."""


# ---------------------------------------------------------------------------------- config


@dataclass
class DMCConfig:
    """Every setting of a DMC run, with its default (DouZero's where it has one)."""

    seed: int = 1
    """Seeds the network's initial weights, every actor's deals, tables and exploration."""
    rules: str = "huaihua"
    """Rules preset the network is trained under (and only plays)."""
    minutes: float = 60.0
    """Wall-clock budget in minutes, counted from the learner's start, across resumed runs."""
    steps: int = 0
    """Also stop once this many samples (decisions) have been trained on; 0: no such limit."""
    hidden: int = 256
    """Width of the Q network's two hidden layers (the PPO trainer's ``mlp`` actor's)."""
    batch_size: int = 3200
    """Samples per gradient step (DouZero: 32 buffers x 100 decisions)."""
    learning_rate: float = 1e-4
    """RMSprop learning rate (DouZero)."""
    rmsprop_alpha: float = 0.99
    """RMSprop smoothing constant (DouZero)."""
    rmsprop_eps: float = 1e-5
    """RMSprop epsilon (DouZero)."""
    max_grad_norm: float = 40.0
    """Gradient clipping norm (DouZero)."""
    epsilon_start: float = 0.1
    """Exploration probability of a fresh network."""
    epsilon_end: float = 0.01
    """Exploration probability after the anneal (DouZero's constant)."""
    epsilon_anneal_steps: int = 5_000_000
    """Trained samples over which ε falls linearly from ``epsilon_start`` to ``epsilon_end``."""
    reward: str = "normalized"
    """A decision's target: ``normalized`` (the seat's points / 64, clipped to [-1, 1]) or
    ``score`` (the points)."""
    self_play: float = 0.5
    """Share of hands with the network in all three seats; the rest are against ``opponent``."""
    opponent: str = "expert"
    """The rule bot (compiled) in the two other seats of the hands that are not self-play."""
    num_actors: int = 1
    """Actor processes besides the learner; 0: the learner alone acts, between its steps
    (then a run on one thread is a function of its seed)."""
    learner_acts: bool = True
    """With actor processes, the learner also acts whenever none of their samples are waiting
    (false: it only waits for them, as DouZero's learner does)."""
    hands_per_actor: int = 256
    """Hands each actor steps together (one forward pass per tick over them)."""
    chunk: int = 1024
    """Samples an actor gathers (of finished hands) before it sends them to the learner."""
    torch_threads: int = 1
    """Torch threads of each process (learner and actors)."""
    snapshot_minutes: tuple[float, ...] = (10, 20, 30, 60)
    """Write ``snapshot-MMmin.safetensors`` once the run has trained this many minutes (a
    fraction of a minute is named as it is: ``snapshot-0.5min``)."""
    save_minutes: float = 5.0
    """Write ``state.pt`` this often (and at the end, and when stopped)."""
    log_seconds: float = 30.0
    """Print a progress line and write TensorBoard scalars this often."""


RUN_CONTROL = ("minutes", "steps", "num_actors", "learner_acts", "chunk", "torch_threads", "save_minutes",
               "log_seconds", "snapshot_minutes")
"""Fields a resumed run may change; any other must be what the run started with."""
REWARDS = ("normalized", "score")


def check_config(cfg: DMCConfig) -> Rules:
    """The rules of ``cfg``, after checking every field; a ValueError names the bad one."""
    if cfg.rules not in preset_names():
        raise ValueError(f"rules must be one of {', '.join(preset_names())}, got {cfg.rules!r}")
    if cfg.reward not in REWARDS:
        raise ValueError(f"reward must be one of {', '.join(REWARDS)}, got {cfg.reward!r}")
    if cfg.opponent not in POLICIES or cfg.opponent == "random":
        bots = [p for p in POLICIES if p != "random"]
        raise ValueError(f"opponent must be a compiled rule bot ({', '.join(bots)}), "
                         f"got {cfg.opponent!r}")
    if not 0.0 <= cfg.self_play <= 1.0:
        raise ValueError(f"self_play is a share in [0, 1], got {cfg.self_play}")
    for name in ("epsilon_start", "epsilon_end"):
        if not 0.0 <= getattr(cfg, name) <= 1.0:
            raise ValueError(f"{name} is a probability in [0, 1], got {getattr(cfg, name)}")
    positive = ("hidden", "batch_size", "hands_per_actor", "chunk", "torch_threads",
                "epsilon_anneal_steps")
    for name in positive:
        if getattr(cfg, name) <= 0:
            raise ValueError(f"{name} must be positive, got {getattr(cfg, name)}")
    for name in ("learning_rate", "rmsprop_eps", "max_grad_norm", "save_minutes", "log_seconds"):
        if not getattr(cfg, name) > 0:
            raise ValueError(f"{name} must be positive, got {getattr(cfg, name)}")
    if not 0.0 < cfg.rmsprop_alpha < 1.0:
        raise ValueError(f"rmsprop_alpha is in (0, 1), got {cfg.rmsprop_alpha}")
    if cfg.num_actors < 0 or cfg.steps < 0 or not cfg.minutes > 0:
        raise ValueError("num_actors and steps must be >= 0 and minutes > 0, got "
                         f"{cfg.num_actors}, {cfg.steps}, {cfg.minutes}")
    if any(m <= 0 for m in cfg.snapshot_minutes):
        raise ValueError(f"snapshot_minutes must be positive, got {cfg.snapshot_minutes}")
    return get_rules(cfg.rules)


def snapshot_name(minutes: float) -> str:
    """The file of the snapshot after ``minutes``: ``snapshot-10min.safetensors`` for whole
    minutes, ``snapshot-0.5min.safetensors`` otherwise."""
    m = float(minutes)
    return f"snapshot-{int(m):02d}min.safetensors" if m.is_integer() else f"snapshot-{m:g}min.safetensors"


def epsilon_at(cfg: DMCConfig, step: int) -> float:
    """ε after ``step`` trained samples: linear from ``epsilon_start`` to ``epsilon_end``."""
    frac = min(1.0, step / cfg.epsilon_anneal_steps)
    return cfg.epsilon_start + frac * (cfg.epsilon_end - cfg.epsilon_start)


# ---------------------------------------------------------------------------------- network


class QNetwork(nn.Module):
    """Q(s, ·): the observation through two ReLU hidden layers to one value per action.

    The layers sit in ``self.actor`` (``actor.0``, ``actor.2``, ``actor.4``) so that the state
    dict is the PPO trainer's ``mlp`` actor's: the compiled core's network reader plays it.
    """

    def __init__(self, n_obs: int, hidden: int) -> None:
        super().__init__()
        self.actor = nn.Sequential(
            nn.Linear(n_obs, hidden), nn.ReLU(),
            nn.Linear(hidden, hidden), nn.ReLU(),
            nn.Linear(hidden, NUM_ACTIONS),
        )

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        """Q values ``(batch, 61)`` of observations ``(batch, n_obs)`` (illegal ones included)."""
        return self.actor(obs)


def hand_targets(points: np.ndarray, seats: np.ndarray, reward: str) -> np.ndarray:
    """The Monte Carlo target of decisions taken by ``seats`` in hands that ended with
    ``points`` (one row of the three seats' points per decision): that seat's reward for the
    hand, float32.

    Raises:
        ValueError: for a reward not in :data:`REWARDS`.
    """
    p = np.asarray(points, np.float64)[np.arange(len(seats)), np.asarray(seats)]
    if reward == "score":
        return p.astype(np.float32)
    if reward == "normalized":
        return np.clip(p / NORMALIZER, -1.0, 1.0).astype(np.float32)
    raise ValueError(f"reward must be one of {', '.join(REWARDS)}, got {reward!r}")


def q_loss(q: torch.Tensor, actions: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """Mean squared error between the Q value of each action taken and its target."""
    taken = q.gather(1, actions.unsqueeze(1)).squeeze(1)
    return ((taken - targets) ** 2).mean()


def legal_uniform(mask: np.ndarray, u: np.ndarray) -> np.ndarray:
    """For each row of the bool ``mask``, its ``floor(u * n_legal)``-th legal action
    (``u`` uniform in [0, 1): a uniformly random legal action)."""
    n_legal = mask.sum(axis=1)
    k = np.minimum((u * n_legal).astype(np.int64), n_legal - 1)
    return (np.cumsum(mask, axis=1) <= k[:, None]).sum(axis=1)


# ---------------------------------------------------------------------------------- actor


class Actor:
    """ε-greedy play over the hands of one :class:`VectorGame`, gathering samples.

    Args:
        cfg: the run's config.
        rules: its rules.
        seed_seq: keys the deals, which hands are self-play, the network's seat, exploration.
        model: the Q network it plays (read, never trained, here).
    """

    def __init__(self, cfg: DMCConfig, rules: Rules, seed_seq: np.random.SeedSequence,
                 model: QNetwork) -> None:
        self.cfg, self.model = cfg, model
        self.rng = np.random.default_rng(seed_seq)
        n = cfg.hands_per_actor
        self.vg = VectorGame(n, rules, seed=int(self.rng.integers(2**63)), reward="score")
        self.obs = np.empty((n, self.vg.obs_size), np.float32)
        self.mask = np.empty((n, NUM_ACTIONS), np.int8)
        self.seat = np.empty(n, np.int64)
        self.decision = np.empty(n, np.int64)
        self.actions = np.zeros(n, np.int64)
        self.points = np.empty((n, 3), np.float32)
        self.done = np.empty(n, np.bool_)
        self.learner_seat = np.full(n, -1, np.int64)  # -1: self-play (every seat learns)
        self.serial = np.zeros(n, np.int64)  # which hand each slot holds (a running number)
        self.rows_in_hand = np.zeros(n, np.int64)
        self.next_serial = 0
        for i in range(n):
            self._new_table(i)
        # samples of unfinished hands, one array chunk per tick, and the finished hands' points
        self.pending: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []
        self.finished: dict[int, np.ndarray] = {}
        self.ready = 0
        self.stats = _fresh_stats()

    def _new_table(self, i: int) -> None:
        """Draw slot ``i``'s table (self-play, or the network's seat against the bot)."""
        self_play = self.rng.random() < self.cfg.self_play
        seat = int(self.rng.integers(3))
        self.learner_seat[i] = -1 if self_play else seat
        self.serial[i] = self.next_serial
        self.next_serial += 1
        self.rows_in_hand[i] = 0

    @torch.no_grad()
    def collect(self, n: int, epsilon: float) -> dict[str, Any]:
        """Play until at least ``n`` samples of finished hands are gathered; returns them all
        (``obs``, ``action``, ``target``, and the ``seat`` that decided) with the play's
        ``stats``."""
        cfg, vg = self.cfg, self.vg
        while self.ready < n:
            vg.observe(self.obs, self.mask, self.seat, self.decision)
            learner = (self.learner_seat == -1) | (self.seat == self.learner_seat)
            bot = ~learner
            if bot.any():
                vg.policy_actions(cfg.opponent, self.actions, bot)
            idx = np.flatnonzero(learner)
            if len(idx):
                mask = self.mask[idx].astype(bool)
                obs = self.obs[idx]
                q = self.model(torch.from_numpy(obs)).numpy()
                greedy = np.where(mask, q, -np.inf).argmax(axis=1)
                explore = self.rng.random(len(idx)) < epsilon
                rand = legal_uniform(mask, self.rng.random(len(idx)))
                a = np.where(explore, rand, greedy)
                self.actions[idx] = a
                keep = mask.sum(axis=1) > 1  # a forced move teaches nothing about choices
                if keep.any():
                    rows = idx[keep]
                    self.pending.append((obs[keep], a[keep], self.serial[rows],
                                         self.seat[rows].copy()))
                    np.add.at(self.rows_in_hand, rows, 1)
            self.stats["decisions"] += len(self.seat)
            vg.step(self.actions, self.points, self.done)
            for i in np.flatnonzero(self.done):
                self._finish(int(i))
        return self._emit()

    def _finish(self, i: int) -> None:
        """Slot ``i``'s hand ended with ``self.points[i]``: its samples are ready."""
        pts = self.points[i].copy()
        self.finished[int(self.serial[i])] = pts
        self.ready += int(self.rows_in_hand[i])
        st = self.stats
        st["hands"] += 1
        if self.learner_seat[i] < 0:
            st["self_play_hands"] += 1
        else:
            st["bot_hands"] += 1
            st["bot_points"] += float(pts[self.learner_seat[i]])
        self._new_table(i)

    def _emit(self) -> dict[str, Any]:
        """Every sample of a finished hand, with its target; the others stay pending."""
        obs = np.concatenate([c[0] for c in self.pending])
        action = np.concatenate([c[1] for c in self.pending])
        serial = np.concatenate([c[2] for c in self.pending])
        seat = np.concatenate([c[3] for c in self.pending])
        fin = np.fromiter(sorted(self.finished), np.int64, len(self.finished))
        pos = np.minimum(np.searchsorted(fin, serial), len(fin) - 1)
        done = fin[pos] == serial
        points = np.stack([self.finished[int(s)] for s in fin])
        out = {"obs": obs[done], "action": action[done],
               "target": hand_targets(points[pos[done]], seat[done], self.cfg.reward),
               "seat": seat[done], "stats": self.stats}
        rest = ~done
        self.pending = [(obs[rest], action[rest], serial[rest], seat[rest])] if rest.any() else []
        self.finished = {}
        self.ready = 0
        self.stats = _fresh_stats()
        return out


def _fresh_stats() -> dict[str, float]:
    return {"decisions": 0, "hands": 0, "self_play_hands": 0, "bot_hands": 0, "bot_points": 0.0}


def _actor_main(cfg_dict: dict[str, Any], seed_key: list[int], flat: torch.Tensor, lock: Any,
                version: Any, step: Any, out: Any, stop: Any, learner_pid: int) -> None:
    """An actor process: play with the learner's latest weights (``flat``, shared memory),
    send samples to ``out`` until ``stop`` is set or the learner is gone.

    Ctrl-C and SIGTERM are the learner's to handle: it sets ``stop`` and reads what the actors
    still send while they end (an actor killed halfway through sending a batch would leave the
    learner waiting for the rest of it).
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    cfg = DMCConfig(**cfg_dict)
    torch.set_num_threads(cfg.torch_threads)
    rules = get_rules(cfg.rules)
    model = QNetwork(obs_size(rules), cfg.hidden)
    model.eval()
    actor = Actor(cfg, rules, np.random.SeedSequence(seed_key), model)
    seen = -1
    while not stop.is_set() and os.getppid() == learner_pid:
        if version.value != seen:
            with lock:
                seen = version.value
                local = flat.clone()
            torch.nn.utils.vector_to_parameters(local, model.parameters())
        item = actor.collect(cfg.chunk, epsilon_at(cfg, step.value))
        while not stop.is_set() and os.getppid() == learner_pid:
            try:
                out.put(item, timeout=1.0)
                break
            except queue_mod.Full:
                continue


# ---------------------------------------------------------------------------------- files


def _write_atomic(path: Path, blob: bytes) -> None:
    """Write ``blob`` to ``path`` through a temporary file and a rename: a killed run leaves
    the previous file whole."""
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as f:
        f.write(blob)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def export_policy(model: QNetwork, cfg: DMCConfig, rules: Rules, path: str | Path, *,
                  global_step: int, train_seconds: float) -> Path:
    """Write the network as a play-only ``.safetensors`` policy with its JSON sidecar (the
    format ``network:PATH`` reads: :mod:`paohuzi_env.agents.network`); returns ``path``.

    Raises:
        ValueError: if ``path`` does not end in ``.safetensors``.
    """
    import safetensors.torch

    path = Path(path)
    if path.suffix != ".safetensors":
        raise ValueError(f"a policy file's name ends in .safetensors, got {path}")
    tensors = {k: v.detach().cpu().contiguous() for k, v in model.state_dict().items()}
    blob = safetensors.torch.save(tensors)
    record = rules.to_record()
    # the reader's keys (hidden, actor, prior, wait_features, rules), then DMC's own settings
    config = {**dataclasses.asdict(cfg), "algorithm": "dmc", "actor": "mlp", "prior": "none",
              "prior_weight": 0.0, "wait_features": False,
              "rules_overrides": record["overrides"]}
    network = {"obs_size": obs_size(rules), "hidden": cfg.hidden, "actor": "mlp",
               "central_critic": False, "prior": "none", "prior_weight": 0.0,
               "wait_features": False, "tensors": {k: list(v.shape) for k, v in tensors.items()}}
    meta = {"format": SIDECAR_FORMAT, "obs_version": obs_version(rules), "rules": record,
            "config": config, "algorithm": "dmc", "global_step": int(global_step),
            "train_seconds": float(train_seconds), "policy_only": True, "network": network,
            "weights_sha256": hashlib.sha256(blob).hexdigest()}
    text = json.dumps(meta, indent=1, ensure_ascii=False, allow_nan=False) + "\n"
    _write_atomic(path, blob)
    _write_atomic(path.with_suffix(".json"), text.encode("utf-8"))
    return path


def load_state(out: Path) -> dict[str, Any] | None:
    """The resumable state in ``out`` (None when there is none).

    Raises:
        ValueError: for a ``state.pt`` that is not a DMC run's.
    """
    path = out / "state.pt"
    if not path.is_file():
        return None
    try:
        state = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as e:  # noqa: BLE001 - any unreadable file is reported the same way
        raise ValueError(f"{path} is not readable as a DMC state: {e}") from None
    if not isinstance(state, dict) or state.get("format") != STATE_FORMAT:
        raise ValueError(f"{path} is not a DMC run's state (format {STATE_FORMAT})")
    return state


def _resume_config(cfg: DMCConfig, saved: dict[str, Any], out: Path) -> None:
    """Refuse to continue a run in ``out`` with other learning settings than it started with."""
    differ = []
    for f in dataclasses.fields(DMCConfig):
        if f.name in RUN_CONTROL:
            continue
        now, then = getattr(cfg, f.name), saved.get(f.name)
        if then != now:
            differ.append(f"{f.name}: {then!r} there, {now!r} now")
    if differ:
        raise ValueError(f"{out} holds a DMC run with other settings ({'; '.join(differ)}); "
                         "use another --out, or the same settings to continue it")


# ---------------------------------------------------------------------------------- learner


@dataclass
class Progress:
    """Where a run stands (saved in ``state.pt``)."""

    global_step: int = 0
    """Samples trained on."""
    updates: int = 0
    """Gradient steps."""
    hands: int = 0
    """Hands finished by the actors (every table)."""
    train_seconds: float = 0.0
    """Wall clock trained, across resumed runs."""
    starts: int = 0
    """Times the run was started (each start's actors draw their own streams)."""
    snapshots: list[float] = field(default_factory=list)
    """The ``snapshot_minutes`` already written."""


class _Stop:
    """Set by Ctrl-C or SIGTERM: the learner saves and returns."""

    def __init__(self) -> None:
        self.flag = False
        self.previous: dict[int, Any] = {}

    def __enter__(self) -> _Stop:
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGINT, signal.SIGTERM):
                self.previous[sig] = signal.signal(sig, self._set)
        return self

    def _set(self, signum: int, frame: Any) -> None:
        self.flag = True

    def __exit__(self, *exc: object) -> None:
        for sig, handler in self.previous.items():
            signal.signal(sig, handler)


def train(cfg: DMCConfig, out: str | Path) -> Path | None:
    """Train (or continue training) a DMC network in ``out``; returns ``final.safetensors``, or
    None when the run was stopped by Ctrl-C or SIGTERM before its budget (rerun to continue).

    Raises:
        ValueError: for a bad config, or an ``out`` holding another run.
        RuntimeError: if an actor process dies.
    """
    rules = check_config(cfg)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    torch.set_num_threads(cfg.torch_threads)

    # --- seeding: the network's initial weights from the seed (torch's global generator is
    # left as it was); each start of the actors gets its own streams (a resumed run deals new
    # hands): SeedSequence([seed, 1, start, actor])
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(int(np.random.SeedSequence([cfg.seed, 0]).generate_state(1)[0]))
        model = QNetwork(obs_size(rules), cfg.hidden)
    optimizer = torch.optim.RMSprop(model.parameters(), lr=cfg.learning_rate,
                                    alpha=cfg.rmsprop_alpha, eps=cfg.rmsprop_eps, momentum=0.0)
    run = Progress()
    state = load_state(out)
    if state is not None:
        _resume_config(cfg, state["config"], out)
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        run = Progress(int(state["global_step"]), int(state["updates"]), int(state["hands"]),
                       float(state["train_seconds"]), int(state["starts"]),
                       [float(m) for m in state["snapshots"]])
        print(f"dmc: continuing {out} at step {run.global_step:,} "
              f"({run.train_seconds / 60:.1f} min trained)", flush=True)
    final = out / "final.safetensors"
    start = int(run.starts)
    run.starts = start + 1

    def elapsed() -> float:
        return float(run.train_seconds) + (time.monotonic() - t0)

    def budget_spent() -> bool:
        return elapsed() >= cfg.minutes * 60 or (cfg.steps > 0 and run.global_step >= cfg.steps)

    def save() -> None:
        payload = {"format": STATE_FORMAT, "config": dataclasses.asdict(cfg),
                   "model": model.state_dict(), "optimizer": optimizer.state_dict(),
                   **dataclasses.asdict(run), "train_seconds": elapsed()}
        payload["config"]["snapshot_minutes"] = list(cfg.snapshot_minutes)
        buf = io.BytesIO()
        torch.save(payload, buf)
        _write_atomic(out / "state.pt", buf.getvalue())

    t0 = time.monotonic()
    if budget_spent() and final.is_file():
        print(f"dmc: {out} has spent its budget already ({final}); raise --minutes or --steps "
              "to train on", flush=True)
        return final

    from torch.utils.tensorboard import SummaryWriter

    writer = SummaryWriter(str(out / "tb"))
    writer.add_text("hyperparameters", "|param|value|\n|-|-|\n" + "\n".join(
        f"|{k}|{v}|" for k, v in dataclasses.asdict(cfg).items()), global_step=start)

    # --- the actors: processes fed with the weights through shared memory, or one in-process
    procs: list[Any] = []
    ctx: Any = None
    model.eval()
    local_actor = Actor(cfg, rules, np.random.SeedSequence([cfg.seed, 1, start, cfg.num_actors]),
                        model)
    if cfg.num_actors > 0:
        import torch.multiprocessing as tmp_mp

        ctx = tmp_mp.get_context("spawn")
        flat = torch.nn.utils.parameters_to_vector(model.parameters()).detach().clone()
        flat.share_memory_()
        lock, version = ctx.Lock(), ctx.Value("q", 0)
        shared_step, stop_actors = ctx.Value("q", int(run.global_step)), ctx.Event()
        samples = ctx.Queue(maxsize=4 * cfg.num_actors)
        for k in range(cfg.num_actors):
            p = ctx.Process(target=_actor_main, daemon=True, name=f"dmc-actor-{k}",
                            args=(dataclasses.asdict(cfg), [cfg.seed, 1, start, k], flat, lock,
                                  version, shared_step, samples, stop_actors, os.getpid()))
            p.start()
            procs.append(p)

    stop = _Stop()

    def next_samples() -> dict[str, Any] | None:
        """The actor processes' next samples when one is waiting, else the learner's own (or
        None after a second's wait, when the learner does not act)."""
        if procs:
            try:
                item = samples.get(timeout=None if cfg.learner_acts else 1.0,
                                   block=not cfg.learner_acts)
                totals["from_actors"] += len(item["action"])
                return item
            except queue_mod.Empty:
                dead = [p for p in procs if not p.is_alive()]
                if dead:
                    raise RuntimeError(f"DMC actor {dead[0].name} died (exit code "
                                       f"{dead[0].exitcode}); see its error above") from None
                if not cfg.learner_acts:
                    return None
        return local_actor.collect(cfg.chunk, epsilon_at(cfg, run.global_step))

    carry: list[dict[str, np.ndarray]] = []
    carried = 0
    window = {**_fresh_stats(), "loss": 0.0, "updates": 0, "learn_s": 0.0, "samples": 0}
    totals = {"decisions": 0, "learn_s": 0.0, "from_actors": 0}
    last_log = last_save = time.monotonic()
    step0 = run.global_step
    stopped = False
    with stop:
        try:
            while True:
                for m in cfg.snapshot_minutes:
                    if m not in run.snapshots and elapsed() >= m * 60:
                        export_policy(model, cfg, rules, out / snapshot_name(m),
                                      global_step=run.global_step, train_seconds=elapsed())
                        run.snapshots.append(m)
                if budget_spent():
                    break
                if stop.flag:
                    stopped = True
                    break
                item = next_samples()
                if item is not None:
                    for k, v in item.pop("stats").items():
                        window[k] += v
                    carry.append(item)
                    carried += len(item["action"])
                while carried >= cfg.batch_size and not budget_spent() and not stop.flag:
                    batch, carry, carried = _take(carry, cfg.batch_size)
                    t1 = time.perf_counter()
                    model.train()
                    loss = q_loss(model(torch.from_numpy(batch["obs"])),
                                  torch.from_numpy(batch["action"]),
                                  torch.from_numpy(batch["target"]))
                    optimizer.zero_grad()
                    loss.backward()
                    nn.utils.clip_grad_norm_(model.parameters(), cfg.max_grad_norm)
                    optimizer.step()
                    model.eval()
                    dt = time.perf_counter() - t1
                    run.global_step += cfg.batch_size
                    run.updates += 1
                    window["loss"] += loss.item()
                    window["updates"] += 1
                    window["learn_s"] += dt
                    window["samples"] += cfg.batch_size
                    totals["learn_s"] += dt
                    if procs:
                        with lock:
                            flat.copy_(torch.nn.utils.parameters_to_vector(model.parameters()))
                            version.value += 1
                        shared_step.value = int(run.global_step)
                now = time.monotonic()
                if now - last_log >= cfg.log_seconds:
                    totals["decisions"] += int(window["decisions"])
                    run.hands += int(window["hands"])
                    _log(writer, cfg, run, window, now - last_log, elapsed())
                    window = {k: 0 * v for k, v in window.items()}
                    last_log = now
                if now - last_save >= cfg.save_minutes * 60:
                    save()
                    last_save = now
        finally:
            totals["decisions"] += int(window["decisions"])
            run.hands += int(window["hands"])
            if procs:
                stop_actors.set()
                _drain_and_join(procs, samples)
            save()
            writer.close()
    wall = time.monotonic() - t0
    if stopped:
        print(f"dmc: stopped at step {run.global_step:,}; saved {out / 'state.pt'} (run the "
              "same command again to continue)", flush=True)
        return None
    export_policy(model, cfg, rules, final, global_step=run.global_step,
                  train_seconds=elapsed())
    summary = {"algorithm": "dmc", "global_step": run.global_step, "updates": run.updates,
               "hands": run.hands, "train_seconds": elapsed(),
               "this_run": {"seconds": wall, "samples_trained": run.global_step - step0,
                            "samples_per_s": (run.global_step - step0) / max(wall, 1e-9),
                            "samples_from_actor_processes": totals["from_actors"],
                            "decisions_per_s": totals["decisions"] / max(wall, 1e-9),
                            "learner_busy": totals["learn_s"] / max(wall, 1e-9),
                            "update_samples_per_s": (run.global_step - step0)
                            / max(totals["learn_s"], 1e-9)},
               "config": dataclasses.asdict(cfg)}
    (out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    print(f"dmc: done, {run.global_step:,} samples in {elapsed() / 60:.1f} min; {final}",
          flush=True)
    return final


def _take(carry: list[dict[str, np.ndarray]], n: int
          ) -> tuple[dict[str, np.ndarray], list[dict[str, np.ndarray]], int]:
    """The first ``n`` samples of ``carry`` (in arrival order), the rest and its size."""
    keys = ("obs", "action", "target")
    joined = {k: np.concatenate([c[k] for c in carry]) for k in keys}
    batch = {k: v[:n] for k, v in joined.items()}
    rest = {k: v[n:] for k, v in joined.items()}
    left = len(rest["action"])
    return batch, ([rest] if left else []), left


def _drain_and_join(procs: list[Any], samples: Any, wait: float = 30.0) -> None:
    """Let the actor processes end, reading what they still send (an actor's exit waits until
    its last batch is written), then kill any left (the queue is not read after that)."""
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline and any(p.is_alive() for p in procs):
        try:
            samples.get(timeout=0.2)
        except queue_mod.Empty:
            pass
    for p in procs:
        if p.is_alive():
            p.kill()
        p.join(timeout=5.0)


def _log(writer: Any, cfg: DMCConfig, run: Progress, w: dict[str, float], seconds: float,
         trained: float) -> None:
    """One progress line and the TensorBoard scalars of the last ``seconds``."""
    step = int(run.global_step)
    eps = epsilon_at(cfg, step)
    loss = w["loss"] / max(w["updates"], 1)
    vs_bot = w["bot_points"] / max(w["bot_hands"], 1)
    sps, dps = w["samples"] / seconds, w["decisions"] / seconds
    busy = w["learn_s"] / seconds
    writer.add_scalar("charts/epsilon", eps, step)
    writer.add_scalar("losses/q_loss", loss, step)
    writer.add_scalar(f"charts/points_vs_{cfg.opponent}", vs_bot, step)
    writer.add_scalar("charts/hands", w["hands"], step)
    writer.add_scalar("perf/samples_per_s", sps, step)
    writer.add_scalar("perf/decisions_per_s", dps, step)
    writer.add_scalar("perf/learner_busy", busy, step)
    writer.add_scalar("perf/minutes", trained / 60, step)
    print(f"dmc: {trained / 60:5.1f} min  step {step:>11,}  loss {loss:.4f}  eps {eps:.3f}  "
          f"vs {cfg.opponent} {vs_bot:+.2f} pts/hand ({int(w['bot_hands'])} hands)  "
          f"{sps:,.0f} samples/s  {dps:,.0f} decisions/s  learner busy {busy:.0%}", flush=True)


# ---------------------------------------------------------------------------------- command line


def _field_docs() -> dict[str, str]:
    """Each config field's docstring (the string under it), for ``--help``."""
    tree = ast.parse(inspect.getsource(DMCConfig))
    body = tree.body[0].body  # type: ignore[attr-defined]
    docs: dict[str, str] = {}
    for a, b in zip(body, body[1:]):
        if isinstance(a, ast.AnnAssign) and isinstance(a.target, ast.Name) \
                and isinstance(b, ast.Expr) and isinstance(b.value, ast.Constant):
            docs[a.target.id] = " ".join(str(b.value.value).split())
    return docs


def _boolean(text: str) -> bool:
    """``true``/``false`` (also ``1``/``0``, ``yes``/``no``) for a boolean flag."""
    value = {"true": True, "1": True, "yes": True, "false": False, "0": False, "no": False}
    if text.lower() not in value:
        raise argparse.ArgumentTypeError(f"expected true or false, got {text!r}")
    return value[text.lower()]


def parse_args(argv: list[str] | None = None) -> tuple[DMCConfig, Path]:
    """The config and the output folder of a command line (every config field is a flag)."""
    parser = argparse.ArgumentParser(
        prog="python -m paohuzi_training.baselines.dmc",
        description="Deep Monte Carlo (DouZero's DMC) on paohuzi: train a Q network, export it "
                    "for paohuzi-eval network:OUT/final.safetensors. Rerunning with the same "
                    "--out continues a stopped run.")
    parser.add_argument("--out", required=True, type=Path, help="run folder (created)")
    docs = _field_docs()
    for f in dataclasses.fields(DMCConfig):
        flag = "--" + f.name.replace("_", "-")
        default = f.default
        help_text = f"{docs.get(f.name, '')} (default: {default})"
        if isinstance(default, tuple):
            parser.add_argument(flag, type=float, nargs="*", default=list(default), help=help_text)
        elif isinstance(default, bool):
            parser.add_argument(flag, type=_boolean, default=default, metavar="{true,false}",
                                help=help_text)
        else:
            parser.add_argument(flag, type=type(default), default=default, help=help_text)
    ns = vars(parser.parse_args(argv))
    out = ns.pop("out")
    ns["snapshot_minutes"] = tuple(ns["snapshot_minutes"])
    return DMCConfig(**ns), out


def main(argv: list[str] | None = None) -> int:
    """``python -m paohuzi_training.baselines.dmc --minutes M --seed S --out DIR``."""
    cfg, out = parse_args(argv)
    try:
        final = train(cfg, out)
    except ValueError as e:
        print(f"dmc: error: {e}", file=sys.stderr)
        return 2
    return 0 if final is not None else 130


if __name__ == "__main__":
    raise SystemExit(main())
