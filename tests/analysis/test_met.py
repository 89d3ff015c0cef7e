"""The match equity table: published entries, its properties, the arithmetic built on it, and
the GNU Backgammon XML reader."""

import numpy as np
import pytest

from bgtui.analysis.met import DEFAULT_MET, METError, get_met, load_met, parse_met_xml


@pytest.fixture(scope="module")
def met():
    return get_met()


def test_default_table_is_kazaross_xg2_with_its_published_entries(met):
    assert met.name == "Kazaross XG2 25 point MET"
    assert met.length == 25 and met.pre.shape == (25, 25) and met.post.shape == (25,)
    # entries quoted in the table's documentation
    assert met.pre[0, 0] == 0.5
    assert met.pre[0, 1] == 0.67736  # 1-away 2-away, Crawford: the leader
    assert met.pre[1, 3] == 0.6687  # 2-away 4-away
    assert met.post[0] == 0.5 and met.post[1] == 0.48803 and met.post[2] == 0.32264
    assert met.mwc(2, 4) == 0.6687 and met.mwc(4, 2) == pytest.approx(0.3313)
    assert met.mwc(1, 3, crawford=False) == pytest.approx(1 - 0.32264)


def test_table_is_symmetric_and_monotone(met):
    pre = met.pre
    assert np.max(np.abs(pre + pre.T - 1.0)) < 1e-4
    for a in range(2, 25):  # needing more points is worse, the opponent needing more better
        for b in range(2, 25):
            assert met.mwc(a + 1, b) < met.mwc(a, b) < met.mwc(a, b + 1)
    assert np.all(np.diff(met.pre[0]) > 0)  # the Crawford game's leader
    # post-Crawford: a trailer who needs more has less
    assert np.all(np.diff(met.post) <= 0)


def test_post_crawford_consistent_with_crawford_game(met):
    """The leader's MWC in the Crawford game against a ``j``-away trailer: he wins the game
    (half the time, by symmetry) and the match, or loses it, one point (at most three with
    a backgammon), and the next game is post-Crawford."""
    for j in range(2, 26):
        single = 0.5 + 0.5 * (1.0 - met.post[j - 2])  # the trailer's win is a single game
        worst = 0.5 + 0.5 * (1.0 - (met.post[j - 4] if j > 3 else 1.0))
        assert worst - 1e-9 <= met.mwc(1, j, crawford=True) <= single + 1e-9


def test_outcomes_are_capped_at_what_a_side_needs(met):
    o = met.outcomes(2, 2)
    assert o["win"] == [met.pre[0, 1], 1.0, 1.0]  # 2-away: a gammon wins the match
    assert o["lose"] == [met.pre[1, 0], 0.0, 0.0]
    dmp = met.outcomes(1, 1)
    assert dmp == {"win": [1.0, 1.0, 1.0], "lose": [0.0, 0.0, 0.0]}
    # from 3-away 5-away winning 1 at a 2-cube: 1-away 5-away, the Crawford game next
    assert met.after(3, 5, 2) == met.pre[0, 4]
    # post-Crawford (1-away against 3-away) losing one: 1-away 2-away, post-Crawford again
    assert met.after(1, 3, -1) == pytest.approx(1.0 - met.post[1])
    assert met.after(1, 3, -2) == 0.5 and met.after(1, 3, -3) == 0.0


def test_take_points_by_hand(met):
    pre, post = met.pre, met.post
    # 2-away 2-away, doubled to 2: passing leaves 2-away against 1-away (Crawford), taking
    # plays for the match: the cube is dead, live or not
    tp = pre[1, 0]
    assert met.take_point(2, 2) == pytest.approx(tp)
    assert met.take_point(2, 2, live=True) == pytest.approx(tp)
    # 3-away 3-away, dead cube: pass -> 3-away 2-away; take and win 2 -> 1-away 3-away
    # (Crawford); take and lose 2 -> 3-away 1-away (Crawford)
    dead = (pre[2, 1] - pre[2, 0]) / (pre[0, 2] - pre[2, 0])
    assert met.take_point(3, 3) == pytest.approx(dead)
    # 4-away (trailer) 2-away, doubled to 2. Dead: pass -> 4-away 1-away (Crawford); take:
    # win -> 2-away 2-away, lose -> the match
    assert met.take_point(4, 2) == pytest.approx(pre[3, 0] / pre[1, 1])
    # live: he redoubles to 4 when the leader must pass; the leader's take point at 4 is
    # (pass: 2-away 2-away, 1/2) against (win: the match, lose: the match) = 1/2 of his
    # chances, so the trailer cashes 2 points (-> 2-away 2-away) at 50%; his value runs from
    # 0 (p = 0) to 1/2 (p = 50%)
    live = 0.5 * (pre[3, 0] - 0.0) / (pre[1, 1] - 0.0)
    assert met.take_point(4, 2, live=True) == pytest.approx(live)
    # the leader (2-away) doubled by a 4-away trailer: pass -> 2-away 3-away; take: win the
    # match or lose 2 -> 2-away 2-away
    assert met.take_point(2, 4) == pytest.approx((pre[1, 2] - 0.5) / (1.0 - 0.5))
    # post-Crawford: the 1-away leader doubled to 2 by a 4-away trailer: pass -> 1-away
    # 3-away post-Crawford, take: win the match, lose -> 1-away 2-away post-Crawford
    pc = ((1 - post[2]) - (1 - post[1])) / (1.0 - (1 - post[1]))
    assert met.take_point(1, 4) == pytest.approx(pc)
    assert met.take_point(1, 4, live=True) == pytest.approx(pc)  # his cube is dead
    # the cash point is the opponent's take point seen from the doubler
    for a, b in [(2, 4), (3, 5), (7, 4), (5, 5)]:
        for live in (False, True):
            assert met.cash_point(a, b, live=live) == pytest.approx(
                1.0 - met.take_point(b, a, live=live)
            )


