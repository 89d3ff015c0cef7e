"""First start: worker processes that fill numba's on-disk cache and build the bear-off
databases while the app's own process compiles what a first evaluation needs.

numba compiles a kernel on one core. A first start (empty cache) therefore runs, side by side:

* the app's process: the kernels of evaluation, ranking plays and cube actions
  (``Analyzer.warm_up``), which it needs first;
* a ``databases`` worker from the first second: the bear-off databases, written to the cache
  directory (``bearoff_cache``), which the app memory-maps when they are there. Until then the
  app evaluates with the nets alone (races included); rollouts wait for the databases, so that
  a rollout's result never depends on how soon it was started;
* once the evaluator's kernels are in numba's cache, two compile workers: ``rollouts``
  (``python -m bgtui.analysis.warmup rollouts``) runs the service's own small rollouts and
  ``lookahead`` the 1- to 3-ply and cubeful lookahead. Their call graphs share the lookahead
  kernels (a rollout at 1-ply looks ahead); each worker holds a lock per kernel while it
  compiles it (:func:`compile_one_at_a_time`), so the other, reaching that kernel, waits and
  then loads it from the cache instead of compiling it a second time. The app then loads
  everything from the cache.

The workers run at a lower priority (``nice``) so that the app's own compilation keeps a core.
Once everything has been loaded, a stamp beside numba's cache (:func:`mark_warm`) records it:
later starts load all kernels in the app's process (about a second) and start no worker. A
worker that fails costs nothing but time: the app compiles what is missing itself.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

from bgtui.analysis.atomic import atomic_write_text

PARTS = ("rollouts", "lookahead", "databases")
_LOCKS = "bgtui-compile-locks"

_HERE = Path(__file__).resolve().parent
_ENGINE = _HERE.parent / "engine"


def _cache_dir() -> Path:
    env = os.environ.get("NUMBA_CACHE_DIR")
    return Path(env) if env else _ENGINE / "__pycache__"


def _stamp_path() -> Path:
    return _cache_dir() / "bgtui-warm.stamp"


def lock_file(kernel: str, cache_dir: Path | None = None) -> Path:
    """The file whose lock a first start's processes hold while compiling ``kernel``
    (``module.qualname``), in numba's cache directory (``cache_dir``, default this process's)."""
    cache = cache_dir if cache_dir is not None else _cache_dir()
    return cache / _LOCKS / hashlib.sha1(kernel.encode()).hexdigest()


def compile_one_at_a_time() -> None:
    """Make this process take a file lock per kernel around each numba compile.

    Every process of a first start (the app's and its workers) compiles under these locks. Two
    compile workers walk the same call graph from different ends, and the app's process and the
    databases worker both start with move generation. A process that reaches a kernel another
    is compiling waits for the lock and then finds the kernel in numba's on-disk cache
    (``Dispatcher.compile`` looks there first), instead of compiling it again. So each kernel is
    compiled once: a separate kernel (``bgtui.engine._jit``) compiled in two processes has two
    symbols, and a process that holds one would compile again every kernel cached against the
    other. Nor do two processes write a kernel's cache index at once (each would drop the
    other's entry).
    Locks are taken in call-graph order (a kernel's lock is held while its callees compile) and
    the graph has no cycles, so the workers cannot deadlock; a lock dies with its process."""
    try:
        import fcntl
    except ImportError:  # no flock: the workers may compile a kernel twice, nothing worse
        return
    from numba.core import dispatcher

    if getattr(dispatcher.Dispatcher.compile, "_bgtui_locked", False):
        return

    cache = _cache_dir()
    try:
        (cache / _LOCKS).mkdir(parents=True, exist_ok=True)
    except OSError:
        return
    original = dispatcher.Dispatcher.compile

    def compile_locked(self, sig):
        name = f"{self.py_func.__module__}.{self.py_func.__qualname__}"
        try:
            fd = os.open(lock_file(name, cache), os.O_RDWR | os.O_CREAT, 0o600)
        except OSError:
            return original(self, sig)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            return original(self, sig)
        finally:
            os.close(fd)  # releases the lock

    compile_locked._bgtui_locked = True
    dispatcher.Dispatcher.compile = compile_locked


def _digest() -> str:
    """What the cached kernels depend on: the engine's and the services' sources (size and
    time of each file: they pick the argument types), numba's and Python's versions."""
    import numba

    h = hashlib.sha256(
        f"{numba.__version__};{sys.version};{os.environ.get('NUMBA_CACHE_DIR', '')};".encode()
    )
    for d in (_ENGINE, _HERE):
        for f in sorted(d.glob("*.py")):
            st = f.stat()
            h.update(f"{f}:{st.st_size}:{st.st_mtime_ns};".encode())
    return h.hexdigest()


def is_warm() -> bool:
    """Did a start with these sources load every kernel from numba's cache already?"""
    try:
        return _stamp_path().read_text() == _digest()
    except OSError:
        return False


def mark_warm() -> None:
    """Record that numba's cache holds every kernel the app needs (see :func:`is_warm`)."""
    try:
        atomic_write_text(_stamp_path(), _digest(), mode=0o644)
    except OSError:
        pass  # a read-only install: every start then compiles or loads in-process


class Worker:
    """One worker process; ``stage`` is the last line it printed, ``done`` whether it ended
    with success."""

    def __init__(self, part: str, weights: str | None) -> None:
        self.part = part
        self.started = time.monotonic()
        self.stage = "starting"
        cmd = [sys.executable, "-m", "bgtui.analysis.warmup", part]
        if weights:
            cmd += ["--weights", str(weights)]
        env = dict(os.environ)
        # the worker imports this copy of bgtui whatever the current directory
        root = str(_HERE.parent.parent)
        env["PYTHONPATH"] = os.pathsep.join(
            [root] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
        )
        self.proc = subprocess.Popen(
            cmd,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            stdin=subprocess.DEVNULL,
            env=env,
            text=True,
            start_new_session=True,
        )
        self._reader = threading.Thread(target=self._read, daemon=True, name=f"bgtui-warmup-{part}")
        self._reader.start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            line = line.strip()
            if line:
                self.stage = line

    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for the worker to end; True when it succeeded."""
        try:
            code = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            return False
        self._reader.join(1.0)
        return code == 0

    @property
    def running(self) -> bool:
        return self.proc.poll() is None

    def stop(self) -> None:
        if self.running:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()


_workers: list[Worker] = []
_atexit_registered = False


def start_workers(parts, weights: str | None = None) -> dict:
    """Start one worker process per part (``PARTS``); returns ``{part: Worker}``."""
    global _atexit_registered
    # the engine's stale-cache check runs here (on the first import of ``kernel``), before any
    # worker starts: a worker must not clear the cache while this process fills it
    from bgtui.engine import kernel  # noqa: F401

    if not _atexit_registered:
        import atexit

        atexit.register(stop_workers)
        _atexit_registered = True
    out = {}
    for part in parts:
        try:
            w = Worker(part, weights)
        except OSError:
            continue  # no worker: the app does the part itself
        _workers.append(w)
        out[part] = w
    return out


def worker_pids() -> list[int]:
    """The process ids of the workers still running (for measurements)."""
    return [w.proc.pid for w in _workers if w.running]


def stop_workers() -> None:
    """Stop the workers still running (the app is quitting)."""
    for w in _workers:
        w.stop()


def _analyzer(weights: str | None):
    """A service whose evaluator has the app's types, without the databases."""
    from bgtui.analysis.service import Analyzer
    from bgtui.analysis.weights import DEFAULT_WEIGHTS, load_weights, with_databases

    an = Analyzer(weights)
    ev, an.weights_meta = load_weights(weights or DEFAULT_WEIGHTS)
    an._ev = with_databases(ev, bearoff=False)
    return an


def _say(stage, _fraction=None) -> None:
    print(stage, flush=True)


def _rollouts(weights: str | None) -> None:
    _analyzer(weights).warm_up_rollouts(_say)


def _lookahead(weights: str | None) -> None:
    an = _analyzer(weights)
    an.warm_up_rollout_parts(_say)  # the rollouts' worker meanwhile compiles from the top
    an.warm_up_lookahead(_say)


def _databases() -> None:
    from bgtui.analysis import bearoff_cache as bc

    print("one-sided", flush=True)
    bc.get_one_sided()
    print("two-sided", flush=True)
    bc.get_two_sided()
    print("extended one-sided", flush=True)
    bc.get_extended_one_sided()


def main(argv=None) -> int:
    import argparse

    ap = argparse.ArgumentParser(
        prog="python3 -m bgtui.analysis.warmup",
        description="Fill numba's cache or build the bear-off "
        "databases (what the app starts on a first start)",
    )
    ap.add_argument("part", choices=PARTS)
    ap.add_argument("--weights", default=None)
    args = ap.parse_args(argv)
    try:
        os.nice(10)  # the app's own compilation comes first
    except OSError:
        pass
    compile_one_at_a_time()
    if args.part == "databases":
        _databases()
    else:
        (_rollouts if args.part == "rollouts" else _lookahead)(args.weights)
    print("done", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
