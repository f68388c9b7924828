"""Wait features of a seat's holding (``paohuzi-waits-v1``): the readable reference.

What a player reads off a hand before each discard: which cards would win it now, and, for each
card it could discard, whether the holding left is ready (one card from a win), how many of the
cards that would win it are still unseen, and how much those wins are worth. Mortal gives its
network the same kind of hand arithmetic (shanten and waits). A network reading only the
observation learns it poorly: distillation generation 1 broke a ready hand that ``expert`` kept
at about 4% of its discards (docs/distill.md, "Where the limit is"); with these features a conv
actor all but stopped doing so.

:func:`wait_features` reads only a :class:`~paohuzi_env.game.engine.PlayerView` (nothing hidden), and
the compiled core computes the same floats (``paohuzi_env.backends.fast.Game.wait_features``,
``_fast.wait_features``), equal by ``tests/test_features.py``. 80 float32:

=========== ===== =====================================================================
offset      size  piece
=========== ===== =====================================================================
0           20    card ``c`` would win the holding as it is (1/0)
20          20    discarding one ``k`` leaves a ready holding (1/0)
40          20    ... the unseen copies of the cards that would then win, / 8 (at most 1)
60          20    ... those copies times the win's points, / 200 (at most 1)
=========== ===== =====================================================================

"The holding" is the seat's concealed hand with its own table groups. A card wins it as the
readable ``expert`` counts it (``game.waits.win_scores``): as a 自摸 where the seat's own draw of
it would be shown (it holds fewer than two and no 偎 of it), else on another seat's card; a seat
holding 王 wins only on its own draws (R-WANG-5). The 王 itself is not one of the 20 kinds here.
Entries 20–79 are filled for the kinds the seat holds one or two of (the cards it can discard;
a 坎 never leaves the hand, R-GROUP-1) and are 0 elsewhere; they describe the holding after
that discard whatever the pending decision. "Unseen" counts as the observation does
(``observation.py``: four minus the copies in the own hand, the visible table groups, the
discard areas and the card on offer). Points are the score of the win
(``evaluate_counts(...).score``) as a 自摸 or on another seat's card, as above.
"""

from __future__ import annotations

import numpy as np

from ..game.cards import NUM_KINDS
from ..game.engine import PlayerView
from ..game.rules import Rules, as_rules
from ..game.waits import win_scores
from .observation import UNSEEN, encode

WAIT_FEATURES = 80
"""Length of :func:`wait_features`."""
WAITS_VERSION = "paohuzi-waits-v1"
WIN_NOW, READY_AFTER, LIVE_AFTER, POINTS_AFTER = 0, 20, 40, 60
LIVE_SCALE = 8
POINTS_SCALE = 200


def wait_rows(obs_size: int) -> list[list[int]]:
    """The four blocks of :func:`wait_features` as rows of 20 kind indices into a network's input
    where they follow an observation of ``obs_size`` floats: the rows the ``conv`` actor adds to
    :data:`paohuzi_env.encode.observation.KIND_ROWS` for a network that reads them (training's
    ``wait_features``)."""
    return [[obs_size + off + k for k in range(NUM_KINDS)]
            for off in (WIN_NOW, READY_AFTER, LIVE_AFTER, POINTS_AFTER)]


def _melds(view: PlayerView) -> tuple:
    return tuple(sorted(view.table[view.seat]))


def wait_features(view: PlayerView, rules: str | Rules, out: np.ndarray | None = None
                  ) -> np.ndarray:
    """The 80 wait features of ``view``'s seat (module docstring), float32, into ``out`` if
    given."""
    rules = as_rules(rules)
    if out is None:
        out = np.zeros(WAIT_FEATURES, np.float32)
    else:
        if out.shape != (WAIT_FEATURES,) or out.dtype != np.float32:
            raise ValueError(f"out must be float32 of shape ({WAIT_FEATURES},), got "
                             f"{out.dtype} {out.shape}")
        out[:] = 0.0
    hand = tuple(view.hand)
    melds = _melds(view)
    obs = encode(view)
    unseen = [int(round(float(obs[UNSEEN + k]) * 4)) for k in range(NUM_KINDS)]
    for c, _ in win_scores(hand, melds, rules, view.wang):
        if c < NUM_KINDS:
            out[WIN_NOW + c] = 1.0
    for k in range(NUM_KINDS):
        if not 1 <= hand[k] <= 2:
            continue
        after = list(hand)
        after[k] -= 1
        wins = win_scores(tuple(after), melds, rules, view.wang)
        if not wins:
            continue
        out[READY_AFTER + k] = 1.0
        live = sum(unseen[c] for c, _ in wins if c < NUM_KINDS)
        points = sum(unseen[c] * score for c, score in wins if c < NUM_KINDS)
        out[LIVE_AFTER + k] = min(live, LIVE_SCALE) / LIVE_SCALE
        out[POINTS_AFTER + k] = min(points, POINTS_SCALE) / POINTS_SCALE
    return out
