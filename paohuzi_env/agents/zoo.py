"""The zoo: trained networks shipped with paohuzi_env, by a short name, each with a card.

An entry is a folder ``paohuzi_env/zoo/PRESET/ENTRY/`` holding

* ``network.safetensors`` — the play-only policy (the actor), read with numpy alone and played by
  the compiled core (:class:`~paohuzi_env.agents.network.NetworkAgent`: no torch);
* ``network.json`` — its sidecar (rules, observation version, network shape, SHA-256);
* ``card.json`` — its card (format :data:`CARD_FORMAT`): preset and observation version,
  architecture and parameter count, the config and commit that made it and its training compute,
  its strength against ``expert`` and against the default ``search`` (mean, 95% CI, deals, seed
  and the results file each figure comes from), exploitation where measured, decision time, and
  the SHA-256 of the weights.

Names: ``PRESET/ENTRY`` names an entry; ``PRESET`` alone names the preset's strongest pure
network (the entry whose card says ``"default": true``). The agent spec ``zoo:NAME`` plays it
(``make_agent("zoo:huaihua")``, ``paohuzi-eval zoo:huaihua --vs expert``), and the default
``search`` under a preset is guided by that preset's default entry
(:func:`paohuzi_env.agents.network.packaged_guide`).

Python API: :func:`entries` (a summary row per entry), :func:`card` (one card),
:func:`network_path` (the weights file), :func:`load` (the agent), :func:`names`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..bots.base import Agent
from ..game.rules import Rules, as_rules
from .zoo_index import (
    CARD,
    CARD_FORMAT,
    PREFIX,
    WEIGHTS,
    ZOO_DIR,
    Entry,
    _all,
    default_entry,
    entry,
    names,
)

__all__ = ["CARD", "CARD_FORMAT", "PREFIX", "WEIGHTS", "ZOO_DIR", "Entry", "card", "card_markdown",
           "default_entry", "entries", "entry", "listing", "load", "make", "names", "network_path",
           "page", "readme_table", "resolve", "table"]


def card(name: str) -> dict[str, Any]:
    """The card of ``name`` (a copy: editing it changes nothing).

    Raises:
        ValueError: for an unknown name, listing the known ones.
    """
    return json.loads(json.dumps(entry(name).card))


def network_path(name: str) -> Path:
    """The ``network.safetensors`` of ``name`` (with its ``network.json`` beside it).

    Raises:
        ValueError: for an unknown name, listing the known ones.
    """
    return entry(name).weights


def _figure(data: dict[str, Any], against: str, who: str = "network") -> dict[str, Any] | None:
    for f in data.get("strength", []):
        if f.get("against") == against and f.get("candidate", "network") == who:
            return dict(f)
    return None


def entries() -> list[dict[str, Any]]:
    """A summary row per entry: ``name``, ``spec``, ``preset``, ``default``, ``what``,
    ``vs_expert`` (the network's headline figure against two ``expert``: the card's first such
    figure, with ``mean``, ``ci95``, ``deals``, ``seed`` and its ``results`` file),
    ``search_vs_expert`` (likewise for the default ``search`` guided by it; None where not
    measured) and ``decision_ms``."""
    rows = []
    for e in _all():
        c = e.card
        rows.append({"name": e.name, "spec": e.spec, "preset": e.preset, "default": e.default,
                     "what": c.get("what", ""), "vs_expert": _figure(c, "expert"),
                     "search_vs_expert": _figure(c, "expert", "guided search"),
                     "decision_ms": (c.get("decision_time") or {}).get("ms")})
    return rows


def load(name: str, seed: Any = None) -> Agent:
    """The agent of zoo entry ``name``, for its own preset's rules (``make_agent("zoo:NAME",
    rules=PRESET)``): the network's masked argmax through the compiled core, no torch.

    Raises:
        ValueError: for an unknown name (listing the known ones) or an unreadable network.
        RuntimeError: when the compiled core is not available.
    """
    return make(name, seed, entry(name).preset)


def make(name: str, seed: Any = None, rules: str | Rules = "huaihua") -> Agent:
    """``make_agent("zoo:NAME", seed, rules)``: the entry's network played for ``rules``, which
    must be its preset's.

    Raises:
        ValueError: for an unknown name (listing the known ones), or rules other than the
            entry's preset.
        RuntimeError: when the compiled core is not available.
    """
    from .network import NetworkAgent

    e = entry(name)
    rules = as_rules(rules)
    if rules != as_rules(e.preset):
        raise ValueError(f"zoo:{name} plays the {e.preset!r} rules, not {rules.name!r}"
                         f"{' with overrides' if rules.name == e.preset else ''}: pass "
                         f"rules={e.preset!r} (--rules {e.preset} on the command line)")
    return NetworkAgent(e.weights, seed, rules)


def resolve(value: str) -> Path | None:
    """The weights file of ``zoo:NAME`` (None for a value without the ``zoo:`` prefix).

    Raises:
        ValueError: for an unknown name, listing the known ones.
    """
    prefix, sep, name = value.partition(":")
    if prefix != PREFIX or not sep:
        return None
    return network_path(name)


def _fmt_ci(f: dict[str, Any] | None, deals: bool = True) -> str:
    """``+0.534 [+0.466, +0.603]; 20,000 deals``, or ``not measured``."""
    if not f:
        return "not measured"
    lo, hi = f["ci95"]
    text = f"{f['mean']:+.3f} [{lo:+.3f}, {hi:+.3f}]"
    return f"{text}; {f['deals']:,} deals" if deals else text


def _ms(ms: Any) -> str:
    return "not measured" if ms is None else f"{ms:.2f} ms"


def table(rows: list[dict[str, Any]] | None = None) -> str:
    """The entries as a Markdown table (``paohuzi zoo --markdown``; docs/zoo.md)."""
    rows = entries() if rows is None else rows
    out = ["| spec | preset | what | vs two `expert`: mean points [95% CI] | "
           "default `search` guided by it, vs two `expert` | decision |",
           "|---|---|---|---|---|---|"]
    for r in rows:
        out.append(f"| `{r['spec']}` | {r['preset']} | {r['what']} | {_fmt_ci(r['vs_expert'])} | "
                   f"{_fmt_ci(r['search_vs_expert'])} | {_ms(r['decision_ms'])} |")
    return "\n".join(out) + "\n"


WHAT_WIDTH = 60
"""How much of an entry's ``what`` the listing shows (the card has all of it)."""


