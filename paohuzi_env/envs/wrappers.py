"""Gymnasium single-agent view of the game: one learning seat against fixed opponents.

``SingleAgentEnv`` steps the AEC environment, letting the opponents act until the learning seat
must decide, and hands back that seat's observation vector. It exposes ``action_masks()`` so
sb3-contrib's ``MaskablePPO`` trains on it unchanged. The reward goes to the learning seat only,
and arrives even when the hand ends on another seat's move. Opponents are agents
(:mod:`paohuzi_env.agents`, or their spec strings) or policies on observation dicts.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import gymnasium as gym
import numpy as np

from ..agents import Agent, make_agent
from ..encode.observation import obs_size
from ..game.actions import NUM_ACTIONS
from ..game.rules import Rules
from .aec_env import raw_env

Policy = Callable[[dict[str, np.ndarray]], int]
"""A policy on the observation dict ``{"observation", "action_mask"}``, returning a legal action."""

Opponent = Agent | str | Policy
"""An :class:`~paohuzi_env.agents.Agent`, an agent spec string, or a :data:`Policy`."""


_ALLOWED = (
    "opponents must be an Agent, an agent spec string (e.g. 'expert', 'checkpoint:PATH'), a "
    "callable on observation dicts, or a sequence of two of these (next, previous seat)"
)


def _describe(x: object) -> str:
    return f"{type(x).__name__} {x!r}"[:120]


class RandomPolicy:
    """Uniform over the legal actions of an observation dict, with its own seeded generator."""

    def __init__(self, seed: int | np.random.SeedSequence | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def __call__(self, obs: dict[str, np.ndarray]) -> int:
        """A uniform draw among the actions ``obs["action_mask"]`` allows."""
        legal = np.flatnonzero(obs["action_mask"])
        return int(legal[self.rng.integers(len(legal))])


ILLEGAL_ACTIONS = ("raise", "terminate", "ignore-and-mask")
"""What :class:`SingleAgentEnv` does with an action outside the mask."""


class SingleAgentEnv(gym.Env):
    """One seat of the AEC game as a Gymnasium env.

    Args:
        opponents: one opponent for both other seats, or a sequence of two (the learner's next
            and previous seat), mixed freely. Each is one of:

            - an :class:`~paohuzi_env.agents.Agent` (``RandomAgent``, ``GreedyAgent``,
              ``ExpertAgent``, a checkpoint agent, ...), called with ``game.view(seat)`` (the
              ``search`` agent with the game: ``Agent.act_game``);
            - an agent spec string such as ``"expert"`` or ``"checkpoint:PATH"`` (see
              :func:`~paohuzi_env.agents.make_agent`), built once per seat for this env's rules
              with seed ``SeedSequence(seed).spawn(2)[i]`` for position ``i`` of the sequence;
            - any other callable, called with the observation dict
              ``{"observation", "action_mask"}``.

            One agent instance or callable given alone serves both seats; one spec string
            gives two agents with separate seeds. Default: uniform random over legal actions,
            seeded the same way.
        seat: the learning seat 0–2, or None to draw it for every hand.
        rules: a preset name or :class:`~paohuzi_env.game.rules.Rules`.
        reward: ``score`` | ``win`` | ``normalized`` (see :mod:`paohuzi_env.envs.aec_env`).
        seed: seeds the opponents (once, here) and the deals of the first ``reset``;
            ``reset(seed=...)`` reseeds the deals only.
        backend: ``"auto"`` | ``"fast"`` | ``"python"`` (see :mod:`paohuzi_env.backends.select`). On the
            fast backend the project's ``greedy`` and ``expert`` opponents decide in the
            compiled core (the same choices as the Python bots).
        illegal_action: what ``step`` does with an action outside the mask: ``raise`` (the
            default: a ``ValueError`` naming the legal actions), ``terminate`` (the hand ends
            for the learner with reward ``-illegal_penalty``; ``reset()`` deals the next) or
            ``ignore-and-mask`` (nothing happens: the same observation and mask come back with
            reward ``-illegal_penalty``). ``info["illegal_action"]`` names the action in both.
            The non-raising modes let checkers that try random actions run, such as
            ``stable_baselines3.common.env_checker.check_env``.
        illegal_penalty: see ``illegal_action`` (default 1.0).

    Raises:
        ValueError: for a bad ``seat``, ``opponents`` or ``illegal_action`` (naming what is
            allowed), or an unknown agent spec.
    """

    metadata = {"render_modes": ["ansi"]}

    def __init__(
        self,
        opponents: Opponent | Sequence[Opponent] | None = None,
        seat: int | None = 0,
        rules: str | Rules = "huaihua",
        reward: str = "normalized",
        seed: int | None = None,
        backend: str | None = None,
        illegal_action: str = "raise",
        illegal_penalty: float = 1.0,
    ) -> None:
        if seat is not None and seat not in (0, 1, 2):
            raise ValueError(f"seat must be None or 0, 1, 2, got {seat!r}")
        if illegal_action not in ILLEGAL_ACTIONS:
            raise ValueError(f"illegal_action must be one of {', '.join(ILLEGAL_ACTIONS)}, "
                             f"got {illegal_action!r}")
        self.illegal_action = illegal_action
        self.illegal_penalty = float(illegal_penalty)
        self.aec = raw_env(rules=rules, reward=reward, backend=backend)
        seeds = np.random.SeedSequence(seed).spawn(2)
        if opponents is None:
            opponents = [RandomPolicy(s) for s in seeds]
        elif isinstance(opponents, (str, Agent)) or callable(opponents):
            opponents = [opponents, opponents]
        elif not isinstance(opponents, Sequence) or len(opponents) != 2:
            raise ValueError(f"{_ALLOWED}; got {_describe(opponents)}")
        self.opponents: list[Agent | Policy] = [
            self._opponent(p, s, i) for i, (p, s) in enumerate(zip(opponents, seeds))
        ]
        self.fixed_seat = seat
        self.seat = seat if seat is not None else 0
        self._seed = seed
        self._rng = np.random.default_rng(seed)
        self.observation_space = gym.spaces.Box(0.0, 1.0, (obs_size(self.aec.rules),), np.float32)
        self.action_space = gym.spaces.Discrete(NUM_ACTIONS)
        self._mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        self._obs = np.zeros(self.observation_space.shape, dtype=np.float32)
        self._over = False
        self.skipped_hands = 0

    def _opponent(self, p: object, seed: np.random.SeedSequence, i: int) -> Agent | Policy:
        """Opponent ``i`` (0: next seat, 1: previous seat), built from a spec if needed."""
        if isinstance(p, str):
            return make_agent(p, seed=seed, rules=self.aec.rules)
        if isinstance(p, Agent):
            return p
        if callable(p):
            return p
        raise ValueError(f"{_ALLOWED}; got {_describe(p)} for opponent {i}")

    @property
    def agent(self) -> str:
        """The learner's AEC agent name (``player_<seat>``)."""
        return self.aec.possible_agents[self.seat]

    def action_masks(self) -> np.ndarray:
        """The learner's legal-action mask (bool), for MaskablePPO."""
        return self._mask.astype(bool)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Deal hands until the learner has a decision, playing the opponents up to it.

        Args:
            seed: reseeds the deals (and, without a fixed seat, the learner's seat).
            options: passed to the AEC env's ``reset`` (``deck``, ``dealer``).

        Returns:
            The learner's observation and ``{"seat": seat}``.
        """
        super().reset(seed=seed)
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        while True:
            if self.fixed_seat is None:
                self.seat = int(self._rng.integers(3))
            self.aec.reset(seed=int(self._rng.integers(2**63)), options=options)
            obs, reward, done = self._play_opponents()
            if not done:
                self._obs, self._over = obs, False
                return obs, {"seat": self.seat}
            # The hand ended before the learner had a decision (a forced 天胡): deal again.
            self.skipped_hands += 1

    def step(self, action: int):
        """Play the learner's ``action``, then the opponents up to its next decision or the hand's end.

        An illegal action is handled as ``illegal_action`` says: raise, end the episode, or leave the
        position as it was; the last two cost ``illegal_penalty``.

        Returns:
            ``(observation, reward, terminated, truncated, info)``; ``info`` has the hand's ``result``
            at its end.

        Raises:
            RuntimeError: the hand is over (call :meth:`reset`).
            ValueError: an illegal action under ``illegal_action="raise"``.
        """
        if self._over:
            raise RuntimeError("the hand is over: call reset() before step()")
        mask = self._mask
        a = int(action)
        if not 0 <= a < NUM_ACTIONS or not mask[a]:
            legal = np.flatnonzero(mask).tolist()
            if self.illegal_action == "raise":
                raise ValueError(f"action {action} is not legal for the learner; legal: {legal} "
                                 "(SingleAgentEnv(illegal_action='terminate' or "
                                 "'ignore-and-mask') does not raise)")
            info_bad: dict[str, Any] = {"seat": self.seat, "illegal_action": a, "legal": legal}
            if self.illegal_action == "terminate":
                self._over = True
                return self._obs, -self.illegal_penalty, True, False, info_bad
            return self._obs, -self.illegal_penalty, False, False, info_bad  # ignore-and-mask
        self.aec.step(a)
        obs, reward, done = self._play_opponents()
        self._obs, self._over = obs, done
        info: dict[str, Any] = {"seat": self.seat}
        if done and self.aec.game is not None:
            info["result"] = self.aec.game.result
        return obs, reward, done, False, info

    def _play_opponents(self) -> tuple[np.ndarray, float, bool]:
        env = self.aec
        me = self.agent
        while True:
            g = env.game
            assert g is not None
            if g.done:
                obs = env.observe(me)
                self._mask = obs["action_mask"]
                return obs["observation"], float(env._cumulative_rewards[me]), True
            agent = env.agent_selection
            if agent == me:
                obs = env.observe(me)
                self._mask = obs["action_mask"]
                return obs["observation"], 0.0, False
            seat = env.possible_agents.index(agent)
            policy = self.opponents[0 if seat == (self.seat + 1) % 3 else 1]
            if isinstance(policy, Agent):
                # act(view); a bot with a compiled twin decides in C++ on the compiled core
                env.step(policy.act_game(g, seat))
            else:
                env.step(policy(env.observe(agent)))

    def render(self) -> Any:  # str | None (gymnasium 1.2 types it RenderFrame)
        """The table as text from the learner's seat, or None before the first reset."""
        from ..display.render import render_text

        g = self.aec.game
        return None if g is None else render_text(g, self.seat)
