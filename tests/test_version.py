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
    # Inside training/ imports are relative, so the folder imports under its installed name too.
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
