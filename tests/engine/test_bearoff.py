"""Bear-off databases: indexing, one-sided and two-sided builders, lookups and the disk cache.

Known answers come from hand calculation (worked out in the comments), from a slow pure-Python
game-tree search written independently of the kernels (``_py_*`` below), from the engine's
general move generator, and from invariants. The full databases are built once per session in
a temporary cache directory (which also exercises ``bgtui.analysis.bearoff_cache``).
"""

import json
import logging
import os
from functools import cache
from itertools import permutations

import numpy as np
import pytest

from bgtui.analysis import bearoff_cache
from bgtui.engine import bearoff as B
from bgtui.engine.constants import ROLLS
from bgtui.engine.movegen import generate_plays


def idx(*counts):
    """Index of a side with ``counts[i]`` checkers on point i + 1 (trailing zeros omitted)."""
    c = np.zeros(6, dtype=np.int64)
    c[: len(counts)] = counts
    return B.bearoff_index(c)


def board(player, opponent):
    """Full ``int8[26]`` position: ``player`` / ``opponent`` = counts on their own points 1..6."""
    pos = np.zeros(26, dtype=np.int8)
    for i, n in enumerate(player):
        pos[1 + i] = n
    for i, n in enumerate(opponent):
        pos[24 - i] = -n
    return pos


def index_board(x, y):
    """The position of the one-sided rows ``x`` (player on roll) and ``y`` (opponent)."""
    counts = np.zeros(6, dtype=np.int64)
    B.bearoff_position(x, counts)
    player = counts.copy()
    B.bearoff_position(y, counts)
    return board(player, counts)


@pytest.fixture(scope="module")
def dbs(tmp_path_factory):
    """Full databases, built through the cache module into a fresh cache directory."""
    d = tmp_path_factory.mktemp("cache")
    old = os.environ.get("BGTUI_CACHE_DIR")
    os.environ["BGTUI_CACHE_DIR"] = str(d)
    bearoff_cache.clear_memo()
    try:
        one = bearoff_cache.get_one_sided()
        two = bearoff_cache.get_two_sided()
        files = sorted(p.name for p in d.iterdir())
    finally:
        bearoff_cache.clear_memo()
        if old is None:
            del os.environ["BGTUI_CACHE_DIR"]
        else:
            os.environ["BGTUI_CACHE_DIR"] = old
    return one, two, files


# ------------------------------------------------------------------------------------------
# slow, independent pure-Python reference (tuples of 6 counts, point 1 first)

WEIGHTED_ROLLS = [(a, b, 1 if a == b else 2) for a in range(1, 7) for b in range(1, a + 1)]


def _py_step(c, p, d):
    """Move one checker from point p (1-based) with die d, or None if illegal."""
    if c[p - 1] == 0:
        return None
    c = list(c)
    c[p - 1] -= 1
    if p > d:
        c[p - d - 1] += 1
    elif p < d and any(c[q - 1] for q in range(p + 1, 7)):
        return None
    return tuple(c)


@cache
def _py_plays(c, a, b):
    """Every position reachable with roll (a, b): all dice orders, all checker choices."""
    orders = {(a,) * 4} if a == b else set(permutations((a, b)))
    out = set()

    def rec(pos, dice):
        if not dice or sum(pos) == 0:
            out.add(pos)
            return
        for p in range(1, 7):
            nxt = _py_step(pos, p, dice[0])
            if nxt is not None:
                rec(nxt, dice[1:])

    for o in orders:
        rec(c, o)
    return out


@cache
def _py_rolls(c):
    """(expected rolls, distribution as a dict) to bear off everything, min-expectation play."""
    if sum(c) == 0:
        return 0.0, {0: 1.0}
    mean = 1.0
    dist = {}
    for a, b, w in WEIGHTED_ROLLS:
        best = min(_py_plays(c, a, b), key=lambda x: _py_rolls(x)[0])
        m, d = _py_rolls(best)
        mean += w / 36 * m
        for k, p in d.items():
            dist[k + 1] = dist.get(k + 1, 0.0) + w / 36 * p
    return mean, dist


