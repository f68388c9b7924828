"""RLlib PPO with action masking, self-play on one preset (``pip install -e '.[rllib,train]'``).

    python -m paohuzi_training.baselines.rllib_ppo --rules huaihua --iterations 20 \
        --out checkpoints/rllib/huaihua
    paohuzi-eval rllib:checkpoints/rllib/huaihua --vs greedy --deals 200

Every seat plays one shared action-masking module (:func:`ppo_config`, on the env
:class:`paohuzi_env.envs.rllib.PaohuziMultiAgentEnv`); each
iteration prints RLlib's ``agent_episode_returns_mean`` per seat (their sum is about 0 in this
zero-sum game — exactly under ``--reward score`` — which is why ``episode_return_mean`` says
nothing)
and the env steps sampled. The checkpoint (RLlib's own format, plus ``paohuzi.json`` naming the
rules) is written after every ``--save-every`` iterations and at the end, safely for a killed
run: a new checkpoint goes to a sibling folder first and then replaces the old one (a run killed
between the two renames leaves it in ``OUT.old``, which the next run puts back). With
``--eval-deals N`` the result is evaluated at the end by the duplicate-deal harness against
``--eval-vs`` (the same as ``paohuzi-eval rllib:OUT``).

``--address`` joins a running Ray cluster (``ray start --head`` there); by default a local one
is started with ``--num-cpus`` CPUs. ``--num-env-runners`` sets RLlib's remote samplers (0:
sample in the driver).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from paohuzi_env.game.rules import Rules


def _returns(result: dict) -> dict[str, float]:
    runners = result.get("env_runners", {})
    agent = runners.get("agent_episode_returns_mean", {}) or {}
    return {str(k): float(v) for k, v in agent.items()}


def _restore(out: str) -> None:
    """Put back ``OUT.old`` when a run was killed between _save's two renames."""
    if not os.path.exists(out) and os.path.isdir(out + ".old"):
        os.replace(out + ".old", out)


def _save(algo: Any, out: str, rules: Any, iteration: int) -> None:
    """Save to ``out`` via a sibling folder, so a run killed while saving keeps the last one."""
    from paohuzi_env.encode.observation import obs_size
    from paohuzi_env.envs.rllib import META_FILE

    out = os.path.abspath(out)
    _restore(out)
    tmp = out + ".saving"
    shutil.rmtree(tmp, ignore_errors=True)
    algo.save_to_path(tmp)
    with open(os.path.join(tmp, META_FILE), "w", encoding="utf-8") as f:
        json.dump({"rules": rules.name, "obs_size": obs_size(rules), "iteration": iteration}, f)
    old = out + ".old"
    shutil.rmtree(old, ignore_errors=True)
    if os.path.exists(out):
        os.replace(out, old)
    os.replace(tmp, out)
    shutil.rmtree(old, ignore_errors=True)


def policy_mapping_fn(agent_id: Any, episode: Any = None, **kwargs: Any) -> str:
    """Every seat plays the one shared module (self-play)."""
    from paohuzi_env.envs.rllib import MODULE_ID

    return MODULE_ID


def rl_module_spec(hiddens: tuple[int, ...] = (256, 256)) -> Any:
    """A ``MultiRLModuleSpec`` with the one shared module: RLlib's action-masking PPO module
    (``ActionMaskingTorchRLModule``: masked logits, so sampled actions are legal and the PPO
    loss sees masked distributions), ``hiddens`` wide. The module class ships in RLlib's examples
    package (``ray.rllib.examples.rl_modules.classes``), tested here with ray 2.60 (hence the
    extra's ``ray[rllib]>=2.60,<3``)."""
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

    from paohuzi_env.envs.rllib import MODULE_ID

    spec = RLModuleSpec(
        module_class=ActionMaskingTorchRLModule,
        model_config={"fcnet_hiddens": list(hiddens), "head_fcnet_hiddens": [], "vf_share_layers": False},
    )
    return MultiRLModuleSpec(rl_module_specs={MODULE_ID: spec})


def ppo_config(rules: str | Rules = "huaihua", reward: str = "normalized", *, seed: int = 0,
               num_env_runners: int = 0, hiddens: tuple[int, ...] = (256, 256),
               train_batch_size: int = 4000, minibatch_size: int = 512, num_epochs: int = 4,
               lr: float = 3e-4) -> Any:
    """An RLlib ``PPOConfig`` for self-play on ``rules`` with action masking (new API stack);
    ``.build_algo()`` it and call ``.train()``."""
    from ray.rllib.algorithms.ppo import PPOConfig

    from paohuzi_env.envs.rllib import MODULE_ID, PaohuziMultiAgentEnv
    from paohuzi_env.game.rules import as_rules

    rules = as_rules(rules)
    return (
        PPOConfig()
        .environment(PaohuziMultiAgentEnv, env_config={"rules": rules, "reward": reward, "seed": seed})
        .multi_agent(policies={MODULE_ID}, policy_mapping_fn=policy_mapping_fn)
        .rl_module(rl_module_spec=rl_module_spec(hiddens))
        .env_runners(num_env_runners=num_env_runners)
        .training(train_batch_size_per_learner=train_batch_size, minibatch_size=minibatch_size,
                  num_epochs=num_epochs, lr=lr)
        .debugging(seed=seed)
    )


