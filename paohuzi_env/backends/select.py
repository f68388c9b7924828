"""Which engine runs a hand: the compiled core (``fast``) or the Python reference (``python``).

``backend="auto"`` (the default everywhere: the AEC env, ``SingleAgentEnv``, the evaluation
harness and ``paohuzi play``) takes the compiled core when it was built
(:func:`paohuzi_env.backends.fast.available`) and the Python engine otherwise. The environment variable
``PAOHUZI_BACKEND`` (``auto`` | ``fast`` | ``python``) sets the default for a whole process, e.g.
``PAOHUZI_BACKEND=python python -m pytest`` runs everything on the reference engine. Both
backends give the same decisions, observations and results (tests/test_fast_*.py).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

BACKENDS = ("auto", "fast", "python")
ENV_VAR = "PAOHUZI_BACKEND"


def resolve_backend(backend: str | None = None) -> str:
    """``fast`` or ``python`` for a requested backend (None: ``$PAOHUZI_BACKEND``, else auto).

    Raises:
        ValueError: for an unknown name, or ``fast`` when the compiled core is not built.
    """
    source = "backend"
    if backend is None:
        backend = os.environ.get(ENV_VAR, "auto") or "auto"
        source = f"${ENV_VAR}"
    if backend not in BACKENDS:
        raise ValueError(f"{source} must be one of {', '.join(BACKENDS)}, got {backend!r}")
    if backend == "python":
        return "python"
    from . import fast

    if fast.available():
        return "fast"
    if backend == "fast":
        raise ValueError(
            f"{source} is 'fast' but the compiled core paohuzi_env._fast is not built "
            f"({fast.unavailable_reason()}); reinstall with a C++17 compiler "
            "(pip install -e .) or use backend='python'"
        )
    return "python"


def game_class(backend: str | None = None) -> type:
    """The ``Game`` class of a backend (see :func:`resolve_backend`): :class:`paohuzi_env.backends.fast.Game`
    or :class:`paohuzi_env.backends.reference.ReferenceGame` (the Python engine with the same encoders and
    bots); both satisfy :class:`paohuzi_env.game.protocol.GameProtocol`."""
    if resolve_backend(backend) == "fast":
        from .fast import Game as FastGame

        return FastGame
    from .reference import ReferenceGame

    return ReferenceGame


def vector_game_class(backend: str | None = None) -> type:
    """The ``VectorGame`` class of a backend: :class:`paohuzi_env.backends.fast.VectorGame`, or
    :class:`paohuzi_env.backends.reference.ReferenceVectorGame` (the same surface on the Python engine)."""
    if resolve_backend(backend) == "fast":
        from .fast import VectorGame

        return VectorGame
    from .reference import ReferenceVectorGame

    return ReferenceVectorGame


if TYPE_CHECKING:  # mypy proves both backends satisfy the protocols; nothing runs
    from ..game.protocol import GameProtocol, VectorGameProtocol
    from .fast import Game as _FastGame
    from .fast import VectorGame as _FastVectorGame
    from .reference import ReferenceGame as _ReferenceGame
    from .reference import ReferenceVectorGame as _ReferenceVectorGame

    def _check_fast(g: _FastGame) -> GameProtocol:
        return g

    def _check_reference(g: _ReferenceGame) -> GameProtocol:
        return g

    def _check_fast_vector(v: _FastVectorGame) -> VectorGameProtocol:
        return v

    def _check_reference_vector(v: _ReferenceVectorGame) -> VectorGameProtocol:
        return v
