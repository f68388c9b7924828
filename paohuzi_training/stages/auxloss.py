"""PPO's auxiliary loss toward a search's labelled decisions (``aux_coef``; config
:class:`paohuzi_training.config.AuxConfig`): with each PPO minibatch, labelled decisions drawn at
random add the cross-entropy of the action the search chose under the actor, departures from the
network PPO starts from weighted ``aux_departure_weight``. The search's knowledge goes into the
network inside PPO, with no distillation before it and no KL tether after it."""

from __future__ import annotations

import torch

from ..config import PPOConfig
from .housekeeping import log_line


def aux_targets(cfg: PPOConfig, model, device, log=log_line) -> dict[str, torch.Tensor]:
    """The auxiliary loss's labelled decisions (``aux_labels``) as tensors: the actor's input
    ``obs`` (with the wait features where the network reads them), ``mask``, the search's
    ``action`` and each row's ``weight`` (``aux_departure_weight`` where the search departs from
    ``model``'s argmax, 1 elsewhere). ``model`` is the network PPO starts from (a resumed run
    passes it too, rebuilt: the weights do not depend on where a run was stopped)."""
    from .distill import DistillConfig, departures, load_targets

    lab = load_targets(cfg.aux.aux_labels, DistillConfig(run=cfg.run, net=cfg.net,
                                                         distill_holdout=0.0), key="aux_labels")
    t = {k: torch.as_tensor(lab[k], device=device) for k in ("obs", "mask", "action")}
    dep = departures(model, t["obs"], t["mask"], t["action"])
    t["weight"] = torch.where(dep, torch.tensor(cfg.aux.aux_departure_weight, device=device),
                              torch.tensor(1.0, device=device))
    log(f"ppo: auxiliary loss (aux_coef {cfg.aux.aux_coef:g}) toward {len(dep):,} labelled "
        f"decisions of {', '.join(cfg.aux.aux_labels)}; {int(dep.sum()):,} departures from the start "
        f"network (weight {cfg.aux.aux_departure_weight:g})")
    return t


def aux_loss(model, aux: dict[str, torch.Tensor], rows: torch.Tensor) -> tuple[torch.Tensor,
                                                                                torch.Tensor]:
    """The weighted cross-entropy of the search's chosen action under the actor over ``rows`` of
    ``aux`` (:func:`aux_targets`), and the share of those rows where the actor's argmax is it."""
    logits = model.masked_logits(aux["obs"][rows], aux["mask"][rows])
    logp = torch.log_softmax(logits.float(), dim=-1)
    action, w = aux["action"][rows], aux["weight"][rows]
    ce = -(logp.gather(1, action[:, None])[:, 0] * w).sum() / w.sum()
    agree = (logits.argmax(-1) == action).float().mean()
    return ce, agree
