"""SingleAgentEnv(illegal_action=...): raise, terminate with a penalty, or ignore; SB3's
check_env passes in the non-raising modes."""

from __future__ import annotations

import numpy as np
import pytest

from paohuzi_env.envs.wrappers import ILLEGAL_ACTIONS, SingleAgentEnv


def _illegal(env: SingleAgentEnv) -> int:
    return int(np.flatnonzero(~env.action_masks())[0])


def test_raise_is_the_default_and_names_the_other_modes():
    env = SingleAgentEnv(seed=0)
    env.reset(seed=1)
    with pytest.raises(ValueError, match="not legal.*illegal_action='terminate'"):
        env.step(_illegal(env))


def test_terminate_ends_the_hand_with_the_penalty():
    env = SingleAgentEnv(seed=0, illegal_action="terminate", illegal_penalty=2.5)
    obs, _ = env.reset(seed=1)
    bad = _illegal(env)
    obs2, reward, terminated, truncated, info = env.step(bad)
    assert (reward, terminated, truncated) == (-2.5, True, False)
    assert info["illegal_action"] == bad and bad not in info["legal"]
    assert np.array_equal(obs, obs2)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(int(np.flatnonzero(env.action_masks())[0]))
    env.reset(seed=2)  # the next hand plays normally
    env.step(int(np.flatnonzero(env.action_masks())[0]))


def test_ignore_and_mask_changes_nothing():
    env = SingleAgentEnv(seed=0, illegal_action="ignore-and-mask")
    obs, _ = env.reset(seed=1)
    mask = env.action_masks().copy()
    state = env.aec.game.record()
    obs2, reward, terminated, _, info = env.step(_illegal(env))
    assert reward == -1.0 and not terminated and "illegal_action" in info
    assert np.array_equal(obs, obs2) and np.array_equal(mask, env.action_masks())
    assert env.aec.game.record() == state
    env.step(int(np.flatnonzero(mask)[0]))  # and a legal action still plays


def test_bad_mode():
    with pytest.raises(ValueError, match="illegal_action must be one of raise, terminate"):
        SingleAgentEnv(illegal_action="skip")
    assert ILLEGAL_ACTIONS == ("raise", "terminate", "ignore-and-mask")


@pytest.mark.parametrize("mode", ["terminate", "ignore-and-mask"])
def test_stable_baselines3_check_env_passes(mode):
    check_env = pytest.importorskip("stable_baselines3.common.env_checker").check_env
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning either
        check_env(SingleAgentEnv(opponents="expert", seed=0, illegal_action=mode))
