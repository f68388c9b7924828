"""The journal of a duplicate-deal evaluation: ``paohuzi-eval ... --journal FILE``.

A long evaluation (thousands of deals with a deep variance reduction take hours) is made of
pieces: every finished job's rows are appended to the journal as JSON lines and flushed to disk,
so a run that is killed or interrupted loses at most the jobs that were in flight. Run the same
command again and it plays only the deals the journal lacks; the numbers are the same as one
uninterrupted run's, because every deal draws from its own ``SeedSequence`` keyed by (seed,
deal, rotation, seat). A larger ``--deals`` extends a finished run; a smaller one summarises its
first deals.

The first line is the header: what was evaluated (the agent specs, seed, rules, variance
reduction) and the SHA-256 of the files its specs name and of the value function, keyed by
role. A checkpoint is known by its content, not its path (``x.pt``, ``./x.pt`` and the
same file in another checkout are one), so a journal can move. A journal whose header differs
from the run's, or a file that is not a journal, is refused with the difference named and left
as it was, so pieces of two different evaluations are never mixed. A last line cut off by a kill
is cut from the file, a deal without its three rotations is played again, and a game written
twice is read once. A run holds an exclusive lock on its journal (``fcntl.flock``; not on
Windows). The code is not recorded: before a resumed run adds deals,
:mod:`paohuzi_training.eval.evaluate` plays the journal's first deal again and stops if its games
come out differently. The file is data (JSON); reading it runs no code.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import os
import stat
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from paohuzi_env.agents import zoo

from .rows import GameRow

try:
    import fcntl
except ImportError:  # Windows: no lock, one run per journal is the user's care
    fcntl = None  # type: ignore[assignment]

__all__ = ["FORMAT", "Journal", "header"]

FORMAT = "paohuzi-eval-journal/1"
"""The journal's format name and version, the header's ``format``."""

_ROW_FIELDS = [f.name for f in dataclasses.fields(GameRow)]


_FILE_KINDS = ("checkpoint", "network")


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _file_of(value: str) -> tuple[str, Path] | None:
    """``(kind, path)`` when ``value`` names a file: ``checkpoint:PATH``, ``network:PATH``,
    ``zoo:NAME`` (its network, kind ``network``), or a bare path of an existing regular file (an
    option such as ``guide=PATH``)."""
    kind, sep, rest = value.partition(":")
    if sep and kind in _FILE_KINDS and rest:
        return kind, Path(rest)
    if sep and kind == "zoo":
        try:
            zoo_path = zoo.resolve(value)
        except ValueError:  # an unknown name: the agent itself says so
            return None
        return None if zoo_path is None else ("network", zoo_path)
    path = Path(value)
    try:
        if value and path.is_file():
            return "file", path
    except OSError:  # a name the system cannot take is not a file of the spec
        return None
    return None


def _spec_files(spec: str) -> list[tuple[str, Path]]:
    """The files an agent spec reads, each with its key: ``checkpoint:PATH`` (and the compiled
    ``.safetensors`` policy beside it, which a lookahead plays: key ``.safetensors``),
    ``network:PATH`` and ``zoo:NAME`` (and the network's ``.json`` sidecar), and every option of another spec
    (``search:guide=checkpoint:PATH,...``) that names one (key `` OPTION``)."""
    out: list[tuple[str, Path]] = []

    def add(key: str, kind: str, path: Path) -> None:
        out.append((key, path))
        if kind == "checkpoint":
            out.append((key + ".safetensors", path.with_suffix(".safetensors")))
        elif kind == "network":
            out.append((key + ".json", path.with_suffix(".json")))

    found = _file_of(spec)
    if found is not None and found[0] in _FILE_KINDS:
        add("", *found)
    else:
        _, _, options = spec.partition(":")
        for option in options.split(","):
            name, eq, value = option.partition("=")
            found = _file_of(value) if eq else None
            if found is not None:
                add(f" {name}", *found)
    return [(k, p) for k, p in out if p.is_file()]


def header(candidate: str, opponents: Sequence[str], seed: int, rules: Any,
           variance_reduction: str, value_function: str | None) -> dict[str, Any]:
    """What one evaluation is: the header a journal of it starts with."""
    files: dict[str, str] = {}  # by role, not path: a journal moves with its checkout
    for role, spec in [("candidate", candidate), ("opponent 1", opponents[0]),
                       ("opponent 2", opponents[1])]:
        for key, p in _spec_files(spec):
            files[role + key] = _sha256(p)
    if value_function is not None:
        files["value function"] = _sha256(Path(value_function))
    rules_fields = json.loads(json.dumps(dataclasses.asdict(rules)))  # tuples as lists
    return {"format": FORMAT, "candidate": candidate, "opponents": list(opponents),
            "seed": int(seed), "rules": rules_fields, "variance_reduction": variance_reduction,
            "files_sha256": files}


def _row_to_json(row: GameRow) -> list[Any]:
    return [list(v) if isinstance(v, tuple) else v for v in dataclasses.astuple(row)]


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _row_from_json(values: Any, where: str) -> GameRow:
    if not isinstance(values, list) or len(values) != len(_ROW_FIELDS):
        raise ValueError(f"{where}: a row is a list of {len(_ROW_FIELDS)} values "
                         f"({', '.join(_ROW_FIELDS)}), got {values!r:.80}")
    d = dict(zip(_ROW_FIELDS, values, strict=True))
    want = {"deal": (_is_int, "a whole number"), "rotation": (_is_int, "a whole number"),
            "points": (_is_int, "a whole number"),
            "won": (lambda v: isinstance(v, bool), "true or false"),
            "hu": (lambda v: isinstance(v, bool), "true or false"),
            "dealer": (lambda v: isinstance(v, bool), "true or false"),
            "scores": (lambda v: isinstance(v, list) and len(v) == 3 and all(map(_is_int, v)),
                       "a list of three whole numbers"),
            "control": (lambda v: (_is_int(v) or isinstance(v, float)) and math.isfinite(v),
                        "a finite number")}
    for name, (ok, what) in want.items():
        if not ok(d[name]):
            raise ValueError(f"{where}: {name} must be {what}, got {d[name]!r:.40}")
    if d["deal"] < 0 or d["rotation"] not in (0, 1, 2):
        raise ValueError(f"{where}: deal {d['deal']}, rotation {d['rotation']}: a deal is 0 or "
                         f"more and a rotation 0, 1 or 2")
    return GameRow(deal=d["deal"], rotation=d["rotation"], points=d["points"], won=d["won"],
                   hu=d["hu"], dealer=d["dealer"], scores=tuple(d["scores"]),
                   control=float(d["control"]))


def _comparable(head: dict[str, Any]) -> dict[str, Any]:
    """The header as compared: the path of a file a spec names is not (its SHA-256 is), so the
    same file as ``x.pt``, ``./x.pt`` or in another checkout is the same evaluation."""
    def spec_key(spec: Any) -> Any:
        if not isinstance(spec, str):
            return spec
        found = _file_of(spec)
        if found is not None and found[0] in _FILE_KINDS:
            return found[0] + ":FILE"
        kind, sep, options = spec.partition(":")
        if not sep:
            return spec
        parts = []
        for option in options.split(","):
            name, eq, value = option.partition("=")
            parts.append(f"{name}=FILE" if eq and _file_of(value) is not None else option)
        return kind + ":" + ",".join(parts)

    out = dict(head)
    out["candidate"] = spec_key(out.get("candidate"))
    opponents = out.get("opponents")
    if isinstance(opponents, list):
        out["opponents"] = [spec_key(o) for o in opponents]
    return out


def _differences(found: dict[str, Any], head: dict[str, Any]) -> list[str]:
    """What differs between two headers, one entry a field (a rule or a file by name)."""
    out = []
    for k in sorted(set(found) | set(head)):
        a, b = found.get(k), head.get(k)
        if a == b:
            continue
        if isinstance(a, dict) and isinstance(b, dict):
            for sub in sorted(set(a) | set(b)):
                x, y = a.get(sub), b.get(sub)
                if x == y:
                    continue
                if k == "files_sha256":
                    out.append(f"the {sub} file: journal "
                               f"{'none' if x is None else 'SHA-256 ' + str(x)[:12] + '…'}, this "
                               f"run {'none' if y is None else 'SHA-256 ' + str(y)[:12] + '…'}")
                else:
                    out.append(f"{k}.{sub}: journal {x!r:.60}, this run {y!r:.60}")
        else:
            out.append(f"{k}: journal {a!r:.100}, this run {b!r:.100}")
    return out


_HEADER_MAX = 1 << 20
"""The most bytes read for the header line (a header is a few kilobytes)."""


class Journal:
    """An evaluation's journal file: :meth:`open` it with the run's :func:`header`, read the
    rows it holds from :attr:`rows`, :meth:`append` the rows of every finished job, and
    :meth:`close` it (or use it in a ``with``). While open it holds an exclusive lock on the
    file (where the system has ``fcntl``), so two runs never write one journal at once."""

    def __init__(self, path: Path, rows: list[GameRow], new: bool, lock: Any) -> None:
        self.path = path
        self.rows = rows
        """The rows of the whole deals it held when opened, one per (deal, rotation), sorted."""
        self.new = new
        """Whether :meth:`open` started it."""
        self._lock = lock

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Release the lock."""
        if self._lock is not None:
            self._lock.close()
            self._lock = None

    @classmethod
    def open(cls, path: str | os.PathLike[str], head: dict[str, Any]) -> Journal:
        """Open (or start) the journal at ``path`` for the evaluation ``head``.

        A file that is not a journal of this evaluation is refused before anything is written
        to it. In a journal of it, a last line cut off by a kill is cut from the file, a deal
        without all three rotations is left out (the run plays it again) and a game written
        twice is read once.

        Raises:
            ValueError: the path is not a regular file or cannot be read, written or locked;
                the file is not a journal, or one of another evaluation (what differs is
                named); a row in it is malformed or contradicts another.
        """
        path = Path(path)
        try:
            st = path.stat() if path.exists() else None
        except OSError as e:
            raise ValueError(f"cannot use {path} as a journal: {e.strerror or e}") from None
        if st is not None and not stat.S_ISREG(st.st_mode):
            raise ValueError(f"--journal {path} is a directory or a special file; give a regular "
                             f"file (new, or the journal of this evaluation)")
        if st is None or st.st_size == 0:
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                lock = _lock(path, "w", head)
            except OSError as e:
                raise ValueError(f"cannot start the journal {path}: {e.strerror or e}") from None
            return cls(path, [], new=True, lock=lock)
        try:
            with open(path, "rb") as f:
                first = f.readline(_HEADER_MAX)
        except OSError as e:
            raise ValueError(f"cannot read the journal {path}: {e.strerror or e}") from None
        try:
            found = json.loads(first.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
            found = None
        if not isinstance(found, dict) or found.get("format") != FORMAT:
            raise ValueError(f"{path} is not an evaluation journal (its first line is not a "
                             f"{FORMAT} header); it was left as it is: give a new file or the "
                             f"journal of this evaluation")
        differ = _differences(_comparable(found), _comparable(head))
        if differ:
            raise ValueError(f"{path} is the journal of another evaluation ({'; '.join(differ)}"
                             f"); give a new file, or the same candidate, opponents, seed, rules, "
                             f"variance reduction and files")
        try:
            lock = _lock(path, "r+", None)
        except PermissionError:  # a read-only journal: read it (a finished run's summary)
            try:
                lock = _lock(path, "r", None)
            except OSError as e:
                raise ValueError(f"cannot read the journal {path}: {e.strerror or e}") from None
        except OSError as e:
            raise ValueError(f"cannot read the journal {path}: {e.strerror or e}") from None
        book = cls(path, [], new=False, lock=lock)
        try:
            book.rows = book._read(lock)
        except BaseException:
            book.close()
            raise
        return book

    def _read(self, f: Any) -> list[GameRow]:
        """The whole deals of the open journal ``f``, after mending a cut-off last line."""
        path = self.path
        try:
            f.seek(0)
            data = f.read()
        except OSError as e:
            raise ValueError(f"cannot read the journal {path}: {e.strerror or e}") from None
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as e:
            raise ValueError(f"{path}: not UTF-8 text after its header ({e})") from None
        lines = text.split("\n")
        if len(lines) > 1 and not text.endswith("\n"):
            # a run was killed while it wrote the last line: cut it (only it) from the file
            if self.writable:
                try:
                    f.truncate(len(data) - len(lines[-1].encode("utf-8")))
                except OSError as e:
                    raise ValueError(f"cannot mend the journal {path} (its last line was cut "
                                     f"off): {e.strerror or e}") from None
            lines = lines[:-1]
        elif len(lines) == 1 and self.writable:  # the header alone, without its newline
            f.seek(0, os.SEEK_END)
            f.write(b"\n")
            f.flush()
        games: dict[tuple[int, int], GameRow] = {}
        for i, line in enumerate(lines[1:], start=2):
            if not line.strip():
                continue
            try:
                values = json.loads(line)
            except (json.JSONDecodeError, RecursionError) as e:
                raise ValueError(f"{path} line {i}: not JSON ({e})") from None
            row = _row_from_json(values, f"{path} line {i}")
            other = games.setdefault((row.deal, row.rotation), row)
            if other != row:
                raise ValueError(f"{path} line {i}: deal {row.deal} rotation {row.rotation} is "
                                 f"written twice with different results ({other} and {row}): "
                                 f"the journal mixes two evaluations; start a new one")
        whole = {d for d, _ in games if all((d, r) in games for r in range(3))}
        return [games[k] for k in sorted(games) if k[0] in whole]

    @property
    def writable(self) -> bool:
        """Whether rows can be appended (the file was opened for writing)."""
        return self._lock is not None and self._lock.mode != "rb"

    def check_writable(self) -> None:
        """Raise ValueError now, before any deal is played, if rows cannot be appended."""
        if not self.writable:
            raise ValueError(f"cannot add this run's deals to the journal {self.path}: it is "
                             f"read-only (or closed)")

    def deals(self) -> set[int]:
        """The deals the journal holds."""
        return {r.deal for r in self.rows}

    def append(self, rows: Iterable[GameRow]) -> None:
        """Append the rows of finished deals, on disk before this returns.

        Raises:
            ValueError: the file cannot be written (a full disk, say); what it holds is kept.
        """
        if self._lock is None:
            raise ValueError(f"the journal {self.path} is closed")
        text = "".join(json.dumps(_row_to_json(r)) + "\n" for r in rows)
        try:
            self._lock.seek(0, os.SEEK_END)
            self._lock.write(text.encode("utf-8"))
            self._lock.flush()
            os.fsync(self._lock.fileno())
        except OSError as e:
            raise ValueError(f"cannot append to the journal {self.path} ({e.strerror or e}); "
                             f"the deals it holds are kept") from None


def _lock(path: Path, mode: str, head: dict[str, Any] | None) -> Any:
    """The journal opened to read (``r``), to read and append (``r+``), or started with ``head``
    as its first line (``w``: created, or an empty file), and locked (``fcntl.flock``, where the
    system has it: shared to read, exclusive to write). Raises ValueError when another run
    holds it, OSError when the system refuses."""
    f: Any = open(path, ("r+b" if path.exists() else "xb") if mode == "w" else mode + "b")
    if fcntl is not None:
        try:
            fcntl.flock(f.fileno(), (fcntl.LOCK_SH if mode == "r" else fcntl.LOCK_EX)
                        | fcntl.LOCK_NB)
        except OSError:
            f.close()
            raise ValueError(f"the journal {path} is in use by another run (wait for it to end, "
                             f"or give another file)") from None
    if head is not None:
        f.seek(0)
        f.truncate()
        f.write((json.dumps(head, ensure_ascii=False) + "\n").encode("utf-8"))
        f.flush()
        os.fsync(f.fileno())
    return f
