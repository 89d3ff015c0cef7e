"""Rollout chunks on a Dask distributed cluster (``bgtui rollout ... --scheduler ADDRESS``).

A rollout's trials are a pure function of (root, trial index, settings, seed, evaluator), so
a chunk of trials can run anywhere: :class:`DaskChunks` is an executor of
:meth:`bgtui.analysis.rollout.RolloutJob.run` that submits each chunk as a Dask task
(:func:`run_chunk`), and the job merges the results strictly in trial order as it merges its
local threads' results: the numbers are bit for bit those of a local run, whatever the
number of machines, workers and chunk sizes.

Workers load the nets, the filter net and the bear-off databases from their own bgtui
install, once per worker process. Before the first chunk (:meth:`DaskChunks.start`) and
with every result, a worker's identity (:func:`worker_identity`: the bgtui version and a
digest of its code and weights, the Python, numpy and numba versions, a digest of the
evaluator it loaded) is compared with the client's; a worker that differs is refused with an
error naming it, so results of different versions never mix. A chunk whose worker dies is
computed again on another (Dask reschedules a lost worker's tasks; ``retries`` resubmits a
task that raised).

This module is imported only when a scheduler is given: a local rollout imports nothing of
Dask.
"""

from __future__ import annotations

import hashlib
import sys
import threading
import time

import numpy as np

from bgtui.analysis.weights import evaluator_digest
from bgtui.analysis.weights import net_digest as filter_digest

#: seconds to reach the scheduler before giving up
CONNECT_TIMEOUT = 5.0
#: seconds to wait for a first worker to join the scheduler
WORKER_TIMEOUT = 30.0
#: times a chunk whose task raised is resubmitted
RETRIES = 3
#: seconds of work a chunk aims at and its largest number of trials
#: (``benchmarks/rollout_cluster.py`` measures the overhead of a chunk)
CHUNK_SECONDS = 1.0
MAX_CHUNK = 20_000
#: Dask settings for the processes of a cluster that only runs rollouts (docs/cluster.md
#: gives them as environment variables for ``dask scheduler`` and ``dask worker``): Dask's
#: own monitoring (the workers' statistical profiler every 10 ms, the event loops' tick every
#: 20 ms, the nannies' memory monitor every 100 ms, the system monitor every 0.5 s) sampled
#: rarely or not at all, and no work stealing (every chunk is a task of about the same size,
#: queued on the scheduler until a worker thread is free). On a machine whose cores all run
#: workers, what Dask's threads take is taken from the rollouts.
QUIET_DASK_CONFIG = {
    "distributed.worker.profile.enabled": False,
    "distributed.admin.tick.interval": "1s",
    "distributed.worker.memory.monitor-interval": "1s",
    "distributed.admin.system-monitor.interval": "5s",
    "distributed.scheduler.work-stealing": False,
}


def quiet_dask_env() -> dict[str, str]:
    """:data:`QUIET_DASK_CONFIG` as the environment variables Dask reads at start
    (``DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED=False``, ...)."""
    return {
        "DASK_" + key.upper().replace(".", "__").replace("-", "_"): str(value)
        for key, value in QUIET_DASK_CONFIG.items()
    }


def start_processes(workers: int, env: dict, cwd, log) -> tuple[list, str]:
    """``dask scheduler`` and ``workers`` ``dask worker`` processes (one thread each, each with
    its nanny) on 127.0.0.1, started as docs/cluster.md starts them, with the environment
    ``env``, in the folder ``cwd``, their output to the file ``log``: (the processes, the
    scheduler's address). For the tests and benchmarks that run a real cluster on this
    machine; :func:`stop_processes` ends them."""
    import json
    import os
    import subprocess

    sched_file = os.path.join(cwd, f"scheduler-{workers}.json")
    dask = [sys.executable, "-m", "dask"]
    common = dict(env=env, stdout=log, stderr=log, cwd=cwd)
    procs = [
        subprocess.Popen(
            dask
            + ["scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard"]
            + ["--scheduler-file", sched_file],
            **common,
        )
    ]
    try:
        for _ in range(300):
            if os.path.exists(sched_file) and os.path.getsize(sched_file) > 0:
                break
            time.sleep(0.1)
        with open(sched_file) as f:
            address = json.load(f)["address"]
        for _ in range(workers):
            procs.append(
                subprocess.Popen(
                    dask
                    + ["worker", address, "--nthreads", "1", "--host", "127.0.0.1"]
                    + ["--no-dashboard"],
                    **common,
                )
            )
    except BaseException:
        stop_processes(procs)
        raise
    return procs, address


def stop_processes(procs) -> None:
    """End the processes of :func:`start_processes` (as ctrl-c would, the workers first;
    killed if one has not ended 20 s later)."""
    import signal
    import subprocess

    for p in reversed(procs):
        p.send_signal(signal.SIGINT)
    for p in reversed(procs):
        try:
            p.wait(timeout=20)
        except subprocess.TimeoutExpired:
            p.kill()


