"""Rollouts at a match score with the cube live in the trials (``--cubeful``): the match's cube
decisions, trials scored in MWC, and save / resume of the match context."""

from dataclasses import replace

import numpy as np
import pytest

from bgtui.analysis import match as MA
from bgtui.analysis.formats import parse_position
from bgtui.analysis.met import get_met
from bgtui.analysis.models import RolloutSettings
from bgtui.analysis.rollout import RolloutJob
from bgtui.analysis.service import Analyzer
from bgtui.engine.cube import CENTRED, OWNED

CONTACT = "zGbiIQgxH/AAWA"
BLITZ = "4OfgBSBmrsQANA"
MET = get_met()
ONE_ROLL = dict(trials=36, truncate=1, vr_filter=0, workers=1, seed=3)


@pytest.fixture(scope="module")
def an():
    return Analyzer()


def at(pos, length, a, b, crawford=False, **kw):
    return replace(parse_position(pos), match_length=length, score=(a, b), crawford=crawford, **kw)


def last(it):
    return list(it)[-1]


def test_dmp_cubeful_rollout_after_one_roll_is_the_one_ply_mwc(an):
    """At double match point the cube is dead: each trial is the winning chance; truncated after
    one roll with every play valued for variance reduction, 36 trials (each first roll once)
    give the 1-ply MWC with no error."""
    s = at(CONTACT, 7, 6, 6)
    row = last(an.iter_rollout(s, RolloutSettings(cubeful=True, **ONE_ROLL))).rows[0]
    want = an.evaluate(s, 1).mwc["cubeful"]
    assert want == pytest.approx(an.probabilities(s.position, 1)[0], abs=1e-6)
    assert row.mwc == pytest.approx(want, abs=1e-6)
    assert row.mwc_se < 1e-6
    assert row.equity.cubeful == pytest.approx(2 * want - 1, abs=1e-6)


@pytest.mark.parametrize(
    "score,cube,owner", [((3, 5), 1, "centred"), ((5, 5), 1, "centred"), ((2, 4), 2, "player")]
)
def test_holding_the_cube_one_roll_is_the_one_ply_lookahead(an, score, cube, owner):
    """The root player keeps the cube for his first roll (the "no double" branch), the trial is
    cut after it and valued by the match cube model after the cube decision of the opponent
    on roll: with exact variance reduction over the 36 first rolls that is the 1-ply cubeful
    lookahead's no-double MWC, computed by another walk (``engine.cubeful``)."""
    s = at(BLITZ, 7, *score, cube_value=cube, cube_owner=owner)
    job = an.make_rollout_job(s, RolloutSettings(cubeful=True, **ONE_ROLL))
    job.cubes[:, 2] = 1.0  # hold: no double before the first roll
    row = last(job.run(an.ev)).rows[0]
    nd = MA.no_double_values(an, s, 1, MET)[CENTRED if owner == "centred" else OWNED]
    # the luck is removed at the cubeless MWC's rates, so single trials still differ (the cube
    # is not linear in the probabilities); each first roll once, their mean is exact
    assert row.mwc == pytest.approx(nd, abs=1e-6)


def test_crawford_rollout_never_doubles(an):
    """In the Crawford game nobody doubles: trial for trial the live-cube MWC is the cubeless
    MWC of the same game (any double would change what a win or a gammon is worth, by 1e-3
    of a match or more). The live line's MWC is summed by another route (its luck turn by turn,
    its end scored by the live-cube code), so the two agree to rounding, not bit for bit (with
    some nets they are about 1e-9 apart)."""
    s = at(BLITZ, 7, 3, 6, crawford=True)
    kw = dict(trials=72, truncate=6, workers=1, seed=11)
    live = last(an.iter_rollout(s, RolloutSettings(cubeful=True, **kw))).rows[0]
    plain = last(an.iter_rollout(s, RolloutSettings(**kw))).rows[0]
    assert live.mwc == pytest.approx(plain.mwc, abs=1e-9)
    assert live.mwc_se == pytest.approx(plain.mwc_se, abs=1e-9)
    assert live.equity.cubeful == pytest.approx(live.equity.cubeless, abs=1e-6)


def test_a_pass_is_scored_at_the_cube(an):
    """Post-Crawford, the 2-away trailer on roll in the opening position doubles at once and
    the 1-away leader passes (the model says so at 0-ply: the trailer is the favourite):
    every trial ends there, worth exactly the table's MWC of winning one point (double match
    point, 50%), whatever the dice."""
    s = at("4HPwATDgc/ABMA", 5, 3, 4)  # 2-away trailer on roll, 1-away leader, post-Crawford
    c = an.cube(s, 0)
    assert c.action == "Double, pass"
    row = last(
        an.iter_rollout(s, RolloutSettings(cubeful=True, trials=36, truncate=4, workers=1, seed=5))
    ).rows[0]
    assert row.mwc == pytest.approx(MET.after(2, 1, 1), abs=1e-12)
    assert row.mwc_se == pytest.approx(0.0, abs=1e-12)


