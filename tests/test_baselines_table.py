"""The baseline table (paohuzi_training/baselines/table.py, issue 64): a miniature run of each of
the six algorithms leaves agents that paohuzi-eval plays, the table writer's rows, and the
``mlp:`` spec that plays the exported MaskablePPO and NFSP policies (data only, no pickle)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")

from paohuzi_env.agents import make_agent  # noqa: E402
from paohuzi_env.encode.observation import obs_size  # noqa: E402
from paohuzi_env.envs.mlp_policy import load_mlp_policy, write_mlp_policy  # noqa: E402
from paohuzi_env.game.actions import NUM_ACTIONS  # noqa: E402
from paohuzi_env.game.engine import Game  # noqa: E402
from paohuzi_training.baselines import table  # noqa: E402
from paohuzi_training.eval.evaluate import evaluate  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
TINY = {
    "dmc": ["num_actors=0", "hidden=16", "batch_size=64", "hands_per_actor=8", "chunk=64"],
    "maskable-ppo": ["n_envs=1", "n_steps=64", "batch_size=32", "net_arch=[16,16]"],
    "nfsp": ["hidden=16", "min_buffer=64", "batch=32", "buffer=2000"],
    "rllib-ppo": ["num_env_runners=0", "train_batch_size=256", "minibatch_size=64",
                  "num_epochs=1", "hiddens=[16,16]"],
}


def check_run(out: Path, algorithm: str, minutes: float) -> dict:
    """The run's record has its four points, each a spec paohuzi-eval plays for two deals."""
    rec = table.read_run(out)
    assert rec["algorithm"] == algorithm and rec["budget_minutes"] == minutes
    assert [p["fraction"] for p in rec["curve"]] == list(table.FRACTIONS)
    assert [p["minutes"] for p in rec["curve"]] == [table.point_minutes(minutes, f)
                                                    for f in table.FRACTIONS]
    steps = [p["steps"] for p in rec["curve"]]
    assert steps == sorted(steps) and steps[-1] > 0
    final = table.spec_of(out, rec["curve"][-1])
    res = evaluate(final, "expert", deals=2, seed=3, workers=1, progress=False)
    assert res["deals"] == 2 and res["games"] == 6
    return rec


def mini(tmp: Path, algorithm: str, minutes: float, **kw) -> Path:
    out = tmp / algorithm
    table.train(algorithm, minutes, out, seed=1, sets=TINY.get(algorithm, []), **kw)
    return out


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> Path:
    """A miniature DMC run (3 s of budget): the table writer's tests read it."""
    root = tmp_path_factory.mktemp("baselines")
    mini(root, "dmc", 0.05)
    return root


def test_miniature_dmc_run_plays(runs):
    rec = check_run(runs / "dmc", "dmc", 0.05)
    assert {p["kind"] for p in rec["curve"]} == {"network"}
    assert rec["complete"] and rec["library"] == table.LIBRARIES["dmc"]


@pytest.mark.slow  # 6 s of budget each, beside their libraries' start; in .ci/run's slow slice
@pytest.mark.parametrize("algorithm", ["maskable-ppo", "nfsp"])
def test_miniature_run_plays(tmp_path, algorithm):
    rec = check_run(mini(tmp_path, algorithm, 0.1), algorithm, 0.1)
    assert {p["kind"] for p in rec["curve"]} == {"mlp"}
    assert rec["complete"] and rec["library"] == table.LIBRARIES[algorithm]


@pytest.mark.slow
def test_miniature_ppo_mlp(tmp_path):
    """More steps than the budget allows: the harness's SIGTERM stops it, it saves, and its
    last checkpoint is the final point."""
    out = tmp_path / "ppo-mlp"
    table.train("ppo-mlp", 0.5, out, seed=1, config=ROOT / "configs" / "ppo-tiny.yaml",
                sets=["final_eval_deals=0", "eval_every=0", "total_steps=100000000"])
    rec = check_run(out, "ppo-mlp", 0.5)
    assert {p["kind"] for p in rec["curve"]} == {"network"}
    assert any(n.startswith("stopped at") for n in rec["notes"])
    assert rec["curve"][-1]["source"].endswith("latest.pt")


@pytest.mark.slow
def test_miniature_recipe(tmp_path):
    import yaml

    recipe = yaml.safe_load((table.CONFIGS / "recipes" / "recipe-60min.yaml").read_text(encoding="utf-8"))
    for stage, overrides in recipe.pop("smoke").items():  # the recipe's own miniature
        recipe.setdefault(stage, {}).update(overrides)
    config = tmp_path / "tiny-recipe.yaml"
    config.write_text(yaml.safe_dump(recipe), encoding="utf-8")
    out = tmp_path / "recipe"
    # PPO's steps beyond any budget: the harness's SIGTERM stops the recipe, which saves
    table.train("recipe", 2.0, out, seed=1, config=config, sets=["ppo.total_steps=100000000"])
    rec = check_run(out, "recipe", 2.0)
    assert rec["curve"][-1]["source"].endswith(".pt")
    assert any(n.startswith("stopped at") for n in rec["notes"])