def train(rules: str = "huaihua", iterations: int = 10, out: str = "checkpoints/rllib/huaihua", *,
          seed: int = 0, num_env_runners: int = 0, train_batch_size: int = 4000,
          minibatch_size: int = 512, num_epochs: int = 4, hiddens: tuple[int, ...] = (256, 256),
          save_every: int = 5, address: str | None = None, num_cpus: int | None = None,
          reward: str = "normalized", lr: float = 3e-4, log: Any = print) -> list[dict[str, Any]]:
    """Train and save; returns one row per iteration (returns per seat, steps, seconds)."""
    import ray

    from paohuzi_env.game.rules import as_rules

    rules_obj = as_rules(rules)
    _restore(os.path.abspath(out))
    if not ray.is_initialized():
        quiet = num_env_runners == 0  # remote env runners' logs (and tracebacks) stay visible
        if address:
            ray.init(address=address, log_to_driver=not quiet)
        else:
            ray.init(num_cpus=num_cpus, include_dashboard=False, log_to_driver=not quiet)
    algo = ppo_config(rules_obj, reward, seed=seed, num_env_runners=num_env_runners,
                      hiddens=hiddens, train_batch_size=train_batch_size,
                      minibatch_size=minibatch_size, num_epochs=num_epochs, lr=lr).build_algo()
    rows = []
    try:
        for it in range(1, iterations + 1):
            t0 = time.perf_counter()
            result = algo.train()
            dt = time.perf_counter() - t0
            runners = result.get("env_runners", {})
            steps = int(runners.get("num_env_steps_sampled_lifetime", 0))
            returns = _returns(result)
            rows.append({"iteration": it, "agent_episode_returns_mean": returns,
                         "env_steps": steps, "seconds": dt,
                         "episodes": int(runners.get("num_episodes_lifetime", 0))})
            shown = ", ".join(f"{k} {v:+.3f}" for k, v in sorted(returns.items())) or "no episode yet"
            log(f"iteration {it}/{iterations}: agent_episode_returns_mean {shown}; "
                f"{steps} env steps so far; {dt:.1f} s")
            if it % save_every == 0 or it == iterations:
                _save(algo, out, rules_obj, it)
                log(f"  saved {out}")
    finally:
        algo.stop()
    return rows


def main(argv: list[str] | None = None) -> int:
    """The command line: train with RLlib's PPO, then optionally evaluate the checkpoint.

    Returns:
        The exit status: 2 when Ray RLlib or torch is missing, else 0.
    """
    p = argparse.ArgumentParser(prog="python -m paohuzi_training.baselines.rllib_ppo", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rules", default="huaihua")
    p.add_argument("--iterations", type=int, default=10)
    p.add_argument("--out", default=None, help="checkpoint folder (default checkpoints/rllib/RULES)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--num-env-runners", type=int, default=0)
    p.add_argument("--train-batch-size", type=int, default=4000)
    p.add_argument("--minibatch-size", type=int, default=512)
    p.add_argument("--num-epochs", type=int, default=4)
    p.add_argument("--save-every", type=int, default=5)
    p.add_argument("--reward", default="normalized", help="score, win or normalized")
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--address", default=None, help="a running Ray cluster (default: start one)")
    p.add_argument("--num-cpus", type=int, default=None)
    p.add_argument("--eval-deals", type=int, default=0, help="evaluate at the end (0: no)")
    p.add_argument("--eval-vs", default="greedy")
    a = p.parse_args(argv)
    try:
        import ray.rllib  # noqa: F401
        import torch  # noqa: F401
    except ImportError as e:
        print(f"paohuzi_training.baselines.rllib_ppo needs Ray RLlib and torch ({e}): "
              "pip install -e '.[rllib,train]'",
              file=sys.stderr)
        return 2
    from paohuzi_env.encode.rewards import REWARD_MODES
    from paohuzi_env.game.rules import PRESETS

    if a.rules not in PRESETS:
        p.error(f"--rules must be one of {sorted(PRESETS)}, got {a.rules!r}")
    if a.reward not in REWARD_MODES:
        p.error(f"--reward must be one of {', '.join(REWARD_MODES)}, got {a.reward!r}")
    for name in ("iterations", "train_batch_size", "minibatch_size", "num_epochs", "save_every"):
        if getattr(a, name) < 1:
            p.error(f"--{name.replace('_', '-')} must be at least 1")
    out = a.out or os.path.join("checkpoints", "rllib", a.rules)
    train(a.rules, a.iterations, out, seed=a.seed, num_env_runners=a.num_env_runners,
          train_batch_size=a.train_batch_size, minibatch_size=a.minibatch_size,
          num_epochs=a.num_epochs, save_every=a.save_every, address=a.address,
          num_cpus=a.num_cpus, reward=a.reward, lr=a.lr)
    if a.eval_deals:
        from ..eval.evaluate import evaluate, print_table

        print_table([evaluate(f"rllib:{out}", a.eval_vs, deals=a.eval_deals, seed=a.seed + 1,
                              rules=a.rules, workers=1)])
    return 0


if __name__ == "__main__":
    sys.exit(main())
