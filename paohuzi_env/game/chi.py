"""吃 and 比 legality (docs/rules.md section 6) and the counts rule's target (R-GROUP-3).

A pure search over hand counts, shared by the engine and the bots. A hand is a tuple of counts
over the kinds; ``usable`` is the part of it that may go into 吃/比 groups: every kind held fewer
than three times (R-GROUP-1 / R-CHI-1: the cards of a 坎 never do).

* :func:`chi_groups` — the legal 吃 groups for an offered card (R-CHI-1..4).
* :func:`bi_groups` — the legal next 比 groups of a chain under way (R-CHI-2..4).
* :func:`bi_completable` — can the copies of the card still in hand all go out in 比 groups
  (R-CHI-3), optionally leaving a card to discard (R-CHI-4)? One recursion for both.
* :func:`discard_target` — R-GROUP-3's target, ``20 + max(0, n − 1)``.
"""

from __future__ import annotations

from functools import lru_cache

from .actions import GROUP_BASE, GROUPS, GROUPS_WITH, group_cards
from .cards import NUM_KINDS

Counts = tuple[int, ...]

GROUP_COUNTS: tuple[Counts, ...] = tuple(
    tuple(sum(1 for x in g if x == k) for k in range(NUM_KINDS)) for g in GROUPS
)
"""GROUP_COUNTS[a - GROUP_BASE]: the kind counts of group action a."""


def discard_target(n_paoti: int) -> int:
    """R-GROUP-3: the cards (hand + table) a player with ``n_paoti`` 跑/提 holds when it owes
    no discard; holding more than this after a take-in, it owes one."""
    return 20 + max(0, n_paoti - 1)


def usable(hand: Counts) -> Counts:
    """The hand's cards that may go into 吃/比 groups: no 坎 (R-GROUP-1, R-CHI-1)."""
    return tuple(n if n < 3 else 0 for n in hand)


def take(cards: Counts, group: Counts) -> Counts:
    """``cards`` less the counts of ``group``."""
    return tuple(n - g for n, g in zip(cards, group))


@lru_cache(maxsize=1 << 16)
def bi_completable(usable: Counts, c: int, keep_one: bool = False) -> bool:
    """Can every copy of kind ``c`` in ``usable`` go out in 比 groups (R-CHI-2/3)?

    With ``keep_one`` (the 吃 leaves the player owing a discard) the chain must also end with a
    card left that R-DISC-1 lets it discard (R-CHI-4). ``usable`` holds no 坎 card, so any card
    left at the end is one.
    """
    if usable[c] == 0:
        return not keep_one or any(usable)
    for a in GROUPS_WITH[c]:
        g = GROUP_COUNTS[a - GROUP_BASE]
        if all(usable[k] >= g[k] for k in group_cards(a)):
            if bi_completable(take(usable, g), c, keep_one):
                return True
    return False


def _next_groups(usable: Counts, c: int, keep_one: bool, offered: bool) -> tuple[tuple[int, ...], bool]:
    """The groups containing ``c`` that may be named next, and whether any group fits at all.

    ``offered``: ``c`` is the card on offer (a 吃: the group's other two cards come from
    ``usable``); else a 比 group (all three cards from ``usable``)."""
    legal = []
    fits = False
    for a in GROUPS_WITH[c]:
        need = GROUP_COUNTS[a - GROUP_BASE]
        if offered:
            need = need[:c] + (need[c] - 1,) + need[c + 1:]
        if any(usable[k] < need[k] for k in group_cards(a)):
            continue
        fits = True
        if bi_completable(take(usable, need), c, keep_one):
            legal.append(a)
    return tuple(legal), fits


@lru_cache(maxsize=1 << 16)
def chi_groups(hand: Counts, c: int, owes_after: bool) -> tuple[tuple[int, ...], bool]:
    """The legal 吃 groups for card ``c`` offered to ``hand`` (R-CHI-1..4), and whether any group
    could hold ``c`` at all, legal or not (R-CHOU-4). ``owes_after``: taking the card would leave
    the player owing a discard (R-GROUP-3), so R-CHI-4 applies."""
    return _next_groups(usable(hand), c, owes_after, offered=True)


def chi_need(action: int, c: int) -> Counts:
    """The hand cards a 吃 of ``c`` with group ``action`` uses (the group less ``c``)."""
    g = GROUP_COUNTS[action - GROUP_BASE]
    return g[:c] + (g[c] - 1,) + g[c + 1:]


def bi_groups(usable: Counts, c: int, owes_after: bool) -> tuple[int, ...]:
    """The legal next 比 groups of a chain for card ``c`` (R-CHI-2..4); ``usable`` is what is
    left of the hand's usable cards after the groups named so far."""
    return _next_groups(usable, c, owes_after, offered=False)[0]
