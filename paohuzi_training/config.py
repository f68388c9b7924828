"""The trainer's configuration: the keys every stage shares, PPO's keys, and how a flat mapping
(a YAML file with ``key=value`` overrides) becomes a stage's config.

A config file is one flat mapping; each key belongs to every stage that reads it. A stage's
config is a dataclass of its own keys (:class:`PPOConfig`: PPO's; the clone, distill and
evaluate stages' in their modules) that holds the keys every network stage shares in two
sections: :class:`RunConfig` (the run's name, seed, rules and machine) and :class:`NetConfig`
(the network's shape). :func:`from_flat` builds one from a flat mapping (its keys, coerced to
their types; the other stages' keys left to them), :func:`to_dict` gives it back flat, as
checkpoints and recipe records store it. :mod:`paohuzi_training.recipe` reads whole files
(``load_config``), checking every key against every stage's.
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import yaml

from paohuzi_env.bots.registry import bot_names

if TYPE_CHECKING:
    from paohuzi_env.game.rules import Rules

ACTORS = ("mlp", "conv")
"""The actor networks of paohuzi_training/nets/model.py (config ``actor``)."""


@dataclass
class RunConfig:
    """The keys of a run that every stage shares: its name, seed, rules and machine."""

    run_name: str = "ppo"
    """Run folder name under ``runs/`` (TensorBoard) and ``checkpoints/``; the seed is appended."""
    seed: int = 1
    """Seeds every generator: workers, opponents, torch, evaluation."""
    rules: str = "huaihua"
    """Rules preset the agent is trained and evaluated under."""
    rules_overrides: dict = field(default_factory=dict)
    """Overrides of the preset (keys of :class:`paohuzi_env.game.rules.Rules`)."""
    device: str = "auto"
    """``auto`` (CUDA when present, else CPU), ``cpu`` or ``cuda``."""
    torch_threads: int = 0
    """Threads of the main process's torch (PPO's update); 0: torch's default (one per core).
    Rollout workers always use one."""
    ray: str = ""
    """Workers on Ray (:mod:`paohuzi_training.cluster`; ``paohuzi-train --ray [ADDRESS]``,
    ``paohuzi-recipe --ray``): ``""`` (off: local processes), ``local`` (start a Ray instance on
    this machine), or a cluster address (``auto``, ``ray://host:10001``). PPO's rollout workers
    become ``workers`` actors (0: one per CPU of the cluster; the learner stays in this process),
    the clone's demonstrations and the evaluations Ray tasks."""

    @functools.cached_property
    def resolved_rules(self) -> Rules:
        """The :class:`~paohuzi_env.game.rules.Rules` of ``rules`` with ``rules_overrides``, resolved
        once (on first use; :meth:`check` does it, so a bad override fails at load time)."""
        from paohuzi_env.game.rules import get_rules

        return get_rules(self.rules, **self.rules_overrides)

    def check(self) -> None:
        """Range checks with messages that say what is allowed (``ValueError``)."""
        self.resolved_rules  # noqa: B018 - resolves (and checks) the rules once
        if self.torch_threads < 0:
            raise ValueError(f"config 'torch_threads' must be >= 0, got {self.torch_threads}")
        if self.device not in ("auto", "cpu", "cuda"):
            raise ValueError(f"config 'device' must be auto, cpu or cuda, got {self.device!r}")


@dataclass
class NetConfig:
    """The network's shape, which every stage that trains or reads the network shares
    (:func:`paohuzi_training.nets.model.model_for` builds it)."""

    hidden: int = 256
    """Width of the two hidden layers of the actor and the critic (for ``actor: conv``, of
    the actor's head)."""
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
    paohuzi_training.stages.label DIR --add-waits`` adds them to an older run). Started from a network
    without them, the weights on the new inputs start at zero (it plays exactly as before)."""
    central_critic: bool = False
    """The critic also sees ``env.state()``-style full information (the actor never does)."""
    prior: str = "none"
    """Residual policy learning: a rule-based bot (``greedy`` or ``expert``) whose choice is
    added to the actor's logits with weight ``prior_weight`` and shown to the actor as a
    one-hot input; the network learns corrections to it. The bot reads only the seat's
    ``PlayerView``, like the actor. ``none``: a plain network."""
    prior_weight: float = 4.0
    """Logit bonus of the prior's choice. A fresh network (near-zero logits) then plays the
    prior's choice under argmax and samples it with probability e^w / (e^w + legal - 1)."""

    def check(self) -> None:
        """Range checks with messages that say what is allowed (``ValueError``)."""
        if self.actor not in ACTORS:
            raise ValueError(f"config 'actor' must be one of {', '.join(ACTORS)}, got {self.actor!r}")
        for name in ("hidden", "conv_channels"):
            if getattr(self, name) < 1:
                raise ValueError(f"config {name!r} must be >= 1, got {getattr(self, name)}")
        if self.critic_hidden < 0:
            raise ValueError(f"config 'critic_hidden' must be >= 0 (0: hidden), got {self.critic_hidden}")
        if self.prior not in ("none", "greedy", "expert"):
            raise ValueError(f"config 'prior' must be none, greedy or expert, got {self.prior!r}")
        if self.prior_weight < 0:
            raise ValueError(f"config 'prior_weight' must be >= 0, got {self.prior_weight}")


