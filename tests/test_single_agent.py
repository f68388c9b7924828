"""The Gymnasium single-agent wrapper (and MaskablePPO on it)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from paohuzi_env.agents import ExpertAgent, GreedyAgent, RandomAgent
from paohuzi_env.envs.wrappers import RandomPolicy, SingleAgentEnv

SHIPPED = Path(__file__).resolve().parents[1] / "checkpoints" / "shipped" / "policy.safetensors"


def _play(env: SingleAgentEnv, hands: int, seed: int) -> list:
    """A seeded random learner's trajectory: every observation, reward and result."""
    rng = np.random.default_rng(seed)
    trace: list = []
    for ep in range(hands):
        obs, _ = env.reset(seed=seed + ep)
        trace.append(obs.tobytes())
        done = False
        while not done:
            legal = np.flatnonzero(env.action_masks())
            obs, reward, done, _, info = env.step(int(rng.choice(legal)))
            trace.append((obs.tobytes(), reward))
        trace.append(info["result"])
    return trace


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


@pytest.mark.parametrize("bad", [3, object(), ["expert"], ("expert", "expert", "expert"),
                                 ["expert", 5], {"next": "expert"}])
def test_bad_opponents_name_what_is_allowed(bad):
    with pytest.raises(ValueError, match="opponents must be an Agent, an agent spec string"):
        SingleAgentEnv(opponents=bad)


def test_unknown_opponent_spec_names_the_valid_ones():
    with pytest.raises(ValueError, match="unknown agent spec 'smart'; valid: random, greedy, expert"):
        SingleAgentEnv(opponents=["expert", "smart"])


def test_spec_strings_and_agent_instances_play_the_same():
    """A spec at position i is built with SeedSequence(seed).spawn(2)[i] and the env's rules."""
    rules = "classic"
    s0, s1 = np.random.SeedSequence(11).spawn(2)
    by_spec = SingleAgentEnv(opponents=["random", "expert"], rules=rules, seat=1, seed=11)
    by_agent = SingleAgentEnv(opponents=[RandomAgent(s0), ExpertAgent(s1, rules)], rules=rules,
                              seat=1, seed=11)
    assert isinstance(by_spec.opponents[0], RandomAgent)
    assert isinstance(by_spec.opponents[1], ExpertAgent)
    assert by_spec.opponents[1].rules.name == rules
    trace = _play(by_spec, 6, seed=3)
    assert trace == _play(by_agent, 6, seed=3)
    # One spec for both seats: two agents with separate seeds; an instance alone serves both.
    one_spec = SingleAgentEnv(opponents="random", seed=11)
    assert one_spec.opponents[0] is not one_spec.opponents[1]
    assert _play(one_spec, 4, seed=3) == _play(
        SingleAgentEnv(opponents=[RandomAgent(s0), RandomAgent(s1)], seed=11), 4, seed=3)
    shared = ExpertAgent(0)
    assert SingleAgentEnv(opponents=shared).opponents == [shared, shared]
    # The opponents' seed matters.
    assert _play(SingleAgentEnv(opponents="random", seed=12), 4, seed=3) != _play(
        SingleAgentEnv(opponents="random", seed=11), 4, seed=3)


def test_mixed_opponents_agents_get_views_and_policies_get_observations():
    seen: list[str] = []

    class Spy(GreedyAgent):
        def act(self, view):
            seen.append("view")
            return super().act(view)

    def obs_policy(obs):
        assert set(obs) == {"observation", "action_mask"}
        seen.append("obs")
        return RandomPolicy(0)(obs)

    env = SingleAgentEnv(opponents=[Spy(0), obs_policy], seed=0)
    _play(env, 5, seed=0)
    assert {"view", "obs"} <= set(seen)


def test_checkpoint_spec_as_opponent():
    pytest.importorskip("torch")
    env = SingleAgentEnv(opponents=["expert", f"checkpoint:{SHIPPED}"], seed=0)
    assert type(env.opponents[1]).__name__ == "PolicyAgent"
    assert isinstance(_play(env, 1, seed=0)[-1].scores, tuple)


class _CountingEnv(SingleAgentEnv):
    """Counts the learner's steps and records any illegal action instead of raising."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.steps = 0
        self.illegal: list[int] = []

    def step(self, action):
        self.steps += 1
        if not self.action_masks()[int(action)]:
            self.illegal.append(int(action))
            action = int(np.flatnonzero(self.action_masks())[0])
        return super().step(action)


def test_maskable_ppo_trains_against_expert_opponents_with_legal_actions_only():
    sb3_contrib = pytest.importorskip("sb3_contrib")
    env = _CountingEnv(opponents="expert", seed=0)
    model = sb3_contrib.MaskablePPO("MlpPolicy", env, n_steps=256, batch_size=128, n_epochs=1,
                                    seed=0, verbose=0, device="cpu",
                                    policy_kwargs={"net_arch": [64]})
    model.learn(total_timesteps=2048)
    assert model.num_timesteps >= 2048 and env.steps >= 2048
    assert env.illegal == []
    obs, _ = env.reset(seed=1)
    action, _ = model.predict(obs, action_masks=env.action_masks())
    assert env.action_masks()[int(action)]
