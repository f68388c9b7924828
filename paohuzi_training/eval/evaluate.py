"""Duplicate-deal evaluation: ``paohuzi-eval CANDIDATE --vs OPPONENT [...]``.

Each deal (a seeded deck and dealer) is played three times, the candidate in each seat in turn
against the opponents (seat rotation), so the luck of the deal cancels. Confidence intervals are
computed over deals (the candidate's mean points over the three rotations of a deal), never over
games. Agents are specs: ``random``, ``greedy``, ``expert``, ``search[:OPTIONS]``,
``zoo:NAME`` (a network shipped with the package: ``paohuzi zoo`` lists them), ``network:PATH``,
``checkpoint:PATH``.

Results are identical for the same seed whatever the number of worker processes: every deal and
every agent seat draws from its own ``SeedSequence`` keyed by (seed, deal, rotation, seat).
``--journal FILE`` appends each finished batch of deals to FILE, and a run given a journal plays
only the deals it lacks: a long evaluation runs in pieces (kill it, run the same command again)
and gives the numbers of one uninterrupted run (:mod:`paohuzi_training.eval.journal`).

``--league A B C ...`` plays a round robin (each agent as candidate against every other) and
rates all agents with OpenSkill (Plackett–Luce) from the finishing order of every game; it
prints the ratings and the pairwise table as Markdown, ``--plot PNG`` draws the ratings.

``--save-records DIR N`` saves N of the evaluated games as hand records (``Game.record()`` plus
the seats' agent specs and, for checkpoint agents, the action probabilities of every decision),
chosen by ``--save-which``: the first N games, or those where the candidate scored worst or best.
``paohuzi replay FILE --html OUT`` turns one into a page to step through.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import signal
import sys
import time
from collections.abc import Sequence
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import numpy as np

from paohuzi_env.agents import decide, make_agent
from paohuzi_env.apps.helptext import plain_text
from paohuzi_env.backends.select import BACKENDS, game_class, resolve_backend
from paohuzi_env.display.svg import display_name
from paohuzi_env.game.engine import replay_record
from paohuzi_env.game.rules import as_rules, get_rules, preset_names

from . import aivat, batched_eval
from .journal import Journal
from .journal import header as journal_header
from .pools import one_torch_thread
from .rows import GameRow
from .rows import seed_of as _seed_of


def play_deal(candidate: str, opponents: Sequence[str], deal: int, seed: int, rules,
              backend: str = "python", value_function: str | None = None,
              method: str = "aivat") -> list[GameRow]:
    """The three rotations of one deal (``backend``: ``fast`` or ``python``; the same rows).
    With ``value_function`` (a path), each row carries the candidate's control variate
    (:mod:`paohuzi_training.eval.aivat`; ``method`` one of its :data:`~paohuzi_training.eval.aivat.METHODS`
    but ``none``)."""
    rules = as_rules(rules)
    vf = None if value_function is None else aivat.load(value_function, rules)
    game_cls = game_class(backend)
    base = game_cls(rules, seed=_seed_of(seed, deal))
    rows = []
    for rot in range(3):
        game = game_cls(rules, deck=base.deck, dealer=base.dealer)
        specs, agents = _seat_agents(candidate, opponents, deal, rot, seed, rules)
        while not game.done:
            s = game.current_player
            assert s is not None
            game.step(decide(agents[s], game, s))  # a bot's compiled twin is the agent's choice
        r = game.result
        assert r is not None
        control = 0.0 if vf is None else aivat.control(vf, method, game, rot, specs)
        rows.append(GameRow(deal, rot, r.scores[rot], r.winner == rot, r.winner is not None,
                            game.dealer == rot, r.scores, control))
    return rows


def _probs_and_action(agent: Any, game: Any, seat: int) -> tuple[int, dict[str, float] | None]:
    """The agent's action and, for a greedy policy network (``checkpoint:``), its action
    probabilities over the legal actions (the same forward pass ``PolicyAgent.act`` makes)."""
    if getattr(agent, "model", None) is None or getattr(agent, "sample", True):
        return decide(agent, game, seat), None
    from ..nets.policy import PolicyAgent  # torch is loaded: the agent holds a network

    if not isinstance(agent, PolicyAgent):
        return decide(agent, game, seat), None
    view = game.view(seat)
    logits = agent.logits(view)
    p = logits.softmax(-1)
    return int(logits.argmax()), {str(a): float(p[a]) for a in view.legal}


def _seat_agents(candidate: str, opponents: Sequence[str], deal: int, rot: int, seed: int,
                 rules) -> tuple[dict[int, str], dict[int, Any]]:
    """The specs and agents of each seat when the candidate sits in seat ``rot`` of ``deal``
    (each seeded by (seed, deal, rotation, seat)): one function, so a recorded game replays the
    evaluated one move for move."""
    specs = {rot: candidate, (rot + 1) % 3: opponents[0], (rot + 2) % 3: opponents[1]}
    agents = {s: make_agent(specs[s], seed=_seed_of(seed, deal, rot, s), rules=rules)
              for s in range(3)}
    return specs, agents


def record_game(candidate: str, opponents: Sequence[str], deal: int, rotation: int, seed: int,
                rules, backend: str = "python") -> dict[str, Any]:
    """One game of :func:`play_deal` again (the same deal, seats and agent seeds, so the same
    moves) as a hand record with ``seats`` and, where an agent gives them, ``probs``."""
    rules = as_rules(rules)
    game_cls = game_class(backend)
    base = game_cls(rules, seed=_seed_of(seed, deal))
    game = game_cls(rules, deck=base.deck, dealer=base.dealer)
    specs, agents = _seat_agents(candidate, opponents, deal, rotation, seed, rules)
    probs: list[dict[str, float] | None] = []
    while not game.done:
        s = game.current_player
        assert s is not None
        a, p = _probs_and_action(agents[s], game, s)
        probs.append(p)
        game.step(a)
    rec = game.record()
    rec["seats"] = [specs[s] for s in range(3)]
    rec["probs"] = probs if any(p is not None for p in probs) else None
    r = game.result
    rec["title"] = (f"{display_name(candidate)} (座{rotation}) vs "
                    f"{' / '.join(map(display_name, opponents))} — deal {deal}, seed {seed}: "
                    f"{r.scores[rotation]:+d}")
    return rec


SAVE_WHICH = ("first", "worst", "best")

JOURNAL_CHUNK = 25
"""Deals per job at most when a journal is kept (and, for a batched network evaluation with an
``aivat-lookahead`` method, instead of its larger jobs; without one, a third of its slots): a
killed run loses at most the jobs in flight."""


def save_records(rows: Sequence[GameRow], candidate: str, opponents: Sequence[str], out_dir,
                 n: int, *, which: str = "first", seed: int = 0, rules="huaihua",
                 backend: str | None = None) -> list[Path]:
    """Save ``n`` of the evaluated games (``rows`` from :func:`evaluate`) as record files in
    ``out_dir``: the ``first`` ones, or those where the candidate scored ``worst`` or ``best``.

    Raises:
        ValueError: for ``n`` below 1 or an unknown ``which``.
    """
    if n < 1:
        raise ValueError(f"the number of records to save must be at least 1, got {n}")
    if which not in SAVE_WHICH:
        raise ValueError(f"which must be one of {SAVE_WHICH}, got {which!r}")
    order = list(rows)
    if which == "worst":
        order.sort(key=lambda r: r.points)
    elif which == "best":
        order.sort(key=lambda r: -r.points)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    backend = resolve_backend(backend)
    paths = []
    for row in order[:n]:
        rec = record_game(candidate, opponents, row.deal, row.rotation, seed, rules, backend)
        scores = tuple(replay_record(game_class("python"), rec).result.scores)
        if scores != tuple(row.scores):
            raise RuntimeError(f"deal {row.deal}, seat {row.rotation} played again scored {scores}, "
                               f"not {row.scores}: an agent is not deterministic for its seed")
        path = out / f"deal{row.deal:05d}-seat{row.rotation}.json"
        path.write_text(json.dumps(rec, ensure_ascii=False), encoding="utf-8")
        paths.append(path)
    return paths


def _work(args) -> list[GameRow]:
    candidate, opponents, deals, seed, rules, backend, value_function, method = args
    out: list[GameRow] = []
    for d in deals:
        out.extend(play_deal(candidate, opponents, d, seed, rules, backend, value_function,
                             method))
    return out


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval of a proportion k/n."""
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    den = 1 + z * z / n
    mid = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return (max(0.0, mid - half), min(1.0, mid + half))


