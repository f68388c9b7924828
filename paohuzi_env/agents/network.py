"""A trained policy network for the compiled search's playouts, read without torch.

``search:rollout=checkpoint:PATH`` plays the search's worlds out with a network trained by
``paohuzi_training/`` (``paohuzi_env/backends/_core/netpolicy.hpp``: the actor of
``paohuzi_training/model.py``'s ``ActorCritic``, its masked argmax, the prior bot's one-hot when it
was trained with one).
Both actors are read: the two-layer ``mlp`` and the ``conv`` actor (``KindConvActor``: three
width-3 convolutions over the observation's per-kind blocks, then the MLP head).
``PATH`` is a play-only ``.safetensors`` policy with its JSON sidecar (``format:
paohuzi-policy-safetensors-v1``, written by ``python -m paohuzi_training.nets.checkpoint export SRC
NAME.safetensors``); for ``NAME.pt`` the sibling ``NAME.safetensors`` is read.

This module never imports ``paohuzi_training`` nor torch. A policy file is data: it is read with
the ``safetensors`` package's numpy API (:func:`read_safetensors`, the one reader of the format
in ``paohuzi_env``) and anything malformed is refused with a ``ValueError``; loading never runs
code. Only the actor's tensors are kept (``actor.0``/``actor.2``/``actor.4``
``.weight``/``.bias``; for the conv actor ``actor.conv.{0,2,4}`` and ``actor.head.{0,2,4}``), as
float32.

:func:`load_network` caches a network per file (absolute path, size and modification time of
the tensors and of the sidecar), so an agent made per decision does not read it again.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import safetensors.numpy
from safetensors import SafetensorError

from ..bots.base import Agent
from ..encode.features import WAIT_FEATURES, WAITS_VERSION, wait_features, wait_rows
from ..encode.observation import KIND_ROWS, encode, obs_size, obs_version
from ..encode.rewards import NORMALIZER
from ..encode.state import state_extra_size
from ..game.actions import NUM_ACTIONS
from ..game.engine import PlayerView
from ..game.rules import Rules, as_rules, rules_of_file
from .records import read_json_record

SIDECAR_FORMAT = "paohuzi-policy-safetensors-v1"
"""The ``format`` of a policy's JSON sidecar (``paohuzi_training/checkpoint.py``)."""
PRIORS = ("none", "greedy", "expert")
ACTOR_TENSORS = ("actor.0.weight", "actor.0.bias", "actor.2.weight", "actor.2.bias",
                 "actor.4.weight", "actor.4.bias")
CONV_TENSORS = ("actor.conv.0.weight", "actor.conv.0.bias", "actor.conv.2.weight",
                "actor.conv.2.bias", "actor.conv.4.weight", "actor.conv.4.bias",
                "actor.head.0.weight", "actor.head.0.bias", "actor.head.2.weight",
                "actor.head.2.bias", "actor.head.4.weight", "actor.head.4.bias")
ACTORS = ("mlp", "conv")
DTYPES = ("F32", "F64", "F16")
"""The tensor dtypes a network file may hold (read as float32)."""
_CACHE_SIZE = 8


def read_safetensors(path: str | Path) -> dict[str, np.ndarray]:
    """The tensors of a ``.safetensors`` file as float32 arrays (stored as F32, F64 or F16;
    copies), read with the ``safetensors`` package's numpy API (no torch).

    Raises:
        ValueError: if the file is missing, truncated, or not the format (a header that is not
            its JSON, offsets outside the data or not matching the shape, another dtype).
    """
    path = Path(path)
    try:
        blob = path.read_bytes()
    except OSError as e:
        raise ValueError(f"cannot read {path}: {e.strerror or e}") from None
    return _parse_safetensors(blob, str(path))


