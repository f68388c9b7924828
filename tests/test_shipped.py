"""The shipped networks (``checkpoints/shipped/NAME.safetensors`` with their ``.json`` sidecars):
each loads through ``checkpoint:PATH`` and plays legal moves, and each is the network its ``.pt``
twin and its run's resume state held (both left HEAD after commit 0310807; their figures were
recorded then in tests/fixtures/removed_checkpoints.json). ``pure-network`` and
``yongzhou-residual`` left HEAD after commit ecba453: they are checked as that commit holds them
(tests/removed.py), where the history is at hand."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("safetensors")

from paohuzi_env.agents import make_agent  # noqa: E402
from paohuzi_env.game.engine import Game  # noqa: E402
from paohuzi_training.nets.checkpoint import load_checkpoint  # noqa: E402
from tests.removed import COMMIT, restore  # noqa: E402
from tests.removed import RECORDED as REMOVED  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = ROOT / "checkpoints" / "shipped"
RECORDED = json.loads((Path(__file__).parent / "fixtures" / "removed_checkpoints.json").read_text())
RESUMED_BY = {"policy": "ppo__1-latest.pt", "pure-network": "long__1-latest.pt",
              "yongzhou-residual": "yongzhou-residual__1-latest.pt"}
"""The shipped network -> the resume state of the run that made it (at commit 0310807)."""
LEFT = sorted(Path(n).stem for n in REMOVED["files"]
              if n.startswith("checkpoints/shipped/") and n.endswith(".safetensors"))
"""Shipped networks that left HEAD after commit ecba453."""


def _shipped(name: str, tmp_path: Path) -> Path:
    """``checkpoints/shipped/NAME.safetensors``: at HEAD, or as the commit that holds it has it."""
    path = SHIPPED / f"{name}.safetensors"
    if path.is_file() or name not in LEFT:
        return path
    got = restore(f"checkpoints/shipped/{name}.safetensors", tmp_path)
    if got is None:
        pytest.skip(f"{name} left HEAD after commit {COMMIT}; that history is not at hand")
    return got


def _digest(model: dict) -> str:
    """The SHA-256 of a network's tensors as tests/test_network_files.py takes it: the sorted
    names, each name's shape (JSON) and float32 bytes."""
    h = hashlib.sha256()
    for name in sorted(model):
        a = model[name].float().numpy()
        h.update(name.encode() + b"\0" + json.dumps(list(a.shape)).encode() + b"\0")
        h.update(np.ascontiguousarray(a, dtype="<f4").tobytes())
    return h.hexdigest()


def _plays_legal_hands(agent, rules: str, hands: int = 2) -> None:
    """``agent`` plays every seat of ``hands`` seeded hands to their end, legal moves only."""
    for seed in range(hands):
        g = Game(rules, seed=seed)
        while not g.done:
            a = agent(g.view(g.current_player))
            assert a in g.legal_actions()
            g.step(a)


def test_every_shipped_network_is_recorded():
    at_head = sorted(p.stem for p in SHIPPED.glob("*.safetensors"))
    assert LEFT == ["pure-network", "yongzhou-residual"] and not set(LEFT) & set(at_head)
    assert sorted(at_head + LEFT) == sorted(RECORDED["shipped"])


@pytest.mark.parametrize("name", sorted(RECORDED["shipped"]))
def test_shipped_network_is_its_pt_twin(name, tmp_path):
    """The ``.safetensors`` + ``.json`` holds what the ``.pt`` held: the same tensors (digest),
    counters and history, and ``checkpoint:PATH`` makes the same first 40 decisions with a
    choice on the recorded deals."""
    want = RECORDED["shipped"][name]
    rules = want["rules"]
    path = _shipped(name, tmp_path)
    data = load_checkpoint(path, rules=rules)
    assert data["policy_only"]
    assert _digest(data["model"]) == want["tensors"]
    for k in ("global_step", "iteration", "train_seconds"):
        assert data[k] == want[k], k
    history = json.dumps(data["eval_history"], sort_keys=True).encode()
    assert hashlib.sha256(history).hexdigest() == want["eval_history"]
    agent = make_agent(f"checkpoint:{path}", seed=0, rules=rules)
    got: list[int] = []
    for seed in range(50):
        g = Game(rules, seed=seed)
        while not g.done and len(got) < len(want["decisions"]):
            v = g.view(g.current_player)
            x = agent(v)
            if len(v.legal) > 1:
                got.append(x)
            g.step(x)
        if len(got) == len(want["decisions"]):
            break
    assert got == want["decisions"]


@pytest.mark.parametrize("name", sorted(RESUMED_BY))
def test_shipped_network_is_its_runs_resume_state(name, tmp_path):
    """A play-only export and its run's resumable state held the same network at the same step."""
    data = load_checkpoint(_shipped(name, tmp_path))
    state = RECORDED["resume"][RESUMED_BY[name]]
    assert data["global_step"] == state["global_step"]
    assert _digest(data["model"]) == state["network"]


def test_shipped_policy_loads_and_plays_legal_moves():
    path = SHIPPED / "policy.safetensors"
    data = load_checkpoint(path, rules_name="huaihua")
    assert data["policy_only"]
    assert data["config"]["prior"] == "expert"
    _plays_legal_hands(make_agent(f"checkpoint:{path}", seed=0), "huaihua")


def test_shipped_yongzhou_policy_plays_yongzhou_only(tmp_path):
    """The yongzhou residual agent (configs/history/ppo-yongzhou-residual.yaml) reads the 771-float
    paohuzi-obs-v2 observation, plays legal moves in hands with 王, and refuses huaihua."""
    path = _shipped("yongzhou-residual", tmp_path)
    data = load_checkpoint(path, rules_name="yongzhou")
    assert data["policy_only"] and data["config"]["rules"] == "yongzhou"
    assert data["config"]["prior"] == "expert"
    _plays_legal_hands(make_agent(f"checkpoint:{path}", seed=0, rules="yongzhou"), "yongzhou")
    with pytest.raises(ValueError, match="yongzhou"):
        make_agent(f"checkpoint:{path}", seed=0, rules="huaihua")


def test_shipped_pure_network_reads_its_observation_only(tmp_path):
    """The pure-network agent (configs/history/ppo-long.yaml) has no prior: it plays from the
    observation alone, legal moves only."""
    path = _shipped("pure-network", tmp_path)
    data = load_checkpoint(path, rules_name="huaihua")
    assert data["policy_only"] and data["config"]["prior"] == "none"
    agent = make_agent(f"checkpoint:{path}", seed=0)
    assert getattr(agent, "prior", None) is None
    _plays_legal_hands(agent, "huaihua")
