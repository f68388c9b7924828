"""``search``: determinised Monte Carlo over the hidden cards, with a bot playing every seat out.

At each decision with more than one legal action the agent

1. samples *worlds*: complete deals that agree with everything its seat knows — its own dealt
   cards and moves, and every public fact of the hand so far (each seat's discards and table
   groups, every card shown from the wall, the 亮张, hand sizes, the face-down 偎 that exist,
   the 王 shown) — by dealing the unseen cards at random and keeping a deal only if replaying
   the hand's public course on it reproduces that course exactly. The replay rejects every deal
   the rules rule out: a seat that would have had to 跑, 提 or 偎 a card it let pass, or to 碰/吃
   where it did not, or whose answers could not have been the ones seen;
2. plays each legal action out in every world with a rollout bot in all three seats (``expert``
   by default, or a trained policy network: ``rollout=checkpoint:PATH``; the compiled core plays
   the hand to its end), the same worlds for every action (common random numbers);
3. keeps the rollout bot's own choice unless another action beats it world by world with a
   gain whose lower confidence bound (``z`` standard errors) clears ``margin`` points, so that
   the noise of a few playouts never decides.

**Guided** (``guide=auto``, the default; docs/SEARCH.md): where a guide network is packaged for
the rules (huaihua and yongzhou: the preset's default zoo network, ``zoo:huaihua`` and
``zoo:yongzhou``, :mod:`paohuzi_env.agents.zoo`: the actors of generation 3's final networks), the
network's masked argmax takes the place of the rollout bot's choice in step 3, and step 2 plays
out only the candidates: that choice, the rollout bot's choice and every legal action the
network gives at least ``guide_p``; a single candidate is taken with no world sampled.
``guide=none`` is the unguided search (the default under presets without a packaged network).

The agent never reads hidden state: what it samples from is a function of its seat's
knowledge only (``tests/test_search.py`` changes the hidden cards of a position and checks the
decision and every sampled world's public course stay the same for the same seed).

Two implementations (docs/SEARCH.md, design (a)): the compiled search
(``paohuzi_env/backends/_core/search.cpp``, :func:`core_search`, :func:`vector_search`), which the agent
uses, and this module's Python search (``impl=python``), kept as the readable reference. For the
same generator state they sample the same deals draw for draw and, with ``prune=0`` and
``guide=none``, take the same decisions with the same worlds and means
(``tests/test_fast_search.py``). The default spec prunes (``prune=4``): after every 4 worlds it
stops playing out an action whose gain over the kept choice (the rollout bot's, or the guide's
with a guide) cannot plausibly clear the bar of step 3, and ends when only that choice
is left.

The search needs the hand's public course, which a :class:`~paohuzi_env.game.engine.PlayerView`
does not hold, so it is asked through :meth:`SearchAgent.act_game` (``paohuzi-eval`` and the
project's harnesses do this for agents with an ``act_game`` method) and needs the compiled
core (``paohuzi_env.backends.fast``). Spec: ``search`` or, with every option at its default,
``search:samples=32,playouts=256,rollout=expert,z=2,margin=0,budget_ms=0,tries=8,prune=4,``
``prune_z=1.5,prune_bar=1,top=0,threads=1,guide=auto,guide_p=0.1,weight=none,weight_t=5,``
``own=rollout,impl=core`` (see
:func:`parse_search_spec` and :class:`SearchAgent`);
``search:prune=0,guide=none`` is the reference's algorithm on the core, ``search:impl=python``
the reference itself.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..bots.base import Agent
from ..bots.registry import bot_names
from ..game.actions import GROUP_ID, HU, PASS, PENG
from ..game.cards import NUM_KINDS, WANG
from ..game.engine import PlayerView
from ..game.rules import Rules, as_rules

NUM_TYPES = NUM_KINDS + 1  # the 20 kinds and the 王
ROLLOUTS = bot_names(compiled=True)
"""The bots a playout can use (the compiled ones, :mod:`paohuzi_env.bots.registry`)."""
NETWORK_ROLLOUT = "checkpoint:"
"""The prefix of a network rollout: ``rollout=checkpoint:PATH`` (:mod:`.network`)."""
IMPLS = ("core", "python")
# The default spec's pruning (docs/SEARCH.md): rounds of 4 worlds, an action dropped when its
# gain + 1.5 se is below the bar it must clear at the end. The reference's decisions (prune=0) on
# 299 of 300 positions, with 0.46x the playouts. Harder pruning is faster but weaker:
# prune=2,prune_z=0.25 decides 8-9x faster than the Python reference and scored +0.164
# [+0.069, +0.259] against expert over 3,000 duplicate deals (docs/SEARCH.md).
PRUNE = 4
PRUNE_Z = 1.5
PRUNE_BAR = 1
# The default spec plays out at most this many actions (0: all): see SearchAgent's ``top``.
TOP = 0
# The default guide network (SearchAgent's ``guide``): ``auto``, the preset's default zoo network
# (paohuzi_env/zoo/) where there is one. An action is a candidate when the guide gives
# it at least GUIDE_P.
GUIDE = "auto"
GUIDE_P = 0.1
GUIDES = ("auto", "none")
# Worlds weighted by the opponents' observed decisions (docs/SEARCH.md, "Weighted worlds"): the
# opponent models (``none``: every world counts the same, the default) and the default
# temperature of the softened expert, in the expert's own value units (a group is worth 10).
WEIGHTS = ("none", "expert")
WEIGHT_T = 5.0
OWN = "rollout"
"""The default ``own``: the searching seat plays its playouts as the rollout plays every seat."""
OWNS = ("rollout", "guide")
"""The named values of ``own`` (besides ``checkpoint:PATH`` and ``zoo:NAME``)."""


def _next(s: int) -> int:
    return (s + 1) % 3


def _regions(dealer: int) -> dict[int, range]:
    """Deck positions dealt to each seat (engine.Game: dealer 0..20, next 21..40, prev 41..60)."""
    return {dealer: range(0, 21), _next(dealer): range(21, 41), (dealer + 2) % 3: range(41, 61)}


def _counts(cards) -> np.ndarray:
    return np.bincount(np.asarray(list(cards), dtype=np.int64), minlength=NUM_TYPES)


@dataclass
class _Knowledge:
    """What one seat knows at one decision, and the templates a world is built from."""

    me: int
    dealer: int
    num_cards: int
    wall_pos: int
    deck: list[int]  # positions known to the seat hold their kind; the others are filled per world
    fixed: np.ndarray  # bool per deck position: known to the seat
    pool: np.ndarray  # counts (21) of the unseen cards
    region_known: dict[int, np.ndarray]  # other seat -> counts of its dealt cards that are known
    region_free: dict[int, list[int]]  # other seat -> its dealt positions to fill
    hidden_size: dict[int, int]  # other seat -> concealed cards nobody else has seen
    hidden_wei: dict[int, list[int]]  # other seat -> wall positions of its face-down 偎 draws
    force_liang: int  # the dealer (another seat) is known to still hold the 亮张 kind: -1 or kind
    no_triple: np.ndarray  # bool per kind: shown since the deal (no seat can hold a 坎 of it)
    no_pair: dict[int, np.ndarray]  # other seat -> kinds it revealed on its own draw (<= 1 left)
    none_left: dict[int, np.ndarray]  # other seat -> kinds it 碰'd or 吃'd (it holds none now)
    cap: dict[int, np.ndarray]  # other seat -> most copies of each kind its hidden hand can hold
    holes: list[int]  # the undrawn wall positions
    events: list[Any]  # the public course (the engine's events: none of them is hidden)
    mine: list[int]  # the seat's own actions, in order
    decision: Any
    legal: list[int]


def _knowledge(real: Any, me: int) -> _Knowledge:
    """The seat's knowledge in ``real`` (a fast.Game at ``me``'s decision).

    Reads the full state only to compute public quantities (documented for each) and the seat's
    own cards; nothing here depends on where the unseen cards lie.
    """
    deck = list(real.deck)
    dealer = int(real.dealer)
    n = int(real.num_cards)
    wall_pos = int(real.wall_pos)
    regions = _regions(dealer)
    fixed = np.zeros(n, dtype=bool)
    fixed[list(regions[me])] = True  # own dealt cards
    fixed[20] = True  # the 亮张 (R-DEAL-2) is shown
    hidden_wei = {s: list(real.hidden_wei_positions(s)) for s in range(3) if s != me}
    secret = {p for ps in hidden_wei.values() for p in ps}
    for p in range(61, wall_pos):  # every draw is shown, except those that made a face-down 偎
        if p not in secret:
            fixed[p] = True
    hands, wang, shown = real.hands, real.wang, real.wang_shown
    liang = int(real.liang)
    known_total = _counts(deck[p] for p in range(n) if fixed[p])
    region_known: dict[int, np.ndarray] = {}
    region_free: dict[int, list[int]] = {}
    hidden_size: dict[int, int] = {}
    force_liang = -1
    for s in range(3):
        if s == me:
            continue
        dealt = _counts(deck[p] for p in regions[s])
        # What left the seat's hand, less the face-down 偎 pairs: its discards and the hand
        # cards of its shown groups — public, whatever the hidden cards are.
        held = np.zeros(NUM_TYPES, dtype=np.int64)
        held[:NUM_KINDS] = hands[s]
        drawn_wang = shown[s] - (1 if s == dealer and liang == WANG else 0)
        held[WANG] = wang[s] - drawn_wang
        left = dealt - held
        for p in hidden_wei[s]:
            left[deck[p]] -= 2
        if s == dealer:
            if liang != WANG and left[liang] < 1:
                force_liang = liang  # the 亮张 card is still in the dealer's hand
            elif liang != WANG:
                left[liang] -= 1  # the 亮张 card is one of the cards seen leaving
        assert (left >= 0).all()
        region_known[s] = left
        known_total = known_total + left
        hidden_size[s] = int(sum(hands[s])) + int(wang[s] - shown[s])
        region_free[s] = [p for p in regions[s] if not fixed[p]]
    pool = np.full(NUM_TYPES, 4, dtype=np.int64)
    pool[WANG] = real.rules.wang
    pool -= known_total
    assert (pool >= 0).all()
    shown_kinds = np.zeros(NUM_KINDS, dtype=bool)
    no_pair = {s: np.zeros(NUM_KINDS, dtype=bool) for s in range(3) if s != me}
    none_left = {s: np.zeros(NUM_KINDS, dtype=bool) for s in range(3) if s != me}
    offered = -1
    for kind, seat, data in real.events:
        if kind in ("reveal", "discard") and data is not None and data != WANG:
            shown_kinds[data] = True
            offered = data
            if kind == "reveal" and seat != me:
                no_pair[seat][data] = True
        elif kind in ("peng", "chi") and seat != me and offered >= 0:
            # R-CHI-2: after a 吃 and its 比 chain no copy of the card is left in the hand; a
            # 碰 takes a pair (a 坎 would have made it a 跑). Hands only shrink after the deal.
            none_left[seat][offered] = True
    # The seat's own actions (its own information), by replaying the record.
    from ..backends.fast import Game as FastGame

    replay = FastGame(real.rules, deck=deck, dealer=dealer)
    mine = []
    for a in real.actions:
        if replay.current_player == me:
            mine.append(int(a))
        replay.step(a)
    cap = {}
    for s, gone in region_known.items():
        c = np.full(NUM_KINDS, 3, dtype=np.int64)
        c[shown_kinds] = 2
        c[no_pair[s]] = np.minimum(c[no_pair[s]], 1)
        g = gone[:NUM_KINDS]
        c = np.where(g >= 1, np.minimum(c, np.maximum(0, 2 - g)), c)
        c[none_left[s]] = 0
        cap[s] = c
    for p in range(n):
        if not fixed[p]:
            deck[p] = -1
    holes = list(range(wall_pos, n))
    return _Knowledge(me, dealer, n, wall_pos, deck, fixed, pool, region_known, region_free,
                      hidden_size, hidden_wei, force_liang, shown_kinds, no_pair, none_left,
                      cap, holes,
                      list(real.events), mine, real.decision, list(real.legal_actions()))


def _sample_deck(kn: _Knowledge, rng: np.random.Generator, tries: int = 20) -> list[int] | None:
    """One deal consistent with the seat's knowledge before the replay check (None: gave up)."""
    kinds = np.arange(NUM_TYPES)
    for _ in range(tries):
        pool = kn.pool.copy()
        deck = np.asarray(kn.deck, dtype=np.int64)
        extra = {s: np.zeros(NUM_TYPES, dtype=np.int64) for s in kn.hidden_size}
        ok = True
        for s, positions in kn.hidden_wei.items():  # the face-down 偎: three of one kind each
            for p in positions:
                c = pool[:NUM_KINDS].astype(float)
                w = np.where(c >= 3, c * (c - 1) * (c - 2), 0.0)
                if w.sum() == 0:
                    ok = False
                    break
                k = int(rng.choice(NUM_KINDS, p=w / w.sum()))
                pool[k] -= 3
                deck[p] = k
                extra[s][k] += 2
        if not ok:
            continue
        # Deal the shuffled unseen cards in turn, passing over a card a hand may not hold (it
        # goes to the wall): the rules' facts about each hidden hand, checked as it is dealt.
        cards = rng.permutation(np.repeat(kinds, pool)).tolist()
        passed: list[int] = []
        at = 0
        for s in sorted(kn.hidden_size):
            size = kn.hidden_size[s]
            h = [0] * NUM_TYPES
            liang = s == kn.dealer and kn.force_liang >= 0
            if liang:
                size -= 1  # the 亮张 card, at position 20 (not in the pool)
                h[kn.force_liang] += 1
            # R-START-3: a dealt four is a 提 at once; R-FLOW-3.2/4.2: a 坎 must 跑 (or 提) any
            # copy shown since the deal; R-FLOW-2: a pair must 偎 its own drawn copy; R-GROUP-1:
            # a dealt 坎 never splits (its cards leave only together, as a 跑 or 提); R-CHI-2
            # and 碰: none of a claimed kind is left, nor of a 偎's kind (it took the pair).
            cap = np.where(extra[s][:NUM_KINDS] > 0, 0, kn.cap[s]).tolist() + [99]
            if any(h[k] > cap[k] for k in range(NUM_TYPES)):
                ok = False
                break
            while size:
                if at == len(cards):
                    break
                k = cards[at]
                at += 1
                if h[k] >= cap[k]:
                    passed.append(k)
                    continue
                h[k] += 1
                size -= 1
            if size:
                ok = False
                break
            if liang:
                h[kn.force_liang] -= 1
            held = np.asarray(h, dtype=np.int64)
            region = rng.permutation(np.repeat(kinds, held + extra[s] + kn.region_known[s]))
            free = kn.region_free[s]
            if len(region) != len(free):  # pragma: no cover - the counts above add up
                raise AssertionError(f"seat {s}: {len(region)} cards for {len(free)} positions")
            deck[free] = region
        if not ok:
            continue
        wall = rng.permutation(np.asarray(passed + cards[at:], dtype=np.int64))
        holes = kn.holes
        if len(holes) != len(wall):  # pragma: no cover - the counts above add up
            raise AssertionError(f"{len(wall)} cards left for {len(holes)} wall positions")
        deck[holes] = wall
        return deck.tolist()
    return None


