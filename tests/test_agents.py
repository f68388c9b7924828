"""Rule-based baselines: legal actions only, no hidden information, determinism."""

from __future__ import annotations

import copy
import json
import re
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import numpy as np
import pytest

from paohuzi_env.agents import (
    AGENT_NAMES,
    ExpertAgent,
    GreedyAgent,
    RandomAgent,
    agent_specs,
    make_agent,
    register_agent,
    unregister_agent,
)
from paohuzi_env.game.engine import Game, check_invariants

ROOT = Path(__file__).resolve().parents[1]

PRESETS = ["huaihua", "huaihua-468", "classic", "zipai", "hongshanzhang", "yongzhou"]


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("spec", ["random", "greedy", "expert"])
def test_bots_only_choose_legal_actions(preset, spec):
    hands = 40 if spec == "expert" else 80
    for i in range(hands):
        g = Game(preset, seed=i)
        agents = [make_agent(spec, seed=10 * i + s, rules=preset) for s in range(3)]
        while not g.done:
            s = g.current_player
            a = agents[s](g.view(s))
            assert a in g.legal_actions()
            g.step(a)
        check_invariants(g)


def test_mixed_tables_finish_and_win_sometimes():
    wins = 0
    for i in range(60):
        g = Game(seed=i)
        agents = [make_agent(x, seed=i, rules="huaihua") for x in ("expert", "greedy", "random")]
        while not g.done:
            s = g.current_player
            g.step(agents[s](g.view(s)))
        wins += g.result.winner is not None
    assert wins > 20


def _hidden_variant(game: Game, seat: int) -> Game:
    """Swap cards between the other two hands and the wall: invisible to ``seat``."""
    g = copy.deepcopy(game)
    o1, o2 = (seat + 1) % 3, (seat + 2) % 3
    a = next((k for k in range(20) if g.hands[o1][k]), None)
    b = next((k for k in range(19, -1, -1) if g.hands[o2][k] and k != a), None)
    if a is not None and b is not None:
        g.hands[o1][a] -= 1
        g.hands[o1][b] += 1
        g.hands[o2][b] -= 1
        g.hands[o2][a] += 1
    rest = g.deck[g.wall_pos:]
    g.deck[g.wall_pos:] = rest[::-1]
    return g


@pytest.mark.parametrize("cls", [GreedyAgent, ExpertAgent, RandomAgent])
def test_bots_never_read_hidden_state(cls):
    """Same view, different hidden cards: the same decision (bots see only PlayerView)."""
    rng = np.random.default_rng(0)
    checked = 0
    for i in range(15):
        g = Game(seed=i)
        while not g.done:
            s = g.current_player
            other = _hidden_variant(g, s)
            assert g.view(s) == other.view(s)
            a1 = cls(seed=5)(g.view(s))
            a2 = cls(seed=5)(other.view(s))
            assert a1 == a2
            checked += 1
            legal = g.legal_actions()
            g.step(legal[int(rng.integers(len(legal)))])
    assert checked > 100


def test_agents_reject_non_views_and_unknown_specs():
    with pytest.raises(TypeError, match="PlayerView"):
        GreedyAgent()({"observation": None})
    valid = ", ".join(agent_specs())
    assert valid.startswith("random, greedy, expert")
    for spec in ("smart", "expert:x", "nosuch:PATH", ""):
        with pytest.raises(ValueError, match="unknown agent spec") as e:
            make_agent(spec)
        assert f"valid: {valid}" in str(e.value)


def test_checkpoint_prefix_comes_from_the_installed_entry_point():
    # What pyproject.toml declares (the installed name of paohuzi_training/ is paohuzi_training).
    toml = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    declared = re.search(r'^checkpoint\s*=\s*"([^"]+)"', toml, re.M)
    assert declared and declared[1] == "paohuzi_training.nets.policy:load_checkpoint_agent"
    # The installed metadata speaks for this checkout only if it was installed from here.
    url = json.loads(metadata.distribution("paohuzi-env").read_text("direct_url.json") or "{}").get("url", "")
    if url.startswith("file://") and Path(url[len("file://"):]).resolve() != ROOT:
        pytest.skip(f"paohuzi-env is installed from another checkout ({url}), not {ROOT}")
    eps = [ep for ep in metadata.entry_points(group="paohuzi.agents") if ep.name == "checkpoint"]
    assert [ep.value for ep in eps] == [declared[1]], (
        "the installed paohuzi.agents entry point is missing or stale: run pip install -e . --no-deps")
    assert "checkpoint:ARG" in agent_specs()


