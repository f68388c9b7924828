"""The agent interface and the random baseline."""

from __future__ import annotations

import numpy as np

from ..engine import PlayerView


class Agent:
    """A policy on what one seat may know.

    Subclasses implement :meth:`act`. ``agent(view)`` is the same as ``agent.act(view)``.
    """

    name = "agent"

    def __init__(self, seed=None) -> None:
        self.rng = np.random.default_rng(seed)

    def act(self, view: PlayerView) -> int:
        raise NotImplementedError

    def __call__(self, view: PlayerView) -> int:
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
        legal = view.legal
        return int(legal[int(self.rng.integers(len(legal)))])
