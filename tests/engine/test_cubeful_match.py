"""The cubeful lookahead (``engine.cubeful``) in a match context: invariants the MET fixes
(double match point, the Crawford game) and a 1-ply tree recomputed in Python from the 0-ply
match cube model, the best 0-ply play of each roll and the players' cube decisions."""

from dataclasses import replace

import numpy as np
import pytest

from bgtui.analysis import match as MA
from bgtui.analysis.formats import parse_position
from bgtui.analysis.met import get_met
from bgtui.analysis.service import Analyzer
from bgtui.engine import match as M
from bgtui.engine.constants import ROLL_WEIGHTS, ROLLS
from bgtui.engine.cube import OPP_OWNED, OWNED, cube_efficiency
from bgtui.engine.evaluate import equity
from bgtui.engine.movegen import generate_plays
from bgtui.engine.position import game_result, swap_sides

CONTACT = "zGbiIQgxH/AAWA"
BLITZ = "4OfgBSBmrsQANA"
MET = get_met()


@pytest.fixture(scope="module")
def an():
    return Analyzer()


def at(pos, length, a, b, crawford=False, **kw):
    return replace(parse_position(pos), match_length=length, score=(a, b), crawford=crawford, **kw)


@pytest.mark.parametrize("ply", [1, 2])
def test_double_match_point_is_the_winning_chance(an, ply):
    """At double match point only winning counts and the cube is dead: every cubeful value,
    at every level and in every cube state, is the n-ply winning chance."""
    s = at(CONTACT, 7, 6, 6)
    v = MA.no_double_values(an, s, ply, MET)
    w = an.probabilities(s.position, ply)[0]
    assert np.allclose(v, w, atol=1e-6)


@pytest.mark.parametrize("ply", [1, 2])
def test_crawford_game_is_the_cubeless_mwc(an, ply):
    """Nobody doubles in the Crawford game: the lookahead's value is the cubeless MWC of the
    n-ply probabilities (the MWC is linear in them)."""
    s = at(BLITZ, 7, 3, 6, crawford=True)
    v = MA.no_double_values(an, s, ply, MET)
    want = MA.MatchView(s, MET).cubeless(an.probabilities(s.position, ply))
    assert np.allclose(v[:3], want, atol=1e-6)


def _model(p, board, a, b, cube):
    out = np.zeros(M.NV)
    M.match_cube_values(
        np.asarray(p, dtype=np.float64),
        MET.array,
        a,
        b,
        cube,
        False,
        float(cube_efficiency(np.ascontiguousarray(board, dtype=np.int8))),
        np.zeros((2, M.POINT_ROWS)),
        out,
    )
    return out


def _decide(v, a, b, cube):
    """The player on roll doubles at each level where min(double/take, double/pass) beats
    playing on."""
    v = v.copy()
    for k in range(M.LEVELS - 1):
        d = min(v[3 * (k + 1) + OPP_OWNED], MET.after(a, b, cube << k))
        for s in (0, OWNED):
            v[3 * k + s] = max(v[3 * k + s], d)
    return v


@pytest.mark.parametrize(
    "score,cube,owner", [((3, 5), 1, "centred"), ((5, 5), 1, "centred"), ((2, 4), 2, "player")]
)
def test_one_ply_is_the_average_of_the_decided_leaves(an, score, cube, owner):
    """1-ply by hand: for each of the 21 rolls the best play by 0-ply cubeless equity, then the
    opponent's 0-ply model values at every cube level after his cube decision, seen from the
    mover (his MWC is one minus the opponent's, the owners change places)."""
    s = at(BLITZ, 7, *score, cube_value=cube, cube_owner=owner)
    a, b = MA.away(s)
    acc = np.zeros(M.NV)
    for (d1, d2), w in zip(ROLLS, ROLL_WEIGHTS):
        children, _ = generate_plays(s.position, int(d1), int(d2))
        probs = [an._after_probs(c, 0) for c in children]
        best = int(np.argmax([equity(np.asarray(p, dtype=np.float32)) for p in probs]))
        child = np.asarray(children[best], dtype=np.int8)
        r = game_result(child)
        if r:
            acc += w * np.repeat([MET.after(a, b, r * (cube << k)) for k in range(M.LEVELS)], 3)
            continue
        p = np.asarray(probs[best], dtype=np.float64)
        q = np.array([1 - p[0], p[3], p[4], p[1], p[2]])
        v = _decide(_model(q, swap_sides(child), b, a, cube), b, a, cube)
        acc += w * (1.0 - v.reshape(-1, 3)[:, [0, 2, 1]].ravel())
    got = MA.no_double_values(an, s, 1, MET)
    assert np.allclose(got, acc / 36.0, atol=1e-6)