def _parse_safetensors(blob: bytes, where: str) -> dict[str, np.ndarray]:
    """The tensors of the safetensors bytes ``blob`` (from ``where``) as float32 copies, read by
    ``safetensors.numpy.load``; its errors become ``ValueError`` naming ``where``."""

    def bad(why: str) -> ValueError:
        return ValueError(f"{where} is not a valid safetensors file ({len(blob)} bytes): {why}")

    try:
        raw = safetensors.numpy.load(blob)
    except SafetensorError as e:  # truncated, not the format, bad header or offsets
        raise bad(str(e).removeprefix("Error while deserializing: ")) from None
    except KeyError as e:  # a dtype numpy has no type for (BF16, F8_*, ...)
        raise bad(f"a tensor has dtype {e.args[0]!r}; a network's are one of {', '.join(DTYPES)}") from None
    out: dict[str, np.ndarray] = {}
    for name, arr in raw.items():
        if arr.dtype not in (np.float32, np.float64, np.float16):
            raise bad(f"tensor {name!r} has dtype {arr.dtype}; a network's are one of {', '.join(DTYPES)}")
        out[name] = arr.astype(np.float32)
    return out


@dataclass(frozen=True, eq=False)
class Network:
    """A policy network loaded for the search (:func:`load_network`).

    Attributes:
        path: the ``.safetensors`` file read.
        rules: the rules it was trained under (preset and overrides, from the sidecar).
        obs_version: the observation it reads (``paohuzi-obs-v1`` or ``-v2``).
        hidden: the width of its two hidden layers (of the head, for the conv actor).
        prior: ``none``, ``greedy`` or ``expert`` (the bot whose choice it reads and favours).
        prior_weight: the logit bonus of the prior's choice.
        tensors: the actor's float32 tensors, by name (PyTorch's layout).
        core: the compiled network (``paohuzi_env._fast.NetPolicy``) the search plays out with.
        actor: ``mlp`` or ``conv``.
        conv_channels: the conv actor's channels (0 for the mlp actor).
        waits: it also reads the 80 wait features (:mod:`paohuzi_env.encode.features`) after the
            observation (training's ``wait_features``).
    """

    path: Path
    rules: Rules
    obs_version: str
    hidden: int
    prior: str
    prior_weight: float
    tensors: dict[str, np.ndarray]
    core: Any
    actor: str = "mlp"
    conv_channels: int = 0
    waits: bool = False

    def check_rules(self, rules: str | Rules) -> None:
        """Refuse to play under ``rules`` a network trained for another preset or observation.

        Raises:
            ValueError: naming both.
        """
        rules = as_rules(rules)
        if rules.name != self.rules.name or obs_version(rules) != self.obs_version:
            raise ValueError(
                f"network {self.path} was trained under rules {self.rules.name!r} "
                f"({self.obs_version}); the search plays rules {rules.name!r} "
                f"({obs_version(rules)}): a network plays only the rules it was trained on")


def policy_path(path: str | Path) -> Path:
    """The ``.safetensors`` file that ``checkpoint:PATH`` names: ``PATH`` itself, or for a
    ``.pt`` or ``.json`` name the sibling ``.safetensors``.

    Raises:
        ValueError: if there is no such file (saying how to make one from a ``.pt``).
    """
    p = Path(path)
    if p.suffix in (".pt", ".json"):
        st = p.with_suffix(".safetensors")
        if st.is_file():
            return st
        if p.suffix == ".pt":
            raise ValueError(
                f"the search reads a network from a .safetensors policy (read without torch), "
                f"and {p} has no sibling {st.name}: write one with "
                f"python -m paohuzi_training.nets.checkpoint export {p} {st}")
        raise ValueError(f"sidecar {p} has no policy {st.name} beside it")
    if p.suffix != ".safetensors":
        raise ValueError(f"a network for the search is a .safetensors policy (or a .pt with one "
                         f"beside it), got {p}")
    if not p.is_file():
        raise ValueError(f"policy {p} does not exist")
    return p


def _sidecar(path: Path) -> Path:
    side = path.with_suffix(".json")
    if not side.is_file():
        raise ValueError(f"policy {path} has no sidecar {side.name} (its rules, observation "
                         "version and network shape)")
    return side


def read_sidecar(path: Path) -> dict[str, Any]:
    """The JSON sidecar of the ``.safetensors`` policy ``path``, checked to be one (a
    ``ValueError`` naming the file otherwise); the trainer's loader reads it with this too."""
    side = _sidecar(path)
    return read_json_record(side, "sidecar", "a paohuzi policy sidecar", SIDECAR_FORMAT)



