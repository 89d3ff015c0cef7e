"""The filter net of variance reduction with ``vr_filter``: its incremental scoring against the
full reference, and rollouts with it: the same games, unbiased luck, the shipped file."""

import json

import numpy as np
import pytest

from bgtui.analysis.models import RolloutSettings
from bgtui.analysis.rollout import validate_settings
from bgtui.analysis.weights import WeightsError, load_filter_net, nets_of, with_databases
from bgtui.engine import generate_plays_into, generate_scored_plays_into, rollout_chunk
from bgtui.engine.constants import OPENING_POSITION
from bgtui.engine.evaluate import hidden_size, make_play_buffers
from bgtui.engine.filter_net import (
    _keep_best,
    extend_filter_table,
    filter_keep,
    filter_parent,
    filter_pick,
    filter_scores,
    make_filter_scratch,
)
from bgtui.engine.filter_terms import FILTER_ROWS
from bgtui.engine.movegen import make_workspace
from bgtui.engine.rollout import (
    NUM_OUT,
    O_CUBELESS,
    O_RAW,
    make_permutations,
    make_rollout_workspace,
    make_settings,
)
from tests.reference.games import engine_game_positions


@pytest.fixture(scope="module")
def positions(ev):
    """600 positions of games of random plays: the same whatever the shipped weights."""
    return engine_game_positions(ev, 8, 5, 1.0, 600)


def _random_net(hidden, seed):
    rng = np.random.default_rng(seed)
    return (
        extend_filter_table(rng.standard_normal((FILTER_ROWS, hidden))),
        rng.standard_normal(hidden).astype(np.float32),
        rng.standard_normal(hidden + 1).astype(np.float32),
    )


@pytest.mark.parametrize("hidden,k", [(32, 2), (16, 3), (5, 1)])
def test_filter_pick_keeps_the_top_k_of_the_full_scores(positions, hidden, k):
    """The incremental scores (parent plus changed slots) pick what the scores from all rows
    rank highest, best first; near ties (1e-4) may go either way."""
    w1, b1, w2 = _random_net(hidden, hidden)
    fs = make_filter_scratch(hidden)
    mws = make_workspace()
    op, om = make_play_buffers()
    ref = np.zeros(op.shape[0])
    checked = 0
    for pos in positions[::3]:
        for d1, d2 in ((3, 1), (6, 5), (2, 2), (5, 4)):
            n = generate_plays_into(pos, d1, d2, mws, op, om)
            filter_scores(op, n, w1, b1, w2, fs, ref)
            m = filter_pick(pos, op, om, n, k, w1, b1, w2, fs)
            assert m == min(k, n)
            # each kept play's incremental score (the slots its steps changed) is its full score
            kept = [
                next(j for j in range(n) if np.array_equal(op[j], fs.picked[q])) for q in range(m)
            ]
            np.testing.assert_allclose(fs[3][:m], ref[kept], rtol=1e-5, atol=1e-4)
            order = np.argsort(-ref[:n], kind="stable")
            s = np.sort(ref[:n])[::-1]
            if np.any(np.abs(np.diff(s[: m + 1])) < 1e-4):
                continue
            for j in range(m):
                np.testing.assert_array_equal(fs.picked[j], op[order[j]])
            checked += 1
    assert checked > 50


@pytest.mark.parametrize("hidden", [32, 7])
def test_scored_move_generation_scores_each_play_as_the_full_rows_do(positions, hidden):
    """Move generation that scores its plays makes the same plays in the same order as the
    plain generator, and each play's score (its search node's pre-activation, built step by
    step from the parent's) is the score from all its rows."""
    w1, b1, w2 = _random_net(hidden, 100 + hidden)
    fs = make_filter_scratch(hidden)
    plain, scored = make_workspace(), make_workspace()
    op, om = make_play_buffers()
    op2, om2 = make_play_buffers()
    ref = np.zeros(op.shape[0])
    plays = 0
    for pos in positions[::2]:
        filter_parent(pos, w1, b1, fs)
        fs.level_h[0, :] = fs.parent_h
        for d1 in range(1, 7):
            for d2 in range(1, d1 + 1):
                n = generate_plays_into(pos, d1, d2, plain, op, om)
                m = generate_scored_plays_into(pos, d1, d2, scored, op2, om2, w1, w2, fs)
                assert m == n
                np.testing.assert_array_equal(op2[:n], op[:n])
                np.testing.assert_array_equal(om2[:n], om[:n])
                filter_scores(op, n, w1, b1, w2, fs, ref)
                np.testing.assert_allclose(fs.scores[:n], ref[:n], rtol=1e-5, atol=1e-4)
                plays += n
    assert plays > 10_000


