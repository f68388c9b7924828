"""The search's guide network (``search:guide=...``, search.hpp SearchOptions::guide): the
networks packaged for huaihua and yongzhou (their default zoo entries) are the actors of the
networks named in ``PACKAGED`` (as recorded from them, and as the commit that holds them has
them); the guide's argmax is the choice kept; only the candidates (the guide's choice, the
rollout bot's choice and the actions the guide gives at least ``guide_p``) are played out; with
every action a candidate and a guide that agrees with the bot it is the unguided search; bad
options raise ValueError."""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path

import numpy as np
import pytest

from paohuzi_env import fast
from paohuzi_env.agents import SearchAgent, make_agent
from paohuzi_env.agents.network import load_network, packaged_guide, read_safetensors
from paohuzi_env.agents.search import core_search, vector_search
from paohuzi_env.game.rules import get_rules
from tests.positions import expert_positions
from tests.removed import COMMIT, restore, tensor_digest
from tests.removed import RECORDED as REMOVED

pytestmark = pytest.mark.skipif(not fast.available(), reason="the search needs the compiled core")

ROOT = Path(__file__).resolve().parents[1]
HU = 59


def _positions(count: int, seed0: int = 40, rules: str = "huaihua"):
    """Decisions with a choice and no win (the search is asked there), from expert play."""
    out = []
    for seed in range(seed0, seed0 + 60):
        for seat in range(3):
            for g in expert_positions(rules, seed, seat, every=3):
                if HU not in g.legal_actions():
                    out.append(g)
                    if len(out) == count:
                        return out
    return out


def _guide(rules: str = "huaihua"):
    return load_network(packaged_guide(rules), rules)


def _guide_policy(g, net):
    """The guide's argmax and its probability of each legal action (softmax over the legal)."""
    a, logits = fast._require().net_policy_action(g._g, net.core)
    legal = g.legal_actions()
    x = np.array([logits[b] for b in legal], float)
    p = np.exp(x - x.max())
    return int(a), dict(zip(legal, p / p.sum()))


def _same(a: dict, b: dict) -> bool:
    """Search results equal, NaN equal to NaN (the means of actions not played out)."""
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


# The networks whose actors are packaged as the search's guides (the last round of generation 3
# under each preset; under huaihua the oracle-guided round 4), shipped as the preset's default zoo
# entry (paohuzi_env/zoo/PRESET/ENTRY/). Their full exports left HEAD after commit ecba453; the
# digest of their actor tensors and their sidecars' config and rules were recorded then
# (tests/fixtures/removed_at_ecba453.json).
PACKAGED = {rules: g["full_export"] for rules, g in REMOVED["guides"].items()}
PACKAGED_ENTRY = {"huaihua": "huaihua/gen3-r4-oracle", "yongzhou": "yongzhou/gen3-r2"}


@pytest.mark.parametrize("rules", sorted(PACKAGED))
def test_the_packaged_guide_is_the_named_networks_actor(rules):
    path = packaged_guide(rules)
    assert path == ROOT / "paohuzi_env" / "zoo" / PACKAGED_ENTRY[rules] / "network.safetensors"
    mine = read_safetensors(path)
    want = REMOVED["guides"][rules]
    assert mine and all(k.startswith("actor.") and v.dtype == np.float32 for k, v in mine.items())
    assert tensor_digest(mine) == want["actor_tensors"]
    side = json.loads(path.with_suffix(".json").read_text())
    assert side["config"] == want["config"] and side["rules"] == want["rules"]
    assert make_agent("search", rules=rules).guide.path == path


@pytest.mark.parametrize("rules", sorted(PACKAGED))
def test_the_packaged_guide_is_the_actor_of_the_full_export_at_its_commit(rules, tmp_path):
    """``git checkout ecba453 -- PATH`` brings back the full export whose actor is packaged."""
    full = restore(PACKAGED[rules], tmp_path)
    if full is None:
        pytest.skip(f"the history holding {PACKAGED[rules]} (commit {COMMIT}) is not at hand")
    shipped = read_safetensors(full)
    mine = read_safetensors(packaged_guide(rules))
    assert sorted(mine) == sorted(k for k in shipped if k.startswith("actor."))
    for k, v in mine.items():
        assert v.dtype == np.float32 and np.array_equal(v, shipped[k]), k
    ref = json.loads(full.with_suffix(".json").read_text())
    assert ref["config"] == REMOVED["guides"][rules]["config"]
    assert ref["rules"] == REMOVED["guides"][rules]["rules"]


def test_only_a_presets_own_rules_have_a_packaged_guide():
    # every preset has one (issue 62: the other four by the huaihua network transferred); a rule
    # set with overrides has none
    assert packaged_guide(dataclasses.replace(get_rules("huaihua"), min_huxi=10)) is None
    overridden = dataclasses.replace(get_rules("classic"), min_huxi=9)
    assert packaged_guide(overridden) is None and make_agent("search", rules=overridden).guide is None
    for preset in ("huaihua-468", "classic", "zipai", "hongshanzhang"):
        assert make_agent("search", rules=preset).guide.path == packaged_guide(preset)
    assert make_agent("search:guide=none").guide is None
    assert make_agent("search:impl=python").guide is None  # the reference has none


