"""The extended one-sided database: a last checker (straggler) outside the home board.

Known answers: a hand count (one checker on the 7 point), a slow pure-Python search over the
reference move generator (``tests/reference/slow_movegen``, written from the rules and
independent of the kernels), the home-board database (the extended one must agree with it
row for row), invariants (every distribution sums to 1, a straggler farther out never
finishes sooner) and the evaluator's dispatch (which races the database values).
"""

from functools import cache

import numpy as np
import pytest

from bgtui.analysis import bearoff_cache
from bgtui.engine import bearoff as B
from bgtui.engine.constants import ROLL_WEIGHTS, ROLLS
from tests.reference.slow_movegen import legal_plays


@pytest.fixture(scope="module")
def ext():
    return bearoff_cache.get_extended_one_sided()


def side(home=(), straggler=0):
    """int8[26] with only the player's checkers: ``home[i]`` on point i + 1, one on
    ``straggler`` (0: none)."""
    pos = np.zeros(26, dtype=np.int8)
    for i, n in enumerate(home):
        pos[1 + i] = n
    if straggler:
        pos[straggler] += 1
    return pos


def row(pos):
    return int(B.side_row(pos, 0, B.EXTENDED_SIZE))


@cache
def _py_dist(key):
    """Distribution (tuple over 0..31 rolls) of the rolls one side needs to bear off, each roll
    played to minimise the expected number of rolls; ``key`` = bytes of the side's board."""
    b = [int(x) for x in np.frombuffer(key, dtype=np.int8)]
    if not any(x > 0 for x in b):
        return (1.0,) + (0.0,) * 31
    acc = np.zeros(32)
    for (a, c), w in zip(ROLLS, ROLL_WEIGHTS):
        kids = [_py_dist(k) for k in legal_plays(b, int(a), int(c))]
        best = min(kids, key=lambda d: float(np.dot(d, np.arange(32))))
        acc[1:] += w / 36.0 * np.array(best[:-1])
    return tuple(acc)


def test_extended_database_sizes_are_the_binomial_counts():
    assert B.STRAGGLER_HOME == 38760  # home boards of at most 14 checkers: C(20, 6)
    assert B.STRAGGLER_ROWS == 12 * 38760
    assert B.EXTENDED_SIZE == 54264 + 465120


def test_side_row_of_home_boards_is_the_home_index():
    rng = np.random.default_rng(3)
    for _ in range(200):
        counts = np.zeros(6, dtype=np.int64)
        for _ in range(rng.integers(0, 16)):
            counts[rng.integers(0, 6)] += 1
        pos = side(counts)
        assert B.side_row(pos, 0, B.EXTENDED_SIZE) == B.player_index(pos)
        assert B.side_row(pos, 0, B.ONE_SIDED_SIZE) == B.player_index(pos)
        # the same checkers as the opponent's, mirrored
        opp = np.zeros(26, dtype=np.int8)
        opp[24:18:-1] = -counts
        assert B.side_row(opp, 1, B.EXTENDED_SIZE) == B.opponent_index(opp)


def test_side_row_out_of_range():
    assert row(side((3,), 7)) == B.ONE_SIDED_SIZE + B.bearoff_index(np.array([3, 0, 0, 0, 0, 0]))
    assert row(side((3,), 18)) == (
        B.ONE_SIDED_SIZE + 11 * B.STRAGGLER_HOME + B.bearoff_index(np.array([3, 0, 0, 0, 0, 0]))
    )
    assert row(side((3,), 19)) == -1  # beyond the 18 point
    two = side((3,), 7)
    two[9] = 1
    assert row(two) == -1  # two stragglers
    stack = side((3,))
    stack[8] = 2
    assert row(stack) == -1  # two checkers on one outside point
    bar = side((3,))
    bar[25] = 1
    assert row(bar) == -1
    # without the straggler rows, a straggler is out of range
    assert B.side_row(side((3,), 7), 0, B.ONE_SIDED_SIZE) == -1


