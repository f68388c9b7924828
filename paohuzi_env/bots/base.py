"""The agent interface and the random baseline."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..game.engine import PlayerView

if TYPE_CHECKING:
    from ..game.protocol import GameProtocol


class Agent:
    """A policy on what one seat may know.

    Subclasses implement :meth:`act`. ``agent(view)`` is the same as ``agent.act(view)``.
    Harnesses that hold the game call :func:`decide` (``agent.act_game(game, seat)``).
    """

    name = "agent"

    def __init__(self, seed=None) -> None:
        self.rng = np.random.default_rng(seed)

    def act(self, view: PlayerView) -> int:
        """The chosen action, one of ``view.legal``; subclasses implement it."""
        raise NotImplementedError

    def act_game(self, game: GameProtocol, seat: int) -> int:
        """The action of ``seat`` (the seat to act) in ``game``. The default asks :meth:`act` on
        ``game.view(seat)``; an agent that needs the hand's public course (``search``) overrides
        it and must still read nothing another seat keeps hidden, and a bot with a compiled twin
        overrides it to ask the twin on the compiled core (``ExpertAgent``)."""
        return self.act(game.view(seat))

    def __call__(self, view: PlayerView) -> int:
        """:meth:`act` on ``view``, which must be a :class:`PlayerView` (else TypeError)."""
        if not isinstance(view, PlayerView):
            raise TypeError(
                f"{type(self).__name__} acts on a PlayerView (Game.view(seat)), "
                f"got {type(view).__name__}"
            )
        return self.act(view)


class RandomAgent(Agent):
    """Uniform over the legal actions, with its own seeded generator."""

    name = "random"

    def act(self, view: PlayerView) -> int:
        """A legal action drawn uniformly from the agent's generator."""
        legal = view.legal
        return int(legal[int(self.rng.integers(len(legal)))])


def decide(agent, game: GameProtocol, seat: int) -> int:
    """``seat``'s action in ``game`` from ``agent``: :meth:`Agent.act_game` for an
    :class:`Agent` (the search agent needs the game's public course), else ``agent(view)``."""
    if isinstance(agent, Agent):
        return agent.act_game(game, seat)
    return agent(game.view(seat))
