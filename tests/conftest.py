"""The suite's shared hooks: the slow tests' time limit (pyproject.toml gives each default-suite
test 10 minutes with pytest-timeout; a slow test may run for hours, so it has none unless the
environment's ``PAOHUZI_SLOW_TIMEOUT`` gives one in seconds, as .ci/run does for its slice)."""

from __future__ import annotations

import os

import pytest


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not config.pluginmanager.hasplugin("timeout"):  # pytest-timeout not installed
        return
    raw = os.environ.get("PAOHUZI_SLOW_TIMEOUT", "0")
    try:
        seconds = float(raw)
    except ValueError:
        raise pytest.UsageError(f"PAOHUZI_SLOW_TIMEOUT must be a number of seconds (0: no "
                                f"limit), got {raw!r}") from None
    for item in items:
        if item.get_closest_marker("slow") is not None and item.get_closest_marker("timeout") is None:
            item.add_marker(pytest.mark.timeout(seconds))
