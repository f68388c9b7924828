"""Labelled data from the search (paohuzi_training/stages/label.py): a short run reads back and agrees with
the hands it came from; a run killed (SIGKILL) while it writes a shard loses only that shard,
never leaves a torn file under a shard's name, and resumes to the data of an uninterrupted run."""

from __future__ import annotations

import fcntl
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from paohuzi_env import fast

pytestmark = pytest.mark.skipif(not fast.available(), reason="needs the compiled core")

import paohuzi_training.stages.label as label_mod  # noqa: E402
from paohuzi_training.stages.label import (  # noqa: E402
    DECISIONS,
    LabelConfig,
    check_labels,
    iter_shards,
    label,
    load_labels,
    main,
    shard_path,
)

ROOT = Path(__file__).resolve().parents[1]
TINY = "search:samples=2,playouts=8,guide=none"  # every legal action played out


def _replay_check(cfg: LabelConfig, d: dict[str, np.ndarray]) -> None:
    """Play every hand again from its seed with the labelled actions: each row's observation,
    mask (= the legal actions), decision and step are those of the position, and its points
    are the hand's final points."""
    rows_of: dict[int, list[int]] = {}
    for i, h in enumerate(d["hand"].tolist()):
        rows_of.setdefault(h, []).append(i)
    assert sorted(rows_of) == sorted(set(range(cfg.hands)) & set(rows_of))
    for h, idx in rows_of.items():
        g = fast.Game(cfg.rules, seed=np.random.SeedSequence([cfg.seed, h]).spawn(4)[0])
        it = iter(idx)
        step = 0
        mine = []
        while not g.done:
            s = g.current_player
            legal = g.legal_actions()
            if s in cfg.seats and len(legal) > 1:
                i = next(it)
                mine.append(i)
                assert (d["step"][i], d["seat"][i]) == (step, s)
                assert DECISIONS[d["decision"][i]] == g.decision
                assert np.flatnonzero(d["mask"][i]).tolist() == legal
                assert np.array_equal(d["obs"][i], g.observation(s))
                a = int(d["action"][i])
                assert a in legal
            elif s in cfg.seats:
                a = legal[0]
            else:
                a = g.expert_action()
            g.step(a)
            step += 1
        assert next(it, None) is None
        assert g.result is not None
        scores = g.result.scores
        for i in mine:
            assert d["points"][i] == scores[d["seat"][i]]
            assert tuple(d["scores"][i]) == tuple(scores)


def test_short_run_reads_back(tmp_path):
    cfg = LabelConfig(hands=3, search=TINY, seats=(0, 2), seed=5, shard_hands=2)
    res = label(cfg, tmp_path, workers=1, progress=False)
    assert (res["shards"], res["skipped"], res["hands"]) == (2, 0, 3)
    d = load_labels(tmp_path)
    n = len(d["action"])
    assert n == res["labels"] > 0
    assert d["obs"].shape == (n, 763) and d["obs"].dtype == np.float32
    for k in ("mask", "mean", "se"):
        assert d[k].shape == (n, 61)
    assert set(d["seat"].tolist()) <= {0, 2}
    assert (d["mask"].sum(axis=1) >= 2).all()  # only decisions with a choice
    assert d["mask"][np.arange(n), d["action"]].all()  # the chosen action is legal
    searched = d["worlds"] >= 2
    assert searched.any()
    # Stats: finite exactly on the legal actions of searched decisions, NaN elsewhere.
    want = d["mask"] & searched[:, None]
    assert np.array_equal(np.isfinite(d["mean"]), want)
    assert np.array_equal(np.isfinite(d["se"]), want)
    assert (d["se"][want] >= 0).all()
    # Unsearched decisions are wins the search takes at once (R-HU: HU among the legal).
    assert all(d["decision"][i] in (0, 1, 2) for i in np.flatnonzero(~searched))
    _replay_check(cfg, d)
    assert check_labels(tmp_path) == n
    # A second run of the same settings has nothing left to do.
    again = label(cfg, tmp_path, workers=1, progress=False)
    assert (again["shards"], again["skipped"], again["labels"]) == (0, 2, 0)


