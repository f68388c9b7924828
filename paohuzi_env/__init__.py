"""paohuzi-env: a rules engine and reinforcement-learning environment for 跑胡子 (Paohuzi)."""

from __future__ import annotations

from .rules import Rules, get_rules, load_rules
from .scoring import Win, evaluate_win

__version__ = "0.1.0"
__all__ = ["Rules", "Win", "evaluate_win", "get_rules", "load_rules", "__version__"]
