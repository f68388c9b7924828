"""Property tests of the hand evaluator (R-WIN-1, R-WIN-2, R-GROUP-1, R-SCORE-3).

Holdings are built from random legal groups: 句/绞/坎 in the hand, 吃/碰/偎/臭偎 on the table,
optionally 跑/提 (on the table, or four of a kind in the hand) with one 将 pair; exactly 7 门子
and at most 4 copies of each kind (R-CARD-1). Loose hand groups never put a third copy of a
kind into the hand, since three of a kind in a hand are a 坎 that may not be split
(R-GROUP-1). The winning card is taken from a loose hand group (or is the self-drawn card that
turns a 坎 into a 偎 / a hand 提 minus one back into a 提), or there is none (a dealer's full hand).

The huxi oracle below is written from the table of docs/rules.md section 3, independently of
``paohuzi_env.game.groups``.
"""

from __future__ import annotations

import random
from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paohuzi_env import evaluate_win, get_rules

# Huxi thresholds must not interfere (R-WIN-3 is tested in test_scoring.py).
RULES = get_rules("huaihua", min_huxi=0, pinghu_min_huxi=0)
# Same, but the fan cannot depend on the reading: 碰碰胡 (the only 名堂 a reading can change)
# multiplies by 1. Then the best score is the best tun, and ties go to more huxi (R-WIN-2),
# so the evaluator must return the most huxi any reading has.
RULES_FLAT = get_rules(
    "huaihua", min_huxi=0, pinghu_min_huxi=0, fan_combine="multiply", fans={"碰碰胡": 1}
)

PROPS = settings(
    max_examples=200,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)

# ---- independent oracle -----------------------------------------------------------------


def _seqs() -> list[tuple[int, int, int]]:
    out = []
    for base in (0, 10):  # small 一..十 = 0..9, big 壹..拾 = 10..19 (R-CARD-1)
        out += [(base + p, base + p + 1, base + p + 2) for p in range(8)]
        out.append((base + 1, base + 6, base + 9))  # 二七十 / 贰柒拾
    return out


SEQS = _seqs()
JIAOS = [(p, p, p + 10) for p in range(10)] + [(p, p + 10, p + 10) for p in range(10)]
HUXI_SAME = {"peng": (1, 3), "kan": (3, 6), "wei": (3, 6), "chou_wei": (3, 6),
             "pao": (6, 9), "ti": (9, 12)}


def seq_huxi(cards) -> int:
    c = tuple(sorted(cards))
    if c in ((0, 1, 2), (1, 6, 9)):  # 一二三, 二七十
        return 3
    if c in ((10, 11, 12), (11, 16, 19)):  # 壹贰叁, 贰柒拾
        return 6
    return 0  # other 句, every 绞


def same_huxi(gtype: str, kind: int) -> int:
    small, big = HUXI_SAME[gtype]
    return big if kind >= 10 else small


def is_red(k: int) -> bool:
    return k % 10 + 1 in (2, 7, 10)  # R-CARD-2


# ---- the generator ----------------------------------------------------------------------

TRIPLE_TYPES = ["hand_seq", "hand_jiao", "hand_kan", "table_seq", "table_jiao",
                "peng", "wei", "chou_wei"]