@pytest.mark.slow
def test_miniature_rllib_ppo(tmp_path):
    pytest.importorskip("ray.rllib")
    out = mini(tmp_path, "rllib-ppo", 0.5)
    rec = check_run(out, "rllib-ppo", 0.5)
    assert {p["kind"] for p in rec["curve"]} == {"mlp"}
    # the exported policy plays as RLlib's own checkpoint does
    final = rec["curve"][-1]
    ours, theirs = make_agent(table.spec_of(out, final)), make_agent(f"rllib:{out / final['checkpoint']}")
    for seed in range(5):
        game = Game(seed=seed)
        view = game.view(game.current_player)
        assert ours(view) == theirs(view)


def test_default_configs_are_the_documented_scalings():
    """The 60-minute configs are the quick start and configs/ppo.yaml with only the documented
    keys changed."""
    import yaml

    def load(p):
        return yaml.safe_load(Path(p).read_text(encoding="utf-8"))

    quick = load(ROOT / "configs/recipes/quickstart.yaml")
    ours = load(table.CONFIGS / "recipes" / "recipe-60min.yaml")
    assert ours["ppo"].pop("total_steps") == 10_000_000
    assert ours["ppo"].pop("kl_decay_steps") == 6_600_000
    assert ours["ppo"].pop("save_minutes") == 1
    for k in ("total_steps", "kl_decay_steps", "save_minutes"):
        quick["ppo"].pop(k)
    assert ours.pop("name") != quick.pop("name") and ours == quick
    assert "start" not in ours  # no shipped network anywhere
    ppo, base = load(table.CONFIGS / "ppo-mlp-60min.yaml"), load(ROOT / "configs/ppo.yaml")
    changed = {k for k in ppo if ppo[k] != base.get(k)}
    assert changed == {"run_name", "total_steps", "eval_every", "final_eval_deals", "save_minutes"}


# ----------------------------------------------------------------------- the table writer


def fake_run(root: Path, src: Path, algorithm: str) -> None:
    """A hand-made record of ``algorithm`` over a miniature run's files (the writer's pairing
    needs a recipe row, and no recipe run takes seconds; the other rows stand in for runs that
    take longer, under -m slow)."""
    dst = root / algorithm
    shutil.copytree(src, dst)
    rec = json.loads((dst / table.MANIFEST).read_text(encoding="utf-8"))
    rec["algorithm"], rec["library"] = algorithm, table.LIBRARIES[algorithm]
    (dst / table.MANIFEST).write_text(json.dumps(rec), encoding="utf-8")


def test_table_rows_and_files(runs, tmp_path):
    root = tmp_path / "runs"
    root.mkdir()
    shutil.copytree(runs / "dmc", root / "dmc")
    for name in ("recipe", "maskable-ppo", "nfsp"):
        fake_run(root, runs / "dmc", name)
    out = tmp_path / "results" / "baselines.json"
    rc = table.main(["eval", "--runs", str(root), "--deals", "2", "--curve-deals", "1",
                     "--seed", "7", "--out", str(out), "--workers", "1"])
    assert rc == 0
    data = json.loads(out.read_text(encoding="utf-8"))
    assert [r["algorithm"] for r in data["rows"]] == ["recipe", "dmc", "nfsp", "maskable-ppo"]
    fields = {"algorithm", "library", "budget", "steps", "spec", "mean_points", "ci95", "deals",
              "seed", "curve"}
    for r in data["rows"]:
        assert fields <= set(r), fields - set(r)
        assert r["deals"] == 2 and r["seed"] == 7 and len(r["curve"]) == 4
        for c in r["curve"]:
            assert {"minutes", "steps", "spec", "mean_points", "ci95", "deals"} <= set(c)
            assert c["deals"] == 1
        assert make_agent(r["spec"], seed=0) is not None
    # every row plays the DMC run's network: the same deals give the same points, and the
    # recipe's paired gain over the best other row is exactly 0
    assert len({r["mean_points"] for r in data["rows"]}) == 1
    vs = data["recipe_vs_best"]
    assert vs["deals"] == 2 and vs["best_other"] in ("dmc", "nfsp", "maskable-ppo")
    assert vs["mean_points"] == 0.0
    assert out.with_suffix(".png").stat().st_size > 0
    md = out.with_suffix(".md").read_text(encoding="utf-8")
    assert md.count("\n| ") >= 4 and "best other algorithm (" in md


