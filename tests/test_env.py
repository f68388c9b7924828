"""PettingZoo AEC environment: API conformance, masks, observations, leaks, rewards."""

from __future__ import annotations

import copy
import warnings

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, render_test, seed_test

import paohuzi_env
from paohuzi_env.encode.observation import OBS_SIZE, encode
from paohuzi_env.envs.aec_env import raw_env
from paohuzi_env.game.actions import NUM_ACTIONS, PASS
from paohuzi_env.game.engine import Game

PRESETS = ["huaihua", "huaihua-468", "classic", "zipai", "hongshanzhang", "yongzhou"]


def _random_episode(env, rng, check=None):
    """Play one hand with random legal actions through the AEC API; returns rewards."""
    total = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        total[agent] += reward
        if check is not None:
            check(env, agent, obs, term or trunc)
        if term or trunc:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.integers(len(legal))]))
    return total


@pytest.mark.parametrize("preset", PRESETS)
def test_pettingzoo_api_test(preset):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(pettingzoo.make("aec", f"paohuzi/{preset}-v0"), num_cycles=300)


def test_seed_and_render_tests():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        seed_test(lambda: paohuzi_env.env(), num_cycles=300)
        render_test(lambda render_mode=None: paohuzi_env.env(render_mode=render_mode))


def test_registry_has_every_preset():
    for preset in PRESETS:
        e = pettingzoo.make("aec", f"paohuzi/{preset}-v0")
        assert e.unwrapped.rules.name == preset


def test_spaces_are_built_once():
    e = raw_env()
    for a in e.possible_agents:
        assert e.observation_space(a) is e.observation_space(a)
        assert e.action_space(a) is e.action_space(a)
        assert e.action_space(a).n == NUM_ACTIONS == 61
        assert e.observation_space(a)["observation"].shape == (OBS_SIZE,)
        assert e.observation_space(a)["action_mask"].dtype == np.int8


def _checker(env, agent, obs, finished):
    space = env.observation_space(agent)
    assert space.contains(obs), "observation outside its space"
    assert obs["action_mask"].dtype == np.int8
    g = env.unwrapped.game
    seat = env.possible_agents.index(agent)
    for other in env.possible_agents:
        mask = env.observe(other)["action_mask"]
        if other == agent and not finished:
            assert mask.sum() > 0, "the acting agent's mask is empty"
            assert np.flatnonzero(mask).tolist() == g.legal_actions()
            assert g.current_player == seat
        else:
            assert mask.sum() == 0, "an agent not on turn has a non-zero mask"


@pytest.mark.parametrize("preset", PRESETS)
def test_masks_and_observations_over_random_play(preset):
    env = paohuzi_env.env(rules=preset)
    rng = np.random.default_rng(7)
    seen_decisions = set()

    def check(env_, agent, obs, finished):
        _checker(env_, agent, obs, finished)
        if not finished:
            seen_decisions.add(env_.unwrapped.game.decision)

    for i in range(40):
        env.reset(seed=i)
        _random_episode(env, rng, check)
    assert {"claim", "bi", "discard"} <= seen_decisions


def test_score_rewards_are_zero_sum_and_reach_everyone():
    env = paohuzi_env.env(reward="score")
    rng = np.random.default_rng(1)
    wins = 0
    for i in range(300):
        env.reset(seed=i)
        total = _random_episode(env, rng)
        res = env.unwrapped.game.result
        assert sum(total.values()) == 0
        assert [total[a] for a in env.possible_agents] == [float(s) for s in res.scores]
        wins += res.winner is not None
    assert wins > 0, "no hand was won; the reward path was not exercised"


def test_win_and_normalized_rewards():
    for mode in ("win", "normalized"):
        env = paohuzi_env.env(reward=mode)
        rng = np.random.default_rng(2)
        for i in range(200):
            env.reset(seed=i)
            total = _random_episode(env, rng)
            res = env.unwrapped.game.result
            vals = [total[a] for a in env.possible_agents]
            if res.winner is None:
                assert vals == [0.0, 0.0, 0.0]
            elif mode == "win":
                assert vals == [1.0 if s == res.winner else -0.5 for s in range(3)]
            else:
                assert vals == [max(-1.0, min(1.0, p / 64)) for p in res.scores]


def test_reset_seed_reproduces_rewards_and_observations():
    def run(seed):
        env = paohuzi_env.env()
        env.reset(seed=seed)
        rng = np.random.default_rng(99)
        obs_log = []
        total = _random_episode(env, rng, lambda e, a, o, f: obs_log.append(o["observation"]))
        return total, obs_log

    a, oa = run(5)
    b, ob = run(5)
    assert a == b
    assert len(oa) == len(ob) and all(np.array_equal(x, y) for x, y in zip(oa, ob))