def _world(kn: _Knowledge, deck: list[int], rules: Rules) -> Any | None:
    """Replay the hand's public course on ``deck``: the fast.Game at the seat's decision, or
    None when the deck cannot have produced that course. Other seats answer as the course says
    (a claim they made, else PASS; their discards and 比 groups as shown)."""
    from ..backends.fast import Game as FastGame

    g = FastGame(rules, deck=deck, dealer=kn.dealer)
    events = kn.events
    mine = kn.mine
    mi = 0
    seen = 0
    while True:
        ev = g.events
        n = len(ev)
        if n > len(events):
            return None
        for i in range(seen, n):
            if ev[i] != events[i]:
                return None
        seen = n
        if g.done:
            return None
        s = g.current_player
        d = g.decision
        assert s is not None
        if s == kn.me:
            if mi == len(mine):
                if n == len(events) and d == kn.decision and g.legal_actions() == kn.legal:
                    return g
                return None
            a = mine[mi]
            mi += 1
        else:
            nxt = events[n] if n < len(events) else None
            if d == "discard":
                if nxt is None or nxt[0] != "discard" or nxt[1] != s:
                    return None
                a = int(nxt[2])
            elif d == "claim":
                if nxt is not None and nxt[1] == s and nxt[0] == "peng":
                    a = PENG
                elif nxt is not None and nxt[1] == s and nxt[0] == "chi":
                    a = GROUP_ID[tuple(nxt[2])]
                else:
                    a = PASS
            elif d == "bi":
                if nxt is None or nxt[0] != "chi" or nxt[1] != s:
                    a = PASS  # the 吃 did not happen: the chain was cancelled
                else:
                    m = len(g.view(s).bi_groups) - 1  # 比 groups named so far
                    j = n + 1 + m
                    if j >= len(events) or events[j][0] != "bi" or events[j][1] != s:
                        return None
                    a = GROUP_ID[tuple(events[j][2])]
            else:  # hu / tianhu: a win ends the hand, so every offer so far was declined
                a = HU if nxt is not None and nxt[0] == "hu" and nxt[1] == s else PASS
        if a not in g.legal_actions():
            return None
        g.step(a)


