"""``paohuzi-eval --save-records DIR N``: records of chosen evaluated games."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from paohuzi_env.apps.replay_html import replay_html
from paohuzi_env.game.engine import Game
from paohuzi_training.eval.evaluate import evaluate, main, record_game, save_records

SHIPPED = Path(__file__).resolve().parents[1] / "checkpoints" / "shipped" / "policy.safetensors"


def test_worst_games_are_saved_and_replay_to_their_scores(tmp_path):
    res = evaluate("greedy", "random", deals=3, seed=2, workers=1, progress=False)
    rows = res["rows"]
    paths = save_records(rows, "greedy", ["random", "random"], tmp_path, 2, which="worst", seed=2)
    assert len(paths) == 2
    worst = sorted(r.points for r in rows)[:2]
    got = []
    for p in paths:
        rec = json.loads(p.read_text())
        g = Game.replay(rec)
        seat = rec["seats"].index("greedy")
        got.append(g.result.scores[seat])
        assert rec["probs"] is None  # rule bots give no probabilities
        assert "window.replay" in replay_html(rec)
    assert sorted(got) == worst
    with pytest.raises(ValueError, match="at least 1"):
        save_records(rows, "greedy", ["random", "random"], tmp_path, 0)
    with pytest.raises(ValueError, match="which must be one of"):
        save_records(rows, "greedy", ["random", "random"], tmp_path, 1, which="median")


def test_cli_saves_the_first_games(tmp_path, capsys):
    out = tmp_path / "recs"
    assert main(["greedy", "--vs", "random", "--deals", "2", "--workers", "1", "--no-progress",
                 "--save-records", str(out), "4"]) == 0
    files = sorted(out.glob("*.json"))
    assert [f.name for f in files] == ["deal00000-seat0.json", "deal00000-seat1.json",
                                       "deal00000-seat2.json", "deal00001-seat0.json"]
    assert "saved 4 records" in capsys.readouterr().err
    assert main(["greedy", "--deals", "1", "--save-records", str(out), "-3"]) == 2
    assert "N must be at least 1" in capsys.readouterr().err


@pytest.mark.skipif(not SHIPPED.exists(), reason="no shipped checkpoint")
def test_checkpoint_records_carry_the_policy_probabilities():
    pytest.importorskip("torch", reason="the train extra (torch) is not installed")
    rec = record_game(f"checkpoint:{SHIPPED}", ["expert", "expert"], deal=0, rotation=1, seed=0,
                      rules="huaihua")
    g = Game(rec["rules"]["name"], deck=rec["deck"], dealer=rec["dealer"])
    seen = 0
    for a, p in zip(rec["actions"], rec["probs"]):
        if g.current_player == 1:
            assert p is not None and set(map(int, p)) == set(g.legal_actions())
            assert sum(p.values()) == pytest.approx(1, abs=1e-4)
            assert max(p, key=p.get) == str(a)  # the greedy policy takes its most probable action
            seen += 1
        else:
            assert p is None
        g.step(a)
    assert seen > 0
