"""Groups (门子) and their huxi (R-GROUP-*, docs/rules.md section 3).

A group is a ``(type, cards)`` pair, ``cards`` a sorted tuple of kind ids. Types:

=========== ============================================== =============
type        meaning                                        huxi small/big
=========== ============================================== =============
``chi``     a 句 or 绞 on the table (吃 and 比 groups)          as ju / jiao
``ju``      句 in the hand: three consecutive points or 2-7-10 123/2710: 3/6
``jiao``    绞 in the hand: AAa or Aaa                       0
``peng``    碰 (also the winning card with a hand pair)       1/3
``kan``     坎: three of a kind dealt into the hand           3/6
``wei``     偎                                              3/6
``chou_wei`` 臭偎                                           3/6
``pao``     跑                                              6/9
``ti``      提                                              9/12
``jiang``   将 pair of a winning hand                        0
``loose``   cards of a forced 天胡 that form no group          0
=========== ============================================== =============

:data:`GROUP_NAMES` holds each type's Chinese name; :data:`CHI_GROUPS` is the one table of the 38
句 and 绞 (in action-id order; :mod:`paohuzi_env.game.actions` numbers its group actions from it).
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

from .cards import parse

MELD_TYPES = ("chi", "peng", "wei", "chou_wei", "pao", "ti")
"""Types a table group may have (the ``melds`` argument of ``evaluate_win``)."""

HAND_TYPES = ("ju", "jiao", "kan", "jiang", "loose", "wang_diao")
SEQUENCE_TYPES = ("chi", "ju", "jiao")
"""Groups that spoil 碰碰胡 / 对对胡 (a 句 or a 绞)."""

GROUP_NAMES = {
    "chi": "吃", "ju": "句", "jiao": "绞", "peng": "碰", "kan": "坎", "wei": "偎",
    "chou_wei": "臭偎", "pao": "跑", "ti": "提", "jiang": "将", "loose": "散牌",
    "wang_diao": "王吊",  # R-WANG-6: the winning card with the 王 that stand for it
}
"""The Chinese name of every group type (what the CLI and the renderer print)."""

_SAME_KIND_HUXI = {  # (small, big), R-GROUP table
    "peng": (1, 3), "kan": (3, 6), "wei": (3, 6), "chou_wei": (3, 6),
    "pao": (6, 9), "ti": (9, 12),
}
_SAME_KIND_SIZE = {"peng": 3, "kan": 3, "wei": 3, "chou_wei": 3, "pao": 4, "ti": 4, "jiang": 2}


def _chi_groups() -> tuple[tuple[int, int, int], ...]:
    runs = [(base + p, base + p + 1, base + p + 2) for base in (0, 10) for p in range(8)]
    erqishi = [(1, 6, 9), (11, 16, 19)]  # 二七十, 贰柒拾
    jiaos = [(p, p, p + 10) for p in range(10)] + [(p, p + 10, p + 10) for p in range(10)]
    return tuple(runs + erqishi + jiaos)


CHI_GROUPS = _chi_groups()
"""The 38 groups a 吃 or 比 can make (every 句 and 绞), as sorted kind triples, in action-id
order: group action ``GROUP_BASE + i`` of :mod:`paohuzi_env.game.actions` is ``CHI_GROUPS[i]``.
Small sequences from point 1..8, big ones 1..8, 二七十, 贰柒拾, then the 绞 two small + one big
(point 1..10) and one small + two big (1..10)."""


def _is_jiao(cards: tuple[int, ...]) -> bool:
    return cards[0] == cards[1] or cards[1] == cards[2]


SEQUENCES = tuple(sorted((c for c in CHI_GROUPS if not _is_jiao(c)), key=lambda c: c[0] >= 10))
"""Every 句 (R-GROUP-2: one size only), as sorted kind triples: the small ones (二七十 last),
then the big ones (贰柒拾 last)."""
JIAOS = tuple(c for c in CHI_GROUPS if _is_jiao(c))
"""Every 绞 (two small + one big, then one small + two big)."""
_THREE_CARD_GROUPS = frozenset(CHI_GROUPS)


def sequence_huxi(cards: tuple[int, ...]) -> int:
    """Huxi of a 句 or 绞 (sorted): 一二三 / 二七十 3, 壹贰叁 / 贰柒拾 6, others 0."""
    a = cards[0]
    if a % 10 == 0 and cards[1] == a + 1 and cards[2] == a + 2 or (
        a % 10 == 1 and cards[1] == a + 5 and cards[2] == a + 8
    ):
        return 6 if a >= 10 else 3
    return 0


def is_chi_group(cards: tuple[int, ...]) -> bool:
    """True for a sorted 句 or 绞."""
    return tuple(cards) in _THREE_CARD_GROUPS


@lru_cache(maxsize=1024)
def group_huxi(gtype: str, cards: tuple[int, ...]) -> int:
    """Huxi of one group (the table of docs/rules.md section 3)."""
    if gtype in SEQUENCE_TYPES:
        return sequence_huxi(cards)
    pair = _SAME_KIND_HUXI.get(gtype)
    if pair is None:
        return 0
    return pair[1] if cards[0] >= 10 else pair[0]


def normalise_meld(meld: tuple[str, object]) -> tuple[str, tuple[int, ...]]:
    """Validate one table group ``(type, cards)``; cards may be notation or kind ids.

    Raises:
        ValueError: naming the bad type or the cards that do not form that group.
    """
    try:
        gtype, raw = meld
    except (TypeError, ValueError):
        raise ValueError(f"a meld is a (type, cards) pair, got {meld!r}") from None
    if not isinstance(raw, Iterable):
        raise ValueError(f"meld cards must be notation or a sequence of kind ids, got {raw!r}")
    if gtype not in MELD_TYPES:
        raise ValueError(f"unknown meld type {gtype!r}; valid types: {MELD_TYPES}")
    cards = tuple(sorted(parse(raw, wang=False)))  # R-WANG-3: a 王 is never in a table group
    if gtype == "chi":
        if not is_chi_group(cards):
            raise ValueError(f"chi meld {cards} is not a 句 or 绞 (R-GROUP-2)")
    else:
        size = _SAME_KIND_SIZE[gtype]
        if len(cards) != size or len(set(cards)) != 1:
            raise ValueError(f"{gtype} meld needs {size} cards of one kind, got {cards}")
    return gtype, cards
