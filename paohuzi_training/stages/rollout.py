"""Self-play rollouts: one loop over many hands, one batched forward pass per tick, either engine.

A :class:`Rollout` owns ``games_per_worker`` hands of a vector game (EnvPool's pattern: every
call works on every hand, a finished hand is dealt afresh at once): the compiled core's
:class:`paohuzi_env.backends.fast.VectorGame`, or the Python reference engine behind the same surface,
:class:`paohuzi_env.backends.reference.ReferenceVectorGame` (``cfg.backend``, see
:func:`paohuzi_env.backends.select.vector_game_class`). The loop is the same on both.

Each hand draws its table from the opponent mix: the current policy in all three seats, or one
learner seat against two copies of a past snapshot or of a rule-based bot. Each tick: one
``observe()`` over every hand; the rule-based opponents and the ``prior`` answer for exactly the
hands that need them (``policy_actions(..., which=...)``, in C++ on the core); one batched
forward pass of the learner over every hand where a learner seat acts, and one per snapshot in
use; duplicate rollouts (``advantage: rollout``) on copies of the hands (``playout_after``); the
central critic's full-information features from ``state()``. Every decision of a learner seat
is one transition; when a hand ends, each learner seat's trajectory gets the hand's reward on
its last transition and its own GAE (:mod:`paohuzi_training.stages.batch`; trajectories of different seats or
hands never mix).
"""

from __future__ import annotations

import copy
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

from paohuzi_env.agents import make_agent
from paohuzi_env.backends.reference import ReferenceGame
from paohuzi_env.backends.select import resolve_backend, vector_game_class
from paohuzi_env.encode.rewards import reward_from_scores
from paohuzi_env.game.actions import NUM_ACTIONS
from paohuzi_env.game.protocol import VectorGameProtocol

from ..config import PPOConfig
from ..nets.model import ActorCritic, model_for, network_input
from ..nets.ticks import tick_buffers
from .batch import TransitionStore

hand_reward = reward_from_scores
"""The reward of one seat for a finished hand: the env's,
:func:`paohuzi_env.encode.rewards.reward_from_scores`."""

SELF, SNAP = 0, 1
"""Table kinds of a slot; a rule-based bot ``b`` is ``2 + index of b in opponent_bots``."""