def test_reset_with_chosen_deal():
    g = Game(seed=3)
    env = raw_env()
    env.reset(options={"deck": g.deck, "dealer": g.dealer})
    assert env.game.deck == g.deck and env.game.dealer == g.dealer


def test_bad_arguments_raise():
    with pytest.raises(ValueError, match="reward"):
        raw_env(reward="points")
    with pytest.raises(ValueError, match="render_mode"):
        raw_env(render_mode="rgb_array")
    with pytest.raises(ValueError, match="unknown rules preset"):
        raw_env(rules="changsha")
    env = raw_env()
    env.reset(seed=0)
    legal = env.game.legal_actions()
    bad = next(a for a in range(NUM_ACTIONS) if a not in legal)
    with pytest.raises(ValueError, match="not legal"):
        env.step(bad)


def test_illegal_action_terminates_in_wrapped_env():
    env = paohuzi_env.env()
    env.reset(seed=0)
    legal = env.unwrapped.game.legal_actions()
    bad = next(a for a in range(NUM_ACTIONS) if a not in legal)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env.step(bad)
    assert all(env.terminations.values())


def test_infos_carry_events_and_legal_names():
    env = raw_env()
    env.reset(seed=4)
    info = env.infos[env.agent_selection]
    assert set(info["legal_names"]) == set(env.game.legal_actions())
    assert all(isinstance(n, str) and n for n in info["legal_names"].values())
    assert info["events"][0][0] == "liang"


def test_state_is_full_information_and_not_observation():
    env = raw_env()
    env.reset(seed=11)
    s = env.state()
    assert env.state_space.contains(s)
    me = env.possible_agents.index(env.agent_selection)
    assert np.array_equal(s[:OBS_SIZE], env.observe(env.agent_selection)["observation"])
    g = env.game
    nxt = (me + 1) % 3
    assert np.allclose(s[OBS_SIZE:OBS_SIZE + 20] * 4, g.hands[nxt])


# ---------------------------------------------------------------------- leak tests


def _perturb_hidden(game: Game, seat: int, rng: np.random.Generator) -> Game | None:
    """A copy of ``game`` that differs only in what ``seat`` cannot see: a card swapped
    between the two other hands, or between another hand and the wall, or the kind of
    another seat's hidden 偎. None if no such change exists here."""
    g = copy.deepcopy(game)
    o1, o2 = (seat + 1) % 3, (seat + 2) % 3
    kinds = lambda s: [k for k in range(20) if g.hands[s][k]]  # noqa: E731
    choice = rng.integers(3)
    if choice == 0 and kinds(o1) and kinds(o2):
        a, b = int(rng.choice(kinds(o1))), int(rng.choice(kinds(o2)))
        if a == b:
            return None
        g.hands[o1][a] -= 1
        g.hands[o1][b] += 1
        g.hands[o2][b] -= 1
        g.hands[o2][a] += 1
        return g
    if choice == 1 and kinds(o1) and g.wall_pos < 80:
        a = int(rng.choice(kinds(o1)))
        i = int(rng.integers(g.wall_pos, 80))
        b = g.deck[i]
        if a == b:
            return None
        g.hands[o1][a] -= 1
        g.hands[o1][b] += 1
        g.deck[i] = a
        return g
    for o in (o1, o2):
        for m in g.melds[o]:
            if m[0] == "wei":
                a = m[1][0]
                for b in range(20):
                    if b != a and g.hands[o1 if o == o2 else o2][b] >= 3:
                        donor = o1 if o == o2 else o2
                        g.hands[donor][b] -= 3
                        g.hands[donor][a] += 3
                        m[1] = (b, b, b)
                        g._meld_key[o] = None
                        return g
    return None


def test_hidden_cards_never_change_a_seats_observation():
    rng = np.random.default_rng(3)
    compared = 0
    for i in range(30):
        g = Game(seed=i)
        while not g.done:
            for seat in range(3):
                other = _perturb_hidden(g, seat, rng)
                if other is not None:
                    assert np.array_equal(encode(g.view(seat)), encode(other.view(seat)))
                    compared += 1
            legal = g.legal_actions()
            g.step(legal[int(rng.integers(len(legal)))])
    assert compared > 500


