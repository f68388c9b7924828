"""Variance-reduced evaluation (paohuzi_training.eval.aivat, chance.hpp): the chance events, their
probabilities, the no-peeking invariance of the value function, the immediate outcomes, the
torch twin of the core's network, the evaluation's corrected figures and the errors."""

from __future__ import annotations

import json

import numpy as np
import pytest

from paohuzi_env import fast
from paohuzi_env.game.rules import as_rules

pytestmark = pytest.mark.skipif(not fast.available(), reason="needs the compiled core")

torch = pytest.importorskip("torch")

from paohuzi_training.eval import aivat, evaluate  # noqa: E402

core = aivat._fast() if fast.available() else None
RULES = as_rules("huaihua")


def bot_hands(n: int, seed: int = 3, rules=RULES) -> list:
    games, _players = aivat.self_play(rules, n, seed)
    return games


def test_every_wall_card_is_one_event_in_deck_order():
    games = bot_hands(40)
    f, p, drawer, card, gi, step, pos = core.chance_dataset(games)
    assert f.shape == (len(card), core.CHANCE_FEATURES)
    for i, g in enumerate(games):
        ev = np.flatnonzero(gi == i)
        start = core.Game(RULES, list(g.deck), g.dealer).wall_pos
        # one event per card taken from the wall, in order, each the deck's card at its position
        assert list(pos[ev]) == list(range(start, g.wall_pos))
        assert [int(c) for c in card[ev]] == [g.deck[q] for q in pos[ev]]
        assert all(0 <= s < len(g.actions) for s in step[ev])


def test_probabilities_are_the_remaining_wall():
    games = bot_hands(10)
    f, p, drawer, card, gi, step, pos = core.chance_dataset(games)
    for e in range(0, len(card), 7):
        g = games[int(gi[e])]
        wall = g.deck[int(pos[e]):]  # the cards not yet drawn (R-DEAL: the wall)
        want = np.bincount(wall, minlength=20)[:20] / len(wall)
        np.testing.assert_allclose(p[e], want, rtol=1e-6)
        assert p[e][card[e]] > 0  # the card drawn was possible


def test_features_never_read_the_walls_order():
    """Shuffling the unrevealed wall (the drawn card included) leaves the event's features, and
    so V(h, k) for every k, unchanged: the value function sees the history only."""
    games = bot_hands(12, seed=9)
    f, p, drawer, card, gi, step, pos = core.chance_dataset(games)
    rng = np.random.default_rng(0)
    checked = 0
    for e in range(0, len(card), 3):
        g = games[int(gi[e])]
        deck = list(g.deck)
        q = int(pos[e])
        tail = deck[q:]
        rng.shuffle(tail)
        deck[q:] = tail
        h = core.Game(RULES, deck, g.dealer)
        for a in g.actions[:int(step[e]) + 1]:
            h.step(a)
        f2, *_rest, pos2 = core.chance_dataset([h])
        j = int(np.flatnonzero(pos2 == q)[0])
        np.testing.assert_array_equal(f2[j], f[e])
        checked += 1
    assert checked >= 10


def test_immediate_outcome_of_the_winning_card_is_the_result():
    """The engine's exact immediate outcome (chance.hpp immediate_outcomes) of the card that won
    a hand at once is the hand's scores (R-SCORE), seat by seat relative to the drawer."""
    games = bot_hands(300, seed=4)
    f, p, drawer, card, gi, step, pos = core.chance_dataset(games)
    at = core.CHANCE_IMMEDIATE_AT
    imm = f[:, at:at + 63].reshape(len(f), 21, 3) * core.CHANCE_POINTS
    last = np.r_[gi[1:] != gi[:-1], True]
    n = 0
    for e in np.flatnonzero(last):
        g = games[int(gi[e])]
        if g.winner is None or g.events()[-2][0] != "reveal":
            continue
        want = [g.scores[(int(drawer[e]) + r) % 3] for r in range(3)]
        np.testing.assert_allclose(imm[e, card[e]], want, atol=1e-3)
        n += 1
    assert n > 100
    # before the last draw no drawn card ended the hand at once
    assert not np.any(imm[np.flatnonzero(~last), card[~last]])


