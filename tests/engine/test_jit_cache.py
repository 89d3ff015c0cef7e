"""The engine's numba cache is dropped when any engine source file changes (numba keys a cached
kernel on its own file only, so a kernel would keep another module's old constants)."""

import os

from bgtui.engine._jit import _drop_stale_cache


def test_cache_dropped_when_any_engine_file_changes(tmp_path, monkeypatch):
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.delenv("NUMBA_DISABLE_JIT", raising=False)
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    a.write_text("x = 1\n")
    b.write_text("y = 2\n")
    cache = tmp_path / "__pycache__"
    cache.mkdir()
    stale = cache / "a.f-1.py311.nbi"
    stale.write_text("old")
    _drop_stale_cache(tmp_path)  # no stamp yet: whatever is cached may be stale
    assert not stale.exists() and (cache / "bgtui-engine.stamp").is_file()
    kept = cache / "a.f-1.py311.1.nbc"
    kept.write_text("new")
    _drop_stale_cache(tmp_path)  # nothing changed: the cache stays
    assert kept.exists()
    b.write_text("y = 3  # NUM_FEATURES changed\n")
    os.utime(b, ns=(b.stat().st_atime_ns, b.stat().st_mtime_ns + 10**9))
    _drop_stale_cache(tmp_path)  # b changed: a's kernels may have inlined b's constants
    assert not kept.exists()
    assert a.exists() and b.exists()  # only the cache goes
