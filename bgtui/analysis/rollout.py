"""Rollout jobs: chunked, parallel, deterministic, streamed as immutable snapshots.

A :class:`RolloutJob` owns running sums over trials. An executor runs the engine's chunk kernel
on disjoint trial ranges (:class:`LocalChunks`: threads of this process, the kernel being
``nogil``; ``bgtui.analysis.cluster``: a Dask cluster); results are merged strictly in trial
order, so the sums
(and so every figure) are bit-identical whatever the number of workers or the chunk sizes, and
a job stopped after N trials and continued to M gives exactly the M-trial result. The job state
can be saved to JSON (atomically) and loaded again.
"""

from __future__ import annotations

import glob
import json
import math
import os
import threading
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import NamedTuple

import numpy as np

from bgtui.analysis.atomic import atomic_write
from bgtui.analysis.cancel import CancelToken
from bgtui.analysis.models import (
    DEFAULT_PRUNE,
    MAX_VR_FILTER,
    Equities,
    PlayRow,
    Probabilities,
    RolloutSettings,
    RolloutSnapshot,
    extend_history,
)
from bgtui.analysis.options import MAX_ROLLS, MAX_SECONDS, MAX_SEED, MAX_TRIALS, MAX_WORKERS

STATE_VERSION = 1
SNAPSHOT_INTERVAL = 0.15  # seconds between snapshots (>= 5 per second)
DECISION_INTERVAL = 72  # trials between stop/prune decisions
_job_ids = iter(range(1, 1 << 62))


class LiveMatch(NamedTuple):
    """The live cube at a match score (:meth:`RolloutJob.set_match`): the score the trials
    play at, from the root player's view."""

    met: np.ndarray  #: the match equity table (the engine's layout, ``MatchEquityTable.array``)
    away: int  #: the points the root player still needs
    opp_away: int  #: and his opponent
    crawford: bool  #: the Crawford game (nobody doubles)


def engine_settings(s: RolloutSettings, live_match: LiveMatch | None = None):
    """The engine's :class:`bgtui.engine.structs.RolloutSettings` of these settings.
    ``live_match``: the live cube at a match score: the trials then use the cube with the
    match's decisions and score in MWC (no settlement states, no Jacoby rule, no Zehr
    split)."""
    from bgtui.engine import make_settings

    common = dict(
        truncate=s.truncate,
        ply=s.ply,
        late_ply=s.late_ply,
        late_after=s.late_after if s.late_after is not None else -1,
        vr=s.variance_reduction,
        quasi=s.quasi_random,
        stratify_all=s.stratify_all,
        bearoff=s.bearoff_truncation,
        one_sided=s.one_sided_truncation,
        initial=s.initial_position,
        vr_filter=s.vr_filter,
    )
    if live_match is not None:
        return make_settings(
            **common,
            live_cube=True,
            jacoby=False,
            met=live_match.met,
            away=(live_match.away, live_match.opp_away),
            crawford=live_match.crawford,
        )
    return make_settings(
        **common,
        cubeful=s.cubeful,
        settle=s.settlement_limit,
        play_on=s.gammon_play_on,
        live_cube=getattr(s, "live_cube", False),
        jacoby=getattr(s, "jacoby", True),
        zehr=s.zehr_split,
    )


#: the settings that decide a rollout's figures (the rest only when or how fast it stops)
RESULT_SETTINGS = (
    "seed",
    "truncate",
    "ply",
    "late_ply",
    "late_after",
    "variance_reduction",
    "vr_filter",
    "quasi_random",
    "stratify_all",
    "bearoff_truncation",
    "one_sided_truncation",
    "initial_position",
    "cubeful",
    "settlement_limit",
    "gammon_play_on",
    "live_cube",
    "jacoby",
    "zehr_split",
    "prune_sigma",
)


def _is_int(v) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def _is_num(v) -> bool:
    return (_is_int(v) or isinstance(v, (float, np.floating))) and math.isfinite(v)


#: the settings that are switches (bool fields), in the order RolloutSettings declares them
_SWITCHES = tuple(f.name for f in fields(RolloutSettings) if f.type in ("bool", bool))


def validate_settings(s: RolloutSettings) -> RolloutSettings:
    """Raise ValueError naming the first bad setting: every count a whole number in its range,
    every real number finite and in its range, every switch a bool."""
    for name in _SWITCHES:
        if not isinstance(getattr(s, name), (bool, np.bool_)):
            raise ValueError(
                f"{name.replace('_', '-')} must be true or false, got {getattr(s, name)!r}"
            )

    def whole(name, v, lo, hi, what, optional=False):
        if optional and v is None:
            return
        if not _is_int(v) or not lo <= v <= hi:
            raise ValueError(f"{name} must be a whole number from {lo} to {hi} ({what}), got {v!r}")

    def real(name, v, lo, hi, what, optional=False, positive=False):
        if optional and v is None:
            return
        if not _is_num(v) or not lo <= v <= hi or (positive and v <= 0):
            rng = f"above 0 and at most {hi:g}" if positive else f"from {lo:g} to {hi:g}"
            raise ValueError(f"{name} must be a finite number {rng} ({what}), got {v!r}")

    whole("trials", s.trials, 1, MAX_TRIALS, "trials to run")
    whole("seed", s.seed, 0, MAX_SEED, "same seed, same dice")
    whole("truncate", s.truncate, 0, MAX_ROLLS, "0 plays to the end, else rolls a trial")
    whole("ply", s.ply, 0, 2, "checker-play ply inside a rollout")
    whole("late ply", s.late_ply, 0, 2, "checker-play ply after late-after", optional=True)
    whole("late-after", s.late_after, 0, MAX_ROLLS, "rolls before the late ply", optional=True)
    real("settlement limit", s.settlement_limit, -3.0, 3.0, "a cubeless equity")
    real("play-on", s.gammon_play_on, -3.0, 3.0, "a cubeless equity")
    real(
        "stop-se",
        s.stop_se,
        0.0,
        3.0,
        "a standard error of the equity",
        optional=True,
        positive=True,
    )
    real("time limit", s.time_limit, 0.0, MAX_SECONDS, "seconds", optional=True, positive=True)
    real("prune-sigma", s.prune_sigma, 0.0, 1000.0, "standard errors", optional=True, positive=True)
    whole("vr-filter", s.vr_filter, 0, MAX_VR_FILTER, "0 values every play, else plays a roll")
    whole("workers", s.workers, 0, MAX_WORKERS, "0 = all cores")
    return s


