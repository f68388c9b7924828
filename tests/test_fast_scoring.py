"""The compiled evaluator and 吃/比 search (``paohuzi_env._fast``) against the Python reference.

Differential tests: ``_fast.evaluate_counts`` must return the same ``scoring.Win`` (every field:
huxi, tun, fan, score, names in order, groups in order, red/big/small, wang_as) or None as
``scoring.evaluate_counts`` on the same canonical arguments; ``_fast.chi_groups`` /
``_fast.bi_groups`` the same as ``paohuzi_env.game.chi``. Holdings are random: winning ones built
from legal groups (R-WIN-1) with the winning card read every way R-WIN-2 / R-FLOW-2..4 allow
(a loose card, 跑 from a 坎 or a table 偎/碰, 偎/提 on a draw), complete holdings, forced 天胡
(R-START-1), near misses and random deals; yongzhou holdings with one or two 王 (R-WANG-4..7,
王吊). Each holding is evaluated under all 32 combinations of self_drawn / haidi / tianhu / dihu
/ from_discard, under a rule variant of its family drawn at random.

Per family 25,600 evaluations (800 holdings x 32 flag combinations) in the default run;
``-m slow`` runs 204,800 (6,400 holdings) and 1,000,000 per family.
"""

from __future__ import annotations

import itertools
import multiprocessing as mp
import os
import random
from collections import Counter

import pytest

from paohuzi_env.game import chi as pychi
from paohuzi_env.game import scoring
from paohuzi_env.game.actions import GROUPS
from paohuzi_env.game.rules import PRESETS, Rules, get_rules
from paohuzi_env.game.testing import take_loose_win, winning_groups

fast = pytest.importorskip("paohuzi_env._fast")
if not hasattr(fast, "evaluate_counts"):
    pytest.skip("paohuzi_env._fast has no evaluate_counts", allow_module_level=True)

FLAGS = tuple(itertools.product((False, True), repeat=5))
"""(self_drawn, haidi, tianhu, dihu, from_discard): every combination."""
FLAG_NAMES = ("self_drawn", "haidi", "tianhu", "dihu", "from_discard")
WANG = 20

# ---- rule variants per family ---------------------------------------------------------------

FAMILIES: dict[str, tuple[Rules, ...]] = {
    "huaihua": (
        PRESETS["huaihua"],
        PRESETS["huaihua-468"],
        get_rules("huaihua", zimo_15=False),
        get_rules("huaihua", zimo_tun=False, tianhu_is_zimo=True),
        get_rules("huaihua", min_huxi=10, pinghu_min_huxi=12),
    ),
    "classic": (
        get_rules("classic", fan_level="none"),
        get_rules("classic", fan_level="basic"),
        PRESETS["classic"],  # half
        get_rules("classic", fan_level="half", tianhu_is_zimo=False, pinghu_min_huxi=18),
        get_rules("classic", fan_level="basic", zimo_tun=False, zimo_15=False),
    ),
    "zipai": (
        PRESETS["zipai"],
        get_rules("zipai", fans={"封顶": 10}),
        get_rules("zipai", tianhu_is_zimo=True, zimo_tun=False),
        get_rules("zipai", min_huxi=9, pinghu_min_huxi=21),
    ),
    "hongshanzhang": (
        PRESETS["hongshanzhang"],
        get_rules("hongshanzhang", zimo_15=False),
        get_rules("hongshanzhang", tianhu_is_zimo=True, min_huxi=12),
    ),
    "yongzhou": (
        PRESETS["yongzhou"],
        get_rules("yongzhou", min_huxi=0, pinghu_min_huxi=0),
        get_rules("yongzhou", zimo_tun=True, tianhu_is_zimo=False),
        get_rules("yongzhou", fan_combine="sum", zimo_15=False, pinghu_min_huxi=18),
    ),
    "multiply": (
        get_rules("huaihua", fan_combine="multiply"),
        get_rules("classic", fan_combine="multiply"),
        get_rules("classic", fan_combine="multiply", fan_level="basic"),
        get_rules("zipai", fan_combine="multiply"),
        get_rules("hongshanzhang", fan_combine="multiply"),
    ),
}

# ---- random holdings ------------------------------------------------------------------------

