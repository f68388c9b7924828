"""Deep Monte Carlo (paohuzi_training/baselines/dmc.py): the targets and the loss by hand, the
actor's samples, miniature runs that export a network ``network:PATH`` plays, resuming, and
determinism on one thread."""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from paohuzi_env import fast

pytestmark = pytest.mark.skipif(not fast.available(), reason="needs the compiled core")

torch = pytest.importorskip("torch")
pytest.importorskip("safetensors")

from paohuzi_env.agents import make_agent  # noqa: E402
from paohuzi_env.backends.fast import Game  # noqa: E402
from paohuzi_env.encode.observation import encode  # noqa: E402
from paohuzi_env.game.rules import get_rules  # noqa: E402
from paohuzi_training.baselines import dmc  # noqa: E402

TINY = dict(num_actors=0, batch_size=64, hands_per_actor=8, chunk=32, hidden=32,
            torch_threads=1, log_seconds=1000.0)


def _cfg(**kw) -> dmc.DMCConfig:
    return dmc.DMCConfig(**{**TINY, **kw})


def test_targets_and_loss_by_hand():
    # a hand won by seat 0 for 30 points (each loser -15), another won by seat 2 for 100 (each
    # loser -50): every decision's target is its seat's points / 64, clipped to [-1, 1]
    points = np.array([[30, -15, -15], [30, -15, -15], [-50, -50, 100], [-50, -50, 100]],
                      np.float32)
    seats = np.array([0, 1, 2, 0])
    got = dmc.hand_targets(points, seats, "normalized")
    assert got.tolist() == pytest.approx([30 / 64, -15 / 64, 1.0, -50 / 64])
    assert dmc.hand_targets(points, seats, "score").tolist() == [30, -15, 100, -50]
    with pytest.raises(ValueError, match="normalized, score"):
        dmc.hand_targets(points, seats, "win")
    # the loss: the squared error of the Q value of the action taken, averaged
    q = torch.zeros(2, 61)
    q[0, 3], q[0, 5] = 0.5, 9.0   # action 3 taken: (0.5 - 0.25)^2 = 0.0625
    q[1, 7] = -0.25               # action 7 taken: (-0.25 - 0.25)^2 = 0.25
    loss = dmc.q_loss(q, torch.tensor([3, 7]), torch.tensor([0.25, 0.25]))
    assert float(loss) == pytest.approx((0.0625 + 0.25) / 2)


def test_uniform_legal_action_by_hand():
    mask = np.zeros((3, 61), bool)
    mask[:, [1, 3, 4]] = True
    # floor(u * 3)-th legal action: u 0 -> 1, u 0.5 -> 3 (the second), u 0.99 -> 4
    assert dmc.legal_uniform(mask, np.array([0.0, 0.5, 0.99])).tolist() == [1, 3, 4]


def test_epsilon_anneals_linearly():
    cfg = _cfg(epsilon_start=0.1, epsilon_end=0.01, epsilon_anneal_steps=1000)
    assert dmc.epsilon_at(cfg, 0) == pytest.approx(0.1)
    assert dmc.epsilon_at(cfg, 500) == pytest.approx(0.055)
    assert dmc.epsilon_at(cfg, 5000) == pytest.approx(0.01)


