"""OpenSpiel adapter (the ``openspiel`` extra: ``pip install 'paohuzi-env[openspiel]'``).

Importing this module registers the pyspiel game ``python_paohuzi``::

    import pyspiel
    import paohuzi_env.envs.openspiel  # noqa: F401  (registers the game)

    game = pyspiel.load_game("python_paohuzi", {"rules": "yongzhou"})

Parameters: ``rules`` (a preset name, default ``huaihua``), ``reward`` (``score``, the default:
the zero-sum points; ``win``; ``normalized``: :mod:`paohuzi_env.encode.rewards`) and ``dealer``
(``-1``, the default: drawn by a chance node, R-DEAL-4; or a fixed seat 0..2).

**One hand, three players, explicit chance.** The first chance node draws the dealer (three
outcomes, 1/3 each) unless ``dealer`` fixes it. Then every card of the deal is a chance node, in
deck order (the dealer's 21 cards, deck[20] being the 亮张 of R-DEAL-2, then the next seat's 20,
then the previous seat's 20), and so is every card drawn from the wall, at the moment it is
drawn. A chance outcome is a card kind (0..19, and 20 for a 王 under ``yongzhou``) with
probability *copies left / cards left*; dealing one card at a time this way gives every deck
order the same probability, as a shuffle does. Every decision the engine poses (亮张 and win
offers, each claim answer, each step of a 比 chain, 忍碰 as PASS, each discard) is a player node
whose legal actions are exactly the engine's mask, over the 61 actions of
:mod:`paohuzi_env.game.actions`; forced moves (提, 跑, a 偎 of one's own draw) never surface, as
in the AEC env.

**Speed.** The state holds the compiled core's hand (:class:`paohuzi_env.backends.fast.Game`);
``clone`` copies it and ``apply_action`` steps it: nothing is replayed. The undrawn wall is kept
in an arbitrary order that no rule reads before a draw; each wall chance outcome puts its card
on the wall position about to be drawn (:meth:`~paohuzi_env.backends.fast.Game.put_on_wall`).
Whether an action leads to a draw is found by stepping a copy: if it draws past the fixed part of
the wall, the action waits, the state becomes a chance node for the next card, and the action is
applied once enough of the wall is fixed. The completed deal waits the same way when the start
itself draws (a dealer with two 提 at the deal owes no discard, R-START-4).

**Observations.** ``observation_tensor(p)`` and ``information_state_tensor(p)`` are the AEC env's
observation of seat ``p`` (``paohuzi-obs-v1``, 763 floats; ``paohuzi-obs-v2``, 771, under
``yongzhou``); all zeros until the deal is complete. ``observation_string(p)`` is the table as
``p`` sees it (:func:`paohuzi_env.display.render.render_text`, plus the seat's closed kinds);
``information_state_string(p)`` adds the seat's dealt cards, the public course of the hand
(the engine's events) and the seat's own moves, so it is perfect recall; the tensor is the observation, not a
perfect-recall encoding (the observation summarises the course, as the env's does).

**Bots both ways.** :func:`make_bot` wraps any agent spec of this project
(:func:`paohuzi_env.agents.make_agent`) as a ``pyspiel.Bot``; the agent spec
``openspiel:BOT[:OPTIONS]`` (:func:`load_openspiel_agent`) plays an OpenSpiel bot (``random``,
``mcts``, ``ismcts``) wherever agents play (``paohuzi-eval``, ``paohuzi serve``, the env). An
OpenSpiel bot never sees hidden cards: ``ismcts`` samples its worlds with the search agent's
determinisation sampler (:mod:`paohuzi_env.agents.search`), and ``mcts`` (a perfect-information
algorithm) searches one such sampled world per decision.

Bad input raises ``pyspiel.SpielError`` (a ``RuntimeError``) naming what is allowed: an unknown
preset or reward mode, a bad dealer, an illegal action or chance outcome.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np

try:
    import pyspiel
except ImportError as e:  # pragma: no cover - depends on the installed extras
    raise ImportError(
        f"paohuzi_env.envs.openspiel needs OpenSpiel ({e}); install it with: "
        "pip install 'paohuzi-env[openspiel]' (or pip install open_spiel)"
    ) from e

from ..agents import decide, make_agent
from ..agents.search import _knowledge, _sample_deck, _world
from ..backends import fast
from ..bots.base import Agent
from ..display.render import event_text, render_text
from ..encode.observation import obs_size
from ..encode.rewards import REWARD_MODES, reward_of
from ..game.actions import NUM_ACTIONS, action_name
from ..game.cards import COPIES, NUM_KINDS, WANG
from ..game.cards import format as fmt
from ..game.engine import WANG_PENALTY
from ..game.rules import Rules, get_rules, preset_names

__all__ = [
    "GAME_NAME", "OPENSPIEL_BOTS", "AgentBot", "OpenSpielAgent", "PaohuziGame", "PaohuziState",
    "game_from_hand", "load_openspiel_agent", "make_bot", "make_openspiel_bot", "max_game_length",
    "sample_state", "state_from_course", "utility_bounds",
]

GAME_NAME = "python_paohuzi"
NUM_PLAYERS = 3
DEALT = 61
"""Deck positions dealt before the first wall draw (R-DEAL-1: 21 + 20 + 20)."""
NUM_TYPES = NUM_KINDS + 1
"""Chance outcomes of a card: the 20 kinds and the 王 (id 20)."""
_DEFAULTS: dict[str, Any] = {"rules": "huaihua", "reward": "score", "dealer": -1}

# ---------------------------------------------------------------------------- the bounds


def utility_bounds(rules: Rules, reward: str) -> tuple[float, float]:
    """``(min, max)`` of a seat's return: exact for ``win`` and ``normalized``, a proven but loose
    bound for ``score``.

    The ``score`` bound: a winning holding has at most 24 cards and at most 3 huxi a card (a big
    提 is 12 for four), so at most 72 huxi (× the 天胡 factor in ``zipai``); tun follows R-SCORE-1
    (+1 for 自摸); the fan is at most the sum of every fan of the preset, each grown by 24 (the
    growing 名堂 add one per card past a threshold) plus 10 (``classic``'s 乌胡 with 对对胡), times
    耍猴's factor where the preset has it — under ``yongzhou`` (R-WANG-7) the largest colour
    times the largest way. The winner takes 2 × score, each loser pays the score, and R-WANG-8's
    payments (at most 4 × 5 points a seat) are added on both sides.
    """
    if reward == "win":
        return -0.5, 1.0
    if reward == "normalized":
        return -1.0, 1.0
    fans = dict(rules.fans)
    huxi = 72 * (fans.get("天胡", 1) if rules.scoring == "zipai" else 1)
    tun = max(1, 1 + (huxi - rules.min_huxi) // 3) + 1
    if rules.scoring == "yongzhou":
        colour = max(fans.get(n, 1) for n in ("红胡", "点朱胡", "黑胡"))
        way = max(fans.get(n, 1) for n in ("双王吊", "单王吊", "自摸"))
        fan = colour * way
    elif rules.fan_combine == "multiply":
        fan = math.prod(v + 24 for v in fans.values())
    else:
        fan = sum(v + 24 for v in fans.values()) + 10
    fan *= fans.get("耍猴", 1)
    score = tun * fan
    wang = 4 * WANG_PENALTY if rules.wang else 0
    return -float(score + wang), float(2 * score + wang)


def max_game_length(rules: Rules) -> int:
    """A bound on the history's length (player decisions and chance outcomes together).

    Chance: the dealer and at most every card of the deck. Decisions: three 天胡 offers at the
    start; at most 63 discards (hands only shrink after the deal, R-DEAL-3; a 王 drawn joins a
    hand); and for each card offered (the 亮张, each wall card, each discard) at most three win
    offers, three claim answers and six 比 steps.
    """
    cards = NUM_KINDS * COPIES + rules.wang
    wall = cards - DEALT
    discards = DEALT + rules.wang
    decisions = 3 + discards + 12 * (1 + wall + discards)
    return 1 + cards + decisions


def _error(message: str) -> pyspiel.SpielError:
    return pyspiel.SpielError(message)


def _game_type(utility: Any) -> pyspiel.GameType:
    return pyspiel.GameType(
        short_name=GAME_NAME,
        long_name="Python 跑胡子 (paohuzi-env)",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=utility,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=NUM_PLAYERS,
        min_num_players=NUM_PLAYERS,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=_DEFAULTS,
    )


_GAME_TYPE = _game_type(pyspiel.GameType.Utility.ZERO_SUM)


# ---------------------------------------------------------------------------- the game


class PaohuziGame(pyspiel.Game):
    """The pyspiel game of one hand of 跑胡子 (see the module docstring).

    Attributes:
        rules: the preset's :class:`~paohuzi_env.game.rules.Rules`.
        reward_mode: ``score``, ``win`` or ``normalized``.
        fixed_dealer: the dealer seat, or None when a chance node draws it.
    """

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = dict(params or {})
        unknown = set(params) - set(_DEFAULTS)
        if unknown:
            raise _error(f"{GAME_NAME}: unknown parameters {sorted(unknown)}; valid: {sorted(_DEFAULTS)}")
        name = params.get("rules", _DEFAULTS["rules"])
        if not isinstance(name, str) or name not in preset_names():
            raise _error(f"{GAME_NAME}: unknown rules preset {name!r}; valid presets: {preset_names()}")
        reward = params.get("reward", _DEFAULTS["reward"])
        if reward not in REWARD_MODES:
            raise _error(f"{GAME_NAME}: reward must be one of {REWARD_MODES}, got {reward!r}")
        dealer = params.get("dealer", _DEALER_DRAWN)
        if isinstance(dealer, bool) or not isinstance(dealer, int) or dealer not in (-1, 0, 1, 2):
            raise _error(f"{GAME_NAME}: dealer must be -1 (drawn by chance) or a seat 0, 1, 2, "
                         f"got {dealer!r}")
        if not fast.available():
            raise _error(f"{GAME_NAME} drives the compiled core, which is not available: "
                         f"{fast.unavailable_reason()}")
        self.rules: Rules = _preset(name)
        self.reward_mode: str = reward
        self.fixed_dealer: int | None = None if dealer == -1 else dealer
        self.num_cards = NUM_KINDS * COPIES + self.rules.wang
        low, high = utility_bounds(self.rules, reward)
        zero_sum = reward != "normalized"  # normalized clips, so it is not exactly zero-sum
        utility = pyspiel.GameType.Utility.ZERO_SUM if zero_sum else pyspiel.GameType.Utility.GENERAL_SUM
        info = pyspiel.GameInfo(
            num_distinct_actions=NUM_ACTIONS,
            max_chance_outcomes=NUM_TYPES,
            num_players=NUM_PLAYERS,
            min_utility=low,
            max_utility=high,
            utility_sum=0.0 if zero_sum else None,
            max_game_length=max_game_length(self.rules),
        )
        super().__init__(_game_type(utility), info, {"rules": name, "reward": reward, "dealer": dealer})
        self.obs_size = obs_size(self.rules)

    def new_initial_state(self) -> PaohuziState:
        """A hand before its first chance node."""
        return PaohuziState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> _Observer:
        """The observer of the env's observation (``perfect_recall`` adds the history to the
        string only). Private information must be the observing seat's own (``SINGLE_PLAYER``) and
        public information included: the observation holds both."""
        if params:
            raise _error(f"{GAME_NAME}'s observer takes no parameters, got {params!r}")
        if iig_obs_type is None:
            iig_obs_type = pyspiel.IIGObservationType(perfect_recall=False)
        if (not iig_obs_type.public_info
                or iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER):
            raise _error(f"{GAME_NAME} observes public and the seat's own private information "
                         "only (IIGObservationType(public_info=True, private_info=SINGLE_PLAYER))")
        return _Observer(self, bool(iig_obs_type.perfect_recall))


_DEALER_DRAWN = -1
_CHANCE = int(pyspiel.PlayerId.CHANCE)
_TERMINAL = int(pyspiel.PlayerId.TERMINAL)
_PRESETS: dict[str, Rules] = {}


def _preset(name: str) -> Rules:
    """The preset's Rules, made once."""
    rules = _PRESETS.get(name)
    if rules is None:
        rules = _PRESETS[name] = get_rules(name)
    return rules