def test_register_agent_adds_a_spec_prefix():
    calls = []

    def factory(arg, seed=None, rules="huaihua"):
        calls.append((arg, seed, rules))
        return GreedyAgent(seed, rules)

    register_agent("mine", factory)
    try:
        agent = make_agent("mine:a:b", seed=4, rules="classic")
        assert isinstance(agent, GreedyAgent) and calls == [("a:b", 4, "classic")]
        assert "mine:ARG" in agent_specs()
        register_agent("mine", factory)  # the same factory again is fine
        with pytest.raises(ValueError, match="already registered"):
            register_agent("mine", lambda arg, seed=None, rules=None: RandomAgent(seed))
        register_agent("mine", lambda arg, seed=None, rules=None: RandomAgent(seed), replace=True)
        assert isinstance(make_agent("mine:x"), RandomAgent)
    finally:
        unregister_agent("mine")
    with pytest.raises(ValueError, match="unknown agent spec 'mine:x'"):
        make_agent("mine:x")
    for bad in [*AGENT_NAMES, "a:b", "", "1x"]:
        with pytest.raises(ValueError, match="prefix"):
            register_agent(bad, factory)
    with pytest.raises(TypeError, match="callable"):
        register_agent("mine", "not a function")
    register_agent("odd", lambda arg, seed=None, rules=None: "not an agent")
    try:
        with pytest.raises(TypeError, match="not a paohuzi_env.agents.Agent"):
            make_agent("odd:x")
    finally:
        unregister_agent("odd")


def _run(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)


def test_paohuzi_env_imports_nothing_from_the_trainer():
    """Every module of paohuzi_env, imported in a clean interpreter, pulls in no module of
    ``paohuzi_training``; the same check then sees the trainer once it is imported (it can fail)."""
    code = """
import importlib, pkgutil, sys
import paohuzi_env
skipped = []
for m in pkgutil.walk_packages(paohuzi_env.__path__, "paohuzi_env."):
    try:
        importlib.import_module(m.name)
    except ImportError as e:  # an optional dependency missing; never paohuzi_env or the trainer
        if (e.name or "").split(".")[0] in ("paohuzi_env", "paohuzi_training"):
            raise
        skipped.append(m.name)
def trainer():
    return [m for m in sys.modules if m.split(".")[0] == "paohuzi_training"]
assert not trainer(), trainer()
assert "paohuzi_env.envs.aec_env" in sys.modules and "paohuzi_env.apps.cli" in sys.modules
import paohuzi_training
assert "paohuzi_training" in trainer()
print("ok", len(list(pkgutil.walk_packages(paohuzi_env.__path__, "paohuzi_env."))), skipped)
"""
    r = _run(code)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("ok")


def test_checkpoint_spec_without_torch_says_to_install_the_train_extra():
    code = """
import sys
sys.modules["torch"] = None  # as if torch were not installed
from paohuzi_env.agents import make_agent
try:
    make_agent("checkpoint:checkpoints/shipped/policy.safetensors", seed=0)
except ValueError as e:
    print(e)
"""
    r = _run(code)
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    assert "agent spec prefix 'checkpoint'" in r.stdout
    assert "pip install -e '.[train]'" in r.stdout


def test_checkpoint_spec_without_a_file_fails_clearly(tmp_path):
    with pytest.raises(ValueError, match="does not exist|pip install -e '.\\[train\\]'"):
        make_agent(f"checkpoint:{tmp_path / 'missing.pt'}")


def test_a_bot_picks_its_compiled_twin_itself():
    """ExpertAgent / GreedyAgent.act_game ask their compiled twin on the compiled core (the same
    choice as act(view)); a subclass that changes the bot is asked itself, never the twin; on the
    reference engine act(view) decides."""
    from paohuzi_env import fast
    from paohuzi_env.agents import decide
    from paohuzi_env.backends.reference import ReferenceGame

    if not fast.available():
        pytest.skip("the compiled core is not built")

    class Stubborn(ExpertAgent):
        def act(self, view):
            return max(view.legal)

    calls = []

    class Counted(fast.Game):
        __slots__ = ()

        def expert_action(self):
            calls.append(1)
            return super().expert_action()

    for cls in (Counted, ReferenceGame):
        g = cls("huaihua", seed=12)
        expert, greedy, stubborn = ExpertAgent(0), GreedyAgent(0), Stubborn(0)
        while not g.done:
            s = g.current_player
            v = g.view(s)
            assert decide(expert, g, s) == expert(v) and decide(greedy, g, s) == greedy(v)
            assert decide(stubborn, g, s) == max(v.legal)
            g.step(expert(v))
    assert calls  # the twin answered on the compiled core
