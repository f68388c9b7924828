"""``paohuzi-recipe`` (issue 40): every stage in miniature (``--smoke``), a second run that
skips them all, a run stopped mid-PPO that continues where it stopped, changed settings
refused, and bad recipes and options named."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

torch = pytest.importorskip("torch")

from paohuzi_env.agents import zoo  # noqa: E402
from paohuzi_training.nets.checkpoint import export_policy, load_checkpoint  # noqa: E402
from paohuzi_training.recipe import STAGES, load_recipe, main  # noqa: E402
from tests.removed import holds, named_commits, restore  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
HUAIHUA = ROOT / "configs" / "recipes" / "huaihua.yaml"
SAME = json.loads((ROOT / "tests" / "fixtures" / "same_numbers.json").read_text(encoding="utf-8"))
"""What the code gave before the trainer became stages (tests/test_same_numbers.py)."""


@pytest.fixture(scope="module", autouse=True)
def recorded_threads():
    """torch on the thread count the smoke network's SHA-256 was recorded with (the order of a
    float sum follows the threads), for every stage of the recipe run in this process."""
    old = torch.get_num_threads()
    torch.set_num_threads(SAME["conditions"]["torch_threads"])
    yield
    torch.set_num_threads(old)


def _recorded_conditions() -> str:
    """Why the smoke network cannot be compared bit for bit here ("" when it can): another torch,
    or a CPU without native bfloat16 (the smoke's update_precision: auto then picks float32)."""
    want = SAME["conditions"]
    if torch.__version__ != want["torch"]:
        return f"recorded with torch {want['torch']}, this is {torch.__version__}"
    if bool(torch.ops.mkldnn._is_mkldnn_bf16_supported()) != want["bf16_native"]:
        return "recorded on a CPU " + ("with" if want["bf16_native"] else "without") + " native bfloat16"
    return ""


@pytest.fixture(scope="module")
def base(tmp_path_factory) -> Path:
    """The smoke recipe's first three stages, run once for the tests below to copy."""
    out = tmp_path_factory.mktemp("recipe") / "run"
    assert main([str(HUAIHUA), "--smoke", "--out", str(out), "--stages",
                 "labels,clone,distill"]) == 0
    return out


def _records(out: Path) -> dict[str, dict]:
    return {s: json.loads((out / s / "stage.json").read_text()) for s in STAGES
            if (out / s / "stage.json").is_file()}


def test_smoke_runs_every_stage_then_skips_them(base, tmp_path, capsys):
    out = tmp_path / "run"
    shutil.copytree(base, out)
    assert main([str(HUAIHUA), "--smoke", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    recs = _records(out)
    assert sorted(recs) == sorted(STAGES) and all(r["complete"] for r in recs.values())
    assert all("skipped" in line for line in text.splitlines()
               if line.startswith("[") and any(f"] {s}:" in line for s in STAGES[:3]))
    # what each stage was made from: its settings, the seed, its inputs' digests
    assert recs["ppo"]["settings"]["start"] == "distill/checkpoints/distill__1/final.pt"
    assert recs["ppo"]["seed"] == 1 and set(recs["ppo"]["inputs"]) == {recs["ppo"]["settings"]["start"]}
    assert recs["distill"]["settings"]["distill_labels"] == ["labels"]
    final = load_checkpoint(out / "ppo/checkpoints/ppo__1/final.pt")
    assert final["global_step"] == 2048
    ev = json.loads((out / "evaluate" / "vs-expert.json").read_text())
    assert ev["deals"] == 12 and ev["seed"] == 20261230 and ev["ci95"][0] <= ev["mean_points"]
    exported = load_checkpoint(out / "export" / "huaihua.safetensors")
    assert exported["config"]["actor"] == "conv" and exported["config"]["wait_features"]
    assert "against two expert:" in text
    # same numbers: the exported network is the one the smoke recipe made before the trainer
    # became stages, bit for bit (where torch and the CPU are those it was recorded on)
    sidecar = json.loads((out / "export" / "huaihua.json").read_text())
    want = {k: v for k, v in SAME["smoke_network"]["sidecar"].items() if k != "weights_sha256"}
    assert {k: sidecar[k] for k in want} == want
    if not _recorded_conditions():
        assert sidecar["weights_sha256"] == SAME["smoke_network"]["sidecar"]["weights_sha256"]
        digest = hashlib.sha256((out / "export" / "huaihua.safetensors").read_bytes()).hexdigest()
        assert digest == SAME["smoke_network"]["sha256"]
    # a second run: every stage complete and unchanged, so nothing runs and nothing is written
    mtimes = {p: p.stat().st_mtime_ns for p in out.rglob("*") if p.is_file()}
    assert main([str(HUAIHUA), "--smoke", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert text.count("skipped") >= len(STAGES) and "| ran |" not in text
    assert {p: p.stat().st_mtime_ns for p in out.rglob("*") if p.is_file()} == mtimes


DRIVER = r"""
import os, signal, sys
import paohuzi_training.stages.ppo as ppo
real = ppo.ppo_update
def update(*a, **k):  # the first update of this process: SIGTERM, as a kill -TERM would
    stats = real(*a, **k)
    if not getattr(update, "sent", False):
        update.sent = True
        os.kill(os.getpid(), signal.SIGTERM)
    return stats
ppo.ppo_update = update
from paohuzi_training.recipe import main
sys.exit(main(sys.argv[1:]))
"""


def test_stopped_mid_ppo_continues(base, tmp_path):
    out = tmp_path / "run"
    shutil.copytree(base, out)
    args = [str(HUAIHUA), "--smoke", "--out", str(out), "--stages", "ppo"]
    proc = subprocess.run([sys.executable, "-c", DRIVER, *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 130, proc.stderr[-2000:]
    assert "run the same command again to continue" in proc.stderr
    rec = _records(out)["ppo"]
    assert rec["complete"] is False and rec["runs"] == 1
    latest = load_checkpoint(out / "ppo/checkpoints/ppo__1/latest.pt")
    assert latest["global_step"] == 1024  # one iteration of the smoke's two
    proc = subprocess.run([sys.executable, "-m", "paohuzi_training.recipe", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "ppo (continuing)" in proc.stdout
    assert f"continuing {out.resolve() / 'ppo/checkpoints/ppo__1/latest.pt'}" in proc.stdout
    rec = _records(out)["ppo"]
    assert rec["complete"] is True and rec["runs"] == 2
    assert load_checkpoint(out / "ppo/checkpoints/ppo__1/final.pt")["global_step"] == 2048


def test_changed_settings_are_refused(base, tmp_path, capsys):
    out = tmp_path / "run"
    shutil.copytree(base, out)
    # a record made before the trainer gained a key reads it at its default: not a change; nor
    # is one made before the stages (its start named init_from, PPO's keys among its settings)
    rec_path = out / "distill" / "stage.json"
    rec = json.loads(rec_path.read_text())
    del rec["settings"]["distill_departure_weight"]
    rec["settings"]["init_from"] = rec["settings"].pop("start")
    rec["settings"].update(total_steps=0, eval_every=0, opponent_agents={}, belief_coef=0.0)
    rec_path.write_text(json.dumps(rec))
    assert main([str(HUAIHUA), "--smoke", "--out", str(out), "--stages", "distill"]) == 0
    assert "distill: complete" in capsys.readouterr().out
    data = yaml.safe_load(HUAIHUA.read_text())
    data["smoke"]["distill"]["distill_epochs"] = 2
    changed = tmp_path / "changed.yaml"
    changed.write_text(yaml.safe_dump(data))
    assert main([str(changed), "--smoke", "--out", str(out), "--stages", "distill"]) == 2
    err = capsys.readouterr().err
    assert "distill was made with other settings (distill_epochs differ)" in err
    # the clone changed: the distillation's input differs, so it is refused too
    (out / "clone" / "model.pt").write_bytes(b"not the clone")
    assert main([str(HUAIHUA), "--smoke", "--out", str(out), "--stages", "distill"]) == 2
    assert "inputs (clone/model.pt)" in capsys.readouterr().err


def test_bad_recipes_and_options(tmp_path, capsys):
    def fails(recipe: dict | str, *args: str) -> str:
        path = tmp_path / "r.yaml"
        path.write_text(recipe if isinstance(recipe, str) else yaml.safe_dump(recipe))
        assert main([str(path), "--out", str(tmp_path / "o"), *args]) == 2
        return capsys.readouterr().err

    good = yaml.safe_load(HUAIHUA.read_text())
    assert "unknown key(s) ['epochs']" in fails({**good, "epochs": 3})
    assert "allowed:" in fails({**good, "labels": {"hand": 4}})
    assert "set by the recipe itself" in fails({**good, "ppo": {**good["ppo"], "init_from": "x.pt"}})
    assert "config 'actor' must be one of" in fails({**good, "network": {"actor": "transformer"}})
    assert "must be a search spec" in fails({**good, "labels": {"search": "expert"}})
    assert "not valid YAML" in fails("name: [")
    assert "unknown stage(s) ['train']" in fails(good, "--stages", "labels,train")
    assert "needs distill/checkpoints/distill__1/final.pt" in fails(good, "--stages", "ppo")
    assert main([str(tmp_path / "missing.yaml")]) == 2
    assert "not found" in capsys.readouterr().err


def test_ray_option_is_listed_and_needs_ray(tmp_path, capsys, monkeypatch):
    """``--ray`` in ``--help``, and without Ray installed a clear error naming the extra
    (the runs on Ray: tests/test_ray.py and tests/test_recipe_ray.py)."""
    with pytest.raises(SystemExit):
        main(["--help"])
    assert "--ray [ADDRESS]" in capsys.readouterr().out
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray raises ImportError
    assert main([str(HUAIHUA), "--smoke", "--out", str(tmp_path / "o"), "--ray"]) == 2
    err = capsys.readouterr().err
    assert "--ray needs Ray, which is not installed" in err and ".[train,ray]" in err
    assert not (tmp_path / "o").exists()


def test_a_round_of_expert_iteration_starts_from_its_network(tmp_path, capsys):
    """Issue 41: a recipe with ``start`` clones nothing; its labels come from the search guided
    by the start network (``guide=start``: the .safetensors beside it) and its distillation
    starts from that network; run again, every stage is skipped."""
    gen3 = ROOT / "configs" / "history" / "recipes" / "gen3-huaihua.yaml"
    out = tmp_path / "run"
    args = [str(gen3), "--smoke", "--out", str(out), "--stages", "labels,clone,distill"]
    assert main(args) == 0
    start = ROOT / "checkpoints" / "shipped" / "distilled.safetensors"
    rec = _records(out)
    assert rec["clone"]["settings"] == {"start": str(start)}
    assert not (out / "clone" / "model.pt").exists()
    assert rec["distill"]["settings"]["start"] == str(start)
    assert rec["distill"]["settings"]["distill_departure_weight"] == 4.0
    assert str(start) in rec["distill"]["inputs"]
    search = json.loads((out / "labels" / "labels.json").read_text())["config"]["search"]
    assert f"guide=checkpoint:{start}" in search
    assert "depart from the starting network's move (weight 4)" in capsys.readouterr().out
    assert main(args) == 0
    assert capsys.readouterr().out.count("), skipped") == 3


def _refused(tmp_path, capsys):
    """``fails(recipe) -> stderr``: the recipe written to a file is refused (exit 2)."""
    def fails(recipe: dict) -> str:
        path = tmp_path / "r.yaml"
        path.write_text(yaml.safe_dump(recipe))
        assert main([str(path), "--out", str(tmp_path / "o")]) == 2
        return capsys.readouterr().err
    return fails


def test_bad_starts(tmp_path, capsys):
    fails = _refused(tmp_path, capsys)
    good = yaml.safe_load((ROOT / "configs" / "history" / "recipes" / "gen3-huaihua.yaml").read_text())
    assert "start must name a network checkpoint file" in fails({**good, "start": "nope.pt"})
    no_start = {**{k: v for k, v in good.items() if k != "start"}, "clone": {"bc_steps": 100}}
    assert "guide=start needs the recipe's 'start'" in fails(no_start)
    lone = export_policy(ROOT / "checkpoints" / "shipped" / "distilled.safetensors",
                         tmp_path / "lone.pt")  # a .pt with no .safetensors beside it
    assert "the .safetensors beside start" in fails({**good, "start": str(lone)})


TRANSFERS = ("huaihua-468", "hongshanzhang")
ROUNDS = ("classic", "zipai")


def test_a_transfer_recipe_starts_ppo_from_a_zoo_network_under_its_own_rules(tmp_path, capsys):
    """Issue 62: ``start: zoo:huaihua`` and ``stages: [ppo, evaluate, export]``: PPO starts from
    the huaihua network under hongshanzhang (the same observation), the zoo file among its
    inputs; the export plays hongshanzhang. Run again, every stage is skipped."""
    out = tmp_path / "run"
    args = [str(ROOT / "configs/recipes/hongshanzhang.yaml"), "--smoke", "--out", str(out)]
    assert main(args) == 0
    log = capsys.readouterr().out
    start = zoo.network_path("huaihua")
    assert f"start {start}: trained under rules 'huaihua'; a transfer to 'hongshanzhang'" in log
    rec = _records(out)
    assert sorted(rec) == ["evaluate", "export", "ppo"]
    assert rec["ppo"]["settings"]["start"] == str(start)
    assert list(rec["ppo"]["inputs"]) == [str(start)]
    exported = load_checkpoint(out / "export" / "hongshanzhang.safetensors")
    assert exported["rules"]["name"] == "hongshanzhang"
    assert main(args) == 0
    assert capsys.readouterr().out.count("), skipped") == 3
    assert main([*args, "--stages", "labels"]) == 2
    assert "this recipe's stages are ppo, evaluate, export" in capsys.readouterr().err


def test_a_recipe_without_distillation_or_start_runs_ppo_from_its_clone(tmp_path, capsys):
    """``stages: [clone, ppo, evaluate, export]`` and no ``start`` (behaviour cloning then PPO,
    the baseline table's MLP PPO as a recipe: configs/recipes/quickstart-mlp.yaml): PPO starts
    from the clone, which is its input; run again, every stage is skipped."""
    out = tmp_path / "run"
    args = [str(ROOT / "configs/recipes/quickstart-mlp.yaml"), "--smoke", "--out", str(out)]
    assert main(args) == 0
    assert "start: clone/model.pt" in capsys.readouterr().out
    rec = _records(out)
    assert sorted(rec) == ["clone", "evaluate", "export", "ppo"]
    assert rec["ppo"]["settings"]["start"] == "clone/model.pt"
    assert list(rec["ppo"]["inputs"]) == ["clone/model.pt"]
    assert load_checkpoint(out / "export" / "quickstart-mlp.safetensors")["rules"]["name"] == "huaihua"
    assert main(args) == 0
    assert capsys.readouterr().out.count("), skipped") == 4


def test_a_round_under_another_preset_ships_its_distilled_network(tmp_path, capsys):
    """Issue 62: ``start: zoo:huaihua`` with ``stages: [labels, distill, evaluate, export]`` under
    zipai: the search guided by the start labels zipai hands, the distillation starts from the
    start, and with no PPO the evaluation and the export read the distilled network. Run again,
    every stage is skipped."""
    out = tmp_path / "run"
    args = [str(ROOT / "configs/recipes/zipai.yaml"), "--smoke", "--out", str(out)]
    assert main(args) == 0
    start = zoo.network_path("huaihua")
    rec = _records(out)
    assert sorted(rec) == ["distill", "evaluate", "export", "labels"]
    assert f"guide=checkpoint:{start}," in rec["labels"]["settings"]["search"]
    # the search plays the start under zipai's rules: a copy whose sidecar names them
    guide = out / "labels" / "guide-zipai.safetensors"
    labels = json.loads((out / "labels" / "labels.json").read_text())["config"]
    assert labels["rules"] == "zipai" and f"guide=checkpoint:{guide}" in labels["search"]
    copy = load_checkpoint(guide)
    assert copy["rules"]["name"] == "zipai" and copy["transfer_from"]["rules"] == "huaihua"
    assert guide.read_bytes() == start.read_bytes()
    assert rec["distill"]["settings"]["start"] == str(start)
    distilled = "distill/checkpoints/distill__1/final.pt"
    assert list(rec["evaluate"]["inputs"]) == [distilled] == list(rec["export"]["inputs"])
    exported = load_checkpoint(out / "export" / "zipai.safetensors")
    assert exported["rules"]["name"] == "zipai"
    trained = load_checkpoint(out / distilled)
    assert all(torch.equal(trained["model"][k].float(), v.float()) for k, v in exported["model"].items()
               if k in trained["model"])
    assert json.loads((out / "evaluate" / "vs-expert.json").read_text())["deals"] == 12
    assert main(args) == 0
    assert capsys.readouterr().out.count("), skipped") == 4


def test_transfer_recipes_differ_only_in_their_rules_seed_and_length():
    """The PPO transfer recipes: the same network, start and PPO but for the length; each its own
    rules and test seed."""
    rs = [load_recipe(ROOT / f"configs/recipes/{p}.yaml") for p in TRANSFERS]
    assert [r.rules for r in rs] == list(TRANSFERS)
    assert len({r.stages["evaluate"]["seed"] for r in rs}) == len(rs)
    assert all(r.order == ("ppo", "evaluate", "export") for r in rs)
    assert all(r.start == str(zoo.network_path("huaihua")) for r in rs)
    steps = ("total_steps", "kl_decay_steps")
    same = [{k: v for k, v in r.stages["ppo"].items() if k not in steps} for r in rs]
    assert all(s == same[0] for s in same) and all(r.network == rs[0].network for r in rs)
    for r in rs:  # the KL penalty toward the start lifts half-way (issue 61)
        assert r.stages["ppo"]["kl_decay_steps"] * 2 == r.stages["ppo"]["total_steps"]


def test_round_recipes_differ_only_in_their_rules_and_seeds():
    """The rounds of expert iteration under classic and zipai: labels from the search guided by
    zoo:huaihua under the preset's rules, then distillation, with no PPO; the same settings
    but for the rules, the test seed and the number of hands (classic's halved to fit its time)."""
    rs = [load_recipe(ROOT / f"configs/recipes/{p}.yaml") for p in ROUNDS]
    assert all(r.order == ("labels", "distill", "evaluate", "export") for r in rs)
    assert all(r.start == str(zoo.network_path("huaihua")) for r in rs)
    assert len({r.stages["evaluate"]["seed"] for r in rs}) == len(rs)
    for r in rs:
        assert r.stages["labels"]["search"] == f"search:guide=checkpoint:{r.start}"
    assert rs[0].stages["distill"] == rs[1].stages["distill"] and rs[0].network == rs[1].network
    assert [r.stages["labels"]["hands"] for r in rs] == [10000, 20000]


def test_bad_transfers(tmp_path, capsys):
    fails = _refused(tmp_path, capsys)
    good = yaml.safe_load((ROOT / "configs/recipes/hongshanzhang.yaml").read_text())
    assert "unknown zoo name 'nope'" in fails({**good, "start": "zoo:nope"})
    assert "PPO starts from the recipe's start" in fails({k: v for k, v in good.items()
                                                          if k != "start"})
    assert "stages must be a list of stages" in fails({**good, "stages": ["ppo", "play"]})
    assert "stages must be a list of stages" in fails({**good, "stages": "ppo"})
    assert "the evaluate and export stages read PPO's network" in fails(
        {**{k: v for k, v in good.items() if k != "start"}, "stages": ["evaluate", "export"]})
    # a yongzhou network (observation v2) cannot start a huaihua run (v1)
    wrong = {**good, "rules": "huaihua", "start": "zoo:yongzhou"}
    path = tmp_path / "w.yaml"
    path.write_text(yaml.safe_dump(wrong))
    assert main([str(path), "--smoke", "--out", str(tmp_path / "w")]) == 2
    assert "but rules 'huaihua' produce paohuzi-obs-v1" in capsys.readouterr().err


def test_yongzhou_smoke(tmp_path):
    """The yongzhou recipe in miniature: two 王, observation v2, every stage."""
    out = tmp_path / "run"
    assert main([str(ROOT / "configs/recipes/yongzhou.yaml"), "--smoke", "--out", str(out)]) == 0
    exported = load_checkpoint(out / "export" / "yongzhou.safetensors")
    assert exported["obs_version"] == "paohuzi-obs-v2" and exported["rules"]["name"] == "yongzhou"


def test_recipes_differ_only_where_the_rules_do():
    """The two shipped recipes: the same network and PPO settings; their own rules, label
    count and evaluation seed (each fixed before any run)."""
    h, y = load_recipe(HUAIHUA), load_recipe(ROOT / "configs/recipes/yongzhou.yaml")
    assert (h.rules, y.rules) == ("huaihua", "yongzhou")
    assert h.network == y.network and h.stages["ppo"] == y.stages["ppo"]
    assert h.stages["evaluate"]["seed"] != y.stages["evaluate"]["seed"]
    quick = load_recipe(ROOT / "configs/recipes/quickstart.yaml")
    assert quick.network == h.network and quick.rules == "huaihua"
    # the README's quick start learns from the bots alone: no shipped network teaches, guides
    # or starts it (issue 40)
    assert "guide=none" in quick.stages["labels"]["search"]
    assert not any(v.get("init_from") for v in quick.stages.values() if isinstance(v, dict))
    assert not quick.stages["ppo"].get("opponent_agents")
    assert set(quick.stages["ppo"]["opponent_bots"]) <= {"expert", "greedy", "random"}
    smoke = load_recipe(HUAIHUA, smoke=True, seed=7)
    assert smoke.seed == 7 and smoke.stages["ppo"]["total_steps"] == 2048


def test_every_config_starts_from_committed_files():
    """Issue 40: no trainer config names a file a fresh clone lacks (``init_from``, a
    ``checkpoint:``/``network:`` opponent); a recipe's files are its own stages' outputs. Every
    path is checked against git's index, not the working tree (a local run folder would pass).
    A file that left HEAD may be named only by a config that says which commit holds it
    (``git checkout COMMIT -- PATH``, or the folder above it), and that commit holds it."""
    tracked = set(subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True,
                                 check=True).stdout.split("\n"))
    if len(tracked) < 10:
        pytest.skip("not a git checkout")
    named = []
    for path in sorted((ROOT / "configs").rglob("*.yaml")):
        if path.parent.name == "recipes":  # a round of expert iteration starts from a network
            start = (yaml.safe_load(path.read_text()) or {}).get("start")
            if start and start.startswith("zoo:"):  # a transfer: the zoo entry's committed file
                named.append((path, str(zoo.network_path(start[4:]).relative_to(ROOT))))
            elif start:
                named += [(path, start), (path, str(Path(start).with_suffix(".safetensors")))]
        if path.parent.name in ("recipes", "rules"):
            continue
        data = yaml.safe_load(path.read_text()) or {}
        if data.get("init_from"):
            named.append((path, data["init_from"]))
        for spec in (data.get("opponent_agents") or {}):
            head, _, tail = spec.partition(":")
            if head in ("checkpoint", "network"):
                named.append((path, tail))
    assert named, "expected at least one config that starts from a committed file"
    missing, elsewhere = [], []
    for c, f in named:
        if f in tracked:
            continue
        commits = named_commits(c.read_text(), f)
        if not commits:
            missing.append((c.name, f))
        elif any(holds(commit, f) is False for commit in commits):
            elsewhere.append((c.name, f, commits))
    assert not missing, f"configs naming files a fresh clone lacks, and no commit holding them: {missing}"
    assert not elsewhere, f"configs naming a commit that does not hold the file: {elsewhere}"


def test_a_guide_named_by_path_is_read_from_where_the_command_runs(tmp_path, monkeypatch):
    """``labels.search: search:guide=checkpoint:REL`` is resolved like ``start``: the labels
    record the absolute path, so a run folder's settings do not depend on where it is resumed."""
    from paohuzi_training.recipe import label_config, load_recipe

    recipe = tmp_path / "r.yaml"
    recipe.write_text(yaml.safe_dump({
        "name": "g", "rules": "huaihua", "seed": 1, "network": {}, "clone": {"bc_steps": 1},
        "distill": {},
        "ppo": {}, "evaluate": {},
        "labels": {"hands": 4, "search": "search:samples=4,guide=checkpoint:g.safetensors"}}))
    guide = ROOT / "paohuzi_env" / "zoo" / "huaihua" / "gen3-r4-oracle" / "network.safetensors"
    shutil.copy(guide, tmp_path / "g.safetensors")
    shutil.copy(guide.with_suffix(".json"), tmp_path / "g.json")
    monkeypatch.chdir(tmp_path)
    r = load_recipe(recipe)
    monkeypatch.chdir(ROOT)  # a recipe runs its stages inside the run folder
    search = label_config(r).search
    assert search == f"search:samples=4,guide=checkpoint:{tmp_path / 'g.safetensors'}"


@pytest.mark.parametrize("path", sorted(p for p in (ROOT / "configs").rglob("recipes/*.yaml")
                                         if "history" not in p.parts),
                         ids=lambda p: str(p.relative_to(ROOT / "configs")))
def test_a_recipes_ppo_lifts_its_kl_penalty_well_before_its_end(path):
    """Generation 3's rounds tied PPO to the distilled network by a penalty that never lifted
    (kl_decay_steps = total_steps), and their PPO gained half of what it could. Since then a
    recipe's PPO stage has no KL penalty, or lifts it by three quarters of its steps at the
    latest (the history recipes keep what was run)."""
    ppo = (yaml.safe_load(path.read_text()) or {}).get("ppo") or {}
    if ppo.get("kl_coef", 0) > 0:
        decay, total = ppo.get("kl_decay_steps", 0), ppo.get("total_steps", 2_000_000)
        assert 0 < decay <= 0.75 * total, (path.name, decay, total)


@pytest.mark.parametrize("path", sorted((ROOT / "configs").rglob("recipes/*.yaml")),
                         ids=lambda p: str(p.relative_to(ROOT / "configs")))
def test_every_committed_recipe_loads(path, monkeypatch, tmp_path):
    """The recipes, and those of configs/history/ that made generation 3's networks, still load
    (their starts and guides are committed files, read from the repository root). A history
    recipe whose start or guide left HEAD names the commit that holds it in its header and loads
    with those files as that commit has them (skipped where that history is not at hand)."""
    data = yaml.safe_load(path.read_text()) or {}
    files = ([data["start"]] if str(data.get("start", "zoo:")).partition(":")[0] != "zoo" else []) + \
        re.findall(r"guide=checkpoint:([^,\s]+)", json.dumps(data))
    gone = [f for f in files if not (ROOT / f).is_file()]
    monkeypatch.chdir(ROOT)
    if gone:
        assert path.parent.parent.name == "history", f"{path.name} names files not in the tree: {gone}"
        for f in gone:
            commits = named_commits(path.read_text(), f)
            assert commits, f"{path.name}'s header names no commit holding {f}"
            (tmp_path / f).parent.mkdir(parents=True, exist_ok=True)
            if restore(f, (tmp_path / f).parent, commits[0]) is None:
                pytest.skip(f"{f} left HEAD; the history holding it ({commits[0]}) is not at hand")
        assert not [f for f in files if f not in gone], "a recipe mixing both is not expected"
        monkeypatch.chdir(tmp_path)
    r = load_recipe(path)
    assert r.name and all(r.stages[s] for s in ("ppo", "distill") if s in r.order)


def test_a_stages_record_is_written_by_one_writer_at_a_time(tmp_path, monkeypatch):
    """The record's ticking thread and the stage's own writes never overlap: write_atomic
    removes the temporary files of a writer of the same path it takes for killed, and a
    concurrent write's is one (a final write once failed with FileNotFoundError)."""
    import threading
    import time

    from paohuzi_training import recipe

    monkeypatch.chdir(tmp_path)
    busy = threading.Lock()
    overlaps = []
    real = recipe.write_atomic

    def slow_write(path, blob):
        if not busy.acquire(blocking=False):
            overlaps.append(path)
            return
        try:
            time.sleep(0.002)
            real(path, blob)
        finally:
            busy.release()

    monkeypatch.setattr(recipe, "write_atomic", slow_write)
    monkeypatch.setattr(recipe._Clock, "TICK_S", 0.0005)
    with recipe._Clock("ppo", {"stage": "ppo"}) as clock:
        for k in range(200):
            clock.write(step=k)
        clock.write(complete=True)
    assert overlaps == []
    assert json.loads((tmp_path / "ppo" / "stage.json").read_text())["complete"] is True
    assert not list((tmp_path / "ppo").glob("*.tmp"))
