"""Files that left HEAD after a commit that still holds them (the docs name it: ``git checkout
COMMIT -- PATH``): what was recorded from them then (tests/fixtures/removed_at_ecba453.json), and
their bytes from the repository's history where this tree is a git checkout that holds the commit
(a shallow clone or an sdist does not: the tests that read them skip and say why)."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np

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


def named_commits(text: str, path: str) -> list[str]:
    """The commits a file's text names as holding ``path``: each ``git checkout COMMIT -- P ...``
    in it with ``path`` among the Ps or under one of them (a folder)."""
    out = []
    for m in re.finditer(r"git checkout ([0-9a-f]{7,40}) -- ([^\n`]+)", text):
        for p in m.group(2).split():
            p = p.rstrip(".,;:)'\"").rstrip("/")
            if p and (path == p or path.startswith(p + "/")):
                out.append(m.group(1))
                break
    return out


def holds(commit: str, path: str) -> bool | None:
    """Whether ``commit`` holds ``path``; None where git or the commit is not at hand."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        return None
    if subprocess.run(["git", "-C", str(ROOT), "cat-file", "-e", f"{commit}^{{commit}}"],
                      capture_output=True, timeout=60).returncode != 0:
        return None
    return subprocess.run(["git", "-C", str(ROOT), "cat-file", "-e", f"{commit}:{path}"],
                          capture_output=True, timeout=60).returncode == 0


def tensor_digest(tensors: dict[str, np.ndarray]) -> str:
    """A network's tensors as one SHA-256: sorted names, each name's shape and float32 bytes
    (the same for a file stored in float16 and read back widened)."""
    h = hashlib.sha256()
    for name in sorted(tensors):
        a = tensors[name]
        h.update(name.encode() + b"\0" + json.dumps(list(a.shape)).encode() + b"\0")
        h.update(np.ascontiguousarray(a, dtype="<f4").tobytes())
    return h.hexdigest()
