"""``python -m paohuzi_training.nets.checkpoint widen``: a wider actor that computes the same logits
(issue 41's wider-actor trial starts from one)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from paohuzi_env.agents import make_agent  # noqa: E402
from paohuzi_env.game.engine import Game  # noqa: E402
from paohuzi_training.nets.checkpoint import load_checkpoint, main, save_safetensors, widen_policy  # noqa: E402
from paohuzi_training.nets.model import model_for  # noqa: E402
from paohuzi_training.nets.policy import model_from_checkpoint  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = ROOT / "checkpoints" / "shipped" / "distilled.safetensors"
"""A trained conv network, hidden 512 (play-only: no critic)."""


def _tiny(tmp_path, actor: str) -> Path:
    cfg = {"actor": actor, "hidden": 24, "conv_channels": 8, "central_critic": True,
           "critic_hidden": 16, "wait_features": True, "rules": "huaihua"}
    torch.manual_seed(3)
    model = model_for(cfg)
    with torch.no_grad():  # a trained network's last layer is not near zero
        for p in model.parameters():
            p.normal_(0.0, 0.3)
    return save_safetensors(tmp_path / f"{actor}.safetensors", {
        "model": model.state_dict(), "config": cfg,
        "rules": {"name": "huaihua", "overrides": {}}})


def _logits(path: Path, x: torch.Tensor) -> torch.Tensor:
    with torch.no_grad():
        return model_from_checkpoint(load_checkpoint(path)).actor(x)


@pytest.mark.parametrize("actor", ["mlp", "conv"])
def test_widening_keeps_every_logit_and_the_critic(tmp_path, actor):
    src = _tiny(tmp_path, actor)
    dst = widen_policy(src, tmp_path / "wide.safetensors", 40, seed=5)
    a, b = load_checkpoint(src), load_checkpoint(dst)
    assert b["config"]["hidden"] == 40 and b["config"]["widened_from"] == {"hidden": 24, "seed": 5}
    wide = [v for k, v in b["model"].items() if k.startswith("actor") and k.endswith("weight")]
    assert any(40 in v.shape for v in wide)
    for k, v in a["model"].items():
        if k.startswith("critic."):
            assert torch.equal(v, b["model"][k]), k
    x = torch.rand(64, model_from_checkpoint(a).in_size)
    la, lb = _logits(src, x), _logits(dst, x)
    assert torch.allclose(la, lb, atol=1e-5), (la - lb).abs().max()
    # the new units are live (they change once their zero outgoing weights are trained) ...
    new = b["model"][[k for k in b["model"] if k.endswith("weight") and k.startswith("actor")
                      and b["model"][k].shape[0] == 40][0]][24:]
    assert new.abs().sum() > 0
    # ... and a different seed draws them differently, the same seed the same
    again = load_checkpoint(widen_policy(src, tmp_path / "again.safetensors", 40, seed=5))
    other = load_checkpoint(widen_policy(src, tmp_path / "other.safetensors", 40, seed=6))
    assert all(torch.equal(v, again["model"][k]) for k, v in b["model"].items())
    assert not all(torch.equal(v, other["model"][k]) for k, v in b["model"].items())


@pytest.mark.skipif(not SHIPPED.is_file(), reason="the shipped networks are not in this tree")
def test_a_widened_shipped_network_plays_the_same_moves_in_the_core(tmp_path):
    dst = widen_policy(SHIPPED, tmp_path / "wide.safetensors", 640, seed=0)
    assert load_checkpoint(dst)["config"]["hidden"] == 640
    for seed in range(3):
        game = Game(seed=seed)
        plain = make_agent(f"network:{SHIPPED}", seed=0)
        wide = make_agent(f"network:{dst}", seed=0)
        while not game.done:
            view = game.view(game.current_player)
            a = plain(view)
            assert wide(view) == a
            game.step(a)


def test_widen_errors(tmp_path, capsys):
    src = _tiny(tmp_path, "mlp")
    with pytest.raises(ValueError, match="wider than the actor's 24"):
        widen_policy(src, tmp_path / "w.safetensors", 24)
    assert main(["widen", str(src), str(tmp_path / "w.safetensors"), "--hidden", "16"]) == 2
    assert "wider than" in capsys.readouterr().err
    assert main(["widen", str(src), str(tmp_path / "w.safetensors"), "--hidden", "32"]) == 0
    assert np.isfinite(load_checkpoint(tmp_path / "w.safetensors")["model"]["actor.0.weight"]
                       .numpy()).all()


def test_widening_an_oracle_guided_network_keeps_its_logits_with_the_cards(tmp_path):
    """An oracle layer (config ``oracle_steps``) feeds the first hidden layer: widened, the new
    units read none of the cards and the logits with the oracle input stay the same."""
    cfg = {"actor": "conv", "hidden": 24, "conv_channels": 8, "central_critic": True,
           "critic_hidden": 16, "rules": "huaihua", "oracle_steps": 100}
    torch.manual_seed(4)
    model = model_for(cfg)
    with torch.no_grad():
        for p in model.parameters():
            p.normal_(0.0, 0.3)
    src = save_safetensors(tmp_path / "o.safetensors", {
        "model": model.state_dict(), "config": cfg, "rules": {"name": "huaihua", "overrides": {}}})
    b = load_checkpoint(widen_policy(src, tmp_path / "wide.safetensors", 40, seed=1))
    assert b["model"]["oracle.weight"].shape == (40, model.extra_size)
    wide = model_from_checkpoint(b)
    x, extra = torch.rand(32, model.in_size), torch.rand(32, model.extra_size)
    mask = torch.ones(32, 61, dtype=torch.bool)
    with torch.no_grad():
        assert torch.allclose(model.masked_logits(x, mask, oracle=extra),
                              wide.masked_logits(x, mask, oracle=extra), atol=1e-5)
