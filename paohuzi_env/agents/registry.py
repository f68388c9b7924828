"""Agent spec prefixes: ``PREFIX:ARG`` specs (such as ``checkpoint:PATH``) and who builds them.

A prefix maps to a factory ``factory(arg, seed=seed, rules=rules) -> Agent``. Prefixes come
from :func:`register_agent` or from installed packages, through the entry-point group
``paohuzi.agents`` (name = prefix, value = ``module:factory``); entry points are looked up on
first need and each is imported only when a spec with its prefix is built, so a prefix whose
package lacks an optional dependency fails then, with a message saying what to install.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from importlib import metadata
from typing import Any

from ..bots.base import Agent

ENTRY_POINT_GROUP = "paohuzi.agents"

AgentFactory = Callable[..., Agent]
"""``factory(arg: str, seed=..., rules=...) -> Agent``: builds the agent of ``PREFIX:arg``."""

_PREFIX_RE = re.compile(r"[A-Za-z][A-Za-z0-9_.-]*\Z")

_registered: dict[str, AgentFactory] = {}
_entry_points: dict[str, list[metadata.EntryPoint]] | None = None
_loaded: dict[str, AgentFactory] = {}


def _check_prefix(prefix: object, reserved: tuple[str, ...]) -> str:
    if not isinstance(prefix, str) or not _PREFIX_RE.match(prefix):
        raise ValueError(
            f"agent spec prefix must be a name of letters, digits, '_', '.', '-' starting with a "
            f"letter (no ':'), got {prefix!r}"
        )
    if prefix in reserved:
        raise ValueError(f"agent spec prefix {prefix!r} is a built-in agent name ({', '.join(reserved)})")
    return prefix


def register(prefix: str, factory: AgentFactory, *, replace: bool, reserved: tuple[str, ...]) -> None:
    """Register ``factory`` for ``prefix`` (see :func:`paohuzi_env.agents.register_agent`)."""
    _check_prefix(prefix, reserved)
    if not callable(factory):
        raise TypeError(f"agent factory for {prefix!r} must be callable, got {type(factory).__name__}")
    if prefix in _registered and _registered[prefix] is not factory and not replace:
        raise ValueError(
            f"agent spec prefix {prefix!r} is already registered; pass replace=True to override it"
        )
    _registered[prefix] = factory


def unregister(prefix: str) -> None:
    """Remove a prefix added with :func:`register` (entry-point prefixes come back on next use)."""
    if _registered.pop(prefix, None) is None:
        raise ValueError(f"agent spec prefix {prefix!r} was not registered with register_agent")


def _discover() -> dict[str, list[metadata.EntryPoint]]:
    global _entry_points
    if _entry_points is None:
        found: dict[str, list[metadata.EntryPoint]] = {}
        for ep in metadata.entry_points(group=ENTRY_POINT_GROUP):
            found.setdefault(ep.name, []).append(ep)
        _entry_points = found
    return _entry_points


def prefixes() -> tuple[str, ...]:
    """Every known spec prefix: registered ones and those of installed entry points, sorted."""
    return tuple(sorted(set(_registered) | set(_discover())))


def _dist_name(ep: metadata.EntryPoint) -> str:
    dist = getattr(ep, "dist", None)
    return dist.metadata["Name"] if dist is not None else "an installed package"


def _install_hint(ep: metadata.EntryPoint, missing: str | None) -> str:
    """``pip install`` advice for a missing module: the extra of ``ep``'s package that needs it."""
    dist = getattr(ep, "dist", None)
    if dist is not None and missing:
        top = missing.split(".")[0]
        norm = re.sub(r"[-_.]+", "-", top).lower()
        for req in dist.requires or ():
            m = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)[^;]*;.*extra\s*==\s*['\"]([^'\"]+)['\"]", req)
            if m and re.sub(r"[-_.]+", "-", m.group(1)).lower() == norm:
                extra = m.group(2)
                name = dist.metadata["Name"]
                return (
                    f"install the {extra!r} extra: pip install -e '.[{extra}]' in a checkout of "
                    f"{name}, or pip install '{name}[{extra}]'"
                )
    return f"install what {_dist_name(ep)} needs for it"


def factory_for(prefix: str) -> AgentFactory | None:
    """The factory of ``prefix``, importing its entry point if needed; None if unknown.

    Raises:
        ValueError: if the entry point cannot be imported (naming what to install), or if
            several installed packages declare the prefix.
    """
    if prefix in _registered:
        return _registered[prefix]
    if prefix in _loaded:
        return _loaded[prefix]
    eps = _discover().get(prefix)
    if not eps:
        return None
    values = sorted({ep.value for ep in eps})
    if len(values) > 1:
        raise ValueError(
            f"agent spec prefix {prefix!r} is declared by several installed entry points "
            f"({', '.join(values)}); uninstall one or call register_agent({prefix!r}, ...)"
        )
    ep = eps[0]
    try:
        factory: Any = ep.load()
    except ImportError as e:
        raise ValueError(
            f"agent spec prefix {prefix!r} comes from {ep.value} ({_dist_name(ep)}), which cannot "
            f"be imported: {e}; {_install_hint(ep, e.name)}"
        ) from None
    if not callable(factory):
        raise ValueError(f"entry point {prefix} = {ep.value} is not callable")
    _loaded[prefix] = factory
    return factory
