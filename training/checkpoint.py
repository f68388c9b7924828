"""Checkpoints: written atomically (temp file + rename), validated when read."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

import torch

from paohuzi_env.observation import obs_version
from paohuzi_env.rules import Rules, as_rules, get_rules

FORMAT = "paohuzi-ppo-checkpoint-v1"


def checkpoint_rules(data: dict[str, Any]) -> Rules:
    """The rules a checkpoint (or a payload about to be saved) was trained under: its
    ``rules`` entry (``name`` + ``overrides``), else its config's ``rules`` and
    ``rules_overrides``, else the default preset.

    Raises:
        ValueError: if those rules are unknown to this version of paohuzi_env.
    """
    rules = data.get("rules")
    if isinstance(rules, dict) and "name" in rules:
        return get_rules(rules["name"], **(rules.get("overrides") or {}))
    config = data.get("config")
    if isinstance(config, dict) and "rules" in config:
        return get_rules(config["rules"], **(config.get("rules_overrides") or {}))
    return get_rules()


def save_checkpoint(path: str | Path, payload: dict[str, Any]) -> None:
    """Write ``payload`` to ``path`` atomically: a killed run never leaves a torn file.

    The file records the observation version of the payload's rules
    (:func:`checkpoint_rules`): ``paohuzi-obs-v1``, or ``paohuzi-obs-v2`` with 王."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {"format": FORMAT, "obs_version": obs_version(checkpoint_rules(payload)), **payload}
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


def load_checkpoint(path: str | Path, *, rules_name: str | None = None,
                    rules: str | Rules | None = None) -> dict[str, Any]:
    """Read and validate a checkpoint.

    The observation version it was made for must be the one the rules it is loaded for
    produce (:func:`paohuzi_env.observation.obs_version`): ``rules`` (a preset name or
    :class:`Rules`, overrides included) when given, else the preset ``rules_name`` (with the
    checkpoint's own overrides when that is its preset), else the checkpoint's own rules (then
    this only checks that this version of paohuzi_env still produces the observation it was
    trained on). With ``rules`` or ``rules_name`` the
    checkpoint must also have been trained under that preset.

    Raises:
        ValueError: if the file is missing, corrupt, not a paohuzi checkpoint, made for another
            observation version, or (with ``rules`` / ``rules_name``) for another rules preset.
    """
    target = None if rules is None else as_rules(rules)
    if target is not None:
        if rules_name is not None and rules_name != target.name:
            raise ValueError(f"rules_name {rules_name!r} and rules {target.name!r} disagree")
        rules_name = target.name
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"checkpoint {path} does not exist")
    try:
        data = torch.load(path, map_location="cpu", weights_only=False)
    except Exception as e:  # torch raises many kinds on a torn or foreign file
        raise ValueError(f"checkpoint {path} is corrupt or not a torch file: {e}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f"{path} is not a paohuzi PPO checkpoint (format {FORMAT})")
    try:
        own = checkpoint_rules(data)
    except ValueError as e:
        raise ValueError(f"checkpoint {path} names rules this paohuzi_env cannot build: {e}") \
            from None
    if target is None:  # a preset name alone: the checkpoint's overrides when it is its own
        target = own if rules_name in (None, own.name) else get_rules(rules_name)
    want = obs_version(target)
    if data.get("obs_version") != want:
        raise ValueError(
            f"checkpoint {path} was made for observation {data.get('obs_version')!r} "
            f"(trained under rules {own.name!r}), but rules {target.name!r} produce "
            f"observation {want!r}: a network plays only the observation it was trained on"
        )
    if rules_name is not None and own.name != rules_name:
        raise ValueError(
            f"checkpoint {path} was trained under rules {own.name!r}, "
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
