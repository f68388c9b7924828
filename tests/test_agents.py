"""Rule-based baselines: legal actions only, no hidden information, determinism."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from paohuzi_env.agents import ExpertAgent, GreedyAgent, RandomAgent, make_agent
from paohuzi_env.engine import Game, check_invariants

PRESETS = ["huaihua", "huaihua-468", "classic", "zipai"]


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
    with pytest.raises(ValueError, match="unknown agent spec"):
        make_agent("smart")


def test_checkpoint_spec_without_a_file_fails_clearly(tmp_path):
    with pytest.raises(ValueError, match="does not exist|needs the trainer"):
        make_agent(f"checkpoint:{tmp_path / 'missing.pt'}")
