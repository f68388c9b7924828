"""The Python side's layering: no import cycle in the runtime packages (type-only imports
counted), the import-linter contracts of pyproject.toml kept, the layers held at import time
(``import paohuzi_env.game.engine`` loads no compiled module and no backend) and the package's
lazy public names."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import paohuzi_env

ROOT = Path(__file__).resolve().parents[1]


def _cycles(package: str) -> list[list[str]]:
    """Strongly connected components (more than one module) of the package's imports, those under
    ``if TYPE_CHECKING:`` included."""
    grimp = pytest.importorskip("grimp")  # import-linter's graph builder (the dev extra)
    graph = grimp.build_graph(package, exclude_type_checking_imports=False)
    edges = {m: {d for d in graph.find_modules_directly_imported_by(m) if d.split(".")[0] == package}
             for m in graph.modules}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


@pytest.mark.parametrize("package", ["paohuzi_env", "paohuzi_training"])
def test_no_import_cycle(package):
    assert _cycles(package) == []


def test_import_linter_contracts_are_kept():
    pytest.importorskip("importlinter")
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert re.search(r"^exclude_type_checking_imports = false$", text, re.M)  # type-only imports count
    contracts = text.count("[[tool.importlinter.contracts]]")
    res = subprocess.run([sys.executable, "-c", "from importlinter.cli import lint_imports_command; "
                          "lint_imports_command()"], cwd=ROOT, capture_output=True, text=True)
    assert res.returncode == 0, res.stdout + res.stderr
    assert f"{contracts} kept, 0 broken" in res.stdout


def _loaded_after(statement: str) -> list[str]:
    """The paohuzi_env modules that a fresh interpreter has loaded after ``statement``."""
    code = (f"import json, sys\n{statement}\n"
            "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] == 'paohuzi_env')))")
    res = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                         timeout=120)
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout.splitlines()[-1])


def _heavy(modules: list[str]) -> list[str]:
    return [m for m in modules if m == "paohuzi_env._fast" or m.startswith("paohuzi_env.backends")]


@pytest.mark.parametrize("module", ["paohuzi_env.game.engine", "paohuzi_env.game.cards",
                                    "paohuzi_env.game.protocol", "paohuzi_env"])
def test_the_rules_core_loads_no_compiled_module_and_no_backend(module):
    loaded = _loaded_after(f"import {module}")
    assert module in loaded
    assert _heavy(loaded) == []


def test_the_check_above_sees_a_backend_when_one_is_loaded():
    """The same check, on a statement that does load the compiled core, fails: it can fail."""
    assert "paohuzi_env._fast" in _heavy(_loaded_after("from paohuzi_env import fast"))
    assert "paohuzi_env.backends.reference" in _heavy(_loaded_after("import paohuzi_env.backends.reference"))


def test_importing_the_package_registers_every_preset_with_pettingzoo():
    """``import paohuzi_env`` alone is what the README asks before ``pettingzoo.make``."""
    code = ("import paohuzi_env, pettingzoo\n"
            "from paohuzi_env.game.rules import PRESETS\n"
            "for name in PRESETS:\n"
            "    e = pettingzoo.make('aec', f'paohuzi/{name}-v0')\n"
            "    e.reset(seed=3)\n"
            "    assert e.unwrapped.rules.name == name, (name, e.unwrapped.rules.name)\n"
            "print(len(PRESETS))")
    res = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                         timeout=120)
    assert res.returncode == 0, res.stderr
    assert int(res.stdout.split()[-1]) >= 6


def test_the_public_names_load_on_first_use():
    from paohuzi_env.backends import fast
    from paohuzi_env.envs.aec_env import AECEnv
    from paohuzi_env.game.rules import PRESETS, Rules, get_rules, load_rules
    from paohuzi_env.game.scoring import Win, evaluate_win

    expected = {"Rules": Rules, "Win": Win, "evaluate_win": evaluate_win, "fast": fast,
                "get_rules": get_rules, "load_rules": load_rules, "PRESETS": PRESETS}
    for name, obj in expected.items():
        assert getattr(paohuzi_env, name) is obj
    assert set(paohuzi_env.__all__) <= set(dir(paohuzi_env))
    for name in paohuzi_env.__all__:
        assert getattr(paohuzi_env, name) is not None
    assert isinstance(paohuzi_env.raw_env(rules="yongzhou"), AECEnv)
    with pytest.raises(AttributeError, match="no attribute 'engine'"):
        paohuzi_env.engine  # noqa: B018  (an old module path: gone, not aliased)
    with pytest.raises(ModuleNotFoundError):
        __import__("paohuzi_env.cli")
