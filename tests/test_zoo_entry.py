"""``python -m paohuzi_training.tools.zoo_entry``: a recipe run becomes a zoo entry with its card,
and ``export --half`` (the zoo's float16 storage) plays as its float32 widening (issue 62)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest
import safetensors.numpy

torch = pytest.importorskip("torch")

from paohuzi_env.agents.network import load_network  # noqa: E402
from paohuzi_env.agents.zoo_index import _scan  # noqa: E402
from paohuzi_env.encode.observation import obs_size  # noqa: E402
from paohuzi_env.game.rules import get_rules  # noqa: E402
from paohuzi_training.eval.evaluate import evaluate  # noqa: E402
from paohuzi_training.nets.checkpoint import export_policy, main, save_safetensors  # noqa: E402
from paohuzi_training.nets.model import model_for  # noqa: E402
from paohuzi_training.tools.zoo_entry import make_entry  # noqa: E402


def _run(tmp_path: Path, rules: str = "classic") -> Path:
    """A finished recipe run in miniature: an export and the records of its stages."""
    cfg = {"actor": "conv", "hidden": 24, "conv_channels": 8, "central_critic": True,
           "critic_hidden": 16, "wait_features": True, "rules": rules}
    torch.manual_seed(5)
    model = model_for(cfg)
    with torch.no_grad():
        for p in model.parameters():
            p.normal_(0.0, 0.3)
    run = tmp_path / "run"
    save_safetensors(run / "export" / f"{rules}.safetensors", {
        "model": model.state_dict(), "config": cfg, "rules": {"name": rules, "overrides": {}}})
    for stage, seconds, settings in (("ppo", 600.0, {"total_steps": 4096, "workers": 0,
                                                     "start": "/x/zoo/huaihua/a/network.safetensors"}),
                                     ("evaluate", 60.0, {"deals": 5})):
        (run / stage).mkdir()
        (run / stage / "stage.json").write_text(json.dumps(
            {"stage": stage, "seconds": seconds, "settings": settings}))
    return run


def test_an_entry_is_the_runs_actor_in_half_with_a_card_that_describes_it(tmp_path):
    run = _run(tmp_path)
    zoo = tmp_path / "zoo"
    folder = make_entry(run, Path("configs/recipes/classic.yaml"), "t1", "a test", half=True,
                        default=True, commit="abc1234", zoo=zoo)
    assert folder == zoo / "classic" / "t1"
    (entry,) = _scan(zoo)
    card = entry.card
    assert (entry.name, entry.default, entry.spec) == ("classic/t1", True, "zoo:classic")
    blob = entry.weights.read_bytes()
    raw = safetensors.numpy.load(blob)
    assert sorted(raw) == sorted(k for k in model_for({"actor": "conv", "hidden": 24,
                                                       "conv_channels": 8, "wait_features": True,
                                                       "rules": "classic"}).state_dict()
                                 if k.startswith("actor."))
    assert {v.dtype for v in raw.values()} == {np.dtype(np.float16)}
    assert card["weights"] == {**card["weights"], "sha256": hashlib.sha256(blob).hexdigest(),
                               "bytes": len(blob), "dtype": "float16"}
    assert card["parameters"] == sum(v.size for v in raw.values())
    assert card["architecture"]["inputs"] == obs_size(get_rules("classic")) + 80
    # 600 s on one process per core (2) and 60 s on 2: (20 + 2) / 60 hours
    assert card["compute"]["cpu_hours"] == round((10 * 2 + 1 * 2) / 60, 1) == 0.4
    assert card["compute"]["stages"][0] == {"stage": "PPO, 4,096 steps", "wall_minutes": 10.0,
                                            "cores": 2}
    assert card["made_by"]["commit"] == "abc1234"
    assert card["made_by"]["started_from"].startswith("zoo:huaihua/a ")
    assert card["strength"] == []


def test_a_half_copy_plays_as_its_float32_widening(tmp_path):
    run = _run(tmp_path)
    src = run / "export" / "classic.safetensors"
    half = export_policy(src, tmp_path / "h.safetensors", actor_only=True, half=True)
    full = load_network(src)
    net = load_network(half)
    for k, v in net.tensors.items():
        assert v.dtype == np.float32
        assert np.array_equal(v, full.tensors[k].astype(np.float16).astype(np.float32)), k


def test_half_needs_actor_only(tmp_path, capsys):
    run = _run(tmp_path)
    src = run / "export" / "classic.safetensors"
    with pytest.raises(ValueError, match="--actor-only"):
        export_policy(src, tmp_path / "h.safetensors", half=True)
    assert main(["export", str(src), str(tmp_path / "h.safetensors"), "--half"]) == 2
    assert "--actor-only" in capsys.readouterr().err


def test_the_cards_figures_are_the_results_files(tmp_path):
    run = _run(tmp_path)
    zoo = tmp_path / "zoo"
    folder = make_entry(run, Path("r.yaml"), "t1", "a test", half=True, default=True,
                        commit="abc1234", zoo=zoo)
    spec = f"network:{folder / 'network.safetensors'}"
    got = evaluate(spec, "expert", deals=2, seed=7, workers=1, progress=False, rules="classic")
    got.pop("rows")
    got["seed"] = 7
    results = tmp_path / "results.json"
    command = "paohuzi-eval zoo:classic --vs expert --rules classic --deals 2 --seed 7"
    results.write_text(json.dumps({"commands": [command], "network_vs_expert": got}))
    make_entry(run, Path("r.yaml"), "t1", "a test", half=True, default=True, commit="abc1234",
               results=results, zoo=zoo)
    (fig,) = json.loads((folder / "card.json").read_text())["strength"]
    assert (fig["candidate"], fig["against"], fig["command"]) == ("network", "expert", command)
    assert (fig["mean"], fig["ci95"], fig["deals"], fig["seed"]) == (
        got["mean_points"], got["ci95"], 2, 7)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"commands": [command], "network_vs_expert": {**got, "rules": "zipai"}}))
    with pytest.raises(ValueError, match="rules 'zipai'"):
        make_entry(run, Path("r.yaml"), "t1", "a test", results=bad, zoo=zoo, commit="abc1234")


def test_an_untrained_transfer_is_the_network_under_the_presets_rules(tmp_path):
    """``--network zoo:huaihua --rules classic``: the same actor (in half), its sidecar's rules
    classic, no compute of its own; a network of another observation is refused before anything
    is written."""
    from paohuzi_env.agents import zoo as shipped

    zoo = tmp_path / "zoo"
    src = shipped.network_path("huaihua")
    folder = make_entry(None, Path("configs/recipes/classic.yaml"), "t", "a transfer", half=True,
                        default=True, commit="abc1234", zoo=zoo, network=src, rules="classic")
    net = load_network(folder / "network.safetensors")
    assert net.rules.name == "classic"
    own = load_network(src)
    for k, v in net.tensors.items():
        assert np.array_equal(v, own.tensors[k].astype(np.float16).astype(np.float32)), k
    side = json.loads((folder / "network.json").read_text())
    assert side["transfer_from"] == {"rules": "huaihua", "network": "zoo:huaihua/gen3-r4-oracle"}
    card = json.loads((folder / "card.json").read_text())
    assert card["compute"] == {**card["compute"], "cpu_hours": 0.0, "stages": []}
    assert card["made_by"]["started_from"] == "zoo:huaihua/gen3-r4-oracle"
    assert "--network zoo:huaihua/gen3-r4-oracle --rules classic" in card["made_by"]["command"]
    with pytest.raises(ValueError, match="reads paohuzi-obs-v2; rules 'classic' produce paohuzi-obs-v1"):
        make_entry(None, Path("r.yaml"), "u", "x", zoo=zoo, commit="abc1234",
                   network=shipped.network_path("yongzhou"), rules="classic")
    assert not (zoo / "classic" / "u").exists()
    with pytest.raises(ValueError, match="a network and the rules"):
        make_entry(None, Path("r.yaml"), "u", "x", zoo=zoo, commit="abc1234")