_START = -1
"""The waiting "action" of a complete deal whose start draws from the wall (see ``_settle``)."""


class PaohuziState(pyspiel.State):
    """A hand in progress: the chance outcomes so far, the compiled core's hand and, while a
    player's action waits for the wall cards it will draw, that action."""

    # pyspiel's clone() deep-copies the instance's __dict__ (and the C++ part as it is): the
    # fields are kept cheap to copy — the rules by preset name (Rules are looked up, not copied),
    # the cards as bytes, the moves as tuples — and the core's hand copies itself (Game.clone,
    # no replay).
    def __init__(self, game: PaohuziGame) -> None:
        super().__init__(game)
        self._rules_name: str = game.rules.name
        self._mode: str = game.reward_mode
        self._n: int = game.num_cards
        self._dealer: int | None = game.fixed_dealer
        self._deck: bytes = b""
        self._left: bytes = bytes([COPIES] * NUM_KINDS + [game.rules.wang])
        self._g: fast.Game | None = None
        self._pending: int | None = None
        self._own: tuple[tuple[int, ...], ...] = ((), (), ())
        self._cur: int = self._player()

    @property
    def _rules(self) -> Rules:
        return _preset(self._rules_name)

    # ------------------------------------------------------------------ where the hand is

    @property
    def hand(self) -> fast.Game | None:
        """The compiled core's hand (full information; None until the deal is complete). While
        an action waits for its wall draws (a chance node), it is the hand before that action."""
        return self._g

    @property
    def dealer(self) -> int | None:
        """The dealer seat, or None before its chance node."""
        return self._dealer

    @property
    def deck(self) -> list[int]:
        """The cards dealt and drawn so far, in deck order (the chance outcomes after the dealer)."""
        return list(self._deck)

    def _phase(self) -> str:
        if self._dealer is None:
            return "dealer"
        if len(self._deck) < DEALT:
            return "deal"
        if self._pending is not None:
            return "draw"
        assert self._g is not None
        return "over" if self._g.done else "play"

    def _player(self) -> int:
        phase = self._phase()
        if phase == "play":
            assert self._g is not None
            seat = self._g.current_player
            assert seat is not None
            return int(seat)
        if phase == "over":
            return _TERMINAL
        return _CHANCE

    def current_player(self) -> int:
        """The seat to act, ``pyspiel.PlayerId.CHANCE`` or ``pyspiel.PlayerId.TERMINAL`` (kept
        from the last action: pyspiel asks several times a step)."""
        return self._cur

    def is_terminal(self) -> bool:
        """The hand is over (no action waits for a draw)."""
        return self._cur == _TERMINAL

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """``(kind, copies left / cards left)`` for a card; ``(seat, 1/3)`` for the dealer."""
        if self._cur != _CHANCE:
            return []
        if self._dealer is None:
            return [(s, 1.0 / NUM_PLAYERS) for s in range(NUM_PLAYERS)]
        total = self._n - len(self._deck)
        return [(k, c / total) for k, c in enumerate(self._left) if c]

    def _legal_actions(self, player: int) -> list[int]:
        if player == _CHANCE:
            return [a for a, _ in self.chance_outcomes()]
        if player != self._cur or self._cur < 0:
            return []
        assert self._g is not None
        return list(self._g.legal_actions())

    def _apply_action(self, action: int) -> None:
        self._do(action)
        self._cur = self._player()

    def _do(self, action: int) -> None:
        phase = self._phase()
        if phase == "dealer":
            if action not in (0, 1, 2):
                raise _error(f"the dealer chance node's outcomes are the seats 0, 1, 2; got {action}")
            self._dealer = int(action)
        elif phase in ("deal", "draw"):
            self._take_card(action)
        elif phase == "play":
            assert self._g is not None
            legal = self._g.legal_actions()
            if action not in legal:
                d = self._g.decision
                names = ", ".join(f"{a} ({action_name(a, d)})" for a in legal)
                raise _error(f"action {action} is not legal for seat {self._g.current_player} at "
                             f"this {d} decision; legal: {names}")
            seat = int(self._g.current_player)  # type: ignore[arg-type]
            own = list(self._own)
            own[seat] = (*own[seat], int(action))
            self._own = tuple(own)
            self._pending = int(action)
            self._settle()
        else:
            raise _error(f"the hand is over; no action can be applied (got {action})")

    def _take_card(self, kind: int) -> None:
        if not 0 <= kind < NUM_TYPES or not self._left[kind]:
            kinds = [k for k, c in enumerate(self._left) if c]
            raise _error(f"chance outcome {kind} is no card left to deal or draw; left: {kinds}")
        pos = len(self._deck)
        if self._g is not None:
            self._g.put_on_wall(pos, kind)
        self._deck += bytes((kind,))
        left = bytearray(self._left)
        left[kind] -= 1
        self._left = bytes(left)
        if self._g is None and len(self._deck) == DEALT:
            self._pending = _START  # the deal is complete: start the hand
        if self._pending is not None:
            self._settle()

    def _settle(self) -> None:
        """Apply the waiting action (or start the hand) if every wall card it draws is fixed;
        else keep it waiting: the state is then a chance node for the next wall card."""
        assert self._pending is not None
        if self._pending == _START:
            # The undrawn wall in kind order: no rule reads its order before a draw, and each
            # draw's chance node fixes its card first. The start draws when the dealer owes no
            # discard (two 提 at the deal, R-START-4).
            rest = [k for k, c in enumerate(self._left) for _ in range(c)]
            assert self._dealer is not None
            trial = fast.Game(self._rules, deck=[*self._deck, *rest], dealer=self._dealer)
        else:
            assert self._g is not None
            trial = self._g.clone()
            trial.step(self._pending)
        if trial.wall_pos <= len(self._deck):
            self._g = trial
            self._pending = None

    def _action_to_string(self, player: int, action: int) -> str:
        if player == _CHANCE:
            if self._dealer is None:
                if action not in (0, 1, 2):
                    raise _error(f"the dealer chance node's outcomes are the seats 0, 1, 2; got {action}")
                return f"庄家 座{action}"
            if not 0 <= action < NUM_TYPES:
                raise _error(f"a card outcome is a kind 0..{NUM_TYPES - 1}, got {action}")
            return f"发 {_NAMES[action]}" if len(self._deck) < DEALT else f"摸 {_NAMES[action]}"
        if not 0 <= action < NUM_ACTIONS:
            raise _error(f"an action is an id 0..{NUM_ACTIONS - 1}, got {action}")
        decision = self._g.decision if self._g is not None and self._pending is None else None
        return action_name(action, decision)

    def returns(self) -> list[float]:
        """Each seat's reward under the game's mode at the end; zeros before."""
        if not self.is_terminal():
            return [0.0] * NUM_PLAYERS
        assert self._g is not None and self._g.result is not None
        return [reward_of(self._g.result, s, self._mode) for s in range(NUM_PLAYERS)]

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> PaohuziState:
        """A state the seat ``player_id`` cannot tell from this one, its hidden cards drawn by the
        search agent's determinisation sampler; ``probability_sampler()`` (a uniform float)
        seeds it."""
        seed = int(float(probability_sampler()) * 2**53)
        return sample_state(self, player_id, np.random.default_rng(seed))

    def __str__(self) -> str:
        """Full information: the dealer, the cards dealt and drawn, every seat's moves."""
        dealer = "?" if self._dealer is None else str(self._dealer)
        cards = " ".join("王" if k == WANG else fmt([k]) for k in self._deck)
        moves = "; ".join(f"座{s}: {' '.join(map(str, m))}" for s, m in enumerate(self._own) if m)
        waiting = "" if self._pending is None else f"\n待摸牌的动作 {self._pending}"
        return f"庄家 {dealer}\n牌 {cards}\n动作 {moves}{waiting}"


