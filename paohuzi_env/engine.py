"""The game engine: one hand of 跑胡子 from the deal to a win or 荒庄 (RULES.md sections 2, 4–8).

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
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from .actions import GROUPS, GROUPS_WITH, HU, PASS, PENG, action_name, group_cards
from .cards import COPIES, NUM_CARDS, NUM_KINDS
from .groups import group_huxi
from .rules import Rules, as_rules, get_rules
from .scoring import Win, evaluate_counts

NUM_SEATS = 3
_GROUP_COUNTS = tuple(
    tuple(sum(1 for x in g if x == k) for k in range(NUM_KINDS)) for g in GROUPS
)


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
    """

    seat: int
    hand: tuple[int, ...]
    table: tuple[tuple[tuple[str, tuple[int, ...] | None], ...], ...]
    discards: tuple[tuple[int, ...], ...]
    hand_sizes: tuple[int, int, int]
    wall: int
    dealer: int
    liang: int
    chou: frozenset[int]
    chi_closed: frozenset[int]
    declined_peng: frozenset[int]
    hu_blocked: frozenset[int]
    decision: str | None
    offer: tuple[int, str, int] | None
    bi_groups: tuple[tuple[int, int, int], ...]
    bi_left: int
    legal: tuple[int, ...]
    to_act: int | None
    done: bool


def _next(seat: int) -> int:
    return (seat + 1) % NUM_SEATS


def _prev(seat: int) -> int:
    return (seat + 2) % NUM_SEATS


@lru_cache(maxsize=1 << 16)
def _bi_completable(usable: tuple[int, ...], c: int) -> bool:
    """Can every copy of c in ``usable`` (non-坎 hand cards) go out in 比 groups? (R-CHI-2)"""
    if usable[c] == 0:
        return True
    for a in GROUPS_WITH[c]:
        g = _GROUP_COUNTS[a - 20]
        if all(usable[k] >= g[k] for k in group_cards(a)):
            rest = tuple(u - x for u, x in zip(usable, g))
            if _bi_completable(rest, c):
                return True
    return False


@lru_cache(maxsize=1 << 16)
def _chi_legal(hand: tuple[int, ...], c: int, owes_after: bool) -> tuple[tuple[int, ...], bool]:
    """The legal 吃 groups for card c of a hand (R-CHI-1..4), and whether any group could
    hold c at all (R-CHOU-4). ``owes_after``: the 吃 would leave the player owing a discard."""
    usable = _usable(hand)
    kan = tuple(1 if n >= 3 else 0 for n in hand)
    groupable = False
    legal = []
    for a in GROUPS_WITH[c]:
        need = list(_GROUP_COUNTS[a - 20])
        need[c] -= 1  # c itself is the card on offer
        if any(usable[k] < need[k] for k in group_cards(a)):
            continue  # R-CHI-1: the other two cards come from the hand, never a 坎
        groupable = True
        rest = tuple(u - n for u, n in zip(usable, need))
        if not _bi_completable(rest, c):
            continue  # R-CHI-3
        if owes_after and not _bi_end_has_free(rest, c, kan):
            continue  # R-CHI-4
        legal.append(a)
    return tuple(legal), groupable


def _usable(hand) -> tuple[int, ...]:
    # R-GROUP-1 / R-CHI-1: cards of a 坎 never go into 吃 or 比.
    return tuple(n if n < 3 else 0 for n in hand)


