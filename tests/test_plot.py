"""``python -m paohuzi_training.eval.plot``: the training curve with evaluations measured apart and a panel
of TensorBoard scalars; bad input is a clear error (exit 2), never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("matplotlib")
pytest.importorskip("tensorboard")

from paohuzi_training.eval import plot  # noqa: E402

CKPT = Path(__file__).resolve().parents[1] / "checkpoints/shipped/distilled.safetensors"


@pytest.fixture
def run_dir(tmp_path):
    from torch.utils.tensorboard import SummaryWriter

    w = SummaryWriter(str(tmp_path / "runs/x"))
    for step in (100, 300, 200):
        w.add_scalar("losses/kl_ref", step / 1000, step)
    w.close()
    return tmp_path / "runs/x"


def _eval_json(path: Path, mean: float) -> Path:
    path.write_text(json.dumps([{"mean_points": mean, "ci95": [mean - 0.1, mean + 0.1]}]))
    return path


def test_scalars_come_back_sorted_by_step(run_dir):
    got = plot.read_scalars(str(run_dir), ["losses/kl_ref"])
    assert got == {"losses/kl_ref": [(100, pytest.approx(0.1)), (200, pytest.approx(0.2)),
                                     (300, pytest.approx(0.3))]}


def test_a_missing_scalar_names_what_the_run_has(run_dir):
    with pytest.raises(ValueError, match=r"no scalar losses/nope; it has: losses/kl_ref"):
        plot.read_scalars(str(run_dir), ["losses/nope"])


def test_plot_with_evals_and_scalars_writes_a_png(run_dir, tmp_path, capsys):
    out = tmp_path / "c.png"
    e1 = _eval_json(tmp_path / "a.json", 0.2)
    rc = plot.main([str(CKPT), "--out", str(out), "--eval", "100", str(e1), "--eval-label",
                    "dev", "--tb", str(run_dir), "--scalars", "losses/kl_ref"])
    assert rc == 0 and out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert f"wrote {out}" in capsys.readouterr().out


@pytest.mark.parametrize("args, message", [
    (["--eval", "x", "{json}"], "STEP must be a whole number"),
    (["--eval", "5", "{bad}"], "not a paohuzi-eval result"),
    (["--eval", "5", "{missing}"], "cannot read it as JSON"),
    (["--tb", "{nodir}", "--scalars", "a"], "no such directory"),
])
def test_bad_input_is_a_clear_error(tmp_path, capsys, args, message):
    paths = {"json": str(_eval_json(tmp_path / "a.json", 0.0)),
             "bad": str(tmp_path / "b.json"), "missing": str(tmp_path / "none.json"),
             "nodir": str(tmp_path / "nodir")}
    (tmp_path / "b.json").write_text(json.dumps({"x": 1}))
    rc = plot.main([str(CKPT), "--out", str(tmp_path / "c.png")] + [a.format(**paths) for a in args])
    assert rc == 2 and message in capsys.readouterr().err


def test_tb_and_scalars_go_together(tmp_path):
    with pytest.raises(SystemExit) as e:
        plot.main([str(CKPT), "--tb", str(tmp_path)])
    assert e.value.code == 2
