"""Same numbers: reorganising the trainer changes no result.

``tests/fixtures/same_numbers.json`` holds what the code gave before the trainer became stages:
the JSON of two fixed-seed evaluations of shipped agents (a ``checkpoint:`` network played
batched in torch, and a ``network:`` one with the AIVAT correction, which reads the packaged
value function), and the SHA-256 of the network that the smoke recipe exports (checked in
tests/test_recipe.py, which runs that recipe). The evaluations must come out field for field the
same (the wall clock left out; the value function's path by its file name). The ``checkpoint:``
evaluation was recorded with ``checkpoints/shipped/distilled.pt``; that file left the tree after
commit 0310807, and the fixture names its ``.safetensors`` twin (the same tensors), which gives
the same JSON.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from paohuzi_training.eval.evaluate import main as eval_main  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = json.loads((ROOT / "tests" / "fixtures" / "same_numbers.json").read_text(encoding="utf-8"))


def comparable(result: dict) -> dict:
    """An evaluation's JSON without what depends on the machine (its wall clock, the value
    function's absolute path)."""
    out = dict(result)
    out.pop("wall_seconds", None)
    vr = out.get("variance_reduction")
    if vr:
        out["variance_reduction"] = {**vr, "value_function": Path(vr["value_function"]).name}
    return out


@pytest.fixture
def two_threads():
    """torch on 2 threads, as when the numbers were recorded (a float sum's order follows them)."""
    old = torch.get_num_threads()
    torch.set_num_threads(FIXTURE["conditions"]["torch_threads"])
    yield
    torch.set_num_threads(old)


@pytest.mark.parametrize("case", FIXTURE["evaluations"], ids=lambda c: c["args"][0].split(":")[0])
def test_shipped_agents_evaluate_to_the_same_json(case, tmp_path, monkeypatch, two_threads):
    monkeypatch.chdir(ROOT)
    out = tmp_path / "eval.json"
    assert eval_main([*case["args"], "--workers", "1", "--no-progress", "--json", str(out)]) == 0
    assert comparable(json.loads(out.read_text(encoding="utf-8"))) == case["result"]


def test_comparable_drops_only_the_machine_fields():
    res = {"mean_points": 0.5, "wall_seconds": 3.0,
           "variance_reduction": {"method": "aivat", "value_function": "/a/b/chance-huaihua.safetensors"}}
    assert comparable(res) == {"mean_points": 0.5, "variance_reduction": {
        "method": "aivat", "value_function": "chance-huaihua.safetensors"}}
