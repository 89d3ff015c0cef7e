"""Rollouts on a Dask cluster of this machine: games/s against the number of worker processes,
and the overhead of a chunk, from which ``cluster.CHUNK_SECONDS`` is chosen.

    python benchmarks/rollout_cluster.py [--trials 10000] [--truncate 7] [--workers 1 2]
                                         [--chunk-seconds 1.0] [--repeat 3] [--dask-defaults]
                                         [--breakdown] [--paired ROUNDS [--cold]]

For each number of workers it starts a ``LocalCluster`` (one process a worker, one thread
each, on 127.0.0.1), warms the workers up (each loads the nets and bear-off databases and the
compiled kernels once), then times ``bgtui rollout``'s path (``Analyzer.scheduler``) on the
opening position: ``--trials`` trials truncated after ``--truncate`` rolls, default settings.
It prints games/s (the best of ``--repeat`` runs), the ratio to one worker, and that the figures
equal a local run's. The cluster runs with the settings docs/cluster.md gives for machines
that only run rollouts (``cluster.QUIET_DASK_CONFIG``: Dask's own monitoring rare or off);
``--dask-defaults`` runs it with Dask's own defaults instead. The same rollout on this process's threads (1 and 2) is the reference.

The overhead of a chunk is measured on one worker: chunks of 1 and of 64 trials, submitted
one after the other, ``t(c) = overhead + c x (time of a trial)``.

``--breakdown`` times one more rollout per cluster and prints, for each worker, its chunks and
its idle time before the first, between chunks and after the last, the wall time it spent
computing chunks, the CPU its computing thread got meanwhile and the CPU of its other
threads, and this process's CPU: where two workers lose against twice one.

``--paired ROUNDS`` measures the ratio on a machine whose speed drifts: it starts two clusters
as a user would (``dask scheduler`` and ``dask worker`` processes, one of 1 worker and one of
2), and in each round times one rollout on each (each cluster first in every other round),
the other cluster's processes paused (SIGSTOP) meanwhile, so that each ratio compares two runs
a few seconds apart. It prints every round's figures and the median ratio; beside it, the
machine's own ratio in that round: one against two processes of plain arithmetic (a VM whose
second core is shared shows it well below 2).

A worker keeps its play cache (the first three turns' plays and their variance-reduction
sums) from run to run while the settings and nets stay the same, as repeated rollouts on a
cluster find it: the first timed run on each cluster fills what the warm-up left, the later
runs find it filled. ``--cold`` empties the workers' caches before every timed run (a short
rollout with other settings in between), the figures of a first run on a fresh cluster.

The CPU must be idle for the ratio to mean anything (``uptime`` before and after is printed).
"""

import argparse
import os
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace

from bgtui.analysis.formats import parse_position
from bgtui.analysis.models import RolloutSettings
from bgtui.analysis.service import Analyzer

OPENING = "4HPwATDgc/ABMA"


def timed(an, settings, state):
    t0 = time.perf_counter()
    snap = None
    for snap in an.iter_rollout(state, settings):
        pass
    return snap, time.perf_counter() - t0


def best(an, settings, state, repeat):
    """The fastest of ``repeat`` runs: (its last snapshot, seconds)."""
    runs = [timed(an, settings, state) for _ in range(max(1, repeat))]
    return min(runs, key=lambda r: r[1])


def chunk_overhead(address, state, settings, reps):
    """(overhead of a chunk in s, time of a trial in s) on one worker."""
    import numpy as np
    from distributed import Client

    from bgtui.analysis import cluster as C
    from bgtui.analysis.rollout import engine_settings
    from bgtui.engine import make_permutations

    client = Client(address, set_as_default=False)
    roots = np.ascontiguousarray(state.position[None, :])
    cubes = np.array([[1.0, 0.0, 0.0]])
    st, perms = engine_settings(settings), make_permutations(settings.seed)
    times = {}
    for c in (1, 64):
        first = 100_000 * c  # away from the first turns' cached plays
        t0 = time.perf_counter()
        for i in range(reps):
            client.submit(
                C.run_chunk,
                roots,
                cubes,
                first + i * c,
                c,
                st,
                perms,
                settings.seed,
                12345 + i,
                pure=False,
            ).result()
        times[c] = (time.perf_counter() - t0) / reps
    client.close()
    per_trial = (times[64] - times[1]) / 63
    return times[1] - per_trial, per_trial


