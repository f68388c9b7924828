"""Groups (门子) and their huxi (R-GROUP-*, RULES.md section 3).

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
"""

from __future__ import annotations

from functools import lru_cache

from .cards import parse

MELD_TYPES = ("chi", "peng", "wei", "chou_wei", "pao", "ti")
"""Types a table group may have (the ``melds`` argument of ``evaluate_win``)."""

HAND_TYPES = ("ju", "jiao", "kan", "jiang", "loose")
SEQUENCE_TYPES = ("chi", "ju", "jiao")
"""Groups that spoil 碰碰胡 / 对对胡 (a 句 or a 绞)."""

_SAME_KIND_HUXI = {  # (small, big), R-GROUP table
    "peng": (1, 3), "kan": (3, 6), "wei": (3, 6), "chou_wei": (3, 6),
    "pao": (6, 9), "ti": (9, 12),
}
_SAME_KIND_SIZE = {"peng": 3, "kan": 3, "wei": 3, "chou_wei": 3, "pao": 4, "ti": 4, "jiang": 2}


def _all_sequences() -> tuple[tuple[int, int, int], ...]:
    seqs = []
    for base in (0, 10):
        for start in range(8):
            seqs.append((base + start, base + start + 1, base + start + 2))
        seqs.append((base + 1, base + 6, base + 9))  # 二七十 / 贰柒拾
    return tuple(seqs)


SEQUENCES = _all_sequences()
"""Every 句 (R-GROUP-2: one size only), as sorted kind triples."""
JIAOS = tuple((p, p, p + 10) for p in range(10)) + tuple((p, p + 10, p + 10) for p in range(10))
"""Every 绞 (two small + one big, then one small + two big)."""
_THREE_CARD_GROUPS = frozenset(SEQUENCES) | frozenset(JIAOS)


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
    """Huxi of one group (the table of RULES.md section 3)."""
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
    if gtype not in MELD_TYPES:
        raise ValueError(f"unknown meld type {gtype!r}; valid types: {MELD_TYPES}")
    cards = tuple(sorted(parse(raw)))  # type: ignore[arg-type]
    if gtype == "chi":
        if not is_chi_group(cards):
            raise ValueError(f"chi meld {cards} is not a 句 or 绞 (R-GROUP-2)")
    else:
        size = _SAME_KIND_SIZE[gtype]
        if len(cards) != size or len(set(cards)) != 1:
            raise ValueError(f"{gtype} meld needs {size} cards of one kind, got {cards}")
    return gtype, cards