# ---------------------------------------------------------------------------- observations


_NAMES = tuple("王" if k == WANG else fmt([k]) for k in range(NUM_TYPES))
"""Each card kind's character (the 王 included), for the strings built at every query."""


def _cards(kinds: Any) -> str:
    return " ".join(_NAMES[k] for k in kinds)


@functools.lru_cache(maxsize=8192)
def _event_text(event: tuple[Any, ...]) -> str:
    return event_text(event) or ""


def _closed_text(g: fast.Game, seat: int) -> str:
    chou, chi_closed, declined, blocked = g.kind_sets(seat)
    parts = [f"{label} {_cards(sorted(kinds))}" for label, kinds in (
        ("臭", chou), ("不能吃", chi_closed), ("弃碰", declined), ("不能胡", blocked)) if kinds]
    return "  ".join(parts)


def _observation_string(state: PaohuziState, seat: int) -> str:
    g = state._g
    if g is None:
        return f"座{seat}: 发牌中 ({len(state._deck)}/{DEALT})"
    text = render_text(g, seat)
    closed = _closed_text(g, seat)
    return text + (f"\n{closed}" if closed else "")


def _information_state_string(state: PaohuziState, seat: int) -> str:
    g = state._g
    if g is None or state._dealer is None:
        return _observation_string(state, seat)
    first = (0, 21, 41)[(seat - state._dealer) % 3]  # R-DEAL-1: dealer 0-20, next 21-40, prev 41-60
    dealt = sorted(state._deck[first:first + (21 if first == 0 else 20)])
    course = "; ".join(filter(None, map(_event_text, map(tuple, g.events))))
    own = " ".join(map(str, state._own[seat]))
    return (f"{_observation_string(state, seat)}\n起手 {_cards(dealt)}\n"
            f"过程 {course}\n我的动作 {own}")


