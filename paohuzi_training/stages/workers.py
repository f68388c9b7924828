"""Rollout workers behind one interface: local processes (:class:`Workers`) or Ray actors
(:class:`RayWorkers`, ``paohuzi-train --ray [ADDRESS]``, config key ``ray``); :func:`make_workers`
picks one from the config.

Each worker owns a :class:`~paohuzi_training.stages.rollout.Rollout` (its hands, on the config's backend)
and a copy of the policy, and returns a batch per request. Every worker's generator is keyed by
(seed, 1000 + worker index) and its state travels with each batch, so a resumed run continues
every worker's stream.

Ray: after every update the learner (this process, unchanged) puts the new weights into Ray's
object store once; every actor reads that one object. The actors play the batches the local
workers would (the same generators, one torch thread each; a lone actor on the learner's threads
and never overlapping an update, as the lone in-process worker), so a run's numbers follow its
number of workers, not where they run. The same code runs on a Ray instance it
starts on this machine (``--ray``) and on any cluster by address (``--ray auto``,
``--ray ray://head:10001``); the cluster's nodes need this package installed
(``pip install -e '.[train,ray]'``). Failures: actors restart on their own
(``max_restarts=-1``). A batch whose actor died is discarded — never half used — and asked again
of the restarted actor (with the generator state and the opponent snapshots it had), so a lost
actor costs time, not a crash or a checkpoint.
"""

from __future__ import annotations

import os
import time
from multiprocessing import get_context
from typing import Any

import numpy as np

from ..cluster import ray_module
from ..config import PPOConfig, from_flat, to_dict
from .rollout import Rollout


def _worker_rollout(cfg_dict: dict, seed_entropy: list[int], rng_state: Any = None,
                    threads: int = 1) -> Rollout:
    """The rollout of a worker process or actor (one torch thread: the workers share the cores;
    a lone actor plays on the learner's threads, as the lone local worker does: the float sums
    of the forward pass follow the thread count)."""
    import torch

    torch.set_num_threads(threads)
    roll = Rollout(from_flat(PPOConfig, cfg_dict), np.random.SeedSequence(seed_entropy))
    if rng_state is not None:
        roll.rng.bit_generator.state = rng_state
    return roll


def worker_main(cfg_dict: dict, seed_entropy: list[int], conn, rng_state=None) -> None:
    """A rollout process: receives weights, sends batches, until told to stop."""
    import signal

    # Ctrl-C reaches every process of the terminal's group: the trainer (main process) decides
    # what to save and closes the workers; a worker must not die with a traceback of its own.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    roll = _worker_rollout(cfg_dict, seed_entropy, rng_state)
    conn.send(("ready",))
    while True:
        msg = conn.recv()
        if msg[0] == "close":
            conn.close()
            return
        _, state_dict, snapshots, weights, n = msg
        roll.set_weights(state_dict, snapshots, weights)
        conn.send(roll.collect(n))