def parse_search_spec(arg: str) -> dict[str, Any]:
    """``samples=32,rollout=expert,z=2,margin=0,budget_ms=0`` -> keyword arguments.

    ``rollout=checkpoint:PATH`` names a policy network (``PATH`` may hold ``:``, ``/`` and ``=``
    but no comma, which separates the options).

    Raises:
        ValueError: naming an unknown key, a malformed pair or a bad value, and what is allowed.
    """
    out: dict[str, Any] = {}
    if not arg:
        return out
    types = {"samples": int, "rollout": str, "z": float, "margin": float, "playouts": int,
             "budget_ms": float, "tries": int, "prune": int, "prune_z": float, "threads": int,
             "prune_bar": int, "top": int, "guide": str, "guide_p": float,
             "impl": str, "leaf": str, "leaf_depth": int, "weight": str, "weight_t": float,
             "own": str}
    last = ""
    for part in arg.split(","):
        key, sep, value = part.partition("=")
        key = key.strip()
        if not sep and last in ("rollout", "guide", "leaf", "own") and \
                str(out[last]).startswith(NETWORK_ROLLOUT):
            raise ValueError(
                f"search option {last}={out[last]},{part}: a comma separates the options, "
                "so a checkpoint path in a search spec cannot hold one (rename or link the file)")
        last = key
        if not sep or key not in types:
            raise ValueError(
                f"bad search option {part!r}: use KEY=VALUE with KEY one of "
                f"{', '.join(types)} (e.g. search:samples=32,rollout=expert)")
        try:
            out[key] = types[key](value.strip())
        except ValueError:
            raise ValueError(f"search option {key} must be {types[key].__name__}, "
                             f"got {value!r}") from None
    return out


