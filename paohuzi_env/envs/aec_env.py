"""PettingZoo AEC environment for 跑胡子: a thin adapter over :class:`~paohuzi_env.game.engine.Game`.

Agents ``player_0``, ``player_1``, ``player_2`` are the engine's seats. Only the seat the engine
asks acts: every decision of the engine — 亮张/HU offers, each claim answer (碰, each 吃 group,
PASS = 忍碰/过), each step of a 比 chain, each discard — is one ``step``; forced moves never
surface. Observations are ``paohuzi-obs-v1`` (``paohuzi-obs-v2`` under ``yongzhou``, whose deck
has two 王; see :mod:`paohuzi_env.encode.observation`) plus an ``int8`` action mask over the 61
actions of :mod:`paohuzi_env.game.actions` (zeros for agents not on turn).

Rewards arrive when the hand ends, for all three agents (the modes are defined once, in
:mod:`paohuzi_env.encode.rewards`):

* ``score``: the zero-sum points (winner +2×score, losers −score; 荒庄 0, except the 王
  payments of R-WANG-8 under ``yongzhou``).
* ``win``: +1 for the winner, −0.5 for each loser, 0 after 荒庄.
* ``normalized``: points / 64, clipped to [−1, 1].

``state()`` is the full-information tensor of :func:`paohuzi_env.encode.state.encode_state` (layout in
:mod:`paohuzi_env.encode.state`).

``infos[agent]`` holds ``events`` (the public events since that agent last acted) and, for the
agent on turn, ``legal_actions`` and ``legal_names``; at the end also ``result``. With
``infos="minimal"`` every info dict is empty instead: frameworks that turn each info entry into a
tensor (TorchRL's ``PettingZooWrapper``) need that; the action mask is in the observation.

Version history:
    v0: first version (observation ``paohuzi-obs-v1``; ``paohuzi/yongzhou-v0`` has
    ``paohuzi-obs-v2``).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from ..backends.select import game_class, resolve_backend
from ..display.render import render_text
from ..display.svg import table_svg
from ..encode.observation import obs_size, obs_version
from ..encode.rewards import REWARD_MODES, reward_of
from ..encode.state import state_size
from ..game.actions import NUM_ACTIONS, action_name
from ..game.protocol import GameProtocol
from ..game.rules import Rules, as_rules


def _direct(name: str) -> property:
    """A property reading (and writing) ``name`` on the raw env in one step."""

    def get(self: Any) -> Any:
        return getattr(self._raw, name)

    def put(self: Any, value: Any) -> None:
        setattr(self._raw, name, value)

    return property(get, put, doc=f"The raw env's ``{name}``.")


_HOT = ("agent_selection", "agents", "rewards", "terminations", "truncations", "infos",
        "_cumulative_rewards", "possible_agents", "game", "backend", "rules")
"""The attributes every ``last()``/``step()`` reads through the wrapper chain."""


def _checked(name: str) -> property:
    """:func:`_direct` with ``OrderEnforcingWrapper``'s refusal before ``reset()``."""

    def get(self: Any) -> Any:
        if not self._has_reset and name != "possible_agents":
            raise AttributeError(f"{name} cannot be accessed before reset")
        return getattr(self._raw, name)

    return property(get, _direct(name).fset, doc=f"The raw env's ``{name}``.")


# PettingZoo's wrappers with the _HOT attributes as properties on the raw env. Its
# BaseWrapper.__getattr__ forwards one layer per call, so each read of ``agent_selection`` on the
# outer of three wrappers cost three Python calls. Behaviour is unchanged: an AttributeError in a
# property falls back to the wrapper's __getattr__, and OrderEnforcingWrapper still refuses
# ``agents`` (and the rest of its list) before reset().
class _TerminateIllegal(wrappers.TerminateIllegalWrapper):
    def __init__(self, env: AECEnv, illegal_reward: float) -> None:
        super().__init__(env, illegal_reward)
        self._raw = env.unwrapped


class _AssertOutOfBounds(wrappers.AssertOutOfBoundsWrapper):
    def __init__(self, env: AECEnv) -> None:
        super().__init__(env)
        self._raw = env.unwrapped