def _pool(rng: random.Random) -> str | None:
    r = rng.random()
    if r < 0.5:
        return None
    if r < 0.65:
        return "red"  # red-heavy groups: 红胡, 红乌, 十三红
    return rng.choice(("black", "big", "small"))  # 乌胡 / 黑胡, 十八大 / 大字胡, 十六小 / 小字胡


def _build(rng: random.Random):
    """7 门子 from legal groups: ``(hand, melds)`` with the winning card still in the hand;
    None if the cards ran out. Table 吃/碰/偎/臭偎/跑/提, hand 句/绞/坎/提 and the 将."""
    pool = _pool(rng)
    built = winning_groups(rng, paoti=(0, 0, 0, 1, 1, 2, 3), paoti_places=("ti", "pao", "pao", "hand"),
                           triples=("kan", "kan", "peng", "wei", "chou_wei"), tries=60, pool=pool)
    return None if built is None else built[:2]


def _totals(hand, melds, win) -> Counter:
    total = Counter(k for k in hand if k != WANG)
    for _, cards in melds:
        total.update(cards)
    if win is not None and win != WANG:
        total[win] += 1
    return total


def _deal(rng: random.Random, n_wang: int = 0):
    deck = [k for k in range(20) for _ in range(4)]
    rng.shuffle(deck)
    melds = []
    n = 20 - n_wang
    if rng.random() < 0.3:  # a 提 or 跑 on the table
        k = deck.pop()
        while deck.count(k) < 3:
            k = deck.pop()
        for _ in range(3):
            deck.remove(k)
        melds.append((rng.choice(("ti", "pao")), (k,) * 4))
        n -= 4
    elif rng.random() < 0.3:  # a 吃 or a 碰 on the table
        g = rng.choice(GROUPS) if rng.random() < 0.5 else (deck[-1],) * 3
        if all(deck.count(k) >= c for k, c in Counter(g).items()):
            for k in g:
                deck.remove(k)
            melds.append(("chi" if g[0] != g[-1] else "peng", tuple(g)))
            n -= 3
    hand = deck[:n]
    if rng.random() < 0.2:
        return hand + deck[n: n + 1] + [WANG] * n_wang, melds, None
    return hand + [WANG] * n_wang, melds, deck[n]


def _tianhu(rng: random.Random, n_wang: int = 0):
    """A dealer's start with 3 four-of-a-kinds or 5 坎/提 (R-START-1), or just short of it."""
    left = [4] * 20
    hand: list[int] = []
    kinds = rng.sample(range(20), 5)
    n4 = rng.choice((0, 1, 2, 3))
    n3 = rng.choice((2, 3, 4, 5)) - min(n4, 2)
    for j, k in enumerate(kinds[: n4 + max(n3, 0)]):
        n = 4 if j < n4 else 3
        hand.extend([k] * n)
        left[k] -= n
    pool = [k for k in range(20) for _ in range(left[k])]
    rng.shuffle(pool)
    need = 21 - n_wang - len(hand)
    if need < 0:
        hand = hand[:21 - n_wang]
        need = 0
    if rng.random() < 0.5:  # a rest that decomposes (some of the time)
        for _t in range(30):
            g = rng.choice(GROUPS)
            if need >= 3 and all(pool.count(k) >= c for k, c in Counter(g).items()):
                for k in g:
                    pool.remove(k)
                hand.extend(g)
                need -= 3
    hand.extend(pool[:need])
    return hand + [WANG] * n_wang, [], None