def mean_ci(values: Sequence[float], z: float = 1.96) -> tuple[float, float, float]:
    """Mean and normal-approximation 95% interval (sample standard deviation)."""
    n = len(values)
    if n == 0:
        return (0.0, 0.0, 0.0)
    m = float(np.mean(values))
    if n == 1:
        return (m, m, m)
    half = z * float(np.std(values, ddof=1)) / math.sqrt(n)
    return (m, m - half, m + half)


def summarise(rows: Sequence[GameRow], candidate: str, opponents: Sequence[str],
              n_deals: int, seconds: float, rules_name: str,
              value_function: str | None = None, method: str = "aivat") -> dict:
    """The evaluation table as a dict (JSON-ready). With ``value_function`` (the rows carry
    control variates), ``variance_reduction`` holds the corrected mean and CI beside the plain
    ones and the ratio of the CIs' widths."""
    def deal_means(corrected: bool) -> list[float]:
        """Each deal's mean over its rotations (of points less their control variates)."""
        per_deal: dict[int, list[float]] = {}
        for r in rows:
            per_deal.setdefault(r.deal, []).append(r.points - (r.control if corrected else 0.0))
        return [float(np.mean(v)) for _, v in sorted(per_deal.items())]

    m, lo, hi = mean_ci(deal_means(False))
    games = len(rows)
    wins = sum(r.won for r in rows)
    wlo, whi = wilson(wins, games)
    dealer = [r.points for r in rows if r.dealer]
    other = [r.points for r in rows if not r.dealer]
    dm, dlo, dhi = mean_ci(dealer)
    om, olo, ohi = mean_ci(other)
    extra: dict[str, Any] = {}
    if value_function is not None:
        cm, clo, chi = mean_ci(deal_means(True))
        extra["variance_reduction"] = {
            "method": method, "value_function": value_function,
            "mean_points": cm, "ci95": [clo, chi],
            "plain_mean_points": m, "plain_ci95": [lo, hi],
            "ci_width_ratio": (chi - clo) / (hi - lo) if hi > lo else float("nan"),
        }
    return {
        "candidate": candidate, "opponents": list(opponents), "rules": rules_name,
        "deals": n_deals, "games": games,
        "mean_points": m, "ci95": [lo, hi],
        "win_rate": wins / games if games else 0.0, "win_rate_ci95": [wlo, whi],
        "hu_rate": sum(r.hu for r in rows) / games if games else 0.0,
        "draw_rate": sum(not r.hu for r in rows) / games if games else 0.0,
        "dealer": {"games": len(dealer), "mean_points": dm, "ci95": [dlo, dhi]},
        "non_dealer": {"games": len(other), "mean_points": om, "ci95": [olo, ohi]},
        "wall_seconds": seconds,
        **extra,
    }


