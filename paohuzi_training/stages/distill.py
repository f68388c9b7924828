"""Distillation: the actor learns the search's decisions from labelled data (issue 26).

``python -m paohuzi_training.stages.label OUT ...`` writes, for every decision of a search seat with a choice,
the seat's observation, the legal mask, the search's mean outcome and standard error of every
legal action it played out, the action it chose and the hand's final points. This module fits a
network (:class:`paohuzi_training.nets.model.ActorCritic`) to them:

* a **soft target** over the legal actions the search played out: ``softmax(mean / T)``
  (``distill_temperature`` T, in points), the search's own estimate of how good each action is;
  actions it never played out (pruned before their first world, or a win taken at once) get
  no mass in it;
* the **chosen action** (cross-entropy), which carries the search's significance rule: it
  leaves the rollout bot's move only for a significant gain;
* the **value head**: the hand's final points as the trainer's ``reward`` mode scores them
  (``normalized``: points / 64, clipped), by mean squared error. The labels hold the seat's
  observation only, so the critic distilled is the plain one (``central_critic: false``).

Loss = ``distill_soft`` x soft cross-entropy + (1 - ``distill_soft``) x hard cross-entropy +
``vf_coef`` x value loss (+ ``distill_anchor`` x ``KL(start || network)`` over the legal
actions, with the start's policy computed once before the first step: it holds a network that
already plays most labels to its own moves while it learns the rest). The two cross-entropies
are means over the decisions weighted by ``distill_departure_weight`` where the search's choice
departs from the argmax of the network the phase starts from (the guide, in a round of expert
iteration: the decisions where the search knew better), 1 elsewhere. A held-out share of the
hands (``distill_holdout``: every hand whose number modulo ``round(1 / distill_holdout)`` is 0,
so the split does not depend on the shard order) is never trained on; after each epoch its
agreement with the search's choice, its soft cross-entropy and its value loss go to TensorBoard
(``distill/...``) and the log.

The phase runs in resumable pieces: after every epoch the network, the optimiser, the epoch and
the generator state are written atomically to ``checkpoints/<run>__<seed>/distill.pt`` (the same
file replaced, loadable with ``weights_only=True``); a run started again with the same config
continues from the last finished epoch.

``run(DistillConfig, DistillInputs) -> Path`` is the stage: the network it starts from is an input
(``start``: the clone's, or a trained network in a round of expert iteration; none: a fresh one),
and it writes the distilled network as a checkpoint, which the PPO stage then starts from (with
an optional KL penalty toward it: ``kl_coef``, decaying over ``kl_decay_steps``; see
:func:`paohuzi_training.stages.ppo.ppo_update`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch

from paohuzi_env.encode.observation import obs_size, obs_version
from paohuzi_env.encode.rewards import NORMALIZER

from ..config import NetConfig, RunConfig, Shared, to_dict
from ..nets.checkpoint import load_checkpoint, save_checkpoint
from .label import META, load_labels


@dataclass
class DistillConfig(Shared):
    """The distill stage's keys, with the run and the network it shares with the other stages."""

    run: RunConfig = field(default_factory=RunConfig)
    """The run's name, seed, rules and machine."""
    net: NetConfig = field(default_factory=NetConfig)
    """The network's shape."""
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
    another action than the argmax of the network the distillation starts from (its ``start``:
    in a round of expert iteration, the network that guided the search), the
    decisions where the search found something the network did not know. 1: every decision
    alike."""
    distill_learning_rate: float = 1e-3
    """Adam learning rate of the distillation phase."""
    distill_anchor: float = 0.0
    """Weight of ``KL(start || network)`` over the legal actions of every labelled decision, the
    start being the network the distillation starts from as it was before any step: it holds the
    network to its own policy where the labels only repeat it, so that fitting the departures does
    not move its argmax elsewhere (0: none; needs a start network)."""
    distill_holdout: float = 0.05
    """Share of the labelled hands held out to measure agreement and value loss (0: none)."""
    minibatch_size: int = 1024
    """Labelled decisions per gradient step (the key PPO reads too)."""
    reward: str = "normalized"
    """How the value head's target scores a hand's points (the key PPO reads too)."""
    vf_coef: float = 0.5
    """The value loss's weight (the key PPO reads too)."""
    max_grad_norm: float = 0.5
    """Gradient clipping norm (the key PPO reads too)."""

    def check(self) -> None:
        """Range checks with messages that say what is allowed (``ValueError``)."""
        if not all(isinstance(d, str) and d for d in self.distill_labels):
            raise ValueError("config 'distill_labels' must be a list of label directories")
        if self.distill_labels and (self.prior != "none" or self.central_critic):
            raise ValueError("config 'distill_labels' trains a plain network from the seat's "
                             "observation: it needs prior: none and central_critic: false (PPO "
                             "after it may use a central critic: start a second run from the "
                             "distilled network)")
        if self.distill_anchor < 0:
            raise ValueError(f"config 'distill_anchor' must be >= 0, got {self.distill_anchor}")
        if self.distill_departure_weight <= 0:
            raise ValueError(f"config 'distill_departure_weight' must be > 0, got "
                             f"{self.distill_departure_weight}")
        if self.distill_epochs < 0 or self.distill_temperature <= 0 or self.distill_learning_rate <= 0:
            raise ValueError("config 'distill_epochs' must be >= 0, 'distill_temperature' and "
                             "'distill_learning_rate' > 0")
        if not 0 <= self.distill_soft <= 1 or not 0 <= self.distill_holdout <= 0.5:
            raise ValueError(f"config 'distill_soft' must be in [0, 1] and 'distill_holdout' in "
                             f"[0, 0.5], got {self.distill_soft} and {self.distill_holdout}")


