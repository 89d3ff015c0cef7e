"""Match play kernels: cubeless MWC, EMG, the 0-ply match cube model, facts of MET arithmetic."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bgtui.analysis.met import get_met
from bgtui.engine import match as M
from bgtui.engine.cube import CENTRED, OPP_OWNED, OWNED

MET = get_met()
T = MET.array


def probs(w, wg=0.0, wbg=0.0, lg=0.0, lbg=0.0):
    return np.array([w, wg, wbg, lg, lbg], dtype=np.float64)


five = st.tuples(
    st.floats(0, 1), st.floats(0, 1), st.floats(0, 1), st.floats(0, 1), st.floats(0, 1)
).map(
    lambda t: probs(
        t[0], t[0] * t[1], t[0] * t[1] * t[2], (1 - t[0]) * t[3], (1 - t[0]) * t[3] * t[4]
    )
)


@given(five)
@settings(max_examples=60, deadline=None)
def test_dmp_mwc_is_the_win_probability(p):
    assert M.cubeless_mwc(p, T, 1, 1, 1) == pytest.approx(p[0], abs=1e-12)
    assert M.mwc_to_emg(M.cubeless_mwc(p, T, 1, 1, 1), T, 1, 1, 1) == pytest.approx(
        2 * p[0] - 1, abs=1e-12
    )


@given(five)
@settings(max_examples=60, deadline=None)
def test_two_away_gammon_wins_the_match(p):
    """2-away (against 4-away) on a 1-cube: a gammon or backgammon is the match; losing
    one leaves 2-away 2-away or 2-away 1-away (Crawford)."""
    want = (
        (p[0] - p[1]) * MET.pre[0, 3]
        + p[1] * 1.0
        + (1 - p[0] - p[3]) * MET.pre[1, 2]
        + (p[3] - p[4]) * MET.pre[1, 1]
        + p[4] * MET.pre[1, 0]
    )
    assert M.cubeless_mwc(p, T, 2, 4, 1) == pytest.approx(want, abs=1e-12)


@given(five, st.integers(1, 25), st.integers(1, 25), st.sampled_from([1, 2, 4]))
@settings(max_examples=100, deadline=None)
def test_emg_round_trip_and_scale(p, a, b, cube):
    m = M.cubeless_mwc(p, T, a, b, cube)
    e = M.mwc_to_emg(m, T, a, b, cube)
    assert M.emg_to_mwc(e, T, a, b, cube) == pytest.approx(m, abs=1e-12)
    assert M.mwc_to_emg(MET.after(a, b, cube), T, a, b, cube) == pytest.approx(1.0)
    assert M.mwc_to_emg(MET.after(a, b, -cube), T, a, b, cube) == pytest.approx(-1.0)


def test_post_crawford_trailer_gammon_value():
    """Post-Crawford, 1-away leader against a 4-away trailer: a trailer's gammon on a 1-cube
    takes him to 2-away, a single win to 3-away; the leader wins the match with any win."""
    p = probs(0.4, 0.1, 0.0, 0.3, 0.0)  # the leader on roll
    want = 0.4 * 1.0 + 0.3 * (1 - MET.post[2]) + 0.3 * (1 - MET.post[1])
    assert M.cubeless_mwc(p, T, 1, 4, 1) == pytest.approx(want, abs=1e-12)


def model(p, a, b, cube=1, crawford=False, x=0.78, levels=2):
    out = np.zeros(3 * levels)
    M.match_cube_values(
        np.asarray(p, dtype=np.float64),
        T,
        a,
        b,
        cube,
        crawford,
        x,
        np.zeros((2, M.POINT_ROWS)),
        out,
    )
    return out


def test_crawford_and_dmp_values_are_cubeless():
    p = probs(0.6, 0.2, 0.01, 0.1, 0.0)
    v = model(p, 1, 4, crawford=True)
    assert np.allclose(v[:3], M.cubeless_mwc(p, T, 1, 4, 1))
    assert np.allclose(model(p, 1, 1), 0.6)  # double match point: a dead cube


def test_post_crawford_leader_cube_is_dead():
    """The 1-away leader gains nothing by owning the cube: his value owning it is the
    cubeless MWC; the trailer owning it is worth more to the trailer (less to the leader)."""
    p = probs(0.55, 0.15, 0.0, 0.12, 0.0)
    v = model(p, 1, 5, cube=2)
    assert v[OWNED] == pytest.approx(M.cubeless_mwc(p, T, 1, 5, 2))
    assert v[OPP_OWNED] < v[OWNED]


@pytest.mark.parametrize("w", [0.3, 0.45, 0.55, 0.6, 0.67, 0.7, 0.8])
def test_two_away_two_away_double_when_favourite(w):
    """At 2-away 2-away without gammons the cube after a double is dead (both sides need 2):
    double/take is worth the winning chance p, double/pass the pass value 2-away 1-away;
    playing on, the live part is p between the two take points 32.3% and 67.7% (the window's
    ends, where the cube is cashed) and flat outside them, the dead part W p + L (1 - p),
    which is below p exactly when p > 1/2 (W + L = 1). So: double
    as the favourite, take up to the pass value."""
    p = probs(w)
    v = model(p, 2, 2)
    nd, dt, dp = v[CENTRED], v[3 + OPP_OWNED], MET.after(2, 2, 1)
    assert dt == pytest.approx(w)
    assert dp == pytest.approx(MET.pre[0, 1])
    x = 0.78
    dead = w * MET.pre[0, 1] + (1 - w) * MET.pre[1, 0]
    live = min(max(w, MET.pre[1, 0]), MET.pre[0, 1])
    assert nd == pytest.approx(x * live + (1 - x) * dead)
    assert (min(dt, dp) > nd) == (w > 0.5)
