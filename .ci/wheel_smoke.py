"""Smoke run of an *installed* paohuzi-env (a wheel), from outside the source tree.

Used by `.ci/wheel` (after installing the freshly built wheel into a new venv with the compilers
hidden) and by cibuildwheel's `test-command` (pyproject.toml). It checks that

* the package is imported from site-packages, not from a source tree (``--forbid DIR``);
* ``paohuzi_env.__version__`` equals the installed distribution's version;
* the compiled core was shipped in the wheel (``fast.available()``) and agrees with the Python
  engine on a few random hands, decision by decision;
* hands play through the PettingZoo env and through ``fast.VectorGame``;
* ``paohuzi-eval`` (a console script, so the entry points work) evaluates ``expert`` vs ``greedy``;
* the zoo's networks ship with the SHA-256 of their cards, ``make_agent("zoo:huaihua")`` plays a
  whole hand through the compiled core without importing torch;
* the default ``search`` finds its guide network in the installed package and decides;
* a shipped agent loads and plays (``--checkpoint PATH``; needs torch, skipped with a message when
  torch is missing, as in cibuildwheel's bare test environment);
* no top-level ``training`` package was installed (issue 28: it collides with other projects);
  the trainer is ``paohuzi_training``.

Exit status 0 when every check passed; the first failed check raises.
"""

from __future__ import annotations

import argparse
import importlib.metadata as md
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path


def check(cond: bool, what: str) -> None:
    if not cond:
        raise SystemExit(f"wheel smoke: FAILED: {what}")
    print(f"ok  {what}")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--forbid", action="append", default=[], metavar="DIR",
                   help="a source tree the package must not be imported from (repeatable)")
    p.add_argument("--checkpoint", default=None, metavar="PATH",
                   help="a shipped agent's checkpoint to load and play (needs torch)")
    p.add_argument("--hands", type=int, default=20)
    args = p.parse_args()

    import numpy as np

    import paohuzi_env
    from paohuzi_env import fast
    from paohuzi_env.game import engine

    where = Path(paohuzi_env.__file__).resolve()
    print(f"paohuzi_env {paohuzi_env.__version__} from {where.parent}")
    for tree in args.forbid:
        check(not where.is_relative_to(Path(tree).resolve()), f"paohuzi_env is not imported from {tree}")
    check("site-packages" in where.parts and where.is_relative_to(Path(sys.prefix).resolve()),
          f"paohuzi_env is imported from this environment's site-packages ({sys.prefix})")
    dist = md.distribution("paohuzi-env")
    check(dist.version == paohuzi_env.__version__, f"__version__ == installed version ({dist.version})")
    check(fast.available(), "the compiled core is available"
          + ("" if fast.available() else f" (it is not: {fast.unavailable_reason()})"))
    typed = Path(where.parent, "py.typed")
    check(typed.exists(), "py.typed is installed")
    files = [str(f) for f in (dist.files or [])]
    check(not any(f.startswith("training/") for f in files),
          "the wheel installs no top-level `training` package")
    check(any(f.startswith("paohuzi_training/") for f in files),
          "the trainer is installed as `paohuzi_training`")
    check(not any(f.startswith("tests/") for f in files), "the wheel has no tests/")

    # The compiled core and the Python engine play the same hands.
    for seed in range(args.hands):
        f = fast.Game("huaihua", seed=seed)
        r = engine.Game("huaihua", seed=seed)
        rng = np.random.default_rng(seed)
        while not r.done:
            legal = r.legal_actions()
            if list(legal) != list(f.legal_actions()):
                check(False, f"seed {seed}: the compiled core's legal actions equal the engine's")
            a = legal[int(rng.integers(len(legal)))]
            r.step(a)
            f.step(a)
        if not f.done:
            check(False, f"seed {seed}: both engines end the hand together")
    print(f"ok  {args.hands} random hands agree decision by decision (compiled vs Python engine)")

    env = paohuzi_env.env(rules="huaihua")
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    steps = 0
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        steps += 1
    check(steps > 3, f"the PettingZoo env plays a hand ({steps} steps)")
    vg = fast.VectorGame(64, "huaihua", seed=0)
    ends = 0
    for _ in range(300):
        _, done = vg.step(vg.random_actions())
        ends += int(done.sum())
    check(ends > 0, f"fast.VectorGame(64) plays hands to the end ({ends} in 300 steps)")

    # Evaluation through the installed console script (entry points).
    exe = shutil.which("paohuzi-eval", path=str(Path(sys.executable).parent)) or shutil.which("paohuzi-eval")
    check(exe is not None, "the paohuzi-eval console script is installed")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp, "eval.json")
        subprocess.run([exe, "expert", "--vs", "greedy", "--deals", "30", "--seed", "1", "--workers", "1",
                        "--no-progress", "--json", str(out)], check=True, cwd=tmp)
        res = json.loads(out.read_text())
        check(bool(res), f"paohuzi-eval expert --vs greedy wrote its results ({out.name})")

    # The zoo (package data, paohuzi_env/zoo/): every card's weights ship with their SHA-256, and
    # zoo:huaihua plays a whole hand through the compiled core without importing torch.
    import hashlib

    from paohuzi_env.agents import make_agent as _make
    from paohuzi_env.agents import zoo

    rows = zoo.entries()
    check({r["preset"] for r in rows if r["default"]} >= {"huaihua", "yongzhou"},
          f"the zoo lists a network for huaihua and yongzhou ({', '.join(r['spec'] for r in rows)})")
    for r in rows:
        path = zoo.network_path(r["name"])
        check(path.resolve().is_relative_to(where.parent)
              and hashlib.sha256(path.read_bytes()).hexdigest() == zoo.card(r["name"])["weights"]["sha256"],
              f"{r['spec']}'s weights ship in the package with the SHA-256 of its card")
    had_torch = "torch" in sys.modules
    net = _make("zoo:huaihua", seed=0)
    g = fast.Game("huaihua", seed=4)
    while not g.done:
        g.step(net.act_game(g, g.current_player))
    check(g.done and (had_torch or "torch" not in sys.modules),
          "make_agent('zoo:huaihua') plays a whole hand through the compiled core, torch not imported")

    # The default search and its guide network (the preset's zoo network).
    search = _make("search", seed=0)
    check(search.guide is not None and Path(search.guide.path).resolve().is_relative_to(where.parent),
          "the default search's guide network ships in the package")
    g = fast.Game("huaihua", seed=3)
    decided = 0
    while not g.done:
        s = g.current_player
        if len(g.legal_actions()) > 1 and decided < 20:
            a = search.act_game(g, s)
            decided += 1
        else:
            a = g.expert_action()
        g.step(a)
    check(decided > 0, f"the default search decides ({decided} decisions)")

    if args.checkpoint:
        if importlib.util.find_spec("torch") is None:
            print("skip: torch is not installed, the shipped agent is not loaded")
        else:
            from paohuzi_env.agents import make_agent
            agent = make_agent(f"checkpoint:{args.checkpoint}", seed=0)
            g = engine.Game("huaihua", seed=5)
            while not g.done:
                s = g.current_player
                a = agent.act(g.view(s)) if s == 0 else g.legal_actions()[0]
                g.step(a)
            check(g.done, f"the shipped agent {os.path.basename(args.checkpoint)} loads and plays a hand")
    print("wheel smoke: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
