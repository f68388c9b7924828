"""Labelled decisions from the search: ``python -m paohuzi_training.stages.label OUT --hands N [...]``.

Plays hands with a ``search`` agent (``--search search`` or ``search:samples=...``) in the seats
you choose (``--seats``; the others play ``--others``, the compiled ``expert`` by default) and,
for every decision of a search seat with more than one legal action, writes

* ``obs`` — the seat's observation (float32, ``obs_size(rules)``, the networks' input);
* ``waits`` — the seat's wait features (float32, 80, :mod:`paohuzi_env.encode.features`), the input of a
  network trained with ``wait_features``; shards written before they were stored lack them, and
  ``python -m paohuzi_training.stages.label OUT --add-waits`` adds them by replaying the run's hands;
* ``mask`` — the legal actions (bool, 61);
* ``mean``, ``se`` — the search's mean outcome (the seat's points at the end of the hand) of each
  legal action over its sampled worlds and the standard error of that mean (float32, 61; NaN
  for illegal actions and where the search did not search: a win it takes at once);
* ``worlds`` — the worlds behind those means;
* ``action`` — the action the search chose (and played);
* ``points`` — the seat's final points in the hand, and ``scores`` — all three seats';
* ``seat``, ``decision`` (0 tianhu, 1 hu, 2 claim, 3 bi, 4 discard, as ``VectorGame.observe``),
  ``hand`` (the hand's number in the run) and ``step`` (the decision's number in the hand).

Hands go into shards of ``--shard-hands`` hands, one ``.npz`` file each (``shard-00000.npz``, ...;
read them with :func:`load_labels`, no pickle). Hand ``h`` is dealt and searched from
``SeedSequence([seed, h])`` alone, so a shard's content depends only on the run's settings and
its number: not on the worker count, nor on whether the run was interrupted. A run is resumable:
started again on the same directory with the same settings (kept in ``labels.json``) it skips
finished shards. Each shard is written to a temporary file, fsynced, then renamed into place
(``os.replace``) and the directory fsynced, so a killed run (SIGKILL, power loss) leaves either
the whole shard or no shard under its name; the next run removes the temporary files of killed
runs. One run per directory at a time (an exclusive lock on ``OUT/.lock``).

The search is asked through its agent (:func:`paohuzi_env.agents.make_agent`): ``act_game``
decides and ``agent.last`` holds ``means`` and ``ses`` per legal action and ``worlds``. The
compiled search (``impl=core``, issue 25) plugs in through the same agent; where a search
reports no standard errors, ``se`` is NaN (a warning says so).
"""

from __future__ import annotations

import argparse
import io
import json
import math
import multiprocessing
import os
import sys
import time
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import numpy as np

from paohuzi_env.agents import decide, make_agent
from paohuzi_env.apps.helptext import plain_text
from paohuzi_env.bots.registry import bot_names
from paohuzi_env.encode.features import WAIT_FEATURES
from paohuzi_env.encode.observation import obs_size, obs_version
from paohuzi_env.game.actions import NUM_ACTIONS
from paohuzi_env.game.rules import Rules, get_rules, preset_names, rules_of_file

from ..eval.pools import one_torch_thread
from ..nets.files import write_atomic

FORMAT = "paohuzi-labels-v1"
DECISIONS = ("tianhu", "hu", "claim", "bi", "discard")
"""Decision kinds by code (the codes of :meth:`paohuzi_env.backends.fast.VectorGame.observe`)."""
COMPILED = bot_names(exact=True)
"""The bots whose compiled twins take their decisions exactly (the core plays them)."""
META = "labels.json"
POLL_S = 0.5
"""How often the parent of worker processes updates the progress bar (seconds)."""
"""Test-only: ``SHARD:PATH`` makes the run that writes shard ``SHARD`` stop half way through
writing its temporary file, create ``PATH`` and sleep (tests/test_label.py kills it there)."""


