"""The compiled core: :class:`Game` (the surface of :class:`paohuzi_env.game.engine.Game`) and
:class:`VectorGame` (many hands stepped per call, no Python per hand).

The C++ extension ``paohuzi_env._fast`` (sources in ``paohuzi_env/backends/_core``) ports everything that
runs per decision — the engine, the evaluator, the 吃/比 search, the observation and state
encoders, the bots — and must agree with the Python package decision by decision: the same
decision kind, seat, legal set, observation floats (bit for bit), events, result and record
(tests/test_fast_engine.py). The Python package stays the readable reference.

* :func:`available` says whether the extension was built; without it :class:`Game` and
  :class:`VectorGame` raise :class:`RuntimeError` (and importing this module warns once).
* ``Game(rules, deck=None, dealer=None, seed=None)`` draws the dealer and the deck exactly as
  :class:`paohuzi_env.game.engine.Game` does (``numpy.random.default_rng(seed)``: the dealer first,
  then the permutation), so one seed gives one deal on both backends; for an int seed the core
  draws it itself (numpy's generator ported bit for bit, ``_core/numpy_rng.hpp``).
* ``VectorGame(num_hands, rules, seed, reward="score")`` deals from a generator inside the core
  (deal number ``i`` of a seed is fixed whatever the batch size) and resets finished hands at
  once; see its docstring.

Example::

    from paohuzi_env import fast

    g = fast.Game("huaihua", seed=7)
    while not g.done:
        g.step(g.expert_action())
    print(g.result)
"""

from __future__ import annotations

import importlib
import operator
import warnings
from typing import Any, cast

import numpy as np

from ..bots.registry import bot_names
from ..encode.rewards import REWARD_MODES
from ..game.actions import NUM_ACTIONS, action_name
from ..game.engine import (
    Decision,
    Event,
    IllegalActionError,
    PlayerView,
    Result,
    Source,
    draw_deal,
    replay_record,
)
from ..game.rules import Rules, as_rules

__all__ = ["Game", "VectorGame", "available", "unavailable_reason", "clear_caches", "POLICIES"]

NUM_SEATS = 3
POLICIES = bot_names(compiled=True)
"""The policies of :meth:`VectorGame.policy_actions` and the playouts: uniformly random legal
actions (seeded inside the core), and the compiled ``GreedyAgent`` / ``ExpertAgent``."""

_core: Any = None
_REASON: str | None = None
try:
    _core = importlib.import_module("paohuzi_env._fast")
    if not hasattr(_core, "Game"):
        _REASON = "paohuzi_env._fast was built without its engine part (bind_engine)"
        _core = None
except ImportError as _e:  # pragma: no cover - depends on the build
    _REASON = f"paohuzi_env._fast cannot be imported ({type(_e).__name__}: {_e})"
if _REASON is not None:  # pragma: no cover - depends on the build
    warnings.warn(
        f"{_REASON}; paohuzi_env.backends.fast is unavailable and the Python engine will be used "
        "(build the extension with a C++17 compiler: pip install -e .)",
        RuntimeWarning,
        stacklevel=2,
    )


def available() -> bool:
    """True when the compiled core (``paohuzi_env._fast`` with its engine) can be used."""
    return _core is not None


def unavailable_reason() -> str | None:
    """Why the compiled core cannot be used, or None when it can."""
    return _REASON


def clear_caches() -> None:
    """Empty every memo of the compiled core: the evaluator's and the bots' (for cold-cache
    measurements; answers never depend on them).

    Raises:
        RuntimeError: when the compiled core is not available.
    """
    core = _require()
    core.clear_caches()
    core.clear_bot_caches()


def _require() -> Any:
    if _core is None:
        raise RuntimeError(
            f"the compiled core is not available ({_REASON}); use paohuzi_env.game.engine.Game, or "
            "build the extension with a C++17 compiler (pip install -e .)"
        )
    return _core