@cache
def _py_win(x, y):
    """Cubeless P(player on roll with x wins) against y, full game-tree search."""
    if sum(x) == 0:
        return 1.0
    if sum(y) == 0:
        return 0.0
    total = 0.0
    for a, b, w in WEIGHTED_ROLLS:
        total += (
            w / 36 * max(1.0 if sum(z) == 0 else 1.0 - _py_win(y, z) for z in _py_plays(x, a, b))
        )
    return total


@cache
def _py_money(x, y, cube):
    """Money equity on a 1-cube, cube in {"centre", "mine", "theirs"}, full game-tree search."""
    if sum(x) == 0:
        return 1.0
    if sum(y) == 0:
        return -1.0

    nd = _py_no_double(x, y, cube)
    if cube == "theirs":
        return nd
    # double: the opponent passes (+1) or takes (we roll, they own the cube at 2)
    return max(nd, min(1.0, 2.0 * _py_no_double(x, y, "theirs")))


@cache
def _py_no_double(x, y, cube):
    """Money equity when the player on roll does not double (or cannot) and rolls."""
    flip = {"centre": "centre", "mine": "theirs", "theirs": "mine"}[cube]
    v = 0.0
    for a, b, w in WEIGHTED_ROLLS:
        v += (
            w / 36 * max(1.0 if sum(z) == 0 else -_py_money(y, z, flip) for z in _py_plays(x, a, b))
        )
    return v


def _small_sides(max_checkers):
    out = []
    o = np.zeros(6, dtype=np.int64)
    for i in range(B.num_positions(max_checkers)):
        B.bearoff_position(i, o)
        out.append(tuple(int(v) for v in o))
    return out


# ------------------------------------------------------------------------------------------
# indexing


def test_bearoff_index_bijection_for_all_54264_positions():
    # Given every index, When unranked and ranked again, Then the index comes back, the
    # position has at most 15 checkers, and all positions are distinct.
    assert B.ONE_SIDED_SIZE == 54264
    o = np.zeros(6, dtype=np.int64)
    seen = set()
    for i in range(B.ONE_SIDED_SIZE):
        n = B.bearoff_position(i, o)
        assert o.min() >= 0 and o.sum() == n <= 15
        assert B.bearoff_index(o) == i
        seen.add(tuple(o))
    assert len(seen) == 54264  # = C(21, 6): every position with 0..15 checkers on 6 points


def test_bearoff_index_all_off_is_zero_and_small_positions_come_first():
    assert idx() == 0
    assert B.num_positions(6) == B.TWO_SIDED_SIZE == 924
    assert [B.num_positions(n) for n in range(4)] == [1, 7, 28, 84]  # C(n+6, 6)
    # positions with at most N checkers are exactly the indices below C(N + 6, 6)
    o = np.zeros(6, dtype=np.int64)
    for n_max in (1, 3, 6):
        lim = B.num_positions(n_max)
        assert B.bearoff_position(lim - 1, o) == n_max
        assert B.bearoff_position(lim, o) == n_max + 1


def test_player_and_opponent_index_read_home_boards():
    # player: 2 on his 1 point, 1 on his 5; opponent: 3 on their 6 point (our 19)
    pos = board([2, 0, 0, 0, 1], [0, 0, 0, 0, 0, 3])
    assert B.player_index(pos) == idx(2, 0, 0, 0, 1)
    assert B.opponent_index(pos) == idx(0, 0, 0, 0, 0, 3)


def test_successors_are_those_of_the_board_with_the_opponent_parked_at_home():
    # Given one-sided positions, When every roll is played, Then the successors (generated on
    # a board without the opponent) are those of the full board with the opponent on his own
    # home board, where he is never in the way.
    o = np.zeros(6, dtype=np.int64)
    for i in range(1, B.ONE_SIDED_SIZE, 53):
        B.bearoff_position(i, o)
        pos = board(o, [3, 3, 3, 2, 2, 2])
        for d1, d2 in ROLLS:
            kids, _ = generate_plays(pos, int(d1), int(d2))
            ref = sorted({int(B.player_index(k)) for k in kids})
            assert list(B.successors(i, int(d1), int(d2))) == ref, (o, d1, d2)


