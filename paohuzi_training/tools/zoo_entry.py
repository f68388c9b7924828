"""Make a zoo entry from a finished recipe run: ``python -m paohuzi_training.tools.zoo_entry``.

``python -m paohuzi_training.tools.zoo_entry RUN --recipe RECIPE --entry NAME --what TEXT
[--half] [--default] [--results FILE] [--timing FILE] [--commit SHA]``

``RUN`` is a recipe's run folder (``recipes/<name>__<seed>``). Its exported network
(``export/<name>.safetensors``) becomes ``paohuzi_env/zoo/<rules>/<NAME>/``:

* ``network.safetensors`` and ``network.json`` — the actor only (``--half``: stored as float16,
  half the size, read back as float32; :func:`paohuzi_training.nets.checkpoint.transfer_policy`);
* ``card.json`` — the card (:mod:`paohuzi_env.agents.zoo`): the architecture and parameter count
  read from the tensors, the recipe and commit that made it, the compute of each stage from the
  run's ``stage.json`` records, and, once measured, the strength and decision time.

Strength figures are read from ``--results FILE``, a JSON object with ``commands`` (the
``paohuzi-eval`` command lines, one per figure) and, under ``network_vs_expert``,
``search_vs_expert``, ``unguided_search_vs_expert`` and ``network_vs_search``, the JSON each
printed. Figures are measured on the entry's own file (the half copy with ``--half``), so a card
is made in two passes: first without ``--results`` (the entry plays as ``zoo:NAME``), then with
them. Decision times come from ``--timing`` (``docs/results/zoo-decision-time.json``), rows under
the entry's preset: the network's, then the default search's.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from paohuzi_env.agents.network import read_safetensors, read_sidecar
from paohuzi_env.agents.zoo_index import CARD, CARD_FORMAT, WEIGHTS, ZOO_DIR
from paohuzi_env.agents.zoo_index import entry as zoo_entry
from paohuzi_env.encode.observation import obs_version
from paohuzi_env.game.rules import get_rules

from ..nets.checkpoint import transfer_policy

FIGURES = {  # key in the results file: (candidate, against, note)
    "network_vs_expert": ("network", "expert", None),
    "network_vs_search": ("network", "search", "the default search guided by this network"),
    "search_vs_expert": ("guided search", "expert", "the default search, guided by this network"),
    "unguided_search_vs_expert": ("unguided search", "expert",
                                  "search:guide=none, on the same deals as the guided search"),
}
"""The figures a card can carry, in the order it lists them."""
WIDTH = {"conv": "three width-3 convolutions ({c} channels) over the observation's per-kind rows, "
                 "then a {h}-wide two-layer head; 61 logits, played by their masked argmax",
         "mlp": "a {h}-wide two-layer perceptron over the observation; 61 logits, played by their "
                "masked argmax"}


def _stages(run: Path) -> list[dict[str, Any]]:
    """The compute of each stage of the run from its records: wall minutes and cores."""
    out = []
    for rec_path in sorted(run.glob("*/stage.json")):
        rec = json.loads(rec_path.read_text(encoding="utf-8"))
        settings = rec.get("settings") or {}
        what = rec["stage"]
        if what == "ppo":
            what = f"PPO, {settings.get('total_steps', 0):,} steps"
        cores = settings.get("workers") or 2  # 0 / None: one process per core of this machine
        out.append({"stage": what, "wall_minutes": round(rec.get("seconds", 0.0) / 60, 2),
                    "cores": int(cores)})
    order = {"labels": 0, "clone": 1, "distill": 2, "PPO": 3, "evaluate": 4, "export": 5}
    return sorted(out, key=lambda s: order.get(s["stage"].split(",")[0], 9))


def _figures(results: Path, preset: str) -> list[dict[str, Any]]:
    data = json.loads(results.read_text(encoding="utf-8"))
    out = []
    for key, (who, against, note) in FIGURES.items():
        got = data.get(key)
        if got is None:
            continue
        if got.get("rules") != preset:
            raise ValueError(f"{results} {key}: rules {got.get('rules')!r}, the entry's are {preset!r}")
        command = next((c for c in data["commands"]
                        if f"--seed {got['seed']} " in c + " " and f"--deals {got['deals']}" in c
                        and (" search" in c.split("--vs")[0]) == (who != "network")
                        and ("guide=none" in c) == (who == "unguided search")), None)
        if command is None:
            raise ValueError(f"{results}: no command in 'commands' made {key}")
        fig = {"candidate": who, "against": against, "mean": got["mean_points"],
               "ci95": got["ci95"], "deals": got["deals"], "seed": got["seed"],
               "results": results.as_posix(), "at": [key], "command": command}
        if note:
            fig["note"] = note
        out.append(fig)
    return out


def _timing(timing: Path, preset: str, spec: str) -> dict[str, Any] | None:
    data = json.loads(timing.read_text(encoding="utf-8"))
    rows = data.get("rows", {}).get(preset)
    if not rows:
        return None
    i = next(k for k, r in enumerate(rows) if r["agent"] == spec)
    bench = f"python -m paohuzi_env.dev.bench agent {spec} "
    command = next(c for c in data["commands"] if c.startswith(bench))
    return {"ms": rows[i]["mean_ms"], "p99_ms": rows[i]["p99_ms"],
            "guided_search_ms": rows[i + 1]["mean_ms"],
            "how": "CPU time of one decision through the compiled core, one position at a time, "
                   "over 1,000 positions of expert self-play after 20 warm-up decisions; one run "
                   "on 2 shared x86-64 cores",
            "command": command, "results": timing.as_posix(), "at": ["rows", preset, i]}


def make_entry(run: Path | None, recipe: Path, entry: str, what: str, *, half: bool = False,
               default: bool = False, results: Path | None = None, timing: Path | None = None,
               commit: str | None = None, zoo: Path = ZOO_DIR, network: Path | None = None,
               rules: str | None = None) -> Path:
    """Write (or rewrite) the zoo entry ``entry`` from the run folder ``run``, or (``run`` None)
    from the trained ``network`` played as it is under the preset ``rules`` (an untrained
    transfer: the same observation, the sidecar's rules replaced); returns its folder.

    Raises:
        ValueError: the run has no export, a transfer to rules of another observation, or a
            results file that does not fit the entry.
    """
    if run is not None:
        exports = sorted((run / "export").glob("*.safetensors"))
        if len(exports) != 1:
            raise ValueError(f"{run}/export holds {len(exports)} networks; a finished recipe run "
                             "holds one")
        source = exports[0]
    elif network is None or rules is None:
        raise ValueError("give a run folder, or a network and the rules it is to play")
    else:
        source = network
    meta = read_sidecar(source)
    preset = rules or meta["rules"]["name"]
    want = obs_version(get_rules(preset))
    if meta.get("obs_version") != want:  # before anything is written
        raise ValueError(f"{source} reads {meta.get('obs_version')}; rules {preset!r} produce {want}")
    folder = zoo / preset / entry
    folder.mkdir(parents=True, exist_ok=True)
    weights = transfer_policy(source, folder / WEIGHTS, preset, half=half,
                              name=_start_name(str(source), plain=True))
    side = json.loads(weights.with_suffix(".json").read_text(encoding="utf-8"))
    tensors = read_safetensors(weights)
    net = side["network"]
    blob = weights.read_bytes()
    stages = _stages(run) if run is not None else []
    commit = commit or subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                                      text=True, check=True).stdout.strip()
    start = str(source) if run is None else next(  # the first network stage's start
        (json.loads((run / stage / "stage.json").read_text(encoding="utf-8"))["settings"].get("start")
         for stage in ("distill", "ppo") if (run / stage / "stage.json").is_file()), None)
    spec = f"zoo:{preset}" if default else f"zoo:{preset}/{entry}"
    card: dict[str, Any] = {
        "format": CARD_FORMAT, "name": f"{preset}/{entry}", "default": default, "preset": preset,
        "observation_version": side["obs_version"], "waits_version": side.get("waits_version"),
        "what": what,
        "architecture": {
            "actor": net["actor"], "conv_channels": net["conv_channels"], "hidden": net["hidden"],
            "wait_features": net["wait_features"], "prior": net["prior"],
            "inputs": net["obs_size"] + (80 if net["wait_features"] else 0), "outputs": 61,
            "description": WIDTH[net["actor"]].format(c=net["conv_channels"], h=net["hidden"])},
        "parameters": sum(int(v.size) for v in tensors.values()),
        "weights": {"file": WEIGHTS, "sha256": side["weights_sha256"], "bytes": len(blob),
                    "dtype": "float16" if half else "float32",
                    **({"note": "stored as float16 (half the size) and played as its float32 "
                                "widening; every figure here was measured on this file"} if half else {})},
        "made_by": {"run": run.name, "config": recipe.as_posix(),
                    "command": f"paohuzi-recipe {recipe.as_posix()}", "commit": commit,
                    **({"started_from": _start_name(start)} if start else {}),
                    "how": f"the recipe's stages: {', '.join(s['stage'] for s in stages)} (the "
                           f"recipe's header says what each does and why)"}
        if run is not None else
        {"run": None, "config": recipe.as_posix(), "commit": commit,
         "command": f"python -m paohuzi_training.tools.zoo_entry --network "
                    f"{_start_name(str(source), plain=True)} --rules {preset} --entry {entry}"
                    + (" --half" if half else "") + (" --default" if default else ""),
         "started_from": _start_name(str(source), plain=True),
         "how": f"an untrained transfer: {_start_name(str(source), plain=True)}'s actor played as "
                f"it is under {preset}'s rules (the same observation, {side['obs_version']}); no "
                f"training under {preset}"},
        "compute": {"cpu_hours": round(sum(s["wall_minutes"] * s["cores"] for s in stages) / 60, 1),
                    "machine": "2 x86-64 CPU cores shared with other jobs, no GPU",
                    "stages": stages,
                    **({"note": f"No training of its own: the network's is that of "
                                f"{_start_name(str(source), plain=True)} (its card)"}
                       if run is None else {})},
        "strength": _figures(results, preset) if results else [],
        "exploitation": None,
        "exploitation_note": "not measured: no best response has been trained against this network",
    }
    if timing and (t := _timing(timing, preset, spec)):
        card["decision_time"] = t
    (folder / CARD).write_text(json.dumps(card, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return folder


def _start_name(start: str, plain: bool = False) -> str:
    """The start network as the card names it: a zoo entry by its spec, else the path."""
    p = Path(start)
    if p.name == WEIGHTS and p.parent.parent.parent.name == "zoo":
        spec = f"zoo:{p.parent.parent.name}/{p.parent.name}"
        return spec if plain else f"{spec} (a transfer: its actor, a fresh critic)"
    return start


def main(argv: list[str] | None = None) -> int:
    """The command; returns 0, or 2 with the reason on stderr."""
    p = argparse.ArgumentParser(prog="python -m paohuzi_training.tools.zoo_entry",
                                description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("run", type=Path, nargs="?", default=None,
                   help="the recipe's run folder (recipes/<name>__<seed>)")
    p.add_argument("--network", default=None,
                   help="instead of a run: a network file or zoo:NAME, played as it is under --rules")
    p.add_argument("--rules", default=None, help="with --network: the preset it is to play")
    p.add_argument("--recipe", type=Path, required=True, help="the recipe file that made it")
    p.add_argument("--entry", required=True, help="the entry's name under its preset")
    p.add_argument("--what", required=True, help="one line: what the network is")
    p.add_argument("--half", action="store_true", help="store the weights as float16")
    p.add_argument("--default", action="store_true",
                   help="the preset's default entry (zoo:PRESET; the default search's guide)")
    p.add_argument("--results", type=Path, default=None, help="the strength figures' JSON")
    p.add_argument("--timing", type=Path, default=None, help="the decision times' JSON")
    p.add_argument("--commit", default=None, help="the commit that made it (default: HEAD)")
    a = p.parse_args(argv)
    try:
        network = a.network
        if network and network.startswith("zoo:"):
            network = zoo_entry(network[len("zoo:"):]).weights
        folder = make_entry(a.run, a.recipe, a.entry, a.what, half=a.half, default=a.default,
                            results=a.results, timing=a.timing, commit=a.commit,
                            network=Path(network) if network else None, rules=a.rules)
    except (ValueError, OSError) as e:
        print(f"zoo_entry: error: {e}", file=sys.stderr)
        return 2
    print(f"wrote {folder}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
