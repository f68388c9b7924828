"""Plain MLP policies exported from other libraries, played with numpy: the ``mlp:PATH`` agent spec.

The baselines of ``paohuzi_training/baselines/`` train with libraries whose own files are not
safe to load: a Stable-Baselines3 ``.zip`` and an OpenSpiel NFSP checkpoint hold pickles, and
unpickling a file can run any code. So their policy networks are exported instead, as data: the
layers' weights in a ``.safetensors`` file and a JSON sidecar beside it (``NAME.json``,
``format: paohuzi-mlp-policy-v1``), which ``mlp:NAME.safetensors`` plays. Loading reads the
tensors with the ``safetensors`` package's numpy API and the sidecar as JSON; nothing in either
file is run.

The network is ``layers.0``, ``layers.1``, ... (``.weight`` of shape ``(out, in)``, ``.bias`` of
shape ``(out,)``, PyTorch's layout): each layer but the last followed by the sidecar's
``activation`` (``relu`` or ``tanh``), the first reading the seat's observation (the AEC env's,
:func:`paohuzi_env.encode.observation.encode`), the last giving the 61 action logits. The agent
plays the legal action with the highest logit (``play: argmax``: SB3's ``deterministic=True``), or
draws one from the softmax of the legal logits (``play: sample``: an NFSP average policy, a mixed
strategy whose argmax would be another policy), from the agent's own seeded generator.

The sidecar also names the rules the network was trained under (:meth:`Rules.to_record`), the
observation version, the SHA-256 of the tensors file, and what made it (``library``,
``algorithm``, ``steps``, free-form ``source``). :func:`write_mlp_policy` writes the pair.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..agents.network import read_safetensors
from ..agents.records import read_json_record
from ..bots.base import Agent
from ..encode.observation import encode, obs_size, obs_version
from ..game.actions import NUM_ACTIONS
from ..game.engine import PlayerView
from ..game.rules import Rules, as_rules, rules_of_file

FORMAT = "paohuzi-mlp-policy-v1"
"""The ``format`` of an MLP policy's JSON sidecar."""
ACTIVATIONS = ("relu", "tanh")
PLAYS = ("argmax", "sample")


def sidecar_of(path: str | Path) -> Path:
    """The JSON sidecar of the ``.safetensors`` policy ``path``."""
    return Path(path).with_suffix(".json")


def write_mlp_policy(path: str | Path, layers: Sequence[tuple[np.ndarray, np.ndarray]], *,
                     activation: str, play: str, rules: str | Rules, library: str,
                     algorithm: str, steps: int, source: Mapping[str, Any] | None = None) -> Path:
    """Write ``layers`` (``(weight, bias)`` pairs, PyTorch's layout) as an ``mlp:`` policy:
    ``path`` (``.safetensors``) and its sidecar; returns ``path``. The shapes are checked as
    :func:`load_mlp_policy` checks them.

    Raises:
        ValueError: for a name not ending in ``.safetensors``, an unknown activation or play, or
            layers that do not chain from the rules' observation to the 61 actions.
    """
    import safetensors.numpy

    path = Path(path)
    if path.suffix != ".safetensors":
        raise ValueError(f"an mlp policy's name ends in .safetensors, got {path}")
    rules = as_rules(rules)
    tensors: dict[str, np.ndarray] = {}
    for i, (w, b) in enumerate(layers):
        tensors[f"layers.{i}.weight"] = np.ascontiguousarray(w, dtype=np.float32)
        tensors[f"layers.{i}.bias"] = np.ascontiguousarray(b, dtype=np.float32)
    _check_layers(tensors, rules, activation, play, str(path))
    blob = safetensors.numpy.save(tensors)
    meta = {"format": FORMAT, "obs_version": obs_version(rules), "rules": rules.to_record(),
            "activation": activation, "play": play, "layers": len(layers), "library": library,
            "algorithm": algorithm, "steps": int(steps), "source": dict(source or {}),
            "weights_sha256": hashlib.sha256(blob).hexdigest()}
    text = json.dumps(meta, indent=1, ensure_ascii=False, allow_nan=False) + "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    for target, data in ((path, blob), (sidecar_of(path), text.encode("utf-8"))):
        tmp = target.with_name(target.name + ".tmp")
        tmp.write_bytes(data)
        os.replace(tmp, target)
    return path