def _plain_holding(rng: random.Random):
    """One holding without 王: ``(hand kinds, melds, win_card)``."""
    shape = rng.choices(
        ("loose", "complete", "pao", "wei_pair", "ti_wei", "miss", "deal", "tianhu"),
        weights=(24, 8, 18, 10, 8, 12, 10, 10),
    )[0]
    if shape == "deal":
        return _deal(rng)
    if shape == "tianhu":
        return _tianhu(rng)
    built = None
    while built is None:
        built = _build(rng)
    hand, melds = built
    if shape == "complete":
        return hand, melds, None
    if shape == "pao":
        # 跑胡 (R-FLOW-3.2/4.2): a 跑/提 of the table or the hand becomes its 3 + the card
        fours = [j for j, (t, _) in enumerate(melds) if t in ("pao", "ti")]
        hand4 = [k for k, n in Counter(hand).items() if n == 4]
        if fours and (not hand4 or rng.random() < 0.6):
            j = rng.choice(fours)
            k = melds[j][1][0]
            if rng.random() < 0.5:
                melds[j] = (rng.choice(("peng", "wei", "chou_wei")), (k,) * 3)
            else:
                del melds[j]
                hand.extend([k] * 3)
            return hand, melds, k
        if hand4:
            k = rng.choice(hand4)
            hand.remove(k)
            return hand, melds, k
    if shape == "wei_pair":  # a pair in hand + the card (偎 when drawn, 碰-like else)
        threes = [j for j, (t, _) in enumerate(melds) if t in ("peng", "wei", "chou_wei")]
        if threes:
            j = rng.choice(threes)
            k = melds.pop(j)[1][0]
            hand.extend([k, k])
            return hand, melds, k
    if shape == "ti_wei":  # a 提 of the table becomes a 偎 + the card (提 when drawn)
        tis = [j for j, (t, _) in enumerate(melds) if t == "ti"]
        if tis:
            j = rng.choice(tis)
            k = melds[j][1][0]
            melds[j] = (rng.choice(("wei", "chou_wei")), (k,) * 3)
            return hand, melds, k
    win = take_loose_win(rng, hand)
    if shape == "miss" and hand:
        total = _totals(hand, melds, win)
        j = rng.randrange(len(hand))
        k = rng.randrange(20)
        if total[k] < 4:
            hand[j] = k
    return hand, melds, win


def _wang_holding(rng: random.Random, n_wang: int):
    """One holding with ``n_wang`` 王 (R-WANG-4..7): built winning holdings with random cards
    replaced by 王 (the winning card among them: a drawn 王), 王吊 waits, near misses, deals
    and forced 天胡 starts."""
    shape = rng.choices(("sub", "diao", "miss", "deal", "tianhu"), weights=(35, 20, 20, 15, 10))[0]
    if shape == "deal":
        return _deal(rng, n_wang)
    if shape == "tianhu":
        return _tianhu(rng, n_wang)
    built = None
    while built is None:
        built = _build(rng)
    hand, melds = built
    if shape == "diao":  # the 将 (one 王) or a hand group (two 王) becomes 王 + the drawn card
        cnt = Counter(hand)
        pairs = [k for k, n in cnt.items() if n == 2]
        if n_wang == 1 and pairs:
            k = rng.choice(pairs)
            hand.remove(k)
            hand.remove(k)
            return hand + [WANG], melds, k
        if n_wang == 2 and len(hand) >= 3:
            k = rng.choice([k for k in hand if cnt[k] < 3] or hand)
            hand.remove(k)
            others = [x for x in hand if x != k]
            for x in rng.sample(others, min(2, len(others))):
                hand.remove(x)
            return hand + [WANG] * 2, melds, k
    cards = list(hand)
    rng.shuffle(cards)
    if len(cards) < n_wang:
        return cards + [WANG] * n_wang, melds, None
    real = cards[n_wang:]
    if shape == "miss" and real:
        total = _totals(real, melds, None)
        k = rng.randrange(20)
        if total[k] < 4:
            real[rng.randrange(len(real))] = k
    if rng.random() < 0.2:
        return real + [WANG] * n_wang, melds, None  # the last card drawn was a 王 (D-17)
    win = take_loose_win(rng, real)
    return real + [WANG] * n_wang, melds, win


def _canonical(hand, melds, win):
    counts = [0] * 20
    n_wang = 0
    for k in hand:
        if k == WANG:
            n_wang += 1
        else:
            counts[k] += 1
    ms = tuple(sorted((t, tuple(sorted(c))) for t, c in melds))
    return tuple(counts), ms, win, n_wang


# ---- the differential run -------------------------------------------------------------------


_KWS = {w: tuple(dict(zip(FLAG_NAMES, f), wang=w) for f in FLAGS) for w in (0, 1, 2)}