class _OrderEnforcing(wrappers.OrderEnforcingWrapper):
    def __init__(self, env: AECEnv) -> None:
        super().__init__(env)
        self._raw = env.unwrapped

    def __str__(self) -> str:  # as OrderEnforcingWrapper's own (not a subclass's) str
        return str(self.env)


for _name in _HOT:
    setattr(_TerminateIllegal, _name, _direct(_name))
    setattr(_AssertOutOfBounds, _name, _direct(_name))
    setattr(_OrderEnforcing, _name, _checked(_name))
del _name


def env(**kwargs: Any) -> AECEnv:
    """The wrapped environment (illegal-move termination, bounds check, order enforcement):
    PettingZoo's ``TerminateIllegalWrapper``, ``AssertOutOfBoundsWrapper`` and
    ``OrderEnforcingWrapper`` (subclasses that read the hot attributes straight off the raw env,
    see :data:`_HOT`)."""
    e = raw_env(**kwargs)
    e = _TerminateIllegal(e, illegal_reward=-1)
    e = _AssertOutOfBounds(e)
    e = _OrderEnforcing(e)
    return e


class raw_env(AECEnv):
    """The unwrapped AEC environment.

    Args:
        rules: a preset name or :class:`~paohuzi_env.game.rules.Rules`.
        render_mode: None, ``"ansi"`` (``render()`` returns text), ``"human"`` (prints it) or
            ``"svg"`` (returns an SVG document, :func:`paohuzi_env.display.svg.table_svg`); each from
            the acting seat's view.
        reward: ``"score"``, ``"win"`` or ``"normalized"``.
        dealer: a fixed dealer seat, or None to draw it from the seed.
        backend: ``"auto"`` (default: the compiled core when built), ``"fast"`` or
            ``"python"``; None reads ``$PAOHUZI_BACKEND`` (:mod:`paohuzi_env.backends.select`). Both
            give the same observations, masks, rewards and events for the same seed.
        infos: ``"full"`` (events, legal actions and their names, the result) or
            ``"minimal"`` (every info dict empty, for frameworks that tensorise infos).
    """

    metadata = {
        "render_modes": ["ansi", "human", "svg"],
        "name": "paohuzi_v0",
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(
        self,
        rules: str | Rules = "huaihua",
        render_mode: str | None = None,
        reward: str = "score",
        dealer: int | None = None,
        backend: str | None = None,
        infos: str = "full",
    ) -> None:
        super().__init__()
        if infos not in ("full", "minimal"):
            raise ValueError(f"infos must be 'full' or 'minimal', got {infos!r}")
        self.info_mode = infos
        self.rules = as_rules(rules)
        self.backend = resolve_backend(backend)
        self._game_cls = game_class(self.backend)
        if render_mode not in (None, "ansi", "human", "svg"):
            raise ValueError(
                f"render_mode must be None, 'ansi', 'human' or 'svg', got {render_mode!r}")
        if reward not in REWARD_MODES:
            raise ValueError(f"reward must be one of {REWARD_MODES}, got {reward!r}")
        if dealer is not None and dealer not in (0, 1, 2):
            raise ValueError(f"dealer must be None or a seat 0, 1, 2, got {dealer!r}")
        self.render_mode = render_mode
        self.reward_mode = reward
        self.fixed_dealer = dealer
        self.possible_agents = ["player_0", "player_1", "player_2"]
        self.agents = self.possible_agents[:]
        obs_space = spaces.Dict({
            "observation": spaces.Box(0.0, 1.0, (obs_size(self.rules),), np.float32),
            "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), np.int8),
        })
        act_space: spaces.Space = spaces.Discrete(NUM_ACTIONS)
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: act_space for a in self.possible_agents}
        self.state_space = spaces.Box(0.0, 1.0, (state_size(self.rules),), np.float32)
        self.obs_version = obs_version(self.rules)
        self.game: GameProtocol | None = None  # either backend (paohuzi_env.game.protocol)
        self._np_random: np.random.Generator | None = None

    # ------------------------------------------------------------------ spaces

    def observation_space(self, agent: str) -> spaces.Space:
        """``agent``'s observation space: a Dict of ``observation`` and ``action_mask``."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        """``agent``'s action space: ``Discrete(NUM_ACTIONS)``."""
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ API

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start a new hand.

        Args:
            seed: seeds the deal; the same seed gives the same deal. Without one, deals
                continue from the generator of the last seeded reset (or fresh entropy).
            options: ``{"deck": [80 kind ids], "dealer": seat}`` to play a chosen deal.
        """
        options = dict(options or {})
        unknown = set(options) - {"deck", "dealer"}
        if unknown:  # PettingZoo's api_test passes arbitrary options: warn, do not fail
            warnings.warn(
                f"ignoring unknown reset options {sorted(unknown)}; valid: ['deck', 'dealer']",
                stacklevel=2,
            )
        rng = self._np_random
        if seed is not None or rng is None:
            rng = self._np_random = np.random.default_rng(seed)
        deal_seed = int(rng.integers(2**63))
        dealer = options.get("dealer", self.fixed_dealer)
        self.game = self._game_cls(self.rules, deck=options.get("deck"), dealer=dealer,
                                   seed=deal_seed)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self._event_mark = [0, 0, 0]
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._sync()

    def _sync(self) -> None:
        """Point agent_selection at the engine's player; finish the hand when it is over."""
        g = self.game
        assert g is not None
        if g.done:
            self._end_hand()
            return
        seat = g.current_player
        assert seat is not None
        self.agent_selection = self.possible_agents[seat]
        if self.info_mode == "minimal":
            return
        legal = g.legal_actions()
        events = g.events
        for i, a in enumerate(self.possible_agents):
            self.infos[a] = {"events": events[self._event_mark[i]:]}
        self.infos[self.agent_selection].update(
            legal_actions=legal,
            legal_names={x: action_name(x, g.decision) for x in legal},
        )
        self._event_mark[seat] = len(events)

    def _end_hand(self) -> None:
        g = self.game
        assert g is not None and g.result is not None
        for i, a in enumerate(self.possible_agents):
            self.rewards[a] = reward_of(g.result, i, self.reward_mode)
            self.terminations[a] = True
            if self.info_mode == "full":
                self.infos[a] = {"events": g.events[self._event_mark[i]:], "result": g.result}
        self._accumulate_rewards()

    def step(self, action: int | None) -> None:
        """Play ``action`` for the agent to act; None for an agent whose hand is over.

        Raises:
            ValueError: ``action`` is None while the agent is still to act.
            IllegalActionError: ``action`` is not legal now.
        """
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        g = self.game
        assert g is not None
        self._cumulative_rewards[agent] = 0.0
        for a in self.agents:
            self.rewards[a] = 0.0
        if action is None:
            raise ValueError(f"{agent} is to act: step() needs an action id, got None")
        g.step(int(action))  # raises IllegalActionError naming the legal actions
        self._sync()
        if self.render_mode == "human":
            self.render()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """``agent``'s ``observation`` vector and ``action_mask`` (all zeros when it is not to act)."""
        g = self.game
        assert g is not None, "call reset() first"
        seat = self.possible_agents.index(agent)
        # the same floats on both backends (encoded in C++ on the compiled core)
        return {"observation": g.observation(seat), "action_mask": g.action_mask(seat)}

    def state(self) -> np.ndarray:
        """Full-information tensor for centralised critics (never part of ``observe``).

        Relative to the agent on turn (``agent_selection``): its observation (763), then the
        other hands, their hidden 偎 kinds, the wall by kind and the next three wall cards; size
        923. The layout is documented once, in :mod:`paohuzi_env.encode.state`.
        """
        g = self.game
        assert g is not None, "call reset() first"
        seat = self.possible_agents.index(self.agent_selection)
        return g.state(seat)

    def render(self) -> str | None:
        """The table from the seat to act: text (``ansi``), an SVG string (``svg``), or printed
        text and None (``human``); None with a warning when there is no render_mode."""
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn("render() called without a render_mode")
            return None
        g = self.game
        assert g is not None, "call reset() first"
        seat = g.current_player if g.current_player is not None else 0
        if self.render_mode == "svg":
            return table_svg(g, seat)
        text = render_text(g, seat)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release."""
        pass
