"""A bounded load test of ``paohuzi serve`` on loopback (paohuzi_env.dev.serve_load).

A real uvicorn server in a child process, 8 client threads, a seeded mix of good and bad requests
with more tables opened than the cap. Asserts behaviour only: every request is answered, no 5xx,
each kind of request gets the status it should, evicted tables answer 404, and the server's
resident memory does not keep growing once it has been evicting for a while. The figures
(requests/s, p99 latency) are measured by ``python -m paohuzi_env.dev.serve_load`` for
docs/hardening.md, not asserted.
"""

from __future__ import annotations

import sys

import pytest

pytest.importorskip("starlette", reason="the serve extra (starlette) is not installed")
pytest.importorskip("uvicorn", reason="the serve extra (uvicorn) is not installed")

from paohuzi_env.dev.serve_load import run_load  # noqa: E402

# What each kind of request may be answered with (404: its table was evicted meanwhile).
ALLOWED = {
    "new": {200}, "act": {200, 404}, "show": {200, 404}, "next": {200, 404}, "replay": {200, 404},
    "bad0": {400, 404},  # action out of range
    "bad1": {409, 404},  # stale version
    "bad2": {400, 404},  # truncated JSON
    "bad3": {400, 404},  # wrong types
    "bad4": {400, 404},  # 400-digit action
    "bad5": {400, 404},  # 1e999 / NaN
    "bad6": {413, 404},  # body over the cap
    "bad7": {400},  # seed 2**80
    "bad8": {400, 404},  # unknown field
    "bad9": {200, 404},  # an older table of this client's: held or evicted
}


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads the server's VmRSS in /proc")
@pytest.mark.parametrize("requests", [
    400,
    pytest.param(2000, marks=pytest.mark.slow),
])
def test_mixed_load_gets_no_5xx_and_memory_stays_flat(requests):
    r = run_load(requests=requests, clients=8, max_tables=4, seed=1)
    assert r["requests"] == requests
    assert not [s for s in r["status"] if s >= 500], r["status"]
    for kind, seen in r["kinds"].items():
        assert set(seen) <= ALLOWED[kind], (kind, seen)
    assert r["tables_opened"] > 2 * r["max_tables"]  # the cap was exceeded: tables were evicted
    assert set(r["kinds"]) >= {"new", "act", "show", "bad2", "bad6"}
    # flat after eviction: the second half of the requests adds little resident memory
    assert r["rss_kib_end"] < 1.25 * r["rss_kib_warm"], (r["rss_kib_warm"], r["rss_kib_end"])
