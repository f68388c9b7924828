"""Distillation from the search's labels and PPO with a KL penalty toward the distilled network
(issue 26): targets computed by hand, the config checks, the resumable phase, and the whole tiny
recipe (labels -> distill -> PPO with KL -> evaluation), which CI runs in the default suite."""

from __future__ import annotations

import math

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from paohuzi_env import fast  # noqa: E402
from paohuzi_training.config import kl_coef_at  # noqa: E402
from paohuzi_training.eval.evaluate import evaluate  # noqa: E402
from paohuzi_training.nets.checkpoint import load_checkpoint  # noqa: E402
from paohuzi_training.nets.model import ActorCritic  # noqa: E402
from paohuzi_training.recipe import make_config  # noqa: E402
from paohuzi_training.stages import distill as distill_stage  # noqa: E402
from paohuzi_training.stages.distill import (  # noqa: E402
    STATE_NAME,
    _losses,
    departures,
    soft_targets,
    start_log_probs,
    value_target,
)
from paohuzi_training.stages.label import LabelConfig, label  # noqa: E402
from paohuzi_training.stages.ppo import ppo_update  # noqa: E402
from paohuzi_training.train import train  # noqa: E402

needs_core = pytest.mark.skipif(not fast.available(), reason="the search needs the compiled core")


def test_soft_targets_by_hand():
    mean = np.full((2, 61), np.nan, np.float32)
    mask = np.zeros((2, 61), bool)
    # row 0: actions 3 and 7 played out (means 1 and 3 points), 9 legal but never played out
    mask[0, [3, 7, 9]] = True
    mean[0, 3], mean[0, 7] = 1.0, 3.0
    # row 1: a win taken at once: nothing played out, all mass on the chosen action
    mask[1, [58, 59]] = True
    out = soft_targets(mean, mask, np.array([7, 59]), temperature=1.0)
    e = math.exp(-2.0)  # softmax([1, 3]) = [e^-2, 1] / (1 + e^-2)
    assert out[0, 3] == pytest.approx(e / (1 + e))
    assert out[0, 7] == pytest.approx(1 / (1 + e))
    assert out[0, 9] == 0 and out[0].sum() == pytest.approx(1.0)
    assert out[1, 59] == 1.0 and out[1].sum() == 1.0
    # a higher temperature flattens: T = 2 gives softmax([0.5, 1.5])
    out2 = soft_targets(mean[:1], mask[:1], np.array([7]), temperature=2.0)
    assert out2[0, 3] == pytest.approx(math.exp(-1) / (1 + math.exp(-1)))
    with pytest.raises(ValueError, match="temperature"):
        soft_targets(mean, mask, np.array([7, 59]), temperature=0.0)


class _Table(torch.nn.Module):
    """A network whose logits are a fixed table, row ``obs[:, 0]``; value 0."""

    def __init__(self, table):
        super().__init__()
        self.table = torch.nn.Parameter(torch.tensor(table, dtype=torch.float32))

    def masked_logits(self, obs, mask, prior=None):
        full = torch.zeros(len(obs), 61)
        full[:, :4] = self.table[obs[:, 0].long()]
        return torch.where(mask, full, torch.tensor(-1e9))

    def value(self, obs, extra=None):
        return torch.zeros(len(obs)) + 0 * self.table.sum()


