"""The rows of a duplicate-deal evaluation and their seeds, below both harnesses
(:mod:`paohuzi_training.eval.evaluate` and :mod:`paohuzi_training.eval.batched_eval`, which import it and
not each other's internals)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["GameRow", "seed_of"]


@dataclass(frozen=True)
class GameRow:
    """One game: the candidate's seat and outcome."""

    deal: int
    rotation: int
    points: int
    won: bool
    hu: bool
    dealer: bool
    scores: tuple[int, int, int]
    control: float = 0.0
    """The candidate's control variate (:mod:`paohuzi_training.eval.aivat`): the sum over the game's
    draws of V(h, c) - E_k V(h, k); 0.0 without variance reduction."""


def seed_of(seed: int, *keys: int) -> np.random.SeedSequence:
    """The seed of one game's deal or agent: ``SeedSequence([seed, *keys])``."""
    return np.random.SeedSequence([seed, *keys])
