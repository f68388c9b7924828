"""A trained policy as an agent: ``checkpoint:PATH`` in the evaluation harness and ``paohuzi play``.

:func:`load_checkpoint_agent` is the factory of the ``checkpoint`` agent spec prefix, declared
in ``pyproject.toml`` under the ``paohuzi.agents`` entry-point group, so ``paohuzi_env`` builds
these agents without importing this package.
"""

from __future__ import annotations

import numpy as np
import torch

from paohuzi_env.agents import make_agent
from paohuzi_env.backends.reference import legal_mask
from paohuzi_env.bots.base import Agent
from paohuzi_env.encode.features import wait_features
from paohuzi_env.encode.observation import encode, obs_size, obs_version
from paohuzi_env.game.actions import NUM_ACTIONS
from paohuzi_env.game.engine import PlayerView
from paohuzi_env.game.rules import as_rules

from .checkpoint import load_checkpoint
from .model import ActorCritic, model_for


def model_from_checkpoint(data: dict) -> ActorCritic:
    """The network of a loaded checkpoint (its config's architecture, its weights), in eval mode.

    Raises:
        ValueError: the weights do not fit the network the config describes.
    """
    model = model_for(data["config"])
    try:
        model.load_state_dict(data["model"])
    except RuntimeError as e:
        raise ValueError(f"checkpoint weights do not fit the network of its config: {e}") from None
    model.eval()
    return model


class PolicyAgent(Agent):
    """Acts with the policy's most probable legal action (or samples, ``sample=True``).

    A network trained with a prior asks its own copy of the prior bot at every decision,
    from the same ``PlayerView``.

    Raises:
        ValueError: if the network reads observations of another size than ``rules``
            produce (``paohuzi-obs-v1`` without 王, ``paohuzi-obs-v2`` with them).
    """

    name = "policy"

    def __init__(self, model: ActorCritic, seed=None, sample: bool = False,
                 rules="huaihua") -> None:
        super().__init__(seed)
        rules = as_rules(rules)
        if model.obs_size != obs_size(rules):
            raise ValueError(
                f"this network reads {model.obs_size} observation floats, but rules "
                f"{rules.name!r} produce {obs_size(rules)} ({obs_version(rules)})"
            )
        self.model = model
        self.rules = rules
        self.sample = sample
        self.prior = None if model.prior == "none" else make_agent(
            model.prior, seed=int(self.rng.integers(2**63)), rules=rules)

    @torch.no_grad()
    def logits(self, view: PlayerView) -> torch.Tensor:
        """The network's masked logits (61) at ``view``: the one play-time forward pass (the
        prior bot asked first when the network was trained on one)."""
        x = encode(view)
        if self.model.waits:
            x = np.concatenate([x, wait_features(view, self.rules)])
        obs = torch.from_numpy(x).unsqueeze(0)
        mask = torch.from_numpy(legal_mask(view.legal, dtype=np.bool_)).unsqueeze(0)
        prior = None if self.prior is None else torch.tensor([self.prior(view)])
        return self.model.masked_logits(obs, mask, prior)[0]

    def probabilities(self, view: PlayerView) -> dict[int, float]:
        """The policy's probability of each legal action at ``view`` (softmax of :meth:`logits`)."""
        with torch.no_grad():
            p = self.logits(view).softmax(-1)
        return {int(a): float(p[a]) for a in view.legal}

    def act(self, view: PlayerView) -> int:
        """The most probable legal action at ``view``, or one sampled from the policy (``sample``)."""
        logits = self.logits(view)
        if not self.sample:
            return int(torch.argmax(logits))
        p = torch.softmax(logits, -1).numpy().astype(np.float64)
        return int(self.rng.choice(NUM_ACTIONS, p=p / p.sum()))


def load_checkpoint_agent(path: str, seed=None, rules="huaihua", trust: bool | None = None) -> PolicyAgent:
    """The agent of a checkpoint; it must have been trained under ``rules``' preset.

    The ``checkpoint`` spec factory: ``make_agent("checkpoint:PATH", seed, rules)`` calls
    ``load_checkpoint_agent(PATH, seed=seed, rules=rules)``.

    Raises:
        ValueError: if the checkpoint is missing, corrupt or made for other rules (another
            preset, or another observation version).
    """
    data = load_checkpoint(path, rules=rules, trust=trust)  # trust: see load_checkpoint
    torch.set_num_threads(1)
    return PolicyAgent(model_from_checkpoint(data), seed, rules=rules)