def test_earlier_claim_answers_are_invisible_to_later_claimants():
    rng = np.random.default_rng(5)
    found = 0
    for i in range(400):
        g = Game(seed=i)
        while not g.done and found < 30:
            if g.decision == "claim":
                window = (g.offer, len(g.events))  # no event is added while a window is open
                asker = g.current_player
                later_obs = {}
                for a in g.legal_actions():
                    branch = copy.deepcopy(g)
                    branch.step(a)
                    while branch.decision == "bi" and branch.current_player == asker:
                        branch.step(branch.legal_actions()[0])
                    if (branch.decision == "claim" and branch.current_player != asker
                            and (branch.offer, len(branch.events)) == window):
                        later_obs[a] = encode(branch.view(branch.current_player))
                if len(later_obs) >= 2:
                    found += 1
                    first = next(iter(later_obs.values()))
                    for obs in later_obs.values():
                        assert np.array_equal(first, obs)
            legal = g.legal_actions()
            g.step(legal[int(rng.integers(len(legal)))])
        if found >= 30:
            break
    assert found > 0, "no claim window with two asked seats was found"


def test_pass_is_offered_at_every_claim_and_bi():
    rng = np.random.default_rng(8)
    for i in range(60):
        g = Game(seed=i)
        while not g.done:
            if g.decision in ("claim", "bi", "hu", "tianhu"):
                assert PASS in g.legal_actions()
            legal = g.legal_actions()
            g.step(legal[int(rng.integers(len(legal)))])


# ---------------------------------------------------------------------- scripted decisions


def _env_for(game: Game, rules="huaihua") -> raw_env:
    env = raw_env(rules=rules)
    env.reset(options={"deck": game.deck, "dealer": game.dealer})
    return env


def _mask(env) -> list[int]:
    return np.flatnonzero(env.observe(env.agent_selection)["action_mask"]).tolist()


def _decision_bits(env) -> list[float]:
    from paohuzi_env.encode.observation import DECISION

    return env.observe(env.agent_selection)["observation"][DECISION:DECISION + 5].tolist()


def test_every_decision_kind_is_masked_in_scripted_hands():
    from paohuzi_env.game.actions import HU, PENG
    from paohuzi_env.game.rules import get_rules
    from tests import test_engine_scenarios as sc
    from tests.deals import D, G, new_game

    # 亮张 HU (R-START-2): the dealer is offered HU/PASS, nobody else has a mask.
    env = _env_for(new_game(sc.LIANG_D, sc.LIANG_N, sc.LIANG_P))
    assert env.agent_selection == "player_0" and _mask(env) == [HU, PASS]
    assert _decision_bits(env) == [1, 0, 0, 0, 0]
    assert env.observe("player_1")["action_mask"].sum() == 0

    # HU after one's own 提 (win_on_own_ti_wei on, R-FLOW-2).
    rules = get_rules("huaihua", win_on_own_ti_wei=True)
    env = _env_for(new_game(sc.TD, sc.TN, sc.TP, "壹", rules=rules), rules)
    env.step(D("十"))
    env.step(PASS)
    assert env.agent_selection == "player_1" and _mask(env) == [HU, PASS]
    assert _decision_bits(env) == [0, 1, 0, 0, 0]

    # claim with PENG + 吃 groups + PASS (忍碰), then each 比 step (seed 000 (b)).
    env = _env_for(new_game(sc.B_DEALER, sc.B_NEXT, sc.B_PREV))
    assert _decision_bits(env) == [0, 0, 0, 0, 1]  # the dealer's discard
    env.step(D("二"))
    assert _mask(env) == [G("一二三"), G("二三四"), G("二二贰"), G("二贰贰"), PENG, PASS]
    assert _decision_bits(env) == [0, 0, 1, 0, 0]
    env.step(G("二贰贰"))
    assert _mask(env) == [G("一二三"), G("二三四"), PASS]
    assert _decision_bits(env) == [0, 0, 0, 1, 0]
    env.step(G("一二三"))
    assert _mask(env) == [G("二三四"), PASS]
    env.step(G("二三四"))
    assert env.game.decision == "discard" and env.agent_selection == "player_1"
    assert all(a < 20 for a in _mask(env))  # discards only

    # a 比 chain cancelled with PASS (R-CHI-3): nothing is placed.
    env = _env_for(new_game(sc.C004_DEALER, sc.C004_NEXT, sc.C004_PREV))
    env.step(D("三"))
    env.step(G("三四五"))
    assert _mask(env) == [G("一二三"), PASS]
    env.step(PASS)
    assert env.game.melds[1] == []


# ----------------------------------------------------------------------------- rewards and state


