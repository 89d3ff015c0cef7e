"""Cubeful n-ply lookahead for money play: the cube's value carried through the lookahead tree,
with each player's cube decision made at every node below the root, as GNU Backgammon
evaluates cube actions at n-ply (its "cubeful evaluation").

Janowski over n-ply *cubeless* probabilities (``cube.cube_equities`` of an n-ply average)
prices the cube from one averaged position: it cannot see that after some rolls the opponent
will have a take or a pass and after others not (market losers), nor that the values of the
rolls are non-linear in the winning chances. Here the tree is walked as in
``evaluate._eval_ply*`` (the play for each roll chosen at 0-ply, among the filter net's best
plays when the lookahead workspace prunes), but what goes up the tree is
the three cube-state equities (centred, owned by the player on roll, owned by his opponent; on
a 1-cube, for the player on roll):

* at a leaf (0-ply) Janowski's model of the leaf's 0-ply probabilities with the leaf's own cube
  efficiency (``cube.cube_equities``), or the exact values of the two-sided bear-off database;
* at an inner node the average over the 36 rolls of the children's values (seen from this
  side: centred stays centred, owned by the mover is owned by the opponent of the child's
  player on roll), a game won outright counting its points (single under the Jacoby rule with
  the cube centred);
* at every node below the root, leaves included, the cube decision of its player on roll
  wherever he has access: he doubles when min(double/take, double/pass) beats no double;
  double/take is twice the value with the opponent owning the cube (a beaver doubles it again
  when it is negative and the cube was centred). A leaf whose player is past his cash point
  is worth the cash to him, not Janowski's value of playing on;
* the root returns the no-double values (no decision: the caller compares no double with
  double/take = 2 x the opponent-owned value).

With ``ply`` 0 this is Janowski over the 0-ply probabilities, exactly ``cube.cube_equities``.

The cube arithmetic is in three small kernels that read a cube context ``ctx``
(``structs.CubeContext``: :func:`make_cube_context` for money, :func:`make_match_context` for
a match score):
:func:`leaf_values` (a leaf's values from its probabilities), :func:`win_values` (a game won
now) and :func:`cube_decision` (the player on roll's double / take / pass). The tree
(:func:`cubeful_no_double_ctx`) only averages and flips what they return, and is the same for
both:

* money: three values a node (the cube states), equities on a 1-cube, Janowski at the leaves;
* a match score: the three cube states at each of ``match.LEVELS`` cube levels (the cube
  ``cube * 2**k`` at index ``3 * k + state``), since a double changes what every later result
  is worth in MWC; each value is the MWC of the node's player on roll minus 1/2, so that, as for
  money, the opponent's value is the negation; the 0-ply match cube model
  (``match.match_cube_values``) at the leaves, the MET's MWC for games won, and at each level
  the double / take / pass of the match (no decision in the Crawford game).

Which side of the match a node's player is comes from the depth (``side`` 0: the root's player
on roll, 1: his opponent).
"""

import numpy as np

from bgtui.engine._jit import kernel
from bgtui.engine.bearoff import is_two_sided, two_sided_cubeful
from bgtui.engine.constants import ROLL_WEIGHTS, ROLLS
from bgtui.engine.cube import CENTRED, OPP_OWNED, OWNED, cube_efficiency, cube_equities
from bgtui.engine.evaluate import (
    MAX_PLY,
    _best_child_from,
    _evaluate0,
    _flip_into,
    _pruned_best,
)
from bgtui.engine.match import LEVELS, NV, POINT_ROWS, match_cube_values, mwc_after
from bgtui.engine.movegen import _generate_plays
from bgtui.engine.position import game_result, swap_sides_into
from bgtui.engine.structs import CubeContext, CubefulWorkspace

#: values a node carries: money (the three cube states), match play (``match.NV``)
MONEY_VALUES = 3
MATCH_VALUES = NV


@kernel(_nrt=True)
def make_cube_context(jacoby=True, beavers=True):
    """The money cube context (``structs.CubeContext``): the Jacoby rule and beavers allowed
    or not; its match fields unused, of the same types as :func:`make_match_context`'s."""
    return CubeContext(
        match=False,
        jacoby=bool(jacoby),
        beavers=bool(beavers),
        away=np.int64(0),
        opp_away=np.int64(0),
        cube=np.int64(1),
        crawford=False,
        met=np.zeros((1, 1), dtype=np.float64),
        points=np.zeros((2, POINT_ROWS), dtype=np.float64),
    )


def make_match_context(met, a: int, b: int, cube: int, crawford: bool) -> CubeContext:
    """The cube context of a match score: the root player on roll ``a``-away, his opponent
    ``b``-away, the cube ``cube``, the Crawford game or not; ``met`` the table
    (``bgtui.engine.match`` layout)."""
    return CubeContext(
        match=True,
        jacoby=False,
        beavers=False,
        away=int(a),
        opp_away=int(b),
        cube=int(cube),
        crawford=bool(crawford),
        met=np.ascontiguousarray(met, dtype=np.float64),
        points=np.zeros((2, POINT_ROWS), dtype=np.float64),
    )


