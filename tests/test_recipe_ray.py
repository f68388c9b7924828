"""``paohuzi-recipe RECIPE --smoke --ray ADDRESS`` on a local Ray cluster of two nodes
(``ray.cluster_utils.Cluster``): the labels, the clone's demonstrations and the evaluation as
Ray tasks, PPO's rollout worker as an actor, and the same labels, exported network and
evaluation as the run without Ray, bit for bit (the network also the one recorded in
tests/fixtures/same_numbers.json, where torch and the CPU are those it was recorded on). Slow
(two Ray nodes and two smoke runs: about a minute and a half on 2 cores); .ci/run runs it in its
slow slice."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

ray = pytest.importorskip("ray")
torch = pytest.importorskip("torch")

from ray.cluster_utils import Cluster  # noqa: E402

from paohuzi_training.recipe import main  # noqa: E402
from tests.test_recipe import HUAIHUA, SAME, _recorded_conditions  # noqa: E402


@pytest.fixture
def two_nodes():
    """A head node and a second node, one CPU each (so the tasks are spread over both)."""
    assert not ray.is_initialized(), "another test left Ray connected"
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1,
                                                             "include_dashboard": False})
    cluster.add_node(num_cpus=1)
    cluster.wait_for_nodes()
    yield cluster
    ray.shutdown()
    cluster.shutdown()


def _evaluation(out: Path) -> dict:
    res = json.loads((out / "evaluate" / "vs-expert.json").read_text(encoding="utf-8"))
    res.pop("wall_seconds")
    return res


@pytest.mark.slow
def test_smoke_recipe_on_two_ray_nodes_gives_the_network_of_local_processes(two_nodes, tmp_path,
                                                                              capsys):
    old = torch.get_num_threads()
    try:
        # each run on the threads the network was recorded with (an evaluation played in this
        # process leaves torch on one thread)
        torch.set_num_threads(SAME["conditions"]["torch_threads"])
        assert main([str(HUAIHUA), "--smoke", "--out", str(tmp_path / "local")]) == 0
        assert not ray.is_initialized()
        capsys.readouterr()
        torch.set_num_threads(SAME["conditions"]["torch_threads"])
        assert main([str(HUAIHUA), "--smoke", "--out", str(tmp_path / "ray"), "--ray",
                     two_nodes.address]) == 0
    finally:
        torch.set_num_threads(old)
    text = capsys.readouterr().out
    assert f"Ray: {two_nodes.address}, 2 CPU(s), 2 node(s)" in text
    assert "Ray task(s)" in text and "rollout worker(s) as Ray actors" in text
    local, on_ray = tmp_path / "local", tmp_path / "ray"
    shards = sorted(p.name for p in (local / "labels").glob("shard-*.npz"))
    assert shards and shards == sorted(p.name for p in (on_ray / "labels").glob("shard-*.npz"))
    assert all((local / "labels" / s).read_bytes() == (on_ray / "labels" / s).read_bytes()
               for s in shards)
    network = (local / "export" / "huaihua.safetensors").read_bytes()
    assert (on_ray / "export" / "huaihua.safetensors").read_bytes() == network
    assert _evaluation(on_ray) == _evaluation(local)
    ppo = json.loads((on_ray / "ppo" / "stage.json").read_text(encoding="utf-8"))
    assert ppo["settings"]["ray"] == two_nodes.address
    if not _recorded_conditions():
        assert hashlib.sha256(network).hexdigest() == SAME["smoke_network"]["sha256"]