class Workers:
    """Rollout workers: subprocesses, or the main process itself when there is one.

    The interface of every kind of workers (:class:`RayWorkers` too): :meth:`request` asks each
    worker for a batch of ``steps`` transitions played with the given weights, :meth:`receive`
    returns the batches (one per worker, in worker order), :meth:`collect` is both, ``pending``
    says whether a request awaits its :meth:`receive`, ``local`` is the in-process rollout,
    ``overlaps`` says whether the next batch may be asked before an update (``overlap``: with
    two workers or more, local or on Ray, so that a run's numbers follow its number of workers,
    not where they run), :meth:`close` ends the workers.
    """

    def __init__(self, cfg: PPOConfig, n: int, rng_states=None) -> None:
        self.n = n
        self.cfg = cfg
        self.overlaps = n > 1  # one worker plays in this process, between the updates
        entropies = [[cfg.seed, 1000 + i] for i in range(n)]
        self.local: Rollout | None = None
        self.procs: list[Any] = []
        self.pending: tuple | None = None  # the request not yet received
        if n == 1:
            self.local = Rollout(cfg, np.random.SeedSequence(entropies[0]))
            if rng_states:
                self.local.rng.bit_generator.state = rng_states[0]
            return
        ctx = get_context("spawn")
        self.conns, self.procs = [], []
        for i in range(n):
            parent, child = ctx.Pipe()
            p = ctx.Process(target=worker_main, daemon=True,
                            args=(to_dict(cfg), entropies[i], child,
                                  rng_states[i] if rng_states else None))
            p.start()
            self.conns.append(parent)
            self.procs.append(p)
        for i, c in enumerate(self.conns):  # start-up (imports, tables) is not an iteration's
            self._recv(i)

    def collect(self, state_dict, snapshots, weights, steps: int) -> list[dict]:
        """:meth:`request` then :meth:`receive`: one batch of ``steps`` transitions per worker."""
        self.request(state_dict, snapshots, weights, steps)
        return self.receive()

    def request(self, state_dict, snapshots, weights, steps: int) -> None:
        """Ask every worker for a batch (worker processes start on it at once)."""
        self.pending = (state_dict, snapshots, weights, steps)
        if self.local is None:
            for c in self.conns:
                c.send(("collect", state_dict, snapshots, weights, steps))

    def receive(self) -> list[dict]:
        """The batches of the last :meth:`request`."""
        assert self.pending is not None, "receive() without a request()"
        state_dict, snapshots, weights, steps = self.pending
        self.pending = None
        if self.local is not None:
            self.local.set_weights(state_dict, snapshots, weights)
            return [self.local.collect(steps)]
        return [self._recv(i) for i in range(self.n)]

    def _recv(self, i: int) -> Any:
        """Worker ``i``'s next message; a worker that died is a clear error, not a pipe's."""
        try:
            return self.conns[i].recv()
        except (EOFError, ConnectionResetError, BrokenPipeError) as e:
            code = self.procs[i].exitcode if self.procs[i].exitcode is not None else "unknown"
            raise RuntimeError(f"rollout worker {i} died (exit code {code}); its traceback, if "
                               "any, is printed above") from e

    def close(self) -> None:
        """Stop the worker processes: ask them to close, terminating them at once when a batch is
        still pending and after 5 s when one has not exited."""
        if self.pending is not None and self.procs:  # a batch nobody will read: no waiting
            for p in self.procs:
                p.terminate()
        for c in getattr(self, "conns", []):
            try:
                c.send(("close",))
            except (BrokenPipeError, OSError):
                pass
        for p in self.procs:
            p.join(timeout=5)
            if p.is_alive():
                p.terminate()



def make_workers(cfg: PPOConfig, n: int, rng_states: list | None = None, log=print) -> Workers | RayWorkers:
    """``n`` rollout workers as the config asks: Ray actors (``cfg.ray``) or local processes
    (none for ``n`` 0: a run with nothing left to collect)."""
    if cfg.ray and n > 0:
        return RayWorkers(cfg, n, rng_states, log=log)
    return Workers(cfg, n, rng_states)


# ---------------------------------------------------------------------- Ray

MAX_RETRIES = 5
"""Attempts at one actor's batch before the run gives up with an error."""
RESTART_SECONDS = 300.0
"""How long a restarting actor may take to answer again."""


class RolloutActor:
    """One rollout worker (a Ray actor); the same work as :func:`worker_main`."""

    def __init__(self, cfg_dict: dict, seed_entropy: list[int], rng_state: Any = None,
                 threads: int = 1) -> None:
        self.roll = _worker_rollout(cfg_dict, seed_entropy, rng_state, threads)

    def pid(self) -> int:
        """The actor's process id (also a liveness probe)."""
        return os.getpid()

    def set_rng(self, state: Any) -> None:
        """Restore the rollout generator's state (a restarted actor continues the stream)."""
        self.roll.rng.bit_generator.state = state

    def collect(self, payload: tuple, steps: int) -> dict:
        """A batch of ``steps`` transitions with the weights of ``payload``
        (``(state_dict, snapshots, weights)``)."""
        state_dict, snapshots, weights = payload
        self.roll.set_weights(state_dict, snapshots, weights)
        return self.roll.collect(steps)


