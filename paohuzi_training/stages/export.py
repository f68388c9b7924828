"""The export stage: a trained network as a play-only policy, ``NAME.safetensors`` with its JSON
sidecar (``network:`` and ``checkpoint:`` both read it;
:func:`paohuzi_training.nets.checkpoint.export_policy`).

``run(ExportConfig, ExportInputs) -> Path``: the network of ``inputs.network`` (the PPO stage's
``final.pt``) written to ``inputs.out``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass
class ExportConfig:
    """The export's settings: ``actor_only`` leaves the critic out (a smaller file for play; the
    search's leaf values need the critic)."""

    actor_only: bool = False


@dataclass
class ExportInputs:
    """The checkpoint to export and the ``.safetensors`` file to write (its ``.json`` beside)."""

    network: Path
    out: Path


def run(config: ExportConfig, inputs: ExportInputs, log=print) -> Path:
    """Export ``inputs.network`` to ``inputs.out``; returns the path written."""
    from ..nets.checkpoint import export_policy

    inputs.out.parent.mkdir(parents=True, exist_ok=True)
    dst = export_policy(inputs.network, inputs.out, actor_only=config.actor_only)
    log(f"export: {dst} and {dst.with_suffix('.json')}")
    return dst
