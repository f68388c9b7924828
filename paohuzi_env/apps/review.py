"""Review a hand: the value of every legal action at every decision of one seat
(``paohuzi review RECORD --seat K``).

For each decision of seat ``K`` that has a choice, the analyser — the compiled search, run from
that seat's own information only (:func:`paohuzi_env.agents.search.core_search`: the worlds are
drawn from what the seat may know, so the hidden cards of that moment are never read) — plays
every legal action out over the same sampled worlds and gives its mean points for seat ``K`` and
the standard error of that mean. The review marks the action taken and the best one (the
highest mean), and the loss, best minus taken (≥ 0, in points for the seat). With ``agent``
(``network:PATH``, ``zoo:NAME`` or ``checkpoint:PATH``) it adds that network's probabilities of the legal
actions beside the values.

The default analyser, :data:`ANALYSER`, is ``search:guide=none,prune=0,z=0,samples=256,
playouts=4096``. It is stronger than the default ``search`` for this job: the default is guided,
plays out only its network's candidates on up to 32 worlds and prunes early, so it has no value
for most actions; the analyser plays every legal action on the same 256 worlds (8x the
default's), so every action has a mean over the same worlds with a standard error about a third
of the default's, and with ``z=0`` its own choice is the action of the highest mean, so "best"
and "the analyser's choice" are the same action and the loss of the analyser's own choice is 0.
``python -m paohuzi_env.dev.bench review`` times it (a hand's review on one core).

A win offer (胡, 天胡) is not searched: the analyser, like the search and the bots, always takes
a win (declining one costs it the right to win on that kind until its huxi changes, R-CHOU-5, and
no test showed a gain from declining). The review lists each offer under ``wins`` with the
points the win was worth to the seat (exact: the hand ends there) and whether it was taken.

A record is any hand record this project writes (``paohuzi play``, ``paohuzi serve``,
``paohuzi-eval --save-records``): :meth:`Game.record`'s dict, read by
:func:`paohuzi_env.apps.replay_html.load_record`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from ..agents import make_agent
from ..agents.search import core_search, parse_search_spec
from ..backends import fast
from ..display.render import move_name
from ..game.actions import HU
from ..game.engine import IllegalActionError
from ..game.rules import rules_from_record
from .replay_html import check_record

__all__ = ["ANALYSER", "FORMAT", "analyse_position", "analyser_options", "jsonable", "review", "review_table"]

FORMAT = "paohuzi-review-v1"
ANALYSER = "search:guide=none,prune=0,z=0,samples=256,playouts=4096"
"""The default analyser (see the module docstring for why this setting)."""
COSTLIEST = 5


def analyser_options(spec: str) -> dict[str, Any]:
    """The keyword arguments of :func:`core_search` for an analyser spec.

    Raises:
        ValueError: for a spec that is not ``search:OPTIONS`` or one that cannot value every
            legal action (a guide, ``top``, or the Python reference).
    """
    if not isinstance(spec, str) or spec.partition(":")[0] != "search":
        raise ValueError(f"the analyser must be a search spec (search:OPTIONS), got {spec!r}")
    opts = parse_search_spec(spec.partition(":")[2])
    opts.setdefault("guide", "none")
    if opts.get("guide") != "none" or opts.get("top") or opts.get("impl", "core") != "core":
        raise ValueError(f"the analyser {spec!r} must value every legal action: the compiled "
                         "search (impl=core) with guide=none and no top")
    opts.pop("impl", None)
    return opts


def _probabilities(agent: Any, view: Any) -> dict[int, float] | None:
    """The agent's probabilities of the legal actions at ``view``, when it has them."""
    probs = getattr(agent, "probabilities", None)
    if probs is None:
        return None
    return {int(a): float(p) for a, p in probs(view).items()}


