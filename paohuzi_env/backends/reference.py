"""The Python reference engine behind the one game interface (:mod:`paohuzi_env.game.protocol`).

:class:`ReferenceGame` is :class:`paohuzi_env.game.engine.Game` (the readable rules, unchanged) with
the rest of :class:`~paohuzi_env.game.protocol.GameProtocol` added from the Python package: the
observation, mask and state encoders (:mod:`paohuzi_env.encode.observation`, :mod:`paohuzi_env.encode.state`)
and the rule-based bots (:mod:`paohuzi_env.bots.heuristic`). The compiled core computes the
same things in C++ (:class:`paohuzi_env.backends.fast.Game`); the differential tests hold both to the same
floats and the same choices. The engine module itself imports none of this.

:class:`ReferenceVectorGame` is the same adapter for :class:`paohuzi_env.backends.fast.VectorGame`'s
surface (EnvPool's pattern: many hands, one call per tick, a finished hand dealt afresh at once),
so one rollout loop (:mod:`paohuzi_training.stages.rollout`) runs on either backend.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

from ..bots.registry import Bot, bot
from ..encode.observation import encode, obs_size
from ..encode.rewards import REWARD_MODES, reward_from_scores
from ..encode.state import encode_state, state_size
from ..game.actions import NUM_ACTIONS
from ..game.engine import Game
from ..game.rules import Rules, as_rules

__all__ = ["ReferenceGame", "ReferenceVectorGame", "legal_mask"]

_DECISIONS = ("tianhu", "hu", "claim", "bi", "discard")
"""The decision kinds in :meth:`paohuzi_env.backends.fast.VectorGame.observe`'s numbering."""

_BOTS: dict[tuple[Bot, Rules], Any] = {}


def _bot(name: str, rules: Rules) -> Any:
    """One bot per (registry entry, rules), seeded 0 and shared: the bots keep no state per hand.
    Keyed on the entry, so a bot registered again under the same name is built anew."""
    key = (bot(name, what="policy"), rules)
    agent = _BOTS.get(key)
    if agent is None:
        agent = _BOTS[key] = key[0].make(0, rules)
    return agent


def legal_mask(legal: Any, out: np.ndarray | None = None, dtype: Any = np.int8) -> np.ndarray:
    """The mask over the 61 actions of a legal set (``out``, when given, is zeroed first): the one
    place the project builds a mask from legal action ids."""
    mask = np.zeros(NUM_ACTIONS, dtype=dtype) if out is None else out
    if out is not None:
        mask[...] = 0
    mask[..., list(legal)] = 1
    return mask


class ReferenceGame(Game):
    """:class:`paohuzi_env.game.engine.Game` with the encoders and bots of
    :class:`~paohuzi_env.game.protocol.GameProtocol` (the Python backend of
    :func:`paohuzi_env.backends.select.game_class`)."""

    compiled = False  # GameProtocol.compiled: the bots decide in Python

    def observation(self, seat: int, out: np.ndarray | None = None) -> np.ndarray:
        """:func:`paohuzi_env.encode.observation.encode` of ``view(seat)`` (float32)."""
        return encode(self.view(seat), out)

    def action_mask(self, seat: int) -> np.ndarray:
        """int8 mask over the 61 actions: the legal set when ``seat`` is to act, else zeros."""
        if self.done or self.current_player != seat:
            return np.zeros(NUM_ACTIONS, dtype=np.int8)
        return legal_mask(self.legal_actions())

    def state(self, seat: int | None = None, out: np.ndarray | None = None) -> np.ndarray:
        """:func:`paohuzi_env.encode.state.encode_state` relative to ``seat`` (default: the seat to act).
        Full information: never give it to a policy."""
        if seat is None:
            seat = self.current_player
            if seat is None:
                raise ValueError("the hand is over: name the seat of the state")
        x = encode_state(self, seat)
        if out is None:
            return x
        out[...] = x
        return out

    def expert_action(self) -> int:
        """:class:`~paohuzi_env.agents.ExpertAgent`'s action for the seat to act."""
        return self._bot_action("expert")

    def greedy_action(self) -> int:
        """:class:`~paohuzi_env.agents.GreedyAgent`'s action for the seat to act."""
        return self._bot_action("greedy")

    def _bot_action(self, name: str) -> int:
        seat = self.current_player
        if seat is None:
            raise ValueError("the hand is over: no seat is to act")
        return int(_bot(name, self.rules).act(self.view(seat)))

    def clone(self) -> ReferenceGame:
        """An independent copy of the hand."""
        return copy.deepcopy(self)