class _Observer:
    """pyspiel's Python observer: ``tensor``/``dict`` hold the env's observation of a seat."""

    def __init__(self, game: PaohuziGame, perfect_recall: bool) -> None:
        self.tensor = np.zeros(game.obs_size, np.float32)
        self.dict = {"observation": self.tensor}
        self._perfect_recall = perfect_recall

    def set_from(self, state: PaohuziState, player: int) -> None:
        """Fill the tensor with ``player``'s observation (zeros until the deal is complete)."""
        if state._g is None:
            self.tensor.fill(0.0)
        else:
            state._g.observation(player, self.tensor)

    def string_from(self, state: PaohuziState, player: int) -> str:
        """The readable observation, or with ``perfect_recall`` the information state."""
        if self._perfect_recall:
            return _information_state_string(state, player)
        return _observation_string(state, player)


pyspiel.register_game(_GAME_TYPE, PaohuziGame)


# ---------------------------------------------------------------------------- states from hands


def state_from_course(game: PaohuziGame, deck: list[int], dealer: int,
                      actions: list[int]) -> PaohuziState:
    """The pyspiel state after dealing ``deck`` (full deck order) with ``dealer`` and playing
    ``actions`` (the engine's actions, as ``Game.actions``): each chance outcome and action is
    applied through ``apply_action``, so the history is complete.

    Raises:
        pyspiel.SpielError: for an action or a card the course does not allow.
    """
    state = game.new_initial_state()
    if game.fixed_dealer is None:
        state.apply_action(int(dealer))
    elif game.fixed_dealer != dealer:
        raise _error(f"the game fixes dealer {game.fixed_dealer}; the course has dealer {dealer}")
    for k in deck[:DEALT]:
        state.apply_action(int(k))
    for a in actions:
        while state.is_chance_node():
            state.apply_action(int(deck[len(state._deck)]))
        state.apply_action(int(a))
    while state.is_chance_node():
        state.apply_action(int(deck[len(state._deck)]))
    return state


