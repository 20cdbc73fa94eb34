"""The persistent compile cache (`disc_ir.compile(..., cache_dir=...)`, `DISC_CACHE_DIR`)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import disc_ir
from disc_ir.compile_cache import CompileCache, cache_key, normalize_source

ROOT = Path(__file__).resolve().parents[2]

GRAPH = """
func.func @main(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %t = mhlo.tanh %x : tensor<?x?xf32>
  %e = mhlo.exponential %t : tensor<?x?xf32>
  %r = mhlo.add %t, %e : tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
"""


def _x(shape: tuple[int, ...] = (3, 5)) -> np.ndarray:
    return np.random.default_rng(1).standard_normal(shape).astype(np.float32)


def test_miss_then_hit(tmp_path: Path) -> None:
    first = disc_ir.compile(GRAPH, cache_dir=tmp_path)
    assert not first.cached
    entries = list(tmp_path.glob("*.disc"))
    assert len(entries) == 1
    second = disc_ir.compile(GRAPH, cache_dir=tmp_path)
    assert second.cached and set(second.compile_times) == {"cache_load"}
    for shape in ((3, 5), (1, 1), (17, 2)):
        x = _x(shape)
        assert second(x)[0].tobytes() == first(x)[0].tobytes()
    # the same graph with other comments and blank lines is the same entry
    third = disc_ir.compile("// a comment\n" + GRAPH.replace("\n", "\n\n"), cache_dir=tmp_path)
    assert third.cached
    # another target option or graph is another entry
    other = disc_ir.compile(GRAPH.replace("mhlo.add", "mhlo.multiply"), cache_dir=tmp_path)
    assert not other.cached and len(list(tmp_path.glob("*.disc"))) == 2


def test_environment_switch_selects_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DISC_CACHE_DIR", str(tmp_path))
    disc_ir.compile(GRAPH)
    assert disc_ir.compile(GRAPH).cached
    # a switch that changes the compiled code changes the key
    key = cache_key(GRAPH, "cpu", "main")
    monkeypatch.setenv("DISC_SHARE_FUSION_LOWERING", "0")
    assert cache_key(GRAPH, "cpu", "main") != key


def test_corrupt_entry_is_recompiled_and_replaced(tmp_path: Path) -> None:
    want = disc_ir.compile(GRAPH, cache_dir=tmp_path)(_x())[0]
    (entry,) = tmp_path.glob("*.disc")
    for damage in (b"garbage", entry.read_bytes()[:200]):
        entry.write_bytes(damage)
        cache = CompileCache(tmp_path)
        assert cache.lookup(entry.stem) is None and cache.last_lookup == "corrupt"
        entry.write_bytes(damage)
        exe = disc_ir.compile(GRAPH, cache_dir=tmp_path)
        assert not exe.cached
        assert exe(_x())[0].tobytes() == want.tobytes()
        again = disc_ir.compile(GRAPH, cache_dir=tmp_path)
        assert again.cached and again(_x())[0].tobytes() == want.tobytes()


_WORKER = textwrap.dedent(
    """
    import sys, numpy as np, disc_ir
    exe = disc_ir.compile(sys.argv[2], cache_dir=sys.argv[1])
    x = np.arange(12, dtype=np.float32).reshape(3, 4) / 7
    np.save(sys.argv[3], exe(x)[0])
    """
)


def test_two_processes_compiling_at_once(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _WORKER, str(cache), GRAPH, str(tmp_path / f"out{i}.npy")],
            cwd=ROOT,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i in range(2)
    ]
    for p in procs:
        _, err = p.communicate(timeout=300)
        assert p.returncode == 0, err[-3000:]
    outs = [np.load(tmp_path / f"out{i}.npy") for i in range(2)]
    assert outs[0].tobytes() == outs[1].tobytes()
    assert len(list(cache.glob("*.disc"))) == 1
    assert not list(cache.glob(".*.tmp")), "a temporary file was left behind"
    hit = disc_ir.compile(GRAPH, cache_dir=cache)
    assert hit.cached
    x = np.arange(12, dtype=np.float32).reshape(3, 4) / 7
    assert hit(x)[0].tobytes() == outs[0].tobytes()


def test_size_bound_removes_least_recently_used(tmp_path: Path) -> None:
    graphs = [
        GRAPH.replace("mhlo.add", op) for op in ("mhlo.add", "mhlo.multiply", "mhlo.subtract")
    ]
    disc_ir.compile(graphs[0], cache_dir=tmp_path)
    (first,) = tmp_path.glob("*.disc")
    size = first.stat().st_size
    os.utime(first, (1, 1))  # the oldest
    cache = CompileCache(tmp_path, max_bytes=int(size * 2.5))
    for g in graphs[1:]:
        key = cache_key(g, "cpu", "main")
        cache.store(key, disc_ir.compile(g))
    assert len(cache.entries()) == 2 and not first.exists()
    assert cache.size() <= cache.max_bytes


def test_normalize_source_keeps_meaningful_text() -> None:
    a = 'func.func @f() attributes {s = "a  b"} // tail\n'
    assert normalize_source(a) == a.rstrip()
    assert normalize_source("x\r\n\n  // c\ny  ") == "x\ny"


def test_cache_dir_is_for_the_fused_mode(tmp_path: Path) -> None:
    with pytest.raises(disc_ir.CompileError, match="fused mode"):
        disc_ir.compile(GRAPH, mode="kernel-launch", cache_dir=tmp_path)
