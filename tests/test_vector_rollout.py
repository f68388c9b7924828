"""Rollouts on the compiled core (paohuzi_training.stages.rollout.Rollout over fast.VectorGame): the
batches the trainer learns from, checked as on the reference engine (tests/test_training.py), and the core's
duplicate rollouts against the Python ones."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")

from paohuzi_env import fast  # noqa: E402
from paohuzi_env.agents import make_agent  # noqa: E402
from paohuzi_env.backends.reference import ReferenceVectorGame  # noqa: E402
from paohuzi_env.game.engine import Game  # noqa: E402
from paohuzi_training.recipe import make_config  # noqa: E402
from paohuzi_training.stages.rollout import (  # noqa: E402
    Rollout,
    make_rollout,
    prior_playout,
    target_playout,
)

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(not fast.available(), reason="the compiled core is not built")


def _cfg(**kw):
    values = dict(run_name="v", backend="fast", total_steps=600, workers=1, games_per_worker=8,
                  steps_per_worker=200, hidden=32, minibatch_size=128, update_epochs=1,
                  opponent_bots={"greedy": 0.3}, eval_every=0, final_eval_deals=0)
    values.update(kw)
    return make_config(values)


def test_make_rollout_follows_the_backend():
    fast_roll = make_rollout(_cfg(backend="auto"), np.random.SeedSequence(0))
    ref_roll = make_rollout(_cfg(backend="python"), np.random.SeedSequence(0))
    assert (fast_roll.backend, ref_roll.backend) == ("fast", "python")
    fast_roll.collect(10)
    ref_roll.collect(10)
    assert isinstance(fast_roll.vg, fast.VectorGame)
    assert isinstance(ref_roll.vg, ReferenceVectorGame)  # the same loop on the reference engine
    with pytest.raises(ValueError, match="backend"):
        make_config({"backend": "gpu"})


@pytest.mark.parametrize("central", [False, True])
def test_batches_have_exactly_the_asked_size_and_legal_actions(central):
    cfg = _cfg(central_critic=central, opponent_self=0.4, opponent_snapshots=0.2,
               opponent_bots={"greedy": 0.2, "expert": 0.2, "random": 0.2})
    roll = Rollout(cfg, np.random.SeedSequence(5))
    roll.set_weights(roll.model.state_dict(), [roll.model.state_dict()], [1.0])
    seen_opponents = set()
    carried = None
    for n in (150, 230):
        b = roll.collect(n)
        if carried is not None:  # what the last call's final hands gave beyond 150 opens this
            assert np.array_equal(b["obs"][:len(carried)], carried)
        carried = None if roll.carry is None else roll.carry["obs"].copy()
        assert len(b["action"]) == n and all(len(b[k]) == n for k in ("obs", "mask", "logp",
                                                                      "value", "adv", "ret"))
        assert b["obs"].shape == (n, 763) and b["mask"].dtype == bool
        assert b["extra"].shape == (n, 160 if central else 0)
        assert b["mask"][np.arange(n), b["action"]].all()  # every action was legal
        assert (b["logp"] <= 0).all()
        assert b["stats"]["invalid_actions"] == 0
        assert np.allclose(b["ret"], b["adv"] + b["value"], atol=1e-5)
        seen_opponents |= set(b["stats"]["by_opponent"])
        assert b["stats"]["seconds"]["inference"] > 0
    assert {"bot:greedy", "bot:expert", "bot:random", "snap:0"} <= seen_opponents


def test_monte_carlo_returns_end_in_the_hand_reward():
    """gamma = lambda = 1: every transition's return is its hand's final reward for its seat,
    whole points in score mode (up to float rounding), and some hands are lost (a fresh
    network against two experts; random-ish self-play mostly ends in 荒庄, 0 points)."""
    cfg = _cfg(reward="score", gae_lambda=1.0, opponent_self=0.0, opponent_snapshots=0.0,
               opponent_bots={"expert": 1.0})
    b = Rollout(cfg, np.random.SeedSequence(1)).collect(300)
    assert np.abs(b["ret"] - np.round(b["ret"])).max() < 1e-4
    assert (np.abs(b["ret"]) > 0.5).any()


def test_duplicate_deal_baseline_cancels_the_deal():
    """A learner that always plays expert's choice scores exactly what expert scores on the
    same deal: every return against the all-expert baseline is 0; raw points are not."""
    kw = dict(prior="expert", prior_weight=60.0, reward="score", gae_lambda=1.0,
              opponent_self=0.5, opponent_snapshots=0.0, opponent_bots={"expert": 0.5})
    base = Rollout(_cfg(reward_baseline="expert", **kw), np.random.SeedSequence(4)).collect(150)
    raw = Rollout(_cfg(**kw), np.random.SeedSequence(4)).collect(150)
    assert base["stats"]["hands"] > 3
    assert np.array_equal(base["action"], base["prior"])  # the prior's choices, always
    assert np.array_equal(base["action"], raw["action"])  # same deals, same (expert) play
    assert np.abs(base["adv"] + base["value"]).max() < 1e-5  # Monte Carlo returns are all 0
    assert np.abs(raw["adv"] + raw["value"]).max() > 0.5  # raw points are not


def test_rollout_advantages_are_zero_on_the_prior_and_duplicate_playouts_elsewhere():
    cfg = _cfg(prior="expert", prior_weight=1.0, advantage="rollout", reward="score",
               opponent_self=1.0, opponent_snapshots=0.0, opponent_bots={"expert": 0.0})
    b = Rollout(cfg, np.random.SeedSequence(2)).collect(150)
    follows = b["action"] == b["prior"]
    assert follows.any() and (~follows).any()
    assert (b["adv"][follows] == 0).all()
    assert (b["adv"][~follows] != 0).any()


def test_rollout_advantages_against_a_fixed_network_play_it_out():
    """advantage: rollout against a fixed network (opponent_agents, an exploiter's target): the
    duplicate playouts seat that network in the other seats (target_playout), so departures are
    valued against it; rows that follow the prior have advantage 0. The playout is the same
    on both engines for the same hand and action."""
    net = ROOT / "checkpoints" / "shipped" / "policy.safetensors"
    cfg = _cfg(prior="expert", prior_weight=1.0, advantage="rollout", reward="score",
               opponent_self=0.0, opponent_snapshots=0.0, opponent_bots={},
               opponent_agents={f"checkpoint:{net}": 1.0})
    b = Rollout(cfg, np.random.SeedSequence(2)).collect(150)
    follows = b["action"] == b["prior"]
    assert follows.any() and (~follows).any()
    assert (b["adv"][follows] == 0).all() and (b["adv"][~follows] != 0).any()
    vg = fast.VectorGame(4, "huaihua", seed=23)
    for _ in range(5):
        vg.step(vg.random_actions())
    acts = vg.random_actions()
    opp, expert = make_agent(f"network:{net}", seed=0), make_agent("expert", seed=0)
    for i in range(4):
        hand = vg.hand(i)
        seat = hand.current_player
        g = Game.replay(hand.record())
        assert target_playout(hand, int(acts[i]), seat, expert, opp) == \
            target_playout(g, int(acts[i]), seat, expert, opp)


def test_core_duplicate_rollouts_equal_the_python_ones():
    """VectorGame.playout_after (C++) scores a departure exactly as paohuzi_training.stages.rollout.
    prior_playout does on the Python engine, for the same hand and action."""
    vg = fast.VectorGame(6, "huaihua", seed=17)
    acts = vg.random_actions()
    for _ in range(7):  # into the hands a little
        vg.step(vg.random_actions())
    acts = vg.random_actions()
    which = np.ones(6, np.bool_)
    got = vg.playout_after(acts, which, "expert")
    bot = make_agent("expert", seed=0)
    for i in range(6):
        g = Game.replay(vg.hand(i).record())
        seat = g.current_player
        assert seat is not None
        for s in range(3):
            want = prior_playout(g, int(acts[i]), s, bot)
            assert got[i, s] == pytest.approx(want)
    before = [vg.hand(i).record() for i in range(6)]
    vg.playout_after(acts, which, "expert")
    assert [vg.hand(i).record() for i in range(6)] == before  # the hands did not move
    bad = acts.copy()
    bad[2] = 60 if 60 not in vg.hand(2).legal_actions() else 59
    with pytest.raises(ValueError, match="not legal in hand 2"):
        vg.playout_after(bad, which, "expert")


def test_policy_actions_for_chosen_hands_only():
    vg = fast.VectorGame(8, "huaihua", seed=3)
    which = np.array([1, 0, 1, 0, 1, 0, 0, 1], np.bool_)
    out = np.full(8, -7, np.int64)
    vg.policy_actions("expert", out, which)
    full = vg.expert_actions()
    assert (out[which] == full[which]).all() and (out[~which] == -7).all()
    with pytest.raises(ValueError, match="which"):
        vg.policy_actions("expert", out, np.ones(3, np.bool_))


def test_snapshots_of_a_residual_network_play_on_top_of_the_prior():
    """A snapshot opponent of a residual (expert-prior) network is given the prior's choices,
    as the learner is: with a prior bonus of 60 a fresh network plays exactly expert, so a
    learner seated with two such snapshots scores what three experts score on every deal."""
    cfg = _cfg(prior="expert", prior_weight=60.0, reward="score", gae_lambda=1.0,
               reward_baseline="expert", opponent_self=0.0, opponent_snapshots=1.0,
               opponent_bots={})
    roll = Rollout(cfg, np.random.SeedSequence(6))
    roll.set_weights(roll.model.state_dict(), [roll.model.state_dict()], [1.0])
    b = roll.collect(150)
    assert set(b["stats"]["by_opponent"]) == {"snap:0"}
    assert b["stats"]["hands"] > 3
    assert np.array_equal(b["action"], b["prior"])
    assert np.abs(b["adv"] + b["value"]).max() < 1e-5  # every hand as three experts play it
