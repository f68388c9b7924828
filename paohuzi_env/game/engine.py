"""The game engine: one hand of 跑胡子 from the deal to a win or 荒庄 (docs/rules.md sections 2, 4–8).

A pure, seeded, replayable core. ``Game`` runs every forced move (提, 偎, 跑, the forced 天胡,
skipped discards) itself and stops only at decisions:

============ =============================================================== ==============
decision     when                                                            actions
============ =============================================================== ==============
``tianhu``   a player may win on the 亮张 at the start (R-START-2)              HU, PASS
``hu``       a player may win on a revealed card (R-FLOW-3.1, 4.1, 2)         HU, PASS
``claim``    a player may 碰 or 吃 a card (R-CLAIM)                              PENG, groups, PASS
``bi``       the next 比 group of a 吃 (R-CHI-2)                                 groups, PASS
``discard``  the player owes a discard (R-GROUP-3, R-FLOW-4)                  0–19
============ =============================================================== ==============

Claim answers are buffered: nothing a player answers is applied, or visible to anybody, until
the window closes (R-CLAIM). All randomness is the deal, drawn from ``numpy.random.Generator``
seeded by ``seed``.

How it reads: ``Game`` only sequences the hand. What it waits for is a typed record —
:class:`HuOffers` (HU offers still to ask, and a tag for what follows if all pass),
:class:`ClaimWindow` (with each seat's :class:`ClaimAnswer`), :class:`BiChain` and
:class:`ForcedTake` — and the legality searches live elsewhere: 吃/比 in :mod:`paohuzi_env.game.chi`,
wins and scores in :mod:`paohuzi_env.game.scoring`. Decision, meld, source and event kinds are the
``Literal`` aliases below.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from .actions import GROUP_BASE, HU, PASS, PENG, action_name, group_cards
from .cards import COPIES, NUM_CARDS, NUM_KINDS, WANG
from .chi import GROUP_COUNTS, bi_groups, chi_groups, chi_need, discard_target, take, usable
from .groups import group_huxi
from .rules import Rules, as_rules, rules_from_record
from .scoring import Win, evaluate_counts

NUM_SEATS = 3
WANG_PENALTY = 5
"""R-WANG-8: points each 王 left in a hand at 荒庄 costs its holder, per seat holding none."""

Decision = Literal["tianhu", "hu", "claim", "bi", "discard"]
"""What the engine waits for (see the module docstring)."""
MeldType = Literal["chi", "peng", "wei", "chou_wei", "pao", "ti"]
"""A table group's type (:mod:`paohuzi_env.game.groups`)."""
Source = Literal["draw", "discard", "liang"]
"""Where the card on offer comes from: a revealed wall card, a discard, the 亮张."""
EventKind = Literal[
    "liang", "reveal", "wang", "discard", "to_discards", "ti", "wei", "chou_wei", "pao", "peng",
    "chi", "bi", "hu", "huangzhuang",
]
"""The first item of every entry of ``Game.events`` (``(kind, seat, data)``)."""
Event = tuple[EventKind, Any, Any]
ForcedKind = Literal["ti", "wei", "chou_wei"]
AfterHu = Literal["start", "card", "forced", "wang"]
"""What follows when every seat asked HU has passed: the rest of the start (R-START-3/4), the
rest of a revealed card's offer (跑, claims, R-FLOW-3/4), a forced 提/偎 (R-FLOW-2), or the
counts rule after a drawn 王 (R-WANG-3)."""


class IllegalActionError(ValueError):
    """An action that is not legal at the current decision."""


@dataclass(frozen=True)
class Result:
    """How a hand ended.

    Attributes:
        winner: the winning seat, or None after 荒庄.
        scores: points of seats 0, 1, 2 (zero-sum).
        win: the scored win (``evaluate_win``'s answer), or None.
        reason: ``"hu"``, ``"tianhu"`` (a win at the start, R-START-1/2) or ``"draw"`` (荒庄).
    """

    winner: int | None
    scores: tuple[int, int, int]
    win: Win | None
    reason: str


@dataclass(frozen=True)
class PlayerView:
    """What one seat may know (nothing else: the observation encoder reads only this).

    Attributes:
        seat: whose view this is.
        hand: own concealed cards as counts over the 20 kinds.
        table: per seat, its table groups as ``(type, cards)``; another seat's hidden 偎 is
            ``("wei", None)``.
        discards: per seat, its discard area (出牌区) in order.
        hand_sizes: per seat, concealed card count.
        wall: cards left in the wall.
        dealer: the dealer seat.
        liang: the 亮张 kind.
        chou: own kinds closed to 吃 (and to 碰 where the preset says so) (R-CHOU-1/2).
        chi_closed: own kinds closed to 吃 by R-CHOU-4.
        declined_peng: own kinds whose 碰 was declined (a later 偎 is 臭偎, R-CHOU-3).
        hu_blocked: own kinds it may not win on now (R-CHOU-5).
        decision: the pending decision type if this seat is to act, else None.
        offer: the card on offer ``(kind, source, from_seat)``; source ``draw``, ``discard``
            or ``liang``; None when nothing is on offer.
        bi_groups: in a 比 chain, the 吃 group and the 比 groups named so far (kind triples).
        bi_left: in a 比 chain, copies of the card still to place.
        legal: the legal action ids when this seat is to act, else ().
        to_act: the seat to act (None when over). Whose turn it is is public.
        done: the hand is over.
        wang: own 王 in hand (R-WANG-3; 0 without 王 in the deck).
        wang_shown: per seat, the 王 it showed (drawn from the wall, or the dealer's 亮张);
            a dealt 王 stays hidden.
        jokers: 王 in the deck (the rules' ``wang``: 0, or 2 for ``yongzhou``).
    """

    seat: int
    hand: tuple[int, ...]
    table: tuple[tuple[tuple[str, tuple[int, ...] | None], ...], ...]
    discards: tuple[tuple[int, ...], ...]
    hand_sizes: tuple[int, ...]
    wall: int
    dealer: int
    liang: int
    chou: frozenset[int]
    chi_closed: frozenset[int]
    declined_peng: frozenset[int]
    hu_blocked: frozenset[int]
    decision: Decision | None
    offer: tuple[int, Source, int] | None
    bi_groups: tuple[tuple[int, ...], ...]
    bi_left: int
    legal: tuple[int, ...]
    to_act: int | None
    done: bool
    wang: int = 0
    wang_shown: tuple[int, ...] = (0, 0, 0)
    jokers: int = 0


