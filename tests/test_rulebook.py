"""The rule book is in the repository (issue 28): every rule id that the code and the tests cite
(``R-CHI-2``, ``R-FLOW-3.2``, ``R-CLAIM``) has a section in ``docs/rules.md``, so a reader of a
clone can look each one up. The ids are found by a grep of paohuzi_env/ (Python and the C++
core), paohuzi_training/, tests/ and configs/ (each must exist); a section is an explicit anchor
of the rule book, either a heading's ``{ #ID }`` or an ``<a id="ID">`` for a numbered step.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BOOK = ROOT / "docs" / "rules.md"
SOURCES = ("paohuzi_env", "paohuzi_training", "tests", "configs")
SUFFIXES = {".py", ".cpp", ".hpp", ".yaml", ".yml"}
# R-FAMILY-N, optionally a step .M; and the one id without a number, R-CLAIM.
RULE_ID = re.compile(r"\bR-[A-Z]+-\d+(?:\.\d+)?\b|\bR-CLAIM\b")
ANCHOR = re.compile(r"\{\s*#([A-Za-z0-9.\-]+)\s*\}|<a id=\"([^\"]+)\"")


def source_files(root: Path = ROOT) -> dict[str, list[Path]]:
    """The files the grep reads, per folder of :data:`SOURCES` (a missing folder is an error, so
    that a renamed folder cannot leave the grep silently empty)."""
    out: dict[str, list[Path]] = {}
    for top in SOURCES:
        if not (root / top).is_dir():
            raise FileNotFoundError(f"{root / top} is not a folder: update SOURCES in {__file__}")
        out[top] = [p for p in sorted((root / top).rglob("*")) if p.suffix in SUFFIXES and p.is_file()]
    return out


def cited_ids(root: Path = ROOT) -> dict[str, str]:
    """Each cited id and the first file citing it (relative to ``root``)."""
    cited: dict[str, str] = {}
    for files in source_files(root).values():
        for path in files:
            for rule in RULE_ID.findall(path.read_text(encoding="utf-8", errors="replace")):
                cited.setdefault(rule, str(path.relative_to(root)))
    return cited


def book_anchors() -> set[str]:
    return {a or b for a, b in ANCHOR.findall(BOOK.read_text(encoding="utf-8"))}


def missing_sections(cited: dict[str, str], anchors: set[str]) -> dict[str, str]:
    """The cited ids without a section, each with the first file citing it."""
    return {rule: where for rule, where in cited.items() if rule not in anchors}


def test_the_grep_finds_the_ids_the_code_cites():
    # Guards the test below against passing on an empty grep: these ids are cited in the engine
    # and in its tests, and the step form R-FLOW-3.2 must be read whole.
    cited = cited_ids()
    for rule in ("R-CHI-2", "R-GROUP-3", "R-WANG-7", "R-FLOW-3.2", "R-CLAIM"):
        assert rule in cited, rule
    assert "R-FLOW-3" in cited and "R-FLOW-3.2" in cited


def test_every_source_folder_is_there_and_read():
    files = source_files()
    assert all(files[top] for top in SOURCES), {top: len(f) for top, f in files.items()}
    assert any(p.name == "engine.py" for p in files["paohuzi_env"])
    assert any(p.name == "__init__.py" for p in files["paohuzi_training"])


def test_the_check_fails_on_an_id_without_a_section(tmp_path):
    """A trainer file citing an id the book lacks is caught (the grep reads paohuzi_training/)."""
    fake = "R-" + "NOPE-99"  # spelled apart, so that the grep of tests/ does not find it here
    for top in SOURCES:
        (tmp_path / top).mkdir()
    (tmp_path / "paohuzi_training" / "stage.py").write_text(
        f'"""Deals that end at once (R-START-1); a made-up rule {fake}."""\n')
    cited = cited_ids(tmp_path)
    assert cited == {"R-START-1": "paohuzi_training/stage.py", fake: "paohuzi_training/stage.py"}
    assert missing_sections(cited, book_anchors()) == {fake: "paohuzi_training/stage.py"}
    (tmp_path / "configs").rmdir()
    try:
        cited_ids(tmp_path)
    except FileNotFoundError as e:
        assert "configs is not a folder" in str(e)
    else:
        raise AssertionError("a missing source folder must fail the grep")


def test_every_cited_rule_id_has_a_section_in_the_rule_book():
    missing = missing_sections(cited_ids(), book_anchors())
    assert not missing, (
        f"rule ids cited without a section in {BOOK.relative_to(ROOT)} (id: first file citing it): {missing}")


def test_rule_book_anchors_are_unique_and_links_resolve():
    text = BOOK.read_text(encoding="utf-8")
    found = [a or b for a, b in ANCHOR.findall(text)]
    assert len(found) == len(set(found)), sorted({a for a in found if found.count(a) > 1})
    # Every in-page link (#R-...) points to an anchor of the book.
    links = set(re.findall(r"\]\(#([^)]+)\)", text))
    assert links <= set(found), sorted(links - set(found))