class ClusterError(ConnectionError):
    """The cluster cannot run the rollout (no scheduler, no worker, a refused worker, a chunk
    that failed on every retry); the message is one line."""


# -- the worker side ---------------------------------------------------------------------------
_WORKER: dict = {}
_WORKER_LOCK = threading.Lock()
_WORKER_LOCAL = threading.local()


_CODE: list = []


def code_identity() -> str:
    """The bgtui version, a digest of the install's code and weights (by content), the Python,
    numpy and numba versions and the CPU numba compiles for (a compiler of another version,
    or the nets' fast-math sums vectorised for another CPU, may round differently)."""
    if not _CODE:
        import llvmlite.binding as llvm
        import numba
        from numba.core import config

        from bgtui.analysis.server import fingerprint

        py = ".".join(map(str, sys.version_info[:3]))
        cpu = config.CPU_NAME or llvm.get_host_cpu_name()
        features = config.CPU_FEATURES
        if features is None:  # as numba's own code generator decides
            features = llvm.get_host_cpu_features().flatten()
        cpu += "/" + hashlib.sha256(features.encode()).hexdigest()[:8]
        _CODE.append(
            f"bgtui {fingerprint(contents=True)}, Python {py}, numpy {np.__version__}, "
            f"numba {numba.__version__}, CPU {cpu}"
        )
    return _CODE[0]


def _worker_context():
    """(evaluator, filter net, identity) of this worker process, loaded once from its own
    install as the command line loads them (shipped weights, bear-off databases)."""
    if not _WORKER:
        with _WORKER_LOCK:
            if not _WORKER:
                from bgtui.analysis.service import Analyzer
                from bgtui.analysis.weights import load_filter_net

                ev = Analyzer().ev
                fnet = load_filter_net()
                ident = {
                    "code": code_identity(),
                    "evaluator": evaluator_digest(ev),
                    "filter": filter_digest(fnet),
                }
                _WORKER.update(ev=ev, filter_net=fnet, identity=ident)
    return _WORKER["ev"], _WORKER["filter_net"], _WORKER["identity"]


def worker_identity() -> dict:
    """This worker's identity (see :func:`code_identity`, :func:`evaluator_digest`); loads
    its evaluator if it has not yet."""
    return dict(_worker_context()[2])


def run_chunk(roots, cubes, first, count, st, perms, seed, epoch):
    """The task of one chunk: trials ``first .. first + count - 1`` of ``roots`` on this
    worker's evaluator; ``(out, trials done, seconds computing, the worker's identity, its
    address)``."""
    from bgtui.analysis.rollout import compute_chunk

    ev, fnet, ident = _worker_context()
    flag = np.array([0, epoch], dtype=np.int64)
    # one engine workspace per worker thread, kept from task to task
    out, done, seconds = compute_chunk(
        _WORKER_LOCAL, roots, cubes, first, count, st, perms, seed, ev, fnet, flag
    )
    return out, done, seconds, ident, _worker_address()


def _worker_address() -> str:
    try:
        from distributed import get_worker

        return get_worker().address
    except ValueError:  # not inside a worker
        return "?"


# -- the client side ---------------------------------------------------------------------------
def _mismatch(name: str, theirs: dict, ours: dict, keys) -> str | None:
    for k in keys:
        if theirs.get(k) != ours.get(k):
            what = {
                "code": "runs",
                "evaluator": "evaluates with nets",
                "filter": "filters with net",
            }[k]
            ours_text = ours.get(k)
            if k == "evaluator":
                ours_text = (
                    f"{ours_text} (the workers load their shipped weights: --weights is not used)"
                )
            return f"worker {name} is refused: it {what} {theirs.get(k)}, this client {ours_text}"
    return None


class Cluster:
    """A connection to a Dask scheduler (see :func:`connect`)."""

    def __init__(self, client, address: str) -> None:
        self.client = client
        self.address = address

    def executor(self) -> DaskChunks:
        return DaskChunks(self)

    def close(self) -> None:
        try:
            self.client.close(timeout=2)
        except Exception:  # closing a connection that is already gone
            pass


def connect(
    address: str, timeout: float = CONNECT_TIMEOUT, worker_timeout: float = WORKER_TIMEOUT
) -> Cluster:
    """Connect to the Dask scheduler at ``address`` (``tcp://host:8786``, ``host:8786``) and
    wait for a worker; raise :class:`ClusterError` with a one-line message if none answers."""
    try:
        from distributed import Client
    except ImportError:
        raise ClusterError(
            "--scheduler needs Dask distributed: pip install 'bgtui[cluster]'"
        ) from None
    import logging

    # a scheduler that does not answer is reported once, by the error below
    logging.getLogger("distributed").setLevel(logging.CRITICAL)
    try:
        client = Client(address, timeout=timeout, set_as_default=False)
    except Exception as exc:
        raise ClusterError(
            f"no Dask scheduler answers at {address} (within {timeout:g} s: {type(exc).__name__})"
        ) from None
    try:
        client.wait_for_workers(1, timeout=worker_timeout)
    except Exception:
        client.close()
        raise ClusterError(
            f"the Dask scheduler at {address} has no worker (waited {worker_timeout:g} s)"
        ) from None
    return Cluster(client, address)