def _short(text: str, width: int = WHAT_WIDTH) -> str:
    return text if len(text) <= width else text[:width - 1].rstrip(" ,:;") + "…"


def listing() -> str:
    """The entries as aligned text (``paohuzi zoo``): spec, preset, the network against two
    ``expert`` with its CI, decision time, and the start of what it is (:data:`WHAT_WIDTH`
    characters: about 150 columns in all; ``paohuzi zoo NAME`` prints the whole card)."""
    head = ("spec", "preset", "vs two expert: mean points [95% CI]; deals", "decision", "what")
    rows = [head] + [(r["spec"], r["preset"], _fmt_ci(r["vs_expert"]), _ms(r["decision_ms"]),
                      _short(r["what"])) for r in entries()]
    widths = [max(len(row[i]) for row in rows) for i in range(len(head))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in rows]
    lines.append("paohuzi zoo NAME: one card; the agent spec is zoo:NAME (docs/zoo.md)")
    return "\n".join(lines) + "\n"


WHO = {"network": "this network", "guided search": "the default `search` guided by it",
       "unguided search": "`search:guide=none` (unguided)"}
"""How a card's strength table names each candidate."""


def _strength_rows(c: dict[str, Any]) -> list[str]:
    rows = ["| candidate | against two | deals | seed | mean points [95% CI] | results |",
            "|---|---|---|---|---|---|"]
    for f in c.get("strength", []):
        who = WHO.get(f["candidate"], f["candidate"])
        against = "the default `search`" if f["against"] == "search" else f"`{f['against']}`"
        rows.append(f"| {who} | {against} | {f['deals']:,} | {f['seed']} | "
                    f"{_fmt_ci(f, deals=False)} | `{f['results']}` |")
    return rows


def _exploitation_line(c: dict[str, Any]) -> str:
    """The card's exploitation: the measured gain of a best response, or why there is none."""
    ex = c.get("exploitation")
    if not ex:
        return f"- **Exploitation** {c.get('exploitation_note', 'not measured')}."
    return (f"- **Exploitation** a {ex['exploiter']} trained for {ex['steps']:,} steps against two "
            f"copies of it gains **{_fmt_ci(ex, deals=False)}** a hand over `expert` against the "
            f"same two copies, paired over {ex['deals']:,} deals of seed {ex['seed']} (the "
            f"exploiter scores {ex['exploiter_mean']:+.3f} a hand against them). {ex['note']} "
            f"(`{ex['command']}`; `{ex['results']}`).")


