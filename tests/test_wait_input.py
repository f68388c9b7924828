"""Networks that read the wait features (issue 26; config ``wait_features``): the label runs store
them and ``--add-waits`` rebuilds them for older runs; a network without them is widened into one
with them that computes exactly what it did; and the recipe (clone, distill, PPO, export, play in
the core and through torch) runs with them. The features themselves are checked against their
readable reference in tests/test_features.py."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from paohuzi_env import fast  # noqa: E402
from paohuzi_env.encode.features import WAIT_FEATURES, wait_features  # noqa: E402
from paohuzi_env.encode.observation import obs_size  # noqa: E402
from paohuzi_training.eval.evaluate import evaluate  # noqa: E402
from paohuzi_training.nets.checkpoint import export_policy, load_checkpoint  # noqa: E402
from paohuzi_training.nets.model import ActorCritic, network_input, widen_for_waits  # noqa: E402
from paohuzi_training.recipe import make_config  # noqa: E402
from paohuzi_training.stages.label import (  # noqa: E402
    LabelConfig,
    check_labels,
    iter_shards,
    label,
    load_labels,
    main,
    replay,
)
from paohuzi_training.train import train  # noqa: E402

pytestmark = pytest.mark.skipif(not fast.available(), reason="needs the compiled core")


def _write_shard(p: Path, d: dict) -> None:
    """Write shard ``d`` (as :func:`iter_shards` reads it) to ``p`` without its ``waits``, as a
    run written before they were stored."""
    buf = io.BytesIO()
    np.savez_compressed(buf, **{k: v for k, v in d.items() if k not in ("waits", "meta")},
                        meta=np.asarray(json.dumps(d["meta"])))
    p.write_bytes(buf.getvalue())


def _strip_waits(out: Path) -> None:
    """Rewrite every shard of a run without its ``waits``."""
    for p, d in iter_shards(out):
        _write_shard(p, d)


def test_labels_store_the_wait_features_and_add_waits_rebuilds_them(tmp_path, capsys):
    """Each label row holds the wait features of its position (the Python reference's, on the
    rebuilt hand); a run without them refuses ``load_labels(waits=True)`` with the command that
    adds them, and that command restores exactly the stored features."""
    cfg = LabelConfig(hands=4, search="search:samples=2,playouts=8", shard_hands=2, seed=9,
                      seats=(0,), others="expert")
    label(cfg, tmp_path / "l", workers=1, progress=False)
    meta = json.loads((tmp_path / "l" / "labels.json").read_text())
    stored = load_labels(tmp_path / "l", waits=True)["waits"]
    assert stored.shape == (len(load_labels(tmp_path / "l")["action"]), WAIT_FEATURES)
    assert "waits" not in load_labels(tmp_path / "l")  # only when asked for
    checked = 0
    for _, sh in iter_shards(tmp_path / "l"):
        for r, game in replay(meta, sh):
            view = game.view(game.current_player)
            np.testing.assert_array_equal(sh["waits"][r], wait_features(view, "huaihua"))
            checked += 1
    assert checked == len(stored) and stored.any()
    _strip_waits(tmp_path / "l")
    with pytest.raises(ValueError, match="--add-waits"):
        load_labels(tmp_path / "l", waits=True)
    assert main([str(tmp_path / "l"), "--add-waits", "--no-progress"]) == 0
    assert "to 2 shard(s)" in capsys.readouterr().err
    np.testing.assert_array_equal(load_labels(tmp_path / "l", waits=True)["waits"], stored)
    assert check_labels(tmp_path / "l") == len(stored)
    assert main([str(tmp_path / "l"), "--add-waits", "--no-progress"]) == 0  # nothing to do
    assert "to 0 shard(s)" in capsys.readouterr().err
    assert main([str(tmp_path / "none"), "--add-waits"]) == 2
    assert "not a label run" in capsys.readouterr().err


def test_a_label_whose_position_does_not_replay_is_refused(tmp_path):
    """--add-waits checks each row's observation against the rebuilt position: a shard whose
    actions were edited is refused, not given features of another position."""
    cfg = LabelConfig(hands=2, search="search:samples=2,playouts=8", shard_hands=2, seed=4)
    label(cfg, tmp_path / "l", workers=1, progress=False)
    (p, d), = list(iter_shards(tmp_path / "l"))
    d["obs"] = d["obs"].copy()
    d["obs"][3, 0] += 1.0  # an observation no replayed position has
    _write_shard(p, d)
    assert main([str(tmp_path / "l"), "--add-waits", "--no-progress"]) == 2


@pytest.mark.parametrize("actor,central,prior", [("conv", False, "none"), ("mlp", True, "none"),
                                                 ("conv", True, "expert"), ("mlp", False, "greedy")])
def test_widened_network_computes_what_it_did(actor, central, prior):
    """widen_for_waits: the new inputs' weights are zero, so the widened network's logits and
    value equal the original's whatever the wait features hold (the prior's one-hot and the
    critic's full-information features keep their weights)."""
    torch.manual_seed(0)
    kw = dict(hidden=24, central_critic=central, prior=prior, prior_weight=0.5, actor=actor,
              conv_channels=6)
    old = ActorCritic(**kw)
    for p in old.parameters():  # biases too: every weight matters
        torch.nn.init.normal_(p, 0.0, 0.3)
    new = ActorCritic(**kw, waits=True)
    with pytest.raises(RuntimeError):  # the shapes differ: loading as is cannot work
        new.load_state_dict(old.state_dict())
    new.load_state_dict(widen_for_waits(old.state_dict(), new))
    g = torch.Generator().manual_seed(1)
    n = obs_size("huaihua")
    obs = (torch.rand(16, n, generator=g) < 0.1).float()
    waits = torch.rand(16, WAIT_FEATURES, generator=g)
    mask = torch.ones(16, 61, dtype=torch.bool)
    pr = None if prior == "none" else torch.randint(0, 61, (16,), generator=g)
    extra = torch.rand(16, old.extra_size, generator=g) if central else None
    x = torch.from_numpy(network_input(new, obs.numpy(), waits.numpy()))
    assert x.shape == (16, n + WAIT_FEATURES) and new.in_size == n + WAIT_FEATURES
    with torch.no_grad():
        torch.testing.assert_close(new.masked_logits(x, mask, pr), old.masked_logits(obs, mask, pr))
        torch.testing.assert_close(new.value(x, extra), old.value(obs, extra))
    with pytest.raises(ValueError, match="wait features"):
        network_input(new, obs.numpy(), None)
    assert network_input(old, obs.numpy(), None) is not None
    with pytest.raises(ValueError, match="does not read wait features"):
        widen_for_waits(old.state_dict(), old)
    # a central critic's first layer does not fit a plain critic once widened: left as it was
    # (init_from then starts that critic fresh)
    central = ActorCritic(hidden=24, central_critic=True).state_dict()
    wide = widen_for_waits(central, ActorCritic(hidden=24, waits=True))
    assert wide["critic.0.weight"] is central["critic.0.weight"]
    assert wide["actor.0.weight"].shape == (24, n + WAIT_FEATURES)


