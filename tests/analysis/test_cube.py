"""Cube model and cube actions against hand-computed answers."""

import numpy as np
import pytest

from bgtui.analysis.cube import (
    DOUBLE_PASS,
    DOUBLE_TAKE,
    NO_DOUBLE,
    TG_PASS,
    TG_TAKE,
    cube_action,
    dahl_cube_value,
    decide,
    in_cube_region,
    wrong_decision_percent,
)
from bgtui.engine import cube as C
from tests.engine.test_bearoff import board as _bearoff_board
from tests.engine.test_bearoff import index_board

# a gammonless race outside the two-sided bear-off database (so the model is used): player 8
# checkers on his 4 point, opponent 8 on his 4 point (our 21); 14 off each is not needed
RACE = np.zeros(26, dtype=np.int8)
RACE[4], RACE[21] = 8, -8


def _p(win, wg=0.0, wbg=0.0, lg=0.0, lbg=0.0):
    return np.array([win, wg, wbg, lg, lbg])


def test_dead_cube_take_point_of_gammonless_race_is_25_percent():
    # Dead cube (x = 0): the taker gets 2 * (p W - (1 - p) L) on the 2-cube vs -1 for passing:
    # indifferent at p = 25% with W = L = 1.
    d = decide(_p(0.75), RACE, x=0.0)
    assert d["take_point"] == pytest.approx(0.25)
    assert d["double_take"] == pytest.approx(1.0)  # 2 * (0.75 - 0.25) = 1 = double/pass
    assert d["cash_point"] == pytest.approx(0.75)


def test_live_cube_take_point_is_20_percent_without_gammons():
    tp, cp = C.live_points(1.0, 1.0)
    assert tp == pytest.approx(0.2) and cp == pytest.approx(0.8)


def test_live_cube_points_with_gammons_solve_the_indifference_equations():
    # Player wins gammons (W = 1.5), loses none (L = 1). At the live take point the taker who
    # then owns the cube is worth exactly -1/2 (on the 1-cube); same at the cash point for the
    # opponent.
    W, L = 1.5, 1.0
    tp, cp = C.live_points(W, L)
    assert C.live_equity(tp, W, L, C.OWNED) == pytest.approx(-0.5)
    # from the opponent's side: his owned-cube equity at 1 - cp is -1/2
    assert C.live_equity(1.0 - cp, L, W, C.OWNED) == pytest.approx(-0.5)


def test_janowski_equities_at_x_068_hand_computed():
    # p = 0.7, no gammons, x = 0.68, cube centred, no Jacoby effect without gammons.
    # live centred: -1 + 2 (0.7 - 0.2) / 0.6 = 0.666667; dead: 2 * 0.7 - 1 = 0.4
    # cubeful = 0.68 * 0.666667 + 0.32 * 0.4 = 0.581333
    p = _p(0.7)
    assert C.cubeful_equity(p, 0.68, C.CENTRED, True) == pytest.approx(0.581333, abs=1e-6)
    # owned: live -1 + 2 * 0.7 / 0.8 = 0.75 -> 0.68 * 0.75 + 0.32 * 0.4 = 0.638
    assert C.cubeful_equity(p, 0.68, C.OWNED, True) == pytest.approx(0.638, abs=1e-6)
    # opponent owns: live -1 + 2 (0.7 - 0.2) / 0.8 = 0.25 -> 0.68 * 0.25 + 0.128 = 0.298
    assert C.cubeful_equity(p, 0.68, C.OPP_OWNED, True) == pytest.approx(0.298, abs=1e-6)


def test_cube_states_are_ordered_owned_centred_opponent_owned():
    rng = np.random.default_rng(1)
    for _ in range(200):
        w = rng.uniform(0.01, 0.99)
        wg = rng.uniform(0, w) * 0.5
        lg = rng.uniform(0, 1 - w) * 0.5
        p = _p(w, wg, wg * 0.1, lg, lg * 0.1)
        eq = np.zeros(3)
        C.cube_equities(p, 0.68, False, eq)
        assert eq[1] >= eq[0] - 1e-9 >= eq[2] - 2e-9


