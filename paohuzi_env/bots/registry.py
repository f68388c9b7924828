"""The bot registry: every bot by name, the one list in Python that spells bot names.

A :class:`Bot` ties a name to its Python agent (a factory ``make(seed, rules) -> Agent``) and
says whether the compiled core has a twin of it. A compiled twin goes by the same name in the
core's policy table (``POLICY_NAMES`` in ``backends/_core/vector.hpp``, exported as
``paohuzi_env._fast.POLICIES``; ``tests/test_bot_registry.py`` checks the two agree), and that
name is what the core's ``VectorGame.policy_actions``, the search's ``rollout=`` and the
networks' ``prior`` take.

Everything else reads its names from here: ``make_agent`` and ``agent_specs``
(:mod:`paohuzi_env.agents`), the backends' ``POLICIES`` and policy checks, the search's rollout
names and the trainer's ``opponent_bots``. Adding a bot is one :func:`register_bot` call plus the
bot's own files (a compiled twin also needs its entry in ``POLICY_NAMES`` and its code in
``bots.cpp``); ``tests/test_bot_registry.py`` adds one in a test.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .base import Agent, RandomAgent
from .heuristic import ExpertAgent, GreedyAgent

__all__ = ["Bot", "bot", "bot_names", "make_bot", "register_bot", "unregister_bot"]

BotFactory = Callable[[Any, Any], Agent]
"""``make(seed, rules) -> Agent``: ``seed`` as :func:`numpy.random.default_rng` takes it,
``rules`` a preset name or :class:`~paohuzi_env.game.rules.Rules`."""


@dataclass(frozen=True)
class Bot:
    """One bot of the registry.

    Attributes:
        name: its spec name (``make_agent(name)``); letters, digits and ``_`` only.
        make: its Python agent, ``make(seed, rules)``.
        compiled: whether the compiled core has a twin under the same name (then the core's
            vector games, the search's playouts and the trainer's core rollouts can play it).
        exact: whether that twin takes the Python agent's decisions exactly, position for
            position (``random`` draws from the core's own generator, so it is not exact);
            batched evaluation and labelling hand only exact twins to the core.
        doc: one line for listings.
    """

    name: str
    make: BotFactory
    compiled: bool = False
    exact: bool = False
    doc: str = ""


_BOTS: dict[str, Bot] = {}
RESERVED = ("search", "network", "zoo")
"""Spec names that are agents, not bots (:mod:`paohuzi_env.agents`)."""


def register_bot(entry: Bot, *, replace: bool = False) -> None:
    """Add ``entry`` to the registry.

    Raises:
        ValueError: for a malformed or reserved name, or a name already registered (unless
            ``replace``).
        TypeError: if ``entry`` is not a :class:`Bot` or its ``make`` is not callable.
    """
    if not isinstance(entry, Bot):
        raise TypeError(f"register_bot takes a Bot, got {type(entry).__name__}")
    if not entry.name.isidentifier() or entry.name in RESERVED:
        raise ValueError(f"a bot name is a Python identifier other than {', '.join(RESERVED)}, "
                         f"got {entry.name!r}")
    if entry.exact and not entry.compiled:
        raise ValueError(f"bot {entry.name!r}: exact=True needs compiled=True")
    if not callable(entry.make):
        raise TypeError(f"bot {entry.name!r}: make must be callable, got {type(entry.make).__name__}")
    if entry.name in _BOTS and not replace:
        raise ValueError(f"bot {entry.name!r} is already registered; pass replace=True to override it")
    _BOTS[entry.name] = entry


def unregister_bot(name: str) -> None:
    """Remove the bot ``name`` (registered with :func:`register_bot`).

    Raises:
        ValueError: if no bot has that name.
    """
    if _BOTS.pop(name, None) is None:
        raise ValueError(f"no bot is registered as {name!r}; bots: {', '.join(_BOTS)}")


def bot_names(compiled: bool | None = None, exact: bool | None = None) -> tuple[str, ...]:
    """The registered names in registration order; only those with (``True``) or without
    (``False``) a compiled twin, or an exact one, when ``compiled`` or ``exact`` is given."""
    return tuple(n for n, b in _BOTS.items() if (compiled is None or b.compiled == compiled)
                 and (exact is None or b.exact == exact))


def bot(name: str, *, compiled: bool = False, what: str = "bot") -> Bot:
    """The registry entry of ``name``.

    Args:
        name: a bot name.
        compiled: require a compiled twin.
        what: how the error message names the value (``"policy"``, ``"opponent bot"``, ...).

    Raises:
        ValueError: naming the valid names, when ``name`` is not a (compiled) bot.
    """
    entry = _BOTS.get(name) if isinstance(name, str) else None
    if entry is None or (compiled and not entry.compiled):
        valid = bot_names(compiled=True if compiled else None)
        extra = " with a compiled twin" if compiled and entry is not None else ""
        raise ValueError(f"{what} must be a bot{extra}: one of {', '.join(valid)}; got {name!r}")
    return entry


def make_bot(name: str, seed: Any = None, rules: Any = "huaihua") -> Agent:
    """The Python agent of bot ``name`` (see :func:`bot` for the errors)."""
    return bot(name).make(seed, rules)


register_bot(Bot("random", lambda seed, rules: RandomAgent(seed), compiled=True,
                 doc="uniform over the legal actions"))
register_bot(Bot("greedy", GreedyAgent, compiled=True, exact=True,
                 doc="always wins; claims and discards by its hand value after the move"))
register_bot(Bot("expert", ExpertAgent, compiled=True, exact=True,
                 doc="counts cards, weighs huxi, 跑/提 chances and discard safety"))