@dataclass
class DistillInputs:
    """What the distill stage reads and writes: ``start``, the network it starts from (a
    checkpoint or an exported ``.safetensors``; "" for a fresh one); ``folder``, where its
    resumable state lies; ``out``, the checkpoint it writes; ``runs``, a TensorBoard folder (or
    None)."""

    folder: Path
    out: Path
    start: str = ""
    runs: Path | None = None
    trust: bool | None = None


def run(config: DistillConfig, inputs: DistillInputs, log=print) -> Path:
    """Distil the labels of ``config.distill_labels`` into the network ``inputs.start`` (or a
    fresh one); returns ``inputs.out``."""
    from ..nets.model import model_for
    from .housekeeping import load_start, resolve_device

    torch.manual_seed(config.seed)
    rng = np.random.default_rng(np.random.SeedSequence([config.seed, 1]))
    device = resolve_device(config.device)
    model = model_for(config).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=config.distill_learning_rate, eps=1e-5)
    if inputs.start:
        load_start(model, inputs.start, config.resolved_rules, log, inputs.trust)
    writer = None
    if inputs.runs is not None:
        from torch.utils.tensorboard import SummaryWriter

        writer = SummaryWriter(str(inputs.runs))
    t0 = time.perf_counter()
    try:
        history = distill(model, optimizer, config, device, rng, log, writer, inputs.folder,
                          start_network=inputs.start)
    finally:
        if writer is not None:
            writer.close()
    save_checkpoint(inputs.out, {
        "model": model.state_dict(), "config": to_dict(config),
        "rules": config.resolved_rules.to_record(), "global_step": 0, "iteration": 0,
        "train_seconds": time.perf_counter() - t0, "distill_history": history})
    log(f"distill: {inputs.out}")
    return inputs.out

STATE_NAME = "distill.pt"
"""The distillation phase's resumable state, in the run's checkpoint folder."""
KEY_FIELDS = ("seed", "rules", "rules_overrides", "hidden", "reward", "vf_coef", "max_grad_norm",
              "minibatch_size", "distill_temperature", "distill_soft", "distill_departure_weight",
              "distill_learning_rate", "distill_holdout", "actor", "conv_channels", "wait_features",
              "distill_anchor")
"""The config fields a saved distillation state must share to be continued, with the labels and
the start network (``distill_epochs`` is not one: raising it continues a finished phase for
more epochs)."""


def value_target(points: np.ndarray, reward: str) -> np.ndarray:
    """The critic's target for a seat's final points under the trainer's ``reward`` mode."""
    p = np.asarray(points, dtype=np.float32)
    if reward == "normalized":
        return np.clip(p / NORMALIZER, -1.0, 1.0).astype(np.float32)
    if reward == "score":
        return p
    if reward == "win":  # a positive score is a win (the winner alone scores above 0)
        return np.where(p > 0, 1.0, np.where(p < 0, -1.0, 0.0)).astype(np.float32)
    raise ValueError(f"unknown reward mode {reward!r}")


