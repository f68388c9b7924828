"""Checkpoints: plain data, written atomically, validated when read.

A checkpoint is data, and loading one never runs code:

- ``.pt`` files hold only tensors, numbers, strings, ``None`` and lists, tuples and dicts of
  them (:func:`save_checkpoint` refuses anything else), so they load with
  ``torch.load(..., weights_only=True)``. A file that needs other pickled objects (an old or
  a crafted one) is refused unless the caller trusts it: ``trust=True`` here,
  ``--trust-checkpoint`` on the command line (which sets :data:`TRUST_ENV` for the process and
  the workers it starts).
- Play-only policies also come as ``NAME.safetensors`` (the network's tensors) with a JSON
  sidecar ``NAME.json`` (rules, observation version, network shape, config, history and the
  SHA-256 of the tensors file); :func:`load_checkpoint` and ``checkpoint:PATH`` read both kinds.

Every file is written to a temporary file in the same folder, flushed to disk and renamed over
the target (``os.replace``): a run killed while it writes leaves the previous file whole (and
a ``*.tmp`` that the next write to that target removes).
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import pickle
from collections import OrderedDict
from pathlib import Path
from typing import Any

import torch

from paohuzi_env.encode.observation import obs_version
from paohuzi_env.game.rules import Rules, as_rules, get_rules, rules_of_file

from .files import write_atomic

FORMAT = "paohuzi-ppo-checkpoint-v1"
SIDECAR_FORMAT = "paohuzi-policy-safetensors-v1"
"""The ``format`` of the JSON sidecar of a ``.safetensors`` policy."""

TRUST_ENV = "PAOHUZI_TRUST_CHECKPOINT"
"""Set to ``1`` by ``--trust-checkpoint``: :func:`load_checkpoint` called without ``trust``
then also loads files that need arbitrary pickled objects (in this process and the worker
processes it starts). Never set it for files you did not make."""


def trusted_by_default() -> bool:
    """Whether ``--trust-checkpoint`` was given to this process (:data:`TRUST_ENV` is ``1``)."""
    return os.environ.get(TRUST_ENV, "") == "1"


def trust_checkpoints() -> None:
    """What ``--trust-checkpoint`` does: trust every checkpoint this process (and the workers it
    starts) loads without an explicit ``trust``."""
    os.environ[TRUST_ENV] = "1"


def checkpoint_rules(data: dict[str, Any]) -> Rules:
    """The rules a checkpoint (or a payload about to be saved) was trained under: its
    ``rules`` entry (``name`` + ``overrides``), else its config's ``rules`` and
    ``rules_overrides``, else the default preset.

    Raises:
        ValueError: if those rules are unknown to this version of paohuzi_env.
    """
    return rules_of_file(data)


_LEAVES = (type(None), bool, int, float, str)


def plain(value: Any, where: str = "checkpoint") -> Any:
    """``value`` as data that ``torch.load(..., weights_only=True)`` reads back: tensors,
    ``None``, bools, ints, floats, strings, and lists, tuples and dicts (string or int keys) of
    them. A numpy scalar becomes the Python number it holds; containers are copied only where
    something inside changed (a state dict keeps its type and metadata).

    Raises:
        TypeError: naming the entry (``where``) of any other object (a numpy array, a path,
            a class instance): a checkpoint holds data, never objects that run code to load.
    """
    import numpy as np

    t = type(value)
    if t in _LEAVES:
        return value
    if isinstance(value, torch.Tensor):
        if t is not torch.Tensor:  # a Parameter or another subclass pickles as its class
            return value.detach().as_subclass(torch.Tensor)
        return value
    if isinstance(value, np.generic) and isinstance(value.item(), _LEAVES):
        return value.item()
    if t in (dict, OrderedDict):
        out, changed = {}, False
        for k, v in value.items():
            if type(k) not in (str, int):
                raise TypeError(f"{where} has a key {k!r} of type {type(k).__name__}; "
                                "checkpoint keys are strings or ints")
            out[k] = plain(v, f"{where}[{k!r}]")
            changed |= out[k] is not v
        if not changed:
            return value
        if t is OrderedDict:
            od = OrderedDict(out)
            if hasattr(value, "_metadata"):
                od._metadata = value._metadata  # type: ignore[attr-defined]
            return od
        return out
    if t in (list, tuple):
        items = [plain(v, f"{where}[{i}]") for i, v in enumerate(value)]
        if all(a is b for a, b in zip(items, value)):
            return value
        return items if t is list else tuple(items)
    raise TypeError(
        f"{where} is a {t.__module__}.{t.__qualname__}: a checkpoint holds only tensors, numbers, "
        "strings, None, lists, tuples and dicts (so it loads with torch.load(weights_only=True))"
    )


def save_checkpoint(path: str | Path, payload: dict[str, Any]) -> None:
    """Write ``payload`` to ``path`` atomically (:func:`write_atomic`): a killed run never
    leaves a torn file.

    The payload must be plain data (:func:`plain`), so the file loads with
    ``weights_only=True``. The file records the observation version of the payload's rules
    (:func:`checkpoint_rules`): ``paohuzi-obs-v1``, or ``paohuzi-obs-v2`` with 王.

    Raises:
        TypeError: naming the entry of the payload that is not plain data.
    """
    data = plain({"format": FORMAT, "obs_version": obs_version(checkpoint_rules(payload)),
                  **payload})
    buf = io.BytesIO()
    torch.save(data, buf)
    write_atomic(path, buf.getvalue())


def _unsafe_globals(path: Path, err: Exception) -> list[str] | None:
    """The names of the non-allowlisted objects a pickled ``.pt`` file needs (found without
    unpickling it), ``[]`` if it needs some but torch cannot name them, None if ``err`` is not
    about such objects (a torn or foreign file)."""
    if not isinstance(err, pickle.UnpicklingError):
        return None
    find = getattr(torch.serialization, "get_unsafe_globals_in_checkpoint", None)
    if find is not None:
        try:
            names = find(path)
        except Exception:  # not a zip checkpoint torch can scan
            names = []
        if names:
            return sorted(names)
    msg = str(err)  # torch before 2.5 cannot list them; its message names one
    return [] if "Unsupported global" in msg or "Unsupported class" in msg else None


def _load_pt(path: Path, trust: bool) -> Any:
    if trust:
        try:
            # the only unsafe load in the project, behind trust=True / --trust-checkpoint
            return torch.load(path, map_location="cpu", weights_only=False)
        except Exception as e:  # torch raises many kinds on a torn or foreign file
            raise ValueError(f"checkpoint {path} is corrupt or not a torch file: {e}") from None
    try:
        return torch.load(path, map_location="cpu", weights_only=True)
    except Exception as e:
        names = _unsafe_globals(path, e)
        if names is None:
            raise ValueError(f"checkpoint {path} is corrupt or not a torch file: {e}") from None
        what = f" ({', '.join(names)})" if names else ""
        raise ValueError(
            f"checkpoint {path} needs arbitrary pickled objects to load{what}; loading it could "
            f"run code, so it is refused. Only if you made this file or trust who did: pass "
            f"--trust-checkpoint (trust=True in Python), or convert it once to the safe format "
            f"with: python -m paohuzi_training.nets.checkpoint convert {path} --trust-checkpoint"
        ) from None


def sidecar_path(path: str | Path) -> Path:
    """The JSON sidecar of a ``.safetensors`` policy: the same name ending in ``.json``."""
    return Path(path).with_suffix(".json")


def _safetensors():
    try:
        import safetensors.torch as st
    except ImportError:
        raise ValueError(
            "reading or writing .safetensors policies needs the safetensors package: "
            "pip install safetensors (it is in the train extra)"
        ) from None
    return st


def _load_safetensors(path: Path) -> dict[str, Any]:
    """A ``.safetensors`` policy and its sidecar, as the dict a play-only ``.pt`` export holds."""
    from paohuzi_env.agents.network import read_sidecar

    side = sidecar_path(path)
    meta = read_sidecar(path)
    blob = path.read_bytes()
    digest = hashlib.sha256(blob).hexdigest()
    if meta.get("weights_sha256") != digest:
        raise ValueError(f"{path} is not the tensors file its sidecar {side} describes (SHA-256 "
                         f"{digest[:12]}..., the sidecar names {str(meta.get('weights_sha256'))[:12]}...)")
    try:
        model = _safetensors().load(blob)
    except ValueError:
        raise
    except Exception as e:
        raise ValueError(f"{path} is corrupt or not a safetensors file: {e}") from None
    shapes = {k: list(v.shape) for k, v in model.items()}
    want = (meta.get("network") or {}).get("tensors")
    if shapes != want:
        raise ValueError(f"the tensors of {path} do not have the shapes its sidecar lists")
    data = {k: v for k, v in meta.items() if k not in ("format", "network", "weights_sha256")}
    data.update(format=FORMAT, model=OrderedDict(sorted(model.items())), policy_only=True)
    return data


def _network_shape(payload: dict[str, Any]) -> dict[str, Any]:
    from paohuzi_env.encode.observation import obs_size

    cfg = payload.get("config") or {}
    rules = checkpoint_rules(payload)
    return {
        "obs_size": obs_size(rules), "hidden": cfg.get("hidden"),
        "actor": cfg.get("actor", "mlp"), "conv_channels": cfg.get("conv_channels", 128),
        "central_critic": cfg.get("central_critic"), "prior": cfg.get("prior", "none"),
        "prior_weight": cfg.get("prior_weight", 0.0),
        "wait_features": bool(cfg.get("wait_features", False)),
        "tensors": {k: list(v.shape) for k, v in payload["model"].items()},
    }


def save_safetensors(path: str | Path, payload: dict[str, Any]) -> Path:
    """Write a play-only policy as ``path`` (``.safetensors``: its network's tensors) and its
    sidecar ``.json`` (everything else in ``payload`` but optimizer state, which a play-only
    policy has not), both atomically; returns ``path``.

    Raises:
        ValueError: if ``path`` does not end in ``.safetensors``.
        TypeError: if the payload's non-tensor entries are not JSON data.
    """
    path = Path(path)
    if path.suffix != ".safetensors":
        raise ValueError(f"a safetensors policy's name ends in .safetensors, got {path}")
    st = _safetensors()
    tensors = {k: v.detach().cpu().contiguous() for k, v in payload["model"].items()}
    blob = st.save(tensors)
    meta: dict[str, Any] = {"format": SIDECAR_FORMAT,
                            "obs_version": obs_version(checkpoint_rules(payload))}
    if (payload.get("config") or {}).get("wait_features"):
        from paohuzi_env.encode.features import WAITS_VERSION

        meta["waits_version"] = WAITS_VERSION  # the wait features it reads after the observation
    meta.update({k: v for k, v in payload.items()
                 if k in POLICY_KEYS and k != "model"})
    meta.update(policy_only=True, network=_network_shape(payload),
                weights_sha256=hashlib.sha256(blob).hexdigest())
    text = json.dumps(plain(meta, "sidecar"), indent=1, ensure_ascii=False, allow_nan=False)
    write_atomic(path, blob)
    write_atomic(sidecar_path(path), (text + "\n").encode("utf-8"))
    return path


def load_checkpoint(path: str | Path, *, rules_name: str | None = None,
                    rules: str | Rules | None = None, trust: bool | None = None) -> dict[str, Any]:
    """Read and validate a checkpoint: a ``.pt`` file, or a ``.safetensors`` policy with its
    JSON sidecar (the path of either).

    A ``.pt`` file is read with ``torch.load(..., weights_only=True)``: one that needs other
    pickled objects is refused, unless ``trust`` is true (``None``: true only if
    ``--trust-checkpoint`` was given, :func:`trusted_by_default`). Only trust files you made.

    The observation version it was made for must be the one the rules it is loaded for
    produce (:func:`paohuzi_env.encode.observation.obs_version`): ``rules`` (a preset name or
    :class:`Rules`, overrides included) when given, else the preset ``rules_name`` (with the
    checkpoint's own overrides when that is its preset), else the checkpoint's own rules (then
    this only checks that this version of paohuzi_env still produces the observation it was
    trained on). With ``rules`` or ``rules_name`` the
    checkpoint must also have been trained under that preset.

    Raises:
        ValueError: if the file is missing, corrupt, not a paohuzi checkpoint, needs pickled
            objects and is not trusted, made for another observation version, or (with
            ``rules`` / ``rules_name``) for another rules preset.
    """
    target = None if rules is None else as_rules(rules)
    if target is not None:
        if rules_name is not None and rules_name != target.name:
            raise ValueError(f"rules_name {rules_name!r} and rules {target.name!r} disagree")
        rules_name = target.name
    path = Path(path)
    if path.suffix == ".json" and path.with_suffix(".safetensors").is_file():
        path = path.with_suffix(".safetensors")  # the sidecar named: read the pair
    if not path.is_file():
        raise ValueError(f"checkpoint {path} does not exist")
    if path.suffix == ".safetensors":
        data = _load_safetensors(path)
    else:
        data = _load_pt(path, trusted_by_default() if trust is None else bool(trust))
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


def transfer_policy(src: str | Path, dst: str | Path, rules: str, *, half: bool = False,
                    name: str = "") -> Path:
    """``src`` (a checkpoint or exported policy) exported to ``dst`` (``.safetensors``, actor
    only) to play under the preset ``rules``: where it was trained under another preset with the
    same observation, its sidecar names ``rules`` (and ``transfer_from`` the preset and
    ``name``, default ``src``, it came from), an untrained transfer; the tensors are unchanged.

    Raises:
        ValueError: ``rules`` produce another observation than the network reads (checked before
            anything is written).
    """
    own = checkpoint_rules(load_checkpoint(src))
    want = obs_version(get_rules(rules))
    if obs_version(own) != want:
        raise ValueError(f"{src} reads {obs_version(own)}; rules {rules!r} produce {want}")
    dst = export_policy(src, dst, actor_only=True, half=half)
    if own.name != rules:
        side = json.loads(sidecar_path(dst).read_text(encoding="utf-8"))
        side.update(rules={"name": rules, "overrides": {}}, eval_history=[],
                    transfer_from={"rules": own.name, "network": name or str(src)})
        write_atomic(sidecar_path(dst),
                     (json.dumps(side, indent=1, ensure_ascii=False) + "\n").encode("utf-8"))
    return dst


def export_policy(src: str | Path, dst: str | Path, prior_weight: float | None = None,
                  *, trust: bool | None = None, actor_only: bool = False,
                  half: bool = False) -> Path:
    """A small, play-only copy of a checkpoint: the network, its config, rules and history
    (no optimizer, snapshots or generator states; it cannot be resumed). A ``dst`` ending in
    ``.safetensors`` writes the network there and the rest to its JSON sidecar
    (:func:`save_safetensors`); any other name writes one ``.pt`` file.

    ``prior_weight`` (networks trained with a prior only) sets the logit bonus of the prior's
    choice the exported policy plays with: above the training value, the policy departs from
    the prior only where the network is more sure of it. ``trust``: as for
    :func:`load_checkpoint` (for ``src``). ``actor_only`` keeps only the actor's tensors (a
    ``.safetensors`` ``dst`` only): what ``network:PATH`` and the search's ``guide`` read
    (paohuzi_env/agents/network.py), at about two thirds of the size; torch's
    ``checkpoint:PATH`` agent needs the critic too. ``half`` (with ``actor_only``) stores the
    tensors as float16, half the size, the zoo's storage: the readers widen them to float32, so
    the network plays as that float32 copy; play may differ from ``src``'s where two logits are
    within float16 rounding, so a half copy's figures are measured on the half copy."""
    if half and not actor_only:
        raise ValueError("--half writes an actor-only policy: give --actor-only too")
    data = load_checkpoint(src, trust=trust)
    payload = {k: data[k] for k in POLICY_KEYS if k in data}
    payload["policy_only"] = True
    if actor_only:
        if Path(dst).suffix != ".safetensors":
            raise ValueError(f"--actor-only writes a .safetensors policy, got {dst}")
        payload["model"] = {k: v.half() if half else v for k, v in payload["model"].items()
                            if k.startswith("actor.")}
    if prior_weight is not None:
        if payload["config"].get("prior", "none") == "none":
            raise ValueError(f"{src} was trained without a prior; --prior-weight does not apply")
        if prior_weight < 0:
            raise ValueError(f"--prior-weight must be >= 0, got {prior_weight}")
        payload["config"] = {**payload["config"], "prior_weight": float(prior_weight),
                             "trained_prior_weight": payload["config"]["prior_weight"]}
    if Path(dst).suffix == ".safetensors":
        return save_safetensors(dst, payload)
    save_checkpoint(dst, payload)
    return Path(dst)


def widen_policy(src: str | Path, dst: str | Path, hidden: int, *, seed: int = 0,
                 trust: bool | None = None) -> Path:
    """A play-only copy of ``src`` whose actor's hidden layers are ``hidden`` wide, computing
    exactly the same logits (Net2Net-style widening, Chen, Goodfellow & Shlens 2016): each
    hidden layer keeps its units and gains new ones, whose incoming weights are drawn at the
    scale of the layer's own (``seed``) and whose outgoing weights are zero, so nothing
    downstream reads them until training moves those zeros. The critic is kept; the config's
    ``hidden`` becomes ``hidden``. ``dst`` is a ``.safetensors`` policy or a ``.pt`` file, as for
    :func:`export_policy`; it can start a recipe (``start:``) or a run (``init_from``) whose
    network is that wide.

    Raises:
        ValueError: if ``hidden`` is not wider than the actor, or the network is not one of
            the trainer's actors (``mlp``, ``conv``).
    """
    data = load_checkpoint(src, trust=trust)
    cfg = dict(data.get("config") or {})
    old = int(cfg.get("hidden") or 0)
    if not isinstance(hidden, int) or hidden <= old:
        raise ValueError(f"--hidden must be wider than the actor's {old}, got {hidden!r}")
    prefix = {"conv": "actor.head.", "mlp": "actor."}.get(cfg.get("actor", "mlp"))
    if prefix is None:
        raise ValueError(f"{src}: unknown actor {cfg.get('actor')!r} (allowed: mlp, conv)")
    model = dict(data["model"])
    layers = sorted(int(k[len(prefix):].split(".")[0]) for k in model
                    if k.startswith(prefix) and k.endswith(".weight")
                    and k[len(prefix):].split(".")[0].isdigit())
    gen = torch.Generator().manual_seed(int(seed))
    for i, n in enumerate(layers):
        w, b = model[f"{prefix}{n}.weight"], model[f"{prefix}{n}.bias"]
        scale = float(w.float().std())
        if i > 0:  # columns read from the previous layer's new units: zero
            w = torch.cat([w, w.new_zeros(w.shape[0], hidden - old)], dim=1)
        if i < len(layers) - 1:  # a hidden layer: new units with fresh incoming weights
            fresh = torch.randn(hidden - old, w.shape[1], generator=gen) * scale
            w = torch.cat([w, fresh.to(w.dtype)], dim=0)
            b = torch.cat([b, b.new_zeros(hidden - old)])
        model[f"{prefix}{n}.weight"], model[f"{prefix}{n}.bias"] = w, b
    if "oracle.weight" in model:  # oracle guiding feeds the first hidden layer: none to the new
        w = model["oracle.weight"]
        model["oracle.weight"] = torch.cat([w, w.new_zeros(hidden - old, w.shape[1])])
    payload = {k: data[k] for k in POLICY_KEYS if k in data}
    payload.update(model=model, policy_only=True,
                   config={**cfg, "hidden": hidden, "widened_from": {"hidden": old, "seed": seed}})
    if Path(dst).suffix == ".safetensors":
        return save_safetensors(dst, payload)
    save_checkpoint(dst, payload)
    return Path(dst)


def slim_checkpoint(src: str | Path, dst: str | Path, *, trust: bool | None = None) -> Path:
    """A resumable copy of a run's checkpoint without the league's snapshot pool (the bulk of
    the file: up to ``snapshot_pool`` past networks). Everything else -- model, optimizer,
    counters, generator states -- is kept, so ``--resume`` continues the run; the pool refills
    from the learner's weights every ``snapshot_every`` iterations."""
    data = load_checkpoint(src, trust=trust)
    if data.get("policy_only"):
        raise ValueError(f"{src} is a play-only export; slim the run's latest.pt instead")
    payload = {k: v for k, v in data.items() if k not in ("format", "obs_version")}
    payload["snapshots"], payload["snapshot_ema"] = [], []
    save_checkpoint(dst, payload)
    return Path(dst)


def convert_checkpoint(src: str | Path, dst: str | Path | None = None, *,
                       trust: bool | None = None) -> Path:
    """Rewrite a checkpoint in the safe format (:func:`save_checkpoint`), by default in place:
    the same entries as plain data, so it loads without ``trust`` from then on. Reading an
    old file that needs pickled objects takes ``trust`` (only for files you made).

    Raises:
        ValueError: if ``src`` cannot be read (or is refused), or holds an entry that is not
            plain data even after numpy scalars become numbers.
    """
    if Path(src).suffix in (".safetensors", ".json"):
        raise ValueError(f"{src} is a safetensors policy: it is already safe to load")
    data = load_checkpoint(src, trust=trust)
    payload = {k: v for k, v in data.items() if k not in ("format", "obs_version")}
    try:
        save_checkpoint(src if dst is None else dst, payload)
    except TypeError as e:
        raise ValueError(f"{src} cannot be converted: {e}") from None
    return Path(src if dst is None else dst)


def main(argv: list[str] | None = None) -> int:
    """``python -m paohuzi_training.nets.checkpoint export SRC DST`` / ``slim SRC DST`` / ``widen SRC DST
    --hidden N`` / ``convert SRC``."""
    import argparse
    import sys

    p = argparse.ArgumentParser(prog="python -m paohuzi_training.nets.checkpoint")
    sub = p.add_subparsers(dest="cmd", required=True)
    e = sub.add_parser("export", help="write a small play-only copy of a checkpoint (DST ending "
                                      "in .safetensors: the network there, the rest in DST's .json)")
    e.add_argument("src")
    e.add_argument("dst")
    e.add_argument("--prior-weight", type=float, default=None,
                   help="logit bonus of the prior's choice to play with (default: as trained)")
    e.add_argument("--actor-only", action="store_true",
                   help="keep only the actor's tensors (DST .safetensors): what network:PATH and "
                        "the search's guide read; not loadable as checkpoint:PATH")
    e.add_argument("--half", action="store_true",
                   help="with --actor-only: the tensors as float16 (half the size; the zoo's "
                        "storage), read back as float32")
    s = sub.add_parser("slim", help="write a resumable copy without the snapshot pool")
    s.add_argument("src")
    s.add_argument("dst")
    w = sub.add_parser("widen", help="write a copy whose actor's hidden layers are wider, with "
                                     "the same logits (new units start unread)")
    w.add_argument("src")
    w.add_argument("dst")
    w.add_argument("--hidden", type=int, required=True, help="the new width of the hidden layers")
    w.add_argument("--seed", type=int, default=0, help="seed of the new units' weights")
    c = sub.add_parser("convert", help="rewrite a checkpoint as plain data (loads without trust)")
    c.add_argument("src")
    c.add_argument("dst", nargs="?", default=None, help="where to write (default: over SRC)")
    for q in (e, s, c, w):
        q.add_argument("--trust-checkpoint", action="store_true",
                       help="load SRC even if it needs arbitrary pickled objects (can run code: "
                            "only for files you made)")
    a = p.parse_args(argv)
    trust = a.trust_checkpoint or None
    try:
        if a.cmd == "slim":
            out = slim_checkpoint(a.src, a.dst, trust=trust)
        elif a.cmd == "widen":
            out = widen_policy(a.src, a.dst, a.hidden, seed=a.seed, trust=trust)
        elif a.cmd == "convert":
            out = convert_checkpoint(a.src, a.dst, trust=trust)
        else:
            out = export_policy(a.src, a.dst, a.prior_weight, trust=trust,
                                actor_only=a.actor_only, half=a.half)
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    print(f"wrote {out} ({out.stat().st_size / 1e6:.1f} MB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