@dataclass(frozen=True)
class LabelConfig:
    """The settings of a labelling run (all of them shape the data; kept in ``labels.json``)."""

    hands: int = 1000
    search: str = "search:guide=none"
    seats: tuple[int, ...] = (0, 1, 2)
    others: str = "expert"
    rules: str = "huaihua"
    seed: int = 0
    shard_hands: int = 50

    def check(self) -> None:
        """Raises ValueError naming a bad setting and what is allowed."""
        if self.hands < 1 or self.shard_hands < 1:
            raise ValueError(f"hands and shard_hands must be at least 1, got hands={self.hands}, "
                             f"shard_hands={self.shard_hands}")
        if not self.search.partition(":")[0] == "search":
            raise ValueError(f"--search must be a search spec (search or search:OPTIONS), got "
                             f"{self.search!r}")
        if not self.seats or any(s not in (0, 1, 2) for s in self.seats) or \
                len(set(self.seats)) != len(self.seats):
            raise ValueError(f"seats must be distinct seats among 0, 1, 2, got {list(self.seats)}")
        if self.seed < 0:
            raise ValueError(f"seed must be >= 0, got {self.seed}")
        rules = get_rules(self.rules)  # names the presets when unknown
        make_agent(self.search, seed=0, rules=rules)  # a bad option fails here, with its message
        if len(self.seats) < 3:
            make_agent(self.others, seed=0, rules=rules)

    @property
    def shards(self) -> int:
        """Shards of ``shard_hands`` hands that hold ``hands`` hands (the last may be short)."""
        return math.ceil(self.hands / self.shard_hands)

    def meta(self) -> dict[str, Any]:
        """The run's metadata, stored in every shard: format, observation version and size, config."""
        rules = get_rules(self.rules)
        d = asdict(self)
        d["seats"] = list(self.seats)
        return {"format": FORMAT, "obs_version": obs_version(rules), "obs_size": obs_size(rules),
                "config": d}


@dataclass
class _Rows:
    obs: list[np.ndarray] = field(default_factory=list)
    waits: list[np.ndarray] = field(default_factory=list)
    mask: list[np.ndarray] = field(default_factory=list)
    mean: list[np.ndarray] = field(default_factory=list)
    se: list[np.ndarray] = field(default_factory=list)
    worlds: list[int] = field(default_factory=list)
    action: list[int] = field(default_factory=list)
    seat: list[int] = field(default_factory=list)
    decision: list[int] = field(default_factory=list)
    hand: list[int] = field(default_factory=list)
    step: list[int] = field(default_factory=list)
    points: list[int] = field(default_factory=list)
    scores: list[tuple[int, int, int]] = field(default_factory=list)


_warned_se = False


def _stats(last: dict[str, Any], legal: Sequence[int]) -> tuple[np.ndarray, np.ndarray, int]:
    """The search's per-action means and standard errors as arrays over the 61 actions."""
    global _warned_se
    mean = np.full(NUM_ACTIONS, np.nan, np.float32)
    se = np.full(NUM_ACTIONS, np.nan, np.float32)
    means = last.get("means") or {}
    ses = last.get("ses")
    if ses is None and means and not _warned_se:
        warnings.warn("this search reports no standard errors (agent.last has no 'ses'); "
                      "the labels' se is NaN", RuntimeWarning, stacklevel=2)
        _warned_se = True
    for a in legal:
        if a in means:
            mean[a] = means[a]
            if ses is not None and a in ses:
                se[a] = ses[a]
    return mean, se, int(last.get("worlds", 0))


def play_hand(cfg: LabelConfig, h: int, rows: _Rows) -> None:
    """Play hand ``h`` of the run, appending a row per decision with a choice of a search seat."""
    from paohuzi_env import fast

    rules = get_rules(cfg.rules)
    deal_ss, *seat_ss = np.random.SeedSequence([cfg.seed, h]).spawn(4)
    game = fast.Game(rules, seed=deal_ss)
    agents = {s: make_agent(cfg.search if s in cfg.seats else cfg.others, seed=seat_ss[s],
                            rules=rules)
              for s in range(3) if s in cfg.seats or cfg.others not in COMPILED}
    first = len(rows.action)
    step = 0
    while not game.done:
        s = game.current_player
        assert s is not None
        if s in cfg.seats:
            legal = game.legal_actions()
            if len(legal) == 1:
                a = legal[0]  # no choice: the search would not search (nor draw) either
            else:
                obs = game.observation(s)
                mask = game.action_mask(s) != 0
                agent = agents[s]
                a = agent.act_game(game, s)
                mean, se, worlds = _stats(getattr(agent, "last", {}), legal)
                rows.obs.append(obs)
                rows.waits.append(game.wait_features(s))
                rows.mask.append(mask)
                rows.mean.append(mean)
                rows.se.append(se)
                rows.worlds.append(worlds)
                rows.action.append(int(a))
                rows.seat.append(s)
                rows.decision.append(DECISIONS.index(str(game.decision)))
                rows.hand.append(h)
                rows.step.append(step)
        elif cfg.others in COMPILED:
            a = game.expert_action() if cfg.others == "expert" else game.greedy_action()
        else:
            a = decide(agents[s], game, s)
        game.step(a)
        step += 1
    r = game.result
    assert r is not None
    for i in range(first, len(rows.action)):
        rows.points.append(int(r.scores[rows.seat[i]]))
        rows.scores.append((int(r.scores[0]), int(r.scores[1]), int(r.scores[2])))


