"""``paohuzi_env.envs.openspiel``: the pyspiel game ``python_paohuzi`` against the AEC env, step by
step, over random games of every preset (20 a preset here, 500 under ``-m slow``); clone,
serialization and ``pyspiel.random_sim_test``; the chance model; bad input; bots both ways.
Skipped without OpenSpiel (the ``openspiel`` extra) or the compiled core."""

from __future__ import annotations

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from paohuzi_env import fast  # noqa: E402

if not fast.available():  # pragma: no cover - depends on the build
    pytest.skip(f"the compiled core is not built: {fast.unavailable_reason()}", allow_module_level=True)

from paohuzi_env.agents import make_agent  # noqa: E402
from paohuzi_env.envs import openspiel as osp  # noqa: E402
from paohuzi_env.envs.aec_env import raw_env  # noqa: E402
from paohuzi_env.game.actions import NUM_ACTIONS, action_name  # noqa: E402
from paohuzi_env.game.cards import NUM_KINDS  # noqa: E402
from paohuzi_env.game.rules import get_rules, preset_names  # noqa: E402

PRESETS = preset_names()
CHANCE = pyspiel.PlayerId.CHANCE


def _load(preset: str, **params):
    return pyspiel.load_game(osp.GAME_NAME, {"rules": preset, **params})


def _play_until(state, rng: np.random.Generator, done, pick=None):
    """Play ``state`` on until ``done(state)``: chance by its probabilities, players by
    ``pick(state)`` (default: uniformly among the legal actions)."""
    while not done(state):
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(outcomes, p=probs)))
        elif pick is None:
            state.apply_action(int(rng.choice(state.legal_actions())))
        else:
            state.apply_action(pick(state))
    return state


def _random_course(game, rng: np.random.Generator):
    """A random game: chance by its probabilities, players uniformly. Returns the final state and,
    for each player node, (player, legal actions, action names, three observations, three
    information state tensors)."""
    state = game.new_initial_state()
    steps = []
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            assert abs(sum(probs) - 1.0) < 1e-9
            state.apply_action(int(rng.choice(outcomes, p=probs)))
            continue
        p = state.current_player()
        legal = state.legal_actions()
        obs = [np.asarray(state.observation_tensor(s), np.float32) for s in range(3)]
        info = [np.asarray(state.information_state_tensor(s), np.float32) for s in range(3)]
        names = [state.action_to_string(p, a) for a in legal]
        steps.append((p, legal, names, obs, info))
        state.apply_action(int(rng.choice(legal)))
    return state, steps


def _deal_of(state, rules) -> tuple[list[int], int, list[int]]:
    """The deck (the chance outcomes in order, the undrawn rest in kind order), the dealer and
    the players' actions, read from the pyspiel history alone."""
    game = state.get_game()
    chance = [pa.action for pa in state.full_history() if pa.player == CHANCE]
    actions = [pa.action for pa in state.full_history() if pa.player != CHANCE]
    if game.fixed_dealer is None:
        dealer, cards = chance[0], chance[1:]
    else:
        dealer, cards = game.fixed_dealer, chance
    left = [4] * NUM_KINDS + [rules.wang]
    for k in cards:
        left[k] -= 1
    assert min(left) >= 0
    deck = cards + [k for k, c in enumerate(left) for _ in range(c)]
    return deck, dealer, actions


def _agree(preset: str, seed: int, reward: str = "score", **params) -> int:
    """One random game through pyspiel and through the AEC env: the same seat to act, legal
    actions and their names, observations (every seat's) and returns. Returns its length."""
    rules = get_rules(preset)
    game = _load(preset, reward=reward, **params)
    state, steps = _random_course(game, np.random.default_rng([seed, PRESETS.index(preset)]))
    deck, dealer, actions = _deal_of(state, rules)
    assert len(actions) == len(steps)
    assert len(state.history()) <= game.max_game_length()
    env = raw_env(rules=preset, reward=reward)
    env.reset(options={"deck": deck, "dealer": dealer})
    for (p, legal, names, obs, info), a in zip(steps, actions):
        assert env.agent_selection == f"player_{p}"
        mask = env.observe(env.agent_selection)["action_mask"]
        assert legal == [int(x) for x in np.flatnonzero(mask)]
        assert names == [action_name(x, env.game.decision) for x in legal]
        for s in range(3):
            o = env.observe(f"player_{s}")["observation"]
            assert np.array_equal(obs[s], o) and np.array_equal(info[s], o)
        env.step(a)
    assert all(env.terminations.values())
    returns = state.returns()
    assert returns == [env._cumulative_rewards[f"player_{s}"] for s in range(3)]
    low, high = game.min_utility(), game.max_utility()
    assert all(low <= r <= high for r in returns)
    if reward != "normalized":
        assert abs(sum(returns)) < 1e-9
    return len(steps)


