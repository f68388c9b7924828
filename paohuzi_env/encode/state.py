"""The full-information state: what ``env.state()`` returns and a central critic reads.

It is seat-relative to ``seat`` (rel 1 its next player, rel 2 its previous player) and reads the
engine's public fields only (``game.hands``, ``game.melds``, ``game.deck``, ``game.wall_pos``).
It holds hidden information: never give it to a policy.

:func:`encode_state` is the observation of ``game.view(seat)`` (``paohuzi-obs-v1``,
:data:`~paohuzi_env.encode.observation.OBS_SIZE` = 763) followed by :func:`state_extra`:

====== ====== ===== ==================================================================
state  extra  size  piece
====== ====== ===== ==================================================================
0      —      763   the seat's observation (:mod:`paohuzi_env.encode.observation`)
763    0      20    hand of rel 1 by kind, count / 4
783    20     20    hand of rel 2 by kind, count / 4
803    40     20    kinds of rel 1's 偎 (hidden from the seat), one-hot
823    60     20    kinds of rel 2's 偎, one-hot
843    80     20    the wall's remaining cards by kind, count / 4
863    100    3×20  the next three wall cards, one-hot kind each (zeros past the end)
====== ====== ===== ==================================================================

Sizes: :data:`STATE_EXTRA_SIZE` = 160, :data:`STATE_SIZE` = 923.

With 王 in the deck (``yongzhou``) the observation is ``paohuzi-obs-v2`` (771 floats) and the
extra has six more entries after the 160 (a 王 never enters the kind blocks above):

====== ===== ==================================================================
extra  size  piece
====== ===== ==================================================================
160    2     王 in the hands of rel 1 and rel 2, / 2 (dealt ones included)
162    1     王 left in the wall, / 2
163    3     the next three wall cards are a 王
====== ===== ==================================================================

Sizes with 王: :func:`state_extra_size` = 166, :func:`state_size` = 937.
"""

from __future__ import annotations

import numpy as np

from ..game.cards import NUM_KINDS, WANG, WANG_COPIES
from ..game.rules import Rules, as_rules
from .observation import OBS_SIZE, encode, obs_size

_HANDS = 0
_WEI = _HANDS + 2 * NUM_KINDS  # 40
_WALL = _WEI + 2 * NUM_KINDS  # 80
_NEXT = _WALL + NUM_KINDS  # 100
_NEXT_CARDS = 3
STATE_EXTRA_SIZE = _NEXT + _NEXT_CARDS * NUM_KINDS  # 160
"""Size of :func:`state_extra`."""
STATE_SIZE = OBS_SIZE + STATE_EXTRA_SIZE  # 923
"""Size of :func:`encode_state` (``env.state()``) without 王."""
_WANG_HANDS = STATE_EXTRA_SIZE  # with 王 only, from here on
_WANG_WALL = _WANG_HANDS + 2
_WANG_NEXT = _WANG_WALL + 1
_STATE_EXTRA_SIZE_V2 = _WANG_NEXT + _NEXT_CARDS  # 166


def state_extra_size(rules: str | Rules) -> int:
    """Length of :func:`state_extra` under ``rules`` (160, or 166 with 王)."""
    return _STATE_EXTRA_SIZE_V2 if as_rules(rules).wang else STATE_EXTRA_SIZE


def state_size(rules: str | Rules) -> int:
    """Length of :func:`encode_state` (``env.state()``) under ``rules``."""
    return obs_size(rules) + state_extra_size(rules)


def state_extra(game, seat: int, out: np.ndarray | None = None) -> np.ndarray:
    """The hidden-information features of ``game`` relative to ``seat`` (float32, length
    :data:`STATE_EXTRA_SIZE`; layout in the module docstring). ``out``, when given, is
    overwritten and returned."""
    wang = game.rules.wang
    x = np.zeros(state_extra_size(game.rules), dtype=np.float32) if out is None else out
    if out is not None:
        x[:] = 0.0
    for r in (1, 2):
        s = (seat + r) % 3
        x[_HANDS + NUM_KINDS * (r - 1): _HANDS + NUM_KINDS * r] = np.asarray(game.hands[s], np.float32) / 4
        for t, cards in game.melds[s]:
            if t == "wei":
                x[_WEI + NUM_KINDS * (r - 1) + cards[0]] = 1.0
    for k in game.deck[game.wall_pos:]:
        if k == WANG:
            x[_WANG_WALL] += 1 / WANG_COPIES
        else:
            x[_WALL + k] += 0.25
    for i, k in enumerate(game.deck[game.wall_pos: game.wall_pos + _NEXT_CARDS]):
        if k == WANG:
            x[_WANG_NEXT + i] = 1.0
        else:
            x[_NEXT + NUM_KINDS * i + k] = 1.0
    if wang:
        for r in (1, 2):
            x[_WANG_HANDS + r - 1] = game.wang[(seat + r) % 3] / WANG_COPIES
    return x


def encode_state(game, seat: int) -> np.ndarray:
    """``seat``'s observation followed by :func:`state_extra` (float32, length
    :func:`state_size` of the game's rules: :data:`STATE_SIZE` without 王)."""
    n_obs = obs_size(game.rules)
    x = np.empty(n_obs + state_extra_size(game.rules), dtype=np.float32)
    encode(game.view(seat), x[:n_obs])
    state_extra(game, seat, x[n_obs:])
    return x