def _tied_net(hidden, seed):
    """A filter net whose weights are multiples of 0.1: many plays score the same in exact
    arithmetic, and the float sums, made in different orders, break those ties either way."""
    rng = np.random.default_rng(seed)
    return (
        extend_filter_table(rng.integers(-3, 4, (FILTER_ROWS, hidden)) * 0.1),
        (rng.integers(-3, 4, hidden) * 0.1).astype(np.float32),
        (rng.integers(1, 4, hidden + 1) * 0.1).astype(np.float32),
    )


@pytest.mark.parametrize("hidden,k,seed", [(2, 2, 2), (2, 1, 6), (3, 1, 1)])
def test_plays_kept_from_move_generations_scores_are_the_parents_picks(positions, hidden, k, seed):
    """Keeping the best of the scores move generation made picks exactly the plays (and their
    order) that the scores from the parent's pre-activation pick, near ties included (where
    keeping by move generation's scores alone would pick otherwise)."""
    w1, b1, w2 = _tied_net(hidden, seed)
    fs = make_filter_scratch(hidden)
    ws = make_workspace()
    op, om = make_play_buffers()
    rolls = unguarded_differs = 0
    for pos in positions:
        for d1 in range(1, 7):
            for d2 in range(1, d1 + 1):
                filter_parent(pos, w1, b1, fs)
                n = generate_scored_plays_into(pos, d1, d2, ws, op, om, w1, w2, fs)
                if n <= k:
                    continue
                _keep_best(fs.scores, op, n, k, 0.0, fs)
                unguarded = fs.picked[:k].copy()
                m = filter_keep(pos, op, om, n, k, w1, w2, fs)
                kept = fs.picked[:m].copy()
                assert m == filter_pick(pos, op, om, n, k, w1, b1, w2, fs) == k
                np.testing.assert_array_equal(kept, fs.picked[:k])
                unguarded_differs += not np.array_equal(unguarded, kept)
                rolls += 1
    assert rolls > 6_000
    assert unguarded_differs > 0


def _vr_settings(**kw):
    """Truncated variance-reduced rollouts with quasi-random dice, nothing else on."""
    return make_settings(
        vr=True, quasi=True, bearoff=False, jacoby=False, settle=0.0, play_on=0.0, **kw
    )


def _vr_run(ev, k, n, filt, truncate=6, root=OPENING_POSITION, strata=4):
    """The outputs of ``n`` variance-reduced trials from ``root`` (first ``strata`` rolls
    stratified, truncated after ``truncate`` rolls) with filter ``filt`` keeping ``k`` plays
    (0: exact variance reduction)."""
    st = _vr_settings(truncate=truncate, vr_filter=k)
    roots = np.ascontiguousarray(np.array(root, dtype=np.int8)[None])
    out = np.zeros((1, n, NUM_OUT))
    done = rollout_chunk(
        roots,
        np.array([[1.0, 0.0]]),
        0,
        n,
        st,
        make_permutations(strata),
        strata,
        ev,
        make_rollout_workspace(hidden_size(ev), filt),
        out,
        np.zeros(1, dtype=np.int64),
    )
    assert done == n
    return out[0]


def test_vr_filter_plays_the_same_games_and_stays_unbiased(ev):
    """The filter changes only which plays the luck values: the games (their raw outcomes,
    truncated at 6 rolls) are those of exact variance reduction, trial for trial; the
    variance-reduced estimates of both agree within their standard errors and both are
    tighter than the raw outcomes."""
    filt = load_filter_net()
    n = 144
    exact = _vr_run(ev, 0, n, filt)
    fast = _vr_run(ev, 2, n, filt)
    np.testing.assert_array_equal(exact[:, O_RAW], fast[:, O_RAW])
    d = fast[:, O_CUBELESS] - exact[:, O_CUBELESS]
    assert np.any(d != 0.0)  # the filter did change some luck
    se = d.std(ddof=1) / np.sqrt(n)
    assert abs(d.mean()) < 4 * se + 1e-9
    raw_var = exact[:, O_RAW].var()
    assert fast[:, O_CUBELESS].var() < raw_var / 2
    assert exact[:, O_CUBELESS].var() < raw_var / 2


