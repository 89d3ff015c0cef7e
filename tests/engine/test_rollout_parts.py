"""The pieces of a rollout trial, each on its own, against answers worked out by hand or
invariants (the whole trial is checked in test_rollout.py)."""

import numpy as np
import pytest

from bgtui.engine import rollout as R
from bgtui.engine.constants import CENTRED, OPENING_POSITION, OPP_OWNED, OWNED
from bgtui.engine.evaluate import hidden_size
from bgtui.engine.rollout import make_settings, score_game
from bgtui.engine.structs import Trial


def test_score_game_counts_result_times_cube_for_the_winner():
    # Given a finished game: When the root player won a gammon on a 2-cube: Then +4; when he
    # lost a backgammon on a 1-cube: -3; under the Jacoby rule with the cube centred a
    # gammon counts single: -1 on a 1-cube.
    assert score_game(True, 2, 2.0, True) == 4.0
    assert score_game(False, 3, 1.0, True) == -3.0
    assert score_game(True, 1, 8.0, True) == 8.0
    assert score_game(False, 2, 1.0, False) == -1.0
    assert score_game(True, 3, 4.0, False) == 4.0


def test_dice_of_each_roll_higher_first():
    seen = {}
    for r in range(36):
        a1, a2 = R._dice(np.int64(r))
        assert a1 >= a2
        assert sorted((a1, a2)) == sorted((r // 6 + 1, r % 6 + 1))
        seen[(a1, a2)] = seen.get((a1, a2), 0) + 1
    # the 21 distinct rolls, the doubles once and the others twice among the 36
    assert len(seen) == 21
    assert all(n == (1 if a == b else 2) for (a, b), n in seen.items())


def test_turn_ply_switches_to_the_late_ply():
    st = make_settings(ply=2, late_ply=0, late_after=3)
    assert [R._turn_ply(st, t) for t in range(6)] == [2, 2, 2, 0, 0, 0]
    never = make_settings(ply=1, late_ply=0, late_after=-1)
    assert [R._turn_ply(never, t) for t in (0, 50, 5000)] == [1, 1, 1]


def test_truncated_at_the_horizon_and_the_safety_bound():
    pos = np.array(OPENING_POSITION)
    none = np.zeros((0, 0), dtype=np.float32)
    one = np.zeros((0, 2, 1), dtype=np.float32)
    st = make_settings(truncate=7)
    assert not R._truncated(pos, 6, st, True, none, one)
    assert R._truncated(pos, 7, st, True, none, one)
    full = make_settings(truncate=0)
    assert not R._truncated(pos, R.MAX_TURNS - 1, full, True, none, one)
    assert R._truncated(pos, R.MAX_TURNS, full, True, none, one)


def test_roll_luck_in_the_root_view_is_the_movers_luck_with_the_sign_of_the_mover():
    # Invariant: the equity of one roll's luck seen by the root player is the mover's own when
    # the root player moved and its opposite when his opponent did (zero-sum game).
    rng = np.random.default_rng(5)
    for side in (0, 1):
        for _ in range(20):
            fa5 = rng.uniform(0, 1, 5).astype(np.float32)
            tmpa = rng.uniform(0, 36, 5)
            luck = np.zeros(5)
            R._add_roll_luck(luck, fa5, tmpa, side)
            mover = R._roll_luck_equity(fa5, tmpa)
            assert R._luck_equity(luck) == pytest.approx(mover if side == 0 else -mover, abs=1e-9)


def _states():
    return R.make_cube_states()


def _state(states, s):
    """Cube state ``s`` of ``states`` as (settled, value, luck)."""
    return (bool(states.settled[s]), float(states.value[s]), float(states.luck[s]))


def test_settle_states_settles_the_states_where_the_player_on_roll_has_access():
    # Given cubeless equity 0.6 >= the settlement limit 0.5 and no gammon chances:
    before = np.array([0.8, 0.0, 0.0, 0.0, 0.0], dtype=np.float32)  # equity 0.6
    luck = np.array([0.1, 0.0, 0.0, 0.0, 0.0])  # luck equity 0.2
    s = _states()
    R._settle_states(before, 0, luck, 0.5, 0.9, s)
    # Then the root player on roll settles the centred and the owned states for +1
    assert _state(s, CENTRED) == pytest.approx((True, 1.0, 0.2))
    assert _state(s, OWNED) == pytest.approx((True, 1.0, 0.2))
    assert _state(s, OPP_OWNED) == (False, 0.0, 0.0)
    # and his opponent, on roll later, settles the state where he owns the cube for -1;
    # the states already settled stay as they were
    R._settle_states(before, 1, np.zeros(5), 0.5, 0.9, s)
    assert _state(s, OPP_OWNED) == (True, -1.0, 0.0)
    assert _state(s, CENTRED) == pytest.approx((True, 1.0, 0.2))


def test_settle_states_plays_on_for_the_gammon_and_below_the_limit():
    s = _states()
    gammonish = np.array([0.9, 0.4, 0.0, 0.0, 0.0], dtype=np.float32)  # equity 1.2 > 0.9
    R._settle_states(gammonish, 0, np.zeros(5), 0.5, 0.9, s)
    assert not any(a.any() for a in s)
    low = np.array([0.7, 0.0, 0.0, 0.0, 0.0], dtype=np.float32)  # equity 0.4 < 0.5
    R._settle_states(low, 0, np.zeros(5), 0.5, 0.9, s)
    assert not any(a.any() for a in s)


def test_score_trial_by_hand():
    # Given the root player won a gammon, no luck, the cube never settled, Jacoby on:
    won_gammon = (1.0, 1.0, 0.0, 0.0, 0.0)
    s = _states()
    t = R._score_trial(won_gammon, np.zeros(5), s, True, True, 40, 0.0)
    # Then cubeless 2, centred 1 (the cube never turned: the gammon counts single), owned and
    # opponent-owned 2
    assert isinstance(t, Trial)
    assert t.cubeless == 2.0 and t.raw == 2.0
    assert t.centred == 1.0
    assert t.owned == 2.0 and t.opp_owned == 2.0
    assert t.turns == 40.0 and t.live == 0.0
    # Given the centred state settled at +1 with luck 0.25 and luck 0.1 of the win chance by
    # the end: the settled state scores 0.75, the others the luck-corrected game
    s.settled[CENTRED], s.value[CENTRED], s.luck[CENTRED] = True, 1.0, 0.25
    t = R._score_trial(won_gammon, np.array([0.1, 0.0, 0.0, 0.0, 0.0]), s, True, True, 40, 0.0)
    assert t.centred == 0.75
    assert t.cubeless == pytest.approx(2.0 - 0.2)
    assert t.win == pytest.approx(0.9)


def test_trial_is_stored_in_its_fields_order():
    # The float64 row's columns are the Trial's fields: the column constants name them
    assert R.NUM_OUT == len(Trial._fields)
    for name, col in (("cubeless", R.O_CUBELESS), ("raw", R.O_RAW), ("live", R.O_LIVE)):
        assert Trial._fields[col] == name
    assert R.PAIRED == tuple(R.O_CUBELESS + e for e in range(4)) + (R.O_LIVE,)


def test_trial_outcome_of_a_finished_game(ev):
    ws = R.make_rollout_workspace(hidden_size(ev))
    # the opponent (side 1) moved last and won a gammon: the root player lost a gammon
    o = R._trial_outcome(ws.cur, 1, 1, 2, ev, ws.eval, ws.play5)
    assert o == (0.0, 0.0, 0.0, 1.0, 0.0)
    o = R._trial_outcome(ws.cur, 0, 1, 3, ev, ws.eval, ws.play5)
    assert o == (1.0, 1.0, 1.0, 0.0, 0.0)


def test_live_cube_turn_without_access_changes_nothing():
    ws = R.make_rollout_workspace(8)
    pos = np.array(OPENING_POSITION)
    big = np.array([0.95, 0.0, 0.0, 0.0, 0.0], dtype=np.float32)
    # the opponent owns the cube and the root player (side 0) is on roll
    money = make_settings(jacoby=True)
    assert R._live_cube_turn(pos, big, 0, 3, OPP_OWNED, 2.0, 0, True, money, ws) == (
        0,
        OPP_OWNED,
        2.0,
        0,
    )


def test_live_cube_turn_pass_and_take():
    ws = R.make_rollout_workspace(8)
    pos = np.array(OPENING_POSITION)
    money = make_settings(jacoby=True)
    # 95% to win without gammons: double, pass; the cube does not move
    act, owner, cube_v, n = R._live_cube_turn(
        pos,
        np.array([0.95, 0.0, 0.0, 0.0, 0.0], dtype=np.float32),
        0,
        0,
        CENTRED,
        1.0,
        0,
        True,
        money,
        ws,
    )
    assert (act, owner, cube_v, n) == (2, CENTRED, 1.0, 0)
    # find a take: the smallest win chance at which the model doubles and the taker takes
    take = None
    for w in np.linspace(0.6, 0.8, 81):
        p = np.array([w, 0.0, 0.0, 0.0, 0.0], dtype=np.float32)
        if R._cube_action(pos, p, CENTRED, 1, 1.0, money, ws) == 1:
            take = p
            break
    assert take is not None
    # the opponent (side 1) doubles and the root player takes: he owns the cube; with the
    # split the line is recorded at the undoubled cube, without it the cube doubles
    act, owner, cube_v, n = R._live_cube_turn(pos, take, 1, 4, CENTRED, 1.0, 0, True, money, ws)
    assert (act, owner, cube_v, n) == (1, OWNED, 1.0, 1)
    np.testing.assert_array_equal(ws.split_pos[0], pos)
    split = (ws.split_side[0], ws.split_turn[0], ws.split_owner[0], ws.split_cube[0])
    assert split == (1, 4, OWNED, 1.0)
    act, owner, cube_v, n = R._live_cube_turn(pos, take, 1, 4, CENTRED, 1.0, 0, False, money, ws)
    assert (act, owner, cube_v, n) == (1, OWNED, 2.0, 0)
    # the split budget spent: the cube doubles
    act, owner, cube_v, n = R._live_cube_turn(
        pos, take, 1, 4, CENTRED, 1.0, R.MAX_SPLITS, True, money, ws
    )
    assert (act, owner, cube_v, n) == (1, OWNED, 2.0, R.MAX_SPLITS)


def test_make_settings_gives_the_kernel_types():
    st = make_settings(truncate=np.int64(7), ply=1.0, vr=1, settle=1, vr_filter=np.int32(2))
    assert type(st.truncate) is int and type(st.ply) is int and type(st.vr_filter) is int
    assert type(st.vr) is bool and type(st.settle) is float
    assert st.late_ply == 1 and st.late_after == -1


def test_live_cube_doubles_a_gammonish_position_past_the_cash_point_under_jacoby():
    # 90% to win, a gammon in half the games: with the cube centred under the Jacoby rule
    # the model's no double is the cash, exactly 1.0 (live line +1 past the cash point, dead
    # part 0.9 * 1.56 - 0.1 * 1.2 = 1.28 limited to 1), and double/take is far above 1: the
    # player doubles and the opponent passes (a tie with the cash is not a reason to play on
    # for a single game)
    from bgtui.engine.cube import CONTACT_EFFICIENCY, cubeful_equity

    ws = R.make_rollout_workspace(8)
    pos = np.array(OPENING_POSITION)
    p = np.array([0.9, 0.5, 0.02, 0.02, 0.0], dtype=np.float64)
    assert cubeful_equity(p, CONTACT_EFFICIENCY, CENTRED, True) == 1.0
    money = make_settings(jacoby=True)
    for side in (0, 1):
        assert R._cube_action(pos, p.astype(np.float32), CENTRED, side, 1.0, money, ws) == 2
    # without the rule he is too good: he plays on for the gammon
    no_jacoby = make_settings(jacoby=False)
    assert R._cube_action(pos, p.astype(np.float32), CENTRED, 0, 1.0, no_jacoby, ws) == 0