def _lock(out: Path) -> Any:
    """The run's exclusive lock (``OUT/.lock``), held until the returned file is closed.

    Raises:
        RuntimeError: when another run holds it."""
    import fcntl

    lock = open(out / ".lock", "a")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        lock.close()
        raise RuntimeError(f"another labelling run is writing into {out}") from None
    return lock


def shard_path(out: Path, k: int) -> Path:
    """The file of shard ``k`` in the run directory ``out``."""
    return out / f"shard-{k:05d}.npz"


def _arrays(cfg: LabelConfig, rows: _Rows) -> dict[str, np.ndarray]:
    n_obs = obs_size(get_rules(cfg.rules))
    n = len(rows.action)

    def stack(xs: list[np.ndarray], shape: tuple[int, ...], dtype: Any) -> np.ndarray:
        return np.stack(xs).astype(dtype) if xs else np.zeros((0, *shape), dtype)

    return {
        "obs": stack(rows.obs, (n_obs,), np.float32),
        "waits": stack(rows.waits, (WAIT_FEATURES,), np.float32),
        "mask": stack(rows.mask, (NUM_ACTIONS,), np.bool_),
        "mean": stack(rows.mean, (NUM_ACTIONS,), np.float32),
        "se": stack(rows.se, (NUM_ACTIONS,), np.float32),
        "worlds": np.asarray(rows.worlds, np.int32).reshape(n),
        "action": np.asarray(rows.action, np.int16).reshape(n),
        "seat": np.asarray(rows.seat, np.int8).reshape(n),
        "decision": np.asarray(rows.decision, np.int8).reshape(n),
        "hand": np.asarray(rows.hand, np.int64).reshape(n),
        "step": np.asarray(rows.step, np.int32).reshape(n),
        "points": np.asarray(rows.points, np.int32).reshape(n),
        "scores": np.asarray(rows.scores, np.int32).reshape(n, 3),
        "meta": np.asarray(json.dumps(cfg.meta())),
    }


_counter: Any = None


def _init_worker(counter: Any) -> None:
    global _counter
    _counter = counter
    one_torch_thread()  # a guide network in a forked worker must not wait on OpenMP's pool


def shard_blob(cfg: LabelConfig, k: int, on_hand: Any = None) -> tuple[bytes, int]:
    """Play shard ``k``: its file's bytes and its number of labels."""
    rows = _Rows()
    for h in range(k * cfg.shard_hands, min(cfg.hands, (k + 1) * cfg.shard_hands)):
        play_hand(cfg, h, rows)
        if on_hand is not None:
            on_hand(len(rows.action))
        elif _counter is not None:
            with _counter.get_lock():
                _counter.value += 1
    buf = io.BytesIO()
    np.savez_compressed(buf, **_arrays(cfg, rows))  # type: ignore[arg-type]
    return buf.getvalue(), len(rows.action)


def label_shard(cfg: LabelConfig, out: Path, k: int, on_hand: Any = None) -> int:
    """Play and write shard ``k``; returns its number of labels."""
    blob, n = shard_blob(cfg, k, on_hand)
    write_atomic(shard_path(out, k), blob)
    return n


def _job(args: tuple[LabelConfig, str, int]) -> tuple[int, int]:
    cfg, out, k = args
    return k, label_shard(cfg, Path(out), k)


def _ray_job(args: tuple[LabelConfig, int]) -> tuple[int, bytes, int]:
    """A shard played as a Ray task, on any node: its bytes go back to the run's process, which
    writes them (the nodes need no shared folder)."""
    cfg, k = args
    return (k, *shard_blob(cfg, k))


