"""Memory over long runs: ``python -m paohuzi_env.dev.bench soak``.

Two soaks in one process, each reporting the process's resident memory (VmRSS) after a
warm-up and at intervals to the end:

* ``vector``: ``--decisions`` (default 20,000,000) decisions of a :class:`fast.VectorGame` of
  ``--hands`` hands, through the training loop's calls — ``observe`` into preallocated arrays,
  ``policy_actions`` (random play, every ``--expert-every``-th step the compiled expert, so the
  evaluator's and the bots' memo tables fill too), ``step``;
* ``search``: ``--search-decisions`` (default 10,000) decisions of ``make_agent("search", ...)``
  playing seat 0 of successive hands of a :class:`fast.Game` against two compiled experts
  (0 skips it; the search costs tens of ms a decision: give it a reduced count where the
  full one does not fit, and report what ran).

The warm-up is the first ``--warmup`` fraction of each run (default 0.1). The verdict per soak:
growth = RSS at the end / RSS after the warm-up - 1, which must stay under ``--max-growth``
(default 5%); the exit status is 1 if a soak fails it. The compiled core's memo tables are
bounded by design (scoring.cpp: the decomposition memos are emptied past 2**16 / 2**12 entries,
the whole-answer memo keeps two generations of 2**14; bots.cpp: the win-score memo is emptied
past 2**14 entries per thread, the structure memo holds one decision's answers). The caps are
small enough that the tables fill within the warm-up, so the line after it is flat.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from typing import Any

import numpy as np


def rss_kib() -> int:
    """This process's resident memory in KiB (VmRSS; the peak, ru_maxrss, where /proc is absent)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)


