"""Checkpoints are data (issue 27 item 1): every checkpoint loads with ``weights_only=True``, a
crafted one whose unpickling would run code is refused by every command that loads
checkpoints unless trusted, and the ``.pt`` files the trainer writes are plain data. (That each
shipped ``.safetensors`` policy is the ``.pt`` it replaced: tests/test_shipped.py.)"""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("safetensors")

from paohuzi_env.agents import make_agent  # noqa: E402
from paohuzi_training.nets.checkpoint import (  # noqa: E402
    TRUST_ENV,
    convert_checkpoint,
    export_policy,
    load_checkpoint,
    save_checkpoint,
    sidecar_path,
)
from paohuzi_training.nets.checkpoint import main as checkpoint_main  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = ROOT / "checkpoints" / "shipped"
REFUSED = "arbitrary pickled objects"


@pytest.fixture(autouse=True)
def _untrusted(monkeypatch):
    """No test starts trusted, and a --trust-checkpoint flag (which sets TRUST_ENV for the
    process) does not outlive its test."""
    monkeypatch.delenv(TRUST_ENV, raising=False)


class _CreatesFile:
    """Unpickling this calls ``open(path, "w")``: it creates a file, as a malicious checkpoint
    would run any code."""

    def __init__(self, path: Path) -> None:
        self.path = str(path)

    def __reduce__(self):
        return (open, (self.path, "w"))


@pytest.fixture
def evil(tmp_path):
    """A crafted checkpoint: the shipped distilled network (a real huaihua checkpoint, so a trusted
    load plays) plus an entry whose unpickling creates ``pwned``. Returns (file, marker)."""
    marker = tmp_path / "pwned"
    data = load_checkpoint(SHIPPED / "distilled.safetensors")
    data["payload"] = _CreatesFile(marker)
    path = tmp_path / "evil.pt"
    torch.save(data, path)
    assert not marker.exists()
    return path, marker


def test_the_files_a_run_writes_load_weights_only(tmp_path, monkeypatch):
    """The .pt files the trainer writes (the resumable latest.pt, final.pt and a play-only
    export) are plain data: they load with weights_only=True and untrusted."""
    from paohuzi_training.recipe import make_config
    from paohuzi_training.train import train

    monkeypatch.chdir(tmp_path)
    cfg = make_config(dict(run_name="w", total_steps=300, workers=1, games_per_worker=4,
                           steps_per_worker=300, hidden=16, minibatch_size=100,
                           update_epochs=1, eval_every=0, final_eval_deals=0, save_every=1))
    final = train(cfg, log=lambda *a: None)
    files = [final, final.with_name("latest.pt"), export_policy(final, tmp_path / "play.pt")]
    for f in files:
        data = torch.load(f, map_location="cpu", weights_only=True)
        assert data["format"] == "paohuzi-ppo-checkpoint-v1", f
        assert load_checkpoint(f, trust=False)["obs_version"] == data["obs_version"]
    assert "optimizer" in torch.load(files[1], weights_only=True)  # the resumable one


def test_no_committed_pt_beside_its_safetensors():
    """A network ships once: no committed ``NAME.pt`` sits beside a ``NAME.safetensors``."""
    import subprocess

    try:
        out = subprocess.run(["git", "ls-files", "*.pt", "*.safetensors"], cwd=ROOT,
                             capture_output=True, text=True, timeout=60)
    except FileNotFoundError:
        pytest.skip("git is not installed")
    if out.returncode != 0:
        pytest.skip("not a git checkout")
    files = {Path(f) for f in out.stdout.split()}
    assert {f.with_suffix(".safetensors") for f in files if f.suffix == ".pt"} & files == set()


def test_save_keeps_only_plain_data(tmp_path):
    base = {"rules": {"name": "huaihua", "overrides": {}}, "config": {}}
    with pytest.raises(TypeError, match=r"checkpoint\['extra'\] is a numpy.ndarray"):
        save_checkpoint(tmp_path / "a.pt", {**base, "extra": np.zeros(3)})
    with pytest.raises(TypeError, match=r"\['p'\] is a pathlib"):
        save_checkpoint(tmp_path / "a.pt", {**base, "extra": {"p": tmp_path}})
    assert not list(tmp_path.iterdir())  # nothing written, no temporary file left
    # numpy scalars (a mean taken with numpy) become the numbers they hold
    save_checkpoint(tmp_path / "b.pt", {**base, "x": np.float64(0.25), "n": [np.int64(3)]})
    data = torch.load(tmp_path / "b.pt", weights_only=True)
    assert data["x"] == 0.25 and type(data["x"]) is float and data["n"] == [3]