def test_tiny_recipe_with_wait_features(tmp_path, monkeypatch):
    """The recipe with ``wait_features``: a network without them (cloned, distilled) is widened by
    ``init_from`` (it plays exactly as before), distilled again on the labels' stored features,
    fine-tuned by PPO (rollouts and its KL reference read them), exported, and played by the
    core (``network:``) and through torch (``checkpoint:``) with the same results."""
    monkeypatch.chdir(tmp_path)
    lab = LabelConfig(hands=6, search="search:samples=4,playouts=32", shard_hands=3, seed=3)
    got = label(lab, tmp_path / "labels", workers=1, progress=False)
    assert got["labels"] > 30
    base = dict(seed=1, total_steps=0, workers=1, hidden=32, minibatch_size=128, actor="conv",
                conv_channels=8, distill_labels=[str(tmp_path / "labels")], distill_epochs=1,
                distill_holdout=0.2, eval_every=0, final_eval_deals=0, save_records=0)
    lines: list[str] = []

    def log(*a):
        lines.append(" ".join(map(str, a)))

    plain = train(make_config({**base, "run_name": "a", "bc_steps": 300, "bc_epochs": 1}), log=log)
    # widened, with a negligible learning rate: it still plays exactly as the plain network
    same = train(make_config({**base, "run_name": "b", "wait_features": True, "init_from":
                              str(plain), "distill_learning_rate": 1e-12}), log=log)
    assert any("their weights start at zero" in s for s in lines), lines
    a = evaluate(f"checkpoint:{plain}", "greedy", deals=3, seed=0, workers=1, progress=False)
    b = evaluate(f"checkpoint:{same}", "greedy", deals=3, seed=0, workers=1, progress=False)
    assert (a["mean_points"], a["ci95"]) == (b["mean_points"], b["ci95"])
    # cloned from expert with the features, distilled, then PPO with the KL penalty
    lines.clear()
    final = train(make_config({**base, "run_name": "c", "wait_features": True, "bc_steps": 300,
                               "bc_epochs": 1, "total_steps": 400, "games_per_worker": 4,
                               "steps_per_worker": 200, "update_epochs": 1, "kl_coef": 0.5,
                               "opponent_bots": {"expert": 0.5}}), log=log)
    assert any("behaviour cloning epoch 1" in s for s in lines), lines
    assert any("distill epoch 1/1" in s for s in lines), lines
    model = load_checkpoint(final)["model"]
    assert model["actor.conv.0.weight"].shape[1] == 2 * (29 + 4)
    with pytest.raises(ValueError, match="set wait_features: true"):
        train(make_config({**base, "run_name": "d", "init_from": str(final)}), log=log)
    export_policy(final, tmp_path / "w.safetensors")
    x = evaluate(f"network:{tmp_path / 'w.safetensors'}", "expert", deals=3, seed=0, workers=1,
                 progress=False)
    y = evaluate(f"checkpoint:{final}", "expert", deals=3, seed=0, workers=1, progress=False)
    assert x["games"] == 9
    assert (x["mean_points"], x["ci95"], x["win_rate"]) == (y["mean_points"], y["ci95"],
                                                            y["win_rate"])
