"""The PPO configuration: one dataclass, a docstring under each field, YAML + command line.

``load_config("configs/ppo.yaml", ["total_steps=20000", "workers=1"])`` reads the file and
applies ``key=value`` overrides; unknown keys and values of the wrong type are errors that
name the valid keys.
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from paohuzi_env.bots.registry import bot_names

if TYPE_CHECKING:
    from paohuzi_env.game.rules import Rules

ACTORS = ("mlp", "conv")
"""The actor networks of paohuzi_training/nets/model.py (config ``actor``)."""


@dataclass
class PPOConfig:
    """Every setting of a training run, with its default; each field's docstring says what it does.

    Build one with :func:`load_config` (YAML plus ``key=value`` overrides) or :func:`make_config`.
    """

    run_name: str = "ppo"
    """Run folder name under ``runs/`` (TensorBoard) and ``checkpoints/``; the seed is appended."""
    seed: int = 1
    """Seeds every generator: workers, opponents, torch, evaluation."""
    rules: str = "huaihua"
    """Rules preset the agent is trained and evaluated under."""
    rules_overrides: dict = field(default_factory=dict)
    """Overrides of the preset (keys of :class:`paohuzi_env.game.rules.Rules`)."""
    total_steps: int = 2_000_000
    """Learner decisions (transitions) to train on."""
    workers: int = 0
    """Rollout processes; 0 means one per CPU core."""
    games_per_worker: int = 32
    """Hands stepped together in each worker, one batched forward pass per tick."""
    steps_per_worker: int = 1024
    """Learner transitions each worker sends per iteration (whole trajectories only)."""
    hidden: int = 256
    """Width of the two hidden layers of the actor and the critic (for ``actor: conv``, of
    the actor's head)."""
    update_precision: str = "float32"
    """The PPO update's arithmetic: ``float32``, ``bfloat16`` (autocast: the layers' matrix
    products in bfloat16, the weights, the optimiser, the logits and the losses in float32), or
    ``auto``: bfloat16 where the hardware does it natively (a CPU with AVX512-BF16 or AMX, a
    CUDA device with bfloat16), else float32. bfloat16 runs the conv actor's update about 1.8x
    faster on such a CPU (``python -m paohuzi_training.tools.bench`` measures it) and is slower on
    one without."""
    critic_hidden: int = 0
    """Width of the critic's two hidden layers; 0: ``hidden``. The critic is used in training
    only (play reads the actor), so a narrower one saves update time without touching it."""
    actor: str = "mlp"
    """The actor's network: ``mlp`` (two hidden layers over the flat observation) or ``conv``
    (per-kind features convolved along the ten numbers, small and big cards as channels, then
    an MLP head over them and the flat observation; see paohuzi_training/nets/model.py). The compiled core
    plays both (``network:PATH``, the search's network rollout)."""
    conv_channels: int = 128
    """Channels of the ``conv`` actor's three convolutions."""
    wait_features: bool = False
    """The networks also read the 80 wait features of the seat's holding
    (:mod:`paohuzi_env.encode.features`, ``paohuzi-waits-v1``: which cards win it, and per discard
    whether the holding stays ready, its unseen winning cards and their points), after the
    observation; the ``conv`` actor reads them as four more kind rows. Still a pure network: the
    features are arithmetic on what the seat sees. Label runs need them stored (``python -m
    paohuzi_training.stages.label DIR --add-waits`` adds them to an older run). With ``init_from`` a network
    without them, the weights on the new inputs start at zero (it plays exactly as before)."""
    central_critic: bool = False
    """The critic also sees ``env.state()``-style full information (the actor never does)."""
    belief_coef: float = 0.0
    """Weight of the belief head's loss (0: no belief head). The belief head reads the actor's
    last hidden layer and predicts, for each of the 20 kinds, how many of it (0-4) each
    opponent holds in hand (what ``state_extra`` stores at 0-39); its cross-entropy is an
    auxiliary loss that shapes the actor's features toward the hidden cards. It is trained by
    PPO only (needs ``central_critic: true``, whose full-information features carry the
    targets); play never reads it (``network:`` and the search's guide read the actor alone)."""
    oracle_steps: int = 0
    """Oracle guiding (Suphx; 0: off). Over the first ``oracle_steps`` learner steps the actor
    also reads the central critic's full-information features (the opponents' hands, the wall)
    through a linear layer into its first hidden layer, which starts at zero (the network starts
    as it was); each feature is kept with a probability falling linearly from 1 to 0 over those
    steps (drawn per decision and feature), so the actor learns with the hidden cards and is
    weaned off them. After them it reads none of them and plays as the network it exports, which
    never needs them (``network:``, ``checkpoint:`` and the search read the observation alone).
    Needs ``central_critic: true`` and ``oracle_steps <= total_steps``."""
    learning_rate: float = 3e-4
    """Adam learning rate."""
    anneal_lr: bool = True
    """Linearly anneal the learning rate to zero over ``total_steps``."""
    gamma: float = 1.0
    """Discount over a seat's decisions within one hand (hands are short and end-rewarded)."""
    gae_lambda: float = 0.95
    """GAE lambda, over each (hand, seat) trajectory separately."""
    update_epochs: int = 4
    """Optimisation epochs over each batch."""
    minibatch_size: int = 1024
    """Transitions per gradient step."""
    clip_coef: float = 0.2
    """PPO ratio clip."""
    clip_vloss: bool = True
    """Clip the value loss like the policy loss (CleanRL's default)."""
    ent_coef: float = 0.01
    """Entropy bonus, over legal actions only."""
    vf_coef: float = 0.5
    """Value-loss weight."""
    max_grad_norm: float = 0.5
    """Gradient clipping norm."""
    target_kl: float | None = 0.05
    """Stop an update's epochs early once the approximate KL exceeds this (None: never)."""
    reward: str = "normalized"
    """Reward of a hand: ``score``, ``win`` or ``normalized`` (points / 64, clipped)."""
    advantage: str = "gae"
    """``gae``: GAE over each (hand, seat) trajectory with the critic. ``rollout`` (needs a
    ``prior``): where the learner departed from the prior's choice, the advantage is the seat's
    points when everyone plays the prior after the learner's action minus the same after the
    prior's choice, played out on the same deck (a duplicate rollout: it sees the hidden cards,
    like the central critic, and only ever shapes the training signal); decisions that follow
    the prior get 0, and advantages are scaled but not centred. The critic is still trained."""
    reward_baseline: str = "none"
    """``expert``: subtract from each seat's points the points that seat scores when all three
    seats play ``expert`` on the same deal (a duplicate-deal baseline). It depends on the deal
    only, never on the learner's actions, so the policy gradient stays unbiased while the luck
    of the deal cancels. ``none``: the raw points."""
    opponent_self: float = 0.3
    """Share of hands where the current policy sits in all three seats."""
    opponent_snapshots: float = 0.2
    """Share of hands against two past snapshots (sampled preferring those that beat it)."""
    opponent_bots: dict = field(default_factory=lambda: {"expert": 0.4, "greedy": 0.1})
    """Shares of hands against two copies of each rule-based bot."""
    opponent_agents: dict = field(default_factory=dict)
    """Shares of hands against two fixed copies of any agent spec (``checkpoint:PATH``,
    ``network:PATH``, ``search:...``, a bot): what ``paohuzi-exploit`` trains a best response
    against, and a league option (say the exploiters of ``checkpoints/exploiters/``). A
    ``checkpoint:`` network plays batched in torch; other agents decide hand by hand."""
    snapshot_every: int = 20
    """Iterations between snapshots added to the opponent pool."""
    snapshot_pool: int = 8
    """Most snapshots kept in the pool."""
    prior: str = "none"
    """Residual policy learning: a rule-based bot (``greedy`` or ``expert``) whose choice is
    added to the actor's logits with weight ``prior_weight`` and shown to the actor as a
    one-hot input; the network learns corrections to it. The bot reads only the seat's
    ``PlayerView``, like the actor. ``none``: a plain network."""
    prior_weight: float = 4.0
    """Logit bonus of the prior's choice. A fresh network (near-zero logits) then plays the
    prior's choice under argmax and samples it with probability e^w / (e^w + legal - 1)."""
    bc_steps: int = 0
    """Behaviour-cloning warm start: expert decisions to imitate before PPO (0: none)."""
    bc_epochs: int = 20
    """Epochs over the behaviour-cloning data."""
    bc_learning_rate: float = 1e-3
    """Adam learning rate of the behaviour-cloning warm start."""
    distill_labels: list = field(default_factory=list)
    """Distillation (:mod:`paohuzi_training.stages.distill`): label directories written by
    ``python -m paohuzi_training.stages.label`` to fit the network to before PPO (empty: no distillation)."""
    distill_epochs: int = 10
    """Epochs over the labels (raise it and run again to continue a finished phase)."""
    distill_temperature: float = 1.0
    """T of the soft target ``softmax(mean / T)`` over the search's per-action mean points."""
    distill_soft: float = 0.5
    """Weight of the soft target; the search's chosen action gets ``1 - distill_soft``."""
    distill_departure_weight: float = 1.0
    """Weight of a departure in the policy losses: a labelled decision where the search chose
    another action than the argmax of the network the distillation starts from (with
    ``init_from``: in a round of expert iteration, the network that guided the search), the
    decisions where the search found something the network did not know. 1: every decision
    alike."""
    distill_learning_rate: float = 1e-3
    """Adam learning rate of the distillation phase."""
    distill_holdout: float = 0.05
    """Share of the labelled hands held out to measure agreement and value loss (0: none)."""
    init_from: str = ""
    """A checkpoint whose network a fresh run starts from (e.g. a distilled run's ``final.pt``):
    the actor always, the critic when its shape matches (else a fresh critic). With
    ``distill_labels`` the distillation starts from it (e.g. a PPO-trained network)."""
    kl_coef: float = 0.0
    """PPO with a KL penalty ``kl_coef * KL(policy || reference)`` over the legal actions,
    the reference being the network the PPO phase started from (after distillation or
    ``init_from``), frozen; 0: none."""
    kl_decay_steps: int = 0
    """The penalty decays linearly to 0 over this many learner steps (0: constant)."""
    eval_every: int = 25
    """Iterations between evaluations through the duplicate-deal harness (0: never)."""
    eval_deals: int = 100
    """Deals per periodic evaluation (each played three times)."""
    eval_opponents: list = field(default_factory=lambda: ["expert", "greedy"])
    """Opponents of the periodic evaluations."""
    final_eval_deals: int = 300
    """Deals of the evaluation against every baseline that ends a run (0: none)."""
    save_records: int = 5
    """Hand records kept from that final evaluation: against each baseline, the games where the
    agent scored worst, in ``checkpoints/<run>/records/`` (``paohuzi replay FILE --html OUT``
    shows one, with the agent's action probabilities); 0: none."""
    save_every: int = 10
    """Iterations between checkpoints (a checkpoint is also written at the end)."""
    save_minutes: float = 2.0
    """Also write ``latest.pt`` when this many minutes have passed since the last one (so a
    long iteration schedule still saves within minutes); 0: by ``save_every`` only."""
    device: str = "auto"
    """``auto`` (CUDA when present, else CPU), ``cpu`` or ``cuda``."""
    torch_threads: int = 0
    """Threads of the main process's torch (the PPO update); 0: torch's default (one per core).
    Rollout workers always use one."""
    overlap: bool = True
    """With worker processes, collect the next batch while this one trains (the next batch is
    then played by the weights from before this update: one iteration of policy lag, which the
    PPO ratio accounts for, as each transition keeps the log-probability it was played with).
    Iteration time becomes max(rollout, update) instead of their sum."""
    backend: str = "auto"
    """Rollout engine of the one rollout loop (:mod:`paohuzi_training.stages.rollout`): ``fast`` (the
    compiled core's ``VectorGame``), ``python`` (the reference engine's ``ReferenceVectorGame``),
    or ``auto``: fast when the core is built."""
    ray: str = ""
    """Rollout workers as Ray actors (:mod:`paohuzi_training.stages.workers`; ``paohuzi-train --ray
    [ADDRESS]``): ``""`` (off: local processes), ``local`` (start a Ray instance on this
    machine), or a cluster address (``auto``, ``ray://host:10001``). ``workers`` actors (0: one
    per CPU of the cluster); the learner stays in this process."""

    @functools.cached_property
    def resolved_rules(self) -> Rules:
        """The :class:`~paohuzi_env.game.rules.Rules` of ``rules`` with ``rules_overrides``, resolved
        once (on first use; :func:`validate` does it, so a bad override fails at load time)."""
        from paohuzi_env.game.rules import get_rules

        return get_rules(self.rules, **self.rules_overrides)


def config_fields() -> list[str]:
    """The valid configuration keys."""
    return [f.name for f in dataclasses.fields(PPOConfig)]


_OPTIONAL = ("target_kl",)


def _coerce(name: str, value: Any) -> Any:
    f = {f.name: f for f in dataclasses.fields(PPOConfig)}[name]
    default = getattr(PPOConfig(), name)
    if name in _OPTIONAL and (value is None or str(value).lower() in ("none", "null", "~")):
        return None
    if isinstance(value, str) and not isinstance(default, str):
        value = yaml.safe_load(value)
    t = type(default)
    if t is float and isinstance(value, str):
        # YAML 1.1 reads 2e-5 (no dot) as a string; Python's float() reads it as the number
        try:
            value = float(value)
        except ValueError:
            pass
    if t is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if t is bool and not isinstance(value, bool):
        raise ValueError(f"config {name!r} must be true/false, got {value!r}")
    if not isinstance(value, t) or (t is int and isinstance(value, bool)):
        raise ValueError(f"config {name!r} must be {'a number' if t is float else t.__name__} "
                         f"(type {f.type}), got {value!r}")
    return value


def _unknown_keys(keys: Any, where: str) -> None:
    """``ValueError`` naming unknown keys (with the closest valid one) and ``where`` they came
    from."""
    unknown = sorted(set(keys) - set(config_fields()))
    if not unknown:
        return
    hints = []
    for k in unknown:
        close = difflib.get_close_matches(k, config_fields(), n=1)
        hints.append(f"{k!r} (did you mean {close[0]!r}?)" if close else repr(k))
    raise ValueError(f"unknown config key(s) {', '.join(hints)} {where}; valid keys: "
                     f"{', '.join(config_fields())}")


def make_config(values: dict[str, Any]) -> PPOConfig:
    """A config from a mapping; unknown keys raise ``ValueError`` listing the valid ones."""
    _unknown_keys(values, "in the config")
    cfg = PPOConfig(**{k: _coerce(k, v) for k, v in values.items()})
    validate(cfg)
    return cfg


def validate(cfg: PPOConfig) -> None:
    """Range checks with messages that say what is allowed."""
    from paohuzi_env.encode.rewards import REWARD_MODES

    cfg.resolved_rules  # noqa: B018 - resolves (and checks) the rules once
    if cfg.reward not in REWARD_MODES:
        raise ValueError(f"config 'reward' must be one of {', '.join(REWARD_MODES)}, got {cfg.reward!r}")
    if cfg.torch_threads < 0:
        raise ValueError(f"config 'torch_threads' must be >= 0, got {cfg.torch_threads}")
    if cfg.save_records < 0:
        raise ValueError(f"config 'save_records' must be >= 0, got {cfg.save_records}")
    if cfg.save_minutes < 0:
        raise ValueError(f"config 'save_minutes' must be >= 0, got {cfg.save_minutes}")
    if cfg.total_steps < (0 if cfg.distill_labels else 1):
        raise ValueError(f"config 'total_steps' must be >= 1 (0 only with distill_labels: "
                         f"distillation alone), got {cfg.total_steps}")
    if cfg.actor not in ACTORS:
        raise ValueError(f"config 'actor' must be one of {', '.join(ACTORS)}, got {cfg.actor!r}")
    for name in ("games_per_worker", "steps_per_worker", "hidden", "conv_channels",
                 "update_epochs", "minibatch_size"):
        if getattr(cfg, name) < 1:
            raise ValueError(f"config {name!r} must be >= 1, got {getattr(cfg, name)}")
    if cfg.workers < 0:
        raise ValueError(f"config 'workers' must be >= 0, got {cfg.workers}")
    if cfg.update_precision not in ("float32", "bfloat16", "auto"):
        raise ValueError(f"config 'update_precision' must be float32, bfloat16 or auto, got "
                         f"{cfg.update_precision!r}")
    if cfg.critic_hidden < 0:
        raise ValueError(f"config 'critic_hidden' must be >= 0 (0: hidden), got {cfg.critic_hidden}")
    shares = [cfg.opponent_self, cfg.opponent_snapshots, *cfg.opponent_bots.values(),
              *cfg.opponent_agents.values()]
    if any(s < 0 for s in shares) or sum(shares) <= 0:
        raise ValueError("opponent shares must be non-negative and not all zero")
    bad = sorted(set(cfg.opponent_bots) - set(bot_names()))
    if bad:
        raise ValueError(f"unknown bot(s) {bad} in opponent_bots; valid: {', '.join(bot_names())}")
    for spec, share in cfg.opponent_agents.items():
        if not isinstance(spec, str) or isinstance(share, bool) or not isinstance(share, (int, float)):
            raise ValueError(f"opponent_agents maps agent specs to shares, got {spec!r}: {share!r}")
        from paohuzi_env.agents import make_agent

        try:
            make_agent(spec, seed=0, rules=cfg.resolved_rules)
        except (ValueError, KeyError) as e:
            raise ValueError(f"opponent_agents: {spec!r} is not an agent this trainer can "
                             f"build: {e}") from None
    if cfg.reward_baseline not in ("none", "expert"):
        raise ValueError(f"config 'reward_baseline' must be none or expert, got {cfg.reward_baseline!r}")
    if cfg.reward_baseline != "none" and cfg.reward == "win":
        raise ValueError("config 'reward_baseline' needs reward score or normalized (a win/loss "
                         "reward has no points to subtract from)")
    if cfg.advantage not in ("gae", "rollout"):
        raise ValueError(f"config 'advantage' must be gae or rollout, got {cfg.advantage!r}")
    if cfg.advantage == "rollout" and cfg.prior == "none":
        raise ValueError("config 'advantage: rollout' needs a 'prior' (greedy or expert) to "
                         "measure departures from")
    if cfg.advantage == "rollout" and cfg.reward == "win":
        raise ValueError("config 'advantage: rollout' needs reward score or normalized")
    if cfg.prior not in ("none", "greedy", "expert"):
        raise ValueError(f"config 'prior' must be none, greedy or expert, got {cfg.prior!r}")
    if cfg.prior_weight < 0:
        raise ValueError(f"config 'prior_weight' must be >= 0, got {cfg.prior_weight}")
    if cfg.prior != "none" and cfg.bc_steps:
        raise ValueError("config 'bc_steps' must be 0 when 'prior' is set: the prior already "
                         "plays the bot's choices, so there is nothing to clone")
    if cfg.distill_labels:
        if not all(isinstance(d, str) and d for d in cfg.distill_labels):
            raise ValueError("config 'distill_labels' must be a list of label directories")
        if cfg.prior != "none" or cfg.central_critic:
            raise ValueError("config 'distill_labels' trains a plain network from the seat's "
                             "observation: it needs prior: none and central_critic: false (PPO "
                             "after it may use a central critic: start a second run with "
                             "init_from)")
    if cfg.belief_coef < 0:
        raise ValueError(f"config 'belief_coef' must be >= 0 (0: no belief head), got "
                         f"{cfg.belief_coef}")
    if cfg.belief_coef > 0 and not cfg.central_critic:
        raise ValueError("config 'belief_coef' > 0 needs central_critic: true (the opponents' "
                         "hands it learns to predict come with the central critic's "
                         "full-information features)")
    if cfg.oracle_steps < 0 or cfg.oracle_steps > cfg.total_steps:
        raise ValueError(f"config 'oracle_steps' must be in [0, total_steps] (the network must end "
                         f"its training without the hidden cards), got {cfg.oracle_steps} with "
                         f"total_steps {cfg.total_steps}")
    if cfg.oracle_steps > 0 and not cfg.central_critic:
        raise ValueError("config 'oracle_steps' > 0 needs central_critic: true (the hidden cards "
                         "the actor reads come with the central critic's full-information "
                         "features)")
    if cfg.oracle_steps > 0 and cfg.belief_coef > 0:
        raise ValueError("config 'oracle_steps' and 'belief_coef' are not used together (a "
                         "belief head predicting the cards the actor is shown learns nothing)")
    if cfg.distill_departure_weight <= 0:
        raise ValueError(f"config 'distill_departure_weight' must be > 0, got "
                         f"{cfg.distill_departure_weight}")
    if cfg.distill_epochs < 0 or cfg.distill_temperature <= 0 or cfg.distill_learning_rate <= 0:
        raise ValueError("config 'distill_epochs' must be >= 0, 'distill_temperature' and "
                         "'distill_learning_rate' > 0")
    if not 0 <= cfg.distill_soft <= 1 or not 0 <= cfg.distill_holdout <= 0.5:
        raise ValueError(f"config 'distill_soft' must be in [0, 1] and 'distill_holdout' in "
                         f"[0, 0.5], got {cfg.distill_soft} and {cfg.distill_holdout}")
    if cfg.kl_coef < 0 or cfg.kl_decay_steps < 0:
        raise ValueError(f"config 'kl_coef' and 'kl_decay_steps' must be >= 0, got "
                         f"{cfg.kl_coef} and {cfg.kl_decay_steps}")
    if cfg.backend not in ("auto", "fast", "python"):
        raise ValueError(f"config 'backend' must be auto, fast or python, got {cfg.backend!r}")
    if cfg.device not in ("auto", "cpu", "cuda"):
        raise ValueError(f"config 'device' must be auto, cpu or cuda, got {cfg.device!r}")


def read_yaml_mapping(path: str | Path, what: str, folder: Path) -> dict[str, Any]:
    """A YAML file that must hold a mapping (a config, a recipe).

    Raises:
        ValueError: the file is missing (naming the YAML files of ``folder``), not valid YAML,
            or not a mapping.
    """
    p = Path(path)
    if not p.is_file():
        found = sorted(str(x) for x in folder.glob("*.yaml")) if folder.is_dir() else []
        raise ValueError(f"{what} {str(path)!r} not found"
                         + (f"; here: {', '.join(found)}" if found else ""))
    try:
        data = yaml.safe_load(p.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as e:
        raise ValueError(f"{path}: not valid YAML: {e}") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path}: a {what} must be a YAML mapping")
    return data


def load_config(path: str | Path | None, overrides: list[str] | None = None,
                base: dict[str, Any] | None = None) -> PPOConfig:
    """Read a YAML config and apply ``key=value`` overrides; ``base``: values to start from
    (a checkpoint's own config) instead of the defaults."""
    values: dict[str, Any] = dict(base or {})
    if path is not None:
        data = read_yaml_mapping(path, "config file", Path("configs"))
        _unknown_keys(data, f"in {path}")
        values.update(data)
    given: dict[str, Any] = {}
    for item in overrides or []:
        if "=" not in item:
            raise ValueError(f"override {item!r} must look like key=value")
        k, v = item.split("=", 1)
        given[k.strip()] = v
    _unknown_keys(given, "in the command-line overrides")
    values.update(given)
    try:
        return make_config(values)
    except ValueError as e:
        where = f"{path} with overrides {list(given)}" if path and given else (
            path or (f"overrides {list(given)}" if given else "the default config"))
        raise ValueError(f"{where}: {e}") from None


def to_dict(cfg: PPOConfig) -> dict[str, Any]:
    """The resolved config as plain data."""
    return dataclasses.asdict(cfg)


def kl_coef_at(cfg: PPOConfig, step: int) -> float:
    """The KL penalty's coefficient after ``step`` learner steps (``kl_coef`` decaying linearly
    to 0 over ``kl_decay_steps``; constant when that is 0)."""
    if cfg.kl_decay_steps <= 0:
        return cfg.kl_coef
    return cfg.kl_coef * max(0.0, 1.0 - step / cfg.kl_decay_steps)


def oracle_keep_at(cfg: PPOConfig, step: int) -> float:
    """Oracle guiding's probability of showing each hidden-card feature after ``step`` learner
    steps: 1 falling linearly to 0 over ``oracle_steps`` (0 when oracle guiding is off)."""
    if cfg.oracle_steps <= 0:
        return 0.0
    return max(0.0, 1.0 - step / cfg.oracle_steps)
