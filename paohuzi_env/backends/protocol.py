"""The one interface of a hand, whatever engine runs it: :class:`GameProtocol`.

Two classes implement it: :class:`paohuzi_env.backends.fast.Game` (the compiled core) and
:class:`paohuzi_env.backends.reference.ReferenceGame` (the Python reference engine,
:class:`paohuzi_env.game.engine.Game`, with the encoders and bots of the Python package added by a
thin adapter, so the engine itself stays free of tensors). :func:`paohuzi_env.backends.select.game_class`
returns one or the other; everything that holds a game (the AEC env, the single-agent wrapper,
the RLlib env, the evaluation harness, the trainer) is written against this protocol and never
asks which backend it has. mypy checks that both classes satisfy it (the ``_check_*`` functions
at the end of this module).

The shared value types live in :mod:`paohuzi_env.game.engine` and are re-exported here:
:class:`Decision` (what the seat to act decides), :class:`Event` (one public event of a hand),
:class:`Result` (how a hand ended) and :class:`PlayerView` (what one seat may know).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np

from ..game.engine import Decision, Event, PlayerView, Result, Source
from ..game.rules import Rules

__all__ = ["Decision", "Event", "GameProtocol", "PlayerView", "Result", "Source"]


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

    def __init__(self, rules: str | Rules = "huaihua", deck: list[int] | None = None,
                 dealer: int | None = None,
                 seed: int | np.random.SeedSequence | None = None) -> None: ...

    @property
    def current_player(self) -> int | None: ...

    @property
    def decision(self) -> Decision | None: ...

    @property
    def done(self) -> bool: ...

    @property
    def result(self) -> Result | None: ...

    @property
    def events(self) -> list[Event]: ...

    @property
    def offer(self) -> tuple[int, Source, int] | None: ...

    @property
    def deck(self) -> list[int]: ...

    @property
    def dealer(self) -> int: ...

    def legal_actions(self) -> list[int]: ...

    def step(self, action: int) -> None: ...

    def record(self) -> dict[str, Any]: ...

    def view(self, seat: int) -> PlayerView: ...

    def observation(self, seat: int, out: np.ndarray | None = None) -> np.ndarray: ...

    def action_mask(self, seat: int) -> np.ndarray: ...

    def state(self, seat: int | None = None, out: np.ndarray | None = None) -> np.ndarray: ...

    def expert_action(self) -> int: ...

    def greedy_action(self) -> int: ...

    def clone(self) -> GameProtocol: ...


if TYPE_CHECKING:  # mypy proves both backends satisfy the protocol; nothing runs
    from .fast import Game as _FastGame
    from .reference import ReferenceGame as _ReferenceGame

    def _check_fast(g: _FastGame) -> GameProtocol:
        return g

    def _check_reference(g: _ReferenceGame) -> GameProtocol:
        return g