def game_from_hand(hand: Any, reward: str = "score") -> PaohuziGame:
    """The pyspiel game of a hand's rules (a preset's; a custom rule set has no pyspiel game)."""
    name = hand.rules.name
    if name not in preset_names() or get_rules(name) != hand.rules:
        raise _error(f"{GAME_NAME} plays the presets {preset_names()}; this hand's rules "
                     f"{name!r} are not one")
    return pyspiel.load_game(GAME_NAME, {"rules": name, "reward": reward})


def sample_state(state: PaohuziState, seat: int, rng: np.random.Generator,
                 tries: int = 200) -> PaohuziState:
    """A state ``seat`` cannot tell from ``state`` (the same view, own moves and public course),
    its hidden cards dealt by the search agent's determinisation sampler
    (:mod:`paohuzi_env.agents.search`), which reads only what ``seat`` knows.

    Raises:
        pyspiel.SpielError: at a chance node or the end, or if no consistent deal was found in
            ``tries`` samples.
    """
    if state.is_chance_node() or state.is_terminal() or state._g is None:
        raise _error("sample_state needs a player node (a state after the deal, not terminal)")
    g = state._g
    kn = _knowledge(g, seat)
    for _ in range(tries):
        deck = _sample_deck(kn, rng)
        if deck is None:
            continue
        world = _world(kn, deck, state._rules)
        if world is None:
            continue
        # the seat's own actions are its knowledge; the others' come from the sampled world
        return state_from_course(state.get_game(), list(world.deck), int(world.dealer),
                                 list(world.actions))
    raise _error(f"no deal consistent with seat {seat}'s knowledge was found in {tries} samples")