def test_departures_and_their_weight_by_hand():
    """A departure is a label whose action is not the starting network's masked argmax; the
    policy losses weight it by ``distill_departure_weight`` (issue 41). Row probabilities over
    the four legal actions: [1/6, 3/6, 1/6, 1/6], [1/5, 1/5, 2/5, 1/5], [2/5, 1/5, 1/5, 1/5]."""
    ln = math.log
    model = _Table([[0, ln(3), 0, 0], [0, 0, ln(2), 0], [ln(2), 0, 0, 0]])
    obs = torch.tensor([[0.0], [1.0], [2.0]])
    mask = torch.zeros(3, 61, dtype=torch.bool)
    mask[:, :4] = True
    action = torch.tensor([1, 3, 0])  # the argmax, not it (2 is), the argmax
    assert departures(model, obs, mask, action, batch=2).tolist() == [False, True, False]
    soft = torch.nn.functional.one_hot(action, 61).float()
    value = torch.zeros(3)
    # cross-entropies of the taken actions: ln 2, ln 5, ln(5/2)
    plain = _losses(model, obs, mask, soft, action, value)
    assert plain["hard_ce"].item() == pytest.approx((ln(2) + ln(5) + ln(2.5)) / 3, rel=1e-5)
    weighted = _losses(model, obs, mask, soft, action, value, torch.tensor([1.0, 4.0, 1.0]))
    want = (ln(2) + 4 * ln(5) + ln(2.5)) / 6
    assert weighted["hard_ce"].item() == pytest.approx(want, rel=1e-5)
    assert weighted["soft_ce"].item() == pytest.approx(want, rel=1e-5)
    with pytest.raises(ValueError, match="distill_departure_weight"):
        make_config({"distill_departure_weight": 0})


def test_the_anchor_is_the_kl_from_the_start_by_hand():
    """``anchor_kl`` is KL(start || network) over the legal actions, a mean over rows: 0 against
    the network's own start, and by hand against a uniform start. Row probabilities as above."""
    ln = math.log
    model = _Table([[0, ln(3), 0, 0], [0, 0, ln(2), 0], [ln(2), 0, 0, 0]])
    obs = torch.tensor([[0.0], [1.0], [2.0]])
    mask = torch.zeros(3, 61, dtype=torch.bool)
    mask[:, :4] = True
    action = torch.tensor([1, 3, 0])
    soft, value = torch.nn.functional.one_hot(action, 61).float(), torch.zeros(3)
    own = start_log_probs(model, obs, mask, batch=2)
    assert own[0, 1].item() == pytest.approx(ln(1 / 2), rel=1e-6) and own[0, 4:].abs().sum() == 0
    assert _losses(model, obs, mask, soft, action, value, anchor=own)["anchor_kl"].item() == \
        pytest.approx(0.0, abs=1e-6)
    uniform = torch.where(mask, torch.tensor(ln(1 / 4)), torch.tensor(0.0))
    # KL(uniform || p) = sum_i 1/4 (ln 1/4 - ln p_i) per row
    rows = [[1 / 6, 3 / 6, 1 / 6, 1 / 6], [1 / 5, 1 / 5, 2 / 5, 1 / 5], [2 / 5, 1 / 5, 1 / 5, 1 / 5]]
    want = sum(sum(0.25 * (ln(0.25) - ln(q)) for q in r) for r in rows) / 3
    got = _losses(model, obs, mask, soft, action, value, anchor=uniform)["anchor_kl"].item()
    assert got == pytest.approx(want, rel=1e-5)
    with pytest.raises(ValueError, match="distill_anchor"):
        make_config({"distill_anchor": -0.5})