@pytest.mark.parametrize(
    "nd, dt, dp, action",
    [
        (0.30, 0.10, 1.0, NO_DOUBLE),  # take, and not doubling is better
        (0.60, 0.80, 1.0, DOUBLE_TAKE),  # take, and the double gains
        (0.70, 1.30, 1.0, DOUBLE_PASS),  # he should pass, and cashing gains
        (1.20, 1.40, 1.0, TG_PASS),  # he would pass, but playing on beats cashing
        (1.10, 0.90, 1.0, TG_TAKE),  # he would take, and playing on beats both
    ],
)
def test_cube_action_is_named_from_the_three_equities(nd, dt, dp, action):
    assert cube_action(nd, dt, dp) == action


def test_ties_within_rounding_are_ties():
    # a sure single win rolled out: no double and the cash are both 1 up to float rounding;
    # doubling loses nothing, so it is a double and pass, never "too good"
    assert cube_action(1.0 + 1e-9, 2.0, 1.0) == DOUBLE_PASS
    assert cube_action(1.0 - 1e-9, 2.0, 1.0) == DOUBLE_PASS
    # a take / pass tie is a pass (the taker gains nothing by taking)
    assert cube_action(0.5, 1.0 - 1e-9, 1.0) == DOUBLE_PASS
    # a clear margin still decides
    assert cube_action(1.0 + 1e-3, 2.0, 1.0) == TG_PASS


def test_an_owned_cube_is_a_redouble_in_every_action_name():
    assert cube_action(0.3, 0.1, 1.0, redouble=True) == "No redouble"
    assert cube_action(0.6, 0.8, 1.0, redouble=True) == "Redouble, take"
    assert cube_action(0.7, 1.3, 1.0, redouble=True) == "Redouble, pass"
    assert cube_action(1.2, 1.4, 1.0, redouble=True) == "Too good to redouble, pass"
    # playing on (1.2) beats the cash (1.0), and the taker would take (0.9 < 1.0)
    assert cube_action(1.2, 0.9, 1.0, redouble=True) == "Too good to redouble, take"


def test_wrong_pass_and_take_percentages():
    # no double 0.5, double/take 0.3, pass 1.0: a wrong pass share f makes doubling break even
    # when f * 1 + (1 - f) * 0.3 = 0.5 -> f = 0.2/0.7
    wp, wt = wrong_decision_percent(0.5, 0.3, 1.0)
    assert wp == pytest.approx(100 * 0.2 / 0.7) and wt is None
    # too good: nd 1.2, take 1.5, pass 1.0: f * 1.5 + (1 - f) * 1.0 = 1.2 -> f = 0.4
    wp, wt = wrong_decision_percent(1.2, 1.5, 1.0)
    assert wt == pytest.approx(40.0)


def test_dahl_rule_of_thumb_example_from_seed_000():
    # "you win 30% of the games cubeless, whereof 10% are gammon wins ... 0.35 * (0.3 + 0.05)"
    assert dahl_cube_value(0.30, 0.10) == pytest.approx(0.1225)


def test_race_cube_efficiency_depends_on_pips():
    assert C.cube_efficiency(RACE) == pytest.approx(0.6)  # 32 pips -> clamped to 0.60
    long = np.zeros(26, dtype=np.int8)
    long[12], long[13] = 8, -8  # past each other: a race
    # 8 * 12 = 96 pips: 0.55 + 0.12 = 0.67 (contact would give C.CONTACT_EFFICIENCY)
    assert C.cube_efficiency(long) == pytest.approx(0.67)
    # the opening position: contact, neither side crashed
    from bgtui.engine.constants import OPENING_POSITION

    assert C.cube_efficiency(np.array(OPENING_POSITION, dtype=np.int8)) == C.CONTACT_EFFICIENCY


def test_exact_database_cube_decision_in_a_two_sided_bearoff():
    # Given the player on roll has one checker on his 1 point (he bears off with any roll)
    # against an opponent with 6 checkers home: exact cubeful equities say double, pass:
    # no double +1 (he wins the game at once), double/pass +1, double/take +2.
    pos = np.zeros(26, dtype=np.int8)
    pos[1] = 1
    pos[19] = -6  # opponent's 6 point
    d = decide(np.array([1.0, 0, 0, 0, 0]), pos)
    assert d["exact"]
    assert d["double_take"] == pytest.approx(2.0)
    assert d["action"] in (DOUBLE_PASS, TG_PASS) or d["no_double"] == pytest.approx(1.0)


