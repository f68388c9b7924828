"""Cards of 跑胡子: kind ids, colours, sizes and the notation people type (R-CARD-*).

A card *kind* is an int 0–19 (R-CARD-1): small point p (一..十) is ``p - 1``, big point p
(壹..拾) is ``p + 9``. There are four copies of each kind. Holdings are handled as count
vectors over the 20 kinds wherever speed matters.

Notation (R-CARD-3): ``s1..s10`` (small), ``b1..b10`` (big), or the Chinese characters
一二三四五六七八九十 / 壹贰叁肆伍陆柒捌玖拾 (the seeds' variants 参 = 叁 and 搅 = 捌 are accepted),
with or without spaces or commas between cards.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

NUM_KINDS = 20
COPIES = 4
NUM_CARDS = NUM_KINDS * COPIES

SMALL_CHARS = "一二三四五六七八九十"
BIG_CHARS = "壹贰叁肆伍陆柒捌玖拾"
_VARIANTS = {"参": BIG_CHARS[2], "搅": BIG_CHARS[7]}
RED_POINTS = (2, 7, 10)  # R-CARD-2

_CHAR_TO_KIND: dict[str, int] = {c: i for i, c in enumerate(SMALL_CHARS)}
_CHAR_TO_KIND.update({c: i + 10 for i, c in enumerate(BIG_CHARS)})
_CHAR_TO_KIND.update({v: _CHAR_TO_KIND[c] for v, c in _VARIANTS.items()})

_TOKEN = re.compile(r"\s*(?:([sbSB])(\d+)|(\S))")


def point(kind: int) -> int:
    """Point 1–10 of a kind (牌点; small and big share points)."""
    return kind % 10 + 1


def is_big(kind: int) -> bool:
    """True for the big cards 壹..拾."""
    return kind >= 10


def is_red(kind: int) -> bool:
    """True for 二七十 and 贰柒拾 (R-CARD-2)."""
    return kind % 10 + 1 in RED_POINTS


def kind_of(point_: int, big: bool) -> int:
    """Kind id of a point 1–10 and a size."""
    if not 1 <= point_ <= 10:
        raise ValueError(f"point must be 1..10, got {point_}")
    return point_ + 9 if big else point_ - 1


RED_KINDS = tuple(k for k in range(NUM_KINDS) if is_red(k))
BIG_KINDS = tuple(range(10, 20))
SMALL_KINDS = tuple(range(10))


def name(kind: int) -> str:
    """The Chinese character of a kind."""
    _check_kind(kind)
    return SMALL_CHARS[kind] if kind < 10 else BIG_CHARS[kind - 10]


def code(kind: int) -> str:
    """The ASCII code of a kind: ``s1..s10`` or ``b1..b10``."""
    _check_kind(kind)
    return f"{'b' if kind >= 10 else 's'}{point(kind)}"


def _check_kind(kind: int) -> None:
    if not isinstance(kind, (int,)) or isinstance(kind, bool) or not 0 <= kind < NUM_KINDS:
        raise ValueError(f"card kind must be an int 0..19, got {kind!r}")


def parse(text: str | Iterable[int], *, max_copies: int = COPIES) -> list[int]:
    """Parse cards into kind ids.

    Args:
        text: card notation (``"s1 s2 b3"``, ``"一二叁"``, ``"s1,s1,贰"``) or an iterable of
            kind ids (validated and returned as a list).
        max_copies: more copies of one kind than this raise (4 in one holding, R-CARD-1).

    Returns:
        The kind ids in the order given.

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
            elif char in _CHAR_TO_KIND:
                kinds.append(_CHAR_TO_KIND[char])
            else:
                raise ValueError(
                    f"bad card {char!r}: use s1..s10, b1..b10, {SMALL_CHARS} or {BIG_CHARS}"
                )
    else:
        kinds = []
        for k in text:
            k = int(k) if not isinstance(k, bool) and hasattr(k, "__index__") else k
            _check_kind(k)
            kinds.append(k)
    counts = [0] * NUM_KINDS
    for k in kinds:
        counts[k] += 1
        if counts[k] > max_copies:
            raise ValueError(
                f"too many copies of {name(k)} ({code(k)}): at most {max_copies} in one holding"
            )
    return kinds


def format(kinds: Iterable[int], sep: str = "") -> str:  # noqa: A001 - the documented name
    """Chinese text of some cards, in the given order (``format([0, 1, 12]) == "一二叁"``)."""
    return sep.join(name(k) for k in kinds)


def counts_of(kinds: Iterable[int]) -> list[int]:
    """Count vector over the 20 kinds."""
    counts = [0] * NUM_KINDS
    for k in kinds:
        counts[k] += 1
    return counts


def kinds_of(counts: Iterable[int]) -> list[int]:
    """Sorted kind list of a count vector."""
    out: list[int] = []
    for k, n in enumerate(counts):
        out.extend([k] * n)
    return out