def _sidecar_rules(meta: dict[str, Any], where: Path) -> Rules:
    """The rules of the sidecar: its ``rules`` (name + overrides), else its config's
    (``paohuzi_training/checkpoint.py`` ``checkpoint_rules``)."""
    rules, config = meta.get("rules"), meta.get("config")
    try:
        if (isinstance(rules, dict) and isinstance(rules.get("name"), str)) or (
                isinstance(config, dict) and isinstance(config.get("rules"), str)):
            return rules_of_file(meta)
    except (TypeError, ValueError) as e:
        raise ValueError(f"{where} names rules this paohuzi_env cannot build: {e}") from None
    raise ValueError(f"{where} names no rules")


def _read(path: Path) -> tuple[dict[str, Any], Path, dict[str, np.ndarray], Rules,
                               dict[str, Any]]:
    """The sidecar, its path, the tensors (checked against the sidecar's SHA-256), the rules
    and the training config of the ``.safetensors`` policy ``path``."""
    meta = read_sidecar(path)
    side = path.with_suffix(".json")
    try:
        blob = path.read_bytes()
    except OSError as e:
        raise ValueError(f"cannot read {path}: {e.strerror or e}") from None
    digest = hashlib.sha256(blob).hexdigest()
    if "weights_sha256" in meta and meta["weights_sha256"] != digest:
        raise ValueError(f"{path} is not the tensors file its sidecar {side.name} describes "
                         f"(SHA-256 {digest[:12]}..., the sidecar names "
                         f"{str(meta['weights_sha256'])[:12]}...)")
    tensors = _parse_safetensors(blob, str(path))
    rules = _sidecar_rules(meta, side)
    version = meta.get("obs_version")
    if version != obs_version(rules):
        raise ValueError(f"{side} says observation {version!r}, but its rules {rules.name!r} "
                         f"produce {obs_version(rules)!r}")
    config: dict[str, Any] = meta["config"] if isinstance(meta.get("config"), dict) else {}
    return meta, side, tensors, rules, config


def _waits(meta: dict[str, Any], config: dict[str, Any], side: Path) -> bool:
    """Whether the network reads the wait features (checked to name their version)."""
    waits = config.get("wait_features", False)
    if not isinstance(waits, bool):
        raise ValueError(f"{side}: wait_features must be true or false, got {waits!r}")
    if waits and meta.get("waits_version") != WAITS_VERSION:
        raise ValueError(f"{side}: a network with wait features must name them as waits_version "
                         f"{WAITS_VERSION!r}, got {meta.get('waits_version')!r}")
    return waits