# ---------------------------------------------------------------------------- our agents as bots


class AgentBot(pyspiel.Bot):
    """A ``pyspiel.Bot`` playing an agent of this project (see :func:`make_bot`)."""

    def __init__(self, spec: str, player_id: int, seed: Any, rules: Rules) -> None:
        pyspiel.Bot.__init__(self)
        self.spec = spec
        self.player_id = player_id
        self.rules = rules
        self.agent = make_agent(spec, seed, rules)

    def step(self, state: PaohuziState) -> int:
        """The agent's action for the seat to act (it reads only that seat's knowledge)."""
        if not isinstance(state, PaohuziState):
            raise _error(f"{self.spec} bot plays {GAME_NAME} states, got {type(state).__name__}")
        if state.current_player() != self.player_id:
            raise _error(f"{self.spec} bot plays seat {self.player_id}; seat "
                         f"{state.current_player()} is to act")
        if state._rules != self.rules:
            raise _error(f"{self.spec} bot was made for rules {self.rules.name!r}; the state's are "
                         f"{state._rules.name!r}")
        assert state._g is not None
        return int(decide(self.agent, state._g, self.player_id))

    def restart_at(self, state: PaohuziState) -> None:
        """Nothing to reset: the agents decide from the position."""

    def inform_action(self, state: PaohuziState, player_id: int, action: int) -> None:
        """Nothing to track: the agents decide from the position."""


def make_bot(spec: str, player_id: int, *, seed: Any = None, rules: str = "huaihua") -> pyspiel.Bot:
    """A ``pyspiel.Bot`` for seat ``player_id`` that plays the agent ``spec`` (any spec of
    :func:`paohuzi_env.agents.make_agent`: ``expert``, ``search``, ``network:PATH``,
    ``checkpoint:PATH``, ...) in ``python_paohuzi`` games of ``rules``.

    Raises:
        pyspiel.SpielError: for a bad seat or rules; ValueError from ``make_agent`` for a bad spec.
    """
    if isinstance(player_id, bool) or player_id not in (0, 1, 2):
        raise _error(f"player_id must be a seat 0, 1, 2, got {player_id!r}")
    if rules not in preset_names():
        raise _error(f"unknown rules preset {rules!r}; valid presets: {preset_names()}")
    return AgentBot(spec, player_id, seed, get_rules(rules))