def _prepare(cfg: LabelConfig, out: Path) -> None:
    """Create ``out`` or check that its run had these settings; remove killed runs' temp files."""
    out.mkdir(parents=True, exist_ok=True)
    meta = cfg.meta()
    path = out / META
    if path.exists():
        old = json.loads(path.read_text(encoding="utf-8"))
        if old != meta:
            raise ValueError(f"{out} holds labels of other settings ({path}: {old['config']}); "
                             f"these are {meta['config']}: use another directory, or the same "
                             "settings to resume")
    else:
        write_atomic(path, json.dumps(meta, indent=2).encode())
    for p in out.glob("shard-*.npz.*.tmp"):
        p.unlink()


def label(cfg: LabelConfig, out: str | os.PathLike[str], *, workers: int | None = None,
          progress: bool = True, mp_context: str = "fork", ray: str = "") -> dict[str, Any]:
    """Run (or resume) a labelling run into directory ``out``: in ``workers`` processes, or
    with ``ray`` (a Ray address, :mod:`paohuzi_training.cluster`) a Ray task per shard. The
    shards are the same either way.

    Returns:
        ``shards`` (written by this call), ``skipped`` (finished before), ``labels`` and
        ``hands`` (of this call), ``seconds`` and ``labels_per_second``.

    Raises:
        ValueError: for bad settings, or a directory that holds another run's labels.
        RuntimeError: when another run holds the directory's lock.
    """
    cfg.check()
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    lock = _lock(out)
    try:
        _prepare(cfg, out)
        todo = [k for k in range(cfg.shards) if not shard_path(out, k).exists()]
        hands_todo = sum(min(cfg.hands, (k + 1) * cfg.shard_hands) - k * cfg.shard_hands
                         for k in todo)
        workers = max(1, min(workers or os.cpu_count() or 1, len(todo) or 1))
        bar = None
        if progress:
            from tqdm import tqdm

            bar = tqdm(total=hands_todo, desc=f"labels {cfg.search}", unit="hand",
                       file=sys.stderr, smoothing=0.1)
        start = time.perf_counter()
        labels = 0
        if ray:
            from ..cluster import ray_map

            for k, blob, n in ray_map(_ray_job, [(cfg, k) for k in todo], ray):
                write_atomic(shard_path(out, k), blob)
                labels += n
                if bar is not None:
                    bar.set_postfix(labels=labels, refresh=False)
                    bar.update(min(cfg.hands, (k + 1) * cfg.shard_hands) - k * cfg.shard_hands)
        elif workers == 1:
            for k in todo:
                base = labels

                def on_hand(n: int, base: int = base) -> None:
                    if bar is not None:
                        bar.set_postfix(labels=base + n, refresh=False)
                        bar.update(1)

                labels += label_shard(cfg, out, k, on_hand)
        else:
            ctx = get_context(mp_context)
            counter = ctx.Value("q", 0)
            with ctx.Pool(workers, initializer=_init_worker, initargs=(counter,)) as pool:
                res = pool.imap_unordered(_job, [(cfg, str(out), k) for k in todo])
                pending = len(todo)
                while pending:
                    try:
                        _, n = res.next(timeout=POLL_S)
                        labels += n
                        pending -= 1
                    except multiprocessing.TimeoutError:
                        pass
                    if bar is not None:
                        bar.set_postfix(labels=labels, refresh=False)
                        bar.update(counter.value - bar.n)
        if bar is not None:
            bar.close()
        secs = time.perf_counter() - start
        return {"shards": len(todo), "skipped": cfg.shards - len(todo), "labels": labels,
                "hands": hands_todo, "seconds": secs,
                "labels_per_second": labels / secs if secs > 0 else 0.0}
    finally:
        lock.close()


def iter_shards(out: str | os.PathLike[str]) -> Iterator[tuple[Path, dict[str, np.ndarray]]]:
    """Each finished shard of a run, in order, as its arrays (``meta`` decoded to a dict).
    Temporary files of a killed run are never read."""
    for p in sorted(Path(out).glob("shard-*.npz")):
        with np.load(p, allow_pickle=False) as z:
            d: dict[str, Any] = {k: z[k] for k in z.files}
        d["meta"] = json.loads(str(d["meta"]))
        yield p, d