@st.composite
def holdings(draw, loose_from_other: bool = False):
    """A legal winning holding; with ``loose_from_other`` the winning card is always a loose
    hand card shown by another player."""
    total = [0] * 20  # every copy used so far
    hand = [0] * 20  # concealed hand counts (winning card still inside)
    melds: list[tuple[str, list[int]]] = []
    loose: list[int] = []  # cards of 句/绞/将 in the hand
    locked: list[int] = []  # kinds of hand 坎 and hand 提
    huxi = 0
    table_wei: set[int] = set()

    n4 = draw(st.integers(0, 3), label="number of 跑/提")
    for _ in range(n4):
        k = draw(st.sampled_from([k for k in range(20) if total[k] == 0]))
        where = draw(st.sampled_from(["pao", "ti", "hand_ti"]))
        total[k] += 4
        if where == "hand_ti":
            hand[k] += 4  # four in the hand count as a 提
            locked.append(k)
            huxi += same_huxi("ti", k)
        else:
            melds.append((where, [k] * 4))
            huxi += same_huxi(where, k)
    if n4:
        k = draw(st.sampled_from([k for k in range(20) if hand[k] == 0 and total[k] <= 2]))
        hand[k] += 2
        total[k] += 2
        loose += [k, k]

    for _ in range(7 - n4 - (1 if n4 else 0)):
        kind = draw(st.sampled_from(TRIPLE_TYPES))
        options = _options(kind, total, hand)
        if not options:  # fall back to any group that still fits
            options = [o for t in TRIPLE_TYPES for o in _options(t, total, hand)]
        gtype, cards = draw(st.sampled_from(options))
        for k in cards:
            total[k] += 1
        if gtype in ("hand_seq", "hand_jiao"):
            for k in cards:
                hand[k] += 1
            loose += list(cards)
            huxi += seq_huxi(cards)
        elif gtype == "hand_kan":
            hand[cards[0]] += 3
            locked.append(cards[0])
            huxi += same_huxi("kan", cards[0])
        elif gtype in ("table_seq", "table_jiao"):
            melds.append(("chi", list(cards)))
            huxi += seq_huxi(cards)
        else:
            melds.append((gtype, list(cards)))
            huxi += same_huxi(gtype, cards[0])
            if gtype in ("wei", "chou_wei"):
                table_wei.add(cards[0])

    modes = ["none"] + (["loose"] * 3 if loose else []) + (["locked_self"] if locked else [])
    if loose_from_other and loose:
        modes = ["loose"]
    mode = draw(st.sampled_from(modes))
    win = None
    self_drawn = False
    if mode == "loose":
        win = draw(st.sampled_from(sorted(set(loose))))
        hand[win] -= 1
        # A self-drawn card on a table 偎 would be forced into a 提 (R-FLOW-2); keep away.
        if win not in table_wei and not loose_from_other:
            self_drawn = draw(st.booleans())
    elif mode == "locked_self":
        # The winner draws the last copy of a 坎 (hand pair + draw = forced 偎, same huxi as
        # the 坎) or of a hand 提 (坎 + draw = forced 提).
        win = draw(st.sampled_from(sorted(set(locked))))
        hand[win] -= 1
        self_drawn = True

    hand_list = [k for k in range(20) for _ in range(hand[k])]
    rnd = random.Random(draw(st.integers(0, 2**32 - 1)))
    rnd.shuffle(hand_list)
    rnd.shuffle(melds)
    return {
        "hand": hand_list, "melds": melds, "win": win, "self_drawn": self_drawn,
        "huxi": huxi, "n4": n4, "total": total,
    }


def _options(kind, total, hand):
    out = []

    def fits(cards, in_hand):
        c = Counter(cards)
        if any(total[k] + n > 4 for k, n in c.items()):
            return False
        # never a third copy of a kind in the hand from loose groups (it would be a 坎)
        return not in_hand or all(hand[k] + n <= 2 for k, n in c.items())

    if kind in ("hand_seq", "table_seq"):
        out = [(kind, s) for s in SEQS if fits(s, kind == "hand_seq")]
    elif kind in ("hand_jiao", "table_jiao"):
        out = [(kind, j) for j in JIAOS if fits(j, kind == "hand_jiao")]
    elif kind == "hand_kan":
        out = [(kind, (k, k, k)) for k in range(20) if hand[k] == 0 and total[k] <= 1]
    else:
        out = [(kind, (k, k, k)) for k in range(20) if total[k] <= 1]
    return out


def _evaluate(h, rules, hand=None, melds=None):
    return evaluate_win(
        h["hand"] if hand is None else hand,
        h["melds"] if melds is None else melds,
        h["win"], rules=rules, self_drawn=h["self_drawn"],
    )


# ---- properties -------------------------------------------------------------------------


@PROPS
@given(holdings())
def test_constructed_holdings_win(h):
    w = _evaluate(h, RULES)
    assert w is not None
    # R-WIN-2: the best reading counts; it can trade huxi only for 碰碰胡's fan.
    assert w.huxi >= h["huxi"] or "碰碰胡" in w.names


