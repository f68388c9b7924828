"""The journal of a duplicate-deal evaluation: ``paohuzi-eval ... --journal FILE``.

A long evaluation (thousands of deals with a deep variance reduction take hours) is made of
pieces: every finished job's rows are appended to the journal as JSON lines and flushed to disk,
so a run that is killed or interrupted loses at most the jobs that were in flight. Run the same
command again and it plays only the deals the journal lacks; the numbers are the same as one
uninterrupted run's, because every deal draws from its own ``SeedSequence`` keyed by (seed,
deal, rotation, seat). A larger ``--deals`` extends a finished run; a smaller one summarises its
first deals.

The first line is the header: what was evaluated (the agent specs, seed, rules, variance
reduction) and the SHA-256 of every file it reads (checkpoints, networks, the value function;
keyed by role, so a journal can move to another checkout).
A journal whose header differs from the run's is refused with the difference named, so pieces
of two different evaluations are never mixed. It does not record the code: run the pieces with
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


class Journal:
    """An evaluation's journal file: :meth:`open` it with the run's :func:`header`, read the
    rows it holds from :attr:`rows`, :meth:`append` the rows of every finished job."""

    def __init__(self, path: Path, rows: list[GameRow]) -> None:
        self.path = path
        self.rows = rows
        """The rows read when it was opened (in file order; whole deals only)."""

    @classmethod
    def open(cls, path: str | os.PathLike[str], head: dict[str, Any]) -> Journal:
        """Open (or start) the journal at ``path`` for the evaluation ``head``.

        Raises:
            ValueError: the file is not a journal, or one of another evaluation (the differing
                header keys are named), or a row in it is malformed.
        """
        path = Path(path)
        rows: list[GameRow] = []
        if not path.exists() or path.stat().st_size == 0:
            path.parent.mkdir(parents=True, exist_ok=True)
            with open(path, "w", encoding="utf-8") as f:
                f.write(json.dumps(head, ensure_ascii=False) + "\n")
                f.flush()
                os.fsync(f.fileno())
            return cls(path, rows)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        lines = text.split("\n")
        if not text.endswith("\n"):
            # the last line was cut off when a run was killed mid-write: drop it from the file
            lines = lines[:-1]
            with open(path, "w", encoding="utf-8") as f:
                f.write("\n".join(lines) + "\n")
        try:
            found = json.loads(lines[0])
        except json.JSONDecodeError:
            found = None
        if not isinstance(found, dict) or found.get("format") != FORMAT:
            raise ValueError(f"{path} is not an evaluation journal (its first line is not a "
                             f"{FORMAT} header); give a new file or the journal of this run")
        differ = sorted(k for k in set(found) | set(head) if found.get(k) != head.get(k))
        if differ:
            detail = "; ".join(f"{k}: journal {found.get(k)!r:.100}, this run {head.get(k)!r:.100}"
                               for k in differ)
            raise ValueError(f"{path} is the journal of another evaluation ({detail}); give a "
                             f"new file, or the same candidate, opponents, seed, rules, variance "
                             f"reduction and files")
        per_deal: dict[int, list[GameRow]] = {}
        for i, line in enumerate(lines[1:], start=2):
            if not line.strip():
                continue
            try:
                values = json.loads(line)
            except json.JSONDecodeError as e:
                raise ValueError(f"{path} line {i}: not JSON ({e})") from None
            row = _row_from_json(values, f"{path} line {i}")
            per_deal.setdefault(row.deal, []).append(row)
        for deal, deal_rows in per_deal.items():
            if sorted(r.rotation for r in deal_rows) != [0, 1, 2]:
                raise ValueError(f"{path}: deal {deal} has rotations "
                                 f"{sorted(r.rotation for r in deal_rows)}, not 0, 1, 2 once each")
            rows.extend(deal_rows)
        return cls(path, rows)

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
