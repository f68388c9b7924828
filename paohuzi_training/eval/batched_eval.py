"""Batched duplicate-deal evaluation of network agents over a :class:`paohuzi_env.backends.fast.VectorGame`.

``paohuzi-eval checkpoint:PATH ...`` on the compiled backend plays many games at once: every
tick it observes all live hands in C++, asks each network once (one forward pass over every hand
where a seat it plays is to act), asks the compiled ``expert`` / ``greedy`` (and a residual
network's ``expert`` prior) in C++ over the hands they act in (``VectorGame.policy_actions``
with a mask), and steps every hand in one call. No Python runs per decision for those seats.

The games, seeds and rows are those of :func:`paohuzi_training.eval.evaluate.play_deal` — the same duplicate
deals (deal ``d`` drawn from ``SeedSequence([seed, d])``), the same seat rotation — so the
summary (means, CIs, JSON) is identical to the per-decision path for the same seed
(``tests/test_batched_eval.py``). Identity of the network's choice: a batched matrix product can
round differently from the one-row product :class:`paohuzi_training.nets.policy.PolicyAgent` computes, which
could flip the argmax where two legal logits are within rounding of each other. So every row
whose top two legal logits are closer than :data:`TIE_TOL` (relative) is decided again exactly
as the per-decision path decides it (the same one-row tensors, the same calls); elsewhere the
gap is orders of magnitude above any rounding difference, so the batched argmax is the
per-decision one. :data:`STATS` counts those re-decided rows.

The compiled ``search`` (without a time budget) is batched too: every tick it is asked once, over
the hands where a seat it plays is to act (:func:`paohuzi_env.agents.search.vector_search` with
a mask), each hand drawing from its seat's own seeded agent's generator state, which the call
advances exactly as :class:`~paohuzi_env.agents.search.SearchAgent` would: the same decisions
and numbers without Python per decision. Seats whose agent has no batched form — ``random`` (its
Python generator is seeded per deal, rotation and seat), ``search:impl=python``, a search with
``budget_ms`` and any other Python agent — are asked per decision, on a copy of the hand, with
the same seeded agent the per-decision path builds, so the numbers stay the same.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from paohuzi_env.agents import decide, make_agent
from paohuzi_env.agents.search import rng_state_row, set_rng_from_row, vector_search
from paohuzi_env.bots.registry import bot_names
from paohuzi_env.game.actions import NUM_ACTIONS
from paohuzi_env.game.rules import Rules, as_rules

from ..nets.ticks import tick_buffers
from .rows import GameRow
from .rows import seed_of as _seed_of

COMPILED = bot_names(exact=True)
"""The bots whose compiled twins take their decisions exactly (the core plays them)."""
"""Specs the VectorGame decides in C++ exactly as the per-decision path's bots decide."""

TIE_TOL = 1e-3
"""Rows whose best two legal logits differ by less than ``TIE_TOL * (1 + |best|)`` are decided
again one row at a time, as :class:`paohuzi_training.nets.policy.PolicyAgent` does. float32 rounding
differences between a batched and a one-row product of the shipped networks are at most
6.1e-7 of the logits' scale over 300 positions (``tests/test_batched_eval.py`` asserts
< TIE_TOL / 20), so this is ample."""

SLOTS = 512
"""Hands held at once in one VectorGame (per worker process)."""

STATS = {"rows": 0, "redecided": 0}
"""Per process: network decisions made batched, and those re-decided one row at a time."""


@dataclass
class _Net:
    """A greedy policy network and how its prior (if any) is asked."""

    model: Any
    prior: str | None  # compiled bot name, or None


def network_of(agent: Any) -> _Net | None:
    """The batched form of ``agent``: a greedy (argmax) :class:`~paohuzi_training.nets.policy.PolicyAgent`
    whose prior is none or a compiled bot; None for any other agent."""
    model = getattr(agent, "model", None)
    if model is None or not hasattr(model, "masked_logits") or getattr(agent, "sample", True):
        return None
    prior = getattr(model, "prior", "none")
    if prior == "none":
        return _Net(model, None)
    if prior in COMPILED:
        return _Net(model, prior)
    return None


_NETS: dict[tuple[str, str, tuple], _Net | None] = {}


def _file_identity(spec: str) -> tuple:
    """What names the network a ``checkpoint:PATH`` spec loads: the file's absolute path, size
    and modification time (a relative path, or a file written again, is another network)."""
    if not spec.startswith("checkpoint:"):
        return ()
    path = os.path.abspath(spec.split(":", 1)[1])
    try:
        st = os.stat(path)
    except OSError:
        return (path,)
    return (path, st.st_size, st.st_mtime_ns)