def test_janowski_model_agrees_with_exact_database_on_average():
    # Measured agreement of the race model (exact cubeless probabilities in, Janowski x for
    # races out) with the exact cubeful equities, on a sample of two-sided positions where
    # both sides have 3-6 checkers: mean absolute error of the centred equity measured 0.080
    # (x = 0.60; short bear-offs are "lumpy", which is why the database replaces the model).
    from bgtui.analysis.bearoff_cache import get_two_sided

    two = get_two_sided()
    rng = np.random.default_rng(3)
    errs = []
    for _ in range(400):
        x, y = rng.integers(28, 924, size=2)  # indices >= C(8,6) = 28: at least 3 checkers
        p = np.array([two.win[x, y], 0, 0, 0, 0], dtype=np.float64)
        pos = index_board(x, y)
        eq = np.zeros(3)
        C.cube_equities(p, C.cube_efficiency(pos), True, eq)
        errs.append(abs(eq[0] - two.cubeful[x, y, 0]))
    assert np.mean(errs) < 0.095


# ------------------------------------------------------------------------------------------
# exact bear-off database: no double is the value of playing on, not of the best decision


# player: one checker on his 6 point (off with 27 rolls of 36); opponent: one checker on his
# 1 point (off with any roll). Not doubling: 27/36 * 1 - 9/36 * 1 = +0.5 whatever the cube;
# double/take: 2 * 0.5 = +1.0 (on a 2-cube the player wins 27/36 and loses 9/36) = double/pass.
SIX_VS_ACE = _bearoff_board([0, 0, 0, 0, 0, 1], [1])


@pytest.mark.parametrize("owner", ["centred", "player"])
def test_exact_database_reports_no_double_below_double_when_doubling_is_right(owner):
    d = decide(np.array([0.75, 0, 0, 0, 0]), SIX_VS_ACE, cube_owner=owner)
    assert d["exact"]
    assert d["no_double"] == pytest.approx(0.5, abs=1e-6)
    assert d["double_take"] == pytest.approx(1.0, abs=1e-6)
    assert d["double_pass"] == 1.0
    assert d["cubeful"] == pytest.approx(1.0, abs=1e-6)
    assert d["action"] in (DOUBLE_PASS, "Redouble, pass")


def test_exact_database_no_double_when_the_opponent_owns_the_cube():
    d = decide(np.array([0.75, 0, 0, 0, 0]), SIX_VS_ACE, cube_owner="opponent")
    assert d["no_double"] == pytest.approx(0.5, abs=1e-6) and d["cubeful"] == pytest.approx(0.5)


# ------------------------------------------------------------------------------------------
# live-cube rollouts: the no-double branch does not double before its first roll


def _live_cube_rollout(board, trials=36, **kw):

    from bgtui.analysis.models import RolloutSettings
    from bgtui.analysis.service import Analyzer
    from bgtui.analysis.state import GameState

    state = GameState.from_position(board)
    s = RolloutSettings(trials=trials, seed=1, workers=1, live_cube=True, **kw)
    c = None
    for _, c in Analyzer().iter_cube_rollout(state, s):
        pass
    return c


def test_live_rollout_no_double_branch_does_not_double_at_once_hand_case():
    # SIX_VS_ACE played out (no database truncation): 36 trials hold every first roll once
    # (quasi-random dice), so the no-double branch is exactly 27/36 - 9/36 = 0.5 and the
    # double/take branch 2 * 0.5 = 1.0, as the exact database says (a no-double branch that
    # doubled before its first roll would give 1.0 as well)
    from bgtui.analysis.cube import exact_cube_equities

    c = _live_cube_rollout(SIX_VS_ACE, bearoff_truncation=False)
    _, nd_exact = exact_cube_equities(SIX_VS_ACE)
    assert c.no_double == pytest.approx(nd_exact[0], abs=1e-9) == pytest.approx(0.5)
    assert c.double_take == pytest.approx(1.0, abs=1e-9)
    assert c.no_double < c.double_take
    assert c.action == DOUBLE_PASS