@pytest.mark.parametrize("rules", ["huaihua", "yongzhou"])
def test_only_the_candidates_are_played_and_the_guides_choice_is_kept(rules):
    net = _guide(rules)
    agreed = differed = 0
    for g in _positions(40, rules=rules):
        s = g.current_player
        best, p = _guide_policy(g, net)
        bot = g.expert_action()
        for guide_p in (1.0, 0.1):
            r = core_search(g, s, seed=3, samples=8, guide_p=guide_p)
            cand = {best, bot} | {a for a, q in p.items() if q >= guide_p}
            played = {a for a, n in zip(r["legal"], r["played"]) if n > 0}
            if len(cand) == 1:
                # nothing to compare: the guide's choice, no world sampled, no number drawn
                assert (r["choice"], r["worlds"], r["playouts"]) == (best, 0, 0)
                rng = np.random.default_rng(8)
                before = rng.bit_generator.state
                assert core_search(g, s, rng=rng, samples=8, guide_p=guide_p)["worlds"] == 0
                assert rng.bit_generator.state == before
                continue
            assert played == cand
            assert r["choice"] in cand
            assert all(math.isnan(m) for m, n in zip(r["means"], r["played"]) if n == 0)
            # the guide's choice is the one played in every world
            assert r["played"][r["legal"].index(best)] == r["worlds"] == max(r["played"])
            # a margin no gain clears: the guide's choice, whatever the worlds say
            assert core_search(g, s, seed=3, samples=8, guide_p=guide_p,
                               margin=1000)["choice"] == best
        if best == bot:
            agreed += 1
        else:
            differed += 1
    assert agreed >= 5 and differed >= 3


def test_with_a_random_rollout_the_first_legal_action_is_a_candidate():
    net = _guide()
    seen = 0
    for g in _positions(30):
        best, _ = _guide_policy(g, net)
        first = min(g.legal_actions())
        if best == first:
            continue
        r = core_search(g, g.current_player, seed=1, samples=4, rollout="random", guide_p=1.0)
        played = {a for a, n in zip(r["legal"], r["played"]) if n > 0}
        assert played == {best, first}
        seen += 1
    assert seen >= 3


def test_every_action_a_candidate_and_an_agreeing_guide_is_the_unguided_search():
    """guide_p=0 plays every legal action; where the guide's choice is the bot's, the search is
    the unguided one world for world (the guide draws nothing from the generator)."""
    net = _guide()
    compared = 0
    for g in _positions(30):
        best, _ = _guide_policy(g, net)
        if best != g.expert_action():
            continue
        for prune in (0, 4):
            a = core_search(g, g.current_player, seed=11, samples=6, prune=prune, guide_p=0.0)
            b = core_search(g, g.current_player, seed=11, samples=6, prune=prune, guide="none")
            assert _same(a, b)
        compared += 1
    assert compared >= 5


def test_the_guided_search_is_deterministic_over_threads_and_batches():
    positions = _positions(12)
    for g in positions:
        s = g.current_player
        one = core_search(g, s, seed=2, samples=8)
        assert _same(one, core_search(g, s, seed=2, samples=8, threads=2))
        assert _same(one, core_search(g, s, seed=2, samples=8, guide=_guide()))
        assert _same(one, core_search(g, s, seed=2, samples=8,
                                      guide=f"checkpoint:{packaged_guide('huaihua')}"))
    vg = fast.VectorGame(6, "huaihua", seed=3)
    for _ in range(5):
        vg.step(vg.expert_actions())
    a = vector_search(vg, None, seed=4, samples=6, threads=1)
    assert (a == vector_search(vg, None, seed=4, samples=6, threads=2)).all()


def test_bad_guide_options_raise_clear_errors():
    g = _positions(1)[0]
    s = g.current_player
    for bad in (-0.1, 1.5, float("nan")):
        with pytest.raises(ValueError, match="guide_p"):
            make_agent(f"search:guide_p={bad}")
        with pytest.raises(ValueError, match="guide_p"):
            core_search(g, s, seed=0, guide_p=bad)
    with pytest.raises(ValueError, match="guide must be one of auto, none"):
        make_agent("search:guide=mcts")
    with pytest.raises(ValueError, match="not with a guide"):
        make_agent("search:top=3")  # top ranks by the bot's values; the default has a guide
    with pytest.raises(ValueError, match="compiled search"):
        make_agent(f"search:impl=python,guide=checkpoint:{packaged_guide('huaihua')}")
    with pytest.raises(ValueError, match="trained under rules 'huaihua'"):
        make_agent(f"search:guide=checkpoint:{packaged_guide('huaihua')}", rules="yongzhou")
    with pytest.raises(ValueError, match="trained under rules 'yongzhou'"):
        make_agent(f"search:guide=checkpoint:{packaged_guide('yongzhou')}", rules="huaihua")
    with pytest.raises(ValueError, match="guide network reads"):  # the binding checks it too
        yz = fast.Game("yongzhou", seed=1)
        while len(yz.legal_actions()) < 2 or HU in yz.legal_actions():
            yz.step(yz.expert_action())
        fast._require().search_action(yz._g, yz.current_player, (0, 1, 0, 1, 0, 0),
                                      guide=_guide().core)
    assert make_agent("search:top=3,guide=none").top == 3
    assert SearchAgent(impl="python", guide=None).guide is None  # None is "none"
    assert SearchAgent(guide=None).guide is None
