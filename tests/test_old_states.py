"""Every committed network still loads, and resume states still resume: every one at HEAD (a
state is committed only while its run is in progress), and states in the layout of the trainers
that wrote the finished runs' states (one flat config of 41 to 65 keys, from before the trainer
became stages: cloning, distillation, ``init_from``, the belief head's and evaluation keys among
them; the states themselves left HEAD after commit 0310807 and their configs are recorded in
tests/fixtures/removed_checkpoints.json), and the networks that left HEAD after commit ecba453
load as that commit holds them (tests/removed.py). The PPO stage compares PPO's keys (with the
run's and the network's), counts a key the saved config lacks at its default, and leaves the
other stages' keys to them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from paohuzi_env.envs.mlp_policy import FORMAT as MLP_FORMAT  # noqa: E402
from paohuzi_env.envs.mlp_policy import load_mlp_policy  # noqa: E402
from paohuzi_training.config import to_dict  # noqa: E402
from paohuzi_training.nets.checkpoint import load_checkpoint, save_checkpoint  # noqa: E402
from paohuzi_training.nets.model import model_for  # noqa: E402
from paohuzi_training.recipe import load_config, make_config  # noqa: E402
from paohuzi_training.stages.housekeeping import resume_state  # noqa: E402
from paohuzi_training.train import train  # noqa: E402
from tests.removed import COMMIT, restore  # noqa: E402
from tests.removed import RECORDED as REMOVED  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
NETWORKS = sorted(p for p in (ROOT / "checkpoints").rglob("*") if p.suffix in (".pt", ".safetensors"))
LEFT = sorted(n for n in REMOVED["files"] if n.endswith(".safetensors"))
"""Networks that left HEAD after commit ecba453, loaded as that commit holds them."""
AT_HEAD = sorted((ROOT / "checkpoints" / "resume").glob("*.pt"))
OLD = json.loads((Path(__file__).parent / "fixtures" / "removed_checkpoints.json").read_text())["resume"]

SMALL = dict(total_steps=200, workers=1, games_per_worker=4, steps_per_worker=200, hidden=16,
             critic_hidden=16, conv_channels=4, minibatch_size=100, update_epochs=1, save_every=1,
             snapshot_every=1, kl_coef=0.0, oracle_steps=100)
"""An old config's keys that make its run small enough for a test (set only where the old config
has the key; a key it lacks stays at its default, as when such a state resumes)."""
TO_TRAIN = dict(init_from="", bc_steps=0, eval_every=0, final_eval_deals=0, save_records=0)
"""Keys of the other stages, set for the small run only: the old value goes back into the saved
config, where the PPO stage must leave it alone."""


@pytest.fixture(scope="module")
def old_states(tmp_path_factory) -> dict[str, Path]:
    """A resume state per recorded old config, written by this trainer in miniature (a 200-step
    run of that config), its saved config then put back in the old layout: the old config's keys
    only, at their old values but for :data:`SMALL`."""
    out = {}
    for i, (name, rec) in enumerate(sorted(OLD.items())):
        old = rec["config"]
        small = {k: v for k, v in SMALL.items() if k in old}
        root = tmp_path_factory.mktemp(f"old{i}")
        cfg = make_config({**old, **small, **TO_TRAIN})
        final = train(cfg, root=root, log=lambda *a: None)
        state = load_checkpoint(final.with_name("latest.pt"))
        assert not state.get("policy_only") and "optimizer" in state
        state["config"] = {**old, **small}
        path = root / name
        save_checkpoint(path, state)
        out[name] = path
    return out


def test_there_are_committed_networks():
    assert len(NETWORKS) >= 3 and len(LEFT) >= 10
    assert not {str(p.relative_to(ROOT)) for p in NETWORKS} & set(LEFT)
    assert all(p.suffix == ".safetensors" for p in NETWORKS if p.parent.name == "shipped")


@pytest.mark.parametrize("path", NETWORKS, ids=lambda p: str(p.relative_to(ROOT / "checkpoints")))
def test_every_committed_network_loads_into_the_network_its_config_names(path):
    _loads_into_its_network(path)


@pytest.mark.parametrize("name", LEFT, ids=lambda n: n.removeprefix("checkpoints/"))
def test_every_network_that_left_head_loads_from_its_commit(name, tmp_path):
    path = restore(name, tmp_path)
    if path is None:
        pytest.skip(f"{name} left HEAD after commit {COMMIT}; that history is not at hand")
    _loads_into_its_network(path)


def _loads_into_its_network(path: Path) -> None:
    side = path.with_suffix(".json")
    meta = json.loads(side.read_text()) if path.suffix == ".safetensors" and side.is_file() else {}
    if meta.get("format") == MLP_FORMAT:
        # a baseline of another library (checkpoints/baselines/): plain MLP layers that
        # ``mlp:PATH`` plays, with no trainer config to build a model from
        agent = load_mlp_policy(path, 0, meta["rules"]["name"])
        assert agent.layers
        return
    data = load_checkpoint(path)
    model = model_for(data["config"])
    own = model.state_dict()
    got = data["model"]
    assert set(got) <= set(own)  # an actor-only export leaves the critic out
    assert all(k.startswith("critic.") for k in set(own) - set(got))
    model.load_state_dict({**own, **got})


def _resumes(path: Path) -> None:
    saved = load_checkpoint(path)
    # paohuzi-train --resume PATH total_steps=N: the run's own config, a longer run
    cfg = load_config(None, [f"total_steps={saved['global_step'] + 1}"], saved["config"])
    data = resume_state(str(path), cfg.ppo, lambda *a: None)
    model_for(cfg.ppo).load_state_dict(data["model"])
    # a key of another stage (cloning, distillation, the start, the evaluation) is not PPO's to
    # compare
    moved = load_config(None, ["bc_epochs=7", "distill_epochs=9", "final_eval_deals=1",
                               "init_from=elsewhere.pt"], saved["config"])
    resume_state(str(path), moved.ppo, lambda *a: None)
    # a PPO key that changed is refused, naming it
    lr = float(saved["config"]["learning_rate"]) * 2
    with pytest.raises(ValueError, match="learning_rate"):
        resume_state(str(path), load_config(None, [f"learning_rate={lr}"], saved["config"]).ppo,
                     lambda *a: None)


@pytest.mark.parametrize("path", AT_HEAD, ids=lambda p: p.name)
def test_every_committed_state_resumes(path):
    _resumes(path)


@pytest.mark.parametrize("name", sorted(OLD))
def test_a_state_in_an_old_layout_resumes(name, old_states):
    path = old_states[name]
    assert set(load_checkpoint(path)["config"]) == set(OLD[name]["config"])
    _resumes(path)


def _continues(path: Path, folder: Path, monkeypatch) -> None:
    """``paohuzi-train --resume PATH`` with no --config takes the run's config from the
    checkpoint: the state continues (here to the step it holds: nothing to train, the final
    checkpoint written), although its config may predate keys added since."""
    from paohuzi_training.train import main

    step = load_checkpoint(path)["global_step"]
    monkeypatch.chdir(folder)
    assert main(["--resume", str(path), f"total_steps={step}", "final_eval_deals=0",
                 "eval_every=0"]) == 0
    final = next(folder.glob("checkpoints/*/final.pt"))
    assert load_checkpoint(final)["global_step"] == step


@pytest.mark.parametrize("path", AT_HEAD, ids=lambda p: p.name)
def test_paohuzi_train_continues_every_committed_state(path, tmp_path, monkeypatch):
    _continues(path, tmp_path, monkeypatch)


@pytest.mark.parametrize("name", sorted(OLD))
def test_paohuzi_train_continues_an_old_state_with_its_own_config(name, old_states, tmp_path,
                                                                  monkeypatch):
    _continues(old_states[name], tmp_path, monkeypatch)


def test_the_belief_head_is_retired_but_its_zero_still_loads(old_states):
    assert make_config({"belief_coef": 0.0}).ppo is not None
    with pytest.raises(ValueError, match="belief_coef.*a7f5325"):
        make_config({"belief_coef": 0.1, "central_critic": True})
    state = load_checkpoint(old_states["gen3-r4-oracle__1-latest.pt"])
    assert state["config"]["belief_coef"] == 0.0
    assert "belief_coef" not in to_dict(make_config(state["config"]).ppo)