def _run(family: str, n_holdings: int, seed: int, n_wang: int | None = None):
    """Evaluate ``n_holdings`` holdings x 32 flag combinations both ways; returns
    (evaluations, wins, names seen, 王吊 wins, mismatches)."""
    rng = random.Random(seed)
    variants = FAMILIES[family]
    py_eval, c_eval, win_type = scoring.evaluate_counts, fast.evaluate_counts, scoring.Win
    calls = wins = diao = 0
    names: Counter = Counter()
    bad: list = []
    for i in range(n_holdings):
        if i % 997 == 0:
            fast.clear_caches()  # cold paths too, and memo answers equal fresh ones
        if n_wang is None:
            holding = _plain_holding(rng)
        else:
            holding = None
            while holding is None:
                holding = _wang_holding(rng, n_wang)
        hand, melds, win, w = _canonical(*holding)
        rules = rng.choice(variants)
        for kw in _KWS[w]:
            want = py_eval(hand, melds, win, rules, **kw)
            got = c_eval(hand, melds, win, rules, **kw)
            calls += 1
            if got != want or (want is not None and type(got) is not win_type):
                if len(bad) < 5:
                    bad.append((hand, melds, win, rules.name, kw, want, got))
                continue
            if want is not None:
                wins += 1
                names.update(want.names)
                diao += any(t == "wang_diao" for t, _ in want.groups)
    return calls, wins, names, diao, bad


def _workers() -> int:
    """2 processes where the machine has the cores and fork exists (the Python side dominates);
    PAOHUZI_TEST_WORKERS overrides."""
    env = os.environ.get("PAOHUZI_TEST_WORKERS")
    if env:
        return max(1, int(env))
    if "fork" not in mp.get_all_start_methods():
        return 1
    return 2 if (os.cpu_count() or 1) >= 2 else 1


