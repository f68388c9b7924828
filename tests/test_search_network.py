"""A trained policy network as the compiled search's rollout (``search:rollout=checkpoint:PATH``;
``paohuzi_env/backends/_core/netpolicy.hpp``, ``paohuzi_env/agents/network.py``).

The networks here are tiny ones with random weights, written by the tests with numpy alone
(``.safetensors`` + JSON sidecar); only the check against ``paohuzi_training.nets.policy`` on the shipped
network needs torch.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import numpy as np
import pytest
import safetensors.numpy

from paohuzi_env import fast
from paohuzi_env.agents import make_agent
from paohuzi_env.agents.network import load_network, read_safetensors
from paohuzi_env.agents.search import core_search, parse_search_spec, vector_search
from paohuzi_env.encode.observation import encode, obs_size, obs_version
from paohuzi_env.game.actions import NUM_ACTIONS
from paohuzi_env.game.rules import get_rules

pytestmark = pytest.mark.skipif(not fast.available(), reason="needs the compiled core")

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = ROOT / "checkpoints" / "shipped"


def _safetensors_bytes(tensors: dict[str, np.ndarray]) -> bytes:
    return safetensors.numpy.save({k: np.ascontiguousarray(a, dtype="<f4") for k, a in tensors.items()})


def write_policy(path: Path, rules: str = "huaihua", hidden: int = 12, prior: str = "none",
                 prior_weight: float = 0.0, seed: int = 0, scale: float = 0.5,
                 tensors: dict[str, np.ndarray] | None = None, actor: str = "mlp",
                 conv_channels: int | None = None, waits: bool = False) -> Path:
    """A random network as a play-only ``.safetensors`` policy and its sidecar."""
    r = get_rules(rules)
    ain = obs_size(r) + (NUM_ACTIONS if prior != "none" else 0)
    rng = np.random.default_rng(seed)
    if tensors is None:
        shapes = {"actor.0.weight": (hidden, ain), "actor.0.bias": (hidden,),
                  "actor.2.weight": (hidden, hidden), "actor.2.bias": (hidden,),
                  "actor.4.weight": (NUM_ACTIONS, hidden), "actor.4.bias": (NUM_ACTIONS,),
                  "critic.4.bias": (1,)}  # a critic tensor: not read
        tensors = {k: (rng.standard_normal(s) * scale).astype(np.float32) for k, s in shapes.items()}
    blob = _safetensors_bytes(tensors)
    path.write_bytes(blob)
    meta = {"format": "paohuzi-policy-safetensors-v1", "obs_version": obs_version(r),
            "config": {"hidden": hidden, "prior": prior, "prior_weight": prior_weight,
                       "rules": rules, "rules_overrides": {}, "actor": actor,
                       **({} if conv_channels is None else {"conv_channels": conv_channels}),
                       **({"wait_features": True} if waits else {})},
            **({"waits_version": "paohuzi-waits-v1"} if waits else {}),
            "rules": {"name": rules, "overrides": {}}, "policy_only": True,
            "weights_sha256": hashlib.sha256(blob).hexdigest()}
    path.with_suffix(".json").write_text(json.dumps(meta))
    return path


def reference_logits(t: dict[str, np.ndarray], obs: np.ndarray, prior_action: int | None,
                     prior_weight: float) -> np.ndarray:
    """paohuzi_training/nets/model.py's actor in numpy (float32), before masking."""
    x = obs.astype(np.float32)
    onehot = np.zeros(NUM_ACTIONS, np.float32)
    if prior_action is not None:
        onehot[prior_action] = 1.0
        x = np.concatenate([x, onehot])
    h = np.maximum(t["actor.0.weight"] @ x + t["actor.0.bias"], 0)
    h = np.maximum(t["actor.2.weight"] @ h + t["actor.2.bias"], 0)
    return t["actor.4.weight"] @ h + t["actor.4.bias"] + np.float32(prior_weight) * onehot


def random_positions(rules: str, seeds: range, every: int = 1):
    """Clones at every ``every``-th decision (single-option ones included) of random-play
    hands."""
    for seed in seeds:
        rng = np.random.default_rng(seed)
        g = fast.Game(rules, seed=seed)
        n = 0
        while not g.done:
            if n % every == 0:
                yield g.clone()
            n += 1
            legal = g.legal_actions()
            g.step(legal[int(rng.integers(len(legal)))])


