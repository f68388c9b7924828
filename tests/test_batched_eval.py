"""Batched evaluation of network agents (paohuzi_training/eval/batched_eval.py): the same rows, summary and
JSON as the per-decision path for the same seed."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from paohuzi_env import fast

pytestmark = pytest.mark.skipif(not fast.available(), reason="needs the compiled core")

torch = pytest.importorskip("torch")

from paohuzi_training.eval import batched_eval  # noqa: E402
from paohuzi_training.eval.evaluate import evaluate, main, play_deal  # noqa: E402
from tests.removed import COMMIT, restore  # noqa: E402

PURE = "checkpoint:checkpoints/shipped/distilled.safetensors"  # no prior
RESIDUAL = "checkpoint:checkpoints/shipped/policy.safetensors"  # asks the expert at every decision


def _per_decision(candidate, opponents, deals, seed, rules="huaihua"):
    rows = []
    for d in deals:
        rows.extend(play_deal(candidate, opponents, d, seed, rules, "fast"))
    return rows


@pytest.mark.parametrize("candidate,opponents,slots", [
    (PURE, ["expert", "expert"], 512),
    (PURE, ["expert", "greedy"], 5),  # few slots: games queue, slots refill and go idle
    (RESIDUAL, ["greedy", "random"], 512),  # compiled prior; random asked in Python
    ("expert", [PURE, RESIDUAL], 4),  # networks in the other seats, two networks per tick
])
def test_batched_rows_equal_the_per_decision_rows(candidate, opponents, slots):
    deals = list(range(6))
    before = dict(batched_eval.STATS)
    got = batched_eval.play_deals(candidate, opponents, deals, 11, "huaihua", slots=slots)
    assert batched_eval.STATS["rows"] > before["rows"]  # the networks were asked batched
    assert got == _per_decision(candidate, opponents, deals, 11)


def test_search_seat_in_the_batched_harness():
    # The compiled search is asked in one call per tick over the hands where it acts, each hand
    # with its seat's agent's generator state: the per-decision numbers, beside a network.
    spec = "search:samples=2,playouts=8"
    got = batched_eval.play_deals(spec, [PURE, "expert"], [0], 2, "huaihua", slots=3)
    assert got == _per_decision(spec, [PURE, "expert"], [0], 2)


@pytest.mark.parametrize("candidate,opponents", [
    ("search:samples=3,playouts=12,prune=2", ["expert", "greedy"]),
    ("expert", ["search:samples=2,playouts=8", "search:samples=3,playouts=9,top=2,guide=none"]),
    # not batched (the Python reference; a time budget): asked per decision, same numbers
    ("search:samples=2,playouts=8,impl=python", ["expert", "expert"]),
])
def test_batched_search_rows_equal_the_per_decision_rows(candidate, opponents):
    deals = [0, 1, 2]
    got = batched_eval.play_deals(candidate, opponents, deals, 5, "huaihua", slots=4)
    assert got == _per_decision(candidate, opponents, deals, 5)


@pytest.mark.parametrize("name", ["distilled-yongzhou", "yongzhou-residual"])
def test_yongzhou_network(name, tmp_path):
    """A yongzhou network (observation v2): the pure distilled-yongzhou, and the residual
    yongzhou-residual (the compiled prior under yongzhou's rules), which left HEAD after commit
    ecba453 and is read as that commit has it."""
    path = Path("checkpoints") / "shipped" / f"{name}.safetensors"
    if not path.is_file():
        path = restore(str(path), tmp_path)
        if path is None:
            pytest.skip(f"{name} left HEAD after commit {COMMIT}; that history is not at hand")
    spec = f"checkpoint:{path}"
    got = batched_eval.play_deals(spec, ["expert", "expert"], [0, 1, 2], 4, "yongzhou")
    assert got == _per_decision(spec, ["expert", "expert"], [0, 1, 2], 4, "yongzhou")


def test_batched_and_one_row_logits_differ_far_below_the_tie_tolerance():
    # The premise of TIE_TOL: where the top two legal logits are further apart than it, the
    # batched argmax is the one-row argmax. Measure the largest difference between the batched
    # product and one-row products over real positions.
    from paohuzi_env.agents import make_agent

    vg = fast.VectorGame(300, "huaihua", seed=9)
    for _ in range(25):
        vg.step(vg.expert_actions())
    obs, mask, _, _ = vg.observe()
    waits = vg.wait_features()
    for spec in (PURE, RESIDUAL):
        agent = make_agent(spec, seed=0, rules="huaihua")
        model = agent.model  # type: ignore[attr-defined]
        prior = vg.expert_actions() if model.prior != "none" else None
        x = np.concatenate([obs, waits], axis=1) if model.waits else obs  # as batched_eval reads
        with torch.no_grad():
            m = torch.from_numpy(mask != 0)
            p = None if prior is None else torch.from_numpy(prior)
            batch = model.masked_logits(torch.from_numpy(x), m, p)
            worst = 0.0
            for i in range(len(x)):
                one = model.masked_logits(torch.from_numpy(x[i].copy()).unsqueeze(0), m[i:i + 1],
                                          None if p is None else p[i:i + 1])[0]
                legal = m[i]
                scale = 1.0 + float(one[legal].abs().max())
                worst = max(worst, float((batch[i][legal] - one[legal]).abs().max()) / scale)
        assert worst < batched_eval.TIE_TOL / 20, (spec, worst)


def test_every_row_decided_again_gives_the_same_rows(monkeypatch):
    deals = [0, 1, 2]
    ref = _per_decision(PURE, ["expert", "expert"], deals, 3)
    monkeypatch.setattr(batched_eval, "TIE_TOL", float("inf"))
    before = dict(batched_eval.STATS)
    got = batched_eval.play_deals(PURE, ["expert", "expert"], deals, 3, "huaihua")
    asked = batched_eval.STATS["rows"] - before["rows"]
    assert asked > 0 and batched_eval.STATS["redecided"] - before["redecided"] == asked
    assert got == ref


def test_evaluate_and_cli_json_identical_batched_or_not(tmp_path):
    a = evaluate(PURE, "expert", deals=5, seed=6, workers=2, progress=False, backend="fast")
    b = evaluate(PURE, "expert", deals=5, seed=6, workers=1, progress=False, backend="fast",
                 batched=False)
    a.pop("wall_seconds"), b.pop("wall_seconds")
    assert a == b
    outs = []
    for extra in ([], ["--per-decision"]):
        out = tmp_path / f"r{len(extra)}.json"
        assert main([PURE, "--vs", "greedy", "--deals", "3", "--seed", "2", "--workers", "1",
                     "--no-progress", "--backend", "fast", "--json", str(out), *extra]) == 0
        res = json.loads(out.read_text())
        res.pop("wall_seconds")
        outs.append(res)
    assert outs[0] == outs[1]


def test_only_network_and_search_specs_take_the_batched_path():
    assert batched_eval.wanted(["expert", PURE], "huaihua")
    assert batched_eval.wanted(["expert", "search:samples=2"], "huaihua")
    assert not batched_eval.wanted(["expert", "greedy", "random"], "huaihua")
    assert not batched_eval.wanted(["search:impl=python", "search:budget_ms=5"], "huaihua")
    assert batched_eval.chunk_size(20000, 2, ["search", "expert"]) == 25
    assert batched_eval.chunk_size(20000, 2) == 2000
    assert batched_eval.chunk_size(3, 2) == 1
    assert np.all(np.asarray([batched_eval.chunk_size(d, 4) for d in range(1, 50)]) >= 1)


def test_a_checkpoint_spec_names_the_file_it_loads_now(tmp_path, monkeypatch):
    """The per-process network cache is keyed by the file, not the spec's text: the same
    relative ``checkpoint:p.safetensors`` in another folder, or the file written again, is another
    network (a stale cache once played an earlier test's network in a later one)."""
    import shutil

    from paohuzi_env.game.rules import get_rules
    from paohuzi_training.eval import batched_eval

    rules = get_rules("huaihua")
    shipped = Path(__file__).resolve().parent.parent / "checkpoints" / "shipped"
    for name, prior in (("distilled", None), ("policy", "expert")):
        folder = tmp_path / name
        folder.mkdir()
        for suffix in (".safetensors", ".json"):  # the tensors and their sidecar
            shutil.copy(shipped / f"{name}{suffix}", folder / f"p{suffix}")
        monkeypatch.chdir(folder)
        net = batched_eval._net_for("checkpoint:p.safetensors", rules)
        assert net is not None and net.prior == prior
