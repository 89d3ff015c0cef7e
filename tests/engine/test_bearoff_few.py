"""The few-checker rows of the one-sided database: a side with at most ``FEW_CHECKERS``
checkers anywhere on its points 1..24, the rest borne off.

Known answers: hand counts (one checker: the rolls until the dice's pips reach its point;
two checkers on the ace point), brute force over the dice for one checker on every point, a
slow pure-Python search over the reference move generator (``tests/reference/slow_movegen``,
independent of the kernels) for two and three checkers, a second computation of the same
quantity (the home-board and straggler rows, built by other code, must agree where both
apply), the index's bijection checked against an enumeration, and the evaluator's dispatch.
"""

from functools import cache
from itertools import combinations_with_replacement

import numpy as np
import pytest

from bgtui.analysis import bearoff_cache
from bgtui.engine import bearoff as B
from bgtui.engine.constants import ROLL_WEIGHTS, ROLLS
from tests.engine.test_bearoff_extended import _py_dist
from tests.reference.slow_movegen import legal_plays


@pytest.fixture(scope="module")
def full():
    return bearoff_cache.get_extended_one_sided()


def side(points):
    """int8[26] with only the player's checkers, one on each of ``points`` (repeats stack)."""
    pos = np.zeros(26, dtype=np.int8)
    for p in points:
        pos[p] += 1
    return pos


def mirror(pos):
    """The same checkers as the opponent's (their point j at our 25 - j)."""
    opp = np.zeros(26, dtype=np.int8)
    for j in range(1, 26):
        opp[25 - j] = -pos[j]
    return opp


def few_row(points):
    return B.EXTENDED_SIZE + int(B.few_index(side(points), 0))


def one_checker_dist(p, nrolls=B.MAX_ROLLS):
    """Brute force over the dice: one checker on point ``p`` moves the whole roll (d1 + d2, or
    4d for a double: nothing blocks it and bearing off with a larger die is legal for the
    last checker), so it needs the first k with the k rolls' pips >= p."""
    left = {p: 1.0}  # pips still to go -> probability, after k rolls
    out = np.zeros(nrolls)
    for k in range(1, nrolls):
        nxt = {}
        for need, pr in left.items():
            for (a, b), w in zip(ROLLS, ROLL_WEIGHTS):
                pips = 4 * a if a == b else a + b
                if pips >= need:
                    out[k] += pr * w / 36
                else:
                    nxt[need - pips] = nxt.get(need - pips, 0.0) + pr * w / 36
        left = nxt
    return out


@cache
def _plays(key, a, b):
    return tuple(legal_plays([int(x) for x in np.frombuffer(key, dtype=np.int8)], a, b))


@cache
def _exact_win(me, him):
    """Exact P(the side on roll wins) of a race, both sides playing to maximise their winning
    chances (what the one-sided approximation only approaches); ``me`` / ``him``: bytes of each
    side's own int8[26] board (no contact: the two are independent but for whose turn it is)."""
    p = 0.0
    for (a, b), w in zip(ROLLS, ROLL_WEIGHTS):
        best = 0.0
        for k in _plays(me, int(a), int(b)):
            best = max(best, 1.0 if max(k) == 0 else 1.0 - _exact_win(him, k))
        p += w / 36 * best
    return p


def sides(pos):
    """The two sides of a race, each as its own board (bytes), the player's first."""
    me = np.zeros(26, dtype=np.int8)
    me[1:25] = np.maximum(pos[1:25], 0)
    him = np.zeros(26, dtype=np.int8)
    for j in range(1, 25):
        him[j] = max(-pos[25 - j], 0)
    return me, him


def test_few_checker_database_sizes_are_the_binomial_counts():
    assert B.FEW_CHECKERS == 6
    assert B.FEW_ROWS == 593775  # C(30, 6): at most 6 checkers on 24 points
    assert B.num_few_positions(5) == 118755  # C(29, 5)
    assert B.FULL_SIZE == B.EXTENDED_SIZE + B.FEW_ROWS


def test_few_index_is_a_bijection_onto_the_first_ranks():
    # every position of at most 4 checkers (enumerated as multisets of points) gets a distinct
    # rank, and together they are exactly 0 .. C(28, 4) - 1; unranking gives them back
    n = B.num_few_positions(4)
    ranks = []
    for k in range(5):
        for pts in combinations_with_replacement(range(1, 25), k):
            pos = side(pts)
            r = int(B.few_index(pos, 0))
            assert int(B.few_index(mirror(pos), 1)) == r
            back = np.zeros(26, dtype=np.int8)
            assert B.few_position(r, back) == k
            assert np.array_equal(back, pos)
            ranks.append(r)
    assert len(ranks) == n == 20475
    assert sorted(ranks) == list(range(n))