def test_candidate_plays_with_the_live_cube_rank_by_cubeful_mwc(an):
    s = replace(at(CONTACT, 7, 3, 5), dice=(3, 1))
    settings = RolloutSettings(cubeful=True, trials=36, truncate=3, workers=1, seed=2)
    snap = last(an.iter_rollout(s, settings, top=3))
    mw = [r.mwc for r in snap.rows]
    assert mw == sorted(mw, reverse=True)
    w, lo = MET.after(4, 2, 1), MET.after(4, 2, -1)
    for r in snap.rows:
        assert r.equity.cubeful == pytest.approx((2 * r.mwc - (w + lo)) / (w - lo))
        assert r.mwc_se > 0 and (r.mwc_diff_se > 0 or r is snap.rows[0])


def test_zehr_split_at_a_score_is_refused(an):
    s = at(CONTACT, 7, 3, 5)
    with pytest.raises(ValueError, match="Zehr split is for money"):
        an.make_rollout_job(s, RolloutSettings(cubeful=True, zehr_split=True, trials=36))


def test_save_and_resume_at_a_score(an, tmp_path):
    """72 trials saved and resumed to 144 give the 144-trial rollout bit for bit; the saved
    match is checked: another score, or money, is refused."""
    s = at(CONTACT, 7, 3, 5)
    settings = RolloutSettings(cubeful=True, trials=144, truncate=3, workers=1, seed=4)
    whole = last(an.iter_rollout(s, settings)).rows[0]
    job = an.make_rollout_job(s, replace(settings, trials=72))
    last(job.run(an.ev))
    path = tmp_path / "r.json"
    job.save(path)
    assert RolloutJob.load(path).match["away"] == [4, 2]
    resumed = last(an.iter_rollout(s, settings, resume=path)).rows[0]
    assert resumed.mwc == whole.mwc and resumed.mwc_se == whole.mwc_se
    assert resumed.equity == whole.equity
    for other in (at(CONTACT, 7, 3, 4), parse_position(CONTACT)):
        with pytest.raises(ValueError, match="cannot resume: it was rolled out at a 7-point"):
            list(an.iter_rollout(other, settings, resume=path))
    money = an.make_rollout_job(
        parse_position(CONTACT), replace(settings, trials=36, cubeful=False)
    )
    last(money.run(an.ev))
    money.save(path)
    with pytest.raises(ValueError, match="rolled out for money"):
        list(an.iter_rollout(s, settings, resume=path))
    assert np.isfinite(whole.mwc)


def test_cube_rollout_at_a_score_one_roll_is_the_one_ply_lookahead(an):
    """``cube --rollout`` at a score: no double (the cube kept for the first roll) and
    double/take (cube 2, owned by the opponent) on the same dice, cut after one roll with
    exact variance reduction: their MWC are the 1-ply cubeful lookahead's no-double value
    (centred, level 0) and its opponent-owned value at twice the cube (level 1)."""
    from bgtui.engine.cube import OPP_OWNED

    s = at(BLITZ, 7, 3, 5)
    last_pair = list(an.iter_cube_rollout(s, RolloutSettings(live_cube=True, **ONE_ROLL)))[-1]
    c = last_pair[1]
    v = MA.no_double_values(an, s, 1, MET)
    assert c.mwc["no_double"] == pytest.approx(v[CENTRED], abs=1e-6)
    assert c.mwc["double_take"] == pytest.approx(v[3 + OPP_OWNED], abs=1e-6)
    assert c.mwc["double_pass"] == pytest.approx(MET.after(4, 2, 1))
    view = MA.MatchView(s, MET)
    assert c.no_double == pytest.approx(view.emg(c.mwc["no_double"]))
    assert c.standard_errors["double_take_minus_no_double"] >= 0


def test_cube_rollout_in_the_crawford_game_is_refused(an):
    with pytest.raises(ValueError, match="no cube action to roll out"):
        list(
            an.iter_cube_rollout(
                at(BLITZ, 7, 3, 6, crawford=True), RolloutSettings(live_cube=True, trials=36)
            )
        )


def test_mwc_sums_do_not_depend_on_the_chunks(an):
    """The MWC sums are added trial after trial: one worker or two (other chunk boundaries),
    cubeless or with the live cube, the figures are the same bit for bit."""
    s = at(CONTACT, 7, 3, 5)
    for cubeful in (False, True):
        kw = dict(trials=144, truncate=3, seed=6, cubeful=cubeful)
        one = last(an.iter_rollout(s, RolloutSettings(workers=1, **kw))).rows[0]
        two = last(an.iter_rollout(s, RolloutSettings(workers=2, **kw))).rows[0]
        assert (one.mwc, one.mwc_se, one.equity) == (two.mwc, two.mwc_se, two.equity)
