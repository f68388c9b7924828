"""The rule book is in the repository (issue 28): every rule id that the code and the tests cite
(``R-CHI-2``, ``R-FLOW-3.2``, ``R-CLAIM``) has a section in ``docs/rules.md``, so a reader of a
clone can look each one up. The ids are found by a grep of paohuzi_env/ (Python and the C++
core), paohuzi_training/, tests/ and configs/; a section is an explicit anchor of the rule book, either a
heading's ``{ #ID }`` or an ``<a id="ID">`` for a numbered step.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BOOK = ROOT / "docs" / "rules.md"
SOURCES = ("paohuzi_env", "training", "tests", "configs")
SUFFIXES = {".py", ".cpp", ".hpp", ".yaml", ".yml"}
# R-FAMILY-N, optionally a step .M; and the one id without a number, R-CLAIM.
RULE_ID = re.compile(r"\bR-[A-Z]+-\d+(?:\.\d+)?\b|\bR-CLAIM\b")
ANCHOR = re.compile(r"\{\s*#([A-Za-z0-9.\-]+)\s*\}|<a id=\"([^\"]+)\"")


def cited_ids() -> dict[str, str]:
    """Each cited id and the first file citing it (relative to the repository)."""
    cited: dict[str, str] = {}
    for top in SOURCES:
        for path in sorted((ROOT / top).rglob("*")):
            if path.suffix not in SUFFIXES or not path.is_file():
                continue
            for rule in RULE_ID.findall(path.read_text(encoding="utf-8", errors="replace")):
                cited.setdefault(rule, str(path.relative_to(ROOT)))
    return cited


def book_anchors() -> set[str]:
    return {a or b for a, b in ANCHOR.findall(BOOK.read_text(encoding="utf-8"))}


def test_the_grep_finds_the_ids_the_code_cites():
    # Guards the test below against passing on an empty grep: these ids are cited in the engine
    # and in its tests, and the step form R-FLOW-3.2 must be read whole.
    cited = cited_ids()
    for rule in ("R-CHI-2", "R-GROUP-3", "R-WANG-7", "R-FLOW-3.2", "R-CLAIM"):
        assert rule in cited, rule
    assert "R-FLOW-3" in cited and "R-FLOW-3.2" in cited


def test_every_cited_rule_id_has_a_section_in_the_rule_book():
    anchors = book_anchors()
    missing = {rule: where for rule, where in cited_ids().items() if rule not in anchors}
    assert not missing, (
        f"rule ids cited without a section in {BOOK.relative_to(ROOT)} (id: first file citing it): {missing}")


def test_rule_book_anchors_are_unique_and_links_resolve():
    text = BOOK.read_text(encoding="utf-8")
    found = [a or b for a, b in ANCHOR.findall(text)]
    assert len(found) == len(set(found)), sorted({a for a in found if found.count(a) > 1})
    # Every in-page link (#R-...) points to an anchor of the book.
    links = set(re.findall(r"\]\(#([^)]+)\)", text))
    assert links <= set(found), sorted(links - set(found))