# ---------------------------------------------------------------------- pending decisions


@dataclass(frozen=True, slots=True)
class ClaimAnswer:
    """One seat's answer in a claim window: ``peng``, ``chi`` with its 吃 group and 比 groups
    (action ids, in the order named), or ``pass`` (a cancelled 比 chain included)."""

    kind: Literal["peng", "chi", "pass"]
    groups: tuple[int, ...] = ()


@dataclass(slots=True)
class ClaimWindow:
    """An open claim window on one card (R-CLAIM).

    Attributes:
        card, source, owner: the card on offer, where it comes from and whose it is.
        order: the seats to ask, in order (the 碰 candidate first, then the 吃 candidates).
        next_index: the position in ``order`` of the next seat to consider.
        peng_seat: the seat that may 碰, if any.
        chi_options: the legal 吃 groups of each 吃 candidate (R-CHI-1..4).
        blocked: 吃 candidates whose hand could group the card but not legally (R-CHOU-4).
        chi_rank: each 吃 candidate's place in the 吃 order (the drawer before its next player).
        closed: seats to close the card to by R-CHOU-4 when the window closes.
        answers: the answers given so far (hidden until the window closes).
        best: ``(rank, seat)`` of the highest claim so far (rank 0 is 碰), or None.
    """

    card: int
    source: Source
    owner: int
    order: list[int]
    peng_seat: int | None
    chi_options: dict[int, tuple[int, ...]]
    blocked: frozenset[int]
    chi_rank: dict[int, int]
    next_index: int = 0
    closed: list[int] = field(default_factory=list)
    answers: dict[int, ClaimAnswer] = field(default_factory=dict)
    best: tuple[int, int] | None = None

    def rank(self, kind: Literal["peng", "chi"], seat: int) -> int:
        """R-CLAIM's priority of a claim (lower wins): 碰 over 吃, then the 吃 order."""
        return 0 if kind == "peng" else 1 + self.chi_rank[seat]


@dataclass(slots=True)
class BiChain:
    """A 吃 whose 比 groups are being named (R-CHI-2).

    Attributes:
        seat: the eating seat.
        card: the eaten kind.
        groups: the 吃 group and the 比 groups so far (kind triples).
        ids: the same as action ids.
        usable: the seat's 吃/比-usable hand cards not yet placed in a group.
    """

    seat: int
    card: int
    groups: list[tuple[int, int, int]]
    ids: list[int]
    usable: tuple[int, ...]

    @property
    def left(self) -> int:
        """Copies of the card still to place."""
        return self.usable[self.card]


@dataclass(slots=True)
class HuOffers:
    """HU offers asked one seat at a time (R-START-2, R-FLOW-2/3): the seats still to ask with
    their wins, and what follows if all pass."""

    queue: list[tuple[int, Win]]
    then: AfterHu


@dataclass(frozen=True, slots=True)
class ForcedTake:
    """A forced 提/偎 of ``seat``'s own draw ``card`` held back while the drawer is asked HU
    (``win_on_own_ti_wei``, R-FLOW-2)."""

    seat: int
    card: int
    kind: ForcedKind


def _next(seat: int) -> int:
    return (seat + 1) % NUM_SEATS


def _prev(seat: int) -> int:
    return (seat + 2) % NUM_SEATS