def test_successors_match_python_reference_on_small_positions():
    for c in _small_sides(4):
        if sum(c) == 0:
            continue
        for a, b, _ in WEIGHTED_ROLLS:
            ref = sorted(idx(*z) for z in _py_plays(c, a, b))
            assert list(B.successors(idx(*c), a, b)) == ref


# ------------------------------------------------------------------------------------------
# one-sided database


def test_one_sided_shapes_and_normalisation(dbs):
    one, _, _ = dbs
    assert one.dist.shape == (54264, 2, B.MAX_ROLLS) and one.dist.dtype == np.float32
    assert one.mean.shape == (54264, 2)
    np.testing.assert_allclose(one.dist.sum(axis=2), 1.0, atol=1e-5)
    k = np.arange(B.MAX_ROLLS)
    np.testing.assert_allclose((one.dist * k).sum(axis=2), one.mean, rtol=1e-5)


def test_one_sided_checker_on_1_point_needs_one_roll(dbs):
    # . . . . . o   one checker on the 1 point: any roll bears it off
    one, _, _ = dbs
    assert one.dist[idx(1), 0, 1] == 1.0
    assert one.mean[idx(1), 0] == 1.0


def test_one_sided_two_checkers_on_1_point_need_one_roll(dbs):
    one, _, _ = dbs
    assert one.dist[idx(2), 0, 1] == 1.0


def test_one_sided_checker_on_6_point(dbs):
    # o . . . . .   one checker on the 6 point.
    # Fails to come off in one roll only when the dice cannot carry it 6 pips:
    # 11 (4 pips), 21 and 12 (3), 31 and 13 (4), 32 and 23 (5), 41 and 14 (5) = 9 of 36.
    # 22 succeeds (6/4/2/off), 33 (6/3/off), 42 (6/2/off), 51 (6/1/off). Every failing roll
    # leaves it on the 1, 2 or 3 point, gone next roll: P(1) = 27/36, P(2) = 9/36, E = 1.25.
    one, _, _ = dbs
    i = idx(0, 0, 0, 0, 0, 1)
    assert one.dist[i, 0, 1] == pytest.approx(27 / 36)
    assert one.dist[i, 0, 2] == pytest.approx(9 / 36)
    assert one.mean[i, 0] == pytest.approx(1.25)


def test_one_sided_checkers_on_1_point_expected_rolls(dbs):
    # n checkers on the 1 point: a double takes 4, any other roll 2.
    # 3: 1 roll with a double (6/36), else 2:  E = 1 + 30/36 = 11/6
    # 4: 1 roll with a double, else 2:          E = 11/6
    # 5: double leaves 1 (E 1), other leaves 3: E = 1 + 6/36 * 1 + 30/36 * 11/6 = 97/36
    one, _, _ = dbs
    assert one.mean[idx(3), 0] == pytest.approx(11 / 6)
    assert one.mean[idx(4), 0] == pytest.approx(11 / 6)
    assert one.mean[idx(5), 0] == pytest.approx(97 / 36)


def test_one_sided_matches_python_search_up_to_3_checkers(dbs):
    one, _, _ = dbs
    for c in _small_sides(3):
        mean, dist = _py_rolls(c)
        i = idx(*c)
        assert one.mean[i, 0] == pytest.approx(mean, abs=1e-12)
        ref = np.zeros(B.MAX_ROLLS)
        for k, p in dist.items():
            ref[k] = p
        np.testing.assert_allclose(one.dist[i, 0], ref, atol=1e-6)