def test_vr_filter_keeping_every_play_is_exact_vr(ev):
    """Two checkers a side: no roll has more than 8 plays, so with k = 8 the filter keeps
    every play and the rollout is exact variance reduction, bit for bit. (With a race side net
    the filter's picks of a race are valued by the race net, the exact reduction's by the side
    net: the nets alone here.)"""
    ev = with_databases(nets_of(ev))
    assert ev.side.w2.shape[0] == 0
    filt = load_filter_net()
    race = np.zeros(26, dtype=np.int8)
    race[5] = race[6] = 1
    race[19] = race[20] = -1
    exact = _vr_run(ev, 0, 36, filt, truncate=3, root=race, strata=2)
    np.testing.assert_array_equal(exact, _vr_run(ev, 8, 36, filt, truncate=3, root=race, strata=2))


def test_shipped_filter_net_loads_and_names_what_it_was_distilled_from():
    w1, b1, w2 = load_filter_net()
    assert w1.shape == (2 * FILTER_ROWS, b1.shape[0]) and w2.shape == (b1.shape[0] + 1,)
    from bgtui.analysis.weights import find_weights

    with np.load(find_weights("filter-0.npz")) as z:
        meta = json.loads(str(z["meta"]))
    assert meta["kind"] == "filter" and meta["distilled_from"]
    assert 0.0 < meta["report"]["filter"]["2"]["luck_variance_share"] < 0.05


def test_damaged_filter_net_is_refused_with_a_clear_message(tmp_path):
    from bgtui.analysis.weights import find_weights

    with np.load(find_weights("filter-0.npz")) as z:
        data = {k: z[k] for k in z.files}
    data["w1"] = data["w1"] + 1.0
    bad = tmp_path / "filter-bad.npz"
    np.savez(bad, **data)
    with pytest.raises(WeightsError, match="checksum"):
        load_filter_net(str(bad))


def test_vr_filter_setting_is_checked():
    from bgtui.analysis.models import MAX_VR_FILTER
    from bgtui.engine.filter_net import MAX_FILTER_K

    assert MAX_VR_FILTER == MAX_FILTER_K  # the setting's bound is the engine's room
    with pytest.raises(ValueError, match="vr-filter"):
        validate_settings(RolloutSettings(vr_filter=9))
    assert validate_settings(RolloutSettings(vr_filter=2)).vr_filter == 2


def test_vr_filter_at_1ply_plays_the_same_games_and_stays_unbiased(ev):
    """With 1-ply checker play the filter's best two of each roll are valued at 1-ply: the
    games are still those of exact variance reduction (the play made is chosen at 1-ply as
    without the filter), and both estimates agree within their standard errors. 360 trials:
    over one cycle of 36 the quasi-random dice give each roll once and the spread of the paired
    differences does not bound the error of their mean."""
    filt = load_filter_net()
    pos = np.array(OPENING_POSITION, dtype=np.int8)
    pos[13], pos[11], pos[24], pos[21] = 4, 1, 1, 1
    outs = []
    for k in (0, 2):
        st = _vr_settings(truncate=2, ply=1, vr_filter=k)
        out = np.zeros((1, 360, NUM_OUT))
        rollout_chunk(
            np.ascontiguousarray(pos[None]),
            np.array([[1.0, 0.0]]),
            0,
            360,
            st,
            make_permutations(8),
            8,
            ev,
            make_rollout_workspace(hidden_size(ev), filt),
            out,
            np.zeros(1, dtype=np.int64),
        )
        outs.append(out[0])
    exact, fast = outs
    np.testing.assert_array_equal(exact[:, O_RAW], fast[:, O_RAW])
    d = fast[:, O_CUBELESS] - exact[:, O_CUBELESS]
    assert np.any(d != 0.0)
    assert abs(d.mean()) < 4 * d.std(ddof=1) / np.sqrt(len(d)) + 1e-9