def test_each_evaluation_is_made_once(runs, tmp_path):
    """A table assembled again (a run added later, another session) reads back the evaluations
    already made on the same deals and seed instead of playing them again; an agent whose files
    changed since is refused; another seed is measured anew."""
    root = tmp_path / "runs"
    shutil.copytree(runs / "dmc", root / "dmc")
    calls: list[tuple[str, int, int]] = []

    def counted(spec, opponent, **kw):
        calls.append((spec, kw["deals"], kw["seed"]))
        return evaluate(spec, opponent, **kw)

    first = table.table_rows(root, deals=2, curve_deals=1, seed=5, workers=1, evaluate=counted)
    assert [d for _, d, _ in calls] == [2, 1, 1, 1, 1]  # the final agent, then the four points
    kept = sorted(p.name for p in (root / "dmc" / table.EVALS).iterdir())
    assert len(kept) == 5 and all(n.endswith("-seed-5.json") for n in kept)
    calls.clear()
    again = table.table_rows(root, deals=2, curve_deals=1, seed=5, workers=1, evaluate=counted)
    assert calls == [] and again == first
    table.table_rows(root, deals=2, curve_deals=1, seed=6, workers=1, evaluate=counted)
    assert len(calls) == 5 and {s for _, _, s in calls} == {6}
    rec = table.read_run(root / "dmc")
    final = root / "dmc" / rec["curve"][-1]["file"]
    final.write_bytes(final.read_bytes() + b" ")
    with pytest.raises(ValueError, match="measured on other files"):
        table.table_rows(root, deals=2, curve_deals=1, seed=5, workers=1, evaluate=counted)


def test_ship_copies_the_final_agents_and_points_the_rows_at_them(runs, tmp_path):
    """``eval --ship DIR`` copies each final agent byte for byte (its sidecar too) to
    DIR/ALGO.safetensors, the row's spec names the copy (which plays the same points on the same
    deals) and ``run_spec`` the run's file; a different file already there is refused."""
    root = tmp_path / "runs"
    shutil.copytree(runs / "dmc", root / "dmc")
    dest, out = tmp_path / "ship", tmp_path / "baselines.json"
    argv = ["eval", "--runs", str(root), "--deals", "2", "--curve-deals", "1", "--seed", "5",
            "--out", str(out), "--workers", "1", "--ship", str(dest)]
    assert table.main(argv) == 0
    row = json.loads(out.read_text(encoding="utf-8"))["rows"][0]
    final = root / "dmc" / table.read_run(root / "dmc")["curve"][-1]["file"]
    assert row["run_spec"] == f"network:{final.as_posix()}"
    assert row["spec"] == f"network:{(dest / 'dmc.safetensors').as_posix()}"
    for suffix in (".safetensors", ".json"):
        assert (dest / f"dmc{suffix}").read_bytes() == final.with_suffix(suffix).read_bytes()
    again = evaluate(row["spec"], "expert", deals=2, seed=5, workers=1, progress=False)
    assert again["mean_points"] == row["mean_points"]
    assert table.main(argv) == 0  # shipping the same bytes again is allowed
    (dest / "dmc.safetensors").write_bytes(b"other")
    assert table.main(argv) == 2


def test_bad_run_folders_are_named(runs, tmp_path):
    root = tmp_path / "runs"
    (root / "empty").mkdir(parents=True)
    with pytest.raises(ValueError, match=r"empty is not a baseline run: it has no run\.json"):
        table.table_rows(root, deals=1, curve_deals=1, seed=0)
    shutil.rmtree(root / "empty")
    shutil.copytree(runs / "dmc", root / "dmc")
    rec = json.loads((root / "dmc" / table.MANIFEST).read_text(encoding="utf-8"))
    (root / "dmc" / rec["curve"][-1]["file"]).unlink()
    with pytest.raises(ValueError, match="not in"):
        table.table_rows(root, deals=1, curve_deals=1, seed=0)
    rec["complete"] = False
    (root / "dmc" / table.MANIFEST).write_text(json.dumps(rec), encoding="utf-8")
    with pytest.raises(ValueError, match="did not finish"):
        table.table_rows(root, deals=1, curve_deals=1, seed=0)
    with pytest.raises(ValueError, match="is not a folder"):
        table.table_rows(tmp_path / "nowhere", deals=1, curve_deals=1, seed=0)
    assert table.main(["eval", "--runs", str(tmp_path / "nowhere"), "--seed", "1",
                       "--out", str(tmp_path / "x.json")]) == 2


def test_run_refuses_bad_arguments(tmp_path):
    with pytest.raises(ValueError, match="algorithm must be one of"):
        table.train("ppo2", 1, tmp_path / "a")
    with pytest.raises(ValueError, match="positive"):
        table.train("dmc", 0, tmp_path / "b")
    with pytest.raises(ValueError, match="KEY=VALUE"):
        table.train("dmc", 1, tmp_path / "c", sets=["hidden"])
    with pytest.raises(ValueError, match="dmc has no setting nope"):
        table.train("dmc", 1, tmp_path / "d", sets=["nope=1"])


