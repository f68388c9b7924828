"""Variance reduction with a one-draw lookahead (``--variance-reduction aivat-lookahead``,
chance.hpp's chance_correction_lookahead, paohuzi_training.eval.aivat.refine): the value of the drawn
card is the network's expectation at the next draw the hand really made (so the sum telescopes),
the corrections are the sums of the data set's terms, the estimate is unbiased, both engines and
both evaluation paths agree, and bad input says what is allowed."""

from __future__ import annotations

import json

import numpy as np
import pytest

from paohuzi_env import fast
from paohuzi_env.game.rules import as_rules

pytestmark = pytest.mark.skipif(not fast.available(), reason="needs the compiled core")

# torch only where a test needs it (a network agent, the refinement): the others also run
# under the sanitizers (.ci/sanitize)
from paohuzi_training.eval import aivat, evaluate  # noqa: E402

core = aivat._fast() if fast.available() else None
RULES = as_rules("huaihua")


def bot_hands(n: int, seed: int = 3):
    """n finished hands of the bots and, per hand, its seats' lookahead policies."""
    games, players = aivat.self_play(RULES, n, seed)
    pol = np.array([core.LOOKAHEAD_EXPERT if aivat.BOTS[b] == "expert" else core.LOOKAHEAD_GREEDY
                    for b in players.ravel()], np.int32).reshape(-1, 3)
    return games, players, pol


def expectation(net, feats, probs, drawer):
    """The network's expected value of each absolute seat before the draw (3,)."""
    v = net.values(feats[None]).reshape(-1, 3)
    rel = (probs[:, None] * v).sum(0)
    return np.array([rel[(s - drawer) % 3] for s in range(3)])


def test_drawn_cards_lookahead_value_is_the_next_draws_expectation():
    """Where the lookahead's bots are the ones that played, V(h, c) of the card drawn is the
    network's expected value at the next draw the hand made, or the hand's points if it ended
    first: what makes the corrections telescope (docs/aivat.md)."""
    games, _players, pol = bot_hands(40)
    net = aivat.for_rules(RULES).net
    f, p, t, card, drawer, gi = core.chance_lookahead_dataset(games, net, pol, 2)
    f0, p0, drawer0, card0, gi0, _step, _pos = core.chance_dataset(games)
    np.testing.assert_array_equal(card, card0)
    np.testing.assert_array_equal(gi, gi0)
    np.testing.assert_array_equal(f, f0)
    ended = continued = 0
    for e in range(len(card)):
        got_rel = t[e, card[e]]
        got = np.array([got_rel[(s - drawer[e]) % 3] for s in range(3)])
        last = e + 1 == len(card) or gi[e + 1] != gi[e]
        if last:
            want = np.array(games[gi[e]].scores, float)
            ended += 1
        else:
            want = expectation(net, f[e + 1], p[e + 1], drawer[e + 1])
            continued += 1
        np.testing.assert_allclose(got, want, atol=2e-3)
    assert ended == len(games) - sum(g.wall_pos == core.Game(RULES, list(g.deck), g.dealer).wall_pos
                                     for g in games)
    assert continued > 100
    # the other bot in the lookahead plays differently somewhere: then the identity fails
    swapped = np.where(pol == core.LOOKAHEAD_EXPERT, core.LOOKAHEAD_GREEDY, core.LOOKAHEAD_EXPERT)
    _, _, t2, *_ = core.chance_lookahead_dataset(games, net, swapped.astype(np.int32), 1)
    assert not np.allclose(t2[np.arange(len(card)), card], t[np.arange(len(card)), card],
                           atol=2e-3)


