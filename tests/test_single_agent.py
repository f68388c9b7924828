"""The Gymnasium single-agent wrapper (and MaskablePPO on it)."""

from __future__ import annotations

import numpy as np
import pytest

from paohuzi_env.wrappers import RandomPolicy, SingleAgentEnv


def test_reward_reaches_learner_even_when_another_seat_ends_the_hand():
    env = SingleAgentEnv(seat=1, reward="score", seed=0)
    rng = np.random.default_rng(0)
    ended_elsewhere = 0
    for ep in range(200):
        obs, info = env.reset(seed=ep)
        assert env.observation_space.contains(obs)
        done = False
        while not done:
            legal = np.flatnonzero(env.action_masks())
            assert len(legal) > 0
            obs, reward, done, trunc, info = env.step(int(rng.choice(legal)))
            if not done:
                assert reward == 0.0
        res = info["result"]
        assert reward == float(res.scores[1])
        if res.winner is not None and res.winner != 1:
            ended_elsewhere += 1
    assert ended_elsewhere > 0


def test_illegal_learner_action_raises():
    env = SingleAgentEnv(seed=0)
    env.reset(seed=0)
    bad = int(np.flatnonzero(~env.action_masks())[0])
    with pytest.raises(ValueError, match="not legal"):
        env.step(bad)


def test_seat_none_rotates_and_bad_arguments():
    env = SingleAgentEnv(seat=None, seed=3)
    seats = set()
    for ep in range(20):
        _, info = env.reset()
        seats.add(info["seat"])
    assert seats == {0, 1, 2}
    with pytest.raises(ValueError, match="seat"):
        SingleAgentEnv(seat=3)
    with pytest.raises(ValueError, match="opponents"):
        SingleAgentEnv(opponents=[RandomPolicy(0)])


def test_maskable_ppo_runs_on_single_agent_env():
    sb3_contrib = pytest.importorskip("sb3_contrib")
    env = SingleAgentEnv(seed=0)
    model = sb3_contrib.MaskablePPO("MlpPolicy", env, n_steps=128, batch_size=64, seed=0,
                                    verbose=0, device="cpu")
    model.learn(total_timesteps=384)
    obs, _ = env.reset(seed=1)
    action, _ = model.predict(obs, action_masks=env.action_masks())
    assert env.action_masks()[int(action)]
