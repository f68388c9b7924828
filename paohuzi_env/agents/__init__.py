"""Rule-based policies. Each is called with a :class:`~paohuzi_env.game.engine.PlayerView` (what
its seat may know) and returns a legal action id; none reads hidden state.

``make_agent(spec, seed, rules)`` builds one from a spec: a built-in name (``random``,
``greedy``, ``expert``, ``search``), ``search:OPTIONS`` (e.g. ``search:samples=64``; see
:mod:`paohuzi_env.agents.search`), ``network:PATH`` (a trained ``.safetensors`` policy played by
the compiled core, no torch: :class:`~paohuzi_env.agents.network.NetworkAgent`),
``zoo:NAME`` (a network shipped with paohuzi_env, by name: :mod:`paohuzi_env.agents.zoo`) or
``PREFIX:ARG`` for a registered prefix. Prefixes come from
:func:`register_agent` or from installed packages through the ``paohuzi.agents`` entry-point
group; this project's trainer declares ``checkpoint`` (``checkpoint:PATH``, a trained PPO
policy; needs the ``train`` extra) and :mod:`paohuzi_env.envs.rllib` declares ``rllib``
(``rllib:PATH``, an RLlib checkpoint; needs the ``rllib`` extra) and
:mod:`paohuzi_env.envs.mlp_policy` declares ``mlp`` (``mlp:PATH``, an MLP policy exported from
another library as ``.safetensors`` + sidecar, played with numpy).
"""

from __future__ import annotations

from typing import Any

from ..bots.base import Agent, RandomAgent, decide
from ..bots.heuristic import ExpertAgent, GreedyAgent
from ..bots.registry import RESERVED, Bot, bot_names, make_bot, register_bot, unregister_bot
from ..game.rules import Rules
from . import registry
from .registry import ENTRY_POINT_GROUP, AgentFactory
from .search import SearchAgent, parse_search_spec

AGENT_NAMES = (*bot_names(), *RESERVED)
"""The built-in spec names: the bots of :mod:`paohuzi_env.bots.registry` at import, then
``search``, ``network`` and ``zoo`` (:func:`builtin_names` includes bots registered later)."""


def builtin_names() -> tuple[str, ...]:
    """The names no prefix may take: every registered bot, ``search``, ``network``, ``zoo``."""
    return (*bot_names(), *RESERVED)


def register_agent(prefix: str, factory: AgentFactory, *, replace: bool = False) -> None:
    """Make ``make_agent("PREFIX:ARG", seed, rules)`` return ``factory(ARG, seed=seed, rules=rules)``.

    A registered prefix takes precedence over a ``paohuzi.agents`` entry point of the same name.

    Raises:
        ValueError: for a malformed prefix, a built-in name, or a prefix already registered
            (unless ``replace``).
        TypeError: if ``factory`` is not callable.
    """
    registry.register(prefix, factory, replace=replace, reserved=builtin_names())


def unregister_agent(prefix: str) -> None:
    """Undo :func:`register_agent` for ``prefix``."""
    registry.unregister(prefix)


def agent_specs() -> tuple[str, ...]:
    """The valid spec forms: the built-in names, then ``PREFIX:ARG`` for each known prefix."""
    return (*bot_names(), "search", "search:OPTIONS", "network:PATH", "zoo:NAME",
            *(f"{p}:ARG" for p in registry.prefixes()))


def make_agent(spec: str, seed: Any = None, rules: str | Rules = "huaihua") -> Agent:
    """An agent from a spec string, for the given rules (a preset name or Rules).

    ``seed`` is anything :func:`numpy.random.default_rng` takes (an int, a SeedSequence, None).

    Raises:
        ValueError: for an unknown spec (naming the valid ones), an unknown zoo name (naming
            the known ones), a zoo network for other rules, or a prefix whose package cannot be
            imported (naming what to install).
    """
    if not isinstance(spec, str):
        raise TypeError(f"agent spec must be a string, got {type(spec).__name__}")
    if spec in bot_names():
        return make_bot(spec, seed, rules)
    prefix, sep, arg = spec.partition(":")
    if prefix == "search":
        return SearchAgent(seed, rules, **parse_search_spec(arg))
    if prefix == "network" and sep:
        from .network import NetworkAgent

        return NetworkAgent(arg, seed, rules)
    if prefix == "zoo" and sep:
        from . import zoo

        return zoo.make(arg, seed, rules)
    factory = registry.factory_for(prefix) if sep else None
    if factory is None:
        hint = ""
        if prefix == "checkpoint" and sep:
            hint = (
                f" (no {ENTRY_POINT_GROUP!r} entry point for 'checkpoint' is installed: "
                "pip install -e '.[train]' in this repository)"
            )
        raise ValueError(
            f"unknown agent spec {spec!r}; valid: {', '.join(agent_specs())}{hint}"
        )
    agent = factory(arg, seed=seed, rules=rules)
    if not isinstance(agent, Agent):
        raise TypeError(
            f"the factory of agent spec prefix {prefix!r} returned {type(agent).__name__}, "
            "not a paohuzi_env.agents.Agent"
        )
    return agent


__all__ = [
    "AGENT_NAMES", "Agent", "AgentFactory", "Bot", "ExpertAgent", "GreedyAgent", "RandomAgent",
    "SearchAgent", "agent_specs", "bot_names", "builtin_names", "decide", "make_agent",
    "register_agent", "register_bot", "unregister_agent", "unregister_bot",
]
