"""Files a run writes, written so that a kill at any moment loses nothing already saved.

:func:`write_atomic` is the one writer of checkpoints, sidecars, label shards and metas, and
cached demonstrations: a reader sees the old file or the new one, never a torn one.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import BinaryIO

__all__ = ["write_atomic"]


def _write_bytes(f: BinaryIO, blob: bytes, path: Path) -> None:
    """Write ``blob`` to the open temporary file ``f`` of ``path`` (the kill tests' drivers wrap
    this function to pause a writer half way and kill it; the writer itself has no test hook)."""
    f.write(blob)


def write_atomic(path: str | Path, blob: bytes) -> None:
    """Write ``blob`` to ``path`` so that a reader sees the old file or the new one, never a
    torn one: a temporary file in the same folder, flushed and fsynced, renamed over ``path``,
    then the folder fsynced (the rename survives a power cut). Temporary files left by an
    earlier writer of ``path`` that was killed are removed after the rename, so writers of one
    ``path`` must not overlap (a concurrent writer's temporary file would go too)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
    try:  # mkstemp makes the file private (0600): give it the target's mode, or rw-r--r--
        os.chmod(tmp, path.stat().st_mode & 0o777 if path.exists() else 0o644)
        with os.fdopen(fd, "wb") as f:
            _write_bytes(f, blob, path)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    try:
        dfd = os.open(path.parent, os.O_RDONLY)
    except OSError:  # a platform whose folders cannot be opened (Windows): the rename stands
        pass
    else:
        try:
            os.fsync(dfd)
        except OSError:
            pass
        finally:
            os.close(dfd)
    for stale in path.parent.glob(f"{path.name}.*.tmp"):
        stale.unlink(missing_ok=True)
