"""Benchmarks: ``python -m paohuzi_env.bench {hu,engine,env} [--seconds S] [--seed N]``.

* ``hu``: µs per ``evaluate_win`` call over a fixed seeded sample of random holdings, half of
  them winning, with caches cleared before every call (cold) and on a repeat pass (warm); then
  the same for ``yongzhou`` holdings with one or two 王 (RULES.md section 10).
* ``engine``: random-legal hands for a fixed time; hands/s and decisions/s.
* ``env``: random masked play through the AEC API with observations; steps/s.

All figures are measured on the machine you run it on, one process (one core).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from .actions import GROUPS
from .cards import NUM_KINDS


def random_winning_holding(rng: np.random.Generator):
    """A random winning holding: 7 门子 built from legal groups, as
    ``(hand kinds, melds, win_card)``; None if the draw ran out of cards."""
    left = [4] * NUM_KINDS
    n_paoti = int(rng.choice([0, 0, 1, 1, 2]))
    hand: list[int] = []
    melds: list[tuple[str, tuple[int, ...]]] = []

    def take(cards) -> bool:
        need = [0] * NUM_KINDS
        for k in cards:
            need[k] += 1
        if any(left[k] < need[k] for k in range(NUM_KINDS)):
            return False
        for k in cards:
            left[k] -= 1
        return True

    for _ in range(n_paoti):
        for _try in range(50):
            k = int(rng.integers(NUM_KINDS))
            if take([k] * 4):
                melds.append((str(rng.choice(["ti", "pao"])), (k,) * 4))
                break
        else:
            return None
    groups = 6 - n_paoti if n_paoti else 7
    for _ in range(groups):
        for _try in range(50):
            r = rng.random()
            if r < 0.6:
                g = GROUPS[int(rng.integers(len(GROUPS)))]
                if take(g):
                    if rng.random() < 0.4:
                        melds.append(("chi", g))
                    else:
                        hand.extend(g)
                    break
            else:
                k = int(rng.integers(NUM_KINDS))
                if take([k] * 3):
                    t = str(rng.choice(["kan", "peng", "wei"]))
                    if t == "kan":
                        hand.extend([k] * 3)
                    else:
                        melds.append((t, (k,) * 3))
                    break
        else:
            return None
    if n_paoti:
        for _try in range(50):
            k = int(rng.integers(NUM_KINDS))
            if take([k, k]):
                hand.extend([k, k])
                break
        else:
            return None
    # the winning card: a non-坎 hand card, so that the holding before it is a real hand
    counts = np.bincount(hand, minlength=NUM_KINDS)
    choices = [k for k in hand if counts[k] < 3]
    if not choices:
        return None
    win = int(rng.choice(choices))
    hand.remove(win)
    rng.shuffle(hand)
    return hand, melds, win


def sample_holdings(n: int, seed: int = 0, rules="huaihua"):
    """``n`` holdings: half built from legal groups and winning under ``rules`` (huxi
    thresholds included), half random 20 cards + a card (almost never winning)."""
    from .scoring import evaluate_win

    rng = np.random.default_rng(seed)
    out: list[tuple] = []
    while len(out) < n:
        if len(out) % 2 == 0:
            h = random_winning_holding(rng)
            if h is not None and evaluate_win(h[0], h[1], h[2], rules=rules) is not None:
                out.append(h)
        else:
            deck = rng.permutation(np.repeat(np.arange(NUM_KINDS), 4))
            out.append((deck[:20].tolist(), [], int(deck[20])))
    return out


def sample_wang_holdings(n: int, seed: int = 0):
    """``n`` self-drawn ``yongzhou`` holdings with one or two 王 (R-WANG-4): built winning
    holdings with random cards (the winning card among them) replaced by 王, and random deals;
    as ``(hand, melds, win_card)``, the 王 in the hand."""
    from .cards import WANG

    rng = np.random.default_rng(seed)
    out: list[tuple] = []
    while len(out) < n:
        n_wang = int(rng.integers(1, 3))
        if len(out) % 2 == 0:
            h = random_winning_holding(rng)
            if h is None or len(h[0]) < n_wang:
                continue
            cards = h[0] + [h[2]]
            for j in rng.choice(len(cards), n_wang, replace=False):
                cards[int(j)] = WANG
            win = cards.pop()
            out.append((cards + [WANG], h[1], None) if win == WANG else (cards, h[1], win))
        else:
            deck = rng.permutation(np.repeat(np.arange(NUM_KINDS), 4)).tolist()
            out.append((deck[: 20 - n_wang] + [WANG] * n_wang, [], deck[20 - n_wang]))
    return out


def bench_hu(seconds: float, seed: int) -> None:
    from .cards import counts_of
    from .groups import normalise_meld
    from .rules import get_rules
    from .scoring import clear_caches, evaluate_counts, evaluate_win

    rules = get_rules("huaihua")
    sample = sample_holdings(2000, seed)
    wins = sum(evaluate_win(h, m, w, rules=rules) is not None for h, m, w in sample)
    clear_caches()
    t = time.perf_counter()
    for h, m, w in sample:
        clear_caches()
        evaluate_win(h, m, w, rules=rules)
    cold = (time.perf_counter() - t) / len(sample) * 1e6
    t = time.perf_counter()
    passes = 0
    while time.perf_counter() - t < seconds:
        for h, m, w in sample:
            evaluate_win(h, m, w, rules=rules)
        passes += 1
    warm = (time.perf_counter() - t) / (passes * len(sample)) * 1e6
    canon = [
        (tuple(counts_of(h)), tuple(sorted(normalise_meld(x) for x in m)), w)
        for h, m, w in sample
    ]
    t = time.perf_counter()
    passes = 0
    while time.perf_counter() - t < seconds:
        for h, m, w in canon:
            evaluate_counts(h, m, w, rules)
        passes += 1
    engine_warm = (time.perf_counter() - t) / (passes * len(sample)) * 1e6
    print(f"evaluate_win over {len(sample)} holdings ({wins} winning under huaihua):")
    print(f"  cold cache (caches cleared before each call): {cold:8.1f} µs/call")
    print(f"  warm cache (repeat pass, with input parsing):  {warm:8.1f} µs/call")
    print(f"  warm cache, canonical inputs (engine path):    {engine_warm:8.2f} µs/call")

    from .rules import YONGZHOU

    wsample = sample_wang_holdings(400, seed)
    wins = sum(evaluate_win(h, m, w, rules=YONGZHOU, self_drawn=True) is not None
               for h, m, w in wsample)
    t = time.perf_counter()
    for h, m, w in wsample:
        clear_caches()
        evaluate_win(h, m, w, rules=YONGZHOU, self_drawn=True)
    cold = (time.perf_counter() - t) / len(wsample) * 1e6
    t = time.perf_counter()
    passes = 0
    while time.perf_counter() - t < seconds / 2:
        for h, m, w in wsample:
            evaluate_win(h, m, w, rules=YONGZHOU, self_drawn=True)
        passes += 1
    warm = (time.perf_counter() - t) / (passes * len(wsample)) * 1e6
    print(f"evaluate_win over {len(wsample)} yongzhou holdings with 1-2 王 ({wins} winning):")
    print(f"  cold cache (caches cleared before each call): {cold:8.1f} µs/call")
    print(f"  warm cache (repeat pass, with input parsing):  {warm:8.1f} µs/call")


def bench_engine(seconds: float, seed: int) -> None:
    from .engine import Game

    ss = np.random.SeedSequence(seed)
    rng = np.random.default_rng(ss.spawn(1)[0])
    hands = decisions = 0
    t = time.perf_counter()
    while time.perf_counter() - t < seconds:
        g = Game("huaihua", seed=int(rng.integers(2**63)))
        while not g.done:
            legal = g.legal_actions()
            g.step(legal[int(rng.integers(len(legal)))])
            decisions += 1
        hands += 1
    el = time.perf_counter() - t
    print(f"engine: {hands / el:8.1f} hands/s  {decisions / el:9.1f} decisions/s "
          f"({decisions / max(1, hands):.1f} decisions/hand, {el:.1f} s)")


def bench_env(seconds: float, seed: int) -> None:
    from . import env as make_env

    e = make_env()
    rng = np.random.default_rng(seed)
    e.reset(seed=seed)
    steps = hands = 0
    t = time.perf_counter()
    while time.perf_counter() - t < seconds:
        for agent in e.agent_iter():
            obs, _, term, trunc, _ = e.last()
            if term or trunc:
                action = None
            else:
                legal = np.flatnonzero(obs["action_mask"])
                action = int(legal[rng.integers(len(legal))])
            e.step(action)
            steps += 1
        hands += 1
        e.reset()
    el = time.perf_counter() - t
    print(f"env (wrapped AEC, observations + masks): {steps / el:8.1f} steps/s "
          f"({hands / el:.1f} hands/s, {el:.1f} s)")


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m paohuzi_env.bench", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("what", choices=["hu", "engine", "env"])
    p.add_argument("--seconds", type=float, default=10.0)
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args(argv)
    {"hu": bench_hu, "engine": bench_engine, "env": bench_env}[a.what](a.seconds, a.seed)


if __name__ == "__main__":
    main()
