"""The committed checkpoints: the shipped policy loads and plays legal moves; the resumable state
is the same network."""

from __future__ import annotations

from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from paohuzi_env.agents import make_agent  # noqa: E402
from paohuzi_env.game.engine import Game  # noqa: E402
from paohuzi_training.nets.checkpoint import load_checkpoint  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = ROOT / "checkpoints" / "shipped" / "policy.pt"
RESUME = ROOT / "checkpoints" / "resume" / "ppo__1-latest.pt"


def _plays_legal_hands(agent, rules: str, hands: int = 2) -> None:
    """``agent`` plays every seat of ``hands`` seeded hands to their end, legal moves only."""
    for seed in range(hands):
        g = Game(rules, seed=seed)
        while not g.done:
            a = agent(g.view(g.current_player))
            assert a in g.legal_actions()
            g.step(a)


def _same_network(policy: dict, resume: dict) -> None:
    """A play-only export and a resumable state hold the same network at the same step."""
    assert resume["global_step"] == policy["global_step"]
    assert policy["model"].keys() == resume["model"].keys()
    assert all(torch.equal(policy["model"][k], resume["model"][k]) for k in policy["model"])


def test_shipped_policy_loads_and_plays_legal_moves():
    data = load_checkpoint(SHIPPED, rules_name="huaihua")
    assert data["policy_only"]
    assert data["config"]["prior"] == "expert"
    agent = make_agent(f"checkpoint:{SHIPPED}", seed=0)
    _plays_legal_hands(agent, "huaihua")


def test_resumable_state_is_the_shipped_network():
    shipped = load_checkpoint(SHIPPED)
    resume = load_checkpoint(RESUME, rules_name="huaihua")
    assert not resume.get("policy_only") and resume["snapshots"] == []
    _same_network(shipped, resume)


YONGZHOU = ROOT / "checkpoints" / "shipped" / "yongzhou-residual.pt"
YONGZHOU_RESUME = ROOT / "checkpoints" / "resume" / "yongzhou-residual__1-latest.pt"


def test_shipped_yongzhou_policy_plays_yongzhou_only():
    """The yongzhou residual agent (configs/history/ppo-yongzhou-residual.yaml) reads the 771-float
    paohuzi-obs-v2 observation, plays legal moves in hands with 王, and refuses huaihua."""
    data = load_checkpoint(YONGZHOU, rules_name="yongzhou")
    assert data["policy_only"] and data["config"]["rules"] == "yongzhou"
    assert data["config"]["prior"] == "expert"
    agent = make_agent(f"checkpoint:{YONGZHOU}", seed=0, rules="yongzhou")
    _plays_legal_hands(agent, "yongzhou")
    with pytest.raises(ValueError, match="yongzhou"):
        make_agent(f"checkpoint:{YONGZHOU}", seed=0, rules="huaihua")
    resume = load_checkpoint(YONGZHOU_RESUME, rules_name="yongzhou")
    _same_network(data, resume)


PURE = ROOT / "checkpoints" / "shipped" / "pure-network.pt"
PURE_RESUME = ROOT / "checkpoints" / "resume" / "long__1-latest.pt"


def test_shipped_pure_network_reads_its_observation_only():
    """The pure-network agent (configs/history/ppo-long.yaml) has no prior: it plays from the
    observation alone, legal moves only, and is the network of the committed resumable state."""
    data = load_checkpoint(PURE, rules_name="huaihua")
    assert data["policy_only"] and data["config"]["prior"] == "none"
    agent = make_agent(f"checkpoint:{PURE}", seed=0)
    assert getattr(agent, "prior", None) is None
    _plays_legal_hands(agent, "huaihua")
    resume = load_checkpoint(PURE_RESUME, rules_name="huaihua")
    _same_network(data, resume)
