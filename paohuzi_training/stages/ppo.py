"""The PPO stage: masked PPO self-play for 跑胡子, in the spirit of CleanRL's ``ppo.py``.

``run(PPOConfig, PPOInputs) -> Path`` trains and returns the final checkpoint's path. One network
plays every seat from the seat-relative observation. Read top to bottom: the setup (seeding, the
network, Adam, the snapshot league; a resumed run's state; the start network and the KL
reference, both inputs of the stage), then each iteration: 1. the rollout (workers, local
processes or Ray actors, play a batch; its advantages are GAE over each (hand, seat) trajectory,
computed as the batch is taken: :mod:`paohuzi_training.stages.batch`), 2. the clipped update
(:func:`ppo_update`, below), 3. logging, the league, checkpoints and the periodic evaluation.
What the project adds to CleanRL, each where it acts: the central critic (``extra``, the critic's
full-information input), the duplicate-deal baseline (``reward_baseline``, in the rollouts), the
snapshot league (:mod:`paohuzi_training.stages.league`), the bfloat16 update (``bf16``), the
resume (``inputs.resume``), oracle guiding (``oracle_steps``), the KL penalty toward
``inputs.kl_ref`` and the auxiliary loss toward a search's labelled decisions (``aux_coef``).

Checkpoints are atomic, ``<root>/checkpoints/<run>__<seed>/latest.pt`` and ``final.pt``;
TensorBoard logs go to ``<root>/runs/<run>__<seed>``. ``paohuzi-train`` and ``paohuzi-recipe``
run this stage through :mod:`paohuzi_training.recipe`.
"""

from __future__ import annotations

import copy
import dataclasses
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from paohuzi_env.backends.select import resolve_backend, vector_game_class

from ..config import PPOConfig, kl_coef_at, oracle_keep_at, to_dict
from ..nets.checkpoint import save_checkpoint
from ..nets.model import model_for
from .auxloss import aux_loss, aux_targets
from .batch import merge
from .evaluate import EvalConfig, periodic
from .housekeeping import (
    StopFlag,
    bfloat16_update,
    frozen,
    load_start,
    log_iteration,
    log_line,
    resolve_device,
    resume_state,
)
from .league import League, frozen_state
from .workers import make_workers


@dataclass
class PPOInputs:
    """What the PPO stage starts from and where it writes.

    ``start``: the network to start from (a checkpoint or an exported ``.safetensors``: its actor,
    its critic where the shapes match; "": a fresh network). ``kl_ref``: the frozen network of
    the KL penalty (``kl_coef``, decaying over ``kl_decay_steps``): ``start`` (default: the
    network the stage starts from, after loading ``start``; without a start, the fresh network,
    only when ``kl_coef`` > 0), ``none``, or a network file. ``resume``: a ``latest.pt`` to
    continue. ``root``: the folder of ``checkpoints/`` and ``runs/``. ``evaluate``: the periodic
    evaluation (None: none). ``initial``: where to save the network PPO starts from.
    ``continue_with``: how a stopped run goes on, for the log (default: ``--resume`` its
    ``latest.pt``)."""

    start: str = ""
    kl_ref: str = "start"
    resume: str | None = None
    root: Path = Path(".")
    evaluate: EvalConfig | None = None
    initial: Path | None = None
    trust: bool | None = None
    continue_with: str = ""


def kl_reference(cfg: PPOConfig, inputs: PPOInputs) -> str:
    """The KL reference as the run's record shows it: the network it is, and its schedule."""
    if inputs.kl_ref == "none" or (inputs.kl_ref == "start" and not inputs.start and cfg.kl_coef == 0):
        return "none"
    what = (inputs.start or "the initial network") if inputs.kl_ref == "start" else inputs.kl_ref
    decay = f", decaying to 0 over {cfg.kl_decay_steps:,} steps" if cfg.kl_decay_steps else ""
    return f"{what} (kl_coef {cfg.kl_coef:g}{decay})"


# ---------------------------------------------------------------------- the loop