class Shared:
    """The shared sections' keys read as a stage config's own (``cfg.seed`` is ``cfg.run.seed``,
    ``cfg.hidden`` is ``cfg.net.hidden``), as a flat config file names them."""

    run: RunConfig
    net: NetConfig

    @property
    def run_name(self) -> str:
        """``run.run_name``."""
        return self.run.run_name

    @property
    def seed(self) -> int:
        """``run.seed``."""
        return self.run.seed

    @property
    def rules(self) -> str:
        """``run.rules``."""
        return self.run.rules

    @property
    def rules_overrides(self) -> dict:
        """``run.rules_overrides``."""
        return self.run.rules_overrides

    @property
    def resolved_rules(self) -> Rules:
        """``run.resolved_rules``."""
        return self.run.resolved_rules

    @property
    def device(self) -> str:
        """``run.device``."""
        return self.run.device

    @property
    def torch_threads(self) -> int:
        """``run.torch_threads``."""
        return self.run.torch_threads

    @property
    def ray(self) -> str:
        """``run.ray``."""
        return self.run.ray

    @property
    def hidden(self) -> int:
        """``net.hidden``."""
        return self.net.hidden

    @property
    def critic_hidden(self) -> int:
        """``net.critic_hidden``."""
        return self.net.critic_hidden

    @property
    def actor(self) -> str:
        """``net.actor``."""
        return self.net.actor

    @property
    def conv_channels(self) -> int:
        """``net.conv_channels``."""
        return self.net.conv_channels

    @property
    def wait_features(self) -> bool:
        """``net.wait_features``."""
        return self.net.wait_features

    @property
    def central_critic(self) -> bool:
        """``net.central_critic``."""
        return self.net.central_critic

    @property
    def prior(self) -> str:
        """``net.prior``."""
        return self.net.prior

    @property
    def prior_weight(self) -> float:
        """``net.prior_weight``."""
        return self.net.prior_weight