def test_the_anchor_holds_the_start_where_the_labels_repeat_it(monkeypatch, tmp_path):
    """The same distillation with and without ``distill_anchor``: labels that repeat the start's
    move on two states and depart from it on the third. Both learn the departure; the anchored
    network stays nearer its start (a smaller KL from the start's policy)."""
    ln = math.log
    n = 300
    obs = np.tile(np.array([[0.0], [1.0], [2.0]], np.float32), (n, 1))
    action = np.tile(np.array([1, 3, 0]), n)  # the start's argmax, a departure, the argmax
    mask = np.zeros((3 * n, 61), bool)
    mask[:, :4] = True
    data = {"obs": obs, "mask": mask, "action": action,
            "soft": np.eye(61, dtype=np.float32)[action], "value": np.zeros(3 * n, np.float32),
            "held": np.zeros(3 * n, bool)}
    monkeypatch.setattr(distill_stage, "load_targets", lambda dirs, cfg: data)
    table = [[0, ln(3), 0, 0], [0, 0, ln(2), 0], [ln(2), 0, 0, 0]]
    got = {}
    for coef in (0.0, 1.0):
        cfg = make_config({"distill_labels": ["unused"], "total_steps": 0, "distill_epochs": 3,
                           "distill_soft": 0.0, "distill_learning_rate": 0.05,
                           "minibatch_size": 64, "distill_anchor": coef})
        model = _Table(table)
        start = start_log_probs(model, torch.as_tensor(obs[:3]), torch.as_tensor(mask[:3]))
        opt = torch.optim.Adam(model.parameters(), lr=cfg.distill_learning_rate)
        distill_stage.distill(model, opt, cfg, "cpu", np.random.default_rng(0), lambda *a: None,
                              folder=tmp_path / f"a{coef}", start_network="the table")
        after = start_log_probs(model, torch.as_tensor(obs[:3]), torch.as_tensor(mask[:3]))
        assert after[1, :4].argmax().item() == 3, coef  # the departure is learned
        got[coef] = float((start.exp() * (start - after)).sum())
    assert got[1.0] < 0.5 * got[0.0]
    cfg = make_config({"distill_labels": ["unused"], "total_steps": 0, "distill_anchor": 1.0})
    with pytest.raises(ValueError, match="give a start network"):
        distill_stage.distill(_Table(table), torch.optim.Adam(_Table(table).parameters()), cfg,
                              "cpu", np.random.default_rng(0), lambda *a: None,
                              folder=tmp_path / "none", start_network="")


def test_value_targets_follow_the_reward_mode():
    pts = np.array([-128, -10, 0, 32, 200])
    assert value_target(pts, "normalized").tolist() == pytest.approx([-1.0, -10 / 64, 0, 0.5, 1.0])
    assert value_target(pts, "score").tolist() == [-128, -10, 0, 32, 200]
    assert value_target(pts, "win").tolist() == [-1, -1, 0, 1, 1]


def test_distill_and_kl_settings_are_checked():
    ok = {"distill_labels": ["x"], "total_steps": 0}
    assert make_config(ok).total_steps == 0  # distillation alone
    with pytest.raises(ValueError, match="total_steps"):
        make_config({"total_steps": 0})
    with pytest.raises(ValueError, match="central_critic"):
        make_config({**ok, "central_critic": True})
    with pytest.raises(ValueError, match="prior"):
        make_config({**ok, "prior": "expert", "prior_weight": 4.0})
    with pytest.raises(ValueError, match="distill_soft"):
        make_config({**ok, "distill_soft": 1.5})
    with pytest.raises(ValueError, match="distill_temperature"):
        make_config({**ok, "distill_temperature": 0})
    with pytest.raises(ValueError, match="kl_coef"):
        make_config({"kl_coef": -1})
    # distillation may start from a trained network (tested in the tiny recipe below)
    assert make_config({**ok, "init_from": "a.pt"}).init_from == "a.pt"


def test_kl_coefficient_decays_linearly():
    cfg = make_config({"kl_coef": 0.4, "kl_decay_steps": 1000})
    assert kl_coef_at(cfg, 0) == 0.4
    assert kl_coef_at(cfg, 250) == pytest.approx(0.3)
    assert kl_coef_at(cfg, 1000) == 0.0 and kl_coef_at(cfg, 5000) == 0.0
    assert kl_coef_at(make_config({"kl_coef": 0.4}), 10**9) == 0.4  # no decay


