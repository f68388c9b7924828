"""The duplicate-deal harness: determinism across worker counts and its arithmetic."""

from __future__ import annotations

import json
import math

import pytest

from paohuzi_training.eval.evaluate import GameRow, evaluate, league, main, mean_ci, summarise, wilson


def test_same_numbers_with_one_and_two_workers():
    a = evaluate("greedy", "random", deals=6, seed=3, workers=1, progress=False)
    b = evaluate("greedy", "random", deals=6, seed=3, workers=2, progress=False)
    a.pop("wall_seconds"), b.pop("wall_seconds")
    assert a == b
    assert a["games"] == 18


def test_duplicate_deals_rotate_the_candidate_through_every_seat():
    res = evaluate("random", "random", deals=2, seed=1, workers=1, progress=False)
    rows = res["rows"]
    assert [(r.deal, r.rotation) for r in rows] == [(d, s) for d in range(2) for s in range(3)]
    for r in rows:
        assert r.points == r.scores[r.rotation]


def test_summary_arithmetic_by_hand():
    # Two deals, three rotations each. Deal 0: points 6, 0, -3 -> mean 1; deal 1: -3, 0, 0
    # -> mean -1. Mean over deals 0; sample sd over deals sqrt(((1-0)^2 + (-1-0)^2)/1) =
    # sqrt(2); 95% half-width 1.96 * sqrt(2) / sqrt(2) = 1.96.
    rows = [
        GameRow(0, 0, 6, True, True, True, (6, -3, -3)),
        GameRow(0, 1, 0, False, False, False, (0, 0, 0)),
        GameRow(0, 2, -3, False, True, False, (6, -3, -3)),
        GameRow(1, 0, -3, False, True, False, (-3, 6, -3)),
        GameRow(1, 1, 0, False, False, True, (0, 0, 0)),
        GameRow(1, 2, 0, False, False, False, (0, 0, 0)),
    ]
    s = summarise(rows, "a", ["b", "b"], 2, 1.0, "huaihua")
    assert s["mean_points"] == 0.0
    assert s["ci95"] == pytest.approx([-1.96, 1.96])
    assert s["games"] == 6
    assert s["win_rate"] == pytest.approx(1 / 6)
    assert s["hu_rate"] == pytest.approx(3 / 6)
    assert s["draw_rate"] == pytest.approx(3 / 6)
    # dealer games: points 6 and 0 -> mean 3; non-dealer: 0, -3, -3, 0 -> mean -1.5
    assert s["dealer"]["mean_points"] == 3.0
    assert s["non_dealer"]["mean_points"] == -1.5
    # Wilson interval of 1/6 at z = 1.96, by the formula:
    p, n, z = 1 / 6, 6, 1.96
    den = 1 + z * z / n
    mid = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    assert s["win_rate_ci95"] == pytest.approx([mid - half, mid + half])


def test_wilson_and_mean_ci_edges():
    assert wilson(0, 0) == (0.0, 1.0)
    lo, hi = wilson(10, 10)
    assert hi == 1.0 and 0.6 < lo < 0.75
    assert mean_ci([]) == (0.0, 0.0, 0.0)
    assert mean_ci([2.0]) == (2.0, 2.0, 2.0)


def test_bad_specs_and_arguments():
    with pytest.raises(ValueError, match="unknown agent spec"):
        evaluate("clever", "random", deals=1, workers=1, progress=False)
    with pytest.raises(ValueError, match="deals"):
        evaluate("random", "random", deals=0, workers=1, progress=False)
    with pytest.raises(ValueError, match="opponents"):
        evaluate("random", ["random"] * 3, deals=1, workers=1, progress=False)