def load_labels(out: str | os.PathLike[str], waits: bool = False) -> dict[str, np.ndarray]:
    """Every finished shard of a run concatenated (``meta`` left out). With ``waits`` every shard
    must hold the wait features (else a ``ValueError`` names the command that adds them);
    without it they are left out, so that old and new shards concatenate."""
    parts = [(p, d) for p, d in iter_shards(out)]
    if not parts:
        raise ValueError(f"no label shards in {out}")
    if waits:
        lacking = [p.name for p, d in parts if "waits" not in d]
        if lacking:
            raise ValueError(f"{out}: {len(lacking)} shard(s) ({lacking[0]}, ...) hold no wait "
                             f"features; add them with: python -m paohuzi_training.stages.label {out} "
                             "--add-waits")
    keys = [k for k in parts[0][1] if k != "meta" and (waits or k != "waits")]
    return {k: np.concatenate([d[k] for _, d in parts]) for k in keys}


def run_rules(meta: dict[str, Any]) -> Rules:
    """The rules a label run was made under, read from its meta by the one rules reader
    (:func:`paohuzi_env.game.rules.rules_of_file`): the labeller takes a preset name (no
    overrides), and a meta that carries ``rules_overrides`` or a ``rules`` record keeps them."""
    return rules_of_file(meta)


def check_replayable(meta: dict[str, Any], where: str = "this run") -> None:
    """Refuse (``ValueError``) a run whose hands :func:`replay` cannot rebuild: one whose other
    seats played a non-compiled agent."""
    cfg = meta["config"]
    if sorted(cfg["seats"]) != [0, 1, 2] and cfg["others"] not in COMPILED:
        raise ValueError(f"{where}: the other seats played {cfg['others']!r}; only runs with the "
                         f"search in every seat or compiled others ({', '.join(COMPILED)}) replay")


def replay(meta: dict[str, Any], shard: dict[str, np.ndarray]) -> Iterator[tuple[int, Any]]:
    """The labelled positions of a shard, rebuilt: for each row ``r`` in hand and step order,
    ``(r, game)`` with ``game`` (a :class:`paohuzi_env.backends.fast.Game`) at that decision, before the
    label's action; the caller must not step it. Hand ``h`` is dealt from ``SeedSequence([seed,
    h])`` and the labels hold every choice of the search seats; the other seats' choices are
    replayed, so only runs whose other seats play a compiled bot (or are all search seats)
    can be.

    Raises:
        ValueError: a run whose other seats played a non-compiled agent, or a shard whose labels
            do not fit the replay (a decision with a choice and no label).
    """
    from paohuzi_env import fast

    check_replayable(meta)
    cfg = meta["config"]
    rules = run_rules(meta)
    for h in np.unique(shard["hand"]):
        rows = np.nonzero(shard["hand"] == h)[0]
        rows = rows[np.argsort(shard["step"][rows], kind="stable")]
        deal_ss = np.random.SeedSequence([cfg["seed"], int(h)]).spawn(4)[0]
        game = fast.Game(rules, seed=deal_ss)
        step = i = 0
        while not game.done:
            seat = game.current_player
            if i < len(rows) and int(shard["step"][rows[i]]) == step:
                r = int(rows[i])
                i += 1
                yield r, game
                a = int(shard["action"][r])
            elif seat in cfg["seats"]:
                legal = game.legal_actions()
                if len(legal) != 1:
                    raise ValueError(f"hand {h} step {step} has a choice but no label (an "
                                     "unfinished or edited shard?)")
                a = legal[0]
            else:
                a = game.expert_action() if cfg["others"] == "expert" else game.greedy_action()
            game.step(a)
            step += 1


def add_waits(out: str | os.PathLike[str], progress: bool = True) -> int:
    """Add the wait features to every finished shard of the run at ``out`` that lacks them,
    computed at each labelled position rebuilt by :func:`replay`; each shard is rewritten
    atomically (:func:`write_atomic`: a killed run leaves the old shard or the new one). Returns
    the number of shards rewritten. Holds the run's lock: not while the run is labelling."""
    from tqdm import tqdm

    out = Path(out)
    meta = json.loads((out / META).read_text(encoding="utf-8"))
    lock = _lock(out)
    try:
        todo = [p for p, d in iter_shards(out) if "waits" not in d]
        for p in tqdm(todo, desc="add waits", unit="shard", disable=not progress or None):
            with np.load(p, allow_pickle=False) as z:
                d: dict[str, Any] = {k: z[k] for k in z.files}
            waits = np.zeros((len(d["action"]), WAIT_FEATURES), np.float32)
            shard = {**d, "meta": json.loads(str(d["meta"]))}
            for r, game in replay(meta, shard):
                if not np.array_equal(game.observation(game.current_player), d["obs"][r]):
                    raise ValueError(f"{p}: row {r}'s observation is not the replayed position's")
                game.wait_features(game.current_player, waits[r])
            d["waits"] = waits
            buf = io.BytesIO()
            np.savez_compressed(buf, **d)
            write_atomic(p, buf.getvalue())
        return len(todo)
    finally:
        lock.close()


