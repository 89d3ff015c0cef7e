"""Cubeful n-ply lookahead for money play: the cube's value carried through the lookahead tree,
with each player's cube decision made at every node below the root, as GNU Backgammon
evaluates cube actions at n-ply (its "cubeful evaluation").

Janowski over n-ply *cubeless* probabilities (``cube.cube_equities`` of an n-ply average)
prices the cube from one averaged position: it cannot see that after some rolls the opponent
will have a take or a pass and after others not (market losers), nor that the values of the
rolls are non-linear in the winning chances. Here the tree is walked as in
``evaluate._eval_ply*`` (the play for each roll chosen at 0-ply), but what goes up the tree is
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
(float64[``CTX_SIZE``], :func:`make_cube_context`): :func:`leaf_values` (a leaf's values from
its probabilities), :func:`win_values` (a game won now) and :func:`cube_decision` (the player
on roll's double / take / pass). The tree (:func:`cubeful_no_double_ctx`) only averages and
flips what they return, so another cube model (match play: a context holding the cube value,
its owner and the match equities) plugs in by giving these three its own meaning.
"""

import numpy as np

from bgtui.engine._jit import kernel
from bgtui.engine.bearoff import is_two_sided, two_sided_cubeful
from bgtui.engine.constants import ROLL_WEIGHTS, ROLLS
from bgtui.engine.cube import CENTRED, OPP_OWNED, OWNED, cube_efficiency, cube_equities
from bgtui.engine.evaluate import MAX_PLY, _best_child_from, _evaluate0, _flip_into
from bgtui.engine.movegen import _generate_plays
from bgtui.engine.position import game_result

#: cube context layout: Jacoby rule (1.0 / 0.0), beavers allowed (1.0 / 0.0)
CTX_JACOBY, CTX_BEAVERS = 0, 1
CTX_SIZE = 2


def make_cube_context(jacoby: bool = True, beavers: bool = True) -> np.ndarray:
    """float64[CTX_SIZE]: the money cube context (Jacoby rule, beavers)."""
    ctx = np.zeros(CTX_SIZE, dtype=np.float64)
    ctx[CTX_JACOBY] = 1.0 if jacoby else 0.0
    ctx[CTX_BEAVERS] = 1.0 if beavers else 0.0
    return ctx


def make_cubeful_workspace():
    """float64[levels, 7]: per lookahead level the three sums ([:3]), a child's values
    ([3:6]) and the next of the node's 21 rolls ([6])."""
    return np.zeros((MAX_PLY + 2, 7), dtype=np.float64)


@kernel
def _exact(pos, two_cf):
    """True when the two-sided database's cubeful values apply to ``pos``."""
    return two_cf.shape[0] > 0 and is_two_sided(pos)


@kernel
def leaf_values(pos, p, ctx, out3):
    """``out3`` = the model's values of ``pos`` (player on roll, before his cube decision)
    whose 0-ply probabilities are ``p``: Janowski with the position's cube efficiency."""
    cube_equities(p, cube_efficiency(pos), ctx[CTX_JACOBY] != 0.0, out3)


@kernel
def win_values(r, ctx, out3):
    """``out3`` = the values of winning ``r`` points (1..3) now, in the three cube states."""
    out3[CENTRED] = 1.0 if ctx[CTX_JACOBY] != 0.0 else r
    out3[OWNED] = r
    out3[OPP_OWNED] = r


@kernel
def cube_decision(nd3, ctx, out3):
    """``out3`` = the values after the cube decision of the player on roll, from his
    no-double values ``nd3`` (may be the same array)."""
    dt = 2.0 * nd3[OPP_OWNED]
    dt_centred = 2.0 * dt if (ctx[CTX_BEAVERS] != 0.0 and dt < 0.0) else dt
    out3[CENTRED] = max(nd3[CENTRED], min(dt_centred, 1.0))
    out3[OWNED] = max(nd3[OWNED], min(dt, 1.0))
    out3[OPP_OWNED] = nd3[OPP_OWNED]


@kernel(inline="always")
def _add_child(acc, w, v):
    """acc[:3] += w * (the values ``v`` of the opponent on roll, seen from the mover)."""
    acc[CENTRED] -= w * v[CENTRED]
    acc[OWNED] -= w * v[OPP_OWNED]
    acc[OPP_OWNED] -= w * v[OWNED]


