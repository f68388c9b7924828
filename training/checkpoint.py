"""Checkpoints: written atomically (temp file + rename), validated when read."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

import torch

from paohuzi_env.observation import OBS_VERSION

FORMAT = "paohuzi-ppo-checkpoint-v1"


def save_checkpoint(path: str | Path, payload: dict[str, Any]) -> None:
    """Write ``payload`` to ``path`` atomically: a killed run never leaves a torn file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {"format": FORMAT, "obs_version": OBS_VERSION, **payload}
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            torch.save(data, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def load_checkpoint(path: str | Path, *, rules_name: str | None = None) -> dict[str, Any]:
    """Read and validate a checkpoint.

    Raises:
        ValueError: if the file is missing, corrupt, not a paohuzi checkpoint, made for another
            observation version, or (with ``rules_name``) for another rules preset.
    """
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"checkpoint {path} does not exist")
    try:
        data = torch.load(path, map_location="cpu", weights_only=False)
    except Exception as e:  # torch raises many kinds on a torn or foreign file
        raise ValueError(f"checkpoint {path} is corrupt or not a torch file: {e}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f"{path} is not a paohuzi PPO checkpoint (format {FORMAT})")
    if data.get("obs_version") != OBS_VERSION:
        raise ValueError(
            f"checkpoint {path} was made for observation {data.get('obs_version')!r}; this "
            f"version of paohuzi_env produces {OBS_VERSION!r}"
        )
    if rules_name is not None and data["rules"]["name"] != rules_name:
        raise ValueError(
            f"checkpoint {path} was trained under rules {data['rules']['name']!r}, "
            f"not {rules_name!r}"
        )
    return data
