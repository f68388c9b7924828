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


POLICY_KEYS = ("model", "config", "rules", "global_step", "iteration", "train_seconds",
               "eval_history")


def export_policy(src: str | Path, dst: str | Path, prior_weight: float | None = None) -> Path:
    """A small, play-only copy of a checkpoint: the network, its config, rules and history
    (no optimizer, snapshots or generator states; it cannot be resumed).

    ``prior_weight`` (networks trained with a prior only) sets the logit bonus of the prior's
    choice the exported policy plays with: above the training value, the policy departs from
    the prior only where the network is more sure of it."""
    data = load_checkpoint(src)
    payload = {k: data[k] for k in POLICY_KEYS if k in data}
    payload["policy_only"] = True
    if prior_weight is not None:
        if payload["config"].get("prior", "none") == "none":
            raise ValueError(f"{src} was trained without a prior; --prior-weight does not apply")
        if prior_weight < 0:
            raise ValueError(f"--prior-weight must be >= 0, got {prior_weight}")
        payload["config"] = {**payload["config"], "prior_weight": float(prior_weight),
                             "trained_prior_weight": payload["config"]["prior_weight"]}
    save_checkpoint(dst, payload)
    return Path(dst)


def slim_checkpoint(src: str | Path, dst: str | Path) -> Path:
    """A resumable copy of a run's checkpoint without the league's snapshot pool (the bulk of
    the file: up to ``snapshot_pool`` past networks). Everything else -- model, optimizer,
    counters, generator states -- is kept, so ``--resume`` continues the run; the pool refills
    from the learner's weights every ``snapshot_every`` iterations."""
    data = load_checkpoint(src)
    if data.get("policy_only"):
        raise ValueError(f"{src} is a play-only export; slim the run's latest.pt instead")
    payload = {k: v for k, v in data.items() if k not in ("format", "obs_version")}
    payload["snapshots"], payload["snapshot_ema"] = [], []
    save_checkpoint(dst, payload)
    return Path(dst)


def main(argv: list[str] | None = None) -> int:
    """``python -m training.checkpoint export SRC DST`` / ``slim SRC DST``."""
    import argparse
    import sys

    p = argparse.ArgumentParser(prog="python -m training.checkpoint")
    sub = p.add_subparsers(dest="cmd", required=True)
    e = sub.add_parser("export", help="write a small play-only copy of a checkpoint")
    e.add_argument("src")
    e.add_argument("dst")
    e.add_argument("--prior-weight", type=float, default=None,
                   help="logit bonus of the prior's choice to play with (default: as trained)")
    s = sub.add_parser("slim", help="write a resumable copy without the snapshot pool")
    s.add_argument("src")
    s.add_argument("dst")
    a = p.parse_args(argv)
    try:
        if a.cmd == "slim":
            out = slim_checkpoint(a.src, a.dst)
        else:
            out = export_policy(a.src, a.dst, a.prior_weight)
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    print(f"wrote {out} ({out.stat().st_size / 1e6:.1f} MB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
