"""Standard algorithms trained on this environment at a fixed budget, one readable file each.

- :mod:`paohuzi_training.baselines.dmc`: Deep Monte Carlo (DouZero's DMC) over the compiled
  core's ``VectorGame``.
"""
