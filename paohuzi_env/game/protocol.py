"""The one interface of a hand, whatever engine runs it: :class:`GameProtocol`.

Two classes implement it: :class:`paohuzi_env.backends.fast.Game` (the compiled core) and
:class:`paohuzi_env.backends.reference.ReferenceGame` (the Python reference engine,
:class:`paohuzi_env.game.engine.Game`, with the encoders and bots of the Python package added by a
thin adapter, so the engine itself stays free of tensors). :func:`paohuzi_env.backends.select.game_class`
returns one or the other; everything that holds a game (the AEC env, the single-agent wrapper,
the RLlib env, the evaluation harness, the trainer) is written against this protocol and never
asks which backend it has. mypy checks that both classes satisfy it (the ``_check_*`` functions
at the end of :mod:`paohuzi_env.backends.select`).

The protocol sits in the rules core, below the bots and the backends, so that the bots' type
hints and both backends import it downward. The shared value types live in
:mod:`paohuzi_env.game.engine` and are re-exported here:
:class:`Decision` (what the seat to act decides), :class:`Event` (one public event of a hand),
:class:`Result` (how a hand ended) and :class:`PlayerView` (what one seat may know).
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import numpy as np

from .engine import Decision, Event, PlayerView, Result, Source
from .rules import Rules

__all__ = ["Decision", "Event", "GameProtocol", "PlayerView", "Result", "Source", "VectorGameProtocol"]


@runtime_checkable
class GameProtocol(Protocol):
    """One hand of 跑胡子 (either backend): the engine's surface, the encoders and the bots.

    The engine's surface (identical on both backends, decision by decision; tests/test_fast_*):
    ``rules``, ``current_player``, ``decision``, ``done``, ``legal_actions()``, ``step()``,
    ``result``, ``events``, ``offer``, ``record()``, ``view(seat)``, ``deck``, ``dealer``.

    The encoders (bit-identical floats on both backends): ``observation(seat)`` is
    :func:`paohuzi_env.encode.observation.encode` of ``view(seat)``, ``action_mask(seat)`` the int8 legal
    mask (zeros when ``seat`` is not to act), ``state(seat)`` the full-information tensor of
    :func:`paohuzi_env.encode.state.encode_state` (for central critics only).

    The rule-based bots: ``expert_action()`` and ``greedy_action()`` are the choices of
    :class:`~paohuzi_env.agents.ExpertAgent` and :class:`~paohuzi_env.agents.GreedyAgent` for
    the seat to act (in C++ on the compiled core).
    """

    rules: Rules
    compiled: bool
    """True on the compiled core: its ``expert_action()``/``greedy_action()`` are the C++ twins,
    so a bot asks them instead of deciding in Python (the bots need not import a backend)."""

    def __init__(self, rules: str | Rules = "huaihua", deck: list[int] | None = None,
                 dealer: int | None = None,
                 seed: int | np.random.SeedSequence | None = None) -> None: ...

    @property
    def current_player(self) -> int | None:
        """The seat to act, or None when the hand is over."""

    @property
    def decision(self) -> Decision | None:
        """The pending decision (``tianhu``, ``hu``, ``claim``, ``bi``, ``discard``) or None."""

    @property
    def done(self) -> bool:
        """The hand is over."""

    @property
    def result(self) -> Result | None:
        """How the hand ended, or None while it runs."""

    @property
    def events(self) -> list[Event]:
        """The public event log ``(kind, seat, data)`` so far."""

    @property
    def offer(self) -> tuple[int, Source, int] | None:
        """The card on offer ``(kind, source, from_seat)`` (full information), or None."""

    @property
    def deck(self) -> list[int]:
        """The deck in deal order, as kind ids (full information)."""

    @property
    def dealer(self) -> int:
        """The dealer seat."""

    def legal_actions(self) -> list[int]:
        """Sorted legal action ids of ``current_player`` ([] when the hand is over)."""

    def step(self, action: int) -> None:
        """Apply the current player's action; forced moves that follow run at once.

        Raises:
            IllegalActionError: naming the action and the legal ones.
        """

    def record(self) -> dict[str, Any]:
        """A JSON-serialisable record of the hand (rules, deck, dealer, actions), for ``replay``."""

    def view(self, seat: int) -> PlayerView:
        """What ``seat`` may know."""

    def observation(self, seat: int, out: np.ndarray | None = None) -> np.ndarray:
        """``encode(view(seat))`` (float32, ``obs_size(rules)``), into ``out`` if given."""

    def action_mask(self, seat: int) -> np.ndarray:
        """int8 mask over the 61 actions: the legal set when ``seat`` is to act, else zeros."""

    def state(self, seat: int | None = None, out: np.ndarray | None = None) -> np.ndarray:
        """The full-information tensor relative to ``seat`` (default: the seat to act), into
        ``out`` if given; never give it to a policy."""

    def expert_action(self) -> int:
        """``ExpertAgent``'s action for the seat to act."""

    def greedy_action(self) -> int:
        """``GreedyAgent``'s action for the seat to act."""

    def clone(self) -> GameProtocol:
        """An independent copy of the hand."""


