"""Self-play rollouts: many hands stepped together, one batched forward pass per tick.

A :class:`Rollout` owns ``games_per_worker`` hands. Each hand draws its table from the opponent
mix: the current policy in all three seats, or one learner seat against two copies of a past
snapshot or of a rule-based bot. Every decision of a learner seat is one transition; when a
hand ends, each learner seat's trajectory gets the hand's reward on its last transition and
its own GAE (trajectories of different seats or hands never mix).
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import torch

from paohuzi_env.actions import NUM_ACTIONS
from paohuzi_env.agents import make_agent
from paohuzi_env.engine import Game
from paohuzi_env.observation import encode, obs_size
from paohuzi_env.rewards import reward_from_scores
from paohuzi_env.rules import get_rules
from paohuzi_env.state import state_extra

from .config import PPOConfig
from .model import ActorCritic, model_for

hand_reward = reward_from_scores
"""The reward of one seat for a finished hand: the env's, :func:`paohuzi_env.rewards.reward_from_scores`."""


def expert_scores(rules, seed: int) -> tuple:
    """The points of every seat when three ``expert`` bots play the deal of ``Game(rules, seed)``
    (the bots are deterministic, so this is a function of the deal)."""
    game = Game(rules, seed=seed)
    _play_out(game, make_agent("expert", seed=0, rules=rules))
    assert game.result is not None
    return game.result.scores


def _play_out(game: Game, bot) -> None:
    """``bot`` (stateless) plays every seat until the hand ends."""
    while not game.done:
        seat = game.current_player
        assert seat is not None
        game.step(bot(game.view(seat)))


def prior_playout(game: Game, action: int, seat: int, bot) -> float:
    """``seat``'s points when ``action`` is taken now and ``bot`` plays every seat after it,
    on a copy of ``game`` (same deck: the duplicate rollout of ``advantage: rollout``)."""
    g = copy.deepcopy(game)
    g.step(action)
    _play_out(g, bot)
    assert g.result is not None
    return float(g.result.scores[seat])


class _Hand:
    __slots__ = ("game", "roles", "bots", "kind", "traj", "seed")

    def __init__(self, game, roles, bots, kind, seed):
        self.seed = seed
        self.game = game
        self.roles = roles  # seat -> "learner" | ("snap", i) | "bot"
        self.bots = bots  # seat -> Agent
        self.kind = kind  # "self" | ("snap", i) | ("bot", name)
        self.traj: dict[int, list[tuple]] = {s: [] for s in range(3) if roles[s] == "learner"}


