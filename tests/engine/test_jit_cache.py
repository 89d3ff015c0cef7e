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


def test_a_callers_cache_is_dropped_when_the_engine_changes(tmp_path, monkeypatch):
    # a benchmark's kernel inlines engine kernels: its cache must follow the engine's sources
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.delenv("NUMBA_DISABLE_JIT", raising=False)
    engine, bench = tmp_path / "engine", tmp_path / "bench"
    engine.mkdir()
    bench.mkdir()
    (engine / "inputs.py").write_text("NUM_FEATURES = 30\n")
    (bench / "eval.py").write_text("def f(): pass\n")
    _drop_stale_cache(bench, also=(engine,))
    kept = bench / "__pycache__" / "eval.f-1.py311.1.nbc"
    kept.write_text("compiled against 30 features")
    _drop_stale_cache(bench, also=(engine,))
    assert kept.exists()
    f = engine / "inputs.py"
    f.write_text("NUM_FEATURES = 10\n")
    os.utime(f, ns=(f.stat().st_atime_ns, f.stat().st_mtime_ns + 10**9))
    _drop_stale_cache(bench, also=(engine,))
    assert not kept.exists()


def test_kernels_outside_the_engine_get_the_check(tmp_path, monkeypatch):
    import importlib.util

    from bgtui.engine import _jit

    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.delenv("NUMBA_DISABLE_JIT", raising=False)
    src = tmp_path / "bench_mod.py"
    src.write_text("from bgtui.engine._jit import kernel\n\n@kernel\ndef f(x):\n    return x + 1\n")
    stale = tmp_path / "__pycache__" / "bench_mod.old_kernel-9.py311.nbi"
    stale.parent.mkdir()
    stale.write_text("old")
    spec = importlib.util.spec_from_file_location("bench_mod", src)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert mod.f(1) == 2
    assert not stale.exists() and (tmp_path / "__pycache__" / "bgtui-engine.stamp").is_file()
    assert tmp_path.resolve() in _jit._checked
