"""What every process pool of this package does in a new worker."""

from __future__ import annotations

import sys


def one_torch_thread() -> None:
    """A forked pool worker's first step: if this process has torch loaded, run it on one thread.

    A child forked from a process whose torch has run on several threads inherits OpenMP's
    record of a thread pool but none of its threads, and its first parallel operation waits for
    them forever (GNU OpenMP is not fork-safe: ``torch.set_num_threads(2)``, a large matmul, then
    a matmul in a forked child hangs). One thread needs no pool; the pool's processes already use
    every core."""
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(1)