@dataclass
class LeagueConfig:
    """Who the PPO learner plays against: itself, its past snapshots, the rule bots and fixed
    agents, by share of hands (:mod:`paohuzi_training.stages.league`)."""

    opponent_self: float = 0.3
    """Share of hands where the current policy sits in all three seats."""
    opponent_snapshots: float = 0.2
    """Share of hands against two past snapshots (sampled preferring those that beat it)."""
    opponent_bots: dict = field(default_factory=lambda: {"expert": 0.4, "greedy": 0.1})
    """Shares of hands against two copies of each rule-based bot."""
    opponent_agents: dict = field(default_factory=dict)
    """Shares of hands against two fixed copies of any agent spec (``checkpoint:PATH``,
    ``network:PATH``, ``search:...``, a bot): what ``paohuzi-exploit`` trains a best response
    against, and a league option (say the exploiters ``paohuzi-exploit`` exports). A
    ``checkpoint:`` network plays batched in torch; other agents decide hand by hand."""
    snapshot_every: int = 20
    """Iterations between snapshots added to the opponent pool."""
    snapshot_pool: int = 8
    """Most snapshots kept in the pool."""

    def check(self) -> None:
        """Range checks with messages that say what is allowed (``ValueError``)."""
        shares = [self.opponent_self, self.opponent_snapshots, *self.opponent_bots.values(),
                  *self.opponent_agents.values()]
        if any(s < 0 for s in shares) or sum(shares) <= 0:
            raise ValueError("opponent shares must be non-negative and not all zero")
        bad = sorted(set(self.opponent_bots) - set(bot_names()))
        if bad:
            raise ValueError(f"unknown bot(s) {bad} in opponent_bots; valid: {', '.join(bot_names())}")
        for spec, share in self.opponent_agents.items():
            if not isinstance(spec, str) or isinstance(share, bool) or not isinstance(share, (int, float)):
                raise ValueError(f"opponent_agents maps agent specs to shares, got {spec!r}: {share!r}")


@dataclass
class AuxConfig:
    """PPO's auxiliary loss toward a search's labelled decisions
    (:func:`paohuzi_training.stages.auxloss.aux_loss`): the actor is also trained toward the
    action the search chose."""

    aux_labels: list = field(default_factory=list)
    """Label directories (``python -m paohuzi_training.stages.label``: the search's decisions)
    whose chosen actions the actor is also trained toward inside PPO, an auxiliary loss (empty:
    none). In a recipe with a labels stage, ``aux_coef`` > 0 reads that stage's labels."""
    aux_coef: float = 0.0
    """Weight of the auxiliary loss: the cross-entropy of the search's chosen action under the
    actor, over ``minibatch_size`` labelled decisions drawn with each PPO minibatch, each
    departure (a decision where the search chose another action than the argmax of the network
    PPO starts from) weighted ``aux_departure_weight`` and the others 1."""
    aux_departure_weight: float = 1.0
    """Weight of a departure in the auxiliary loss (1: every labelled decision alike)."""

    def check(self) -> None:
        """Range checks with messages that say what is allowed (``ValueError``)."""
        if self.aux_coef < 0 or self.aux_departure_weight <= 0:
            raise ValueError(f"config 'aux_coef' must be >= 0 and 'aux_departure_weight' > 0, got "
                             f"{self.aux_coef} and {self.aux_departure_weight}")
        if not all(isinstance(d, str) and d for d in self.aux_labels):
            raise ValueError("config 'aux_labels' must be a list of label directories")
        if self.aux_coef > 0 and not self.aux_labels:
            raise ValueError("config 'aux_coef' > 0 needs 'aux_labels' (label directories of the "
                             "search's decisions)")


