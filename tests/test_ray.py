"""``paohuzi-train --ray``: rollout workers as Ray actors on a local cluster the test starts,
and a killed actor mid-run (restarted, its batch asked again, no crash, checkpoints kept); the
labels and the evaluation as Ray tasks, the same as in local processes whatever the number of
workers. Time-boxed: a few tiny iterations. Skipped when Ray is not installed. The whole smoke
recipe on a cluster of two nodes: tests/test_recipe_ray.py (slow)."""

from __future__ import annotations

from pathlib import Path

import pytest

ray = pytest.importorskip("ray")

from paohuzi_training.eval.evaluate import evaluate  # noqa: E402
from paohuzi_training.nets.checkpoint import load_checkpoint  # noqa: E402
from paohuzi_training.recipe import make_config  # noqa: E402
from paohuzi_training.stages.label import LabelConfig, label  # noqa: E402
from paohuzi_training.stages.workers import RayWorkers  # noqa: E402
from paohuzi_training.train import main, train  # noqa: E402


def _tiny(**kw):
    values = dict(run_name="r", total_steps=1200, workers=2, games_per_worker=8,
                  steps_per_worker=200, hidden=32, minibatch_size=128, update_epochs=1,
                  opponent_bots={"greedy": 0.3}, snapshot_every=1, eval_every=0,
                  final_eval_deals=0, save_every=1, ray="local")
    values.update(kw)
    return make_config(values)


@pytest.fixture(scope="module")
def cluster():
    ray.init(num_cpus=2, include_dashboard=False, configure_logging=False)
    yield
    ray.shutdown()


def test_training_on_ray_actors_survives_a_killed_actor(cluster, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    logs: list[str] = []
    killed = []
    receive = RayWorkers.receive

    def receive_after_a_kill(self):
        if not killed:  # kill actor 0 while it plays the first batch
            ray.kill(self.actors[0], no_restart=False)
            killed.append(self.names[0])
        return receive(self)

    monkeypatch.setattr(RayWorkers, "receive", receive_after_a_kill)
    final = train(_tiny(), log=lambda *a: logs.append(" ".join(map(str, a))))
    data = load_checkpoint(final)
    assert data["global_step"] >= 1200
    assert len(data["worker_rng_states"]) == 2
    assert any("rollout actor 0 died" in line for line in logs), logs
    assert any("as Ray actors" in line for line in logs)
    assert (tmp_path / "checkpoints" / "r__1" / "latest.pt").is_file()


ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow  # Ray tasks start their own workers: about 10 s on 2 cores; in .ci/run's slice
def test_labels_and_evaluation_as_ray_tasks_are_those_of_local_processes(cluster, tmp_path,
                                                                          monkeypatch):
    cfg = LabelConfig(hands=3, shard_hands=1, search="search:guide=none,samples=4,playouts=16",
                      seed=5)
    label(cfg, tmp_path / "local", workers=1, progress=False)
    label(cfg, tmp_path / "ray", progress=False, ray="local")
    local = sorted((tmp_path / "local").glob("shard-*.npz"))
    assert [p.name for p in local] == ["shard-00000.npz", "shard-00001.npz", "shard-00002.npz"]
    assert all(p.read_bytes() == (tmp_path / "ray" / p.name).read_bytes() for p in local)
    # a network batched in torch, in one job here and in 4 Ray tasks (a relative path: the
    # tasks read it from this process's folder)
    monkeypatch.chdir(ROOT)
    args = dict(deals=8, seed=7, progress=False)
    got = [evaluate("checkpoint:checkpoints/shipped/distilled.safetensors", "expert", workers=w,
                    ray=where, **args) for w, where in ((1, ""), (2, "local"))]
    for res in got:
        res.pop("wall_seconds")
    assert got[0]["games"] == 24 and got[1] == got[0]


@pytest.mark.slow  # a second Ray training run; .ci/run runs it in its slow slice
def test_cli_ray_flag_sets_the_config(cluster, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["--ray", "total_steps=400", "workers=1", "games_per_worker=4",
                 "steps_per_worker=200", "hidden=16", "minibatch_size=64", "update_epochs=1",
                 "eval_every=0", "final_eval_deals=0", "bc_steps=0", "run_name=c"]) == 0
    finals = sorted(tmp_path.glob("checkpoints/*/final.pt"))
    assert finals, sorted(str(p) for p in tmp_path.rglob("*"))
    data = load_checkpoint(finals[0])
    assert data["config"]["ray"] == "local" and data["global_step"] >= 400
