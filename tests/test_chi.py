"""The 吃/比 legality search (paohuzi_env/game/chi.py) against a brute force that names whole chains.

R-CHI-1: the 吃 group's other two cards come from the hand, never a 坎. R-CHI-2: every copy of c
left in the hand goes out in further groups containing c, all three cards from the hand (no 坎).
R-CHI-3: a 吃 whose 比 cannot be completed is illegal. R-CHI-4: a 吃 that leaves the player owing a
discard must leave a card R-DISC-1 lets it discard."""

from __future__ import annotations

import numpy as np
import pytest

from paohuzi_env.game.actions import GROUPS, GROUPS_WITH, group_cards
from paohuzi_env.game.cards import NUM_KINDS, parse
from paohuzi_env.game.chi import bi_completable, bi_groups, chi_groups, chi_need, discard_target, take, usable


def gid(text: str) -> int:
    cards = tuple(sorted(parse(text)))
    return 20 + GROUPS.index(cards)


def counts(text: str) -> tuple[int, ...]:
    h = [0] * NUM_KINDS
    for k in parse(text):
        h[k] += 1
    return tuple(h)


def chains(hand: tuple[int, ...], c: int) -> list[tuple[int, tuple[int, ...]]]:
    """Every complete 吃 + 比 chain for c offered to ``hand``, by plain enumeration (no memo):
    ``(吃 group id, hand cards left)`` per chain."""
    out = []
    free = [n if n < 3 else 0 for n in hand]  # R-CHI-1/2: never a 坎 card

    def rest_after(cards, group, offered):
        left = list(cards)
        used_offer = not offered
        for k in group:
            if k == c and not used_offer:
                used_offer = True
                continue
            if left[k] == 0:
                return None
            left[k] -= 1
        return left

    def extend(cards, first):
        if cards[c] == 0:
            out.append((first, tuple(cards)))
            return
        for a in range(20, 58):
            g = group_cards(a)
            if c in g:
                left = rest_after(cards, g, offered=False)
                if left is not None:
                    extend(left, first)

    for a in range(20, 58):
        g = group_cards(a)
        if c in g:
            left = rest_after(free, g, offered=True)
            if left is not None:
                extend(left, a)
    return out


def brute_chi(hand, c, owes_after):
    legal, fits = set(), False
    free = [n if n < 3 else 0 for n in hand]
    for a in range(20, 58):
        g = list(group_cards(a))
        if c not in g:
            continue
        g.remove(c)
        need = [0] * NUM_KINDS
        for k in g:
            need[k] += 1
        if all(free[k] >= need[k] for k in range(NUM_KINDS)):
            fits = True
    for first, left in chains(hand, c):
        if not owes_after or any(left):  # left holds no 坎 card: any card left is discardable
            legal.add(first)
    return tuple(sorted(legal)), fits


@pytest.mark.parametrize("seed", range(4))
def test_chi_groups_match_brute_force_on_random_hands(seed):
    rng = np.random.default_rng(seed)
    checked = 0
    while checked < 400:
        # small hands concentrated on few kinds, so that 比 chains are common
        kinds = rng.choice(NUM_KINDS, size=int(rng.integers(2, 7)), replace=False)
        h = [0] * NUM_KINDS
        for _ in range(int(rng.integers(2, 11))):
            h[int(rng.choice(kinds))] += 1
        if max(h) > 3:
            continue
        hand = tuple(h)
        c = int(rng.choice(kinds))
        for owes in (False, True):
            legal, fits = chi_groups(hand, c, owes)
            assert (tuple(sorted(legal)), fits) == brute_chi(hand, c, owes), (hand, c, owes)
        checked += 1


def test_seed_000_b_bi_steps():
    # docs/rules.md section 6, seed 000 (b): hand 一 二二 三三 四 贰贰, 吃 二 with 一三 → 比 二二贰 (done), or
    # 二贰贰 then 二三四, or 二三四 then 二贰贰.
    hand = counts("一 二二 三三 四 贰贰")
    c = parse("二")[0]
    assert gid("一二三") in chi_groups(hand, c, False)[0]
    left = take(usable(hand), chi_need(gid("一二三"), c))
    assert bi_groups(left, c, False) == (gid("二三四"), gid("二二贰"), gid("二贰贰"))
    after = take(left, counts("二三四"))
    assert bi_groups(after, c, False) == (gid("二贰贰"),)


def test_seed_001_no_legal_chi_but_groupable():
    # seed 001: hand 二三四五, 三 appears → no legal 吃 (the other 三 cannot 比), yet the hand
    # could group 三 (R-CHOU-4 applies).
    assert chi_groups(counts("二三四五"), parse("三")[0], False) == ((), True)


def test_kan_cards_never_eat_and_keep_one_needs_a_free_card():
    # 坎 of 三 and 一二: 吃 三 with 一二 is fine without owing a discard; owing one, nothing but
    # the 坎 would be left → illegal (R-CHI-4).
    hand = counts("三三三 一二")
    c = parse("三")[0]
    assert chi_groups(hand, c, False)[0] == (gid("一二三"),)
    assert chi_groups(hand, c, True)[0] == ()
    # one 三 left to place with 一二: it goes out in 一二三; keeping a card needs one more
    assert bi_completable(counts("三 一二"), c)
    assert not bi_completable(counts("三 一二"), c, keep_one=True)
    assert bi_completable(counts("三 一二 五"), c, keep_one=True)
    assert not bi_completable(counts("三 一"), c)


def test_discard_target():
    # R-GROUP-3: 20 + max(0, n − 1)
    assert [discard_target(n) for n in range(4)] == [20, 20, 21, 22]


def test_groups_with_every_kind():
    for k in range(NUM_KINDS):
        assert all(k in group_cards(a) for a in GROUPS_WITH[k])