class Game:
    """One hand of 跑胡子.

    Args:
        rules: a preset name or a :class:`~paohuzi_env.game.rules.Rules`.
        deck: 80 kind ids (each kind four times) in deal order (R-DEAL-1); None to shuffle.
        dealer: the dealer seat; None to draw it (R-DEAL-4).
        seed: seeds the ``numpy.random.Generator`` that draws the dealer, then the deck.

    Raises:
        ValueError: for a malformed deck or dealer.

    The public fields (``hands``, ``melds``, ``discards``, ``deck``, ``wall_pos``, ``events``,
    ``actions``, ``chou`` …) are full information, for tests, critics and tools; a policy
    reads :meth:`view` only. What the engine waits for is one of four typed pending records
    (:class:`HuOffers`, :class:`ClaimWindow`, :class:`BiChain`, :class:`ForcedTake`).
    """

    def __init__(
        self,
        rules: str | Rules = "huaihua",
        deck: list[int] | None = None,
        dealer: int | None = None,
        seed: int | np.random.SeedSequence | None = None,
    ) -> None:
        self.rules = as_rules(rules)
        n_wang = self.rules.wang
        dealer, deck = draw_deal(self.rules, deck, dealer, seed)
        self.deck: list[int] = deck
        self.num_cards = NUM_CARDS + n_wang
        self.dealer: int = int(dealer)
        self.actions: list[int] = []
        self.events: list[Event] = []
        d = self.dealer
        self.hands: list[list[int]] = [[0] * NUM_KINDS for _ in range(NUM_SEATS)]
        # 王 in each concealed hand, and those shown (R-WANG-3): counted apart from the kinds.
        self.wang = [0, 0, 0]
        self.wang_shown = [0, 0, 0]
        for seat, (lo, hi) in ((d, (0, 21)), (_next(d), (21, 41)), (_prev(d), (41, 61))):
            for k in self.deck[lo:hi]:
                if k == WANG:
                    self.wang[seat] += 1
                else:
                    self.hands[seat][k] += 1
        self.liang: int = self.deck[20]  # R-DEAL-2
        if self.liang == WANG:
            self.wang_shown[d] = 1  # R-WANG-3: a 亮张 王 is shown and kept
        self.wall_pos = 61
        self.melds: list[list[list[Any]]] = [[], [], []]  # [type, cards] per group
        self._meld_key: list[tuple[tuple[str, tuple[int, ...]], ...] | None] = [(), (), ()]
        self.n_paoti = [0, 0, 0]
        self.table_cards = [0, 0, 0]
        self.table_huxi = [0, 0, 0]
        self.discards: list[list[int]] = [[], [], []]
        self.chou: list[set[int]] = [set(), set(), set()]
        self.chi_closed: list[set[int]] = [set(), set(), set()]
        self.declined_peng: list[set[int]] = [set(), set(), set()]
        self.hu_blocked: list[set[int]] = [set(), set(), set()]
        self.played = [False, False, False]
        self.current_player: int | None = None
        self.decision: Decision | None = None
        self._legal: list[int] = []
        self.result: Result | None = None
        self.win_card: int | None = None
        self._offer: tuple[int, Source, int] | None = None
        # What the engine waits for (at most one of each is open).
        self._hu: HuOffers | None = None
        self._claim: ClaimWindow | None = None
        self._bi: BiChain | None = None
        self._forced: ForcedTake | None = None
        self._start()

    # ------------------------------------------------------------------ public surface

    @property
    def done(self) -> bool:
        """The hand is over."""
        return self.result is not None

    @property
    def wall_left(self) -> int:
        """Cards left in the wall."""
        return self.num_cards - self.wall_pos

    @property
    def offer(self) -> tuple[int, Source, int] | None:
        """The card on offer ``(kind, source, from_seat)`` (full information: also while only its
        drawer may see it, R-FLOW-2; :meth:`view` says what each seat sees), or None."""
        return self._offer

    def legal_actions(self) -> list[int]:
        """Sorted legal action ids of ``current_player`` ([] when the hand is over)."""
        return list(self._legal)

    def step(self, action: int) -> None:
        """Apply the current player's action; forced moves that follow run at once.

        Raises:
            IllegalActionError: naming the action and the legal ones.
        """
        if self.result is not None:
            raise IllegalActionError("the hand is over; no action is legal")
        try:
            a = operator.index(action)  # an int id; a float such as 3.7 is no action
        except TypeError:
            raise IllegalActionError(
                f"an action is an int id 0..60, got {action!r}; legal: {self._legal_text()}"
            ) from None
        if a not in self._legal:
            raise IllegalActionError(
                f"action {action} is not legal for seat {self.current_player} at this "
                f"{self.decision} decision; legal: {self._legal_text()}"
            )
        self.actions.append(a)
        seat, decision = self.current_player, self.decision
        assert seat is not None
        if decision == "tianhu" or decision == "hu":
            self._answer_hu(a)
        elif decision == "claim":
            self._answer_claim(seat, a)
        elif decision == "bi":
            self._answer_bi(a)
        else:
            self._discard(seat, a)

    def _legal_text(self) -> str:
        return ", ".join(f"{x} ({action_name(x, self.decision)})" for x in self._legal)

    def record(self) -> dict[str, Any]:
        """A JSON-serialisable record from which :meth:`replay` rebuilds this hand."""
        return {
            "rules": self.rules.to_record(),
            "deck": list(self.deck),
            "dealer": self.dealer,
            "actions": list(self.actions),
        }

    @classmethod
    def replay(cls, record: dict[str, Any]) -> Game:
        """Rebuild a hand from :meth:`record`'s output."""
        return replay_record(cls, record)

    def table_groups(self, seat: int) -> tuple[tuple[str, tuple[int, ...]], ...]:
        """A seat's table groups (full information), canonical order."""
        key = self._meld_key[seat]
        if key is None:
            key = tuple(sorted((m[0], m[1]) for m in self.melds[seat]))
            self._meld_key[seat] = key
        return key

    def view(self, seat: int) -> PlayerView:
        """What ``seat`` may know (see :class:`PlayerView`)."""
        table = []
        for s in range(NUM_SEATS):
            groups = []
            for gtype, cards in self.melds[s]:
                if gtype == "wei" and s != seat:
                    groups.append(("wei", None))
                else:
                    groups.append((gtype, cards))
            table.append(tuple(groups))
        acting = self.current_player == seat and self.result is None
        bi = self._bi if acting and self.decision == "bi" else None
        return PlayerView(
            seat=seat,
            hand=tuple(self.hands[seat]),
            table=tuple(table),
            discards=tuple(tuple(d) for d in self.discards),
            hand_sizes=tuple(sum(h) + w for h, w in zip(self.hands, self.wang)),
            wall=self.wall_left,
            dealer=self.dealer,
            liang=self.liang,
            chou=frozenset(self.chou[seat]),
            chi_closed=frozenset(self.chi_closed[seat]),
            declined_peng=frozenset(self.declined_peng[seat]),
            hu_blocked=frozenset(self.hu_blocked[seat]),
            decision=self.decision if acting else None,
            offer=self._visible_offer(seat),
            bi_groups=tuple(bi.groups) if bi else (),
            bi_left=bi.left if bi else 0,
            legal=tuple(self._legal) if acting else (),
            to_act=self.current_player,
            done=self.result is not None,
            wang=self.wang[seat],
            wang_shown=tuple(self.wang_shown),
            jokers=self.rules.wang,
        )

    def _visible_offer(self, seat: int) -> tuple[int, Source, int] | None:
        # R-FLOW-2: a card about to be 提'd or 偎'd is not shown; while its drawer is asked HU
        # (win_on_own_ti_wei) only the drawer may see it.
        if self._forced is not None and seat != self._forced.seat:
            return None
        return self._offer

    # ------------------------------------------------------------------ counts and helpers

    def held(self, seat: int) -> int:
        """Cards a seat holds, hand (王 included, R-WANG-3) and table (R-GROUP-3)."""
        return sum(self.hands[seat]) + self.wang[seat] + self.table_cards[seat]

    def _owes_discard(self, seat: int, extra: int = 0) -> bool:
        """R-GROUP-3: would ``seat`` owe a discard holding ``extra`` more cards?"""
        return self.held(seat) + extra > discard_target(self.n_paoti[seat])

    def _add_meld(self, seat: int, gtype: MeldType, cards: tuple[int, ...]) -> None:
        self.melds[seat].append([gtype, cards])
        self.table_cards[seat] += len(cards)
        if gtype in ("pao", "ti"):
            self.n_paoti[seat] += 1
        self._table_changed(seat)

    def _upgrade_meld(self, seat: int, kind: int, gtype: Literal["pao", "ti"]) -> None:
        """Turn a 偎/臭偎/碰 of ``kind`` into a 跑 or 提 (one more card)."""
        for m in self.melds[seat]:
            if m[0] != "chi" and m[1][0] == kind:
                m[0], m[1] = gtype, (kind,) * 4
                break
        else:  # pragma: no cover - callers check first
            raise AssertionError("no meld to upgrade")
        self.table_cards[seat] += 1
        self.n_paoti[seat] += 1
        self._table_changed(seat)

    def _table_changed(self, seat: int) -> None:
        self._meld_key[seat] = None
        huxi = sum(group_huxi(t, c) for t, c in self.melds[seat])
        if huxi != self.table_huxi[seat]:
            self.table_huxi[seat] = huxi
            self.hu_blocked[seat].clear()  # R-CHOU-5: the current huxi changed

    def _meld_type_of(self, seat: int, kind: int) -> str | None:
        for t, cards in self.melds[seat]:
            if t != "chi" and cards[0] == kind:
                return str(t)
        return None

    def _win_of(self, seat: int, card: int | None, *, self_drawn: bool, from_discard: bool = False,
                tianhu: bool = False, dihu: bool | None = None) -> Win | None:
        """The best win of ``seat`` on ``card`` (None: a complete holding, e.g. after a drawn 王)."""
        if card is not None and card in self.hu_blocked[seat]:
            return None  # R-CHOU-5
        if self.wang[seat] and not self_drawn:
            return None  # R-WANG-5: a 王 holder wins only on its own draw
        if dihu is None:
            # 地胡 (section 9, seed 001 "未打牌就算手牌未变动"): the winner has not discarded yet.
            dihu = not self.played[seat]
        return evaluate_counts(
            tuple(self.hands[seat]), self.table_groups(seat), card, self.rules,
            # R-WIN-5: 海底 is a win on the last *wall* card, never on a discard made after
            # it (possible with hu_on_discard).
            self_drawn=self_drawn,
            haidi=card is not None and not from_discard and self.wall_pos == self.num_cards,
            tianhu=tianhu, dihu=dihu, from_discard=from_discard, wang=self.wang[seat],
        )

    def _pose(self, seat: int, decision: Decision, legal: list[int]) -> None:
        self.current_player, self.decision, self._legal = seat, decision, legal

    def _finish(self, winner: int | None, win: Win | None, reason: str) -> None:
        scores = [0, 0, 0]
        if winner is not None and win is not None:
            for s in range(NUM_SEATS):
                scores[s] = 2 * win.score if s == winner else -win.score
            self.events.append(("hu", winner, win.names))
        else:
            self.events.append(("huangzhuang", None, None))
            scores = list(wang_payments(self.wang))  # R-WANG-8 (all zero without 王)
        self.result = Result(winner, (scores[0], scores[1], scores[2]), win, reason)
        self.current_player, self.decision, self._legal = None, None, []
        if self._offer is not None and self._offer[1] != "liang" and self._offer[0] != WANG:
            self.win_card = self._offer[0]  # the won card lies in no hand, table or area
        self._offer = None

    # ------------------------------------------------------------------ start (R-START-*)

    def _start(self) -> None:
        d = self.dealer
        order = (d, _next(d), _prev(d))
        self.events.append(("liang", d, self.liang))
        # R-START-1: forced 天胡 (3 four-of-a-kinds, or 5 坎/提 together).
        for s in order:
            h = self.hands[s]
            n4 = sum(1 for n in h if n == 4)
            n3 = sum(1 for n in h if n == 3)
            if n4 >= 3 or n4 + n3 >= 5:  # a 王 counts as neither (R-WANG-4)
                win = evaluate_counts(tuple(h), (), None, self.rules, tianhu=True,
                                      wang=self.wang[s])
                assert win is not None
                self._finish(s, win, "tianhu")
                return
        # R-START-2: the 亮张 win, asked in order dealer, next, prev. A non-dealer's 亮张 win is
        # 天胡 in classic and zipai ("天胡为自摸" there), elsewhere 地胡 (section 9, R-WANG-7).
        liang_tianhu = self.rules.scoring in ("classic", "zipai")
        queue = []
        for s in order:
            if s == d:
                win = evaluate_counts(tuple(self.hands[s]), (), None, self.rules, tianhu=True,
                                      wang=self.wang[s])
            elif self.liang == WANG or self.wang[s]:
                win = None  # R-WANG-3/5: nobody else wins on a 王; a 王 holder only on its draw
            else:
                win = evaluate_counts(
                    tuple(self.hands[s]), (), self.liang, self.rules,
                    tianhu=liang_tianhu, dihu=not liang_tianhu,
                )
            if win is not None:
                queue.append((s, win))
        self._offer = (self.liang, "liang", d)
        if queue:
            self._ask_hu(queue, "tianhu", then="start")
            return
        self._after_start_hu()

    def _after_start_hu(self) -> None:
        self._offer = None
        # R-START-3: every four-of-a-kind becomes a 提, shown at once.
        for s in range(NUM_SEATS):
            for k in range(NUM_KINDS):
                if self.hands[s][k] == 4:
                    self.hands[s][k] = 0
                    self._add_meld(s, "ti", (k,) * 4)
                    self.events.append(("ti", s, k))
        # R-START-4: the dealer discards if it owes one, else its next player draws.
        self._after_take_in(self.dealer)

    # ------------------------------------------------------------------ turn flow

    def _after_take_in(self, seat: int) -> None:
        """R-GROUP-3 / R-FLOW-6/7: the seat discards if it owes one, else next(seat) draws."""
        if not self._pose_discard_if_owed(seat):
            self._draw(_next(seat))

    def _pose_discard_if_owed(self, seat: int) -> bool:
        """Ask ``seat`` for its discard if it owes one and has a card (R-GROUP-3, R-DISC-2: an
        empty hand skips the discard). True if it was asked."""
        if self._owes_discard(seat):
            legal = self._discard_options(seat)
            if legal:
                self._pose(seat, "discard", legal)
                return True
        return False

    def _discard_options(self, seat: int) -> list[int]:
        h = self.hands[seat]
        legal = [k for k in range(NUM_KINDS) if 0 < h[k] < 3]  # R-DISC-1
        if not legal:
            legal = [k for k in range(NUM_KINDS) if h[k]]  # R-DISC-2: break a 坎
        return legal

    def _draw(self, seat: int) -> None:
        """R-FLOW-1/2/3: ``seat`` draws the top wall card."""
        while True:
            if self.wall_pos >= self.num_cards:
                self._finish(None, None, "draw")  # R-END-2 荒庄
                return
            c = self.deck[self.wall_pos]
            self.wall_pos += 1
            if c == WANG:
                self._draw_wang(seat)
                return
            h = self.hands[seat]
            mt = self._meld_type_of(seat, c)
            forced: ForcedKind | None = None
            if h[c] == 3 or mt in ("wei", "chou_wei"):
                forced = "ti"
            elif h[c] == 2:
                forced = "chou_wei" if c in self.declined_peng[seat] else "wei"
            if forced is None:
                self.events.append(("reveal", seat, c))
                self._offer_card(c, "draw", seat)
                return
            # R-FLOW-2: compulsory 提/偎 of the own draw; no win on it unless the switch.
            if self.rules.win_on_own_ti_wei:
                win = self._win_of(seat, c, self_drawn=True)
                if win is not None:
                    self._forced = ForcedTake(seat, c, forced)
                    self._offer = (c, "draw", seat)
                    self._ask_hu([(seat, win)], "hu", then="forced")
                    return
            if self._apply_own_forced(seat, c, forced):
                return
            seat = _next(seat)

    def _draw_wang(self, seat: int) -> None:
        """R-WANG-3: a drawn 王 is shown and kept; its drawer alone may win (自摸); then the
        counts rule decides as after any take-in."""
        self.wang[seat] += 1
        self.wang_shown[seat] += 1
        self.events.append(("wang", seat, None))
        win = None
        if WANG not in self.hu_blocked[seat]:  # R-CHOU-5 on a declined 王 win
            win = evaluate_counts(
                tuple(self.hands[seat]), self.table_groups(seat), None, self.rules,
                self_drawn=True, haidi=self.wall_pos == self.num_cards,
                dihu=not self.played[seat], wang=self.wang[seat],
            )
        if win is not None:
            self._offer = (WANG, "draw", seat)
            self._ask_hu([(seat, win)], "hu", then="wang")
            return
        self._after_take_in(seat)

    def _apply_own_forced(self, seat: int, c: int, forced: ForcedKind) -> bool:
        """Make the forced 提/偎 of ``seat``'s own draw ``c``; True if it now owes a discard
        (and is asked for it), False if its next player draws."""
        h = self.hands[seat]
        if forced == "ti":
            if h[c] == 3:
                h[c] = 0
                self._add_meld(seat, "ti", (c,) * 4)
            else:
                self._upgrade_meld(seat, c, "ti")
            self.events.append(("ti", seat, c))
        else:
            h[c] = 0
            self._add_meld(seat, forced, (c,) * 3)
            self.events.append((forced, seat, c if forced == "chou_wei" else None))
        if self._pose_discard_if_owed(seat):
            return True
        self.decision = None
        return False

    def _offer_card(self, c: int, source: Source, owner: int) -> None:
        """R-FLOW-3 (a revealed draw) or R-FLOW-4 (a discard): HU, 跑, claims, discard area."""
        self._offer = (c, source, owner)
        from_discard = source == "discard"
        # 1. HU offers.
        if not from_discard or self.rules.hu_on_discard:
            order = (owner, _next(owner), _prev(owner)) if not from_discard else (
                _next(owner), _prev(owner))
            queue = []
            for s in order:
                win = self._win_of(s, c, self_drawn=(s == owner and not from_discard),
                                   from_discard=from_discard)
                if win is not None:
                    queue.append((s, win))
            if queue:
                self._ask_hu(queue, "hu", then="card")
                return
        self._after_card_hu()

    def _after_card_hu(self) -> None:
        assert self._offer is not None
        c, source, owner = self._offer
        from_discard = source == "discard"
        # 2. 跑 (forced).
        for s in (_next(owner), _prev(owner), owner):
            mt = self._meld_type_of(s, c)
            if s != owner and (self.hands[s][c] == 3 or mt in ("wei", "chou_wei")) or (
                mt == "peng" and not from_discard
            ):
                self._offer = None
                if self.hands[s][c] == 3:
                    self.hands[s][c] = 0
                    self._add_meld(s, "pao", (c,) * 4)
                else:
                    self._upgrade_meld(s, c, "pao")
                self.events.append(("pao", s, c))
                self._after_take_in(s)
                return
        # 3. The claim window.
        self._open_claim(c, source, owner)

    # ------------------------------------------------------------------ HU answers

    def _ask_hu(self, queue: list[tuple[int, Win]], decision: Decision, then: AfterHu) -> None:
        """Offer HU to each seat of ``queue`` in order; ``then`` says what follows if all pass."""
        self._hu = HuOffers(queue, then)
        self._pose(queue[0][0], decision, [HU, PASS])

    def _answer_hu(self, a: int) -> None:
        offers = self._hu
        assert offers is not None and self.decision is not None
        s, win = offers.queue.pop(0)
        if a == HU:
            self._hu = None
            self._finish(s, win, "tianhu" if self.decision == "tianhu" else "hu")
            return
        if self._offer is not None:
            self.hu_blocked[s].add(self._offer[0])  # R-CHOU-5 臭胡
        if offers.queue:
            self._pose(offers.queue[0][0], self.decision, [HU, PASS])
            return
        self._hu = None
        self.decision = None
        if offers.then == "start":
            self._after_start_hu()
        elif offers.then == "card":
            self._after_card_hu()
        elif offers.then == "forced":
            self._after_forced_hu()
        else:
            assert self._offer is not None
            seat = self._offer[2]
            self._offer = None
            self._after_take_in(seat)

    def _after_forced_hu(self) -> None:
        forced = self._forced
        assert forced is not None
        self._forced = None
        self._offer = None
        self.decision = None
        if not self._apply_own_forced(forced.seat, forced.card, forced.kind):
            self._draw(_next(forced.seat))

    # ------------------------------------------------------------------ claims (R-CLAIM)

    def _peng_ok(self, seat: int, c: int) -> bool:
        h = self.hands[seat]
        if h[c] != 2:
            return False
        if self.rules.chou_blocks_peng and c in self.chou[seat]:
            return False  # R-CHOU-2
        if self._owes_discard(seat, extra=1):
            # R-CHI-4: something other than a 坎 must be left to discard.
            if not any(0 < h[k] < 3 for k in range(NUM_KINDS) if k != c):
                return False
        return True

    def _open_claim(self, c: int, source: Source, owner: int) -> None:
        from_discard = source == "discard"
        peng_seat = None
        for s in (_next(owner), _prev(owner)):
            if self._peng_ok(s, c):
                peng_seat = s
        if from_discard:  # R-FLOW-4.3: 吃 by next(P) only, and not at all without chi_on_discard
            chi_seats: tuple[int, ...] = (_next(owner),) if self.rules.chi_on_discard else ()
        else:
            chi_seats = (owner, _next(owner))  # R-FLOW-3.3
        chi_options: dict[int, tuple[int, ...]] = {}
        blocked = set()
        for s in chi_seats:
            if c in self.chou[s] or c in self.chi_closed[s]:
                continue  # R-CHOU-2, R-CHOU-4
            legal, groupable = chi_groups(tuple(self.hands[s]), c, self._owes_discard(s, extra=1))
            if legal:
                chi_options[s] = legal
            elif groupable and self.rules.chou_when_chi_blocked:
                blocked.add(s)
        order: list[int] = [] if peng_seat is None else [peng_seat]
        order += [s for s in chi_seats if s != peng_seat and (s in chi_options or s in blocked)]
        self._claim = ClaimWindow(
            card=c, source=source, owner=owner, order=order, peng_seat=peng_seat,
            chi_options=chi_options, blocked=frozenset(blocked),
            chi_rank={s: i for i, s in enumerate(chi_seats)},
        )
        self._ask_next_claimant()

    def _ask_next_claimant(self) -> None:
        cl = self._claim
        assert cl is not None
        while cl.next_index < len(cl.order):
            s = cl.order[cl.next_index]
            cl.next_index += 1
            can_peng = s == cl.peng_seat
            chi = cl.chi_options.get(s, ())
            could = []
            if can_peng:
                could.append(0)
            if chi or s in cl.blocked:
                could.append(cl.rank("chi", s))
            if cl.best is not None and all(r >= cl.best[0] for r in could):
                continue  # nothing it could answer would take the card
            # R-CHOU-4: reached, its grouping illegal. Applied when the window closes, like
            # every other effect of the window (R-CLAIM: what earlier-asked seats answered
            # stays hidden until then, and this closure would tell that they did not take c).
            if s in cl.blocked:
                cl.closed.append(s)
                if not chi and not can_peng:
                    continue
            self._pose(s, "claim", sorted(([PENG] if can_peng else []) + list(chi) + [PASS]))
            return
        self._resolve_claim()

    def _answer_claim(self, seat: int, a: int) -> None:
        cl = self._claim
        assert cl is not None
        if a == PASS:
            cl.answers[seat] = ClaimAnswer("pass")
            self._ask_next_claimant()
        elif a == PENG:
            cl.answers[seat] = ClaimAnswer("peng")
            cl.best = (0, seat)
            self._ask_next_claimant()
        else:
            c = cl.card
            rest = take(usable(tuple(self.hands[seat])), chi_need(a, c))
            self._bi = BiChain(seat, c, [group_cards(a)], [a], rest)
            self._continue_bi()

    def _continue_bi(self) -> None:
        """Ask for the next 比 group, or end the chain: the 吃 is the seat's answer."""
        bi, cl = self._bi, self._claim
        assert bi is not None and cl is not None
        if bi.left == 0:
            self._bi = None
            cl.answers[bi.seat] = ClaimAnswer("chi", tuple(bi.ids))
            rank = cl.rank("chi", bi.seat)
            if cl.best is None or rank < cl.best[0]:
                cl.best = (rank, bi.seat)
            self._ask_next_claimant()
            return
        legal = bi_groups(bi.usable, bi.card, self._owes_discard(bi.seat, extra=1))
        self._pose(bi.seat, "bi", list(legal) + [PASS])

    def _answer_bi(self, a: int) -> None:
        bi, cl = self._bi, self._claim
        assert bi is not None and cl is not None
        if a == PASS:  # R-CHI-3: the whole 吃 is cancelled; c counts as passed
            self._bi = None
            cl.answers[bi.seat] = ClaimAnswer("pass")
            self._ask_next_claimant()
            return
        bi.usable = take(bi.usable, GROUP_COUNTS[a - GROUP_BASE])
        bi.groups.append(group_cards(a))
        bi.ids.append(a)
        self._continue_bi()

    def _resolve_claim(self) -> None:
        cl = self._claim
        assert cl is not None
        self._claim = None
        c, owner = cl.card, cl.owner
        for s in cl.closed:
            self.chi_closed[s].add(c)  # R-CHOU-4
        for s, ans in cl.answers.items():
            if ans.kind == "pass" and (self.rules.chou_rule == "any" or s in cl.chi_options):
                self.chou[s].add(c)  # R-CHOU-1 (chou_rule chi: only a passed 吃)
            if s == cl.peng_seat and ans.kind != "peng":
                # R-CHOU-3 忍碰; also when it answered 吃 instead (docs/RULES-DECISIONS.md)
                self.declined_peng[s].add(c)
        self._offer = None
        if cl.best is None:
            self._to_discard_area(c, owner)
            return
        s = cl.best[1]
        ans = cl.answers[s]
        h = self.hands[s]
        if ans.kind == "peng":
            h[c] -= 2
            self._add_meld(s, "peng", (c,) * 3)
            self.events.append(("peng", s, c))
        else:
            for i, a in enumerate(ans.groups):
                need = chi_need(a, c) if i == 0 else GROUP_COUNTS[a - GROUP_BASE]
                for k in range(NUM_KINDS):
                    h[k] -= need[k]
                cards = group_cards(a)
                self._add_meld(s, "chi", cards)
                self.events.append(("chi" if i == 0 else "bi", s, cards))
        self._after_take_in(s)

    def _to_discard_area(self, c: int, owner: int) -> None:
        self._offer = None
        self.discards[owner].append(c)
        self.events.append(("to_discards", owner, c))
        self._draw(_next(owner))

    # ------------------------------------------------------------------ discards (R-FLOW-4)

    def _discard(self, seat: int, k: int) -> None:
        self.hands[seat][k] -= 1
        self.played[seat] = True
        if self.rules.chou_rule == "any":
            self.chou[seat].add(k)  # R-CHOU-1: one's own discard
        self.events.append(("discard", seat, k))
        self.decision = None
        self._offer_card(k, "discard", seat)


