"""The evaluator's hand-crafted features: fast kernels against slow references and hand counts."""

import numpy as np

from bgtui.analysis.board_ascii import board_ascii
from bgtui.engine.inputs import _shots
from bgtui.engine.position import swap_sides
from tests.engine.test_movegen_reference import _random_position
from tests.reference.games import game_positions
from tests.reference.slow_features import shots_reference


def _feature_positions(game_seed, seed, n=300):
    """Positions from games and random bar, scattered and bear-off positions."""
    positions = game_positions(game_seed, 30)
    rng = np.random.default_rng(seed)
    for kind in ("bar", "scatter", "bearoff"):
        positions += [_random_position(rng, kind) for _ in range(n)]
    return positions


def test_shots_match_the_roll_by_roll_reference():
    checked = 0
    for pos in _feature_positions(11, 12):
        for p in (pos, swap_sides(pos)):
            p = np.asarray(p, dtype=np.int8)
            assert _shots(p) == shots_reference(p), board_ascii(p)
            checked += 1
    assert checked > 5000


def test_hit_loss_matches_the_roll_by_roll_reference():
    from bgtui.engine.inputs import _shots_and_loss
    from tests.reference.slow_features import hit_loss_reference

    nonzero = 0
    for pos in _feature_positions(15, 16):
        for p in (pos, swap_sides(pos)):
            p = np.asarray(p, dtype=np.int8)
            blots = [i for i in range(1, 25) if p[i] == 1]
            shots, loss = _shots_and_loss(p, blots[0] if blots else 25, blots[-1] if blots else 0)
            assert shots == shots_reference(p), board_ascii(p)
            assert loss == hit_loss_reference(p), board_ascii(p)
            nonzero += loss > 0
    assert nonzero > 1000


def test_hit_loss_hand_counted():
    # The blot of test_shots_hand_counted (13 point, 17 shots) loses 12 pips when hit; a second
    # blot on our 20 point, 2 pips in front of an opponent checker on 18, loses 5: the rolls
    # that hit the 13 point count 12, the others that hit the 20 point count 5.
    from bgtui.engine.inputs import _shots_and_loss

    pos = np.zeros(26, dtype=np.int8)
    pos[13] = 1
    pos[6] = 13
    pos[20] = 1
    pos[7] = -1
    pos[18] = -1
    pos[24] = -13
    # rolls hitting 20 from 18: any 2 (11), 1-1 (1): 12 rolls; from 7 (13 away) none. Hitting
    # 13 from 7: 17 rolls (above). Both: 6-2 and 4-2 (2 rolls each), 2-2 (1): 5 rolls.
    shots, loss = _shots_and_loss(pos, 13, 20)
    assert shots == 17 + 12 - 5
    assert loss == 17 * 12 + (12 - 5) * 5


def test_shots_hand_counted():
    # A lone blot 6 pips in front of an opponent checker: 11 rolls with a 6, plus 5-1, 4-2
    # (4 ordered rolls) and 3-3, 2-2 (1 each): 17 shots.
    pos = np.zeros(26, dtype=np.int8)
    pos[13] = 1
    pos[6] = 14
    pos[7] = -1  # opponent on our 7 point moving upward (toward 24) sees the blot 6 away
    pos[24] = -14
    assert _shots(pos) == 17
    # the same with our points 9 and 10 made: 5-1 (via 8 or 12) and 4-2 (via 9 blocked, 11
    # open) still hit, 3-3 needs 10 (blocked), 2-2 needs 9 (blocked): 11 + 4 = 15
    pos[6] = 10
    pos[9] = 2
    pos[10] = 2
    assert _shots(pos) == 15
    # two checkers on the bar: only direct entering shots count; a blot on our 3 point is hit
    # by every roll with a 3 (11), not by 2-1 or 1-1
    pos = np.zeros(26, dtype=np.int8)
    pos[3] = 1
    pos[6] = 14
    pos[0] = -2
    pos[12] = -13
    assert _shots(pos) == 11


def test_feature_inputs_match_the_point_by_point_reference():
    from bgtui.engine.inputs import NUM_FEATURES, NUM_INPUTS, PER_SIDE, RAW_PER_SIDE, _fill_inputs
    from bgtui.engine.position import is_race, pip_counts
    from tests.reference.slow_features import side_features_reference

    positions = game_positions(13, 10)
    rng = np.random.default_rng(14)
    for kind in ("bar", "scatter", "bearoff"):
        positions += [_random_position(rng, kind) for _ in range(100)]
    x = np.zeros(NUM_INPUTS, dtype=np.float32)
    sw = np.zeros(26, dtype=np.int8)
    for pos in positions:
        pos = np.asarray(pos, dtype=np.int8)
        _fill_inputs(pos, sw, x)
        ref = np.zeros(NUM_INPUTS, dtype=np.float32)
        mine, theirs = pip_counts(pos)
        race = is_race(pos)
        me = [int(v) for v in pos]
        them = [-v for v in reversed(me)]
        side_features_reference(me, ref, RAW_PER_SIDE, int(theirs), race)
        side_features_reference(them, ref, PER_SIDE + RAW_PER_SIDE, int(mine), race)
        for base in (RAW_PER_SIDE, PER_SIDE + RAW_PER_SIDE):
            got = x[base : base + NUM_FEATURES]
            want = ref[base : base + NUM_FEATURES]
            assert np.array_equal(got, want), f"{got} != {want}\n{board_ascii(pos)}"


def test_escapes_match_the_roll_by_roll_reference_from_every_point():
    """Not only from the rearmost checker (the feature): from every point the player holds,
    near the edge of the board too, against the reference's roll-by-roll walk."""
    from bgtui.engine.inputs import _escapes
    from tests.reference.slow_features import escapes_reference

    positions = game_positions(15, 10)
    rng = np.random.default_rng(16)
    for kind in ("bar", "scatter", "bearoff"):
        positions += [_random_position(rng, kind) for _ in range(100)]
    checked = set()
    for pos in positions:
        pos = np.asarray(pos, dtype=np.int8)
        me = [int(v) for v in pos]
        for b in range(1, 26):
            if pos[b] > 0:
                got = _escapes(pos, b)
                assert got == escapes_reference(me, b), f"point {b}\n{board_ascii(pos)}"
                checked.add(got)
    assert len(checked) > 15  # many different answers, not just 36
