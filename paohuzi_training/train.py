"""paohuzi-train: train a network from one flat config file, through the recipe's stages.

    paohuzi-train --config CONFIG.yaml [key=value ...] [--resume PATH] [--ray [ADDRESS]]

The config is one YAML mapping; each key belongs to the stages that read it. The run is a
recipe of up to four stages, run in order by the one orchestrator of paohuzi-recipe:

  clone     with bc_steps: the network imitates that many expert decisions
  distill   with distill_labels: it learns the search's labels
  ppo       masked PPO self-play, from the network of the stage before (or init_from), with a
            KL penalty toward it when kl_coef > 0
  evaluate  with final_eval_deals: against random, greedy and expert (final_eval.json)

Checkpoints go to checkpoints/<run_name>__<seed>/ (latest.pt, final.pt), TensorBoard logs to
runs/<run_name>__<seed>. Ctrl-C (or SIGTERM) saves latest.pt and stops; --resume PATH
continues from it (the PPO stage alone: the stages before it are done). --ray [ADDRESS] puts
the workers on Ray: the rollout workers as actors, the clone's demonstrations and the
evaluations as tasks (same as ray=ADDRESS; paohuzi_training.cluster).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from paohuzi_env.apps.helptext import plain_text

if TYPE_CHECKING:
    from .recipe import Step, TrainConfig


def plan(cfg: TrainConfig, *, resume: str | None = None, root: str | os.PathLike[str] = ".",
         trust: bool | None = None, initial: Path | None = None,
         final: list[Path] | None = None) -> list[Step]:
    """The stages a flat config runs, in order, each with its config and inputs: the network
    each starts from is the output of the one before it (or ``init_from``). ``final`` receives
    the path the PPO (or the distill) stage ends with."""
    from .recipe import Step
    from .stages import clone, distill, evaluate, ppo

    run_id = f"{cfg.ppo.run_name}__{cfg.ppo.seed}"
    folder = Path(root) / "checkpoints" / run_id
    got = final if final is not None else []
    steps: list[Step] = []
    start = cfg.start
    fresh = resume is None
    if fresh and cfg.clone.bc_steps and not start:
        clone_in = clone.CloneInputs(folder, folder / "clone.pt")
        steps.append(Step("clone", lambda log: {"output": str(clone.run(cfg.clone, clone_in, log))}))
        start = str(clone_in.out)
    if fresh and cfg.distill.distill_labels:
        out = folder / ("final.pt" if cfg.ppo.total_steps == 0 else "distilled.pt")
        inputs = distill.DistillInputs(folder, out, start, Path(root) / "runs" / run_id, trust)

        def run_distill(log, inputs=inputs) -> dict[str, Any]:
            got.append(distill.run(cfg.distill, inputs, log))
            return {"output": str(got[-1])}

        steps.append(Step("distill", run_distill))
        start = str(out)
    ev = cfg.evaluate
    rules = cfg.resolved_rules
    if cfg.ppo.total_steps > 0:
        inputs_ppo = ppo.PPOInputs(
            start=start, kl_ref="start", resume=resume, root=Path(root), initial=initial, trust=trust,
            evaluate=evaluate.EvalConfig(opponents=ev.eval_opponents, deals=ev.eval_deals,
                                         seed=cfg.ppo.seed + 12345, rules=rules, every=ev.eval_every))

        def run_ppo(log) -> dict[str, Any]:
            got.append(ppo.run(cfg.ppo, inputs_ppo, log))
            return {"output": str(got[-1]), "kl_ref": ppo.kl_reference(cfg.ppo, inputs_ppo)}

        steps.append(Step("ppo", run_ppo))
    if ev.final_eval_deals:
        final_eval = evaluate.EvalConfig(opponents=["random", "greedy", "expert"],
                                         deals=ev.final_eval_deals, seed=cfg.ppo.seed + 12345,
                                         rules=rules, workers=cfg.ppo.workers or None,
                                         save_records=ev.save_records, ray=cfg.ppo.ray)

        def run_final(log) -> dict[str, Any]:
            if not got or got[-1].name != "final.pt":
                return {"skipped": "the run stopped before its end"}
            return {"results": evaluate.run_final(final_eval, evaluate.EvalInputs(got[-1], folder), log)}

        steps.append(Step("evaluate", run_final))
    return steps


def train(cfg: TrainConfig, resume: str | None = None, log=None, trust: bool | None = None,
          root: str | os.PathLike[str] = ".", initial: Path | None = None) -> Path:
    """Run a flat config's stages (:func:`plan`) through the recipe's orchestrator; returns the
    last network checkpoint written (``final.pt``, or ``latest.pt`` when stopped by a signal)."""
    from .recipe import run_stages
    from .stages.housekeeping import log_line

    final: list[Path] = []
    run_stages(plan(cfg, resume=resume, root=root, trust=trust, initial=initial, final=final),
               log or log_line)
    if not final:
        raise ValueError("the config runs no network stage (total_steps 0 and no distill_labels)")
    return final[-1]


def main(argv: list[str] | None = None) -> int:
    """The ``paohuzi-train`` command: load the config with its overrides and train.

    Returns:
        The exit status: 0 when done (or stopped by SIGTERM or one Ctrl-C, with ``latest.pt``
        saved), 2 for a bad config or checkpoint, 130 when stopped at once by a second Ctrl-C.
    """
    p = argparse.ArgumentParser(prog="paohuzi-train", description=plain_text(__doc__),
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--config", default=None, help="YAML config (default: with --resume, the "
                   "checkpoint's own config; else the built-in defaults)")
    p.add_argument("--resume", default=None, help="checkpoint to continue from")
    p.add_argument("--trust-checkpoint", action="store_true",
                   help="resume even from a file that needs arbitrary pickled objects (can run code)")
    p.add_argument("--ray", nargs="?", const="local", default=None, metavar="ADDRESS",
                   help="rollout workers as Ray actors, demonstrations and evaluations as Ray "
                        "tasks: on a Ray instance started here, or on the cluster at ADDRESS "
                        "(auto, ray://host:10001); same as ray=ADDRESS")
    p.add_argument("overrides", nargs="*", help="key=value config overrides")
    a = p.parse_args(argv)
    from .nets.checkpoint import load_checkpoint
    from .recipe import load_config

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
        path = train(cfg, resume=a.resume, trust=a.trust_checkpoint or None)
    except ValueError as e:
        print(f"paohuzi-train: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # a second Ctrl-C: stopped at once
        print("paohuzi-train: stopped; the last checkpoint written is kept", file=sys.stderr)
        return 130
    if path.name != "final.pt":
        print(f"paohuzi-train: stopped; continue with: paohuzi-train --config <the same config> "
              f"--resume {path}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
