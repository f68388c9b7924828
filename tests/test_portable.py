"""The core's portable fallbacks (``_core/portable.hpp``) compute what the builtins do.

``tests/cpp/portable_check.cpp`` prints bit scans, bit counts, 128-bit products, the loose-card
bit sets (SSE2 or the scalar loop) and numpy-exact deals (PCG64 on ``U128``). It is compiled
twice, as the extension is and with ``-DPHZ_PORTABLE_ONLY`` (the plain C++ that MSVC or an ARM
build would use); the two must print the same, and the deals must be numpy's
(``engine.draw_deal``). Skipped where no C++ compiler is found.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from paohuzi_env.game.engine import draw_deal
from paohuzi_env.game.rules import get_rules

ROOT = Path(__file__).resolve().parent.parent
CORE = ROOT / "paohuzi_env" / "backends" / "_core"
CXX = os.environ.get("CXX") or shutil.which("c++") or shutil.which("g++") or shutil.which("clang++")


def _run(tmp_path: Path, *defines: str) -> list[str]:
    exe = tmp_path / ("check" + "".join(d.replace("-D", "_") for d in defines))
    cmd = [CXX, "-std=c++17", "-O1", "-Wall", "-Wextra", "-Werror", *defines, f"-I{CORE}",
           str(ROOT / "tests" / "cpp" / "portable_check.cpp"), str(CORE / "numpy_rng.cpp"),
           str(CORE / "common.cpp"), "-o", str(exe)]
    subprocess.run(cmd, check=True, capture_output=True, timeout=300)
    return subprocess.run([str(exe)], check=True, capture_output=True, text=True,
                          timeout=60).stdout.splitlines()


@pytest.mark.skipif(CXX is None, reason="no C++ compiler")
def test_fallbacks_agree_with_builtins_and_numpy(tmp_path):
    native = _run(tmp_path)
    plain = _run(tmp_path, "-DPHZ_PORTABLE_ONLY")
    assert plain[0] == "sse2 0"  # the scalar loop of bits.hpp was compiled
    assert native[1:] == plain[1:]
    deals = [line.split() for line in plain if line.startswith("deal ")]
    assert len(deals) == 10
    for _, seed, n_wang, dealer, *deck in deals:
        rules = get_rules("yongzhou" if n_wang == "2" else "huaihua")
        want_dealer, want_deck = draw_deal(rules, seed=int(seed))
        assert (int(dealer), [int(k) for k in deck]) == (want_dealer, list(want_deck)), seed
