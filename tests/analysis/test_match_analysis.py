"""Analysis at a match score through the service: cube decisions, evaluation, plays, the match
context and its bad inputs."""

from dataclasses import replace

import numpy as np
import pytest

from bgtui.analysis import match as MA
from bgtui.analysis.formats import parse_position
from bgtui.analysis.met import get_met
from bgtui.analysis.service import Analyzer

OPENING = "4HPwATDgc/ABMA"
XGID_4_2 = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:4:2:0:7:10"


@pytest.fixture(scope="module")
def an():
    return Analyzer()


def at(length, a, b, crawford=False, pos=OPENING, **kw):
    return replace(parse_position(pos), match_length=length, score=(a, b), crawford=crawford, **kw)


def test_describe_and_json_context():
    s = parse_position(XGID_4_2)
    assert MA.describe(s) == "7-point match, 4-2 (-3a -5a)"
    assert MA.match_dict(s) == {"length": 7, "score": [4, 2], "crawford": False, "away": [3, 5]}
    assert MA.describe(at(5, 4, 2, crawford=True)) == "5-point match, 4-2 (-1a -3a), Crawford"
    assert MA.describe(at(5, 2, 4)) == "5-point match, 2-4 (-3a -1a), post-Crawford"


@pytest.mark.parametrize(
    "kw, msg",
    [
        (dict(length=7, score="4-2", crawford=True), "only when a side is 1-away"),
        (dict(length=7, score="7-2"), "not below the match length"),
        (dict(length=7, score="4-x"), "bad score"),
        (dict(score="1-2"), "needs a match"),
        (dict(crawford=True), "needs a match"),
        (dict(length=-3), "0 \\(money\\) or more"),
        (dict(length=41, score="0-0"), "covers scores up to 25-away"),
    ],
)
def test_bad_match_context_is_one_line(kw, msg):
    with pytest.raises(ValueError, match=msg) as e:
        MA.with_match(parse_position(OPENING), **kw)
    assert "\n" not in str(e.value)


def test_cube_above_what_the_match_allows():
    s = parse_position(OPENING)
    # 3-away 3-away: a 4-cube is possible (doubled at 2, both needing 3), an 8-cube not
    MA.check_match(replace(s, match_length=5, score=(2, 2), cube_value=4, cube_owner="player"))
    with pytest.raises(ValueError, match="above what the match allows"):
        MA.check_match(replace(s, match_length=5, score=(2, 2), cube_value=8, cube_owner="player"))
    with pytest.raises(ValueError, match="Crawford"):
        MA.check_match(
            replace(
                s, match_length=5, score=(4, 2), crawford=True, cube_value=2, cube_owner="player"
            )
        )


def test_with_match_overrides_and_money():
    s = MA.with_match(parse_position(XGID_4_2), length=0)
    assert s.is_money and s.score == (0, 0)
    s = MA.with_match(parse_position(OPENING), length=5, score="4-2", crawford=True)
    assert (s.match_length, s.score, s.crawford) == (5, (4, 2), True)


def test_crawford_game_offers_no_cube_action(an):
    s = at(5, 4, 2, crawford=True)
    c = an.cube(s, 0)
    assert c.action == "No double" and not c.cube_access
    assert c.mwc["no_double"] == pytest.approx(c.mwc["cubeful"])
    e = an.evaluate(s, 0)
    assert e.mwc["cubeful"] == pytest.approx(e.mwc["cubeless"])  # no cube: cubeless


def test_money_has_no_match_figures(an):
    s = parse_position(OPENING)
    assert an.evaluate(s, 0).mwc is None and an.cube(s, 0).mwc is None
    assert an.rank_plays(s, (3, 1), 0)[0].mwc is None


def test_evaluation_emg_is_the_mwc_mapped(an):
    s = parse_position(XGID_4_2)
    e = an.evaluate(s, 0)
    met = get_met()
    w, l = met.after(3, 5, 1), met.after(3, 5, -1)
    for k in ("cubeless", "cubeful"):
        assert getattr(e.equity, k) == pytest.approx((2 * e.mwc[k] - (w + l)) / (w - l))


def test_dmp_plays_rank_by_winning_chances(an):
    """At double match point only winning counts: each play's MWC is its winning chance (the
    cube is dead, so cubeful = cubeless), and the ranking follows it."""
    s = replace(at(7, 6, 6, pos="XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"), dice=(4, 3))
    rows = an.rank_plays(s, (4, 3), 0)
    for r in rows:
        assert r.mwc == pytest.approx(r.probabilities.win, abs=1e-6)
    wins = [r.probabilities.win for r in rows]
    assert wins == sorted(wins, reverse=True)
    assert rows[0].mwc_diff == 0.0 and all(r.mwc_diff <= 0 for r in rows)


