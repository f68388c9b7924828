"""The README as a product page: at most 150 lines; its environment snippet runs and prints what
its comment says; its own-algorithm snippet builds the environment it names; its setup commands
are the ones CI runs. (Its zoo table is compared with the cards in tests/test_zoo.py; docs/index.md
with the README in .ci/docs.)"""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", README, flags=re.S)


def test_the_readme_is_at_most_150_lines():
    assert len(README.splitlines()) <= 150


def test_the_environment_snippet_prints_what_its_comment_says():
    code = _python_blocks()[0]
    *body, expected = code.rstrip("\n").splitlines()
    assert expected.startswith("# ")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile("\n".join(body), "README.md", "exec"), {})  # noqa: S102 - the README's own code
    assert out.getvalue().strip() == expected[2:]
    # paohuzi_env is imported before anything that makes the env by its id
    assert body.index("import paohuzi_env  # import it first: it registers paohuzi/<preset>-v0 for "
                      "pettingzoo.make") < min(i for i, line in enumerate(body) if "env(" in line)


def test_the_own_algorithm_snippet_builds_its_environment():
    pytest.importorskip("sb3_contrib")
    from paohuzi_env import fast

    if not fast.available():
        pytest.skip("zoo networks play in the compiled core")
    code = _python_blocks()[1]
    assert "MaskablePPO(" in code
    setup = "\n".join(line for line in code.splitlines() if "learn(" not in line)
    scope: dict = {}
    exec(compile(setup, "README.md", "exec"), scope)  # noqa: S102 - the README's own code
    env = scope["env"]
    obs, _ = env.reset(seed=1)
    assert obs.shape == env.observation_space.shape and env.action_masks().any()


def test_the_setup_commands_are_the_ones_ci_runs():
    commands = re.findall(r"```bash\n(.*?)```", README, flags=re.S)[0].splitlines()
    assert commands[0].startswith("pip install torch --index-url https://download.pytorch.org/whl/cpu")
    assert commands[1] == 'pip install -e ".[train]" && paohuzi-recipe configs/recipes/quickstart.yaml'
    assert commands[2] == 'pip install -e ".[test,train]" && python3 -m pytest -q'
    assert "python3 -m pytest -q" in (ROOT / ".ci" / "run").read_text()
    assert (ROOT / "configs" / "recipes" / "quickstart.yaml").is_file()