_MASK64 = (1 << 64) - 1


def _rng_state(rng: np.random.Generator) -> tuple[int, int, int, int, int, int]:
    """``rng``'s PCG64 state as the compiled search takes it."""
    st = rng.bit_generator.state
    if st.get("bit_generator") != "PCG64":
        raise ValueError("the compiled search draws as numpy's PCG64; got a generator with "
                         f"{st.get('bit_generator')!r}")
    s, i = int(st["state"]["state"]), int(st["state"]["inc"])
    return (s >> 64, s & _MASK64, i >> 64, i & _MASK64, int(st["has_uint32"]), int(st["uinteger"]))


def _set_rng_state(rng: np.random.Generator, t: tuple[int, int, int, int, int, int]) -> None:
    rng.bit_generator.state = {
        "bit_generator": "PCG64",
        "state": {"state": (t[0] << 64) | t[1], "inc": (t[2] << 64) | t[3]},
        "has_uint32": t[4], "uinteger": t[5]}


def _spec_network(value: Any, rules: Rules) -> Any:
    """The :class:`~paohuzi_env.agents.network.Network` that ``value`` names (``checkpoint:PATH``,
    ``zoo:NAME`` or a loaded network, checked against ``rules``), or None for anything else."""
    from . import zoo
    from .network import Network, load_network

    if isinstance(value, Network):
        value.check_rules(rules)
        return value
    if isinstance(value, str) and value.startswith(NETWORK_ROLLOUT):
        return load_network(value[len(NETWORK_ROLLOUT):], rules)
    path = zoo.resolve(value) if isinstance(value, str) else None
    return None if path is None else load_network(path, rules)


def _rollout_args(rollout: Any, rules: Rules) -> tuple[str, Any]:
    """The binding's ``rollout`` and ``net`` for a rollout bot's name, ``checkpoint:PATH`` or a
    loaded :class:`~paohuzi_env.agents.network.Network` (checked against ``rules``)."""
    net = _spec_network(rollout, rules)
    return (rollout, None) if net is None else ("network", net.core)


def _guide_network(guide: Any, rules: Rules) -> Any:
    """The guide :class:`~paohuzi_env.agents.network.Network` (or None) for ``none``, ``auto``
    (the network packaged for ``rules``, :func:`paohuzi_env.agents.network.packaged_guide`, or
    none where there is none), ``checkpoint:PATH`` or a loaded network (checked against
    ``rules``)."""
    from .network import load_network, packaged_guide

    if guide is None or guide == "none":
        return None
    if guide == "auto":
        path = packaged_guide(rules)
        return None if path is None else load_network(path, rules)
    net = _spec_network(guide, rules)
    if net is not None:
        return net
    raise ValueError(f"guide must be one of {', '.join(GUIDES)}, {NETWORK_ROLLOUT}PATH or "
                     f"zoo:NAME, got {guide!r}")


def _own_network(own: Any, guide: Any, rules: Rules) -> Any:
    """The network (or None) that plays the searching seat's own decisions in the playouts, for
    ``own``: ``rollout`` (None: the rollout plays every seat), ``guide`` (the guide network
    ``guide``, which must be given), ``checkpoint:PATH``, ``zoo:NAME`` or a loaded network
    (checked against ``rules``)."""
    if own is None or own == "rollout":
        return None
    if own == "guide":
        if guide is None:
            raise ValueError("own=guide plays the searching seat with the guide network, and this "
                             "search has none (guide=none, or no network packaged for "
                             f"{rules.name}): name one (guide=zoo:NAME) or use "
                             "own=checkpoint:PATH")
        return guide
    net = _spec_network(own, rules)
    if net is not None:
        return net
    raise ValueError(f"own must be one of {', '.join(OWNS)}, {NETWORK_ROLLOUT}PATH or zoo:NAME, "
                     f"got {own!r}")


def _leaf_critic(leaf: Any, rules: Rules) -> Any:
    """The leaf :class:`~paohuzi_env.agents.network.Critic` (or None) for ``none``,
    ``checkpoint:PATH`` or a loaded critic (checked against ``rules``)."""
    from .network import Critic, load_critic

    if leaf is None or leaf == "none":
        return None
    if isinstance(leaf, Critic):
        leaf.check_rules(rules)
        return leaf
    if isinstance(leaf, str) and leaf.startswith(NETWORK_ROLLOUT):
        return load_critic(leaf[len(NETWORK_ROLLOUT):], rules)
    raise ValueError(f"leaf must be none or {NETWORK_ROLLOUT}PATH (a network with its critic), "
                     f"got {leaf!r}")


def _check_leaf_depth(leaf_depth: Any) -> None:
    if isinstance(leaf_depth, bool) or not isinstance(leaf_depth, (int, np.integer)) \
            or not 1 <= leaf_depth <= 1000:
        raise ValueError(f"leaf_depth must be an int in 1..1000, got {leaf_depth!r}")


def _check_weight(weight: Any, weight_t: Any) -> None:
    """Refuse a weight model other than :data:`WEIGHTS` or a temperature that is not a positive
    finite number, naming what is allowed."""
    if weight not in WEIGHTS:
        raise ValueError(f"weight must be one of {', '.join(WEIGHTS)}, got {weight!r}")
    if isinstance(weight_t, bool) or not isinstance(weight_t, (int, float, np.integer, np.floating)) \
            or not 0 < weight_t < float("inf"):
        raise ValueError("weight_t (the temperature of the softened expert) must be a positive "
                         f"finite number, got {weight_t!r}")


def _leaf_args(leaf: Any, leaf_depth: Any, rules: Rules) -> Any:
    """The binding's ``leaf``: the compiled critic of :func:`_leaf_critic`, or None."""
    _check_leaf_depth(leaf_depth)
    critic = _leaf_critic(leaf, rules)
    return None if critic is None else critic.core