def test_lookahead_zero_is_the_model(an):
    from bgtui.engine.cube import cube_efficiency

    s = parse_position(XGID_4_2)
    met = get_met()
    v = MA.no_double_values(an, s, 0, met)
    view = MA.MatchView(s, met)
    probs = an.probabilities(s.position, 0)
    m = view.model_values(probs, s.position)
    assert np.allclose(v[:6], m, atol=1e-7)
    assert cube_efficiency(s.position) > 0


def test_two_sided_race_at_two_away_two_away_doubles_as_favourite(an):
    """A two-checker race at 2-away 2-away (no gammons possible): the cube is dead after a
    double, so double/take is worth the winning chance and doubling is right exactly when
    the player on roll is the favourite; he has a pass only above the table's pass value."""
    from bgtui.analysis.state import GameState

    met = get_met()
    for mine, theirs in [((6, 5), (6, 5)), ((6, 5), (4, 3)), ((2, 1), (6, 6)), ((6, 4), (5, 5))]:
        pos = np.zeros(26, dtype=np.int8)
        for p in mine:
            pos[p] += 1
        for p in theirs:
            pos[25 - p] -= 1
        s = replace(GameState.from_position(pos), match_length=3, score=(1, 1))
        c = an.cube(s, 0)
        w = c.probabilities.win
        assert c.mwc["double_take"] == pytest.approx(w, abs=1e-9)
        assert c.action.startswith("Double") == (w > 0.5)
        assert (c.action == "Double, pass") == (w > met.pre[0, 1])


def test_dead_cube_is_not_redoubled(an):
    """2-away 2-away with a 2-cube: every result decides the match whatever the cube, so a
    redouble changes nothing: no redouble, however strong the position."""
    s = at(3, 1, 1, cube_value=2, cube_owner="player")
    c = an.cube(s, 0)
    assert c.action == "No redouble" and not c.cube_access
    assert c.mwc["no_double"] == pytest.approx(c.probabilities.win, abs=1e-9)


def test_post_crawford_trailer_doubles_and_leader_free_drops(an):
    """Post-Crawford, 2-away trailer against the 1-away leader: the trailer doubles at once
    (his cube is worth nothing later: the leader cannot redouble usefully, and a gammon
    already wins him the match); the leader, doubled, passes unless he is the favourite:
    passing leaves double match point (50%), taking plays for the match (his winning
    chance). The opening position: the trailer on roll is the favourite, the leader passes."""
    s = at(5, 3, 4)  # trailer on roll: 2-away, leader 1-away, post-Crawford
    c = an.cube(s, 0)
    assert c.probabilities.win > 0.5 and c.action == "Double, pass"
    assert c.mwc["double_pass"] == pytest.approx(0.5)


def test_dmp_rollout_truncated_after_one_roll_is_the_one_ply_mwc(an):
    """At double match point the MWC is the winning chance; a rollout truncated after one roll
    with exact variance reduction (every play valued) gives each trial the average over the
    36 rolls of the best play's 0-ply value: the 1-ply MWC, with no error."""
    from bgtui.analysis.models import RolloutSettings

    s = at(7, 6, 6, pos=XGID_4_2)
    settings = RolloutSettings(trials=36, truncate=1, vr_filter=0, workers=1, seed=3)
    snap = list(an.iter_rollout(s, settings))[-1]
    row = snap.rows[0]
    want = an.evaluate(s, 1).mwc["cubeless"]
    assert row.mwc == pytest.approx(want, abs=1e-6)
    assert row.mwc_se < 1e-6
    assert row.equity.cubeless == pytest.approx(2 * want - 1, abs=1e-6)  # EMG at DMP


def test_rollout_of_plays_at_a_score_ranks_by_mwc(an):
    from bgtui.analysis.models import RolloutSettings

    s = replace(parse_position(XGID_4_2), dice=(3, 1))
    job = an.make_rollout_job(s, RolloutSettings(trials=36, truncate=2, workers=1), top=3)
    snap = list(job.run(an.ev))[-1]
    mw = [r.mwc for r in snap.rows]
    assert mw == sorted(mw, reverse=True)
    met = get_met()
    w, l = met.after(3, 5, 1), met.after(3, 5, -1)
    for r in snap.rows:
        # the mover's MWC of the rolled-out probabilities (cubeless: linear in them)
        p = np.array(r.probabilities.as_tuple())
        assert r.mwc == pytest.approx(MA.MatchView(s, met).cubeless(p), abs=1e-9)
        assert r.equity.cubeless == pytest.approx((2 * r.mwc - (w + l)) / (w - l))
        assert r.mwc_se > 0 and (r.mwc_diff_se > 0 or r is snap.rows[0])