def test_extended_rows_extend_the_home_database(ext):
    one = bearoff_cache.get_one_sided()
    # home boards, stragglers, then the few-checker rows (tests/engine/test_bearoff_few.py)
    assert ext.shape == (B.FULL_SIZE, 2, B.MAX_ROLLS)
    assert np.array_equal(ext[: B.ONE_SIDED_SIZE], one.dist)
    sums = ext[B.ONE_SIDED_SIZE : B.EXTENDED_SIZE].astype(np.float64).sum(axis=2)
    assert np.abs(sums - 1.0).max() < 1e-5


def test_single_checker_on_the_7_point(ext):
    # off in one roll: a non-double of 7 or more pips (18 of 36: the 21 ordered pairs summing
    # to 7+ less the three doubles 4-4, 5-5, 6-6) or any double but 1-1 (5 of 36)
    d = ext[row(side((), 7)), 0]
    assert d[1] == pytest.approx(23 / 36, abs=1e-6)
    # a side with fewer than 15 checkers already has one off: no gammon to save
    assert ext[row(side((), 7)), 1, 0] == 1.0


@pytest.mark.parametrize(
    "home,s",
    [((), 8), ((1,), 7), ((0, 1), 9), ((2,), 8), ((1, 0, 1), 10), ((0, 0, 0, 0, 0, 1), 12)],
)
def test_straggler_rows_match_python_search(ext, home, s):
    ref = np.array(_py_dist(side(home, s).tobytes()))
    got = ext[row(side(home, s)), 0].astype(np.float64)
    mean = np.arange(32)
    assert float(got @ mean) == pytest.approx(float(ref @ mean), abs=1e-5)
    assert np.abs(got - ref).max() < 1e-5


def test_farther_straggler_never_finishes_sooner(ext):
    mean = np.arange(B.MAX_ROLLS)
    rng = np.random.default_rng(5)
    for _ in range(100):
        counts = np.zeros(6, dtype=np.int64)
        for _ in range(rng.integers(0, 15)):
            counts[rng.integers(0, 6)] += 1
        m = [float(ext[row(side(counts, s)), 0] @ mean) for s in range(7, 19)]
        assert all(a <= b + 1e-5 for a, b in zip(m, m[1:]))
        assert float(ext[row(side(counts)), 0] @ mean) <= m[0] + 1e-5


def test_gammon_distribution_of_a_full_side_with_a_straggler(ext):
    # 14 checkers on the ace point and one on the 7: no checker is off yet, and the first
    # comes off in one roll unless the roll is 3-2 or 4-2 (hand count: a die of 1 bears a
    # checker off the ace point once the straggler is home; 7 or more pips bear the straggler
    # itself off; every double works, 1-1 by 7/6 and three checkers off the ace point; 3-2 and
    # 4-2 leave the straggler on 3..5, above the ace point, so the smaller die cannot bear off)
    r = row(side((14,), 7))
    g = ext[r, 1].astype(np.float64)
    assert g[0] == 0.0
    assert abs(g.sum() - 1.0) < 1e-5
    assert g[1] == pytest.approx(32 / 36, abs=1e-6)
    assert g[2] == pytest.approx(4 / 36, abs=1e-6)  # then any roll takes one off


def test_one_sided_applies_only_to_races_in_range(ext):
    pos = np.zeros(26, dtype=np.int8)
    pos[1:4] = 3  # player: 9 checkers home
    pos[10] = 1  # and a straggler on his 10 point
    pos[22] = -4  # opponent: 4 on his 3 point
    pos[15] = -1  # and a straggler on his 10 point (our 15): behind ours, a race
    assert B.one_sided_applies(pos, ext)
    assert not B.one_sided_applies(pos, bearoff_cache.get_one_sided().dist)
    pos[15] = 0
    pos[8] = -1  # his straggler on our 8 point, ours on the 10: contact
    assert not B.one_sided_applies(pos, ext)