def test_few_index_round_trips_over_all_rows():
    back = np.zeros(26, dtype=np.int8)
    rng = np.random.default_rng(7)
    for r in list(range(50)) + list(rng.integers(0, B.FEW_ROWS, 3000)) + [B.FEW_ROWS - 1]:
        k = B.few_position(int(r), back)
        assert k <= B.FEW_CHECKERS and back[1:25].sum() == k and back.min() >= 0
        assert B.few_index(back, 0) == r
    # the next rank is the first position with one checker more
    assert B.few_position(B.FEW_ROWS, back) == B.FEW_CHECKERS + 1


def test_side_row_order_and_range():
    n = B.FULL_SIZE
    home = side((1, 2, 2))
    assert B.side_row(home, 0, n) == B.player_index(home)  # home rows first
    strag = side((1, 2, 9))
    assert B.side_row(strag, 0, n) == B.side_row(strag, 0, B.EXTENDED_SIZE) < B.EXTENDED_SIZE
    two_out = side((1, 9, 13))
    assert B.side_row(two_out, 0, n) == few_row((1, 9, 13))
    assert B.side_row(mirror(two_out), 1, n) == few_row((1, 9, 13))
    assert B.side_row(two_out, 0, B.EXTENDED_SIZE) == -1  # without the few-checker rows
    assert B.side_row(side((24,)), 0, n) == few_row((24,))  # beyond the straggler points
    assert B.side_row(side((8, 8)), 0, n) == few_row((8, 8))  # two on one outside point
    assert B.side_row(side((1, 1, 1, 1, 9, 13)), 0, n) >= 0  # six checkers
    assert B.side_row(side((1, 1, 1, 1, 1, 9, 13)), 0, n) == -1  # seven
    bar = side((1, 9))
    bar[25] = 1
    assert B.side_row(bar, 0, n) == -1
    assert B.side_row(mirror(bar), 1, n) == -1


@pytest.mark.parametrize("p", range(1, 25))
def test_one_checker_matches_brute_force_over_the_dice(full, p):
    got = full[few_row((p,)), 0].astype(np.float64)
    assert np.abs(got - one_checker_dist(p)).max() < 1e-6
    assert full[few_row((p,)), 1, 0] == 1.0  # a checker is off: no gammon to save


def test_one_checker_hand_counts(full):
    # off in one roll from the 24 point: only 6-6 (24 pips); from the 13: 4-4, 5-5, 6-6;
    # from the 7: 18 non-doubles of 7+ pips and every double but 1-1
    assert full[few_row((24,)), 0, 1] == pytest.approx(1 / 36, abs=1e-7)
    assert full[few_row((13,)), 0, 1] == pytest.approx(3 / 36, abs=1e-7)
    assert full[few_row((7,)), 0, 1] == pytest.approx(23 / 36, abs=1e-7)
    # two checkers on the ace point: any roll takes both off
    assert full[few_row((1, 1)), 0, 1] == pytest.approx(1.0, abs=1e-7)
    # all off: zero rolls
    assert full[B.EXTENDED_SIZE, 0, 0] == 1.0


@pytest.mark.parametrize("points", [(24, 13), (20, 20), (9, 3), (15, 8), (24, 1), (8, 7, 2)])
def test_few_rows_match_python_search(full, points):
    ref = np.array(_py_dist(side(points).tobytes()))
    got = full[few_row(points), 0].astype(np.float64)
    mean = np.arange(B.MAX_ROLLS)
    assert float(got @ mean) == pytest.approx(float(ref @ mean), abs=1e-5)
    assert np.abs(got - ref).max() < 1e-5


def test_few_rows_agree_with_home_and_straggler_rows(full):
    # every side of at most 6 checkers that the home-board or straggler rows hold: the same
    # distribution, computed twice by different code (counts kernels vs the move generator)
    k = 0
    for n in range(B.FEW_CHECKERS + 1):
        for pts in combinations_with_replacement(range(1, 19), n):
            if sum(p > 6 for p in pts) > 1:
                continue
            pos = side(pts)
            a = full[B.side_row(pos, 0, B.EXTENDED_SIZE)].astype(np.float64)
            b = full[B.EXTENDED_SIZE + B.few_index(pos, 0)].astype(np.float64)
            assert np.abs(a - b).max() < 2e-6, pts
            k += 1
    assert k == B.num_positions(6) + 12 * B.num_positions(5)  # 924 + 12 * 462


def test_every_few_row_is_a_distribution(full):
    rows = full[B.EXTENDED_SIZE :].astype(np.float64)
    assert np.abs(rows[:, 0].sum(axis=1) - 1.0).max() < 1e-5
    assert (rows[:, 1, 0] == 1.0).all() and (rows[:, 1, 1:] == 0.0).all()


def test_a_checker_farther_out_can_finish_sooner(full):
    # not monotone: moving a checker from the ace to the 2 point, with three still outside,
    # lowers the expected rolls (the slow search agrees: 6.1231 against 6.0985), so a
    # "farther never finishes sooner" check would be wrong for these rows
    mean = np.arange(B.MAX_ROLLS)
    for pts, want in (((1, 1, 7, 14, 18), 6.12306), ((1, 2, 7, 14, 18), 6.09853)):
        ref = np.array(_py_dist(side(pts).tobytes()))
        assert float(ref @ mean) == pytest.approx(want, abs=1e-5)
        assert float(full[few_row(pts), 0] @ mean) == pytest.approx(want, abs=1e-5)
        assert np.abs(full[few_row(pts), 0] - ref).max() < 1e-5


