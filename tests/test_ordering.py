"""The baselines' strength ordering under ``yongzhou`` (two 王, docs/rules.md section 10), checked in CI:
``expert`` beats ``greedy`` and ``greedy`` beats ``random`` over 2,000 duplicate deals each, with
seat rotation, the 95% CI over deals above 0. The seed (2026, the README's) was fixed before the
first run; the README's table and docs/results/*-yongzhou.json are these same runs."""

from __future__ import annotations

import pytest

from training.evaluate import evaluate

DEALS = 2000
SEED = 2026


@pytest.mark.parametrize("candidate, opponent", [("expert", "greedy"), ("greedy", "random")])
def test_yongzhou_baseline_ordering(candidate, opponent):
    res = evaluate(candidate, opponent, deals=DEALS, seed=SEED, rules="yongzhou", progress=False)
    assert res["deals"] == DEALS
    lo, hi = res["ci95"]
    assert lo > 0, (f"{candidate} vs {opponent} under yongzhou: "
                    f"{res['mean_points']:+.3f} [{lo:+.3f}, {hi:+.3f}]")
