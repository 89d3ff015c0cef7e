"""Rollout jobs: determinism across workers, resume == uninterrupted, cancel, snapshots."""

import time

import numpy as np
import pytest

from bgtui.analysis.cancel import CancelToken
from bgtui.analysis.models import RolloutSettings
from bgtui.analysis.rollout import RolloutJob
from bgtui.engine.constants import OPENING_POSITION


def _job(trials=200, **kw):
    s = RolloutSettings(trials=trials, seed=5, truncate=kw.pop("truncate", 5), **kw)
    return RolloutJob(np.array(OPENING_POSITION)[None], [""], ["4HPwATDgc/ABMA"], s, False)


def _last(gen):
    snap = None
    for snap in gen:
        pass
    return snap


def test_rollout_job_same_result_with_one_or_two_workers(ev):
    a, b = _job(workers=1), _job(workers=2)
    sa, sb = _last(a.run(ev)), _last(b.run(ev))
    assert sa.trials_done == sb.trials_done == 200
    assert np.array_equal(a.sums, b.sums) and np.array_equal(a.sumsq, b.sumsq)
    assert sa.rows[0].equity.cubeless == sb.rows[0].equity.cubeless


def test_a_run_finds_the_play_caches_earlier_runs_left_and_gives_the_same_figures(ev):
    """Local runs hand their workspaces, play caches filled, to the next run: a run of the
    same settings (another seed) finds its early turns cached, a run of other settings starts
    empty; the figures are those of runs that found nothing."""
    from bgtui.analysis import rollout as R
    from bgtui.analysis.weights import load_filter_net

    def job(seed=5, truncate=5):
        s = RolloutSettings(trials=144, seed=seed, truncate=truncate, workers=1)
        return RolloutJob(np.array(OPENING_POSITION)[None], [""], [""], s, False)

    def cold(**kw):
        with R._SPARE_LOCK:
            R._SPARE[:] = [None, []]
        j = job(**kw)
        _last(j.run(ev))
        return j.sums.copy()

    cold_a, cold_b, cold_c = cold(), cold(seed=9), cold(truncate=4)
    first = job()
    _last(first.run(ev))
    assert np.array_equal(first.sums, cold_a)
    (ws,) = R._SPARE[1]
    assert ws.cache.epoch[0] == first._chunk_inputs(ev, load_filter_net()).epoch
    filled = int((ws.cache.codes >= 0).sum())
    assert filled > 36  # at least the first turn's rolls and some of the second's
    for kw, want in (({}, cold_a), ({"seed": 9}, cold_b), ({"truncate": 4}, cold_c), ({}, cold_a)):
        j = job(**kw)
        _last(j.run(ev))
        assert np.array_equal(j.sums, want), kw
    assert R._SPARE[1][0] is ws  # the same workspace went from run to run


def test_rollout_job_resumed_from_file_equals_uninterrupted(ev, tmp_path):
    whole = _job(trials=150)
    _last(whole.run(ev))
    part = _job(trials=150)
    _last(part.run(ev, target=61))
    assert part.n[0] == 61
    part.save(tmp_path / "r.json")
    resumed = RolloutJob.load(tmp_path / "r.json")
    _last(resumed.run(ev))
    assert resumed.n[0] == 150
    assert np.array_equal(resumed.sums, whole.sums)
    assert np.array_equal(resumed.sumsq, whole.sumsq)


def test_rollout_job_cancelled_ends_with_its_next_snapshot_and_stays_resumable(ev):
    job = _job(trials=10**7, truncate=0)
    cancel = CancelToken()
    snaps = []
    for snap in job.run(ev, cancel):
        snaps.append(snap)
        if len(snaps) == 2:
            cancel.cancel()  # while the job waits between chunks
    last = snaps[-1]
    assert last.cancelled and not last.finished
    assert len(snaps) == 3  # the one after the cancel is the last: no more chunks run
    assert last.trials_done < 10**7
    # snapshots are immutable and trials never go backwards
    done = [s.trials_done for s in snaps]
    assert done == sorted(done)
    with pytest.raises(AttributeError):
        last.trials_done = 3
    # the state is a whole number of trials per root and can be continued
    n = int(job.n[0])
    _last(job.run(ev, target=n + 10))
    assert job.n[0] == n + 10


def test_rollout_job_rejects_bad_settings_with_a_clear_message():
    with pytest.raises(ValueError, match="ply"):
        _job(ply=5)
    with pytest.raises(ValueError, match="trials"):
        _job(trials=0)


