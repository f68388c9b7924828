"""The hand evaluator: win detection (R-WIN-1..5), huxi, tun, 名堂 and score (R-SCORE-*).

``evaluate_win`` is the public, validating entry; :func:`evaluate_counts` is the same on
canonical inputs (count tuples, sorted meld tuples) for the engine's hot path. Both are
memoised: the loose-card decomposition on a packed count vector, whole answers on the
canonical key.

王 (jokers, docs/rules.md section 10, the ``yongzhou`` family): the hand's 王 are a separate number
(``wang``). In a decomposition each 王 fills any missing member of a hand group — one 王 with two
real cards, two 王 with one, or the 将 (王 + a card, or 王王) — and the group scores as the group it
stands for (R-WANG-4); :func:`_solve_wild` searches this exactly, keeping the best huxi for each
number of red cards the 王 stand for, since the colour counts them (R-WANG-7). The 王吊 readings
(R-WANG-6) are tried besides. Hands without 王 take the unchanged canonical path.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from .cards import NUM_KINDS, WANG, is_red, kinds_of, parse
from .groups import JIAOS, SEQUENCE_TYPES, SEQUENCES, group_huxi, normalise_meld, sequence_huxi
from .rules import Rules, as_rules

Group = tuple[str, tuple[int, ...]]

_BITS = 3
_UNIT = tuple(1 << (_BITS * k) for k in range(NUM_KINDS))
_RED = tuple(is_red(k) for k in range(NUM_KINDS))


@dataclass(frozen=True)
class Win:
    """A scored win.

    Attributes:
        huxi: huxi of all 门子 (table and hand; 天胡 in ``zipai`` multiplies it only for tun).
        tun: 囤 (等) including the 自摸 tun.
        fan: the fan total (1 for 平胡).
        score: tun × fan: what each loser pays (R-SCORE-2).
        names: the 名堂 in docs/rules.md spelling, plus ``"自摸"`` when 自摸 added a tun.
        groups: the decomposition used: table groups then hand groups, ``(type, cards)``.
            A group a 王 completes lists the kind the 王 stands for (王 + 二二 is
            ``("kan", (1, 1, 1))``); a 王吊 group (R-WANG-6, 0 huxi) has type ``"wang_diao"``
            and lists the winning card's kind two or three times.
        red, big, small: card counts over the whole winning hand (R-SCORE-3), each 王 counted
            as the kind it stands for (R-WANG-7).
        wang_as: one ``(index into groups, kind)`` per 王 in the holding: the group it sits in and
            the kind it stands for (R-WANG-4, R-WANG-6); empty without 王. A 王 left in the
            ``loose`` rest of a forced 天胡 stands for nothing (kind ``WANG``).
    """

    huxi: int
    tun: int
    fan: int
    score: int
    names: tuple[str, ...]
    groups: tuple[Group, ...]
    red: int
    big: int
    small: int
    wang_as: tuple[tuple[int, int], ...] = ()


# --------------------------------------------------------------------------- decomposition


def pack_counts(counts) -> int:
    """A count vector as one int, 3 bits per kind (the memo key of the decompositions)."""
    packed = 0
    for k, n in enumerate(counts):
        if n:
            packed += n * _UNIT[k]
    return packed


_Solved = tuple  # (best_huxi, best_groups, pp_huxi (-1: none), pp_groups) or None


@lru_cache(maxsize=1 << 20)
def _solve(packed: int, pair: bool) -> _Solved | None:
    """Best decomposition of loose cards into 句/绞 (and 碰-like triples, which only the
    winning card can make) with exactly one 将 when ``pair``; also the best one with no
    句/绞 at all (for 碰碰胡). Returns None when there is none."""
    if packed == 0:
        return None if pair else (0, (), 0, ())
    low = packed & -packed
    i = (low.bit_length() - 1) // _BITS
    c = (packed >> (_BITS * i)) & 7
    u = _UNIT[i]
    best_h, best_g, pp_h, pp_g = -1, (), -1, ()

    def take(rest: int, still_pair: bool, group: Group, h: int, pp_ok: bool) -> None:
        nonlocal best_h, best_g, pp_h, pp_g
        sub = _solve(rest, still_pair)
        if sub is None:
            return
        if sub[0] + h > best_h:
            best_h, best_g = sub[0] + h, (group,) + sub[1]
        if pp_ok and sub[2] >= 0 and sub[2] + h > pp_h:
            pp_h, pp_g = sub[2] + h, (group,) + sub[3]

    if pair and c >= 2:
        take(packed - 2 * u, False, ("jiang", (i, i)), 0, True)
    if c >= 3:  # a hand pair + the winning card: a 碰-like triple (R-WIN-2)
        take(packed - 3 * u, pair, ("peng", (i, i, i)), 3 if i >= 10 else 1, True)
    p = i % 10
    if p <= 7 and (packed >> (_BITS * (i + 1))) & 7 and (packed >> (_BITS * (i + 2))) & 7:
        h = (6 if i >= 10 else 3) if p == 0 else 0
        take(packed - u - _UNIT[i + 1] - _UNIT[i + 2], pair, ("ju", (i, i + 1, i + 2)), h, False)
    if p == 1 and (packed >> (_BITS * (i + 5))) & 7 and (packed >> (_BITS * (i + 8))) & 7:
        h = 6 if i >= 10 else 3
        take(packed - u - _UNIT[i + 5] - _UNIT[i + 8], pair, ("ju", (i, i + 5, i + 8)), h, False)
    if i < 10:
        j = i + 10
        cj = (packed >> (_BITS * j)) & 7
        if c >= 2 and cj >= 1:
            take(packed - 2 * u - _UNIT[j], pair, ("jiao", (i, i, j)), 0, False)
        if cj >= 2:
            take(packed - u - 2 * _UNIT[j], pair, ("jiao", (i, j, j)), 0, False)
    if best_h < 0:
        return None
    return (best_h, best_g, pp_h, pp_g)


# --------------------------------------------------------------------------- 王 (wildcards)

# A hand group in the wild search: (type, cards it stands for, kinds its 王 stand for).
_WGroup = tuple[str, tuple[int, ...], tuple[int, ...]]
# best[r] for r = 0, 1, 2 red cards among the kinds the 王 stand for: (huxi, groups) or None.
_WSolved = tuple


def _wild_templates() -> tuple[tuple[tuple[str, tuple[int, ...], tuple[int, ...], int], ...], ...]:
    """Per kind i, the hand groups that contain i: ``(type, cards, others, huxi)`` where
    ``others`` are the cards besides one i (each of which a 王 may replace). ``kan`` is the
    same-kind triple (scored as 碰 1/3 when all three are real: only the winning card can make
    that, R-WIN-2)."""
    out = []
    for i in range(NUM_KINDS):
        ts: list[tuple[str, tuple[int, ...], tuple[int, ...], int]] = [
            ("jiang", (i, i), (i,), 0),
            ("kan", (i, i, i), (i, i), 6 if i >= 10 else 3),
        ]
        for gtype, table in (("ju", SEQUENCES), ("jiao", JIAOS)):
            for g in table:
                if i in g:
                    rest = list(g)
                    rest.remove(i)
                    ts.append((gtype, tuple(g), tuple(rest), sequence_huxi(tuple(g))))
        out.append(tuple(ts))
    return tuple(out)


_WILD_TEMPLATES = _wild_templates()
_NO_WILD = (None, None, None)
# Two 王 alone as the 将: they stand for one kind, black (一) or red (二); R-WANG-4.
_WANG_PAIR = (
    (0, (("jiang", (0, 0), (0, 0)),)), None, (0, (("jiang", (1, 1), (1, 1)),)),
)


@lru_cache(maxsize=1 << 16)
def _solve_wild(packed: int, pair: bool, w: int) -> _WSolved:
    """:func:`_solve` with ``w`` (1 or 2) 王 among the loose cards (R-WANG-4).

    Every 王 must be used: it fills a missing member of a 句/绞/坎 (one 王 with two real cards,
    two 王 with one) or of the 将 (王 + a card, or both 王). A group with a 王 scores as the group
    it stands for, a fifth copy included (王 + 二二 is a 坎 of 二, 3 huxi). Returns, for r = 0, 1,
    2 red cards among the kinds the 王 stand for, the best ``(huxi, groups)`` or None; the
    groups are ``(type, cards, kinds of its 王)``.
    """
    if packed == 0:
        return _WANG_PAIR if pair and w == 2 else _NO_WILD
    low = packed & -packed
    i = (low.bit_length() - 1) // _BITS
    best: list = [None, None, None]
    seen: set[tuple[int, bool, int, tuple[int, ...]]] = set()
    for gtype, cards, others, h in _WILD_TEMPLATES[i]:
        if gtype == "jiang" and not pair:
            continue
        n = len(others)
        for mask in range(1 << n):
            wk = tuple(others[j] for j in range(n) if mask >> j & 1)
            if len(wk) > w:
                continue
            rest = packed - _UNIT[i]
            ok = True
            for j in range(n):
                if not mask >> j & 1:
                    k = others[j]
                    if not (rest >> (_BITS * k)) & 7:
                        ok = False
                        break
                    rest -= _UNIT[k]
            if not ok:
                continue
            still_pair = pair and gtype != "jiang"
            key = (rest, still_pair, len(wk), wk)
            if key in seen:
                continue
            seen.add(key)
            t, hx = gtype, h
            if gtype == "kan" and not wk:
                t, hx = "peng", (3 if i >= 10 else 1)  # a hand pair + the winning card
            group: _WGroup = (t, cards, wk)
            red = sum(1 for k in wk if _RED[k])
            nw = w - len(wk)
            if nw:
                sub = _solve_wild(rest, still_pair, nw)
            else:
                plain = _solve(rest, still_pair)
                if plain is None:
                    continue
                sub = ((plain[0], tuple((g, c, ()) for g, c in plain[1])), None, None)
            for r, e in enumerate(sub):
                if e is None:
                    continue
                cur = best[r + red]
                if cur is None or e[0] + hx > cur[0]:
                    best[r + red] = (e[0] + hx, (group,) + e[1])
    return tuple(best)


# --------------------------------------------------------------------------- scoring


def _combine(fans: list[int], how: str) -> int:
    if not fans:
        return 1
    if how == "sum":
        return sum(fans)
    total = 1
    for f in fans:
        total *= f
    return total


def _tun(huxi: int, rules: Rules) -> int:
    # R-SCORE-1: 1 + (huxi - 15) // 3; min_huxi is the base so that a preset with another
    # minimum (泸州's 10) counts from it.
    return max(1, 1 + (huxi - rules.min_huxi) // 3)


def _score(
    rules: Rules, huxi: int, pp: bool, red: int, big: int, small: int, *,
    self_drawn: bool, haidi: bool, tianhu: bool, dihu: bool, shuahou: bool, forced: bool,
    wang_diao: int = 0,
) -> tuple[int, int, int, tuple[str, ...]] | None:
    """(tun, fan, score, names) of one reading, or None if it is no legal win.

    The 名堂 of ``rules.scoring``'s family (section 9) give the fan (R-SCORE-2); a win below
    ``pinghu_min_huxi`` needs one of them, or 自摸 with ``zimo_15`` (R-WIN-3); ``forced``
    (R-START-1) wins whatever its huxi. ``yongzhou`` (R-WANG-7): colour × way, where
    ``wang_diao`` is 1 for a 单王吊 reading and 2 for a 双王吊 one (R-WANG-6).
    """
    fam = rules.scoring
    F = rules.fan
    named: list[tuple[str, int | None]] = []  # (名堂, fan) ; fan None = no fan of its own
    if fam == "huaihua":
        if tianhu:
            named.append(("天胡", F("天胡")))
        elif dihu:
            named.append(("地胡", F("地胡")))
        if red == 0:
            named.append(("乌胡", F("乌胡")))
        elif red == 1:
            named.append(("点胡", F("点胡")))
        elif red >= 10:
            named.append(("红胡", F("红胡") + red - 10))
        if pp:
            named.append(("碰碰胡", F("碰碰胡")))
        if big >= 18:
            named.append(("十八大", F("十八大") + big - 18))
        if small >= 16:
            named.append(("十六小", F("十六小") + small - 16))
        if haidi:
            named.append(("海底胡", F("海底胡")))
        fans = [f for _, f in named if f is not None]
        fan = _combine(fans, rules.fan_combine)
    elif fam == "classic":
        if tianhu:
            named.append(("天胡", None))
        if rules.fan_level != "none":
            if red == 0:
                named.append(("乌胡", F("乌胡")))
            elif red == 1:
                named.append(("点胡", F("点胡")))
            elif 10 <= red < 13:
                named.append(("红胡", F("红胡")))
            elif red >= 13:
                named.append(("红乌", F("红乌")))
        if rules.fan_level == "half":
            if pp:
                named.append(("对对胡", F("对对胡")))
            if haidi:
                others = any(f is not None for _, f in named)
                named.append(("海底", F("海底") if others else 1))
        fans = [f for n, f in named if f is not None and n not in ("乌胡", "对对胡")]
        have = {n for n, _ in named}
        if "乌胡" in have and "对对胡" in have:
            fans.append(10)  # seed 004: 乌胡 with 对对胡 is 10 together
        else:
            fans += [f for n, f in named if n in ("乌胡", "对对胡") and f is not None]
        fan = _combine(fans, rules.fan_combine)
    elif fam == "hongshanzhang":
        # seed 002's 红山掌 table (section 9): 十三红 replaces 红胡; 十八大 3+(big-18) and
        # 十八小 4+(small-18) grow; 碰碰胡 as huaihua. 天胡 and 地胡 are no 名堂 here (D-16),
        # so such a win meets the 平胡 minimum, another 名堂 or zimo_15 like any other.
        if red == 0:
            named.append(("黑胡", F("黑胡")))
        elif red == 1:
            named.append(("一点朱", F("一点朱")))
        elif red >= 13:
            named.append(("十三红", F("十三红")))
        elif red >= 10:
            named.append(("红胡", F("红胡")))
        if pp:
            named.append(("碰碰胡", F("碰碰胡")))
        if big >= 18:
            named.append(("十八大", F("十八大") + big - 18))
        if small >= 18:
            named.append(("十八小", F("十八小") + small - 18))
        if haidi:
            named.append(("海底", F("海底")))
        fans = [f for _, f in named if f is not None]
        fan = _combine(fans, rules.fan_combine)
    elif fam == "yongzhou":
        # R-WANG-7: colour (红胡 red >= 10, 点朱胡 red = 1, 黑胡 red = 0; the 王 counted as the
        # kinds they stand for) times way (双王吊, else 单王吊, else 自摸); no other 名堂.
        if red == 0:
            named.append(("黑胡", F("黑胡")))
        elif red == 1:
            named.append(("点朱胡", F("点朱胡")))
        elif red >= 10:
            named.append(("红胡", F("红胡")))
        if wang_diao == 2:
            named.append(("双王吊", F("双王吊")))
        elif wang_diao == 1:
            named.append(("单王吊", F("单王吊")))
        elif rules.tianhu_is_zimo if tianhu else self_drawn:
            named.append(("自摸", F("自摸")))
        fan = _combine([f for _, f in named if f is not None], rules.fan_combine)
    else:  # zipai (seed 003)
        cap = F("封顶")
        if tianhu:
            named.append(("天胡", None))
        if red == 0:
            named.append(("乌胡", F("乌胡")))
        elif red == 1:
            named.append(("真点胡", F("真点胡")))
        elif red == 10:
            named.append(("假点胡", F("假点胡")))
        elif red in (11, 12):
            named.append(("红胡", F("红胡")))
        elif red >= 13:
            named.append(("红乌", min(cap, F("红乌") + red - 13)))
        if pp:
            named.append(("对对胡", F("对对胡")))
        if big >= 18:
            named.append(("大字胡", min(cap, F("大字胡") + big - 18)))
        if small >= 16:
            named.append(("小字胡", min(cap, F("小字胡") + small - 16)))
        if haidi:
            others = any(f is not None for _, f in named)
            named.append(("海底", F("海底加") if others else F("海底")))
        fans = [f for _, f in named if f is not None]
        fan = _combine(fans, rules.fan_combine)
        if shuahou:
            named.append(("耍猴", None))
            fan *= F("耍猴")
    zimo = rules.tianhu_is_zimo if tianhu else self_drawn
    if not forced:
        if huxi < rules.min_huxi:
            return None
        if huxi < rules.pinghu_min_huxi and not named and not (zimo and rules.zimo_15):
            return None
    tun_huxi = huxi * F("天胡") if fam == "zipai" and tianhu else huxi
    tun = _tun(tun_huxi, rules)
    names = [n for n, _ in named]
    if zimo and rules.zimo_tun:
        tun += 1
        if "自摸" not in names:
            names.append("自摸")
    return tun, fan, tun * fan, tuple(names)


# --------------------------------------------------------------------------- evaluation


def _whole_counts(hand, melds, win_card) -> list[int]:
    """Counts over the whole holding: hand, table groups and the winning card."""
    total = list(hand)
    for _, cards in melds:
        for k in cards:
            total[k] += 1
    if win_card is not None:
        total[win_card] += 1
    return total


def evaluate_win(
    hand,
    melds=(),
    win_card=None,
    *,
    rules: str | Rules = "huaihua",
    self_drawn: bool = False,
    haidi: bool = False,
    tianhu: bool = False,
    dihu: bool = False,
) -> Win | None:
    """The best legal win of a holding, or None (R-WIN-1..5, R-SCORE-*, R-WANG-4..7).

    Args:
        hand: the concealed cards before the winning card (notation or kind ids); with a rule
            set whose deck has 王 (``wang=2``, ``yongzhou``) it may hold 王 (``w``, ``王`` or
            id 20).
        melds: table groups as ``(type, cards)`` pairs, type in
            ``chi, peng, wei, chou_wei, pao, ti`` (never a 王, R-WANG-3).
        win_card: the card that completes the hand (a kind id or one card of notation), or
            None when the holding is already complete. A 王 here is the drawn 王 the drawer
            keeps (R-WANG-3): the same as that 王 in ``hand`` with ``win_card=None`` and
            ``self_drawn=True`` (D-17: never a 王吊); nobody else may win on it (None).
        rules: a preset name or a :class:`~paohuzi_env.game.rules.Rules`.
        self_drawn: the winner drew ``win_card`` itself (自摸). With a pair or 坎 of
            ``win_card`` in the hand (or its 偎 on the table) this reads the card as the
            偎/提 the draw forces. A holding with a 王 wins only 自摸 (R-WANG-5).
        haidi: ``win_card`` is the last wall card (R-WIN-5).
        tianhu: a 天胡 (R-START-1 or R-START-2); with ``win_card=None`` and 3 four-of-a-kinds
            or 5 坎/提 in the hand, the forced 天胡 of R-START-1 is a win whatever the shape.
        dihu: a 地胡 (the engine decides when; huaihua family only: the other families
            have no 地胡, and ``hongshanzhang`` no 天胡 名堂 either, D-16).

    Returns:
        The best win by score (ties: more huxi), or None.

    Raises:
        ValueError: for malformed cards or melds, more than 4 copies of a kind in all, a 王 on
            the table, or a 王 with a rule set that has none.
    """
    r = as_rules(rules)
    counts = [0] * (WANG + 1)
    for k in parse(hand):  # validated kind ids 0..20
        counts[k] += 1
    n_wang = counts.pop()
    norm = tuple(sorted(normalise_meld(m) for m in melds))
    for _, cards in norm:
        if cards[-1] == WANG:  # sorted: a 王 would be last
            raise ValueError("a 王 is never part of a table group (R-WANG-3)")
    if win_card is None:
        wc = None
    else:
        got = parse(win_card) if isinstance(win_card, str) else parse([win_card])
        if len(got) != 1:
            raise ValueError(f"win_card must be one card, got {win_card!r}")
        wc = got[0]
    if wc == WANG:
        n_wang += 1  # a drawn 王 enters the drawer's hand (R-WANG-3); D-17
        wc = None
    if n_wang > r.wang:
        raise ValueError(
            f"{n_wang} 王 in the holding, but the {r.name} rules have {r.wang} in the deck "
            "(a 王 needs wang=2, the yongzhou family)"
        )
    for k, n in enumerate(_whole_counts(counts, norm, wc)):
        if n > 4:
            raise ValueError(
                f"kind {k} appears {n} times in hand + melds + win_card; at most 4 exist"
            )
    if wc is None and win_card is not None and not self_drawn:
        return None  # nobody but its drawer can win on a 王 (R-WANG-3)
    if n_wang:
        return evaluate_counts(
            tuple(counts), norm, wc, r, self_drawn=bool(self_drawn), haidi=bool(haidi),
            tianhu=bool(tianhu), dihu=bool(dihu), wang=n_wang,
        )
    return evaluate_counts(
        tuple(counts), norm, wc, r,
        self_drawn=bool(self_drawn), haidi=bool(haidi), tianhu=bool(tianhu), dihu=bool(dihu),
    )


_Reading = tuple  # (table groups, locked hand groups, loose counts, winning card is loose)


def _readings(
    h: list[int], locked: list[Group], loose: list[int], table: tuple[Group, ...], c: int | None,
    self_drawn: bool, from_discard: bool,
) -> list[_Reading]:
    """The readings of the winning card (R-WIN-2, R-FLOW-2/3)."""
    readings: list[_Reading] = []
    if c is None:
        readings.append((table, tuple(locked), loose, False))
        return readings
    meld_of_c = next((m for m in table if m[1][0] == c and m[0] != "chi"), None)
    if self_drawn and (h[c] in (2, 3) or (meld_of_c and meld_of_c[0] in ("wei", "chou_wei"))):
        # The draw is forced into a 偎 or 提 (R-FLOW-2); it is read only as that.
        if h[c] == 3:
            lk = tuple(g for g in locked if g[1][0] != c) + (("ti", (c,) * 4),)
            readings.append((table, lk, loose, False))
        elif h[c] == 2:
            lo = list(loose)
            lo[c] = 0
            readings.append((table, tuple(locked) + (("wei", (c,) * 3),), lo, False))
        else:
            t = tuple(m for m in table if m is not meld_of_c) + (("ti", (c,) * 4),)
            readings.append((t, tuple(locked), loose, False))
    else:
        lo = list(loose)
        lo[c] += 1
        readings.append((table, tuple(locked), lo, True))  # the card as a loose card
        # 跑胡: where R-FLOW-3.2 / 4.2 would make the card a 跑.
        if h[c] == 3 and not self_drawn:
            lk = tuple(g for g in locked if g[1][0] != c) + (("pao", (c,) * 4),)
            readings.append((table, lk, loose, False))
        if meld_of_c is not None and (
            (meld_of_c[0] in ("wei", "chou_wei") and not self_drawn)
            or (meld_of_c[0] == "peng" and not from_discard)
        ):
            t = tuple(m for m in table if m is not meld_of_c) + (("pao", (c,) * 4),)
            readings.append((t, tuple(locked), loose, False))
    return readings


def _shape(t: tuple[Group, ...], lk: tuple[Group, ...], n_loose: int) -> bool | None:
    """R-WIN-1 on counts: whether a 将 is needed (a 跑/提 exists), or None when the cards
    cannot make exactly 7 门子."""
    n_paoti = sum(1 for g in t if g[0] in ("pao", "ti")) + sum(
        1 for g in lk if g[0] in ("pao", "ti")
    )
    need_pair = n_paoti > 0
    rest = n_loose - (2 if need_pair else 0)
    if rest < 0 or rest % 3:
        return None
    if len(t) + len(lk) + rest // 3 + (1 if need_pair else 0) != 7:
        return None  # R-WIN-1: exactly 7 门子
    return need_pair


@lru_cache(maxsize=1 << 18)
def evaluate_counts(
    hand: tuple[int, ...],
    melds: tuple[Group, ...],
    win_card: int | None,
    rules: Rules,
    *,
    self_drawn: bool = False,
    haidi: bool = False,
    tianhu: bool = False,
    dihu: bool = False,
    from_discard: bool = False,
    wang: int = 0,
) -> Win | None:
    """:func:`evaluate_win` on canonical, trusted inputs (no validation).

    Args:
        hand: count vector over the 20 ordinary kinds (a tuple).
        melds: sorted tuple of ``(type, sorted cards)``.
        win_card: an ordinary kind, or None when the holding is complete (also when the card
            just drawn is a 王, which is then counted in ``wang``: D-17).
        rules: a :class:`~paohuzi_env.game.rules.Rules` (not a preset name).
        self_drawn: the winner drew ``win_card`` itself (自摸), as in :func:`evaluate_win`.
        haidi: ``win_card`` is the last wall card (R-WIN-5).
        tianhu: a 天胡, as in :func:`evaluate_win`.
        dihu: a 地胡, as in :func:`evaluate_win`.
        from_discard: the winning card is a discard (only with ``hu_on_discard``): then a
            碰 on the table does not make it a 跑 (R-FLOW-4.2).
        wang: the number of 王 in the concealed hand (0..2; only with a rule set whose deck
            has them, ``yongzhou``). With 王 only a 自摸 wins (R-WANG-5): a ``win_card`` that
            is not ``self_drawn`` gives None.
    """
    if wang:
        return _evaluate_wang(
            hand, melds, win_card, rules, self_drawn=self_drawn, tianhu=tianhu, dihu=dihu,
            haidi=haidi, wang=wang,
        )
    if tianhu and win_card is not None and rules.scoring == "yongzhou":
        tianhu = False  # R-WANG-7: a non-dealer's 亮张 win is no 天胡-as-自摸
    h = list(hand)
    # Locked parts of the hand: four-of-a-kinds count as 提, three as 坎 (R-GROUP-1).
    locked: list[Group] = []
    for k in range(NUM_KINDS):
        if h[k] >= 3:
            locked.append(("ti" if h[k] == 4 else "kan", (k,) * h[k]))
    loose = [n if n < 3 else 0 for n in h]
    c = win_card
    readings = _readings(h, locked, loose, melds, c, self_drawn, from_discard)

    # Phase 1: which readings decompose into exactly 7 门子 (most calls end here).
    solvable = []
    for t, lk, lo, _ in readings:
        # R-WIN-1 on counts (as _shape, inlined on this hot path)
        n_paoti = sum(1 for g in t if g[0] in ("pao", "ti")) + sum(
            1 for g in lk if g[0] in ("pao", "ti")
        )
        need_pair = n_paoti > 0
        rest = sum(lo) - (2 if need_pair else 0)
        if rest < 0 or rest % 3:
            continue
        if len(t) + len(lk) + rest // 3 + (1 if need_pair else 0) != 7:
            continue  # R-WIN-1: exactly 7 门子
        solved = _solve(pack_counts(lo), need_pair)
        if solved is not None:
            solvable.append((t, lk, solved))
    forced_tianhu = False
    if tianhu and c is None and not melds:
        n4 = sum(1 for n in h if n == 4)
        n3 = sum(1 for n in h if n == 3)
        forced_tianhu = n4 >= 3 or n4 + n3 >= 5
    if not solvable and not forced_tianhu:
        return None

    # Phase 2: colours and sizes of the whole winning hand (R-SCORE-3), then scores.
    red, big, small = _colours(_whole_counts(hand, melds, win_card))
    table_has_seq = any(m[0] == "chi" for m in melds)
    shuahou = c is not None and sum(hand) == 1
    best: tuple | None = None
    for t, lk, solved in solvable:
        fixed = sum(group_huxi(g, cards) for g, cards in t) + sum(
            group_huxi(g, cards) for g, cards in lk
        )
        options = [(solved[0], solved[1], False)]
        if not table_has_seq and solved[2] >= 0:
            options.append((solved[2], solved[3], True))
        for hx, hand_groups, pp in options:
            huxi = fixed + hx
            pp = pp or (not table_has_seq and all(g[0] not in SEQUENCE_TYPES for g in hand_groups))
            sc = _score(
                rules, huxi, pp, red, big, small, self_drawn=self_drawn, haidi=haidi,
                tianhu=tianhu, dihu=dihu, shuahou=shuahou, forced=False,
            )
            if sc is None:
                continue
            cand = (sc[2], huxi, sc, t + lk + hand_groups)
            if best is None or cand[:2] > best[:2]:
                best = cand

    if forced_tianhu:
        # R-START-1 forced 天胡: 提 and 坎 count; the rest adds its best decomposition
        # (with at most one 将) if it has one, else 0 and it stays loose.
        fixed = sum(group_huxi(g, cards) for g, cards in locked)
        rest_groups: tuple[Group, ...] = ()
        rest_h = 0
        packed = pack_counts(loose)
        for need in (False, True):
            s = _solve(packed, need)
            if s is not None and s[0] >= rest_h and (not rest_groups or s[0] > rest_h):
                rest_h, rest_groups = s[0], s[1]
        if packed and not rest_groups:
            rest_groups = (("loose", tuple(kinds_of(loose))),)
        huxi = fixed + rest_h
        sc = _score(
            rules, huxi, False, red, big, small, self_drawn=self_drawn, haidi=haidi,
            tianhu=True, dihu=False, shuahou=False, forced=True,
        )
        assert sc is not None
        cand = (sc[2], huxi, sc, tuple(locked) + rest_groups)
        if best is None or cand[:2] > best[:2]:
            best = cand

    if best is None:
        return None
    _, huxi, (tun, fan, score, names), groups = best
    return Win(huxi, tun, fan, score, names, groups, red, big, small)


def _colours(counts) -> tuple[int, int, int]:
    """(red, big, small) card counts of a count vector (R-SCORE-3)."""
    red = big = small = 0
    for k, n in enumerate(counts):
        if n:
            if _RED[k]:
                red += n
            if k >= 10:
                big += n
            else:
                small += n
    return red, big, small


def _evaluate_wang(
    hand: tuple[int, ...], melds: tuple[Group, ...], c: int | None, rules: Rules, *,
    self_drawn: bool, tianhu: bool, dihu: bool, haidi: bool, wang: int,
) -> Win | None:
    """:func:`evaluate_counts` for a hand with ``wang`` 王 (docs/rules.md section 10).

    R-WANG-5: with a winning card, only a 自摸 wins. R-WANG-4: every reading of the winning
    card is decomposed with the 王 as wildcards (:func:`_solve_wild`). R-WANG-6: where the
    winning card is a loose card, the 王吊 reading puts it with the 王 in a 0-huxi group —
    单王吊 (one 王, as the 将; needs a 跑/提) or 双王吊 (two 王, a triple) — and the rest must
    decompose on its own. R-WANG-7 scores each (colour with each 王 as its kind); the best
    score wins, then the most huxi. A complete holding (``c`` None: a drawn 王, or the dealer's
    start) has no 王吊 (D-17).
    """
    if not 0 < wang <= rules.wang:
        raise ValueError(
            f"{wang} 王 in the hand, but the {rules.name} rules have {rules.wang} in the deck"
        )
    if c is not None and not self_drawn:
        return None  # R-WANG-5: a 王 holder wins only on its own draw
    if tianhu and c is not None and rules.scoring == "yongzhou":
        tianhu = False  # R-WANG-7: a non-dealer's 亮张 win is no 天胡-as-自摸
    h = list(hand)
    # R-GROUP-1 / R-WANG-4: only three or four REAL cards of a kind are locked.
    locked: list[Group] = []
    for k in range(NUM_KINDS):
        if h[k] >= 3:
            locked.append(("ti" if h[k] == 4 else "kan", (k,) * h[k]))
    loose = [n if n < 3 else 0 for n in h]
    readings = _readings(h, locked, loose, melds, c, self_drawn, False)

    # candidates: (huxi, all groups, 王 as (group index, kind) pairs, 王吊 1/2 or 0)
    cands: list[tuple[int, tuple[Group, ...], tuple[tuple[int, int], ...], int]] = []
    for t, lk, lo, c_loose in readings:
        need_pair = _shape(t, lk, sum(lo) + wang)
        if need_pair is None:
            continue
        fixed_groups = t + lk
        fixed = sum(group_huxi(g, cards) for g, cards in fixed_groups)
        base = len(fixed_groups)
        for e in _solve_wild(pack_counts(lo), need_pair, wang):
            if e is None:
                continue
            groups = fixed_groups + tuple((g, cards) for g, cards, _ in e[1])
            wang_as = tuple(
                (base + j, k) for j, (_, _, wk) in enumerate(e[1]) for k in wk
            )
            cands.append((fixed + e[0], groups, wang_as, 0))
        if c is not None and c_loose and (wang == 2 or need_pair):
            # R-WANG-6: 单王吊 (the 王 + c as the 将) or 双王吊 (both 王 + c); the 王 stand for c.
            lo2 = list(lo)
            lo2[c] -= 1
            sub = _solve(pack_counts(lo2), need_pair and wang == 2)
            if sub is not None:
                diao = (("wang_diao", (c,) * (wang + 1)),)
                groups = fixed_groups + diao + sub[1]
                wang_as = tuple((base, c) for _ in range(wang))
                cands.append((fixed + sub[0], groups, wang_as, wang))

    forced_tianhu = False
    if tianhu and c is None and not melds:
        # R-START-1 counts real 提 and 坎 only (R-WANG-4).
        n4 = sum(1 for n in h if n == 4)
        n3 = sum(1 for n in h if n == 3)
        forced_tianhu = n4 >= 3 or n4 + n3 >= 5
    if not cands and not forced_tianhu:
        return None

    whole = _whole_counts(hand, melds, c)
    red0 = sum(n for k, n in enumerate(whole) if _RED[k])
    best: tuple | None = None

    def consider(
        huxi: int, groups: tuple[Group, ...], wang_as: tuple[tuple[int, int], ...], diao: int,
        forced: bool,
    ) -> None:
        nonlocal best
        red = red0 + sum(1 for _, k in wang_as if k != WANG and _RED[k])
        sc = _score(
            rules, huxi, False, red, 0, 0, self_drawn=self_drawn, haidi=haidi, tianhu=tianhu,
            dihu=dihu, shuahou=False, forced=forced, wang_diao=diao,
        )
        if sc is None:
            return
        cand = (sc[2], huxi, sc, groups, wang_as)
        if best is None or cand[:2] > best[:2]:
            best = cand

    for cand in cands:
        consider(*cand, False)

    if forced_tianhu:
        # R-START-1 with 王 (D-4): the rest (loose real cards and the 王) adds its best
        # decomposition with at most one 将, the 王 as wildcards; else it stays loose, 0 huxi.
        fixed = sum(group_huxi(g, cards) for g, cards in locked)
        packed = pack_counts(loose)
        found = False
        for need in (False, True):
            for e in _solve_wild(packed, need, wang):
                if e is None:
                    continue
                found = True
                rest = tuple((g, cards) for g, cards, _ in e[1])
                wang_as = tuple(
                    (len(locked) + j, k) for j, (_, _, wk) in enumerate(e[1]) for k in wk
                )
                consider(fixed + e[0], tuple(locked) + rest, wang_as, 0, True)
        if not found:
            rest_groups = (("loose", tuple(kinds_of(loose, wang))),)
            wang_as = tuple((len(locked), WANG) for _ in range(wang))
            consider(fixed, tuple(locked) + rest_groups, wang_as, 0, True)

    if best is None:
        return None
    _, huxi, (tun, fan, score, names), groups, wang_as = best
    for _, k in wang_as:
        if k != WANG:
            whole[k] += 1
    red, big, small = _colours(whole)
    return Win(huxi, tun, fan, score, names, groups, red, big, small, wang_as)


def clear_caches() -> None:
    """Empty the memo tables (for cold-cache measurements)."""
    _solve.cache_clear()
    _solve_wild.cache_clear()
    evaluate_counts.cache_clear()