def test_one_sided_longest_bearoff_is_30_rolls(dbs):
    # 15 checkers on the 6 point (90 pips) rolling 21 thirty times moves exactly 3 pips a roll
    # and needs 30 rolls; no position needs more, so MAX_ROLLS = 32 loses nothing.
    one, _, _ = dbs
    last = np.nonzero((one.dist > 0).any(axis=(0, 1)))[0].max()
    assert last == 30
    assert one.dist[idx(0, 0, 0, 0, 0, 15), 0, 30] > 0


def test_one_sided_first_checker_off_from_6_point_stack(dbs):
    # o . . . . .  x15: a checker comes off at once with any 6 (11 rolls), 51 and 42 (6/x/off,
    # 2 each), 33 (6/3/off) and 22 (6/4/2/off): 17/36. 44 and 55 cannot bear off (checkers
    # are still on the 6 point). After a miss a second roll may still miss (e.g. 11 twice).
    one, _, _ = dbs
    i = idx(0, 0, 0, 0, 0, 15)
    assert one.dist[i, 1, 0] == 0.0
    assert one.dist[i, 1, 1] == pytest.approx(17 / 36)
    # 15 on the 1 point: the first checker is off after one roll, always
    assert one.dist[idx(15), 1, 1] == 1.0
    # a side with a checker already off needs no roll
    assert one.dist[idx(0, 0, 0, 0, 0, 14), 1, 0] == 1.0


def test_one_sided_expected_rolls_never_drop_when_a_checker_is_added(dbs):
    one, _, _ = dbs
    o = np.zeros(6, dtype=np.int64)
    for i in range(0, B.num_positions(14), 7):
        B.bearoff_position(i, o)
        for p in range(6):
            o[p] += 1
            assert one.mean[B.bearoff_index(o), 0] >= one.mean[i, 0]
            o[p] -= 1


# ------------------------------------------------------------------------------------------
# two-sided database


def test_two_sided_shapes(dbs):
    _, two, _ = dbs
    assert two.win.shape == (924, 924) and two.win.dtype == np.float32
    assert two.cubeful.shape == (924, 924, 3) and two.cubeful.dtype == np.float32
    assert two.no_double.shape == (924, 924, 3) and two.no_double.dtype == np.float32


def test_two_sided_checker_on_1_point_always_wins(dbs):
    # player on roll: . . . . . o  (one checker on his 1 point) vs any opponent position
    _, two, _ = dbs
    assert np.all(two.win[idx(1), 1:] == 1.0)
    # and it is a double and pass, or simply +1: the centred equity is +1
    assert np.all(two.cubeful[idx(1), 1:, 0] == 1.0)


def test_two_sided_6_point_vs_6_point(dbs):
    # player:   o . . . . .   (one checker on his 6 point)
    # opponent: x . . . . .   (one checker on their 6 point)
    # cubeless: win at once 27/36; otherwise (9/36) the opponent misses too (9/36) and the
    # player's checker, now on the 1-3 point, comes off: 27/36 + 9/36 * 9/36 = 0.8125.
    # money, opponent owns the cube: 27/36 * 1 - 9/36 * 1 = 0.5 (after a miss the opponent
    # redoubles: we take at 2 * (27/36 - 9/36) = 1 or pass at 1, they get +1 either way).
    # centred / owned: double, take worth 2 * 0.5 = 1, pass 1: equity +1.
    _, two, _ = dbs
    x = y = idx(0, 0, 0, 0, 0, 1)
    assert two.win[x, y] == pytest.approx(0.8125)
    np.testing.assert_allclose(two.cubeful[x, y], [1.0, 1.0, 0.5], atol=1e-6)


def test_two_sided_no_double_table_hand_case(dbs):
    # player:   o . . . . .   (one checker on his 6 point: off with 27 rolls of 36)
    # opponent: . . . . . x   (one checker on his 1 point: off with any roll)
    # not doubling: 27/36 he wins 1 point; 9/36 the opponent bears off (or cashes): -1, so
    # no double = 0.5 in every cube state; a taken double: 2 * 0.5 = +1 = the pass. The
    # value before the decision (cubeful) is +1 with access to the cube, 0.5 without.
    _, two, _ = dbs
    x, y = idx(0, 0, 0, 0, 0, 1), idx(1)
    assert two.win[x, y] == pytest.approx(0.75)
    np.testing.assert_allclose(two.no_double[x, y], [0.5, 0.5, 0.5], atol=1e-6)
    np.testing.assert_allclose(two.cubeful[x, y], [1.0, 1.0, 0.5], atol=1e-6)