def test_point_names():
    assert table.point_name(10.0) == "curve-10min" and table.point_name(0.05) == "curve-0.05min"
    assert [table.point_minutes(60, f) for f in table.FRACTIONS] == [10, 20, 30, 60]


# ----------------------------------------------------------------------- the mlp: spec


def tiny_layers(rng, activation_out=NUM_ACTIONS):
    n = obs_size("huaihua")
    return [(rng.normal(size=(8, n)).astype(np.float32), rng.normal(size=8).astype(np.float32)),
            (rng.normal(size=(activation_out, 8)).astype(np.float32),
             rng.normal(size=activation_out).astype(np.float32))]


@pytest.mark.parametrize("activation", ["relu", "tanh"])
def test_mlp_policy_plays_its_forward_pass(tmp_path, activation):
    rng = np.random.default_rng(0)
    layers = tiny_layers(rng)
    path = write_mlp_policy(tmp_path / "p.safetensors", layers, activation=activation,
                            play="argmax", rules="huaihua", library="test", algorithm="x", steps=3)
    agent = make_agent(f"mlp:{path}", seed=0)
    game = Game(seed=5)
    view = game.view(game.current_player)
    from paohuzi_env.encode.observation import encode

    x = encode(view)
    act = np.tanh if activation == "tanh" else (lambda v: np.maximum(v, 0))
    logits = layers[1][0] @ act(layers[0][0] @ x + layers[0][1]) + layers[1][1]
    legal = list(view.legal)
    assert agent(view) == legal[int(np.argmax(logits[legal]))]


def test_mlp_policy_samples_legal_actions_from_its_seed(tmp_path):
    rng = np.random.default_rng(1)
    path = write_mlp_policy(tmp_path / "p.safetensors", tiny_layers(rng), activation="relu",
                            play="sample", rules="huaihua", library="test", algorithm="x", steps=0)
    game = Game(seed=2)
    view = game.view(game.current_player)
    picks = [load_mlp_policy(path, seed=9)(view) for _ in range(2)]
    assert picks[0] == picks[1] and picks[0] in view.legal


def test_mlp_policy_refuses_bad_files(tmp_path):
    rng = np.random.default_rng(2)
    path = write_mlp_policy(tmp_path / "p.safetensors", tiny_layers(rng), activation="relu",
                            play="argmax", rules="huaihua", library="test", algorithm="x", steps=0)
    with pytest.raises(ValueError, match="trained under rules 'huaihua'"):
        load_mlp_policy(path, rules="yongzhou")
    with pytest.raises(ValueError, match="last gives 61 logits"):
        write_mlp_policy(tmp_path / "q.safetensors", tiny_layers(rng, 60), activation="relu",
                         play="argmax", rules="huaihua", library="t", algorithm="x", steps=0)
    with pytest.raises(ValueError, match="activation must be one of"):
        write_mlp_policy(tmp_path / "q.safetensors", tiny_layers(rng), activation="gelu",
                         play="argmax", rules="huaihua", library="t", algorithm="x", steps=0)
    blob = bytearray(path.read_bytes())
    blob[-1] ^= 1
    path.write_bytes(bytes(blob))
    with pytest.raises(ValueError, match="SHA-256 differs"):
        load_mlp_policy(path)
    path.with_suffix(".json").unlink()
    with pytest.raises(ValueError, match="no sidecar"):
        load_mlp_policy(path)
    with pytest.raises(ValueError, match="name the policy's .safetensors"):
        load_mlp_policy(tmp_path / "p.zip")


def test_the_shipped_baseline_networks_match_their_cards():
    """Each network of checkpoints/baselines/ has its card, whose SHA-256 is the file's, and plays
    through paohuzi-eval's evaluate."""
    import hashlib
    import re

    nets = sorted((ROOT / "checkpoints" / "baselines").glob("*.safetensors"))
    assert nets, "checkpoints/baselines/ holds the table's trained results"
    rows = json.loads((ROOT / "docs/results/baselines.json").read_text(encoding="utf-8"))["rows"]
    kinds = {r["algorithm"]: r["spec"].partition(":")[0] for r in rows}  # network: or mlp:
    for net in nets:
        card = net.with_suffix(".md").read_text(encoding="utf-8")
        sha = re.search(r"SHA-256 `([0-9a-f]{64})`", card)
        assert sha and sha.group(1) == hashlib.sha256(net.read_bytes()).hexdigest(), net.name
        res = evaluate(f"{kinds[net.stem]}:{net}", "expert", deals=2, seed=1, workers=1,
                       progress=False)
        assert res["games"] == 6
