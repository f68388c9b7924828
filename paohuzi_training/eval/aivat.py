r"""Variance-reduced evaluation: control variates over the wall's chance events (AIVAT).

``paohuzi-eval ... --variance-reduction aivat`` subtracts from each game's points the sum, over
every card taken from the wall, of

    V(h, c) - sum_k P(k | h) V(h, k)

where ``h`` is everything that happened before the draw (all hands included: the evaluator sees
them), ``c`` the kind drawn and ``P(k | h)`` the share of kind ``k`` among the cards still in the
wall. The deck is shuffled uniformly and no agent sees the wall's order, so given ``h`` the card
is uniform over the wall's cards and each term has expectation zero: the corrected mean is an
unbiased estimate of the same expected points, whatever ``V`` is (Burch et al., "AIVAT", AAAI
2018). A good ``V`` (the points each seat ends the hand with, expected after drawing ``k``)
removes the luck of the draws from the estimate. docs/aivat.md gives the argument in full, and
why the deal and the agents' own decisions add no term here.

The value function is a small MLP over the compiled core's chance features (``_fast.ValueNet``;
``paohuzi_env/backends/_core/chance.hpp``), trained by this module on self-play of the compiled
bots, on deals of its own seeds (never an evaluation's), and fixed before any evaluation:
``paohuzi_env/networks/chance-RULES.safetensors`` with its JSON sidecar. The corrections are
computed in the core (each hand replayed once with a hook at its draws, the network's forward
pass in C++), without the GIL.

Train one (the packaged one was made by this command, recorded in its sidecar)::

    python -m paohuzi_training.eval.aivat train --rules huaihua --hands 200000 --playouts 4 \
        --seed 20261203 --epochs 6 --out paohuzi_env/networks/chance-huaihua.safetensors
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from paohuzi_env.game.rules import Rules, as_rules, preset_names, rules_from_record

from ..nets.files import write_atomic

FORMAT = "paohuzi-chance-value-v1"
"""The ``format`` of a value function's JSON sidecar."""
FEATURES = "paohuzi-chance-v1"
"""The chance features the network reads (``chance.hpp``)."""
METHODS = ("none", "aivat", "aivat-lookahead", "aivat-lookahead2", "aivat-lookahead3")
"""The values of ``paohuzi-eval --variance-reduction``: ``aivat`` values each draw by the
network's output for the card; ``aivat-lookahead`` by the state the hand reaches when the seats
play the card on to the next draw (each seat played by its bot, its network, or ``expert``
standing in for another agent), valued there by the network; ``aivat-lookahead2`` and ``-3`` play
every card of the next one or two draws on as well and let the network value the states two or
three draws ahead (narrower each time, about ten times the work each: for agents whose deals
cost a tenth of a second, or seconds). docs/aivat.md."""
LOOKAHEAD_DEPTH = {"aivat-lookahead": 1, "aivat-lookahead2": 2, "aivat-lookahead3": 3}
"""The draws each lookahead method plays ahead before the network values the state."""
NETWORKS_DIR = Path(__file__).resolve().parents[2] / "paohuzi_env" / "networks"
TENSORS = ("w0", "b0", "w1", "b1", "wg", "wk", "bk", "embed", "w3", "b3")


def _fast() -> Any:
    from paohuzi_env import fast

    if not fast.available():
        raise RuntimeError("variance reduction computes its corrections in the compiled core, "
                           f"which is not built here: {fast.unavailable_reason()}")
    return fast._require()


def packaged_path(rules: str | Rules) -> Path:
    """Where the packaged value function of a rule set lies (it may not exist)."""
    return NETWORKS_DIR / f"chance-{as_rules(rules).name}.safetensors"


