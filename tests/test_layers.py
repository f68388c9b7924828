"""The Python side's layering (issue 45): no import cycle in the runtime packages, the
import-linter contracts of pyproject.toml kept, and the module paths before the layout still
import (the same module, with a DeprecationWarning naming the new path)."""

from __future__ import annotations

import importlib
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from paohuzi_env._moved import MOVED, PUBLIC

ROOT = Path(__file__).resolve().parents[1]


def _cycles(package: str) -> list[list[str]]:
    """Strongly connected components (more than one module) of the package's runtime imports."""
    grimp = pytest.importorskip("grimp")  # import-linter's graph builder (the dev extra)
    graph = grimp.build_graph(package, exclude_type_checking_imports=True)
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
    res = subprocess.run([sys.executable, "-c", "from importlinter.cli import lint_imports_command; "
                          "lint_imports_command()"], cwd=ROOT, capture_output=True, text=True)
    assert res.returncode == 0, res.stdout + res.stderr
    contracts = (ROOT / "pyproject.toml").read_text().count("\n[[tool.importlinter.contracts]]\n")
    assert f"{contracts} kept, 0 broken" in res.stdout


@pytest.mark.parametrize("old", sorted(MOVED))
def test_old_module_paths_still_import_the_moved_module(old):
    if old == "paohuzi_env.rllib":
        pytest.importorskip("ray.rllib")
    if old == "paohuzi_env.serve" or old == "paohuzi_env.serve_load":
        pytest.importorskip("starlette")
    new = importlib.import_module(MOVED[old])
    sys.modules.pop(old, None)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        mod = importlib.import_module(old)
    assert mod is new and mod.__name__ == MOVED[old] and mod.__spec__.name == MOVED[old]
    messages = [str(w.message) for w in caught if issubclass(w.category, DeprecationWarning)]
    if old in PUBLIC:
        assert not any(old in m for m in messages)
    else:
        assert any(f"{old} moved to {MOVED[old]}" in m for m in messages)


@pytest.mark.parametrize("old", ["paohuzi_env.cli", "paohuzi_env.bench"])
def test_old_module_paths_still_run_with_python_m(old):
    """``python -m OLD --help`` runs the moved module as ``__main__`` (its relative imports those
    of its new package) and warns with the new path."""
    res = subprocess.run([sys.executable, "-W", "always::DeprecationWarning", "-m", old, "--help"],
                         cwd=ROOT, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert res.stdout.startswith("usage:")
    assert f"{old} moved to {MOVED[old]}" in res.stderr


def test_the_old_trainer_name_fails_naming_the_new_one():
    res = subprocess.run([sys.executable, "-m", "training.ppo", "--help"], cwd=ROOT,
                         capture_output=True, text=True)
    assert res.returncode != 0 and "paohuzi_training" in res.stderr