def soft_targets(mean: np.ndarray, mask: np.ndarray, action: np.ndarray,
                 temperature: float) -> np.ndarray:
    """``softmax(mean / T)`` over the legal actions the search played out (float32 (n, 61)).

    A row where the search played nothing out (a win taken at once) gets all its mass on the
    chosen action."""
    if temperature <= 0:
        raise ValueError(f"the temperature must be > 0, got {temperature}")
    m = np.asarray(mean, dtype=np.float64)
    ok = np.asarray(mask, dtype=bool) & np.isfinite(m)
    z = np.where(ok, m / temperature, -np.inf)
    top = np.max(z, axis=1, keepdims=True)
    none = ~np.isfinite(top[:, 0])
    top[none] = 0.0
    e = np.where(ok, np.exp(z - top), 0.0)
    s = e.sum(axis=1, keepdims=True)
    s[none] = 1.0
    out = (e / s).astype(np.float32)
    rows = np.flatnonzero(none)
    out[rows] = 0.0
    out[rows, np.asarray(action)[rows]] = 1.0
    return out


def load_targets(dirs: Sequence[str], cfg: DistillConfig,
                 key: str = "distill_labels") -> dict[str, np.ndarray]:
    """The label runs in ``dirs`` (the config key ``key`` names them, for the errors) as
    training arrays: ``obs`` (the network's input: with
    ``wait_features`` the observation and then the stored wait features), ``mask``, ``soft``,
    ``action``, ``value`` and ``held`` (the held-out rows).

    Raises:
        ValueError: a directory with no labels, labels of another observation (rules), or, with
            ``wait_features``, labels without them.
    """
    import json

    rules = cfg.resolved_rules
    parts: list[dict[str, np.ndarray]] = []
    for k, d in enumerate(dirs):
        meta_path = Path(d) / META
        if not meta_path.is_file():
            raise ValueError(f"{key}: {d} is not a label run (no {META}); make one with "
                             "python -m paohuzi_training.stages.label")
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        if meta.get("obs_version") != obs_version(rules) or meta.get("obs_size") != obs_size(rules):
            raise ValueError(
                f"{key}: {d} holds {meta.get('obs_version')} observations of size "
                f"{meta.get('obs_size')}; this config's rules {rules.name!r} need "
                f"{obs_version(rules)} of size {obs_size(rules)}")
        lab = load_labels(d, waits=cfg.wait_features)
        lab["run"] = np.full(len(lab["action"]), k, np.int64)
        if cfg.wait_features:
            lab["obs"] = np.concatenate([lab["obs"], lab.pop("waits")], axis=1)
        parts.append(lab)
    if not parts:
        raise ValueError(f"{key} is empty: name at least one label directory")
    lab = {key: np.concatenate([p[key] for p in parts]) for key in parts[0]}
    every = max(2, round(1.0 / cfg.distill_holdout)) if cfg.distill_holdout > 0 else 0
    held = (lab["hand"] % every == 0) if every else np.zeros(len(lab["action"]), bool)
    return {
        "obs": lab["obs"].astype(np.float32),
        "mask": lab["mask"].astype(bool),
        "soft": soft_targets(lab["mean"], lab["mask"], lab["action"], cfg.distill_temperature),
        "action": lab["action"].astype(np.int64),
        "value": value_target(lab["points"], cfg.reward),
        "held": held,
    }


def masked_logits(model, obs: torch.Tensor, mask: torch.Tensor,
                  batch: int = 4096) -> torch.Tensor:
    """``model``'s masked logits for every row, in batches, without gradients."""
    out = []
    with torch.no_grad():
        for start in range(0, len(obs), batch):
            out.append(model.masked_logits(obs[start:start + batch], mask[start:start + batch]))
    return torch.cat(out) if out else torch.zeros(0, 61)


def departures(model, obs: torch.Tensor, mask: torch.Tensor, action: torch.Tensor,
               batch: int = 4096, logits: torch.Tensor | None = None) -> torch.Tensor:
    """Where the labelled ``action`` differs from ``model``'s masked argmax (bool, one a row);
    ``logits``: those masked logits, when already computed."""
    if logits is None:
        logits = masked_logits(model, obs, mask, batch)
    return logits.argmax(-1) != action if len(action) else torch.zeros(0, dtype=torch.bool)