def evaluate(candidate: str, opponents: str | Sequence[str] = "expert", *, deals: int = 1000,
             seed: int = 0, rules="huaihua", workers: int | None = None,
             progress: bool = True, mp_context: str = "fork", backend: str | None = None,
             batched: bool = True, variance_reduction: str = "none",
             value_function: str | None = None, journal: str | os.PathLike[str] | None = None,
             ray: str = "") -> dict:
    """Duplicate-deal evaluation of ``candidate`` against ``opponents``.

    Args:
        candidate: an agent spec.
        opponents: one spec for both other seats, or two specs (next, previous seat).
        deals: number of deals (each played three times).
        seed: the evaluation seed; the same seed gives the same deals and numbers.
        rules: a preset name or Rules.
        workers: processes (default: all cores); results do not depend on it.
        ray: a Ray address (:mod:`paohuzi_training.cluster`): the jobs run as Ray tasks instead
            of processes (``workers`` then defaults to the cluster's CPUs); the same results.
        progress: show a progress bar.
        mp_context: ``fork`` (default; works from any script) or ``spawn`` (for processes
            that already run torch threads, like the trainer).
        backend: ``auto`` (default: the compiled core when built), ``fast`` or ``python``; the
            numbers do not depend on it (:mod:`paohuzi_env.backends.select`).
        batched: on the fast backend, play network agents over a VectorGame with one forward
            pass per tick (:mod:`paohuzi_training.eval.batched_eval`); the numbers do not depend on it.
        variance_reduction: ``none``, ``aivat`` or ``aivat-lookahead`` (``2``, ``3``: deeper)
            (control variates over the wall's draws, :mod:`paohuzi_training.eval.aivat`: the
            corrected mean and CI are added as ``variance_reduction``; the plain figures stay as
            they are).
        value_function: with a variance reduction, the value function's ``.safetensors``
            (default: the packaged one of the rules, :func:`paohuzi_training.eval.aivat.for_rules`).
        journal: a file to append every finished job's rows to (:mod:`paohuzi_training.eval.journal`):
            if it holds deals of this same evaluation, only the others are played, so a run
            that was killed resumes where it stopped and gives the uninterrupted run's numbers.

    Returns:
        The summary dict of :func:`summarise`, plus ``rows`` (per game). With a journal,
        ``journal`` holds its path and how many of the deals it already had.

    Raises:
        ValueError: a bad spec, count or method, or a journal of another evaluation.
    """
    if isinstance(opponents, str):
        opponents = [opponents, opponents]
    opponents = list(opponents)
    if len(opponents) != 2:
        raise ValueError(f"opponents must be one spec or two, got {opponents}")
    rules = as_rules(rules)
    for spec in [candidate, *opponents]:
        make_agent(spec, seed=0, rules=rules)  # fail early with a clear message
    if deals < 1:
        raise ValueError(f"deals must be >= 1, got {deals}")
    if variance_reduction not in aivat.METHODS:
        raise ValueError(f"variance_reduction must be one of {', '.join(aivat.METHODS)}, got "
                         f"{variance_reduction!r}")
    if value_function is not None and variance_reduction == "none":
        raise ValueError("a value function is read by a variance_reduction ("
                         + ", ".join(m for m in aivat.METHODS if m != "none") + ") only")
    vf = (None if variance_reduction == "none"
          else str(aivat.for_rules(rules, value_function).path))
    book = None
    if journal is not None:
        book = Journal.open(journal, journal_header(candidate, opponents, seed, rules,
                                                    variance_reduction, vf))
    try:
        out = _run(candidate, opponents, deals, seed, rules, workers, progress, mp_context,
                   backend, batched, variance_reduction, vf, book, ray)
    finally:
        if book is not None:
            book.close()
    return out