def test_lookahead_corrections_are_the_sums_of_the_terms():
    games, players, pol = bot_hands(30, seed=4)
    vf = aivat.for_rules(RULES)
    _f, p, t, card, drawer, gi = core.chance_lookahead_dataset(games, vf.net, pol, 1)
    term = t[np.arange(len(card)), card] - (p[:, :, None] * t).sum(1)
    want = np.zeros((len(games), 3))
    for e in range(len(card)):
        for r in range(3):
            want[gi[e], (drawer[e] + r) % 3] += term[e, r]
    specs = [[aivat.BOTS[b] for b in row] for row in players]
    got, n = vf.corrections(games, specs)
    np.testing.assert_allclose(got, want, atol=1e-3)
    assert list(n) == [int(np.sum(gi == i)) for i in range(len(games))]
    # one thread or two: the same rows, in the hands' order
    _f2, _p2, t2, card2, _d2, gi2 = core.chance_lookahead_dataset(games, vf.net, pol, 2)
    np.testing.assert_array_equal(t2, t)
    np.testing.assert_array_equal(gi2, gi)
    assert aivat.lookahead_policy("greedy") == core.LOOKAHEAD_GREEDY
    for spec in ("expert", "search", "checkpoint:x.pt", "random"):
        assert aivat.lookahead_policy(spec) == core.LOOKAHEAD_EXPERT


@pytest.mark.parametrize("method, agent, deals, seed", [("aivat-lookahead", "random", 150, 22),
                                                        ("aivat-lookahead2", "greedy", 60, 23)])
def test_lookahead_self_play_mean_is_zero_within_the_ci(method, agent, deals, seed):
    """An agent against two copies of itself (true mean 0 by seat rotation): the corrected
    mean's CI covers 0 (each term has expectation zero), one and two draws ahead."""
    res = evaluate.evaluate(agent, agent, deals=deals, seed=seed, workers=1, progress=False,
                            variance_reduction=method)
    v = res["variance_reduction"]
    assert v["method"] == method
    assert v["ci95"][0] <= 0.0 <= v["ci95"][1]


def test_lookahead_evaluation_agrees_across_engines_and_paths():
    pytest.importorskip("torch")
    kw = dict(deals=3, seed=8, workers=1, progress=False, variance_reduction="aivat-lookahead")
    a = evaluate.evaluate("expert", "greedy", backend="fast", **kw)
    b = evaluate.evaluate("expert", "greedy", backend="python", **kw)
    assert [r.control for r in a["rows"]] == pytest.approx([r.control for r in b["rows"]], abs=1e-9)
    assert any(r.control != 0 for r in a["rows"])
    # the plain figures are those of a plain evaluation
    plain = evaluate.evaluate("expert", "greedy", deals=3, seed=8, workers=1, progress=False)
    assert a["mean_points"] == plain["mean_points"]
    spec = "checkpoint:checkpoints/shipped/distilled.safetensors"
    c = evaluate.evaluate(spec, "expert", batched=True, **kw)
    d = evaluate.evaluate(spec, "expert", batched=False, **kw)
    assert [r.control for r in c["rows"]] == pytest.approx([r.control for r in d["rows"]], abs=1e-9)


def test_lookahead_bad_input_says_what_is_allowed(tmp_path, capsys):
    games, players, pol = bot_hands(3, seed=6)
    net = aivat.for_rules(RULES).net
    with pytest.raises(ValueError, match=r"\(n, 3\)"):
        core.chance_corrections(games, net, np.zeros((2, 3), np.int32))
    with pytest.raises(ValueError, match="P_GREEDY"):
        core.chance_corrections(games, net, np.zeros((3, 3), np.int32))  # 0: random
    with pytest.raises(ValueError, match="needs the policies"):
        core.chance_lookahead_dataset(games, net, None)
    with pytest.raises(ValueError, match="threads"):
        core.chance_lookahead_dataset(games, net, pol, 0)
    with pytest.raises(ValueError, match="players must give"):
        aivat.for_rules(RULES).corrections(games, [["expert"] * 3])
    with pytest.raises(ValueError, match="method must be"):
        aivat.control(aivat.for_rules(RULES), "bogus", games[0], 0, {0: "a", 1: "b", 2: "c"})
    assert aivat.main(["refine", "--init", str(aivat.packaged_path(RULES)), "--hands", "5",
                       "--out", str(tmp_path / "v.safetensors")]) == 2
    assert "hands must be at least 10" in capsys.readouterr().err
    assert aivat.main(["refine", "--init", str(tmp_path / "none.safetensors"),
                       "--out", str(tmp_path / "v.safetensors")]) == 2
    assert "no value function at" in capsys.readouterr().err


