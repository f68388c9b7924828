"""The ``search`` agent (paohuzi_env/agents/search.py): legal moves on every preset, worlds that
agree with everything its seat knows, and decisions that do not depend on the hidden cards."""

from __future__ import annotations

import numpy as np
import pytest

from paohuzi_env import fast
from paohuzi_env.agents import SearchAgent, decide, make_agent
from paohuzi_env.agents.search import _knowledge, _sample_deck, _world, parse_search_spec
from paohuzi_env.game.engine import Game as PyGame
from paohuzi_env.game.rules import preset_names
from tests.positions import expert_positions

pytestmark = pytest.mark.skipif(not fast.available(), reason="the search needs the compiled core")


@pytest.mark.parametrize("rules", preset_names())
def test_search_plays_legal_moves_to_the_end(rules):
    agent = make_agent("search:samples=3", seed=7, rules=rules)
    for seed in range(2):
        g = fast.Game(rules, seed=seed)
        while not g.done:
            s = g.current_player
            a = decide(agent, g, s) if s == 0 else g.expert_action()
            assert a in g.legal_actions()
            g.step(a)  # raises on an illegal action


@pytest.mark.parametrize("rules", ["huaihua", "zipai", "yongzhou"])
def test_sampled_worlds_agree_with_all_the_seat_knows(rules):
    """Every world, at the seat's decision, shows the seat exactly its real view (hand, every
    table, discards, hand sizes, 王 shown, its 臭 sets, the offer, the legal actions), and the
    same public course of events; and the cards add up to a full deck."""
    rng = np.random.default_rng(0)
    checked = 0
    for seed in range(3):
        for seat in range(3):
            for g in expert_positions(rules, 10 + seed, seat, every=3):
                kn = _knowledge(g, seat)
                for _ in range(3):
                    deck = _sample_deck(kn, rng)
                    assert deck is not None
                    assert sorted(deck) == sorted(g.deck)
                    w = _world(kn, deck, g.rules)
                    if w is None:
                        continue
                    assert w.view(seat) == g.view(seat)
                    assert w.events == g.events
                    assert [w.view(s).hand_sizes for s in range(3)] == \
                        [g.view(s).hand_sizes for s in range(3)]
                    checked += 1
    assert checked > 30


def _same_to(seat: int, a: PyGame, b: PyGame) -> bool:
    return a.view(seat) == b.view(seat) and a.events == b.events


def _hidden_variants(g: fast.Game, seat: int, rng: np.random.Generator, want: int):
    """Other deals that give ``seat`` exactly the same knowledge at this point: swap two cards
    the seat has not seen (another seat's dealt cards or the undrawn wall), replay the same
    actions with the Python engine, and keep the deck if every view of ``seat`` along the way
    and the public course are unchanged."""
    rec = g.record()
    deck, dealer, actions = rec["deck"], rec["dealer"], rec["actions"]
    mine = {dealer: range(0, 21), (dealer + 1) % 3: range(21, 41), (dealer + 2) % 3: range(41, 61)}
    candidates = [p for p in range(61) if p not in mine[seat] and p != 20]
    candidates += list(range(g.wall_pos, g.num_cards))
    ref = PyGame(g.rules, deck=deck, dealer=dealer)
    ref_views = []
    for a in actions:
        ref_views.append(ref.view(seat))
        ref.step(a)
    out = []
    for _ in range(400):
        p, q = rng.choice(candidates, size=2, replace=False)
        if deck[p] == deck[q]:
            continue
        d2 = list(deck)
        d2[p], d2[q] = d2[q], d2[p]
        alt = PyGame(g.rules, deck=d2, dealer=dealer)
        ok = True
        for a, v in zip(actions, ref_views):
            if alt.view(seat) != v or a not in alt.legal_actions():
                ok = False
                break
            alt.step(a)
        if ok and _same_to(seat, alt, ref):
            out.append(fast.Game.replay(alt.record()))
            if len(out) == want:
                break
    return out


@pytest.mark.parametrize("options", [{"impl": "python"},
                                     {"impl": "core", "prune": 0, "guide": "none"},
                                     {"impl": "core"}, {"impl": "core", "prune": 2}])
def test_decisions_do_not_depend_on_the_hidden_cards(options):
    """The issue's test: change the hidden cards of a position (keeping all the seat knows) and
    the search (the Python reference and the compiled one), with the same seed, decides the
    same and sees the same mean outcomes."""
    rng = np.random.default_rng(1)
    compared = 0
    for seed in range(4):
        seat = seed % 3
        for g in expert_positions("huaihua", 40 + seed, seat, every=4):
            variants = _hidden_variants(g, seat, rng, want=2)
            if not variants:
                continue
            base = SearchAgent(seed=5, samples=6, **options)
            a = base.act_game(g, seat)
            for v in variants:
                assert v.deck != g.deck
                other = SearchAgent(seed=5, samples=6, **options)
                assert other.act_game(v, seat) == a
                assert other.last == base.last
                compared += 1
    assert compared >= 8


def test_search_reads_the_python_engine_too():
    g = PyGame("huaihua", seed=3)
    while not g.done and len(g.legal_actions()) < 2:
        g.step(g.legal_actions()[0])
    s = g.current_player
    a = SearchAgent(seed=1, samples=4).act_game(g, s)
    assert a in g.legal_actions()
    f = fast.Game.replay(g.record())
    assert SearchAgent(seed=1, samples=4).act_game(f, s) == a


def test_search_needs_the_game_and_good_options():
    agent = SearchAgent(seed=0, samples=2)
    g = fast.Game("huaihua", seed=0)
    with pytest.raises(TypeError, match="act_game"):
        agent(g.view(g.current_player))
    with pytest.raises(ValueError, match="not the seat to act"):
        agent.act_game(g, (g.current_player + 1) % 3)
    assert parse_search_spec("samples=8,rollout=greedy,z=1.5") == {
        "samples": 8, "rollout": "greedy", "z": 1.5}
    with pytest.raises(ValueError, match="samples, rollout, z"):
        parse_search_spec("sample=8")
    with pytest.raises(ValueError, match="must be int"):
        parse_search_spec("samples=many")
    with pytest.raises(ValueError, match="rollout must be one of"):
        make_agent("search:rollout=mcts")
    with pytest.raises(ValueError, match="at least 1"):
        SearchAgent(samples=0)


def test_search_in_the_duplicate_harness():
    from paohuzi_training.eval.evaluate import play_deal

    rows = play_deal("search:samples=2", ["expert", "expert"], 0, 3, "huaihua", "fast")
    again = play_deal("search:samples=2", ["expert", "expert"], 0, 3, "huaihua", "fast")
    assert rows == again and len(rows) == 3
    assert all(sum(r.scores) == 0 for r in rows)


def test_search_as_an_opponent_of_the_single_agent_env():
    from paohuzi_env.envs.wrappers import SingleAgentEnv

    env = SingleAgentEnv(opponents="search:samples=2", seed=0)
    env.reset(seed=0)
    done = False
    while not done:
        legal = np.flatnonzero(env.action_masks())
        _, reward, done, _, info = env.step(int(legal[0]))
    assert info["result"] is not None
