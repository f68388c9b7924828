"""Training and evaluation for paohuzi-env: the duplicate-deal harness, labels, distillation and
the PPO trainer (``paohuzi-train``, ``paohuzi-eval``, ``paohuzi-label``).

The runtime package :mod:`paohuzi_env` never imports this one (``lint-imports`` checks it).
"""