@pytest.mark.parametrize("rules,prior,hidden", [("huaihua", "none", 12), ("huaihua", "expert", 16),
                                                ("yongzhou", "greedy", 9)])
def test_forward_pass_and_argmax_are_the_numpy_reference(tmp_path, rules, prior, hidden):
    from paohuzi_env import _fast

    weight = 0.0 if prior == "none" else 1.5
    net = load_network(write_policy(tmp_path / "net.safetensors", rules, hidden, prior, weight,
                                    seed=hidden), rules)
    assert (net.prior, net.hidden, net.core.in_size) == (
        prior, hidden, obs_size(get_rules(rules)) + (NUM_ACTIONS if prior != "none" else 0))
    checked = near_ties = 0
    for g in random_positions(rules, range(15)):
        view = g.view(g.current_player)
        pa = None if prior == "none" else (g.expert_action() if prior == "expert"
                                           else g.greedy_action())
        ref = reference_logits(net.tensors, encode(view), pa, weight)
        action, logits = _fast.net_policy_action(g._g, net.core)
        legal = g.legal_actions()
        mask = np.zeros(NUM_ACTIONS, bool)
        mask[legal] = True
        assert action in legal
        assert (logits[~mask] == np.float32(-1e8)).all()
        np.testing.assert_allclose(logits[mask], ref[mask], rtol=1e-4, atol=1e-4)
        masked = np.where(mask, ref, -np.inf)
        top = np.sort(masked[mask])[::-1]
        if len(top) > 1 and top[0] - top[1] < 1e-3:
            near_ties += 1  # float order may flip it; the C++ answer is its own logits' argmax
            assert action == int(np.argmax(np.where(mask, logits, -np.inf)))
        else:
            assert action == int(np.argmax(masked))
        checked += 1
    assert checked > 300 and near_ties < checked // 50


def write_numpy_conv_policy(path: Path, rules: str, hidden: int, channels: int, prior: str,
                            prior_weight: float, seed: int, waits: bool = False
                            ) -> dict[str, np.ndarray]:
    """Random conv actor tensors (KindConvActor's names and shapes) as a play-only policy
    (``waits``: one that reads the wait features too, four more rows)."""
    from paohuzi_env.encode.observation import KIND_ROWS

    rng = np.random.default_rng(seed)
    ain = obs_size(get_rules(rules)) + (80 if waits else 0) + (NUM_ACTIONS if prior != "none" else 0)
    cin = 2 * (len(KIND_ROWS) + (4 if waits else 0))
    shapes = {"actor.conv.0.weight": (channels, cin, 3), "actor.conv.0.bias": (channels,),
              "actor.conv.2.weight": (channels, channels, 3), "actor.conv.2.bias": (channels,),
              "actor.conv.4.weight": (channels, channels, 3), "actor.conv.4.bias": (channels,),
              "actor.head.0.weight": (hidden, 10 * channels + ain), "actor.head.0.bias": (hidden,),
              "actor.head.2.weight": (hidden, hidden), "actor.head.2.bias": (hidden,),
              "actor.head.4.weight": (NUM_ACTIONS, hidden), "actor.head.4.bias": (NUM_ACTIONS,)}
    tensors = {k: (rng.standard_normal(s) * 0.3).astype(np.float32) for k, s in shapes.items()}
    write_policy(path, rules, hidden, prior, prior_weight, tensors=tensors, actor="conv",
                 conv_channels=channels, waits=waits)
    return tensors


def numpy_conv_logits(t: dict[str, np.ndarray], x: np.ndarray, n_obs: int | None = None
                      ) -> np.ndarray:
    """KindConvActor's forward pass in numpy (float64): x is the observation (then, with
    ``n_obs`` its length, the wait features; then the prior's one-hot); the rows, the
    (2 x rows, 10) signal, three width-3 convolutions, the head."""
    from paohuzi_env.encode.observation import KIND_ROWS

    rows = [list(r) for r in KIND_ROWS]
    if n_obs is not None:  # the wait features' four blocks of 20, after the observation
        rows += [[n_obs + 20 * j + k for k in range(20)] for j in range(4)]
    k = x[np.asarray(rows)].astype(np.float64)                # (rows, 20)
    h = k.reshape(len(rows) * 2, 10)                          # channel 2r + big, position number
    for layer in (0, 2, 4):
        w, b = t[f"actor.conv.{layer}.weight"], t[f"actor.conv.{layer}.bias"]
        padded = np.pad(h, ((0, 0), (1, 1)))
        h = np.maximum(np.stack([np.einsum("oit,it->o", w, padded[:, q:q + 3])
                                 for q in range(10)], axis=1) + b[:, None], 0.0)
    z = np.concatenate([h.reshape(-1), x])
    z = np.maximum(t["actor.head.0.weight"] @ z + t["actor.head.0.bias"], 0)
    z = np.maximum(t["actor.head.2.weight"] @ z + t["actor.head.2.bias"], 0)
    return t["actor.head.4.weight"] @ z + t["actor.head.4.bias"]