@dataclass
class PPOConfig(Shared):
    """The PPO stage's keys (:mod:`paohuzi_training.stages.ppo`), with the run and the network
    it shares with the other stages; each field's docstring says what it does."""

    run: RunConfig = field(default_factory=RunConfig)
    """The run's name, seed, rules and machine (shared by every stage)."""
    net: NetConfig = field(default_factory=NetConfig)
    """The network's shape (shared by every stage that trains it)."""
    total_steps: int = 2_000_000
    """Learner decisions (transitions) to train on."""
    workers: int = 0
    """Rollout processes; 0 means one per CPU core."""
    games_per_worker: int = 32
    """Hands stepped together in each worker, one batched forward pass per tick."""
    steps_per_worker: int = 1024
    """Learner transitions each worker sends per iteration (whole trajectories only)."""
    update_precision: str = "float32"
    """The PPO update's arithmetic: ``float32``, ``bfloat16`` (autocast: the layers' matrix
    products in bfloat16, the weights, the optimiser, the logits and the losses in float32), or
    ``auto``: bfloat16 where the hardware does it natively (a CPU with AVX512-BF16 or AMX, a
    CUDA device with bfloat16), else float32. bfloat16 runs the conv actor's update about 1.8x
    faster on such a CPU (``python -m paohuzi_training.tools.bench`` measures it) and is slower on
    one without."""
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
    league: LeagueConfig = field(default_factory=LeagueConfig)
    """Who the learner plays against (:mod:`paohuzi_training.stages.league`)."""
    kl_coef: float = 0.0
    """PPO with a KL penalty ``kl_coef * KL(policy || reference)`` over the legal actions,
    the reference being the PPO stage's ``kl_ref`` input (by default the network the stage starts
    from, frozen; a fresh run without a start: its initial network); 0: none (the KL to the
    reference is still logged when there is one)."""
    kl_decay_steps: int = 0
    """The penalty decays linearly to 0 over this many learner steps (0: constant)."""
    aux: AuxConfig = field(default_factory=AuxConfig)
    """The auxiliary loss toward a search's labelled decisions (off by default)."""
    save_every: int = 10
    """Iterations between checkpoints (a checkpoint is also written at the end)."""
    save_minutes: float = 2.0
    """Also write ``latest.pt`` when this many minutes have passed since the last one (so a
    long iteration schedule still saves within minutes); 0: by ``save_every`` only."""
    overlap: bool = True
    """With worker processes, collect the next batch while this one trains (the next batch is
    then played by the weights from before this update: one iteration of policy lag, which the
    PPO ratio accounts for, as each transition keeps the log-probability it was played with).
    Iteration time becomes max(rollout, update) instead of their sum."""
    backend: str = "auto"
    """Rollout engine of the one rollout loop (:mod:`paohuzi_training.stages.rollout`): ``fast`` (the
    compiled core's ``VectorGame``), ``python`` (the reference engine's ``ReferenceVectorGame``),
    or ``auto``: fast when the core is built."""

    def check(self) -> None:
        """Range checks with messages that say what is allowed (``ValueError``)."""
        from paohuzi_env.encode.rewards import REWARD_MODES

        if self.reward not in REWARD_MODES:
            raise ValueError(f"config 'reward' must be one of {', '.join(REWARD_MODES)}, got {self.reward!r}")
        if self.total_steps < 0:
            raise ValueError(f"config 'total_steps' must be >= 0, got {self.total_steps}")
        for name in ("games_per_worker", "steps_per_worker", "update_epochs", "minibatch_size"):
            if getattr(self, name) < 1:
                raise ValueError(f"config {name!r} must be >= 1, got {getattr(self, name)}")
        if self.workers < 0:
            raise ValueError(f"config 'workers' must be >= 0, got {self.workers}")
        if self.save_minutes < 0:
            raise ValueError(f"config 'save_minutes' must be >= 0, got {self.save_minutes}")
        if self.update_precision not in ("float32", "bfloat16", "auto"):
            raise ValueError(f"config 'update_precision' must be float32, bfloat16 or auto, got "
                             f"{self.update_precision!r}")
        for spec in self.league.opponent_agents:
            from paohuzi_env.agents import make_agent

            try:
                make_agent(spec, seed=0, rules=self.resolved_rules)
            except (ValueError, KeyError) as e:
                raise ValueError(f"opponent_agents: {spec!r} is not an agent this trainer can "
                                 f"build: {e}") from None
        if self.reward_baseline not in ("none", "expert"):
            raise ValueError(f"config 'reward_baseline' must be none or expert, got {self.reward_baseline!r}")
        if self.reward_baseline != "none" and self.reward == "win":
            raise ValueError("config 'reward_baseline' needs reward score or normalized (a win/loss "
                             "reward has no points to subtract from)")
        if self.advantage not in ("gae", "rollout"):
            raise ValueError(f"config 'advantage' must be gae or rollout, got {self.advantage!r}")
        if self.advantage == "rollout" and self.prior == "none":
            raise ValueError("config 'advantage: rollout' needs a 'prior' (greedy or expert) to "
                             "measure departures from")
        if self.advantage == "rollout" and self.reward == "win":
            raise ValueError("config 'advantage: rollout' needs reward score or normalized")
        if self.oracle_steps < 0 or self.oracle_steps > self.total_steps:
            raise ValueError(f"config 'oracle_steps' must be in [0, total_steps] (the network must end "
                             f"its training without the hidden cards), got {self.oracle_steps} with "
                             f"total_steps {self.total_steps}")
        if self.oracle_steps > 0 and not self.central_critic:
            raise ValueError("config 'oracle_steps' > 0 needs central_critic: true (the hidden cards "
                             "the actor reads come with the central critic's full-information "
                             "features)")
        if self.kl_coef < 0 or self.kl_decay_steps < 0:
            raise ValueError(f"config 'kl_coef' and 'kl_decay_steps' must be >= 0, got "
                             f"{self.kl_coef} and {self.kl_decay_steps}")
        if self.aux.aux_coef > 0 and self.prior != "none":
            raise ValueError("config 'aux_coef' > 0 trains the actor on the labels' observations "
                             "alone: it needs prior: none")
        if self.backend not in ("auto", "fast", "python"):
            raise ValueError(f"config 'backend' must be auto, fast or python, got {self.backend!r}")