def context_values(ctx: CubeContext) -> int:
    """Values a node carries in cube context ``ctx``."""
    return MATCH_VALUES if ctx.match else MONEY_VALUES


def make_cubeful_workspace(values: int = MONEY_VALUES) -> CubefulWorkspace:
    """The lookahead tree's scratch (``structs.CubefulWorkspace``) for nodes of ``values``
    values (:func:`context_values`)."""
    levels = MAX_PLY + 2
    return CubefulWorkspace(
        sums=np.zeros((levels, values), dtype=np.float64),
        child=np.zeros((levels, values), dtype=np.float64),
        next_roll=np.zeros(levels, dtype=np.int64),
    )


@kernel(inline="always")
def _nv(ctx):
    return MATCH_VALUES if ctx.match else MONEY_VALUES


@kernel(inline="always")
def _match(ctx, side):
    """(met, points needed by the player on roll of ``side``, by his opponent, the cube,
    the Crawford game) of a match context."""
    a = ctx.away
    b = ctx.opp_away
    if side != 0:
        a, b = b, a
    return ctx.met, a, b, ctx.cube, ctx.crawford


@kernel
def _exact(pos, two_cf):
    """True when the two-sided database's cubeful values apply to ``pos``."""
    return two_cf.shape[0] > 0 and is_two_sided(pos)


@kernel
def leaf_values(pos, p, ctx, side, out):
    """``out`` = the model's values of ``pos`` (its player on roll, of ``side``, before his
    cube decision) whose 0-ply probabilities are ``p``: money, Janowski with the position's
    cube efficiency; a match score, the match cube model with it."""
    if ctx.match:
        met, a, b, cube, crawford = _match(ctx, side)
        match_cube_values(p, met, a, b, cube, crawford, cube_efficiency(pos), ctx.points, out)
        for k in range(MATCH_VALUES):
            out[k] -= 0.5
    else:
        cube_equities(p, cube_efficiency(pos), ctx.jacoby, out)


@kernel
def win_values(r, ctx, side, out):
    """``out`` = the values of winning ``r`` points (1..3 times the cube) now for the player
    of ``side``, in every cube state (and level)."""
    if ctx.match:
        met, a, b, cube, crawford = _match(ctx, side)
        for k in range(LEVELS):
            m = mwc_after(met, a, b, r * (cube << k)) - 0.5
            for s in range(3):
                out[3 * k + s] = m
    else:
        out[CENTRED] = 1.0 if ctx.jacoby else r
        out[OWNED] = r
        out[OPP_OWNED] = r


@kernel
def cube_decision(nd, ctx, side, out):
    """``out`` = the values after the cube decision of the player on roll (of ``side``), from
    his no-double values ``nd`` (may be the same array). Money: double/take is twice the
    opponent-owned value (beavered when negative with the cube centred), double/pass +1. At
    a match score, at each cube level where he may double: double/take is the next level's
    value with the opponent owning the cube, double/pass the MWC of winning the cube now."""
    if ctx.match:
        for k in range(MATCH_VALUES):
            out[k] = nd[k]
        met, a, b, cube, crawford = _match(ctx, side)
        if crawford:
            return
        for k in range(LEVELS - 1):
            dp = mwc_after(met, a, b, cube << k) - 0.5
            d = min(out[3 * (k + 1) + OPP_OWNED], dp)
            if d > out[3 * k + CENTRED]:
                out[3 * k + CENTRED] = d
            if d > out[3 * k + OWNED]:
                out[3 * k + OWNED] = d
        return
    dt = 2.0 * nd[OPP_OWNED]
    dt_centred = 2.0 * dt if (ctx.beavers and dt < 0.0) else dt
    out[CENTRED] = max(nd[CENTRED], min(dt_centred, 1.0))
    out[OWNED] = max(nd[OWNED], min(dt, 1.0))
    out[OPP_OWNED] = nd[OPP_OWNED]


@kernel(inline="always")
def _add_child(acc, w, v, nv):
    """acc[:nv] += w * (the values ``v`` of the opponent on roll, seen from the mover): at
    each level, centred stays centred and the two owners change places."""
    for j in range(0, nv, 3):
        acc[j + CENTRED] -= w * v[j + CENTRED]
        acc[j + OWNED] -= w * v[j + OPP_OWNED]
        acc[j + OPP_OWNED] -= w * v[j + OWNED]


@kernel(inline="always")
def _add_win(acc, w, v, nv):
    """acc[:nv] += w * the values ``v`` of a win (the mover's)."""
    for k in range(nv):
        acc[k] += w * v[k]


