"""The PPO trainer: a tiny real run, resume, checkpoint validation, configs, masking."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from paohuzi_env.agents import make_agent  # noqa: E402
from paohuzi_env.game.actions import NUM_ACTIONS  # noqa: E402
from paohuzi_env.game.engine import Game  # noqa: E402
from paohuzi_training.config import to_dict  # noqa: E402
from paohuzi_training.eval.evaluate import evaluate  # noqa: E402
from paohuzi_training.nets.checkpoint import (  # noqa: E402
    export_policy,
    load_checkpoint,
    save_checkpoint,
    slim_checkpoint,
)
from paohuzi_training.nets.model import MASK_VALUE, ActorCritic, model_for  # noqa: E402
from paohuzi_training.recipe import TrainConfig, load_config, make_config  # noqa: E402
from paohuzi_training.stages.rollout import Rollout, hand_reward  # noqa: E402
from paohuzi_training.train import train  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def _reference(cfg):
    """The same config on the reference engine (these tests check the Python rollout; the
    compiled core's are in tests/test_vector_rollout.py)."""
    return cfg.replace(backend="python")


def _tiny(**kw):
    values = dict(run_name="t", total_steps=600, workers=1, games_per_worker=8,
                  steps_per_worker=500, hidden=32, minibatch_size=128, update_epochs=1,
                  opponent_bots={"greedy": 0.3}, snapshot_every=1, eval_every=0,
                  final_eval_deals=0, save_every=1)
    values.update(kw)
    return make_config(values)


def test_tiny_training_run_resumes_and_evaluates(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    cfg = _tiny(bc_steps=120, bc_epochs=1, total_steps=1500)
    final = train(cfg, log=lambda *a: None)
    assert (tmp_path / "checkpoints" / "t__1" / "bc-120.npz").is_file()  # cached demonstrations
    data = load_checkpoint(final, rules_name="huaihua")
    assert data["global_step"] >= 1500
    assert data["obs_version"] == "paohuzi-obs-v1"
    assert (tmp_path / "runs" / "t__1").is_dir()  # TensorBoard run folder
    first_steps = data["global_step"]
    # resume with more steps: continues from the saved counters, no progress lost
    cfg2 = _tiny(total_steps=3000, bc_steps=120, bc_epochs=1)
    final2 = train(cfg2, resume=str(tmp_path / "checkpoints" / "t__1" / "latest.pt"),
                   log=lambda *a: None)
    data2 = load_checkpoint(final2)
    assert data2["global_step"] >= 3000 and data2["global_step"] > first_steps
    # snapshots are frozen copies of past weights, not views of the live ones
    snap = data2["snapshots"][0]
    assert any(not torch.equal(snap[k], data2["model"][k]) for k in snap)
    assert data2["iteration"] > data["iteration"]
    # evaluated through the harness
    res = evaluate(f"checkpoint:{final2}", "random", deals=2, seed=0, workers=1, progress=False)
    assert res["games"] == 6
    # a play-only export is smaller, still plays, and cannot be resumed
    small = export_policy(final2, tmp_path / "policy.pt")
    assert small.stat().st_size < final2.stat().st_size
    with pytest.raises(ValueError, match="without a prior"):
        export_policy(final2, tmp_path / "p2.pt", prior_weight=5.0)
    g1 = Game(seed=1)
    assert make_agent(f"checkpoint:{small}", seed=0)(g1.view(g1.current_player)) in g1.legal_actions()
    with pytest.raises(ValueError, match="play-only"):
        train(cfg2, resume=str(small), log=lambda *a: None)
    with pytest.raises(ValueError, match="play-only"):
        slim_checkpoint(small, tmp_path / "s.pt")
    # a slimmed copy drops only the snapshot pool, and the run resumes from it
    slim = slim_checkpoint(final2, tmp_path / "slim.pt")
    data3 = load_checkpoint(slim)
    assert data3["snapshots"] == [] and data3["global_step"] == data2["global_step"]
    assert slim.stat().st_size < final2.stat().st_size
    final3 = train(_tiny(total_steps=3600, bc_steps=120, bc_epochs=1), resume=str(slim),
                   log=lambda *a: None)
    assert load_checkpoint(final3)["global_step"] >= 3600
    # the harness spec loads it and plays legal moves
    agent = make_agent(f"checkpoint:{final2}", seed=0)
    g = Game(seed=0)
    while not g.done:
        s = g.current_player
        a = agent(g.view(s)) if s == 0 else g.legal_actions()[0]
        assert a in g.legal_actions()
        g.step(a)


def test_narrow_critic_and_bfloat16_update(tmp_path, monkeypatch):
    """critic_hidden sizes the critic alone; update_precision bfloat16 trains (logits and
    log-probabilities stay float32, so a batch's recomputed log-probabilities match the
    rollout's to bfloat16's rounding of the layers), and the checkpoint plays as an agent."""
    from paohuzi_training.nets.model import model_for
    from paohuzi_training.nets.policy import load_checkpoint_agent
    from paohuzi_training.tools.bench import _random_batch

    monkeypatch.chdir(tmp_path)
    cfg = _tiny(critic_hidden=8, update_precision="bfloat16", central_critic=True,
                total_steps=1000)
    model = model_for(cfg)
    assert model.critic[0].out_features == 8 and model.actor[0].out_features == 32
    b = _random_batch(cfg, 256, np.random.default_rng(0))
    o, m, a = (torch.from_numpy(b[k]) for k in ("obs", "mask", "action"))
    e = torch.from_numpy(b["extra"])
    with torch.no_grad():
        lp32, _, v32 = model.evaluate(o, m, a, e)
        with torch.autocast("cpu", torch.bfloat16):
            lp16, _, v16 = model.evaluate(o, m, a, e)
    assert lp16.dtype == torch.float32 and v16.dtype == torch.float32
    assert 0 < (lp16 - lp32).abs().max() < 0.05
    final = train(cfg, log=lambda *a: None)
    agent = load_checkpoint_agent(str(final), seed=0, rules="huaihua")

    g = Game(seed=3)
    assert agent(g.view(g.current_player)) in g.legal_actions()
    from paohuzi_training.stages.housekeeping import bfloat16_update

    assert not bfloat16_update("float32", "cpu") and bfloat16_update("bfloat16", "cpu")
    assert bfloat16_update("auto", "cpu") == torch.ops.mkldnn._is_mkldnn_bf16_supported()
    with pytest.raises(ValueError, match="update_precision' must be float32, bfloat16 or auto"):
        _tiny(update_precision="float16")
    with pytest.raises(ValueError, match="critic_hidden"):
        _tiny(critic_hidden=-1)


def test_resume_refuses_a_changed_config(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    train(_tiny(total_steps=300), log=lambda *a: None)
    with pytest.raises(ValueError, match="hidden"):
        train(_tiny(hidden=16), resume=str(tmp_path / "checkpoints/t__1/latest.pt"),
              log=lambda *a: None)


def test_checkpoint_errors_are_clear(tmp_path):
    bad = tmp_path / "bad.pt"
    bad.write_bytes(b"not a checkpoint at all")
    with pytest.raises(ValueError, match="corrupt"):
        load_checkpoint(bad)
    with pytest.raises(ValueError, match="does not exist"):
        load_checkpoint(tmp_path / "none.pt")
    other = tmp_path / "other.pt"
    torch.save({"hello": 1}, other)
    with pytest.raises(ValueError, match="not a paohuzi PPO checkpoint"):
        load_checkpoint(other)
    good = tmp_path / "good.pt"
    save_checkpoint(good, {"rules": {"name": "classic", "overrides": {}}, "config": {}})
    with pytest.raises(ValueError, match="trained under rules 'classic'"):
        load_checkpoint(good, rules_name="huaihua")
    data = torch.load(good, weights_only=True)
    data["obs_version"] = "paohuzi-obs-v0"
    torch.save(data, good)
    with pytest.raises(ValueError, match="observation"):
        load_checkpoint(good)
    # atomic write leaves no temporary file behind
    assert not [p for p in os.listdir(tmp_path) if p.endswith(".tmp")]


@pytest.mark.parametrize("name", sorted(str(p.relative_to(ROOT / "configs"))
                                         for p in (ROOT / "configs").rglob("*.yaml")
                                         if p.parent.name not in ("recipes", "rules")))
def test_every_committed_config_loads(name):
    """Each trainer config in configs/ and configs/history/ validates (keys, types, rules
    preset, option pairs)."""
    cfg = load_config(ROOT / "configs" / name)
    assert (cfg.total_steps > 0 or cfg.distill_labels) and cfg.run_name


def test_config_loading_and_errors(tmp_path):
    cfg = load_config(ROOT / "configs" / "ppo.yaml")
    assert isinstance(cfg, TrainConfig)
    assert load_config(ROOT / "configs" / "ppo-tiny.yaml").total_steps == 4000
    # 2e-5 (no dot) is a string to YAML 1.1, a float to the config
    assert load_config(ROOT / "configs" / "ppo-tiny.yaml", ["learning_rate=2e-5"]).learning_rate == 2e-5
    over = load_config(ROOT / "configs" / "ppo-tiny.yaml", ["total_steps=10", "target_kl=none"])
    assert over.total_steps == 10 and over.target_kl is None
    with pytest.raises(ValueError, match="unknown config key"):
        load_config(None, ["learning_rat=1"])
    with pytest.raises(ValueError, match="must be int"):
        load_config(None, ["total_steps=lots"])
    with pytest.raises(ValueError, match="unknown rules preset"):
        make_config({"rules": "changsha"})
    with pytest.raises(ValueError, match="unknown bot"):
        make_config({"opponent_bots": {"alphago": 1.0}})
    f = tmp_path / "c.yaml"
    f.write_text("- a list\n")
    with pytest.raises(ValueError, match="mapping"):
        load_config(f)
    assert to_dict(cfg)["rules"] == "huaihua"


def test_masked_policy_never_picks_illegal_actions_and_entropy_is_over_legal():
    model = ActorCritic(hidden=16)
    obs = torch.randn(64, 763).clamp(0, 1)
    mask = torch.zeros(64, NUM_ACTIONS, dtype=torch.bool)
    rng = np.random.default_rng(0)
    for i in range(64):
        mask[i, rng.choice(NUM_ACTIONS, size=1 + i % 5, replace=False)] = True
    with torch.no_grad():
        logits = model.masked_logits(obs, mask)
    assert torch.isfinite(logits).all()
    assert (logits[~mask] == MASK_VALUE).all()
    probs = torch.softmax(logits, -1)
    assert float(probs[~mask].max()) < 1e-30
    action = torch.distributions.Categorical(probs=probs).sample()
    assert mask[torch.arange(64), action].all()
    logp, entropy, value = model.evaluate(obs, mask, action)
    single = mask.sum(-1) == 1
    assert torch.allclose(entropy[single], torch.zeros_like(entropy[single]), atol=1e-6)
    assert (entropy <= torch.log(mask.sum(-1).float()) + 1e-5).all()


def test_rollout_transitions_and_rewards():
    cfg = _tiny(opponent_self=1.0, opponent_snapshots=0.0, opponent_bots={"greedy": 0.0})
    roll = Rollout(_reference(cfg), np.random.SeedSequence(0))
    batch = roll.collect(200)
    n = len(batch["action"])
    assert n >= 200
    assert batch["stats"]["invalid_actions"] == 0
    assert batch["mask"][np.arange(n), batch["action"]].all()
    assert np.allclose(batch["ret"], batch["adv"] + batch["value"])
    assert hand_reward((6, -3, -3), 0, "score", 0) == 6.0
    assert hand_reward((6, -3, -3), 1, "win", 0) == -0.5
    assert hand_reward((128, -64, -64), 0, "normalized", 0) == 1.0


def test_a_fresh_network_with_the_expert_prior_plays_exactly_like_expert():
    """Residual policy learning: near-zero network logits + the prior's bonus = the prior's
    argmax choice at every decision, so training starts from the bot's strength."""
    from paohuzi_training.nets.policy import PolicyAgent

    torch.manual_seed(0)
    model = ActorCritic(hidden=32, prior="expert", prior_weight=4.0)
    model.eval()
    agent = PolicyAgent(model, seed=0)
    expert = make_agent("expert", seed=0)
    rng = np.random.default_rng(3)
    checked = 0
    for _ in range(8):
        g = Game("huaihua", seed=int(rng.integers(2**31)))
        while not g.done:
            v = g.view(g.current_player)
            a = expert(v)
            assert agent(v) == a
            checked += len(v.legal) > 1
            g.step(a)
    assert checked > 50
    # the one-hot choice is an input: without it the network refuses to act
    with pytest.raises(ValueError, match="prior"):
        model.masked_logits(torch.zeros(1, 763), torch.ones(1, NUM_ACTIONS, dtype=torch.bool))


def test_prior_config_is_validated_and_trains(tmp_path, monkeypatch):
    with pytest.raises(ValueError, match="prior"):
        make_config({"prior": "oracle"})
    with pytest.raises(ValueError, match="bc_steps"):
        make_config({"prior": "expert", "bc_steps": 100})
    monkeypatch.chdir(tmp_path)
    cfg = _tiny(prior="expert", total_steps=500, opponent_bots={"expert": 0.5})
    final = train(cfg, log=lambda *a: None)
    data = load_checkpoint(final)
    assert data["config"]["prior"] == "expert"
    agent = make_agent(f"checkpoint:{final}", seed=0)
    assert agent.prior is not None and agent.prior.name == "expert"
    # an export may play with a larger prior bonus: the network's output is unchanged
    bold = export_policy(final, tmp_path / "bold.pt", prior_weight=9.0)
    bold_agent = make_agent(f"checkpoint:{bold}", seed=0)
    assert bold_agent.model.prior_weight == 9.0 and agent.model.prior_weight == 4.0
    with pytest.raises(ValueError, match="prior-weight must be >= 0"):
        export_policy(final, tmp_path / "neg.pt", prior_weight=-1.0)
    roll = Rollout(_reference(cfg), np.random.SeedSequence(1))
    batch = roll.collect(100)
    n = len(batch["action"])
    assert batch["mask"][np.arange(n), batch["prior"]].all()  # the prior's choices are legal


def test_duplicate_deal_baseline_cancels_the_deal():
    """A learner that always plays expert's choice scores exactly what expert scores on the
    same deal, so every reward against the all-expert baseline is 0; raw points are not."""
    with pytest.raises(ValueError, match="reward_baseline"):
        make_config({"reward_baseline": "expert", "reward": "win"})
    kw = dict(prior="expert", prior_weight=60.0, reward="score", gae_lambda=1.0,
              opponent_self=0.5, opponent_snapshots=0.0, opponent_bots={"expert": 0.5})
    base = Rollout(_reference(_tiny(reward_baseline="expert", **kw)),
                   np.random.SeedSequence(4)).collect(150)
    raw = Rollout(_reference(_tiny(**kw)), np.random.SeedSequence(4)).collect(150)
    assert base["stats"]["hands"] > 3
    assert np.array_equal(base["action"], raw["action"])  # same deals, same (expert) play
    assert np.allclose(base["ret"] - base["value"], base["adv"])
    assert np.abs(base["adv"] + base["value"]).max() < 1e-5  # Monte Carlo returns are all 0
    assert np.abs(raw["adv"] + raw["value"]).max() > 0.5  # raw points are not


def test_rollout_advantages_are_zero_on_the_prior_and_duplicate_playouts_elsewhere():
    from paohuzi_training.stages.rollout import prior_playout

    with pytest.raises(ValueError, match="needs a 'prior'"):
        make_config({"advantage": "rollout"})
    cfg = _tiny(prior="expert", prior_weight=1.0, advantage="rollout", reward="score",
                opponent_self=1.0, opponent_snapshots=0.0, opponent_bots={"expert": 0.0})
    batch = Rollout(_reference(cfg), np.random.SeedSequence(2)).collect(120)
    follows = batch["action"] == batch["prior"]
    assert follows.any() and (~follows).any()
    assert (batch["adv"][follows] == 0).all()
    assert (batch["adv"][~follows] != 0).any()  # some departures changed the outcome
    # a playout is a pure function of the position: the same twice, the game left untouched
    g = Game("huaihua", seed=11)
    bot = make_agent("expert", seed=0)
    before = g.record()
    a = g.legal_actions()[0]
    assert prior_playout(g, a, 0, bot) == prior_playout(g, a, 0, bot)
    assert g.record() == before


def test_trainer_shares_the_env_reward_and_state():
    from paohuzi_env.encode.rewards import reward_from_scores
    from paohuzi_env.encode.state import STATE_EXTRA_SIZE, state_extra

    assert hand_reward is reward_from_scores
    model = ActorCritic(hidden=16, central_critic=True)
    assert model.critic[0].in_features == 763 + STATE_EXTRA_SIZE
    cfg = _tiny(central_critic=True, opponent_self=1.0, opponent_snapshots=0.0,
                opponent_bots={"greedy": 0.0})
    batch = Rollout(_reference(cfg), np.random.SeedSequence(3)).collect(100)
    assert batch["extra"].shape == (len(batch["action"]), STATE_EXTRA_SIZE)
    g = Game("huaihua", seed=4)
    assert state_extra(g, g.current_player).shape == (STATE_EXTRA_SIZE,)


def test_tiny_training_run_under_yongzhou_uses_its_sizes(tmp_path, monkeypatch):
    """A preset with 王 trains on its own observation (paohuzi-obs-v2) and critic features;
    its checkpoint plays its hands, and a checkpoint of another observation is refused."""
    from paohuzi_env.encode.observation import obs_size, obs_version
    from paohuzi_env.encode.state import state_extra_size
    from paohuzi_training.nets.policy import PolicyAgent

    monkeypatch.chdir(tmp_path)
    kw = dict(rules="yongzhou", central_critic=True, bc_steps=30, bc_epochs=1,
              games_per_worker=4, steps_per_worker=100)
    final = train(_tiny(total_steps=100, **kw), log=lambda *a: None)
    data = load_checkpoint(final, rules_name="yongzhou")
    assert data["obs_version"] == obs_version("yongzhou") == "paohuzi-obs-v2"
    model = model_for(data["config"])
    assert model.actor[0].in_features == obs_size("yongzhou") == 771
    assert model.critic[0].in_features == 771 + state_extra_size("yongzhou") == 771 + 166
    assert np.load(tmp_path / "checkpoints" / "t__1" / "bc-30.npz")["obs"].shape[1] == 771
    # it resumes under its own rules
    final2 = train(_tiny(total_steps=200, **kw), resume=str(final), log=lambda *a: None)
    assert load_checkpoint(final2, rules="yongzhou")["global_step"] >= 200
    # it loads as an agent and plays yongzhou hands legally, in every seat
    agent = make_agent(f"checkpoint:{final2}", seed=0, rules="yongzhou")
    for seed in range(2):
        g = Game("yongzhou", seed=seed)
        while not g.done:
            s = g.current_player
            a = agent(g.view(s))
            assert a in g.legal_actions()
            g.step(a)
    # the harness evaluates it under its rules (its early check used to build it for huaihua)
    res = evaluate(f"checkpoint:{final2}", "greedy", deals=1, rules="yongzhou", workers=1,
                   progress=False)
    assert res["rules"] == "yongzhou" and res["deals"] == 1
    # a huaihua network (paohuzi-obs-v1) is refused for yongzhou, and the other way round
    shipped = ROOT / "checkpoints" / "shipped" / "policy.safetensors"
    with pytest.raises(ValueError, match=r"'paohuzi-obs-v1'.*'yongzhou'.*'paohuzi-obs-v2'"):
        make_agent(f"checkpoint:{shipped}", seed=0, rules="yongzhou")
    with pytest.raises(ValueError, match=r"'paohuzi-obs-v1'.*'yongzhou'.*'paohuzi-obs-v2'"):
        load_checkpoint(shipped, rules_name="yongzhou")
    with pytest.raises(ValueError, match=r"'paohuzi-obs-v2'.*'huaihua'.*'paohuzi-obs-v1'"):
        make_agent(f"checkpoint:{final2}", seed=0, rules="huaihua")
    with pytest.raises(ValueError, match="771 observation floats"):
        PolicyAgent(model, seed=0, rules="huaihua")


@pytest.mark.parametrize("sig", [pytest.param("SIGINT", marks=pytest.mark.slow), "SIGTERM"])
def test_an_interrupted_run_saves_and_resumes_to_the_same_step_count(tmp_path, sig):
    """Ctrl-C (SIGINT to the whole process group, workers included) or SIGTERM: the iteration
    under way finishes, latest.pt is written, the run exits 0 with no traceback; resumed, it
    ends on exactly the step count an uninterrupted run reaches (every iteration is exactly
    workers x steps_per_worker learner decisions)."""
    import signal
    import subprocess
    import sys
    import time

    args = ["run_name=i", "workers=2", "games_per_worker=8", "steps_per_worker=300",
            "hidden=32", "minibatch_size=128", "update_epochs=1", "eval_every=0",
            "final_eval_deals=0", "save_every=1", "opponent_bots={greedy: 0.3}"]
    cmd = [sys.executable, "-m", "paohuzi_training.train"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    p = subprocess.Popen(cmd + args + ["total_steps=600000"], cwd=tmp_path, env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                         start_new_session=True)
    latest = tmp_path / "checkpoints" / "i__1" / "latest.pt"
    deadline = time.monotonic() + 120
    while not latest.exists() and time.monotonic() < deadline and p.poll() is None:
        time.sleep(0.2)
    assert latest.exists(), p.communicate()[0][-2000:]
    if sig == "SIGINT":
        os.killpg(p.pid, signal.SIGINT)  # what a terminal's Ctrl-C does
    else:
        p.send_signal(signal.SIGTERM)
    out, _ = p.communicate(timeout=120)
    assert p.returncode == 0, out[-2000:]
    assert "Traceback" not in out, out[-3000:]
    assert f"stopped by {sig}" in out
    data = load_checkpoint(latest)
    k = data["iteration"]
    assert k >= 1 and data["global_step"] == 600 * k < 600000
    # resumed with a total two iterations further on: it stops exactly there
    total = 600 * (k + 2)
    r = subprocess.run(cmd + args + [f"total_steps={total}", "--resume", str(latest)],
                       cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    final = load_checkpoint(tmp_path / "checkpoints" / "i__1" / "final.pt")
    assert final["global_step"] == total and final["iteration"] == k + 2


def test_training_bench_prints_both_rates_and_their_ratio(capsys):
    """python -m paohuzi_training.tools.bench: the reference ceiling, (a) the network's compute rate,
    (b) the trainer's end-to-end rate, and (b) over each, for the config given (numbers
    measured, never asserted)."""
    from paohuzi_training.tools.bench import main as bench_main

    assert bench_main(["--config", str(ROOT / "configs" / "ppo-tiny.yaml"), "--iterations", "2",
                       "--seconds", "0.2", "steps_per_worker=300"]) == 0
    out = capsys.readouterr().out
    assert "(a) network compute" in out and "decisions/s" in out
    assert "(b) trainer end to end: 600 decisions" in out
    assert "reference ceiling: a 256-wide MLP actor (763 in, 61 out) and critic (923 in)" in out
    assert "(b) / ceiling = " in out and "(b) / (a) = " in out
    assert bench_main(["--config", "nope.yaml"]) == 2
    assert bench_main(["--config", "configs/recipes/nope.yaml"]) == 2


def test_a_run_ends_with_records_of_its_worst_evaluated_games(tmp_path, monkeypatch):
    """save_records: the final evaluation keeps, against each baseline, the games the agent
    scored worst, as hand records that replay (with the agent's action probabilities)."""
    import json

    monkeypatch.chdir(tmp_path)
    final = train(_tiny(total_steps=500, final_eval_deals=2, save_records=1),
                  log=lambda *a: None)
    evals = json.loads((final.parent / "final_eval.json").read_text(encoding="utf-8"))
    for opp in ("random", "greedy", "expert"):
        files = sorted((final.parent / "records" / f"vs-{opp}").glob("*.json"))
        assert len(files) == 1, files
        rec = json.loads(files[0].read_text(encoding="utf-8"))
        g = Game.replay(rec)
        assert g.done and rec["seats"].count(opp) == 2
        assert rec["probs"] is not None and any(p for p in rec["probs"])
        assert evals[opp]["deals"] == 2
    with pytest.raises(ValueError, match="save_records"):
        make_config({"save_records": -1})


def test_train_help_is_plain_text_and_loads_no_torch():
    """``paohuzi-train --help`` prints plain text (no Sphinx roles) before torch is imported."""
    code = ("import sys, contextlib, io\nfrom paohuzi_training.train import main\nbuf = io.StringIO()\n"
            "try:\n    with contextlib.redirect_stdout(buf): main(['--help'])\nexcept SystemExit: pass\n"
            "print('torch' in sys.modules); print(buf.getvalue())")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                         check=True).stdout
    assert out.startswith("False\nusage: paohuzi-train")
    assert ":mod:" not in out and "``" not in out and "init_from" in out


@pytest.mark.parametrize(("module", "prog", "words"), [
    ("paohuzi_training.recipe", "paohuzi-recipe", "paohuzi_training.stages.label; shards in labels/"),
    ("paohuzi_training.eval.evaluate", "paohuzi-eval", "(paohuzi_training.eval.journal)"),
    ("paohuzi_training.train", "paohuzi-train", "init_from"),
    ("paohuzi_training.stages.label", "paohuzi-label", "usage: paohuzi-label"),
    ("paohuzi_training.exploit", "paohuzi-exploit", "usage: paohuzi-exploit"),
])
def test_command_help_has_no_sphinx_markup(module, prog, words, capsys):
    """Each console script's ``--help`` shows its module docstring without the reST markup the
    API reference renders: no double backquotes, no roles, the names themselves kept."""
    import importlib

    with pytest.raises(SystemExit):
        importlib.import_module(module).main(["--help"])
    out = capsys.readouterr().out
    assert out.startswith(f"usage: {prog}") and words in out
    assert "``" not in out
    assert not re.search(r":(mod|class|func|attr|meth|data|exc|py:\w+):`", out), out


def test_plain_text_drops_the_roles_and_literals():
    from paohuzi_env.apps.helptext import plain_text

    doc = ("Run ``paohuzi-eval X`` (:mod:`a.b`, :class:`a.b.C`, :func:`~a.b.f`,\n"
           ":py:attr:`a.B.x`, :doc:`the guide <guide/start>`); keep `single` and x::")
    assert plain_text(doc) == ("Run paohuzi-eval X (a.b, a.b.C, f,\n"
                               "a.B.x, the guide); keep `single` and x::")
    assert plain_text(None) == ""


def test_eval_help_names_network_specs_and_the_defaults(capsys):
    from paohuzi_training.eval.evaluate import main as eval_main

    with pytest.raises(SystemExit):
        eval_main(["--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "network:PATH" in text and "(default: 1000)" in text and "(default: 0)" in text
