"""The ``paohuzi-train`` command: ``paohuzi-train --config CONFIG.yaml [key=value ...] [--resume PATH]``.

Trains a network with masked PPO self-play (:mod:`paohuzi_training.stages.ppo`), after behaviour
cloning, a start network or distillation when the config asks for them. ``--resume PATH``
continues a killed run from its checkpoint (``checkpoints/<run>/latest.pt``); ``--ray
[ADDRESS]`` puts the rollout workers on Ray.
"""

from __future__ import annotations

import argparse
import sys

from .config import load_config


def main(argv: list[str] | None = None) -> int:
    """The ``paohuzi-train`` command: load the config with its overrides and train.

    Returns:
        The exit status: 0 when done, 2 for a bad config or checkpoint, 130 when stopped by Ctrl-C.
    """
    from .nets.checkpoint import load_checkpoint
    from .stages.ppo import train

    p = argparse.ArgumentParser(prog="paohuzi-train", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--config", default=None, help="YAML config (default: with --resume, the "
                   "checkpoint's own config; else the built-in defaults)")
    p.add_argument("--resume", default=None, help="checkpoint to continue from")
    p.add_argument("--trust-checkpoint", action="store_true",
                   help="resume even from a file that needs arbitrary pickled objects (can run code)")
    p.add_argument("--ray", nargs="?", const="local", default=None, metavar="ADDRESS",
                   help="rollout workers as Ray actors: on a Ray instance started here, or on the "
                        "cluster at ADDRESS (auto, ray://host:10001); same as ray=ADDRESS")
    p.add_argument("overrides", nargs="*", help="key=value config overrides")
    a = p.parse_args(argv)
    try:
        overrides = list(a.overrides)
        if a.ray and "=" in a.ray and "://" not in a.ray:  # --ray key=value: no address given
            overrides.insert(0, a.ray)
            a.ray = "local"
        overrides += [f"ray={a.ray}"] if a.ray else []
        base = None
        if a.resume and a.config is None:  # the run's own config, kept in its checkpoint
            base = load_checkpoint(a.resume, trust=a.trust_checkpoint or None)["config"]
        cfg = load_config(a.config, overrides, base)
        train(cfg, resume=a.resume, trust=a.trust_checkpoint or None)
    except ValueError as e:
        print(f"paohuzi-train: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # a second Ctrl-C: stopped at once
        print("paohuzi-train: stopped; the last checkpoint written is kept", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