@pytest.mark.parametrize("rules,prior,channels,waits", [
    ("huaihua", "none", 8, False), ("yongzhou", "expert", 5, False), ("huaihua", "greedy", 6, True),
    ("yongzhou", "none", 4, True)])
def test_conv_actor_in_the_core_is_the_numpy_reference(tmp_path, rules, prior, channels, waits):
    """The conv stem and head in the core give the numpy reference's logits (no torch: this runs
    under the sanitizers too); with ``waits`` the core computes the wait features itself, and
    the reference reads the readable ones (paohuzi_env.encode.features) after the observation."""
    from paohuzi_env import _fast
    from paohuzi_env.encode.features import wait_features

    weight = 0.0 if prior == "none" else 1.5
    t = write_numpy_conv_policy(tmp_path / "c.safetensors", rules, 9, channels, prior, weight,
                                seed=channels, waits=waits)
    net = load_network(tmp_path / "c.safetensors", rules)
    n_obs = obs_size(get_rules(rules))
    assert net.core.in_size == n_obs + (80 if waits else 0) + (61 if prior != "none" else 0)
    checked = 0
    for g in random_positions(rules, range(6), every=3):
        view = g.view(g.current_player)
        obs = encode(view)
        if waits:
            obs = np.concatenate([obs, wait_features(view, rules)])
        onehot = np.zeros(NUM_ACTIONS, np.float32)
        if prior != "none":
            onehot[g.expert_action() if prior == "expert" else g.greedy_action()] = 1.0
            obs = np.concatenate([obs, onehot])
        ref = numpy_conv_logits(t, obs, n_obs if waits else None) + weight * onehot
        _, logits = _fast.net_policy_action(g._g, net.core)
        legal = g.legal_actions()
        np.testing.assert_allclose(logits[legal], ref[legal], rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose(_fast.net_policy_logits(net.core, obs)[legal],
                                   (ref - weight * onehot)[legal], rtol=1e-4, atol=1e-4)
        checked += 1
    assert checked > 40


def write_conv_policy(path: Path, rules: str, hidden: int, channels: int, prior: str,
                      prior_weight: float, seed: int, waits: bool = False):
    """A random conv actor (paohuzi_training/nets/model.py KindConvActor) as a play-only policy, and the torch
    module holding the same weights (``waits``: one that reads the wait features too)."""
    torch = pytest.importorskip("torch")
    from paohuzi_env.encode.features import WAIT_FEATURES, wait_rows
    from paohuzi_training.nets.model import KIND_ROWS, KindConvActor

    torch.manual_seed(seed)
    n_obs = obs_size(get_rules(rules))
    ain = n_obs + (WAIT_FEATURES if waits else 0) + (NUM_ACTIONS if prior != "none" else 0)
    actor = KindConvActor(ain, hidden, channels, KIND_ROWS + (wait_rows(n_obs) if waits else []))
    with torch.no_grad():
        for p in actor.parameters():  # biases too, and logits of a useful spread
            p.normal_(0.0, 0.3)
    tensors = {f"actor.{k}": v.detach().numpy().copy() for k, v in actor.state_dict().items()}
    write_policy(path, rules, hidden, prior, prior_weight, tensors=tensors, actor="conv",
                 conv_channels=channels, waits=waits)
    return actor


@pytest.mark.parametrize("rules,prior,channels,waits", [
    ("huaihua", "none", 8, False), ("huaihua", "expert", 5, False), ("yongzhou", "greedy", 6, False),
    ("huaihua", "none", 7, True), ("yongzhou", "expert", 4, True)])
def test_conv_actor_in_the_core_is_the_torch_actor(tmp_path, rules, prior, channels, waits):
    """The conv actor (three width-3 convolutions over the per-kind blocks, then the MLP head)
    gives torch's logits in the core, and their masked argmax, on random-play positions; with
    ``waits`` it reads the wait features after the observation (four more rows), which the core
    computes itself and torch gets from the readable reference (paohuzi_env.encode.features)."""
    torch = pytest.importorskip("torch")
    from paohuzi_env import _fast
    from paohuzi_env.encode.features import wait_features

    weight = 0.0 if prior == "none" else 1.5
    actor = write_conv_policy(tmp_path / "conv.safetensors", rules, 10, channels, prior, weight,
                              seed=channels, waits=waits)
    net = load_network(tmp_path / "conv.safetensors", rules)
    assert (net.actor, net.conv_channels, net.core.conv_channels, net.hidden) == (
        "conv", channels, channels, 10)
    assert net.waits is waits and net.core.waits is waits
    checked = 0
    for g in random_positions(rules, range(8), every=2):
        view = g.view(g.current_player)
        obs = encode(view)
        if waits:
            obs = np.concatenate([obs, wait_features(view, rules)])
        onehot = np.zeros(NUM_ACTIONS, np.float32)
        if prior != "none":
            onehot[g.expert_action() if prior == "expert" else g.greedy_action()] = 1.0
            obs = np.concatenate([obs, onehot])
        with torch.no_grad():
            ref = actor(torch.from_numpy(obs)[None])[0].numpy() + np.float32(weight) * onehot
        action, logits = _fast.net_policy_action(g._g, net.core)
        legal = g.legal_actions()
        np.testing.assert_allclose(logits[legal], ref[legal], rtol=1e-4, atol=1e-4)
        top = np.sort(ref[legal])[::-1]
        if len(top) < 2 or top[0] - top[1] > 1e-3:
            assert action == legal[int(np.argmax(ref[legal]))]
        checked += 1
    assert checked > 100


def test_search_plays_out_with_a_conv_network(tmp_path):
    """``search:rollout=checkpoint:PATH`` takes a conv actor: deterministic per seed."""
    write_numpy_conv_policy(tmp_path / "c.safetensors", "huaihua", 8, 4, "none", 0.0, seed=3)
    g = next(p for p in random_positions("huaihua", range(5)) if len(p.legal_actions()) > 2
             and 59 not in p.legal_actions())
    spec = f"checkpoint:{tmp_path / 'c.safetensors'}"
    a = core_search(g, g.current_player, seed=4, samples=4, rollout=spec, guide="none")
    b = core_search(g, g.current_player, seed=4, samples=4, rollout=spec, threads=2, guide="none")
    assert a == b and a["worlds"] == 4 and a["choice"] in g.legal_actions()


def test_ties_go_to_the_lowest_action_and_the_prior_bonus_decides(tmp_path):
    from paohuzi_env import _fast

    zeros = {k: np.zeros(s, np.float32) for k, s in [
        ("actor.0.weight", (8, obs_size(get_rules("huaihua")) + NUM_ACTIONS)),
        ("actor.0.bias", (8,)), ("actor.2.weight", (8, 8)), ("actor.2.bias", (8,)),
        ("actor.4.weight", (NUM_ACTIONS, 8)), ("actor.4.bias", (NUM_ACTIONS,))]}
    flat = load_network(write_policy(tmp_path / "flat.safetensors", hidden=8, prior="expert",
                                     prior_weight=0.0, tensors=zeros))
    bonus = load_network(write_policy(tmp_path / "bonus.safetensors", hidden=8, prior="expert",
                                      prior_weight=2.0, tensors=zeros))
    seen_other = False
    for g in random_positions("huaihua", range(3), every=3):
        legal = g.legal_actions()
        assert _fast.net_policy_action(g._g, flat.core)[0] == min(legal)
        assert _fast.net_policy_action(g._g, bonus.core)[0] == g.expert_action()
        seen_other |= g.expert_action() != min(legal)
    assert seen_other


@pytest.mark.skipif(not (SHIPPED / "policy.safetensors").is_file(),
                    reason="the shipped checkpoints are not in this tree (an sdist)")
def test_shipped_network_is_training_policys_argmax():
    torch = pytest.importorskip("torch")
    from paohuzi_env import _fast
    from paohuzi_training.nets.policy import load_checkpoint_agent

    torch.set_num_threads(1)
    for name, every, want in (("distilled", 1, 300), ("policy", 3, 150)):
        agent = load_checkpoint_agent(str(SHIPPED / f"{name}.safetensors"), seed=0, rules="huaihua")
        net = load_network(SHIPPED / f"{name}.safetensors", "huaihua")
        assert net.prior == agent.model.prior and net.prior_weight == agent.model.prior_weight
        checked = 0
        for g in random_positions("huaihua", range(20, 80), every=every):
            if len(g.legal_actions()) < 2:
                continue
            view = g.view(g.current_player)
            ref = agent.logits(view).numpy()
            action, logits = _fast.net_policy_action(g._g, net.core)
            legal = g.legal_actions()
            np.testing.assert_allclose(logits[legal], ref[legal], rtol=1e-4, atol=1e-3)
            top = np.sort(ref[legal])[::-1]
            if top[0] - top[1] > 1e-3:
                assert action == agent.act(view), (name, checked)
            checked += 1
            if checked == want:
                break
        assert checked == want, (name, checked)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    return write_policy(tmp_path_factory.mktemp("net") / "tiny.safetensors", hidden=16, seed=3)


def test_search_with_a_network_rollout_is_deterministic_and_thread_safe(tiny):
    spec = f"search:rollout=checkpoint:{tiny},samples=6,playouts=60,prune=0"
    assert parse_search_spec(spec.partition(":")[2])["rollout"] == f"checkpoint:{tiny}"
    positions = [g for i, g in enumerate(random_positions("huaihua", range(2))) if
                 len(g.legal_actions()) > 2 and i % 2 == 0][:4]
    assert positions
    for i, g in enumerate(positions):
        seat = g.current_player
        one = make_agent(spec, seed=i)
        a1 = one.act_game(g, seat)
        assert one.last["worlds"] >= 2 and one.last["playouts"] > 0
        again = make_agent(spec, seed=i)
        two = make_agent(spec + ",threads=2", seed=i)
        assert again.act_game(g, seat) == a1 == two.act_game(g, seat)
        assert again.last["means"] == one.last["means"] == two.last["means"]
        assert a1 in g.legal_actions()
    # the network plays differently from the expert: the worlds' outcomes differ
    g = positions[0]
    netted = core_search(g, g.current_player, seed=5, rollout=f"checkpoint:{tiny}", prune=0)
    expert = core_search(g, g.current_player, seed=5, prune=0)
    assert netted["worlds"] == expert["worlds"] and netted["means"] != expert["means"]


def test_vector_search_takes_a_network_rollout(tiny):
    vg = fast.VectorGame(4, "huaihua", seed=2)
    opts = dict(samples=4, playouts=40, rollout=f"checkpoint:{tiny}")
    a = vector_search(vg, None, seed=7, threads=1, **opts)
    b = vector_search(vg, None, seed=7, threads=2, **opts)
    assert (a == b).all()
    net = load_network(tiny)
    assert (vector_search(vg, None, seed=7, samples=4, playouts=40, rollout=net) == a).all()
    for i in range(4):
        assert a[i] in vg.hand(i).legal_actions()


def test_network_is_cached_per_file(tmp_path):
    p = write_policy(tmp_path / "c.safetensors", seed=1)
    first = load_network(p)
    assert load_network(str(p)) is first
    assert make_agent(f"search:rollout=checkpoint:{p}").network is first
    st = os.stat(p)
    os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))  # the file changed: read again
    assert load_network(p) is not first