def core_search(game: Any, seat: int, *, rng: np.random.Generator | None = None,
                seed: Any = None, samples: int = 32, playouts: int = 256, rollout: Any = "expert",
                z: float = 2.0, margin: float = 0.0, budget_ms: float = 0.0, tries: int = 8,
                prune: int = PRUNE, prune_z: float = PRUNE_Z, threads: int = 1,
                prune_bar: int = PRUNE_BAR, top: int = TOP, guide: Any = GUIDE,
                guide_p: float = GUIDE_P, leaf: Any = "none",
                leaf_depth: int = 1, weight: str = "none", weight_t: float = WEIGHT_T,
                keep_worlds: bool = False, own: Any = OWN) -> dict[str, Any]:
    """The compiled search (``paohuzi_env/backends/_core/search.cpp``) at ``seat``'s decision in ``game``
    (either engine).

    The worlds are drawn from ``rng`` (advanced exactly as :class:`SearchAgent`'s Python search
    advances its generator), or from ``numpy.random.default_rng(seed)``. With ``prune=0`` and
    ``guide="none"`` the answer is the Python reference's for the same generator state
    (``tests/test_fast_search.py``). ``prune=K`` (K > 0) plays the worlds in rounds of K and,
    after each round, stops playing out an action whose mean gain over the kept choice (the
    rollout bot's; the guide's with a guide) plus ``prune_z`` standard errors is
    at most ``margin`` (with ``prune_bar``: at most the bar it must clear at the end, ``margin``
    plus ``z`` standard errors at the worlds wanted) — it cannot plausibly be chosen; the search
    ends when only the bot's choice is left. ``top=K`` (K >= 2) plays out only the rollout bot's
    choice and the next best ``K - 1`` actions by the bot's own value of each (the others get
    ``played`` 0 and a NaN mean); 0 plays every action. ``threads`` plays a round's playouts on
    that many threads (the answer does not depend on it). ``rollout``: ``expert``, ``greedy``,
    ``random``, ``checkpoint:PATH`` (a policy network, :func:`paohuzi_env.agents.network.load_network`;
    with ``guide=none`` it also gives the choice the search keeps) or a loaded
    :class:`~paohuzi_env.agents.network.Network`; a network must have been trained under the
    game's rules. ``guide`` / ``guide_p``: as :class:`SearchAgent`'s (default ``auto``: with
    ``prune=0`` the answer is the reference's only with ``guide="none"``). ``leaf`` /
    ``leaf_depth``: as :class:`SearchAgent`'s (the means are then the critic's points).
    ``weight`` / ``weight_t``: as :class:`SearchAgent`'s; ``weight="none"`` is the unweighted
    search, the same answer as without the option. ``own``: as :class:`SearchAgent`'s
    (``rollout``, the default, is the search without the option). ``keep_worlds`` adds each
    world's deck and its scores per legal action to the answer.

    Returns:
        a dict: ``choice``, ``worlds``, ``attempts``, ``playouts``, ``legal``, ``means`` (per
        legal action, empty with fewer than 2 worlds), ``ses`` (the standard error of each mean,
        NaN under 2 worlds; +inf with weights whose effective sample size is at most 1),
        ``played`` (worlds per action); with ``weight="expert"`` also ``log_weights`` (each
        world's, in sampling order), ``ess`` (the effective sample size of the weights) and
        ``weight_fallback`` (True: every world had weight 0 and they counted equally); with
        ``keep_worlds`` also ``decks`` and ``scores`` (per world, per legal action; NaN: not
        played).

    Raises:
        ValueError: a seat that is not the seat to act, a finished hand, or a bad option.
        RuntimeError: when the compiled core is not available.
    """
    from ..backends import fast

    core = fast._require()
    if not hasattr(core, "search_action"):
        raise RuntimeError("this build of the compiled core has no search (bind_search)")
    if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < 3:
        raise ValueError(f"seat must be 0, 1 or 2, got {seat!r}")
    real = game if isinstance(game, fast.Game) else fast.Game.replay(game.record())
    rollout, net = _rollout_args(rollout, real.rules)
    gn = _guide_network(guide, real.rules)
    gnet = None if gn is None else gn.core
    on = _own_network(own, gn, real.rules)
    lnet = _leaf_args(leaf, leaf_depth, real.rules)
    _check_weight(weight, weight_t)
    gen = rng if rng is not None else np.random.default_rng(seed)
    out = core.search_action(real._g, int(seat), _rng_state(gen), samples=samples,
                             playouts=playouts, rollout=rollout, z=z, margin=margin,
                             budget_ms=budget_ms, tries=tries, prune=prune, prune_z=prune_z,
                             threads=threads, prune_bar=bool(prune_bar), top=top, net=net,
                             guide=gnet, guide_p=guide_p, leaf=lnet, leaf_depth=int(leaf_depth),
                             weight=weight, weight_t=float(weight_t),
                             keep_worlds=bool(keep_worlds), own=None if on is None else on.core)
    _set_rng_state(gen, out.pop("rng_state"))
    return dict(out)


