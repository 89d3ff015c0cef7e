"""Match play kernels: match winning chances (MWC) from a match equity table and the match cube
model at 0-ply (the cubeful lookahead at a match score is ``cubeful``'s tree in a match
context, ``cubeful.make_match_context``).

``met`` is the table as float64[N + 1, N] (``bgtui.analysis.met``): rows 0..N-1 the
pre-Crawford table, ``met[i, j]`` the MWC of the side that needs ``i + 1`` points against one
that needs ``j + 1`` (row or column 0: the Crawford game), row N the post-Crawford table,
``met[N, j]`` the MWC of a trailer who needs ``j + 1`` points against a leader who needs one.
Scores are passed as "away" figures: ``a`` points still needed by the player on roll, ``b``
by the opponent (both between 1 and N). All MWC are the player on roll's.

The cube model is the one GNU Backgammon documents for match play: Janowski's interpolation
``x * live + (1 - x) * dead`` between a dead cube (the cubeless MWC at the cube's value) and a
fully live one, whose take and cash points are computed from the MET, recursively from the
highest cube level that can still matter (where both sides need no more than the cube) down
to the current one. At each level ``v`` (the gammon rates of the probabilities held fixed):

* the owner of a cube ``v`` who still needs more than ``v`` points can redouble; his value is
  linear in his winning chance between losing at ``v`` (gammons counted, p = 0) and cashing
  ``v`` at his cash point, then up to winning at ``v`` (p = 1); the cash point is where the
  opponent, owning ``2 v``, is indifferent between taking and passing;
* a player who needs no more than ``v`` cannot gain by redoubling: his cube is dead, his value
  the cubeless MWC at ``v``; this is how post-Crawford play and dead cubes come out.

In the Crawford game nobody may double: every value is the cubeless MWC.
"""

import numpy as np

from bgtui.engine._jit import kernel
from bgtui.engine.cube import CENTRED, OPP_OWNED, OWNED, cube_efficiency
from bgtui.engine.evaluate import MAX_PLY, _flip_into
from bgtui.engine.position import swap_sides_into
from bgtui.engine.structs import PlayScratch

#: cube levels carried through the lookahead: the values at cube ``cube * 2**k``,
#: k = 0 .. LEVELS - 1 (the root's no double at level 0, its double at level 1, and one more
#: level for each inner node that may double)
LEVELS = MAX_PLY + 2
#: values per node: (level, cube state) at index 3 * level + state
NV = 3 * LEVELS
#: length of the take / cash point scratch rows (levels of the recursion, plus one)
POINT_ROWS = 40


@kernel
def mwc_score(met, a, b, crawford):
    """MWC of the side ``a``-away against ``b``-away at the start of a game (1 when ``a`` <= 0,
    0 when ``b`` <= 0). ``crawford``: when one side is 1-away, whether this game is the
    Crawford game (else post-Crawford)."""
    if a <= 0:
        return 1.0
    if b <= 0:
        return 0.0
    n = met.shape[1]
    if a == 1 and b == 1:
        return 0.5
    if a == 1:
        return met[0, b - 1] if crawford else 1.0 - met[n, b - 1]
    if b == 1:
        return met[a - 1, 0] if crawford else met[n, a - 1]
    return met[a - 1, b - 1]


@kernel
def mwc_after(met, a, b, won):
    """MWC of the side on roll (``a``-away against ``b``-away) after this game ends with it
    winning ``won`` points (negative: losing ``-won``). The next game is the Crawford game when
    a side has just reached 1-away; once a side was 1-away before, the next is post-Crawford."""
    a2 = a
    b2 = b
    if won > 0:
        a2 = a - won
    else:
        b2 = b + won
    crawford = (a2 == 1 and a > 1) or (b2 == 1 and b > 1)
    return mwc_score(met, a2, b2, crawford)


@kernel
def mwc_coefficients(met, a, b, cube):
    """The cubeless MWC at cube value ``cube``, linear in the five probabilities ``p``, as
    ``c0 + c1 p0 + ... + c5 p4``: (c0, ..., c5) = (l1, w1 - l1, w2 - w1, w3 - w2, l2 - l1,
    l3 - l2), ``wk`` and ``lk`` the MWC after winning and after losing ``k`` times the cube."""
    w1 = mwc_after(met, a, b, cube)
    w2 = mwc_after(met, a, b, 2 * cube)
    w3 = mwc_after(met, a, b, 3 * cube)
    l1 = mwc_after(met, a, b, -cube)
    l2 = mwc_after(met, a, b, -2 * cube)
    l3 = mwc_after(met, a, b, -3 * cube)
    return l1, w1 - l1, w2 - w1, w3 - w2, l2 - l1, l3 - l2


