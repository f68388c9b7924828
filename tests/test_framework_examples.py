"""The framework examples (paohuzi_training/baselines/): each trains for a few hundred steps with the
action mask applied; time-boxed, CPU only. Skipped when the framework is not installed."""

from __future__ import annotations

import warnings

import pytest
import torch

import paohuzi_env
from paohuzi_env.encode.rewards import reward_of


def test_minimal_infos_are_empty_and_full_infos_unchanged():
    e = paohuzi_env.env(infos="minimal")
    e.reset(seed=0)
    while e.agents:
        obs, _, term, trunc, info = e.last()
        assert info == {}
        e.step(None if term or trunc else int(obs["action_mask"].argmax()))
    f = paohuzi_env.env()
    f.reset(seed=0)
    assert "legal_actions" in f.last()[-1]
    with pytest.raises(ValueError, match="infos must be 'full' or 'minimal'"):
        paohuzi_env.env(infos="none")


def test_torchrl_pettingzoo_wrapper_and_policy_gradient_example():
    pytest.importorskip("torchrl")
    from paohuzi_training.baselines.torchrl_pg import GROUPS, Policy, make_env, masked_logits, train

    warnings.filterwarnings("ignore", message="PettingZoo in TorchRL is tested")
    seen = train(steps=200, seed=0, log=lambda *_: None)
    assert seen["steps"] >= 200 and seen["illegal"] == 0 and seen["decisions"] == seen["steps"]
    # the rewards TorchRL hands out are the env's, seat by seat
    env = make_env(1)
    net = torch.nn.Linear(763, 61)
    pol = Policy(net, torch.Generator().manual_seed(0))
    for _ in range(3):
        ro = env.rollout(400, pol, break_when_any_done=True)
        result = env._env.unwrapped.game.result
        got = [float(ro["next", g, "reward"].sum()) for g in GROUPS]
        assert got == pytest.approx([reward_of(result, s, "normalized") for s in range(3)])
    # masked: illegal actions have probability 0 and get no gradient
    obs = torch.randn(2, 763, requires_grad=True)
    legal = torch.zeros(2, 61, dtype=torch.bool)
    legal[0, [3, 7]] = True
    logp = torch.log_softmax(masked_logits(net, obs, legal), -1)
    assert torch.isinf(logp[0, 0]) and torch.isfinite(logp[0, 3])
    assert torch.isfinite(logp[1]).all()  # a seat not on turn: a dummy uniform row


@pytest.mark.slow  # about a minute; .ci/run runs it in its slow slice
def test_tianshou_pettingzoo_collector_and_policy_gradient_example():
    pytest.importorskip("tianshou")
    from paohuzi_training.baselines.tianshou_pg import train

    seen = train(steps=200, seed=0, log=lambda *_: None)
    assert seen["steps"] >= 200 and seen["illegal"] == 0
    for hand in seen["hand_rewards"]:
        assert len(hand) == 3 and sum(hand) == pytest.approx(0.0)
