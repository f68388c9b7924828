"""The bot registry (issue 45): one list of bot names, checked against the compiled core's, and
adding a bot is one registry entry plus the bot's own code (shown by a bot added here)."""

from __future__ import annotations

import numpy as np
import pytest

from paohuzi_env import fast
from paohuzi_env.agents import agent_specs, make_agent
from paohuzi_env.agents.search import ROLLOUTS
from paohuzi_env.backends.reference import ReferenceGame, ReferenceVectorGame
from paohuzi_env.bots.base import Agent
from paohuzi_env.bots.registry import Bot, bot, bot_names, register_bot, unregister_bot
from paohuzi_env.game.engine import PlayerView

needs_core = pytest.mark.skipif(not fast.available(), reason="the compiled core is not built")


@needs_core
def test_the_cores_policy_table_is_the_registrys_compiled_bots():
    core = fast._require()
    assert tuple(core.POLICIES) == bot_names(compiled=True)
    assert fast.POLICIES == bot_names(compiled=True)
    assert ROLLOUTS == bot_names(compiled=True)
    # every compiled name is accepted by the core's parsers, and nothing else is
    vg = fast.VectorGame(2, "huaihua", seed=1)
    for name in bot_names(compiled=True):
        assert vg.policy_actions(name).shape == (2,)
    with pytest.raises(ValueError, match="policy must be one of random, greedy, expert"):
        vg.policy_actions("nobody")


def test_builtin_bots_and_exact_twins():
    assert bot_names() == ("random", "greedy", "expert")
    assert bot_names(exact=True) == ("greedy", "expert")  # random draws from the core's generator
    assert type(make_agent("expert", seed=0)).__name__ == "ExpertAgent"
    with pytest.raises(ValueError, match="one of random, greedy, expert; got 'nobody'"):
        bot("nobody")


class FirstLegal(Agent):
    """A test bot: always the lowest legal action id."""

    name = "first_legal"

    def __init__(self, seed=None, rules="huaihua") -> None:
        super().__init__(seed)

    def act(self, view: PlayerView) -> int:
        return int(min(view.legal))


@pytest.fixture
def first_legal():
    register_bot(Bot("first_legal", FirstLegal, doc="the lowest legal action id"))
    yield
    unregister_bot("first_legal")


def test_adding_a_bot_is_one_registry_entry(first_legal):
    # make_agent and the spec listing know it
    agent = make_agent("first_legal", seed=3, rules="huaihua")
    assert isinstance(agent, FirstLegal)
    assert "first_legal" in agent_specs()
    # it plays a whole hand through the harness's entry point
    g = ReferenceGame("huaihua", seed=5)
    while not g.done:
        a = agent.act_game(g, g.current_player)
        assert a == min(g.legal_actions())
        g.step(a)
    # the Python backend's vector game plays any registered bot (the trainer's opponents there)
    vg = ReferenceVectorGame(3, "huaihua", seed=2)
    acts = vg.policy_actions("first_legal")
    assert [int(a) for a in acts] == [min(vg.hand(i).legal_actions()) for i in range(3)]
    # the trainer's config accepts it as an opponent
    from paohuzi_training.recipe import make_config

    cfg = make_config({"opponent_bots": {"first_legal": 0.5}})
    assert cfg.opponent_bots == {"first_legal": 0.5}
    with pytest.raises(ValueError, match="unknown bot"):
        make_config({"opponent_bots": {"second_legal": 0.5}})


@needs_core
def test_a_bot_without_a_compiled_twin_is_refused_by_the_core(first_legal):
    vg = fast.VectorGame(2, "huaihua", seed=1)
    with pytest.raises(ValueError, match="policy must be one of random, greedy, expert, got 'first_legal'"):
        vg.policy_actions("first_legal")
    with pytest.raises(ValueError, match="rollout must be one of"):
        make_agent("search:rollout=first_legal")


def test_registry_errors(first_legal):
    with pytest.raises(ValueError, match="already registered"):
        register_bot(Bot("first_legal", FirstLegal))
    with pytest.raises(ValueError, match="other than search, network"):
        register_bot(Bot("search", FirstLegal))
    with pytest.raises(ValueError, match="Python identifier"):
        register_bot(Bot("two words", FirstLegal))
    with pytest.raises(ValueError, match="exact=True needs compiled=True"):
        register_bot(Bot("x", FirstLegal, exact=True))
    with pytest.raises(TypeError, match="takes a Bot"):
        register_bot("first_legal")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="no bot is registered as 'ghost'"):
        unregister_bot("ghost")
    assert np.all(np.array(bot_names()) != "x")