class Game:
    """One hand of 跑胡子 on the compiled engine, with the surface of
    :class:`paohuzi_env.game.engine.Game`.

    Args:
        rules: a preset name or a :class:`~paohuzi_env.game.rules.Rules`.
        deck: 80 kind ids (82 with 王) in deal order (R-DEAL-1, R-WANG-2); None to shuffle.
        dealer: the dealer seat; None to draw it (R-DEAL-4).
        seed: seeds the ``numpy.random.Generator`` that draws the dealer, then the deck —
            exactly as the Python engine does, so the same seed gives the same deal.

    Raises:
        ValueError: for a malformed deck or dealer (the Python engine's messages).
        RuntimeError: when the compiled core is not available.

    ``current_player``, ``decision``, ``legal_actions()``, ``step()``, ``done``, ``result``,
    ``events``, ``record()``, ``offer`` and ``view(seat)`` behave as the Python engine's;
    ``observation``, ``action_mask`` and ``state`` encode in C++ (bit-identical to
    :func:`paohuzi_env.encode.observation.encode` and :func:`paohuzi_env.encode.state.encode_state`).
    """

    __slots__ = ("rules", "_g", "_events", "_result")
    compiled = True  # GameProtocol.compiled: expert_action()/greedy_action() are the C++ twins

    def __init__(
        self,
        rules: str | Rules = "huaihua",
        deck: list[int] | None = None,
        dealer: int | None = None,
        seed: int | np.random.SeedSequence | None = None,
    ) -> None:
        core = _require()
        self.rules: Rules = as_rules(rules)
        # The deal engine.Game would draw (the same seed gives the same deal): for an int seed
        # the core draws it itself (numpy's default_rng ported bit for bit, numpy_rng.hpp).
        if (
            deck is None
            and type(seed) is int
            and 0 <= seed < 1 << 64
            and (dealer is None or (type(dealer) is int and 0 <= dealer < NUM_SEATS))
        ):
            self._g: Any = core.Game.seeded(self.rules, seed, -1 if dealer is None else dealer)
        else:
            dealer_, checked = draw_deal(self.rules, deck, dealer, seed)
            self._g = core.Game(self.rules, checked, dealer_)
        self._events: list[Event] = []
        self._result: Result | None = None

    @classmethod
    def _wrap(cls, core_game: Any, rules: Rules) -> Game:
        g = cls.__new__(cls)
        g.rules = rules
        g._g = core_game
        g._events = []
        g._result = None
        return g

    # ------------------------------------------------------------------ engine.Game surface

    @property
    def current_player(self) -> int | None:
        """The seat to act, or None when the hand is over."""
        return self._g.current_player

    @property
    def decision(self) -> Decision | None:
        """The pending decision (``tianhu``, ``hu``, ``claim``, ``bi``, ``discard``) or None."""
        return self._g.decision

    @property
    def done(self) -> bool:
        """The hand is over."""
        return bool(self._g.done)

    def legal_actions(self) -> list[int]:
        """Sorted legal action ids of ``current_player`` ([] when the hand is over)."""
        return self._g.legal_actions()

    def step(self, action: int) -> None:
        """Apply the current player's action; forced moves that follow run at once.

        Raises:
            IllegalActionError: naming the action and the legal ones (as the Python engine).
        """
        g = self._g
        if g.try_step(action):
            return
        if g.done:
            raise IllegalActionError("the hand is over; no action is legal")
        try:
            a = operator.index(action)  # an int id; a float such as 3.7 is no action
        except TypeError:
            raise IllegalActionError(
                f"an action is an int id 0..60, got {action!r}; legal: {self._legal_text()}"
            ) from None
        if g.try_step(int(a)):
            return
        raise IllegalActionError(
            f"action {action} is not legal for seat {self.current_player} at this "
            f"{self.decision} decision; legal: {self._legal_text()}"
        )

    # step() as written above, kept under this name: the compiled core replaces ``done``,
    # ``current_player``, ``legal_actions`` and ``step`` on this class by CPython versions of the
    # same behaviour (``_install_hot_methods``, bind_engine.cpp), whose step() hands every action
    # it does not apply itself (not an int, not legal, the hand over) to this one. Why not bind
    # them as ordinary methods: these four run on every decision of a Python loop, and the
    # CPython descriptors make random play through this class 1.33x faster than these Python
    # methods (2026-12-03, one run alternating both; docs/contributing.md "The hot methods").
    _step_slow = step

    def _legal_text(self) -> str:
        return ", ".join(f"{x} ({action_name(x, self.decision)})" for x in self.legal_actions())

    @property
    def result(self) -> Result | None:
        """How the hand ended (a :class:`~paohuzi_env.game.engine.Result` with a real
        :class:`~paohuzi_env.game.scoring.Win`), or None while it runs."""
        if self._result is None and self._g.done:
            winner, scores, win, reason = self._g.result()
            self._result = Result(winner, scores, win, reason)
        return self._result

    @property
    def events(self) -> list[Event]:
        """The event log ``(kind, seat, data)``, as :attr:`paohuzi_env.game.engine.Game.events`."""
        n = self._g.n_events
        if n > len(self._events):
            self._events.extend(self._g.events(len(self._events)))
        return self._events

    @property
    def offer(self) -> tuple[int, Source, int] | None:
        """The card on offer ``(kind, source, from_seat)`` (full information), or None."""
        return self._g.offer

    def record(self) -> dict[str, Any]:
        """A JSON-serialisable record (the Python engine's format; ``Game.replay`` reads it)."""
        return {
            "rules": self.rules.to_record(),
            "deck": self._g.deck,
            "dealer": self._g.dealer,
            "actions": self._g.actions,
        }

    @classmethod
    def replay(cls, record: dict[str, Any]) -> Game:
        """Rebuild a hand from a record (of either backend)."""
        return cast(Game, replay_record(cls, record))

    def view(self, seat: int) -> PlayerView:
        """What ``seat`` may know: a real :class:`~paohuzi_env.game.engine.PlayerView`."""
        return self._g.view(seat)

    # ------------------------------------------------------------------ encodings and bots

    def observation(self, seat: int, out: np.ndarray | None = None) -> np.ndarray:
        """``encode(view(seat))`` in C++ (float32, ``obs_size(rules)``), into ``out`` if given."""
        return self._g.observation(seat, out)

    def wait_features(self, seat: int, out: np.ndarray | None = None) -> np.ndarray:
        """:func:`paohuzi_env.encode.features.wait_features` of ``view(seat)`` in C++ (float32, 80),
        into ``out`` if given."""
        return self._g.wait_features(seat, out)

    def action_mask(self, seat: int) -> np.ndarray:
        """int8 mask over the 61 actions: the legal set when ``seat`` is to act, else zeros."""
        return self._g.action_mask(seat)

    def state(self, seat: int | None = None, out: np.ndarray | None = None) -> np.ndarray:
        """:func:`paohuzi_env.encode.state.encode_state` relative to ``seat`` (default: the seat to
        act). Full information: never give it to a policy."""
        if seat is None:
            seat = self.current_player
            if seat is None:
                raise ValueError("the hand is over: name the seat of the state")
        return self._g.state(seat, out)

    def expert_action(self) -> int:
        """The compiled ``ExpertAgent``'s action for the seat to act."""
        return int(self._g.policy_action("expert"))

    def greedy_action(self) -> int:
        """The compiled ``GreedyAgent``'s action for the seat to act."""
        return int(self._g.policy_action("greedy"))

    def random_action(self, seed: int = 0) -> int:
        """A uniformly random legal action, a function of ``seed`` and the decisions so far."""
        return int(self._g.policy_action("random", seed))

    def playout(self, policy: str = "random", seed: int = 0) -> Game:
        """A copy of this hand played to its end with ``policy`` (one of :data:`POLICIES`)."""
        return Game._wrap(self._g.playout(policy, seed), self.rules)

    def clone(self) -> Game:
        """An independent copy of the hand."""
        return Game._wrap(self._g.clone(), self.rules)

    __copy__ = clone

    def __reduce__(self) -> tuple[Any, tuple[dict[str, Any]]]:
        """Pickled as its record (rules, deck, dealer, actions), rebuilt by :meth:`replay`."""
        return (Game.replay, (self.record(),))

    def put_on_wall(self, pos: int, kind: int) -> None:
        """Put a wall card of ``kind`` (0..19, 20 for a 王) at the undrawn deck position ``pos``,
        swapping it with the first card of that kind at or after ``pos``. Only the order of the
        undrawn wall changes, which nothing reads before a draw: the OpenSpiel game
        (:mod:`paohuzi_env.envs.openspiel`) fixes the wall one chance outcome at a time with it.

        Raises:
            ValueError: ``pos`` is not an undrawn position (``wall_pos..num_cards-1``), or no card
                of ``kind`` lies at or after it.
        """
        self._g.put_on_wall(int(pos), int(kind))

    def __deepcopy__(self, memo: dict[int, Any]) -> Game:
        return self.clone()

    # ------------------------------------------------------------------ full information

    @property
    def deck(self) -> list[int]:
        """The deck in deal order, as kind ids."""
        return self._g.deck

    @property
    def dealer(self) -> int:
        """The dealer seat."""
        return int(self._g.dealer)

    @property
    def actions(self) -> list[int]:
        """The actions taken so far."""
        return self._g.actions

    @property
    def wall_left(self) -> int:
        """Cards left in the wall."""
        return int(self._g.wall_left)

    @property
    def wall_pos(self) -> int:
        """The deck index of the next wall card."""
        return int(self._g.wall_pos)

    @property
    def num_cards(self) -> int:
        """Cards in the deck (80, plus the rules' 王)."""
        return int(self._g.num_cards)

    @property
    def liang(self) -> int:
        """The 亮张 kind (R-DEAL-2)."""
        return int(self._g.liang)

    @property
    def win_card(self) -> int | None:
        """The offered draw or discard the hand was won on (it lies in no hand, table or area), else None."""
        return self._g.win_card

    @property
    def hands(self) -> list[list[int]]:
        """Each seat's concealed cards as counts over the 20 kinds (a copy)."""
        return self._g.hands

    @property
    def melds(self) -> list[list[list[Any]]]:
        """Each seat's table groups ``[type, cards]`` in placement order (a copy)."""
        return self._g.melds

    @property
    def discards(self) -> list[list[int]]:
        """Each seat's discard area (出牌区) in order."""
        return self._g.discards

    @property
    def wang(self) -> list[int]:
        """王 in each concealed hand (R-WANG-3)."""
        return list(self._g.wang)

    @property
    def wang_shown(self) -> list[int]:
        """王 each seat has shown (drawn from the wall, or the dealer's 亮张)."""
        return list(self._g.wang_shown)

    @property
    def n_paoti(self) -> list[int]:
        """跑 + 提 groups per seat (R-GROUP-3)."""
        return list(self._g.n_paoti)

    @property
    def table_cards(self) -> list[int]:
        """Cards on each seat's table."""
        return list(self._g.table_cards)

    @property
    def played(self) -> list[bool]:
        """Whether each seat has discarded yet (地胡, section 9)."""
        return list(self._g.played)

    @property
    def chou(self) -> list[frozenset[int]]:
        """Each seat's 臭 kinds (R-CHOU-1/2)."""
        return [self._g.kind_sets(s)[0] for s in range(NUM_SEATS)]

    @property
    def chi_closed(self) -> list[frozenset[int]]:
        """Each seat's kinds closed to 吃 by R-CHOU-4."""
        return [self._g.kind_sets(s)[1] for s in range(NUM_SEATS)]

    @property
    def declined_peng(self) -> list[frozenset[int]]:
        """Each seat's declined-碰 kinds (R-CHOU-3)."""
        return [self._g.kind_sets(s)[2] for s in range(NUM_SEATS)]

    @property
    def hu_blocked(self) -> list[frozenset[int]]:
        """Each seat's kinds it may not win on now (R-CHOU-5; 20 for a 王)."""
        return [self._g.kind_sets(s)[3] for s in range(NUM_SEATS)]

    def kind_sets(self, seat: int) -> tuple[frozenset[int], ...]:
        """``(chou, chi_closed, declined_peng, hu_blocked)`` of ``seat``."""
        return self._g.kind_sets(seat)

    def table_groups(self, seat: int) -> tuple[tuple[str, tuple[int, ...]], ...]:
        """A seat's table groups in canonical (sorted) order."""
        return self._g.table_groups(seat)

    def hidden_wei_positions(self, seat: int) -> list[int]:
        """The wall positions of the draws that made ``seat``'s face-down 偎 now on the table:
        public facts (all saw the draw and the 偎, not its kind), for samplers of the hidden
        cards such as :mod:`paohuzi_env.agents.search`."""
        return list(self._g.hidden_wei_positions(seat))

    def held(self, seat: int) -> int:
        """Cards a seat holds, hand (王 included) and table (R-GROUP-3)."""
        return int(self._g.held(seat))