@PROPS
@given(holdings())
def test_best_huxi_is_found(h):
    # With a reading-independent fan, the best score is the best tun, ties broken by huxi:
    # the result has at least the huxi of the constructed decomposition.
    w = _evaluate(h, RULES_FLAT)
    assert w is not None
    assert w.huxi >= h["huxi"]


@PROPS
@given(holdings())
def test_groups_use_exactly_the_cards(h):
    w = _evaluate(h, RULES)
    assert w is not None
    want = Counter(h["hand"])
    for _, cards in h["melds"]:
        want.update(cards)
    if h["win"] is not None:
        want[h["win"]] += 1
    got: Counter = Counter()
    for _, cards in w.groups:
        got.update(cards)
    assert got == want
    # R-SCORE-3: colour and size counts over every card.
    assert w.red == sum(n for k, n in want.items() if is_red(k))
    assert w.big == sum(n for k, n in want.items() if k >= 10)
    assert w.small == sum(n for k, n in want.items() if k < 10)


@PROPS
@given(holdings())
def test_groups_are_seven_legal_menzi(h):
    w = _evaluate(h, RULES)
    assert w is not None
    # R-WIN-1: exactly 7 门子; one 将 exactly when there is a 跑/提.
    assert len(w.groups) == 7
    n_four = sum(1 for t, _ in w.groups if t in ("pao", "ti"))
    n_jiang = sum(1 for t, _ in w.groups if t == "jiang")
    assert n_jiang == (1 if n_four else 0)
    total_huxi = 0
    for t, cards in w.groups:
        cards = tuple(sorted(cards))
        if t in ("ju", "chi", "jiao"):
            assert cards in SEQS or cards in JIAOS, (t, cards)
            if t == "ju":
                assert cards in SEQS
            if t == "jiao":
                assert cards in JIAOS
            total_huxi += seq_huxi(cards)
        elif t == "jiang":
            assert len(cards) == 2 and cards[0] == cards[1]
        else:
            assert t in HUXI_SAME, t
            assert len(set(cards)) == 1
            assert len(cards) == (4 if t in ("pao", "ti") else 3)
            total_huxi += same_huxi(t, cards[0])
    # the reported huxi is the huxi of the reported groups (section 3)
    assert total_huxi == w.huxi
    # the table groups are kept as given, apart from a 偎/碰 the winning card turned into a
    # 跑 or 提 (R-WIN-2, R-FLOW-2)
    got = Counter((t, tuple(sorted(c))) for t, c in w.groups)
    for t, c in h["melds"]:
        key = (t, tuple(sorted(c)))
        if got[key]:
            got[key] -= 1
        else:
            assert t in ("wei", "chou_wei", "peng") and c[0] == h["win"], (t, c)


@PROPS
@given(holdings(), st.randoms(use_true_random=False))
def test_order_never_matters(h, rnd):
    w = _evaluate(h, RULES)
    hand = list(h["hand"])
    melds = [(t, list(reversed(c))) for t, c in h["melds"]]
    rnd.shuffle(hand)
    rnd.shuffle(melds)
    assert _evaluate(h, RULES, hand=hand, melds=melds) == w
    # and the same in Chinese notation
    from paohuzi_env.game.cards import format as fmt

    assert _evaluate(h, RULES, hand=fmt(hand), melds=[(t, fmt(c)) for t, c in melds]) == w


@PROPS
@given(holdings())
def test_self_drawn_adds_exactly_one_tun(h):
    # R-WIN-4 / R-SCORE-1: where the card is read the same way, 自摸 adds one tun and the
    # name "自摸", nothing else. Only loose winning cards away from any 坎/偎/碰 of their kind
    # read the same self-drawn or not.
    win = h["win"]
    if win is None or h["total"][win] == 4 or h["hand"].count(win) >= 2:
        return
    a = evaluate_win(h["hand"], h["melds"], win, rules=RULES_FLAT, self_drawn=False)
    b = evaluate_win(h["hand"], h["melds"], win, rules=RULES_FLAT, self_drawn=True)
    assert a is not None and b is not None
    assert b.huxi == a.huxi
    assert b.tun == a.tun + 1
    assert b.fan == a.fan
    assert Counter(b.names) == Counter(a.names) + Counter(["自摸"])


# ---- against an independent brute force ---------------------------------------------------