def start_log_probs(model, obs: torch.Tensor, mask: torch.Tensor, batch: int = 4096,
                    logits: torch.Tensor | None = None) -> torch.Tensor:
    """``model``'s log-probabilities over the legal actions (float32 (n, 61), 0 where illegal):
    the anchor's target, computed once before the first step; ``logits`` as for
    :func:`departures`."""
    if logits is None:
        logits = masked_logits(model, obs, mask, batch)
    lp = torch.log_softmax(logits, dim=-1)
    return torch.where(mask, lp, torch.zeros_like(lp))


def _losses(model, obs, mask, soft, action, value, weight=None,
            anchor=None) -> dict[str, torch.Tensor]:
    logits = model.masked_logits(obs, mask)
    logp = torch.log_softmax(logits, dim=-1)
    soft_row = -(torch.where(mask, soft * logp, torch.zeros_like(logp))).sum(-1)
    hard_row = -logp.gather(1, action[:, None])[:, 0]
    if weight is None:
        soft_ce, hard_ce = soft_row.mean(), hard_row.mean()
    else:
        soft_ce, hard_ce = ((soft_row * weight).sum() / weight.sum(),
                            (hard_row * weight).sum() / weight.sum())
    v_loss = 0.5 * ((model.value(obs) - value) ** 2).mean()
    agree = (logits.argmax(-1) == action).float().mean()
    out = {"soft_ce": soft_ce, "hard_ce": hard_ce, "value_loss": v_loss, "agreement": agree}
    if anchor is not None:  # KL(start || network) over the legal actions, a mean over rows
        kl_row = torch.where(mask, anchor.exp() * (anchor - logp), torch.zeros_like(logp)).sum(-1)
        out["anchor_kl"] = kl_row.mean()
    return out


def _evaluate(model, t: dict[str, torch.Tensor], rows: torch.Tensor,
              batch: int = 4096) -> dict[str, float]:
    """Mean held-out losses and agreement over ``rows``."""
    sums: dict[str, float] = {}
    with torch.no_grad():
        for start in range(0, len(rows), batch):
            mb = rows[start:start + batch]
            out = _losses(model, t["obs"][mb], t["mask"][mb], t["soft"][mb], t["action"][mb],
                          t["value"][mb])
            for k, v in out.items():
                sums[k] = sums.get(k, 0.0) + float(v) * len(mb)
    return {k: v / max(1, len(rows)) for k, v in sums.items()}


