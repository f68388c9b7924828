"""Killed at the worst moment (issue 27 item 6): a training run gets SIGKILL while it writes a
checkpoint, half the file on disk; resuming loses only the iteration whose checkpoint was
being written, and never reads the torn file.

How the kill lands "while it writes": the run is a child process whose driver (below) wraps
``paohuzi_training.nets.files._write_bytes`` so that the N-th checkpoint write puts half its bytes on
disk (flushed and fsynced), signals the test and sleeps; the test then SIGKILLs the child's
process group. This hits the moment every time, in seconds, and leaves a real torn file; killing
at random moments would hit a write only rarely (a write is milliseconds of each iteration)
and need many slow runs. The production writer has no test hook: the driver patches it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from paohuzi_training.nets.checkpoint import load_checkpoint  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "configs" / "ppo-tiny.yaml"
# three small iterations of 200 learner decisions, a checkpoint after each, nothing else written
OVERRIDES = ["total_steps=600", "steps_per_worker=200", "games_per_worker=4", "hidden=16",
             "minibatch_size=64", "update_epochs=1", "opponent_bots={greedy: 0.3}", "eval_every=0",
             "final_eval_deals=0", "save_every=1", "bc_steps=0"]

DRIVER = r"""
import os, sys, time
import paohuzi_training.nets.files as ck

marker, pause_at = sys.argv[1], int(sys.argv[2])
real = ck._write_bytes
calls = 0

def write_bytes(f, blob, path):
    global calls
    calls += 1
    if calls == pause_at:  # half the checkpoint on disk, then wait for the kill
        f.write(blob[: len(blob) // 2])
        f.flush()
        os.fsync(f.fileno())
        with open(marker, "w") as m:
            m.write(str(len(blob)))
        time.sleep(600)
    real(f, blob, path)

ck._write_bytes = write_bytes
from paohuzi_training.train import main
sys.exit(main(sys.argv[3:]))
"""


def _kill_while_writing(tmp_path: Path, pause_at: int) -> int:
    """Run the tiny config in ``tmp_path``, SIGKILL it while it writes its ``pause_at``-th
    checkpoint; returns the size the checkpoint being written would have had."""
    marker = tmp_path / "writing"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.Popen(
        [sys.executable, "-c", DRIVER, str(marker), str(pause_at), "--config", str(CONFIG),
         *OVERRIDES],
        cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        start_new_session=True,  # its own process group: the kill takes any worker with it
    )
    try:
        deadline = time.monotonic() + 300
        while not marker.exists() or not marker.read_text():
            if proc.poll() is not None:
                raise AssertionError(f"the run ended (rc {proc.returncode}) before its "
                                     f"checkpoint write {pause_at}:\n{proc.stderr.read().decode()}")
            if time.monotonic() > deadline:
                raise AssertionError(f"the run did not reach checkpoint write {pause_at} in 300 s")
            time.sleep(0.05)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        if proc.stderr is not None:
            proc.stderr.close()
    assert proc.returncode == -signal.SIGKILL
    return int(marker.read_text())


def test_sigkill_while_writing_a_checkpoint_then_resume(tmp_path, monkeypatch, capsys):
    full_size = _kill_while_writing(tmp_path, pause_at=2)  # the checkpoint of iteration 2
    run_dir = tmp_path / "checkpoints" / "tiny__1"
    latest = run_dir / "latest.pt"
    # the torn write is a temporary file; latest.pt is iteration 1's checkpoint, whole
    torn = list(run_dir.glob("latest.pt.*.tmp"))
    assert len(torn) == 1 and torn[0].stat().st_size == full_size // 2
    with pytest.raises(ValueError, match="corrupt"):
        load_checkpoint(torn[0])  # what a writer without the rename would have left
    data = load_checkpoint(latest)
    assert data["iteration"] == 1 and data["global_step"] >= 200
    assert not (run_dir / "final.pt").exists()
    # resume: it continues from iteration 1 (only iteration 2, being written, is lost)
    from paohuzi_training.train import main

    monkeypatch.chdir(tmp_path)
    assert main(["--config", str(CONFIG), "--resume", str(latest), *OVERRIDES]) == 0
    assert f"resumed {latest} at step {data['global_step']} (iteration 1)" in capsys.readouterr().out
    final = load_checkpoint(run_dir / "final.pt")
    assert final["iteration"] == 3 and final["global_step"] >= 600
    assert load_checkpoint(latest)["iteration"] == 3
    assert not list(run_dir.glob("*.tmp"))  # the next write to latest.pt removed the torn file