class Game:
    """One hand of 跑胡子.

    Args:
        rules: a preset name or a :class:`~paohuzi_env.rules.Rules`.
        deck: 80 kind ids (each kind four times) in deal order (R-DEAL-1); None to shuffle.
        dealer: the dealer seat; None to draw it (R-DEAL-4).
        seed: seeds the ``numpy.random.Generator`` that draws the dealer, then the deck.

    Raises:
        ValueError: for a malformed deck or dealer.
    """

    def __init__(
        self,
        rules: str | Rules = "huaihua",
        deck: list[int] | None = None,
        dealer: int | None = None,
        seed: int | np.random.SeedSequence | None = None,
    ) -> None:
        self.rules = as_rules(rules)
        rng = np.random.default_rng(seed) if deck is None or dealer is None else None
        if dealer is None:
            dealer = int(rng.integers(NUM_SEATS))  # type: ignore[union-attr]
        if (
            isinstance(dealer, bool)
            or not isinstance(dealer, (int, np.integer))
            or not 0 <= int(dealer) < NUM_SEATS
        ):
            raise ValueError(f"dealer must be a seat 0, 1 or 2, got {dealer!r}")
        if deck is None:
            deck = rng.permutation(np.repeat(np.arange(NUM_KINDS), COPIES)).tolist()  # type: ignore[union-attr]
        msg = "deck must be a permutation of the 80 cards: 80 kind ids 0..19, each 4 times"
        try:
            deck = [operator.index(k) for k in deck]
        except TypeError:
            raise ValueError(f"{msg}; got a non-integer entry") from None
        if len(deck) != NUM_CARDS or sorted(deck) != sorted(list(range(NUM_KINDS)) * COPIES):
            counts = [deck.count(k) for k in range(NUM_KINDS)]
            raise ValueError(f"{msg}; got {len(deck)} entries, counts per kind {counts}")
        self.deck: list[int] = deck
        self.dealer: int = int(dealer)
        self.actions: list[int] = []
        self.events: list[tuple] = []
        d = self.dealer
        self.hands: list[list[int]] = [[0] * NUM_KINDS for _ in range(NUM_SEATS)]
        for seat, (lo, hi) in ((d, (0, 21)), (_next(d), (21, 41)), (_prev(d), (41, 61))):
            for k in deck[lo:hi]:
                self.hands[seat][k] += 1
        self.liang = deck[20]  # R-DEAL-2
        self.wall_pos = 61
        self.melds: list[list[list]] = [[], [], []]  # [type, cards] per group
        self._meld_key: list[tuple | None] = [(), (), ()]
        self.n_paoti = [0, 0, 0]
        self.table_cards = [0, 0, 0]
        self.table_huxi = [0, 0, 0]
        self.discards: list[list[int]] = [[], [], []]
        self.chou: list[set[int]] = [set(), set(), set()]
        self.chi_closed: list[set[int]] = [set(), set(), set()]
        self.declined_peng: list[set[int]] = [set(), set(), set()]
        self.hu_blocked: list[set[int]] = [set(), set(), set()]
        self.played = [False, False, False]
        self.taken_in = [False, False, False]
        self.current_player: int | None = None
        self.decision: str | None = None
        self._legal: list[int] = []
        self.result: Result | None = None
        # the card on offer: (kind, source, from_seat)
        self.offer: tuple[int, str, int] | None = None
        self._hu_queue: list[tuple[int, Win]] = []
        self._claim: dict[str, Any] | None = None
        self._bi: dict[str, Any] | None = None
        self._pending_forced: tuple | None = None  # a forced 提/偎 waiting on an HU answer
        self.win_card: int | None = None
        self._after_hu = self._after_card_hu
        self._start()

    # ------------------------------------------------------------------ public surface

    @property
    def done(self) -> bool:
        """The hand is over."""
        return self.result is not None

    @property
    def wall_left(self) -> int:
        """Cards left in the wall."""
        return NUM_CARDS - self.wall_pos

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
        if decision in ("tianhu", "hu"):
            self._answer_hu(seat, a)
        elif decision == "claim":
            self._answer_claim(seat, a)
        elif decision == "bi":
            self._answer_bi(seat, a)
        else:
            self._discard(seat, a)

    def _legal_text(self) -> str:
        return ", ".join(f"{x} ({action_name(x, self.decision)})" for x in self._legal)

    def record(self) -> dict[str, Any]:
        """A JSON-serialisable record from which :meth:`replay` rebuilds this hand."""
        return {
            "rules": {"name": self.rules.name, "overrides": self.rules.overrides()},
            "deck": list(self.deck),
            "dealer": self.dealer,
            "actions": list(self.actions),
        }

    @classmethod
    def replay(cls, record: dict[str, Any]) -> Game:
        """Rebuild a hand from :meth:`record`'s output."""
        r = record["rules"]
        rules = get_rules(r["name"], **r.get("overrides", {}))
        g = cls(rules, deck=record["deck"], dealer=record["dealer"])
        for a in record["actions"]:
            g.step(a)
        return g

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
            hand_sizes=tuple(sum(h) for h in self.hands),  # type: ignore[arg-type]
            wall=self.wall_left,
            dealer=self.dealer,
            liang=self.liang,
            chou=frozenset(self.chou[seat]),
            chi_closed=frozenset(self.chi_closed[seat]),
            declined_peng=frozenset(self.declined_peng[seat]),
            hu_blocked=frozenset(self.hu_blocked[seat]),
            decision=self.decision if acting else None,
            offer=self._visible_offer(seat),
            bi_groups=tuple(bi["groups"]) if bi else (),
            bi_left=bi["usable"][bi["card"]] if bi else 0,
            legal=tuple(self._legal) if acting else (),
            to_act=self.current_player,
            done=self.result is not None,
        )

    def _visible_offer(self, seat: int) -> tuple[int, str, int] | None:
        # R-FLOW-2: a card about to be 提'd or 偎'd is not shown; while its drawer is asked HU
        # (win_on_own_ti_wei) only the drawer may see it.
        if self._pending_forced is not None and seat != self._pending_forced[0]:
            return None
        return self.offer

    # ------------------------------------------------------------------ counts and helpers

    def _target(self, seat: int) -> int:
        return 20 + max(0, self.n_paoti[seat] - 1)  # R-GROUP-3

    def held(self, seat: int) -> int:
        """Cards a seat holds, hand and table (R-GROUP-3)."""
        return sum(self.hands[seat]) + self.table_cards[seat]

    def _owes_discard(self, seat: int) -> bool:
        return self.held(seat) > self._target(seat)

    def _add_meld(self, seat: int, gtype: str, cards: tuple[int, ...]) -> None:
        self.melds[seat].append([gtype, cards])
        self.table_cards[seat] += len(cards)
        if gtype in ("pao", "ti"):
            self.n_paoti[seat] += 1
        self._table_changed(seat)

    def _upgrade_meld(self, seat: int, kind: int, gtype: str) -> None:
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
                return t
        return None

    def _win_of(self, seat: int, card: int | None, *, self_drawn: bool, from_discard: bool = False,
                tianhu: bool = False, dihu: bool | None = None) -> Win | None:
        if card is not None and card in self.hu_blocked[seat]:
            return None  # R-CHOU-5
        if dihu is None:
            dihu = not self.played[seat] and not self.taken_in[seat]
        return evaluate_counts(
            tuple(self.hands[seat]), self.table_groups(seat), card, self.rules,
            # R-WIN-5: 海底 is a win on the last *wall* card, never on a discard made after
            # it (possible with hu_on_discard).
            self_drawn=self_drawn,
            haidi=card is not None and not from_discard and self.wall_pos == NUM_CARDS,
            tianhu=tianhu, dihu=dihu, from_discard=from_discard,
        )

    def _pose(self, seat: int, decision: str, legal: list[int]) -> None:
        self.current_player, self.decision, self._legal = seat, decision, legal

    def _finish(self, winner: int | None, win: Win | None, reason: str) -> None:
        scores = [0, 0, 0]
        if winner is not None and win is not None:
            for s in range(NUM_SEATS):
                scores[s] = 2 * win.score if s == winner else -win.score
            self.events.append(("hu", winner, win.names))
        else:
            self.events.append(("huangzhuang", None, None))
        self.result = Result(winner, tuple(scores), win, reason)  # type: ignore[arg-type]
        self.current_player, self.decision, self._legal = None, None, []
        if self.offer is not None and self.offer[1] != "liang":
            self.win_card = self.offer[0]  # the won card lies in no hand, table or area
        self.offer = None

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
            if n4 >= 3 or n4 + n3 >= 5:
                win = evaluate_counts(tuple(h), (), None, self.rules, tianhu=True)
                assert win is not None
                self._finish(s, win, "tianhu")
                return
        # R-START-2: the 亮张 win, asked in order dealer, next, prev.
        huaihua = self.rules.scoring == "huaihua"
        queue = []
        for s in order:
            if s == d:
                win = evaluate_counts(tuple(self.hands[s]), (), None, self.rules, tianhu=True)
            else:
                win = evaluate_counts(
                    tuple(self.hands[s]), (), self.liang, self.rules,
                    tianhu=not huaihua, dihu=huaihua,
                )
            if win is not None:
                queue.append((s, win))
        self.offer = (self.liang, "liang", d)
        if queue:
            self._ask_hu(queue, "tianhu", self._after_start_hu)
            return
        self._after_start_hu()

    def _after_start_hu(self) -> None:
        self.offer = None
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
        if self._owes_discard(seat):
            legal = self._discard_options(seat)
            if legal:
                self._pose(seat, "discard", legal)
                return
            # R-DISC-2: an empty hand skips the discard.
        self._draw(_next(seat))

    def _discard_options(self, seat: int) -> list[int]:
        h = self.hands[seat]
        legal = [k for k in range(NUM_KINDS) if 0 < h[k] < 3]  # R-DISC-1
        if not legal:
            legal = [k for k in range(NUM_KINDS) if h[k]]  # R-DISC-2: break a 坎
        return legal

    def _draw(self, seat: int) -> None:
        """R-FLOW-1/2/3: ``seat`` draws the top wall card."""
        while True:
            if self.wall_pos >= NUM_CARDS:
                self._finish(None, None, "draw")  # R-END-2 荒庄
                return
            c = self.deck[self.wall_pos]
            self.wall_pos += 1
            h = self.hands[seat]
            mt = self._meld_type_of(seat, c)
            forced = None
            if h[c] == 3 or mt in ("wei", "chou_wei"):
                forced = "ti"
            elif h[c] == 2:
                forced = "chou_wei" if c in self.declined_peng[seat] else "wei"
            if forced is not None:
                # R-FLOW-2: compulsory 提/偎 of the own draw; no win on it unless the switch.
                if self.rules.win_on_own_ti_wei:
                    win = self._win_of(seat, c, self_drawn=True)
                    if win is not None:
                        self._pending_forced = (seat, c, forced)
                        self.offer = (c, "draw", seat)
                        self._ask_hu([(seat, win)], "hu", self._after_forced_hu)
                        return
                self._apply_own_forced(seat, c, forced)
                if self.result is not None or self.decision is not None and self._owes_discard(seat):
                    return
                seat = _next(seat)
                continue
            self.events.append(("reveal", seat, c))
            self._offer_card(c, "draw", seat)
            return

    def _apply_own_forced(self, seat: int, c: int, forced: str) -> None:
        h = self.hands[seat]
        self.taken_in[seat] = True
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
        if self._owes_discard(seat):
            legal = self._discard_options(seat)
            if legal:
                self._pose(seat, "discard", legal)
                return
        self.decision = None

    def _after_forced_hu(self) -> None:
        seat, c, forced = self._pending_forced  # type: ignore[misc]
        self._pending_forced = None
        self.offer = None
        self.decision = None
        self._apply_own_forced(seat, c, forced)
        if self.decision is None:
            self._draw(_next(seat))

    def _offer_card(self, c: int, source: str, owner: int) -> None:
        """R-FLOW-3 (a revealed draw) or R-FLOW-4 (a discard): HU, 跑, claims, discard area."""
        self.offer = (c, source, owner)
        from_discard = source == "discard"
        if from_discard and not self.rules.discards_claimable:
            self._to_discard_area(c, owner)
            return
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
                self._ask_hu(queue, "hu", self._after_card_hu)
                return
        self._after_card_hu()

    def _after_card_hu(self) -> None:
        c, source, owner = self.offer  # type: ignore[misc]
        from_discard = source == "discard"
        # 2. 跑 (forced).
        for s in (_next(owner), _prev(owner), owner):
            mt = self._meld_type_of(s, c)
            if s != owner and (self.hands[s][c] == 3 or mt in ("wei", "chou_wei")) or (
                mt == "peng" and not from_discard
            ):
                self.offer = None
                self.taken_in[s] = True
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

    def _ask_hu(self, queue: list[tuple[int, Win]], decision: str, after) -> None:
        """Offer HU to each seat of ``queue`` in order; ``after`` runs if all pass."""
        self._hu_queue = queue
        self._after_hu = after
        self._pose(queue[0][0], decision, [HU, PASS])

    def _answer_hu(self, seat: int, a: int) -> None:
        s, win = self._hu_queue.pop(0)
        if a == HU:
            self._hu_queue = []
            reason = "tianhu" if self.decision == "tianhu" else "hu"
            self._finish(s, win, reason)
            return
        c = self.offer[0] if self.offer else None
        if c is not None:
            self.hu_blocked[s].add(c)  # R-CHOU-5 臭胡
        if self._hu_queue:
            self._pose(self._hu_queue[0][0], self.decision, [HU, PASS])  # type: ignore[arg-type]
            return
        self.decision = None
        self._after_hu()

    # ------------------------------------------------------------------ claims (R-CLAIM)

    def _chi_options(self, seat: int, c: int) -> tuple[list[int], bool]:
        """Legal 吃 groups of ``seat`` for card c (R-CHI-1..4), and whether its hand could
        group c at all (for R-CHOU-4)."""
        owes_after = self.held(seat) + 1 > self._target(seat)
        legal, groupable = _chi_legal(tuple(self.hands[seat]), c, owes_after)
        return list(legal), groupable

    def _peng_ok(self, seat: int, c: int) -> bool:
        h = self.hands[seat]
        if h[c] != 2:
            return False
        if self.rules.chou_blocks_peng and c in self.chou[seat]:
            return False  # R-CHOU-2
        if self.held(seat) + 1 > self._target(seat):
            # R-CHI-4: something other than a 坎 must be left to discard.
            if not any(0 < h[k] < 3 for k in range(NUM_KINDS) if k != c):
                return False
        return True

    def _open_claim(self, c: int, source: str, owner: int) -> None:
        from_discard = source == "discard"
        peng_cand = None
        for s in (_next(owner), _prev(owner)):
            if self._peng_ok(s, c):
                peng_cand = s
        chi_seats = (_next(owner),) if from_discard else (owner, _next(owner))
        chi_opts: dict[int, list[int]] = {}
        blocked_reach: dict[int, bool] = {}
        for s in chi_seats:
            if c in self.chou[s] or c in self.chi_closed[s]:
                continue  # R-CHOU-2, R-CHOU-4
            legal, groupable = self._chi_options(s, c)
            if legal:
                chi_opts[s] = legal
            elif groupable and self.rules.chou_when_chi_blocked:
                blocked_reach[s] = True
        order: list[int] = []
        if peng_cand is not None:
            order.append(peng_cand)
        order += [s for s in chi_seats if s != peng_cand and (s in chi_opts or s in blocked_reach)]
        self._claim = {
            "card": c, "source": source, "owner": owner, "order": order, "idx": 0,
            "peng": peng_cand, "chi": chi_opts, "blocked": blocked_reach, "closed": [],
            "chi_rank": {s: i for i, s in enumerate(chi_seats)},
            "answers": {},  # seat -> ("peng",) | ("chi", [groups]) | ("pass", had_peng)
            "best": None,  # (rank, seat)
        }
        self._ask_next_claimant()

    def _claim_rank(self, kind: str, seat: int) -> int:
        return 0 if kind == "peng" else 1 + self._claim["chi_rank"][seat]  # type: ignore[index]

    def _ask_next_claimant(self) -> None:
        cl = self._claim
        assert cl is not None
        while cl["idx"] < len(cl["order"]):
            s = cl["order"][cl["idx"]]
            cl["idx"] += 1
            best = cl["best"]
            can_peng = s == cl["peng"]
            chi = cl["chi"].get(s, [])
            could = []
            if can_peng:
                could.append(0)
            if chi or s in cl["blocked"]:
                could.append(self._claim_rank("chi", s))
            if best is not None and all(r >= best[0] for r in could):
                continue  # nothing it could answer would take the card
            # R-CHOU-4: reached, its grouping illegal. Applied when the window closes, like
            # every other effect of the window (R-CLAIM: what earlier-asked seats answered
            # stays hidden until then, and this closure would tell that they did not take c).
            if s in cl["blocked"] and not chi and not can_peng:
                cl["closed"].append(s)
                continue
            if s in cl["blocked"]:
                cl["closed"].append(s)
            legal = sorted(([PENG] if can_peng else []) + chi + [PASS])
            self._pose(s, "claim", legal)
            return
        self._resolve_claim()

    def _answer_claim(self, seat: int, a: int) -> None:
        cl = self._claim
        assert cl is not None
        c = cl["card"]
        if a == PASS:
            cl["answers"][seat] = ("pass", seat == cl["peng"])
            self._ask_next_claimant()
        elif a == PENG:
            cl["answers"][seat] = ("peng",)
            cl["best"] = (0, seat)
            self._ask_next_claimant()
        else:
            need = list(_GROUP_COUNTS[a - 20])
            need[c] -= 1
            usable = tuple(u - n for u, n in zip(_usable(self.hands[seat]), need))
            self._bi = {"seat": seat, "card": c, "groups": [group_cards(a)], "usable": usable,
                        "ids": [a]}
            self._continue_bi()

    def _bi_options(self) -> list[int]:
        bi = self._bi
        assert bi is not None
        usable, c = bi["usable"], bi["card"]
        seat = bi["seat"]
        h = self.hands[seat]
        owes_after = self.held(seat) + 1 > self._target(seat)
        kan = tuple(1 if n >= 3 else 0 for n in h)
        legal = []
        for a in GROUPS_WITH[c]:
            g = _GROUP_COUNTS[a - 20]
            if any(usable[k] < g[k] for k in group_cards(a)):
                continue
            rest = tuple(u - x for u, x in zip(usable, g))
            if not _bi_completable(rest, c):
                continue
            if owes_after and not _bi_end_has_free(rest, c, kan):
                continue
            legal.append(a)
        return legal

    def _continue_bi(self) -> None:
        bi = self._bi
        assert bi is not None
        if bi["usable"][bi["card"]] == 0:
            seat = bi["seat"]
            self._bi = None
            cl = self._claim
            assert cl is not None
            cl["answers"][seat] = ("chi", bi["ids"])
            rank = self._claim_rank("chi", seat)
            if cl["best"] is None or rank < cl["best"][0]:
                cl["best"] = (rank, seat)
            self._ask_next_claimant()
            return
        self._pose(bi["seat"], "bi", sorted(self._bi_options()) + [PASS])

    def _answer_bi(self, seat: int, a: int) -> None:
        bi = self._bi
        assert bi is not None and self._claim is not None
        if a == PASS:  # R-CHI-3: the whole 吃 is cancelled; c counts as passed
            self._bi = None
            self._claim["answers"][seat] = ("pass", seat == self._claim["peng"])
            self._ask_next_claimant()
            return
        g = _GROUP_COUNTS[a - 20]
        bi["usable"] = tuple(u - x for u, x in zip(bi["usable"], g))
        bi["groups"].append(group_cards(a))
        bi["ids"].append(a)
        self._continue_bi()

    def _resolve_claim(self) -> None:
        cl = self._claim
        assert cl is not None
        self._claim = None
        c, owner = cl["card"], cl["owner"]
        for s in cl["closed"]:
            self.chi_closed[s].add(c)  # R-CHOU-4
        for s, ans in cl["answers"].items():
            if ans[0] == "pass":
                self.chou[s].add(c)  # R-CHOU-1
            if s == cl["peng"] and ans[0] != "peng":
                # R-CHOU-3 忍碰; also when it answered 吃 instead (docs/RULES-DECISIONS.md)
                self.declined_peng[s].add(c)
        best = cl["best"]
        self.offer = None
        if best is None:
            self._to_discard_area(c, owner)
            return
        s = best[1]
        ans = cl["answers"][s]
        h = self.hands[s]
        self.taken_in[s] = True
        if ans[0] == "peng":
            h[c] -= 2
            self._add_meld(s, "peng", (c,) * 3)
            self.events.append(("peng", s, c))
        else:
            ids = ans[1]
            for i, a in enumerate(ids):
                cards = group_cards(a)
                g = list(_GROUP_COUNTS[a - 20])
                if i == 0:
                    g[c] -= 1
                for k in range(NUM_KINDS):
                    h[k] -= g[k]
                self._add_meld(s, "chi", cards)
                self.events.append(("chi" if i == 0 else "bi", s, cards))
        self._after_take_in(s)

    def _to_discard_area(self, c: int, owner: int) -> None:
        self.offer = None
        self.discards[owner].append(c)
        self.events.append(("to_discards", owner, c))
        self._draw(_next(owner))

    # ------------------------------------------------------------------ discards (R-FLOW-4)

    def _discard(self, seat: int, k: int) -> None:
        self.hands[seat][k] -= 1
        self.played[seat] = True
        self.chou[seat].add(k)  # R-CHOU-1: one's own discard
        self.events.append(("discard", seat, k))
        self.decision = None
        self._offer_card(k, "discard", seat)


