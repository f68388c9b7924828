"""Cards of 跑胡子: kind ids, colours, sizes and the notation people type (R-CARD-*).

A card *kind* is an int 0–19 (R-CARD-1): small point p (一..十) is ``p - 1``, big point p
(壹..拾) is ``p + 9``. There are four copies of each kind. Holdings are handled as count
vectors over the 20 kinds wherever speed matters.

Notation (R-CARD-3): ``s1..s10`` (small), ``b1..b10`` (big), or the Chinese characters
一二三四五六七八九十 / 壹贰叁肆伍陆柒捌玖拾 (the seeds' variants 参 = 叁 and 搅 = 捌 are accepted),
with or without spaces or commas between cards.

The joker 王 (王霸, R-WANG-1, the ``yongzhou`` deck of 82 cards) is kind id :data:`WANG` = 20,
typed ``w`` or ``王``. It has no point, no size and no colour (:func:`is_red` and :func:`is_big`
are False, :func:`point` raises). It is *not* one of the :data:`NUM_KINDS` = 20 ordinary kinds:
count vectors stay over those 20, and a holding's 王 are a separate number
(:func:`split_wang`); :func:`counts_of` refuses a 王 with a clear error.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

NUM_KINDS = 20
"""The ordinary kinds 0..19; the 王 (:data:`WANG`) is not counted among them."""
COPIES = 4
NUM_CARDS = NUM_KINDS * COPIES
WANG = 20
"""Kind id of the joker 王 (王霸, R-WANG-1)."""
WANG_COPIES = 2
"""王 in a deck that has them (R-WANG-1: 82 cards = the 80 plus two 王)."""
WANG_CHAR = "王"

SMALL_CHARS = "一二三四五六七八九十"
BIG_CHARS = "壹贰叁肆伍陆柒捌玖拾"
_VARIANTS = {"参": BIG_CHARS[2], "搅": BIG_CHARS[7]}
RED_POINTS = (2, 7, 10)  # R-CARD-2

_CHAR_TO_KIND: dict[str, int] = {c: i for i, c in enumerate(SMALL_CHARS)}
_CHAR_TO_KIND.update({c: i + 10 for i, c in enumerate(BIG_CHARS)})
_CHAR_TO_KIND.update({v: _CHAR_TO_KIND[c] for v, c in _VARIANTS.items()})

_WANG_TOKENS = frozenset("wW" + WANG_CHAR)

_TOKEN = re.compile(r"\s*(?:([sbSB])(\d+)|(\S))")


def point(kind: int) -> int:
    """Point 1–10 of a kind (牌点; small and big share points).

    Raises:
        ValueError: for the 王, which has no point (R-WANG-1).
    """
    if kind == WANG:
        raise ValueError("王 (kind 20) has no point (R-WANG-1)")
    return kind % 10 + 1


def is_big(kind: int) -> bool:
    """True for the big cards 壹..拾 (False for the 王: no size, R-WANG-1)."""
    return 10 <= kind < WANG


def is_red(kind: int) -> bool:
    """True for 二七十 and 贰柒拾 (R-CARD-2; False for the 王: no colour, R-WANG-1)."""
    return kind % 10 + 1 in RED_POINTS and kind != WANG


def kind_of(point_: int, big: bool) -> int:
    """Kind id of a point 1–10 and a size."""
    if not 1 <= point_ <= 10:
        raise ValueError(f"point must be 1..10, got {point_}")
    return point_ + 9 if big else point_ - 1


RED_KINDS = tuple(k for k in range(NUM_KINDS) if is_red(k))
BIG_KINDS = tuple(range(10, 20))
SMALL_KINDS = tuple(range(10))


def name(kind: int) -> str:
    """The Chinese character of a kind (``王`` for :data:`WANG`)."""
    _check_card(kind)
    if kind == WANG:
        return WANG_CHAR
    return SMALL_CHARS[kind] if kind < 10 else BIG_CHARS[kind - 10]


def code(kind: int) -> str:
    """The ASCII code of a kind: ``s1..s10``, ``b1..b10``, or ``w`` for the 王."""
    _check_card(kind)
    if kind == WANG:
        return "w"
    return f"{'b' if kind >= 10 else 's'}{point(kind)}"


def _check_kind(kind: int) -> None:
    if not isinstance(kind, (int,)) or isinstance(kind, bool) or not 0 <= kind < NUM_KINDS:
        raise ValueError(f"card kind must be an int 0..19, got {kind!r}")


def _check_card(kind: int) -> None:
    """An ordinary kind 0..19 or the 王 (20)."""
    if not isinstance(kind, (int,)) or isinstance(kind, bool) or not 0 <= kind <= WANG:
        raise ValueError(f"card kind must be an int 0..19 or 20 (王), got {kind!r}")


def parse(text: str | Iterable[int], *, max_copies: int = COPIES, wang: bool = True) -> list[int]:
    """Parse cards into kind ids.

    Args:
        text: card notation (``"s1 s2 b3"``, ``"一二叁"``, ``"s1,s1,贰"``, ``"w 王"``) or an
            iterable of kind ids (validated and returned as a list).
        max_copies: more copies of one ordinary kind than this raise (4 in one holding,
            R-CARD-1).
        wang: accept the 王 (``w``, ``W``, ``王`` or id 20, at most :data:`WANG_COPIES` in one
            holding, R-WANG-1); with False a 王 raises.

    Returns:
        The kind ids in the order given (the 王 as :data:`WANG`).

    Raises:
        ValueError: naming the bad token, e.g. ``s11`` or ``x``, or the kind that appears
            too often.
    """
    if isinstance(text, str):
        kinds: list[int] = []
        pos = 0
        text = text.strip()
        while pos < len(text):
            m = _TOKEN.match(text, pos)
            if m is None:  # only trailing whitespace is left
                break
            pos = m.end()
            size, digits, char = m.groups()
            if size is not None:
                p = int(digits)
                if not 1 <= p <= 10:
                    raise ValueError(
                        f"bad card {size}{digits!s}: points are 1..10 (s1..s10, b1..b10)"
                    )
                kinds.append(kind_of(p, size.lower() == "b"))
            elif char in ",;，、":
                continue
            elif char in _WANG_TOKENS:
                kinds.append(WANG)
            elif char in _CHAR_TO_KIND:
                kinds.append(_CHAR_TO_KIND[char])
            else:
                raise ValueError(
                    f"bad card {char!r}: use s1..s10, b1..b10, {SMALL_CHARS}, {BIG_CHARS} "
                    f"or w / {WANG_CHAR}"
                )
    else:
        kinds = []
        for k in text:
            k = int(k) if not isinstance(k, bool) and hasattr(k, "__index__") else k
            _check_card(k)
            kinds.append(k)
    counts = [0] * (WANG + 1)
    for k in kinds:
        counts[k] += 1
        if k == WANG:
            if not wang:
                raise ValueError(f"a {WANG_CHAR} (w) is not allowed here")
            if counts[k] > WANG_COPIES:
                raise ValueError(
                    f"too many {WANG_CHAR} (w): at most {WANG_COPIES} exist (R-WANG-1)"
                )
        elif counts[k] > max_copies:
            raise ValueError(
                f"too many copies of {name(k)} ({code(k)}): at most {max_copies} in one holding"
            )
    return kinds


def format(kinds: Iterable[int], sep: str = "") -> str:  # noqa: A001 - the documented name
    """Chinese text of some cards, in the given order (``format([0, 1, 12, 20]) == "一二叁王"``)."""
    return sep.join(name(k) for k in kinds)


def counts_of(kinds: Iterable[int]) -> list[int]:
    """Count vector over the 20 ordinary kinds.

    Raises:
        ValueError: for a 王 (use :func:`split_wang`) or another id outside 0..19.
    """
    counts = [0] * NUM_KINDS
    for k in kinds:
        try:
            counts[k] += 1
        except (IndexError, TypeError):
            if k == WANG:
                raise ValueError(
                    "counts_of counts the 20 ordinary kinds; a 王 (20) is counted apart: "
                    "use split_wang"
                ) from None
            raise ValueError(f"card kind must be an int 0..19, got {k!r}") from None
    return counts


def split_wang(kinds: Iterable[int]) -> tuple[list[int], int]:
    """``(count vector over the 20 ordinary kinds, number of 王)`` of some kind ids (R-WANG-1).

    ``split_wang(parse("一一王")) == (counts_of([0, 0]), 1)``.
    """
    counts = [0] * (WANG + 1)
    for k in kinds:
        _check_card(k)
        counts[k] += 1
    return counts[:NUM_KINDS], counts[WANG]


def kinds_of(counts: Iterable[int], wang: int = 0) -> list[int]:
    """Sorted kind list of a count vector, followed by ``wang`` 王 (:data:`WANG`)."""
    out: list[int] = []
    for k, n in enumerate(counts):
        out.extend([k] * n)
    out.extend([WANG] * wang)
    return out
