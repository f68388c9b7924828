"""Oracle guiding (config ``oracle_steps``, issue 41; Suphx): during PPO the actor also reads the
full-information features, each kept with a probability falling from 1 to 0, and ends training
reading none of them."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from paohuzi_env import fast  # noqa: E402
from paohuzi_env.agents import make_agent  # noqa: E402
from paohuzi_env.game.engine import Game  # noqa: E402
from paohuzi_training.config import oracle_keep_at  # noqa: E402
from paohuzi_training.nets.checkpoint import export_policy, load_checkpoint  # noqa: E402
from paohuzi_training.nets.model import model_for  # noqa: E402
from paohuzi_training.recipe import make_config  # noqa: E402
from paohuzi_training.stages.rollout import Rollout  # noqa: E402
from paohuzi_training.train import train  # noqa: E402


def _tiny(**kw):
    values = dict(run_name="o", total_steps=600, workers=1, games_per_worker=8,
                  steps_per_worker=500, hidden=32, minibatch_size=128, update_epochs=1,
                  opponent_bots={"greedy": 0.3}, snapshot_every=1, eval_every=0,
                  final_eval_deals=0, save_every=1, central_critic=True, oracle_steps=400)
    values.update(kw)
    return make_config(values)


def test_the_keep_probability_falls_from_one_to_zero():
    """1 - step / oracle_steps, never below 0; 0 throughout when oracle guiding is off."""
    cfg = _tiny(total_steps=1000, oracle_steps=800)
    assert [oracle_keep_at(cfg, s) for s in (0, 200, 400, 800, 5000)] == [1.0, 0.75, 0.5, 0.0, 0.0]
    assert oracle_keep_at(_tiny(oracle_steps=0), 0) == 0.0


def test_oracle_config_errors():
    with pytest.raises(ValueError, match="oracle_steps' > 0 needs central_critic"):
        _tiny(central_critic=False)
    with pytest.raises(ValueError, match=r"oracle_steps' must be in \[0, total_steps\]"):
        _tiny(oracle_steps=601)
    with pytest.raises(ValueError, match=r"oracle_steps' must be in \[0, total_steps\]"):
        _tiny(oracle_steps=-1)
    with pytest.raises(ValueError, match="belief_coef' is no longer a trainer key"):
        _tiny(belief_coef=0.1)  # the belief head was removed
    assert model_for(_tiny(oracle_steps=0)).oracle is None


@pytest.mark.parametrize("actor", ["mlp", "conv"])
def test_the_oracle_layer_starts_silent_and_then_reads_the_cards(actor):
    """A fresh oracle layer is zero: the logits with any oracle input are those without. With
    weights, the input moves them, and all-zero input (keep 0) still leaves them as without; a
    network trained without oracle guiding refuses the input."""
    cfg = _tiny(actor=actor, conv_channels=8)
    model = model_for(cfg)
    assert model.oracle is not None and float(model.oracle_keep) == 1.0
    rng = np.random.default_rng(0)
    obs = torch.from_numpy(rng.random((16, model.in_size), np.float32))
    mask = torch.ones(16, 61, dtype=torch.bool)
    extra = torch.from_numpy(rng.random((16, model.extra_size), np.float32))
    with torch.no_grad():
        plain = model.masked_logits(obs, mask)
        assert torch.equal(model.masked_logits(obs, mask, oracle=extra), plain)
        torch.nn.init.normal_(model.oracle.weight)
        assert not torch.allclose(model.masked_logits(obs, mask, oracle=extra), plain)
        assert torch.equal(model.masked_logits(obs, mask, oracle=torch.zeros_like(extra)), plain)
    with pytest.raises(ValueError, match="not trained with oracle guiding"):
        model_for(_tiny(oracle_steps=0, actor=actor, conv_channels=8)).masked_logits(
            obs, mask, oracle=extra)


@pytest.mark.skipif(not fast.available(), reason="the compiled core is not built")
@pytest.mark.parametrize("keep", [1.0, 0.5, 0.0])
def test_the_rollouts_store_what_the_actor_read(keep):
    """Each stored oracle feature is the full-information feature or 0, about ``keep`` of the
    nonzero ones kept; the stored log-probabilities are those of the actor reading exactly the
    stored input (so PPO's ratios start at 1), and differ from the actor reading none."""
    cfg = _tiny(backend="fast")
    roll = Rollout(cfg, np.random.SeedSequence(3))
    state = roll.model.state_dict()
    state["oracle.weight"] = torch.randn(state["oracle.weight"].shape,
                                         generator=torch.Generator().manual_seed(0))
    state["oracle_keep"] = torch.tensor(keep)
    roll.set_weights(state)
    b = roll.collect(300)
    extra, oracle = b["extra"], b["oracle"]
    assert oracle.shape == extra.shape and extra.shape[1] == roll.model.extra_size
    assert np.all((oracle == extra) | (oracle == 0))
    live = extra != 0
    kept = float((oracle[live] != 0).mean())
    assert kept == pytest.approx(keep, abs=0.03)
    t = {k: torch.from_numpy(v) for k, v in b.items() if isinstance(v, np.ndarray)}
    with torch.no_grad():
        logp = roll.model.evaluate(t["obs"], t["mask"], t["action"], t["extra"], t["prior"],
                                   oracle=t["oracle"])[0]
        blind = roll.model.evaluate(t["obs"], t["mask"], t["action"], t["extra"], t["prior"])[0]
    assert torch.allclose(logp, t["logp"], atol=1e-5)
    if keep > 0:
        assert not torch.allclose(blind, t["logp"], atol=1e-3)
    else:
        assert torch.allclose(blind, t["logp"], atol=1e-5)


def test_a_run_weans_the_actor_off_the_cards(tmp_path, monkeypatch):
    """From a network without oracle guiding (a recipe's ``start``): the oracle layer starts at
    zero and learns in the first iteration (keep 1), the second iteration shows nothing (keep 0
    after 400 of its 500-step iterations), and the final network plays through ``checkpoint:``
    and, exported without the layer, through ``network:``."""
    monkeypatch.chdir(tmp_path)
    plain = train(_tiny(run_name="p", oracle_steps=0), log=lambda *a: None)
    lines: list[str] = []
    final = train(_tiny(init_from=str(plain)), log=lambda *a: lines.append(" ".join(map(str, a))))
    data = load_checkpoint(final)
    assert float(data["model"]["oracle_keep"]) == 0.0
    assert data["model"]["oracle.weight"].abs().sum() > 0  # it learnt from the cards
    game = Game(seed=4)
    view = game.view(game.current_player)
    assert make_agent(f"checkpoint:{final}", seed=0)(view) in game.legal_actions()
    net = export_policy(final, tmp_path / "n.safetensors", actor_only=True)
    assert make_agent(f"network:{net}", seed=0)(view) in game.legal_actions()


@pytest.mark.skipif(not fast.available(), reason="the compiled core is not built")
def test_ppo_recomputes_the_probabilities_the_rollouts_sampled_with():
    """On batches collected with the cards half shown (the second batch opens with the first
    one's carry), PPO's first pass recomputes exactly the stored log-probabilities: its ratios
    are 1 (no clipping, approximate KL 0); it logs the share of the cards shown. Reading the
    full features instead of the stored input would move the ratios."""
    from paohuzi_training.stages.ppo import ppo_update

    cfg = _tiny(backend="fast", update_epochs=1, minibatch_size=4096, target_kl=None,
                learning_rate=0.0)
    roll = Rollout(cfg, np.random.SeedSequence(5))
    state = roll.model.state_dict()
    state["oracle.weight"] = 4 * torch.randn(state["oracle.weight"].shape,
                                             generator=torch.Generator().manual_seed(1))
    state["oracle_keep"] = torch.tensor(0.5)
    roll.set_weights(state)
    model = model_for(cfg)
    model.load_state_dict(state)
    opt = torch.optim.Adam(model.parameters(), lr=0.0)
    for _ in range(2):
        b = roll.collect(257)
        batch = {k: v for k, v in b.items() if isinstance(v, np.ndarray)}
        stats = ppo_update(model, opt, batch, cfg, "cpu", np.random.default_rng(0))
        assert abs(stats["approx_kl"]) < 1e-7 and stats["clipfrac"] == 0.0
        assert stats["oracle_shown"] == pytest.approx(0.5, abs=0.03)
        wrong = dict(batch, oracle=batch["extra"])
        stats = ppo_update(model, opt, wrong, cfg, "cpu", np.random.default_rng(0))
        assert stats["approx_kl"] > 1e-4