def test_two_sided_no_double_and_cubeful_relations(dbs):
    # the recurrences' relations between the tables: the value before the decision is the
    # better of playing on and doubling (min of pass and take), opponent-owned rows are equal
    _, two, _ = dbs
    nd = two.no_double[1:, 1:].astype(np.float64)
    e = two.cubeful[1:, 1:].astype(np.float64)
    dbl = np.minimum(1.0, 2.0 * nd[..., 2])
    np.testing.assert_allclose(e[..., 0], np.maximum(nd[..., 0], dbl), atol=2e-6)
    np.testing.assert_allclose(e[..., 1], np.maximum(nd[..., 1], dbl), atol=2e-6)
    np.testing.assert_array_equal(e[..., 2], nd[..., 2])
    # doubling is right in many positions, and there no double is strictly below the value
    right = dbl > nd[..., 0] + 1e-3
    assert right.sum() > 1000 and np.all(e[..., 0][right] > nd[..., 0][right])


def test_two_sided_full_build_no_double_table_matches_game_tree_search_with_3_checkers(dbs):
    # the full build's table (not only a small build's) against the pure-Python search
    _, two, _ = dbs
    sides = _small_sides(3)
    for x in sides[2::5]:
        for y in sides[3::7]:
            for k, c in enumerate(("centre", "mine", "theirs")):
                assert two.no_double[idx(*x), idx(*y), k] == pytest.approx(
                    _py_no_double(x, y, c), abs=1e-6
                )


def test_two_sided_matches_game_tree_search_up_to_2_checkers(dbs):
    _, two, _ = dbs
    sides = _small_sides(2)
    small_win, small_eq, small_nd = B.build_two_sided(2)
    for x in sides:
        for y in sides:
            i, j = idx(*x), idx(*y)
            if sum(x) and sum(y):
                assert two.win[i, j] == pytest.approx(_py_win(x, y), abs=1e-6)
                ref = [_py_money(x, y, s) for s in ("centre", "mine", "theirs")]
                np.testing.assert_allclose(two.cubeful[i, j], ref, atol=1e-6)
                ref = [_py_no_double(x, y, s) for s in ("centre", "mine", "theirs")]
                np.testing.assert_allclose(two.no_double[i, j], ref, atol=1e-6)
            # a small build gives the same numbers as the full one
            assert small_win[i, j] == two.win[i, j]
            np.testing.assert_array_equal(small_eq[i, j], two.cubeful[i, j])
            np.testing.assert_array_equal(small_nd[i, j], two.no_double[i, j])


def test_two_sided_small_build_matches_game_tree_search_with_3_checkers():
    win, eq, nd = B.build_two_sided(3)
    assert win.shape == (84, 84) and eq.shape == (84, 84, 3) and nd.shape == (84, 84, 3)
    sides = _small_sides(3)
    for x in sides[1::4]:
        for y in sides[1::3]:
            assert win[idx(*x), idx(*y)] == pytest.approx(_py_win(x, y), abs=1e-6)
            assert eq[idx(*x), idx(*y), 0] == pytest.approx(_py_money(x, y, "centre"), abs=1e-6)
            for k, c in enumerate(("centre", "mine", "theirs")):
                assert nd[idx(*x), idx(*y), k] == pytest.approx(_py_no_double(x, y, c), abs=1e-6)