def replay_record(game_cls: Any, record: dict[str, Any]) -> Any:
    """A ``game_cls`` (``engine.Game`` or ``fast.Game``) rebuilt from a record of either."""
    rules = rules_from_record(record["rules"])
    g = game_cls(rules, deck=record["deck"], dealer=record["dealer"])
    for a in record["actions"]:
        g.step(a)
    return g


def draw_deal(rules: Rules, deck: Any = None, dealer: Any = None,
              seed: int | np.random.SeedSequence | None = None) -> tuple[int, list[int]]:
    """The dealer and deck of a hand: those given (checked), else drawn from
    ``numpy.random.default_rng(seed)`` — the dealer first, then the deck (R-DEAL-1/4, R-WANG-2).
    Both backends deal through this, so the same seed gives the same deal on each.

    Raises:
        ValueError: for a malformed deck or dealer, naming what is allowed.
    """
    rng = np.random.default_rng(seed) if dealer is None or deck is None else None
    if dealer is None:
        assert rng is not None
        dealer = int(rng.integers(NUM_SEATS))
    if (
        isinstance(dealer, bool)
        or not isinstance(dealer, (int, np.integer))
        or not 0 <= int(dealer) < NUM_SEATS
    ):
        raise ValueError(f"dealer must be a seat 0, 1 or 2, got {dealer!r}")
    if deck is None:
        assert rng is not None
        cards = _FULL_DECK[rules.wang]  # R-WANG-1/2: the 王 after the 80 cards
        return int(dealer), rng.permutation(cards).tolist()  # a permutation: no check needed
    return int(dealer), _checked_deck(deck, rules.wang)