def _batch(n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    mask = rng.random((n, 61)) < 0.2
    mask[:, 0] = True
    action = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
    return {"obs": rng.random((n, 64), dtype=np.float32), "mask": mask, "action": action,
            "logp": np.full(n, -1.0, np.float32), "adv": rng.standard_normal(n).astype(np.float32),
            "ret": rng.standard_normal(n).astype(np.float32),
            "value": np.zeros(n, np.float32), "prior": np.zeros(n, np.int64)}


def test_the_kl_penalty_holds_the_policy_near_its_reference():
    """The same PPO updates with and without the penalty: the KL to the reference is 0 at the
    start, reported, and smaller with the penalty than without it."""
    rng = np.random.default_rng(0)
    batch = _batch(256, rng)
    cfg = make_config({"minibatch_size": 64, "update_epochs": 4, "target_kl": None,
                       "learning_rate": 3e-3})
    kls = {}
    for coef in (0.0, 5.0):
        torch.manual_seed(0)
        model = ActorCritic(hidden=32, obs_size=64)
        ref = ActorCritic(hidden=32, obs_size=64)
        ref.load_state_dict(model.state_dict())
        ref.requires_grad_(False)
        opt = torch.optim.Adam(model.parameters(), lr=cfg.learning_rate)
        for _ in range(5):
            stats = ppo_update(model, opt, batch, cfg, "cpu", np.random.default_rng(1), ref, coef)
        kls[coef] = stats["kl_ref"]
        assert stats["kl_coef"] == coef
    assert kls[5.0] < kls[0.0]


@needs_core
def test_tiny_recipe_labels_distill_ppo_with_kl_and_evaluation(tmp_path, monkeypatch):
    """The CI run of the whole recipe, in seconds: labels from the search, distillation
    (resumed for one more epoch from its saved state), PPO from the distilled network with the
    KL penalty and a central critic, and a duplicate-deal evaluation of the result."""
    monkeypatch.chdir(tmp_path)
    lab = LabelConfig(hands=12, search="search:samples=4,playouts=32", shard_hands=6, seed=3)
    got = label(lab, tmp_path / "labels", workers=1, progress=False)
    assert got["labels"] > 50
    base = dict(run_name="d", seed=1, total_steps=0, workers=1, hidden=32, minibatch_size=128,
                distill_labels=[str(tmp_path / "labels")], distill_epochs=2,
                distill_holdout=0.2, eval_every=0, final_eval_deals=0, save_records=0)
    lines: list[str] = []
    final = train(make_config(base), log=lambda *a: lines.append(" ".join(map(str, a))))
    assert any("2 epochs (soft target: softmax of the search's mean points at temperature 1, "
               "weight 0.5)" in s for s in lines), lines
    state = load_checkpoint(tmp_path / "checkpoints" / "d__1" / STATE_NAME)
    assert state["epoch"] == 2 and len(state["history"]) == 2
    h = state["history"][-1]
    assert 0 <= h["heldout_agreement"] <= 1 and h["heldout_value_loss"] >= 0
    assert h["train_soft_ce"] > 0
    assert (tmp_path / "runs" / "d__1").is_dir()
    # one more epoch: continues from the saved state rather than starting again
    lines.clear()
    train(make_config({**base, "distill_epochs": 3}), log=lambda *a: lines.append(" ".join(map(str, a))))
    assert any("resumed" in s and "after epoch 2" in s for s in lines)
    assert load_checkpoint(tmp_path / "checkpoints" / "d__1" / STATE_NAME)["epoch"] == 3
    # distillation from a trained network (init_from): with a negligible learning rate its
    # actor is still that network's after an epoch
    lines.clear()
    again = train(make_config({**base, "run_name": "d2", "distill_epochs": 1,
                               "init_from": str(final), "distill_learning_rate": 1e-12}),
                  log=lambda *a: lines.append(" ".join(map(str, a))))
    assert any(s.startswith(f"start {final}") and "actor loaded, critic loaded" in s for s in lines), lines
    w0 = load_checkpoint(final)["model"]["actor.0.weight"]
    w1 = load_checkpoint(again)["model"]["actor.0.weight"]
    assert torch.allclose(w0, w1, atol=1e-6)
    # the conv actor, cloned from expert first (bc_steps), then distilled; a rerun reuses the
    # fitted clone and continues the distillation
    conv = {**base, "run_name": "c", "actor": "conv", "conv_channels": 8, "bc_steps": 300,
            "bc_epochs": 1, "distill_epochs": 1}
    lines.clear()
    cfin = train(make_config(conv), log=lambda *a: lines.append(" ".join(map(str, a))))
    assert any("behaviour cloning epoch 1" in s for s in lines), lines
    assert (tmp_path / "checkpoints" / "c__1" / "bc-model.pt").is_file()
    lines.clear()
    train(make_config({**conv, "distill_epochs": 2}), log=lambda *a: lines.append(" ".join(map(str, a))))
    assert any("the clone fitted earlier" in s for s in lines), lines
    assert not any("behaviour cloning epoch" in s for s in lines)
    assert any("resumed" in s and "after epoch 1" in s for s in lines)
    assert "actor.conv.0.weight" in load_checkpoint(cfin)["model"]
    res = evaluate(f"checkpoint:{cfin}", "greedy", deals=2, seed=0, workers=1, progress=False)
    assert res["games"] == 6
    # PPO from it: actor loaded, central critic fresh, the KL to the reference reported
    ppo = make_config(dict(run_name="p", seed=1, total_steps=600, workers=1, games_per_worker=4,
                           steps_per_worker=300, hidden=32, minibatch_size=128, update_epochs=1,
                           central_critic=True, init_from=str(final), kl_coef=0.5,
                           kl_decay_steps=10_000, opponent_bots={"expert": 0.5},
                           eval_every=0, final_eval_deals=0, save_records=0))
    lines.clear()
    out = train(ppo, log=lambda *a: lines.append(" ".join(map(str, a))))
    assert any("actor loaded, critic fresh" in s for s in lines)
    data = load_checkpoint(out)
    distilled = load_checkpoint(final)["model"]
    assert "kl_ref" in data and torch.equal(data["kl_ref"]["actor.0.weight"],
                                            distilled["actor.0.weight"])
    res = evaluate(f"checkpoint:{out}", "greedy", deals=2, seed=0, workers=1, progress=False)
    assert res["games"] == 6


@needs_core
def test_tiny_recipe_under_yongzhou(tmp_path, monkeypatch):
    """Issue 26 item 5: the recipe under ``yongzhou`` (two 王, observation v2): labels from the
    search, a conv actor cloned from expert then distilled, exported for the core, and played by
    ``network:`` and ``checkpoint:`` with the same results (the PPO phase is the one tested
    above; ``configs/recipes/yongzhou.yaml`` is the full-size run)."""
    from paohuzi_training.nets.checkpoint import export_policy
    from paohuzi_training.stages.label import load_labels

    monkeypatch.chdir(tmp_path)
    lab = LabelConfig(hands=6, search="search:samples=4,playouts=32", shard_hands=3, seed=3,
                      rules="yongzhou")
    got = label(lab, tmp_path / "labels", workers=1, progress=False)
    assert got["labels"] > 30
    data = load_labels(tmp_path / "labels")
    assert data["obs"].shape[1] == 771  # paohuzi-obs-v2
    cfg = make_config(dict(run_name="y", seed=1, rules="yongzhou", total_steps=0, workers=1,
                           hidden=32, minibatch_size=128, actor="conv", conv_channels=8,
                           bc_steps=300, bc_epochs=1, distill_labels=[str(tmp_path / "labels")],
                           distill_epochs=1, distill_holdout=0.2, eval_every=0,
                           final_eval_deals=0, save_records=0))
    lines: list[str] = []
    final = train(cfg, log=lambda *a: lines.append(" ".join(map(str, a))))
    assert any("behaviour cloning epoch 1" in s for s in lines), lines
    assert any("distill epoch 1/1" in s for s in lines), lines
    export_policy(final, tmp_path / "y.safetensors")
    a = evaluate(f"network:{tmp_path / 'y.safetensors'}", "greedy", deals=2, seed=0, workers=1,
                 progress=False, rules="yongzhou")
    b = evaluate(f"checkpoint:{final}", "greedy", deals=2, seed=0, workers=1, progress=False,
                 rules="yongzhou")
    assert a["rules"] == "yongzhou" and a["games"] == 6
    assert (a["mean_points"], a["ci95"], a["win_rate"]) == (b["mean_points"], b["ci95"],
                                                            b["win_rate"])


def test_conv_actor_reads_the_per_kind_blocks():
    """KIND_ROWS are the observation's per-kind blocks (paohuzi_env/encode/observation.py's table):
    checked on a real observation against the view it encodes; the conv actor lays kind k of a
    row at channel 2 * row + (k >= 10), position k % 10, and handles the prior and batches."""
    from paohuzi_env.encode.observation import encode
    from paohuzi_env.game.engine import Game
    from paohuzi_training.nets.model import KIND_ROWS, KindConvActor

    assert len(KIND_ROWS) == 29 and all(len(r) == 20 for r in KIND_ROWS)
    assert len({i for r in KIND_ROWS for i in r}) == 580  # no index twice
    g = Game("huaihua", seed=4)
    rng = np.random.default_rng(0)
    while sum(len(d) for d in g.view(0).discards) < 4:  # random play until discards show
        legal = g.legal_actions()
        g.step(legal[int(rng.integers(len(legal)))])
    assert not g.done
    v = g.view(g.current_player)
    x = encode(v)
    hand = list(v.hand)
    assert sum(hand) > 0
    for j in range(4):  # the own hand's levels: more than j copies
        assert x[KIND_ROWS[j]].tolist() == [float(c > j) for c in hand]
    for rel in range(3):  # each seat's discard area, count / 4
        seat = (v.seat + rel) % 3
        counts = np.bincount(np.asarray(v.discards[seat], int), minlength=20) / 4
        assert x[KIND_ROWS[4 + 6 * rel + 5]].tolist() == pytest.approx(counts.tolist())
    assert any(len(d) for d in v.discards)
    liang = [0.0] * 20
    liang[v.liang] = 1.0
    assert x[KIND_ROWS[-2]].tolist() == liang
    net = KindConvActor(763, hidden=8, channels=4)
    obs = torch.zeros(2, 763)
    obs[0, KIND_ROWS[5][13]] = 1.0  # row 5, kind 13: big 4 -> channel 11, position 3
    k = obs[..., net.rows].reshape(-1, 58, 10)
    assert k[0, 11, 3] == 1.0 and float(k.sum()) == 1.0
    assert net(obs).shape == (2, 61)
    with_prior = ActorCritic(hidden=8, prior="expert", prior_weight=2.0, actor="conv",
                             conv_channels=4)
    logits = with_prior.masked_logits(obs, torch.ones(2, 61, dtype=torch.bool),
                                      torch.tensor([3, 5]))
    assert logits.shape == (2, 61)
    with pytest.raises(ValueError, match="mlp or conv"):
        ActorCritic(actor="resnet")
    with pytest.raises(ValueError, match="actor"):
        make_config({"actor": "resnet"})


def test_agreement_tool_fits_each_actor(capsys):
    from paohuzi_training.tools.agreement import main

    main(["--decisions", "300", "--held", "100", "--epochs", "1", "--actors", "mlp:8", "conv:8:2"])
    out = capsys.readouterr().out
    assert "300 expert decisions to fit, 100 held out" in out
    assert "mlp:8" in out and "conv:8:2" in out and out.count("held-out agreement") == 2
    with pytest.raises(SystemExit):
        main(["--actors", "mlp:8:2"])


def test_conv_actor_convolution_is_conv1d():
    """KindConvActor's matrix-product convolution gives nn.Conv1d's numbers."""
    from paohuzi_training.nets.model import KindConvActor, _conv3

    torch.manual_seed(0)
    net = KindConvActor(763, hidden=8, channels=6)
    h = torch.randn(5, 58, 10)
    for layer in net.conv:
        if isinstance(layer, torch.nn.Conv1d):
            assert torch.allclose(_conv3(h, layer), layer(h), atol=1e-5)
            h = torch.relu(layer(h))
