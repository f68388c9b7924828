"""The package version, in one place: pyproject.toml reads it (``[tool.setuptools.dynamic]``) and
``paohuzi_env.__version__`` re-exports it. CHANGELOG.md says what each version changed."""

__version__ = "0.1.0"