def run(cfg: PPOConfig, inputs: PPOInputs, log=log_line) -> Path:
    """Train; returns the path of the final checkpoint (of ``latest.pt`` when stopped by a
    signal)."""
    from torch.utils.tensorboard import SummaryWriter
    from tqdm import tqdm

    if inputs.kl_ref == "none" and cfg.kl_coef > 0:
        raise ValueError("config 'kl_coef' > 0 needs a KL reference (kl_ref start or a network)")
    rules = cfg.resolved_rules
    device = resolve_device(cfg.device)
    run_id = f"{cfg.run_name}__{cfg.seed}"
    ckpt_dir = Path(inputs.root) / "checkpoints" / run_id
    ckpt_path = ckpt_dir / "latest.pt"
    torch.manual_seed(cfg.seed)
    rng = np.random.default_rng(np.random.SeedSequence([cfg.seed, 1]))
    model = model_for(cfg).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg.learning_rate, eps=1e-5)
    global_step, iteration, t_train = 0, 0, 0.0
    league = League(cfg)
    worker_states = None
    eval_history: list[dict] = []
    iteration_seconds: list[float] = []  # wall time of each iteration (tools/bench.py reads it)
    ref = None  # the frozen KL reference
    aux = None  # the auxiliary loss's labels, departures counted from the network PPO starts from
    if cfg.aux.aux_coef > 0:
        base = copy.deepcopy(model)  # the seeded fresh network, before any resume
        if inputs.start:
            load_start(base, inputs.start, rules, lambda *a: None, inputs.trust)
        aux = aux_targets(cfg, base, device, log)
        del base
    if inputs.resume:
        data = resume_state(inputs.resume, cfg, log, inputs.trust)
        model.load_state_dict(data["model"])
        optimizer.load_state_dict(data["optimizer"])
        global_step, iteration = data["global_step"], data["iteration"]
        t_train = data.get("train_seconds", 0.0)
        league = League(cfg, data["snapshots"], data["snapshot_ema"])
        rng.bit_generator.state = data["rng_state"]
        torch.set_rng_state(data["torch_rng_state"])
        worker_states = data["worker_rng_states"]
        eval_history = data.get("eval_history", [])
        if data.get("kl_ref") is not None:
            ref = frozen(model_for(cfg).to(device), data["kl_ref"])
        log(f"resumed {inputs.resume} at step {global_step} (iteration {iteration})")
    if cfg.ray:
        from ..cluster import connect

        ray_cpus = connect(cfg.ray, log)  # joins (or starts) Ray before the actors are made
        n_workers = cfg.workers or ray_cpus
    else:
        n_workers = cfg.workers or os.cpu_count() or 1
    if worker_states is not None and len(worker_states) != n_workers:
        worker_states = None  # a different worker count: fresh worker generators
    ev = inputs.evaluate
    if ev is not None and ev.workers is None:
        ev = dataclasses.replace(ev, workers=n_workers)
    if ev is not None and cfg.ray:
        ev = dataclasses.replace(ev, ray=cfg.ray)  # the periodic evaluation on Ray too
    writer = SummaryWriter(str(Path(inputs.root) / "runs" / run_id))
    writer.add_text("hyperparameters", "|param|value|\n|-|-|\n" + "\n".join(
        f"|{k}|{v}|" for k, v in to_dict(cfg).items()))
    reference = kl_reference(cfg, inputs)

    def save(path: Path, states) -> None:
        save_checkpoint(path, {
            "model": model.state_dict(), "optimizer": optimizer.state_dict(),
            "config": to_dict(cfg), "rules": rules.to_record(), "start": inputs.start,
            "global_step": global_step, "iteration": iteration, "train_seconds": t_train,
            "snapshots": league.snapshots, "snapshot_ema": league.ema,
            "rng_state": rng.bit_generator.state, "torch_rng_state": torch.get_rng_state(),
            "worker_rng_states": states, "eval_history": eval_history,
            "iteration_seconds": iteration_seconds[-1000:],
            **({"kl_ref": ref.state_dict(), "kl_reference": reference} if ref is not None else {}),
        })

    vg_cls = vector_game_class(cfg.backend)
    per_iter = n_workers * cfg.steps_per_worker
    log(f"ppo: run {run_id} | rules {rules.name} | device {device} | torch threads "
        f"{cfg.torch_threads or torch.get_num_threads()} | {n_workers} rollout worker(s) on "
        f"backend {resolve_backend(cfg.backend)} ({vg_cls.__module__}.{vg_cls.__name__})\n"
        f"  {cfg.total_steps:,} learner decisions in iterations of {per_iter:,} "
        f"({-(-max(0, cfg.total_steps - global_step) // per_iter)} to go); start: "
        f"{inputs.start or 'a fresh network'}; KL reference: {reference}\n"
        f"  checkpoints: {ckpt_path} (every {cfg.save_every} iterations"
        + (f" or {cfg.save_minutes:g} min" if cfg.save_minutes else "") + ")\n"
        f"  TensorBoard: tensorboard --logdir {Path(inputs.root) / 'runs'}\n"
        f"  the bar's ETA appears after the first iteration; Ctrl-C (or SIGTERM) saves "
        f"{ckpt_path.name} and stops; "
        + (inputs.continue_with or f"resume with --resume {ckpt_path}"))
    fresh = global_step == 0 and not inputs.resume
    if fresh and inputs.start:
        load_start(model, inputs.start, rules, log, inputs.trust)
    if fresh and ref is None and reference != "none":
        if inputs.kl_ref == "start":  # the network PPO starts from, frozen
            ref = frozen(model_for(cfg).to(device), model.state_dict())
        else:
            ref = model_for(cfg).to(device)
            load_start(ref, inputs.kl_ref, rules, log, inputs.trust)
            ref = frozen(ref, ref.state_dict())
    if inputs.initial is not None and not inputs.resume:
        save(inputs.initial, worker_states)
    if cfg.torch_threads:
        torch.set_num_threads(cfg.torch_threads)
    if global_step < cfg.total_steps:
        log(f"starting {n_workers} rollout worker(s)" + (" as Ray actors" if cfg.ray else "") + "...")
    workers = make_workers(cfg, n_workers if global_step < cfg.total_steps else 0, worker_states,
                           log=log)
    bar = tqdm(total=cfg.total_steps, initial=min(global_step, cfg.total_steps),
               desc=run_id, unit="step", file=sys.stderr, dynamic_ncols=True)
    latest_eval = ""
    states = worker_states
    stop = StopFlag(log)
    last_save = time.monotonic()
    try:
        def ask(it: int, step: int) -> None:
            """Request the batch of iteration ``it`` with the current weights (the snapshot pool
            is sent when it changed, and after a resume)."""
            nonlocal worker_states
            send_snaps = league.snapshots if it == 0 or it % cfg.league.snapshot_every == 0 \
                or worker_states is not None else None
            worker_states = None
            if model.oracle is not None:  # oracle guiding: the share of hidden cards shown
                model.oracle_keep.fill_(oracle_keep_at(cfg, step))  # at the batch's first step
            workers.request(frozen_state(model), send_snaps, league.weights(), cfg.steps_per_worker)

        while global_step < cfg.total_steps and not stop.requested:
            t0 = time.perf_counter()
            if cfg.anneal_lr:
                frac = 1.0 - global_step / cfg.total_steps
                optimizer.param_groups[0]["lr"] = frac * cfg.learning_rate
            # 1. the rollout: a batch of whole trajectories, with their GAE advantages
            if workers.pending is None:
                ask(iteration, global_step)
            batches = workers.receive()
            t_roll = time.perf_counter() - t0
            states = [b["rng_state"] for b in batches]
            batch = merge(batches)
            n = len(batch["action"])
            if (cfg.overlap and workers.overlaps and global_step + n < cfg.total_steps
                    and not stop.requested):
                ask(iteration + 1, global_step + n)  # collected while this batch trains
            # 2. the clipped update
            t1 = time.perf_counter()
            stats = ppo_update(model, optimizer, batch, cfg, device, rng, ref,
                               kl_coef_at(cfg, global_step), aux)
            t_upd = time.perf_counter() - t1
            global_step += n
            iteration += 1
            dt = time.perf_counter() - t0
            t_train += dt
            iteration_seconds.append(dt)
            # 3. logging, the league, checkpoints, the periodic evaluation
            by_opp = log_iteration(writer, global_step, batches, stats, n, dt, t_roll, t_upd,
                                   optimizer.param_groups[0]["lr"])
            league.record(by_opp)
            league.after_iteration(model, iteration)
            bar.update(min(n, cfg.total_steps - bar.n))  # the last batch may pass the total
            bar.set_postfix_str(f"SPS {n / dt:.0f} {latest_eval}")
            final = global_step >= cfg.total_steps
            due = cfg.save_minutes and time.monotonic() - last_save >= 60 * cfg.save_minutes
            if iteration % cfg.save_every == 0 or final or due or stop.requested:
                save(ckpt_path, states)
                last_save = time.monotonic()
            if stop.requested:
                break
            if ev is not None and ev.every and iteration % ev.every == 0 and not final:
                save(ckpt_path, states)
                row, latest_eval = periodic(ckpt_path, ev, writer, global_step)
                eval_history.append(row)
                save(ckpt_path, states)
    finally:
        stop.restore()
        workers.close()
        bar.close()
    writer.close()
    if stop.requested and global_step < cfg.total_steps:
        log(f"stopped by {stop.requested} at step {global_step:,} (iteration {iteration}); "
            f"saved {ckpt_path}")
        return ckpt_path
    final_path = ckpt_dir / "final.pt"
    save(final_path, states)
    log(f"final checkpoint: {final_path} ({global_step:,} steps, {t_train:.0f} s, "
        f"{global_step / max(t_train, 1e-9):.0f} steps/s)")
    return final_path