def _load(path: Path) -> Network:
    from ..backends import fast

    meta, side, tensors, rules, config = _read(path)
    version = obs_version(rules)  # the sidecar's, checked by _read
    prior = config.get("prior", "none")
    if prior not in PRIORS:
        raise ValueError(f"{side}: prior must be one of {', '.join(PRIORS)}, got {prior!r}")
    prior_weight = config.get("prior_weight", 0.0)
    if isinstance(prior_weight, bool) or not isinstance(prior_weight, (int, float)) \
            or not np.isfinite(prior_weight):
        raise ValueError(f"{side}: prior_weight must be a finite number, got {prior_weight!r}")
    arch = config.get("actor", "mlp")
    if arch not in ACTORS:
        raise ValueError(f"{side}: actor must be one of {', '.join(ACTORS)}, got {arch!r}")
    conv = arch == "conv"
    names = CONV_TENSORS if conv else ACTOR_TENSORS
    missing = [k for k in names if k not in tensors]
    if missing:
        raise ValueError(f"{path} lacks the {arch} actor's tensors {', '.join(missing)}")
    pre = "actor.head." if conv else "actor."
    b0 = tensors[pre + "0.bias"]
    hidden = b0.shape[0] if b0.ndim == 1 else -1
    if config.get("hidden") not in (None, hidden):
        raise ValueError(f"{side} says hidden {config.get('hidden')}, the tensors have {hidden}")
    waits = _waits(meta, config, side)
    n_obs = obs_size(rules)
    n_in = n_obs + (WAIT_FEATURES if waits else 0)
    rows = [list(r) for r in KIND_ROWS] + (wait_rows(n_obs) if waits else [])
    ain = n_in + (NUM_ACTIONS if prior != "none" else 0)
    want: dict[str, tuple[int, ...]] = {}
    channels = 0
    if conv:
        cb = tensors["actor.conv.0.bias"]
        channels = cb.shape[0] if cb.ndim == 1 else -1
        if config.get("conv_channels") not in (None, channels):
            raise ValueError(f"{side} says conv_channels {config.get('conv_channels')}, the "
                             f"tensors have {channels}")
        cin = 2 * len(rows)
        want.update({"actor.conv.0.weight": (channels, cin, 3), "actor.conv.0.bias": (channels,),
                     "actor.conv.2.weight": (channels, channels, 3),
                     "actor.conv.2.bias": (channels,),
                     "actor.conv.4.weight": (channels, channels, 3),
                     "actor.conv.4.bias": (channels,)})
    head_in = ain + 10 * channels
    want.update({pre + "0.weight": (hidden, head_in), pre + "0.bias": (hidden,),
                 pre + "2.weight": (hidden, hidden), pre + "2.bias": (hidden,),
                 pre + "4.weight": (NUM_ACTIONS, hidden), pre + "4.bias": (NUM_ACTIONS,)})
    for k, shape in want.items():
        if tensors[k].shape != shape:
            raise ValueError(f"tensor {k} of {path} has shape {tensors[k].shape}; a {arch} "
                             f"network for {version}" + (" with wait features" if waits else "")
                             + f" and prior {prior!r} needs {shape}")
        if not np.isfinite(tensors[k]).all():
            raise ValueError(f"tensor {k} of {path} holds a non-finite value")
    actor = {k: np.ascontiguousarray(tensors[k]) for k in names}
    extra: dict[str, Any] = {}
    if conv:
        extra = {"conv_channels": channels, "rows": np.asarray(rows, np.int64),
                 "conv": [actor[k] for k in CONV_TENSORS[:6]]}
    core = fast._require().NetPolicy(
        n_obs, hidden, prior, float(prior_weight), actor[pre + "0.weight"], actor[pre + "0.bias"],
        actor[pre + "2.weight"], actor[pre + "2.bias"], actor[pre + "4.weight"],
        actor[pre + "4.bias"], waits=waits, **extra)
    return Network(path, rules, version, hidden, prior, float(prior_weight), actor, core,
                   arch, channels, waits)


CRITIC_TENSORS = ("critic.0.weight", "critic.0.bias", "critic.2.weight", "critic.2.bias",
                  "critic.4.weight", "critic.4.bias")


@dataclass(frozen=True, eq=False)
class Critic:
    """A network's critic loaded for the search's leaves (:func:`load_critic`).

    Attributes:
        path: the ``.safetensors`` file read.
        rules: the rules it was trained under.
        hidden: the width of its two hidden layers.
        central: it also reads the full-information features
            (:func:`paohuzi_env.encode.state.state_extra`; training's ``central_critic``).
        waits: it reads the 80 wait features after the observation.
        scale: points per unit of its output (64 for the ``normalized`` reward, 1 for ``score``).
        clip: the reward's clip in points (64 for ``normalized``; 0: none).
        baseline: it was trained against the expert baseline (training's ``reward_baseline:
            expert``): its value is the seat's points less the deal's points under three experts.
        core: the compiled critic (``paohuzi_env._fast.NetValue``).
    """

    path: Path
    rules: Rules
    hidden: int
    central: bool
    waits: bool
    scale: float
    clip: float
    baseline: bool
    core: Any

    def check_rules(self, rules: str | Rules) -> None:
        """Refuse ``rules`` other than those it was trained under (a ``ValueError``)."""
        rules = as_rules(rules)
        if rules.name != self.rules.name or obs_version(rules) != obs_version(self.rules):
            raise ValueError(f"critic {self.path} was trained under rules {self.rules.name!r}; "
                             f"the search plays rules {rules.name!r}: a critic values only the "
                             "rules it was trained on")


