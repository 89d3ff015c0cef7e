"""A play's 1-ply lookahead against a brute force in Python: the opponent's 21 rolls, his best
reply by 0-ply equity (among the filter net's best replies when the analyser prunes, and
among all of them when not), its 0-ply value, weights 1/36 and 2/36, from the mover's side; and the
1-ply rows of ``rank_plays`` (money and match) carrying the blend of that value with the
play's 0-ply value, weighted by the class of the position before the roll
(``ONE_PLY_WEIGHTS0``: contact 0.25, early, trailing, the mutual, the anchor, the early
trailing and the early bar classes too; race, crashed and holding 0.5), but 1 in a race where
only the side on roll has a row of the one-sided database."""

from dataclasses import replace

import numpy as np
import pytest

from bgtui.analysis.formats import format_position_id, parse_position
from bgtui.analysis.models import DEFAULT_PRUNE
from bgtui.analysis.service import Analyzer
from bgtui.analysis.weights import nets_of, with_databases
from bgtui.engine import is_race, one_ply_weight0, side_row
from bgtui.engine.constants import ONE_PLY_WEIGHTS0, RACE_SIDE_MARGIN, RACE_SIDE_PLAYS
from bgtui.engine.evaluate import equity, evaluate0
from bgtui.engine.movegen import generate_plays
from bgtui.engine.position import game_result, swap_sides
from tests.reference.pruning import filter_top_k

CONTACT = "zGbiIQgxH/AAWA"  # middle game (309 pips: the early net's), 4 plays of 31 (one hits)
RACE = "tnWEBwC2mvIBAA"
# contact (a checker of the side on roll on his 20 point) after he has borne off one checker:
# the crashed net's class
CRASHED = format_position_id(
    np.array(
        [0, 3, 3, 3, 2, 2, 0, -3, -3, 0, 0, 0, -3, -2, 0, 0, 0, -2, 0, 0, 1, 0, 0, 0, -2, 0],
        dtype=np.int8,
    )
)


@pytest.fixture(scope="module", params=[DEFAULT_PRUNE, 0], ids=["pruned", "every-play"])
def an(request):
    """The analyser, its lookahead pruning as shipped or off."""
    a = Analyzer()
    a.prune = request.param
    return a


def after0(an, child):
    """0-ply value (mover's view) of a play reaching ``child``, float64, by the analyser
    ``an`` (or an evaluator)."""
    r = game_result(child)
    if r > 0:
        return np.array([1.0, r >= 2, r >= 3, 0.0, 0.0])
    t = evaluate0(swap_sides(child), getattr(an, "ev", an)).astype(np.float64)
    return np.array([1.0 - t[0], t[3], t[4], t[1], t[2]])


@pytest.fixture(scope="module")
def race_net_only(an):
    """The analyser's nets and databases without its race side net: the race net's values."""
    return with_databases(nets_of(an.ev), bearoff=True)


def best_reply(an, race_net_only, opp, replies):
    """The 0-ply value (replier's view) of the reply the engine's 0-ply player picks from
    ``opp``: the best by 0-ply equity (the first of equal equities); in a race the side net
    values (the side not moving in ``opp`` has no row of the one-sided database), the best by
    the side net's equity of the race net's best ``RACE_SIDE_PLAYS`` within
    ``RACE_SIDE_MARGIN`` of its best."""
    values = [after0(an, r) for r in replies]
    nrows = an.ev.one_sided.shape[0]
    if not (is_race(opp) and an.ev.side.w2.shape[0] > 0 and side_row(opp, 1, nrows) < 0):
        return max(values, key=equity)
    ranked = [float(equity(after0(race_net_only, r))) for r in replies]
    top = max(ranked)
    order = sorted(range(len(replies)), key=lambda i: -ranked[i])
    picked = [i for i in order if ranked[i] >= top - RACE_SIDE_MARGIN][:RACE_SIDE_PLAYS]
    return values[max(picked, key=lambda i: (float(equity(values[i])), -picked.index(i)))]


def kept_replies(an, replies):
    """The replies the lookahead chooses among: with the analyser's pruning k, the k whose
    filter-net scores (from all their rows) are highest, best first; else all of them."""
    k = an.prune
    if not k or len(replies) <= k:
        return replies
    plays = np.ascontiguousarray(replies, dtype=np.int8)
    return plays[filter_top_k(plays, k)[0]]


