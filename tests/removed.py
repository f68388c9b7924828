"""Files that left HEAD after a commit that still holds them (the docs name it: ``git checkout
COMMIT -- PATH``): what was recorded from them then (tests/fixtures/removed_at_ecba453.json), and
their bytes from the repository's history where this tree is a git checkout that holds the commit
(a shallow clone or an sdist does not: the tests that read them skip and say why)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RECORDED = json.loads((Path(__file__).parent / "fixtures" / "removed_at_ecba453.json").read_text())
COMMIT = RECORDED["commit"]
"""The commit that holds the files of :data:`RECORDED` (``git checkout COMMIT -- PATH``)."""


def at_commit(path: str, commit: str = COMMIT) -> bytes | None:
    """The bytes of ``path`` at ``commit``, or None where git or the commit is not at hand."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        return None
    res = subprocess.run(["git", "-C", str(ROOT), "show", f"{commit}:{path}"], capture_output=True,
                         timeout=120)
    return res.stdout if res.returncode == 0 else None


def restore(path: str, dest: Path, commit: str = COMMIT) -> Path | None:
    """``path`` and its ``.json`` sidecar as ``commit`` holds them, written under ``dest`` (what
    ``git checkout COMMIT -- PATH`` brings back), or None where the history is not at hand."""
    out = dest / Path(path).name
    for p, o in ((path, out), (str(Path(path).with_suffix(".json")), out.with_suffix(".json"))):
        blob = at_commit(p, commit)
        if blob is None:
            return None
        o.write_bytes(blob)
    return out