class RayWorkers:
    """:class:`Workers`' interface over Ray actors."""

    def __init__(self, cfg: PPOConfig, n: int, rng_states: list | None = None, log=print) -> None:
        import torch

        ray = ray_module()
        self.ray = ray
        self.n = n
        self.log = log
        self.pending: tuple | None = None
        self.local = None  # no in-process worker
        self.overlaps = n > 1  # as local workers: one worker, no overlap (the same numbers)
        self.restarts = 0
        self._refs: list[Any] = []
        self._payload: Any = None
        self._snapshots: Any = None  # the last full snapshot list sent (a restarted actor needs it)
        self._states: list[Any] = list(rng_states) if rng_states else [None] * n
        actor = ray.remote(num_cpus=1, max_restarts=-1, max_task_retries=0)(RolloutActor)
        self.names = [f"paohuzi-rollout-{os.getpid()}-{i}" for i in range(n)]
        threads = torch.get_num_threads() if n == 1 else 1  # those of the local workers
        self.actors = [
            actor.options(name=name).remote(to_dict(cfg), [cfg.seed, 1000 + i], self._states[i],
                                            threads)
            for i, name in enumerate(self.names)]
        ray.get([a.pid.remote() for a in self.actors])  # start-up is not an iteration's

    def collect(self, state_dict, snapshots, weights, steps: int) -> list[dict]:
        """:meth:`request` then :meth:`receive`: one batch of ``steps`` transitions per actor."""
        self.request(state_dict, snapshots, weights, steps)
        return self.receive()

    def request(self, state_dict, snapshots, weights, steps: int) -> None:
        """Put the weights in the object store once and ask every actor for a batch."""
        if snapshots is not None:
            self._snapshots = snapshots
        self.pending = (state_dict, snapshots, weights, steps)
        self._payload = self.ray.put((state_dict, snapshots, weights))
        self._refs = [a.collect.remote(self._payload, steps) for a in self.actors]

    def receive(self) -> list[dict]:
        """The batches of the last :meth:`request`; an actor that died is restarted by Ray and
        asked again (its partial rollout is lost, nothing else)."""
        assert self.pending is not None, "receive() without a request()"
        state_dict, _, weights, steps = self.pending
        self.pending = None
        errors = (self.ray.exceptions.RayActorError, self.ray.exceptions.ActorUnavailableError)
        out = []
        for i, ref in enumerate(self._refs):
            for attempt in range(MAX_RETRIES + 1):
                try:
                    batch = self.ray.get(ref)
                    break
                except errors as e:
                    if attempt == MAX_RETRIES:
                        raise RuntimeError(f"rollout actor {i} failed {MAX_RETRIES + 1} times; "
                                           f"last: {type(e).__name__}") from e
                    self.restarts += 1
                    self.log(f"rollout actor {i} died ({type(e).__name__}); Ray restarts it, "
                             "its partial batch is discarded and asked again")
                    actor = self.actors[i]
                    self._wait_alive(actor)
                    payload = self.ray.put((state_dict, self._snapshots, weights))
                    if self._states[i] is not None:
                        actor.set_rng.remote(self._states[i])
                    ref = actor.collect.remote(payload, steps)
            self._states[i] = batch["rng_state"]
            out.append(batch)
        return out

    def _wait_alive(self, actor: Any, seconds: float = RESTART_SECONDS) -> None:
        """Wait until a restarting actor answers (its start-up builds the games and imports
        torch: seconds)."""
        errors = (self.ray.exceptions.RayActorError, self.ray.exceptions.ActorUnavailableError,
                  self.ray.exceptions.GetTimeoutError)
        deadline = time.monotonic() + seconds
        while True:
            try:
                self.ray.get(actor.pid.remote(), timeout=10)
                return
            except errors as e:
                if time.monotonic() > deadline:
                    raise RuntimeError(
                        f"a rollout actor did not come back within {seconds:.0f} s") from e
                time.sleep(0.5)

    def close(self) -> None:
        """Kill the actors."""
        for a in getattr(self, "actors", []):
            try:
                self.ray.kill(a)
            except Exception:  # noqa: BLE001 - already gone
                pass
        self.actors = []
