"""The observation encoders ``paohuzi-obs-v1`` and ``paohuzi-obs-v2``: flat float32 vectors read
from a PlayerView. Presets without 王 use v1; ``yongzhou`` (two 王, docs/rules.md section 10) uses v2,
which is v1 plus the 王 features below (:func:`obs_size`, :func:`obs_version`).

It reads only :class:`~paohuzi_env.game.engine.PlayerView` (what the seat may know), so nothing hidden
can leak. Everything is seat-relative: block ``rel`` 0 is the observing seat, 1 its next player
(下家), 2 its previous player (上家). Counts are scaled to [0, 1] by the divisor shown.

=========== ===== =====================================================================
offset      size  piece
=========== ===== =====================================================================
0           80    own hand: kind k, level j at 4k+j is 1 when it holds more than j copies
80 + 162r   162   seat block for rel r = 0, 1, 2, laid out as below
  +0        20    碰 (peng) kinds
  +20       20    偎 kinds it can see (own 偎 only; another seat's 偎 is hidden)
  +40       20    臭偎 kinds
  +60       20    跑 kinds
  +80       20    提 kinds
  +100      1     hidden 偎 count / 7 (another seat's 偎 whose kind it cannot see)
  +101      38    吃/比 groups on the table by group id (action id − 20), count / 4
  +139      20    discard area (出牌区) by kind, count / 4
  +159      1     visible table huxi / 100
  +160      1     number of 跑 + 提 / 7
  +161      1     hand size / 21
566         20    the card on offer (one-hot kind)
586         3     its source: drawn, discarded, 亮张
589         3     who offers it (rel)
592         5     pending decision: tianhu, hu, claim, bi, discard (zeros when not acting)
597         38    比 chain: the 吃 group and 比 groups named so far, count / 4
635         1     比 chain: copies of the card still to place / 3
636         20    own 臭 kinds (R-CHOU-1/2)
656         20    own kinds closed to 吃 by R-CHOU-4
676         20    own declined-碰 kinds (a later 偎 is 臭偎, R-CHOU-3)
696         20    own kinds it may not win on now (臭胡, R-CHOU-5)
716         1     wall cards left / 19
717         3     dealer (rel)
720         20    the 亮张 (one-hot kind)
740         20    copies of each kind it has not seen / 4 (own hand, visible table groups,
                  discard areas and the card on offer count as seen)
760         3     the seat to act (rel)
=========== ===== =====================================================================

Size 763. Version history: v1 — first version.

``paohuzi-obs-v2`` (decks with 王): the 763 floats of v1, where the wall count is divided by 21
instead of 19 and a 王 never enters a kind block (the offer, 亮张 and blocked-HU one-hots stay
zero for it), then:

=========== ===== =====================================================================
763         1     own 王 / 2 (dealt or drawn, R-WANG-3)
764         3     王 shown by each seat (rel), / 2 (drawn 王, or the dealer's 亮张 王)
767         1     王 it has not seen / 2 (2 − own − shown by others)
768         1     the card on offer is a 王 (its drawer is asked HU, R-WANG-3)
769         1     the 亮张 is a 王
770         1     own HU on a 王 is blocked (R-CHOU-5 after declining a win on a drawn 王)
=========== ===== =====================================================================

Size 771.
"""

from __future__ import annotations

from array import array

import numpy as np

from ..game.actions import GROUP_BASE, GROUP_ID, NUM_GROUPS
from ..game.cards import NUM_KINDS, WANG, WANG_COPIES
from ..game.engine import PlayerView
from ..game.groups import group_huxi
from ..game.rules import Rules, as_rules

OBS_VERSION = "paohuzi-obs-v1"
OBS_VERSION_V2 = "paohuzi-obs-v2"
HAND = 0
SEAT_BLOCK = 80
SEAT_SIZE = 162
OFFER = SEAT_BLOCK + 3 * SEAT_SIZE  # 566
OFFER_SOURCE = OFFER + 20
OFFER_FROM = OFFER_SOURCE + 3
DECISION = OFFER_FROM + 3  # 592
BI_GROUPS = DECISION + 5
BI_LEFT = BI_GROUPS + NUM_GROUPS
CHOU = BI_LEFT + 1  # 636
CHI_CLOSED = CHOU + 20
DECLINED_PENG = CHI_CLOSED + 20
HU_BLOCKED = DECLINED_PENG + 20
WALL = HU_BLOCKED + 20  # 716
DEALER = WALL + 1
LIANG = DEALER + 3
UNSEEN = LIANG + 20  # 740
TO_ACT = UNSEEN + 20
OBS_SIZE = TO_ACT + 3  # 763
OWN_WANG = OBS_SIZE  # v2 only, from here on
WANG_SHOWN = OWN_WANG + 1
WANG_UNSEEN = WANG_SHOWN + 3
OFFER_WANG = WANG_UNSEEN + 1
LIANG_WANG = OFFER_WANG + 1
HU_BLOCKED_WANG = LIANG_WANG + 1
OBS_SIZE_V2 = HU_BLOCKED_WANG + 1  # 771


def obs_size(rules: str | Rules) -> int:
    """The observation length under ``rules``: v1 without 王, v2 with them."""
    return OBS_SIZE_V2 if as_rules(rules).wang else OBS_SIZE


def obs_version(rules: str | Rules) -> str:
    """The observation version under ``rules``."""
    return OBS_VERSION_V2 if as_rules(rules).wang else OBS_VERSION