def test_bad_networks_raise_clear_errors(tmp_path, tiny):
    g = fast.Game("huaihua", seed=0)
    s = g.current_player
    with pytest.raises(ValueError, match="does not exist"):
        make_agent(f"search:rollout=checkpoint:{tmp_path / 'missing.safetensors'}")
    with pytest.raises(ValueError, match="paohuzi_training.nets.checkpoint export"):
        make_agent(f"search:rollout=checkpoint:{tmp_path / 'model.pt'}")
    with pytest.raises(ValueError, match="cannot hold one"):
        parse_search_spec(f"rollout=checkpoint:{tmp_path}/a,b.safetensors,samples=4")
    with pytest.raises(ValueError, match="compiled search"):
        make_agent(f"search:rollout=checkpoint:{tiny},impl=python")
    with pytest.raises(ValueError, match="rollout must be one of"):
        make_agent("search:rollout=network")
    # malformed files
    good = tiny.read_bytes()
    for i, (blob, msg) in enumerate([
            (b"\x01\x02", "header too small"),
            ((10**9).to_bytes(8, "little") + good[8:], "header too large"),
            (len(b"[1, 2]").to_bytes(8, "little") + b"[1, 2]", "invalid JSON in header"),
            (len(b"{nope").to_bytes(8, "little") + b"{nope", "invalid JSON in header"),
            (good[:-4], "not fully covered"),
    ]):
        p = tmp_path / f"bad{i}.safetensors"
        p.write_bytes(blob)
        side = json.loads(tiny.with_suffix(".json").read_text())
        side["weights_sha256"] = hashlib.sha256(blob).hexdigest()
        p.with_suffix(".json").write_text(json.dumps(side))
        with pytest.raises(ValueError, match=msg):
            load_network(p)
    hdr = json.dumps({"x": {"dtype": "I64", "shape": [1], "data_offsets": [0, 8]}}).encode()
    (tmp_path / "i64.safetensors").write_bytes(len(hdr).to_bytes(8, "little") + hdr + bytes(8))
    with pytest.raises(ValueError, match="dtype int64"):
        read_safetensors(tmp_path / "i64.safetensors")
    hdr = json.dumps({"x": {"dtype": "F32", "shape": [3], "data_offsets": [0, 8]}}).encode()
    (tmp_path / "sz.safetensors").write_bytes(len(hdr).to_bytes(8, "little") + hdr + bytes(8))
    with pytest.raises(ValueError, match="invalid shape, data type, or offset"):
        read_safetensors(tmp_path / "sz.safetensors")
    # a tensors file its sidecar does not describe, a missing sidecar
    other = tmp_path / "other.safetensors"
    other.write_bytes(good[:-4] + b"\0\0\0\0")
    other.with_suffix(".json").write_text(tiny.with_suffix(".json").read_text())
    with pytest.raises(ValueError, match="SHA-256"):
        load_network(other)
    other.with_suffix(".json").unlink()
    with pytest.raises(ValueError, match="no sidecar"):
        load_network(other)
    # shapes: a network whose sidecar says a prior its tensors were not made for
    wrong = write_policy(tmp_path / "wrong.safetensors", hidden=8)
    side = json.loads(wrong.with_suffix(".json").read_text())
    side["config"]["prior"] = "expert"
    wrong.with_suffix(".json").write_text(json.dumps(side))
    with pytest.raises(ValueError, match="needs \\(8, 824\\)"):
        load_network(wrong)
    nan = write_policy(tmp_path / "nan.safetensors", hidden=8, tensors={
        k: np.full(s, np.nan if k == "actor.2.bias" else 0.0, np.float32) for k, s in [
            ("actor.0.weight", (8, 763)), ("actor.0.bias", (8,)), ("actor.2.weight", (8, 8)),
            ("actor.2.bias", (8,)), ("actor.4.weight", (NUM_ACTIONS, 8)),
            ("actor.4.bias", (NUM_ACTIONS,))]})
    with pytest.raises(ValueError, match="non-finite"):
        load_network(nan)
    # rules: a huaihua network under yongzhou, and a yongzhou one for a huaihua hand
    with pytest.raises(ValueError, match="trained under rules 'huaihua'"):
        make_agent(f"search:rollout=checkpoint:{tiny}", rules="yongzhou")
    yz = write_policy(tmp_path / "yz.safetensors", rules="yongzhou", hidden=8)
    with pytest.raises(ValueError, match="trained under rules 'yongzhou'"):
        core_search(g, s, seed=0, rollout=f"checkpoint:{yz}")
    with pytest.raises(ValueError, match="trained under rules 'yongzhou'"):
        vector_search(fast.VectorGame(2, "huaihua", seed=0), rollout=load_network(yz))
    # the binding itself: the network and the hand's observation must fit
    from paohuzi_env import _fast

    with pytest.raises(ValueError, match="observation floats"):
        _fast.net_policy_action(g._g, load_network(yz).core)
    with pytest.raises(ValueError, match="needs the network"):
        _fast.search_action(g._g, s, (0, 0, 0, 1, 0, 0), rollout="network")
    with pytest.raises(ValueError, match="must have shape"):
        _fast.NetPolicy(763, 4, "none", 0.0, np.zeros((4, 762), np.float32), np.zeros(4),
                        np.zeros((4, 4)), np.zeros(4), np.zeros((61, 4)), np.zeros(61))
    with pytest.raises(ValueError, match="prior must be"):
        _fast.NetPolicy(763, 4, "random", 0.0, np.zeros((4, 763)), np.zeros(4),
                        np.zeros((4, 4)), np.zeros(4), np.zeros((61, 4)), np.zeros(61))
    # an mlp's tensors under a sidecar that says conv, and an unknown actor
    conv = write_policy(tmp_path / "conv.safetensors")
    side = json.loads(conv.with_suffix(".json").read_text())
    side["config"]["actor"] = "conv"
    conv.with_suffix(".json").write_text(json.dumps(side))
    with pytest.raises(ValueError, match="lacks the conv actor's tensors actor.conv.0.weight"):
        load_network(conv)
    side["config"]["actor"] = "transformer"
    conv.with_suffix(".json").write_text(json.dumps(side))
    with pytest.raises(ValueError, match="actor must be one of mlp, conv"):
        load_network(conv)
    # the wait features: named by version, a boolean, and the tensors' shapes must fit them
    wp = tmp_path / "w.safetensors"
    write_numpy_conv_policy(wp, "huaihua", 6, 3, "none", 0.0, seed=1, waits=True)
    side = json.loads(wp.with_suffix(".json").read_text())
    assert load_network(wp).waits
    for change, message in [({"waits_version": "paohuzi-waits-v0"}, "waits_version"),
                            ({"config": {**side["config"], "wait_features": "yes"}},
                             "wait_features must be true or false"),
                            ({"config": {**side["config"], "wait_features": False}},
                             "needs")]:
        wp.with_suffix(".json").write_text(json.dumps({**side, **change}))
        with pytest.raises(ValueError, match=message):
            load_network(wp)
    # the conv stem's own checks in the binding
    with pytest.raises(ValueError, match="conv actor needs conv_channels > 0, rows and conv"):
        _fast.NetPolicy(763, 4, "none", 0.0, np.zeros((4, 763 + 40)), np.zeros(4),
                        np.zeros((4, 4)), np.zeros(4), np.zeros((61, 4)), np.zeros(61),
                        conv_channels=4)
    rows = np.arange(29 * 20).reshape(29, 20)
    stem = [np.zeros((4, 58, 3)), np.zeros(4), np.zeros((4, 4, 3)), np.zeros(4),
            np.zeros((4, 4, 3)), np.zeros(4)]
    head = [np.zeros((4, 763 + 40)), np.zeros(4), np.zeros((4, 4)), np.zeros(4),
            np.zeros((61, 4)), np.zeros(61)]
    assert _fast.NetPolicy(763, 4, "none", 0.0, *head, conv_channels=4, rows=rows,
                           conv=stem).conv_channels == 4
    with pytest.raises(ValueError, match="outside the observation"):
        _fast.NetPolicy(763, 4, "none", 0.0, *head, conv_channels=4, rows=rows + 200, conv=stem)
    # a network with the wait features reads 80 more inputs, which its rows may index
    wide = [np.zeros((4, 763 + 80 + 40)), *head[1:]]
    waits_rows = np.vstack([rows, np.arange(763, 843).reshape(4, 20)])
    wstem = [np.zeros((4, 2 * len(waits_rows), 3)), *stem[1:]]
    net = _fast.NetPolicy(763, 4, "none", 0.0, *wide, conv_channels=4, rows=waits_rows,
                          conv=wstem, waits=True)
    assert (net.waits, net.in_size) == (True, 843)
    with pytest.raises(ValueError, match="outside the observation and its wait features"):
        _fast.NetPolicy(763, 4, "none", 0.0, *wide, conv_channels=4, rows=waits_rows + 100,
                        conv=wstem, waits=True)
    with pytest.raises(ValueError, match="outside the observation"):  # without: 763 is outside
        _fast.NetPolicy(763, 4, "none", 0.0, *head, conv_channels=4, rows=waits_rows, conv=wstem)
    with pytest.raises(ValueError, match="then its wait features"):
        _fast.net_policy_logits(net, np.zeros(763, np.float32))
    with pytest.raises(ValueError, match="rows must be an int array"):
        _fast.NetPolicy(763, 4, "none", 0.0, *head, conv_channels=4, rows=rows + 0.5, conv=stem)
    with pytest.raises(ValueError, match="conv must be a list of six float arrays"):
        _fast.NetPolicy(763, 4, "none", 0.0, *head, conv_channels=4, rows=rows, conv="stem")
    with pytest.raises(ValueError, match=r"actor.conv.2.weight must have shape \(4, 4, 3\)"):
        _fast.NetPolicy(763, 4, "none", 0.0, *head, conv_channels=4, rows=rows,
                        conv=[stem[0], stem[1], np.zeros((4, 5, 3)), *stem[3:]])
    with pytest.raises(ValueError, match=r"actor.head.0.weight must have shape \(4, 803\)"):
        _fast.NetPolicy(763, 4, "none", 0.0, np.zeros((4, 763)), *head[1:], conv_channels=4,
                        rows=rows, conv=stem)
    bad = [s.copy() for s in stem]
    bad[2][0, 0, 0] = np.nan
    with pytest.raises(ValueError, match="actor.conv.2.weight holds a non-finite value"):
        _fast.NetPolicy(763, 4, "none", 0.0, *head, conv_channels=4, rows=rows, conv=bad)