def _samples_at(total: int, warmup: float, points: int = 10) -> list[int]:
    """Decision counts at which to sample RSS: the end of the warm-up, then evenly to the end."""
    start = max(1, int(total * warmup))
    return sorted({start, *(start + (total - start) * k // points for k in range(1, points + 1))})


def soak_vector(decisions: int, hands: int = 256, rules: str = "huaihua", seed: int = 0,
                expert_every: int = 16, warmup: float = 0.1, log: Any = None) -> dict[str, Any]:
    """Play ``decisions`` VectorGame decisions; returns RSS samples and rates (see the module doc)."""
    from ..backends import fast

    if not fast.available():
        raise RuntimeError(f"the compiled core is not built: {fast.unavailable_reason()}")
    vg = fast.VectorGame(hands, rules, seed=seed)
    obs, mask, seat, dec = vg.observe()
    actions = np.empty(hands, np.int64)
    rewards = np.empty((hands, 3), np.float32)
    done = np.empty(hands, np.bool_)
    marks = _samples_at(decisions, warmup)
    samples: list[tuple[int, int]] = []
    played = steps = 0
    t0 = time.perf_counter()
    while played < decisions:
        vg.observe(obs, mask, seat, dec)
        vg.policy_actions("expert" if expert_every and steps % expert_every == 0 else "random",
                          out=actions)
        vg.step(actions, rewards, done)
        steps += 1
        played += hands
        while marks and played >= marks[0]:
            marks.pop(0)
            samples.append((played, rss_kib()))
            if log:
                print(f"  vector: {played:,} decisions, RSS {samples[-1][1] / 1024:.1f} MiB, "
                      f"{played / (time.perf_counter() - t0):,.0f} decisions/s", file=log, flush=True)
    seconds = time.perf_counter() - t0
    return _verdict("vector", samples, seconds, played, hands=hands, rules=rules,
                    expert_every=expert_every, hands_finished=vg.hands_finished)


def soak_search(decisions: int, rules: str = "huaihua", seed: int = 0, spec: str = "search",
                warmup: float = 0.1, log: Any = None) -> dict[str, Any]:
    """``decisions`` decisions of the search agent (seat 0) against two compiled experts."""
    from ..agents import decide, make_agent
    from ..backends import fast

    if not fast.available():
        raise RuntimeError(f"the compiled core is not built: {fast.unavailable_reason()}")
    ss = np.random.SeedSequence(seed)
    agent = make_agent(spec, seed=ss.spawn(1)[0], rules=rules)
    marks = _samples_at(decisions, warmup)
    samples: list[tuple[int, int]] = []
    played = hands = 0
    t0 = time.perf_counter()
    while played < decisions:
        g = fast.Game(rules, seed=ss.spawn(1)[0])
        hands += 1
        while not g.done and played < decisions:
            if g.current_player == 0:
                g.step(decide(agent, g, 0))
                played += 1
                while marks and played >= marks[0]:
                    marks.pop(0)
                    samples.append((played, rss_kib()))
                    if log:
                        print(f"  search: {played:,} decisions, RSS {samples[-1][1] / 1024:.1f} MiB, "
                              f"{1000 * (time.perf_counter() - t0) / played:.1f} ms/decision",
                              file=log, flush=True)
            else:
                g.step(g.expert_action())
    seconds = time.perf_counter() - t0
    return _verdict("search", samples, seconds, played, rules=rules, spec=spec, hands=hands)


def _verdict(name: str, samples: list[tuple[int, int]], seconds: float, played: int,
             **extra: Any) -> dict[str, Any]:
    warm, end = samples[0][1], samples[-1][1]
    return {"soak": name, "decisions": played, "seconds": round(seconds, 1),
            "decisions_per_s": round(played / seconds, 1), "rss_kib_warm": warm,
            "rss_kib_end": end, "rss_kib_max": max(r for _, r in samples),
            "growth": end / warm - 1, "samples": samples, **extra}


def main(argv: list[str] | None = None) -> int:
    """The command line: run the chosen soaks and print each one's RSS growth.

    Returns:
        The exit status: 1 when a soak's RSS grew by ``--max-growth`` or more after the warm-up, else 0.
    """
    p = argparse.ArgumentParser(prog="python -m paohuzi_env.dev.bench soak", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--decisions", type=int, default=20_000_000,
                   help="VectorGame decisions (0 skips; default 20,000,000)")
    p.add_argument("--hands", type=int, default=256, help="VectorGame hands (default 256)")
    p.add_argument("--expert-every", type=int, default=16,
                   help="every N-th VectorGame step uses the compiled expert (0: never; default 16)")
    p.add_argument("--search-decisions", type=int, default=10_000,
                   help="search agent decisions (0 skips; default 10,000)")
    p.add_argument("--search-spec", default="search", help="the search agent's spec (default search)")
    p.add_argument("--rules", default="huaihua")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--warmup", type=float, default=0.1,
                   help="fraction of each run before the reference RSS sample (default 0.1)")
    p.add_argument("--max-growth", type=float, default=0.05,
                   help="largest allowed RSS growth after the warm-up (default 0.05)")
    p.add_argument("--memo-caps", metavar="SOLVE,WILD,WIN", default=None,
                   help="the evaluator's memo caps in entries (default: the built-in 2**16,2**12,2**14); "
                        "small caps fill within the warm-up, so the run shows the cap-and-refill cycle")
    p.add_argument("--json", metavar="PATH", help="also write the figures here")
    a = p.parse_args(argv)
    if a.memo_caps is not None:
        try:
            caps = [int(x) for x in a.memo_caps.split(",")]
            if len(caps) != 3 or min(caps) < 1:
                raise ValueError
        except ValueError:
            p.error(f"--memo-caps takes three positive ints SOLVE,WILD,WIN, got {a.memo_caps!r}")
        from .. import _fast

        _fast._set_memo_caps(*caps)
    for flag, v in (("--decisions", a.decisions), ("--search-decisions", a.search_decisions)):
        if v < 0:
            p.error(f"{flag} must be >= 0, got {v}")
    if a.hands < 1:
        p.error(f"--hands must be >= 1, got {a.hands}")
    if not 0 <= a.warmup < 1:
        p.error(f"--warmup must be in [0, 1), got {a.warmup}")
    if a.decisions == 0 and a.search_decisions == 0:
        p.error("nothing to run: --decisions and --search-decisions are both 0")
    try:
        return _run(a)
    finally:
        if a.memo_caps is not None:  # back to the built-in caps (the process may go on)
            from .. import _fast

            _fast._set_memo_caps()


def _run(a: argparse.Namespace) -> int:
    results = []
    print(f"soak: RSS at start {rss_kib() / 1024:.1f} MiB; memo caps "
          f"{a.memo_caps or 'built-in (2**16, 2**12, 2**14)'}", flush=True)
    if a.decisions:
        results.append(soak_vector(a.decisions, a.hands, a.rules, a.seed, a.expert_every, a.warmup,
                                   log=sys.stdout))
    if a.search_decisions:
        results.append(soak_search(a.search_decisions, a.rules, a.seed, a.search_spec, a.warmup,
                                   log=sys.stdout))
    failed = False
    for r in results:
        ok = r["growth"] < a.max_growth
        failed |= not ok
        print(f"{r['soak']}: {r['decisions']:,} decisions in {r['seconds']:.0f} s "
              f"({r['decisions_per_s']:,.1f}/s); RSS {r['rss_kib_warm'] / 1024:.1f} MiB after the "
              f"warm-up -> {r['rss_kib_end'] / 1024:.1f} MiB at the end (max "
              f"{r['rss_kib_max'] / 1024:.1f}): {100 * r['growth']:+.2f}% "
              f"({'ok' if ok else 'FAIL'}: limit {100 * a.max_growth:g}%)")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(results, f, indent=1)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