def test_two_sided_adding_a_checker_never_helps(dbs):
    # a checker added to the player never raises his chances; one added to the opponent
    # never lowers them
    _, two, _ = dbs
    w = two.win.astype(np.float64)
    o = np.zeros(6, dtype=np.int64)
    for i in range(1, B.num_positions(5)):
        B.bearoff_position(i, o)
        for p in range(6):
            o[p] += 1
            k = B.bearoff_index(o)
            o[p] -= 1
            assert np.all(w[k, 1:] <= w[i, 1:] + 1e-6)
            assert np.all(w[1:, k] >= w[1:, i] - 1e-6)


def test_two_sided_being_on_roll_never_hurts(dbs):
    # P(x on roll beats y) >= 1 - P(y on roll beats x)
    _, two, _ = dbs
    w = two.win[1:, 1:].astype(np.float64)
    assert np.all(w + w.T >= 1.0 - 1e-6)


def test_two_sided_cubeful_ordering_invariants(dbs):
    # owning the cube is worth at least having it centred, which is worth at least the
    # opponent owning it; the owner can always play cubeless, so owned >= 2p - 1 >= opp-owned;
    # every money equity is within [-1, +1] (no gammons)
    _, two, _ = dbs
    e = two.cubeful[1:, 1:].astype(np.float64)
    cubeless = 2.0 * two.win[1:, 1:].astype(np.float64) - 1.0
    tol = 1e-6
    assert np.all(e[..., 2] <= e[..., 0] + tol)
    assert np.all(e[..., 0] <= e[..., 1] + tol)
    assert np.all(e[..., 1] >= cubeless - tol)
    assert np.all(e[..., 2] <= cubeless + tol)
    assert np.all(np.abs(e) <= 1.0 + tol)


# ------------------------------------------------------------------------------------------
# lookups on full positions


def test_is_two_sided_and_is_bearoff_ranges():
    assert B.is_two_sided(board([1, 1, 1, 1, 1, 1], [0, 0, 0, 0, 0, 6]))
    assert not B.is_two_sided(board([1, 1, 1, 1, 1, 2], [1]))  # 7 checkers
    assert B.is_bearoff(board([1, 1, 1, 1, 1, 2], [1]))
    pos = board([1], [1])
    pos[7] = 1  # a player's checker on his 7 point
    assert not B.is_two_sided(pos) and not B.is_bearoff(pos)
    pos = board([1], [1])
    pos[25] = 1  # on the bar
    assert not B.is_bearoff(pos)
    pos = board([1], [1])
    pos[18] = -1  # an opponent's checker on their 7 point
    assert not B.is_bearoff(pos)


def test_two_sided_lookups_on_full_positions(dbs):
    # player:   o . . . . .   vs   opponent: x . . . . .  (6 point each)
    _, two, _ = dbs
    pos = board([0, 0, 0, 0, 0, 1], [0, 0, 0, 0, 0, 1])
    out5 = np.full(5, 9.0)
    B.two_sided_probs(pos, two.win, out5)
    np.testing.assert_allclose(out5, [0.8125, 0, 0, 0, 0], atol=1e-6)
    out3 = np.zeros(3)
    B.two_sided_cubeful(pos, two.cubeful, out3)
    np.testing.assert_allclose(out3, [1.0, 1.0, 0.5], atol=1e-6)


def test_one_sided_race_probs_hand_cases(dbs):
    one, _, _ = dbs
    out5 = np.zeros(5)
    # 6 point vs 6 point: 27/36 + 9/36 * 9/36 (the approximation is exact here)
    B.one_sided_race_probs(board([0, 0, 0, 0, 0, 1], [0, 0, 0, 0, 0, 1]), one.dist, out5)
    np.testing.assert_allclose(out5, [0.8125, 0, 0, 0, 0], atol=1e-6)
    # player: one checker on the 6 point; opponent: 15 on their 6 point, none off.
    # The player wins; a gammon unless he misses (9/36) and the opponent gets a first checker
    # off with his one roll (17/36): gammon = 27/36 + 9/36 * 19/36.
    B.one_sided_race_probs(board([0, 0, 0, 0, 0, 1], [0, 0, 0, 0, 0, 15]), one.dist, out5)
    np.testing.assert_allclose(out5, [1.0, 27 / 36 + 9 / 36 * 19 / 36, 0, 0, 0], atol=1e-6)
    # player: 15 on his 1 point; opponent: 1 on their 1 point. The player cannot finish in one
    # roll and loses, but gets a checker off before the opponent's roll: no gammon.
    B.one_sided_race_probs(board([15], [1]), one.dist, out5)
    np.testing.assert_allclose(out5, [0, 0, 0, 0, 0], atol=1e-6)
    # player: 15 on his 6 point vs opponent 1 on the 1 point: loses, and a gammon unless his
    # one roll bears a checker off (17/36)
    B.one_sided_race_probs(board([0, 0, 0, 0, 0, 15], [1]), one.dist, out5)
    np.testing.assert_allclose(out5, [0, 0, 0, 19 / 36, 0], atol=1e-6)