@pytest.mark.parametrize("preset", PRESETS)
def test_agrees_with_the_env(preset):
    lengths = [_agree(preset, seed) for seed in range(20)]
    assert min(lengths) > 0


@pytest.mark.slow
@pytest.mark.parametrize("preset", PRESETS)
def test_agrees_with_the_env_500(preset):
    for seed in range(1000, 1500):
        _agree(preset, seed)


@pytest.mark.parametrize("reward", ["win", "normalized"])
def test_reward_modes_and_a_fixed_dealer(reward):
    for seed in range(3):
        _agree("huaihua", seed, reward=reward)
        _agree("yongzhou", seed, reward=reward, dealer=seed)
    game = _load("huaihua", reward=reward)
    zero_sum = reward == "win"
    assert (game.get_type().utility == pyspiel.GameType.Utility.ZERO_SUM) == zero_sum


def test_game_type_and_info():
    for preset in PRESETS:
        game = _load(preset)
        t = game.get_type()
        assert t.short_name == "python_paohuzi"
        assert t.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
        assert t.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
        assert t.utility == pyspiel.GameType.Utility.ZERO_SUM  # the default reward: score
        assert t.reward_model == pyspiel.GameType.RewardModel.TERMINAL
        assert game.num_players() == 3
        assert game.num_distinct_actions() == NUM_ACTIONS == 61
        assert game.max_chance_outcomes() == 21
        assert game.observation_tensor_size() == (771 if preset == "yongzhou" else 763)
        assert game.information_state_tensor_size() == game.observation_tensor_size()
        assert game.min_utility() < 0 < game.max_utility()
    assert _load("huaihua").get_parameters() == {"rules": "huaihua", "reward": "score", "dealer": -1}
    # the default game is huaihua
    assert pyspiel.load_game("python_paohuzi").get_parameters()["rules"] == "huaihua"


def test_chance_model():
    for preset, wang in (("huaihua", 0), ("yongzhou", 2)):
        state = _load(preset).new_initial_state()
        assert state.is_chance_node()
        assert state.chance_outcomes() == [(0, 1 / 3), (1, 1 / 3), (2, 1 / 3)]
        state.apply_action(1)
        out = dict(state.chance_outcomes())
        total = 80 + wang
        assert out == {**{k: 4 / total for k in range(20)}, **({20: wang / total} if wang else {})}
        state.apply_action(5)
        assert dict(state.chance_outcomes())[5] == 3 / (total - 1)
        for _ in range(59):
            state.apply_action(state.chance_outcomes()[0][0])
        assert state.is_chance_node()  # the 61st card: deck[60]
        state.apply_action(state.chance_outcomes()[-1][0])
        assert not state.is_chance_node() or state.is_terminal() is False
        assert state.hand is not None and state.hand.dealer == 1
        assert state.hand.liang == state.deck[20]  # R-DEAL-2: the dealer's 21st card
    # a draw is a chance node, then the draw's decision; its card is the chance outcome
    game = _load("huaihua", dealer=0)
    rng = np.random.default_rng(5)
    state = game.new_initial_state()
    draws = 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            k = int(rng.choice(outcomes, p=probs))
            wall = len(state.deck) >= 61
            state.apply_action(k)
            if wall:
                draws += 1
                assert state.deck[-1] == k
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
        if state.hand is not None and not state.is_chance_node():
            assert state.hand.wall_pos == len(state.deck)  # no card is drawn unfixed
    assert draws > 0


def test_clone_is_independent_and_does_not_replay(monkeypatch):
    def no_replay(*args, **kwargs):
        raise AssertionError("clone() replayed the hand")

    game = _load("huaihua")
    rng = np.random.default_rng(11)
    state = _play_until(game.new_initial_state(), rng,
                        lambda s: not s.is_chance_node() and len(s.history()) >= 100)
    before = (state.history(), str(state), state.observation_tensor(0))
    monkeypatch.setattr(fast.Game, "replay", no_replay)  # the hand is copied, never rebuilt
    monkeypatch.setattr(fast.Game, "__init__", no_replay)
    copy = state.clone()
    assert copy.hand is not state.hand
    assert copy.history() == before[0] and str(copy) == before[1]
    while not copy.is_terminal():
        if copy.is_chance_node():
            copy.apply_action(copy.chance_outcomes()[0][0])
        else:
            copy.apply_action(copy.legal_actions()[-1])
    assert (state.history(), str(state), state.observation_tensor(0)) == before