# The sorted decks drawn from: 80 cards, then 0-2 王 (read-only; permutation() copies).
_FULL_DECK = {
    n: np.concatenate([np.repeat(np.arange(NUM_KINDS), COPIES), np.full(n, WANG)]).astype(np.int64)
    for n in range(3)
}
for _d in _FULL_DECK.values():
    _d.flags.writeable = False


def _checked_deck(deck: Any, n_wang: int = 0) -> list[int]:
    """The deck as a list of ints, or a ValueError naming what is wrong (R-DEAL-1, R-WANG-2)."""
    if n_wang:
        msg = (f"deck must be a permutation of the {NUM_CARDS + n_wang} cards: kind ids 0..19, "
               f"each {COPIES} times, and {n_wang} 王 (id {WANG})")
    else:
        msg = f"deck must be a permutation of the {NUM_CARDS} cards: kind ids 0..19, each 4 times"
    try:
        out = [operator.index(k) for k in deck]
    except TypeError:
        raise ValueError(f"{msg}; got a non-integer entry") from None
    want = sorted(list(range(NUM_KINDS)) * COPIES + [WANG] * n_wang)
    if len(out) != len(want) or sorted(out) != want:
        counts = [out.count(k) for k in range(NUM_KINDS + (1 if n_wang else 0))]
        raise ValueError(f"{msg}; got {len(out)} entries, counts per kind {counts}")
    return out


