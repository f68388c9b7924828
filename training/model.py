"""The actor-critic network and masked action distributions."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from torch import nn

from paohuzi_env.actions import NUM_ACTIONS
from paohuzi_env.observation import OBS_SIZE, obs_size
from paohuzi_env.rules import Rules, get_rules
from paohuzi_env.state import STATE_EXTRA_SIZE, state_extra_size

MASK_VALUE = -1e8
"""Logit of an illegal action: large, finite and negative (never -inf, which breaks the
gradient and the entropy)."""


def layer_init(layer: nn.Linear, std: float = np.sqrt(2), bias: float = 0.0) -> nn.Linear:
    torch.nn.init.orthogonal_(layer.weight, std)
    torch.nn.init.constant_(layer.bias, bias)
    return layer


class ActorCritic(nn.Module):
    """Two MLPs: the actor reads the seat's observation; the critic reads it too, plus the
    full-information features of :func:`paohuzi_env.state.state_extra` when ``central_critic``
    is on.

    With a ``prior`` (residual policy learning) the actor also reads the one-hot choice of a
    rule-based bot, and that choice gets ``prior_weight`` added to its logit: a fresh network
    plays like the bot and training learns where to depart from it. ``prior`` is a tensor of
    action indices, one per row, computed by the caller from the same ``PlayerView``.

    ``obs_size`` and ``extra_size`` are the lengths of the observation and of the critic's
    full-information features under the rules the network plays (:func:`model_for` takes
    them from a config's rules); the defaults are the sizes without 王 (``paohuzi-obs-v1``)."""

    def __init__(self, hidden: int = 256, central_critic: bool = False, prior: str = "none",
                 prior_weight: float = 0.0, obs_size: int = OBS_SIZE,
                 extra_size: int = STATE_EXTRA_SIZE) -> None:
        super().__init__()
        self.central_critic = central_critic
        self.prior = prior
        self.prior_weight = float(prior_weight)
        self.obs_size = int(obs_size)
        self.extra_size = int(extra_size)
        ain = self.obs_size + (NUM_ACTIONS if prior != "none" else 0)
        self.actor = nn.Sequential(
            layer_init(nn.Linear(ain, hidden)), nn.ReLU(),
            layer_init(nn.Linear(hidden, hidden)), nn.ReLU(),
            layer_init(nn.Linear(hidden, NUM_ACTIONS), std=0.01),
        )
        cin = self.obs_size + (self.extra_size if central_critic else 0)
        self.critic = nn.Sequential(
            layer_init(nn.Linear(cin, hidden)), nn.ReLU(),
            layer_init(nn.Linear(hidden, hidden)), nn.ReLU(),
            layer_init(nn.Linear(hidden, 1), std=1.0),
        )

    def masked_logits(self, obs: torch.Tensor, mask: torch.Tensor,
                      prior: torch.Tensor | None = None) -> torch.Tensor:
        if self.prior == "none":
            logits = self.actor(obs)
        else:
            if prior is None:
                raise ValueError(f"this network was trained with the {self.prior!r} prior; "
                                 "pass the prior's actions")
            onehot = torch.nn.functional.one_hot(prior, NUM_ACTIONS).to(obs.dtype)
            logits = self.actor(torch.cat([obs, onehot], dim=-1)) + self.prior_weight * onehot
        return torch.where(mask, logits, torch.full_like(logits, MASK_VALUE))

    def value(self, obs: torch.Tensor, extra: torch.Tensor | None = None) -> torch.Tensor:
        if self.central_critic:
            if extra is None:
                raise ValueError("a central critic needs the full-information features (extra)")
            obs = torch.cat([obs, extra], dim=-1)
        x = obs
        return self.critic(x).squeeze(-1)

    def evaluate(self, obs, mask, action, extra=None, prior=None, full: bool = False):
        """log-prob of ``action``, entropy over legal actions, and value (and, with ``full``,
        the log-probabilities of every action as a fourth item)."""
        logits = self.masked_logits(obs, mask, prior)
        logp_all = torch.log_softmax(logits, dim=-1)
        p = logp_all.exp()
        entropy = -(torch.where(mask, p * logp_all, torch.zeros_like(p))).sum(-1)
        logp = logp_all.gather(-1, action.unsqueeze(-1)).squeeze(-1)
        if full:
            return logp, entropy, self.value(obs, extra), logp_all
        return logp, entropy, self.value(obs, extra)


def _get(cfg, key: str, default: Any = None) -> Any:
    return cfg.get(key, default) if isinstance(cfg, dict) else getattr(cfg, key, default)


def rules_for(cfg) -> Rules:
    """The rules a config trains under: its ``rules`` preset with its ``rules_overrides``
    (``cfg``: a :class:`PPOConfig` or its dict, as stored in checkpoints)."""
    if not isinstance(cfg, dict):
        return cfg.resolved_rules  # resolved once on the config
    return get_rules(str(_get(cfg, "rules", "huaihua")), **(_get(cfg, "rules_overrides") or {}))


def model_for(cfg) -> ActorCritic:
    """The network a config describes (``cfg``: a :class:`PPOConfig` or its dict), its input
    sizes those of the config's rules (:func:`rules_for`)."""
    rules = rules_for(cfg)
    return ActorCritic(int(_get(cfg, "hidden")), bool(_get(cfg, "central_critic")),
                       str(_get(cfg, "prior", "none")), float(_get(cfg, "prior_weight", 0.0)),
                       obs_size=obs_size(rules), extra_size=state_extra_size(rules))