@pytest.mark.parametrize("self_play", [1.0, 0.0])
def test_actor_samples_carry_their_seats_final_points(self_play):
    """One hand: every sample of a finished hand is a decision with more than one legal action,
    of a seat the network plays, and its target is that seat's final points / 64."""
    rules = get_rules("huaihua")
    cfg = _cfg(hands_per_actor=1, self_play=self_play)
    model = dmc.QNetwork(763, cfg.hidden)
    actor = dmc.Actor(cfg, rules, np.random.SeedSequence(5), model)
    seat = int(actor.learner_seat[0])
    got = actor.collect(1, epsilon=0.5)
    last = actor.vg.last_hand(0)
    assert last is not None
    result = last[0].result
    assert result is not None
    assert len(got["target"]) == len(got["action"]) == len(got["obs"]) == len(got["seat"]) > 0
    for s, t in zip(got["seat"], got["target"]):
        assert t == pytest.approx(max(-1.0, min(1.0, result.scores[s] / 64)))
    if self_play == 0.0:
        assert set(got["seat"].tolist()) == {seat}
        assert got["stats"]["bot_hands"] == 1
        assert got["stats"]["bot_points"] == result.scores[seat]
    assert got["obs"].dtype == np.float32
    # fractions survive (counts / 4 and the like): the observation is not quantised
    assert np.any((got["obs"] > 0) & (got["obs"] < 1))
    # the samples are the decisions with a choice: replaying the record finds as many
    n_choices = 0
    g = Game(rules, deck=last[0].deck, dealer=last[0].dealer)
    for action in last[0].actions:
        if (self_play or g.current_player == seat) and len(g.legal_actions()) > 1:
            n_choices += 1
        g.step(action)
    assert n_choices == len(got["action"])


def test_miniature_run_exports_a_network_that_plays(tmp_path):
    final = dmc.train(_cfg(steps=256, seed=2), tmp_path)
    assert final is not None and final == tmp_path / "final.safetensors"
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["global_step"] == 256 and summary["updates"] == 4
    side = json.loads(final.with_suffix(".json").read_text())
    assert side["config"]["prior"] == "none" and side["algorithm"] == "dmc"
    # network: plays it in the compiled core: legal moves in every seat, to the end of hands
    agent = make_agent(f"network:{final}", seed=0, rules="huaihua")
    state = dmc.load_state(tmp_path)
    assert state is not None
    model = dmc.QNetwork(763, 32)
    model.load_state_dict(state["model"])
    checked = 0
    for deal in range(3):
        g = Game("huaihua", seed=deal)
        while not g.done:
            seat = g.current_player
            assert seat is not None
            a = agent.act_game(g, seat)
            assert a in g.legal_actions()
            # and it is the greedy Q policy: the legal action of the highest Q
            view = g.view(seat)
            with torch.no_grad():
                q = model(torch.from_numpy(encode(view))[None])[0].numpy()
            legal = sorted(view.legal)
            best = legal[int(np.argmax(q[legal]))]
            assert agent.act(view) == best
            gap = np.diff(np.sort(q[legal])[-2:]) if len(legal) > 1 else np.array([1.0])
            if gap[0] > 1e-4:  # the core's own pass (act_game) agrees but for float rounding
                assert a == best
            checked += 1
            g.step(a)
    assert checked > 30


def test_same_seed_same_network_on_one_thread(tmp_path):
    torch.manual_seed(0)
    before = torch.get_rng_state()
    a = dmc.train(_cfg(steps=192, seed=7), tmp_path / "a")
    assert torch.equal(torch.get_rng_state(), before)  # torch's global generator is not used
    torch.rand(5), np.random.random(5)  # a disturbed global state changes nothing
    b = dmc.train(_cfg(steps=192, seed=7), tmp_path / "b")
    c = dmc.train(_cfg(steps=192, seed=8), tmp_path / "c")
    assert a is not None and b is not None and c is not None
    assert a.read_bytes() == b.read_bytes()
    assert a.read_bytes() != c.read_bytes()