class ValueFunction:
    """A fixed value function of the chance events: the core's ``ValueNet`` and what made it."""

    def __init__(self, net: Any, meta: dict[str, Any], path: Path | None) -> None:
        self.net = net
        self.meta = meta
        self.path = path

    @property
    def name(self) -> str:
        """The file it was read from (or ``<memory>``)."""
        return str(self.path) if self.path is not None else "<memory>"

    def corrections(self, games: Sequence[Any], players: Sequence[Sequence[str]] | None = None,
                    depth: int = 1) -> tuple[np.ndarray, np.ndarray]:
        """Per game, the control variate of each seat, (n, 3) points, and its number of draws
        (n,). ``games``: finished (or live) hands of either backend; a Python-engine hand is
        replayed in the core from its deck, dealer and actions. With ``players`` (per game, the
        three seats' agent specs), the draws are valued by the lookahead of ``depth`` draws
        (:data:`LOOKAHEAD_DEPTH` of the method), each seat played by its network
        (:func:`lookahead_network`) or by :func:`lookahead_policy` of its spec.

        Raises:
            ValueError: ``players`` not one per game, or a ``depth`` without them or outside
                1..``_fast.MAX_LOOKAHEAD_DEPTH``.
        """
        core = _fast()
        hands = [core_hand(g) for g in games]
        if players is None:
            if depth != 1:
                raise ValueError("a lookahead depth needs the players of each game")
            return core.chance_corrections(hands, self.net)
        if len(players) != len(hands):
            raise ValueError(f"players must give the seats of each of the {len(hands)} games, "
                             f"got {len(players)}")
        pol = np.array([[lookahead_policy(s) for s in seats] for seats in players], np.int32)
        nets = [[lookahead_network(s) for s in seats] for seats in players]
        return core.chance_corrections(
            hands, self.net, pol.reshape(len(hands), 3), depth=depth,
            networks=nets if any(n is not None for row in nets for n in row) else None)


def control(vf: ValueFunction, method: str, game: Any, seat: int, specs: dict[int, str]) -> float:
    """The control variate of ``seat`` in a finished ``game`` whose seats were played by
    ``specs`` (seat: agent spec), by ``method`` (``aivat`` or a lookahead method of
    :data:`LOOKAHEAD_DEPTH`)."""
    if method == "aivat":
        return float(vf.corrections([game])[0][0, seat])
    if method in LOOKAHEAD_DEPTH:
        return float(vf.corrections([game], [[specs[s] for s in range(3)]],
                                    depth=LOOKAHEAD_DEPTH[method])[0][0, seat])
    raise ValueError(f"method must be one of aivat, {', '.join(LOOKAHEAD_DEPTH)}; got {method!r}")


def lookahead_policy(spec: str) -> int:
    """The bot that plays a seat of agent ``spec`` in the lookahead of ``aivat-lookahead``
    where :func:`lookahead_network` gives none: ``greedy`` for ``greedy``, else ``expert`` (the
    seat's own bot for the bots; for a search or another agent, the bot nearest its play). Any
    fixed choice keeps the estimate unbiased (it is a function of what was seen, never of the
    wall's order); the nearer the agent, the more variance it removes."""
    core = _fast()
    return int(core.LOOKAHEAD_GREEDY if spec.strip() == "greedy" else core.LOOKAHEAD_EXPERT)


def lookahead_network(spec: str) -> Any:
    """The compiled policy network (``_fast.NetPolicy``) that plays a seat of agent ``spec`` in
    the lookahead, or None for a bot: the agent's own network for ``network:PATH``, ``zoo:NAME`` and for
    ``checkpoint:PATH`` with a ``.safetensors`` policy beside it (the same argmax up to float
    rounding, so the copies move as the agent did and the corrections telescope as for the
    bots); None (``expert`` stands in) for a checkpoint without one, a search or anything else.
    Cached per file (:func:`paohuzi_env.agents.network.load_network`).

    Raises:
        ValueError: a ``network:`` policy that does not load, or an unknown zoo name.
    """
    from paohuzi_env.agents import zoo
    from paohuzi_env.agents.network import load_network, policy_path

    prefix, sep, rest = spec.strip().partition(":")
    if sep and prefix == "zoo":
        return load_network(zoo.network_path(rest)).core
    if not sep or prefix not in ("network", "checkpoint"):
        return None
    if prefix == "checkpoint":
        try:
            path = policy_path(rest)
        except ValueError:
            return None
        return load_network(path).core
    return load_network(rest).core


def core_hand(game: Any) -> Any:
    """The compiled hand (``_fast.Game``) of ``game``: itself, a ``fast.Game``'s, or a
    Python-engine hand replayed in the core."""
    core = _fast()
    if isinstance(game, core.Game):
        return game
    inner = getattr(game, "_g", None)
    if isinstance(inner, core.Game):
        return inner
    g = core.Game(game.rules, list(game.deck), int(game.dealer))
    for a in game.actions:
        g.step(int(a))
    return g


_LOADED: dict[tuple[str, int, int], ValueFunction] = {}


