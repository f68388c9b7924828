"""The reward of a finished hand: the one definition the env and the trainer share.

=============== ===================================================================
mode            reward of a seat
=============== ===================================================================
``score``       its zero-sum points (winner +2×score, each loser −score; 荒庄 0)
``win``         +1 for the winner, −0.5 for each loser, 0 after 荒庄
``normalized``  its points / :data:`NORMALIZER` (64), clipped to [−1, 1]
=============== ===================================================================
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..game.engine import Result

REWARD_MODES = ("score", "win", "normalized")
"""The reward modes, in the order error messages list them."""
NORMALIZER = 64.0
"""Points per unit of the ``normalized`` reward."""


def reward_from_scores(scores: Sequence[float], seat: int, mode: str, winner: int | None) -> float:
    """The reward of ``seat`` given every seat's points and the winner (None: 荒庄).

    Raises:
        ValueError: for a mode not in :data:`REWARD_MODES`.
    """
    if mode == "score":
        return float(scores[seat])
    if mode == "win":
        return 0.0 if winner is None else (1.0 if winner == seat else -0.5)
    if mode == "normalized":
        return max(-1.0, min(1.0, scores[seat] / NORMALIZER))
    raise ValueError(f"unknown reward mode {mode!r}; valid modes: {REWARD_MODES}")


def reward_of(result: Result, seat: int, mode: str) -> float:
    """The reward of ``seat`` for a finished hand's :class:`~paohuzi_env.game.engine.Result`."""
    return reward_from_scores(result.scores, seat, mode, result.winner)
