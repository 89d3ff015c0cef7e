"""Cubeful n-ply lookahead for money play: the cube's value carried through the lookahead tree,
with each player's cube decision made at every inner node, as GNU Backgammon evaluates cube
actions at n-ply (its "cubeful evaluation").

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
  the cube centred); then the cube decision of the player on roll wherever he has access: he
  doubles when min(double/take, double/pass) beats no double; double/take is twice the value
  with the opponent owning the cube (a beaver doubles it again when it is negative and the cube
  was centred);
* the root returns the no-double values (no decision: the caller compares no double with
  double/take = 2 x the opponent-owned value).

With ``ply`` 0 this is Janowski over the 0-ply probabilities, exactly ``cube.cube_equities``.
"""

import numpy as np

from bgtui.engine._jit import kernel
from bgtui.engine.bearoff import is_two_sided, two_sided_cubeful
from bgtui.engine.cube import CENTRED, OPP_OWNED, OWNED, cube_efficiency, cube_equities
from bgtui.engine.evaluate import MAX_PLY, _best_child_from, _evaluate0, _flip_into, _roll_value
from bgtui.engine.movegen import _generate_plays
from bgtui.engine.position import game_result


def make_cubeful_workspace():
    """float64[levels, 6]: per lookahead level the three sums ([:3]) and a child's values
    ([3:])."""
    return np.zeros((MAX_PLY + 2, 6), dtype=np.float64)


@kernel
def _exact(pos, two_cf):
    """True when the two-sided database's cubeful values apply to ``pos``."""
    return two_cf.shape[0] > 0 and is_two_sided(pos)


@kernel
def _leaf_probs(pos, p, two_cf, jacoby, out3):
    """``out3`` = the leaf values of ``pos`` (player on roll) whose 0-ply probabilities are
    ``p``: exact where the two-sided database applies, else Janowski."""
    if _exact(pos, two_cf):
        two_sided_cubeful(pos, two_cf, out3)
    else:
        cube_equities(p, cube_efficiency(pos), jacoby, out3)


@kernel
def _leaf(pos, ev, lws, two_cf, jacoby, out3):
    t = lws[6][lws[6].shape[0] - 1]
    if not _exact(pos, two_cf):
        _evaluate0(pos, ev, lws[1], t)
    _leaf_probs(pos, t, two_cf, jacoby, out3)


@kernel
def _decide(nd3, beavers, out3):
    """``out3`` = the values after the cube decision of the player on roll, from his
    no-double values ``nd3`` (may be the same array)."""
    dt = 2.0 * nd3[OPP_OWNED]
    dt_centred = 2.0 * dt if (beavers and dt < 0.0) else dt
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
def _add_win(acc, w, r, jacoby):
    """acc[:3] += w * the value of winning ``r`` points (1..3) now."""
    acc[CENTRED] += w * (1.0 if jacoby else r)
    acc[OWNED] += w * r
    acc[OPP_OWNED] += w * r


@kernel
def _nd_ply1(pos, ev, lws, cws, level, two_cf, jacoby, out3):
    """No-double values of ``pos`` at 1-ply: each roll's 0-ply best play, its position
    valued as a leaf."""
    mws, ews, ppos, pmov, sw, acc, t5 = lws
    a = cws[level]
    for k in range(3):
        a[k] = 0.0
    v = a[3:]
    ready = np.int64(0)
    for d1 in range(1, 7):
        for d2 in range(1, d1 + 1):
            w = 1.0 if d1 == d2 else 2.0
            n = _generate_plays(pos, d1, d2, mws, ppos[level], pmov[level])
            best, ready = _best_child_from(pos, n, ppos[level], ev, ews, t5[level], ready)
            child = ppos[level, best]
            r = game_result(child)
            if r > 0:
                _add_win(a, w, r, jacoby)
                continue
            s = sw[level]
            for i in range(26):
                s[i] = -child[25 - i]
            # the leaf's probabilities for its player on roll: the best play's, flipped
            p = t5[level + 1]
            _flip_into(t5[level], p)
            _leaf_probs(s, p, two_cf, jacoby, v)
            _add_child(a, w, v)
    for k in range(3):
        out3[k] = a[k] / 36.0


@kernel
def _nd_ply2(pos, ev, lws, cws, level, two_cf, jacoby, beavers, out3):
    mws, ews, ppos, pmov, sw, acc, t5 = lws
    a = cws[level]
    for k in range(3):
        a[k] = 0.0
    v = a[3:]
    for d1 in range(1, 7):
        for d2 in range(1, d1 + 1):
            w = 1.0 if d1 == d2 else 2.0
            r = _roll_value(pos, d1, d2, ev, lws, level, t5[level])
            if r > 0:
                _add_win(a, w, r, jacoby)
                continue
            s = sw[level]
            if _exact(s, two_cf):
                two_sided_cubeful(s, two_cf, v)
            else:
                _nd_ply1(s, ev, lws, cws, level + 1, two_cf, jacoby, v)
                _decide(v, beavers, v)
            _add_child(a, w, v)
    for k in range(3):
        out3[k] = a[k] / 36.0


@kernel
def _nd_ply3(pos, ev, lws, cws, level, two_cf, jacoby, beavers, out3):
    mws, ews, ppos, pmov, sw, acc, t5 = lws
    a = cws[level]
    for k in range(3):
        a[k] = 0.0
    v = a[3:]
    for d1 in range(1, 7):
        for d2 in range(1, d1 + 1):
            w = 1.0 if d1 == d2 else 2.0
            r = _roll_value(pos, d1, d2, ev, lws, level, t5[level])
            if r > 0:
                _add_win(a, w, r, jacoby)
                continue
            s = sw[level]
            if _exact(s, two_cf):
                two_sided_cubeful(s, two_cf, v)
            else:
                _nd_ply2(s, ev, lws, cws, level + 1, two_cf, jacoby, beavers, v)
                _decide(v, beavers, v)
            _add_child(a, w, v)
    for k in range(3):
        out3[k] = a[k] / 36.0


@kernel
def cubeful_no_double(pos, ply, ev, lws, cws, two_cf, jacoby, beavers, out3):
    """``out3`` = the no-double money equities of ``pos`` (player on roll, before his cube
    decision and his roll) at ``ply`` (0..3) for the cube centred, owned by him, owned by the
    opponent, on a 1-cube. ``lws``: ``evaluate.make_lookahead_workspace``; ``cws``:
    :func:`make_cubeful_workspace`; ``two_cf``: the two-sided database's cubeful values
    (float32 or float64[924, 924, 3]; size 0: not used)."""
    if ply <= 0:
        _leaf(pos, ev, lws, two_cf, jacoby, out3)
    elif ply == 1:
        _nd_ply1(pos, ev, lws, cws, 0, two_cf, jacoby, out3)
    elif ply == 2:
        _nd_ply2(pos, ev, lws, cws, 0, two_cf, jacoby, beavers, out3)
    else:
        _nd_ply3(pos, ev, lws, cws, 0, two_cf, jacoby, beavers, out3)