def test_league_ratings_and_cli_json(tmp_path):
    res = league(["random", "greedy"], deals=3, seed=0, workers=1, progress=False)
    assert {r["agent"] for r in res["ratings"]} == {"random", "greedy"}
    assert set(res["matches"]) == {"random vs greedy", "greedy vs random"}
    out = tmp_path / "eval.json"
    assert main(["greedy", "--vs", "random", "--deals", "2", "--workers", "1",
                 "--no-progress", "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    assert data["games"] == 6 and data["candidate"] == "greedy"
    assert main(["greedy", "--vs", "nobody", "--deals", "2", "--no-progress"]) == 2


def test_league_markdown_plot_and_search(tmp_path, capsys):
    """The ladder command: ratings and the pairwise table as Markdown, the PNG, and the search
    agent seated as candidate and as opponent (it needs the game: the harness gives it)."""
    png = tmp_path / "ladder.png"
    out = tmp_path / "league.json"
    assert main(["--league", "greedy", "search:samples=2", "--deals", "1", "--workers", "1",
                 "--no-progress", "--json", str(out), "--plot", str(png)]) == 0
    text = capsys.readouterr().out
    assert "| `greedy` |" in text and "| candidate \\ vs |" in text
    assert png.stat().st_size > 1000 and png.read_bytes()[:4] == b"\x89PNG"
    data = json.loads(out.read_text())
    assert set(data["matches"]) == {"greedy vs search:samples=2", "search:samples=2 vs greedy"}
    # every cell of the table is the match's mean and CI
    m = data["matches"]["greedy vs search:samples=2"]
    assert f"{m['mean_points']:+.2f} [{m['ci95'][0]:+.2f}, {m['ci95'][1]:+.2f}]" in text


def test_plot_needs_a_league(capsys):
    with pytest.raises(SystemExit):
        main(["greedy", "--vs", "random", "--deals", "1", "--plot", "x.png"])
    assert "--plot draws a league" in capsys.readouterr().err


def test_add_points_averages_the_matches_and_combines_their_cis():
    from paohuzi_training.eval.evaluate import add_points

    res = {"ratings": [{"agent": "a"}, {"agent": "b"}], "matches": {
        "a vs b": {"mean_points": 1.0, "ci95": [0.0, 2.0]},
        "a vs c": {"mean_points": 3.0, "ci95": [2.0, 4.0]},
        "b vs a": {"mean_points": -2.0, "ci95": [-3.0, -1.0]}}}
    add_points(res)
    a, b = res["ratings"]
    # mean of the two matches; half-width sqrt(1^2 + 1^2) / 2
    assert a["mean_points"] == 2.0 and a["points_ci95"] == pytest.approx([2 - 0.5 ** 0.5,
                                                                          2 + 0.5 ** 0.5])
    assert b["mean_points"] == -2.0 and b["points_ci95"] == pytest.approx([-3.0, -1.0])


def test_piped_table_keeps_every_column(capsys, monkeypatch):
    """Piped (stdout not a terminal, even with COLUMNS=80), the result table loses no column:
    every header, each row's last cell (the seconds) and the whole of a long candidate spec are
    printed, and no line is cut short of the table's right border."""
    from paohuzi_training.eval.evaluate import print_table

    monkeypatch.setenv("COLUMNS", "80")
    res = evaluate("greedy", "random", deals=2, seed=0, workers=1, progress=False)
    res.pop("rows")
    long = dict(res, candidate="network:" + "/".join(["a-long-folder-name"] * 5) + "/final.pt",
                opponents=["search:samples=2", "random"], rules="classic", wall_seconds=4321.0,
                variance_reduction={"mean_points": 0.5, "ci95": [0.1, 0.9], "ci_width_ratio": 0.5})
    for results, headers in (
            ([res], ["candidate", "vs", "mean points [95% CI]", "win rate [95% CI]", "hu", "荒庄",
                     "dealer / non-dealer", "seconds"]),
            ([res, long], ["candidate", "vs", "rules", "mean points [95% CI]",
                           "AIVAT mean points [95% CI]", "CI ratio", "win rate [95% CI]", "hu",
                           "荒庄", "dealer / non-dealer", "seconds"])):
        print_table(results)
        out = capsys.readouterr().out
        lines = out.splitlines()
        head = next(line for line in lines if "candidate" in line)
        assert [c.strip() for c in head.strip("┃").split("┃")] == headers
        assert all(line.endswith(("┓", "┃", "┩", "│", "┘")) for line in lines[1:]), out
        assert f"{res['wall_seconds']:.0f}" in out
        assert f"{res['mean_points']:+.3f} [{res['ci95'][0]:+.3f}, {res['ci95'][1]:+.3f}]" in out
    assert "4321" in out and "+0.500 [+0.100, +0.900]" in out
    assert "huaihua" in out  # the rows' rules differ: a column
    # the long spec wraps in its column (folded, never cut): its pieces, in order, are all there
    cells = "".join(line.split("│")[1].strip() for line in lines if line.startswith("│"))
    assert long["candidate"] in cells


FORKED_TORCH = """
import multiprocessing, sys
import torch
from paohuzi_training.eval.pools import one_torch_thread

def job(i):
    a = torch.ones(600, 600)
    return float((a @ a)[0, 0])

torch.set_num_threads(2)
big = torch.ones(2000, 2000)
(big @ big).sum()  # OpenMP's pool now exists in this process, and a fork copies its record
with multiprocessing.get_context("fork").Pool(2, initializer=one_torch_thread) as pool:
    print(pool.map(job, range(4)))
"""


def test_forked_pool_workers_run_torch_after_a_multithreaded_parent():
    """The hang that stopped a CI run: a pool forked after torch ran on two threads, whose
    workers then use torch, waits forever on OpenMP's pool unless each worker first drops to
    one thread (``one_torch_thread``, the start of every forked pool of evaluation, labelling
    and AIVAT). Checked in a fresh interpreter, whose torch state no other test has touched."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    out = subprocess.run([sys.executable, "-c", FORKED_TORCH], capture_output=True, text=True,
                         timeout=180, cwd=root)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == str([600.0] * 4)
