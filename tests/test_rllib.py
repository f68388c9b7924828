"""``paohuzi_env.envs.rllib``: the MultiAgentEnv RLlib's action-masking modules expect, one RLlib PPO
iteration with masking on a local Ray cluster the test starts, its checkpoint evaluated through
the harness (``rllib:PATH``). Time-boxed: tiny batches. Skipped without Ray RLlib (the ``rllib``
extra)."""

from __future__ import annotations

import json
import pickle
import warnings

import numpy as np
import pytest

pytest.importorskip("ray.rllib")
pytest.importorskip("torch")

import ray  # noqa: E402

from paohuzi_env import fast  # noqa: E402
from paohuzi_env.agents import make_agent  # noqa: E402
from paohuzi_env.encode.observation import encode, obs_size  # noqa: E402
from paohuzi_env.encode.rewards import reward_of  # noqa: E402
from paohuzi_env.envs.rllib import AGENTS, LegalDiscrete, PaohuziMultiAgentEnv  # noqa: E402
from paohuzi_env.game.actions import NUM_ACTIONS  # noqa: E402
from paohuzi_env.game.engine import Game, IllegalActionError  # noqa: E402
from paohuzi_training.baselines.rllib_ppo import ppo_config  # noqa: E402


def _play(env, seed, pick):
    obs, infos = env.reset(seed=seed)
    steps, returns, seen = 0, dict.fromkeys(AGENTS, 0.0), set()
    while True:
        (agent,) = obs
        seen.add(agent)
        o = obs[agent]
        legal = [int(i) for i in np.flatnonzero(o["action_mask"])]
        assert legal == env.game.legal_actions()
        action = pick(agent, legal)
        obs, rewards, terms, truncs, infos = env.step({agent: action})
        steps += 1
        for a, r in rewards.items():
            returns[a] += r
        assert truncs == {"__all__": False}
        if terms["__all__"]:
            assert set(obs) == set(rewards) == seen  # every seat that acted, and no other
            return obs, rewards, terms, returns, steps


@pytest.mark.parametrize("backend", ["python", pytest.param("fast", marks=pytest.mark.skipif(
    not fast.available(), reason="the compiled core is not built"))])
@pytest.mark.parametrize("rules", ["huaihua", "yongzhou"])
def test_env_keys_dtypes_turns_and_rewards(rules, backend):
    env = PaohuziMultiAgentEnv({"rules": rules, "reward": "score", "backend": backend})
    space = env.observation_spaces["player_0"]
    assert set(space.spaces) == {"observations", "action_mask"}
    assert space["action_mask"].dtype == np.float32 and space["action_mask"].shape == (NUM_ACTIONS,)
    assert space["observations"].shape == (obs_size(rules),)
    rng = np.random.default_rng(3)
    for seed in range(6):
        obs, _rewards, terms, returns, steps = _play(
            env, seed, lambda a, legal: legal[int(rng.integers(len(legal)))])
        g = env.game
        assert g.done and steps == len(g.actions)
        # the last observation and the hand's reward go to every seat that acted
        acted = set(obs)
        assert all(terms[a] for a in acted)
        for a in acted:
            assert space.contains(obs[a])
            assert returns[a] == reward_of(g.result, AGENTS.index(a), "score")
        # each observation is the seat's own (the reference encoder on its view)
        for a in acted:
            np.testing.assert_array_equal(obs[a]["observations"], encode(g.view(AGENTS.index(a))))


def test_same_seed_same_deal_and_errors():
    e1, e2 = PaohuziMultiAgentEnv({"seed": 5}), PaohuziMultiAgentEnv({"seed": 5})
    e1.reset(), e2.reset()
    assert e1.game.deck == e2.game.deck
    e1.reset(seed=9), e2.reset(seed=9)
    assert e1.game.deck == e2.game.deck == Game("huaihua", seed=int(
        np.random.default_rng(9).integers(2**63))).deck
    with pytest.raises(ValueError, match="unknown PaohuziMultiAgentEnv config keys"):
        PaohuziMultiAgentEnv({"rule": "huaihua"})
    with pytest.raises(ValueError, match="reward must be one of"):
        PaohuziMultiAgentEnv({"reward": "points"})
    obs, _ = e1.reset(seed=1)
    (agent,) = obs
    other = next(a for a in AGENTS if a != agent)
    with pytest.raises(ValueError, match="is to act alone"):
        e1.step({other: 0})
    illegal = next(i for i in range(NUM_ACTIONS) if obs[agent]["action_mask"][i] == 0)
    with pytest.raises(IllegalActionError):
        e1.step({agent: illegal})