def test_torch_twin_is_the_core_network(tmp_path):
    games = bot_hands(30)
    games2, players = aivat.self_play(RULES, 30, 3)
    data = aivat.dataset(RULES, games2, players, playouts=1, seed=1)
    tensors, _ = aivat.fit(data, 20, hidden=16, head=8, epochs=1, progress=False)
    path = tmp_path / "v.safetensors"
    aivat.save(path, tensors, {"format": aivat.FORMAT, "features": aivat.FEATURES, "kinds": 20,
                               "hidden": 16, "head": 8, "scale": aivat.SCALE})
    vf = aivat.load(path)
    model = aivat._Model(20, 16, 8)
    with torch.no_grad():
        model.trunk[0].weight.copy_(torch.from_numpy(tensors["w0"]))
        model.trunk[0].bias.copy_(torch.from_numpy(tensors["b0"]))
        model.trunk[2].weight.copy_(torch.from_numpy(tensors["w1"]))
        model.trunk[2].bias.copy_(torch.from_numpy(tensors["b1"]))
        model.wg.weight.copy_(torch.from_numpy(tensors["wg"]))
        model.wg.bias.copy_(torch.from_numpy(tensors["bk"]))
        model.wk.weight.copy_(torch.from_numpy(tensors["wk"]))
        model.embed.copy_(torch.from_numpy(tensors["embed"]))
        model.out.weight.copy_(torch.from_numpy(tensors["w3"]))
        model.out.bias.copy_(torch.from_numpy(tensors["b3"]))
        want = model(torch.from_numpy(data["x"][:50])).numpy() * aivat.SCALE
    got = vf.net.values(data["x"][:50]).reshape(50, 20, 3)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-3)
    # the corrections are the sums of V(h, c) - E_k V(h, k) over each hand's draws
    f, p, drawer, card, gi, step, pos = core.chance_dataset(games)
    out = vf.net.values(f).reshape(len(f), 20, 3)
    term = out[np.arange(len(f)), card] - (p[:, :, None] * out).sum(1)
    want_c = np.zeros((len(games), 3))
    for e in range(len(f)):
        for r in range(3):
            want_c[gi[e], (drawer[e] + r) % 3] += term[e, r]
    got_c, n_events = vf.corrections(games)
    np.testing.assert_allclose(got_c, want_c, atol=1e-3)
    assert list(n_events) == [int(np.sum(gi == i)) for i in range(len(games))]


def test_python_hands_are_replayed_in_the_core():
    from paohuzi_env.game.engine import Game as PyGame

    vf = aivat.for_rules(RULES)
    drawn = 0
    for seed in range(5, 11):
        g = fast.Game(RULES, seed=seed)
        while not g.done:
            g.step(g.expert_action())
        py = PyGame(RULES, deck=g.deck, dealer=g.dealer)
        for a in g.actions:
            py.step(a)
        a, na = vf.corrections([g])
        b, nb = vf.corrections([py])
        np.testing.assert_array_equal(a, b)
        assert na[0] == nb[0]
        drawn += int(na[0])
    assert drawn > 0


def test_evaluation_reports_corrected_and_plain_side_by_side():
    res = evaluate.evaluate("expert", "greedy", deals=12, seed=3, workers=1, progress=False,
                            variance_reduction="aivat")
    v = res["variance_reduction"]
    rows = res["rows"]
    per_deal: dict[int, list[float]] = {}
    for r in rows:
        per_deal.setdefault(r.deal, []).append(r.points - r.control)
    assert v["mean_points"] == pytest.approx(np.mean([np.mean(x) for x in per_deal.values()]))
    assert v["plain_mean_points"] == res["mean_points"]
    assert v["plain_ci95"] == res["ci95"]
    assert any(r.control != 0 for r in rows)
    plain = evaluate.evaluate("expert", "greedy", deals=12, seed=3, workers=1, progress=False)
    assert plain["mean_points"] == res["mean_points"]  # the play is the same
    assert "variance_reduction" not in plain
    assert all(r.control == 0.0 for r in plain["rows"])


