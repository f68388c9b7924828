"""The soak benchmark (paohuzi_env.dev.soak, ``python -m paohuzi_env.dev.bench soak``) on tiny counts:
it runs both soaks, samples the resident memory after the warm-up and to the end, and refuses bad
flags. The long runs and their figures are in docs/hardening.md (measurements, not asserted)."""

from __future__ import annotations

import json

import pytest

from paohuzi_env import fast
from paohuzi_env.dev.bench import main as bench_main
from paohuzi_env.dev.soak import main as soak_main
from paohuzi_env.dev.soak import rss_kib, soak_vector

pytestmark = pytest.mark.skipif(not fast.available(), reason="paohuzi_env._fast is not built")


def test_vector_soak_samples_memory_after_the_warm_up():
    r = soak_vector(4_000, hands=16, seed=3, expert_every=4, warmup=0.25)
    counts = [n for n, _ in r["samples"]]
    assert r["decisions"] >= 4_000 and counts == sorted(counts) and counts[0] >= 1_000
    assert len(counts) >= 5 and all(kib > 0 for _, kib in r["samples"])
    assert r["rss_kib_warm"] == r["samples"][0][1] and r["rss_kib_end"] == r["samples"][-1][1]
    assert r["growth"] == r["rss_kib_end"] / r["rss_kib_warm"] - 1
    assert rss_kib() > 0


def test_bench_soak_runs_both_and_writes_json(tmp_path, capsys):
    out = tmp_path / "soak.json"
    with pytest.raises(SystemExit) as e:
        bench_main(["soak", "--decisions", "600", "--hands", "8", "--search-decisions", "2",
                    "--search-spec", "search:samples=2,playouts=4", "--max-growth", "100",
                    "--memo-caps", "512,64,256", "--json", str(out)])
    assert e.value.code == 0
    text = capsys.readouterr().out
    assert "vector: " in text and "search: 2 decisions" in text and "ok: limit 10000%" in text
    got = json.loads(out.read_text())
    assert [r["soak"] for r in got] == ["vector", "search"] and got[1]["decisions"] == 2


@pytest.mark.parametrize("argv, says", [
    (["--decisions", "-1"], "--decisions must be >= 0"),
    (["--hands", "0"], "--hands must be >= 1"),
    (["--warmup", "1"], "--warmup must be in [0, 1)"),
    (["--decisions", "0", "--search-decisions", "0"], "nothing to run"),
    (["--memo-caps", "1,2"], "--memo-caps takes three positive ints"),
])
def test_bad_flags_are_refused(argv, says, capsys):
    with pytest.raises(SystemExit) as e:
        soak_main(argv)
    assert e.value.code == 2 and says in capsys.readouterr().err
