"""Rule-based policies. Each is called with a :class:`~paohuzi_env.engine.PlayerView` (what
its seat may know) and returns a legal action id; none reads hidden state.

``make_agent(spec, seed)`` builds one from a spec: ``random``, ``greedy``, ``expert``, or
``checkpoint:PATH`` (a trained PPO policy, :mod:`training.policy`).
"""

from __future__ import annotations

from .base import Agent, RandomAgent
from .heuristic import ExpertAgent, GreedyAgent

AGENT_NAMES = ("random", "greedy", "expert")


def make_agent(spec: str, seed=None, rules="huaihua") -> Agent:
    """An agent from a spec string, for the given rules (a preset name or Rules).

    Raises:
        ValueError: for an unknown spec, naming the valid ones.
    """
    if spec == "random":
        return RandomAgent(seed)
    if spec == "greedy":
        return GreedyAgent(seed, rules)
    if spec == "expert":
        return ExpertAgent(seed, rules)
    if spec.startswith("checkpoint:"):
        try:
            from training.policy import load_checkpoint_agent
        except ImportError as e:
            raise ValueError(
                f"agent spec {spec!r} needs the trainer (pip install -e '.[train]' and run "
                f"from the repository root): {e}"
            ) from None
        return load_checkpoint_agent(spec.split(":", 1)[1], seed=seed, rules=rules)
    raise ValueError(
        f"unknown agent spec {spec!r}; valid: {', '.join(AGENT_NAMES)}, checkpoint:PATH"
    )


__all__ = ["AGENT_NAMES", "Agent", "ExpertAgent", "GreedyAgent", "RandomAgent", "make_agent"]
