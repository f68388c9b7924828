"""The journal of a duplicate-deal evaluation: ``paohuzi-eval ... --journal FILE``.

A long evaluation (thousands of deals with a deep variance reduction take hours) is made of
pieces: every finished job's rows are appended to the journal as JSON lines and flushed to disk,
so a run that is killed or interrupted loses at most the jobs that were in flight. Run the same
command again and it plays only the deals the journal lacks; the numbers are the same as one
uninterrupted run's, because every deal draws from its own ``SeedSequence`` keyed by (seed,
deal, rotation, seat). A larger ``--deals`` extends a finished run; a smaller one summarises its
first deals.

The first line is the header: what was evaluated (the agent specs, seed, rules, variance
reduction) and the SHA-256 of every file it reads (checkpoints, networks, the value function),
keyed by role. A checkpoint is known by its content, not its path (``x.pt``, ``./x.pt`` and the
same file in another checkout are one), so a journal can move. A journal whose header differs
from the run's, or a file that is not a journal, is refused with the difference named and left
as it was, so pieces of two different evaluations are never mixed. A last line cut off by a kill
is cut from the file, a deal without its three rotations is played again, and a game written
twice (two runs on one journal) is read once. It does not record the code: run the pieces with
the same version of paohuzi-env. The file is data (JSON); reading it runs no code.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from .rows import GameRow

__all__ = ["FORMAT", "Journal", "header"]

FORMAT = "paohuzi-eval-journal/1"
"""The journal's format name and version, the header's ``format``."""

_ROW_FIELDS = [f.name for f in dataclasses.fields(GameRow)]


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _spec_files(spec: str) -> list[Path]:
    """The files an agent spec reads: ``checkpoint:PATH`` (and the compiled ``.safetensors``
    policy beside it, which a lookahead plays), ``network:PATH``."""
    kind, _, rest = spec.partition(":")
    if kind not in ("checkpoint", "network") or not rest:
        return []
    path = Path(rest)
    out = [path]
    if kind == "checkpoint" and path.with_suffix(".safetensors").is_file():
        out.append(path.with_suffix(".safetensors"))
    return [p for p in out if p.is_file()]


def header(candidate: str, opponents: Sequence[str], seed: int, rules: Any,
           variance_reduction: str, value_function: str | None) -> dict[str, Any]:
    """What one evaluation is: the header a journal of it starts with."""
    files: dict[str, str] = {}  # by role, not path: a journal moves with its checkout
    for role, spec in [("candidate", candidate), ("opponent 1", opponents[0]),
                       ("opponent 2", opponents[1])]:
        for p in _spec_files(spec):
            files[role + (p.suffix if p.suffix == ".safetensors" and spec.startswith(
                "checkpoint:") else "")] = _sha256(p)
    if value_function is not None:
        files["value function"] = _sha256(Path(value_function))
    rules_fields = json.loads(json.dumps(dataclasses.asdict(rules)))  # tuples as lists
    return {"format": FORMAT, "candidate": candidate, "opponents": list(opponents),
            "seed": int(seed), "rules": rules_fields, "variance_reduction": variance_reduction,
            "files_sha256": files}


def _row_to_json(row: GameRow) -> list[Any]:
    return [list(v) if isinstance(v, tuple) else v for v in dataclasses.astuple(row)]


def _row_from_json(values: list[Any], where: str) -> GameRow:
    if not isinstance(values, list) or len(values) != len(_ROW_FIELDS):
        raise ValueError(f"{where}: a row is a list of {len(_ROW_FIELDS)} values "
                         f"({', '.join(_ROW_FIELDS)}), got {values!r:.80}")
    d = dict(zip(_ROW_FIELDS, values, strict=True))
    try:
        return GameRow(deal=int(d["deal"]), rotation=int(d["rotation"]),
                       points=int(d["points"]), won=bool(d["won"]), hu=bool(d["hu"]),
                       dealer=bool(d["dealer"]),
                       scores=(int(d["scores"][0]), int(d["scores"][1]), int(d["scores"][2])),
                       control=float(d["control"]))
    except (TypeError, ValueError, IndexError, KeyError) as e:
        raise ValueError(f"{where}: not a game row: {values!r:.80} ({e})") from None


def _comparable(head: dict[str, Any]) -> dict[str, Any]:
    """The header as compared: a file spec's path is not (its file's SHA-256 is), so the same
    file named ``x.pt``, ``./x.pt`` or from another checkout is the same evaluation."""
    out = dict(head)
    for key in ("candidate", "opponents"):
        specs = out.get(key)
        names = specs if isinstance(specs, list) else [specs]
        names = [n.partition(":")[0] + ":FILE" if isinstance(n, str) and _is_file_spec(n) else n
                 for n in names]
        out[key] = names if isinstance(specs, list) else names[0]
    return out


def _is_file_spec(spec: str) -> bool:
    kind, _, rest = spec.partition(":")
    return kind in ("checkpoint", "network") and bool(rest)


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


class Journal:
    """An evaluation's journal file: :meth:`open` it with the run's :func:`header`, read the
    rows it holds from :attr:`rows`, :meth:`append` the rows of every finished job."""

    def __init__(self, path: Path, rows: list[GameRow], new: bool) -> None:
        self.path = path
        self.rows = rows
        """The rows of the whole deals it held when opened, one per (deal, rotation), sorted."""
        self.new = new
        """Whether :meth:`open` started it."""

    @classmethod
    def open(cls, path: str | os.PathLike[str], head: dict[str, Any]) -> Journal:
        """Open (or start) the journal at ``path`` for the evaluation ``head``.

        A file that is not a journal of this evaluation is refused before anything is written
        to it. In a journal of it, a last line cut off by a kill is cut from the file, a deal
        without all three rotations is left out (the run plays it again) and a game written
        twice (two runs on one journal) is read once.

        Raises:
            ValueError: the path cannot be read, the file is not a journal, or one of another
                evaluation (what differs is named), or a row in it is malformed or contradicts
                another.
        """
        path = Path(path)
        if path.is_dir():
            raise ValueError(f"--journal {path} is a directory; give a file (new, or the "
                             f"journal of this evaluation)")
        if not path.exists() or path.stat().st_size == 0:
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                with open(path, "w", encoding="utf-8") as f:
                    f.write(json.dumps(head, ensure_ascii=False) + "\n")
                    f.flush()
                    os.fsync(f.fileno())
            except OSError as e:
                raise ValueError(f"cannot start the journal {path}: {e.strerror or e}") from None
            return cls(path, [], new=True)
        try:
            with open(path, "rb") as f:
                data = f.read()
            text = data.decode("utf-8")
        except OSError as e:
            raise ValueError(f"cannot read the journal {path}: {e.strerror or e}") from None
        except UnicodeDecodeError:
            text = None
        lines = [] if text is None else text.split("\n")
        try:
            found = json.loads(lines[0]) if lines else None
        except json.JSONDecodeError:
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
        assert text is not None
        if not text.endswith("\n"):
            # a run was killed while it wrote the last line: cut it (only it) from the file
            keep = len(data) - len(lines[-1].encode("utf-8"))
            lines = lines[:-1]
            try:
                os.truncate(path, keep)
            except OSError as e:
                raise ValueError(f"cannot mend the journal {path} (its last line was cut off): "
                                 f"{e.strerror or e}") from None
        games: dict[tuple[int, int], GameRow] = {}
        for i, line in enumerate(lines[1:], start=2):
            if not line.strip():
                continue
            try:
                values = json.loads(line)
            except json.JSONDecodeError as e:
                raise ValueError(f"{path} line {i}: not JSON ({e})") from None
            row = _row_from_json(values, f"{path} line {i}")
            if not 0 <= row.rotation <= 2 or row.deal < 0:
                raise ValueError(f"{path} line {i}: deal {row.deal}, rotation {row.rotation}: a "
                                 f"deal is 0 or more and a rotation 0, 1 or 2")
            other = games.setdefault((row.deal, row.rotation), row)
            if other != row:
                raise ValueError(f"{path} line {i}: deal {row.deal} rotation {row.rotation} is "
                                 f"written twice with different results ({other} and {row}): "
                                 f"the journal mixes two evaluations; start a new one")
        whole = {d for d, _ in games if all((d, r) in games for r in range(3))}
        rows = [games[k] for k in sorted(games) if k[0] in whole]
        return cls(path, rows, new=False)

    def check_writable(self) -> None:
        """Raise ValueError now, before any deal is played, if rows cannot be appended."""
        try:
            with open(self.path, "a", encoding="utf-8"):
                pass
        except OSError as e:
            raise ValueError(f"cannot add this run's deals to the journal {self.path}: "
                             f"{e.strerror or e}") from None

    def deals(self) -> set[int]:
        """The deals the journal holds."""
        return {r.deal for r in self.rows}

    def append(self, rows: Iterable[GameRow]) -> None:
        """Append the rows of finished deals, on disk before this returns."""
        text = "".join(json.dumps(_row_to_json(r)) + "\n" for r in rows)
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