if _core is not None:
    _core._install_hot_methods(Game)


def _int_array(x: Any, name: str, n: int) -> np.ndarray:
    arr = np.asarray(x)
    if arr.dtype.kind not in "iu":
        raise ValueError(f"{name} must hold integers, got dtype {arr.dtype}")
    if arr.shape != (n,):
        raise ValueError(f"{name} must have shape ({n},), got {arr.shape}")
    return np.ascontiguousarray(arr, dtype=np.int64)


class VectorGame:
    """``num_hands`` hands stepped together in C++, for training and evaluation at speed.

    Args:
        num_hands: hands held at once (each always live: a finished hand is dealt afresh).
        rules: a preset name or a :class:`~paohuzi_env.game.rules.Rules`.
        seed: keys the deals (deal number ``i`` is a function of ``seed`` and ``i`` alone; slots
            take the next number when they start) and the random actions.
        reward: a mode of :data:`paohuzi_env.encode.rewards.REWARD_MODES`.

    Each call works on every hand: :meth:`observe` writes the acting seat's observation, action
    mask, seat and decision kind (0 tianhu, 1 hu, 2 claim, 3 bi, 4 discard); :meth:`step` takes
    one action per hand and returns the rewards of the three seats (non-zero only for hands that
    finished in this step) and ``done``; a finished hand is replaced by the next deal at once
    (:meth:`last_hand` keeps it). A deal won at the deal itself (R-START-1's forced 天胡, no
    decision) is dealt past (counted in :attr:`skipped_deals`). The GIL is released while the
    core works; arrays are checked for shape and dtype (ValueError).
    """

    def __init__(self, num_hands: int, rules: str | Rules = "huaihua", seed: int = 0,
                 reward: str = "score") -> None:
        core = _require()
        if isinstance(num_hands, bool) or not isinstance(num_hands, (int, np.integer)) or num_hands <= 0:
            raise ValueError(f"num_hands must be a positive int, got {num_hands!r}")
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < 2**64:
            raise ValueError(f"seed must be an int in 0..2**64-1, got {seed!r}")
        if reward not in REWARD_MODES:
            raise ValueError(f"reward must be one of {REWARD_MODES}, got {reward!r}")
        self.rules: Rules = as_rules(rules)
        self.reward: str = reward
        self._v: Any = core.VectorGame(int(num_hands), self.rules, int(seed), reward)

    @property
    def num_hands(self) -> int:
        """Hands played side by side."""
        return int(self._v.num_hands)

    @property
    def obs_size(self) -> int:
        """Observation length (763, or 771 with 王)."""
        return int(self._v.obs_size)

    @property
    def state_size(self) -> int:
        """State length (923, or 937 with 王)."""
        return int(self._v.state_size)

    @property
    def seed(self) -> int:
        """The seed that keys the deals and the random actions."""
        return int(self._v.seed)

    @property
    def skipped_deals(self) -> int:
        """Deals dealt past because they ended at the deal (R-START-1)."""
        return int(self._v.skipped_deals)

    @property
    def hands_finished(self) -> int:
        """Hands finished so far (across all slots)."""
        return int(self._v.hands_finished)

    def observe(
        self,
        obs: np.ndarray | None = None,
        mask: np.ndarray | None = None,
        seat: np.ndarray | None = None,
        decision: np.ndarray | None = None,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Fill (or allocate) ``obs`` (n, obs_size) float32, ``mask`` (n, 61) int8, ``seat`` (n,)
        int64 and ``decision`` (n,) int64 for the seat to act in each hand; returns them."""
        n = self.num_hands
        if obs is None:
            obs = np.empty((n, self.obs_size), np.float32)
        if mask is None:
            mask = np.empty((n, NUM_ACTIONS), np.int8)
        if seat is None:
            seat = np.empty(n, np.int64)
        if decision is None:
            decision = np.empty(n, np.int64)
        self._v.observe(obs, mask, seat, decision)
        return obs, mask, seat, decision

    def step(self, actions: Any, rewards: np.ndarray | None = None,
             done: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Apply one action per hand; returns ``rewards`` (n, 3) float32 and ``done`` (n,) bool.

        Raises:
            IllegalActionError: if any action is illegal (then no hand is stepped).
            ValueError: for arrays of the wrong shape or dtype.
        """
        n = self.num_hands
        a = _int_array(actions, "actions", n)
        if rewards is None:
            rewards = np.empty((n, 3), np.float32)
        if done is None:
            done = np.empty(n, np.bool_)
        self._v.step(a, rewards, done)
        return rewards, done

    def policy_actions(self, policy: str = "random", out: np.ndarray | None = None,
                       which: np.ndarray | None = None) -> np.ndarray:
        """Each hand's action under ``policy`` (one of :data:`POLICIES`) as int64 (n,); with
        ``which`` (bool (n,)), only the hands it marks are asked (``out`` keeps its other
        entries: allocate it yourself then)."""
        if out is None:
            out = np.full(self.num_hands, -1, np.int64)
        self._v.policy_actions(policy, out, which)
        return out

    def playout_after(self, actions: Any, which: np.ndarray, policy: str = "expert",
                      seed: int = 0, out: np.ndarray | None = None) -> np.ndarray:
        """Duplicate rollouts: for each hand marked in ``which`` (bool (n,)), a copy takes
        ``actions[i]`` and ``policy`` then plays every seat to the end; returns the rewards
        (n, 3) float32 of those copies (other rows untouched; zeros when ``out`` is None). The
        hands themselves do not move.

        Raises:
            ValueError: if a marked hand's action is not legal there, or for bad arrays.
        """
        n = self.num_hands
        a = _int_array(actions, "actions", n)
        if out is None:
            out = np.zeros((n, 3), np.float32)
        self._v.playout_after(a, which, policy, seed, out)
        return out

    def random_actions(self, out: np.ndarray | None = None) -> np.ndarray:
        """Uniformly random legal actions, keyed by (seed, deal number, decisions so far)."""
        return self.policy_actions("random", out)

    def greedy_actions(self, out: np.ndarray | None = None) -> np.ndarray:
        """The compiled ``GreedyAgent``'s actions."""
        return self.policy_actions("greedy", out)

    def expert_actions(self, out: np.ndarray | None = None) -> np.ndarray:
        """The compiled ``ExpertAgent``'s actions."""
        return self.policy_actions("expert", out)

    def state(self, out: np.ndarray | None = None) -> np.ndarray:
        """Full-information states (n, state_size) float32, relative to each acting seat
        (:func:`paohuzi_env.encode.state.encode_state`), for central critics."""
        if out is None:
            out = np.empty((self.num_hands, self.state_size), np.float32)
        self._v.state(out)
        return out

    def wait_features(self, out: np.ndarray | None = None) -> np.ndarray:
        """:func:`paohuzi_env.encode.features.wait_features` of each hand's acting seat, (n, 80)
        float32 (``paohuzi-waits-v1``), next to :meth:`observe`'s observations."""
        if out is None:
            out = np.empty((self.num_hands, _require().WAIT_FEATURES), np.float32)
        self._v.wait_features(out)
        return out

    def playout(self, policy: str = "random", seed: int = 0,
                out: np.ndarray | None = None) -> np.ndarray:
        """Rewards (n, 3) of a copy of every hand played to its end with ``policy``; the hands
        themselves do not move."""
        if out is None:
            out = np.empty((self.num_hands, 3), np.float32)
        self._v.playout(policy, seed, out)
        return out

    def clone(self) -> VectorGame:
        """An independent copy (hands, deal counter and generator state)."""
        v = VectorGame.__new__(VectorGame)
        v.rules, v.reward, v._v = self.rules, self.reward, self._v.clone()
        return v

    def hand(self, i: int) -> Game:
        """A copy of hand ``i`` as a :class:`Game`."""
        return Game._wrap(self._v.hand(i), self.rules)

    def set_hand(self, i: int, game: Game, deal: int | None = None) -> None:
        """Put a copy of a live ``game`` (same rules) into slot ``i``; ``deal`` keys its random
        actions (default: the slot's current deal number)."""
        if not isinstance(game, Game):
            raise ValueError(f"game must be a paohuzi_env.backends.fast.Game, got {type(game).__name__}")
        self._v.set_hand(i, game._g, self._v.deal_index(i) if deal is None else deal)

    def deal_index(self, i: int) -> int:
        """The deal number of hand ``i``."""
        return int(self._v.deal_index(i))

    def last_hand(self, i: int) -> tuple[Game, int] | None:
        """The last hand that finished in slot ``i`` and its deal number, or None."""
        got = self._v.last_hand(i)
        if got is None:
            return None
        return Game._wrap(got[0], self.rules), int(got[1])


def deal(seed: int, index: int, rules: str | Rules = "huaihua") -> tuple[list[int], int]:
    """The ``(deck, dealer)`` of :class:`VectorGame`'s deal number ``index`` under ``seed``."""
    r = as_rules(rules)
    deck, dealer = _require().make_deal(seed, index, r.wang)
    return deck, int(dealer)