def load(path: str | Path, rules: str | Rules | None = None) -> ValueFunction:
    """A value function from its ``.safetensors`` file and JSON sidecar (numpy only; loading
    runs no code). With ``rules``, checks that it covers their kinds of wall card.

    Raises:
        ValueError: a missing or malformed file, a sidecar of another format or features, or
            a network for other rules (with 王 against without).
    """
    path = Path(path)
    side = path.with_suffix(".json")
    try:
        st = path.stat()
    except OSError:
        raise ValueError(f"no value function at {path} (train one with python -m "
                         "paohuzi_training.eval.aivat train --out PATH)") from None
    key = (str(path.resolve()), st.st_size, st.st_mtime_ns)
    vf = _LOADED.get(key)
    if vf is None:
        try:
            meta = json.loads(side.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as e:
            raise ValueError(f"the value function {path} needs its JSON sidecar {side}: {e}") from None
        if not isinstance(meta, dict) or meta.get("format") != FORMAT:
            raise ValueError(f"{side} is not a value function's sidecar (format {FORMAT!r})")
        if meta.get("features") != FEATURES:
            raise ValueError(f"{path} reads features {meta.get('features')!r}; this build computes "
                             f"{FEATURES!r}")
        t = read_safetensors(path)
        missing = [n for n in TENSORS if n not in t]
        if missing:
            raise ValueError(f"{path} lacks the tensors {', '.join(missing)}")
        try:
            kinds, hidden, head = int(meta["kinds"]), int(meta["hidden"]), int(meta["head"])
            scale = float(meta["scale"])
        except (KeyError, TypeError, ValueError):
            raise ValueError(f"{side} must give kinds, hidden, head and scale") from None
        core = _fast()
        net = core.ValueNet(kinds, hidden, head, scale, {n: t[n] for n in TENSORS})
        vf = ValueFunction(net, meta, path)
        _LOADED[key] = vf
    if rules is not None:
        kinds = 21 if as_rules(rules).wang else 20
        if vf.net.kinds != kinds:
            raise ValueError(f"the value function {path} was made for {vf.net.kinds} kinds of wall "
                             f"card; rules {as_rules(rules).name!r} have {kinds} "
                             f"({'with' if kinds == 21 else 'without'} 王)")
    return vf


def for_rules(rules: str | Rules, path: str | Path | None = None) -> ValueFunction:
    """The value function an evaluation under ``rules`` uses: ``path`` if given, else the
    packaged one of the preset, else huaihua's when the rules have no 王 (any fixed function
    keeps the estimate unbiased; one made for the rules removes more variance).

    Raises:
        ValueError: if there is none for these rules.
    """
    rules = as_rules(rules)
    if path is not None:
        return load(path, rules)
    own = packaged_path(rules)
    if own.exists():
        return load(own, rules)
    if not rules.wang and packaged_path("huaihua").exists():
        return load(packaged_path("huaihua"), rules)
    raise ValueError(f"no packaged value function for rules {rules.name!r} (with 王); train one "
                     f"with python -m paohuzi_training.eval.aivat train --rules {rules.name} --out "
                     "PATH and pass --value-function PATH")


# ---- training -------------------------------------------------------------------------------

BOTS = ("expert", "greedy")
"""The players of the training hands: each seat of each hand one of these, uniformly."""


class _BotTicks:
    """Steps every hand of a VectorGame once, each seat played by its bot (``who``: per slot
    and seat an index into :data:`BOTS`); the hands that ended are returned."""

    def __init__(self, vg: Any) -> None:
        n = vg.num_hands
        self.vg = vg
        self.who = np.zeros((n, 3), np.int64)
        self.seat = np.zeros(n, np.int64)
        self.actions = np.zeros(n, np.int64)
        self.done = np.zeros(n, bool)
        self.rewards = np.zeros((n, 3), np.float32)
        self.idx = np.arange(n)

    def tick(self) -> list[int]:
        self.vg.observe(None, None, self.seat, None)
        w = self.who[self.idx, self.seat]
        for k, name in enumerate(BOTS):
            self.vg.policy_actions(name, self.actions, w == k)
        self.vg.step(self.actions, self.rewards, self.done)
        return np.flatnonzero(self.done).tolist()


def self_play(rules: Rules, hands: int, seed: int, slots: int = 256) -> tuple[list[Any], np.ndarray]:
    """``hands`` finished compiled hands of the bots dealt by a VectorGame of seed ``seed``, and
    each hand's seat players (indices into :data:`BOTS`, drawn from ``SeedSequence([seed, 1])``)."""
    from paohuzi_env import fast

    _fast()
    vg = fast.VectorGame(slots, rules, seed=seed)
    rng = np.random.default_rng(np.random.SeedSequence([seed, 1]))
    bots = _BotTicks(vg)
    bots.who[:] = rng.integers(0, len(BOTS), size=bots.who.shape)
    out: list[Any] = []
    players: list[np.ndarray] = []
    while len(out) < hands:
        for h in bots.tick():
            last = vg.last_hand(h)
            assert last is not None
            out.append(last[0]._g)
            players.append(bots.who[h].copy())
            bots.who[h] = rng.integers(0, len(BOTS), size=3)
    return out[:hands], np.array(players[:hands], dtype=np.int64).reshape(-1, 3)


def dataset(rules: Rules, games: Sequence[Any], players: np.ndarray, playouts: int, seed: int,
            slots: int = 512) -> dict[str, np.ndarray]:
    """Every draw of the hands, with its target: the points of (drawer, next, previous),
    averaged over ``playouts`` endings of the hand from just after that draw, the rest of the
    wall shuffled afresh each time (generator ``SeedSequence([seed, 2])``) and each seat played
    by the hand's own bot. Far less noisy than the one ending the hand had; still unbiased for
    the value the network learns (the expected points given the history and the card)."""
    from paohuzi_env import fast

    core = _fast()
    feats, probs, drawer, card, gi, step, pos = core.chance_dataset(list(games))
    n_ev = len(card)
    rng = np.random.default_rng(np.random.SeedSequence([seed, 2]))
    total = np.zeros((n_ev, 3), np.float64)
    vg = fast.VectorGame(slots, rules, seed=seed)
    n = vg.num_hands
    slot_event: list[int | None] = [None] * n
    bots = _BotTicks(vg)
    todo = ((e, r) for e in range(n_ev) for r in range(playouts))

    def after_draw(e: int) -> Any:
        g = games[int(gi[e])]
        deck = list(g.deck)
        q = int(pos[e]) + 1  # the drawn card stays; the cards after it are shuffled
        tail = deck[q:]
        rng.shuffle(tail)
        deck[q:] = tail
        h = core.Game(rules, deck, g.dealer)
        for a in g.actions[:int(step[e]) + 1]:  # the actions never read the unrevealed wall
            h.step(a)
        return h

    def fill(i: int) -> None:
        for e, _r in todo:
            h = after_draw(e)
            if h.done:
                total[e] += h.scores
                continue
            vg._v.set_hand(i, h, 0)
            slot_event[i] = e
            bots.who[i] = players[int(gi[e])]
            return
        slot_event[i] = None
        bots.who[i] = 0

    for i in range(n):
        fill(i)
    while any(e is not None for e in slot_event):
        for h in bots.tick():
            e = slot_event[h]
            if e is None:
                continue
            total[e] += vg._v.last_hand(h)[0].scores
            fill(h)
    total /= playouts
    rel = np.stack([total[np.arange(n_ev), (drawer + r) % 3] for r in range(3)], axis=1)
    return {"x": feats, "card": card, "y": rel.astype(np.float32)}


def _dataset_job(args: tuple) -> dict[str, np.ndarray]:
    rules, hands, playouts, seed = args
    games, players = self_play(rules, hands, seed)
    return dataset(rules, games, players, playouts, seed)


SCALE = 10.0
"""The network's outputs are points / SCALE (a raw output of 1 is ten points)."""


class _Model:
    """The torch twin of the core's ``ValueNet`` (``chance.hpp``): a trunk over the chance
    features, and a head shared by the kinds over the trunk's output and each kind's inputs."""

    def __init__(self, kinds: int, hidden: int, head: int) -> None:
        import torch
        from torch import nn

        core = _fast()
        idx = torch.from_numpy(core.chance_kind_index(kinds).astype(np.int64))
        n = core.CHANCE_FEATURES
        # the features padded with a 0 (index n) and a 1 (n + 1): -1 -> n, -2 -> n + 1
        self.index = torch.where(idx >= 0, idx, torch.where(idx == -1, n, n + 1))
        self.kinds = kinds
        self.imm_at, self.points = int(core.CHANCE_IMMEDIATE_AT), float(core.CHANCE_POINTS)
        self.trunk = nn.Sequential(nn.Linear(n, hidden), nn.ReLU(), nn.Linear(hidden, hidden),
                                   nn.ReLU())
        self.wg = nn.Linear(hidden, head)  # its bias is bk
        self.wk = nn.Linear(self.index.shape[1], head, bias=False)
        self.embed = nn.Parameter(torch.zeros(kinds, head))
        self.out = nn.Linear(head, 3)
        self.modules = nn.ModuleList([self.trunk, self.wg, self.wk, self.out])

    def parameters(self) -> list[Any]:
        return [*self.modules.parameters(), self.embed]

    def train(self, on: bool = True) -> None:
        self.modules.train(on)

    def __call__(self, x: Any, kinds: Any = None) -> Any:
        """(n, kinds, 3) for every kind, or (n, 3) for the given kind of each row (SCALE points)."""
        import torch

        g = self.wg(self.trunk(x))  # (n, head)
        xp = torch.cat([x, torch.zeros(len(x), 1), torch.ones(len(x), 1)], dim=1)
        # the engine's exact immediate outcomes, added to the head's output (in SCALE points)
        imm = x[:, self.imm_at:self.imm_at + 3 * self.kinds].reshape(len(x), self.kinds, 3)
        imm = imm * (self.points / SCALE)
        if kinds is None:
            phi = xp[:, self.index]  # (n, kinds, CHANCE_KIND)
            z = torch.relu(g[:, None, :] + self.wk(phi) + self.embed[None])
            return self.out(z) + imm
        rows = torch.arange(len(x))
        phi = xp[rows[:, None], self.index[kinds]]  # (n, CHANCE_KIND)
        z = torch.relu(g + self.wk(phi) + self.embed[kinds])
        return self.out(z) + imm[rows, kinds]

    def _named(self) -> list[tuple[str, Any]]:
        """The parameters by their names in the core's layout (``chance.hpp`` ValueWeights)."""
        return [("w0", self.trunk[0].weight), ("b0", self.trunk[0].bias),
                ("w1", self.trunk[2].weight), ("b1", self.trunk[2].bias),
                ("wg", self.wg.weight), ("bk", self.wg.bias), ("wk", self.wk.weight),
                ("embed", self.embed), ("w3", self.out.weight), ("b3", self.out.bias)]

    def load(self, t: dict[str, np.ndarray]) -> None:
        """Set the weights from the core's layout (:meth:`tensors`)."""
        import torch

        with torch.no_grad():
            for name, param in self._named():
                if tuple(param.shape) != tuple(t[name].shape):
                    raise ValueError(f"tensor {name} has shape {tuple(t[name].shape)}, the model "
                                     f"{tuple(param.shape)}")
                param.copy_(torch.from_numpy(np.asarray(t[name], np.float32)))

    def tensors(self) -> dict[str, np.ndarray]:
        """The weights in the layout the core's ``ValueNet`` reads."""
        return {name: p.detach().numpy().astype(np.float32) for name, p in self._named()}


def fit(data: dict[str, np.ndarray], kinds: int, *, hidden: int = 256, head: int = 64,
        epochs: int = 8, batch: int = 2048, lr: float = 1e-3, seed: int = 0,
        progress: bool = True,
        valid: dict[str, np.ndarray] | None = None) -> tuple[dict[str, np.ndarray], list[dict]]:
    """Train the value network on ``data`` (from :func:`dataset`): its output for the drawn
    kind regresses on the draw's target points (mean squared error, so it learns their
    expectation given the history and the card). Returns the tensors (numpy, PyTorch layout)
    and a log of the epochs (train and validation mean squared error, points squared)."""
    import torch

    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    model = _Model(kinds, hidden, head)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    x = torch.from_numpy(data["x"])
    card = torch.from_numpy(data["card"].astype(np.int64))
    y = torch.from_numpy(data["y"]) / SCALE
    n = len(x)
    steps = epochs * math.ceil(n / batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps)
    log: list[dict] = []
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=steps, desc="value net", unit="batch", file=sys.stderr, leave=False)
    for epoch in range(epochs):
        perm = torch.randperm(n, generator=gen)
        total = 0.0
        model.train()
        for i in range(0, n, batch):
            j = perm[i:i + batch]
            loss = ((model(x[j], card[j]) - y[j]) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += loss.item() * len(j)
            if bar:
                bar.update(1)
        entry = {"epoch": epoch + 1, "train_mse": total / n * SCALE ** 2}
        if valid is not None:
            model.train(False)
            with torch.no_grad():
                vy = torch.from_numpy(valid["y"]) / SCALE
                vp = model(torch.from_numpy(valid["x"]),
                           torch.from_numpy(valid["card"].astype(np.int64)))
                entry["valid_mse"] = float(((vp - vy) ** 2).mean()) * SCALE ** 2
                entry["valid_var"] = float(vy.var()) * SCALE ** 2
        log.append(entry)
    if bar:
        bar.close()
    return model.tensors(), log


def read_safetensors(path: str | Path) -> dict[str, np.ndarray]:
    """The tensors of a ``.safetensors`` file, as numpy arrays (the ``safetensors`` package's
    numpy API: no torch, and loading runs no code).

    Raises:
        ValueError: a missing, corrupt or non-safetensors file.
    """
    from safetensors.numpy import load as st_load

    try:
        return st_load(Path(path).read_bytes())
    except OSError as e:
        raise ValueError(f"cannot read {path}: {e}") from None
    except Exception as e:  # the package raises its own error for a malformed file
        raise ValueError(f"{path} is corrupt or not a safetensors file: {e}") from None


def write_safetensors(path: str | Path, tensors: dict[str, np.ndarray]) -> None:
    """``tensors`` (as float32) as a ``.safetensors`` file, written atomically (the
    ``safetensors`` package's numpy API)."""
    from safetensors.numpy import save as st_save

    blob = st_save({name: np.ascontiguousarray(tensors[name], dtype="<f4") for name in sorted(tensors)})
    write_atomic(path, blob)


def save(path: str | Path, tensors: dict[str, np.ndarray], meta: dict[str, Any]) -> None:
    """The value function's ``.safetensors`` and its JSON sidecar (the sidecar last: a reader
    that finds both finds a whole pair)."""
    path = Path(path)
    write_safetensors(path, tensors)
    write_atomic(path.with_suffix(".json"),
                 (json.dumps(meta, indent=2, ensure_ascii=False) + "\n").encode("utf-8"))


def train(rules: str | Rules, hands: int, seed: int, out: str | Path, *, playouts: int = 4,
          hidden: int = 256, head: int = 64, epochs: int = 8, workers: int | None = None,
          progress: bool = True) -> dict[str, Any]:
    """Self-play ``hands`` hands of the bots, value each draw by ``playouts`` endings
    (:func:`dataset`), fit the value network on 95% of the draws (the rest its validation) and
    save it to ``out``. Everything is seeded by ``seed`` (jobs of 2,000 hands, job ``j`` of seed
    ``seed * 1000 + j``); the deals are VectorGame deals, never an evaluation's. Returns the
    sidecar."""
    import os
    from multiprocessing import get_context

    rules = as_rules(rules)
    if hands < 10:
        raise ValueError(f"hands must be at least 10, got {hands}")
    if playouts < 1:
        raise ValueError(f"playouts must be at least 1, got {playouts}")
    start = time.perf_counter()
    per = 2000
    jobs = [(rules, min(per, hands - i), playouts, seed * 1000 + j)
            for j, i in enumerate(range(0, hands, per))]
    workers = max(1, min(workers or os.cpu_count() or 1, len(jobs)))
    parts: list[dict[str, np.ndarray]] = []
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=hands, desc="value targets", unit="hand", file=sys.stderr, leave=False)
    if workers == 1:
        for job in jobs:
            parts.append(_dataset_job(job))
            if bar:
                bar.update(job[1])
    else:
        from .pools import one_torch_thread

        with get_context("fork").Pool(workers, initializer=one_torch_thread) as pool:
            for job, part in zip(jobs, pool.imap(_dataset_job, jobs)):
                parts.append(part)
                if bar:
                    bar.update(job[1])
    if bar:
        bar.close()
    data = {k: np.concatenate([p[k] for p in parts]) for k in ("x", "card", "y")}
    cut = max(1, int(len(data["card"]) * 0.95))
    train_d = {k: v[:cut] for k, v in data.items()}
    valid_d = {k: v[cut:] for k, v in data.items()}
    kinds = 21 if rules.wang else 20
    tensors, log = fit(train_d, kinds, hidden=hidden, head=head, epochs=epochs, seed=seed,
                       progress=progress, valid=valid_d if len(valid_d["card"]) else None)
    meta = {
        "format": FORMAT, "features": FEATURES, "kinds": kinds, "hidden": hidden, "head": head,
        "scale": SCALE, "rules": rules.to_record(),
        "trained_on": {"players": list(BOTS), "hands": hands, "playouts": playouts, "seed": seed,
                       "draws": int(len(data["card"])),
                       "deals": f"VectorGame deals of seeds {seed * 1000}.. (an evaluation deals "
                                "from SeedSequence([seed, deal]): never these)"},
        "epochs": log, "wall_seconds": round(time.perf_counter() - start, 1),
        "command": (f"python -m paohuzi_training.eval.aivat train --rules {rules.name} --hands {hands} "
                    f"--playouts {playouts} --seed {seed} --hidden {hidden} --head {head} "
                    f"--epochs {epochs} --out {out}"),
    }
    save(out, tensors, meta)
    return meta