def _net_for(spec: str, rules: Rules) -> _Net | None:
    key = (spec, repr(rules), _file_identity(spec))
    if key not in _NETS:
        _NETS[key] = (None if spec in COMPILED or spec == "random" or spec.startswith("search")
                      else network_of(make_agent(spec, seed=0, rules=rules)))
    return _NETS[key]


_SEARCH_OPTIONS: dict[tuple[str, str], dict[str, Any] | None] = {}


def search_options(spec: str, rules: Rules) -> dict[str, Any] | None:
    """The :func:`paohuzi_env.agents.search.vector_search` options of a ``search`` spec whose
    decisions this module batches (the compiled search without a time budget); None else."""
    if not spec.startswith("search"):
        return None
    key = (spec, repr(rules))
    if key not in _SEARCH_OPTIONS:
        from paohuzi_env import fast

        agent = make_agent(spec, seed=0, rules=rules)
        opts = getattr(agent, "batch_options", lambda: None)()
        _SEARCH_OPTIONS[key] = opts if fast.available() else None
    return _SEARCH_OPTIONS[key]


def wanted(specs: Sequence[str], rules: Any) -> bool:
    """True when at least one spec is a network or a search this module batches (else the
    per-decision path is as fast: its bots are compiled already)."""
    rules = as_rules(rules)
    return any(_net_for(s, rules) is not None or search_options(s, rules) is not None
               for s in specs)


def chunk_size(deals: int, workers: int, specs: Sequence[str] = ()) -> int:
    """Deals per job: large (a VectorGame per job), but at least two jobs per worker; at most
    25 with a search seat (milliseconds a decision: the progress bar moves per job)."""
    most = 25 if any(s.startswith("search") for s in specs) else 2000
    return max(1, min(most, math.ceil(deals / (2 * max(1, workers)))))


def _decide_one(model: Any, obs_row: np.ndarray, legal: np.ndarray, prior: int | None) -> int:
    """The per-decision path's computation (:meth:`paohuzi_training.nets.policy.PolicyAgent.act`), on the
    same inputs: a fresh one-row observation tensor, a bool mask, the prior's action."""
    import torch

    with torch.no_grad():
        obs = torch.from_numpy(np.array(obs_row, dtype=np.float32)).unsqueeze(0)
        mask = torch.zeros(1, NUM_ACTIONS, dtype=torch.bool)
        mask[0, [int(a) for a in legal]] = True
        pr = None if prior is None else torch.tensor([prior])
        logits = model.masked_logits(obs, mask, pr)[0]
        return int(torch.argmax(logits))


def _net_actions(net: _Net, obs: np.ndarray, mask: np.ndarray, prior: np.ndarray | None,
                 out: np.ndarray, rows: np.ndarray) -> None:
    """Greedy actions of ``net`` for ``rows`` of the batch into ``out[rows]``."""
    import torch

    with torch.no_grad():
        o = torch.from_numpy(obs[rows])
        m = torch.from_numpy(mask[rows] != 0)
        p = None if prior is None else torch.from_numpy(prior[rows])
        logits = net.model.masked_logits(o, m, p)
        top = torch.topk(logits, 2, dim=-1).values
        best = torch.argmax(logits, dim=-1).numpy()
        gap = (top[:, 0] - top[:, 1]).numpy()
        scale = 1.0 + np.abs(top[:, 0].numpy())
    near = np.flatnonzero(gap < TIE_TOL * scale)
    STATS["rows"] += len(rows)
    STATS["redecided"] += len(near)
    for j in near:
        i = rows[j]
        best[j] = _decide_one(net.model, obs[i], np.flatnonzero(mask[i]),
                              None if prior is None else int(prior[i]))
    out[rows] = best


