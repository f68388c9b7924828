"""paohuzi-env: a rules engine and reinforcement-learning environment for 跑胡子 (Paohuzi).

The package is layered; each subpackage imports only those below it (``lint-imports`` checks
the contract in pyproject.toml; docs/contributing.md "Layers"):

* ``apps`` — the ``paohuzi`` command, terminal play, the browser table, replay pages;
* ``envs`` — the PettingZoo AEC environment (``envs.aec_env``), Gymnasium wrappers, RLlib;
* ``agents`` — ``make_agent``, the search, the network agent, spec prefixes;
* ``backends`` — the Python reference and the compiled core (``fast``) behind one protocol;
* ``bots`` — the agent interface, the rule-based bots and the bot registry;
* ``display`` — the text renderer and the SVG table;
* ``encode`` — observations, the critic's state, wait features, rewards;
* ``game`` — the rules core (cards, rules, groups, 吃/比, scoring, the engine, and
  ``game.protocol``, the one interface of both backends), which knows nothing of PettingZoo or
  torch.

``dev`` holds the benchmarks, the soak and the load test; nothing imports it.

Importing the package registers ``paohuzi/<preset>-v0`` with PettingZoo's registry (so
``pettingzoo.make("aec", "paohuzi/huaihua-v0")`` works after ``import paohuzi_env``) and imports
nothing else of it but the rule presets: the names below load on first use (PEP 562), so that
``import paohuzi_env.game.engine`` loads neither the compiled core nor a backend. ``fast`` is
:mod:`paohuzi_env.backends.fast`, the compiled core's public path (``from paohuzi_env import
fast``); when the extension was not built, its first use warns once and every ``backend="auto"``
runs on the Python engine (:mod:`paohuzi_env.backends.select`).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ._version import __version__

if TYPE_CHECKING:  # what __getattr__ gives, for type checkers
    from .backends import fast
    from .game.rules import PRESETS as PRESETS  # public, not in __all__ (as before)
    from .game.rules import Rules, get_rules, load_rules
    from .game.scoring import Win, evaluate_win

__all__ = [
    "Rules", "Win", "env", "evaluate_win", "fast", "get_rules", "load_rules", "raw_env", "__version__",
]

ENV_VERSION = 0
"""The version in the registered ids ``paohuzi/<preset>-v0``."""

_LAZY: dict[str, tuple[str, str | None]] = {
    "PRESETS": ("paohuzi_env.game.rules", "PRESETS"),
    "Rules": ("paohuzi_env.game.rules", "Rules"),
    "get_rules": ("paohuzi_env.game.rules", "get_rules"),
    "load_rules": ("paohuzi_env.game.rules", "load_rules"),
    "Win": ("paohuzi_env.game.scoring", "Win"),
    "evaluate_win": ("paohuzi_env.game.scoring", "evaluate_win"),
    "fast": ("paohuzi_env.backends.fast", None),
}
"""Public name -> (module, attribute in it; None: the module itself), imported on first use."""


def __getattr__(name: str) -> Any:
    """A name of :data:`_LAZY`, imported now (and kept, so the next lookup is a plain one)."""
    try:
        module, attr = _LAZY[name]
    except KeyError:
        raise AttributeError(f"module 'paohuzi_env' has no attribute {name!r}") from None
    value = importlib.import_module(module)
    if attr is not None:
        value = getattr(value, attr)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


def env(**kwargs: Any):
    """The wrapped PettingZoo AEC environment (see :mod:`paohuzi_env.envs.aec_env`)."""
    from .envs.aec_env import env as _env

    return _env(**kwargs)


def raw_env(**kwargs: Any):
    """The unwrapped PettingZoo AEC environment (see :mod:`paohuzi_env.envs.aec_env`)."""
    from .envs.aec_env import raw_env as _raw_env

    return _raw_env(**kwargs)


def _register() -> None:
    """Register ``paohuzi/<preset>-v0`` for every preset with PettingZoo's AEC registry (once);
    the entry point is imported only when an environment is made."""
    try:
        from pettingzoo import aec_registry, register
    except ImportError:  # pragma: no cover - pettingzoo is a dependency
        return
    from .game.rules import PRESETS

    for name in PRESETS:
        env_id = f"paohuzi/{name}-v{ENV_VERSION}"
        if env_id not in aec_registry:
            register("aec", env_id, entry_point="paohuzi_env.envs.aec_env:env", kwargs={"rules": name})


_register()
