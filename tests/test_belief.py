"""The belief head (config ``belief_coef``, issue 41): an auxiliary loss that makes the actor's
last hidden layer predict how many of each kind each opponent holds."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from paohuzi_env.agents import make_agent  # noqa: E402
from paohuzi_env.encode.state import state_extra  # noqa: E402
from paohuzi_env.game.cards import NUM_KINDS  # noqa: E402
from paohuzi_env.game.engine import Game  # noqa: E402
from paohuzi_training.config import make_config  # noqa: E402
from paohuzi_training.nets.checkpoint import export_policy, load_checkpoint  # noqa: E402
from paohuzi_training.nets.model import (  # noqa: E402
    BELIEF_CLASSES,
    BELIEF_SIZE,
    belief_loss,
    belief_targets,
    model_for,
)
from paohuzi_training.stages.ppo import ppo_update, train  # noqa: E402
from paohuzi_training.tools.bench import _random_batch  # noqa: E402


def _tiny(**kw):
    values = dict(run_name="b", total_steps=600, workers=1, games_per_worker=8,
                  steps_per_worker=500, hidden=32, minibatch_size=128, update_epochs=1,
                  opponent_bots={"greedy": 0.3}, snapshot_every=1, eval_every=0,
                  final_eval_deals=0, save_every=1, central_critic=True, belief_coef=0.5)
    values.update(kw)
    return make_config(values)


def test_belief_targets_are_each_opponents_hand_by_kind():
    """The targets read from ``state_extra`` are the copies of each kind in the hands of the next
    player (rel 1) and then the previous one (rel 2), counted here straight from the game."""
    game = Game(seed=11)
    rng = np.random.default_rng(0)
    for step in range(40):
        if game.done:
            break
        for seat in range(3):
            got = belief_targets(torch.from_numpy(state_extra(game, seat))).numpy()
            assert got.shape == (BELIEF_SIZE,)
            for r in (1, 2):
                hand = np.asarray(game.hands[(seat + r) % 3])
                assert got[NUM_KINDS * (r - 1): NUM_KINDS * r].tolist() == hand.tolist()
            if step == 0:  # the deal: each opponent holds 20 cards (21 for the dealer)
                assert {int(got[:NUM_KINDS].sum()), int(got[NUM_KINDS:].sum())} <= {20, 21}
        legal = game.legal_actions()
        game.step(legal[int(rng.integers(len(legal)))])


def test_belief_loss_by_hand():
    """Uniform logits cost log 5 on every target; a head sure of every right count costs ~0 and
    gets them all right."""
    extra = torch.zeros(3, 160)
    extra[:, :BELIEF_SIZE] = torch.tensor([0.0, 0.25, 0.5, 0.75, 1.0] * 8)
    loss, acc = belief_loss(torch.zeros(3, BELIEF_SIZE, BELIEF_CLASSES), extra)
    assert loss.item() == pytest.approx(np.log(5), rel=1e-6)
    sure = torch.nn.functional.one_hot(belief_targets(extra), BELIEF_CLASSES).float() * 50
    loss, acc = belief_loss(sure, extra)
    assert loss.item() < 1e-6 and acc.item() == 1.0


@pytest.mark.parametrize("actor", ["mlp", "conv"])
def test_the_belief_head_trains_and_never_changes_play(actor):
    """PPO's update lowers the belief loss on a batch it sees again (with belief_coef 0 the head
    would get no gradient and the loss would not move); the actor's logits are those of the
    same actor without the head."""
    cfg = _tiny(actor=actor, conv_channels=8, update_epochs=4, minibatch_size=64)
    model = model_for(cfg)
    assert model.belief is not None and model_for(_tiny(belief_coef=0.0)).belief is None
    batch = _random_batch(cfg, 128, np.random.default_rng(1))
    t = {k: torch.from_numpy(v) for k, v in batch.items()}

    def loss_now() -> float:
        with torch.no_grad():
            _, b = model.logits_and_belief(t["obs"], t["mask"])
            return belief_loss(b, t["extra"])[0].item()

    before = loss_now()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    rng = np.random.default_rng(0)
    for _ in range(10):
        stats = ppo_update(model, opt, batch, cfg, "cpu", rng)
    assert "belief_loss" in stats and 0 <= stats["belief_accuracy"] <= 1
    assert loss_now() < before - 0.05
    plain = model_for(_tiny(actor=actor, conv_channels=8, belief_coef=0.0))
    plain.load_state_dict({k: v for k, v in model.state_dict().items()
                           if not k.startswith("belief.")})
    with torch.no_grad():
        assert torch.equal(plain.masked_logits(t["obs"], t["mask"]),
                           model.logits_and_belief(t["obs"], t["mask"])[0])
    with pytest.raises(ValueError, match="no belief head"):
        plain.logits_and_belief(t["obs"], t["mask"])


def test_belief_config_errors():
    with pytest.raises(ValueError, match="belief_coef' > 0 needs central_critic"):
        _tiny(central_critic=False)
    with pytest.raises(ValueError, match="belief_coef' must be >= 0"):
        _tiny(belief_coef=-1.0)


def test_a_run_with_a_belief_head_starts_from_a_network_without_one(tmp_path, monkeypatch):
    """init_from a network without the head (the recipes' ``start``): the head starts fresh;
    the checkpoint keeps it, a play-only export leaves it out, and both play."""
    monkeypatch.chdir(tmp_path)
    plain = train(_tiny(run_name="p", belief_coef=0.0), log=lambda *a: None)
    final = train(_tiny(init_from=str(plain)), log=lambda *a: None)
    data = load_checkpoint(final)
    assert "belief.weight" in data["model"]
    game = Game(seed=4)
    view = game.view(game.current_player)
    assert make_agent(f"checkpoint:{final}", seed=0)(view) in game.legal_actions()
    net = export_policy(final, tmp_path / "n.safetensors", actor_only=True)
    assert make_agent(f"network:{net}", seed=0)(view) in game.legal_actions()
