"""The trainer moved: it is the package ``paohuzi_training`` (issue 45)."""

raise ImportError(
    "the trainer package is paohuzi_training now (issue 45): use `python -m paohuzi_training.ppo`, "
    "`from paohuzi_training import ...` or the console scripts paohuzi-train, paohuzi-eval, paohuzi-label"
)