def _thread_cpu():
    """CPU seconds of each thread of this process, by thread name (run on each worker)."""
    import threading

    names = {t.native_id: t.name for t in threading.enumerate()}
    tick = os.sysconf("SC_CLK_TCK")
    out = {}
    for tid in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{tid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        name = names.get(int(tid), "other")
        out[name] = out.get(name, 0.0) + (int(fields[11]) + int(fields[12])) / tick
    return out


def breakdown(an, settings, state):
    """Where one rollout's time goes on the cluster: each worker's wall time computing chunks
    (Dask's task stream), the CPU its computing thread got meanwhile, the CPU of its other
    threads (event loop, monitors, profiler), and this process's CPU (client and, in a
    LocalCluster, scheduler)."""
    from distributed import get_task_stream

    client = an._cluster.client
    before = client.run(_thread_cpu)
    c0, t0, e0 = time.process_time(), time.perf_counter(), time.time()
    with get_task_stream(client) as ts:
        timed(an, settings, state)
    wall, here, e1 = time.perf_counter() - t0, time.process_time() - c0, time.time()
    after = client.run(_thread_cpu)
    spans: dict = {}
    for task in ts.data:
        for ss in task["startstops"]:
            if ss["action"] == "compute":
                spans.setdefault(task["worker"], []).append((ss["start"], ss["stop"]))
    busy = {w: sum(b - a for a, b in sp) for w, sp in spans.items()}
    for w, sp in sorted(spans.items()):
        sp.sort()
        gaps = sum(b[0] - a[1] for a, b in zip(sp, sp[1:]))
        print(
            f"  worker {w}: {len(sp)} chunks; idle {1000 * (sp[0][0] - e0):.0f} ms before the "
            f"first, {1000 * gaps:.0f} ms between chunks, {1000 * (e1 - sp[-1][1]):.0f} ms after "
            f"the last"
        )
    for w in sorted(after):
        d = {k: v - before[w].get(k, 0.0) for k, v in after[w].items()}
        compute = sum(v for k, v in d.items() if "Dask-Default-Threads" in k)
        print(
            f"  worker {w}: computing {busy.get(w, 0.0):.2f} s of {wall:.2f} s, its thread's "
            f"CPU {compute:.2f} s, other threads {sum(d.values()) - compute:.2f} s"
        )
    print(f"  this process (client, scheduler): {here:.2f} CPU s")


def _signal_tree(procs, sig) -> None:
    """Send ``sig`` to ``procs`` and all their descendants (a nanny's worker process)."""
    import psutil

    for p in procs:
        try:
            tree = [psutil.Process(p.pid)]
            tree += tree[0].children(recursive=True)
        except psutil.NoSuchProcess:
            continue
        for q in tree:
            try:
                q.send_signal(sig)
            except psutil.NoSuchProcess:
                pass


def _arithmetic(n: int = 4_000_000) -> float:
    """Seconds of a loop of plain arithmetic (the machine's speed, nothing of bgtui's)."""
    t = time.perf_counter()
    x = 0
    for i in range(n):
        x += i * i
    return time.perf_counter() - t


def machine_ratio(pool) -> float:
    """Work a second of two processes over one's, by the loop of :func:`_arithmetic`."""
    one = _arithmetic()
    two = max(pool.map(_arithmetic, [4_000_000, 4_000_000]))
    return 2 * one / two


def paired(args, state, settings, ref):
    """Rounds of one rollout on a 1-worker and on a 2-worker cluster, the other paused."""
    import signal
    import statistics
    import tempfile

    from bgtui.analysis import cluster as C

    env = dict(os.environ, BGTUI_NO_SERVER="1")
    if not args.dask_defaults:
        env.update(C.quiet_dask_env())
    warm = RolloutSettings(trials=144, truncate=args.truncate, seed=2)
    other = RolloutSettings(trials=8, truncate=args.truncate + 1, seed=2)
    clusters = {}
    with tempfile.TemporaryDirectory() as tmp:
        try:
            for n in (1, 2):
                log = open(os.path.join(tmp, f"cluster-{n}.log"), "w")
                procs, address = C.start_processes(n, env, tmp, log)
                an = Analyzer()
                an.scheduler = address
                clusters[n] = (procs, an)
                client = C.connect(address).client
                client.wait_for_workers(n, timeout=120)
                client.close()
                timed(an, warm, state)  # every worker loads its evaluator and kernels
                _signal_tree(procs, signal.SIGSTOP)
            ratios, ceilings = [], []
            pool = ProcessPoolExecutor(2)
            pool.submit(_arithmetic, 10).result()
            for r in range(args.paired):
                gps = {}
                for n in (1, 2) if r % 2 == 0 else (2, 1):  # drift within a round cancels
                    procs, an = clusters[n]
                    _signal_tree(procs, signal.SIGCONT)
                    if args.cold:
                        timed(an, other, state)  # other settings: the play caches start empty
                    time.sleep(0.5)
                    snap, el = timed(an, settings, state)
                    _signal_tree(procs, signal.SIGSTOP)
                    gps[n] = args.trials / el
                    if snap.rows != ref[1].rows:
                        print(f"  {n} workers: figures DIFFERENT from the local run")
                ratios.append(gps[2] / gps[1])
                ceilings.append(machine_ratio(pool))
                print(
                    f"round {r + 1}: 1 worker {gps[1]:6.0f} games/s, 2 workers {gps[2]:6.0f}: "
                    f"x{ratios[-1]:.2f}; the machine's arithmetic x{ceilings[-1]:.2f}",
                    flush=True,
                )
            pool.shutdown()
            print(
                f"median of {len(ratios)} rounds: x{statistics.median(ratios):.2f} "
                f"(range {min(ratios):.2f}-{max(ratios):.2f}); the machine's arithmetic "
                f"x{statistics.median(ceilings):.2f} ({min(ceilings):.2f}-{max(ceilings):.2f})"
            )
        finally:
            for procs, an in clusters.values():
                _signal_tree(procs, signal.SIGCONT)
                if an._cluster is not None:
                    an._cluster.close()
                C.stop_processes(procs)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--trials", type=int, default=10_000)
    ap.add_argument("--truncate", type=int, default=7)
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    ap.add_argument(
        "--chunk-seconds",
        type=float,
        default=None,
        help="seconds of work a cluster chunk aims at (default cluster.CHUNK_SECONDS)",
    )
    ap.add_argument("--reps", type=int, default=40, help="chunks timed for the overhead")
    ap.add_argument(
        "--repeat", type=int, default=3, help="timed runs of each case; the best is printed"
    )
    ap.add_argument(
        "--dask-defaults",
        action="store_true",
        help="the cluster with Dask's default settings, not cluster.QUIET_DASK_CONFIG",
    )
    ap.add_argument(
        "--paired",
        type=int,
        default=0,
        metavar="ROUNDS",
        help="rounds of one run on each of a 1- and a 2-worker cluster, the other paused",
    )
    ap.add_argument(
        "--cold",
        action="store_true",
        help="with --paired: the workers' play caches emptied before every timed run",
    )
    ap.add_argument(
        "--breakdown",
        action="store_true",
        help="one more run per cluster: each worker's computing time and CPU, Dask's own CPU",
    )
    args = ap.parse_args()
    import dask
    from distributed import LocalCluster

    from bgtui.analysis import cluster as C

    if not args.dask_defaults:
        dask.config.set(C.QUIET_DASK_CONFIG)
    print(
        "Dask settings: "
        + ("Dask's defaults" if args.dask_defaults else "cluster.QUIET_DASK_CONFIG")
    )

    if args.chunk_seconds is not None:
        C.DaskChunks.chunk_seconds = args.chunk_seconds
    print(f"load before: {os.getloadavg()[0]:.2f} (1-minute average, {os.cpu_count()} cores)")
    state = parse_position(OPENING)
    settings = RolloutSettings(trials=args.trials, truncate=args.truncate, seed=1)
    warm = RolloutSettings(trials=144, truncate=args.truncate, seed=2)
    local = Analyzer()
    timed(local, warm, state)
    ref = {}
    for w in (1, 2):
        snap, el = best(local, replace(settings, workers=w), state, args.repeat)
        ref[w] = snap
        print(f"local threads {w}: {args.trials / el:8.0f} games/s ({el:.1f} s)")
    if args.paired:
        paired(args, state, settings, ref)
        print(f"load after: {os.getloadavg()[0]:.2f}")
        return
    base = None
    for n in args.workers:
        with LocalCluster(
            n_workers=n,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,
        ) as lc:
            an = Analyzer()
            an.scheduler = lc.scheduler_address
            timed(an, warm, state)  # every worker loads its evaluator and kernels
            snap, el = best(an, settings, state, args.repeat)
            gps = args.trials / el
            base = base or gps
            same = snap.rows == ref[1].rows
            print(
                f"dask workers {n}: {gps:8.0f} games/s ({el:.1f} s), x{gps / base:.2f} of one "
                f"worker; figures {'identical to' if same else 'DIFFERENT from'} the local run"
            )
            if n == args.workers[0]:
                over, per = chunk_overhead(lc.scheduler_address, state, settings, args.reps)
                print(
                    f"chunk overhead {over * 1e3:.1f} ms, a trial {per * 1e3:.3f} ms: a chunk of "
                    f"{C.DaskChunks.chunk_seconds:g} s ({C.DaskChunks.chunk_seconds / per:.0f} "
                    f"trials) loses {100 * over / (over + C.DaskChunks.chunk_seconds):.1f}%"
                )
            if args.breakdown:
                breakdown(an, settings, state)
            an._cluster.close()
    print(f"load after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