def test_rollout_job_stop_at_standard_error_is_deterministic(ev):
    a = _job(trials=5000, stop_se=0.02, workers=1)
    b = _job(trials=5000, stop_se=0.02, workers=2)
    sa, sb = _last(a.run(ev)), _last(b.run(ev))
    assert sa.trials_done == sb.trials_done
    assert sa.trials_done % 72 == 0 and sa.trials_done < 5000
    assert sa.rows[0].equity_se.cubeless < 0.02


def _position_job(pos, **kw):
    s = RolloutSettings(seed=kw.pop("seed", 5), **kw)
    return RolloutJob(np.asarray(pos, dtype=np.int8)[None], [""], ["x"], s, False)


@pytest.mark.slow
def test_rollout_intervals_cover_a_long_rollout_about_95_percent(ev):
    # 200 independent short rollouts (pseudo-random dice, so the trials are i.i.d. and the
    # standard error is honest) of a 3-roll truncated middle-game position: their 95%
    # intervals must cover the value of a long rollout about 95% of the time.
    pos = np.array(OPENING_POSITION)
    pos[13], pos[11], pos[24], pos[21] = 4, 1, 1, 1
    long = _position_job(
        pos,
        trials=20000,
        truncate=3,
        quasi_random=False,
        seed=999,
        variance_reduction=False,
        workers=2,
    )
    truth = _last(long.run(ev)).rows[0].equity.cubeless
    hits = 0
    reps = 200
    for seed in range(reps):
        job = _position_job(
            pos,
            trials=36,
            truncate=3,
            quasi_random=False,
            seed=seed,
            variance_reduction=False,
            workers=1,
        )
        row = _last(job.run(ev)).rows[0]
        hits += abs(row.equity.cubeless - truth) <= 1.96 * row.equity_se.cubeless
    # binomial(200, 0.95): 3 standard deviations is about 0.046 (t-intervals with 35 degrees
    # of freedom cover a little less than 95%)
    assert 0.88 <= hits / reps <= 0.995


def test_rollout_of_a_database_position_is_exact(ev):
    # Given a two-sided bear-off position, bear-off truncation ends every trial at once with
    # the database's exact value: the rollout returns it with zero standard error; without
    # truncation, full games played with the database converge to it.
    from bgtui.analysis.bearoff_cache import lookup
    from bgtui.analysis.weights import with_databases

    evdb = with_databases(ev, bearoff=True)
    pos = np.zeros(26, dtype=np.int8)
    pos[1:7] = [0, 1, 1, 0, 1, 1]  # player: 4 checkers on 2, 3, 5, 6
    pos[19:25] = [-1, 0, -1, -1, 0, -1]  # opponent: his 6, 4, 3, 1 points
    exact = lookup(pos)["probabilities"][0]
    job = _position_job(pos, trials=72, bearoff_truncation=True, variance_reduction=False)
    row = _last(job.run(evdb)).rows[0]
    assert row.probabilities.win == pytest.approx(exact, abs=1e-6)
    assert row.equity_se.cubeless == pytest.approx(0.0, abs=1e-9)
    full = _position_job(pos, trials=2592, bearoff_truncation=False, variance_reduction=False)
    row = _last(full.run(evdb)).rows[0]
    assert abs(row.probabilities.win - exact) < 4 * row.probabilities_se.win + 1e-9


def test_pruning_stops_a_clearly_worse_candidate_deterministically(ev):
    # Given the best and the worst play of 31 from the opening (by 0-ply), rolled out together
    # with prune_sigma=2: the worst is dropped at a decision boundary (fewer trials than the
    # best), its figures stay reported, and the outcome is the same with 1 or 2 workers.
    from bgtui.engine import evaluate_after
    from bgtui.engine.evaluate import equity
    from bgtui.engine.movegen import generate_plays
    from bgtui.engine.position import swap_sides

    children, _ = generate_plays(np.array(OPENING_POSITION), 3, 1)
    t = np.zeros(5, dtype=np.float32)
    from bgtui.engine.evaluate import make_eval_workspace

    ews = make_eval_workspace(512)
    eqs = []
    for c in children:
        evaluate_after(c, ev, ews, t)
        eqs.append(equity(t))
    best, worst = int(np.argmax(eqs)), int(np.argmin(eqs))
    roots = np.stack([swap_sides(children[best]), swap_sides(children[worst])])
    results = []
    for workers in (1, 2):
        s = RolloutSettings(trials=1440, seed=2, truncate=3, prune_sigma=2.0, workers=workers)
        job = RolloutJob(roots, ["best", "worst"], ["a", "b"], s, True)
        snap = _last(job.run(ev))
        results.append((job.n.tolist(), job.sums.tobytes(), [r.move for r in snap.rows]))
    assert results[0] == results[1]
    n_best, n_worst = results[0][0]
    assert n_best == 1440 and n_worst < n_best and n_worst % 72 == 0
    assert results[0][2][0] == "best"