@kernel(separate=True)
def cubeless_mwc(p, met, a, b, cube):
    """Cubeless MWC of the five probabilities ``p`` at cube value ``cube``: each outcome (single,
    gammon, backgammon won or lost) worth the MWC of the score it leads to (the value of
    :func:`mwc_coefficients`' linear form, summed outcome by outcome)."""
    lose = 1.0 - p[0]
    return (
        (p[0] - p[1]) * mwc_after(met, a, b, cube)
        + (p[1] - p[2]) * mwc_after(met, a, b, 2 * cube)
        + p[2] * mwc_after(met, a, b, 3 * cube)
        + (lose - p[3]) * mwc_after(met, a, b, -cube)
        + (p[3] - p[4]) * mwc_after(met, a, b, -2 * cube)
        + p[4] * mwc_after(met, a, b, -3 * cube)
    )


@kernel
def mwc_to_emg(mwc, met, a, b, cube):
    """EMG of ``mwc``: (2 MWC - (W + L)) / (W - L), W and L the MWC after winning and after
    losing a single game at ``cube``."""
    w = mwc_after(met, a, b, cube)
    l = mwc_after(met, a, b, -cube)
    return (2.0 * mwc - (w + l)) / (w - l)


@kernel
def emg_to_mwc(emg, met, a, b, cube):
    """The inverse of :func:`mwc_to_emg`."""
    w = mwc_after(met, a, b, cube)
    l = mwc_after(met, a, b, -cube)
    return 0.5 * (emg * (w - l) + w + l)


@kernel
def _win_lose(p, met, a, b, v):
    """(MWC after winning, after losing) this game at cube ``v``, gammons and backgammons at
    the rates of ``p`` (shares of the wins and of the losses)."""
    g = 0.0
    bg = 0.0
    if p[0] > 1e-9:
        g = (p[1] - p[2]) / p[0]
        bg = p[2] / p[0]
    lg = 0.0
    lbg = 0.0
    if p[0] < 1.0 - 1e-9:
        lg = (p[3] - p[4]) / (1.0 - p[0])
        lbg = p[4] / (1.0 - p[0])
    win = (
        (1.0 - g - bg) * mwc_after(met, a, b, v)
        + g * mwc_after(met, a, b, 2 * v)
        + bg * mwc_after(met, a, b, 3 * v)
    )
    lose = (
        (1.0 - lg - lbg) * mwc_after(met, a, b, -v)
        + lg * mwc_after(met, a, b, -2 * v)
        + lbg * mwc_after(met, a, b, -3 * v)
    )
    return win, lose


@kernel(separate=True)
def match_points(p, met, a, b, cube, tp, hi):
    """Take and cash points of the live-cube model at every cube level that can matter, as the
    winning chances of the player on roll, with the gammon rates of ``p``:

    * ``tp[j]``: his take point when doubled to ``cube * 2**j`` (he then owns it);
    * ``hi[j]``: his cash point for a double to ``cube * 2**j``: above it the opponent, who
      would own that cube, should pass.

    Levels past the highest that can matter hold ``tp`` -1 and ``hi`` 2 (no cash possible).
    Returns that highest level ``top`` (the smallest with ``cube * 2**top >= max(a, b)``)."""
    top = 0
    v = cube
    while v < a or v < b:
        v *= 2
        top += 1
    for j in range(top + 1, tp.shape[0]):
        tp[j] = -1.0
        hi[j] = 2.0
    tp[0] = -1.0
    hi[0] = 2.0
    for j in range(top, 0, -1):
        v = cube << j
        win, lose = _win_lose(p, met, a, b, v)
        half = v // 2
        # he takes v: passing instead loses half; he redoubles (if he still needs more than v)
        # when the opponent would have to pass 2v, i.e. above hi[j + 1]
        pass_me = mwc_after(met, a, b, -half)
        if a > v and hi[j + 1] < 1.0:
            cp = max(hi[j + 1], 0.0)
            cash = mwc_after(met, a, b, v)
            t = cp * (pass_me - lose) / (cash - lose)
        else:
            t = (pass_me - lose) / (win - lose)
        # he doubles to v: the opponent passes (he wins half) or takes and owns v, redoubling
        # below tp[j + 1] when he still needs more than v
        pass_opp = mwc_after(met, a, b, half)
        if b > v and tp[j + 1] > 0.0:
            ot = min(tp[j + 1], 1.0)
            ocash = mwc_after(met, a, b, -v)
            h = ot + (1.0 - ot) * (pass_opp - ocash) / (win - ocash)
        else:
            h = (pass_opp - lose) / (win - lose)
        tp[j] = t
        hi[j] = h
    return top