def test_safetensors_pair_is_checked(tmp_path):
    st = export_policy(SHIPPED / "distilled.safetensors", tmp_path / "p.safetensors")
    assert st == tmp_path / "p.safetensors" and sidecar_path(st).is_file()
    assert load_checkpoint(st, rules_name="huaihua")["policy_only"]
    with pytest.raises(ValueError, match="trained under rules 'huaihua'"):
        load_checkpoint(st, rules_name="classic")
    # another network's tensors under this sidecar: refused by its SHA-256
    other = export_policy(SHIPPED / "policy.safetensors", tmp_path / "q.safetensors")
    shutil.copy(other, st)
    with pytest.raises(ValueError, match="is not the tensors file its sidecar"):
        load_checkpoint(st)
    sidecar_path(st).unlink()
    with pytest.raises(ValueError, match="has no sidecar"):
        load_checkpoint(st)
    sidecar_path(st).write_text('{"format": "something else"}')
    with pytest.raises(ValueError, match="not a paohuzi policy sidecar"):
        load_checkpoint(st)
    with pytest.raises(ValueError, match="ends in .safetensors"):
        from paohuzi_training.nets.checkpoint import save_safetensors

        save_safetensors(tmp_path / "x.pt", {"model": {}})


def test_refused_unless_trusted(evil):
    path, marker = evil
    with pytest.raises(ValueError, match=rf"{REFUSED} to load \(io.open\).*--trust-checkpoint"):
        load_checkpoint(path)
    with pytest.raises(ValueError, match=REFUSED):
        make_agent(f"checkpoint:{path}", seed=0, rules="huaihua")
    with pytest.raises(ValueError, match=REFUSED):
        export_policy(path, path.with_name("out.pt"))
    assert not marker.exists()
    # the crafted file does what it says once trusted: this test can fail
    assert load_checkpoint(path, trust=True)["global_step"] > 0
    assert marker.exists()


def test_paohuzi_eval_refuses_it(evil, capsys):
    from paohuzi_training.eval.evaluate import main

    path, marker = evil
    args = [f"checkpoint:{path}", "--vs", "random", "--deals", "1", "--workers", "1", "--no-progress"]
    assert main(args) == 2
    assert REFUSED in capsys.readouterr().err
    assert not marker.exists()
    assert main(args + ["--trust-checkpoint"]) == 0
    assert marker.exists()


def test_paohuzi_serve_refuses_it(evil, capsys):
    pytest.importorskip("starlette")
    pytest.importorskip("uvicorn")
    from paohuzi_env.apps.cli import main

    path, marker = evil
    assert main(["serve", "--opponents", f"checkpoint:{path}", "random", "--port", "8999"]) == 2
    assert REFUSED in capsys.readouterr().err
    assert not marker.exists()


def test_paohuzi_play_refuses_it(evil, capsys, tmp_path):
    from paohuzi_env.apps.cli import main

    path, marker = evil
    assert main(["play", "--opponents", "random", f"checkpoint:{path}", "--hands", "1",
                 "--records", str(tmp_path / "rec")]) == 2
    assert REFUSED in capsys.readouterr().err
    assert not marker.exists()


def test_paohuzi_train_resume_refuses_it(evil, capsys, tmp_path, monkeypatch):
    from paohuzi_training.train import main

    path, marker = evil
    monkeypatch.chdir(tmp_path)
    assert main(["--config", str(ROOT / "configs" / "ppo-tiny.yaml"), "--resume", str(path)]) == 2
    assert REFUSED in capsys.readouterr().err
    assert not marker.exists()


def test_convert_an_old_file(tmp_path, capsys):
    """A checkpoint written before (numpy scalars inside: it needs numpy's pickled objects)
    is refused, then converted once with --trust-checkpoint and loads plainly from then on."""
    data = load_checkpoint(SHIPPED / "distilled.safetensors")
    data["eval_history"] = [{"step": np.int64(5), "mean": np.float64(0.5)}]
    old = tmp_path / "old.pt"
    torch.save(data, old)
    with pytest.raises(ValueError, match=REFUSED):
        load_checkpoint(old)
    assert checkpoint_main(["convert", str(old)]) == 2
    assert REFUSED in capsys.readouterr().err
    assert checkpoint_main(["convert", str(old), "--trust-checkpoint"]) == 0
    new = torch.load(old, weights_only=True)
    assert new["eval_history"] == [{"step": 5, "mean": 0.5}]
    assert new["model"].keys() == data["model"].keys()
    assert all(torch.equal(new["model"][k], v) for k, v in data["model"].items())
    with pytest.raises(ValueError, match="already safe"):
        convert_checkpoint(SHIPPED / "policy.safetensors")