def vector_search(vg: Any, which: Any = None, out: np.ndarray | None = None, seed: int = 0, *,
                  samples: int = 32, playouts: int = 256, rollout: Any = "expert", z: float = 2.0,
                  margin: float = 0.0, tries: int = 8, prune: int = PRUNE, prune_z: float = PRUNE_Z,
                  threads: int = 1, prune_bar: int = PRUNE_BAR, top: int = TOP,
                  rng_states: np.ndarray | None = None, guide: Any = GUIDE,
                  guide_p: float = GUIDE_P, leaf: Any = "none",
                  leaf_depth: int = 1, weight: str = "none",
                  weight_t: float = WEIGHT_T, own: Any = OWN) -> np.ndarray:
    """The compiled search's action in each hand of ``vg`` (a :class:`paohuzi_env.backends.fast.VectorGame`)
    that ``which`` (bool (n,)) marks, all hands when None, as int64 (n,) (``out`` keeps its other
    entries). Hand ``i`` draws its worlds from a generator keyed by ``seed``, its deal number and
    the actions taken in it so far (``_fast.search_rng_state``), so an answer depends on neither
    the batch nor ``threads`` (hands searched at once). With ``rng_states`` (uint64 (n, 6), each
    row a PCG64 state as :func:`rng_state_row` writes it) hand ``i`` draws from the state in row
    ``i`` instead, which is advanced in place exactly as :class:`SearchAgent` advances its
    generator: the batched harness keeps each seat's agent's numbers this way. Options as
    :func:`core_search`.

    Raises:
        ValueError: bad arrays or options.
    """
    from ..backends import fast

    core = fast._require()
    n = vg.num_hands
    if out is None:
        out = np.full(n, -1, np.int64)
    if not isinstance(out, np.ndarray) or out.dtype != np.int64 or out.shape != (n,):
        raise ValueError(f"out must be an int64 array of shape ({n},)")
    if which is not None:
        which = np.asarray(which)
        if which.dtype != np.bool_ or which.shape != (n,):
            raise ValueError(f"which must be a bool array of shape ({n},), got "
                             f"{which.dtype} {which.shape}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < 2**64:
        raise ValueError(f"seed must be an int in 0..2**64-1, got {seed!r}")
    if rng_states is not None and (not isinstance(rng_states, np.ndarray)
                                   or rng_states.dtype != np.uint64 or rng_states.shape != (n, 6)):
        raise ValueError(f"rng_states must be a uint64 array of shape ({n}, 6)")
    rollout, net = _rollout_args(rollout, vg.rules)
    gn = _guide_network(guide, vg.rules)
    gnet = None if gn is None else gn.core
    on = _own_network(own, gn, vg.rules)
    lnet = _leaf_args(leaf, leaf_depth, vg.rules)
    _check_weight(weight, weight_t)
    core.search_actions(vg._v, out, which, int(seed), samples=samples, playouts=playouts,
                        rollout=rollout, z=z, margin=margin, tries=tries, prune=prune,
                        prune_z=prune_z, threads=threads, prune_bar=bool(prune_bar), top=top,
                        rng_states=rng_states, net=net, guide=gnet, guide_p=guide_p, leaf=lnet,
                        leaf_depth=int(leaf_depth), weight=weight, weight_t=float(weight_t),
                        own=None if on is None else on.core)
    return out


def rng_state_row(rng: np.random.Generator, out: np.ndarray) -> None:
    """Write ``rng``'s PCG64 state into ``out`` (uint64 (6,)), as ``vector_search`` reads it."""
    out[:] = _rng_state(rng)


def world_log_weights(game: Any, seat: int, *, rng: np.random.Generator | None = None,
                      seed: Any = None, worlds: int = 32, tries: int = 8,
                      weight_t: float = WEIGHT_T) -> list[tuple[list[int], float, int]]:
    """The worlds the compiled search samples at ``seat``'s decision in ``game`` (either engine)
    from ``rng`` (advanced as the search advances it, without its playouts), or from
    ``numpy.random.default_rng(seed)``, with the log-weight ``weight=expert`` gives each.

    At most ``worlds`` worlds in ``worlds * tries`` attempts (with ``prune=0`` and no time
    budget, the worlds of a search whose ``samples`` and ``playouts`` want that many). Each is
    ``(deck, log_weight, decisions)``: ``log_weight`` is the sum, over the other seats'
    decisions with more than one legal action in the replay of the hand's public course on
    ``deck``, of the log-probability the expert softened at ``weight_t`` gives the action taken
    (``-inf``: one it does not weigh); ``decisions`` counts them.

    Raises:
        ValueError: a seat that is not the seat to act, or a bad temperature.
    """
    from ..backends import fast

    core = fast._require()
    _check_weight("expert", weight_t)
    if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < 3:
        raise ValueError(f"seat must be 0, 1 or 2, got {seat!r}")
    real = game if isinstance(game, fast.Game) else fast.Game.replay(game.record())
    gen = rng if rng is not None else np.random.default_rng(seed)
    got, state = core.search_world_weights(real._g, int(seat), _rng_state(gen), int(worlds),
                                           tries=int(tries), weight_t=float(weight_t))
    _set_rng_state(gen, state)
    return [(list(d), float(lw), int(n)) for d, lw, n in got]


def set_rng_from_row(rng: np.random.Generator, row: np.ndarray) -> None:
    """Set ``rng`` to the PCG64 state in ``row`` (as ``vector_search`` left it)."""
    _set_rng_state(rng, tuple(int(x) for x in row))  # type: ignore[arg-type]


class SearchAgent(Agent):
    """Determinised Monte Carlo search (see the module docstring).

    Args:
        seed: seeds the sampling of worlds (a ``numpy.random.Generator``); the same seed and the
            same public course give the same decisions.
        rules: the preset.
        samples: worlds per decision (each plays every legal action out once).
        playouts: at most this many playouts per decision: with many legal actions the worlds
            are fewer (at least 2), which keeps the slowest decisions bounded.
        rollout: the bot that plays the worlds out: ``expert``, ``greedy`` or ``random``, or
            ``checkpoint:PATH``: a trained policy network in every seat, playing its masked
            argmax (and, with ``guide=none``, giving the choice the search keeps). ``PATH`` is a play-only
            ``.safetensors`` policy with its ``.json`` sidecar (a ``.pt`` path reads the
            ``.safetensors`` beside it), trained under ``rules``; it is read with numpy alone
            and cached per file (:mod:`paohuzi_env.agents.network`). Compiled search only. A
            network's playout costs a forward pass per decision: docs/SEARCH.md measures it.
        z: an action replaces the rollout bot's own choice only when its mean gain over that
            choice, world by world, less ``z`` standard errors, is above ``margin`` points.
        margin: see ``z``.
        budget_ms: stop sampling worlds after this many milliseconds (0: no time limit). A time
            limit makes decisions depend on the machine's speed; the sample count does not.
        tries: sampled deals per wanted world before giving up (a rejected deal costs a replay).
        prune: 0 plays every legal action in every world (the reference); K > 0 plays the
            worlds in rounds of K and stops playing out an action that cannot plausibly beat the
            rollout bot's choice (see :func:`core_search`); compiled search only. Default:
            ``PRUNE`` (4) for ``impl=core``, 0 for ``impl=python``.
        prune_z: the standard errors of that test.
        prune_bar: 1 (default): the upper bound is compared with the bar the action must clear
            at the end (``margin`` + ``z`` standard errors at the worlds wanted, estimated from
            the worlds so far); 0: with ``margin`` alone.
        top: K >= 2 plays out only the rollout bot's choice and the next best ``K - 1`` actions by
            the bot's own value of each; 0 every legal action (the reference). Default ``TOP``
            for ``impl=core``, 0 for ``impl=python``; compiled search only.
        threads: threads for the playouts (compiled search only; decisions do not depend on it).
        guide: ``auto`` (default: the preset's default zoo network,
            :func:`paohuzi_env.agents.network.packaged_guide`: ``zoo:PRESET``, which every
            preset has; none under rules with overrides),
            ``none``, ``checkpoint:PATH`` (a ``.safetensors`` policy, as for ``rollout``),
            ``zoo:NAME`` (:mod:`paohuzi_env.agents.zoo`) or a
            loaded :class:`~paohuzi_env.agents.network.Network`. Its argmax is the choice kept
            unless a candidate clears the bar, and only the candidates are played out (see the
            module docstring). Compiled search only (``auto`` means none for ``impl=python``);
            not with ``top``.
        guide_p: a legal action the guide gives at least this probability (softmax of its
            logits over the legal actions) is a candidate; 1 keeps only the guide's and the
            rollout bot's choices.
        leaf: ``none`` (default: every playout runs to the hand's end) or ``checkpoint:PATH``, a
            network exported with its critic (:func:`paohuzi_env.agents.network.load_critic`):
            truncated playouts. A candidate is played on only until the seat is to act for the
            ``leaf_depth``-th time after it, and the critic values the hand there; a hand that
            ends first counts its points (less the deal's points under three experts, where the
            critic learned against that baseline: the same for every candidate of a world).
            Compiled search only (docs/SEARCH.md).
        leaf_depth: see ``leaf`` (1: at the seat's next turn).
        weight: ``none`` (default: every sampled world counts the same) or ``expert``: each
            world is weighted by how likely the other seats' decisions in the hand so far are
            on it under the expert softened at temperature ``weight_t`` (a softmax of the
            expert's own values of the legal actions), and the means, standard errors and the
            gains the choice and the pruning rest on are the self-normalised weighted ones
            (docs/SEARCH.md, "Weighted worlds"). The worlds sampled are the same. Compiled
            search only.
        weight_t: the temperature (default ``WEIGHT_T``, 5: in the expert's value units, where
            a group is worth 10); large temperatures weight every world alike.
        own: who plays the searching seat's own later decisions in the playouts: ``rollout``
            (default: the rollout, as it plays every seat), ``guide`` (the guide network, which
            the search must have), ``checkpoint:PATH`` or ``zoo:NAME`` (a policy network trained
            under ``rules``). The other seats keep the rollout, the stand-in for the policies
            they actually play (docs/SEARCH.md, "The searching seat plays on as itself").
            Compiled search only.
        impl: ``core`` (the compiled search, ``_core/search.cpp``) or ``python`` (this module's
            readable reference; the same decisions as ``core`` with ``prune=0`` and
            ``guide=none`` for the same seed).

    Raises:
        ValueError: for a bad option, naming what is allowed.
    """

    name = "search"

    def __init__(self, seed: Any = None, rules: str | Rules = "huaihua", *, samples: int = 32,
                 rollout: str = "expert", z: float = 2.0, margin: float = 0.0,
                 playouts: int = 256, budget_ms: float = 0.0, tries: int = 8,
                 prune: int | None = None, prune_z: float = PRUNE_Z, threads: int = 1,
                 prune_bar: int = PRUNE_BAR, top: int | None = None, impl: str = "core",
                 guide: Any = GUIDE, guide_p: float = GUIDE_P, leaf: Any = "none",
                 leaf_depth: int = 1, weight: str = "none", weight_t: float = WEIGHT_T,
                 own: Any = OWN) -> None:
        super().__init__(seed)
        if samples < 1 or playouts < 1:
            raise ValueError(f"samples and playouts must be at least 1, got samples={samples}, "
                             f"playouts={playouts}")
        if not isinstance(rollout, str) or not (rollout in ROLLOUTS or
                                                rollout.startswith(NETWORK_ROLLOUT)):
            raise ValueError(f"rollout must be one of {', '.join(ROLLOUTS)} or "
                             f"{NETWORK_ROLLOUT}PATH, got {rollout!r}")
        if z < 0 or margin < 0 or budget_ms < 0 or tries < 1:
            raise ValueError("z, margin and budget_ms must be >= 0 and tries >= 1, got "
                             f"z={z}, margin={margin}, budget_ms={budget_ms}, tries={tries}")
        if prune is None:
            prune = PRUNE if impl == "core" else 0
        if top is None:
            top = TOP if impl == "core" else 0
        if top < 0 or top == 1 or (top and (rollout == "random" or rollout not in ROLLOUTS)):
            raise ValueError(f"top must be 0 (every action) or at least 2, and 0 with rollout=random "
                             f"or a network rollout (it ranks by the bot's values), got top={top}")
        if prune < 0 or prune_z < 0 or threads < 1:
            raise ValueError(f"prune and prune_z must be >= 0 and threads >= 1, got "
                             f"prune={prune}, prune_z={prune_z}, threads={threads}")
        if prune_bar not in (0, 1):
            raise ValueError(f"prune_bar must be 0 or 1, got {prune_bar!r}")
        if impl not in IMPLS:
            raise ValueError(f"impl must be one of {', '.join(IMPLS)}, got {impl!r}")
        if guide is None:
            guide = "none"
        if impl == "python" and guide == "auto":
            guide = "none"  # the reference has no guide
        _check_weight(weight, weight_t)
        if impl == "python" and (prune or threads != 1 or top or rollout not in ROLLOUTS
                                 or guide != "none" or (leaf is not None and leaf != "none")
                                 or weight != "none" or (own is not None and own != OWN)):
            raise ValueError("prune, top, threads, a guide, a leaf critic, a network rollout, own "
                             "and weight are options of the compiled search (impl=core)")
        if not isinstance(guide_p, (int, float)) or not 0.0 <= guide_p <= 1.0:
            raise ValueError(f"guide_p must be a probability in [0, 1], got {guide_p!r}")
        self.rules = as_rules(rules)
        # the guide network (None: none); "auto" finds the one packaged for the rules, if any
        self.guide: Any = _guide_network(guide, self.rules) if impl == "core" else None
        if self.guide is not None and top:
            raise ValueError("top ranks actions by the rollout bot's values: not with a guide "
                             "network (guide=none)")
        self.guide_p = float(guide_p)
        # the network of the seat's own playout decisions (None: the rollout's)
        self.own: Any = _own_network(own, self.guide, self.rules) if impl == "core" else None
        # the leaf critic (None: playouts to the end)
        _check_leaf_depth(leaf_depth)
        self.leaf: Any = _leaf_critic(leaf, self.rules) if impl == "core" else None
        self.leaf_depth = int(leaf_depth)
        self.weight = weight
        self.weight_t = float(weight_t)
        self.network: Any = None  # the rollout network (rollout=checkpoint:PATH)
        if rollout.startswith(NETWORK_ROLLOUT):
            from .network import load_network

            self.network = load_network(rollout[len(NETWORK_ROLLOUT):], self.rules)
        self.prune = prune
        self.prune_z = prune_z
        self.prune_bar = prune_bar
        self.top = top
        self.threads = threads
        self.impl = impl
        self.samples = samples
        self.playouts = playouts
        self.rollout = rollout
        self.z = z
        self.margin = margin
        self.budget_ms = budget_ms
        self.tries = tries
        self.last: dict[str, Any] = {}  # what the last search saw: worlds, means, choice

    def batch_options(self) -> dict[str, Any] | None:
        """This agent's options as :func:`vector_search` takes them, or None when its decisions
        cannot be batched with the same numbers (the Python reference, or a time budget)."""
        if self.impl != "core" or self.budget_ms:
            return None
        rollout = self.rollout if self.network is None else self.network
        return {"samples": self.samples, "playouts": self.playouts, "rollout": rollout,
                "z": self.z, "margin": self.margin, "tries": self.tries, "prune": self.prune,
                "prune_z": self.prune_z, "prune_bar": self.prune_bar, "top": self.top,
                "guide": self.guide, "guide_p": self.guide_p, "leaf": self.leaf,
                "leaf_depth": self.leaf_depth, "weight": self.weight, "weight_t": self.weight_t,
                "own": self.own}

    def act(self, view: PlayerView) -> int:
        """Not supported: the search needs the game, so call :meth:`act_game`.

        Raises:
            TypeError: always.
        """
        raise TypeError(
            "the search agent needs the hand's public course, which a PlayerView does not hold: "
            "call agent.act_game(game, seat) (paohuzi-eval does this for you)")

    def act_game(self, game: Any, seat: int) -> int:
        """The action for ``seat``, which must be the seat to act in ``game`` (either engine)."""
        from ..backends.fast import Game as FastGame

        if game.done or game.current_player != seat:
            raise ValueError(f"seat {seat} is not the seat to act (to act: {game.current_player})")
        if self.impl == "core":
            rollout = self.rollout if self.network is None else self.network
            out = core_search(game, seat, rng=self.rng, samples=self.samples,
                              playouts=self.playouts, rollout=rollout, z=self.z,
                              margin=self.margin, budget_ms=self.budget_ms, tries=self.tries,
                              prune=self.prune, prune_z=self.prune_z, threads=self.threads,
                              prune_bar=self.prune_bar, top=self.top, guide=self.guide,
                              guide_p=self.guide_p, leaf=self.leaf, leaf_depth=self.leaf_depth,
                              weight=self.weight, weight_t=self.weight_t, own=self.own)
            choice = int(out["choice"])
            # the actions played out in at least one world (top and guide leave some out)
            played = {a for a, n in zip(out["legal"], out["played"]) if n > 0}
            self.last = {"worlds": out["worlds"], "attempts": out["attempts"],
                         "means": {a: m for a, m in zip(out["legal"], out["means"]) if a in played},
                         "ses": {a: e for a, e in zip(out["legal"], out.get("ses", []))
                                 if a in played},
                         "choice": choice, "playouts": out["playouts"]}
            if "ess" in out:
                self.last["ess"] = out["ess"]
                self.last["weight_fallback"] = out["weight_fallback"]
            return choice
        legal = list(game.legal_actions())
        real = game if isinstance(game, FastGame) else FastGame.replay(game.record())
        default = (real.expert_action() if self.rollout == "expert" else
                   real.greedy_action() if self.rollout == "greedy" else legal[0])
        if len(legal) == 1 or HU in legal:
            # A win is taken, as the expert takes it: it is certain, a declined one is closed
            # until the table changes (R-CHOU-5), and the search's estimate of waiting for a
            # bigger one is the optimistic maximum of noisy means.
            choice = HU if HU in legal else legal[0]
            self.last = {"worlds": 0, "attempts": 0, "means": {}, "ses": {}, "choice": choice,
                         "playouts": 0}
            return choice
        kn = _knowledge(real, seat)
        scores: list[list[int]] = []  # per world, the seat's points after each legal action
        attempts = 0
        start = time.perf_counter()
        want = min(self.samples, max(2, self.playouts // len(legal)))
        while len(scores) < want and attempts < want * self.tries:
            if self.budget_ms and (time.perf_counter() - start) * 1000 > self.budget_ms:
                break
            attempts += 1
            deck = _sample_deck(kn, self.rng)
            world = None if deck is None else _world(kn, deck, self.rules)
            if world is None:
                continue
            pseed = int(self.rng.integers(2**31))
            row = []
            for a in legal:
                g = world.clone()
                g.step(a)
                if not g.done:
                    g = g.playout(self.rollout, pseed)
                row.append(g.result.scores[seat])
            scores.append(row)
        choice = default
        means: dict[int, float] = {}
        ses: dict[int, float] = {}
        if len(scores) >= 2:
            pts = np.asarray(scores, dtype=float)
            means = {a: float(m) for a, m in zip(legal, pts.mean(axis=0))}
            # standard error of each mean (for labelled data: paohuzi_training/label.py)
            ses = {a: float(e) for a, e in zip(legal, pts.std(axis=0, ddof=1) / np.sqrt(len(pts)))}
            # Each action against the rollout bot's choice, world by world (common random
            # numbers): leave that choice only for a gain whose lower confidence bound clears
            # the margin, so that the noise of a few playouts never decides.
            diff = pts - pts[:, [legal.index(default)]]
            lcb = diff.mean(axis=0) - self.z * diff.std(axis=0, ddof=1) / np.sqrt(len(pts))
            best = int(np.argmax(lcb))
            if lcb[best] > self.margin:
                choice = legal[best]
        self.last = {"worlds": len(scores), "attempts": attempts, "means": means, "ses": ses,
                     "choice": choice, "playouts": len(scores) * len(legal)}
        return choice