@runtime_checkable
class VectorGameProtocol(Protocol):
    """Many hands at once (either backend): the surface the trainer's rollout loop uses
    (:mod:`paohuzi_training.stages.rollout`), :class:`paohuzi_env.backends.fast.VectorGame` on the
    compiled core and :class:`paohuzi_env.backends.reference.ReferenceVectorGame` on the Python
    engine. A finished hand is dealt afresh inside ``step``; ``last_hand(i)`` keeps it.

    Both backends play the same game on a given deal; the deals differ (the core's generator
    lives in C++), and ``random`` draws differ, as ``policy_actions`` says.
    """

    rules: Rules

    @property
    def num_hands(self) -> int:
        """Hands played side by side."""

    @property
    def obs_size(self) -> int:
        """Observation length (763, or 771 with 王)."""

    @property
    def state_size(self) -> int:
        """State length (923, or 937 with 王)."""

    @property
    def seed(self) -> int:
        """The seed that keys the deals and the random actions."""

    @property
    def skipped_deals(self) -> int:
        """Deals dealt past because they ended at the deal (R-START-1)."""

    @property
    def hands_finished(self) -> int:
        """Hands finished so far (across all slots)."""

    def observe(self, obs: np.ndarray | None = None, mask: np.ndarray | None = None,
                seat: np.ndarray | None = None, decision: np.ndarray | None = None,
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Fill (or allocate) ``obs`` (n, obs_size) float32, ``mask`` (n, 61) int8, ``seat`` (n,)
        int64 and ``decision`` (n,) int64 for the seat to act in each hand; returns them."""

    def step(self, actions: Any, rewards: np.ndarray | None = None,
             done: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Apply one action per hand; returns ``rewards`` (n, 3) float32 and ``done`` (n,) bool.

        Raises:
            IllegalActionError: if any action is illegal.
        """

    def policy_actions(self, policy: str = "random", out: np.ndarray | None = None,
                       which: np.ndarray | None = None) -> np.ndarray:
        """Each hand's action under the bot ``policy`` as int64 (n,), for the hands ``which``
        marks (all when None; ``out`` keeps its other entries). ``random`` is uniform over the
        legal actions, keyed by (seed, deal number, decisions so far); the backends' draws differ."""

    def playout_after(self, actions: Any, which: np.ndarray, policy: str = "expert",
                      seed: int = 0, out: np.ndarray | None = None) -> np.ndarray:
        """Duplicate rollouts: for each hand ``which`` marks, a copy takes ``actions[i]`` and is
        played to its end by ``policy`` in every seat; returns the copies' rewards (n, 3) float32
        (other rows untouched). The hands themselves do not move.

        Raises:
            ValueError: a marked hand's action is not legal there.
        """

    def state(self, out: np.ndarray | None = None) -> np.ndarray:
        """Full-information states (n, state_size) float32, relative to each acting seat."""

    def wait_features(self, out: np.ndarray | None = None) -> np.ndarray:
        """The wait features (n, 80) float32 of each hand's acting seat."""

    def hand(self, i: int) -> GameProtocol:
        """A copy of hand ``i``."""

    def last_hand(self, i: int) -> tuple[GameProtocol, int] | None:
        """The last hand that finished in slot ``i`` and its deal number, or None."""

    def deal_index(self, i: int) -> int:
        """The deal number of hand ``i``."""