def test_settlement_rollout_counts_gammons_single_in_the_centred_state_under_jacoby(ev):
    """With a settlement limit no game reaches, the centred state is the unsettled game's
    value: under the Jacoby rule 2 P(win) - 1 (the cube was never turned, gammons count
    single), without it the cubeless equity; exactly, because the same trials and the same
    luck enter both (variance reduction on)."""
    figures = {}
    for jacoby in (True, False):
        job = _job(
            trials=72, truncate=0, cubeful=True, settlement_limit=3.0, jacoby=jacoby, workers=1
        )
        row = _last(job.run(ev)).rows[0]
        figures[jacoby] = row
    j, n = figures[True], figures[False]
    assert j.equity.centred == pytest.approx(2.0 * j.probabilities.win - 1.0, abs=1e-9)
    assert n.equity.centred == pytest.approx(n.equity.cubeless, abs=1e-9)
    assert j.probabilities.win_gammon + j.probabilities.lose_gammon > 0.1
    # the same trials: the two centred figures differ by exactly the gammons' net value,
    # which is not zero here (so the check has teeth)
    p = j.probabilities
    gammons = p.win_gammon - p.lose_gammon + p.win_backgammon - p.lose_backgammon
    assert n.equity.centred - j.equity.centred == pytest.approx(gammons, abs=1e-9)
    assert abs(gammons) > 1e-3
    # the other cube states have a turned cube: gammons count there either way
    assert j.equity.owned == pytest.approx(n.equity.owned, abs=1e-12)


def test_cubeful_position_rollout_follows_the_positions_jacoby_rule():
    from dataclasses import replace

    from bgtui.analysis.formats import parse_position
    from bgtui.analysis.service import Analyzer

    state = parse_position("4HPwATDgc/ABMA")
    s = RolloutSettings(trials=36, cubeful=True, jacoby=True)
    an = Analyzer()
    assert an.make_rollout_job(replace(state, jacoby=False), s).settings.jacoby is False
    assert an.make_rollout_job(replace(state, jacoby=True), s).settings.jacoby is True


def test_stop_decisions_wait_for_a_boundary_whatever_the_chunks(ev, monkeypatch):
    """A standard-error target met at once still stops at 72 trials, on both worker counts:
    with a clock that makes every trial look slow the chunks are one trial each, and the
    chunks in flight all finish at counts that are not boundaries; the decision waits."""
    import types

    import bgtui.analysis.rollout as R

    ticks = iter(range(10**9))
    slow = types.SimpleNamespace(perf_counter=lambda: float(next(ticks)), monotonic=time.monotonic)
    monkeypatch.setattr(R, "time", slow)
    for workers in (1, 2):
        s = _last(_job(trials=5000, stop_se=0.5, workers=workers).run(ev))
        assert s.trials_done == 72, (workers, s.trials_done)


def test_checker_play_at_1ply_prunes_its_lookahead_as_the_analysis_does(ev):
    """A rollout with 1-ply checker play loads the filter net even without ``vr_filter``, and
    its chunks are the engine's with the lookahead pruned to ``DEFAULT_PRUNE`` plays a roll,
    trial for trial; the exact lookahead plays or values some trial otherwise."""
    from types import SimpleNamespace

    from bgtui.analysis import rollout as R
    from bgtui.analysis.models import DEFAULT_PRUNE
    from bgtui.analysis.weights import load_filter_net
    from bgtui.engine import NUM_OUT, hidden_size, make_rollout_workspace, rollout_chunk

    seen = []

    class Recording(R.LocalChunks):
        def start(self, inputs):
            seen.append(inputs.filter_net is not None)
            super().start(inputs)

    job = _job(trials=36, truncate=2, ply=1, vr_filter=0, workers=1)
    _last(job.run(ev, executor=Recording(1)))
    assert seen == [True]

    filt = load_filter_net()
    x = job._chunk_inputs(ev, filt)
    stop = np.array([0, x.epoch], dtype=np.int64)
    got, done, _ = R.compute_chunk(
        SimpleNamespace(ws=None), x.roots, x.cubes, 0, 36, x.st, x.perms, x.seed, ev, filt, stop
    )
    assert done == 36
    outs = {}
    for prune in (DEFAULT_PRUNE, 0):
        out = np.zeros((1, 36, NUM_OUT))
        ws = make_rollout_workspace(hidden_size(ev), filt, prune)
        rollout_chunk(x.roots, x.cubes, 0, 36, x.st, x.perms, x.seed, ev, ws, out, stop.copy())
        outs[prune] = out
    np.testing.assert_array_equal(got, outs[DEFAULT_PRUNE])
    assert not np.array_equal(outs[DEFAULT_PRUNE], outs[0])