def test_one_sided_race_probs_close_to_exact_in_two_sided_range(dbs):
    # the one-sided approximation against the exact two-sided values on a sample; bear-off
    # races are dominated by pip count: they agree to about 1% at worst (measured 1.2%)
    one, two, _ = dbs
    out5 = np.zeros(5)
    o1 = np.zeros(6, dtype=np.int64)
    o2 = np.zeros(6, dtype=np.int64)
    worst = 0.0
    for x in range(1, 924, 17):
        B.bearoff_position(x, o1)
        for y in range(1, 924, 13):
            B.bearoff_position(y, o2)
            B.one_sided_race_probs(board(o1, o2), one.dist, out5)
            worst = max(worst, abs(out5[0] - two.win[x, y]))
    assert worst < 0.02


# ------------------------------------------------------------------------------------------
# cache


def test_bearoff_cache_files_written_atomically(dbs):
    _, _, files = dbs
    v = bearoff_cache.FORMAT_VERSION
    one, two = f"bearoff-one-sided-v{v}", f"bearoff-two-sided-v{v}"
    assert files == sorted(
        [
            f"{one}.json",
            f"{one}.dist.npy",
            f"{one}.mean.npy",
            f"{two}.json",
            f"{two}.win.npy",
            f"{two}.cubeful.npy",
            f"{two}.no_double.npy",
        ]
    )  # no temporary files


def test_bearoff_cache_loads_memory_mapped_arrays_equal_to_the_built_ones(
    dbs, tmp_path, monkeypatch
):
    one, two, _ = dbs
    monkeypatch.setenv("BGTUI_CACHE_DIR", str(tmp_path))
    for name, arrays in (
        ("one", dict(dist=one.dist, mean=one.mean)),
        ("two", dict(win=two.win, cubeful=two.cubeful, no_double=two.no_double)),
    ):
        bearoff_cache.load_or_build(name, lambda arrays=arrays: arrays, {"n": 1}, tuple(arrays))
        got = bearoff_cache.load_or_build(
            name, lambda: pytest.fail("rebuilt"), {"n": 1}, tuple(arrays)
        )
        for k, a in arrays.items():
            assert got[k].dtype == a.dtype and got[k].flags.writeable
            np.testing.assert_array_equal(got[k], a)


