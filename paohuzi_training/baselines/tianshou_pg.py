"""Self-play policy gradient with Tianshou's PettingZoo wrapper, ``Collector`` and buffer, with
the action mask applied in the loss — a short, complete example of plugging the env into
Tianshou 2.

    python -m paohuzi_training.baselines.tianshou_pg --steps 300

``tianshou.env.PettingZooEnv`` turns the AEC env into one that returns, at each step, the acting
agent's ``{"agent_id", "obs", "mask"}`` and every agent's reward. One shared network acts for all
three seats (``MaskedPolicy``: a Tianshou ``Policy`` sampling from the masked distribution). After
each collected hand, REINFORCE: each step's log-probability under the *masked* distribution
(illegal actions: probability 0, no gradient) weighted by the acting seat's reward for the hand.
"""

from __future__ import annotations

import logging
import sys
from typing import Any

import numpy as np
import torch
from torch import nn

from . import run

AGENTS = ("player_0", "player_1", "player_2")


def masked_logits(net: nn.Module, obs: torch.Tensor, legal: torch.Tensor) -> torch.Tensor:
    """``net``'s logits on ``obs`` with the illegal actions (``legal`` False) set to -inf."""
    return net(obs).masked_fill(~legal, float("-inf"))


def make_policy(net: nn.Module, env: Any, generator: torch.Generator):
    """A Tianshou ``Policy`` that samples from ``net``'s masked distribution with ``generator``."""
    from tianshou.algorithm.algorithm_base import Policy
    from tianshou.data import Batch

    class MaskedPolicy(Policy):
        """Samples an action from the network's distribution restricted to the legal ones."""

        def __init__(self) -> None:
            super().__init__(action_space=env.action_space,
                             observation_space=env.observation_space, action_bound_method=None)
            self.net = net

        def forward(self, batch: Any, state: Any = None, **kwargs: Any) -> Any:
            with torch.no_grad():
                obs = torch.as_tensor(np.asarray(batch.obs.obs), dtype=torch.float32)
                legal = torch.as_tensor(np.asarray(batch.obs.mask), dtype=torch.bool)
                probs = torch.softmax(masked_logits(self.net, obs, legal), -1)
                act = torch.multinomial(probs, 1, generator=generator).squeeze(1)
            return Batch(act=act.numpy(), state=state)

    return MaskedPolicy()


def make_env():
    """The AEC env (normalized rewards, minimal infos) in Tianshou's ``PettingZooEnv``."""
    from tianshou.env import PettingZooEnv

    import paohuzi_env

    return PettingZooEnv(paohuzi_env.env(reward="normalized", infos="minimal"))


def train(steps: int = 300, seed: int = 0, lr: float = 3e-4, log=print) -> dict:
    """Collect whole hands of self-play until ``steps`` env steps; update after each hand."""
    from tianshou.data import Collector, VectorReplayBuffer
    from tianshou.env import DummyVectorEnv

    torch.manual_seed(seed)
    logging.getLogger("tianshou.data.stats").setLevel(logging.ERROR)  # "per-seat rewards: 1D only"
    envs = DummyVectorEnv([make_env])
    envs.seed(seed)
    probe = make_env()
    obs_dim = probe.observation_space["observation"].shape[0]
    net = nn.Sequential(nn.Linear(obs_dim, 128), nn.ReLU(), nn.Linear(128, 61))
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    policy = make_policy(net, probe, torch.Generator().manual_seed(seed))
    seen: dict[str, Any] = {"steps": 0, "hands": 0, "illegal": 0, "hand_rewards": []}
    while seen["steps"] < steps:
        buf = VectorReplayBuffer(2000, 1)
        collector: Any = Collector(policy, envs, buf)
        collector.reset()
        collector.collect(n_episode=1)
        data: Any = buf.sample(0)[0]  # every transition, in order
        n = len(data)
        seen["steps"] += n
        seen["hands"] += 1
        obs = torch.as_tensor(np.asarray(data.obs.obs), dtype=torch.float32)
        legal = torch.as_tensor(np.asarray(data.obs.mask), dtype=torch.bool)
        act = torch.as_tensor(np.asarray(data.act), dtype=torch.int64)
        seen["illegal"] += int((~legal.gather(1, act[:, None])).sum())
        rew = np.asarray(data.rew, dtype=np.float32).reshape(n, -1)
        hand = rew.sum(0)  # each seat's reward for the hand
        seen["hand_rewards"].append(hand.tolist())
        who = [AGENTS.index(a) for a in np.asarray(data.obs.agent_id)]
        ret = torch.as_tensor(hand[who])
        logp = torch.log_softmax(masked_logits(net, obs, legal), -1)
        loss = -(logp.gather(1, act[:, None]).squeeze(1) * ret).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
        log(f"hand {seen['hands']:3d}: {n:3d} steps, rewards {hand.round(3).tolist()}")
    return seen


def main(argv: list[str] | None = None) -> int:
    """The example's command line (see :func:`paohuzi_training.baselines.run`)."""
    return run("python -m paohuzi_training.baselines.tianshou_pg", __doc__, "Tianshou", "tianshou", train,
               argv)


if __name__ == "__main__":
    sys.exit(main())