class Rollout:
    """Hands of one worker process (or of the main process when there is one worker)."""

    def __init__(self, cfg: PPOConfig, seed_seq: np.random.SeedSequence) -> None:
        self.cfg = cfg
        self.rules = get_rules(cfg.rules, **cfg.rules_overrides)
        self.obs_size = obs_size(self.rules)  # paohuzi-obs-v1, or v2 with 王
        self.rng = np.random.default_rng(seed_seq)
        self.model = model_for(cfg)
        self.model.eval()
        # the residual prior: a deterministic bot asked for its choice at every network decision
        self.prior = None if cfg.prior == "none" else make_agent(
            cfg.prior, seed=int(self.rng.integers(2**63)), rules=self.rules)
        self.snapshots: list[ActorCritic] = []
        self.snapshot_weights = np.zeros(0)
        self.hands: list[_Hand] = [self._new_hand() for _ in range(cfg.games_per_worker)]
        self.carry: dict[str, np.ndarray] | None = None  # transitions beyond the last batch

    # ------------------------------------------------------------------ setup

    def set_weights(self, state_dict, snapshots=None, snapshot_weights=None) -> None:
        set_weights(self, state_dict, snapshots, snapshot_weights)

    def _new_hand(self) -> _Hand:
        cfg = self.cfg
        kinds = ["self", "snap"] + [f"bot:{b}" for b in cfg.opponent_bots]
        shares = np.array([cfg.opponent_self, cfg.opponent_snapshots if self.snapshots else 0.0]
                          + list(cfg.opponent_bots.values()), dtype=np.float64)
        kind = kinds[int(self.rng.choice(len(kinds), p=shares / shares.sum()))]
        seed = int(self.rng.integers(2**63))
        game = Game(self.rules, seed=seed)
        learner = int(self.rng.integers(3))
        bots: dict[int, Any] = {}
        roles: dict[int, Any]  # seat -> "learner" | ("snap", i) | "bot"
        tag: Any  # "self" | ("snap", i) | ("bot", name)
        if kind == "self":
            roles = {s: "learner" for s in range(3)}
            tag = "self"
        elif kind == "snap":
            w = self.snapshot_weights if len(self.snapshot_weights) == len(self.snapshots) \
                else np.ones(len(self.snapshots))
            i = int(self.rng.choice(len(self.snapshots), p=w / w.sum()))
            roles = {s: ("learner" if s == learner else ("snap", i)) for s in range(3)}
            tag = ("snap", i)
        else:
            name = kind.split(":", 1)[1]
            roles = {s: ("learner" if s == learner else "bot") for s in range(3)}
            for s in range(3):
                if s != learner:
                    bots[s] = make_agent(name, seed=int(self.rng.integers(2**63)),
                                         rules=self.rules)
            tag = ("bot", name)
        return _Hand(game, roles, bots, tag, seed)

    # ------------------------------------------------------------------ collection

    @torch.no_grad()
    def collect(self, n_steps: int) -> dict:
        """Exactly ``n_steps`` learner transitions of finished hands (play until there are
        enough; what a finished hand gives beyond them waits for the next call), so every
        iteration of a run has the same size and a resumed run reaches the same step count."""
        cfg = self.cfg
        out: dict[str, Any] = {k: [] for k in BATCH_KEYS}
        stats: dict[str, Any] = {"invalid_actions": 0, "hands": 0, "by_opponent": {}}
        ready = take_carry(self, out)
        while ready < n_steps:
            groups: dict = {}
            for hi, hand in enumerate(self.hands):
                g = hand.game
                while not g.done and hand.roles[g.current_player] == "bot":
                    s = g.current_player
                    g.step(hand.bots[s](g.view(s)))
                if g.done:
                    ready += self._finish(hand, out, stats)
                    self.hands[hi] = hand = self._new_hand()
                    g = hand.game
                    while not g.done and hand.roles[g.current_player] == "bot":
                        s = g.current_player
                        g.step(hand.bots[s](g.view(s)))
                    if g.done:  # a forced 天胡 at the deal: nobody decided anything
                        self.hands[hi] = self._new_hand()
                        continue
                role = hand.roles[g.current_player]
                key = "learner" if role == "learner" else role
                groups.setdefault(key, []).append(hi)
            for key, idxs in groups.items():
                model = self.model if key == "learner" else self.snapshots[key[1]]
                obs = np.empty((len(idxs), self.obs_size), dtype=np.float32)
                mask = np.zeros((len(idxs), NUM_ACTIONS), dtype=bool)
                prior = np.zeros(len(idxs), dtype=np.int64)
                for j, hi in enumerate(idxs):
                    g = self.hands[hi].game
                    view = g.view(g.current_player)
                    encode(view, obs[j])
                    mask[j, list(view.legal)] = True
                    if self.prior is not None:
                        prior[j] = self.prior(view)
                ot, mt = torch.from_numpy(obs), torch.from_numpy(mask)
                pt = torch.from_numpy(prior) if self.prior is not None else None
                logits = model.masked_logits(ot, mt, pt)
                logp_all = torch.log_softmax(logits, -1)
                probs = logp_all.exp().numpy().astype(np.float64)
                cdf = np.cumsum(probs, axis=1)
                u = self.rng.random(len(idxs))[:, None] * cdf[:, -1:]
                actions = np.minimum((cdf <= u).sum(axis=1), NUM_ACTIONS - 1)
                if key == "learner":
                    extra = None
                    if cfg.central_critic:
                        extra = np.stack([state_extra(self.hands[hi].game,
                                                      self.hands[hi].game.current_player)
                                          for hi in idxs])
                        values = model.value(ot, torch.from_numpy(extra)).numpy()
                    else:
                        values = model.value(ot).numpy()
                    logp = logp_all.numpy()[np.arange(len(idxs)), actions]
                for j, hi in enumerate(idxs):
                    hand = self.hands[hi]
                    g = hand.game
                    a = int(actions[j])
                    if not mask[j, a]:  # impossible with masked logits; counted anyway
                        stats["invalid_actions"] += 1
                        a = int(np.flatnonzero(mask[j])[0])
                    if key == "learner":
                        dev = 0.0
                        if cfg.advantage == "rollout" and a != prior[j]:
                            s = g.current_player
                            dev = self._scale(prior_playout(g, a, s, self.prior)
                                              - prior_playout(g, int(prior[j]), s, self.prior))
                        hand.traj[g.current_player].append((
                            obs[j].copy(), mask[j].copy(), a, float(logp[j]), float(values[j]),
                            None if extra is None else extra[j], int(prior[j]), dev,
                        ))
                    g.step(a)
        out = finish_batch(self, out, n_steps)
        out["stats"] = stats
        out["rng_state"] = self.rng.bit_generator.state
        return out

    def _scale(self, points: float) -> float:
        """Points on the reward's scale (``normalized``: / 64, clipped)."""
        return reward_from_scores((points,), 0, self.cfg.reward, None)

    def _finish(self, hand: _Hand, out: dict, stats: dict) -> int:
        """GAE over each learner seat's trajectory of a finished hand."""
        cfg = self.cfg
        r = hand.game.result
        n = 0
        stats["hands"] += 1
        scores = r.scores
        if cfg.reward_baseline == "expert" and hand.traj:
            base = expert_scores(self.rules, hand.seed)
            scores = tuple(a - b for a, b in zip(scores, base))
        for seat, traj in hand.traj.items():
            if not traj:
                continue
            n += trajectory_gae(traj, reward_from_scores(scores, seat, cfg.reward, r.winner),
                                cfg, out)
            if hand.kind != "self":
                key = hand.kind if isinstance(hand.kind, str) else f"{hand.kind[0]}:{hand.kind[1]}"
                acc = stats["by_opponent"].setdefault(key, [0.0, 0])
                acc[0] += r.scores[seat]
                acc[1] += 1
        return n