def _ignore_interrupts() -> None:
    """A pool worker's start: Ctrl-C is the parent's to handle (it ends the pool), and a
    SIGTERM ends the worker (the parent's handler, inherited through fork, is not its); torch,
    if loaded, on one thread (:func:`one_torch_thread`)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    one_torch_thread()


def _run(candidate: str, opponents: list[str], deals: int, seed: int, rules: Any,
         workers: int | None, progress: bool, mp_context: str, backend: str | None,
         batched: bool, variance_reduction: str, vf: str | None, book: Journal | None,
         ray: str = "") -> dict:
    """:func:`evaluate` once its arguments are checked and its journal (if any) is open."""
    rows = [] if book is None else [r for r in book.rows if r.deal < deals]
    have = {r.deal for r in rows}
    todo = [d for d in range(deals) if d not in have]
    if ray:
        from ..cluster import connect

        workers = workers or connect(ray)
    workers = workers or os.cpu_count() or 1
    chunk = max(1, min(25, len(todo) // (4 * workers) or 1))
    backend = resolve_backend(backend)
    work = _work
    if batched and backend == "fast":
        if batched_eval.wanted([candidate, *opponents], rules):
            work = batched_eval.work
            chunk = batched_eval.chunk_size(len(todo), workers, [candidate, *opponents])
            if book is not None:  # an interrupted run loses little
                chunk = min(chunk, JOURNAL_CHUNK if variance_reduction.startswith(
                    "aivat-lookahead") else batched_eval.SLOTS // 3)
    if book is not None:
        print(f"journal {book.path}: " + ("a new one" if book.new else
              f"{len(have)} of the {deals} deals are there already"
              + (f" (and {len(book.deals()) - len(have)} beyond them, not used)"
                 if len(book.deals()) > len(have) else "")), file=sys.stderr)
        if todo:
            book.check_writable()
            if book.rows:
                _check_replay(book, work, candidate, opponents, seed, rules, backend, vf,
                              variance_reduction)
    jobs = [(candidate, opponents, todo[i:i + chunk], seed, rules, backend, vf,
             variance_reduction) for i in range(0, len(todo), chunk)]
    start = time.perf_counter()
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=deals, initial=len(have), desc=f"{candidate} vs {'/'.join(opponents)}",
                   unit="deal", file=sys.stderr, leave=False)

    def done(part: list[GameRow]) -> None:
        if book is not None:
            book.append(part)
        rows.extend(part)
        if bar:
            bar.update(len(part) // 3)

    try:
        if ray:
            from ..cluster import ray_map

            for part in ray_map(work, jobs, ray):  # the rows are sorted below
                done(part)
        elif workers == 1:
            for job in jobs:
                done(work(job))
        else:
            with get_context(mp_context).Pool(workers, initializer=_ignore_interrupts) as pool:
                for part in pool.imap_unordered(work, jobs):  # the rows are sorted below
                    done(part)
    finally:
        if bar:
            bar.close()
    rows.sort(key=lambda r: (r.deal, r.rotation))
    out = summarise(rows, candidate, opponents, deals, time.perf_counter() - start, rules.name,
                    vf, variance_reduction)
    if book is not None:
        out["journal"] = {"path": str(book.path), "deals_already_there": len(have),
                          "deals_in_journal": len(book.deals() | {r.deal for r in rows})}
    out["rows"] = rows
    return out


def _check_replay(book: Journal, work: Any, candidate: str, opponents: list[str], seed: int,
                  rules: Any, backend: str, vf: str | None, variance_reduction: str) -> None:
    """Play the journal's first deal again and raise ValueError unless its games come out as
    written: the header names the specs and hashes their files, but not the code, nor a file
    read some other way, and a resumed run must not mix two evaluations."""
    first = min(book.deals())
    again = sorted(work((candidate, opponents, [first], seed, rules, backend, vf,
                         variance_reduction)), key=lambda r: r.rotation)
    written = [r for r in book.rows if r.deal == first]
    if again != written:
        raise ValueError(f"deal {first} of the journal {book.path}, played again, comes out "
                         f"differently ({written[0]} was written, {again[0]} now): this code "
                         f"or its files play the evaluation differently from the run that "
                         f"wrote it; start a new journal (or go back to that version)")


def league(agents: Sequence[str], *, deals: int = 200, seed: int = 0, rules="huaihua",
           workers: int | None = None, progress: bool = True, backend: str | None = None) -> dict:
    """Round robin: every agent against every other (as candidate vs two copies), with
    OpenSkill Plackett–Luce ratings from each game's finishing order."""
    from openskill.models import PlackettLuce

    if len(set(agents)) < 2:
        raise ValueError("a league needs at least two different agents")
    model = PlackettLuce()
    ratings = {a: model.rating(name=a) for a in agents}
    pairs = {}
    for a in agents:
        for b in agents:
            if a == b:
                continue
            res = evaluate(a, b, deals=deals, seed=seed, rules=rules, workers=workers,
                           progress=progress, backend=backend)
            pairs[f"{a} vs {b}"] = {k: v for k, v in res.items() if k != "rows"}
            for r in res["rows"]:
                seats = [a if s == r.rotation else b for s in range(3)]
                teams = [[ratings[x]] for x in seats]
                # Plackett–Luce ranks: lower is better; ties share a rank.
                ranks = [-p for p in r.scores]
                new = model.rate(teams, ranks=ranks)
                # an agent seated twice takes the mean of its two updates
                upd: dict[str, list] = {}
                for x, t in zip(seats, new):
                    upd.setdefault(x, []).append(t[0])
                for x, lst in upd.items():
                    mu = sum(p.mu for p in lst) / len(lst)
                    sigma = sum(p.sigma for p in lst) / len(lst)
                    ratings[x] = model.rating(mu=mu, sigma=sigma, name=x)
    table = [{"agent": a, "mu": r.mu, "sigma": r.sigma, "ordinal": r.ordinal()}
             for a, r in sorted(ratings.items(), key=lambda item: -item[1].ordinal())]
    return add_points({"ratings": table, "matches": pairs})