def card_markdown(name: str) -> str:
    """The card of ``name`` as a Markdown section (``paohuzi zoo NAME --markdown``; docs/zoo.md).

    Raises:
        ValueError: for an unknown name, listing the known ones.
    """
    e = entry(name)
    c = e.card
    a, w, m, comp = c["architecture"], c["weights"], c["made_by"], c["compute"]
    named = (f"; `zoo:{e.preset}` names it, the preset's strongest pure network" if e.default
             else "")
    waits = f", wait features `{c['waits_version']}`" if a.get("wait_features") else ""
    stages = "; ".join(f"{s['stage']}: {s['wall_minutes']} min on {s['cores']} cores"
                       for s in comp["stages"]) or "no stage of its own"
    lines = [f"## `{e.spec}`", "",
             f"{c['what']}. Entry `{e.name}`{named}.", "",
             f"- **Preset** `{e.preset}`; observation `{c['observation_version']}`{waits}.",
             f"- **Architecture** `{a['actor']}`: {a['description']}; {a['inputs']} inputs, "
             f"{a['outputs']} outputs; **{c['parameters']:,} parameters**.",
             f"- **Weights** `{w['file']}` ({w['dtype']}, {w['bytes']:,} bytes), SHA-256 "
             f"`{w['sha256']}`.",
             f"- **Made by** `{m['command']}` at commit `{m['commit']}`, starting from "
             f"{m['started_from']}. {m['how'][:1].upper() + m['how'][1:]}.".replace("..", "."),
             *([f"- **Full export** `{m['full_export']}`: {m['full_export_note']}."]
               if "full_export" in m else []),
             f"- **Training compute** about {comp['cpu_hours']} CPU-hours on {comp['machine']} "
             f"({stages})." + (f" {comp['note']}." if comp.get("note") else ""),
             _exploitation_line(c)]
    dt = c.get("decision_time")
    if dt:
        lines.append(f"- **Decision time** {dt['ms']:.3f} ms (p99 {dt['p99_ms']:.3f} ms); the "
                     f"default `search` it guides {dt['guided_search_ms']:.2f} ms. {dt['how']} "
                     f"(`{dt['command']}`; `{dt['results']}`).")
    else:
        lines.append("- **Decision time** not measured.")
    lines += ["", "Strength, each figure measured once on a seed fixed before its run:", "",
              *_strength_rows(c), ""]
    return "\n".join(lines)


PAGE_HEAD = """# The zoo

Trained networks shipped with paohuzi_env, each by a short name and with a card. `zoo:PRESET`
names the preset's strongest pure network, `zoo:PRESET/ENTRY` any entry. A spec works wherever an
agent spec is taken (`make_agent("zoo:huaihua")`, `paohuzi-eval zoo:huaihua --vs expert`,
`paohuzi play --opponents zoo:huaihua expert`, `paohuzi serve`, `paohuzi review --agent`,
`paohuzi-exploit`, the environment's opponents); the network plays through the compiled core,
without torch. A network plays only its own preset's rules: pass `--rules yongzhou` (or
`rules="yongzhou"`) for `zoo:yongzhou`. The default `search` under a preset is guided by that
preset's zoo network.

```bash
paohuzi zoo                    # this table
paohuzi zoo huaihua            # one card
paohuzi zoo --json             # every entry with its card, as JSON
```

```python
from paohuzi_env.agents import zoo

zoo.entries()                  # a summary row per entry
zoo.card("huaihua")            # the card (a dict)
agent = zoo.load("huaihua")    # the agent, for its preset's rules
```

Each card is `paohuzi_env/zoo/PRESET/ENTRY/card.json`, beside the weights
(`network.safetensors`) and their sidecar (`network.json`). `tests/test_zoo.py` checks every
card's SHA-256 against its file and every figure against the results file it names. This page
is generated from the cards (`paohuzi zoo --markdown`); the same test compares it.

"""


def page() -> str:
    """docs/zoo.md: the table of every entry, then each card (``paohuzi zoo --markdown``)."""
    return PAGE_HEAD + table() + "\n" + "\n".join(card_markdown(e.name) for e in _all())


def readme_table() -> str:
    """The README's zoo table: one row per preset with a default entry, its network and the
    default ``search`` guided by it, each against two ``expert``."""
    out = ["| preset | network | vs two `expert` | `search` guided by it, vs two `expert` |",
           "|---|---|---|---|"]
    for r in entries():
        if r["default"]:
            out.append(f"| {r['preset']} | `{r['spec']}` | {_fmt_ci(r['vs_expert'])} | "
                       f"{_fmt_ci(r['search_vs_expert'])} |")
    return "\n".join(out) + "\n"