BATCH_KEYS = ("obs", "mask", "action", "logp", "value", "adv", "ret", "extra", "prior")
"""The per-transition arrays of a batch."""


def take_carry(roll: Any, out: dict) -> int:
    """Start ``out`` (lists per key) with the transitions a rollout kept from its last call;
    returns how many."""
    carry = getattr(roll, "carry", None)
    roll.carry = None
    if not carry:
        return 0
    for k in BATCH_KEYS:
        out[k].append(carry[k])
    return len(carry["action"])


def finish_batch(roll: Any, out: dict, n: int) -> dict:
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


def set_weights(roll: Any, state_dict, snapshots=None, snapshot_weights=None) -> None:
    """Load the learner's weights into a rollout (:class:`Rollout` or ``VectorRollout``), and
    the snapshot pool and its sampling weights when given."""
    roll.model.load_state_dict(state_dict)
    if snapshots is not None:
        roll.snapshots = []
        for sd in snapshots:
            m = model_for(roll.cfg)
            m.load_state_dict(sd)
            m.eval()
            roll.snapshots.append(m)
    if snapshot_weights is not None:
        roll.snapshot_weights = np.asarray(snapshot_weights, dtype=np.float64)


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


def worker_main(cfg_dict: dict, seed_entropy: list[int], conn, rng_state=None) -> None:
    """A rollout process: receives weights, sends batches, until told to stop."""
    import signal

    from .config import make_config

    # Ctrl-C reaches every process of the terminal's group: the trainer (main process) decides
    # what to save and closes the workers; a worker must not die with a traceback of its own.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    torch.set_num_threads(1)
    cfg = make_config(cfg_dict)
    from .vector_rollout import make_rollout

    roll = make_rollout(cfg, np.random.SeedSequence(seed_entropy))
    if rng_state is not None:
        roll.rng.bit_generator.state = rng_state
    conn.send(("ready",))
    while True:
        msg = conn.recv()
        if msg[0] == "close":
            conn.close()
            return
        _, state_dict, snapshots, weights, n = msg
        roll.set_weights(state_dict, snapshots, weights)
        conn.send(roll.collect(n))