class Rollout:
    """The hands of one worker (see the module docstring).

    Args:
        cfg: the run's config (``backend`` picks the engine).
        seed_seq: this worker's seed; it keys the deals, the tables and the sampled actions.

    Raises:
        ValueError: for ``backend: fast`` when the compiled core is not built.
    """

    def __init__(self, cfg: PPOConfig, seed_seq: np.random.SeedSequence) -> None:
        self.cfg = cfg
        self.rules = cfg.resolved_rules
        self.backend = resolve_backend(cfg.backend)
        self.rng = np.random.default_rng(seed_seq)
        self.model = model_for(cfg)
        self.model.eval()
        self.snapshots: list[ActorCritic] = []
        self.snapshot_weights = np.zeros(0)
        self.bots = list(cfg.league.opponent_bots)
        # fixed agents (``opponent_agents``): a checkpoint's network, batched in torch, or any
        # agent, asked hand by hand; seeded from this worker's generator
        self.agents = [_opponent(spec, self.rules, self.rng) for spec in cfg.league.opponent_agents]
        # ``advantage: rollout`` against a fixed agent: the duplicate playouts seat the agent
        # itself in the other seats (a checkpoint through the core's network, network:PATH)
        self.playout_agents = ([_playout_opponent(spec, a, self.rules)
                                for spec, a in zip(cfg.league.opponent_agents, self.agents)]
                               if cfg.advantage == "rollout" else [])
        self.prior_bot = (make_agent(cfg.prior, seed=0, rules=self.rules)
                          if cfg.prior != "none" else None)
        self.vg: VectorGameProtocol | None = None  # dealt at the first collect(), from self.rng
        n = cfg.games_per_worker
        self.kind = np.zeros(n, np.int64)
        self.learner_seat = np.full(n, -1, np.int64)  # -1: every seat is the learner
        self.snap = np.zeros(n, np.int64)
        self.traj = np.full((n, 3), -1, np.int64)  # each learner seat's trajectory, else -1
        self.traj_len = np.zeros((n, 3), np.int64)  # its transitions so far
        self.next_traj = 0
        self.store = TransitionStore(cfg)
        self.base: list[tuple | None] = [None] * n  # reward_baseline "expert": that deal's points

    @property
    def carry(self) -> dict[str, np.ndarray] | None:
        """Finished transitions beyond the last batch: they open the next one."""
        return self.store.carry

    # ------------------------------------------------------------------ setup

    def set_weights(self, state_dict, snapshots=None, snapshot_weights=None) -> None:
        """Load the learner's weights, and the snapshot pool and its sampling weights when
        given."""
        self.model.load_state_dict(state_dict)
        if snapshots is not None:
            self.snapshots = []
            for sd in snapshots:
                m = model_for(self.cfg)
                m.load_state_dict(sd)
                m.eval()
                self.snapshots.append(m)
        if snapshot_weights is not None:
            self.snapshot_weights = np.asarray(snapshot_weights, dtype=np.float64)

    def _start(self) -> None:
        """Deal: the vector game is seeded from this worker's generator when it first plays, so
        a resumed worker (its generator restored) deals new hands, not the first ones again."""
        self.vg = vector_game_class(self.backend)(self.cfg.games_per_worker, self.rules,
                                                  seed=int(self.rng.integers(2**63)), reward="score")
        for i in range(self.vg.num_hands):
            self._new_table(i)

    def _new_table(self, i: int) -> None:
        """Draw slot ``i``'s table for the (fresh) hand it now holds."""
        lg = self.cfg.league
        shares = np.array([lg.opponent_self, lg.opponent_snapshots if self.snapshots else 0.0]
                          + list(lg.opponent_bots.values()) + list(lg.opponent_agents.values()),
                          dtype=np.float64)
        kind = int(self.rng.choice(len(shares), p=shares / shares.sum()))
        learner = int(self.rng.integers(3))
        self.kind[i] = kind
        self.learner_seat[i] = -1 if kind == SELF else learner
        if kind == SNAP:
            w = self.snapshot_weights if len(self.snapshot_weights) == len(self.snapshots) \
                else np.ones(len(self.snapshots))
            self.snap[i] = int(self.rng.choice(len(self.snapshots), p=w / w.sum()))
        for s in range(3):
            self.traj[i, s] = self.next_traj if kind == SELF or s == learner else -1
            self.next_traj += int(kind == SELF or s == learner)
        self.traj_len[i] = 0
        self.base[i] = None
        if self.cfg.reward_baseline == "expert":  # the deal as three experts play it
            assert self.vg is not None
            g = self.vg.hand(i)  # a copy of the fresh hand: nobody has decided anything yet
            if hasattr(g, "playout"):  # the core: played out in one call
                g = g.playout("expert")
            while not g.done:
                g.step(g.expert_action())
            assert g.result is not None
            self.base[i] = g.result.scores

    def _tag(self, i: int) -> str:
        k = int(self.kind[i])
        if k == SELF:
            return "self"
        if k == SNAP:
            return f"snap:{int(self.snap[i])}"
        if k - 2 < len(self.bots):
            return f"bot:{self.bots[k - 2]}"
        return f"agent:{list(self.cfg.league.opponent_agents)[k - 2 - len(self.bots)]}"

    # ------------------------------------------------------------------ collection

    @torch.no_grad()
    def collect(self, n_steps: int) -> dict:
        """Exactly ``n_steps`` learner transitions of finished hands (play until there are
        enough; what a finished hand gives beyond them waits for the next call), so every
        iteration of a run has the same size and a resumed run reaches the same step count."""
        cfg = self.cfg
        if self.vg is None:
            self._start()
        vg = self.vg
        assert vg is not None
        n = vg.num_hands
        obs, mask8, seat, decision, actions, prior, rewards, done = tick_buffers(vg)
        state = np.empty((n, vg.state_size), np.float32) if cfg.central_critic else None
        need_waits = self.model.waits or any(getattr(a, "waits", False) for a in self.agents)
        waits = vg.wait_features() if need_waits else None  # the buffer, filled per tick
        opp_prior = np.zeros(n, np.int64)
        r_act = np.zeros((n, 3), np.float32)
        r_pri = np.zeros((n, 3), np.float32)
        stats: dict[str, Any] = {"invalid_actions": 0, "hands": 0, "by_opponent": {}}
        t_start = time.perf_counter()
        t_net = 0.0  # forward passes (learner and snapshots)
        ready = 0 if self.carry is None else len(self.carry["action"])
        while ready < n_steps:
            vg.observe(obs, mask8, seat, decision)
            if waits is not None:
                vg.wait_features(waits)
            x = network_input(self.model, obs, waits)  # what the networks read
            mask = mask8.astype(bool)
            learner = (self.kind == SELF) | (seat == self.learner_seat)
            for b, name in enumerate(self.bots):
                which = ~learner & (self.kind == 2 + b)
                if which.any():
                    vg.policy_actions(name, actions, which)
            for k, agent in enumerate(self.agents):
                which = ~learner & (self.kind == 2 + len(self.bots) + k)
                if which.any():
                    t0 = time.perf_counter()
                    self._agent_actions(agent, which, obs, waits, mask, seat, actions, opp_prior)
                    t_net += time.perf_counter() - t0
            snap_turn = ~learner & (self.kind == SNAP)
            if cfg.prior != "none" and snap_turn.any():
                # a snapshot of a residual network plays on top of the prior, as the learner
                vg.policy_actions(cfg.prior, prior, snap_turn)
            t0 = time.perf_counter()
            for k in np.unique(self.snap[snap_turn]):
                idx = np.flatnonzero(snap_turn & (self.snap == k))
                pt = None if cfg.prior == "none" else torch.from_numpy(prior[idx])
                actions[idx] = self._sample(self.snapshots[int(k)], x[idx], mask[idx], pt)[0]
            t_net += time.perf_counter() - t0
            idx = np.flatnonzero(learner)
            if len(idx):
                pt = None
                if cfg.prior != "none":
                    vg.policy_actions(cfg.prior, prior, learner)
                    pt = torch.from_numpy(prior[idx])
                t0 = time.perf_counter()
                extra = oracle = None
                if state is not None:
                    vg.state(state)
                    extra = state[idx, vg.obs_size:]
                    oracle = self._oracle(extra)
                a, logp, logits_ok = self._sample(self.model, x[idx], mask[idx], pt, oracle)
                actions[idx] = a
                ot = torch.from_numpy(x[idx])
                values = self.model.value(ot, None if extra is None
                                          else torch.from_numpy(extra)).numpy()
                t_net += time.perf_counter() - t0
                dev = np.zeros(len(idx), np.float32)
                if cfg.advantage == "rollout":
                    departs = np.zeros(n, np.bool_)
                    departs[idx] = a != prior[idx]
                    # against a fixed agent the playouts seat that agent (below); else the
                    # prior plays every seat (the core, all hands at once)
                    vs_agent = departs & (self.kind >= 2 + len(self.bots))
                    plain = departs & ~vs_agent
                    if plain.any():
                        vg.playout_after(actions, plain, cfg.prior, 0, r_act)
                        vg.playout_after(prior, plain, cfg.prior, 0, r_pri)
                    for j, i in enumerate(idx):
                        if plain[i]:
                            s = int(seat[i])
                            dev[j] = self._scale(float(r_act[i, s] - r_pri[i, s]))
                        elif vs_agent[i]:
                            s = int(seat[i])
                            opp = self.playout_agents[int(self.kind[i]) - 2 - len(self.bots)]
                            hand = vg.hand(int(i))
                            dev[j] = self._scale(
                                target_playout(hand, int(actions[i]), s, self.prior_bot, opp)
                                - target_playout(hand, int(prior[i]), s, self.prior_bot, opp))
                stats["invalid_actions"] += int((~logits_ok).sum())
                s_idx = seat[idx]
                self.store.add(self.traj[idx, s_idx], obs=x[idx], mask=mask[idx], action=a,
                               logp=logp.astype(np.float32), value=values.astype(np.float32),
                               extra=extra, prior=prior[idx].copy(), dev=dev, oracle=oracle)
                self.traj_len[idx, s_idx] += 1
            vg.step(actions, rewards, done)
            for i in np.flatnonzero(done):
                ready += self._finish(int(i), rewards[i], stats)
                self._new_table(int(i))
        batch = self.store.take(n_steps)
        stats["seconds"] = {"collect": time.perf_counter() - t_start, "inference": t_net}
        batch["stats"] = stats
        batch["rng_state"] = self.rng.bit_generator.state
        return batch

    def _agent_actions(self, agent, which: np.ndarray, obs: np.ndarray, waits: np.ndarray | None,
                       mask: np.ndarray, seat: np.ndarray, actions: np.ndarray,
                       prior: np.ndarray) -> None:
        """A fixed agent's actions at the hands of ``which``: a checkpoint's network in one
        batched forward pass (its most probable legal action, as ``checkpoint:`` plays), any
        other agent hand by hand on a copy of the hand."""
        assert self.vg is not None
        idx = np.flatnonzero(which)
        if not isinstance(agent, ActorCritic):
            for i in idx:
                actions[i] = agent.act_game(self.vg.hand(int(i)), int(seat[i]))
            return
        x = obs[idx]
        if agent.waits:
            assert waits is not None
            x = np.concatenate([x, waits[idx]], axis=-1)
        pt = None
        if agent.prior != "none":
            self.vg.policy_actions(agent.prior, prior, which)
            pt = torch.from_numpy(prior[idx])
        logits = agent.masked_logits(torch.from_numpy(x), torch.from_numpy(mask[idx]), pt)
        actions[idx] = logits.argmax(-1).numpy()

    def _oracle(self, extra: np.ndarray) -> np.ndarray | None:
        """Oracle guiding's input at the learner's rows (config ``oracle_steps``): the
        full-information features ``extra``, each kept with the network's current probability
        (``oracle_keep``, drawn on this worker's generator; zeros once it is 0); None without
        oracle guiding."""
        if self.model.oracle is None:
            return None
        keep = float(self.model.oracle_keep)
        if keep <= 0:
            return np.zeros_like(extra)
        return np.where(self.rng.random(extra.shape) < keep, extra, np.float32(0))

    def _sample(self, model: ActorCritic, obs: np.ndarray, mask: np.ndarray,
                prior: torch.Tensor | None,
                oracle: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Actions drawn from ``model``'s masked policy (inverse CDF on this worker's
        generator), their log-probabilities, and whether each drawn action is legal."""
        logits = model.masked_logits(torch.from_numpy(obs), torch.from_numpy(mask), prior,
                                     None if oracle is None else torch.from_numpy(oracle))
        logp_all = torch.log_softmax(logits, -1).numpy()
        cdf = np.cumsum(np.exp(logp_all.astype(np.float64)), axis=1)
        u = self.rng.random(len(obs))[:, None] * cdf[:, -1:]
        a = np.minimum((cdf <= u).sum(axis=1), NUM_ACTIONS - 1)
        ok = mask[np.arange(len(a)), a]
        if not ok.all():  # impossible with masked logits; counted, and a legal one played
            a = np.where(ok, a, mask.argmax(axis=1))
        return a, logp_all[np.arange(len(a)), a], ok

    def _scale(self, points: float) -> float:
        """Points on the reward's scale (``normalized``: / 64, clipped)."""
        return reward_from_scores((points,), 0, self.cfg.reward, None)

    def _finish(self, i: int, points: np.ndarray, stats: dict) -> int:
        """Close each learner seat's trajectory of slot ``i``'s finished hand with its reward;
        returns their transitions."""
        cfg = self.cfg
        stats["hands"] += 1
        raw = tuple(float(x) for x in points)
        scores = raw
        base = self.base[i]
        if base is not None:
            scores = tuple(a - b for a, b in zip(raw, base))
        winner = None
        if cfg.reward == "win":
            assert self.vg is not None
            last = self.vg.last_hand(i)
            assert last is not None and last[0].result is not None
            winner = last[0].result.winner
        n = 0
        tag = self._tag(i)
        for s in range(3):
            length = int(self.traj_len[i, s])
            if self.traj[i, s] < 0 or not length:
                continue
            self.store.finish(int(self.traj[i, s]), reward_from_scores(scores, s, cfg.reward, winner))
            n += length
            if tag != "self":
                acc = stats["by_opponent"].setdefault(tag, [0.0, 0])
                acc[0] += raw[s]
                acc[1] += 1
        return n


