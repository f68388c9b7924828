"""Training and evaluation for paohuzi-env: the duplicate-deal harness and the PPO trainer.

This package has two names. Installed (a wheel, or ``pip install -e .``) it is
``paohuzi_training``: pyproject.toml maps that name to this ``training/`` folder, so that no
generic top-level ``training`` package lands in site-packages. From a clone's root it is also
importable as ``training`` (``python -m training.ppo``). Both names must give the *same* module
objects, or an agent built through the ``checkpoint`` entry point (``paohuzi_training.policy``)
would fail the ``isinstance`` checks of code imported as ``training``. So whichever name is
imported first is the real package, and the other becomes an alias of it and of every submodule
(``training.policy is paohuzi_training.policy``) — in a clone only: installed from a wheel the
package is ``paohuzi_training`` alone. Every import inside the package is relative.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import os
import sys
from types import ModuleType

_NAMES = ("paohuzi_training", "training")


class _AliasFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Imports ``alias.X`` as the already-real module ``real.X`` (the same object)."""

    def __init__(self, alias: str, real: str) -> None:
        self.alias, self.real = alias, real
        self._specs: dict[str, importlib.machinery.ModuleSpec | None] = {}

    def find_spec(self, fullname: str, path: object = None, target: object = None):
        if not fullname.startswith(self.alias + "."):
            return None
        return importlib.machinery.ModuleSpec(fullname, self)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        module = importlib.import_module(self.real + spec.name[len(self.alias):])
        # The import system stamps the alias spec on the module it gets back; keep the real one.
        self._specs[spec.name] = module.__spec__
        return module

    def exec_module(self, module: ModuleType) -> None:
        alias_spec = module.__spec__
        if alias_spec is not None:  # executed already, under its real name: restore that spec
            module.__spec__ = self._specs.pop(alias_spec.name)


# Only a source folder named training/ (a clone, or the editable install that maps to it) takes
# both names. Installed from a wheel the folder is paohuzi_training/, and the generic name
# `training` is left alone (it may be another project's package); so is a `training` that is
# already imported and is not this package.
if __name__ in _NAMES and os.path.basename(os.path.dirname(os.path.abspath(__file__))) == "training":
    _alias = _NAMES[1] if __name__ == _NAMES[0] else _NAMES[0]
    if sys.modules.setdefault(_alias, sys.modules[__name__]) is sys.modules[__name__] and not any(
            isinstance(f, _AliasFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _AliasFinder(_alias, __name__))