def test_live_rollout_no_double_agrees_with_exact_database_in_a_longer_bearoff():
    # player: 2 checkers on his 2 point and one on his 5 point; opponent: 3 checkers on his
    # 6 point. The database says doubling is right (no double well below double/take and
    # the pass); the live rollout's no-double branch, played out with exact cubeless
    # probabilities and the model's cube decisions after the first roll, must agree with the
    # exact no-double value within its standard error (plus the model's decision error)
    from bgtui.analysis.cube import exact_cube_equities

    board = _bearoff_board([0, 2, 0, 0, 1], [0, 0, 0, 0, 0, 3])
    eq, nd = exact_cube_equities(board)
    assert min(1.0, 2.0 * nd[2]) > nd[0] + 0.05  # doubling is clearly right
    # default settings: bear-off truncation is on, but a live-cube line is played out (the
    # databases are cubeless; truncating would score the line by the cube model)
    c = _live_cube_rollout(board, trials=1296)
    se = c.standard_errors["no_double"]
    assert abs(c.no_double - nd[0]) < 3.0 * se + 0.005  # measured: 0.9389 vs 0.9379, se 0.0023
    assert c.double_take - c.no_double > 0.05
    assert abs(c.double_take - 2.0 * nd[2]) < 3.0 * c.standard_errors["double_take"] + 0.02


# ------------------------------------------------------------------------------------------
# take, cash and too-good points: the model's exact break-even points


@pytest.mark.parametrize("x", [0.0, 0.3, 0.6, 0.64, 0.68, 1.0])
def test_take_and_cash_points_are_janowskis_closed_forms_without_gammons(x):
    # Janowski (gammonless): take point 1/2 / (2 + x/2), cash point 1 - 1/2 / (2 + x/2);
    # e.g. x = 0.64 (a race): cash point 1 - 0.5 / 2.32 = 0.78448
    d = decide(_p(0.6), RACE, x=x)
    assert d["take_point"] == pytest.approx(0.5 / (2 + 0.5 * x), abs=1e-9)
    assert d["cash_point"] == pytest.approx(1 - 0.5 / (2 + 0.5 * x), abs=1e-9)
    assert d["too_good_point"] is None  # nothing to play for beyond a single game


def test_race_cash_point_at_x_064():
    d = decide(_p(0.6), RACE, x=0.64)
    assert d["cash_point"] == pytest.approx(0.78448, abs=1e-5)


@pytest.mark.parametrize("x", [0.0, 0.5, 0.68, 1.0])
def test_take_and_cash_points_with_gammons_are_janowskis_general_forms(x):
    # W = 0.75 / 0.6 = 1.25, L = 0.5 / 0.4 = 1.25; Janowski: take (L - 1/2) / (W + L + x/2),
    # cash (L + 1/2 + x/2) / (W + L + x/2)
    W, L = 1.25, 1.25
    d = decide(_p(0.6, 0.15, 0.0, 0.1, 0.0), RACE, x=x)
    assert d["take_point"] == pytest.approx((L - 0.5) / (W + L + 0.5 * x), abs=1e-9)
    assert d["cash_point"] == pytest.approx((L + 0.5 + 0.5 * x) / (W + L + 0.5 * x), abs=1e-9)


@pytest.mark.parametrize(
    "x, expected",
    [
        # W = 2 (every win a gammon), L = 1. Dead cube: p W - (1 - p) L = 1 at p = 2/3. Live cube:
        # the owner cashes from CP = (L + 1) / (W + L + 1/2) = 4/7 on, where playing on is worth 1
        # already, so 4/7. x = 0.68: above CP the equity is 0.68 (1 + 7/3 (p - 4/7)) + 0.32 (3p - 1)
        # = 2.546667 p - 0.546667 = 1 at p = 1.546667 / 2.546667 = 0.607330
        (0.0, 2.0 / 3.0),
        (1.0, 4.0 / 7.0),
        (0.68, 1.546667 / 2.546667),
    ],
)
def test_too_good_point_hand_computed(x, expected):
    d = decide(_p(0.7, 0.7), RACE, cube_owner="player", x=x)
    assert d["too_good_point"] == pytest.approx(expected, abs=1e-5)
    # same without the Jacoby rule with the cube centred; with it, never too good
    d = decide(_p(0.7, 0.7), RACE, cube_owner="centred", jacoby=False, x=x)
    assert d["too_good_point"] == pytest.approx(expected, abs=1e-5)
    assert decide(_p(0.7, 0.7), RACE, cube_owner="centred", x=x)["too_good_point"] is None