def test_building_in_parts_gives_the_same_rows_and_smaller_k_is_a_prefix(full):
    from concurrent.futures import ThreadPoolExecutor

    one, _ = B.build_few_checker_rows(3)
    with ThreadPoolExecutor(3) as pool:
        three, mean = B.build_few_checker_rows(
            3, parts=3, run=lambda ts: [f.result() for f in [pool.submit(t) for t in ts]]
        )
    assert np.array_equal(one, three)
    assert one.shape == (B.num_few_positions(3), 2, B.MAX_ROLLS)
    assert np.array_equal(one, full[B.EXTENDED_SIZE : B.EXTENDED_SIZE + len(one)])
    assert mean[:, 0] == pytest.approx(
        one[:, 0].astype(np.float64) @ np.arange(B.MAX_ROLLS), abs=1e-5
    )
    with pytest.raises(ValueError):
        B.build_few_checker_rows(15)


def test_one_sided_applies_needs_both_sides_covered(full):
    pos = np.zeros(26, dtype=np.int8)
    pos[1] = 8  # player: 8 on the ace point (home rows)
    pos[24] = -1
    pos[18] = -1
    pos[9] = -1  # opponent: three checkers, two outside (few-checker rows)
    assert B.one_sided_applies(pos, full)
    assert not B.one_sided_applies(pos, full[: B.EXTENDED_SIZE])
    pos[22] = -4  # seven checkers: out of range
    assert not B.one_sided_applies(pos, full)
    pos[22] = 0
    pos[9] = 0
    pos[3] = -1  # behind the player's checker on his 5 point: contact, not a race
    pos[1] = 7
    pos[5] = 1
    assert B.side_row(pos, 0, B.FULL_SIZE) >= 0 and B.side_row(pos, 1, B.FULL_SIZE) >= 0
    assert not B.one_sided_applies(pos, full)


def test_evaluation_uses_the_few_checker_rows():
    from bgtui.analysis.formats import decode_position_id
    from bgtui.analysis.weights import load_weights, with_databases
    from bgtui.engine.evaluate import ONE_SIDED_DB, database_kind, evaluate0

    ev = with_databases(load_weights("bgtui-0.npz")[0], bearoff=True)
    # from the held-out straggler races: 8 checkers on the ace point against three on the
    # opponent's 1, 7 and 16 points; the race net said 67.4%, a 1296-trial rollout 81.4%
    pos = decode_position_id("gQAC8A8AAAAAAA")
    assert database_kind(pos, ev[2], ev[3]) == ONE_SIDED_DB
    me, him = sides(pos)
    assert list(np.flatnonzero(him)) == [1, 7, 16]
    a = np.array(_py_dist(me.tobytes()))
    b = np.array(_py_dist(him.tobytes()))
    win = sum(a[k] * b[k:].sum() for k in range(B.MAX_ROLLS))
    got = evaluate0(pos, ev)
    assert float(got[0]) == pytest.approx(win, abs=1e-5)
    assert float(got[1]) == 0.0 and float(got[3]) == 0.0  # both sides have checkers off
    # the exact value (both sides maximising their chances) is 78.11%: the approximation
    # (78.25%) is 0.14 points off; the rollout's 81.4% came from the race net's own plays
    exact = _exact_win(me.tobytes(), him.tobytes())
    assert exact == pytest.approx(0.78111, abs=1e-5)
    assert abs(win - exact) < 0.002


def test_approximation_against_exact_races():
    from bgtui.analysis.weights import load_weights, with_databases
    from bgtui.engine.evaluate import ONE_SIDED_DB, database_kind, evaluate0

    ev = with_databases(load_weights("bgtui-0.npz")[0], bearoff=True)
    # player: six checkers on the ace point (home rows); opponent: two on his 7 and 16 points
    # (few-checker rows): exact 90.84%
    pos = np.zeros(26, dtype=np.int8)
    pos[1] = 6
    pos[25 - 7] = -1
    pos[25 - 16] = -1
    assert database_kind(pos, ev[2], ev[3]) == ONE_SIDED_DB
    exact = _exact_win(*(s.tobytes() for s in sides(pos)))
    assert exact == pytest.approx(0.90837, abs=1e-5)
    assert float(evaluate0(pos, ev)[0]) == pytest.approx(exact, abs=0.002)
    # swapped: the opponent's two checkers (few-checker rows) on roll
    flipped = -pos[::-1].copy()
    exact = _exact_win(*(s.tobytes() for s in sides(flipped)))
    assert float(evaluate0(flipped, ev)[0]) == pytest.approx(exact, abs=0.002)
