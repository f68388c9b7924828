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
* ``game`` — the rules core (cards, rules, groups, 吃/比, scoring, engine), which knows nothing of
  PettingZoo or torch.

``dev`` holds the benchmarks, the soak and the load test; nothing imports it. Importing the
package registers ``paohuzi/<preset>-v0`` with PettingZoo's registry. The module paths before
this layout (``paohuzi_env.engine`` ...) still import, with a DeprecationWarning naming the new
one (:mod:`paohuzi_env._moved`); ``paohuzi_env.fast`` stays public.
"""

from __future__ import annotations

from typing import Any

from . import _moved
from ._version import __version__
from .game.rules import PRESETS, Rules, get_rules, load_rules
from .game.scoring import Win, evaluate_win

__all__ = [
    "Rules", "Win", "env", "evaluate_win", "fast", "get_rules", "load_rules", "raw_env", "__version__",
]

_moved.install()

ENV_VERSION = 0


def env(**kwargs: Any):
    """The wrapped PettingZoo AEC environment (see :mod:`paohuzi_env.envs.aec_env`)."""
    from .envs.aec_env import env as _env

    return _env(**kwargs)


def raw_env(**kwargs: Any):
    """The unwrapped PettingZoo AEC environment (see :mod:`paohuzi_env.envs.aec_env`)."""
    from .envs.aec_env import raw_env as _raw_env

    return _raw_env(**kwargs)


def _register() -> None:
    try:
        from pettingzoo import aec_registry, register
    except ImportError:  # pragma: no cover - pettingzoo is a dependency
        return
    for name in PRESETS:
        env_id = f"paohuzi/{name}-v{ENV_VERSION}"
        if env_id not in aec_registry:
            register("aec", env_id, entry_point="paohuzi_env.envs.aec_env:env", kwargs={"rules": name})


_register()

# The compiled core, when built (paohuzi_env.backends.fast); without it, one warning here and every
# backend="auto" runs on the Python engine (paohuzi_env.backends.select).
from .backends import fast  # noqa: E402  (the path paohuzi_env.fast: _moved.PUBLIC)