def _opponent(spec: str, rules, rng: np.random.Generator):
    """A fixed opponent of ``opponent_agents``: a ``checkpoint:`` spec's network (batched in
    torch by the rollout), else the agent the spec names."""
    if spec.startswith("checkpoint:"):
        from ..nets.checkpoint import load_checkpoint
        from ..nets.policy import model_from_checkpoint

        return model_from_checkpoint(load_checkpoint(spec.split(":", 1)[1], rules=rules))
    return make_agent(spec, seed=int(rng.integers(2**63)), rules=rules)


def _playout_opponent(spec: str, agent, rules):
    """The agent that holds the other seats in the duplicate playouts against ``spec``: for a
    ``checkpoint:`` network the same network through the core (``network:``, the ``.safetensors``
    beside the checkpoint; its argmax, up to float rounding), else the agent itself.

    Raises:
        ValueError: a ``checkpoint:`` target without its ``.safetensors`` policy.
    """
    if not isinstance(agent, ActorCritic):
        return agent
    path = spec.split(":", 1)[1]
    try:
        return make_agent(f"network:{path}", seed=0, rules=rules)
    except (ValueError, OSError) as e:
        raise ValueError(f"advantage: rollout against {spec!r} plays its hands out with the "
                         f"network in the core, which reads a .safetensors policy beside it "
                         f"(python -m paohuzi_training.nets.checkpoint export {path} "
                         f"{Path(path).with_suffix('.safetensors')}): {e}") from None