def test_the_stage_log_names_finished_shards_only_when_there_are_some(tmp_path):
    from paohuzi_training.stages.label import LabelInputs, run

    cfg = LabelConfig(hands=2, search=TINY, seats=(0,), seed=5, shard_hands=1)
    lines: list[str] = []
    first = run(cfg, LabelInputs(out=tmp_path, workers=1), log=lines.append)
    run(cfg, LabelInputs(out=tmp_path, workers=1), log=lines.append)
    assert lines == [f"labels: {first['labels']:,} labels from 2 hands this run",
                     "labels: 0 labels from 0 hands this run (2 shard(s) finished before)"]


def test_two_workers_write_the_same_shards(tmp_path, monkeypatch):
    monkeypatch.setattr(label_mod, "POLL_S", 0.001)  # the parent polls (and times out) often
    cfg = LabelConfig(hands=2, search=TINY, seats=(1,), seed=2, shard_hands=1)
    label(cfg, tmp_path / "a", workers=1, progress=False)
    assert main([str(tmp_path / "b"), "--hands", "2", "--search", TINY, "--seats", "1",
                 "--seed", "2", "--shard-hands", "1", "--workers", "2", "--no-progress",
                 "--check"]) == 0
    a, b = list(iter_shards(tmp_path / "a")), list(iter_shards(tmp_path / "b"))
    assert [p.name for p, _ in a] == [p.name for p, _ in b] == ["shard-00000.npz", "shard-00001.npz"]
    for (_, x), (_, y) in zip(a, b):
        assert x["meta"] == y["meta"]
        for k in x:
            if k != "meta":
                assert np.array_equal(x[k], y[k], equal_nan=x[k].dtype.kind == "f"), k


