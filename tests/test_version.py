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


def _installed_packages() -> set[str]:
    """The packages pyproject.toml's [tool.setuptools.packages.find] installs."""
    import setuptools

    find = PYPROJECT["tool"]["setuptools"]["packages"]["find"]
    return set(setuptools.find_packages(str(ROOT), include=find["include"], exclude=find.get("exclude", [])))


def test_every_package_folder_is_in_the_wheel_and_none_is_top_level_training():
    # Each package's folder has its name (no package-dir mapping, no import hook: issue 45).
    assert "package-dir" not in PYPROJECT["tool"]["setuptools"]
    packages = _installed_packages()
    assert "training" not in packages and "paohuzi_training" in packages
    found = {
        ".".join(p.parent.relative_to(ROOT).parts)
        for top in ("paohuzi_env", "paohuzi_training")
        for p in (ROOT / top).rglob("__init__.py")
        if "__pycache__" not in p.parts
    }
    assert found == packages, f"package folders left out of the wheel: {sorted(found - packages)}"


def test_console_scripts_and_entry_points_name_installed_modules():
    # A script or entry point must name an installed module, and that module's file must exist.
    packages = _installed_packages()
    targets = dict(PYPROJECT["project"]["scripts"])
    for group in PYPROJECT["project"].get("entry-points", {}).values():
        targets.update(group)
    assert targets
    for name, target in targets.items():
        module = target.split(":")[0]
        assert module.rpartition(".")[0] in packages, f"{name} = {target!r}: not an installed package"
        path = ROOT / (module.replace(".", "/") + ".py")
        assert path.is_file(), f"{name} = {target!r}: no {path.relative_to(ROOT)}"


def test_no_top_level_training_package():
    # The trainer is paohuzi_training; a generic top-level `training` would collide in site-packages.
    assert not (ROOT / "training").exists()
    assert not any(p == "training" or p.startswith("training.") for p in _installed_packages())