def _check(family: str, n_holdings: int, seed: int, n_wang: int | None = None):
    workers = _workers()
    chunks = [
        (family, n_holdings // workers + (j < n_holdings % workers), 1000 * seed + j, n_wang)
        for j in range(workers)
    ]
    if workers == 1:
        results = [_run(*chunks[0])]
    else:
        with mp.get_context("fork").Pool(workers) as pool:
            results = pool.starmap(_run, chunks)
    calls = sum(r[0] for r in results)
    wins = sum(r[1] for r in results)
    names = sum((r[2] for r in results), Counter())
    diao = sum(r[3] for r in results)
    bad = [b for r in results for b in r[4]]
    assert not bad, "\n".join(map(repr, bad))
    assert calls == n_holdings * len(FLAGS)
    # both winning and non-winning holdings
    assert calls * 0.05 < wins < calls * 0.9, (wins, calls)
    return names, diao


N = 800  # x 32 flag combinations = 25,600 evaluations per family: the default suite's sample
FULL_N = 6400  # x 32 = 204,800 per family: -m slow (the former default count)
SLOW_N = 31250  # x 32 = 1,000,000
SIZES = [N, pytest.param(FULL_N, marks=pytest.mark.slow)]


_EXPECTED_NAMES = {
    "huaihua": {"天胡", "地胡", "乌胡", "点胡", "红胡", "碰碰胡", "十八大", "十六小", "海底胡", "自摸"},
    "classic": {"天胡", "乌胡", "点胡", "红胡", "红乌", "对对胡", "海底", "自摸"},
    "zipai": {"天胡", "乌胡", "真点胡", "假点胡", "红胡", "红乌", "对对胡", "大字胡", "小字胡", "海底",
              "耍猴", "自摸"},
    "hongshanzhang": {"黑胡", "一点朱", "红胡", "十三红", "碰碰胡", "十八大", "十八小", "海底", "自摸"},
    "multiply": {"乌胡", "点胡", "红胡", "碰碰胡", "海底", "自摸"},
}


_SEEDS = {"huaihua": 1, "classic": 2, "zipai": 3, "hongshanzhang": 4, "multiply": 5}


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("family", ["huaihua", "classic", "zipai", "hongshanzhang", "multiply"])
def test_evaluate_counts_matches_python(family, n):
    names, _ = _check(family, n, seed=_SEEDS[family])
    missing = _EXPECTED_NAMES[family] - set(names)
    assert not missing, f"the sample never reached {missing}: {names}"


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("n_wang", [0, 1, 2])
def test_evaluate_counts_matches_python_yongzhou(n_wang, n):
    # 0: the plain path under yongzhou rules; 1 and 2 王: _evaluate_wang (R-WANG-4..7)
    names, diao = _check("yongzhou", n if n_wang else n // 4, seed=50 + n_wang,
                         n_wang=n_wang or None)
    if n_wang:
        assert diao > 0
        assert {"黑胡", "点朱胡", "红胡", "自摸", "单王吊" if n_wang == 1 else "双王吊"} <= set(names)


@pytest.mark.slow
@pytest.mark.parametrize(
    "family, n_wang",
    [("huaihua", None), ("classic", None), ("zipai", None), ("hongshanzhang", None),
     ("multiply", None), ("yongzhou", 1), ("yongzhou", 2)],
)
def test_evaluate_counts_matches_python_million(family, n_wang):
    _check(family, SLOW_N, seed=7000 + len(family) + (n_wang or 0), n_wang=n_wang)


def test_same_object_on_a_repeat_call():
    # memoised like the Python lru_cache: the same arguments give the same Win object back
    rng = random.Random(3)
    for _ in range(200):
        hand, melds, win, _w = _canonical(*_plain_holding(rng))
        a = fast.evaluate_counts(hand, melds, win, PRESETS["huaihua"], self_drawn=True)
        b = fast.evaluate_counts(hand, melds, win, PRESETS["huaihua"], self_drawn=True)
        assert a is b
        if a is not None:
            assert isinstance(a, scoring.Win)
            with pytest.raises(AttributeError):
                a.huxi = 0  # frozen, like the Python one
            assert hash(a) == hash(scoring.evaluate_counts(hand, melds, win, PRESETS["huaihua"],
                                                           self_drawn=True))


def test_rules_ids():
    a = fast.rules_id(PRESETS["huaihua"])
    assert a == fast.rules_id(get_rules("huaihua"))
    assert a == fast.rules_id(Rules())  # equal by value, another object
    assert a == fast.rules_id("huaihua")
    assert fast.rules_id(get_rules("huaihua", zimo_15=False)) != a
    assert fast.rules_id(PRESETS["classic"]) != a


# ---- 吃 / 比 -----------------------------------------------------------------------------------


def _random_hand(rng: random.Random) -> tuple[int, ...]:
    counts = [0] * 20
    for k in rng.sample([k for k in range(20) for _ in range(4)], rng.randrange(1, 22)):
        counts[k] += 1
    return tuple(counts)


def test_chi_groups_match_python():
    rng = random.Random(11)
    legal_seen = 0
    for _ in range(20000):
        hand = _random_hand(rng)
        c = rng.randrange(20)
        owes = rng.random() < 0.5
        want = pychi.chi_groups(hand, c, owes)
        got = fast.chi_groups(hand, c, owes)
        assert got == want, (hand, c, owes)
        assert type(got[0]) is tuple and type(got[1]) is bool
        legal_seen += bool(want[0])
    assert legal_seen > 2000


def test_bi_groups_match_python():
    rng = random.Random(12)
    legal_seen = 0
    for _ in range(20000):
        usable = pychi.usable(_random_hand(rng))
        c = rng.randrange(20)
        owes = rng.random() < 0.5
        want = pychi.bi_groups(usable, c, owes)
        got = fast.bi_groups(usable, c, owes)
        assert got == want, (usable, c, owes)
        legal_seen += bool(want)
    assert legal_seen > 1000


# ---- malformed input ------------------------------------------------------------------------

_H = tuple([1] * 20)
_R = PRESETS["huaihua"]


@pytest.mark.parametrize(
    "args, kw",
    [
        ((_H[:19], (), None, _R), {}),  # 19 counts
        ((_H + (0,), (), None, _R), {}),  # 21 counts
        (((5,) + _H[1:], (), None, _R), {}),  # 5 copies
        (((-1,) + _H[1:], (), None, _R), {}),
        ((("x",) + _H[1:], (), None, _R), {}),
        ((1, (), None, _R), {}),  # not a sequence
        ((_H, (("kan", (1, 1, 1)),), None, _R), {}),  # a hand type as a meld
        ((_H, (("bogus", (1, 1, 1)),), None, _R), {}),
        ((_H, (("chi", (1, 2, 4)),), None, _R), {}),  # no 句
        ((_H, (("chi", (2, 1, 0)),), None, _R), {}),  # unsorted
        ((_H, (("peng", (1, 1)),), None, _R), {}),
        ((_H, (("ti", (1, 1, 1)),), None, _R), {}),
        ((_H, (("peng", (1, 1, 2)),), None, _R), {}),
        ((_H, (("peng", (20, 20, 20)),), None, _R), {}),  # a 王 on the table (R-WANG-3)
        ((_H, (("peng",),), None, _R), {}),
        ((_H, ("peng",), None, _R), {}),
        ((_H, (), 20, _R), {}),  # win_card 王: counted in wang instead (D-17)
        ((_H, (), -1, _R), {}),
        ((_H, (), "s1", _R), {}),
        ((_H, (), None, 42), {}),  # not a Rules
        ((_H, (), None, "nonsense"), {}),
        ((_H, (), None, _R), {"wang": 3}),
        ((_H, (), None, _R), {"wang": 1}),  # huaihua has no 王 (as Python)
        ((_H, (), None, PRESETS["yongzhou"]), {"wang": -1}),
    ],
)
def test_malformed_input_raises_value_error(args, kw):
    with pytest.raises(ValueError):
        fast.evaluate_counts(*args, **kw)


def test_python_raises_the_same_on_wang_without_a_deck():
    with pytest.raises(ValueError):
        scoring.evaluate_counts(_H, (), None, _R, wang=1)


def test_argument_errors():
    with pytest.raises(TypeError):
        fast.evaluate_counts(_H, (), None)  # rules missing
    with pytest.raises(TypeError):
        fast.evaluate_counts(_H, (), None, _R, True)  # flags are keyword-only
    with pytest.raises(TypeError):
        fast.evaluate_counts(_H, (), None, _R, nonsense=True)
    # keywords for the positional parameters work as in Python
    assert fast.evaluate_counts(hand=_H, melds=(), win_card=None, rules=_R) == (
        scoring.evaluate_counts(_H, (), None, _R)
    )


@pytest.mark.parametrize(
    "fn, args",
    [
        ("chi_groups", (_H[:5], 0, False)),
        ("chi_groups", (_H, 20, False)),
        ("chi_groups", (_H, -1, False)),
        ("chi_groups", ((9,) + _H[1:], 0, False)),
        ("bi_groups", (_H + (1,), 0, False)),
        ("bi_groups", (_H, 25, True)),
        ("bi_groups", (None, 0, True)),
    ],
)
def test_chi_malformed_input(fn, args):
    with pytest.raises(ValueError):
        getattr(fast, fn)(*args)


def test_small_memo_tables_agree():
    # The eviction paths (tables emptied between searches, the two generations of answers):
    # answers stay equal to Python's with tables of a few entries.
    fast._set_memo_caps(solve=64, wild=16, win=8)
    try:
        for family, n_wang in (("huaihua", None), ("zipai", None), ("yongzhou", 2)):
            calls, wins, _, _, bad = _run(family, 150, seed=77, n_wang=n_wang)
            assert not bad, "\n".join(map(repr, bad))
            assert wins > 0
    finally:
        fast._set_memo_caps()
        fast.clear_caches()


def test_group_tables_match_python():
    from paohuzi_env.game import actions, groups

    chi_groups, groups_with, names = fast._tables()
    assert chi_groups == groups.CHI_GROUPS
    assert groups_with == actions.GROUPS_WITH
    assert set(names) == set(groups.GROUP_NAMES)
    for t in itertools.product(range(20), repeat=3):
        assert fast._group_id(*t) == actions.GROUP_ID.get(t, -1)
    for gtype in groups.GROUP_NAMES:
        cases = [(k,) * n for k in range(20) for n in (2, 3, 4)] + list(groups.CHI_GROUPS)
        for cards in cases:
            assert fast._group_huxi(gtype, cards) == groups.group_huxi(gtype, cards), (gtype, cards)


def test_numpy_integers_accepted():
    np = pytest.importorskip("numpy")
    rng = random.Random(5)
    for _ in range(50):
        hand, melds, win, _w = _canonical(*_plain_holding(rng))
        want = scoring.evaluate_counts(hand, melds, win, _R)
        got = fast.evaluate_counts(np.array(hand), melds, None if win is None else np.int64(win), _R)
        assert got == want
    with pytest.raises(ValueError):
        fast.evaluate_counts(np.array(hand, dtype=float), melds, win, _R)
