"""Other algorithms and frameworks' trainers on the env, for comparison, one readable file each:
Deep Monte Carlo (DouZero's DMC, :mod:`.dmc`) over the compiled core's ``VectorGame``; RLlib's
PPO (:mod:`.rllib_ppo`); OpenSpiel's NFSP (:mod:`.nfsp_openspiel`); and short, complete examples
of plugging the env into TorchRL and Tianshou (:mod:`.torchrl_pg`, :mod:`.tianshou_pg`), each with
``train(steps, seed)`` and a command line from :func:`run`."""

from __future__ import annotations

import argparse
import importlib.util
import sys
from collections.abc import Callable


def run(prog: str, doc: str | None, framework: str, package: str,
        train: Callable[[int, int], dict], argv: list[str] | None = None) -> int:
    """The examples' command line: ``--steps`` and ``--seed``, a clear message (exit 2) when
    the framework is missing, and the counts ``train`` returns."""
    p = argparse.ArgumentParser(prog=prog, description=doc,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--steps", type=int, default=300)
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args(argv)
    if importlib.util.find_spec(package) is None:
        print(f"this example needs {framework}: pip install {package}", file=sys.stderr)
        return 2
    seen = train(a.steps, a.seed)
    counts = ", ".join(f"{v} {k}" for k, v in seen.items() if isinstance(v, int))
    print(f"done: {counts}")
    return 0
