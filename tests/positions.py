"""Positions for the search tests (tests/test_search.py, tests/test_fast_search.py): compiled
games (``fast.Game``) advanced by expert play to the decisions of one seat."""

from __future__ import annotations

from collections.abc import Iterator

from paohuzi_env import fast


def expert_positions(rules: str, seed: int, seat: int, every: int = 1) -> Iterator[fast.Game]:
    """Clones of a ``fast.Game`` advanced by expert play to every ``every``-th decision of
    ``seat`` with a choice (more than one legal action)."""
    g = fast.Game(rules, seed=seed)
    n = 0
    while not g.done:
        if g.current_player == seat and len(g.legal_actions()) > 1:
            if n % every == 0:
                yield g.clone()
            n += 1
        g.step(g.expert_action())