@lru_cache(maxsize=1 << 16)
def _bi_end_has_free(usable: tuple[int, ...], c: int, kan: tuple[int, ...]) -> bool:
    """Can the 比 chain be completed so that a non-坎 card is left to discard? (R-CHI-4)"""
    if usable[c] == 0:
        return any(usable[k] and not kan[k] for k in range(NUM_KINDS))
    for a in GROUPS_WITH[c]:
        g = _GROUP_COUNTS[a - 20]
        if all(usable[k] >= g[k] for k in group_cards(a)):
            rest = tuple(u - x for u, x in zip(usable, g))
            if _bi_end_has_free(rest, c, kan):
                return True
    return False


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
    total = [0] * NUM_KINDS
    for s in range(NUM_SEATS):
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
    if game.offer is not None and game.offer[1] != "liang":
        total[game.offer[0]] += 1
    if game.win_card is not None:
        total[game.win_card] += 1
    assert total == [COPIES] * NUM_KINDS, f"cards not accounted for: {total}"
    # Before R-START-3 has run (a 亮张 HU offer, or a hand won at the start) the deal is as
    # dealt: four-of-a-kinds are still in hands and the dealer holds 21 cards.
    at_start = game.decision == "tianhu" or (
        game.result is not None and game.result.reason == "tianhu"
    )
    for s in range(NUM_SEATS):
        n = game.n_paoti[s]
        assert n == sum(1 for t, _ in game.melds[s] if t in ("pao", "ti"))
        assert game.table_cards[s] == sum(len(c) for _, c in game.melds[s])
        held, target = game.held(s), 20 + max(0, n - 1)
        empty = sum(game.hands[s]) == 0
        # R-GROUP-3: more than target only while owing a discard (or after R-DISC-2's skip:
        # a player whose hand is empty can still be made to 跑 a 碰/偎 on its table, R-FLOW-5,
        # so it may then hold more than target + 1).
        if held > target and not empty:
            assert held == target + 1, f"seat {s} holds {held} > target+1 ({target + 1})"
            owing = game.decision == "discard" and game.current_player == s
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
