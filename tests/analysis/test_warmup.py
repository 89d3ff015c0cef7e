"""First-start machinery: the warm stamp, the compile workers, the status estimates, and the
0-ply path that lets a first evaluation run before the lookahead is compiled."""

import numpy as np
import pytest

from bgtui.analysis import warmup


def test_warm_stamp_follows_the_sources(tmp_path, monkeypatch):
    monkeypatch.setattr(warmup, "_stamp_path", lambda: tmp_path / "bgtui-warm.stamp")
    assert not warmup.is_warm()
    warmup.mark_warm()
    assert warmup.is_warm()
    monkeypatch.setattr(warmup, "_digest", lambda: "other sources")
    assert not warmup.is_warm()  # an edited engine recompiles, with the workers' help


def test_a_failing_worker_reports_failure_and_ends(monkeypatch):
    # a part the worker does not know: it exits with status 2 at once
    monkeypatch.setattr(warmup, "PARTS", warmup.PARTS)
    w = warmup.Worker("no-such-part", None)
    assert w.wait(60) is False
    assert not w.running
    assert w.proc.pid not in warmup.worker_pids()


def test_ticker_estimates_count_down_and_scale_with_a_slow_machine(monkeypatch):
    from bgtui.analysis import service

    clock = [100.0]
    monkeypatch.setattr(service.time, "monotonic", lambda: clock[0])
    monkeypatch.setattr(service, "COLD_SECONDS", ({"a": 10.0, "b": 20.0}, {"c": 5.0}))
    t = service._Ticker(None, cold=True)
    t.stage("a")
    assert t.text() == "compiling a (first start): about 30 s to the first evaluation"
    clock[0] += 6.0
    assert t.text() == "compiling a (first start): about 25 s to the first evaluation"
    clock[0] += 24.0  # a took 30 s against 10: (30 + 10) / (10 + 10) = 2x the rest
    t.stage("b")
    assert t.text() == "compiling b (first start): about 40 s to the first evaluation"
    clock[0] += 38.0
    assert (
        t.text() == "compiling b (first start): about 2 s to the first evaluation"
        or t.text() == "compiling b (first start): a few seconds to the first evaluation"
    )
    t.stage("c")
    assert t.text().endswith("left") and "compiling c" in t.text()
    t.stage("loading rollouts")
    assert t.text() == "loading rollouts"
    t.close()


def test_ticker_reports_a_workers_stage_and_time_left(monkeypatch):
    from bgtui.analysis import service

    class W:
        part, stage = "databases", "extended one-sided"

        def elapsed(self):
            return 25.0

    monkeypatch.setattr(service, "COLD_WORKER_SECONDS", {"databases": 40.0})
    t = service._Ticker(None, cold=True)
    t.wait_for(W(), "building bear-off databases")
    assert t.text() == "building bear-off databases (extended one-sided): about 15 s left"
    W.elapsed = lambda self: 55.0  # past the estimate: no "a few seconds left" for minutes
    assert (
        t.text() == "building bear-off databases (extended one-sided): 55 s so far, "
        "slower than usual"
    )
    t.close()


@pytest.fixture(scope="module")
def analyzer():
    from bgtui.analysis.service import Analyzer
    from bgtui.analysis.weights import load_weights, with_databases

    an = Analyzer()
    an._ev = with_databases(load_weights()[0], bearoff=False)
    return an


def test_zero_ply_path_is_bit_for_bit_the_plied_kernels(analyzer):
    from bgtui.analysis.formats import parse_position
    from bgtui.engine.evaluate import _evaluate_after_plied, _evaluate_plied
    from bgtui.engine.movegen import generate_plays

    rng = np.random.default_rng(5)
    race = np.zeros(26, dtype=np.int8)  # a bear-off: some rolls end the game (gammons too)
    race[1], race[2], race[19:25] = 1, 1, [-2, -3, -2, -3, -2, -3]
    boards = [
        parse_position("4HPwATDgc/ABMA").position,
        parse_position("XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10").position,
        race,
    ]
    checked = 0
    for board in boards:
        want = np.zeros(5, dtype=np.float32)
        _evaluate_plied(board, 0, analyzer.ev, analyzer._lws(), want)
        assert np.array_equal(analyzer.probabilities(board, 0), want)
        for d1, d2 in rng.integers(1, 7, size=(4, 2)):
            children, _ = generate_plays(board, int(d1), int(d2))
            for c in children:
                want = np.zeros(5, dtype=np.float32)
                _evaluate_after_plied(c, 0, analyzer.ev, analyzer._lws(), want)
                assert np.array_equal(analyzer._after_probs(c, 0), want)
                checked += 1
    assert checked > 30


def test_compile_workers_lock_each_kernel_while_compiling_it(tmp_path):
    """A worker that installed the per-kernel locks still compiles and runs kernels, and
    takes one lock file per kernel in numba's cache directory."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    code = """
from bgtui.analysis import warmup
warmup.compile_one_at_a_time()
from numba import njit
@njit(cache=True)
def twice(x):
    return 2 * x
@njit(cache=True)
def outer(x):
    return twice(x) + 1
print(outer(20))
"""
    script = tmp_path / "kernels.py"
    script.write_text(code)
    root = str(Path(warmup.__file__).resolve().parents[2])  # this checkout's bgtui
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path), PYTHONPATH=root)
    out = subprocess.run(
        [sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "41"
    locks = {warmup.lock_file(k, tmp_path) for k in ("__main__.outer", "__main__.twice")}
    assert set(next(iter(locks)).parent.iterdir()) == locks


def test_rollout_parts_are_the_signatures_a_service_rollout_compiles(tmp_path):
    """The second compile worker's list (``engine.warmup.rollout_parts``) names exactly the
    specialisations the service's rollouts compile, so that the two workers share them. Run
    on an empty numba cache: a kernel loaded from the cache does not compile its callees."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    code = """
from bgtui.analysis import warmup
from bgtui.engine.warmup import rollout_parts
an = warmup._analyzer(None)
an.warm_up_rollouts(None)
parts = rollout_parts(an.ev)
print(len(parts), [k.py_func.__name__ for k, t in parts
                   if tuple(t) not in [tuple(s) for s in k.signatures]])
"""
    root = str(Path(warmup.__file__).resolve().parents[2])
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path), PYTHONPATH=root, BGTUI_NO_SERVER="1")
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=1800
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().splitlines()[-1] == "16 []"