# ---------------------------------------------------------------------------- OpenSpiel bots as agents

OPENSPIEL_BOTS = ("random", "mcts", "ismcts")
"""The OpenSpiel bots of the spec ``openspiel:BOT[:OPTIONS]``."""
_BOT_OPTIONS: dict[str, dict[str, Any]] = {
    "random": {},
    "mcts": {"sims": 100, "uct_c": 2.0, "rollout": "expert"},
    "ismcts": {"sims": 100, "uct_c": 2.0, "rollout": "expert", "worlds": -1},
}
_ROLLOUTS = ("expert", "greedy", "random")


def _parse_bot(arg: str) -> tuple[str, dict[str, Any]]:
    name, _, rest = arg.partition(":")
    if name not in OPENSPIEL_BOTS:
        raise ValueError(f"openspiel:{arg}: unknown OpenSpiel bot {name!r}; "
                         f"valid: {', '.join(OPENSPIEL_BOTS)}")
    opts = dict(_BOT_OPTIONS[name])
    for item in filter(None, rest.split(",")):
        key, eq, value = item.partition("=")
        if not eq or key not in opts:
            valid = ", ".join(f"{k}=" for k in opts) or "none"
            raise ValueError(f"openspiel:{arg}: bad option {item!r}; {name}'s options: {valid}")
        if key == "rollout":
            if value not in _ROLLOUTS:
                raise ValueError(f"openspiel:{arg}: rollout must be one of {_ROLLOUTS}, got {value!r}")
            opts[key] = value
            continue
        try:
            opts[key] = type(_BOT_OPTIONS[name][key])(value)
        except ValueError:
            raise ValueError(f"openspiel:{arg}: option {key} must be a number, got {value!r}") from None
        if key == "sims" and opts[key] < 1:
            raise ValueError(f"openspiel:{arg}: sims must be at least 1, got {value!r}")
        if key == "uct_c" and not opts[key] > 0:
            raise ValueError(f"openspiel:{arg}: uct_c must be positive, got {value!r}")
    return name, opts


class _PlayoutEvaluator:
    """An MCTS evaluator: a leaf's value is one playout to the end by a compiled bot in every
    seat, the undrawn wall shuffled from the evaluator's generator first (the state keeps it in an
    arbitrary order). Prior: uniform."""

    def __init__(self, policy: str, rng: np.random.Generator) -> None:
        self.policy = policy
        self.rng = rng

    def evaluate(self, state: PaohuziState) -> np.ndarray:
        """The returns of one playout from ``state``."""
        if state.is_terminal():
            return np.asarray(state.returns(), np.float64)
        if state._g is None:  # during the deal: play the chance nodes out at random
            s = state.clone()
            while s._g is None:
                outcomes, probs = zip(*s.chance_outcomes())
                s.apply_action(int(self.rng.choice(outcomes, p=probs)))
            state = s
        g = state._g
        assert g is not None
        g = g.clone()
        pos = len(state._deck)
        rest = np.repeat(np.arange(NUM_TYPES), list(state._left))
        for i, k in enumerate(self.rng.permutation(rest)):
            g.put_on_wall(pos + i, int(k))
        if state._pending is not None:
            g.step(state._pending)
        end = g.playout(self.policy, int(self.rng.integers(2**63)))
        assert end.result is not None
        return np.asarray([reward_of(end.result, s, state._mode) for s in range(NUM_PLAYERS)])

    def prior(self, state: PaohuziState) -> list[tuple[int, float]]:
        """Uniform over the legal actions (chance nodes: their probabilities)."""
        if state.is_chance_node():
            return state.chance_outcomes()
        legal = state.legal_actions()
        return [(a, 1.0 / len(legal)) for a in legal]