def test_action_space_samples_legal_moves_and_rllib_precheck_is_quiet():
    from ray.rllib.utils.pre_checks.env import check_multiagent_environments

    env = PaohuziMultiAgentEnv({"seed": 1})
    obs, _ = env.reset(seed=2)
    (agent,) = obs
    for _ in range(50):
        assert int(env.action_spaces[agent].sample()) in env.game.legal_actions()
    # a pickled copy (as spaces travel in module specs) holds no env and samples plainly
    copy = pickle.loads(pickle.dumps(env.action_spaces[agent]))
    assert isinstance(copy, LegalDiscrete) and copy._env is None
    assert 0 <= int(copy.sample()) < NUM_ACTIONS
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_multiagent_environments(env)  # steps one sampled action: legal, so no error
    assert not [w for w in caught if "illegal" in str(w.message).lower()]
    # seeded: the same reset seed, the same sampled actions
    e2 = PaohuziMultiAgentEnv({"seed": 1})
    draws = []
    for e in (env, e2):
        obs, _ = e.reset(seed=11)
        (agent,) = obs
        draws.append([int(e.action_spaces[agent].sample()) for _ in range(20)])
    assert draws[0] == draws[1]


@pytest.fixture(scope="module")
def cluster():
    ray.init(num_cpus=2, include_dashboard=False, configure_logging=False, log_to_driver=False)
    yield
    ray.shutdown()


def test_one_ppo_iteration_with_masking_then_evaluated(cluster, tmp_path):
    from paohuzi_training.baselines.rllib_ppo import train
    from paohuzi_training.eval.evaluate import evaluate

    out = tmp_path / "ckpt"
    logs: list[str] = []
    rows = train("huaihua", iterations=1, out=str(out), train_batch_size=300, minibatch_size=100,
                 num_epochs=1, hiddens=(32,), log=logs.append)
    # every sampled action went through env.step, which raises on an illegal one: the mask held
    assert rows[0]["env_steps"] >= 300
    returns = rows[0]["agent_episode_returns_mean"]
    assert set(returns) <= set(AGENTS) and returns, rows
    assert "agent_episode_returns_mean" in logs[0]
    meta = json.loads((out / "paohuzi.json").read_text())
    assert meta == {"rules": "huaihua", "obs_size": obs_size("huaihua"), "iteration": 1}

    agent = make_agent(f"rllib:{out}", 0, "huaihua")
    g = Game("huaihua", seed=4)
    while not g.done:
        a = agent.act(g.view(g.current_player))
        assert a in g.legal_actions()
        g.step(a)
    res = evaluate(f"rllib:{out}", "random", deals=2, seed=1, workers=1, progress=False)
    assert res["deals"] == 2 and np.isfinite(res["mean_points"])
    with pytest.raises(ValueError, match="trained under rules 'huaihua'"):
        make_agent(f"rllib:{out}", 0, "yongzhou")
    from paohuzi_env.envs.rllib import module_path

    inner = module_path(str(out))  # the module's own folder (no paohuzi.json): checked by shape
    assert inner != str(out) and make_agent(f"rllib:{inner}", 0, "huaihua").act(
        Game("huaihua", seed=1).view(Game("huaihua", seed=1).current_player)) >= 0
    with pytest.raises(ValueError, match="reads 763 observation floats"):
        make_agent(f"rllib:{inner}", 0, "yongzhou")
    with pytest.raises(ValueError, match="no such checkpoint folder"):
        make_agent(f"rllib:{tmp_path / 'missing'}", 0, "huaihua")


def test_ppo_config_builds_a_shared_masking_module():
    cfg = ppo_config("zipai", seed=3)
    assert cfg.policies.keys() == {"shared"}
    assert cfg.policy_mapping_fn("player_2", None) == "shared"
    assert cfg.env_config["rules"].name == "zipai"
