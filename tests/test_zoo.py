"""The zoo (:mod:`paohuzi_env.agents.zoo`): every card agrees with its weights (SHA-256, size,
parameter count, architecture, preset and observation version from the sidecar) and every figure
in a card is the figure of the results file it names; ``zoo:NAME`` plays the network through the
compiled core wherever a spec is taken; the default search is guided by the preset's zoo
network; docs/zoo.md and the README's zoo table are generated from the cards; ``paohuzi zoo``
lists, prints and gives JSON; unknown names and wrong rules are clear errors."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
import shutil
from pathlib import Path

import numpy as np
import pytest
import safetensors.numpy

from paohuzi_env import fast
from paohuzi_env.agents import make_agent, zoo, zoo_index
from paohuzi_env.agents.network import NetworkAgent, packaged_guide, read_safetensors
from paohuzi_env.apps.cli import main
from paohuzi_env.game.rules import get_rules
from tests.removed import named_commits, restore

ROOT = Path(__file__).resolve().parents[1]
ENTRIES = [e.name for e in zoo._all()]
needs_core = pytest.mark.skipif(not fast.available(), reason="the network plays in the compiled core")


def _card(name: str) -> dict:
    return zoo.entry(name).card


def _at(data, path):
    for key in path:
        data = data[key]
    return data


PRESETS = ("classic", "hongshanzhang", "huaihua", "huaihua-468", "yongzhou", "zipai")
TRANSFERS = ("classic", "hongshanzhang", "huaihua-468")
ROUNDS = ("zipai",)


def test_the_zoo_has_a_default_network_for_every_preset():
    assert {"huaihua/gen3-r4-oracle", "yongzhou/gen3-r2"} <= set(ENTRIES)
    assert zoo.entry("huaihua").name == "huaihua/gen3-r4-oracle"
    assert zoo.entry("yongzhou").name == "yongzhou/gen3-r2"
    for p in TRANSFERS:  # issue 62: the huaihua network under the preset's rules
        assert zoo.entry(p).name == f"{p}/gen3-transfer"
    for p in ROUNDS:  # ... and after a round of expert iteration under them
        assert zoo.entry(p).name == f"{p}/gen3-round1"
    assert zoo.names()[:6] == PRESETS
    for e in zoo._all():
        assert (e.folder / "network.json").is_file() and e.weights.is_file()
        assert e.folder.parent.parent == zoo.ZOO_DIR


@pytest.mark.parametrize("name", ENTRIES)
def test_every_cards_sha256_and_size_match_its_weights(name):
    e = zoo.entry(name)
    blob = e.weights.read_bytes()
    w = e.card["weights"]
    assert w["file"] == "network.safetensors"
    assert hashlib.sha256(blob).hexdigest() == w["sha256"]
    assert len(blob) == w["bytes"]
    side = json.loads((e.folder / "network.json").read_text())
    assert side["weights_sha256"] == w["sha256"]


@pytest.mark.parametrize("name", ENTRIES)
def test_every_card_describes_its_network(name):
    e = zoo.entry(name)
    c = e.card
    side = json.loads((e.folder / "network.json").read_text())
    tensors = read_safetensors(e.weights)
    assert c["parameters"] == sum(int(v.size) for v in tensors.values())
    stored = safetensors.numpy.load(e.weights.read_bytes())  # as stored: float32 or float16
    assert {str(v.dtype) for v in stored.values()} == {c["weights"]["dtype"]}
    assert c["preset"] == side["rules"]["name"] == e.preset and side["rules"]["overrides"] == {}
    assert c["observation_version"] == side["obs_version"]
    net, a = side["network"], c["architecture"]
    for key in ("actor", "conv_channels", "hidden", "wait_features", "prior"):
        assert a[key] == net[key], key
    assert a["inputs"] == net["obs_size"] + (80 if net["wait_features"] else 0)
    assert tensors["actor.head.4.weight"].shape[0] == a["outputs"] == 61
    for path in (c["made_by"]["config"],):
        assert (ROOT / path).is_file(), path
    assert re.fullmatch(r"[0-9a-f]{7,40}", c["made_by"]["commit"])
    assert c["compute"]["cpu_hours"] == round(
        sum(s["wall_minutes"] * s["cores"] for s in c["compute"]["stages"]) / 60, 1)


@pytest.mark.parametrize("name", ENTRIES)
def test_a_cards_actor_is_its_full_exports_actor(name, tmp_path):
    """The full export a card names is at HEAD, or left it and the card says which commit holds
    it (``git checkout COMMIT -- PATH``), read from that commit where the history is at hand."""
    c = _card(name)
    if "full_export" not in c["made_by"]:
        pytest.skip(f"{name}'s card names no full export (a recipe run's export, not committed)")
    path = c["made_by"]["full_export"]
    full = ROOT / path
    if not full.is_file():
        commits = named_commits(c["made_by"]["full_export_note"], path)
        assert commits, f"{name}'s card names no commit holding its full export {path}"
        got = restore(path, tmp_path, commits[0])
        if got is None:
            pytest.skip(f"{path} left HEAD; the history holding it ({commits[0]}) is not at hand")
        full = got
    mine, theirs = read_safetensors(zoo.network_path(name)), read_safetensors(full)
    assert sorted(mine) == sorted(k for k in theirs if k.startswith("actor."))
    for k, v in mine.items():
        assert v.dtype == theirs[k].dtype and np.array_equal(v, theirs[k]), k


def _figures():
    for name in ENTRIES:
        for i, f in enumerate(_card(name)["strength"]):
            yield pytest.param(name, f, id=f"{name}-{i}")


@pytest.mark.parametrize(("name", "f"), list(_figures()))
def test_every_figure_in_a_card_is_its_results_files(name, f):
    # the command as it ran (the results file's), after the checkouts that bring back a network
    # that has left HEAD since: ``git checkout COMMIT -- PATH ... && paohuzi-eval ...``
    *before, run = f["command"].split(" && ")
    for net in re.findall(r"checkpoint:(\S+)", run):
        if not (ROOT / net).is_file():
            assert [b for b in before if named_commits(b, net)], f"{net} is gone; no checkout names it"
    assert all(b.startswith("git checkout ") for b in before)
    path = ROOT / f["results"]
    if not path.is_file():
        pytest.skip(f"{path} is not in this tree")
    data = json.loads(path.read_text())
    got = _at(data, f["at"])
    assert f["mean"] == got["mean_points"]
    assert f["ci95"] == got["ci95"]
    assert f["deals"] == got["deals"]
    assert f["against"] in ("expert", "search") and got["opponents"] == [f["against"]] * 2
    assert got["rules"] == zoo.entry(name).preset
    # the seed: recorded beside the figure, in the file's commands, or on the doc page named
    if "seed" in got:
        assert got["seed"] == f["seed"]
    elif "commands" in data:
        assert run in data["commands"] and f"--seed {f['seed']} " in run + " "
    else:
        doc = (ROOT / f["seed_source"]).read_text(encoding="utf-8")
        lo, hi = f["ci95"]
        assert re.search(rf"{f['seed']} \| \*\*\+{f['mean']:.3f} \[\+{lo:.3f}, \+{hi:.3f}\]\*\*", doc)
    assert f"--seed {f['seed']}" in run and f"--deals {f['deals']}" in run


@pytest.mark.parametrize("name", ENTRIES)
def test_every_exploitation_figure_is_its_results_files(name):
    # a card's exploitation is paohuzi-exploit's JSON: the gain over expert (paired over deals)
    # of a best response trained against two copies of this very network
    e = zoo.entry(name)
    ex = e.card.get("exploitation")
    if ex is None:
        assert e.card["exploitation_note"].startswith("not measured")
        return
    data = json.loads((ROOT / ex["results"]).read_text())
    assert data["target"] == e.spec and data["rules"] == e.preset
    assert (ex["mean"], ex["ci95"]) == (data["gain"]["mean_points"], data["gain"]["ci95"])
    assert ex["deals"] == data["deals"] == data["gain"]["deals"]
    assert (ex["steps"], ex["seed"]) == (data["steps"], data["eval_seed"])
    assert ex["exploiter_mean"] == data["mean_points"]
    assert f"--eval-seed {ex['seed']}" in ex["command"] and f"--steps {ex['steps']}" in ex["command"]
    assert ex["command"].split()[3] == e.spec


@pytest.mark.parametrize("name", ENTRIES)
def test_every_decision_time_is_its_results_files(name):
    e = zoo.entry(name)
    dt = e.card["decision_time"]
    data = json.loads((ROOT / dt["results"]).read_text())
    net = _at(data, dt["at"])
    search = _at(data, [*dt["at"][:-1], dt["at"][-1] + 1])
    assert net["agent"] == e.spec and search["agent"] == "search"
    assert (dt["ms"], dt["p99_ms"], dt["guided_search_ms"]) == (net["mean_ms"], net["p99_ms"],
                                                                 search["mean_ms"])
    assert dt["command"] in data["commands"]


def test_the_summary_rows_take_each_cards_first_figure():
    for r in zoo.entries():
        c = _card(r["name"])
        first = next(f for f in c["strength"] if f["candidate"] == "network" and f["against"] == "expert")
        assert r["vs_expert"] == first and r["spec"] == zoo.entry(r["name"]).spec
        assert r["decision_ms"] == c["decision_time"]["ms"]


def test_unknown_names_list_the_known_ones():
    known = "unknown zoo name 'nope'; known: " + ", ".join(PRESETS) + ", classic/"
    with pytest.raises(ValueError, match=known):
        zoo.card("nope")
    with pytest.raises(ValueError, match="unknown zoo name 'classic/gen3-r2'"):
        make_agent("zoo:classic/gen3-r2", rules="classic")
    with pytest.raises(ValueError, match="unknown zoo name ''"):
        make_agent("zoo:")
    with pytest.raises(TypeError, match="a zoo name is a string"):
        zoo.entry(3)  # type: ignore[arg-type]
    assert "zoo:NAME" in str(pytest.raises(ValueError, make_agent, "zoo").value)


@needs_core
def test_a_zoo_network_plays_only_its_presets_rules():
    with pytest.raises(ValueError, match=r"zoo:yongzhou plays the 'yongzhou' rules, not 'huaihua'.*"
                                         r"--rules yongzhou"):
        make_agent("zoo:yongzhou")
    import dataclasses

    from paohuzi_env.game.rules import get_rules

    other = dataclasses.replace(get_rules("huaihua"), min_huxi=10)
    with pytest.raises(ValueError, match="'huaihua' with overrides"):
        make_agent("zoo:huaihua", rules=other)
    assert isinstance(zoo.load("yongzhou"), NetworkAgent)


@needs_core
@pytest.mark.parametrize("name", ["huaihua", "yongzhou/gen3-r2"])
def test_zoo_plays_the_same_moves_as_network_path(name):
    preset = zoo.entry(name).preset
    mine = make_agent(f"zoo:{name}", seed=0, rules=preset)
    ref = make_agent(f"network:{zoo.network_path(name)}", seed=0, rules=preset)
    g = fast.Game(preset, seed=11)
    moves = 0
    while not g.done:
        s = g.current_player
        a = mine.act_game(g, s)
        assert a == ref.act_game(g, s)
        assert a == mine.act(g.view(s))  # the view path (no core game) agrees too
        g.step(a)
        moves += 1
    assert moves > 10


@needs_core
def test_the_default_search_is_guided_by_the_presets_zoo_network():
    for preset in PRESETS:
        assert packaged_guide(preset) == zoo.network_path(preset)
        assert make_agent("search", rules=preset).guide.path == zoo.network_path(preset)
        assert make_agent(f"search:guide=zoo:{preset}", rules=preset).guide.path == \
            zoo.network_path(preset)
    # a rule set with overrides has no network of its own: the unguided search
    assert packaged_guide(dataclasses.replace(get_rules("classic"), min_huxi=9)) is None
    with pytest.raises(ValueError, match="guide must be one of auto, none, checkpoint:PATH or zoo:NAME"):
        make_agent("search:guide=expert")


def test_scan_refuses_a_misplaced_card_and_two_defaults(tmp_path):
    src = zoo.entry("yongzhou").folder
    for entry in ("a", "b"):
        shutil.copytree(src, tmp_path / "yongzhou" / entry)
        c = json.loads((src / "card.json").read_text())
        c["name"] = f"yongzhou/{entry}"
        (tmp_path / "yongzhou" / entry / "card.json").write_text(json.dumps(c))
    with pytest.raises(ValueError,
                       match="one default entry each; 'yongzhou' has 'yongzhou/a' and 'yongzhou/b'"):
        zoo_index._scan(tmp_path)
    c["default"] = False
    (tmp_path / "yongzhou" / "b" / "card.json").write_text(json.dumps(c))
    assert [e.spec for e in zoo_index._scan(tmp_path)] == ["zoo:yongzhou", "zoo:yongzhou/b"]
    c["name"] = "yongzhou/a"
    (tmp_path / "yongzhou" / "b" / "card.json").write_text(json.dumps(c))
    with pytest.raises(ValueError, match="its folder makes it 'yongzhou/b'"):
        zoo_index._scan(tmp_path)
    (tmp_path / "yongzhou" / "b" / "card.json").write_text('{"format": "other"}')
    with pytest.raises(ValueError, match="is not a zoo card"):
        zoo_index._scan(tmp_path)


def test_a_journal_header_hashes_a_zoo_networks_files():
    journal = pytest.importorskip("paohuzi_training.eval.journal")
    from paohuzi_env.game.rules import get_rules

    h = journal.header("zoo:huaihua", ["search:guide=zoo:huaihua", "expert"], 1, get_rules("huaihua"),
                       "none", None)
    w = zoo.network_path("huaihua")
    want = hashlib.sha256(w.read_bytes()).hexdigest()
    side = hashlib.sha256(w.with_suffix(".json").read_bytes()).hexdigest()
    assert h["files_sha256"] == {"candidate": want, "candidate.json": side,
                                 "opponent 1 guide": want, "opponent 1 guide.json": side}


def test_docs_zoo_md_is_generated_from_the_cards():
    assert (ROOT / "docs" / "zoo.md").read_text(encoding="utf-8") == zoo.page(), \
        "regenerate it: paohuzi zoo --markdown > docs/zoo.md"


def test_the_readmes_zoo_table_is_generated_from_the_cards():
    table = zoo.readme_table()
    assert table in (ROOT / "README.md").read_text(encoding="utf-8"), \
        "the README's zoo table differs from zoo.readme_table() (paohuzi_env/agents/zoo.py)"
    # one row per preset with a default entry, with the network's and the search's figures
    assert table.count("\n") == 2 + sum(r["default"] for r in zoo.entries())
    assert "+0.534 [+0.466, +0.603]" in table and "+0.767 [+0.581, +0.953]" in table


def test_paohuzi_zoo_lists_prints_and_gives_json(capsys):
    assert main(["zoo"]) == 0
    out = capsys.readouterr().out
    for r in zoo.entries():
        assert r["spec"] in out and r["preset"] in out and r["what"][:30] in out
    assert "+0.534 [+0.466, +0.603]; 20,000 deals" in out and "ms" in out
    assert max(len(line) for line in out.splitlines()) <= 150  # a wide terminal's, not 250
    assert main(["zoo", "huaihua"]) == 0
    assert capsys.readouterr().out == zoo.card_markdown("huaihua")
    assert main(["zoo", "yongzhou/gen3-r2", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == _card("yongzhou")
    assert main(["zoo", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["name"] for r in rows] == ENTRIES and all(r["card"] == _card(r["name"]) for r in rows)
    assert main(["zoo", "--markdown"]) == 0
    assert capsys.readouterr().out == zoo.page()
    assert main(["zoo", "nope"]) == 2
    assert "unknown zoo name 'nope'; known: " + ", ".join(PRESETS) in capsys.readouterr().err
    assert main(["zoo", "--json", "--markdown"]) == 2
    assert "give one" in capsys.readouterr().err


def test_a_card_is_a_copy():
    c = zoo.card("huaihua")
    c["strength"].clear()
    assert zoo.card("huaihua")["strength"]


@needs_core
def test_zoo_specs_work_in_review_exploit_and_the_environments_opponents():
    from paohuzi_env.apps.review import review
    from paohuzi_env.envs.wrappers import SingleAgentEnv

    g = fast.Game("huaihua", seed=11)
    while not g.done:
        g.step(g.expert_action())
    small = "search:guide=none,prune=0,z=0,samples=4,playouts=32"
    by_zoo = review(g.record(), 0, analyser=small, agent="zoo:huaihua")
    by_path = review(g.record(), 0, analyser=small, agent=f"network:{zoo.network_path('huaihua')}")
    assert by_zoo["decisions"] and [[r["prob"] for r in d["legal"]] for d in by_zoo["decisions"]] == \
        [[r["prob"] for r in d["legal"]] for d in by_path["decisions"]]
    env = SingleAgentEnv(opponents="zoo:huaihua", seed=0)
    env.reset(seed=2)
    assert env.action_masks().any()
    exploit = pytest.importorskip("paohuzi_training.exploit")
    cfg = exploit.exploit_config("zoo:huaihua", rules="huaihua", steps=5000, seed=3, init="none")
    assert cfg.opponent_agents == {"zoo:huaihua": 1.0}
    assert exploit.slug("zoo:huaihua/gen3-r4-oracle") == "zoo-huaihua-gen3-r4-oracle"


@needs_core
def test_the_lookahead_plays_a_zoo_agents_own_network():
    aivat = pytest.importorskip("paohuzi_training.eval.aivat")
    from paohuzi_env.agents.network import load_network

    assert aivat.lookahead_network("zoo:huaihua") is load_network(zoo.network_path("huaihua")).core
    with pytest.raises(ValueError, match="unknown zoo name 'nope'"):
        aivat.lookahead_network("zoo:nope")