@pytest.mark.parametrize("actor,prior", [("conv", "none"), ("mlp", "expert")])
def test_network_agent_plays_the_networks_argmax_without_torch(tmp_path, actor, prior):
    """``network:PATH`` plays the masked argmax of the network's logits: on the compiled core
    (act_game) and from a Python PlayerView (act), the same actions, with the prior's bonus."""
    from paohuzi_env import _fast
    from paohuzi_env.agents.network import NetworkAgent

    path = tmp_path / "n.safetensors"
    if actor == "conv":
        write_numpy_conv_policy(path, "huaihua", 10, 6, prior, 0.0, seed=1)
    else:
        write_policy(path, hidden=12, prior=prior, prior_weight=1.5, seed=2)
    agent = make_agent(f"network:{path}", seed=0, rules="huaihua")
    assert isinstance(agent, NetworkAgent) and agent.network.actor == actor
    net = agent.network
    checked = 0
    for g in random_positions("huaihua", range(6), every=2):
        if len(g.legal_actions()) < 2:
            continue
        action, logits = _fast.net_policy_action(g._g, net.core)
        assert agent.act_game(g, g.current_player) == action
        view = g.view(g.current_player)  # a PlayerView: act() encodes it in Python
        legal = g.legal_actions()
        top = np.sort(logits[legal])[::-1]
        if top[0] - top[1] > 1e-3:
            assert agent.act(view) == action
        checked += 1
    assert checked > 50
    with pytest.raises(ValueError, match="network:PATH"):
        make_agent("network", rules="huaihua")
    with pytest.raises(ValueError, match="does not exist"):
        make_agent(f"network:{tmp_path / 'none.safetensors'}", rules="huaihua")
    with pytest.raises(ValueError, match="the network reads 763 floats"):
        _fast.net_policy_logits(load_network(path).core if prior == "none" else
                                load_network(write_policy(tmp_path / "m.safetensors")).core,
                                np.zeros(700, np.float32))


@pytest.mark.skipif(not (SHIPPED / "distilled.safetensors").is_file(),
                    reason="the shipped checkpoints are not in this tree (an sdist)")
def test_network_agent_scores_what_the_torch_agent_scores():
    """``network:PATH`` (the core, no torch) and ``checkpoint:PATH`` (torch) of the shipped pure
    network play the same duplicate deals to the same points."""
    pytest.importorskip("torch")
    from paohuzi_training.eval.evaluate import evaluate

    core = evaluate(f"network:{SHIPPED / 'distilled.safetensors'}", "expert", deals=12,
                    seed=5, workers=1)
    torch_ = evaluate(f"checkpoint:{SHIPPED / 'distilled.safetensors'}", "expert", deals=12, seed=5,
                      workers=1)
    assert core["games"] == torch_["games"] == 36
    for key in ("mean_points", "win_rate", "hu_rate", "draw_rate"):
        assert core[key] == torch_[key], key