def _load_critic(path: Path) -> Critic:
    from ..backends import fast

    meta, side, tensors, rules, config = _read(path)
    missing = [k for k in CRITIC_TENSORS if k not in tensors]
    if missing:
        raise ValueError(f"{path} holds no critic ({', '.join(missing)} missing): a leaf value "
                         "needs a network exported with its critic (python -m "
                         "paohuzi_training.nets.checkpoint export without --actor-only)")
    if config.get("prior", "none") != "none":
        raise ValueError(f"{side}: a network trained with a prior has a critic that reads the "
                         "prior's one-hot too; the search's leaves read critics without a prior")
    reward = config.get("reward", "normalized")
    if reward not in ("normalized", "score"):
        raise ValueError(f"{side}: a leaf critic must have learned points (reward normalized or "
                         f"score), got reward {reward!r}")
    base = config.get("reward_baseline", "none")
    if base not in ("none", "expert"):
        raise ValueError(f"{side}: reward_baseline must be none or expert, got {base!r}")
    central = config.get("central_critic", False)
    if not isinstance(central, bool):
        raise ValueError(f"{side}: central_critic must be true or false, got {central!r}")
    waits = _waits(meta, config, side)
    b0 = tensors["critic.0.bias"]
    hidden = b0.shape[0] if b0.ndim == 1 else -1
    n_in = (obs_size(rules) + (WAIT_FEATURES if waits else 0)
            + (state_extra_size(rules) if central else 0))
    want = {"critic.0.weight": (hidden, n_in), "critic.0.bias": (hidden,),
            "critic.2.weight": (hidden, hidden), "critic.2.bias": (hidden,),
            "critic.4.weight": (1, hidden), "critic.4.bias": (1,)}
    for k, shape in want.items():
        if tensors[k].shape != shape:
            raise ValueError(f"tensor {k} of {path} has shape {tensors[k].shape}; the critic of "
                             f"its sidecar's network needs {shape}")
    scale, clip = (NORMALIZER, NORMALIZER) if reward == "normalized" else (1.0, 0.0)
    w = {k: np.ascontiguousarray(tensors[k]) for k in CRITIC_TENSORS}
    core = fast._require().NetValue(
        obs_size(rules), hidden, waits, central, scale, clip, base == "expert",
        w["critic.0.weight"], w["critic.0.bias"], w["critic.2.weight"], w["critic.2.bias"],
        w["critic.4.weight"], w["critic.4.bias"])
    return Critic(path, rules, hidden, central, waits, scale, clip, base == "expert", core)


def packaged_guide(rules: str | Rules) -> Path | None:
    """The search's default guide network for ``rules`` (``search:guide=auto``): the weights of
    the preset's default zoo entry (:func:`paohuzi_env.agents.zoo_index.default_entry`), or None.

    Only a preset's own rules have one: a rule set with overrides (``Rules`` whose fields differ
    from its preset's) gets None, since a network plays only the rules it was trained on.
    """
    from .zoo_index import default_entry

    found = default_entry(rules)
    return None if found is None or not found.weights.is_file() else found.weights


_cache: OrderedDict[tuple, Any] = OrderedDict()
_cache_lock = threading.Lock()


def _cached(path: str | Path, kind: str, load: Any) -> Any:
    """``load(path)`` cached per file and kind (absolute path, size and modification time of the
    tensors and of the sidecar)."""
    p = policy_path(path).resolve()
    try:
        st, ss = os.stat(p), os.stat(_sidecar(p))
    except OSError as e:
        raise ValueError(f"cannot read {p}: {e.strerror or e}") from None
    key = (kind, str(p), st.st_size, st.st_mtime_ns, ss.st_size, ss.st_mtime_ns)
    with _cache_lock:
        got = _cache.get(key)
        if got is not None:
            _cache.move_to_end(key)
    if got is None:
        got = load(p)
        with _cache_lock:
            _cache[key] = got
            while len(_cache) > _CACHE_SIZE:
                _cache.popitem(last=False)
    return got


