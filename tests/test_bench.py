"""``python -m paohuzi_env.dev.bench core``: every row is printed; no timing thresholds here."""

from __future__ import annotations

import re
import sys

import pytest

from paohuzi_env import fast
from paohuzi_env.dev import bench

needs_core = pytest.mark.skipif(not fast.available(), reason="the compiled core is not built")


@needs_core
def test_core_prints_every_row(capsys):
    bench.main(["core", "--seconds", "0.2"])
    out = capsys.readouterr().out
    for key in bench.ROWS:
        assert re.search(rf"^ {key}  \S", out, re.M), f"row {key} missing:\n{out}"
    for section in ("1. ", "2. ", "3. ", "4. ", "5. "):
        assert re.search(rf"^{re.escape(section)}", out, re.M)
    assert "move for move alike: yes" in out  # the same deals and picks on both engines
    assert "Units. decision:" in out and "step:" in out and "position:" in out


@needs_core
def test_core_takes_rules(capsys):
    bench.main(["core", "--seconds", "0.05", "--rules", "yongzhou"])
    out = capsys.readouterr().out
    assert "rules yongzhou" in out
    assert re.search(r"^ 2b  VectorGame", out, re.M)


def test_core_without_the_compiled_core_exits_2(monkeypatch, capsys):
    monkeypatch.setattr(fast, "available", lambda: False)
    with pytest.raises(SystemExit) as e:
        bench.main(["core", "--seconds", "0.2"])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "compiled core is not available" in err and "pip install -e ." in err


def test_scale_rows_without_rlcard_say_how_to_install(monkeypatch):
    # a None entry in sys.modules makes the import raise ImportError
    monkeypatch.setitem(sys.modules, "rlcard", None)
    monkeypatch.setitem(sys.modules, "pettingzoo.classic", None)
    rows = [bench._row(f) for f in bench._scale_figures(0)]
    assert [r.split()[0] for r in rows] == ["5a", "5b"]
    for r in rows:
        assert "not installed" in r and "pip install -e '.[bench]'" in r


def test_rules_is_for_core_only():
    with pytest.raises(SystemExit) as e:
        bench.main(["engine", "--seconds", "0.01", "--rules", "huaihua"])
    assert e.value.code == 2


@needs_core
def test_agent_times_each_spec_on_the_same_positions(capsys):
    bench.main(["agent", "expert", "greedy", "--positions", "30"])
    out = capsys.readouterr().out
    assert "30 positions of expert self-play" in out
    for spec in ("expert", "greedy"):
        assert re.search(rf"^{spec}\s+30\s+\d+\.\d+", out, re.M), out


def test_agent_rejects_a_bad_spec_and_no_positions(capsys):
    with pytest.raises(SystemExit) as e:
        bench.main(["agent", "expert", "--positions", "0"])
    assert e.value.code == 2
    assert "--positions must be at least 1" in capsys.readouterr().err
    with pytest.raises(ValueError, match="nosuchbot"):
        bench.main(["agent", "nosuchbot", "--positions", "1"])


def test_review_times_a_hands_review(capsys):
    bench.main(["review", "--hands", "1", "--seed", "11",
                "--analyser", "search:guide=none,prune=0,z=0,samples=4,playouts=32"])
    out = capsys.readouterr().out
    assert "CPU s per hand" in out and "decisions reviewed per hand" in out