def test_serialization_round_trip():
    for preset in PRESETS:
        game = _load(preset)
        rng = np.random.default_rng(3)
        state = game.new_initial_state()
        for _ in range(120):
            if state.is_terminal():
                break
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes())
                state.apply_action(int(rng.choice(outcomes, p=probs)))
            else:
                state.apply_action(int(rng.choice(state.legal_actions())))
        back = game.deserialize_state(state.serialize())
        assert back.history() == state.history() and str(back) == str(state)
        g2, s2 = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))
        assert g2.get_parameters() == game.get_parameters()
        assert s2.history() == state.history()
        for s in range(3):
            assert s2.information_state_string(s) == state.information_state_string(s)
            assert s2.observation_tensor(s) == state.observation_tensor(s)


@pytest.mark.parametrize("preset", PRESETS)
def test_random_sim_test(preset):
    pyspiel.random_sim_test(_load(preset), num_sims=3, serialize=True, verbose=False)


def test_strings_are_readable():
    game = _load("huaihua")
    state, _ = _random_course(game, np.random.default_rng(2))
    text = state.observation_string(0)
    assert "你的手牌" in text and "亮张" in text
    info = state.information_state_string(0)
    assert info.startswith(text) and "起手" in info and "我的动作" in info
    state = game.new_initial_state()
    state.apply_action(0)
    assert state.action_to_string(CHANCE, 3) == "发 四"
    assert state.observation_tensor(0) == [0.0] * game.observation_tensor_size()


def test_bad_input_raises_spiel_errors():
    with pytest.raises(pyspiel.SpielError, match="valid presets"):
        _load("nope")
    with pytest.raises(pyspiel.SpielError, match="reward must be one of"):
        _load("huaihua", reward="money")
    with pytest.raises(pyspiel.SpielError, match="dealer must be -1"):
        _load("huaihua", dealer=3)
    with pytest.raises(pyspiel.SpielError, match="rules"):
        pyspiel.load_game(osp.GAME_NAME, {"rulez": "huaihua"})
    state = _load("huaihua").new_initial_state()
    with pytest.raises(pyspiel.SpielError, match="seats 0, 1, 2"):
        state.apply_action(7)
    state.apply_action(0)
    for _ in range(4):
        state.apply_action(0)
    with pytest.raises(pyspiel.SpielError, match="no card left"):
        state.apply_action(0)  # four 一 are dealt already
    with pytest.raises(pyspiel.SpielError, match="is no card left"):
        state.apply_action(21)
    rng = np.random.default_rng(0)
    while state.is_chance_node():
        outcomes, probs = zip(*state.chance_outcomes())
        state.apply_action(int(rng.choice(outcomes, p=probs)))
    assert not state.is_terminal()
    with pytest.raises(pyspiel.SpielError, match="an action is an id 0..60"):
        state.action_to_string(state.current_player(), 999)
    illegal = next(a for a in range(NUM_ACTIONS) if a not in state.legal_actions())
    with pytest.raises(pyspiel.SpielError, match="legal: "):
        state.apply_action(illegal)
    with pytest.raises(pyspiel.SpielError, match="public and the seat's own private"):
        _load("huaihua").make_py_observer(
            pyspiel.IIGObservationType(public_info=True, perfect_recall=False,
                                       private_info=pyspiel.PrivateInfoType.ALL_PLAYERS))


def test_resampled_states_look_the_same_to_the_seat():
    game = _load("huaihua")
    rng = np.random.default_rng(4)
    state = game.new_initial_state()
    checked = 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(outcomes, p=probs)))
            continue
        p = state.current_player()
        if len(state.history()) % 7 == 0:
            other = osp.sample_state(state, p, np.random.default_rng(checked))
            assert other.information_state_string(p) == state.information_state_string(p)
            assert other.observation_tensor(p) == state.observation_tensor(p)
            assert other.legal_actions() == state.legal_actions()
            checked += 1
        state.apply_action(int(rng.choice(state.legal_actions())))
    assert checked > 3