class ReferenceVectorGame:
    """``num_hands`` hands of the Python engine behind :class:`paohuzi_env.backends.fast.VectorGame`'s
    surface (the part the rollout uses): ``observe``, ``step`` (finished hands dealt afresh at
    once), ``policy_actions``, ``playout_after``, ``state``, ``hand``, ``last_hand``.

    Deal number ``i`` is ``ReferenceGame(rules, seed=SeedSequence([seed, i]))``, and a deal that
    ends at the deal itself (R-START-1's forced 天胡) is dealt past, as the core does. The deals
    are not the core's (its deal generator lives in C++); the play on a given deal is.
    """

    def __init__(self, num_hands: int, rules: str | Rules = "huaihua", seed: int = 0,
                 reward: str = "score") -> None:
        if isinstance(num_hands, bool) or not isinstance(num_hands, (int, np.integer)) or num_hands <= 0:
            raise ValueError(f"num_hands must be a positive int, got {num_hands!r}")
        if reward not in REWARD_MODES:
            raise ValueError(f"reward must be one of {REWARD_MODES}, got {reward!r}")
        self.rules: Rules = as_rules(rules)
        self.reward = reward
        self.seed = int(seed)
        self.num_hands = int(num_hands)
        self.obs_size = obs_size(self.rules)
        self.state_size = state_size(self.rules)
        self.skipped_deals = 0
        self.hands_finished = 0
        self._next_deal = 0
        self._games: list[ReferenceGame] = []
        self._deal: list[int] = []
        self._last: list[tuple[ReferenceGame, int] | None] = [None] * self.num_hands
        for _ in range(self.num_hands):
            g, d = self._deal_next()
            self._games.append(g)
            self._deal.append(d)

    def _deal_next(self) -> tuple[ReferenceGame, int]:
        while True:
            d = self._next_deal
            self._next_deal += 1
            g = ReferenceGame(self.rules, seed=np.random.SeedSequence([self.seed, d]))
            if not g.done:
                return g, d
            self.skipped_deals += 1

    def observe(
        self,
        obs: np.ndarray | None = None,
        mask: np.ndarray | None = None,
        seat: np.ndarray | None = None,
        decision: np.ndarray | None = None,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Fill (or allocate) ``obs``, ``mask`` (int8), ``seat`` and ``decision`` for the seat to
        act in each hand."""
        n = self.num_hands
        obs = np.empty((n, self.obs_size), np.float32) if obs is None else obs
        mask = np.empty((n, NUM_ACTIONS), np.int8) if mask is None else mask
        seat = np.empty(n, np.int64) if seat is None else seat
        decision = np.empty(n, np.int64) if decision is None else decision
        for i, g in enumerate(self._games):
            s = g.current_player
            assert s is not None
            view = g.view(s)
            encode(view, obs[i])
            legal_mask(view.legal, mask[i])
            seat[i] = s
            decision[i] = _DECISIONS.index(view.decision)
        return obs, mask, seat, decision

    def wait_features(self, out: np.ndarray | None = None) -> np.ndarray:
        """:func:`paohuzi_env.encode.features.wait_features` of each hand's acting seat, (n, 80) float32,
        as the compiled ``VectorGame.wait_features``."""
        from ..encode.features import WAIT_FEATURES, wait_features

        out = np.empty((self.num_hands, WAIT_FEATURES), np.float32) if out is None else out
        for i, g in enumerate(self._games):
            s = g.current_player
            assert s is not None
            wait_features(g.view(s), self.rules, out[i])
        return out

    def step(self, actions: Any, rewards: np.ndarray | None = None,
             done: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Apply one action per hand (all checked first); rewards of finished hands, which are
        dealt afresh at once."""
        acts = [int(a) for a in actions]
        if len(acts) != self.num_hands:
            raise ValueError(f"actions must have shape ({self.num_hands},), got ({len(acts)},)")
        rewards = np.empty((self.num_hands, 3), np.float32) if rewards is None else rewards
        done = np.empty(self.num_hands, np.bool_) if done is None else done
        for i, (g, a) in enumerate(zip(self._games, acts)):
            if a not in g.legal_actions():
                g.step(a)  # raises IllegalActionError naming the legal actions (no hand moved)
        rewards[...] = 0.0
        done[...] = False
        for i, (g, a) in enumerate(zip(self._games, acts)):
            g.step(a)
            if g.done:
                r = g.result
                assert r is not None
                rewards[i] = [reward_from_scores(r.scores, s, self.reward, r.winner) for s in range(3)]
                done[i] = True
                self.hands_finished += 1
                self._last[i] = (g, self._deal[i])
                self._games[i], self._deal[i] = self._deal_next()
        return rewards, done

    def policy_actions(self, policy: str = "random", out: np.ndarray | None = None,
                       which: np.ndarray | None = None) -> np.ndarray:
        """Each hand's action under ``policy`` (a bot of :mod:`paohuzi_env.bots.registry`) for the
        hands ``which`` marks (all when None). ``random`` is uniform over the legal actions,
        keyed by (seed, deal number, decisions so far) as the core's is (not the same draws)."""
        if policy != "random":
            _bot(policy, self.rules)  # any registered bot plays here, in Python; checks the name
        if out is None:
            out = np.full(self.num_hands, -1, np.int64)
        marked = range(self.num_hands) if which is None else np.flatnonzero(which)
        for i in marked:
            g = self._games[i]
            if policy == "random":
                legal = g.legal_actions()
                key = [self.seed, self._deal[i], len(g.actions)]
                out[i] = legal[int(np.random.default_rng(key).integers(len(legal)))]
            else:
                out[i] = g._bot_action(policy)
        return out

    def playout_after(self, actions: Any, which: np.ndarray, policy: str = "expert",
                      seed: int = 0, out: np.ndarray | None = None) -> np.ndarray:
        """For each hand ``which`` marks, the scores (reward ``score``) of a copy that takes
        ``actions[i]`` and is then played out by ``policy`` in every seat."""
        if out is None:
            out = np.zeros((self.num_hands, 3), np.float32)
        for i in np.flatnonzero(which):
            g = self._games[i].clone()
            if int(actions[i]) not in g.legal_actions():
                raise ValueError(f"action {int(actions[i])} is not legal in hand {i}")
            g.step(int(actions[i]))
            while not g.done:
                g.step(g._bot_action(policy))
            assert g.result is not None
            out[i] = g.result.scores
        return out

    def state(self, out: np.ndarray | None = None) -> np.ndarray:
        """Full-information states relative to each acting seat."""
        if out is None:
            out = np.empty((self.num_hands, self.state_size), np.float32)
        for i, g in enumerate(self._games):
            g.state(None, out[i])
        return out

    def hand(self, i: int) -> ReferenceGame:
        """A copy of hand ``i``."""
        return self._games[i].clone()

    def deal_index(self, i: int) -> int:
        """The deal number of hand ``i``."""
        return self._deal[i]

    def last_hand(self, i: int) -> tuple[ReferenceGame, int] | None:
        """The last hand that finished in slot ``i`` and its deal number, or None."""
        return self._last[i]

