"""Masked PPO self-play for 跑胡子, in the spirit of CleanRL's ``ppo.py``.

``paohuzi-train --config configs/ppo.yaml [key=value ...] [--resume PATH]``

One network plays every seat from the seat-relative observation. Read top to bottom: the config
(:mod:`paohuzi_training.config`; what a resumed run may change), the loop (:func:`train`: rollout
workers collect a batch, the update learns from it, then logging, snapshots, checkpoints and
evaluation), the update (:func:`ppo_update`). The pieces live in modules of their own: the
rollouts (:mod:`paohuzi_training.stages.rollout`, one loop over either engine), the workers, local
processes or Ray actors (:mod:`paohuzi_training.stages.workers`), the batches and GAE
(:mod:`paohuzi_training.stages.batch`), the snapshot league (:mod:`paohuzi_training.stages.league`), behaviour
cloning (:mod:`paohuzi_training.stages.clone`) and the network (:mod:`paohuzi_training.nets.model`).

Rollout workers (default: one per core) step many hands at once; the main process runs the PPO
update, evaluates through the duplicate-deal harness, logs to TensorBoard (``runs/<run>``) and
writes atomic checkpoints to ``checkpoints/<run>/`` (``latest.pt`` and ``final.pt``).
``--resume`` continues a killed run from its last checkpoint.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import numpy as np
import torch

from paohuzi_env.backends.select import resolve_backend, vector_game_class

from ..config import PPOConfig, kl_coef_at, oracle_keep_at, to_dict
from ..nets.checkpoint import save_checkpoint
from ..nets.model import belief_loss, model_for
from .batch import merge
from .clone import behaviour_clone
from .housekeeping import (
    StopFlag,
    bfloat16_update,
    eval_summary,
    evaluate_checkpoint,
    frozen,
    init_from,
    log_iteration,
    log_line,
    resolve_device,
    resume_state,
)
from .league import League, frozen_state
from .workers import make_workers

# ---------------------------------------------------------------------- the loop


def train(cfg: PPOConfig, resume: str | None = None, log=log_line, trust: bool | None = None,
          root: str | os.PathLike[str] = ".", initial: Path | None = None) -> Path:
    """Train; returns the path of the final checkpoint. ``trust``: load ``resume`` even if it
    needs pickled objects (:func:`paohuzi_training.nets.checkpoint.load_checkpoint`). ``root``: the
    folder that holds ``checkpoints/<run>`` and ``runs/<run>`` (a recipe stage's folder).
    ``initial``: where to save the network PPO starts from (after cloning, ``init_from`` and
    distillation), on a fresh start."""
    from torch.utils.tensorboard import SummaryWriter
    from tqdm import tqdm

    rules = cfg.resolved_rules
    device = resolve_device(cfg.device)
    run = f"{cfg.run_name}__{cfg.seed}"
    ckpt_dir = Path(root) / "checkpoints" / run
    ckpt_path = ckpt_dir / "latest.pt"
    torch.manual_seed(cfg.seed)
    rng = np.random.default_rng(np.random.SeedSequence([cfg.seed, 1]))
    model = model_for(cfg).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg.learning_rate, eps=1e-5)
    global_step, iteration, t_train = 0, 0, 0.0
    league = League(cfg)
    worker_states = None
    eval_history: list[dict] = []
    iteration_seconds: list[float] = []  # wall time of each iteration (paohuzi_training.tools.bench reads it)
    ref = None  # the network PPO started from (distilled or init_from), for the KL penalty
    if resume:
        data = resume_state(resume, cfg, log, trust)
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
        log(f"resumed {resume} at step {global_step} (iteration {iteration})")
    if cfg.ray:
        from .workers import connect

        ray_cpus = connect(cfg.ray, log)  # joins (or starts) Ray before the actors are made
        n_workers = cfg.workers or ray_cpus
    else:
        n_workers = cfg.workers or os.cpu_count() or 1
    if worker_states is not None and len(worker_states) != n_workers:
        worker_states = None  # a different worker count: fresh worker generators
    writer = SummaryWriter(str(Path(root) / "runs" / run))
    writer.add_text("hyperparameters", "|param|value|\n|-|-|\n" + "\n".join(
        f"|{k}|{v}|" for k, v in to_dict(cfg).items()))

    def save(path: Path, states) -> None:
        save_checkpoint(path, {
            "model": model.state_dict(), "optimizer": optimizer.state_dict(),
            "config": to_dict(cfg), "rules": rules.to_record(),
            "global_step": global_step, "iteration": iteration, "train_seconds": t_train,
            "snapshots": league.snapshots, "snapshot_ema": league.ema,
            "rng_state": rng.bit_generator.state, "torch_rng_state": torch.get_rng_state(),
            "worker_rng_states": states, "eval_history": eval_history,
            "iteration_seconds": iteration_seconds[-1000:],
            **({"kl_ref": ref.state_dict()} if ref is not None else {}),
        })

    vg_cls = vector_game_class(cfg.backend)
    per_iter = n_workers * cfg.steps_per_worker
    log(f"paohuzi-train: run {run} | rules {rules.name} | device {device} | torch threads "
        f"{cfg.torch_threads or torch.get_num_threads()} | {n_workers} rollout worker(s) on "
        f"backend {resolve_backend(cfg.backend)} ({vg_cls.__module__}.{vg_cls.__name__})\n"
        f"  {cfg.total_steps:,} learner decisions in iterations of {per_iter:,} "
        f"({-(-max(0, cfg.total_steps - global_step) // per_iter)} to go); checkpoints: "
        f"{ckpt_path} (every {cfg.save_every} iterations"
        + (f" or {cfg.save_minutes:g} min" if cfg.save_minutes else "") + ")\n"
        f"  TensorBoard: tensorboard --logdir runs   (this run: runs/{run})\n"
        f"  the bar's ETA appears after the first iteration; Ctrl-C (or SIGTERM) saves "
        f"{ckpt_path.name} and stops; resume with --resume {ckpt_path}")
    if cfg.bc_steps and global_step == 0 and not resume:
        behaviour_clone(model, optimizer, cfg, device, rng, log, ckpt_dir)
    if cfg.init_from and global_step == 0 and not resume:
        init_from(model, cfg, log, trust)
    if cfg.distill_labels and global_step == 0 and not resume:
        from .distill import distill

        distill(model, optimizer, cfg, device, rng, log, writer, ckpt_dir)
        for group in optimizer.param_groups:
            group["lr"] = cfg.learning_rate
        optimizer.state.clear()  # PPO's Adam moments start afresh
    if ref is None and global_step == 0 and not resume and (
            cfg.kl_coef > 0 or cfg.init_from or cfg.distill_labels):
        ref = frozen(model_for(cfg).to(device), model.state_dict())
    if initial is not None and not resume:
        save(initial, worker_states)
    if cfg.torch_threads:  # the PPO loop's update (behaviour cloning above used torch's default)
        torch.set_num_threads(cfg.torch_threads)
    if global_step < cfg.total_steps:
        log(f"starting {n_workers} rollout worker(s)" + (" as Ray actors" if cfg.ray else "") + "...")
    workers = make_workers(cfg, n_workers if global_step < cfg.total_steps else 0, worker_states,
                           log=log)
    bar = tqdm(total=cfg.total_steps, initial=min(global_step, cfg.total_steps),
               desc=run, unit="step", file=sys.stderr, dynamic_ncols=True)
    latest_eval = ""
    states = worker_states
    stop = StopFlag(log)
    last_save = time.monotonic()
    try:
        def ask(it: int, step: int) -> None:
            """Request the batch of iteration ``it`` with the current weights (the snapshot pool
            is sent when it changed, and after a resume)."""
            nonlocal worker_states
            send_snaps = league.snapshots if it == 0 or it % cfg.snapshot_every == 0 \
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
            # 1. rollouts
            if workers.pending is None:
                ask(iteration, global_step)
            batches = workers.receive()
            t_roll = time.perf_counter() - t0
            states = [b["rng_state"] for b in batches]
            batch = merge(batches)
            n = len(batch["action"])
            if (cfg.overlap and workers.local is None and global_step + n < cfg.total_steps
                    and not stop.requested):
                ask(iteration + 1, global_step + n)  # collected while this batch trains
            # 2. the update
            t1 = time.perf_counter()
            stats = ppo_update(model, optimizer, batch, cfg, device, rng, ref,
                               kl_coef_at(cfg, global_step))
            t_upd = time.perf_counter() - t1
            global_step += n
            iteration += 1
            dt = time.perf_counter() - t0
            t_train += dt
            iteration_seconds.append(dt)
            # 3. logging, the league, checkpoints, evaluation
            by_opp = log_iteration(writer, global_step, batches, stats, n, dt, t_roll, t_upd,
                                    optimizer.param_groups[0]["lr"])
            league.record(by_opp)
            league.after_iteration(model, iteration)
            bar.update(n)
            bar.set_postfix_str(f"SPS {n / dt:.0f} {latest_eval}")
            final = global_step >= cfg.total_steps
            due = cfg.save_minutes and time.monotonic() - last_save >= 60 * cfg.save_minutes
            if iteration % cfg.save_every == 0 or final or due or stop.requested:
                save(ckpt_path, states)
                last_save = time.monotonic()
            if stop.requested:
                break
            if cfg.eval_every and (iteration % cfg.eval_every == 0) and not final:
                save(ckpt_path, states)
                res = evaluate_checkpoint(ckpt_path, cfg, cfg.eval_opponents, cfg.eval_deals,
                                          n_workers)
                parts = []
                for opp, r in res.items():
                    writer.add_scalar(f"eval/{opp}/mean_points", r["mean_points"], global_step)
                    writer.add_scalar(f"eval/{opp}/ci_low", r["ci95"][0], global_step)
                    writer.add_scalar(f"eval/{opp}/ci_high", r["ci95"][1], global_step)
                    writer.add_scalar(f"eval/{opp}/win_rate", r["win_rate"], global_step)
                    parts.append(f"{opp} {r['mean_points']:+.2f}")
                eval_history.append({"step": global_step, **eval_summary(res)})
                latest_eval = "eval " + " ".join(parts)
                save(ckpt_path, states)
    finally:
        stop.restore()
        workers.close()
        bar.close()
    if stop.requested and global_step < cfg.total_steps:
        writer.close()
        log(f"stopped by {stop.requested} at step {global_step:,} (iteration {iteration}); "
            f"saved {ckpt_path}. Continue with: paohuzi-train --config <the same config> "
            f"--resume {ckpt_path}")
        return ckpt_path
    final_path = ckpt_dir / "final.pt"
    save(final_path, states)
    if cfg.final_eval_deals:
        res = evaluate_checkpoint(final_path, cfg, ["random", "greedy", "expert"],
                                  cfg.final_eval_deals, n_workers, records=ckpt_dir / "records")
        from ..eval.evaluate import print_table

        print_table(list(res.values()))
        eval_history.append({"step": global_step, "final": True, **eval_summary(res)})
        save(final_path, states)
        (ckpt_dir / "final_eval.json").write_text(json.dumps(res, indent=2, ensure_ascii=False))
    writer.close()
    log(f"final checkpoint: {final_path} ({global_step} steps, {t_train:.0f} s, "
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
               kl_coef: float = 0.0) -> dict:
    """CleanRL-style clipped PPO epochs over one batch; masks are reapplied on recompute.

    ``ref`` (a frozen :class:`~paohuzi_training.nets.model.ActorCritic`, the network PPO started from): the
    mean ``KL(policy || ref)`` over the legal actions is reported (``kl_ref``) and, with
    ``kl_coef`` > 0, added to the loss with that weight, so that PPO does not undo what was
    distilled unless the gain is worth it."""
    n = len(batch["action"])
    t = {k: torch.as_tensor(v, device=device) for k, v in batch.items()}
    extra = t["extra"] if cfg.central_critic else None
    oracle = t["oracle"] if cfg.oracle_steps > 0 else None
    clipfracs: list[float] = []
    kls: list[float] = []
    beliefs: list[tuple[float, float]] = []
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
                                     belief=cfg.belief_coef > 0,
                                     oracle=None if oracle is None else oracle[mb])
            logp, entropy, value, logp_all = out[:4]
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
            if cfg.belief_coef > 0:  # the auxiliary loss: the opponents' hands (extra 0-39)
                b_loss, b_acc = belief_loss(out[4], t["extra"][mb])  # central_critic: validate()
                loss = loss + cfg.belief_coef * b_loss
                beliefs.append((b_loss.item(), b_acc.item()))
            if kl_ref is not None and kl_coef > 0:
                loss = loss + kl_coef * kl_ref
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
    if oracle is not None:  # the share of the nonzero hidden-card features the batch showed
        stats.update(oracle_shown=float((oracle != 0).sum() / max(1, int((t["extra"] != 0).sum()))))
    if beliefs:
        stats.update(belief_loss=float(np.mean([b[0] for b in beliefs])),
                     belief_accuracy=float(np.mean([b[1] for b in beliefs])))
    return stats