def test_at_the_too_good_point_no_double_equals_the_cash():
    # invariant through the equity code path: with p = too-good point (W = 2, L = 1 kept),
    # the no-double equity is exactly the double/pass value 1
    tg = decide(_p(0.7, 0.7), RACE, cube_owner="player", x=0.68)["too_good_point"]
    d = decide(_p(tg, tg), RACE, cube_owner="player", x=0.68)
    assert d["no_double"] == pytest.approx(1.0, abs=1e-9)
    tp = decide(_p(0.3), RACE, x=0.68)["take_point"]
    # and at the take point the taker's equity on the 2-cube is the pass, -1
    assert 2 * C.cubeful_equity(_p(tp), 0.68, C.OWNED, False) == pytest.approx(-1.0, abs=1e-9)


# ------------------------------------------------------------------------------------------
# the opponent owns the cube: no cube access


def test_no_cube_access_when_the_opponent_owns_the_cube():
    # p = 0.7 gammonless, x = 0.68: the player can only play on; his equity is the Janowski
    # opponent-owns value 0.68 (-1 + 2 (0.7 - 0.2) / 0.8) + 0.32 * 0.4 = 0.298
    d = decide(_p(0.7), RACE, cube_owner="opponent", x=0.68)
    assert d["cube_access"] is False
    assert d["action"] == NO_DOUBLE
    assert d["no_double"] == pytest.approx(0.298, abs=1e-9) == d["cubeful"]
    assert d["wrong_pass_percent"] is None and d["wrong_take_percent"] is None
    assert d["cash_point"] is None and d["too_good_point"] is None
    assert d["take_point"] == pytest.approx(0.5 / (2 + 0.34))  # he may be redoubled
    assert decide(_p(0.7), RACE, x=0.68)["cube_access"] is True


@pytest.mark.parametrize(
    "pw, expected, same_without_jacoby",
    [
        # W = L = 2 (every game a gammon): after a double TP = (L - 1/2) / (W + L + 1/2) = 1/3,
        # CP = (L + 1) / (W + L + 1/2) = 2/3. Centred under Jacoby: live -1 + 2 (p - 1/3) / (1/3)
        # between them, flat at -1 / +1 outside; dead the cubeless 2p - 2(1 - p) = 4p - 2 (the
        # gammons count once the cube is turned) limited to [-1, +1].
        (0.6, 0.68 * 0.6 + 0.32 * 0.4, True),  # 0.536: inside the window the rule changes nothing
        (0.7, 0.68 * 1.0 + 0.32 * 0.8, False),  # 0.936: past the cash point he cashes
        (0.8, 0.68 * 1.0 + 0.32 * 1.0, False),  # 1: dead 1.2 > 1, a cash
        (0.3, 0.68 * -1.0 + 0.32 * -0.8, False),  # -0.936: the opponent cashes
        (0.1, -1.0, False),
    ],
)
def test_jacoby_centred_equity_hand_computed(pw, expected, same_without_jacoby):
    p = np.array([pw, pw, 0.0, 1.0 - pw, 0.0])
    assert C.cubeful_equity(p, 0.68, C.CENTRED, True) == pytest.approx(expected, abs=1e-12)
    assert C.jacoby_centred_equity(p, 0.68) == C.cubeful_equity(p, 0.68, C.CENTRED, True)
    # without the rule the player past his cash point plays on for the gammon (live line up
    # to W = 2 at p = 1), and the dead part is not limited to one point
    no_jacoby = C.cubeful_equity(p, 0.68, C.CENTRED, False)
    assert (no_jacoby == pytest.approx(expected, abs=1e-12)) == same_without_jacoby
    # a centred cube under the Jacoby rule is never worth more than a cash, nor less than a pass
    assert -1.0 - 1e-12 <= C.cubeful_equity(p, 0.68, C.CENTRED, True) <= 1.0 + 1e-12


@pytest.mark.parametrize("x", [0.0, 0.6, 0.78, 1.0])
def test_owned_and_opponent_owned_are_janowskis_closed_forms_with_gammons(x):
    # Janowski's equations between the take and the cash point: owned p (W + L + x/2) - L,
    # opponent owns p (W + L + x/2) - L - x/2. W = 1 + 0.18 / 0.6 = 1.3, L = 1 + 0.12 / 0.4
    # = 1.3: live take point 0.8 / 3.1 = 25.8%, cash point 2.3 / 3.1 = 74.2%; p = 0.6 is
    # between them. At x = 0.78: 0.6 * 2.99 - 1.3 = 0.494 and 0.494 - 0.39 = 0.104.
    p = _p(0.6, 0.15, 0.03, 0.1, 0.02)
    W, L = C.win_loss_sizes(p)
    assert (W, L) == (pytest.approx(1.3), pytest.approx(1.3))
    owned = 0.6 * (2.6 + x / 2) - 1.3
    assert C.cubeful_equity(p, x, C.OWNED, True) == pytest.approx(owned, abs=1e-12)
    assert C.cubeful_equity(p, x, C.OPP_OWNED, True) == pytest.approx(owned - x / 2, abs=1e-12)
    if x == 0.78:
        assert owned == pytest.approx(0.494) and owned - x / 2 == pytest.approx(0.104)