@kernel(inline="always")
def _add_win(acc, w, v):
    """acc[:3] += w * the values ``v`` of a win (the mover's)."""
    for k in range(3):
        acc[k] += w * v[k]


@kernel
def _tree(pos, ply, ev, lws, cws, two_cf, ctx, out3):
    """No-double values of ``pos`` at ``ply`` >= 1: the n-ply tree walked depth first with
    an explicit stack (level ``L``'s node is ``pos`` or the swapped child left in
    ``lws[4][L - 1]``; ``cws[L]`` its sums, its latest child's values and the index of its
    next roll)."""
    mws, ews, ppos, pmov, sw, acc, t5 = lws
    level = 0
    for k in range(3):
        cws[0, k] = 0.0
    cws[0, 6] = 0.0
    ready = np.int64(0)  # ews holds the parent state of this level's node (roll after roll)
    while True:
        a = cws[level]
        i = np.int64(a[6])
        if i == 21:  # node done: its player's no-double values, then his decision
            if level == 0:
                for k in range(3):
                    out3[k] = a[k] / 36.0
                return
            up = cws[level - 1]
            v = up[3:]
            for k in range(3):
                v[k] = a[k] / 36.0
            cube_decision(v, ctx, v)
            level -= 1
            _add_child(up, ROLL_WEIGHTS[np.int64(up[6])], v)
            up[6] += 1.0
            ready = np.int64(0)
            continue
        w = ROLL_WEIGHTS[i]
        node = pos if level == 0 else sw[level - 1]
        n = _generate_plays(node, ROLLS[i, 0], ROLLS[i, 1], mws, ppos[level], pmov[level])
        best, ready = _best_child_from(node, n, ppos[level], ev, ews, t5[level], ready)
        played = ppos[level, best]
        v = a[3:]
        r = game_result(played)
        if r > 0:
            win_values(r, ctx, v)
            _add_win(a, w, v)
            a[6] += 1.0
            continue
        child = sw[level]
        for j in range(26):
            child[j] = -played[25 - j]
        if _exact(child, two_cf):
            two_sided_cubeful(child, two_cf, v)  # exact values, after the child's decision
        elif level + 1 == ply:
            # a leaf: the best play's probabilities, seen by the child's player on roll
            p = t5[level + 1]
            _flip_into(t5[level], p)
            leaf_values(child, p, ctx, v)
            cube_decision(v, ctx, v)
        else:  # an inner node: walk its 21 rolls first
            level += 1
            for k in range(3):
                cws[level, k] = 0.0
            cws[level, 6] = 0.0
            ready = np.int64(0)
            continue
        _add_child(a, w, v)
        a[6] += 1.0


@kernel
def cubeful_no_double_ctx(pos, ply, ev, lws, cws, two_cf, ctx, out3):
    """``out3`` = the no-double equities of ``pos`` (player on roll, before his cube decision
    and his roll) at ``ply`` (0..``MAX_PLY``) for the cube centred, owned by him, owned by
    the opponent, on a 1-cube, in cube context ``ctx`` (:func:`make_cube_context`).
    ``lws``: ``evaluate.make_lookahead_workspace``; ``cws``: :func:`make_cubeful_workspace`;
    ``two_cf``: the two-sided database's cubeful values (float32 or float64[924, 924, 3];
    size 0: not used)."""
    if ply <= 0:
        if _exact(pos, two_cf):
            two_sided_cubeful(pos, two_cf, out3)
        else:
            t = lws[6][lws[6].shape[0] - 1]
            _evaluate0(pos, ev, lws[1], t)
            leaf_values(pos, t, ctx, out3)
    else:
        _tree(pos, min(ply, MAX_PLY), ev, lws, cws, two_cf, ctx, out3)


@kernel(_nrt=True)
def cubeful_no_double(pos, ply, ev, lws, cws, two_cf, jacoby, beavers, out3):
    """:func:`cubeful_no_double_ctx` in the money context (``jacoby``, ``beavers``)."""
    ctx = np.zeros(CTX_SIZE, dtype=np.float64)
    ctx[CTX_JACOBY] = 1.0 if jacoby else 0.0
    ctx[CTX_BEAVERS] = 1.0 if beavers else 0.0
    cubeful_no_double_ctx(pos, ply, ev, lws, cws, two_cf, ctx, out3)
