"""The module paths before the layered layout (issue 45), and where each module lives now.

``import paohuzi_env.engine`` still works: it gives the same module object as
``paohuzi_env.game.engine``, with a :class:`DeprecationWarning` naming the new path. The compiled
core's public path ``paohuzi_env.fast`` is kept without a warning (it is the documented way in).
Nothing here copies a module: an old name is only another key for the one module.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import warnings
from types import CodeType, ModuleType

MOVED: dict[str, str] = {
    "paohuzi_env.cards": "paohuzi_env.game.cards",
    "paohuzi_env.rules": "paohuzi_env.game.rules",
    "paohuzi_env.groups": "paohuzi_env.game.groups",
    "paohuzi_env.chi": "paohuzi_env.game.chi",
    "paohuzi_env.actions": "paohuzi_env.game.actions",
    "paohuzi_env.scoring": "paohuzi_env.game.scoring",
    "paohuzi_env.engine": "paohuzi_env.game.engine",
    "paohuzi_env.testing": "paohuzi_env.game.testing",
    "paohuzi_env.observation": "paohuzi_env.encode.observation",
    "paohuzi_env.state": "paohuzi_env.encode.state",
    "paohuzi_env.features": "paohuzi_env.encode.features",
    "paohuzi_env.rewards": "paohuzi_env.encode.rewards",
    "paohuzi_env.render": "paohuzi_env.display.render",
    "paohuzi_env.svg": "paohuzi_env.display.svg",
    "paohuzi_env.agents.base": "paohuzi_env.bots.base",
    "paohuzi_env.agents.heuristic": "paohuzi_env.bots.heuristic",
    "paohuzi_env.protocol": "paohuzi_env.backends.protocol",
    "paohuzi_env.reference": "paohuzi_env.backends.reference",
    "paohuzi_env.fast": "paohuzi_env.backends.fast",
    "paohuzi_env.backend": "paohuzi_env.backends.select",
    "paohuzi_env.aec_env": "paohuzi_env.envs.aec_env",
    "paohuzi_env.wrappers": "paohuzi_env.envs.wrappers",
    "paohuzi_env.rllib": "paohuzi_env.envs.rllib",
    "paohuzi_env.cli": "paohuzi_env.apps.cli",
    "paohuzi_env.play": "paohuzi_env.apps.play",
    "paohuzi_env.serve": "paohuzi_env.apps.serve",
    "paohuzi_env.replay_html": "paohuzi_env.apps.replay_html",
    "paohuzi_env.bench": "paohuzi_env.dev.bench",
    "paohuzi_env.bench_search": "paohuzi_env.dev.bench_search",
    "paohuzi_env.soak": "paohuzi_env.dev.soak",
    "paohuzi_env.serve_load": "paohuzi_env.dev.serve_load",
}
"""Old module path -> new module path."""

PUBLIC = frozenset({"paohuzi_env.fast"})
"""Old paths that stay public: no warning."""


class MovedFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Imports an old path of :data:`MOVED` as the module at its new path (the same object)."""

    def __init__(self) -> None:
        self._specs: dict[str, importlib.machinery.ModuleSpec | None] = {}

    def find_spec(self, fullname: str, path: object = None, target: object = None):
        """A spec for an old path; None for every other name."""
        if fullname not in MOVED:
            return None
        return importlib.machinery.ModuleSpec(fullname, self)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        """The module at the new path (imported now if it was not)."""
        new = MOVED[spec.name]
        if spec.name not in PUBLIC:
            warnings.warn(f"{spec.name} moved to {new} (issue 45); import it from there",
                          DeprecationWarning, stacklevel=3)
        module = importlib.import_module(new)
        # The import system stamps the old name's spec on the module it gets back; keep the real one.
        self._specs[spec.name] = module.__spec__
        return module

    def get_code(self, fullname: str) -> CodeType:
        """What ``python -m OLD.PATH`` runs as ``__main__`` (runpy asks the loader of the old name
        for code): a line that runs the module at its new path as ``__main__``, so that its
        package, and with it its relative imports, are the new path's."""
        new = MOVED[fullname]
        if fullname not in PUBLIC:
            warnings.warn(f"{fullname} moved to {new} (issue 45); run python -m {new}",
                          DeprecationWarning, stacklevel=2)
        if importlib.util.find_spec(new) is None:
            raise ImportError(f"{fullname} moved to {new}, which is not there")
        return compile(f"import runpy\nrunpy.run_module({new!r}, run_name='__main__', "
                       "alter_sys=True)\n", f"<{fullname}: moved to {new}>", "exec")

    def exec_module(self, module: ModuleType) -> None:
        """Nothing to run (the module ran under its new name); restore its own spec."""
        alias_spec = module.__spec__
        if alias_spec is not None and alias_spec.name in self._specs:
            module.__spec__ = self._specs.pop(alias_spec.name)


def install() -> None:
    """Put the finder first on :data:`sys.meta_path` (once)."""
    if not any(isinstance(f, MovedFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, MovedFinder())