def load_critic(path: str | Path, rules: str | Rules | None = None) -> Critic:
    """The critic of the network at ``path`` (see :func:`policy_path`: a ``.safetensors``
    exported with its critic, which play-only exports leave out), for the search's leaves
    (``search:leaf=checkpoint:PATH``); checked against ``rules`` when given. Cached as
    :func:`load_network`.

    Raises:
        ValueError: a missing or malformed file, no critic in it, a critic with a prior or of a
            reward that is not points, or one for other rules than ``rules``.
        RuntimeError: when the compiled core is not available.
    """
    critic: Critic = _cached(path, "critic", _load_critic)
    if rules is not None:
        critic.check_rules(rules)
    return critic


def load_network(path: str | Path, rules: str | Rules | None = None) -> Network:
    """The network of the policy at ``path`` (see :func:`policy_path`), checked against
    ``rules`` when given (:meth:`Network.check_rules`).

    Cached per file: the same absolute path, size and modification time (of the tensors and of
    the sidecar) give the same :class:`Network` without reading the file again.

    Raises:
        ValueError: a missing or malformed file, shapes that do not fit the sidecar's rules and
            prior, or a network for other rules than ``rules``.
        RuntimeError: when the compiled core is not available.
    """
    net: Network = _cached(path, "actor", _load)
    if rules is not None:
        net.check_rules(rules)
    return net


class NetworkAgent(Agent):
    """``network:PATH``: a trained policy network (the ``mlp`` or ``conv`` actor of a
    ``.safetensors`` policy, :func:`load_network`) played by its masked argmax, with the
    compiled core's forward pass: no torch, about 0.1 ms a decision for the conv network of
    distillation generation 1 (docs/distill.md).

    The decisions are the argmax of the logits of ``training``'s ``checkpoint:PATH`` agent
    (played greedily) up to float rounding: the core sums in another order, so an action whose
    logit is within about 1e-5 of the best may be taken instead of it. A network with a prior
    reads the prior bot's choice, as it was trained to. Deterministic: no random choice.
    """

    name = "network"

    def __init__(self, path: str | Path, seed: Any = None, rules: str | Rules = "huaihua") -> None:
        super().__init__(seed)
        self.rules = as_rules(rules)
        self.network = load_network(path, self.rules)
        self._prior: Agent | None = None  # the prior bot of act(), made once
        if self.network.prior != "none":
            from ..bots.heuristic import ExpertAgent, GreedyAgent

            bot = ExpertAgent if self.network.prior == "expert" else GreedyAgent
            self._prior = bot(None, self.rules)

    def act_game(self, game: Any, seat: int) -> int:
        """On the compiled core the core encodes the observation itself; elsewhere :meth:`act`."""
        from ..backends import fast

        if isinstance(game, fast.Game) and game.current_player == seat and game.rules == self.rules:
            return int(fast._require().net_policy_action(game._g, self.network.core)[0])
        return self.act(game.view(seat))

    def act(self, view: PlayerView) -> int:
        """The legal action with the highest network logit on ``view`` (ties: the lowest action id)."""
        logits = self._logits(view)
        legal = sorted(view.legal)
        return int(legal[int(np.argmax(logits[legal]))])  # ties: the lowest action id

    def probabilities(self, view: PlayerView) -> dict[int, float]:
        """The network's probability of each legal action on ``view``: the softmax of its logits
        over the legal actions (the distribution whose argmax :meth:`act` plays)."""
        logits = self._logits(view).astype(np.float64)
        legal = sorted(view.legal)
        z = logits[legal] - logits[legal].max()
        p = np.exp(z) / np.exp(z).sum()
        return {int(a): float(q) for a, q in zip(legal, p)}

    def _logits(self, view: PlayerView) -> np.ndarray:
        """The network's logits (61) on ``view``, the prior bot's bonus included."""
        from ..backends import fast

        x = encode(view)
        net = self.network
        if net.waits:
            x = np.concatenate([x, wait_features(view, self.rules)])
        onehot = None
        if self._prior is not None:
            onehot = np.zeros(NUM_ACTIONS, np.float32)
            onehot[self._prior.act(view)] = 1.0
            x = np.concatenate([x, onehot])
        logits = fast._require().net_policy_logits(net.core, x)
        if onehot is not None:
            logits = logits + np.float32(net.prior_weight) * onehot
        return np.asarray(logits)