def test_two_sided_database_cube_states_hand_computed():
    # Each side has one checker on his 6 point. The player on roll bears it off with 27 of
    # the 36 rolls; the 9 others (11 21 31 41 32) leave it on his 1, 2 or 3 point, from where
    # it is off with any roll. So after a miss the opponent wins with 27/36 at once and loses
    # otherwise. Cubeless: 3/4 + 1/4 * 1/4 = 13/16.
    # After a miss the opponent, with access, doubles and the player is at -1 on the 2-cube
    # (2 * (1/4 - 3/4)) whether he takes or passes: the opponent's value is 1; without access
    # it is 3/4 - 1/4 = 1/2. Not doubling now:
    #   centred: 3/4 - 1/4 * 1 = 1/2; owned (the opponent has no access): 3/4 - 1/4 * 1/2
    #   = 5/8; opponent owns: 3/4 - 1/4 * 1 = 1/2.
    # Double/take = 2 x (opponent owns) = 1 = the pass: with access he doubles, worth 1.
    from bgtui.analysis.bearoff_cache import get_two_sided
    from bgtui.analysis.cube import exact_cube_equities
    from bgtui.engine import bearoff

    pos = _bearoff_board([0, 0, 0, 0, 0, 1], [0, 0, 0, 0, 0, 1])
    two = get_two_sided()
    x, y = bearoff.player_index(pos), bearoff.opponent_index(pos)
    assert two.win[x, y] == pytest.approx(13 / 16, abs=1e-6)
    cubeful, no_double = exact_cube_equities(pos)
    np.testing.assert_allclose(no_double, [0.5, 0.625, 0.5], atol=1e-6)
    np.testing.assert_allclose(cubeful, [1.0, 1.0, 0.5], atol=1e-6)
    d = decide(np.array([13 / 16, 0, 0, 0, 0]), pos)
    assert d["no_double"] == pytest.approx(0.5, abs=1e-6)
    assert d["double_take"] == pytest.approx(1.0, abs=1e-6)
    assert [d["centred"], d["owned"], d["opponent_owned"]] == pytest.approx(
        [1.0, 1.0, 0.5], abs=1e-6
    )
    # Janowski's model of the same exact probabilities (a race, x = 0.60) is near, not
    # exact: past the live cash point (80%) the centred live line is the cash, +1, so
    # centred 0.6 * 1 + 0.4 (2 * 13/16 - 1) = 0.85 where the database says 1/2 for playing
    # on; opponent owns 0.6 (-1 + 2 (13/16 - 0.2) / 0.8) + 0.25 = 0.56875
    eq = np.zeros(3)
    C.cube_equities(np.array([13 / 16, 0, 0, 0, 0]), C.cube_efficiency(pos), True, eq)
    assert eq[0] == pytest.approx(0.85, abs=1e-9)
    assert eq[2] == pytest.approx(0.56875, abs=1e-9)


@pytest.mark.parametrize(
    "p,inside",
    [
        ((0.60, 0.0, 0.0, 0.0, 0.0), True),  # winning chances 60%
        ((0.95, 0.0, 0.0, 0.0, 0.0), True),  # 95%: the top of the range
        ((0.59, 0.0, 0.0, 0.0, 0.0), False),  # equity 0.18
        ((0.59, 0.10, 0.0, 0.0, 0.0), True),  # the gammons lift the equity to 0.28
        ((0.98, 0.0, 0.0, 0.0, 0.0), True),  # above 95%, in by its equity 0.96
        ((0.50, 0.0, 0.0, 0.0, 0.0), False),
    ],
)
def test_the_cube_region_is_winning_chances_60_to_95_or_an_equity_above_a_quarter(p, inside):
    assert in_cube_region(np.array(p, dtype=np.float32)) is inside