def _kind_rows() -> tuple[tuple[int, ...], ...]:
    rows = [tuple(HAND + 4 * k + j for k in range(20)) for j in range(4)]
    for r in range(3):
        base = SEAT_BLOCK + r * SEAT_SIZE
        rows += [tuple(base + off + k for k in range(20)) for off in (0, 20, 40, 60, 80, 139)]
    rows += [tuple(start + k for k in range(20))
             for start in (OFFER, CHOU, CHI_CLOSED, DECLINED_PENG, HU_BLOCKED, LIANG, UNSEEN)]
    return tuple(rows)


KIND_ROWS = _kind_rows()
"""The observation's per-kind blocks (20 floats, one per card kind) as index rows, read by the
``conv`` actor (``paohuzi_training/model.py`` ``KindConvActor``; the compiled core's ``NetPolicy``):
the own hand's four levels; for each seat its 碰, 偎, 臭偎, 跑, 提 and discard blocks; the card
on offer; the own 臭, 吃-closed, declined-碰 and HU-blocked kinds; the 亮张; the unseen copies
(29 rows; the same offsets in v1 and v2)."""

_TYPE_OFFSET = {"peng": 0, "wei": 20, "chou_wei": 40, "pao": 60, "ti": 80}
_DECISIONS = {"tianhu": 0, "hu": 1, "claim": 2, "bi": 3, "discard": 4}
_SOURCES = {"draw": 0, "discard": 1, "liang": 2}
_LEVEL = tuple(array("f", [1.0 if n > j else 0.0 for j in range(4)]) for n in range(5))
_ZEROS = array("f", bytes(4 * OBS_SIZE))
_ZEROS_V2 = array("f", bytes(4 * OBS_SIZE_V2))


def encode(view: PlayerView, out: np.ndarray | None = None) -> np.ndarray:
    """Encode a view as ``paohuzi-obs-v1`` (float32, length :data:`OBS_SIZE`), or as
    ``paohuzi-obs-v2`` (length :data:`OBS_SIZE_V2`) when the deck has 王 (``view.jokers``)."""
    # A C float array: item writes cost what a list's do, and numpy wraps it without a copy.
    v2 = view.jokers > 0
    x = array("f", _ZEROS_V2 if v2 else _ZEROS)
    me = view.seat
    seen = list(view.hand)
    for k, n in enumerate(view.hand):
        if n:
            x[4 * k: 4 * k + 4] = _LEVEL[n]
    for r in range(3):
        s = (me + r) % 3
        base = SEAT_BLOCK + r * SEAT_SIZE
        hidden = 0
        huxi = 0
        paoti = 0
        for gtype, cards in view.table[s]:
            if cards is None:
                hidden += 1
                continue
            for k in cards:
                seen[k] += 1
            huxi += group_huxi(gtype, cards)
            if gtype == "chi":
                i = base + 101 + GROUP_ID[cards] - GROUP_BASE
                x[i] += 0.25
            else:
                x[base + _TYPE_OFFSET[gtype] + cards[0]] = 1.0
                if gtype in ("pao", "ti"):
                    paoti += 1
        x[base + 100] = hidden / 7
        for k in view.discards[s]:
            x[base + 139 + k] += 0.25
            seen[k] += 1
        x[base + 159] = huxi / 100
        x[base + 160] = paoti / 7
        x[base + 161] = view.hand_sizes[s] / 21
    if view.offer is not None:
        k, source, who = view.offer
        if k == WANG:
            x[OFFER_WANG] = 1.0
        else:
            x[OFFER + k] = 1.0
            if source != "liang":
                seen[k] += 1
        x[OFFER_SOURCE + _SOURCES[source]] = 1.0
        x[OFFER_FROM + (who - me) % 3] = 1.0
    if view.decision is not None:
        x[DECISION + _DECISIONS[view.decision]] = 1.0
    for g in view.bi_groups:
        x[BI_GROUPS + GROUP_ID[g] - GROUP_BASE] += 0.25
    x[BI_LEFT] = view.bi_left / 3
    for base, kinds in ((CHOU, view.chou), (CHI_CLOSED, view.chi_closed),
                        (DECLINED_PENG, view.declined_peng), (HU_BLOCKED, view.hu_blocked)):
        for k in kinds:
            if k < NUM_KINDS:
                x[base + k] = 1.0
    x[WALL] = view.wall / (21 if v2 else 19)
    x[DEALER + (view.dealer - me) % 3] = 1.0
    if view.liang != WANG:
        x[LIANG + view.liang] = 1.0
    for k in range(NUM_KINDS):
        x[UNSEEN + k] = max(0, 4 - seen[k]) / 4
    if view.to_act is not None:
        x[TO_ACT + (view.to_act - me) % 3] = 1.0
    if v2:
        x[OWN_WANG] = view.wang / WANG_COPIES
        others_shown = 0
        for r in range(3):
            s = (me + r) % 3
            x[WANG_SHOWN + r] = view.wang_shown[s] / WANG_COPIES
            if r:
                others_shown += view.wang_shown[s]
        x[WANG_UNSEEN] = max(0, view.jokers - view.wang - others_shown) / WANG_COPIES
        x[LIANG_WANG] = 1.0 if view.liang == WANG else 0.0
        x[HU_BLOCKED_WANG] = 1.0 if WANG in view.hu_blocked else 0.0
    vec = np.frombuffer(x, dtype=np.float32)
    if out is None:
        return vec
    out[:] = vec
    return out
