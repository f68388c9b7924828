"""The rule-based baselines ``greedy`` and ``expert``.

Both value a hand by its best split into complete groups (句/绞, 10 + huxi), pairs and
two-card partial groups (搭子) that one more card would complete, and isolated cards; a 坎 is
a complete group. They differ in what they know and weigh:

* ``greedy`` — every card is assumed as live as any other; it always wins when it can, takes a
  碰/吃 (with the 比 chain that keeps the most value) when its hand value after the claim and a
  discard beats passing, and discards the card whose loss costs the least.
* ``expert`` — counts cards: a partial group or pair is worth as much as the copies of the
  cards that complete it are still unseen (seed 004's advice to read which cards are 断张);
  weighs huxi more while the table is short of the preset's minimum; keeps 跑/提 chances (a
  坎 or pair whose fourth copy is live); throws isolated edge cards (一, 十, 壹, 拾) first;
  and prefers discards that cannot feed a 碰 (no two copies unseen) or the next player's 吃
  (kinds it or others already let go, 熟张), as seed 004 advises. It always takes a win: the
  engine's 臭胡 rule makes a declined win costly, and no test showed a gain from declining.

Under ``yongzhou`` both know the 王 (docs/rules.md section 10): a 王 is never a legal discard or
claim, so they never try one; a 王 counts toward the cards held (R-GROUP-3), and the winning
holdings they look for use each 王 as a wildcard (王吊 included). ``expert`` weighs the waits of a
王 holder by the share of cards it draws itself (R-WANG-5: it wins only on 自摸), and counts a
wait on a drawn 王 by the 王 it has not seen.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from ..game.actions import GROUPS_WITH, HU, PASS, PENG, group_cards, is_group
from ..game.cards import NUM_KINDS, RED_KINDS, WANG
from ..game.chi import bi_completable, discard_target
from ..game.engine import PlayerView
from ..game.groups import group_huxi, sequence_huxi
from ..game.rules import as_rules
from ..game.scoring import pack_counts
from ..game.waits import win_scores
from .base import Agent

if TYPE_CHECKING:
    from ..game.protocol import GameProtocol

_BITS = 3
_UNIT = tuple(1 << (_BITS * k) for k in range(NUM_KINDS))
_EDGE = frozenset((0, 9, 10, 19))


def _get(p: int, k: int) -> int:
    return (p >> (_BITS * k)) & 7


@lru_cache(maxsize=1 << 18)
def _structure(packed: int, live: int, w_huxi: float, edge_penalty: float) -> float:
    """Best value of loose hand cards (no 坎) as groups, pairs, partials and singles.

    ``live`` packs, per kind, how many copies may still arrive (0–4)."""
    if packed == 0:
        return 0.0
    low = packed & -packed
    i = (low.bit_length() - 1) // _BITS
    c = _get(packed, i)
    u = _UNIT[i]
    p = i % 10
    big = i >= 10
    # a single card left alone
    best = _structure(packed - u, live, w_huxi, edge_penalty) - (edge_penalty if i in _EDGE else 0.0)
    li = _get(live, i)
    # complete groups with i as their lowest card
    if p <= 7 and _get(packed, i + 1) and _get(packed, i + 2):
        h = sequence_huxi((i, i + 1, i + 2))
        v = 10.0 + w_huxi * h + _structure(packed - u - _UNIT[i + 1] - _UNIT[i + 2], live,
                                           w_huxi, edge_penalty)
        best = max(best, v)
    if p == 1 and _get(packed, i + 5) and _get(packed, i + 8):
        v = 10.0 + w_huxi * (6 if big else 3) + _structure(
            packed - u - _UNIT[i + 5] - _UNIT[i + 8], live, w_huxi, edge_penalty)
        best = max(best, v)
    if not big:
        j = i + 10
        cj = _get(packed, j)
        if c >= 2 and cj >= 1:
            best = max(best, 10.0 + _structure(packed - 2 * u - _UNIT[j], live, w_huxi,
                                               edge_penalty))
        if cj >= 2:
            best = max(best, 10.0 + _structure(packed - u - 2 * _UNIT[j], live, w_huxi,
                                               edge_penalty))
        if cj >= 1:  # 绞 partial: needs another i or j
            v = 1.0 + 0.5 * (li + _get(live, j))
            best = max(best, v + _structure(packed - u - _UNIT[j], live, w_huxi, edge_penalty))
    # pair: a 碰 / 偎 / 将 / 绞 chance
    if c >= 2:
        v = 3.0 + 1.5 * min(li, 2) + w_huxi * (0.5 if li else 0.0) * (3 if big else 1)
        best = max(best, v + _structure(packed - 2 * u, live, w_huxi, edge_penalty))
    # two-card partial sequences with i lowest
    partials = []
    if p <= 8 and _get(packed, i + 1):
        need = (_get(live, i - 1) if p >= 1 else 0) + (_get(live, i + 2) if p <= 7 else 0)
        partials.append((i + 1, need, (w_huxi * (6 if big else 3) * 0.3) if p in (0, 1) else 0))
    if p <= 7 and _get(packed, i + 2):
        partials.append((i + 2, _get(live, i + 1), (w_huxi * (6 if big else 3) * 0.3) if p == 0 else 0))
    if p == 1:
        for a, b in ((i + 5, i + 8), (i + 8, i + 5)):
            if _get(packed, a):
                partials.append((a, _get(live, b), w_huxi * (6 if big else 3) * 0.3))
    if p == 6 and _get(packed, i + 3):  # 七十 waiting for 二
        partials.append((i + 3, _get(live, i - 5), w_huxi * (6 if big else 3) * 0.3))
    for j, need, bonus in partials:
        v = 1.0 + 0.5 * min(need, 6) + bonus
        best = max(best, v + _structure(packed - u - _UNIT[j], live, w_huxi, edge_penalty))
    return best


# A holder of 王 wins only on its own draws (R-WANG-5): about one revealed card in three.
_OWN_DRAW_SHARE = 1 / 3


class _HeuristicAgent(Agent):
    """Shared decision logic; subclasses set what they count and weigh."""

    count_cards = False
    safety = 0.0
    edge_penalty = 0.0
    wait_weight = 0.0
    red_weight = 0.0
    _table_red = 0

    def __init__(self, seed=None, rules="huaihua") -> None:
        super().__init__(seed)
        self.rules = as_rules(rules)

    # ------------------------------------------------------------------ knowledge

    def _live(self, view: PlayerView) -> list[int]:
        if not self.count_cards:
            return [2] * NUM_KINDS
        seen = list(view.hand)
        for groups in view.table:
            for _, cards in groups:
                if cards is not None:
                    for k in cards:
                        seen[k] += 1
        for d in view.discards:
            for k in d:
                seen[k] += 1
        if view.offer is not None and view.offer[1] != "liang":
            seen[view.offer[0]] += 1
        return [max(0, 4 - n) for n in seen]

    def _w_huxi(self, view: PlayerView) -> float:
        if not self.count_cards:
            return 1.0
        table = sum(group_huxi(t, c) for t, c in view.table[view.seat])
        return 2.0 if table < 15 else 0.7

    def _value(self, hand, live, w_huxi: float) -> float:
        loose = [n if n < 3 else 0 for n in hand]
        v = _structure(pack_counts(loose), pack_counts([min(x, 4) for x in live]), w_huxi,
                       self.edge_penalty)
        for k, n in enumerate(hand):
            if n >= 3:  # a 坎: complete, 3/6 huxi, a 提/跑 chance while the 4th copy is live
                v += 10.0 + w_huxi * (6 if k >= 10 else 3) + (2.0 if live[k] else 0.0)
        if self.red_weight:
            # 红胡 (10+ red cards) doubles a win or better: keep red cards when many are held
            red = sum(hand[k] for k in RED_KINDS) + self._table_red
            v += self.red_weight * max(0, red - 7)
        return v

    def _waits(self, view: PlayerView, hand, melds, live) -> float:
        """Live-weighted points of the cards that would win this holding (0 if none)."""
        if not self.wait_weight:
            return 0.0
        total = 0.0
        share = _OWN_DRAW_SHARE if view.wang else 1.0
        for c, score in win_scores(tuple(hand), melds, self.rules, view.wang):
            if c == WANG:
                others = sum(view.wang_shown) - view.wang_shown[view.seat]
                unseen = max(0, view.jokers - view.wang - others)
                if WANG not in view.hu_blocked:
                    total += _OWN_DRAW_SHARE * unseen * score
            elif live[c] > 0 and c not in view.hu_blocked:
                total += share * live[c] * score
        return self.wait_weight * total

    def _melds(self, view: PlayerView, extra=()) -> tuple:
        own = [(t, c) for t, c in view.table[view.seat]]
        own.extend(extra)
        return tuple(sorted(own))

    def _discard_cost(self, view: PlayerView, k: int, live) -> float:
        if not self.safety:
            return 0.0
        cost = 0.0
        if live[k] >= 2:
            cost += self.safety  # two unseen copies: someone may 碰 it
        seen_discarded = any(k in d for d in view.discards)
        if not seen_discarded:
            cost += 0.5 * self.safety  # a 生张 may feed the next player's 吃
        return cost

    def _scored_discards(self, view: PlayerView, hand, live, w, legal, melds=None) -> list:
        """``(value, action, hand after it)`` for each discard option, as :meth:`_best_discard`
        weighs them."""
        if melds is None:
            melds = self._melds(view)
        scored = []
        for a in legal:
            h = list(hand)
            h[a] -= 1
            scored.append((self._value(h, live, w) - self._discard_cost(view, a, live), a, h))
        if self.wait_weight:
            # exact waits only for the structurally best few: a hand one card from winning
            # has all but one group complete, so it is among them
            scored.sort(key=lambda x: -x[0])
            scored = [(v + self._waits(view, h, melds, live), a, h) if i < 3 else (v, a, h)
                      for i, (v, a, h) in enumerate(scored)]
        return scored

    def _best_discard(self, view: PlayerView, hand, live, w, legal, melds=None) -> tuple[int, float]:
        scored = self._scored_discards(view, hand, live, w, legal, melds)
        best_a, best_v = legal[0], float("-inf")
        for v, a, _ in sorted(scored, key=lambda x: x[1]):
            if v > best_v + 1e-9:
                best_a, best_v = a, v
        return best_a, best_v

    # ------------------------------------------------------------------ decisions

    def act(self, view: PlayerView) -> int:
        legal = list(view.legal)
        self._table_red = sum(1 for _, cards in view.table[view.seat] if cards
                              for k in cards if k in RED_KINDS)
        if HU in legal:
            return HU
        if view.decision == "discard":
            live = self._live(view)
            return self._best_discard(view, view.hand, live, self._w_huxi(view), legal)[0]
        if view.decision == "claim":
            return self._claim(view, legal)
        if view.decision == "bi":
            return self._bi(view, legal)
        return legal[0]

    def _owes_after(self, view: PlayerView) -> bool:
        me = view.seat
        table_cards = sum(len(c) if c is not None else 3 for _, c in view.table[me])
        n = sum(1 for t, _ in view.table[me] if t in ("pao", "ti"))
        return sum(view.hand) + view.wang + table_cards + 1 > discard_target(n)  # 王 count (R-WANG-3)

    def _after_take(self, view: PlayerView, hand, live, w, melds) -> float:
        if self._owes_after(view) and any(0 < x < 3 for x in hand):
            options = [k for k in range(NUM_KINDS) if 0 < hand[k] < 3]
            return self._best_discard(view, hand, live, w, options, melds)[1]
        return self._value(hand, live, w) + self._waits(view, hand, melds, live)

    def _complete_bi(self, hand, c, live, w) -> tuple[list[int], float, list]:
        """Greedy 比 completion: the group that keeps the most value at each step."""
        h = list(hand)
        gained = 0.0
        groups: list = []
        while h[c] > 0:
            best = None
            for a in GROUPS_WITH[c]:
                cards = group_cards(a)
                need = [0] * NUM_KINDS
                for k in cards:
                    need[k] += 1
                if any(h[k] < need[k] or h[k] >= 3 for k in cards):
                    continue
                rest = [h[k] - need[k] for k in range(NUM_KINDS)]
                usable = tuple(x if x < 3 else 0 for x in rest)
                if not bi_completable(usable, c):
                    continue
                v = self._value(rest, live, w) + 10.0 + w * group_huxi("chi", cards)
                if best is None or v > best[0]:
                    best = (v, rest, cards)
            if best is None:
                return h, float("-inf"), groups
            h = best[1]
            groups.append(("chi", best[2]))
            gained += 10.0 + w * group_huxi("chi", best[2])
        return h, gained, groups

    def _claim(self, view: PlayerView, legal: list[int]) -> int:
        live = self._live(view)
        w = self._w_huxi(view)
        assert view.offer is not None, "a claim decision always has a card on offer"
        c = view.offer[0]
        best_a = PASS
        best_v = self._value(view.hand, live, w) + self._waits(view, view.hand, self._melds(view),
                                                               live)
        for a in legal:
            if a == PENG:
                h = list(view.hand)
                h[c] -= 2
                melds = self._melds(view, [("peng", (c, c, c))])
                v = self._after_take(view, h, live, w, melds) + 10.0 + w * (3 if c >= 10 else 1) + (
                    1.5 if live[c] else 0.0)
            elif is_group(a):
                cards = list(group_cards(a))
                cards.remove(c)
                h = list(view.hand)
                for k in cards:
                    h[k] -= 1
                h, gained, bis = self._complete_bi(h, c, live, w)
                if gained == float("-inf"):
                    continue
                melds = self._melds(view, [("chi", tuple(sorted(group_cards(a))))] + bis)
                v = self._after_take(view, h, live, w, melds) + gained + 10.0 + w * group_huxi(
                    "chi", group_cards(a))
            else:
                continue
            if v > best_v + 1e-9:
                best_a, best_v = a, v
        return best_a

    def _bi(self, view: PlayerView, legal: list[int]) -> int:
        live = self._live(view)
        w = self._w_huxi(view)
        best_a, best_v = legal[0], float("-inf")
        for a in legal:
            if not is_group(a):
                continue
            h = list(view.hand)
            for k in group_cards(a):
                h[k] -= 1
            v = self._value(h, live, w) + w * group_huxi("chi", group_cards(a))
            if v > best_v:
                best_a, best_v = a, v
        return best_a


class GreedyAgent(_HeuristicAgent):
    """Always wins; claims and discards by immediate hand value (no card counting)."""

    name = "greedy"

    def act_game(self, game: GameProtocol, seat: int) -> int:
        """On the compiled core, the compiled twin decides (``paohuzi_env/backends/_core/bots.cpp``,
        identical choices, no PlayerView built); elsewhere :meth:`act`."""
        if type(self) is GreedyAgent and _compiled_twin_applies(self, game, seat):
            return game.greedy_action()
        return self.act(game.view(seat))


class ExpertAgent(_HeuristicAgent):
    """Card counting, huxi-aware valuation, safe and edge-first discards."""

    name = "expert"
    count_cards = True
    # Measured (paohuzi-eval, 400 duplicate deals vs greedy): heavy discard-safety or edge
    # weights lost points, so they only break ties; red-keeping and exact waits won them.
    safety = 0.1
    edge_penalty = 0.1
    wait_weight = 8.0
    red_weight = 4.0

    def act_game(self, game: GameProtocol, seat: int) -> int:
        """On the compiled core, the compiled twin decides (``paohuzi_env/backends/_core/bots.cpp``,
        identical choices, no PlayerView built); elsewhere :meth:`act`."""
        if type(self) is ExpertAgent and _compiled_twin_applies(self, game, seat):
            return game.expert_action()
        return self.act(game.view(seat))


def _compiled_twin_applies(agent: _HeuristicAgent, game: GameProtocol, seat: int) -> bool:
    """Whether ``game`` runs on the compiled core, under the agent's rules, with ``seat`` to act:
    then the bot's compiled twin gives its choice (a subclass that changes the bot keeps
    :meth:`act`; the callers check the exact class)."""
    return bool(getattr(game, "compiled", False)) and game.current_player == seat and \
        game.rules == agent.rules
