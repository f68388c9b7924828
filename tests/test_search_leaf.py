"""The search's leaf critic (``search:leaf=checkpoint:PATH``, search.hpp SearchOptions::leaf):
the compiled critic (``_fast.NetValue``) is the network's critic, computed here with numpy from
the same tensors; a leaf search's means are, world by world, the critic's value at the seat's
``leaf_depth``-th turn after the candidate (or the finished hand's points less the deal's expert
points, clipped as the reward was), recomputed here step by step from the reference's worlds;
a depth no hand reaches is the search without a leaf; bad options and files raise ValueError."""

from __future__ import annotations

import hashlib
import json
import math
import shutil
from pathlib import Path

import numpy as np
import pytest
import safetensors.numpy

from paohuzi_env import fast
from paohuzi_env.agents import make_agent
from paohuzi_env.agents.network import Critic, load_critic, read_safetensors
from paohuzi_env.agents.search import (
    _knowledge,
    _sample_deck,
    _world,
    core_search,
    parse_search_spec,
    vector_search,
)
from paohuzi_env.encode.features import WAIT_FEATURES, WAITS_VERSION, wait_features
from paohuzi_env.encode.observation import encode, obs_size
from paohuzi_env.encode.state import state_extra, state_extra_size
from paohuzi_env.game.rules import get_rules
from tests.positions import expert_positions

pytestmark = pytest.mark.skipif(not fast.available(), reason="the search needs the compiled core")

ROOT = Path(__file__).resolve().parents[1]
HU = 59
CRITIC_IN = obs_size(get_rules("huaihua")) + WAIT_FEATURES + state_extra_size(get_rules("huaihua"))


def _write_critic(path: Path, seed: int = 0) -> Path:
    """A network exported with its critic as generation 3's were (central, with wait features,
    hidden 256, trained on the normalized reward against the expert baseline), its tensors drawn
    at random (a trained one's critic left HEAD with generation 3's full exports after commit
    ecba453), written with numpy and its sidecar as the exporter writes them."""
    rng = np.random.default_rng(seed)
    shapes = {"critic.0.weight": (256, CRITIC_IN), "critic.0.bias": (256,),
              "critic.2.weight": (256, 256), "critic.2.bias": (256,),
              "critic.4.weight": (1, 256), "critic.4.bias": (1,)}
    t = {k: (rng.standard_normal(s) / math.sqrt(s[-1])).astype(np.float32)
         for k, s in shapes.items()}
    t["critic.4.weight"] *= 0.1  # values of a few points, as a trained critic's
    path.write_bytes(safetensors.numpy.save(t))
    config = {"rules": "huaihua", "actor": "conv", "hidden": 24, "conv_channels": 8,
              "critic_hidden": 256, "wait_features": True, "central_critic": True,
              "prior": "none", "reward": "normalized", "reward_baseline": "expert"}
    path.with_suffix(".json").write_text(json.dumps({
        "format": "paohuzi-policy-safetensors-v1", "obs_version": "paohuzi-obs-v1",
        "waits_version": WAITS_VERSION, "rules": {"name": "huaihua", "overrides": {}},
        "config": config, "policy_only": True,
        "weights_sha256": hashlib.sha256(path.read_bytes()).hexdigest()}))
    return path


@pytest.fixture(scope="module")
def wide(tmp_path_factory) -> Path:
    return _write_critic(tmp_path_factory.mktemp("critic") / "wide.safetensors")


def _positions(count: int, seed0: int = 70):
    out = []
    for seed in range(seed0, seed0 + 40):
        for seat in range(3):
            for g in expert_positions("huaihua", seed, seat, every=4):
                if HU not in g.legal_actions() and len(g.legal_actions()) > 1:
                    out.append(g)
                    if len(out) == count:
                        return out
    return out


def _numpy_critic(wide: Path, g, seat: int) -> float:
    """The critic of ``wide`` in points, by numpy from its tensors."""
    t = read_safetensors(wide)
    v = g.view(seat)
    x = np.concatenate([encode(v), wait_features(v, g.rules), state_extra(g, seat)])
    h = np.maximum(t["critic.0.weight"].astype(np.float64) @ x + t["critic.0.bias"], 0)
    h = np.maximum(t["critic.2.weight"].astype(np.float64) @ h + t["critic.2.bias"], 0)
    return float((t["critic.4.weight"] @ h + t["critic.4.bias"])[0]) * 64.0