def test_refine_command_writes_a_loadable_value_function(tmp_path):
    pytest.importorskip("torch")
    out = tmp_path / "v.safetensors"
    init = aivat.packaged_path(RULES)
    assert aivat.main(["refine", "--init", str(init), "--hands", "30", "--iters", "1",
                       "--epochs", "1", "--threads", "1", "--seed", "5", "--no-progress",
                       "--out", str(out)]) == 0
    vf = aivat.load(out, RULES)
    meta = json.loads(out.with_suffix(".json").read_text())
    assert meta["refined"]["hands"] == 30 and meta["refined"]["seed"] == 5
    assert len(meta["refined"]["rounds"]) == 1 and "refine" in meta["command"]
    # the packaged function's own refinement is kept as an earlier one
    before = json.loads(init.with_suffix(".json").read_text())
    assert meta["refined_before"] == [*before.get("refined_before", []), before["refined"]]
    games, players, _pol = bot_hands(4)
    c, n = vf.corrections(games, [[aivat.BOTS[b] for b in row] for row in players])
    assert c.shape == (4, 3) and np.isfinite(c).all() and (n > 0).all()
    # the torch twin loads the core's layout back unchanged
    src = aivat.read_safetensors(init)
    model = aivat._Model(20, vf.net.hidden, int(meta["head"]))
    model.load(src)
    for name, a in model.tensors().items():
        np.testing.assert_array_equal(a, src[name])
    with pytest.raises(ValueError, match="has shape"):
        aivat._Model(20, 8, 8).load(src)


def test_two_draw_lookahead_value_is_the_next_draws_one_draw_expectation():
    """``aivat-lookahead2``: where the bots are the ones that played, V_2(h, c) of the card drawn
    is the one-draw lookahead's expectation at the next draw the hand made (or the hand's points
    if it ended first), so these corrections telescope too; and they are the sums of their
    terms."""
    games, players, pol = bot_hands(16, seed=9)
    vf = aivat.for_rules(RULES)
    _f, p1, t1, card, drawer, gi = core.chance_lookahead_dataset(games, vf.net, pol, 1, depth=1)
    _f, p2, t2, card2, _d, gi2 = core.chance_lookahead_dataset(games, vf.net, pol, 2, depth=2)
    np.testing.assert_array_equal(card2, card)
    np.testing.assert_array_equal(gi2, gi)
    np.testing.assert_array_equal(p2, p1)

    def absolute(rel, d):
        return np.array([rel[(s - d) % 3] for s in range(3)])

    continued = 0
    for e in range(len(card)):
        got = absolute(t2[e, card[e]], drawer[e])
        if e + 1 == len(card) or gi[e + 1] != gi[e]:
            want = np.array(games[gi[e]].scores, float)
        else:
            want = absolute((p1[e + 1][:, None] * t1[e + 1]).sum(0), drawer[e + 1])
            continued += 1
        np.testing.assert_allclose(got, want, atol=2e-3)
    assert continued > 30
    # two draws ahead is not one draw ahead: the depth is used
    assert not np.allclose(t2, t1, atol=2e-3)
    term = t2[np.arange(len(card)), card] - (p2[:, :, None] * t2).sum(1)
    want = np.zeros((len(games), 3))
    for e in range(len(card)):
        want[gi[e]] += absolute(term[e], drawer[e])
    specs = [[aivat.BOTS[b] for b in row] for row in players]
    got, _n = vf.corrections(games, specs, depth=2)
    np.testing.assert_allclose(got, want, atol=1e-3)
    assert aivat.control(vf, "aivat-lookahead2", games[0], 1, dict(enumerate(specs[0]))) == \
        pytest.approx(got[0, 1], abs=1e-9)


