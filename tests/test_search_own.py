"""The searching seat plays on as itself (``search:own=...``, search.hpp SearchOptions::own): in
every playout the seat's own later decisions are the network's masked argmax and the other
seats' the rollout's. Each kept world's score is recomputed here by playing the world out by
hand; ``own=rollout`` (the default) is the search without the option; a network that plays
every seat as the rollout and its own seat as ``own`` is the network rollout; ``own=guide`` is
the guide network; bad options raise ValueError."""

from __future__ import annotations

import json
import math

import pytest

from paohuzi_env import fast
from paohuzi_env.agents import SearchAgent, make_agent
from paohuzi_env.agents.network import load_network, packaged_guide
from paohuzi_env.agents.search import _knowledge, _world, core_search, vector_search
from tests.positions import expert_positions

pytestmark = pytest.mark.skipif(not fast.available(), reason="the search needs the compiled core")

HU = 59


def _positions(count: int, rules: str = "huaihua", seed0: int = 70):
    """Decisions with a choice and no win, from expert play."""
    out = []
    for seed in range(seed0, seed0 + 60):
        for seat in range(3):
            for g in expert_positions(rules, seed, seat, every=4):
                if HU not in g.legal_actions():
                    out.append(g)
                    if len(out) == count:
                        return out
    return out


def _net(rules: str = "huaihua"):
    return load_network(packaged_guide(rules), rules)


def _same(a: dict, b: dict) -> bool:
    """Search results equal, NaN equal to NaN (the means of actions not played out)."""
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def _by_hand(world, action: int, seat: int, net) -> int:
    """``seat``'s points when ``action`` is played in ``world`` and the hand is played out with
    the network's masked argmax at ``seat``'s decisions and the compiled expert at the others'."""
    core = fast._require()
    g = world.clone()
    g.step(action)
    while not g.done:
        if g.current_player == seat:
            g.step(int(core.net_policy_action(g._g, net.core)[0]))
        else:
            g.step(g.expert_action())
    return g.result.scores[seat]


@pytest.mark.parametrize("rules", ["huaihua", "zipai"])
def test_each_worlds_score_is_the_hand_played_out_with_the_network_in_the_seat(rules):
    net = _net(rules)
    checked = 0
    for g in _positions(4, rules):
        seat = g.current_player
        r = core_search(g, seat, seed=11, samples=3, playouts=64, prune=0, guide="none",
                        own=net, keep_worlds=True)
        assert r["worlds"] == len(r["decks"]) >= 1
        kn = _knowledge(g, seat)
        for deck, row in zip(r["decks"], r["scores"]):
            world = _world(kn, deck, g.rules)
            assert world is not None
            for a, score in zip(r["legal"], row):
                assert not math.isnan(score)  # prune=0, no guide: every action in every world
                assert score == _by_hand(world, a, seat, net)
                checked += 1
    assert checked >= 12


def test_the_network_in_the_seat_changes_what_the_playouts_score():
    """The option is not a no-op: over a few positions some world's score differs from the
    expert's playout of it (a test that could not fail otherwise)."""
    net = _net()
    differ = 0
    for g in _positions(6):
        s = g.current_player
        a = core_search(g, s, seed=3, samples=3, playouts=64, prune=0, guide="none",
                        keep_worlds=True)
        b = core_search(g, s, seed=3, samples=3, playouts=64, prune=0, guide="none", own=net,
                        keep_worlds=True)
        assert a["decks"] == b["decks"]  # the same worlds: the option does not touch the sampler
        differ += a["scores"] != b["scores"]
    assert differ >= 1


def test_own_rollout_is_the_search_without_the_option():
    for g in _positions(8):
        s = g.current_player
        plain = core_search(g, s, seed=5, samples=8)
        assert _same(plain, core_search(g, s, seed=5, samples=8, own="rollout"))
        assert _same(plain, core_search(g, s, seed=5, samples=8, own=None))
    # and the compiled playouts with own=rollout are still the Python reference's, decision by
    # decision over a whole hand (the generator carried across decisions)
    core = SearchAgent(seed=12, samples=4, prune=0, guide="none", own="rollout")
    ref = SearchAgent(seed=12, samples=4, impl="python", own="rollout")
    g = fast.Game("huaihua", seed=61)
    compared = 0
    while not g.done:
        s = g.current_player
        if s == 1:
            a = core.act_game(g, s)
            assert ref.act_game(g, s) == a and core.last == ref.last
            compared += 1
        else:
            a = g.expert_action()
        g.step(a)
    assert compared >= 5


def test_the_network_in_every_seat_is_the_network_rollout():
    net = _net()
    for g in _positions(5):
        s = g.current_player
        everywhere = core_search(g, s, seed=6, samples=4, playouts=64, guide="none", rollout=net)
        assert _same(everywhere, core_search(g, s, seed=6, samples=4, playouts=64, guide="none",
                                             rollout=net, own=net))


def test_own_guide_is_the_guide_network_and_answers_do_not_depend_on_threads_or_batches():
    net = _net()
    for g in _positions(5):
        s = g.current_player
        by_name = core_search(g, s, seed=8, samples=6, own="guide")
        assert _same(by_name, core_search(g, s, seed=8, samples=6, own=net))
        assert _same(by_name, core_search(g, s, seed=8, samples=6, own="guide", threads=2))
        assert _same(by_name, core_search(g, s, seed=8, samples=6,
                                          own=f"checkpoint:{packaged_guide('huaihua')}"))
    vg = fast.VectorGame(5, "huaihua", seed=9)
    for _ in range(6):
        vg.step(vg.expert_actions())
    one = vector_search(vg, None, seed=4, samples=4, own="guide", threads=1)
    assert (one == vector_search(vg, None, seed=4, samples=4, own="guide", threads=2)).all()
    agent = make_agent("search:own=guide,samples=4", seed=1)
    assert agent.own is agent.guide is not None
    assert agent.batch_options()["own"] is agent.own


def test_bad_own_options_raise_clear_errors():
    with pytest.raises(ValueError, match="own=guide plays the searching seat with the guide"):
        make_agent("search:own=guide,guide=none")
    with pytest.raises(ValueError, match="own must be one of rollout, guide"):
        make_agent("search:own=expert")
    with pytest.raises(ValueError, match="trained under rules 'huaihua'"):
        make_agent(f"search:own=checkpoint:{packaged_guide('huaihua')}", rules="yongzhou")
    with pytest.raises(ValueError, match="compiled search"):
        SearchAgent(impl="python", own="guide")
    with pytest.raises(ValueError, match="a comma separates the options"):
        make_agent("search:own=checkpoint:a,b.safetensors")
    g = _positions(1)[0]
    with pytest.raises(ValueError, match="own=guide"):
        core_search(g, g.current_player, seed=0, guide="none", own="guide")
    yz = fast.Game("yongzhou", seed=1)
    while len(yz.legal_actions()) < 2 or HU in yz.legal_actions():
        yz.step(yz.expert_action())
    with pytest.raises(ValueError, match="own-seat network"):  # the binding checks it too
        fast._require().search_action(yz._g, yz.current_player, (0, 1, 0, 1, 0, 0),
                                      own=_net().core)
    assert SearchAgent(own="rollout").own is None