def brute_one_ply(an, child, race_net_only):
    """1-ply value (mover's view) of a play reaching ``child``: the opponent's reply to each
    roll as the engine's 0-ply player picks it (:func:`best_reply`) among
    :func:`kept_replies`, its 0-ply value averaged over the 36 rolls."""
    opp = swap_sides(child)
    acc = np.zeros(5)
    for a in range(1, 7):
        for b in range(1, a + 1):
            replies, _ = generate_plays(opp, a, b)
            best = best_reply(an, race_net_only, opp, kept_replies(an, replies))
            acc += (1 if a == b else 2) * best
    acc /= 36.0
    return np.array([1.0 - acc[0], acc[3], acc[4], acc[1], acc[2]])


@pytest.mark.parametrize("pos, dice", [(CONTACT, (3, 1)), (RACE, (6, 4))])
def test_one_ply_value_is_the_brute_force(an, race_net_only, pos, dice):
    state = parse_position(pos)
    children, _ = generate_plays(state.position, *dice)
    for child in children[:6]:
        want = brute_one_ply(an, child, race_net_only)
        assert np.allclose(an._after_probs(child, 1), want, atol=2e-6)


def brute_blend(an, child, w, race_net_only):
    """The value a play is ranked by at 1-ply: ``w`` times its 0-ply value plus the rest times
    its brute-force 1-ply value."""
    return w * after0(an, child) + (1.0 - w) * brute_one_ply(an, child, race_net_only)


def _check_ranking(an, state, dice, rows, w, race_net_only):
    """Each 1-ply row carries the brute-force blend (0-ply weight ``w``) of its play's 0-ply
    and 1-ply values."""
    children, _ = generate_plays(state.position, *dice)
    want = {
        bytes(swap_sides(c).astype(np.int8)): brute_blend(an, c, w, race_net_only) for c in children
    }
    seen = 0
    for row in rows:
        if row.evaluated_by != "1-ply":
            continue
        after = bytes(parse_position(row.position_id).position.astype(np.int8))
        p = row.probabilities
        got = [p.win, p.win_gammon, p.win_backgammon, p.lose_gammon, p.lose_backgammon]
        assert np.allclose(got, want[after], atol=2e-6)
        seen += 1
    assert seen >= 2


def test_money_ranking_at_one_ply(an, race_net_only):
    state = replace(parse_position(CONTACT), dice=(3, 1))
    rows = an.rank_plays(state, (3, 1), 1)
    _check_ranking(an, state, (3, 1), rows, 0.25, race_net_only)
    eqs = [r.equity.cubeless for r in rows if r.evaluated_by == "1-ply"]
    assert eqs == sorted(eqs, reverse=True)


def test_match_ranking_at_one_ply(an, race_net_only):
    state = replace(parse_position(CONTACT), dice=(3, 1), match_length=7, score=(2, 4))
    rows = an.rank_plays(state, (3, 1), 1)
    _check_ranking(an, state, (3, 1), rows, 0.25, race_net_only)