def add_points(res: dict) -> dict:
    """Add to each rating row of a league the agent's points per hand as candidate, averaged
    over its matches (each against two copies of one other agent, the same deals in each), with
    a 95% CI from the matches' independent CIs. OpenSkill rates the finishing order only (who
    won, not by how much); this is the score the game is played for."""
    for row in res["ratings"]:
        ms = [m for k, m in res["matches"].items() if k.startswith(f"{row['agent']} vs ")]
        if not ms:
            continue
        mean = sum(m["mean_points"] for m in ms) / len(ms)
        half = math.sqrt(sum(((m["ci95"][1] - m["ci95"][0]) / 2) ** 2 for m in ms)) / len(ms)
        row["mean_points"] = mean
        row["points_ci95"] = [mean - half, mean + half]
    return res


def ladder_markdown(res: dict) -> str:
    """A league's ratings and its pairwise table (candidate's mean points per hand against two
    copies of each opponent, 95% CI over deals) as Markdown, as shown in the README."""
    agents = [r["agent"] for r in res["ratings"]]
    lines = ["| agent | OpenSkill mu | sigma | ordinal (mu - 3 sigma) | points per hand vs the "
             "field [95% CI] |", "|---|---|---|---|---|"]
    for r in res["ratings"]:
        pts = (f"{r['mean_points']:+.2f} [{r['points_ci95'][0]:+.2f}, "
               f"{r['points_ci95'][1]:+.2f}]" if "mean_points" in r else "")
        lines.append(f"| `{r['agent']}` | {r['mu']:.2f} | {r['sigma']:.2f} | "
                     f"{r['ordinal']:.2f} | {pts} |")
    lines += ["", "| candidate \\ vs | " + " | ".join(f"`{a}`" for a in agents) + " |",
              "|---|" + "---|" * len(agents)]
    for a in agents:
        cells = []
        for b in agents:
            m = res["matches"].get(f"{a} vs {b}")
            cells.append("" if m is None else
                         f"{m['mean_points']:+.2f} [{m['ci95'][0]:+.2f}, {m['ci95'][1]:+.2f}]")
        lines.append(f"| `{a}` | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _fmt_ci(m: float, ci: Sequence[float]) -> str:
    return f"{m:+.3f} [{ci[0]:+.3f}, {ci[1]:+.3f}]"


def print_table(results: Sequence[dict]) -> None:
    """A rich table of evaluation summaries, one row a result: mean points per hand and win rate
    with their 95% CIs, the hu and 荒庄 rates, points as dealer and not, wall-clock seconds. The
    rules and the number of deals go in the title when every row shares them.

    In a terminal the table takes its width (a long candidate or opponent spec wraps); piped or
    redirected it is printed 200 columns wide (or ``$COLUMNS`` when wider). No line is ever cut:
    a table that cannot fit runs on rather than losing its last columns.
    """
    from rich.cells import cell_len
    from rich.console import Console
    from rich.table import Table

    shared = [k for k in ("rules", "deals") if len({r[k] for r in results}) == 1]
    title = "duplicate-deal evaluation"
    if shared:
        n = results[0]["deals"]
        title += ": " + ", ".join(results[0]["rules"] if k == "rules" else
                                  f"{n:,} deal{'s' if n != 1 else ''}" for k in shared)
    t = Table(title=f"{title} (points per hand, 95% CI over deals)")
    vr = any("variance_reduction" in r for r in results)
    cols = ["candidate", "vs", *(k for k in ("rules", "deals") if k not in shared),
            "mean points [95% CI]"]
    if vr:
        cols += ["AIVAT mean points [95% CI]", "CI ratio"]
    cols += ["win rate [95% CI]", "hu", "荒庄", "dealer / non-dealer", "seconds"]
    rows = []
    for r in results:
        v = r.get("variance_reduction")
        corrected = ([_fmt_ci(v["mean_points"], v["ci95"]), f"{v['ci_width_ratio']:.2f}"]
                     if v else ["", ""]) if vr else []
        rows.append([
            r["candidate"], "/".join(r["opponents"]),
            *(str(r[k]) for k in ("rules", "deals") if k not in shared),
            _fmt_ci(r["mean_points"], r["ci95"]), *corrected,
            f"{r['win_rate']:.3f} [{r['win_rate_ci95'][0]:.3f}, {r['win_rate_ci95'][1]:.3f}]",
            f"{r['hu_rate']:.3f}", f"{r['draw_rate']:.3f}",
            f"{r['dealer']['mean_points']:+.2f} / {r['non_dealer']['mean_points']:+.2f}",
            f"{r['wall_seconds']:.0f}",
        ])
    # The agent specs (a long path, say) wrap, down to FOLD columns; every other column keeps
    # its widest cell, so the table needs at least `needed` columns (with the cell padding and
    # the borders) and is never printed narrower.
    fold = {"candidate": 24, "vs": 12}
    needed = len(cols) + 1
    for i, col in enumerate(cols):
        widest = max(cell_len(x) for x in [col, *(row[i] for row in rows)])
        least = min(widest, fold.get(col, widest))
        t.add_column(col, overflow="fold", no_wrap=col not in fold, min_width=least)
        needed += 2 + least
    for row in rows:
        t.add_row(*row)
    console = Console()
    width = console.width if console.is_terminal else max(200, console.width)
    Console(width=max(width, needed)).print(t, crop=False)


def _same_file(a: str, b: str) -> bool:
    """Whether two paths name one file (also through links), for files that may not exist."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return Path(a).resolve() == Path(b).resolve()


def _sigterm_as_interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    """The ``paohuzi-eval`` command: a candidate against opponents on duplicate deals, or a league.

    Returns:
        The exit status: 2 for a bad spec, option or checkpoint, 130 when interrupted (Ctrl-C,
        or SIGTERM) with a journal (which keeps the finished deals), else 0.
    """
    p = argparse.ArgumentParser(prog="paohuzi-eval", description=plain_text(__doc__),
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("candidate", nargs="?", help="agent spec (random, greedy, expert, search[:OPTIONS], "
                        "zoo:NAME, network:PATH, checkpoint:PATH)")
    p.add_argument("--vs", nargs="+", default=["expert"],
                   help="opponent specs: one for both seats or two (default: expert)")
    p.add_argument("--league", nargs="+", metavar="AGENT", help="round robin with OpenSkill ratings")
    p.add_argument("--deals", type=int, default=1000,
                   help="duplicate deals, each played three times (default: %(default)s)")
    p.add_argument("--seed", type=int, default=0,
                   help="the deals' seed: the same seed deals the same hands (default: %(default)s)")
    p.add_argument("--rules", default="huaihua",
                   help=f"preset: {', '.join(preset_names())} (default: %(default)s)")
    p.add_argument("--workers", type=int, default=None, help="processes (default: all cores)")
    p.add_argument("--json", help="write the results to this JSON file")
    p.add_argument("--plot", metavar="PNG", help="with --league: a bar chart of the ratings")
    p.add_argument("--no-progress", action="store_true",
                   help="no progress bar (it is drawn on standard error)")
    p.add_argument("--backend", choices=BACKENDS, default=None,
                   help="engine: auto (default, or $PAOHUZI_BACKEND: the compiled core when built), "
                        "fast or python; the numbers do not depend on it")
    p.add_argument("--per-decision", action="store_true",
                   help="ask network agents one decision at a time (default: batched over hands)")
    p.add_argument("--save-records", nargs=2, metavar=("DIR", "N"),
                   help="save N of the games as hand records in DIR (paohuzi replay FILE --html OUT)")
    p.add_argument("--save-which", choices=SAVE_WHICH, default="first",
                   help="which games --save-records saves: the first, or the candidate's worst or best")
    p.add_argument("--variance-reduction", choices=aivat.METHODS, default="none",
                   help="also report the mean corrected by control variates over the wall's "
                        "draws (unbiased, a narrower CI: docs/aivat.md): aivat values each draw "
                        "by the network; aivat-lookahead plays each draw on to the next one "
                        "first, aivat-lookahead2 and 3 two and three draws on (each removes "
                        "more variance and costs about ten times more a deal)")
    p.add_argument("--value-function", metavar="PATH",
                   help="with a --variance-reduction: the value function "
                        "(.safetensors; default: the packaged one of the rules)")
    p.add_argument("--journal", metavar="FILE",
                   help="append the games of every finished batch of deals (at most 25 with a lookahead) to "
                        "FILE (JSON lines) and play only the deals it lacks: a killed or "
                        "interrupted run resumes where it stopped, with the same numbers; a "
                        "larger --deals extends it")
    p.add_argument("--trust-checkpoint", action="store_true",
                   help="load checkpoint:PATH files even if they need arbitrary pickled objects "
                        "(can run code: only for files you made)")
    a = p.parse_args(argv)
    if a.trust_checkpoint:
        from ..nets.checkpoint import trust_checkpoints

        trust_checkpoints()  # this process and its workers
    if a.save_records and a.league:
        p.error("--save-records saves games of one candidate; it does not go with --league")
    if a.league and a.variance_reduction != "none":
        p.error("--variance-reduction corrects one candidate's evaluation; not with --league")
    if a.value_function and a.variance_reduction == "none":
        p.error("--value-function is read by a --variance-reduction other than none only")
    if a.journal and a.league:
        p.error("--journal keeps the games of one candidate's evaluation; not with --league")
    if a.journal:  # `kill` ends the run as Ctrl-C does: the message, the journal closed
        signal.signal(signal.SIGTERM, _sigterm_as_interrupt)
    if a.plot and not a.league:
        p.error("--plot draws a league's ratings: use it with --league")
    try:
        rules = get_rules(a.rules)
        if a.league:
            res = league(a.league, deals=a.deals, seed=a.seed, rules=rules, workers=a.workers,
                         progress=not a.no_progress, backend=a.backend)
            print_table(list(res["matches"].values()))
            print(ladder_markdown(res))
            if a.plot:
                from .plot import plot_ladder

                plot_ladder(res, a.plot, f"strength ladder ({rules.name}, {a.deals} deals a pair,"
                                         f" seed {a.seed})")
                print(f"wrote {a.plot}", file=sys.stderr)
            out = res
        else:
            if not a.candidate:
                p.error("give a candidate agent spec, or --league")
            if len(a.vs) > 2:
                p.error(f"--vs takes one opponent spec (both seats) or two, got {len(a.vs)}")
            if a.journal and a.json and _same_file(a.journal, a.json):
                p.error("--journal and --json name the same file: the results would overwrite "
                        "the journal")
            opp = a.vs if len(a.vs) == 2 else [a.vs[0], a.vs[0]]
            n_save = 0
            if a.save_records:
                try:
                    n_save = int(a.save_records[1])
                except ValueError:
                    raise ValueError(f"--save-records DIR N: N must be a whole number, got "
                                     f"{a.save_records[1]!r}") from None
                if n_save < 1:
                    raise ValueError(f"--save-records DIR N: N must be at least 1, got {n_save}")
            res = evaluate(a.candidate, opp, deals=a.deals, seed=a.seed, rules=rules,
                           workers=a.workers, progress=not a.no_progress, backend=a.backend,
                           batched=not a.per_decision,
                           variance_reduction=a.variance_reduction,
                           value_function=a.value_function, journal=a.journal)
            rows = res.pop("rows")
            if a.save_records:
                paths = save_records(rows, a.candidate, opp, a.save_records[0], n_save,
                                     which=a.save_which, seed=a.seed, rules=rules,
                                     backend=a.backend)
                print(f"saved {len(paths)} records in {a.save_records[0]} "
                      f"(paohuzi replay FILE --html OUT)", file=sys.stderr)
            print_table([res])
            out = res
    except ValueError as e:
        print(f"paohuzi-eval: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        if not a.journal or not Path(a.journal).is_file():
            raise
        print(f"paohuzi-eval: interrupted; the finished deals are in {a.journal}: run the same "
              f"command again to play the rest", file=sys.stderr)
        return 130
    if a.json:
        with open(a.json, "w", encoding="utf-8") as f:
            json.dump(out, f, ensure_ascii=False, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