def test_lookahead_depth_outside_its_range_says_what_is_allowed():
    games, players, pol = bot_hands(2, seed=6)
    vf = aivat.for_rules(RULES)
    top = core.MAX_LOOKAHEAD_DEPTH
    for depth in (0, top + 1):
        with pytest.raises(ValueError, match=rf"depth must be 1\.\.{top}, got {depth}"):
            core.chance_corrections(games, vf.net, pol, depth=depth)
        with pytest.raises(ValueError, match=rf"depth must be 1\.\.{top}"):
            core.chance_lookahead_dataset(games, vf.net, pol, 1, depth=depth)
    with pytest.raises(ValueError, match="need the policies"):
        core.chance_corrections(games, vf.net, None, depth=2)
    with pytest.raises(ValueError, match="needs the players"):
        vf.corrections(games, depth=2)


def network_hands(n: int, seed: int):
    """n finished hands with the shipped network (compiled forward pass, no torch) in seat 0
    and `expert` in the others."""
    from paohuzi_env.agents import make_agent
    from paohuzi_env.bots.base import decide

    spec = "network:checkpoints/shipped/distilled.safetensors"
    out = []
    for d in range(n):
        g = fast.Game(RULES, seed=seed * 1000 + d)
        agents = [make_agent(spec if s == 0 else "expert", seed=d, rules=RULES) for s in range(3)]
        while not g.done:
            s = g.current_player
            g.step(decide(agents[s], g, s))
        out.append(g._g)
    return out, spec


def test_a_network_seat_is_played_by_its_own_network_in_the_lookahead():
    """Where a network played a seat, the lookahead's copies play it by that network (not by
    `expert` standing in), so the drawn card's value is again the network's expectation at the
    next draw and the corrections telescope as for the bots."""
    games, spec = network_hands(12, seed=31)
    vf = aivat.for_rules(RULES)
    pol = np.full((len(games), 3), core.LOOKAHEAD_EXPERT, np.int32)
    net = aivat.lookahead_network(spec)
    assert net is not None
    assert aivat.lookahead_network("checkpoint:checkpoints/shipped/distilled.safetensors") is not None
    for other in ("expert", "greedy", "search", "random", "checkpoint:nowhere/x.pt"):
        assert aivat.lookahead_network(other) is None
    nets = [[net, None, None]] * len(games)
    f, p, t, card, drawer, gi = core.chance_lookahead_dataset(games, vf.net, pol, 1, networks=nets)
    _f, _p, t_exp, *_ = core.chance_lookahead_dataset(games, vf.net, pol, 1)
    continued = 0
    for e in range(len(card)):
        got = np.array([t[e, card[e]][(s - drawer[e]) % 3] for s in range(3)])
        if e + 1 == len(card) or gi[e + 1] != gi[e]:
            want = np.array(games[gi[e]].scores, float)
        else:
            want = expectation(vf.net, f[e + 1], p[e + 1], drawer[e + 1])
            continued += 1
        np.testing.assert_allclose(got, want, atol=2e-3)
    assert continued > 20
    # with expert standing in for the network the copies move otherwise somewhere
    rows = np.arange(len(card))
    assert not np.allclose(t_exp[rows, card], t[rows, card], atol=2e-3)
    # the evaluation's corrections use the network for that seat
    specs = [[spec, "expert", "expert"]] * len(games)
    got, _n = vf.corrections(games, specs)
    want, _ = core.chance_corrections(games, vf.net, pol, networks=nets)
    np.testing.assert_allclose(got, want, atol=1e-9)
    with pytest.raises(ValueError, match="one entry per hand"):
        core.chance_corrections(games, vf.net, pol, networks=nets[:-1])
    with pytest.raises(TypeError, match="NetPolicy or None"):
        core.chance_corrections(games, vf.net, pol, networks=[["x", None, None]] * len(games))
    with pytest.raises(ValueError, match="need the policies"):
        core.chance_corrections(games, vf.net, None, networks=nets)
