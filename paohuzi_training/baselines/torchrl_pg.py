"""Self-play policy gradient on TorchRL's PettingZoo wrapper, with the action mask applied in the
loss — a short, complete example of plugging the env into TorchRL.

    python -m paohuzi_training.baselines.torchrl_pg --steps 300

The env is ``paohuzi_env.env(infos="minimal")`` (TorchRL turns every info entry into a tensor; the
default infos hold lists and dicts). ``PettingZooWrapper(..., use_mask=True)`` gives one group per
seat, each with ``mask`` (is this seat acting?) and ``action_mask`` (its legal actions). One
shared network plays all three seats. REINFORCE: each acting step's log-probability — of the
*masked* distribution, so illegal actions have probability 0 and no gradient — is weighted by
the hand's final reward of that seat (zero-sum, ``normalized``: points / 64).
"""

from __future__ import annotations

import sys

import torch
from torch import nn

from . import run

GROUPS = ("player_0", "player_1", "player_2")


def make_env(seed: int = 0):
    """The AEC env in TorchRL's ``PettingZooWrapper``: one group per seat, with masks, seeded."""
    from torchrl.envs import PettingZooWrapper

    import paohuzi_env

    env = PettingZooWrapper(env=paohuzi_env.env(infos="minimal", reward="normalized"),
                            use_mask=True, categorical_actions=True, return_state=False,
                            group_map={g: [g] for g in GROUPS})
    env.set_seed(seed)
    return env


def masked_logits(net: nn.Module, obs: torch.Tensor, legal: torch.Tensor) -> torch.Tensor:
    """Logits with every illegal action at -inf (a seat not on turn gets a uniform dummy row)."""
    logits = net(obs)
    legal = legal.clone()
    idle = ~legal.any(-1)
    legal[idle] = True  # nothing is asked of it; its action is ignored by the env
    return logits.masked_fill(~legal, float("-inf"))


class Policy:
    """TorchRL policy: writes an action for every group from the shared network."""

    def __init__(self, net: nn.Module, generator: torch.Generator) -> None:
        self.net, self.gen = net, generator

    def __call__(self, td):
        """Write into ``td`` each group's action, sampled from the masked distribution."""
        with torch.no_grad():
            for g in GROUPS:
                obs = td[g]["observation"]["observation"]
                logits = masked_logits(self.net, obs, td[g]["action_mask"])
                probs = torch.softmax(logits, -1).reshape(-1, logits.shape[-1])
                a = torch.multinomial(probs, 1, generator=self.gen).reshape(logits.shape[:-1])
                td[g]["action"] = a
        return td


def train(steps: int = 300, seed: int = 0, lr: float = 3e-4, log=print) -> dict:
    """Play ``steps`` env steps (whole hands) of self-play and update after each hand.

    Returns: counts of what was seen (steps, hands, acting decisions, illegal actions taken)."""
    torch.manual_seed(seed)
    env = make_env(seed)
    obs_dim = env.observation_spec[GROUPS[0]]["observation"]["observation"].shape[-1]
    net = nn.Sequential(nn.Linear(obs_dim, 128), nn.ReLU(), nn.Linear(128, 61))
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    policy = Policy(net, torch.Generator().manual_seed(seed))
    seen = {"steps": 0, "hands": 0, "decisions": 0, "illegal": 0}
    while seen["steps"] < steps:
        ro = env.rollout(400, policy, break_when_any_done=True)
        seen["steps"] += ro.batch_size[0]
        seen["hands"] += 1
        loss = torch.zeros(())
        for g in GROUPS:
            acting = ro[g]["mask"].reshape(-1)
            if not acting.any():
                continue
            obs = ro[g]["observation"]["observation"].reshape(-1, obs_dim)[acting]
            legal = ro[g]["action_mask"].reshape(-1, 61)[acting]
            actions = ro[g]["action"].reshape(-1)[acting]
            seen["decisions"] += int(acting.sum())
            seen["illegal"] += int((~legal.gather(1, actions[:, None])).sum())
            ret = ro["next", g, "reward"].reshape(-1).sum()  # the hand's reward of this seat
            logp = torch.log_softmax(masked_logits(net, obs, legal), -1)
            loss = loss - (logp.gather(1, actions[:, None]).squeeze(1) * ret).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
        log(f"hand {seen['hands']:3d}: {ro.batch_size[0]:3d} steps, loss {loss.item():+.4f}")
    return seen


def main(argv: list[str] | None = None) -> int:
    """The example's command line (see :func:`paohuzi_training.baselines.run`)."""
    return run("python -m paohuzi_training.baselines.torchrl_pg", __doc__, "TorchRL", "torchrl", train, argv)


if __name__ == "__main__":
    sys.exit(main())
