"""Reading the JSON records that sit beside the networks (a policy's sidecar, a zoo card)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def read_json_record(path: Path, what: str, kind: str, fmt: str) -> dict[str, Any]:
    """The JSON object in ``path`` whose ``format`` is ``fmt``; a ``ValueError`` naming the file
    (``what``: how the message names it; ``kind``: what it should be) otherwise."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"{what} {path} is not readable JSON: {e}") from None
    if not isinstance(data, dict) or data.get("format") != fmt:
        raise ValueError(f"{path} is not {kind} (format {fmt})")
    return data
