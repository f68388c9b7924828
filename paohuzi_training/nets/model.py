"""The actor-critic network and masked action distributions."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from torch import nn

from paohuzi_env.encode.features import WAIT_FEATURES, wait_rows
from paohuzi_env.encode.observation import KIND_ROWS as _OBS_KIND_ROWS
from paohuzi_env.encode.observation import OBS_SIZE, obs_size
from paohuzi_env.encode.state import STATE_EXTRA_SIZE, state_extra_size
from paohuzi_env.game.actions import NUM_ACTIONS
from paohuzi_env.game.rules import Rules, get_rules

MASK_VALUE = -1e8
"""Logit of an illegal action: large, finite and negative (never -inf, which breaks the
gradient and the entropy)."""


def layer_init(layer: nn.Linear, std: float = np.sqrt(2), bias: float = 0.0) -> nn.Linear:
    """``layer`` itself, its weights set orthogonal with gain ``std`` and its bias to ``bias``."""
    torch.nn.init.orthogonal_(layer.weight, std)
    torch.nn.init.constant_(layer.bias, bias)
    return layer


KIND_ROWS = [list(r) for r in _OBS_KIND_ROWS]
"""The ``conv`` actor's per-kind input rows (29 rows of 20 observation indices:
:data:`paohuzi_env.encode.observation.KIND_ROWS`)."""


class KindConvActor(nn.Module):
    """The ``conv`` actor: the observation's per-kind blocks (:data:`KIND_ROWS`) as a
    ``(2 x rows, 10)`` signal — small and big cards of the same number as separate channels,
    the ten numbers along the axis — through three width-3 convolutions, so that sequences
    (一二三), 二七十 and the small/big pairs of 绞 groups are features the network sees
    directly; then an MLP head over the convolved features and the whole flat input (the
    observation, plus the prior's one-hot for a residual actor). Behaviour cloning from
    ``expert`` reaches a markedly higher agreement with it than the plain MLP on the same
    decisions (docs/distill.md)."""

    def __init__(self, ain: int, hidden: int, channels: int,
                 rows: list[list[int]] | None = None) -> None:
        super().__init__()
        rows = KIND_ROWS if rows is None else rows
        self.rows: torch.Tensor
        self.register_buffer("rows", torch.tensor(rows, dtype=torch.long), persistent=False)
        cin = 2 * len(rows)
        self.conv = nn.Sequential(
            nn.Conv1d(cin, channels, 3, padding=1), nn.ReLU(),
            nn.Conv1d(channels, channels, 3, padding=1), nn.ReLU(),
            nn.Conv1d(channels, channels, 3, padding=1), nn.ReLU(),
        )
        self.head = nn.Sequential(
            layer_init(nn.Linear(channels * 10 + ain, hidden)), nn.ReLU(),
            layer_init(nn.Linear(hidden, hidden)), nn.ReLU(),
            layer_init(nn.Linear(hidden, NUM_ACTIONS), std=0.01),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """The action logits (unmasked) for input rows ``x`` of shape ``(..., ain)``."""
        return fp32_output(self.head, self.head_input(x))

    def head_input(self, x: torch.Tensor) -> torch.Tensor:
        """What the MLP head reads: the convolved features, then ``x`` itself."""
        k = x[..., self.rows]                                # (..., rows, 20)
        lead = k.shape[:-2]
        h = k.reshape(-1, self.rows.shape[0] * 2, 10)        # kind = 10 * big + number
        for layer in self.conv:
            h = _conv3(h, layer) if isinstance(layer, nn.Conv1d) else layer(h)
        return torch.cat([h.flatten(1).reshape(*lead, -1), x], dim=-1)


def fp32_output(seq: nn.Sequential, x: torch.Tensor, features: bool = False):
    """``seq(x)``, its last layer in float32 even under autocast (``update_precision:
    bfloat16``): the logits that PPO's probability ratios and the KL read keep float32's
    precision; the layers before (most of the arithmetic) run in bfloat16. With ``features``,
    the pair (``seq(x)``, the input of its last layer)."""
    h = seq[:-1](x)
    if torch.is_autocast_enabled(x.device.type):
        with torch.autocast(x.device.type, enabled=False):
            out = seq[-1](h.float())
    else:
        out = seq[-1](h)
    return (out, h) if features else out


def _conv3(h: torch.Tensor, conv: nn.Conv1d) -> torch.Tensor:
    """``conv(h)`` for a width-3, padding-1 convolution as one matrix product over the ten
    windows: the same numbers (to float rounding), about twice as fast as ``nn.Conv1d`` for the
    single observation of a play-time decision and as fast for training batches."""
    win = nn.functional.pad(h, (1, 1)).unfold(2, 3, 1)              # (B, in, 10, 3)
    win = win.permute(0, 2, 1, 3).reshape(h.shape[0], h.shape[2], -1)  # (B, 10, in * 3)
    out = win @ conv.weight.reshape(conv.weight.shape[0], -1).T
    if conv.bias is not None:
        out = out + conv.bias
    return out.transpose(1, 2)                                      # (B, out, 10)


class ActorCritic(nn.Module):
    """An actor and a critic: the actor (an MLP, or :class:`KindConvActor` with ``actor="conv"``)
    reads the seat's observation; the critic (an MLP) reads it too, plus the
    full-information features of :func:`paohuzi_env.encode.state.state_extra` when ``central_critic``
    is on.

    With a ``prior`` (residual policy learning) the actor also reads the one-hot choice of a
    rule-based bot, and that choice gets ``prior_weight`` added to its logit: a fresh network
    plays like the bot and training learns where to depart from it. ``prior`` is a tensor of
    action indices, one per row, computed by the caller from the same ``PlayerView``.

    ``obs_size`` and ``extra_size`` are the lengths of the observation and of the critic's
    full-information features under the rules the network plays (:func:`model_for` takes
    them from a config's rules); the defaults are the sizes without 王 (``paohuzi-obs-v1``).

    With ``waits`` (config ``wait_features``) the network's input is the observation followed by
    the 80 wait features of :mod:`paohuzi_env.encode.features` (``paohuzi-waits-v1``): ``in_size`` =
    ``obs_size`` + 80 floats, which the caller appends (:func:`network_input`); the ``conv``
    actor reads their four blocks as four more kind rows (:func:`paohuzi_env.encode.features.wait_rows`)
    and both heads read them flat."""

    def __init__(self, hidden: int = 256, central_critic: bool = False, prior: str = "none",
                 prior_weight: float = 0.0, obs_size: int = OBS_SIZE,
                 extra_size: int = STATE_EXTRA_SIZE, actor: str = "mlp",
                 conv_channels: int = 128, waits: bool = False, critic_hidden: int = 0,
                 oracle: bool = False) -> None:
        super().__init__()
        self.central_critic = central_critic
        self.prior = prior
        self.prior_weight = float(prior_weight)
        self.obs_size = int(obs_size)
        self.waits = bool(waits)
        self.in_size = self.obs_size + (WAIT_FEATURES if self.waits else 0)
        self.extra_size = int(extra_size)
        ain = self.in_size + (NUM_ACTIONS if prior != "none" else 0)
        self.actor: nn.Module
        if actor == "conv":
            rows = KIND_ROWS + (wait_rows(self.obs_size) if self.waits else [])
            self.actor = KindConvActor(ain, hidden, conv_channels, rows)
        elif actor == "mlp":
            self.actor = nn.Sequential(
                layer_init(nn.Linear(ain, hidden)), nn.ReLU(),
                layer_init(nn.Linear(hidden, hidden)), nn.ReLU(),
                layer_init(nn.Linear(hidden, NUM_ACTIONS), std=0.01),
            )
        else:
            raise ValueError(f"unknown actor {actor!r}: mlp or conv")
        # oracle guiding (config oracle_steps > 0): the full-information features into the
        # actor's first hidden layer, from zero; not under actor., so play-only exports leave it
        # out. oracle_keep: the probability the rollouts keep each feature with (the trainer
        # sets it every iteration, and it travels to the workers with the weights).
        self.oracle = None
        self.oracle_keep: torch.Tensor
        if oracle:
            self.oracle = nn.Linear(self.extra_size, hidden, bias=False)
            torch.nn.init.zeros_(self.oracle.weight)
            self.register_buffer("oracle_keep", torch.ones(()))
        cin = self.in_size + (self.extra_size if central_critic else 0)
        ch = critic_hidden or hidden
        self.critic = nn.Sequential(
            layer_init(nn.Linear(cin, ch)), nn.ReLU(),
            layer_init(nn.Linear(ch, ch)), nn.ReLU(),
            layer_init(nn.Linear(ch, 1), std=1.0),
        )

    def masked_logits(self, obs: torch.Tensor, mask: torch.Tensor,
                      prior: torch.Tensor | None = None,
                      oracle: torch.Tensor | None = None) -> torch.Tensor:
        """The actor's logits with the illegal actions (``mask`` False) at :data:`MASK_VALUE`.

        Args:
            obs: the network input (:attr:`in_size` floats per row).
            mask: bool, True for the legal actions.
            prior: the prior's action per row; required when the network has a prior.
            oracle: oracle guiding's input (the full-information features, some zeroed), for a
                network trained with it; None: the actor reads the observation alone.

        Raises:
            ValueError: the network has a prior and ``prior`` is None; ``oracle`` for a network
                without oracle guiding.
        """
        return self._masked(obs, mask, prior, oracle)[0]

    def _masked(self, obs: torch.Tensor, mask: torch.Tensor, prior: torch.Tensor | None,
                oracle: torch.Tensor | None) -> tuple[torch.Tensor, torch.Tensor]:
        """The masked logits and the actor's last hidden layer."""
        if self.prior == "none":
            logits, h = self._logits(obs, oracle)
        else:
            if prior is None:
                raise ValueError(f"this network was trained with the {self.prior!r} prior; "
                                 "pass the prior's actions")
            onehot = torch.nn.functional.one_hot(prior, NUM_ACTIONS).to(obs.dtype)
            logits, h = self._logits(torch.cat([obs, onehot], dim=-1), oracle)
            logits = logits + self.prior_weight * onehot
        return torch.where(mask, logits, torch.full_like(logits, MASK_VALUE)), h

    def _logits(self, x: torch.Tensor,
                oracle: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """The actor's logits and its last hidden layer (with ``oracle``, oracle guiding's
        input added to the first hidden layer's pre-activation)."""
        if isinstance(self.actor, KindConvActor):
            seq, inp = self.actor.head, self.actor.head_input(x)
        else:
            assert isinstance(self.actor, nn.Sequential)
            seq, inp = self.actor, x
        if oracle is None:
            return fp32_output(seq, inp, features=True)
        if self.oracle is None:
            raise ValueError("this network was not trained with oracle guiding (config "
                             "oracle_steps: 0): it reads no full-information features")
        rest = seq[1:]
        assert isinstance(rest, nn.Sequential)
        return fp32_output(rest, seq[0](inp) + self.oracle(oracle), features=True)

    def value(self, obs: torch.Tensor, extra: torch.Tensor | None = None) -> torch.Tensor:
        """The critic's value per row; a central critic also reads ``extra``, the full-information
        features (else ValueError when it is None)."""
        if self.central_critic:
            if extra is None:
                raise ValueError("a central critic needs the full-information features (extra)")
            obs = torch.cat([obs, extra], dim=-1)
        return self.critic(obs).squeeze(-1).float()

    def evaluate(self, obs, mask, action, extra=None, prior=None, full: bool = False, oracle=None):
        """log-prob of ``action``, entropy over legal actions, and value (and, with ``full``,
        the log-probabilities of every action as a fourth item); ``oracle``: as
        :meth:`masked_logits`."""
        logits = self.masked_logits(obs, mask, prior, oracle)
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
    if float(_get(cfg, "belief_coef", 0.0) or 0.0) > 0:
        raise ValueError("this network was trained with a belief head (belief_coef > 0), which "
                         "the trainer no longer has; read it with the trainer of commit a7f5325")
    return ActorCritic(int(_get(cfg, "hidden")), bool(_get(cfg, "central_critic")),
                       str(_get(cfg, "prior", "none")), float(_get(cfg, "prior_weight", 0.0)),
                       obs_size=obs_size(rules), extra_size=state_extra_size(rules),
                       actor=str(_get(cfg, "actor", "mlp")),
                       conv_channels=int(_get(cfg, "conv_channels", 128)),
                       waits=bool(_get(cfg, "wait_features", False)),
                       critic_hidden=int(_get(cfg, "critic_hidden", 0) or 0),
                       oracle=int(_get(cfg, "oracle_steps", 0) or 0) > 0)


def network_input(model: ActorCritic, obs: np.ndarray, waits: np.ndarray | None) -> np.ndarray:
    """What ``model`` reads for observations ``obs`` (one row or a batch): ``obs`` itself, or,
    for a network with wait features, ``obs`` followed by ``waits`` (the rows' 80 features,
    :func:`paohuzi_env.encode.features.wait_features` / ``VectorGame.wait_features``).

    Raises:
        ValueError: a network with wait features and no ``waits``.
    """
    if not model.waits:
        return obs
    if waits is None:
        raise ValueError("this network reads the wait features (paohuzi-waits-v1) after the "
                         "observation; pass them")
    return np.concatenate([obs, waits], axis=-1)


def widen_for_waits(state: dict[str, torch.Tensor], model: ActorCritic) -> dict[str, torch.Tensor]:
    """``state`` (the state dict of a network without wait features, the same config otherwise)
    made to fit ``model``, which reads them: the weights that read the new inputs (the conv
    actor's four more rows, the 80 flat inputs of the actor's and the critic's first layers) are
    zero, so the widened network computes exactly what ``state``'s did, and training starts from
    it. The prior's one-hot and the critic's full-information features keep their weights. A
    tensor that does not fit once widened (a central critic's where ``model``'s critic is plain,
    another width) is returned unchanged, for the caller's shape check."""
    if not model.waits:
        raise ValueError("widen_for_waits: the target network does not read wait features")
    out = dict(state)
    target = model.state_dict()
    n, w = model.obs_size, WAIT_FEATURES

    def insert_cols(t: torch.Tensor, at: int) -> torch.Tensor:
        z = torch.zeros(*t.shape[:-1], w, dtype=t.dtype)
        return torch.cat([t[..., :at], z, t[..., at:]], dim=-1)

    for k, t in state.items():
        want = target.get(k)
        if want is None or want.shape == t.shape:
            continue
        if k == "actor.conv.0.weight":   # (channels, 2 x rows, 3): the new rows' channels last
            z = torch.zeros(t.shape[0], max(0, want.shape[1] - t.shape[1]), t.shape[2],
                            dtype=t.dtype)
            wide = torch.cat([t, z], dim=1)
        elif k == "actor.head.0.weight":  # (hidden, 10 x channels + input): after the obs
            wide = insert_cols(t, 10 * int(target["actor.conv.0.bias"].shape[0]) + n)
        elif k in ("actor.0.weight", "critic.0.weight"):
            wide = insert_cols(t, n)
        else:
            continue
        # a tensor that still does not fit (another width, or a central critic where the
        # target's is plain) is left as it was, for the caller's shape check
        if wide.shape == want.shape:
            out[k] = wide
    return out

