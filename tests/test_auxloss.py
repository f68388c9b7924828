"""PPO's auxiliary loss toward a search's labelled decisions (``aux_coef``; stages/auxloss.py):
the weighted cross-entropy computed by hand, departures weighted, the loss pulling the policy
toward the labels inside ``ppo_update``, the config checks, a recipe reading its own labels, and
a tiny PPO run with it. Also the shape the trainer keeps: ``PPOConfig`` at most 35 fields and
the PPO module at most 400 lines."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from paohuzi_env import fast  # noqa: E402
from paohuzi_training.config import PPOConfig  # noqa: E402
from paohuzi_training.nets.model import ActorCritic, model_for  # noqa: E402
from paohuzi_training.recipe import flat_config, load_recipe, make_config  # noqa: E402
from paohuzi_training.stages.auxloss import aux_loss, aux_targets  # noqa: E402
from paohuzi_training.stages.distill import departures  # noqa: E402
from paohuzi_training.stages.label import LabelConfig, label  # noqa: E402
from paohuzi_training.stages.ppo import ppo_update  # noqa: E402
from paohuzi_training.train import train  # noqa: E402
from tests.test_distill import _batch, _Table  # noqa: E402  (the fixed-table network, a PPO batch)

needs_core = pytest.mark.skipif(not fast.available(), reason="the labels need the compiled core")
ROOT = Path(__file__).resolve().parents[1]


def test_the_auxiliary_loss_by_hand():
    """Row probabilities over the four legal actions: [1/6, 3/6, 1/6, 1/6], [1/5, 1/5, 2/5, 1/5],
    [2/5, 1/5, 1/5, 1/5]; the search chose 1, 3 and 0: cross-entropies ln 2, ln 5, ln(5/2); the
    second row (a departure: the argmax is 2) weighted 4."""
    ln = math.log
    model = _Table([[0, ln(3), 0, 0], [0, 0, ln(2), 0], [ln(2), 0, 0, 0]])
    mask = torch.zeros(3, 61, dtype=torch.bool)
    mask[:, :4] = True
    aux = {"obs": torch.tensor([[0.0], [1.0], [2.0]]), "mask": mask,
           "action": torch.tensor([1, 3, 0]), "weight": torch.tensor([1.0, 4.0, 1.0])}
    ce, agree = aux_loss(model, aux, torch.tensor([0, 1, 2]))
    assert ce.item() == pytest.approx((ln(2) + 4 * ln(5) + ln(2.5)) / 6, rel=1e-5)
    assert agree.item() == pytest.approx(2 / 3)
    # rows drawn twice count twice: rows 1, 1 alone give ln 5
    ce, agree = aux_loss(model, aux, torch.tensor([1, 1]))
    assert ce.item() == pytest.approx(ln(5), rel=1e-5) and agree.item() == 0.0


def test_the_auxiliary_loss_pulls_the_policy_toward_the_labels():
    """The same PPO updates with aux_coef 0 and 5: the labels' cross-entropy falls further, and
    the agreement with them rises higher, with the loss on; both are reported."""
    rng = np.random.default_rng(0)
    batch = _batch(256, rng)
    lab = _batch(300, rng)
    aux = {"obs": torch.as_tensor(lab["obs"]), "mask": torch.as_tensor(lab["mask"]),
           "action": torch.as_tensor(lab["action"]), "weight": torch.ones(300)}
    got = {}
    for coef in (0.0, 5.0):
        cfg = make_config({"minibatch_size": 64, "update_epochs": 4, "target_kl": None,
                           "learning_rate": 3e-3, "aux_coef": coef, "aux_labels": ["unused"]}).ppo
        torch.manual_seed(0)
        model = ActorCritic(hidden=32, obs_size=64)
        opt = torch.optim.Adam(model.parameters(), lr=cfg.learning_rate)
        for _ in range(5):
            stats = ppo_update(model, opt, batch, cfg, "cpu", np.random.default_rng(1), aux=aux)
        assert {"aux_ce", "aux_agreement"} <= set(stats)
        with torch.no_grad():
            got[coef] = aux_loss(model, aux, torch.arange(300))
    assert got[5.0][0] < got[0.0][0] - 0.2
    assert got[5.0][1] > got[0.0][1]


def test_the_auxiliary_loss_settings_are_checked():
    with pytest.raises(ValueError, match="'aux_coef' > 0 needs 'aux_labels'"):
        make_config({"aux_coef": 0.5})
    with pytest.raises(ValueError, match="'aux_coef' must be >= 0"):
        make_config({"aux_coef": -1.0, "aux_labels": ["x"]})
    with pytest.raises(ValueError, match="'aux_departure_weight' > 0"):
        make_config({"aux_departure_weight": 0.0})
    with pytest.raises(ValueError, match="aux_labels' must be a list of label directories"):
        make_config({"aux_labels": [""]})
    with pytest.raises(ValueError, match="needs prior: none"):
        make_config({"aux_coef": 0.5, "aux_labels": ["x"], "prior": "expert"})
    cfg = make_config({"aux_coef": 0.5, "aux_labels": ["x"], "aux_departure_weight": 3})
    assert (cfg.ppo.aux.aux_coef, cfg.ppo.aux.aux_labels, cfg.ppo.aux.aux_departure_weight) == \
        (0.5, ["x"], 3.0)


def test_the_trainer_keeps_its_shape():
    """PPO's keys only, at most 35 fields (the league and the auxiliary loss are sections); the
    PPO module at most 400 lines."""
    assert len(dataclasses.fields(PPOConfig)) <= 35
    lines = (ROOT / "paohuzi_training" / "stages" / "ppo.py").read_text(encoding="utf-8")
    assert len(lines.splitlines()) <= 400


def test_a_recipe_with_labels_reads_them_for_the_auxiliary_loss(tmp_path, monkeypatch):
    src = ROOT / "configs" / "recipes" / "quickstart.yaml"
    text = src.read_text(encoding="utf-8").replace("\nppo:\n", "\nppo:\n  aux_coef: 0.25\n", 1)
    p = tmp_path / "aux.yaml"
    p.write_text(text, encoding="utf-8")
    r = load_recipe(str(p))
    assert flat_config(r, "ppo").ppo.aux.aux_labels == ["labels"]
    assert flat_config(load_recipe(str(src)), "ppo").ppo.aux.aux_coef == 0.0
    # the PPO stage then reads the labels: new labels make it run again (its inputs' digests)
    from paohuzi_training.recipe import _ckpt, _inputs

    monkeypatch.chdir(tmp_path)
    distilled = Path(_ckpt("distill", r.seed))
    distilled.parent.mkdir(parents=True)
    distilled.write_bytes(b"a network")
    (tmp_path / "labels").mkdir()
    assert set(_inputs(r, "ppo")) == {str(distilled), "labels"}
    before = _inputs(r, "ppo")["labels"]
    (tmp_path / "labels" / "labels.json").write_text("{}", encoding="utf-8")
    assert _inputs(r, "ppo")["labels"] != before
    assert set(_inputs(load_recipe(str(src)), "ppo")) == {str(distilled)}


@needs_core
def test_a_tiny_ppo_run_with_the_auxiliary_loss(tmp_path, monkeypatch):
    """Labels from the search, then PPO from a fresh network with the auxiliary loss: the log
    names the labels and the departures, which are the labelled decisions where the search
    chose another action than the start network's argmax, weighted as configured."""
    monkeypatch.chdir(tmp_path)
    got = label(LabelConfig(hands=6, search="search:samples=4,playouts=32", shard_hands=3, seed=5),
                tmp_path / "labels", workers=1, progress=False)
    assert got["labels"] > 20
    values = dict(run_name="a", seed=1, total_steps=600, workers=1, games_per_worker=4,
                  steps_per_worker=300, hidden=32, minibatch_size=128, update_epochs=1,
                  aux_coef=0.5, aux_labels=[str(tmp_path / "labels")], aux_departure_weight=3.0,
                  eval_every=0, final_eval_deals=0, save_records=0)
    cfg = make_config(values).ppo
    torch.manual_seed(0)
    model = model_for(cfg)
    lines: list[str] = []
    t = aux_targets(cfg, model, "cpu", log=lines.append)
    dep = departures(model, t["obs"], t["mask"], t["action"])
    assert len(t["action"]) == got["labels"]
    assert torch.equal(t["weight"], torch.where(dep, torch.tensor(3.0), torch.tensor(1.0)))
    assert f"{got['labels']:,} labelled decisions" in lines[0] and \
        f"{int(dep.sum()):,} departures" in lines[0]
    lines.clear()
    out = train(make_config(values), log=lambda *a: lines.append(" ".join(map(str, a))))
    assert out.name == "final.pt"
    aux_lines = [s for s in lines if "auxiliary loss (aux_coef 0.5)" in s]
    assert len(aux_lines) == 1, lines
    # a resumed run counts the departures from the network PPO started from, not from the
    # network it resumes: the same weights, so the same run as one that never stopped
    lines.clear()
    train(make_config({**values, "total_steps": 900}), resume=str(out),
          log=lambda *a: lines.append(" ".join(map(str, a))))
    assert [s for s in lines if "auxiliary loss" in s] == aux_lines
