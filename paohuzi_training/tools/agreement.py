"""How well each actor network imitates ``expert``:
``python -m paohuzi_training.tools.agreement [--decisions N] [--epochs E] [--actors mlp:256 conv:512 ...]``.

Generates ``N`` expert self-play decisions with a real choice (the behaviour-cloning generator,
paohuzi_training/stages/clone.py, one process) plus ``--held`` (50,000) more held out, then fits each actor
(``mlp:HIDDEN`` or ``conv:HIDDEN[:CHANNELS]``, paohuzi_training/nets/model.py) with behaviour cloning's own
fit for ``E`` epochs (Adam 1e-3, minibatches of 512, one torch thread, seed 0) and prints after
every epoch its agreement with the expert's choice on the held-out decisions and on as many of
the training decisions. It is the measurement behind the conv actor (docs/distill.md); it
asserts nothing.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch

from ..config import to_dict
from ..nets.model import model_for
from ..recipe import make_config
from ..stages.clone import _demo_part, _fit_bc


def _actor_config(spec: str) -> dict:
    parts = spec.split(":")
    if parts[0] not in ("mlp", "conv") or len(parts) not in (2, 3) or \
            (parts[0] == "mlp" and len(parts) != 2) or not all(p.isdigit() for p in parts[1:]):
        raise ValueError(f"an actor is mlp:HIDDEN or conv:HIDDEN[:CHANNELS], got {spec!r}")
    cfg = {"actor": parts[0], "hidden": int(parts[1]), "prior": "none", "central_critic": False}
    if len(parts) == 3:
        cfg["conv_channels"] = int(parts[2])
    return cfg


def main(argv: list[str] | None = None) -> None:
    """The command line: fit each actor on the expert's decisions and print its agreement per epoch."""
    p = argparse.ArgumentParser(prog="python -m paohuzi_training.tools.agreement", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--decisions", type=int, default=400_000, help="training decisions")
    p.add_argument("--epochs", type=int, default=4)
    p.add_argument("--actors", nargs="+", default=["mlp:256", "mlp:1024", "conv:512"])
    p.add_argument("--rules", default="huaihua")
    p.add_argument("--held", type=int, default=50_000, help="held-out decisions")
    p.add_argument("--seed", type=int, default=11, help="seed of the expert self-play")
    a = p.parse_args(argv)
    if a.decisions < 1 or a.epochs < 1 or a.held < 1:
        p.error("--decisions, --epochs and --held must be at least 1")
    try:
        configs = [(s, _actor_config(s)) for s in a.actors]
    except ValueError as e:
        p.error(str(e))
    torch.set_num_threads(1)
    t0 = time.time()
    base = make_config({"seed": a.seed, "rules": a.rules, "prior": "none",
                        "central_critic": False})
    obs, mask, act = _demo_part((to_dict(base), 0, a.decisions + a.held))
    o, m, y = torch.as_tensor(obs), torch.as_tensor(mask), torch.as_tensor(act)
    n = a.decisions
    held = slice(n, n + a.held)
    seen = slice(0, min(n, a.held))
    print(f"{n:,} expert decisions to fit, {a.held:,} held out ({time.time() - t0:.0f} s)",
          flush=True)
    for spec, cfg in configs:
        torch.manual_seed(0)
        model = model_for(make_config({**cfg, "rules": a.rules}))
        opt = torch.optim.Adam(model.parameters(), lr=1e-3)
        rng = np.random.default_rng(0)
        size = sum(q.numel() for q in model.actor.parameters())
        one_epoch = make_config({**cfg, "rules": a.rules, "bc_epochs": 1,
                                 "minibatch_size": 512}).clone
        for epoch in range(a.epochs):
            t = time.time()
            _fit_bc(model, opt, one_epoch, "cpu", rng, lambda *_: None, obs[:n], mask[:n], act[:n])
            with torch.no_grad():
                h = (model.masked_logits(o[held], m[held]).argmax(-1) == y[held]).float().mean()
                s = (model.masked_logits(o[seen], m[seen]).argmax(-1) == y[seen]).float().mean()
            print(f"{spec:<12} ({size:,} parameters) epoch {epoch + 1}: held-out agreement "
                  f"{float(h):.3f}, on training decisions {float(s):.3f} "
                  f"({time.time() - t:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
