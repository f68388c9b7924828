"""Where the search leaves its rollout bot, and where a network leaves both:
``python -m paohuzi_training.tools.departures LABELS [--network PATH] [--shards N]``.

A diagnostic for distillation (docs/distill.md, "Where the limit is"). It replays the hands of a
label run (:mod:`paohuzi_training.stages.label`; hand ``h`` is dealt from ``SeedSequence([seed, h])`` and its
labelled decisions hold every choice of the search seats, so the hand is rebuilt exactly) and,
at every labelled decision, asks the compiled ``expert`` what it would play there. It reports,
by decision kind and by whether the seat is the dealer:

* the search's **departures**: labels whose action is not ``expert``'s, and the search's own
  estimate of their gain (the mean outcome of its action minus that of ``expert``'s, in points;
  biased upwards, since a departure is chosen where that estimate is high);
* with ``--network PATH`` (a play-only ``.safetensors`` policy, :mod:`paohuzi_env.agents.network`):
  how often the network plays ``expert``'s move and the label, how many departures it takes, and,
  at discards where it leaves ``expert``, the **regret** in ``expert``'s own valuation (its best
  value minus the value of the network's discard; 0 is a tie between equally good discards, tens
  of points a broken wait).

The expert valuations come from the readable reference (:class:`ExpertAgent`), and its choice is
checked against the compiled bot's at every such position. Label runs whose other seats play a
non-compiled agent cannot be replayed this way and are refused.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from paohuzi_env.bots.heuristic import ExpertAgent

from ..stages.label import DECISIONS, META, check_replayable, iter_shards, replay, run_rules

QUANTILES = (0.1, 0.25, 0.5, 0.75, 0.9)


class _ValuedExpert(ExpertAgent):
    """ExpertAgent that keeps the value of every discard option it weighed (``values``)."""

    values: dict[int, float]

    def _scored_discards(self, view, hand, live, w, legal, melds=None):
        scored = super()._scored_discards(view, hand, live, w, legal, melds)
        self.values = {a: v for v, a, _ in scored}
        return scored


def analyse(labels: str | Path, network: str | Path | None = None, shards: int | None = None
            ) -> dict[str, Any]:
    """The figures of the module docstring, as a dict (``rows`` by kind and dealer)."""
    from paohuzi_env import fast

    meta = json.loads((Path(labels) / META).read_text())
    check_replayable(meta, str(labels))
    rules = run_rules(meta)
    net = None
    if network is not None:
        from paohuzi_env.agents.network import load_network

        net = load_network(network, rules)
    core = fast._require()
    expert = _ValuedExpert(rules=rules)
    count: Counter = Counter()
    gains: dict[tuple[str, str], list[float]] = defaultdict(list)
    regrets: list[float] = []
    hands = 0
    for k, (_, sh) in enumerate(iter_shards(labels)):
        if shards is not None and k >= shards:
            break
        hands += len(np.unique(sh["hand"]))
        for r, game in replay(meta, sh):
            seat = game.current_player
            legal = game.legal_actions()
            a, e = int(sh["action"][r]), int(game.expert_action())
            key = (DECISIONS[int(sh["decision"][r])],
                   "dealer" if seat == game.dealer else "other")
            count[key + ("decisions",)] += 1
            if a != e:
                count[key + ("departures",)] += 1
                m = sh["mean"][r]
                if np.isfinite(m[a]) and np.isfinite(m[e]):
                    gains[key].append(float(m[a] - m[e]))
            if net is not None:
                x = sh["obs"][r]
                if net.waits:
                    x = np.concatenate([x, game.wait_features(seat)])
                logits = core.net_policy_logits(net.core, x)
                ordered = sorted(legal)
                n = int(ordered[int(np.argmax(logits[ordered]))])
                count[key + ("net_expert",)] += n == e
                count[key + ("net_label",)] += n == a
                count[key + ("net_departures",)] += a != e and n == a
                if key[0] == "discard" and n != e:
                    if expert.act(game.view(seat)) != e:
                        raise AssertionError("the reference expert and the compiled one "
                                             f"differ at hand {sh['hand'][r]} step {sh['step'][r]}")
                    regrets.append(expert.values[e] - expert.values[n])
    out_rows = []
    for kind in DECISIONS:
        for who in ("dealer", "other"):
            n = count[(kind, who, "decisions")]
            if not n:
                continue
            g = gains[(kind, who)]
            row = {"decision": kind, "seat": who, "decisions": n,
                   "departures": count[(kind, who, "departures")],
                   "mean_gain": float(np.mean(g)) if g else None}
            if net is not None:
                row.update(net_expert=count[(kind, who, "net_expert")] / n,
                           net_label=count[(kind, who, "net_label")] / n,
                           net_departures=count[(kind, who, "net_departures")])
            out_rows.append(row)
    res: dict[str, Any] = {"labels": str(labels), "hands": hands, "rows": out_rows}
    if net is not None:
        reg = np.asarray(regrets)
        res["discard_regret"] = {
            "disagreements": int(reg.size),
            "quantiles": dict(zip(map(str, QUANTILES),
                                  (np.quantile(reg, QUANTILES).tolist() if reg.size else []))),
            "ties": float((reg < 1e-6).mean()) if reg.size else None,
            "below_1": float((reg < 1).mean()) if reg.size else None,
            "above_10": float((reg > 10).mean()) if reg.size else None,
        }
    return res


def main(argv: list[str] | None = None) -> int:
    """The command line: print where a label run departs from ``expert`` (and a network, if given).

    Returns:
        The exit status: 2 when the labels or the network cannot be read, else 0.
    """
    p = argparse.ArgumentParser(prog="python -m paohuzi_training.tools.departures", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("labels", help="a label run's directory (python -m paohuzi_training.stages.label)")
    p.add_argument("--network", help="a play-only .safetensors policy to compare as well")
    p.add_argument("--shards", type=int, help="only the first N shards")
    p.add_argument("--json", help="also write the figures here")
    a = p.parse_args(argv)
    if a.shards is not None and a.shards < 1:
        p.error("--shards must be >= 1")
    try:
        res = analyse(a.labels, a.network, a.shards)
    except (OSError, ValueError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    print(f"{res['hands']} hands of {res['labels']}")
    for r in res["rows"]:
        line = (f"{r['decision']:8s} {r['seat']:6s} {r['decisions']:7d} decisions, "
                f"{r['departures']:5d} departures ({100 * r['departures'] / r['decisions']:.2f}%)")
        if r["mean_gain"] is not None:
            line += f", search's estimate of their gain {r['mean_gain']:+.2f}"
        if "net_expert" in r:
            line += (f" | network = expert {r['net_expert']:.3f}, = label {r['net_label']:.3f}, "
                     f"takes {r['net_departures']}/{r['departures']} departures")
        print(line)
    if "discard_regret" in res:
        d = res["discard_regret"]
        q = ", ".join(f"{k}: {v:.2f}" for k, v in d["quantiles"].items())
        print(f"network's discards that leave expert's: {d['disagreements']}; regret in expert's "
              f"valuation, quantiles {q}; ties {d['ties']:.3f}, < 1 {d['below_1']:.3f}, "
              f"> 10 {d['above_10']:.3f}" if d["disagreements"] else
              "the network never leaves expert's discard")
    if a.json:
        Path(a.json).write_text(json.dumps(res, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