def test_backends_and_paths_give_the_same_corrections():
    kw = dict(deals=4, seed=8, workers=1, progress=False, variance_reduction="aivat")
    a = evaluate.evaluate("expert", "greedy", backend="fast", **kw)
    b = evaluate.evaluate("expert", "greedy", backend="python", **kw)
    assert [r.control for r in a["rows"]] == pytest.approx([r.control for r in b["rows"]], abs=1e-9)
    spec = "checkpoint:checkpoints/shipped/distilled.safetensors"
    c = evaluate.evaluate(spec, "expert", batched=True, **kw)
    d = evaluate.evaluate(spec, "expert", batched=False, **kw)
    assert [r.control for r in c["rows"]] == pytest.approx([r.control for r in d["rows"]], abs=1e-9)


def test_self_play_mean_is_zero_within_the_ci():
    """An agent against two copies of itself: the true mean is 0 (the seats rotate), and the
    corrected mean must be within its CI of 0 (the corrections have expectation zero)."""
    res = evaluate.evaluate("random", "random", deals=150, seed=21, workers=1, progress=False,
                            variance_reduction="aivat")
    v = res["variance_reduction"]
    assert v["ci95"][0] <= 0.0 <= v["ci95"][1]


def test_bad_options_say_what_is_allowed(tmp_path, capsys):
    with pytest.raises(ValueError, match="variance_reduction must be one of none, aivat"):
        evaluate.evaluate("expert", "greedy", deals=1, progress=False, variance_reduction="x")
    with pytest.raises(ValueError, match="aivat"):
        evaluate.evaluate("expert", "greedy", deals=1, progress=False,
                          value_function="v.safetensors")
    with pytest.raises(ValueError, match="no value function at"):
        aivat.load(tmp_path / "missing.safetensors")
    # a 20-kind network for rules with 王
    with pytest.raises(ValueError, match="kinds of wall card"):
        aivat.load(aivat.packaged_path("huaihua"), "yongzhou")
    bad = tmp_path / "bad.safetensors"
    aivat.write_safetensors(bad, {"w0": np.zeros((2, 2), np.float32)})
    bad.with_suffix(".json").write_text(json.dumps({"format": "other"}))
    with pytest.raises(ValueError, match="not a value function's sidecar"):
        aivat.load(bad)
    bad.with_suffix(".json").write_text(json.dumps(
        {"format": aivat.FORMAT, "features": aivat.FEATURES, "kinds": 20, "hidden": 2,
         "head": 2, "scale": 10.0}))
    with pytest.raises(ValueError, match="lacks the tensors"):
        aivat.load(bad)
    with pytest.raises(TypeError, match="compiled hands"):
        core.chance_corrections([object()], aivat.for_rules(RULES).net)
    with pytest.raises(ValueError, match="must hold"):
        core.ValueNet(20, 2, 2, 10.0, {n: np.zeros(1, np.float32) for n in aivat.TENSORS})
    with pytest.raises(SystemExit):
        evaluate.main(["expert", "--deals", "1", "--variance-reduction", "bogus"])
    with pytest.raises(SystemExit):
        evaluate.main(["--league", "expert", "greedy", "--variance-reduction", "aivat"])
    with pytest.raises(SystemExit):
        evaluate.main(["expert", "--value-function", "x.safetensors"])
    assert aivat.main(["train", "--hands", "5", "--out", str(tmp_path / "v.safetensors")]) == 2
    assert "hands must be at least 10" in capsys.readouterr().err


def test_train_command_writes_a_loadable_value_function(tmp_path):
    out = tmp_path / "v.safetensors"
    assert aivat.main(["train", "--hands", "40", "--playouts", "1", "--epochs", "1",
                       "--hidden", "16", "--head", "8", "--workers", "1", "--seed", "5",
                       "--no-progress", "--out", str(out)]) == 0
    vf = aivat.load(out, RULES)
    meta = json.loads(out.with_suffix(".json").read_text())
    assert meta["trained_on"]["hands"] == 40 and meta["trained_on"]["seed"] == 5
    c, n = vf.corrections(bot_hands(5))
    assert c.shape == (5, 3) and np.isfinite(c).all() and (n > 0).all()


def test_bench_prints_cost_and_ci_ratios(capsys):
    from paohuzi_training.tools import aivat_bench

    assert aivat_bench.main(["expert", "--vs", "greedy", "--deals", "3", "--seed", "2"]) == 0
    out = capsys.readouterr().out
    assert "cost ratio" in out and "CI width ratio" in out
    assert aivat_bench.main(["nobody", "--deals", "3"]) == 2