class DaskChunks:
    """An executor of :meth:`RolloutJob.run` on a Dask cluster (its interface: see
    ``rollout.LocalChunks``). Chunks are larger than local ones (a task costs a round trip
    to the scheduler and a worker); cancelling cancels the submitted tasks (a chunk already
    running finishes on its worker and is dropped)."""

    chunk_seconds = CHUNK_SECONDS
    max_chunk = MAX_CHUNK

    def __init__(self, cluster: Cluster) -> None:
        self.cluster = cluster
        self.client = cluster.client
        self._inputs = None
        self._epoch = 0
        self._identity: dict = {}
        self._keys: tuple = ()
        self._submitted: list = []
        self._slots = 1
        self._slots_at = -1.0
        self._wake = threading.Event()
        self._busy = None
        self._busy_at = -1.0
        self._watched: set = set()

    def start(self, inputs) -> None:
        """Check every worker's identity against the client's (the evaluator ``inputs.ev``
        and, with ``vr_filter``, ``inputs.filter_net``) before the first chunk."""
        self._identity = {"code": code_identity(), "evaluator": inputs.evaluator_id}
        self._keys = ("code", "evaluator")
        if inputs.filter_net is not None:
            self._identity["filter"] = inputs.filter_id
            self._keys += ("filter",)
        self._inputs = inputs
        # a worker with other code is refused, so the settings and nets decide as locally
        self._epoch = inputs.epoch
        try:
            found = self.client.run(worker_identity)
        except Exception as exc:
            raise ClusterError(
                f"cannot reach the workers of {self.cluster.address}: {type(exc).__name__}: {exc}"
            ) from None
        for name in sorted(found):
            why = _mismatch(name, found[name], self._identity, self._keys)
            if why:
                raise ClusterError(why)

    def slots(self) -> int:
        """Worker threads of the cluster (asked of the scheduler at most once a second)."""
        now = time.monotonic()
        if now - self._slots_at >= 1.0:
            self._slots_at = now
            try:
                self._slots = max(1, sum(self.client.nthreads().values()))
            except Exception:
                pass  # keep the last count; a lost scheduler shows in the results
        return self._slots

    def busy(self) -> tuple[int, int] | None:
        """(workers running a chunk of this rollout now, worker threads), for the progress
        display (asked of the scheduler at most once a second: each question takes CPU from
        the workers of a cluster on this machine); None if the scheduler does not answer."""
        now = time.monotonic()
        if now - self._busy_at >= 1.0:
            self._busy_at = now
            try:
                keys = {f.key for f in self._submitted if not f.done()}
                n = sum(1 for tasks in self.client.processing().values() if keys & set(tasks))
                self._busy = (n, self.slots())
            except Exception:
                self._busy = None
        return self._busy

    def submit(self, first: int, count: int, idx: np.ndarray):
        x = self._inputs
        fut = self.client.submit(
            run_chunk,
            x.roots[idx],
            x.cubes[idx],
            int(first),
            int(count),
            x.st,
            x.perms,
            int(x.seed),
            self._epoch,
            pure=False,
            retries=RETRIES,
        )
        self._submitted = [f for f in self._submitted if not f.done()] + [fut]
        self._watched &= {f.key for f in self._submitted}
        return fut

    def wait(self, futures, timeout: float) -> None:
        """Return when one of ``futures`` is done or after ``timeout`` seconds: a callback of
        each future sets an event this thread waits on (no polling, which would take CPU
        from a worker on this machine, and no chunk's arrays fetched: :meth:`result` fetches
        them once)."""
        wake = self._wake
        wake.clear()
        for f in futures:
            if f.key not in self._watched:
                self._watched.add(f.key)
                f.add_done_callback(lambda _f: wake.set())
        if futures and not any(f.done() for f in futures):
            wake.wait(timeout)

    def result(self, future):
        try:
            out, done, seconds, ident, name = future.result()
        except Exception as exc:
            first = str(exc).splitlines()[0] if str(exc) else ""
            raise ClusterError(
                f"a rollout chunk failed on the cluster {self.cluster.address}: "
                f"{type(exc).__name__}: {first}"
            ) from None
        why = _mismatch(name, ident, self._identity, self._keys)
        if why:
            raise ClusterError(why)
        return out, done, seconds

    def cancel(self) -> None:
        live = [f for f in self._submitted if not f.done()]
        if live:
            try:
                self.client.cancel(live)
            except Exception:
                pass  # the scheduler is gone: nothing left to cancel
        self._submitted = []

    def close(self) -> None:
        self.cancel()
