"""Every committed network still loads, and every committed resume state (written by the trainer
before it became stages: one flat config of 65 keys, cloning, distillation, ``init_from``, the
belief head's and evaluation keys among them) still resumes: the PPO stage compares PPO's keys
(with the run's and the network's) and leaves the other stages' keys to them."""

from __future__ import annotations

from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from paohuzi_training.config import to_dict  # noqa: E402
from paohuzi_training.nets.checkpoint import load_checkpoint  # noqa: E402
from paohuzi_training.nets.model import model_for  # noqa: E402
from paohuzi_training.recipe import load_config, make_config  # noqa: E402
from paohuzi_training.stages.housekeeping import resume_state  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
NETWORKS = sorted(p for p in (ROOT / "checkpoints").rglob("*") if p.suffix in (".pt", ".safetensors"))
RESUME = sorted((ROOT / "checkpoints" / "resume").glob("*.pt"))


def test_there_are_committed_networks_and_states():
    assert len(NETWORKS) >= 20 and len(RESUME) >= 5


@pytest.mark.parametrize("path", NETWORKS, ids=lambda p: str(p.relative_to(ROOT / "checkpoints")))
def test_every_committed_network_loads_into_the_network_its_config_names(path):
    data = load_checkpoint(path)
    model = model_for(data["config"])
    own = model.state_dict()
    got = data["model"]
    assert set(got) <= set(own)  # an actor-only export leaves the critic out
    assert all(k.startswith("critic.") for k in set(own) - set(got))
    model.load_state_dict({**own, **got})


@pytest.mark.parametrize("path", RESUME, ids=lambda p: p.name)
def test_every_committed_state_resumes(path):
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


def test_the_belief_head_is_retired_but_its_zero_still_loads(tmp_path):
    assert make_config({"belief_coef": 0.0}).ppo is not None
    with pytest.raises(ValueError, match="belief_coef.*a7f5325"):
        make_config({"belief_coef": 0.1, "central_critic": True})
    state = load_checkpoint(RESUME[0])
    assert "belief_coef" not in to_dict(make_config(state["config"]).ppo)