def test_weights_by_class():
    """Contact 0.25 (early and later, ahead in the race or behind, a checker of each side
    back or not, an anchor or not, with a checker on a bar or not), race 0.5,
    crashed 0.5 whichever side has borne off (holding: only the side not on
    roll), by the position before the roll."""
    from bgtui.engine import net_class
    from bgtui.engine.nn import (
        ANCHOR,
        EARLY,
        EARLY_BAR,
        EARLY_TRAILING,
        EARLY_TRAILING_BAR,
        MUTUAL,
        MUTUAL_ANCHOR,
        MUTUAL_ANCHOR_BAR,
        MUTUAL_BAR,
        MUTUAL_TRAILING,
        MUTUAL_TRAILING_ANCHOR,
        MUTUAL_TRAILING_ANCHOR_BAR,
        MUTUAL_TRAILING_BAR,
        TRAILING,
        TRAILING_ANCHOR,
    )
    from bgtui.engine.nn import CONTACT as CONTACT_CLASS
    from bgtui.engine.position import make_position

    assert ONE_PLY_WEIGHTS0 == (0.25, 0.5, 0.5, 0.25, 0.5, *(0.25,) * 18)
    below = []  # positions of the contact classes, each seen by both sides
    for mine, theirs, cls, swapped in (
        # 156 pips against 167 (the opening after a 6-5 run), 323 together
        ({24: 1, 13: 6, 8: 3, 6: 5}, {24: 2, 13: 5, 8: 3, 6: 5}, EARLY, EARLY_TRAILING),
        # the same with a checker of the other side's on the bar (hit on his 24 point): 156
        # against 168
        (
            {24: 1, 13: 6, 8: 3, 6: 5},
            {25: 1, 24: 1, 13: 5, 8: 3, 6: 5},
            EARLY_BAR,
            EARLY_TRAILING_BAR,
        ),
        # 258 pips: 132 of the side on roll against 126, the other side's anchor on his 1
        # point; then 257, against 125 without the anchor
        ({13: 6, 6: 9}, {24: 2, 6: 13}, TRAILING_ANCHOR, ANCHOR),
        ({13: 6, 6: 9}, {24: 1, 23: 1, 6: 13}, TRAILING, CONTACT_CLASS),
        # a checker of each side back: 109 pips against 108, and with an anchor each
        ({24: 1, 7: 1, 6: 13}, {24: 1, 6: 14}, MUTUAL_TRAILING, MUTUAL),
        ({24: 2, 7: 1, 6: 12}, {24: 2, 6: 13}, MUTUAL_TRAILING_ANCHOR, MUTUAL_ANCHOR),
        # a checker of the side on roll's on the bar: 127 pips against 108, and 109 against
        # 87 with an anchor each
        ({25: 1, 24: 1, 6: 13}, {24: 1, 6: 14}, MUTUAL_TRAILING_BAR, MUTUAL_BAR),
        ({25: 1, 24: 2, 3: 12}, {24: 2, 3: 13}, MUTUAL_TRAILING_ANCHOR_BAR, MUTUAL_ANCHOR_BAR),
    ):
        pos = make_position(mine, theirs)
        assert (net_class(pos), net_class(swap_sides(pos))) == (cls, swapped)
        below += [format_position_id(pos), format_position_id(swap_sides(pos))]
    holding = format_position_id(swap_sides(parse_position(CRASHED).position))
    for pid, w in (
        (CONTACT, 0.25),
        *((pid, 0.25) for pid in below),
        (RACE, 0.5),
        (CRASHED, 0.5),
        (holding, 0.5),
    ):
        assert one_ply_weight0(parse_position(pid).position) == w


@pytest.mark.parametrize("pid, dice, w", [(RACE, (6, 4), 0.5), (CRASHED, (4, 2), 0.5)])
def test_race_and_crashed_rankings_at_one_ply(an, race_net_only, pid, dice, w):
    state = replace(parse_position(pid), dice=dice)
    rows = an.rank_plays(state, dice, 1)
    _check_ranking(an, state, dice, rows, w, race_net_only)


HOME = {6: 5, 5: 5, 4: 5}  # fifteen checkers home: a row of the one-sided database
OUTSIDE = {8: 3, 6: 6, 5: 6}  # three outside: no row (neither a straggler nor few)


def test_races_where_only_the_side_on_roll_has_a_row_are_valued_at_0_ply():
    """In a race where the side on roll has a row of the one-sided database and the other
    side has none, a play's 1-ply value is its 0-ply value (weight 1); the other races keep
    the race weight."""
    from bgtui.engine import make_position

    for mine, theirs, w in (
        (HOME, OUTSIDE, 1.0),
        (OUTSIDE, HOME, 0.5),
        (HOME, HOME, 0.5),
        (OUTSIDE, OUTSIDE, 0.5),
    ):
        pos = make_position(mine, theirs)
        assert is_race(pos)
        assert one_ply_weight0(pos) == w, (mine, theirs)


def test_a_race_of_the_side_on_roll_home_ranks_at_1_ply_by_the_0_ply_values(an, race_net_only):
    from bgtui.engine import make_position

    state = replace(parse_position(format_position_id(make_position(HOME, OUTSIDE))), dice=(6, 5))
    rows = an.rank_plays(state, (6, 5), 1)
    _check_ranking(an, state, (6, 5), rows, 1.0, race_net_only)
