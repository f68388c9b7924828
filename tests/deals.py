"""Scripted deals for engine tests (docs/rules.md R-DEAL-1).

``build_deck`` turns three hands and the first wall cards, written in card notation
(R-CARD-3: ``"一二三 s4 b5"``) or as kind lists, into the 80-card deck ``Game`` takes::

    deck = build_deck(
        dealer_hand="一二三 ...",   # 21 cards, the last one is the 亮张 (R-DEAL-2)
        next_hand="...",            # 20 cards, next(dealer)
        prev_hand="...",            # 20 cards, prev(dealer)
        wall="四 五",               # the first wall cards, drawn in this order
    )
    g = Game("huaihua", deck=deck, dealer=0)

The wall cards not named are the leftover cards in ascending kind order (deterministic).
``new_game`` does both steps. ``G``, ``D``, ``hand`` and ``table`` keep assertions short.
"""

from __future__ import annotations

from collections.abc import Iterable

from paohuzi_env.game.actions import GROUP_ID
from paohuzi_env.game.cards import COPIES, NUM_KINDS, WANG, code, kinds_of, parse
from paohuzi_env.game.cards import format as fmt
from paohuzi_env.game.engine import Game, check_invariants
from paohuzi_env.game.rules import Rules, as_rules

HAND_SIZE = 20
WALL_SIZE = 19

Cards = str | Iterable[int]


def cards(spec: Cards) -> list[int]:
    """Kind ids of notation or of a kind list (``cards("一二叁") == [0, 1, 12]``)."""
    return parse(spec, max_copies=COPIES)


def build_deck(
    dealer_hand: Cards,
    next_hand: Cards,
    prev_hand: Cards,
    wall: Cards = (),
    dealer: int = 0,
    *,
    liang: Cards | None = None,
    wang: int = 0,
) -> list[int]:
    """The deck of a scripted deal (R-DEAL-1 layout; R-WANG-2 with ``wang`` 王 in the deck).

    Args:
        dealer_hand: the dealer's 21 cards, the last being the 亮张; or 20 cards with
            ``liang`` given.
        next_hand: the 20 cards of next(dealer).
        prev_hand: the 20 cards of prev(dealer).
        wall: the first wall cards in draw order (at most 19); the rest of the wall is the
            leftover cards in ascending kind order.
        dealer: the dealer seat (0..2). The deck layout does not depend on it (hands are
            given relative to the dealer); it is validated so that a typo fails here.
        liang: the 亮张, when ``dealer_hand`` has 20 cards.
        wang: 王 in the deck (0, or 2 for ``yongzhou``): hands and wall may name them (``王``);
            the wall is then 19 + ``wang`` cards, and 王 not named end the wall.

    Returns:
        80 (+ ``wang``) kind ids for ``Game(deck=..., dealer=dealer)``.

    Raises:
        ValueError: for a hand of the wrong size, more than 19 wall cards, or more than 4
            cards of one kind in all.
    """
    if dealer not in (0, 1, 2):
        raise ValueError(f"dealer must be 0, 1 or 2, got {dealer!r}")
    d = cards(dealer_hand)
    if liang is not None:
        lz = cards(liang)
        if len(lz) != 1:
            raise ValueError(f"liang must be one card, got {liang!r}")
        if len(d) != HAND_SIZE:
            raise ValueError(f"with liang= the dealer hand needs 20 cards, got {len(d)}")
        d = d + lz
    if len(d) != HAND_SIZE + 1:
        raise ValueError(f"the dealer hand needs 21 cards (the last is the 亮张), got {len(d)}")
    n, p, w = cards(next_hand), cards(prev_hand), cards(wall)
    for label, h in (("next", n), ("prev", p)):
        if len(h) != HAND_SIZE:
            raise ValueError(f"the {label} hand needs 20 cards, got {len(h)}: {fmt(h)}")
    if len(w) > WALL_SIZE + wang:
        raise ValueError(f"at most {WALL_SIZE + wang} wall cards, got {len(w)}")
    used = [0] * (NUM_KINDS + 1)
    for k in d + n + p + w:
        used[k] += 1
    over = [f"{fmt([k])} ({code(k)}) x{c}" for k, c in enumerate(used[:NUM_KINDS]) if c > COPIES]
    if used[WANG] > wang:
        over.append(f"王 x{used[WANG]} (the deck has {wang})")
    if over:
        raise ValueError(f"more than 4 cards of a kind: {', '.join(over)}")
    rest = kinds_of([COPIES - c for c in used[:NUM_KINDS]]) + [WANG] * (wang - used[WANG])
    return d + n + p + w + rest


def new_game(
    dealer_hand: Cards,
    next_hand: Cards,
    prev_hand: Cards,
    wall: Cards = (),
    dealer: int = 0,
    *,
    liang: Cards | None = None,
    rules: str | Rules = "huaihua",
) -> Game:
    """``Game(rules, deck=build_deck(...), dealer=dealer)`` (with the rules' 王, if any)."""
    deck = build_deck(dealer_hand, next_hand, prev_hand, wall, dealer, liang=liang,
                      wang=as_rules(rules).wang)
    return Game(rules, deck=deck, dealer=dealer)


def G(spec: Cards) -> int:
    """The group action id of three cards in any order (``G("三一二") == 20``)."""
    return GROUP_ID[tuple(sorted(cards(spec)))]


def D(spec: Cards) -> int:
    """The discard action id of one card (``D("三") == 2``)."""
    (k,) = cards(spec)
    return k


def hand(g: Game, seat: int) -> str:
    """A seat's concealed cards as sorted Chinese text (its 王 first)."""
    return "王" * g.wang[seat] + fmt(kinds_of(g.hands[seat]))


def table(g: Game, seat: int) -> list[tuple[str, str]]:
    """A seat's table groups in the order they were placed, as ``(type, text)``."""
    return [(t, fmt(c)) for t, c in g.melds[seat]]


def play(g: Game, *actions: int) -> Game:
    """Step several actions (each must be legal), checking the invariants after each."""
    check_invariants(g)
    for a in actions:
        g.step(a)
        check_invariants(g)
    return g