def target_playout(game, action: int, seat: int, own, opponent) -> float:
    """``seat``'s points when ``action`` is taken now on a copy of ``game`` (same deck), then
    the agent ``own`` (the prior bot) plays ``seat`` and ``opponent`` every other seat: a
    departure's value against that opponent (``advantage: rollout`` with ``opponent_agents``).
    Either engine."""
    g = game.clone() if hasattr(game, "clone") else copy.deepcopy(game)
    g.step(action)
    while not g.done:
        p = g.current_player
        g.step((own if p == seat else opponent).act_game(g, p))
    assert g.result is not None
    return float(g.result.scores[seat])


def make_rollout(cfg: PPOConfig, seed_seq: np.random.SeedSequence) -> Rollout:
    """The rollout of ``cfg.backend`` (``auto`` takes the compiled core when it is built)."""
    return Rollout(cfg, seed_seq)


# ---------------------------------------------------------------------- reference helpers


def expert_scores(rules, seed: int) -> tuple:
    """The points of every seat when three ``expert`` bots play the deal of ``Game(rules, seed)``
    on the reference engine (the bots are deterministic, so this is a function of the deal)."""
    game = ReferenceGame(rules, seed=seed)
    _play_out(game, make_agent("expert", seed=0, rules=rules))
    assert game.result is not None
    return game.result.scores


def _play_out(game, bot) -> None:
    """``bot`` (stateless) plays every seat until the hand ends."""
    while not game.done:
        seat = game.current_player
        assert seat is not None
        game.step(bot(game.view(seat)))


def prior_playout(game, action: int, seat: int, bot) -> float:
    """``seat``'s points when ``action`` is taken now and ``bot`` plays every seat after it,
    on a copy of ``game`` (same deck: the duplicate rollout of ``advantage: rollout``; the
    reference for :meth:`paohuzi_env.backends.fast.VectorGame.playout_after`)."""
    g = copy.deepcopy(game)
    g.step(action)
    _play_out(g, bot)
    assert g.result is not None
    return float(g.result.scores[seat])
