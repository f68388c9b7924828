"""The hand arithmetic that the wait features and the bots share: which cards win a holding.

It sits in the rules core so that both :mod:`paohuzi_env.encode.features` and
:mod:`paohuzi_env.bots.heuristic` read it from below (issue 45); the compiled twin is
``win_scores`` in ``backends/_core/bots.cpp``.
"""

from __future__ import annotations

from functools import lru_cache

from .cards import NUM_KINDS, WANG
from .scoring import evaluate_counts

__all__ = ["win_scores"]


@lru_cache(maxsize=1 << 16)
def win_scores(hand: tuple[int, ...], melds: tuple, rules, wang: int = 0) -> tuple[tuple[int, int], ...]:
    """(kind, score) for every card that would win this holding: a 自摸 where our own draw
    would be revealed (no forced 偎/提), else on another player's draw. A holder of 王 wins
    only on its own draws (R-WANG-5), a drawn 王 included (kind :data:`WANG`)."""
    out = []
    wei = {cards[0] for t, cards in melds if t in ("wei", "chou_wei")}
    for c in range(NUM_KINDS):
        if hand[c] >= 3:
            continue
        win = None
        if hand[c] < 2 and c not in wei:
            win = evaluate_counts(hand, melds, c, rules, self_drawn=True, wang=wang)
        if win is None and not wang:
            win = evaluate_counts(hand, melds, c, rules)
        if win is not None:
            out.append((c, win.score))
    if rules.wang and wang < rules.wang:
        win = evaluate_counts(hand, melds, None, rules, self_drawn=True, wang=wang + 1)
        if win is not None:
            out.append((WANG, win.score))
    return tuple(out)