def plays_every_action(spec: str, rules: str) -> bool:
    """Whether the search ``spec`` plays out every legal action of a searched decision under
    ``rules``: no ``top`` and no guide network (``guide=none``, or ``auto`` where no network is
    packaged for the rules, or the Python reference)."""
    from paohuzi_env.agents.network import packaged_guide
    from paohuzi_env.agents.search import GUIDE, TOP, parse_search_spec

    opts = parse_search_spec(spec.partition(":")[2])
    if opts.get("impl", "core") == "python":
        return True
    guide = opts.get("guide", GUIDE)
    unguided = guide == "none" or (guide == "auto" and packaged_guide(rules) is None)
    return unguided and not opts.get("top", TOP)


def check_labels(out: str | os.PathLike[str]) -> int:
    """Read every finished shard of a run back and check it; returns the number of labels.

    Checks: each array's shape and dtype, the settings in every shard equal ``labels.json``,
    at least two legal actions per row, the chosen action legal, ``mean`` and ``se`` finite
    (``se`` >= 0) on the same entries: exactly the legal actions of searched rows (``worlds``
    >= 2) for a search that plays out every action (:func:`plays_every_action`); for one that
    plays out only some (``top``, a guide network) only legal actions of searched rows, at least
    two and the chosen one in each; NaN elsewhere; ``points`` among ``scores`` at the row's seat,
    hands within the run.

    Raises:
        ValueError: naming the shard and what is wrong.
    """
    out = Path(out)
    meta = json.loads((out / META).read_text(encoding="utf-8"))
    n_obs, hands = meta["obs_size"], meta["config"]["hands"]
    every = plays_every_action(meta["config"]["search"], meta["config"]["rules"])
    total = 0
    for p, d in iter_shards(out):
        def bad(what: str, p: Path = p) -> ValueError:
            return ValueError(f"{p}: {what}")

        if d["meta"] != meta:
            raise bad(f"settings {d['meta']} differ from {out / META}")
        n = len(d["action"])
        shapes: dict[str, tuple[int, ...]] = {
            "obs": (n, n_obs), "mask": (n, NUM_ACTIONS), "mean": (n, NUM_ACTIONS),
            "se": (n, NUM_ACTIONS), "scores": (n, 3)}
        for k in ("worlds", "seat", "decision", "hand", "step", "points"):
            shapes[k] = (n,)
        if "waits" in d:  # absent from shards written before they were stored (--add-waits)
            shapes["waits"] = (n, WAIT_FEATURES)
            if d["waits"].dtype != np.float32 or not ((d["waits"] >= 0) & (d["waits"] <= 1)).all():
                raise bad("waits must be float32 in [0, 1]")
        for k, shape in shapes.items():
            if d[k].shape != shape:
                raise bad(f"{k} has shape {d[k].shape}, not {shape}")
        mask = d["mask"]
        if mask.dtype != np.bool_ or (mask.sum(axis=1) < 2).any():
            raise bad("mask must be bool with at least two legal actions a row")
        rows = np.arange(n)
        if ((d["action"] < 0) | (d["action"] >= NUM_ACTIONS)).any() or \
                not mask[rows, d["action"].clip(0, NUM_ACTIONS - 1)].all():
            raise bad("a chosen action is not legal")
        searched = d["worlds"] >= 2
        want = mask & searched[:, None]
        fin = np.isfinite(d["mean"])
        for k in ("mean", "se"):
            if np.isinf(d[k]).any() or not np.array_equal(np.isfinite(d[k]), fin):
                raise bad(f"{k} must be finite or NaN, on the same entries for mean and se")
        if every and not np.array_equal(fin, want):
            raise bad("mean must be finite exactly on the legal actions of searched rows")
        chosen = fin[rows, d["action"]]
        if (fin & ~want).any() or (fin.sum(axis=1)[searched] < 2).any() or \
                not chosen[searched].all():
            raise bad("mean must be finite only on legal actions of searched rows, on at least "
                      "two of each and on the chosen action")
        if (d["se"][fin] < 0).any():
            raise bad("a standard error is negative")
        if ((d["seat"] < 0) | (d["seat"] > 2)).any() or \
                not np.array_equal(d["points"], d["scores"][rows, d["seat"].astype(np.int64)]):
            raise bad("points must be the seat's entry of scores")
        if ((d["hand"] < 0) | (d["hand"] >= hands)).any():
            raise bad(f"hand numbers must be in 0..{hands - 1}")
        total += n
    return total