class ChunkInputs(NamedTuple):
    """What every chunk of one run shares: the roots (int8[R, 26]) and their cubes
    (float64[R, 3]), the engine settings, the dice permutations and seed, the evaluator and
    filter net (None when neither ``vr_filter`` nor checker play at 1-ply or deeper uses one;
    with one, the lookahead of that checker play is pruned) with their digests
    (``weights.evaluator_digest``, ``weights.net_digest``; "" for no filter net), and the
    run's play-cache epoch (:func:`play_cache_epoch`)."""

    roots: np.ndarray
    cubes: np.ndarray
    st: tuple
    perms: np.ndarray
    seed: int
    ev: tuple
    filter_net: tuple | None
    evaluator_id: str
    filter_id: str
    epoch: int


def play_cache_epoch(st, identity: dict) -> int:
    """The epoch under which an engine workspace keeps its play cache
    (``engine.rollout.make_play_cache``) from chunk to chunk and from run to run: a digest of
    everything an entry depends on besides its position and roll, the engine settings ``st``
    and ``identity`` (digests of the nets). Runs with the same settings and evaluator share the
    entries, locally and on a cluster's workers; any other run empties the cache first.
    Non-zero, as the kernel requires."""
    import hashlib

    h = hashlib.sha256()
    for k in sorted(identity):
        h.update(f"{k}={identity[k]};".encode())
    for name, v in zip(st._fields, st):
        if isinstance(v, np.ndarray):
            a = np.ascontiguousarray(v)
            h.update(f"{name}={a.dtype.str}{a.shape}:".encode() + a.tobytes() + b";")
        else:
            h.update(f"{name}={v!r};".encode())
    return int.from_bytes(h.digest()[:8], "little") & ((1 << 62) - 1) | 1


#: the engine workspaces of finished local runs with their play caches, for the next run:
#: (key, list), key = (hidden units, filter net digest); one key at a time, at most
#: ``MAX_SPARE`` workspaces
_SPARE: list = [None, []]
_SPARE_LOCK = threading.Lock()
MAX_SPARE = 16


def _take_workspaces(key, n: int, epoch: int) -> list:
    """Up to ``n`` spare workspaces made for ``key``, those whose play cache holds under
    ``epoch`` first, then the most recently used (each leaves the spares)."""
    with _SPARE_LOCK:
        if _SPARE[0] != key:
            return []
        spare = sorted(_SPARE[1], key=lambda ws: ws.cache.epoch[0] != epoch)  # stable
        taken, _SPARE[1] = spare[:n], spare[n:]
        return taken


def _give_workspaces(key, spare: list) -> None:
    with _SPARE_LOCK:
        if _SPARE[0] != key:
            _SPARE[0], _SPARE[1] = key, []
        _SPARE[1] = (spare + _SPARE[1])[:MAX_SPARE]


def compute_chunk(local, roots, cubes, first, count, st, perms, seed, ev, filter_net, stop):
    """Trials ``first .. first + count - 1`` of ``roots`` (their ``cubes``) on this thread, with
    the engine settings ``st``, the dice permutations ``perms`` and ``seed`` (as in
    :class:`ChunkInputs`) and the evaluator ``ev``: ``(out float64[len(roots), count,
    NUM_OUT], trials done, seconds the kernel ran)``. ``local`` (an object no other thread uses
    meanwhile: a ``threading.local``, a holder) keeps an engine workspace (for ``filter_net``)
    in its ``ws`` from chunk to chunk, made here the first time; ``stop``: int64[2], [0] set
    makes the chunk return early, [1] is the run's play-cache epoch."""
    from bgtui.engine import NUM_OUT, hidden_size, make_rollout_workspace, rollout_chunk

    ws = getattr(local, "ws", None)
    if ws is None:
        # checker play at 1-ply and deeper prunes its lookahead as the analysis does
        prune = DEFAULT_PRUNE if filter_net is not None else 0
        ws = local.ws = make_rollout_workspace(hidden_size(ev), filter_net, prune)
    out = np.zeros((len(roots), count, NUM_OUT))
    t0 = time.perf_counter()
    done = rollout_chunk(roots, cubes, first, count, st, perms, seed, ev, ws, out, stop)
    return out, int(done), time.perf_counter() - t0


class LocalChunks:
    """The default executor of :meth:`RolloutJob.run`: chunks on a pool of threads of this
    process, each chunk with an engine workspace of its own while it runs (the chunk kernel
    releases the GIL). The workspaces, with their play caches, are kept for the next run
    (:func:`play_cache_epoch` says when a cache still holds).

    An executor is started once a run (:meth:`start`), then gets chunks (trials ``first ..
    first + count - 1`` of the roots ``idx``) with :meth:`submit`; a future's :meth:`result`
    is ``(out float64[len(idx), count, NUM_OUT], trials done, seconds the chunk computed)``.
    :meth:`slots` is the number of chunks that run at once (the job keeps twice as many
    submitted); a chunk aims at ``chunk_seconds`` of work, at most ``max_chunk`` trials.
    """

    chunk_seconds = 0.08
    max_chunk = 1296

    def __init__(self, workers: int = 0) -> None:
        self.workers = workers or os.cpu_count() or 1
        self._pool = None
        self._stop = None
        self._work = None
        self._holders: list = []
        self._key = None

    def start(self, inputs: ChunkInputs) -> None:
        from queue import SimpleQueue
        from types import SimpleNamespace

        from bgtui.engine import hidden_size

        # [0]: stop (chunks in flight return early); [1]: the run's epoch
        stop = self._stop = np.array([0, inputs.epoch], dtype=np.int64)
        x = inputs
        self._key = (hidden_size(x.ev), x.filter_id)
        spare = _take_workspaces(self._key, self.workers, inputs.epoch)
        # one holder per thread; compute_chunk makes a workspace for a holder without one
        self._holders = [SimpleNamespace(ws=ws) for ws in spare]
        self._holders += [SimpleNamespace() for _ in range(self.workers - len(spare))]
        free = SimpleQueue()
        for h in self._holders:
            free.put(h)

        def work(first, count, idx):
            holder = free.get()
            try:
                return compute_chunk(
                    holder,
                    x.roots[idx],
                    x.cubes[idx],
                    first,
                    count,
                    x.st,
                    x.perms,
                    x.seed,
                    x.ev,
                    x.filter_net,
                    stop,
                )
            finally:
                free.put(holder)

        self._work = work
        self._pool = ThreadPoolExecutor(max_workers=self.workers)

    def slots(self) -> int:
        return self.workers

    def busy(self) -> None:
        """(workers busy, workers) for a cluster's progress display; None here."""
        return None

    def submit(self, first: int, count: int, idx: np.ndarray):
        return self._pool.submit(self._work, first, count, idx)

    def wait(self, futures, timeout: float) -> None:
        """Return when one of ``futures`` is done or after ``timeout`` seconds."""
        wait(futures, timeout=timeout, return_when=FIRST_COMPLETED)

    def result(self, future):
        return future.result()

    def cancel(self) -> None:
        """Make the chunks in flight return early (their trials are not merged)."""
        self._stop[0] = 1

    def close(self) -> None:
        if self._pool is not None:
            self._stop[0] = 1
            self._pool.shutdown(wait=True)
            self._pool = None
            _give_workspaces(self._key, [h.ws for h in self._holders if hasattr(h, "ws")])
            self._holders = []