def test_bad_settings_and_other_runs(tmp_path, capsys):
    with pytest.raises(ValueError, match="seats must be"):
        label(LabelConfig(hands=1, search=TINY, seats=(3,)), tmp_path, progress=False)
    with pytest.raises(ValueError, match="must be a search spec"):
        label(LabelConfig(hands=1, search="expert"), tmp_path, progress=False)
    with pytest.raises(ValueError, match="bad search option"):
        label(LabelConfig(hands=1, search="search:worlds=3"), tmp_path, progress=False)
    assert main([str(tmp_path / "x"), "--hands", "0", "--no-progress"]) == 2
    assert "hands and shard_hands must be at least 1" in capsys.readouterr().err
    cfg = LabelConfig(hands=1, search=TINY, seats=(0,), seed=1)
    label(cfg, tmp_path / "r", workers=1, progress=False)
    with pytest.raises(ValueError, match="other settings"):
        label(LabelConfig(hands=1, search=TINY, seats=(0,), seed=2), tmp_path / "r", progress=False)
    with open(tmp_path / "r" / ".lock", "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        with pytest.raises(RuntimeError, match="another labelling run"):
            label(cfg, tmp_path / "r", progress=False)


# The labeller in a child process whose writer pauses half way through shard 2's temporary file
# (half its bytes fsynced to disk) and waits to be killed; the production writer has no test hook.
PAUSING_DRIVER = r"""
import os, sys, time
import paohuzi_training.nets.files as files

marker = sys.argv[1]
real = files._write_bytes

def write_bytes(f, blob, path):
    if path.name == "shard-00002.npz":
        f.write(blob[: len(blob) // 2])
        f.flush()
        os.fsync(f.fileno())  # a torn temporary file is on disk now
        with open(marker, "w") as m:
            m.write(str(os.getpid()))
        time.sleep(3600)  # the test kills the process here
    real(f, blob, path)

files._write_bytes = write_bytes
from paohuzi_training.stages.label import main
sys.exit(main(sys.argv[2:]))
"""


def test_sigkill_while_writing_a_shard_loses_only_that_shard(tmp_path):
    # The run is paused half way through writing shard 2's temporary file (PAUSING_DRIVER), then
    # killed with SIGKILL: the worst moment for a writer.
    out, marker = tmp_path / "run", tmp_path / "paused"
    args = ["--hands", "3", "--search", TINY, "--seats", "0", "--seed", "7", "--shard-hands", "1",
            "--workers", "1", "--no-progress"]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, "-c", PAUSING_DRIVER, str(marker), str(out), *args],
                            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 300
        while not marker.exists():
            assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
            assert time.monotonic() < deadline, "the run never reached shard 2's write"
            time.sleep(0.05)
        proc.send_signal(signal.SIGKILL)
        assert proc.wait(timeout=60) == -signal.SIGKILL
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if proc.stderr:
            proc.stderr.close()
    done = [shard_path(out, k) for k in (0, 1)]
    assert all(p.exists() for p in done) and not shard_path(out, 2).exists()
    torn = list(out.glob("shard-00002.npz.*.tmp"))
    assert len(torn) == 1 and torn[0].stat().st_size > 0
    with pytest.raises(Exception):  # noqa: B017 - the half-written zip is unreadable
        np.load(torn[0], allow_pickle=False)["obs"]
    # Readers see the finished shards only.
    assert [p.name for p, _ in iter_shards(out)] == ["shard-00000.npz", "shard-00001.npz"]
    before = {p: (p.stat().st_ino, p.stat().st_mtime_ns) for p in done}
    # Resume: only shard 2 is played again; the finished ones are not touched.
    cfg = LabelConfig(hands=3, search=TINY, seats=(0,), seed=7, shard_hands=1)
    res = label(cfg, out, workers=1, progress=False)
    assert (res["shards"], res["skipped"]) == (1, 2)
    assert {p: (p.stat().st_ino, p.stat().st_mtime_ns) for p in done} == before
    assert not list(out.glob("shard-*.tmp")) and not list(out.glob("shard-*.npz.*.tmp"))
    # The resumed run's data is the uninterrupted run's.
    clean = tmp_path / "clean"
    label(cfg, clean, workers=1, progress=False)
    a, b = load_labels(out), load_labels(clean)
    assert a.keys() == b.keys()
    for k in a:
        assert np.array_equal(a[k], b[k], equal_nan=a[k].dtype.kind == "f"), k
    _replay_check(cfg, a)


def test_check_labels_names_a_bad_shard(tmp_path):
    cfg = LabelConfig(hands=1, search=TINY, seats=(0,), seed=3)
    label(cfg, tmp_path, workers=1, progress=False)
    p = shard_path(tmp_path, 0)
    with np.load(p, allow_pickle=False) as z:
        d = {k: z[k] for k in z.files}
    assert check_labels(tmp_path) == len(d["action"]) > 0
    legal = np.flatnonzero(d["mask"][0])
    d["action"][0] = next(a for a in range(61) if a not in legal)
    np.savez_compressed(p, **d)
    with pytest.raises(ValueError, match="shard-00000.npz: a chosen action is not legal"):
        check_labels(tmp_path)