def make_openspiel_bot(game: PaohuziGame, name: str, player_id: int, seed: int,
                       **options: Any) -> pyspiel.Bot:
    """OpenSpiel's bot ``name`` (``random``, ``mcts``, ``ismcts``) for ``game``'s seat
    ``player_id``, its randomness from ``seed``. ``mcts``/``ismcts`` take ``sims``, ``uct_c`` and
    ``rollout`` (the compiled bot of their leaf playouts); ``ismcts`` resamples its worlds with
    the search agent's determinisation sampler and takes ``worlds`` (at most that many distinct
    worlds per search, -1: no limit). OpenSpiel's C++ ``MCTSBot`` is not used (it crashes on Python
    games in OpenSpiel 2.0.2); these are its Python implementations.

    Raises:
        ValueError: for an unknown bot or option.
    """
    opts = dict(_BOT_OPTIONS.get(name, {}))
    if name not in OPENSPIEL_BOTS:
        raise ValueError(f"unknown OpenSpiel bot {name!r}; valid: {', '.join(OPENSPIEL_BOTS)}")
    bad = set(options) - set(opts)
    if bad:
        raise ValueError(f"OpenSpiel bot {name!r} takes {sorted(opts) or 'no options'}, got {sorted(bad)}")
    opts.update(options)
    if name == "random":
        return pyspiel.make_uniform_random_bot(player_id, seed % 2**31)
    rng = np.random.default_rng(seed)
    evaluator = _PlayoutEvaluator(opts["rollout"], rng)
    random_state = np.random.RandomState(int(rng.integers(2**31)))
    if name == "mcts":
        from open_spiel.python.algorithms import mcts

        return mcts.MCTSBot(game, opts["uct_c"], int(opts["sims"]), evaluator,
                            random_state=random_state, solve=False)
    from open_spiel.python.algorithms import ismcts

    worlds = int(opts["worlds"])
    bot = ismcts.ISMCTSBot(game, evaluator, opts["uct_c"], int(opts["sims"]),
                           max_world_samples=ismcts.UNLIMITED_NUM_WORLD_SAMPLES if worlds < 0 else worlds,
                           random_state=random_state)
    sampler_rng = np.random.default_rng(rng.integers(2**63))
    bot.set_resampler(lambda state, player: sample_state(state, player, sampler_rng))
    return bot


class OpenSpielAgent(Agent):
    """An OpenSpiel bot deciding for one seat of a hand (``openspiel:BOT[:OPTIONS]``).

    Each decision turns the hand into a ``python_paohuzi`` state and asks the bot: ``random`` and
    ``ismcts`` get the state itself (ISMCTS resamples the hidden cards from the seat's knowledge
    before every simulation), ``mcts`` gets one world sampled from the seat's knowledge, so no
    bot reads another seat's cards.
    """

    def __init__(self, name: str, options: dict[str, Any], seed: Any, rules: Rules) -> None:
        super().__init__(seed)
        self.name = f"openspiel:{name}"
        self.bot_name = name
        self.options = options
        if rules.name not in preset_names() or get_rules(rules.name) != rules:
            raise ValueError(f"openspiel agents play the presets {preset_names()}, not custom rules "
                             f"{rules.name!r}")
        self.rules = rules
        self.game: PaohuziGame = pyspiel.load_game(GAME_NAME, {"rules": rules.name})
        self._bots: dict[int, pyspiel.Bot] = {}

    def _bot(self, seat: int) -> pyspiel.Bot:
        if seat not in self._bots:
            seed = int(self.rng.integers(2**62))
            self._bots[seat] = make_openspiel_bot(self.game, self.bot_name, seat, seed, **self.options)
        return self._bots[seat]

    def act(self, view: Any) -> int:
        """Not available: an OpenSpiel bot needs the hand's course (``act_game``)."""
        raise TypeError(f"{self.name} decides from the hand's course: call act_game(game, seat) "
                        "(paohuzi-eval, paohuzi play and paohuzi serve do)")

    def act_game(self, game: Any, seat: int) -> int:
        """The bot's action for ``seat`` in ``game`` (a hand of either backend)."""
        legal = game.legal_actions()
        if len(legal) == 1:
            return int(legal[0])
        state = state_from_course(self.game, list(game.deck), int(game.dealer), list(game.actions))
        if self.bot_name == "mcts":
            state = sample_state(state, seat, self.rng)
        action = int(self._bot(seat).step(state))
        if action not in legal:  # pragma: no cover - the bots choose among legal_actions()
            raise RuntimeError(f"{self.name} chose {action}, not legal here ({legal})")
        return action


def load_openspiel_agent(arg: str, seed: Any = None, rules: str | Rules = "huaihua") -> Agent:
    """``make_agent("openspiel:BOT[:OPTIONS]", seed, rules)``: an OpenSpiel bot as an agent.
    ``BOT`` is ``random``, ``mcts`` or ``ismcts``; options (``mcts``/``ismcts``):
    ``sims=100`` simulations, ``uct_c=2``, ``rollout=expert`` (the compiled bot of the leaf
    playouts: ``expert``, ``greedy``, ``random``); ``ismcts`` also ``worlds=-1`` (at most that
    many distinct worlds a search; -1: a fresh one every simulation). Example:
    ``openspiel:ismcts:sims=200,uct_c=4``.

    Raises:
        ValueError: for an unknown bot or option.
    """
    from ..game.rules import as_rules

    name, options = _parse_bot(arg)
    return OpenSpielAgent(name, options, seed, as_rules(rules))
