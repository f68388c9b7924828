"""The hand review (issue 43): every legal action valued from the seat's own information, the
loss of the analyser's own choice 0, the hidden cards never read, clear errors."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from paohuzi_env import fast
from paohuzi_env.agents.network import packaged_guide
from paohuzi_env.apps.cli import main
from paohuzi_env.apps.review import ANALYSER, analyse_position, review, review_table
from paohuzi_env.game.actions import HU
from tests.positions import expert_positions
from tests.test_search import _hidden_variants

pytestmark = pytest.mark.skipif(not fast.available(), reason="the review runs on the compiled core")

SMALL = "search:guide=none,prune=0,z=0,samples=8,playouts=128"


def _expert_record(seed: int, rules: str = "huaihua") -> dict:
    g = fast.Game(rules, seed=seed)
    while not g.done:
        g.step(g.expert_action())
    return g.record()


def test_every_reviewed_decision_values_every_legal_action():
    rec = _expert_record(11)
    for seat in range(3):
        rev = review(rec, seat, analyser=SMALL)
        g = fast.Game.replay({**rec, "actions": []})
        steps = {d["step"]: d for d in rev["decisions"]}
        for step, a in enumerate(rec["actions"]):
            legal = g.legal_actions()
            if g.current_player == seat and len(legal) > 1 and HU not in legal:
                d = steps.pop(step)
                assert [r["action"] for r in d["legal"]] == legal
                assert d["chosen"] == a and a in legal and d["best"] in legal
                assert all(math.isfinite(r["mean"]) and math.isfinite(r["se"]) for r in d["legal"])
                means = {r["action"]: r["mean"] for r in d["legal"]}
                assert d["best"] == max(legal, key=lambda x: (means[x], -legal.index(x)))
                assert d["loss"] == pytest.approx(means[d["best"]] - means[a]) and d["loss"] >= 0
            g.step(a)
        assert not steps  # no decision reviewed that is not the seat's choice
        s = rev["summary"]
        assert s["decisions"] == len(rev["decisions"])
        assert s["total_loss"] == pytest.approx(sum(d["loss"] for d in rev["decisions"]))
        assert len(s["costliest"]) <= 5
    json.dumps(rev)  # JSON-ready


def test_loss_is_zero_where_the_seat_plays_the_analysers_own_choice():
    # Seat 1 plays the analyser's best action (same worlds: SeedSequence([seed, step])), the other
    # seats play expert: the review finds no loss and full agreement.
    g = fast.Game("huaihua", seed=21)
    step = 0
    while not g.done:
        legal = g.legal_actions()
        if g.current_player == 1 and len(legal) > 1 and HU not in legal:
            a = analyse_position(g, 1, analyser=SMALL, seed=np.random.SeedSequence([3, step]))["best"]
        else:
            a = g.expert_action()
        g.step(a)
        step += 1
    rev = review(g.record(), 1, analyser=SMALL, seed=3)
    assert rev["decisions"]
    assert all(d["loss"] == 0 and d["chosen"] == d["best"] for d in rev["decisions"])
    assert rev["summary"]["agreement"] == 1.0 and rev["summary"]["costliest"] == []


def test_swapping_other_seats_hidden_cards_gives_the_same_review():
    rng = np.random.default_rng(7)
    compared = 0
    for seed in range(6):
        seat = seed % 3
        for g in expert_positions("huaihua", 60 + seed, seat, every=3):
            rec = g.record()
            try:
                base = review(rec, seat, analyser=SMALL, seed=4)
            except ValueError:  # the seat had no choice yet
                continue
            for v in _hidden_variants(g, seat, rng, want=1):
                assert v.deck != g.deck
                assert review(v.record(), seat, analyser=SMALL, seed=4) == base
                compared += 1
            if compared >= 6:
                return
    assert compared >= 3


def test_network_probabilities_beside_the_values():
    rec = _expert_record(11)
    rev = review(rec, 0, analyser=SMALL, agent=f"network:{packaged_guide('huaihua')}")
    for d in rev["decisions"]:
        probs = [r["prob"] for r in d["legal"]]
        assert all(0 <= p <= 1 for p in probs) and sum(probs) == pytest.approx(1.0, abs=1e-6)
    assert "p 0." in review_table(rev)


def test_win_offers_are_listed_with_their_points():
    for seed in range(40):
        rec = _expert_record(seed)
        g = fast.Game.replay(rec)
        if g.result is None or g.result.winner is None:
            continue
        w = g.result.winner
        rev = review(rec, w, analyser=SMALL)
        last = rev["wins"][-1]
        assert last["taken"] and last["points"] == g.result.scores[w] > 0
        assert last["step"] == len(rec["actions"]) - 1
        return
    pytest.fail("no won hand in 40 expert deals")


def test_errors_name_what_is_wrong(tmp_path):
    rec = _expert_record(11)
    with pytest.raises(ValueError, match="must be a JSON object"):
        review([1, 2], 0)
    with pytest.raises(ValueError, match="lacks deck"):
        review({"rules": rec["rules"], "dealer": 0, "actions": []}, 0)
    with pytest.raises(ValueError, match="seat must be 0, 1 or 2"):
        review(rec, 3)
    with pytest.raises(ValueError, match="never has a choice"):
        review({**rec, "actions": []}, 0)
    g = fast.Game.replay({**rec, "actions": []})
    bad = list(rec["actions"])
    bad[0] = next(a for a in range(61) if a not in g.legal_actions())
    with pytest.raises(ValueError, match="the record's action 0 does not replay"):
        review({**rec, "actions": bad}, 0, analyser=SMALL)
    with pytest.raises(ValueError, match="network:PATH, zoo:NAME or checkpoint:PATH"):
        review(rec, 0, agent="expert")
    with pytest.raises(ValueError, match="does not exist"):
        review(rec, 0, agent="network:/nonexistent/net.safetensors")
    with pytest.raises(ValueError, match="must value every legal action"):
        review(rec, 0, analyser="search:guide=auto")
    with pytest.raises(ValueError, match="must be a search spec"):
        review(rec, 0, analyser="expert")
    # the command says the same, exit status 2
    path = tmp_path / "rec.json"
    path.write_text(json.dumps({**rec, "actions": []}))
    assert main(["review", str(path), "--seat", "0"]) == 2
    assert main(["review", str(tmp_path / "missing.json"), "--seat", "0"]) == 2


def test_command_writes_the_table_and_json(tmp_path, capsys):
    path = tmp_path / "rec.json"
    path.write_text(json.dumps(_expert_record(11)))
    out = tmp_path / "rev.json"
    assert main(["review", str(path), "--seat", "2", "--analyser", SMALL, "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "Review of seat 2" in text and "total loss" in text
    rev = json.loads(out.read_text(encoding="utf-8"))
    assert rev["format"] == "paohuzi-review-v1" and rev["seat"] == 2 and rev["analyser"] == SMALL


def test_the_default_analyser_values_every_action():
    assert "guide=none" in ANALYSER and "prune=0" in ANALYSER and "z=0" in ANALYSER
    g = next(expert_positions("huaihua", 3, 0))
    res = analyse_position(g, 0, seed=1)
    assert res["worlds"] >= 128
    assert all(r["worlds"] == res["worlds"] for r in res["legal"])


def test_checkpoint_probabilities_beside_the_values():
    pytest.importorskip("torch")
    from pathlib import Path

    ck = Path(__file__).resolve().parents[1] / "checkpoints" / "shipped" / "policy.safetensors"
    if not ck.exists():
        pytest.skip("checkpoints/ is not in this tree (an sdist)")
    rev = review(_expert_record(11), 0, analyser=SMALL, agent=f"checkpoint:{ck}")
    for d in rev["decisions"]:
        assert sum(r["prob"] for r in d["legal"]) == pytest.approx(1.0, abs=1e-5)