@kernel
def _tree(pos, ply, ev, lws, cws, two_cf, ctx, out):
    """No-double values of ``pos`` at ``ply`` >= 1: the n-ply tree walked depth first with
    an explicit stack (level ``L``'s node is ``pos`` or the swapped child left in
    ``lws.swapped[L - 1]``; ``cws.sums[L]`` its sums, ``cws.child[L]`` its latest child's
    values, ``cws.next_roll[L]`` the index of its next roll). The node of level ``L`` belongs
    to side ``L % 2``."""
    mws = lws.moves
    ews = lws.eval
    ppos = lws.play_pos
    pmov = lws.play_moves
    sw = lws.swapped
    t5 = lws.probs5
    sums = cws.sums
    next_roll = cws.next_roll
    nv = _nv(ctx)
    level = 0
    for k in range(nv):
        sums[0, k] = 0.0
    next_roll[0] = 0
    ready = np.int64(0)  # ews holds the parent state of this level's node (roll after roll)
    while True:
        a = sums[level]
        i = next_roll[level]
        if i == 21:  # node done: its player's no-double values, then his decision
            if level == 0:
                for k in range(nv):
                    out[k] = a[k] / 36.0
                return
            v = cws.child[level - 1, :nv]
            for k in range(nv):
                v[k] = a[k] / 36.0
            cube_decision(v, ctx, level % 2, v)
            level -= 1
            _add_child(sums[level], ROLL_WEIGHTS[next_roll[level]], v, nv)
            next_roll[level] += 1
            ready = np.int64(0)
            continue
        w = ROLL_WEIGHTS[i]
        node = pos if level == 0 else sw[level - 1]
        if lws.prune[0] > 0:  # among the filter net's best plays (``evaluate._pruned_plays``)
            best, ready = _pruned_best(
                node, ROLLS[i, 0], ROLLS[i, 1], ev, lws, np.int64(level), t5[level], ready
            )
        else:
            n = _generate_plays(node, ROLLS[i, 0], ROLLS[i, 1], mws, ppos[level], pmov[level])
            best, ready = _best_child_from(node, n, ppos[level], ev, ews, t5[level], ready)
        played = ppos[level, best]
        v = cws.child[level, :nv]
        r = game_result(played)
        if r > 0:
            win_values(r, ctx, level % 2, v)
            _add_win(a, w, v, nv)
            next_roll[level] += 1
            continue
        child = sw[level]
        swap_sides_into(played, child)
        if _exact(child, two_cf):
            two_sided_cubeful(child, two_cf, v)  # exact values, after the child's decision
        elif level + 1 == ply:
            # a leaf: the best play's probabilities, seen by the child's player on roll
            p = t5[level + 1]
            _flip_into(t5[level], p)
            leaf_values(child, p, ctx, (level + 1) % 2, v)
            cube_decision(v, ctx, (level + 1) % 2, v)
        else:  # an inner node: walk its 21 rolls first
            level += 1
            for k in range(nv):
                sums[level, k] = 0.0
            next_roll[level] = 0
            ready = np.int64(0)
            continue
        _add_child(a, w, v, nv)
        next_roll[level] += 1


@kernel
def cubeful_no_double_ctx(pos, ply, ev, lws, cws, two_cf, ctx, out):
    """``out`` = the no-double values of ``pos`` (player on roll, before his cube decision and
    his roll) at ``ply`` (0..``MAX_PLY``) in cube context ``ctx``: money
    (:func:`make_cube_context`), the equities for the cube centred, owned by him, owned by the
    opponent, on a 1-cube; a match score (:func:`make_match_context`), those states' MWC minus
    1/2 at each cube level (:func:`match_no_double` gives the MWC). ``lws``:
    ``evaluate.make_lookahead_workspace``; ``cws``: :func:`make_cubeful_workspace` for the
    context's values; ``two_cf``: the two-sided database's cubeful values for money (float32 or
    float64[924, 924, 3]; size 0: not used)."""
    if ply <= 0:
        if _exact(pos, two_cf):
            two_sided_cubeful(pos, two_cf, out)
        else:
            t = lws.probs5[lws.probs5.shape[0] - 1]
            _evaluate0(pos, ev, lws.eval, t)
            leaf_values(pos, t, ctx, 0, out)
    else:
        _tree(pos, min(ply, MAX_PLY), ev, lws, cws, two_cf, ctx, out)


@kernel(_nrt=True)
def cubeful_no_double(pos, ply, ev, lws, cws, two_cf, jacoby, beavers, out3):
    """:func:`cubeful_no_double_ctx` in the money context (``jacoby``, ``beavers``)."""
    ctx = make_cube_context(jacoby, beavers)
    cubeful_no_double_ctx(pos, ply, ev, lws, cws, two_cf, ctx, out3)


@kernel(_nrt=True)
def match_no_double(pos, ply, ev, lws, cws, ctx, out):
    """``out[3 * k + s]`` (float64[``match.NV``]) = the no-double MWC of ``pos`` (player on roll,
    before his cube decision and his roll) at ``ply`` in the match context ``ctx``
    (:func:`make_match_context`), at cube ``cube * 2**k`` in cube state ``s``: the cube
    decisions of both players made at every node below the root, leaves included, the 0-ply
    match cube model (``match.match_cube_values``) valuing the leaves. ``cws``:
    ``make_cubeful_workspace(MATCH_VALUES)``."""
    no_database = np.zeros((0, 0, 3), dtype=np.float32)  # its values are money equities
    cubeful_no_double_ctx(pos, ply, ev, lws, cws, no_database, ctx, out)
    for k in range(MATCH_VALUES):
        out[k] += 0.5