def test_our_agents_as_pyspiel_bots():
    game = _load("huaihua")
    bots = [osp.make_bot("expert", 0), osp.make_bot("greedy", 1), osp.make_bot("random", 2, seed=1)]
    rng = np.random.default_rng(9)
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(outcomes, p=probs)))
            continue
        p = state.current_player()
        a = bots[p].step(state)
        assert a in state.legal_actions()
        if p == 0:
            assert a == state.hand.expert_action()
        if p == 1:
            assert a == state.hand.greedy_action()
        state.apply_action(a)
    returns = pyspiel.evaluate_bots(game.new_initial_state(), bots, 7)
    assert len(returns) == 3 and abs(sum(returns)) < 1e-9
    with pytest.raises(pyspiel.SpielError, match="plays seat 0"):
        s = game.new_initial_state()
        while s.is_chance_node():
            s.apply_action(s.chance_outcomes()[0][0])
        other = next(b for b in bots if b.player_id != s.current_player())
        other.step(s)
    with pytest.raises(pyspiel.SpielError, match="player_id must be a seat"):
        osp.make_bot("expert", 3)
    with pytest.raises(ValueError, match="unknown agent spec"):
        osp.make_bot("nobody", 0)


@pytest.mark.parametrize("spec", ["openspiel:random", "openspiel:mcts:sims=4",
                                  "openspiel:ismcts:sims=4,uct_c=3"])
def test_openspiel_bots_as_agents(spec):
    agent = make_agent(spec, seed=0, rules="huaihua")
    g = fast.Game("huaihua", seed=3)
    decided = 0
    while not g.done and decided < 6:
        seat = g.current_player
        if seat == 0:
            a = agent.act_game(g, seat)
            assert a in g.legal_actions()
            decided += 1
        else:
            a = g.expert_action()
        g.step(a)
    assert decided > 0


def test_openspiel_spec_errors():
    with pytest.raises(ValueError, match="unknown OpenSpiel bot"):
        make_agent("openspiel:alphazero")
    with pytest.raises(ValueError, match="options: sims="):
        make_agent("openspiel:mcts:depth=3")
    with pytest.raises(ValueError, match="must be a number"):
        make_agent("openspiel:ismcts:sims=many")
    with pytest.raises(ValueError, match="rollout must be one of"):
        make_agent("openspiel:ismcts:rollout=search")


def test_nfsp_example_in_miniature():
    pytest.importorskip("torch")
    pytest.importorskip("tree")  # dm-tree, which OpenSpiel's PyTorch NFSP imports
    from paohuzi_training.baselines.nfsp_openspiel import OPPONENTS, train

    seen = train(steps=400, seed=0, log=lambda *_: None, deals=1, min_buffer=8, batch=8)
    assert seen["steps"] >= 400 and seen["hands"] >= 1
    assert any(sl is not None for sl, _ in seen["losses"])  # the average policies learned
    for opponent in OPPONENTS:
        assert np.isfinite(seen[f"vs_{opponent}"])


# A deal over before anyone acts (R-START-1's forced 天胡: seat 1 holds five 坎 and wins as
# dealt): the dealer's seat, then the 61 cards dealt, as chance outcomes. Found by sampling: the
# 10,025th hand of ChanceEventSampler(seed=7) (about one hand in 10,000 is one).
TIANHU_DEAL = [1, 2, 15, 8, 4, 5, 13, 8, 5, 15, 10, 18, 15, 3, 4, 9, 8, 14, 2, 2, 5, 4, 3, 18, 4, 9,
               14, 7, 10, 0, 6, 7, 12, 11, 13, 11, 17, 11, 9, 1, 19, 12, 10, 3, 1, 16, 12, 8, 3, 0,
               16, 13, 5, 6, 12, 1, 10, 14, 19, 15, 9, 6]


class _ReplaySampler:
    """rl_environment's chance sampler: ``first``'s outcomes in order, then seeded draws."""

    def __init__(self, first, seed=0):
        from open_spiel.python import rl_environment

        self.left, self.rest = list(first), rl_environment.ChanceEventSampler(seed=seed)

    def __call__(self, state):
        if self.left:
            outcome = self.left.pop(0)
            assert outcome in [a for a, _ in state.chance_outcomes()]
            return outcome
        return self.rest(state)