def wang_payments(wang: list[int] | tuple[int, ...]) -> tuple[int, int, int]:
    """R-WANG-8 (荒庄): each 王 still in a hand costs its holder :data:`WANG_PENALTY` points to
    every seat holding none (zero-sum). ``wang``: 王 per seat."""
    scores = [0, 0, 0]
    for s in range(NUM_SEATS):
        for t in range(NUM_SEATS):
            if wang[s] and not wang[t]:
                scores[s] -= WANG_PENALTY * wang[s]
                scores[t] += WANG_PENALTY * wang[s]
    return scores[0], scores[1], scores[2]


def next_dealer(rules: str | Rules, dealer: int, winner: int | None,
                draw_streak: int = 0) -> tuple[int, int]:
    """The next hand's dealer under the preset's dealer rule, and the new 荒庄 streak.

    ``winner`` rule (huaihua, zipai; seed 001): the winner deals; after a 荒庄 the next player.
    ``classic`` rule (seed 000): the winner deals; after a 荒庄 the dealer stays, and after
    three 荒庄 in a row its next player deals.
    """
    rules = as_rules(rules)
    if winner is not None:
        return winner, 0
    if rules.dealer_rule == "winner":
        return _next(dealer), 0
    streak = draw_streak + 1
    if streak >= 3:
        return _next(dealer), 0
    return dealer, streak