def play_deals(candidate: str, opponents: Sequence[str], deals: Sequence[int], seed: int,
               rules: Any, slots: int = SLOTS, value_function: str | None = None,
               method: str = "aivat") -> list[Any]:
    """The rows of :func:`paohuzi_training.eval.evaluate.play_deal` for every deal in ``deals`` (three
    games each), played together on one VectorGame of up to ``slots`` hands; with
    ``value_function``, each with the candidate's control variate (:mod:`paohuzi_training.eval.aivat`)."""
    from paohuzi_env import fast

    from . import aivat

    rules = as_rules(rules)
    vf = None if value_function is None else aivat.load(value_function, rules)
    opponents = list(opponents)
    # Controllers: 0 idle slot; 1.. one per distinct spec.
    specs = list(dict.fromkeys([candidate, *opponents]))
    ctrl_of = {s: k + 1 for k, s in enumerate(specs)}
    nets = {ctrl_of[s]: _net_for(s, rules) for s in specs}
    compiled = {ctrl_of[s]: s for s in specs if s in COMPILED}
    python = [ctrl_of[s] for s in specs if s not in COMPILED and nets[ctrl_of[s]] is None]
    # searches asked in one call per tick, each hand with its seat's agent's generator state
    searches = {ctrl_of[s]: o for s in specs if (o := search_options(s, rules)) is not None}
    games = [(d, rot) for d in deals for rot in range(3)]
    rows: list[Any] = []
    if not games:
        return rows
    n = min(slots, len(games))
    vg = fast.VectorGame(n, rules, seed=0)
    ctrl = np.zeros((n, 3), np.int64)  # per slot and seat: its controller (0: idle slot)
    slot_game: list[tuple[int, int] | None] = [None] * n
    slot_agents: list[dict[int, Any]] = [{} for _ in range(n)]
    decks: dict[int, tuple[list[int], int]] = {}
    todo = iter(games)

    def seat_specs(rot: int) -> dict[int, str]:
        return {rot: candidate, (rot + 1) % 3: opponents[0], (rot + 2) % 3: opponents[1]}

    def finish(d: int, rot: int, g: Any) -> None:
        r = g.result
        control = 0.0 if vf is None else aivat.control(vf, method, g, rot, seat_specs(rot))
        rows.append(GameRow(d, rot, r.scores[rot], r.winner == rot, r.winner is not None,
                            g.dealer == rot, r.scores, control))

    def fill(i: int) -> None:
        """Seat the next game in slot ``i`` (or mark it idle)."""
        for d, rot in todo:
            if d not in decks:
                base = fast.Game(rules, seed=_seed_of(seed, d))
                decks[d] = (base.deck, base.dealer)
            deck, dealer = decks[d]
            if rot == 2:
                decks.pop(d)
            g = fast.Game(rules, deck=deck, dealer=dealer)
            if g.done:  # won at the deal (R-START-1): no decision, as play_deal plays it
                finish(d, rot, g)
                continue
            sp = seat_specs(rot)
            slot_game[i] = (d, rot)
            ctrl[i] = [ctrl_of[sp[s]] for s in range(3)]
            slot_agents[i] = {s: make_agent(sp[s], seed=_seed_of(seed, d, rot, s), rules=rules)
                              for s in range(3) if ctrl_of[sp[s]] in python}
            vg.set_hand(i, g)
            return
        slot_game[i] = None
        ctrl[i] = 0
        slot_agents[i] = {}

    for i in range(n):
        fill(i)
    obs, mask, seat, dec, actions, prior, rewards, done = tick_buffers(vg)
    # the wait features, for networks that read them after the observation
    waits = vg.wait_features() if any(net is not None and net.model.waits
                                      for net in nets.values()) else None
    idx = np.arange(n)
    states = np.zeros((n, 6), np.uint64)
    while any(sg is not None for sg in slot_game):
        vg.observe(obs, mask, seat, dec)
        if waits is not None:
            vg.wait_features(waits)
        who = ctrl[idx, seat]
        vg.policy_actions("random", actions, who == 0)  # idle slots: any legal move
        for k, name in compiled.items():
            which = who == k
            if which.any():
                vg.policy_actions(name, actions, which)
        for k, net in nets.items():
            if net is None:
                continue
            which = who == k
            r = np.flatnonzero(which)
            if not len(r):
                continue
            if net.prior is not None:
                vg.policy_actions(net.prior, prior, which)
            x = np.concatenate([obs, waits], axis=1) if net.model.waits else obs
            _net_actions(net, x, mask,
                         prior if net.prior is not None else None, actions, r)
        for k, opts in searches.items():
            which = who == k
            hs = np.flatnonzero(which).tolist()
            if not hs:
                continue
            for h in hs:
                rng_state_row(slot_agents[h][int(seat[h])].rng, states[h])
            vector_search(vg, which, actions, rng_states=states, **opts)
            for h in hs:
                set_rng_from_row(slot_agents[h][int(seat[h])].rng, states[h])
        for k in python:
            if k in searches:
                continue
            for h in np.flatnonzero(who == k).tolist():
                s = int(seat[h])
                actions[h] = decide(slot_agents[h][s], vg.hand(h), s)
        vg.step(actions, rewards, done)
        for h in np.flatnonzero(done).tolist():
            sg = slot_game[h]
            if sg is None:
                continue
            last = vg.last_hand(h)
            assert last is not None
            finish(sg[0], sg[1], last[0])
            fill(h)
    rows.sort(key=lambda r: (r.deal, r.rotation))
    return rows


def work(args: tuple) -> list[Any]:
    """A job of :func:`paohuzi_training.eval.evaluate.evaluate` (the tuple its ``_work`` takes), batched."""
    candidate, opponents, deals, seed, rules, _backend, value_function, method = args
    return play_deals(candidate, opponents, deals, seed, rules, value_function=value_function,
                      method=method)