def test_bearoff_cache_roundtrip_and_rebuild_on_damage(tmp_path, monkeypatch, caplog):
    monkeypatch.setenv("BGTUI_CACHE_DIR", str(tmp_path))
    calls = []

    def builder():
        calls.append(1)
        return {"a": np.arange(10, dtype=np.float32)}

    def rebuilt_because(params, text):
        caplog.clear()
        with caplog.at_level(logging.WARNING, logger="bgtui.analysis.bearoff_cache"):
            bearoff_cache.load_or_build("t", builder, params, ("a",))
        assert text in caplog.text

    params = {"n": 10}
    a = bearoff_cache.load_or_build("t", builder, params, ("a",))
    b = bearoff_cache.load_or_build("t", builder, params, ("a",))
    assert len(calls) == 1  # second call loaded the file
    np.testing.assert_array_equal(a["a"], b["a"])

    # damaged description or array: rebuilt, with a message that says why
    (tmp_path / "t.json").write_bytes(b"garbage")
    rebuilt_because(params, "cannot be read")
    assert len(calls) == 2
    (tmp_path / "t.a.npy").write_bytes(b"garbage")
    rebuilt_because(params, "cannot be read")
    assert len(calls) == 3

    # other parameters: rebuilt
    rebuilt_because({"n": 11}, "was built with")
    assert len(calls) == 4

    # the array's bytes changed (same shape and type): the checksum fails, rebuilt
    np.save(tmp_path / "t.a.npy", np.arange(10, dtype=np.float32) + 1)
    rebuilt_because({"n": 11}, "checksum")
    assert len(calls) == 5

    # older format version: rebuilt
    meta = json.loads((tmp_path / "t.json").read_text())
    (tmp_path / "t.json").write_text(json.dumps({**meta, "format_version": 0}))
    rebuilt_because({"n": 11}, "format version 0")
    assert len(calls) == 6
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.a.npy", "t.json"]


# each writes a database into ``folder`` and returns the files it must have written


def _save_two_sided(folder):
    v = bearoff_cache.FORMAT_VERSION
    path = folder / f"bearoff-two-sided-v{v}.json"
    bearoff_cache._save(path, {"win": np.zeros(3, dtype=np.float32)}, {"k": 1})
    return []


def _save_extended(folder):
    path = folder / f"bearoff-extended-v{bearoff_cache.EXTENDED_VERSION}.npy"
    table = np.zeros((3, 2, 4), dtype=np.float32)
    bearoff_cache._save_extended(path, path.with_suffix(".json"), table, {"k": 1})
    return [path, path.with_suffix(".json")]


@pytest.mark.parametrize(
    "save, old, keep",
    [
        (
            _save_two_sided,
            ["bearoff-two-sided-v2.npz", "bearoff-one-sided-v1.npz"],
            [
                f"bearoff-one-sided-v{bearoff_cache.FORMAT_VERSION}.json",
                "bearoff-two-sided-v2.npz.bak",
                "notes.npz",
            ],
        ),
        # after an upgrade the extended database's old format (133 MB for format 1) goes once
        # the new one is written
        (
            _save_extended,
            ["bearoff-extended-v1.npy", "bearoff-extended-v1.json"],
            [
                f"bearoff-two-sided-v{bearoff_cache.FORMAT_VERSION}.json",
                "bearoff-extended-v1.npy.bak",
                "notes.txt",
            ],
        ),
    ],
    ids=["two-sided", "extended"],
)
def test_writing_a_database_removes_the_earlier_formats_of_that_database_only(
    tmp_path, save, old, keep
):
    """Writing a database removes the earlier formats' files of that database; other files,
    and the current format's, stay."""
    old = [tmp_path / name for name in old]
    keep = [tmp_path / name for name in keep]
    for f in old + keep:
        f.write_bytes(b"x")
    written = save(tmp_path)
    assert not any(f.exists() for f in old)
    assert all(f.exists() for f in keep)
    assert all(f.exists() for f in written)


def test_bearoff_cache_lookup_wrapper(dbs, tmp_path, monkeypatch):
    # the cache directory of the `dbs` fixture is gone; build into a new one through lookup()
    one, two, _ = dbs
    bearoff_cache.clear_memo()
    monkeypatch.setenv("BGTUI_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(bearoff_cache, "_memo", {"one": one, "two": two})
    r = bearoff_cache.lookup(board([0, 0, 0, 0, 0, 1], [0, 0, 0, 0, 0, 1]))
    assert r["exact"] and r["probabilities"][0] == pytest.approx(0.8125)
    r = bearoff_cache.lookup(board([0, 0, 0, 0, 0, 15], [1]))
    assert not r["exact"] and r["cubeful"] is None
    assert r["probabilities"][3] == pytest.approx(19 / 36, abs=1e-6)
    from bgtui.engine.constants import OPENING_POSITION

    assert bearoff_cache.lookup(OPENING_POSITION) is None
