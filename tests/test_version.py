"""Packaging facts that a wheel build would only reveal later (issue 28): the version lives in
one place, and the explicit package list of pyproject.toml covers every package folder."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import paohuzi_env
from paohuzi_env import _version

tomllib = pytest.importorskip("tomllib", reason="tomllib is in the standard library from Python 3.11")

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_version_is_defined_once_and_read_by_the_build():
    assert paohuzi_env.__version__ == _version.__version__
    # PEP 440 public version (N.N.N with an optional pre/post/dev part).
    assert re.fullmatch(r"\d+\.\d+\.\d+((a|b|rc)\d+)?(\.post\d+)?(\.dev\d+)?", paohuzi_env.__version__)
    assert "version" not in PYPROJECT["project"]
    assert "version" in PYPROJECT["project"]["dynamic"]
    attr = PYPROJECT["tool"]["setuptools"]["dynamic"]["version"]["attr"]
    assert attr == "paohuzi_env._version.__version__"
    # No second copy of the number anywhere in the package.
    for path in (ROOT / "paohuzi_env").rglob("*.py"):
        if path.name != "_version.py":
            assert not re.search(r"__version__\s*=", path.read_text(encoding="utf-8")), path


def test_changelog_has_a_section_for_the_version():
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert f"## [{paohuzi_env.__version__}]" in text


def test_every_package_folder_is_in_the_wheel_and_none_is_top_level_training():
    tool = PYPROJECT["tool"]["setuptools"]
    mapping = tool["package-dir"]
    packages = set(tool["packages"])
    assert "training" not in packages and "training" not in mapping
    # Installed name -> folder: a subpackage's folder follows its parent's mapping.
    def folder(name: str) -> Path:
        top, _, rest = name.partition(".")
        return ROOT / mapping.get(top, top) / rest.replace(".", "/")

    for name in packages:
        assert (folder(name) / "__init__.py").is_file(), name
    found = {
        ".".join([{v: k for k, v in mapping.items()}[p.relative_to(ROOT).parts[0]],
                  *p.parent.relative_to(ROOT).parts[1:]])
        for top in ("paohuzi_env", "training")
        for p in (ROOT / top).rglob("__init__.py")
        if "__pycache__" not in p.parts
    }
    assert found == packages, f"package folders missing from pyproject.toml: {sorted(found - packages)}"
    # Inside paohuzi_training/ imports are relative, so the folder imports under its installed name too.
    for path in (ROOT / "training").rglob("*.py"):
        src = path.read_text(encoding="utf-8")
        assert not re.search(r"^\s*(from|import)\s+training\b", src, re.M), f"{path}: use a relative import"


def test_console_scripts_and_entry_points_name_installed_modules():
    # A script or entry point must name the installed module (paohuzi_training.x, never
    # training.x, which a wheel does not install), and that module's file must exist.
    mapping = PYPROJECT["tool"]["setuptools"]["package-dir"]
    targets = dict(PYPROJECT["project"]["scripts"])
    for group in PYPROJECT["project"].get("entry-points", {}).values():
        targets.update(group)
    assert targets
    for name, target in targets.items():
        module = target.split(":")[0]
        top, _, rest = module.partition(".")
        assert top in mapping, f"{name} = {target!r}: {top!r} is not an installed package ({sorted(mapping)})"
        path = ROOT / mapping[top] / (rest.replace(".", "/") + ".py")
        assert path.is_file(), f"{name} = {target!r}: no {path.relative_to(ROOT)}"


def test_training_and_paohuzi_training_are_one_package_in_a_clone():
    # In a clone both names import the same modules, so an agent built through the `checkpoint`
    # entry point (paohuzi_training.policy) is an instance of the class that code imported as
    # paohuzi_training.policy checks for.
    import importlib

    for name in ("policy", "evaluate", "checkpoint"):
        a = importlib.import_module(f"training.{name}")
        b = importlib.import_module(f"paohuzi_training.{name}")
        assert a is b, name
        assert a.__spec__.name == a.__name__  # the alias leaves the real module's spec alone


def test_an_installed_paohuzi_training_leaves_the_name_training_alone(tmp_path):
    # The wheel's layout: the folder is paohuzi_training/, and another project's `training` stays
    # that project's.
    import shutil
    import subprocess
    import sys

    (tmp_path / "site" / "paohuzi_training").mkdir(parents=True)
    shutil.copy(ROOT / "training" / "__init__.py", tmp_path / "site" / "paohuzi_training")
    (tmp_path / "site" / "paohuzi_training" / "m.py").write_text("X = 1\n")
    (tmp_path / "other" / "training").mkdir(parents=True)
    (tmp_path / "other" / "training" / "__init__.py").write_text("MINE = 1\n")
    code = ("import paohuzi_training.m, training\n"
            "assert paohuzi_training.m.X == 1 and training.MINE == 1\n"
            "import importlib.util\n"
            "assert importlib.util.find_spec('training.m') is None\n")
    env = {"PYTHONPATH": f"{tmp_path / 'site'}{__import__('os').pathsep}{tmp_path / 'other'}"}
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
