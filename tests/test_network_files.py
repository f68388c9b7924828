"""Network files are read by the ``safetensors`` package's numpy API (paohuzi_env.agents.network,
no torch): every committed network reads to the tensors the earlier hand-written parser gave, and a
file that is not one is refused with a ValueError naming it."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import safetensors.numpy
from safetensors import safe_open

from paohuzi_env.agents.network import read_safetensors
from tests.removed import COMMIT, at_commit, restore, tensor_digest
from tests.removed import RECORDED as REMOVED

ROOT = Path(__file__).resolve().parents[1]

# file: (tensors, parameters, SHA-256 of the tensors read). Computed with the hand-written parser
# that read these files before the safetensors package did, and checked equal to its arrays byte for
# byte then; the digest is over the sorted names, each name's shape (JSON) and float32 bytes.
# (The exploiters and the league networks left the tree after commit 0310807, and this list with them.
# Generation 3's full exports and the shipped pure-network and yongzhou-residual left HEAD after
# commit ecba453 and stay listed: they are read from that commit where the history is at hand,
# and the bytes of each are checked against tests/fixtures/removed_at_ecba453.json.)
COMMITTED = {
    "checkpoints/gen3/huaihua-r1.safetensors":
        (18, 1828542, "184a0c2a6f151e5439236ff6962ca3ce0dc51b3ce49d003a0c8a885402448f83"),
    "checkpoints/gen3/huaihua-r2-wide.safetensors":
        (18, 3734206, "79b2ee8fcda523956fa91c82885b0c5d0a5c45a190131b0101c337892d3bc06b"),
    "checkpoints/gen3/huaihua-r2.safetensors":
        (18, 1828542, "9aee51884e8d9c888d47acc7fb1732f079ab4aa24c516ca46967dbc22efa4385"),
    "checkpoints/gen3/huaihua-r3-wide.safetensors":
        (18, 3734206, "1804c5b909df6ba41c13aab2b867855bcb7dd746456c238844a2857d56a870c1"),
    "checkpoints/gen3/huaihua-r3.safetensors":
        (18, 1828542, "b640188262ba90b81c96ac6af1dc1601273e2b0a4444a1ed98f669447dd490c0"),
    "checkpoints/gen3/huaihua-r4-distilled.safetensors":
        (12, 3411133, "3ed11f244a8f39c39e191fa4143ff77732188184973a57b8f771b464b506ad30"),
    "checkpoints/gen3/huaihua-r4-oracle.safetensors":
        (20, 3898047, "69c7571dc84c4d03b05f053072753fc410236f09208f00c288486e8a3dd01890"),
    "checkpoints/gen3/huaihua-r4.safetensors":
        (18, 3734206, "0828f92ff6a915f3681f899bb56c876a8061d25a0c9a595ca1558bd86b7bf819"),
    "checkpoints/gen3/yongzhou-r1.safetensors":
        (18, 1836222, "9894f69c8a76ac0c32f4b0a89504b8d6c36d236daef4380fb4d0966018eb424d"),
    "checkpoints/gen3/yongzhou-r2.safetensors":
        (18, 1836222, "1e7ebe1164a579e955865e090f9aaddb453d1f976417ccb051bd3cb99246958e"),
    "checkpoints/shipped/distilled-yongzhou.safetensors":
        (18, 2293950, "9a75da367c539f349e18f760c3c2fadcf14f7e92221639b01b226019d4792fd0"),
    "checkpoints/shipped/distilled.safetensors":
        (18, 2282686, "e0ff21371c53e5fb1c26aaad0462a62243fa55914a2cdf9911f56ee457f7af89"),
    "checkpoints/shipped/policy.safetensors":
        (12, 595262, "33905263216e95b91a5db87049e885c836c86faf6e1f9e2b8e71a84067a0053d"),
    "checkpoints/shipped/pure-network.safetensors":
        (12, 579646, "82a2c81a819d1752b7c8c8b3a070afa0713dc9fa1fb3d3d37d7f6e6305f0eb56"),
    "checkpoints/shipped/yongzhou-residual.safetensors":
        (12, 600894, "18b02736e7ac7184382c7a19de222283bddc0d3f1c01757ae8b3357b57043903"),
    "paohuzi_env/networks/chance-huaihua.safetensors":
        (10, 192259, "bb96af469fc28860410f94a74a02eb922725aca0bf825031f64d56049b2dd57b"),
    "paohuzi_env/zoo/huaihua/gen3-r4-oracle/network.safetensors":
        (12, 3411133, "373c28562e8f92fbd57c1ac30bf6f236f8d9ad95b95b94809226e3397956617d"),
    "paohuzi_env/zoo/yongzhou/gen3-r2/network.safetensors":
        (12, 1509565, "7a205c97fafee67cdce0576f472dc5bb2b0a834e7de3f652d3e36b2eb78f19f5"),
}


@pytest.mark.parametrize("name", sorted(COMMITTED))
def test_each_committed_network_reads_to_the_same_tensors(name, tmp_path):
    path = ROOT / name
    if not path.is_file():
        assert name in REMOVED["files"], f"{name} is neither in this tree nor recorded as removed"
        path = restore(name, tmp_path)
        if path is None:
            pytest.skip(f"{name} left HEAD after commit {COMMIT}; that history is not at hand")
    tensors = read_safetensors(path)
    count, params, digest = COMMITTED[name]
    assert len(tensors) == count
    assert sum(a.size for a in tensors.values()) == params
    assert all(a.dtype == np.float32 and a.flags.c_contiguous for a in tensors.values())
    with safe_open(str(path), framework="np") as f:  # stored as F32, shapes as read
        assert sorted(f.keys()) == sorted(tensors)
        for key in f.keys():
            assert f.get_slice(key).get_dtype() == "F32"
            assert tuple(f.get_slice(key).get_shape()) == tensors[key].shape
    assert tensor_digest(tensors) == digest


def test_the_removed_files_are_listed_and_their_commit_holds_them():
    """Every network recorded as removed is listed above and is not at HEAD; ``git checkout
    ecba453 -- PATH`` brings back the very bytes recorded (the sidecars too)."""
    removed = {n for n in REMOVED["files"] if n.endswith(".safetensors")}
    assert removed <= set(COMMITTED)
    assert not any((ROOT / n).exists() for n in REMOVED["files"])
    for name, sha in sorted(REMOVED["files"].items()):
        blob = at_commit(name)
        if blob is None:
            pytest.skip(f"the history holding commit {COMMIT} is not at hand")
        assert hashlib.sha256(blob).hexdigest() == sha, name


def test_every_network_file_in_the_tree_reads():
    files = sorted((ROOT / "checkpoints").rglob("*.safetensors")) + sorted(
        (ROOT / "paohuzi_env" / "networks").glob("*.safetensors")) + sorted(
        (ROOT / "paohuzi_env" / "zoo").rglob("*.safetensors"))
    assert {str(f.relative_to(ROOT)) for f in files} >= {n for n in COMMITTED if (ROOT / n).is_file()}
    for f in files:
        assert read_safetensors(f), f


def test_reading_needs_no_torch():
    code = ("import sys\nfrom paohuzi_env.agents.network import read_safetensors\n"
            "t = read_safetensors('paohuzi_env/zoo/huaihua/gen3-r4-oracle/network.safetensors')\n"
            "assert t and 'torch' not in sys.modules, sorted(m for m in sys.modules if 'torch' in m)\n")
    res = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                         timeout=120)
    assert res.returncode == 0, res.stderr


def _good() -> bytes:
    return safetensors.numpy.save({"actor.0.weight": np.arange(6, dtype=np.float32).reshape(2, 3),
                                   "actor.0.bias": np.array([0.5, -1.0], dtype=np.float16)})


def test_a_good_file_reads_as_float32(tmp_path):
    p = tmp_path / "n.safetensors"
    p.write_bytes(_good())
    t = read_safetensors(p)
    assert t["actor.0.weight"].tolist() == [[0, 1, 2], [3, 4, 5]]
    assert t["actor.0.bias"].dtype == np.float32 and t["actor.0.bias"].tolist() == [0.5, -1.0]


def _header(entries: dict) -> bytes:
    h = json.dumps(entries).encode()
    h += b" " * (-len(h) % 8)
    return len(h).to_bytes(8, "little") + h


@pytest.mark.parametrize("blob, why", [
    (_good()[:-4], "incomplete metadata"),  # truncated in the tensor bytes
    (_good()[:5], "header too small"),  # shorter than the header length
    (b"", "header too small"),
    (b"this is a text file, not a network\n", "header too large"),
    (_good() + b"\0" * 8, "not fully covered"),  # trailing bytes
    ((7).to_bytes(8, "little") + b"[1,2,3]", "invalid JSON"),
    (_header({"w": {"dtype": "BF16", "shape": [2], "data_offsets": [0, 4]}}) + b"\0" * 4,
     "dtype 'BF16'"),
    (safetensors.numpy.save({"w": np.arange(3, dtype=np.int64)}), "tensor 'w' has dtype int64"),
    (_header({"w": {"dtype": "F32", "shape": [3], "data_offsets": [0, 8]}}) + b"\0" * 8,
     "invalid shape, data type, or offset"),  # offsets that do not match the shape
])
def test_a_file_that_is_not_a_network_is_refused_naming_it(tmp_path, blob, why):
    p = tmp_path / "bad.safetensors"
    p.write_bytes(blob)
    with pytest.raises(ValueError, match=rf"is not a valid safetensors file \({len(blob)} bytes\)") as e:
        read_safetensors(p)
    assert str(p) in str(e.value) and why in str(e.value)


def test_a_missing_file_is_a_value_error(tmp_path):
    with pytest.raises(ValueError, match="cannot read"):
        read_safetensors(tmp_path / "none.safetensors")