def test_the_compiled_critic_is_the_networks_critic(wide):
    critic = load_critic(wide, "huaihua")
    assert (critic.central, critic.waits, critic.scale, critic.clip, critic.baseline) == \
        (True, True, 64.0, 64.0, True)
    core = fast._require()
    values = []
    for g in _positions(6):
        for seat in range(3):  # any seat's view: the leaves read the searching seat's
            got = core.net_value(g._g, seat, critic.core)
            want = _numpy_critic(wide, g, seat)
            assert got == pytest.approx(want, abs=1e-3)
            values.append(got)
    assert len(set(np.round(values, 3))) > 10  # the positions are valued differently


def _late_positions(count: int, seed0: int = 150, left: int = 8):
    """Decisions with a choice and at most ``left`` cards in the wall: a hand often ends
    before the seat's next turn there."""
    out = []
    for seed in range(seed0, seed0 + 200):
        for seat in range(3):
            for g in expert_positions("huaihua", seed, seat, every=1):
                if (HU not in g.legal_actions() and len(g.legal_actions()) > 1
                        and len(g.deck) - g.wall_pos <= left):
                    out.append(g)
                    if len(out) == count:
                        return out
                    break
    return out


def _leaf_means(g, seat: int, seed: int, depth: int, critic,
                ends: list[int] | None = None) -> tuple[list[int], np.ndarray]:
    """The reference's worlds for the generator of ``seed`` (agents/search.py's act_game loop)
    and, per world and legal action, the leaf value recomputed step by step; ``ends`` counts
    [leaves valued by the critic, hands that ended first]."""
    core = fast._require()
    rng = np.random.default_rng(seed)
    kn = _knowledge(g, seat)
    legal = list(g.legal_actions())
    rows = []
    want = min(32, max(2, 256 // len(legal)))
    attempts = 0
    while len(rows) < want and attempts < want * 8:
        attempts += 1
        deck = _sample_deck(kn, rng)
        world = None if deck is None else _world(kn, deck, g.rules)
        if world is None:
            continue
        rng.integers(2**31)  # the playouts' seed (unused by the expert)
        base = fast.Game(g.rules, deck=deck, dealer=kn.dealer)
        while not base.done:
            base.step(base.expert_action())
        row = []
        for a in legal:
            c = world.clone()
            c.step(a)
            turns, value = 0, None
            while not c.done:
                if c.current_player == seat:
                    turns += 1
                    if turns >= depth:
                        value = core.net_value(c._g, seat, critic.core)
                        break
                c.step(c.expert_action())
            if ends is not None:
                ends[value is None] += 1
            if value is None:  # the hand ended first: its points less the deal's, clipped
                value = max(-64.0, min(64.0, c.result.scores[seat] - base.result.scores[seat]))
            row.append(value)
        rows.append(row)
    return legal, np.asarray(rows, float)


@pytest.mark.parametrize("depth", [1, 2])
def test_leaf_means_are_the_critic_at_the_seats_next_turns(depth, wide):
    critic = load_critic(wide, "huaihua")
    checked = 0
    ends = [0, 0]
    for i, g in enumerate(_positions(2, seed0=90) + _late_positions(2)):
        seat = g.current_player
        out = core_search(g, seat, seed=i, guide="none", prune=0, leaf=critic, leaf_depth=depth)
        legal, pts = _leaf_means(g, seat, i, depth, critic, ends)
        assert out["legal"] == legal and out["worlds"] == len(pts) >= 2
        np.testing.assert_allclose(out["means"], pts.mean(axis=0), atol=1e-4)
        diff = pts - pts[:, [legal.index(g.expert_action())]]
        lcb = diff.mean(axis=0) - 2.0 * diff.std(axis=0, ddof=1) / math.sqrt(len(pts))
        best = int(np.argmax(lcb))
        want = legal[best] if lcb[best] > 0 else g.expert_action()
        assert out["choice"] == want
        checked += 1
    assert checked == 4
    assert min(ends) > 0, ends  # both kinds of leaf were compared


def test_a_depth_no_hand_reaches_is_the_search_without_a_leaf(wide):
    # A critic trained on raw points (no baseline, no clip) whose every playout ends before
    # the seat's 1000th turn: the leaf values are the playouts' points.
    t = read_safetensors(wide)
    w = {k: np.ascontiguousarray(v) for k, v in t.items() if k.startswith("critic.")}
    raw = fast._require().NetValue(
        763, 256, True, True, 1.0, 0.0, False, w["critic.0.weight"], w["critic.0.bias"],
        w["critic.2.weight"], w["critic.2.bias"], w["critic.4.weight"], w["critic.4.bias"])
    critic = Critic(wide, get_rules("huaihua"), 256, True, True, 1.0, 0.0, False, raw)
    for i, g in enumerate(_positions(4, seed0=110)):
        seat = g.current_player
        for guide in ("none", "auto"):
            a = core_search(g, seat, seed=i, guide=guide)
            b = core_search(g, seat, seed=i, guide=guide, leaf=critic, leaf_depth=1000)
            assert json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def test_the_agent_the_batched_search_and_the_spec_agree(wide):
    spec = f"checkpoint:{wide}"
    positions = _positions(3, seed0=130)
    agent = make_agent(f"search:leaf={spec},leaf_depth=2", seed=5)
    assert agent.leaf is not None and agent.leaf_depth == 2
    assert parse_search_spec(f"leaf={spec},leaf_depth=2") == {"leaf": spec, "leaf_depth": 2}
    opts = agent.batch_options()
    assert opts is not None and opts["leaf"] is agent.leaf and opts["leaf_depth"] == 2
    vg = fast.VectorGame(len(positions), "huaihua", seed=0)
    for g in positions:
        a = core_search(g, g.current_player, seed=9, leaf=spec, leaf_depth=2)
        assert a["choice"] in g.legal_actions()
    out = vector_search(vg, seed=3, leaf=spec)
    assert all(a in vg.hand(i).legal_actions() for i, a in enumerate(out))


def test_bad_leaves_raise_value_errors(tmp_path, wide):
    spec = f"checkpoint:{wide}"
    g = _positions(1)[0]
    seat = g.current_player
    with pytest.raises(ValueError, match="leaf must be none or checkpoint:PATH"):
        core_search(g, seat, leaf="critic")
    with pytest.raises(ValueError, match="leaf_depth must be an int in 1..1000"):
        core_search(g, seat, leaf=spec, leaf_depth=0)
    with pytest.raises(ValueError, match="leaf_depth must be an int in 1..1000"):
        make_agent("search:leaf_depth=0")
    with pytest.raises(ValueError, match="options of the compiled search"):
        make_agent(f"search:impl=python,leaf={spec}")
    # a play-only export without the critic
    actor = ROOT / "paohuzi_env" / "zoo" / "huaihua" / "gen3-r4-oracle" / "network.safetensors"
    with pytest.raises(ValueError, match="holds no critic"):
        load_critic(actor)
    # a hand of other rules
    yz = next(p for p in expert_positions("yongzhou", 3, 0, every=2) if len(p.legal_actions()) > 1)
    with pytest.raises(ValueError, match="a critic values only the rules it was trained on"):
        core_search(yz, yz.current_player, leaf=spec)
    # a critic trained on wins, not points
    shutil.copy(wide, tmp_path / "w.safetensors")
    meta = json.loads(wide.with_suffix(".json").read_text())
    meta["config"]["reward"] = "win"
    (tmp_path / "w.json").write_text(json.dumps(meta))
    with pytest.raises(ValueError, match="must have learned points"):
        load_critic(tmp_path / "w.safetensors")
    core = fast._require()
    with pytest.raises(ValueError, match="critic.0.weight must have shape"):
        core.NetValue(763, 8, False, True, 64.0, 64.0, True, np.zeros((8, 763), np.float32),
                      np.zeros(8, np.float32), np.zeros((8, 8), np.float32),
                      np.zeros(8, np.float32), np.zeros((1, 8), np.float32),
                      np.zeros(1, np.float32))
    with pytest.raises(ValueError, match="scale must be positive"):
        core.NetValue(763, 8, False, False, 0.0, 0.0, False, np.zeros((8, 763), np.float32),
                      np.zeros(8, np.float32), np.zeros((8, 8), np.float32),
                      np.zeros(8, np.float32), np.zeros((1, 8), np.float32),
                      np.zeros(1, np.float32))