def _lookahead_rows(core: Any, games: Sequence[Any], net: Any, policies: np.ndarray,
                    threads: int, desc: str | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The features, probabilities and lookahead values of every draw of ``games``
    (``chance_lookahead_dataset``), in chunks of 1,000 hands with a progress bar when ``desc``."""
    bar = None
    if desc:
        from tqdm import tqdm

        bar = tqdm(total=len(games), desc=desc, unit="hand", file=sys.stderr, leave=False)
    parts = []
    for i in range(0, len(games), 1000):
        parts.append(core.chance_lookahead_dataset(games[i:i + 1000], net, policies[i:i + 1000],
                                                   threads)[:3])
        if bar:
            bar.update(len(games[i:i + 1000]))
    if bar:
        bar.close()
    return tuple(np.concatenate([q[j] for q in parts]) for j in range(3))  # type: ignore[return-value]


def _errors(model: _Model, x: Any, p: Any, y: Any) -> list[float]:
    """[squared error of the expectation, probability-weighted squared error of the kinds] of
    ``model`` on rows ``x`` with probabilities ``p`` (n, kinds, 1) and targets ``y`` (SCALE
    points), in points squared."""
    import torch

    model.train(False)
    with torch.no_grad():
        d = model(x) - y
        return [float(((d * p).sum(1) ** 2).mean()) * SCALE ** 2,
                float(((d ** 2) * p).sum(1).mean()) * SCALE ** 2]


def refine(init: str | Path, hands: int, seed: int, out: str | Path, *, iters: int = 2,
           epochs: int = 5, lr: float = 3e-4, threads: int | None = None,
           progress: bool = True) -> dict[str, Any]:
    """Make the value function ``init`` consistent with its own one-draw lookahead (fitted value
    iteration; what ``aivat-lookahead`` needs, docs/aivat.md) and save it to ``out``.

    Each of ``iters`` rounds self-plays ``hands`` fresh hands of the bots (seed ``seed * 100 +
    round``: VectorGame deals, never an evaluation's), computes at every draw the lookahead value
    of each kind under the current network (:func:`_fast.chance_lookahead_dataset`: the hand's
    own bots play the card on to the next draw, where the network values the state; exact where
    the hand ends first) and fits the network to them: the squared error of each kind weighted by
    its probability, plus the squared error of their expectation (the term a correction is left
    with). The targets are exact given the network, so nothing is averaged away; the rounds carry
    the consistency back over the hand. Returns the sidecar."""
    import os

    if hands < 10:
        raise ValueError(f"hands must be at least 10, got {hands}")
    if iters < 1 or epochs < 1:
        raise ValueError(f"iters and epochs must be at least 1, got {iters} and {epochs}")
    src = load(init)
    meta0 = src.meta
    kinds, hidden, head = src.net.kinds, int(meta0["hidden"]), int(meta0["head"])
    rules = rules_from_record(meta0["rules"]) if "rules" in meta0 else as_rules("huaihua")

    import torch
    core = _fast()
    threads = threads or os.cpu_count() or 1
    start = time.perf_counter()
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    model = _Model(kinds, hidden, head)
    model.load(read_safetensors(Path(init)))
    bot_policy = np.array([core.LOOKAHEAD_EXPERT if b == "expert" else core.LOOKAHEAD_GREEDY
                           for b in BOTS], np.int32)
    log: list[dict[str, Any]] = []
    for it in range(iters):
        games, players = self_play(rules, hands, seed * 100 + it)
        net = core.ValueNet(kinds, hidden, head, SCALE, model.tensors())
        x, p, y = _lookahead_rows(core, games, net, bot_policy[players], threads,
                                  f"lookahead targets {it + 1}/{iters}" if progress else None)
        xt, pt, yt = torch.from_numpy(x), torch.from_numpy(p)[:, :, None], torch.from_numpy(y) / SCALE
        n = len(xt)
        cut = max(1, int(n * 0.95))

        valid = slice(cut, n)
        entry: dict[str, Any] = {"round": it + 1, "draws": n,
                                 "valid_before": _errors(model, xt[valid], pt[valid], yt[valid])}
        opt = torch.optim.Adam(model.parameters(), lr=lr)
        bar = None
        if progress:
            from tqdm import tqdm

            bar = tqdm(total=epochs * math.ceil(cut / 1024), desc=f"refine round {it + 1}",
                       unit="batch", file=sys.stderr, leave=False)
        for _ in range(epochs):
            model.train(True)
            perm = torch.randperm(cut, generator=gen)
            for i in range(0, cut, 1024):
                j = perm[i:i + 1024]
                d = model(xt[j]) - yt[j]
                loss = ((d ** 2) * pt[j]).sum(1).mean() + ((d * pt[j]).sum(1) ** 2).mean()
                opt.zero_grad()
                loss.backward()
                opt.step()
                if bar:
                    bar.update(1)
        if bar:
            bar.close()
        entry["valid_after"] = _errors(model, xt[valid], pt[valid], yt[valid])
        log.append(entry)
    meta = {
        **{k: v for k, v in meta0.items() if k not in ("command", "wall_seconds", "refined")},
        # the earlier refinements of the function it started from, oldest first
        "refined_before": [*meta0.get("refined_before", []),
                           *([meta0["refined"]] if "refined" in meta0 else [])],
        "refined": {"from": str(init), "from_command": meta0.get("command"), "hands": hands,
                    "iters": iters, "epochs": epochs, "lr": lr, "seed": seed,
                    "deals": f"VectorGame deals of seeds {seed * 100}.. (never an evaluation's)",
                    "rounds": log, "wall_seconds": round(time.perf_counter() - start, 1)},
        "command": (f"python -m paohuzi_training.eval.aivat refine --init {init} --hands {hands} "
                    f"--iters {iters} --epochs {epochs} --seed {seed} --out {out}"),
    }
    save(out, model.tensors(), meta)
    return meta


def main(argv: list[str] | None = None) -> int:
    """``python -m paohuzi_training.eval.aivat train|refine ...``: make a value function, or make
    one consistent with its own lookahead.

    Returns:
        The exit status: 2 for bad options, else 0.
    """
    p = argparse.ArgumentParser(prog="python -m paohuzi_training.eval.aivat", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    t = sub.add_parser("train", help="self-play the bots and fit a value function")
    t.add_argument("--rules", default="huaihua", help=f"preset: {', '.join(preset_names())}")
    t.add_argument("--hands", type=int, default=120_000)
    t.add_argument("--seed", type=int, default=20261203,
                   help="the self-play's deals and the fit (never an evaluation seed's deals)")
    t.add_argument("--playouts", type=int, default=4, help="endings averaged per draw")
    t.add_argument("--hidden", type=int, default=256)
    t.add_argument("--head", type=int, default=64)
    t.add_argument("--epochs", type=int, default=8)
    t.add_argument("--workers", type=int, default=None, help="processes (default: all cores)")
    t.add_argument("--out", required=True, help="the .safetensors to write (and its .json)")
    t.add_argument("--no-progress", action="store_true")
    r = sub.add_parser("refine", help="make a value function consistent with its own lookahead "
                                      "(for --variance-reduction aivat-lookahead)")
    r.add_argument("--init", required=True, help="the value function to start from (.safetensors)")
    r.add_argument("--hands", type=int, default=80_000, help="fresh self-play hands a round")
    r.add_argument("--iters", type=int, default=2, help="rounds")
    r.add_argument("--epochs", type=int, default=5, help="passes over each round's draws")
    r.add_argument("--seed", type=int, default=20261204,
                   help="the self-play's deals and the fit (never an evaluation seed's deals)")
    r.add_argument("--threads", type=int, default=None, help="threads (default: all cores)")
    r.add_argument("--out", required=True, help="the .safetensors to write (and its .json)")
    r.add_argument("--no-progress", action="store_true")
    a = p.parse_args(argv)
    if a.cmd == "refine":
        try:
            if not str(a.out).endswith(".safetensors"):
                raise ValueError(f"--out must name a .safetensors file, got {a.out!r}")
            meta = refine(a.init, a.hands, a.seed, a.out, iters=a.iters, epochs=a.epochs,
                          threads=a.threads, progress=not a.no_progress)
        except ValueError as e:
            print(f"python -m paohuzi_training.eval.aivat: error: {e}", file=sys.stderr)
            return 2
        last = meta["refined"]["rounds"][-1]
        print(f"wrote {a.out} ({a.iters} rounds of {a.hands} hands; last round's validation "
              f"error of the expectation {last['valid_before'][0]:.2f} -> "
              f"{last['valid_after'][0]:.2f} points², {meta['refined']['wall_seconds']:.0f} s)")
        return 0
    try:
        if min(a.hidden, a.head, a.epochs) < 1:
            raise ValueError(f"--hidden, --head and --epochs must be at least 1, got {a.hidden}, "
                             f"{a.head}, {a.epochs}")
        if not str(a.out).endswith(".safetensors"):
            raise ValueError(f"--out must name a .safetensors file, got {a.out!r}")
        meta = train(a.rules, a.hands, a.seed, a.out, playouts=a.playouts, hidden=a.hidden,
                     head=a.head, epochs=a.epochs, workers=a.workers, progress=not a.no_progress)
    except ValueError as e:
        print(f"python -m paohuzi_training.eval.aivat: error: {e}", file=sys.stderr)
        return 2
    last = meta["epochs"][-1]
    print(f"wrote {a.out} ({meta['trained_on']['draws']} draws of {a.hands} hands; validation "
          f"MSE {last.get('valid_mse', float('nan')):.2f} of variance "
          f"{last.get('valid_var', float('nan')):.2f} points², {meta['wall_seconds']:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