def test_a_rerun_continues_from_its_saved_step(tmp_path, capsys):
    dmc.train(_cfg(steps=128, seed=3), tmp_path)
    first = dmc.load_state(tmp_path)
    assert first is not None and first["global_step"] == 128 and first["starts"] == 1
    # the same budget again: nothing to do
    assert dmc.train(_cfg(steps=128, seed=3), tmp_path) == tmp_path / "final.safetensors"
    assert "spent its budget" in capsys.readouterr().out
    # a larger one: continues at 128 with the saved network and optimizer
    dmc.train(_cfg(steps=320, seed=3), tmp_path)
    assert "continuing" in capsys.readouterr().out
    again = dmc.load_state(tmp_path)
    assert again is not None and again["global_step"] == 320 and again["updates"] == 5
    assert again["starts"] == 2 and again["train_seconds"] > first["train_seconds"]
    # other learning settings are refused, by name
    with pytest.raises(ValueError, match="learning_rate"):
        dmc.train(_cfg(steps=640, seed=3, learning_rate=1e-3), tmp_path)


@pytest.mark.skipif(threading.current_thread() is not threading.main_thread(),
                    reason="signal handlers are set in the main thread only")
def test_sigterm_saves_and_a_rerun_continues(tmp_path):
    """SIGTERM mid-run: the state is saved, no final network is written, and the same command
    continues from the saved step."""
    cfg = _cfg(steps=10**9, seed=4)
    before = signal.getsignal(signal.SIGTERM)
    sent = threading.Event()

    def trapped() -> bool:
        return getattr(signal.getsignal(signal.SIGTERM), "__func__", None) is dmc._Stop._set

    def kill_when_trapped() -> None:
        deadline = time.monotonic() + 60
        while not trapped() and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(0.5)
        if trapped():  # never sent to a process that is not trapping it
            sent.set()
            os.kill(os.getpid(), signal.SIGTERM)

    killer = threading.Thread(target=kill_when_trapped)
    killer.start()
    result = dmc.train(cfg, tmp_path)
    killer.join()
    assert sent.is_set() and result is None
    assert signal.getsignal(signal.SIGTERM) == before  # the handler is put back
    saved = dmc.load_state(tmp_path)
    assert saved is not None and saved["global_step"] > 0
    assert not (tmp_path / "final.safetensors").exists()
    step = saved["global_step"]
    dmc.train(_cfg(steps=step + 64, seed=4), tmp_path)
    done = dmc.load_state(tmp_path)
    assert done is not None and done["global_step"] == step + 64


@pytest.mark.parametrize("learner_acts", [False, True])
def test_actor_processes_feed_the_learner(tmp_path, learner_acts):
    final = dmc.train(_cfg(steps=256, seed=1, num_actors=1, learner_acts=learner_acts), tmp_path)
    assert final is not None and final.is_file()
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["global_step"] == 256
    if not learner_acts:  # every sample came from the actor process
        assert summary["this_run"]["samples_from_actor_processes"] >= 256


@pytest.mark.parametrize("bad,match", [
    (dict(reward="win"), "reward"), (dict(opponent="random"), "opponent"),
    (dict(self_play=1.5), "self_play"), (dict(rules="nope"), "rules"),
    (dict(batch_size=0), "batch_size"), (dict(epsilon_end=2.0), "epsilon_end"),
])
def test_bad_settings_are_named(tmp_path, bad, match):
    with pytest.raises(ValueError, match=match):
        dmc.train(_cfg(**bad), tmp_path)


def test_command_line(tmp_path):
    out = tmp_path / "run"
    argv = ["--out", str(out), "--steps", "64", "--num-actors", "0", "--batch-size", "64",
            "--hands-per-actor", "4", "--chunk", "16", "--hidden", "16",
            "--snapshot-minutes", "1", "5"]
    cfg, got_out = dmc.parse_args(argv)
    assert got_out == out and cfg.snapshot_minutes == (1, 5) and cfg.hidden == 16
    assert cfg.learner_acts is True
    assert dmc.parse_args(argv + ["--learner-acts", "false"])[0].learner_acts is False
    with pytest.raises(SystemExit):
        dmc.parse_args(argv + ["--learner-acts", "maybe"])
    assert dmc.main(argv) == 0
    assert (out / "final.safetensors").is_file() and (out / "tb").is_dir()
    assert Path(out / "final.json").is_file()