def analyse_position(game: Any, seat: int, *, analyser: str = ANALYSER, seed: Any = 0,
                     options: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The analyser's value of every legal action of ``seat`` (the seat to act) in ``game``
    (either engine), from that seat's information only.

    Returns:
        ``{"legal": [{"action", "name", "mean", "se", "worlds"}], "best", "worlds"}``; ``mean``
        and ``se`` in points for ``seat``; ``best`` the action of the highest mean.

    Raises:
        ValueError: for a seat not to act, a finished hand or a bad analyser.
    """
    opts = dict(options) if options is not None else analyser_options(analyser)
    res = core_search(game, seat, seed=seed, **opts)
    legal = [int(a) for a in res["legal"]]
    means = list(res["means"]) or [math.nan] * len(legal)
    ses = list(res["ses"]) or [math.nan] * len(legal)
    decision = game.decision
    rows: list[dict[str, Any]] = [
        {"action": a, "name": move_name(a, decision, legal), "mean": float(m), "se": float(s),
         "worlds": int(w)}
        for a, m, s, w in zip(legal, means, ses, res["played"])]
    finite = [(float(m), a) for a, m in zip(legal, means) if math.isfinite(m)]
    # the highest mean; ties: the first legal action (as the search keeps its first candidate)
    best = max(finite, key=lambda x: x[0])[1] if finite else int(res["choice"])
    return {"legal": rows, "best": best, "worlds": int(res["worlds"])}


def review(record: Mapping[str, Any], seat: int, *, agent: str | None = None,
           analyser: str = ANALYSER, seed: int = 0) -> dict[str, Any]:
    """The review of ``seat``'s decisions in a hand record (see the module docstring).

    Args:
        record: a hand record (``rules``, ``deck``, ``dealer``, ``actions``).
        seat: the reviewed seat, 0, 1 or 2.
        agent: ``network:PATH``, ``zoo:NAME`` or ``checkpoint:PATH``: add its probabilities of the
            legal actions (any agent spec with a ``probabilities(view)`` method).
        analyser: the search that values the actions (:data:`ANALYSER`).
        seed: the analyser's worlds at decision ``i`` of the hand come from
            ``SeedSequence([seed, i])``.

    Returns:
        a JSON-ready dict: ``format``, ``seat``, ``analyser``, ``agent``, ``rules``,
        ``decisions`` (one per decision of the seat with a choice: ``step``, the index of the
        action in the record; ``decision``; ``legal`` with the values and, with an agent,
        ``prob``; ``chosen``, ``best``, ``loss``) and ``summary`` (``decisions``,
        ``total_loss``, ``agreement``, ``costliest``: the steps of the five largest losses).

    Raises:
        ValueError: a malformed record, one whose actions do not replay, a seat that is not
            0, 1 or 2 or that never has a choice, or an unknown agent or analyser spec.
    """
    check_record(record)
    if isinstance(seat, bool) or not isinstance(seat, int) or seat not in (0, 1, 2):
        raise ValueError(f"seat must be 0, 1 or 2, got {seat!r}")
    opts = analyser_options(analyser)
    rules = rules_from_record(record["rules"])
    scorer = None
    if agent is not None:
        prefix = agent.partition(":")[0]
        if prefix not in ("network", "checkpoint", "zoo"):
            raise ValueError(f"--agent must be network:PATH, zoo:NAME or checkpoint:PATH, "
                             f"got {agent!r}")
        scorer = make_agent(agent, seed=0, rules=rules)
        if getattr(scorer, "probabilities", None) is None:
            raise ValueError(f"agent {agent!r} gives no action probabilities")
    try:
        game = fast.Game(rules, deck=record["deck"], dealer=record["dealer"])
    except ValueError as e:
        raise ValueError(f"the record's deal is not valid: {e}") from None
    decisions, wins = [], []
    for step, action in enumerate(record["actions"]):
        if game.done:
            raise ValueError(f"the record has actions after the hand ended (at action {step})")
        legal = game.legal_actions()
        if game.current_player == seat and HU in legal and action in legal:
            won = game.clone()
            won.step(HU)
            assert won.result is not None
            wins.append({"step": step, "decision": game.decision, "taken": action == HU,
                         "points": int(won.result.scores[seat])})
        elif game.current_player == seat and len(legal) > 1 and action in legal:
            row = analyse_position(game, seat, seed=np.random.SeedSequence([seed, step]),
                                   options=opts)
            values = {r["action"]: r["mean"] for r in row["legal"]}
            probs = _probabilities(scorer, game.view(seat)) if scorer is not None else None
            if probs is not None:
                for r in row["legal"]:
                    r["prob"] = probs.get(r["action"], 0.0)
            loss = values[row["best"]] - values[action]
            decisions.append({"step": step, "decision": game.decision, "legal": row["legal"],
                              "worlds": row["worlds"], "chosen": int(action), "best": row["best"],
                              "loss": max(0.0, float(loss)) if math.isfinite(loss) else math.nan})
        try:
            game.step(action)
        except IllegalActionError as e:
            raise ValueError(f"the record's action {step} does not replay: {e}") from None
    if not decisions:
        raise ValueError(f"seat {seat} never has a choice in this hand (no 吃/碰/比/discard "
                         "decision with two or more legal actions): nothing to review")
    losses = [d["loss"] for d in decisions]
    costliest = sorted(decisions, key=lambda d: -d["loss"])[:COSTLIEST]
    return {
        "format": FORMAT, "seat": seat, "analyser": analyser, "agent": agent,
        "rules": rules.to_record(), "seed": seed, "decisions": decisions, "wins": wins,
        "summary": {
            "decisions": len(decisions),
            "total_loss": float(sum(losses)),
            "agreement": sum(d["chosen"] == d["best"] for d in decisions) / len(decisions),
            "costliest": [d["step"] for d in costliest if d["loss"] > 0],
        },
    }


def jsonable(value: Any) -> Any:
    """``value`` (a review, or any part of one) with every NaN float as None, for strict JSON (a
    mean is NaN only where the analyser drew fewer than two worlds)."""
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, Mapping):
        return {k: jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    return value


def review_table(rev: Mapping[str, Any]) -> str:
    """The review as a readable terminal table (plain text)."""
    lines = [f"Review of seat {rev['seat']} by {rev['analyser']}"
             + (f", probabilities of {rev['agent']}" if rev.get("agent") else "")]
    with_p = bool(rev.get("agent"))
    for d in rev["decisions"]:
        lines.append("")
        lines.append(f"step {d['step']:>3}  {d['decision']:<8} loss {d['loss']:+.2f}"
                     + ("  (agrees)" if d["chosen"] == d["best"] else ""))
        for r in sorted(d["legal"], key=lambda r: -r["mean"] if math.isfinite(r["mean"]) else math.inf):
            mark = ("*" if r["action"] == d["chosen"] else " ") + ("B" if r["action"] == d["best"] else " ")
            p = f"  p {r['prob']:.2f}" if with_p and "prob" in r else ""
            lines.append(f"  {mark} {r['name']:<24} {r['mean']:+7.2f} ± {r['se']:.2f}{p}")
    for w in rev.get("wins", []):
        lines.append("")
        lines.append(f"step {w['step']:>3}  {w['decision']:<8} a win worth {w['points']:+d} points: "
                     + ("taken" if w["taken"] else "DECLINED (the analyser always takes a win)"))
    s = rev["summary"]
    lines.append("")
    lines.append(f"{s['decisions']} decisions, total loss {s['total_loss']:.2f} points, "
                 f"agreement {s['agreement']:.0%}; costliest steps: "
                 + (", ".join(str(x) for x in s["costliest"]) or "none"))
    lines.append("(* the action taken, B the best by the analyser; ± one standard error)")
    return "\n".join(lines)