@dataclass
class _Schedule:
    """The chunks of a run of :meth:`RolloutJob.run`: those submitted and not merged yet
    (``pending``, by submission number ``key``: ``(future, count, roots)``), the roots
    ``group`` being run and their trials ``next_first .. limit - 1`` still to submit, and the
    size of the next chunks with the compute time and trials of those merged so far."""

    chunk: int = 4
    cost_seconds: float = 0.0
    cost_trials: int = 0
    pending: dict[int, tuple] = field(default_factory=dict)
    key: int = 0
    group: np.ndarray | None = None
    next_first: int = 0
    limit: int = 0

    def submit(self, executor, stopped: bool) -> None:
        """Submit the group's next trials, in chunks, unless ``stopped``: two chunks in flight
        per worker, at most eight pending per worker; a chunk done but not merged yet (it
        waits for an earlier one) frees its worker for the next."""
        workers = executor.slots()
        running = sum(1 for p in self.pending.values() if not p[0].done())
        while (
            not stopped
            and running < 2 * workers
            and len(self.pending) < 8 * workers
            and self.next_first < self.limit
        ):
            # guided: the chunks shrink as the trials left to the next decision or
            # the target run out, so that the workers finish together
            left = self.limit - self.next_first
            count = min(self.chunk, left, max(-(-self.chunk // 16), -(-left // (2 * workers))))
            self.pending[self.key] = (
                executor.submit(self.next_first, count, self.group),
                count,
                self.group,
            )
            self.key += 1
            self.next_first += count
            running += 1

    def resize(self, executor) -> None:
        """The next chunks' size: ``executor.chunk_seconds`` of work (at most
        ``executor.max_chunk`` trials) at the time the chunks merged took to compute (not
        the wall clock, which counts the first round trips to the workers)."""
        if self.cost_trials > 0 and self.group is not None:
            per_trial = self.cost_seconds / self.cost_trials * len(self.group)
            self.chunk = int(
                max(
                    1,
                    min(executor.max_chunk, executor.chunk_seconds / max(per_trial, 1e-7)),
                )
            )


class RolloutJob:
    """Roll out ``roots`` (int8[R, 26], player on roll at each root about to roll).

    ``mover_view``: the roots are positions after candidate plays (opponent on roll); figures
    are reported from the mover's view (flipped). ``labels``: a move string per root.
    """

    def __init__(
        self,
        roots,
        labels: Sequence[str],
        position_ids: Sequence[str],
        settings: RolloutSettings,
        mover_view: bool,
        cubes=None,
    ) -> None:
        from bgtui.engine import CUBE_VALUE, NUM_OUT

        self.roots = np.ascontiguousarray(np.asarray(roots, dtype=np.int8).reshape(-1, 26))
        self.labels = list(labels)
        self.position_ids = list(position_ids)
        self.settings = validate_settings(settings)
        self.mover_view = mover_view
        r = len(self.roots)
        # per root (the engine's columns CUBE_VALUE, CUBE_OWNER, CUBE_HOLD): cube value, owner
        # (the engine's CENTRED, OWNED by the root player, OPP_OWNED) and a hold flag (1: the
        # root player does not double before his first roll, the "No double" branch of a
        # live-cube decision); two columns (no hold flag) are accepted
        c = np.zeros((r, 3), dtype=np.float64)
        c[:, CUBE_VALUE] = 1.0
        if cubes is not None:
            given = np.asarray(cubes, dtype=np.float64).reshape(r, -1)
            c[:, : given.shape[1]] = given
        self.cubes = np.ascontiguousarray(c)
        self.n = np.zeros(r, dtype=np.int64)  # trials done per root (a prefix 0..n-1)
        self.sums = np.zeros((r, NUM_OUT))
        self.sumsq = np.zeros((r, NUM_OUT))
        self.cross = np.zeros((5, r, r))
        # per root, sums of products of its four cube-state equities in the same trial
        self.state_cross = np.zeros((r, 4, 4))
        self.joint = np.zeros((r, r), dtype=np.int64)  # trials computed together
        self.pruned = np.zeros(r, dtype=bool)
        self.elapsed = 0.0
        # at a match score (:meth:`set_match`): per root the sums of the root player's cubeless
        # MWC per trial, of its squares, and of its products between roots in the same trial
        self.mwc_coef = None
        self.mwc_sums = np.zeros(r)
        self.mwc_sumsq = np.zeros(r)
        self.mwc_cross = np.zeros((r, r))
        self.mwc_scale = (1.0, 0.0)
        # the live cube at a match score (:meth:`set_match`): a :class:`LiveMatch`, and the
        # match as saved with the job (its JSON ``match`` object and table name)
        self.live_match = None
        self.match = None
        self.analysis_id = next(_job_ids)

    # -- running -----------------------------------------------------------------------------
    def run(
        self,
        ev,
        cancel: CancelToken | None = None,
        target: int | None = None,
        filter_net=None,
        executor=None,
    ) -> Iterator[RolloutSnapshot]:
        """Run to ``target`` trials (default: settings.trials), yielding snapshots.

        ``filter_net``: the filter net of ``vr_filter`` and of the pruned lookahead of checker
        play at 1-ply and deeper (``models.DEFAULT_PRUNE`` plays a roll; default: the shipped
        one, loaded only when ``vr_filter`` > 0 or a ply is 1 or more). ``executor``: where
        the chunks run (default: a :class:`LocalChunks` of ``settings.workers`` threads;
        ``bgtui.analysis.cluster`` runs them on a Dask cluster). The merge does not depend on
        it.

        Decisions that change what is rolled out (stopping at a standard-error target, pruning
        and un-pruning candidates) are taken only at multiples of ``DECISION_INTERVAL`` trials,
        on exactly the statistics of those trials, so they too are deterministic. Only the time
        limit and cancellation depend on the clock.
        """
        s = self.settings
        target = int(target or s.trials)
        if filter_net is None and (s.vr_filter > 0 or s.ply > 0 or (s.late_ply or 0) > 0):
            from bgtui.analysis.weights import load_filter_net

            filter_net = load_filter_net()
        executor = executor if executor is not None else LocalChunks(s.workers)
        inputs = self._chunk_inputs(ev, filter_net)
        cancel = cancel if cancel is not None else CancelToken()
        decisions = s.stop_se is not None or (s.prune_sigma is not None and len(self.roots) > 1)

        t_start = time.perf_counter()
        base_elapsed = self.elapsed
        started_n = self.n.copy()
        sch = _Schedule()
        last_snap = 0.0
        stopped = False
        executor.start(inputs)
        try:
            while True:
                if cancel.is_set():
                    executor.cancel()
                    break
                clock = base_elapsed + time.perf_counter() - t_start
                if s.time_limit is not None and clock >= s.time_limit:
                    stopped = True
                if not sch.pending:
                    if stopped or not self._plan(sch, target, decisions):
                        break
                sch.submit(executor, stopped)
                self._merge_done(executor, sch)
                sch.resize(executor)
                el = time.perf_counter() - t_start
                self.elapsed = base_elapsed + el
                now = time.perf_counter()
                if now - last_snap >= SNAPSHOT_INTERVAL:
                    last_snap = now
                    yield self.snapshot(target, started_n, workers=executor.busy())
        finally:
            executor.close()  # in-flight chunks after a stop are dropped, never merged
            self.elapsed = base_elapsed + time.perf_counter() - t_start
        yield self.snapshot(
            target, started_n, finished=not cancel.is_set(), cancelled=cancel.is_set()
        )

    def _chunk_inputs(self, ev, filter_net) -> ChunkInputs:
        """What every chunk of a run computes with: the roots, the engine settings, the dice
        permutations, the evaluator ``ev`` and ``filter_net``, and the play-cache epoch of these
        settings and nets (:func:`play_cache_epoch`)."""
        from bgtui.analysis.weights import evaluator_digest, net_digest
        from bgtui.engine import make_permutations

        s = self.settings
        st = engine_settings(s, self.live_match)
        ev_id = evaluator_digest(ev)
        filter_id = net_digest(filter_net) if filter_net is not None else ""
        return ChunkInputs(
            self.roots,
            self.cubes,
            st,
            make_permutations(s.seed),
            s.seed,
            ev,
            filter_net,
            ev_id,
            filter_id,
            play_cache_epoch(st, {"evaluator": ev_id, "filter": filter_id}),
        )

    def _plan(self, sch: _Schedule, target: int, decisions: bool) -> bool:
        """With nothing in flight: take the decisions due (when ``decisions`` and every active
        root stands at a decision boundary; the chunks in flight may all finish between two
        boundaries, at a point that depends on timing), then set ``sch`` to run the active
        roots with the fewest trials up to the next of: the others' trials, ``target``, the
        next decision boundary. False when the run is over (the standard-error target reached
        or every active root at ``target``)."""
        active = [i for i in range(len(self.roots)) if not self.pruned[i]]
        if decisions and all(self.n[i] % DECISION_INTERVAL == 0 for i in active):
            self._update_pruning()
            if self._se_reached():
                return False
        active = [i for i in range(len(self.roots)) if not self.pruned[i]]
        lo = min(int(self.n[i]) for i in active)
        if lo >= target:
            return False
        sch.group = np.array([i for i in active if self.n[i] == lo], dtype=np.int64)
        higher = [int(self.n[i]) for i in active if self.n[i] > lo]
        sch.next_first = lo
        limit = min([target] + higher)  # catch up to the others first
        if decisions:
            limit = min(limit, (lo // DECISION_INTERVAL + 1) * DECISION_INTERVAL)
        sch.limit = limit
        return True

    def _merge_done(self, executor, sch: _Schedule) -> None:
        """Wait (at most ``SNAPSHOT_INTERVAL``) until the next chunk to merge is done or a
        worker is free, then merge the chunks done, strictly in trial order (a chunk done
        waits for the earlier ones), counting what they cost in ``sch``."""
        pending = sch.pending
        if pending and not pending[min(pending)][0].done():
            executor.wait([p[0] for p in pending.values() if not p[0].done()], SNAPSHOT_INTERVAL)
        if pending:
            for k in sorted(pending):  # merge strictly in trial order
                fut, count, idx = pending[k]
                if not fut.done():
                    break
                out, done, seconds = executor.result(fut)
                del pending[k]
                self._merge(out, done, idx)
                if done > 0:
                    sch.cost_seconds += seconds
                    sch.cost_trials += done * len(idx)

    def _se_reached(self) -> bool:
        s = self.settings
        if s.stop_se is None:
            return False
        best = self._best()
        return self.n[best] >= 36 and self._se(best, 0) < s.stop_se

    def set_match(
        self, coef, win: float, lose: float, live: LiveMatch | None = None, match=None
    ) -> None:
        """Score the trials in MWC too: ``coef`` (6) gives the root player's cubeless MWC of a
        trial as ``coef[0] + coef[1:] . (its five outputs)`` (the MWC is linear in them at a
        fixed score and cube); ``win``, ``lose``: the reported side's MWC after winning and
        after losing a single game at the cube (for EMG). ``live``: the score when the cube is
        live in the trials (the cubeful MWC is then the trials' live-cube score). ``match``: the
        match as saved and checked on resume. Sums already there (a resumed job) are kept."""
        self.mwc_coef = np.asarray(coef, dtype=np.float64)
        self.mwc_scale = (float(win), float(lose))
        self.live_match = live
        self.match = match

    def _merge(self, out, done, idx):
        """Add the first ``done`` trials of a chunk, in trial order, to the running sums."""
        from bgtui.engine import accumulate, accumulate_states

        if done <= 0:
            return
        if self.mwc_coef is not None:
            c = self.mwc_coef
            m = c[0] + out[:, :done, :5] @ c[1:]  # [roots of the chunk, trials]
            # added trial after trial (cumsum is sequential), so the sums do not depend on
            # where the chunks begin and end
            self.mwc_sums[idx] = _in_order(self.mwc_sums[idx], m)
            self.mwc_sumsq[idx] = _in_order(self.mwc_sumsq[idx], m * m)
            cross = self.mwc_cross[np.ix_(idx, idx)]
            self.mwc_cross[np.ix_(idx, idx)] = _in_order(cross, m[:, None, :] * m[None, :, :])
        sub_s = self.sums[idx]
        sub_q = self.sumsq[idx]
        sub_c = np.ascontiguousarray(self.cross[:, idx][:, :, idx])
        accumulate(out, done, sub_s, sub_q, sub_c)
        if self.settings.cubeful:
            sub_st = np.ascontiguousarray(self.state_cross[idx])
            accumulate_states(out, done, sub_st)
            self.state_cross[idx] = sub_st
        self.sums[idx] = sub_s
        self.sumsq[idx] = sub_q
        self.cross[np.ix_(range(5), idx, idx)] = sub_c
        self.joint[np.ix_(idx, idx)] += done
        self.n[idx] += done

    # -- statistics --------------------------------------------------------------------------
    def _mean(self, i, k):
        return self.sums[i, k] / self.n[i] if self.n[i] else 0.0

    def _se(self, i, e):
        """Standard error of equity ``e`` (index into ``PAIRED``: 0 cubeless, 1 centred,
        2 owned, 3 opponent owned, 4 live cube)."""
        from bgtui.engine import PAIRED

        return self._se_k(i, PAIRED[e])

    def _se_k(self, i, k):
        n = self.n[i]
        if n < 2:
            return float("nan")
        m = self.sums[i, k] / n
        var = max(0.0, (self.sumsq[i, k] / n - m * m)) * n / (n - 1)
        return math.sqrt(var / n)

    def _paired_se(self, i, j, e=0, a=1.0, b=1.0):
        """Standard error of (a equity_i - b equity_j), paired over common dice sequences:
        Var = a^2 var_i/n_i + b^2 var_j/n_j - 2 a b cov_ij n_ij/(n_i n_j), cov from the joint
        trials."""
        from bgtui.engine import PAIRED

        k = PAIRED[e]
        ni, nj, nij = int(self.n[i]), int(self.n[j]), int(self.joint[i, j])
        if ni < 2 or nj < 2:
            return float("nan")
        vi = self._se_k(i, k) ** 2 * ni
        vj = self._se_k(j, k) ** 2 * nj
        cov = 0.0
        if nij >= 2:
            mi, mj = self._mean(i, k), self._mean(j, k)
            cov = (self.cross[e, i, j] / nij - mi * mj) * nij / (nij - 1)
        var = a * a * vi / ni + b * b * vj / nj - 2.0 * a * b * cov * nij / (ni * nj)
        return math.sqrt(max(0.0, var))

    def state_combination_se(self, i, coef) -> float:
        """Standard error of ``sum_e coef[e] * mean(equity e)`` over root ``i``'s trials,
        equities ``e`` = 0 cubeless, 1 centred, 2 owned, 3 opponent owned (the same trials:
        their covariances count), e.g. ``(0, -1, 0, 2)`` for double/take - no double."""
        from bgtui.engine import O_CUBELESS

        n = int(self.n[i])
        if n < 2 or not self.settings.cubeful:
            return float("nan")
        c = np.asarray(coef, dtype=np.float64)
        m = self.sums[i, O_CUBELESS : O_CUBELESS + 4] / n
        cov = (self.state_cross[i] / n - np.outer(m, m)) * n / (n - 1)
        return math.sqrt(max(0.0, float(c @ cov @ c)) / n)

    def _sign(self):
        return -1.0 if self.mover_view else 1.0

    def cubeless_mwc(self, i) -> float:
        """Root ``i``'s cubeless MWC for the reported side (the mover for candidate plays)."""
        m = self.mwc_sums[i] / self.n[i] if self.n[i] else 0.0
        return 1.0 - m if self.mover_view else m

    def mwc(self, i) -> float:
        """Root ``i``'s MWC for the reported side: cubeful with the live cube at a match
        score, else cubeless."""
        from bgtui.engine import O_LIVE

        if self.live_match is None:
            return self.cubeless_mwc(i)
        m = self._mean(i, O_LIVE)
        return 1.0 - m if self.mover_view else m

    def cubeless_mwc_se(self, i) -> float:
        n = self.n[i]
        if n < 2:
            return float("nan")
        m = self.mwc_sums[i] / n
        return math.sqrt(max(0.0, self.mwc_sumsq[i] / n - m * m) / (n - 1))

    def mwc_se(self, i) -> float:
        if self.live_match is None:
            return self.cubeless_mwc_se(i)
        return self._se(i, 4)

    def mwc_paired_se(self, i, j) -> float:
        """Standard error of MWC_i - MWC_j, paired over the trials run together."""
        if self.live_match is not None:
            return self._paired_se(i, j, 4)
        ni, nj, nij = int(self.n[i]), int(self.n[j]), int(self.joint[i, j])
        if ni < 2 or nj < 2:
            return float("nan")
        vi, vj = self.mwc_se(i) ** 2 * ni, self.mwc_se(j) ** 2 * nj
        cov = 0.0
        if nij >= 2:
            mi, mj = self.mwc_sums[i] / ni, self.mwc_sums[j] / nj
            cov = (self.mwc_cross[i, j] / nij - mi * mj) * nij / (nij - 1)
        return math.sqrt(max(0.0, vi / ni + vj / nj - 2.0 * cov * nij / (ni * nj)))

    def _equity(self, i):
        from bgtui.engine import O_CUBELESS

        if self.mwc_coef is not None:  # at a match score plays rank by MWC
            return self.mwc(i)
        return self._sign() * self._mean(i, O_CUBELESS)

    def _best(self):
        cands = [i for i in range(len(self.roots)) if self.n[i] > 0]
        if not cands:
            return 0
        return max(cands, key=lambda i: self._equity(i))

    def _update_pruning(self):
        s = self.settings
        if s.prune_sigma is None or len(self.roots) < 2:
            return
        best = self._best()
        for i in range(len(self.roots)):
            if i == best or self.n[i] < 72:
                if i == best:
                    self.pruned[i] = False
                continue
            se = self._paired_se(i, best)
            gap = self._equity(best) - self._equity(i)
            if math.isnan(se):
                continue
            self.pruned[i] = gap > s.prune_sigma * se

    def _row(self, i, best) -> PlayRow:
        from bgtui.engine import O_CENTRED, O_CUBELESS, O_LIVE, O_OPP_OWNED, O_OWNED

        m = [self._mean(i, k) for k in range(5)]
        se = [self._se_k(i, k) for k in range(5)]
        if self.mover_view:  # figures of the root (opponent on roll) -> the mover's
            m = [1.0 - m[0], m[3], m[4], m[1], m[2]]
            se = [se[0], se[3], se[4], se[1], se[2]]
        sg = self._sign()
        cube = self.settings.cubeful
        eq_keys = (O_CUBELESS, O_CENTRED, O_OWNED, O_OPP_OWNED)
        means = [sg * self._mean(i, k) for k in eq_keys]
        ses = [self._se_k(i, k) for k in eq_keys]
        if self.mover_view:  # the root player's "owned" is the mover's "opponent owned"
            means[2], means[3] = means[3], means[2]
            ses[2], ses[3] = ses[3], ses[2]
        live = self.settings.live_cube
        eq = Equities(
            cubeless=means[0],
            centred=means[1] if cube else None,
            owned=means[2] if cube else None,
            opponent_owned=means[3] if cube else None,
            cubeful=sg * self._mean(i, O_LIVE) if live else None,
        )
        eq_se = Equities(
            cubeless=ses[0],
            centred=ses[1] if cube else None,
            owned=ses[2] if cube else None,
            opponent_owned=ses[3] if cube else None,
            cubeful=self._se_k(i, O_LIVE) if live else None,
        )
        if self.mwc_coef is not None:
            return self._match_row(i, best, m, se)
        diff = means[0] - self._equity(best)
        diff_se = 0.0 if i == best else self._paired_se(i, best)
        return self._play_row(
            i, m, se, equity=eq, equity_se=eq_se, equity_diff=diff, equity_diff_se=diff_se
        )

    def _play_row(self, i, m, se, **fields) -> PlayRow:
        """Candidate ``i``'s row: its label, position, probabilities ``m`` with standard errors
        ``se``, how it was rolled out, its trials and whether it was pruned; then ``fields``."""
        s = self.settings
        how = (
            f"rollout {int(self.n[i])}"
            + (f" t{s.truncate}" if s.truncate else "")
            + f" {s.ply}-ply"
        )
        return PlayRow(
            move=self.labels[i],
            position_id=self.position_ids[i],
            probabilities=Probabilities(*m),
            probabilities_se=Probabilities(*se),
            evaluated_by=how,
            trials=int(self.n[i]),
            pruned=bool(self.pruned[i]),
            **fields,
        )

    def _match_row(self, i, best, m, se) -> PlayRow:
        """A row at a match score: MWC (cubeful with the live cube, else cubeless) with its
        (paired) standard errors, EMG in the equities (the same trials mapped linearly:
        (2 MWC - (W + L)) / (W - L)): cubeless, and cubeful with the live cube."""
        w, lo = self.mwc_scale
        k = 2.0 / (w - lo)

        def emg(x):
            return k * x - (w + lo) / (w - lo)

        mw, mw_best = self.mwc(i), self.mwc(best)
        mse = self.mwc_se(i)
        dse = 0.0 if i == best else self.mwc_paired_se(i, best)
        cl, cl_se = self.cubeless_mwc(i), self.cubeless_mwc_se(i)
        live = self.live_match is not None
        return self._play_row(
            i,
            m,
            se,
            equity=Equities(cubeless=emg(cl), cubeful=emg(mw) if live else None),
            equity_se=Equities(cubeless=k * cl_se, cubeful=k * mse if live else None),
            equity_diff=k * (mw - mw_best),
            equity_diff_se=k * dse,
            mwc=mw,
            mwc_diff=mw - mw_best,
            mwc_se=mse,
            mwc_diff_se=dse,
        )

    def vr_factor(self) -> float | None:
        """Variance of plain trial outcomes / variance of the variance-reduced estimates."""
        from bgtui.engine import O_CUBELESS, O_RAW

        best = self._best()
        a, b = self._se_k(best, O_RAW), self._se_k(best, O_CUBELESS)
        if not (a > 0 and b > 0):
            return None
        return (a / b) ** 2

    def snapshot(
        self, target, started_n=None, finished=False, cancelled=False, workers=None
    ) -> RolloutSnapshot:
        best = self._best()
        order = sorted(range(len(self.roots)), key=lambda i: -self._equity(i) if self.n[i] else 1e9)
        rows = tuple(self._row(i, best) for i in order)
        done = int(self.n.min()) if len(self.n) else 0
        if started_n is None:
            started_n = np.zeros_like(self.n)
        run_trials = int((self.n - started_n).sum())
        gps = run_trials / self.elapsed if self.elapsed > 0 else 0.0
        active = int((~self.pruned).sum()) or 1
        left = None
        if gps > 0:
            left = max(0, target - done) * active / gps
        self._history = extend_history(getattr(self, "_history", ()), done, rows)
        return RolloutSnapshot(
            analysis_id=self.analysis_id,
            trials_done=done,
            trials_total=target,
            elapsed=self.elapsed,
            games_per_second=gps,
            time_left=left,
            rows=rows,
            settings=self.settings,
            finished=finished,
            cancelled=cancelled,
            variance_reduction_factor=self.vr_factor()
            if self.settings.variance_reduction
            else None,
            cluster_workers=workers,
            history=self._history,
        )

    # -- persistence -------------------------------------------------------------------------
    def to_state(self) -> dict:
        d = {
            "version": STATE_VERSION,
            "roots": self.roots.tolist(),
            "labels": self.labels,
            "position_ids": self.position_ids,
            "settings": asdict(self.settings),
            "mover_view": self.mover_view,
            "cubes": self.cubes.tolist(),
            "n": self.n.tolist(),
            "sums": self.sums.tolist(),
            "sumsq": self.sumsq.tolist(),
            "cross": self.cross.tolist(),
            "joint": self.joint.tolist(),
            "pruned": self.pruned.tolist(),
            "elapsed": self.elapsed,
        }
        if np.isfinite(self.state_cross).all():  # NaN: loaded from a save without them
            d["state_cross"] = self.state_cross.tolist()
        if self.match is not None:
            d["match"] = dict(
                self.match,
                mwc_sums=self.mwc_sums.tolist(),
                mwc_sumsq=self.mwc_sumsq.tolist(),
                mwc_cross=self.mwc_cross.tolist(),
            )
        return d

    @classmethod
    def from_state(cls, d: dict) -> RolloutJob:
        """The job of a saved state; ValueError naming the first thing that is wrong (format
        version, shapes, impossible positions, settings, non-finite sums, negative or
        inconsistent counts)."""
        from bgtui.engine import NUM_OUT

        _check_saved_keys(d)
        roots = _saved_roots(d)
        r = roots.shape[0]
        for key in ("labels", "position_ids"):
            v = d[key]
            if not isinstance(v, list) or len(v) != r or not all(isinstance(x, str) for x in v):
                raise ValueError(f"saved rollout: {key} are not {r} strings")
        settings = _saved_settings(d)
        if not isinstance(d["mover_view"], bool):
            raise ValueError("saved rollout: mover_view is not true or false")
        cubes = _saved_array(d, "cubes", np.float64, (r, 3)) if d.get("cubes") is not None else None
        job = cls(
            roots.astype(np.int8), d["labels"], d["position_ids"], settings, d["mover_view"], cubes
        )
        job.n = _saved_array(d, "n", np.int64, (r,), nonneg=True)
        job.sums = _saved_array(d, "sums", np.float64, (r, NUM_OUT))
        job.sumsq = _saved_array(d, "sumsq", np.float64, (r, NUM_OUT), nonneg=True)
        job.cross = _saved_array(d, "cross", np.float64, (5, r, r))
        if "state_cross" in d:
            job.state_cross = _saved_array(d, "state_cross", np.float64, (r, 4, 4))
        elif job.n.max(initial=0) > 0:
            job.state_cross[:] = np.nan  # saved before these sums were kept: no covariances
        job.joint = _saved_array(d, "joint", np.int64, (r, r), nonneg=True)
        if (job.joint > np.minimum.outer(job.n, job.n)).any():
            raise ValueError("saved rollout: more joint trials than trials")
        if (job.n > MAX_TRIALS).any():
            raise ValueError("saved rollout: more trials than a rollout can run")
        pruned = d["pruned"]
        if (
            not isinstance(pruned, list)
            or len(pruned) != r
            or not all(isinstance(x, bool) for x in pruned)
        ):
            raise ValueError(f"saved rollout: pruned is not {r} true/false values")
        job.pruned = np.array(pruned, dtype=bool)
        el = d["elapsed"]
        if not _is_num(el) or el < 0:
            raise ValueError("saved rollout: elapsed is not a finite number of seconds")
        job.elapsed = float(el)
        if d.get("match") is not None:
            _load_saved_match(job, d["match"], r)
        return job

    def mismatch(self, state, settings: RolloutSettings | None = None) -> str | None:
        """Why this job is not a rollout of ``state`` (its position, or candidate plays of its
        dice: of any roll when it has none) with ``settings``' figure-deciding settings
        (:data:`RESULT_SETTINGS`); None when it is."""
        from bgtui.engine import ROLLS, generate_plays, swap_sides

        pos = np.ascontiguousarray(state.position, dtype=np.int8)
        if not self.mover_view:
            if not all(np.array_equal(root, pos) for root in self.roots):
                return "it is a rollout of another position"
        else:
            rolls = [tuple(state.dice)] if state.dice is not None else ROLLS.tolist()
            for d1, d2 in rolls:
                children, _ = generate_plays(pos, d1, d2)
                kids = {bytes(swap_sides(np.asarray(c, dtype=np.int8))) for c in children}
                if all(bytes(root) in kids for root in self.roots):
                    break
            else:
                return "it is a rollout of plays of another position" + (
                    " or other dice" if state.dice is not None else ""
                )
        if settings is not None:
            for name in RESULT_SETTINGS:
                a, b = getattr(self.settings, name), getattr(settings, name)
                if a != b:
                    return f"it was rolled out with {name.replace('_', ' ')} {a!r}, not {b!r}"
        return None

    def save(self, path) -> None:
        """Write the state to ``path`` atomically (:func:`~bgtui.analysis.atomic.atomic_write`:
        a temporary file beside it, synced, then renamed over it). Temporary files of earlier
        saves to the same path that were cut short (their process killed) are removed first."""
        path = Path(path)
        _remove_stale_temporaries(path)
        state = self.to_state()
        atomic_write(
            path,
            lambda f: json.dump(state, f, allow_nan=False),
            text=True,
            mode=0o644,
            fsync=True,
        )

    @classmethod
    def load(cls, path) -> RolloutJob:
        """The job saved at ``path``; ValueError with one line saying what is wrong."""
        try:
            with open(path, "rb") as f:
                raw = f.read(256 << 20)
            data = json.loads(raw.decode("utf-8"), parse_constant=_no_constant)
        except OSError as exc:
            raise ValueError(f"cannot read saved rollout {path}: {exc.strerror}") from None
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
            raise ValueError(
                f"{path} is not a saved rollout (not JSON: cut short or another file)"
            ) from None
        except ValueError as exc:
            raise ValueError(f"{path} is not a saved rollout: {exc}") from None
        try:
            return cls.from_state(data)
        except ValueError as exc:
            raise ValueError(f"cannot resume {path}: {exc}") from None


#: the keys every saved rollout state has
_SAVED_KEYS = (
    "roots",
    "labels",
    "position_ids",
    "settings",
    "mover_view",
    "n",
    "sums",
    "sumsq",
    "cross",
    "joint",
    "pruned",
    "elapsed",
)


def _check_saved_keys(d) -> None:
    """A saved state is a JSON object of this state version with every key it needs."""
    if not isinstance(d, dict):
        raise ValueError("not a saved rollout (no JSON object)")
    if d.get("version") != STATE_VERSION:
        raise ValueError(
            f"saved rollout has state version {str(d.get('version'))[:20]}, "
            f"expected {STATE_VERSION}"
        )
    missing = [k for k in _SAVED_KEYS if k not in d]
    if missing:
        raise ValueError(f"saved rollout lacks {', '.join(missing)}")


def _saved_array(data, key, dtype, shape, finite=True, nonneg=False) -> np.ndarray:
    """``data[key]`` as an array of ``dtype`` and ``shape``: finite (if asked), not negative
    (if asked), whole numbers for an integer ``dtype``; ValueError naming the key otherwise."""
    try:
        a = np.array(data[key], dtype=np.float64)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"saved rollout: {key} is not an array of numbers") from None
    if a.shape != shape:
        raise ValueError(f"saved rollout: {key} has shape {a.shape}, expected {shape}")
    if finite and not np.isfinite(a).all():
        raise ValueError(f"saved rollout: {key} holds a value that is not finite")
    if nonneg and (a < 0).any():
        raise ValueError(f"saved rollout: {key} holds a negative value")
    if dtype is not np.float64:
        if (a != np.round(a)).any() or (np.abs(a) > 2**62).any():
            raise ValueError(f"saved rollout: {key} holds a value that is not a count")
    return a.astype(dtype)


def _saved_roots(d) -> np.ndarray:
    """The saved roots (int64[R, 26], 1 <= R <= 1000), each a possible position."""
    from bgtui.engine import InvalidPosition, validate

    try:
        roots = np.array(d["roots"], dtype=np.int64)
    except (TypeError, ValueError, OverflowError):
        raise ValueError("saved rollout: roots are not positions") from None
    if roots.ndim != 2 or roots.shape[1] != 26 or not 1 <= roots.shape[0] <= 1000:
        raise ValueError(f"saved rollout: roots have shape {roots.shape}, expected (R, 26)")
    for root in roots:
        try:
            validate(root, allow_finished=True)
        except InvalidPosition as exc:
            raise ValueError(f"saved rollout: a root is not a position: {exc}") from None
    return roots


def _saved_settings(d) -> RolloutSettings:
    """The saved settings, checked as the command line checks them."""
    if not isinstance(d["settings"], dict):
        raise ValueError("saved rollout: settings are not an object")
    try:
        return validate_settings(RolloutSettings(**d["settings"]))
    except TypeError as exc:
        raise ValueError(f"saved rollout: settings: {exc}") from None
    except ValueError as exc:
        raise ValueError(f"saved rollout: {exc}") from None


def _load_saved_match(job: RolloutJob, m, r: int) -> None:
    """The match-play sums of a saved state (money: none) into ``job``."""
    if not isinstance(m, dict):
        raise ValueError("saved rollout: match is not an object")
    sub = {
        "mwc_sums": m.get("mwc_sums"),
        "mwc_sumsq": m.get("mwc_sumsq"),
        "mwc_cross": m.get("mwc_cross"),
    }
    job.mwc_sums = _saved_array(sub, "mwc_sums", np.float64, (r,))
    job.mwc_sumsq = _saved_array(sub, "mwc_sumsq", np.float64, (r,), nonneg=True)
    job.mwc_cross = _saved_array(sub, "mwc_cross", np.float64, (r, r))
    job.match = {k: v for k, v in m.items() if k not in sub}


def _in_order(total, terms):
    """``total + terms[..., 0] + terms[..., 1] + ...``, added one term after another."""
    return np.cumsum(np.concatenate([total[..., None], terms], axis=-1), axis=-1)[..., -1]


def _no_constant(name):
    raise ValueError(f"it holds {name}")


def _remove_stale_temporaries(path: Path) -> None:
    """Remove ``.<name>.<pid>.tmp`` and ``.<name>.<pid>.<random>.tmp`` files beside ``path``
    left by saves whose process died."""
    for tmp in path.parent.glob(f".{glob.escape(path.name)}.*.tmp"):
        pid = tmp.name[len(path.name) + 2 : -4].split(".")[0]
        if not pid.isdigit() or int(pid) == os.getpid() or pid_alive(int(pid)):
            continue
        try:
            tmp.unlink()
        except OSError:
            pass


def pid_alive(pid: int) -> bool:
    """Whether a process ``pid`` exists (one of another user's counts as alive)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True
    return True


def check_writable(path) -> None:
    """Raise ValueError (one line) unless a rollout can be saved at ``path``: its directory
    exists and takes new files, and ``path`` is not a directory."""
    path = Path(path)
    if path.is_dir():
        raise ValueError(f"cannot save to {path}: it is a directory")
    parent = path.parent
    if not parent.is_dir():
        raise ValueError(f"cannot save to {path}: no directory {parent}")
    probe = parent / f".{path.name}.{os.getpid()}.tmp"
    try:
        with open(probe, "w", encoding="utf-8") as f:
            f.write("")
    except OSError as exc:
        raise ValueError(f"cannot save to {path}: {exc.strerror}") from None
    finally:
        try:
            probe.unlink()
        except OSError:
            pass


#: seconds between checkpoints of a rollout saved as it runs
CHECKPOINT_EVERY = 5.0


class Checkpointer:
    """Saves ``job`` to ``path`` when called with a snapshot, at most every ``every`` seconds
    (the first call saves at once), and on :meth:`save`. A job's state between snapshots is
    always a whole number of trials merged in order, so a checkpoint resumes to exactly the
    uninterrupted result; at most ``every`` seconds of work are lost to a kill."""

    def __init__(self, job: RolloutJob, path, every: float = CHECKPOINT_EVERY) -> None:
        self.job = job
        self.path = Path(path)
        self.every = float(every)
        self._last: float | None = None

    def __call__(self, snapshot=None) -> None:
        now = time.monotonic()
        if self._last is None or now - self._last >= self.every:
            self.save()

    def save(self) -> None:
        self.job.save(self.path)
        self._last = time.monotonic()