def test_check_labels_knows_which_searches_play_every_action(tmp_path):
    """An unguided run must have a mean for every legal action of a searched row; a guided run
    (the default spec under huaihua) only for its candidates, the chosen action among them."""
    from paohuzi_training.stages.label import plays_every_action

    assert plays_every_action("search:guide=none", "huaihua")
    assert not plays_every_action("search", "classic")  # guided there too (issue 62)
    assert plays_every_action("search:impl=python", "huaihua")
    assert not plays_every_action("search", "huaihua")
    assert not plays_every_action("search:guide=none,top=2", "huaihua")
    # unguided: one legal mean dropped is caught
    label(LabelConfig(hands=2, search=TINY, seats=(0,), seed=3), tmp_path / "u", workers=1,
          progress=False)
    p = shard_path(tmp_path / "u", 0)
    with np.load(p, allow_pickle=False) as z:
        d = {k: z[k] for k in z.files}
    i = int(np.flatnonzero(d["worlds"] >= 2)[0])
    a = next(b for b in np.flatnonzero(d["mask"][i]) if b != d["action"][i])
    d["mean"][i, a] = d["se"][i, a] = np.nan
    np.savez_compressed(p, **d)
    with pytest.raises(ValueError, match="finite exactly on the legal actions"):
        check_labels(tmp_path / "u")
    # guided: partial rows pass, and the chosen action's mean is required
    label(LabelConfig(hands=3, search="search:samples=4,playouts=32", seats=(0,), seed=4),
          tmp_path / "g", workers=1, progress=False)
    assert check_labels(tmp_path / "g") > 0
    d = load_labels(tmp_path / "g")
    searched = d["worlds"] >= 2
    fin = np.isfinite(d["mean"])
    assert searched.any() and (fin.sum(axis=1)[searched] < d["mask"].sum(axis=1)[searched]).any()
    p = shard_path(tmp_path / "g", 0)
    with np.load(p, allow_pickle=False) as z:
        d = {k: z[k] for k in z.files}
    i = int(np.flatnonzero(d["worlds"] >= 2)[0])
    d["mean"][i, d["action"][i]] = d["se"][i, d["action"][i]] = np.nan
    np.savez_compressed(p, **d)
    with pytest.raises(ValueError, match="and on the chosen action"):
        check_labels(tmp_path / "g")


def test_departures_replays_the_hands_and_compares_a_network(tmp_path, capsys):
    """paohuzi_training.tools.departures rebuilds every labelled hand from its seed and the labels, finds no
    departure where the search could not leave expert (margin = 1000), and compares a network with
    expert the way NetworkAgent plays it (the Python encoder, not the labels' observations)."""
    from paohuzi_env.agents.network import NetworkAgent
    from paohuzi_env.bots.heuristic import ExpertAgent
    from paohuzi_env.game.engine import Game
    from paohuzi_training.tools.departures import analyse, main

    cfg = LabelConfig(hands=4, search="search:samples=4,playouts=32,margin=1000,guide=none",
                      shard_hands=2,
                      seed=5, seats=(0,), others="expert")
    got = label(cfg, tmp_path / "l", workers=1, progress=False)
    net_path = Path(__file__).resolve().parents[1] / "checkpoints/shipped/distilled.safetensors"
    res = analyse(tmp_path / "l", network=net_path)
    assert res["hands"] == 4
    assert sum(r["decisions"] for r in res["rows"]) == got["labels"]
    assert all(r["departures"] == 0 for r in res["rows"])  # a gain > 1000 points: never
    assert all(r["seat"] in ("dealer", "other") for r in res["rows"])
    # the network's agreement with expert, counted again through the Python engine and agent
    agent, expert = NetworkAgent(net_path, rules="huaihua"), ExpertAgent(rules="huaihua")
    data = load_labels(tmp_path / "l")
    same = 0
    for h in range(4):
        game = Game("huaihua", seed=np.random.SeedSequence([5, h]).spawn(4)[0])
        rows = [i for i in range(len(data["hand"])) if data["hand"][i] == h]
        k = step = 0
        while not game.done:
            if k < len(rows) and data["step"][rows[k]] == step:
                view = game.view(game.current_player)
                same += agent.act(view) == expert.act(view)
                game.step(int(data["action"][rows[k]]))
                k += 1
            else:  # a forced move, or seats 1 and 2 (the compiled expert in the label run)
                legal = game.legal_actions()
                game.step(legal[0] if len(legal) == 1 else
                          expert.act(game.view(game.current_player)))
            step += 1
    assert sum(r["net_expert"] * r["decisions"] for r in res["rows"]) == pytest.approx(same)
    d = res["discard_regret"]
    assert d["disagreements"] >= 0 and (not d["disagreements"] or d["quantiles"]["0.1"] >= -1e-9)
    assert main([str(tmp_path / "l"), "--shards", "1"]) == 0
    assert "hands of" in capsys.readouterr().out
    assert main([str(tmp_path / "nowhere")]) == 2