def test_reward_of_every_mode_on_hand_computed_results():
    from paohuzi_env.encode.rewards import NORMALIZER, REWARD_MODES, reward_from_scores, reward_of
    from paohuzi_env.game.engine import Result

    assert REWARD_MODES == ("score", "win", "normalized") and NORMALIZER == 64.0
    win5 = Result(winner=0, scores=(10, -5, -5), win=None, reason="hu")  # a win of score 5
    expected = {
        "score": [10.0, -5.0, -5.0],
        "win": [1.0, -0.5, -0.5],
        "normalized": [10 / 64, -5 / 64, -5 / 64],
    }
    for mode, want in expected.items():
        got = [reward_of(win5, s, mode) for s in range(3)]
        assert got == want and all(type(x) is float for x in got), mode
        assert got == [reward_from_scores(win5.scores, s, mode, 0) for s in range(3)]
    big = Result(winner=2, scores=(-40, -40, 80), win=None, reason="hu")  # clipped
    assert [reward_of(big, s, "normalized") for s in range(3)] == [-0.625, -0.625, 1.0]
    draw = Result(winner=None, scores=(0, 0, 0), win=None, reason="draw")  # 荒庄
    for mode in REWARD_MODES:
        assert [reward_of(draw, s, mode) for s in range(3)] == [0.0, 0.0, 0.0]
    with pytest.raises(ValueError, match=r"'points'.*'score', 'win', 'normalized'"):
        reward_of(win5, 0, "points")
    with pytest.raises(ValueError, match="reward must be one of"):
        raw_env(reward="points")


def test_env_rewards_are_reward_of_the_result():
    from paohuzi_env.encode.rewards import REWARD_MODES, reward_of

    for mode in REWARD_MODES:
        env = raw_env(reward=mode)
        rng = np.random.default_rng(5)
        for i in range(40):
            env.reset(seed=i)
            while not env.terminations[env.agent_selection]:
                env.step(int(rng.choice(env.infos[env.agent_selection]["legal_actions"])))
            res = env.game.result
            assert [env._cumulative_rewards[a] for a in env.possible_agents] == [
                reward_of(res, s, mode) for s in range(3)]


def test_state_is_the_observation_then_state_extra():
    from paohuzi_env.encode.state import STATE_EXTRA_SIZE, STATE_SIZE, encode_state, state_extra

    assert (STATE_EXTRA_SIZE, STATE_SIZE) == (160, 923) and STATE_SIZE == OBS_SIZE + STATE_EXTRA_SIZE
    env = raw_env()
    assert env.state_space.shape == (STATE_SIZE,)
    rng = np.random.default_rng(8)
    checked = 0
    for i in range(6):
        env.reset(seed=i)
        while not env.terminations[env.agent_selection]:
            g, me = env.game, env.possible_agents.index(env.agent_selection)
            s = env.state()
            assert s.dtype == np.float32 and s.shape == (STATE_SIZE,)
            want = np.concatenate([encode(g.view(me)), state_extra(g, me)])
            assert s.tobytes() == want.tobytes() == encode_state(g, me).tobytes()
            out = np.full(STATE_EXTRA_SIZE, 7.0, np.float32)  # ``out`` is overwritten, not added to
            assert state_extra(g, me, out) is out and out.tobytes() == want[OBS_SIZE:].tobytes()
            checked += 1
            env.step(int(rng.choice(env.infos[env.agent_selection]["legal_actions"])))
    assert checked > 50


def test_wrapped_env_reads_the_raw_envs_attributes_and_keeps_pettingzoos_checks():
    """env() wraps in PettingZoo's three wrappers (subclassed to read the hot attributes off the
    raw env in one step): every such attribute is the raw env's own object, the order check
    still refuses them before reset(), and writes reach the raw env."""
    from pettingzoo.utils import wrappers

    from paohuzi_env.envs.aec_env import _HOT

    e = paohuzi_env.env()
    assert isinstance(e, wrappers.OrderEnforcingWrapper)
    assert isinstance(e.env, wrappers.AssertOutOfBoundsWrapper)
    assert isinstance(e.env.env, wrappers.TerminateIllegalWrapper)
    for name in ("agents", "agent_selection", "rewards", "terminations", "infos"):
        with pytest.raises(AttributeError, match="cannot be accessed before reset"):
            getattr(e, name)
    assert e.possible_agents == ["player_0", "player_1", "player_2"]
    e.reset(seed=3)
    raw = e.unwrapped
    for layer in (e, e.env, e.env.env):
        for name in _HOT:
            assert getattr(layer, name) is getattr(raw, name), name
    e.infos = {a: {"x": 1} for a in e.agents}
    assert raw.infos["player_0"] == {"x": 1}
    assert str(e) == str(raw)