# ---------------------------------------------------------------------- the update


def _ref_logp(ref, t: dict, rows: np.ndarray, chunk: int) -> torch.Tensor:
    """The frozen reference's log-probabilities at ``rows`` of the batch ``t``: an (n, 61)
    tensor, zero at the other rows."""
    out = torch.zeros(t["mask"].shape, device=t["mask"].device)
    with torch.no_grad():
        for start in range(0, len(rows), chunk):
            r = torch.as_tensor(rows[start:start + chunk], device=out.device)
            out[r] = torch.log_softmax(
                ref.masked_logits(t["obs"][r], t["mask"][r], t["prior"][r]).float(), dim=-1)
    return out


def ppo_update(model, optimizer, batch, cfg: PPOConfig, device, rng, ref=None,
               kl_coef: float = 0.0, aux: dict[str, torch.Tensor] | None = None) -> dict:
    """CleanRL-style clipped PPO epochs over one batch; masks are reapplied on recompute.

    ``ref`` (a frozen :class:`~paohuzi_training.nets.model.ActorCritic`, the network PPO started from): the
    mean ``KL(policy || ref)`` over the legal actions is reported (``kl_ref``) and, with
    ``kl_coef`` > 0, added to the loss with that weight, so that PPO does not undo what was
    distilled unless the gain is worth it. ``aux`` (:func:`aux_targets`): with each minibatch,
    ``minibatch_size`` labelled decisions drawn from ``rng`` add ``aux_coef`` times
    :func:`aux_loss` (``aux_ce`` and ``aux_agreement`` are reported)."""
    n = len(batch["action"])
    t = {k: torch.as_tensor(v, device=device) for k, v in batch.items()}
    extra = t["extra"] if cfg.central_critic else None
    oracle = t["oracle"] if cfg.oracle_steps > 0 else None
    clipfracs: list[float] = []
    kls: list[float] = []
    aux_stats: list[tuple[float, float]] = []
    stats: dict[str, float] = {}
    perms = [rng.permutation(n) for _ in range(cfg.update_epochs)]
    bf16 = bfloat16_update(cfg.update_precision, device)
    dev_type = torch.device(device).type
    # The frozen reference's log-probabilities, once per batch (they do not change between
    # epochs): every row while the penalty is on, else each epoch's first minibatch, for the log.
    ref_logp = None
    if ref is not None:
        rows = np.arange(n) if kl_coef > 0 else \
            np.unique(np.concatenate([p[:cfg.minibatch_size] for p in perms]))
        with torch.autocast(dev_type, torch.bfloat16, enabled=bf16):
            ref_logp = _ref_logp(ref, t, rows, cfg.minibatch_size)
    for perm in perms:
        for start in range(0, n, cfg.minibatch_size):
            mb = torch.as_tensor(perm[start:start + cfg.minibatch_size], device=device)
            with torch.autocast(dev_type, torch.bfloat16, enabled=bf16):
                out = model.evaluate(t["obs"][mb], t["mask"][mb], t["action"][mb],
                                     None if extra is None else extra[mb], t["prior"][mb], full=True,
                                     oracle=None if oracle is None else oracle[mb])
            logp, entropy, value, logp_all = out
            kl_ref = None
            if ref_logp is not None and (kl_coef > 0 or start == 0):
                kl_ref = torch.where(t["mask"][mb], logp_all.exp() * (logp_all - ref_logp[mb]),
                                     torch.zeros_like(logp_all)).sum(-1).mean()
                kls.append(kl_ref.item())
            logratio = logp - t["logp"][mb]
            ratio = logratio.exp()
            with torch.no_grad():
                approx_kl = ((ratio - 1) - logratio).mean()
                clipfracs.append(((ratio - 1.0).abs() > cfg.clip_coef).float().mean().item())
            adv = t["adv"][mb]
            if cfg.advantage == "rollout":  # zeros mean "as good as the prior": keep them 0
                adv = adv / (adv.std() + 1e-8) if len(mb) > 1 else adv
            else:
                adv = (adv - adv.mean()) / (adv.std() + 1e-8) if len(mb) > 1 else adv
            pg_loss = torch.max(-adv * ratio,
                                -adv * torch.clamp(ratio, 1 - cfg.clip_coef, 1 + cfg.clip_coef)).mean()
            ret, old_v = t["ret"][mb], t["value"][mb]
            if cfg.clip_vloss:
                v_clipped = old_v + torch.clamp(value - old_v, -cfg.clip_coef, cfg.clip_coef)
                v_loss = 0.5 * torch.max((value - ret) ** 2, (v_clipped - ret) ** 2).mean()
            else:
                v_loss = 0.5 * ((value - ret) ** 2).mean()
            ent = entropy.mean()
            loss = pg_loss - cfg.ent_coef * ent + cfg.vf_coef * v_loss
            if kl_ref is not None and kl_coef > 0:
                loss = loss + kl_coef * kl_ref
            if aux is not None:
                drawn = torch.as_tensor(rng.integers(0, len(aux["action"]), cfg.minibatch_size),
                                        device=device)
                with torch.autocast(dev_type, torch.bfloat16, enabled=bf16):
                    aux_ce, aux_agree = aux_loss(model, aux, drawn)
                loss = loss + cfg.aux.aux_coef * aux_ce
                aux_stats.append((aux_ce.item(), aux_agree.item()))
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.max_grad_norm)
            optimizer.step()
        if cfg.target_kl is not None and approx_kl.item() > cfg.target_kl:
            break
    y_pred, y_true = batch["value"], batch["ret"]
    var_y = np.var(y_true)
    stats.update(
        policy_loss=pg_loss.item(), value_loss=v_loss.item(), entropy=ent.item(),
        approx_kl=approx_kl.item(), clipfrac=float(np.mean(clipfracs)),
        explained_variance=float("nan") if var_y == 0 else float(1 - np.var(y_true - y_pred) / var_y),
    )
    if kls:
        stats.update(kl_ref=float(np.mean(kls)), kl_coef=kl_coef)
    if aux_stats:
        stats.update(aux_ce=float(np.mean([s[0] for s in aux_stats])),
                     aux_agreement=float(np.mean([s[1] for s in aux_stats])))
    if oracle is not None:  # the share of the nonzero hidden-card features the batch showed
        stats.update(oracle_shown=float((oracle != 0).sum() / max(1, int((t["extra"] != 0).sum()))))
    return stats