def _check_layers(tensors: Mapping[str, np.ndarray], rules: Rules, activation: str, play: str,
                  where: str) -> list[tuple[np.ndarray, np.ndarray]]:
    """The layers of ``tensors`` in order, checked to chain from the observation to the actions."""
    if activation not in ACTIVATIONS:
        raise ValueError(f"{where}: activation must be one of {', '.join(ACTIVATIONS)}, "
                         f"got {activation!r}")
    if play not in PLAYS:
        raise ValueError(f"{where}: play must be one of {', '.join(PLAYS)}, got {play!r}")
    n = 0
    while f"layers.{n}.weight" in tensors:
        n += 1
    expected = {f"layers.{i}.{k}" for i in range(n) for k in ("weight", "bias")}
    if n == 0 or set(tensors) != expected:
        raise ValueError(f"{where}: an mlp policy holds layers.0 ... layers.N-1 (.weight and "
                         f".bias) and nothing else; got {sorted(tensors)}")
    out: list[tuple[np.ndarray, np.ndarray]] = []
    width = obs_size(rules)
    for i in range(n):
        w, b = tensors[f"layers.{i}.weight"], tensors[f"layers.{i}.bias"]
        rows = NUM_ACTIONS if i == n - 1 else w.shape[0]
        if w.ndim != 2 or w.shape[1] != width or w.shape[0] != rows or b.shape != (rows,):
            raise ValueError(
                f"{where}: layers.{i} has weight {tuple(w.shape)} and bias {tuple(b.shape)}; it "
                f"reads {width} inputs (the {obs_version(rules)} observation under rules "
                f"{rules.name!r} for the first layer) and the last gives {NUM_ACTIONS} logits")
        if not (np.isfinite(w).all() and np.isfinite(b).all()):
            raise ValueError(f"{where}: layers.{i} holds a non-finite value")
        out.append((w, b))
        width = w.shape[0]
    return out


class MLPPolicyAgent(Agent):
    """An exported MLP policy (:func:`load_mlp_policy`) as an agent."""

    name = "mlp"

    def __init__(self, layers: list[tuple[np.ndarray, np.ndarray]], activation: str, play: str,
                 rules: Rules, seed: Any = None, path: str = "") -> None:
        super().__init__(seed)
        self.layers = layers
        self.activation = np.tanh if activation == "tanh" else (lambda x: np.maximum(x, 0.0))
        self.play = play
        self.rules = rules
        self.path = path

    def logits(self, obs: np.ndarray) -> np.ndarray:
        """The 61 action logits of one observation."""
        x = np.asarray(obs, np.float32)
        for i, (w, b) in enumerate(self.layers):
            x = w @ x + b
            if i < len(self.layers) - 1:
                x = self.activation(x)
        return x

    def _choose(self, obs: np.ndarray, legal: Sequence[int]) -> int:
        legal = list(legal)
        z = self.logits(obs)[legal].astype(np.float64)
        if self.play == "argmax" or len(legal) == 1:
            return int(legal[int(np.argmax(z))])
        p = np.exp(z - z.max())
        return int(legal[int(self.rng.choice(len(legal), p=p / p.sum()))])

    def act(self, view: PlayerView) -> int:
        """The policy's action on ``view`` (one of ``view.legal``)."""
        return self._choose(encode(view), view.legal)

    def act_game(self, game: Any, seat: int) -> int:
        """As :meth:`act`, on the observation the game encodes for ``seat``."""
        return self._choose(game.observation(seat), game.legal_actions())


def load_mlp_policy(path: str | Path, seed: Any = None,
                    rules: str | Rules = "huaihua") -> MLPPolicyAgent:
    """``make_agent("mlp:PATH", seed, rules)``: the agent of an exported MLP policy.

    Raises:
        ValueError: a missing or malformed file or sidecar, tensors that are not the ones the
            sidecar names, or a network trained under other rules than ``rules``.
    """
    path = Path(path)
    if path.suffix != ".safetensors":
        raise ValueError(f"mlp:{path}: name the policy's .safetensors file")
    side = sidecar_of(path)
    if not side.is_file():
        raise ValueError(f"mlp:{path}: no sidecar {side.name} beside it (its rules, activation "
                         "and layers)")
    meta = read_json_record(side, "sidecar", "an mlp policy sidecar", FORMAT)
    try:
        blob = path.read_bytes()
    except OSError as e:
        raise ValueError(f"mlp:{path}: cannot read it: {e.strerror or e}") from None
    if meta.get("weights_sha256") != hashlib.sha256(blob).hexdigest():
        raise ValueError(f"mlp:{path} is not the tensors file its sidecar {side.name} describes "
                         "(SHA-256 differs)")
    if not (isinstance(meta.get("rules"), dict) and isinstance(meta["rules"].get("name"), str)):
        raise ValueError(f"{side} names no rules")
    try:
        own = rules_of_file(meta)
    except (TypeError, ValueError) as e:
        raise ValueError(f"{side} names rules this paohuzi_env cannot build: {e}") from None
    target = as_rules(rules)
    if own.name != target.name or obs_version(own) != obs_version(target) \
            or meta.get("obs_version") != obs_version(own):
        raise ValueError(f"mlp:{path} was trained under rules {own.name!r} "
                         f"({meta.get('obs_version')}); it plays only those, not {target.name!r} "
                         f"({obs_version(target)})")
    tensors = read_safetensors(path)
    layers = _check_layers(tensors, own, str(meta.get("activation")), str(meta.get("play")),
                           f"mlp:{path}")
    return MLPPolicyAgent(layers, meta["activation"], meta["play"], target, seed, str(path))