def test_gammons_move_the_take_point(met):
    """At 2-away 2-away every game after a double decides the match, so gammons do not move
    the take point; at 3-away 3-away a gammon on a 2-cube wins the match where a single game
    leaves 1-away: the taker who can win gammons needs less, by hand from the table."""
    g = np.array([0.5, 0.2, 0.0, 0.1, 0.0])  # he wins 40% of his wins as gammons, loses 20%
    assert met.take_point(2, 2, gammons=g) == pytest.approx(met.take_point(2, 2))
    pre = met.pre
    win = 0.6 * pre[0, 2] + 0.4 * 1.0
    lose = 0.8 * pre[2, 0] + 0.2 * 0.0  # a single loss: 3-away 1-away; a gammon: the match
    assert met.take_point(3, 3, gammons=g) == pytest.approx((pre[2, 1] - lose) / (win - lose))


def _xml(pre, post, post_attr='player="both"'):
    rows = "".join("<row>" + "".join(f"<me>{x}</me>" for x in r) + "</row>" for r in pre)
    prow = "<row>" + "".join(f"<me>{x}</me>" for x in post) + "</row>"
    return (
        f"<?xml version='1.0'?><met><info><name>tiny</name></info>"
        f"<pre-crawford-table type='explicit'>{rows}</pre-crawford-table>"
        f"<post-crawford-table type='explicit' {post_attr}>{prow}</post-crawford-table></met>"
    )


def test_xml_reader_reads_a_small_table(tmp_path):
    pre = [[0.5, 0.7, 0.8], [0.3, 0.5, 0.6], [0.2, 0.4, 0.5]]
    post = [0.5, 0.48, 0.32]
    f = tmp_path / "tiny.xml"
    f.write_text(_xml(pre, post))
    t = load_met(f)
    assert t.name == "tiny" and t.length == 3
    assert np.array_equal(t.pre, np.array(pre)) and np.array_equal(t.post, np.array(post))
    assert t.array.shape == (4, 3)
    with pytest.raises(ValueError, match="up to 3-away"):
        t.mwc(4, 2)


def test_shipped_file_reads_as_the_published_table():
    t = load_met(DEFAULT_MET)
    assert t.pre[24, 24] == 0.5 and t.post[24] == pytest.approx(0.00123)


@pytest.mark.parametrize(
    "text, msg",
    [
        ("hello", "not XML"),
        ("<foo/>", "expected <met>"),
        ("<met><pre-crawford-table/></met>", "square"),
        (_xml([[0.5, 0.9], [0.3, 0.5]], [0.5, 0.4]), "add up to 1"),
        (_xml([[0.5, 0.7], [0.3, 0.5]], [0.5]), "post-Crawford row"),
        (_xml([[0.5, 1.7], [-0.7, 0.5]], [0.5, 0.4]), "between 0 and 1"),
        (_xml([[0.5, "x"], [0.3, 0.5]], [0.5, 0.4]), "not a number"),
    ],
)
def test_xml_reader_refuses_what_is_not_a_table(text, msg):
    with pytest.raises(METError, match=msg) as e:
        parse_met_xml(text, "bad.xml")
    assert "\n" not in str(e.value)


def test_missing_file_is_one_line(tmp_path):
    with pytest.raises(METError, match="cannot read"):
        get_met(str(tmp_path / "nope.xml"))