def test_self_play_skips_a_hand_over_at_the_deal():
    """The hour-long NFSP run of the baseline table stopped on such a hand: ``rl_environment``
    gives a hand over at the deal as a FIRST time step with no seat to act, and indexing the
    agents by ``current_player`` (TERMINAL, -4) failed. Self-play skips it (no decision, nothing
    to learn); the evaluation loop counts its points."""
    pytest.importorskip("torch")
    pytest.importorskip("tree")
    from open_spiel.python import rl_environment

    from paohuzi_training.baselines.nfsp_openspiel import make_agents, self_play_hand

    game = pyspiel.load_game("python_paohuzi", {"rules": "huaihua", "reward": "normalized"})
    env = rl_environment.Environment(game, chance_event_sampler=_ReplaySampler(TIANHU_DEAL))
    agents = make_agents(game, 0, min_buffer=8, batch=8)
    assert self_play_hand(env, agents) == 0
    state = env.get_state
    assert state.is_terminal() and state.current_player() == pyspiel.PlayerId.TERMINAL
    assert state.hand.result.reason == "tianhu" and state.hand.result.winner == 1
    # By hand: four small 坎 (3 huxi each) and one big (6) are 18 huxi, tun 1 + (18 - 15) // 3 =
    # 2 with no 自摸 tun (天胡 is not 自摸); fans 天胡 4 + 点胡 3 (one red card) = 7 (R-SCORE-2);
    # score 2 x 7 = 14, paid by each loser to seat 1 (R-SCORE-2: +28, -14, -14).
    assert state.hand.result.win.huxi == 18 and state.hand.result.win.names == ("天胡", "点胡")
    assert state.hand.result.scores == (-14, 28, -14)
    assert self_play_hand(env, agents) > 0  # the next hand is dealt at random and played out


def test_bench_openspiel_prints_the_ratio(capsys):
    from paohuzi_env.dev import bench_openspiel

    bench_openspiel.main(["--seconds", "0.3"])
    out = capsys.readouterr().out
    assert "pyspiel steps at" in out and "x the wrapped AEC env" in out


class _Recorder(pyspiel.Bot):
    """A bot that plays ``inner`` and records the cards dealt when it first acts."""

    def __init__(self, inner, seen):
        pyspiel.Bot.__init__(self)
        self.inner, self.seen = inner, seen

    def step(self, state):
        self.seen.append(tuple(state.deck[:61]))
        return self.inner.step(state)

    def restart_at(self, state):
        pass


def test_openspiel_eval_rotations_share_the_deal():
    from paohuzi_env.dev.openspiel_eval import evaluate

    game = _load("huaihua")
    decks = []
    for seat in range(3):
        seen: list = []
        bots = [_Recorder(osp.make_bot("expert" if s == seat else "greedy", s), seen) for s in range(3)]
        pyspiel.evaluate_bots(game.new_initial_state(), bots, 12345)
        decks.append(seen[0])
    assert decks[0] == decks[1] == decks[2]
    mean, half, per_deal = evaluate("expert", "greedy", 3, 0)
    assert len(per_deal) == 3 and mean == pytest.approx(np.mean(per_deal)) and half > 0


def test_ismcts_without_a_resampler_uses_the_state_s_own():
    from open_spiel.python.algorithms import ismcts

    game = _load("huaihua")
    rng = np.random.default_rng(8)
    state = _play_until(game.new_initial_state(), rng,
                        lambda s: not s.is_chance_node() and len(s.legal_actions()) >= 2,
                        pick=lambda s: s.legal_actions()[0])
    p = state.current_player()
    other = state.resample_from_infostate(p, pyspiel.UniformProbabilitySampler(0.0, 1.0))
    assert other.information_state_string(p) == state.information_state_string(p)
    bot = ismcts.ISMCTSBot(game, osp._PlayoutEvaluator("expert", rng), 2.0, 8,
                           random_state=np.random.RandomState(0))
    assert bot.step(state) in state.legal_actions()


def test_put_on_wall_and_pickling_of_the_core_hand():
    import pickle

    g = fast.Game("huaihua", seed=21)
    pos = g.wall_pos
    kind = g.deck[-1]
    g.put_on_wall(pos, kind)
    assert g.deck[pos] == kind and sorted(g.deck) == sorted(fast.Game("huaihua", seed=21).deck)
    with pytest.raises(ValueError, match="not an undrawn wall position"):
        g.put_on_wall(pos - 1, kind)
    with pytest.raises(ValueError, match="not an undrawn wall position"):
        g.put_on_wall(g.num_cards, kind)
    dealt_out = next(k for k in range(20) if k not in g.deck[pos:])
    with pytest.raises(ValueError, match="no card of kind"):
        g.put_on_wall(pos, dealt_out)
    while not g.done:
        g.step(g.expert_action())
        back = pickle.loads(pickle.dumps(g))
        assert back.record() == g.record() and back.done == g.done