@dataclass
class LabelInputs:
    """Where the label stage writes its shards, and in how many processes (None: one per core)
    or on Ray (``ray``: its address; :mod:`paohuzi_training.cluster`)."""

    out: Path
    workers: int | None = None
    ray: str = ""


def run(config: LabelConfig, inputs: LabelInputs, log=print) -> dict[str, Any]:
    """The label stage: label (or go on labelling) ``config.hands`` hands into ``inputs.out``;
    returns :func:`label`'s figures."""
    res = label(config, inputs.out, workers=inputs.workers, ray=inputs.ray)
    before = f" ({res['skipped']} shard(s) finished before)" if res["skipped"] else ""
    log(f"labels: {res['labels']:,} labels from {res['hands']:,} hands this run{before}")
    return res


def main(argv: list[str] | None = None) -> int:
    """The ``paohuzi-label`` command: label hands with the search (resuming a run), or with
    ``--add-waits`` add the wait features to an existing run.

    Returns:
        The exit status: 0 when done, 1 when ``--check`` fails, 2 for a bad setting or run.
    """
    p = argparse.ArgumentParser(prog="paohuzi-label", description=plain_text(__doc__),
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    d = LabelConfig()
    p.add_argument("out", help="directory of the shards (created; an existing run resumes)")
    p.add_argument("--hands", type=int, default=d.hands, help=f"hands to play (default {d.hands})")
    p.add_argument("--search", default=d.search,
                   help="search spec of the labelled seats (search or search:OPTIONS)")
    p.add_argument("--seats", type=int, nargs="+", default=list(d.seats),
                   help="seats the search plays and labels (default: 0 1 2)")
    p.add_argument("--others", default=d.others, help="agent spec of the other seats (default expert)")
    p.add_argument("--rules", default=d.rules, help=f"preset: {', '.join(preset_names())}")
    p.add_argument("--seed", type=int, default=d.seed)
    p.add_argument("--shard-hands", type=int, default=d.shard_hands,
                   help=f"hands per shard file (default {d.shard_hands})")
    p.add_argument("--workers", type=int, default=None, help="processes (default: all cores)")
    p.add_argument("--no-progress", action="store_true")
    p.add_argument("--check", action="store_true",
                   help="after the run, read every shard back and check it (check_labels)")
    p.add_argument("--add-waits", action="store_true",
                   help="label nothing: add the wait features to the finished shards of the run "
                        "in OUT that lack them (shards written before they were stored), by "
                        "replaying its hands")
    a = p.parse_args(argv)
    if a.add_waits:
        if not (Path(a.out) / META).is_file():
            print(f"paohuzi-label: error: {a.out} is not a label run (no {META})", file=sys.stderr)
            return 2
        try:
            n = add_waits(a.out, progress=not a.no_progress)
        except (ValueError, RuntimeError) as e:
            print(f"paohuzi-label: error: {e}", file=sys.stderr)
            return 2
        print(f"added the wait features to {n} shard(s) of {a.out}", file=sys.stderr)
        return 0
    cfg = LabelConfig(hands=a.hands, search=a.search, seats=tuple(a.seats), others=a.others,
                      rules=a.rules, seed=a.seed, shard_hands=a.shard_hands)
    try:
        res = label(cfg, a.out, workers=a.workers, progress=not a.no_progress)
    except (ValueError, RuntimeError) as e:
        print(f"paohuzi-label: error: {e}", file=sys.stderr)
        return 2
    print(f"{res['labels']} labels from {res['hands']} hands in {res['shards']} shards "
          f"({res['skipped']} already done) in {res['seconds']:.1f} s: "
          f"{res['labels_per_second']:.1f} labels/s", file=sys.stderr)
    if a.check:
        try:
            n = check_labels(a.out)
        except ValueError as e:
            print(f"paohuzi-label: check failed: {e}", file=sys.stderr)
            return 1
        print(f"checked {n} labels in {a.out}: they read back", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