def distill(model, optimizer, cfg: DistillConfig, device, rng: np.random.Generator, log,
            writer: Any = None, folder: Path | None = None,
            start_network: str = "") -> list[dict[str, float]]:
    """Fit ``model`` to the labels of ``cfg.distill_labels`` for ``cfg.distill_epochs`` epochs,
    continuing from ``folder / distill.pt`` when an earlier run of the same config stopped part
    way. Returns the per-epoch history (train and held-out figures)."""
    from tqdm import tqdm

    if cfg.prior != "none":
        raise ValueError("distillation trains a plain network: set prior: none")
    data = load_targets(cfg.distill_labels, cfg)
    t = {k: torch.as_tensor(v, device=device) for k, v in data.items() if k != "held"}
    train_rows = np.flatnonzero(~data["held"])
    held_rows = torch.as_tensor(np.flatnonzero(data["held"]), device=device)
    if len(train_rows) == 0:
        raise ValueError("distillation: every labelled hand is held out; lower distill_holdout "
                         "or label more hands")
    # The departures are the starting network's: computed before any saved state is loaded.
    if cfg.distill_anchor > 0 and not start_network:
        raise ValueError("config 'distill_anchor' holds the network to the one it starts "
                         "from: give a start network (the recipe's start, or init_from)")
    start_logits = masked_logits(model, t["obs"], t["mask"])
    depart = departures(model, t["obs"], t["mask"], t["action"], logits=start_logits)
    weight = (None if cfg.distill_departure_weight == 1.0 else  # 1: the plain means, exactly
              torch.where(depart, cfg.distill_departure_weight, 1.0).to(t["obs"].dtype))
    anchor = (start_log_probs(model, t["obs"], t["mask"], logits=start_logits)
              if cfg.distill_anchor > 0 else None)
    del start_logits
    state_path = (folder or Path("checkpoints") / f"{cfg.run_name}__{cfg.seed}") / STATE_NAME
    history: list[dict[str, float]] = []
    epoch = 0
    # What the phase's result depends on: a saved state with another key is not continued.
    settings = to_dict(cfg)
    key = {"labels": [str(Path(d).resolve()) for d in cfg.distill_labels],
           "rows": int(len(data["action"])), "start": str(start_network),
           **{k: settings[k] for k in KEY_FIELDS}}
    if state_path.is_file():
        saved = load_checkpoint(state_path)
        if saved.get("key") == key:
            model.load_state_dict(saved["model"])
            optimizer.load_state_dict(saved["optimizer"])
            rng.bit_generator.state = saved["rng_state"]
            torch.set_rng_state(saved["torch_rng_state"])
            epoch, history = int(saved["epoch"]), list(saved["history"])
            log(f"distillation: resumed {state_path} after epoch {epoch}")
        else:
            log(f"distillation: {state_path} is from other labels or settings; starting afresh")
    log(f"distillation: {len(train_rows):,} labelled decisions to learn, {len(held_rows):,} held "
        f"out, {cfg.distill_epochs} epochs (soft target: softmax of the search's mean points at "
        f"temperature {cfg.distill_temperature:g}, weight {cfg.distill_soft:g}); "
        f"{int(depart[torch.as_tensor(train_rows)].sum()):,} of them "
        f"depart from the starting network's move (weight {cfg.distill_departure_weight:g})")
    for group in optimizer.param_groups:
        group["lr"] = cfg.distill_learning_rate
    steps = math.ceil(len(train_rows) / cfg.minibatch_size)
    bar = tqdm(total=cfg.distill_epochs * steps, initial=epoch * steps, desc="distill",
               unit="batch", dynamic_ncols=True, disable=None)
    try:
        while epoch < cfg.distill_epochs:
            perm = torch.as_tensor(rng.permutation(train_rows), device=device)
            sums: dict[str, float] = {}
            for start in range(0, len(perm), cfg.minibatch_size):
                mb = perm[start:start + cfg.minibatch_size]
                out = _losses(model, t["obs"][mb], t["mask"][mb], t["soft"][mb], t["action"][mb],
                              t["value"][mb], None if weight is None else weight[mb],
                              None if anchor is None else anchor[mb])
                loss = (cfg.distill_soft * out["soft_ce"] + (1 - cfg.distill_soft) * out["hard_ce"]
                        + cfg.vf_coef * out["value_loss"])
                if anchor is not None:
                    loss = loss + cfg.distill_anchor * out["anchor_kl"]
                optimizer.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.max_grad_norm)
                optimizer.step()
                for k, v in out.items():
                    sums[k] = sums.get(k, 0.0) + v.item() * len(mb)
                bar.update(1)
            epoch += 1
            row: dict[str, float] = {f"train_{k}": x / len(perm) for k, x in sums.items()}
            if len(held_rows):
                row.update({f"heldout_{k}": v for k, v in _evaluate(model, t, held_rows).items()})
            row["epoch"] = epoch
            history.append(row)
            if writer is not None:
                for name, x in row.items():
                    if name != "epoch":
                        writer.add_scalar(f"distill/{name}", x, epoch)
            log(f"distill epoch {epoch}/{cfg.distill_epochs}: train agreement "
                f"{row['train_agreement']:.3f}, soft CE {row['train_soft_ce']:.4f}, value loss "
                f"{row['train_value_loss']:.4f}" + (
                    f" | held-out agreement {row['heldout_agreement']:.3f}, soft CE "
                    f"{row['heldout_soft_ce']:.4f}, value loss {row['heldout_value_loss']:.4f}"
                    if len(held_rows) else ""))
            state_path.parent.mkdir(parents=True, exist_ok=True)
            rules = cfg.resolved_rules
            save_checkpoint(state_path, {
                "config": settings, "rules": rules.to_record(),
                "key": key, "model": model.state_dict(), "optimizer": optimizer.state_dict(),
                "epoch": epoch, "history": history, "rng_state": rng.bit_generator.state,
                "torch_rng_state": torch.get_rng_state()})
    finally:
        bar.close()
    return history
