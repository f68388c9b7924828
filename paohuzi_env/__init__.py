"""paohuzi-env: a rules engine and reinforcement-learning environment for 跑胡子 (Paohuzi).

The rules core (``cards``, ``rules``, ``groups``, ``scoring``, ``engine``) knows nothing of
PettingZoo or torch; ``env`` adapts it to PettingZoo's AEC API and ``wrappers`` to Gymnasium.
Importing the package registers ``paohuzi/<preset>-v0`` with PettingZoo's registry.
"""

from __future__ import annotations

from typing import Any

from ._version import __version__
from .rules import PRESETS, Rules, get_rules, load_rules
from .scoring import Win, evaluate_win

__all__ = [
    "Rules", "Win", "env", "evaluate_win", "get_rules", "load_rules", "raw_env", "__version__",
]

ENV_VERSION = 0


def env(**kwargs: Any):
    """The wrapped PettingZoo AEC environment (see :mod:`paohuzi_env.aec_env`)."""
    from .aec_env import env as _env

    return _env(**kwargs)


def raw_env(**kwargs: Any):
    """The unwrapped PettingZoo AEC environment (see :mod:`paohuzi_env.aec_env`)."""
    from .aec_env import raw_env as _raw_env

    return _raw_env(**kwargs)


def _register() -> None:
    try:
        from pettingzoo import aec_registry, register
    except ImportError:  # pragma: no cover - pettingzoo is a dependency
        return
    for name in PRESETS:
        env_id = f"paohuzi/{name}-v{ENV_VERSION}"
        if env_id not in aec_registry:
            register("aec", env_id, entry_point="paohuzi_env.aec_env:env", kwargs={"rules": name})


_register()

# The compiled core, when built (paohuzi_env.fast); without it, one warning here and every
# backend="auto" runs on the Python engine (paohuzi_env.backend).
from . import fast as _fast_backend  # noqa: E402,F401
