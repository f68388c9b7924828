"""Random holdings for tests and benchmarks (``python -m paohuzi_env.dev.bench hu`` uses them, so
they ship with the package).

One builder, :func:`winning_groups`, makes the 7 门子 of a winning holding from legal groups
(R-WIN-1): table 吃/碰/偎/臭偎/跑/提, hand 句/绞/坎/提 and the 将. Its keyword arguments give the
shapes each caller wants; every random choice comes from the ``random.Random`` passed in, so
a seed gives the same holdings everywhere.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence

from .actions import GROUPS
from .cards import NUM_KINDS, WANG
from .rules import Rules

Meld = tuple[str, tuple[int, ...]]
Holding = tuple[list[int], list[Meld], int | None]

RED = frozenset(k for k in range(NUM_KINDS) if k % 10 in (1, 6, 9))
"""The red kinds (二, 七, 十 of both suits; R-CARD-2)."""
POOLS = {
    "black": frozenset(range(NUM_KINDS)) - RED,  # 乌胡 / 黑胡
    "big": frozenset(range(10, NUM_KINDS)),  # 十八大 / 大字胡
    "small": frozenset(range(10)),  # 十六小 / 十八小 / 小字胡
}
"""Kind pools for :func:`winning_groups`' ``pool`` (besides ``red``: red-heavy groups)."""


def winning_groups(
    rng: random.Random,
    *,
    paoti: Sequence[int] = (0, 0, 1, 1, 2),
    paoti_places: Sequence[str] = ("ti", "pao"),
    triples: Sequence[str] = ("kan", "kan", "peng", "wei"),
    chi_share: float = 0.35,
    tries: int = 50,
    pool: str | None = None,
) -> tuple[list[int], list[Meld], list[tuple[int, ...]]] | None:
    """7 门子 from legal groups: ``(hand, melds, hand groups)``, the winning card still in the
    hand; None if the cards ran out.

    Args:
        rng: the source of every random choice.
        paoti: the number of 跑/提 is drawn from these (with any, a 将 pair completes the hand).
        paoti_places: where a four goes: ``ti`` / ``pao`` on the table, ``hand`` (a 提 held).
        triples: the place of a three of a kind: ``kan`` in the hand, or a table meld
            (``peng``, ``wei``, ``chou_wei``).
        chi_share: the share of 句/绞 put on the table as 吃 (the rest stays in the hand).
        tries: attempts per 门子 before giving up.
        pool: None, ``red`` (groups with two red cards or more, mostly), or a key of
            :data:`POOLS` (only kinds of that pool).
    """
    left = [4] * NUM_KINDS
    hand: list[int] = []
    melds: list[Meld] = []
    groups: list[tuple[int, ...]] = []

    def allowed(cards: Sequence[int]) -> bool:
        if pool is None:
            return True
        if pool == "red":
            return sum(k in RED for k in cards) >= 2 or rng.random() < 0.15
        return all(k in POOLS[pool] for k in cards)

    def take(cards: Sequence[int]) -> bool:
        if not allowed(cards):
            return False
        need = Counter(cards)
        if any(left[k] < n for k, n in need.items()):
            return False
        for k in cards:
            left[k] -= 1
        return True

    n_paoti = rng.choice(paoti)
    for _ in range(n_paoti):
        for _t in range(tries):
            k = rng.randrange(NUM_KINDS)
            if take([k] * 4):
                where = rng.choice(paoti_places)
                if where == "hand":
                    hand.extend([k] * 4)
                    groups.append((k,) * 4)
                else:
                    melds.append((where, (k,) * 4))
                break
        else:
            return None
    for _ in range(6 - n_paoti if n_paoti else 7):
        for _t in range(tries):
            if rng.random() < 0.6:
                g = rng.choice(GROUPS)
                if take(g):
                    if rng.random() < chi_share:
                        melds.append(("chi", g))
                    else:
                        hand.extend(g)
                        groups.append(g)
                    break
            else:
                k = rng.randrange(NUM_KINDS)
                if take([k] * 3):
                    t = rng.choice(triples)
                    if t == "kan":
                        hand.extend([k] * 3)
                        groups.append((k,) * 3)
                    else:
                        melds.append((t, (k,) * 3))
                    break
        else:
            return None
    if n_paoti:
        for _t in range(tries):
            k = rng.randrange(NUM_KINDS)
            if take([k, k]):
                hand.extend([k, k])
                groups.append((k, k))
                break
        else:
            return None
    return hand, melds, groups


def random_winning_holding(rng: random.Random) -> tuple[list[int], list[Meld], int] | None:
    """A random winning holding (before the huxi thresholds) as ``(hand kinds, melds, win
    card)``, the winning card a non-坎 hand card; None if the draw ran out of cards."""
    built = winning_groups(rng, triples=("kan", "peng", "wei"), chi_share=0.4)
    if built is None:
        return None
    hand, melds, _ = built
    win = take_loose_win(rng, hand)
    if win is None:
        return None
    rng.shuffle(hand)
    return hand, melds, win


def take_loose_win(rng: random.Random, hand: list[int]) -> int | None:
    """Remove and return a random card of ``hand`` whose kind is there fewer than 3 times (not
    part of a 坎, so it can be the winning card); None, leaving ``hand`` alone, if there is none."""
    counts = Counter(hand)
    choices = [k for k in hand if counts[k] < 3]
    if not choices:
        return None
    win = rng.choice(choices)
    hand.remove(win)
    return win


def sample_holdings(n: int, seed: int = 0, rules: str | Rules = "huaihua") -> list[Holding]:
    """``n`` holdings: half built from legal groups and winning under ``rules`` (huxi
    thresholds included), half random 20 cards + a card (almost never winning)."""
    from .scoring import evaluate_win

    rng = random.Random(seed)
    out: list[Holding] = []
    while len(out) < n:
        if len(out) % 2 == 0:
            h = random_winning_holding(rng)
            if h is not None and evaluate_win(h[0], h[1], h[2], rules=rules) is not None:
                out.append(h)
        else:
            deck = [k for k in range(NUM_KINDS) for _ in range(4)]
            rng.shuffle(deck)
            out.append((deck[:20], [], deck[20]))
    return out


def sample_wang_holdings(n: int, seed: int = 0) -> list[Holding]:
    """``n`` self-drawn ``yongzhou`` holdings with one or two 王 (R-WANG-4): built winning
    holdings with random cards (the winning card among them) replaced by 王, and random deals;
    as ``(hand, melds, win_card)``, the 王 in the hand (win_card None: a 王 was drawn)."""
    rng = random.Random(seed)
    out: list[Holding] = []
    while len(out) < n:
        n_wang = rng.randint(1, 2)
        if len(out) % 2 == 0:
            h = random_winning_holding(rng)
            if h is None or len(h[0]) < n_wang:
                continue
            cards = h[0] + [h[2]]
            for j in rng.sample(range(len(cards)), n_wang):
                cards[j] = WANG
            win = cards.pop()
            out.append((cards + [WANG], h[1], None) if win == WANG else (cards, h[1], win))
        else:
            deck = [k for k in range(NUM_KINDS) for _ in range(4)]
            rng.shuffle(deck)
            out.append((deck[: 20 - n_wang] + [WANG] * n_wang, [], deck[20 - n_wang]))
    return out