@kernel
def _through(pw, at, lo, mid, hi):
    """At winning chance ``pw``, the broken line through (0, ``lo``), (``at``, ``mid``) and
    (1, ``hi``): a live cube's value, ``at`` the point where the cube is turned and ``mid``
    the value there."""
    if pw < at:
        return lo + (mid - lo) * pw / at
    return mid + (hi - mid) * (pw - at) / (1.0 - at)


@kernel(separate=True)
def match_cube_values(p, met, a, b, cube, crawford, x, points, out):
    """``out[3 * k + s]``: the 0-ply model's cubeful MWC of the player on roll with
    probabilities ``p`` at cube ``cube * 2**k`` in cube state ``s`` (``cube.CENTRED``,
    ``OWNED`` by him, ``OPP_OWNED``), for k = 0 .. len(out) / 3 - 1; ``x`` the cube efficiency
    (Janowski), ``points`` scratch float64[2, POINT_ROWS]. In the Crawford game every value is
    the cubeless MWC."""
    nl = out.shape[0] // 3
    if crawford:
        for k in range(nl):
            d = cubeless_mwc(p, met, a, b, cube << k)
            for s in range(3):
                out[3 * k + s] = d
        return
    tp = points[0]
    hi = points[1]
    match_points(p, met, a, b, cube, tp, hi)
    pw = p[0]
    for k in range(nl):
        v = cube << k
        win, lose = _win_lose(p, met, a, b, v)
        dead = pw * win + (1.0 - pw) * lose
        cash = mwc_after(met, a, b, v)
        ocash = mwc_after(met, a, b, -v)
        mine = a > v and hi[k + 1] < 1.0
        cp = max(hi[k + 1], 1e-9)
        theirs = b > v and tp[k + 1] > 0.0
        otp = min(tp[k + 1], 1.0 - 1e-9)
        owned = _through(pw, cp, lose, cash, win) if mine else dead
        opp = _through(pw, otp, lose, ocash, win) if theirs else dead
        if mine and theirs:
            if otp >= cp:  # windows that cross (no doubling window): the two one-sided values
                centred = 0.5 * (owned + opp)
            elif pw <= otp:
                centred = opp
            elif pw >= cp:
                centred = owned
            else:
                centred = ocash + (cash - ocash) * (pw - otp) / (cp - otp)
        elif mine:
            centred = owned
        elif theirs:
            centred = opp
        else:
            centred = dead
        out[3 * k + CENTRED] = x * centred + (1.0 - x) * dead
        out[3 * k + OWNED] = x * owned + (1.0 - x) * dead
        out[3 * k + OPP_OWNED] = x * opp + (1.0 - x) * dead


@kernel
def play_values(probs, children, met, a, b, cube, crawford, opp_state, points, scratch, out):
    """MWC of the mover (``a``-away against ``b``-away, cube ``cube``) after each play:
    ``out[i, 0]`` cubeless, ``out[i, 1]`` cubeful (the 0-ply match cube model of the opponent,
    now on roll, with his cube decision where he has access: ``opp_state`` his cube state).
    ``probs[i]``: the mover's probabilities after play ``i``, ``children[i]`` its position
    (mover's view); ``scratch``: a :class:`PlayScratch` (:func:`make_play_scratch`)."""
    sw, q, v = scratch.swapped, scratch.probs5, scratch.values
    for i in range(children.shape[0]):
        p = probs[i]
        out[i, 0] = cubeless_mwc(p, met, a, b, cube)
        swap_sides_into(children[i], sw)
        _flip_into(p, q)
        match_cube_values(q, met, b, a, cube, crawford, cube_efficiency(sw), points, v)
        opp = v[opp_state]
        if not crawford and opp_state != OPP_OWNED:
            d = min(v[3 + OPP_OWNED], mwc_after(met, b, a, cube))
            if d > opp:
                opp = d
        out[i, 1] = 1.0 - opp


def make_play_scratch() -> PlayScratch:
    """Scratch for :func:`play_values` (:class:`PlayScratch`)."""
    return PlayScratch(
        swapped=np.zeros(26, dtype=np.int8),
        probs5=np.zeros(5, dtype=np.float64),
        values=np.zeros(6, dtype=np.float64),
    )
