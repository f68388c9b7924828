"""Where a stage's workers run: local processes, or Ray tasks and actors.

``paohuzi-recipe RECIPE --ray [ADDRESS]`` and ``paohuzi-train --ray [ADDRESS]`` name a Ray
instance: ``local`` (start one on this machine, or join the one this process already started),
``auto`` (the cluster this machine belongs to) or ``ray://head:10001``. Every stage with workers
reads that address (``""``: local processes) and hands its jobs to :func:`ray_map` instead of a
process pool; PPO's rollout workers become actors (:mod:`paohuzi_training.stages.workers`).

The jobs are the same either way (a shard of hands, a chunk of deals, a part of the
demonstrations, each seeded by its own number), so a stage gives the same numbers on Ray as in
local processes, whatever the number of CPUs or nodes. A cluster's nodes need this package
installed (``pip install -e '.[train,ray]'``). The results come back to this process, which
writes every file; the files a job reads by path (the network an evaluation plays, a search's
guide) must be where the nodes can read them (a shared folder), as on a local cluster.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from typing import Any

EXTRA = "pip install -e '.[train,ray]' (or pip install ray)"
"""How to install Ray for the ``--ray`` options."""


def ray_module() -> Any:
    """The ``ray`` module.

    Raises:
        ValueError: Ray is not installed (naming the ``ray`` extra).
    """
    try:
        import ray
    except ImportError:
        raise ValueError(f"--ray needs Ray, which is not installed: {EXTRA}") from None
    return ray


def connect(address: str, log: Callable[..., Any] = print) -> int:
    """Join (or start, for ``local``) the Ray instance at ``address`` unless this process is
    connected already; returns the cluster's CPU count.

    Raises:
        ValueError: Ray is not installed, or no Ray instance answers at ``address``.
    """
    ray = ray_module()
    if not ray.is_initialized():
        try:
            ray.init(address=None if address == "local" else address, include_dashboard=False,
                     configure_logging=False, log_to_driver=True)
        except (ConnectionError, RuntimeError) as e:
            raise ValueError(f"--ray {address}: could not join a Ray instance there ({e}); an "
                             "address is auto (the cluster of `ray start` on this machine), "
                             "ray://HOST:10001 or HOST:6379; no address starts Ray here") from None
        cpus = int(ray.cluster_resources().get("CPU", 1))
        log(f"Ray: {'a local instance' if address == 'local' else address}, {cpus} CPU(s), "
            f"{len(ray.nodes())} node(s)")
    return max(1, int(ray.cluster_resources().get("CPU", 1)))


def ray_map(fn: Callable[[Any], Any], jobs: Sequence[Any], address: str,
            log: Callable[..., Any] = print) -> Iterator[Any]:
    """``fn(job)`` for every job as a Ray task of one CPU, yielded as they finish (in any
    order: the caller sorts by what the job returns). ``fn`` must be a module-level function
    (the nodes import it). A task runs in this process's current folder where its node has it
    (a local cluster, a shared file system), so a relative path in a job names the same file.
    Tasks not yet finished when the caller stops (an error, Ctrl-C) are cancelled."""
    ray = ray_module()
    connect(address, log)
    task = ray.remote(num_cpus=1)(_in_folder)
    here = os.getcwd()
    pending = [task.remote(here, fn, job) for job in jobs]
    try:
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            yield ray.get(done[0])
    finally:
        for ref in pending:
            ray.cancel(ref, force=True)


def _in_folder(folder: str, fn: Callable[[Any], Any], job: Any) -> Any:
    """A Ray task: ``fn(job)`` in ``folder`` when its node has it."""
    if os.path.isdir(folder):
        os.chdir(folder)
    return fn(job)