def _brute_best(counts: tuple[int, ...], need_pair: bool, memo: dict) -> int | None:
    """Most huxi of a split of loose cards into 句/绞 (and a 碰-like triple) plus one 将 when
    need_pair, or None. Tries every group that holds the lowest card."""
    key = (counts, need_pair)
    if key in memo:
        return memo[key]
    low = next((k for k, n in enumerate(counts) if n), None)
    if low is None:
        return None if need_pair else 0
    best = None
    cands: list[tuple[tuple[int, ...], int, bool]] = []
    if need_pair and counts[low] >= 2:
        cands.append(((low, low), 0, True))
    if counts[low] >= 3:
        cands.append(((low, low, low), same_huxi("peng", low), False))
    for g in SEQS + JIAOS:
        if min(g) == low:
            cands.append((g, seq_huxi(g), False))
    for cards, hx, is_pair in cands:
        need = Counter(cards)
        if any(counts[k] < n for k, n in need.items()):
            continue
        rest = list(counts)
        for k, n in need.items():
            rest[k] -= n
        sub = _brute_best(tuple(rest), need_pair and not is_pair, memo)
        if sub is not None and (best is None or sub + hx > best):
            best = sub + hx
    memo[key] = best
    return best


def _brute_huxi(hand: list[int], melds, win: int) -> int | None:
    """R-WIN-1 by brute force for a winning card read loose: four in the hand are a 提,
    three a 坎 (R-GROUP-1), the rest is split; 7 门子; a 将 exactly when there is a 跑/提."""
    h = Counter(hand)
    n4 = sum(1 for t, _ in melds if t in ("pao", "ti"))
    fixed = sum(seq_huxi(c) if t == "chi" else same_huxi(t, c[0]) for t, c in melds)
    groups = len(melds)
    loose = [0] * 20
    for k, n in h.items():
        if n == 4:
            n4, fixed, groups = n4 + 1, fixed + same_huxi("ti", k), groups + 1
        elif n == 3:
            fixed, groups = fixed + same_huxi("kan", k), groups + 1
        else:
            loose[k] += n
    loose[win] += 1
    need_pair = n4 > 0
    rest = sum(loose) - (2 if need_pair else 0)
    if rest < 0 or rest % 3 or groups + rest // 3 + need_pair != 7:
        return None
    b = _brute_best(tuple(loose), need_pair, {})
    return None if b is None else fixed + b


@PROPS
@given(holdings(loose_from_other=True), st.data())
def test_perturbed_holdings_match_brute_force(h, data):
    # Take a constructed holding whose winning card is a loose card from another player, swap
    # one hand card for another kind (it may break the win, or make a new 坎/提 in the hand),
    # and compare with the brute force: same verdict, same (best) huxi.
    win = h["win"]
    if win is None or h["self_drawn"] or not h["hand"]:
        return
    # keep every other reading of the winning card out of play (no 跑/偎/提/碰 of its kind)
    if any(t != "chi" and c[0] == win for t, c in h["melds"]):
        return
    hand = list(h["hand"])
    total = list(h["total"])
    i = data.draw(st.integers(0, len(hand) - 1), label="card to swap")
    old = hand[i]
    choices = [k for k in range(20) if k != win and k != old and total[k] < 4
               and hand.count(k) + 1 <= 4]
    if old == win or not choices or hand.count(win) > 1:
        return
    new = data.draw(st.sampled_from(choices), label="new kind")
    hand[i] = new
    if hand.count(win) > 1:
        return
    w = evaluate_win(hand, h["melds"], win, rules=RULES_FLAT)
    want = _brute_huxi(hand, h["melds"], win)
    if want is None:
        assert w is None
    else:
        assert w is not None
        assert w.huxi == want


@PROPS
@given(holdings(loose_from_other=True))
def test_constructed_holdings_match_brute_force(h):
    win = h["win"]
    if win is None or h["self_drawn"]:
        return
    if any(t != "chi" and c[0] == win for t, c in h["melds"]) or h["hand"].count(win) > 1:
        return
    w = evaluate_win(h["hand"], h["melds"], win, rules=RULES_FLAT)
    assert w is not None
    assert w.huxi == _brute_huxi(h["hand"], h["melds"], win)
