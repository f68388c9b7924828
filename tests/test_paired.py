"""tools/paired: two candidates on the same deals, the gain paired over deals."""

from __future__ import annotations

import json

import pytest

from paohuzi_training.eval.evaluate import evaluate
from paohuzi_training.tools import paired


def test_the_gain_is_the_difference_of_the_deal_means(tmp_path):
    out = tmp_path / "p.json"
    assert paired.main(["expert", "greedy", "--vs", "expert", "--deals", "6", "--seed", "3",
                        "--workers", "1", "--no-progress", "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    # computed by hand from the two evaluations' rows: each deal's mean over its three games
    rows_a = evaluate("expert", "expert", deals=6, seed=3, workers=1, progress=False)["rows"]
    rows_b = evaluate("greedy", "expert", deals=6, seed=3, workers=1, progress=False)["rows"]
    def deal_means(rows):
        acc: dict[int, list[float]] = {}
        for r in rows:
            acc.setdefault(r.deal, []).append(r.points)
        return {d: sum(v) / len(v) for d, v in acc.items()}
    a, b = deal_means(rows_a), deal_means(rows_b)
    want = sum(a[d] - b[d] for d in a) / len(a)
    assert data["gain_a_over_b"]["deals"] == 6
    assert data["gain_a_over_b"]["mean_points"] == pytest.approx(want)
    assert data["a"]["mean_points"] - data["b"]["mean_points"] == pytest.approx(want)
    lo, hi = data["gain_a_over_b"]["ci95"]
    assert lo <= want <= hi


def test_a_candidate_against_itself_gains_exactly_nothing():
    out = paired.compare("greedy", "greedy", deals=3, seed=1, workers=1, progress=False)
    assert out["gain_a_over_b"]["mean_points"] == 0.0


def test_a_bad_spec_is_an_error(capsys):
    assert paired.main(["nonsense-bot", "expert", "--deals", "2", "--workers", "1"]) == 2
    assert "paired: error" in capsys.readouterr().err