def test_evaluation_uses_the_database_in_straggler_races(ext):
    from bgtui.analysis.formats import decode_position_id
    from bgtui.analysis.weights import load_weights, with_databases
    from bgtui.engine.evaluate import evaluate0

    ev = with_databases(load_weights("bgtui-0.npz")[0], bearoff=True)
    # a late race from self-play with a straggler (the race net said 81% here; a 1296-trial
    # rollout 75.2 +- 0.4%): each side's distribution from the search, convolved
    pos = decode_position_id("7wABAG4bAAAAAA")
    assert B.one_sided_applies(pos, ev[3])
    me = np.zeros(26, dtype=np.int8)
    me[1:25] = np.maximum(pos[1:25], 0)
    him = np.zeros(26, dtype=np.int8)
    for j in range(1, 25):
        him[j] = max(-pos[25 - j], 0)
    a = np.array(_py_dist(me.tobytes()))
    b = np.array(_py_dist(him.tobytes()))
    win = sum(a[k] * b[k:].sum() for k in range(32))
    assert float(evaluate0(pos, ev)[0]) == pytest.approx(win, abs=1e-5)
    assert win == pytest.approx(0.752, abs=0.01)


def test_damaged_cache_file_is_detected(ext, tmp_path):
    params = {"x": 1}
    path = tmp_path / "ext.npy"
    meta = tmp_path / "ext.json"
    bearoff_cache._save_extended(path, meta, ext, params)
    assert np.array_equal(bearoff_cache._load_extended(path, meta, params), ext)
    with pytest.raises(bearoff_cache.BearoffCacheError, match="built with"):
        bearoff_cache._load_extended(path, meta, {"x": 2})
    with open(path, "r+b") as f:
        f.seek(-1000, 2)
        f.write(b"\x01")
    with pytest.raises(bearoff_cache.BearoffCacheError, match="checksum"):
        bearoff_cache._load_extended(path, meta, params)
    with open(path, "r+b") as f:
        f.truncate(10_000)
    with pytest.raises(bearoff_cache.BearoffCacheError):
        bearoff_cache._load_extended(path, meta, params)


def test_one_sided_truncation_stops_rollouts_in_straggler_races(ext):
    from bgtui.analysis.formats import decode_position_id
    from bgtui.analysis.weights import load_weights, with_databases
    from bgtui.engine import rollout as R
    from bgtui.engine.evaluate import evaluate0, hidden_size

    ev = with_databases(load_weights("bgtui-0.npz")[0], bearoff=True)
    pos = decode_position_id("7wABAG4bAAAAAA")  # in the straggler rows, not two-sided
    out = np.zeros((1, 36, R.NUM_OUT))
    cubes = np.array([[1.0, 0.0, 0.0]])
    args = (
        0,
        36,
        None,
        R.make_permutations(3),
        3,
        ev,
        R.make_rollout_workspace(hidden_size(ev)),
        out,
        np.zeros(1, dtype=np.int64),
    )

    def run(**flags):
        a = list(args)
        a[2] = R.make_settings(
            vr=False,
            jacoby=False,
            settle=0.0,
            play_on=0.0,
            bearoff=flags.get("bearoff", 0),
            one_sided=flags.get("one_sided", 0),
        )
        R._rollout_chunk(pos[None].copy(), cubes, *a)
        return out.copy()

    cut = run(bearoff=1, one_sided=1)
    assert (cut[0, :, R.O_TURNS] == 0).all()  # stopped before the first roll
    np.testing.assert_allclose(cut[0, :, :5], np.tile(evaluate0(pos, ev), (36, 1)), atol=1e-6)
    played = run(bearoff=1)  # exact truncation only: the race is played to the two-sided range
    assert (played[0, :, R.O_TURNS] > 0).all()


def test_building_in_parts_on_threads_gives_the_same_database(ext):
    from concurrent.futures import ThreadPoolExecutor

    one = bearoff_cache.get_one_sided()
    with ThreadPoolExecutor(3) as pool:
        dist, _ = B.build_extended_one_sided(
            one.dist,
            one.mean,
            parts=3,
            run=lambda ts: [f.result() for f in [pool.submit(t) for t in ts]],
        )
    assert np.array_equal(
        dist, ext[: B.EXTENDED_SIZE]
    )  # ext: built (or cached) by the cache module