def check_invariants(game: Game) -> None:
    """Raise AssertionError on any broken invariant of the game state."""
    total = [0] * (NUM_KINDS + 1)  # the 20 kinds and the 王 (R-WANG-1)
    for s in range(NUM_SEATS):
        total[WANG] += game.wang[s]
        assert 0 <= game.wang_shown[s] <= game.wang[s], f"seat {s} showed more 王 than it holds"
        for k, n in enumerate(game.hands[s]):
            assert 0 <= n <= 4, f"seat {s} holds {n} of kind {k}"
            total[k] += n
        for t, cards in game.melds[s]:
            for k in cards:
                total[k] += 1
        for k in game.discards[s]:
            total[k] += 1
    for k in game.deck[game.wall_pos:]:
        total[k] += 1
    if game.offer is not None and game.offer[1] != "liang" and game.offer[0] != WANG:
        total[game.offer[0]] += 1  # (a drawn 王 on offer is already in its drawer's hand)
    if game.win_card is not None:
        total[game.win_card] += 1
    assert total == [COPIES] * NUM_KINDS + [game.rules.wang], f"cards not accounted for: {total}"
    # Before R-START-3 has run (a 亮张 HU offer, or a hand won at the start) the deal is as
    # dealt: four-of-a-kinds are still in hands and the dealer holds 21 cards.
    at_start = game.decision == "tianhu" or (
        game.result is not None and game.result.reason == "tianhu"
    )
    for s in range(NUM_SEATS):
        n = game.n_paoti[s]
        assert n == sum(1 for t, _ in game.melds[s] if t in ("pao", "ti"))
        assert game.table_cards[s] == sum(len(c) for _, c in game.melds[s])
        held, target = game.held(s), discard_target(n)
        empty = sum(game.hands[s]) == 0
        # R-GROUP-3: more than target only while owing a discard (or after R-DISC-2's skip:
        # a player whose hand is empty can still be made to 跑 a 碰/偎 on its table, R-FLOW-5,
        # so it may then hold more than target + 1).
        if held > target and not empty:
            assert held == target + 1, f"seat {s} holds {held} > target+1 ({target + 1})"
            owing = game.current_player == s and (
                game.decision == "discard"
                # R-WANG-3: asked HU on the 王 it just drew, before the counts rule applies
                or game.decision == "hu" and game.offer is not None and game.offer[0] == WANG
            )
            assert owing or game.result is not None or (at_start and s == game.dealer), (
                f"seat {s} holds {held} > {target} without owing a discard"
            )
        if not at_start:
            for k, n_k in enumerate(game.hands[s]):
                assert n_k < 4, f"seat {s} keeps four of kind {k} in hand (R-START-3)"
    if game.result is None:
        assert game.current_player is not None and game.legal_actions(), "no legal action"
        assert game.legal_actions() == sorted(set(game.legal_actions()))
    else:
        assert sum(game.result.scores) == 0, "scores are not zero-sum"
        if game.result.reason == "draw":
            assert game.wall_pos == game.num_cards, "荒庄 before the wall is empty (R-END-2)"
        assert game.current_player is None and not game.legal_actions()


def play_random_hand(rules: str | Rules = "huaihua", seed: int | None = 0,
                     check: bool = False) -> Game:
    """Play one hand with uniformly random legal actions (seeded)."""
    ss = np.random.SeedSequence(seed)
    deal_seed, act_seed = ss.spawn(2)
    game = Game(rules, seed=deal_seed)
    rng = np.random.default_rng(act_seed)
    while not game.done:
        if check:
            check_invariants(game)
        legal = game.legal_actions()
        game.step(legal[int(rng.integers(len(legal)))])
    if check:
        check_invariants(game)
    return game