# ---------------------------------------------------------------------- flat mappings

C = TypeVar("C")

_OPTIONAL = ("target_kl",)
"""Keys that may be None."""


def flat_fields(cls: type) -> dict[str, dataclasses.Field]:
    """The flat keys of a config dataclass (its sections' keys in place of the sections)."""
    out: dict[str, dataclasses.Field] = {}
    for f in dataclasses.fields(cls):
        sub = f.default_factory
        if dataclasses.is_dataclass(sub) and isinstance(sub, type):
            out.update(flat_fields(sub))
        else:
            out[f.name] = f
    return out


def coerce(f: dataclasses.Field, value: Any) -> Any:
    """``value`` as the type of the field ``f`` (YAML and ``key=value`` strings read as YAML);
    ``ValueError`` naming the key and the type it must have."""
    name = f.name
    default = f.default_factory() if f.default_factory is not dataclasses.MISSING else f.default
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


def from_flat(cls: type[C], values: dict[str, Any]) -> C:
    """The config ``cls`` (a dataclass, its sections built alike) from a flat mapping: the keys it
    has, coerced; the others are left to the stages that read them. Runs ``check()`` where the
    class has one (``ValueError`` saying what is allowed)."""
    kwargs: dict[str, Any] = {}
    for f in dataclasses.fields(cls):  # type: ignore[arg-type]
        sub = f.default_factory
        if dataclasses.is_dataclass(sub) and isinstance(sub, type):
            kwargs[f.name] = from_flat(sub, values)
        elif f.name in values:
            kwargs[f.name] = coerce(f, values[f.name])
    cfg = cls(**kwargs)
    check = getattr(cfg, "check", None)
    if check is not None:
        check()
    return cfg


def to_dict(cfg: Any) -> dict[str, Any]:
    """A stage config as one flat mapping (its sections' keys in place of the sections): what a
    checkpoint and a recipe record keep. A whole flat config
    (:class:`paohuzi_training.recipe.TrainConfig`) gives its mapping."""
    if not dataclasses.is_dataclass(cfg):
        return dict(cfg.to_dict())
    out: dict[str, Any] = {}
    for f in dataclasses.fields(cfg):
        v = getattr(cfg, f.name)
        if dataclasses.is_dataclass(v) and not isinstance(v, type):
            out.update(to_dict(v))
        else:
            out[f.name] = dict(v) if isinstance(v, dict) else list(v) if isinstance(v, list) else v
    return out


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
