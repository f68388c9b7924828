"""Backend choice (paohuzi_env.backends.select): the AEC env, SingleAgentEnv, the harness and `paohuzi play`
run on the compiled core or the Python reference with the same results; without the compiled
core everything runs on Python with one warning."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import paohuzi_env
from paohuzi_env import fast
from paohuzi_env.backends.select import resolve_backend
from paohuzi_env.envs.wrappers import SingleAgentEnv
from paohuzi_training.eval.evaluate import evaluate

needs_core = pytest.mark.skipif(not fast.available(), reason="compiled core not built")


def test_resolve_backend_names_and_env_var(monkeypatch):
    assert resolve_backend("python") == "python"
    with pytest.raises(ValueError, match="backend must be one of auto, fast, python"):
        resolve_backend("gpu")
    monkeypatch.setenv("PAOHUZI_BACKEND", "python")
    assert resolve_backend(None) == "python"
    monkeypatch.setenv("PAOHUZI_BACKEND", "nope")
    with pytest.raises(ValueError, match=r"\$PAOHUZI_BACKEND must be one of"):
        resolve_backend(None)
    monkeypatch.delenv("PAOHUZI_BACKEND")
    assert resolve_backend(None) == ("fast" if fast.available() else "python")


def _trace(backend: str, rules: str, hands: int = 4) -> list:
    env = paohuzi_env.env(rules=rules, backend=backend)
    env.reset(seed=7)
    rng = np.random.default_rng(3)
    out = []
    for _ in range(hands):
        for agent in env.agent_iter():
            obs, rew, term, trunc, info = env.last()
            out.append((agent, obs["observation"].tobytes(), obs["action_mask"].tobytes(), rew,
                        env.unwrapped.state().tobytes() if not (term or trunc) else b""))
            a = None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"])))
            env.step(a)
        env.reset()
    return out


@needs_core
@pytest.mark.parametrize("rules", ["huaihua", "zipai", "yongzhou"])
def test_aec_env_same_on_both_backends(rules):
    assert _trace("fast", rules) == _trace("python", rules)


@needs_core
def test_single_agent_env_and_harness_same_on_both_backends():
    def returns(backend):
        env = SingleAgentEnv(opponents="expert", seed=1, backend=backend)
        env.reset(seed=1)
        rng = np.random.default_rng(0)
        got = []
        for _ in range(150):
            _, r, done, _, _ = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
            if done:
                got.append(r)
                env.reset()
        return got

    assert returns("fast") == returns("python")
    a = evaluate("expert", "greedy", deals=8, seed=2, workers=1, progress=False, backend="fast")
    b = evaluate("expert", "greedy", deals=8, seed=2, workers=1, progress=False, backend="python")
    assert a["rows"] == b["rows"] and a["mean_points"] == b["mean_points"]


def test_without_the_compiled_core_everything_runs_on_python():
    # As on a machine with no C++ compiler: the extension cannot be imported.
    code = """
import sys, warnings
sys.modules["paohuzi_env._fast"] = None
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    import paohuzi_env
    from paohuzi_env import fast
    import paohuzi_env.backends.fast
msgs = [str(x.message) for x in w if "Python engine will be used" in str(x.message)]
assert len(msgs) == 1, msgs
assert not fast.available()
from paohuzi_env.backends.select import resolve_backend
assert resolve_backend("auto") == "python"
try:
    resolve_backend("fast")
    raise SystemExit("fast should fail")
except ValueError as e:
    assert "not built" in str(e), e
import paohuzi_env
e = paohuzi_env.env()
e.reset(seed=0)
assert e.unwrapped.backend == "python"
print("ok")
"""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "ok"


@needs_core
@pytest.mark.parametrize("rules", ["huaihua", "yongzhou"])
def test_both_backends_satisfy_one_game_interface_with_the_same_answers(rules):
    """paohuzi_env.game.protocol.GameProtocol: the reference adapter (ReferenceGame, Python encoders
    and bots) and fast.Game give bit-identical observations, masks and states, the same bot
    choices, and independent clones, at every decision of seeded hands."""
    from paohuzi_env.backends.reference import ReferenceGame
    from paohuzi_env.backends.select import game_class
    from paohuzi_env.game.protocol import GameProtocol

    assert game_class("python") is ReferenceGame and game_class("fast") is fast.Game
    decisions = 0
    for seed in range(3):
        ref, core = ReferenceGame(rules, seed=seed), fast.Game(rules, seed=seed)
        assert isinstance(ref, GameProtocol) and isinstance(core, GameProtocol)
        while not ref.done:
            seat = ref.current_player
            assert seat == core.current_player and ref.legal_actions() == core.legal_actions()
            for s in range(3):
                assert np.array_equal(ref.observation(s), core.observation(s))
                assert np.array_equal(ref.action_mask(s), core.action_mask(s))
                assert ref.action_mask(s).dtype == core.action_mask(s).dtype == np.int8
            assert np.array_equal(ref.state(), core.state())
            assert ref.greedy_action() == core.greedy_action()
            a = ref.expert_action()
            assert a == core.expert_action()
            twin = ref.clone()
            ref.step(a)
            core.step(a)
            assert twin.record() != ref.record()  # the clone did not move with the hand
            decisions += 1
        assert ref.result == core.result
    assert decisions > 30  # every hand was played through several decisions


@needs_core
def test_the_reference_vector_game_has_the_core_surface_and_answers():
    """reference.ReferenceVectorGame (the trainer's Python rollouts): every hand is a seeded
    ReferenceGame played as stepped; observe/wait_features/policy_actions/state/playout_after
    agree with the compiled core on the same positions; an illegal action moves no hand; finished hands report
    their points and are dealt afresh."""
    from paohuzi_env.backends.reference import ReferenceGame, ReferenceVectorGame
    from paohuzi_env.game.engine import IllegalActionError

    vg = ReferenceVectorGame(4, "huaihua", seed=5)
    obs, mask, seat, decision = vg.observe()
    assert obs.shape == (4, vg.obs_size) and mask.dtype == np.int8
    finished = 0
    for _ in range(120):
        vg.observe(obs, mask, seat, decision)
        acts = vg.policy_actions("expert")
        state = vg.state()
        waits = vg.wait_features()
        for i in range(4):
            core = fast.Game.replay(vg.hand(i).record())
            assert core.current_player == seat[i]
            assert np.array_equal(core.observation(int(seat[i])), obs[i])
            assert np.array_equal(core.wait_features(int(seat[i])), waits[i])
            assert np.array_equal(core.action_mask(int(seat[i])), mask[i])
            assert np.array_equal(core.state(), state[i])
            assert core.expert_action() == acts[i]
        if _ == 3:
            bad = acts.copy()
            bad[1] = next(a for a in range(61) if not mask[1, a])
            before = [vg.hand(i).record() for i in range(4)]
            with pytest.raises(IllegalActionError):
                vg.step(bad)
            assert [vg.hand(i).record() for i in range(4)] == before
            got = vg.playout_after(acts, np.ones(4, np.bool_), "greedy")
            for i in range(4):
                g = vg.hand(i)
                g.step(int(acts[i]))
                while not g.done:
                    g.step(g.greedy_action())
                assert tuple(got[i]) == g.result.scores
        rewards, done = vg.step(acts)
        for i in np.flatnonzero(done):
            last, deal = vg.last_hand(int(i))
            assert tuple(rewards[i]) == last.result.scores
            assert last.deck == ReferenceGame("huaihua", seed=np.random.SeedSequence([5, deal])).deck
            assert vg.hand(int(i)).actions == []  # dealt afresh
            finished += 1
    assert finished >= 2 and vg.hands_finished == finished
