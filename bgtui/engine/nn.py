"""The evaluator's neural nets: one hidden layer of sigmoids, five sigmoid outputs.

A net is a :class:`~bgtui.engine.structs.Net` ``(w1 float32[NUM_INPUTS, H], b1 float32[H],
w2 float32[5, H], b2 float32[5])``; ``nets`` is ``(contact_net, race_net, crashed_net,
early_net, holding_net, trailing_net, mutual_net, mutual_trailing_net, anchor_net,
mutual_anchor_net, trailing_anchor_net, mutual_trailing_anchor_net, early_trailing_net,
early_bar_net, early_trailing_bar_net, contact_bar_net, trailing_bar_net, mutual_bar_net,
mutual_trailing_bar_net, anchor_bar_net, mutual_anchor_bar_net, trailing_anchor_bar_net,
mutual_trailing_anchor_bar_net)``:
:func:`net_class` says which one values a position. Outputs are the five cumulative
probabilities of conventions.md for the side on roll: win, win gammon, win backgammon, lose
gammon, lose backgammon (lose = 1 - win).
"""

import numpy as np

from bgtui.engine._jit import kernel
from bgtui.engine.constants import EARLY_PIPS
from bgtui.engine.inputs import (
    NONLINEAR_FEATURES,
    NUM_FEATURES,
    NUM_INPUTS,
    NUM_NONLINEAR,
    PER_SIDE,
    RAW_PER_SIDE,
    _popcount,
)
from bgtui.engine.position import _side_totals, checkers_off, is_race
from bgtui.engine.structs import Net

(
    CONTACT,
    RACE,
    CRASHED,
    EARLY,
    HOLDING,
    TRAILING,
    MUTUAL,
    MUTUAL_TRAILING,
    ANCHOR,
    MUTUAL_ANCHOR,
    TRAILING_ANCHOR,
    MUTUAL_TRAILING_ANCHOR,
    EARLY_TRAILING,
    EARLY_BAR,
    EARLY_TRAILING_BAR,
    CONTACT_BAR,
    TRAILING_BAR,
    MUTUAL_BAR,
    MUTUAL_TRAILING_BAR,
    ANCHOR_BAR,
    MUTUAL_ANCHOR_BAR,
    TRAILING_ANCHOR_BAR,
    MUTUAL_TRAILING_ANCHOR_BAR,
) = range(23)
NET_NAMES = (
    "contact",
    "race",
    "crashed",
    "early",
    "holding",
    "trailing",
    "mutual",
    "mutual_trailing",
    "anchor",
    "mutual_anchor",
    "trailing_anchor",
    "mutual_trailing_anchor",
    "early_trailing",
    "early_bar",
    "early_trailing_bar",
    "contact_bar",
    "trailing_bar",
    "mutual_bar",
    "mutual_trailing_bar",
    "anchor_bar",
    "mutual_anchor_bar",
    "trailing_anchor_bar",
    "mutual_trailing_anchor_bar",
)
#: the classes valued by a contact net of a stage of the game (neither side has borne off)
CONTACT_CLASSES = (
    CONTACT,
    EARLY,
    TRAILING,
    MUTUAL,
    MUTUAL_TRAILING,
    ANCHOR,
    MUTUAL_ANCHOR,
    TRAILING_ANCHOR,
    MUTUAL_TRAILING_ANCHOR,
    EARLY_TRAILING,
    EARLY_BAR,
    EARLY_TRAILING_BAR,
    CONTACT_BAR,
    TRAILING_BAR,
    MUTUAL_BAR,
    MUTUAL_TRAILING_BAR,
    ANCHOR_BAR,
    MUTUAL_ANCHOR_BAR,
    TRAILING_ANCHOR_BAR,
    MUTUAL_TRAILING_ANCHOR_BAR,
)
#: the classes of contact once a side has borne off: the side on roll (``CRASHED``) or only
#: the other side (``HOLDING``)
CRASHED_CLASSES = (CRASHED, HOLDING)


@kernel(inline="always")
def contact_class(mine, theirs, my_pips, their_pips, mutual, anchor, bar):
    """The class of a position in contact with ``mine`` (the side on roll's) and ``theirs``
    checkers on the board, pip counts ``my_pips`` and ``their_pips`` (a checker on the bar
    counts 25), ``mutual`` (:func:`is_mutual`: both sides have a checker back), ``anchor``
    (:func:`has_anchor`: a side has an anchor in the other side's home board) and ``bar``
    (:func:`on_bar`: a checker is on either bar): ``CRASHED`` once the side on roll has borne
    off a checker, whatever the other side did; ``HOLDING`` once only the other side has
    (bear-offs against an anchor or a last blot, where a single contact net erred most: a
    third of its squared error on a sixth of the positions; a net for each side values
    held-out plays better than one); from ``EARLY_PIPS`` pips of both sides together up, by
    the race and ``bar``: where the side on roll is behind in the race (more pips than the
    other side) ``EARLY_TRAILING_BAR`` with a checker on a bar, else ``EARLY_TRAILING``;
    where he is not, ``EARLY_BAR`` with a checker on a bar, else ``EARLY``; below, by the
    race, ``mutual``, ``anchor`` and ``bar``: ``TRAILING`` where the side on roll is behind
    in the race, ``MUTUAL_TRAILING`` where he is behind and ``mutual``, ``MUTUAL`` where he
    is not behind and ``mutual``, otherwise ``CONTACT``; each of these four is its anchor
    class (``TRAILING_ANCHOR``, ``MUTUAL_TRAILING_ANCHOR``, ``MUTUAL_ANCHOR``, ``ANCHOR``)
    where ``anchor``, and each of those eight its bar class (``TRAILING_BAR``,
    ``MUTUAL_TRAILING_BAR``, ``MUTUAL_BAR``, ``CONTACT_BAR``, ``TRAILING_ANCHOR_BAR``,
    ``MUTUAL_TRAILING_ANCHOR_BAR``, ``MUTUAL_ANCHOR_BAR``, ``ANCHOR_BAR``) where ``bar``.
    Not symmetric: ``mine`` and ``my_pips`` are the side on roll's."""
    if mine < 15:
        return CRASHED
    if theirs < 15:
        return HOLDING
    if my_pips + their_pips >= EARLY_PIPS:
        if my_pips > their_pips:
            return EARLY_TRAILING_BAR if bar else EARLY_TRAILING
        return EARLY_BAR if bar else EARLY
    if my_pips > their_pips:
        if mutual:
            if anchor:
                return MUTUAL_TRAILING_ANCHOR_BAR if bar else MUTUAL_TRAILING_ANCHOR
            return MUTUAL_TRAILING_BAR if bar else MUTUAL_TRAILING
        if anchor:
            return TRAILING_ANCHOR_BAR if bar else TRAILING_ANCHOR
        return TRAILING_BAR if bar else TRAILING
    if mutual:
        if anchor:
            return MUTUAL_ANCHOR_BAR if bar else MUTUAL_ANCHOR
        return MUTUAL_BAR if bar else MUTUAL
    if anchor:
        return ANCHOR_BAR if bar else ANCHOR
    return CONTACT_BAR if bar else CONTACT


@kernel(inline="always")
def is_mutual(pos):
    """Whether both sides of ``pos`` have a checker back: the side on roll on his bar or in
    the other side's home board (slots 19..25 positive) and the other side on his bar or in
    the home board of the side on roll (slots 0..6 negative). Symmetric: the same seen from
    either side."""
    mine = False
    theirs = False
    for k in range(7):
        theirs |= pos[k] < 0
        mine |= pos[19 + k] > 0
    return mine and theirs


@kernel(inline="always")
def has_anchor(pos):
    """Whether a side of ``pos`` has an anchor: two checkers or more on one point of the other
    side's home board, the side on roll on slots 19..24 (``pos[k] >= 2``) or the other side
    on slots 1..6 (``pos[k] <= -2``); the bar (slots 0 and 25) never counts. Symmetric: the
    same seen from either side."""
    found = False
    for k in range(6):
        found |= pos[1 + k] <= -2
        found |= pos[19 + k] >= 2
    return found


@kernel(inline="always")
def on_bar(pos):
    """Whether a checker of ``pos`` is on either bar: the side on roll's (slot 25 positive)
    or the other side's (slot 0 negative). Symmetric: the same seen from either side."""
    return pos[25] > 0 or pos[0] < 0


@kernel
def net_class(pos):
    """Which net values ``pos``: ``RACE`` once contact is over, else :func:`contact_class`."""
    if is_race(pos):
        return RACE
    mine, theirs, my_pips, their_pips = _side_totals(pos)
    return contact_class(
        mine, theirs, my_pips, their_pips, is_mutual(pos), has_anchor(pos), on_bar(pos)
    )


def init_net(hidden: int, seed: int, scale: float = 0.1):
    """Small random weights (uniform in +-scale) for a fresh net."""
    rng = np.random.default_rng(seed)
    w1 = rng.uniform(-scale, scale, size=(NUM_INPUTS, hidden)).astype(np.float32)
    b1 = np.zeros(hidden, dtype=np.float32)
    w2 = rng.uniform(-scale, scale, size=(5, hidden)).astype(np.float32)
    b2 = np.zeros(5, dtype=np.float32)
    return Net(w1, b1, w2, b2)


# The logistic function as 0.5 + 0.5 * tanh(z / 2), tanh by a rational function of odd degree
# 9 / even degree 8 fitted by bgtui (weighted least squares toward minimax on [0, 9], see
# research/sigmoid_fit.py), clamped at |z / 2| = 9 where tanh is 1 to 3e-8. Largest error
# against the exact logistic 1.7e-7 in float32 (tests/engine/test_nn_fast.py), and only
# multiplications, additions and one division: the hidden-layer loop vectorises (math.exp does
# not without Intel's SVML; research/sigmoid_fit.py times both).
_P0 = np.float32(0.9999999839912259)
_P1 = np.float32(0.1341056918931287)
_P2 = np.float32(0.003530632030086544)
_P3 = np.float32(2.1183608025010142e-05)
_P4 = np.float32(1.4146179304541546e-08)
_Q1 = np.float32(0.46743892218530597)
_Q2 = np.float32(0.026010421846143293)
_Q3 = np.float32(0.00033428568084291116)
_Q4 = np.float32(8.101503881720708e-07)
_HALF = np.float32(0.5)
_ONE = np.float32(1.0)
_CLAMP = np.float32(9.0)


@kernel(inline="always")
def _sigmoid(z):
    y = np.float32(z) * _HALF
    if y > _CLAMP:
        y = _CLAMP
    elif y < -_CLAMP:
        y = -_CLAMP
    u = y * y
    p = (((_P4 * u + _P3) * u + _P2) * u + _P1) * u + _P0
    q = (((_Q4 * u + _Q3) * u + _Q2) * u + _Q1) * u + _ONE
    return min(max(_HALF + _HALF * (y * p / q), np.float32(0.0)), _ONE)


@kernel(inline="always")
def _activation(x):
    """The hidden layer's sigmoid of ``x`` (float32), branch-free so that loops over a layer
    vectorise: the same rational approximation as :func:`_sigmoid`."""
    y = min(max(x * _HALF, -_CLAMP), _CLAMP)
    u = y * y
    p = (((_P4 * u + _P3) * u + _P2) * u + _P1) * u + _P0
    q = (((_Q4 * u + _Q3) * u + _Q2) * u + _Q1) * u + _ONE
    return min(max(_HALF + _HALF * (y * p / q), np.float32(0.0)), _ONE)


#: a net's hidden layer (``Net.act``): sigmoids, or their piecewise quadratic approximation
#: (:func:`_quadratic`), whose layer costs about half the arithmetic
SIGMOID, QUADRATIC = 0, 1
ACTIVATIONS = ("sigmoid", "quadratic")
_QUARTER = np.float32(0.25)
_TWO = np.float32(2.0)


@kernel(inline="always")
def _quadratic(x):
    """The piecewise quadratic in place of a sigmoid of ``x`` (float32): 1/2 + y (2 - |y|) / 2
    with y = x / 4 clipped to [-1, 1]; slope 1/4 at 0 as the sigmoid's, 0 and 1 from |x| = 4
    on, within 0.022 of the sigmoid everywhere; no division, so that a layer costs about half a
    sigmoid layer's arithmetic."""
    y = min(max(x * _QUARTER, -_ONE), _ONE)
    return _HALF + _HALF * y * (_TWO - abs(y))


@kernel(fastmath=True)
def _sigmoid_inplace(h, n):
    """h[:n] = sigmoid(h[:n]) (vectorised)."""
    for j in range(n):
        h[j] = _activation(h[j])


@kernel(fastmath=True)
def _finish(h, w2, b2, out5, act):
    """From the hidden pre-activations ``h`` (overwritten by activations) to the five outputs,
    in one pass over the hidden layer (its function ``act``: ``SIGMOID`` or ``QUADRATIC``,
    then the five output sums)."""
    nh = w2.shape[1]  # the workspace ``h`` may be longer than this net's hidden layer
    s0 = np.float32(0.0)
    s1 = np.float32(0.0)
    s2 = np.float32(0.0)
    s3 = np.float32(0.0)
    s4 = np.float32(0.0)
    # one loop for each function, the test outside them, so that each loop vectorises
    if act == QUADRATIC:
        for j in range(nh):
            a = _quadratic(h[j])
            h[j] = a
            s0 += w2[0, j] * a
            s1 += w2[1, j] * a
            s2 += w2[2, j] * a
            s3 += w2[3, j] * a
            s4 += w2[4, j] * a
    else:
        for j in range(nh):
            a = _activation(h[j])
            h[j] = a
            s0 += w2[0, j] * a
            s1 += w2[1, j] * a
            s2 += w2[2, j] * a
            s3 += w2[3, j] * a
            s4 += w2[4, j] * a
    out5[0] = _sigmoid(s0 + b2[0])
    out5[1] = _sigmoid(s1 + b2[1])
    out5[2] = _sigmoid(s2 + b2[2])
    out5[3] = _sigmoid(s3 + b2[3])
    out5[4] = _sigmoid(s4 + b2[4])


@kernel
def _forward(x, w1, b1, w2, b2, h, out5, act=SIGMOID):
    """Forward pass over the non-zero inputs of ``x`` (dense inputs, as in training); fills
    ``h`` (hidden activations, the function ``act``) and ``out5``."""
    nh = b1.shape[0]
    for j in range(nh):
        h[j] = b1[j]
    for i in range(x.shape[0]):
        v = x[i]
        if v != 0.0:
            if v == 1.0:
                for j in range(nh):
                    h[j] += w1[i, j]
            else:
                for j in range(nh):
                    h[j] += v * w1[i, j]
    _finish(h, w2, b2, out5, act)


@kernel(inline="always")
def _slope(a, act):
    """The hidden function's slope where its value is ``a``: a (1 - a) for the sigmoid,
    (1 - |y|) / 4 = sqrt(1 - |2a - 1|) / 4 for :func:`_quadratic`."""
    if act == QUADRATIC:
        return 0.25 * np.sqrt(max(1.0 - abs(2.0 * a - 1.0), 0.0))
    return a * (1.0 - a)


@kernel
def _backward(x, w1, b1, w2, b2, h, out5, target5, alpha, dh, act=SIGMOID):
    """One gradient step on squared error toward ``target5`` (after ``_forward`` on ``x``; the
    hidden function ``act``)."""
    nh = b1.shape[0]
    for j in range(nh):
        dh[j] = 0.0
    for k in range(5):
        y = out5[k]
        d = (target5[k] - y) * y * (1.0 - y)
        if d == 0.0:
            continue
        for j in range(nh):
            dh[j] += d * w2[k, j]
        ad = alpha * d
        for j in range(nh):
            w2[k, j] += ad * h[j]
        b2[k] += ad
    for j in range(nh):
        dh[j] *= alpha * _slope(h[j], act)
        b1[j] += dh[j]
    for i in range(x.shape[0]):
        v = x[i]
        if v != 0.0:
            for j in range(nh):
                w1[i, j] += v * dh[j]


# --------------------------------------------------------------------------------------------
# Inference with first-layer tables. The raw inputs of a side depend only on (point, checker
# count), so their first-layer contribution is one precomputed row per (side, slot, count):
# slot 1..24 the points (the four thermometer inputs summed), 25 the bar, 0 borne-off checkers.
# A position's pre-activation is b1 + the rows of its occupied slots + features * their
# weights; a child position of a play differs from its parent in a few slots, so inside move
# selection it is the parent's pre-activation plus a few row differences.
# --------------------------------------------------------------------------------------------

TABLE_COUNTS = 16


def _linear_features(slot, n, race):
    """float64[NUM_FEATURES]: what ``n`` checkers of a side on ``slot`` (1..24 its points, 25
    its bar, 0 borne off) add to that side's features, for the features that are sums over the
    slots (all but ``inputs.NONLINEAR_FEATURES``; see ``inputs._side_features``). The pips
    also enter the other side's pip lead, with the opposite sign (the caller adds that)."""
    f = np.zeros(NUM_FEATURES)
    pips = 25 * n if slot == 25 else (n * slot if slot > 0 else 0)
    f[0] = pips / 100.0
    f[1] = -pips / 50.0
    if slot == 0:
        f[12] = (n / 15.0) ** 2
        return f
    if 1 <= slot <= 24:
        f[11] = max(n - 3, 0) / 10.0
    if race:
        return f
    if slot == 25:
        f[2] = n / 5.0
        f[13] = 1.0
        return f
    if slot >= 19:
        f[2] = n / 5.0
        f[3] = (n >= 2) / 2.0
    if slot <= 6:
        f[6] = (n >= 2) / 6.0
    if n == 1:
        f[9] = 1.0 / 4.0
    if 7 <= slot <= 18:
        f[10] = n / 15.0
    return f


def make_tables(net, race: bool = False):
    """float32[TABLE_ROWS, H]: the first-layer row of each (side, slot, count), at row
    ``(side * 26 + slot) * 16 + count`` (see :func:`_row`): the raw inputs of those checkers
    and, folded in, their share of every feature that is a sum over slots (the tables of the
    race net, ``race``, fold the race features). What remains for inference to add is the
    non-linear features (``inputs._fill_nonlinear``), whose first-layer weights follow at rows
    ``FEATURE_ROW + k``, then a row of zeros (``ZERO_ROW``). Between them, at ``DELTA_ROW + r``,
    each row ``r`` minus the row of one checker fewer on that slot: a play moves checkers one at
    a time, so a changed slot of a child usually costs one row, not two."""
    w1 = np.asarray(net[0], dtype=np.float64)
    hidden = w1.shape[1]
    t = np.zeros((2, 26, TABLE_COUNTS, hidden), dtype=np.float64)
    for side in range(2):
        base = side * PER_SIDE
        own = base + RAW_PER_SIDE
        other = (1 - side) * PER_SIDE + RAW_PER_SIDE
        for i in range(1, 25):
            o = base + 4 * (i - 1)
            for n in range(1, TABLE_COUNTS):
                row = w1[o].copy()
                if n >= 2:
                    row += w1[o + 1]
                if n >= 3:
                    row += w1[o + 2]
                if n > 3:
                    row += (n - 3) * 0.5 * w1[o + 3]
                t[side, i, n] = row
        for n in range(1, TABLE_COUNTS):
            t[side, 25, n] = n * 0.5 * w1[base + 96]
            t[side, 0, n] = n / 15.0 * w1[base + 97]
        for slot in range(26):
            for n in range(1, TABLE_COUNTS):
                f = _linear_features(slot, n, race)
                t[side, slot, n] += f @ w1[own : own + NUM_FEATURES]
                t[side, slot, n] -= f[1] * w1[other + 1]  # the other side's pip lead
    d = t.copy()
    d[:, :, 1:] -= t[:, :, :-1]  # count n's row minus count n - 1's (count 0 has no row)
    rows = np.concatenate(
        [
            t.reshape(DELTA_ROW, hidden),
            d.reshape(DELTA_ROW, hidden),
            w1[_FEATURE_INPUT],
            np.zeros((1, hidden)),
        ]
    )
    return aligned(rows)


def aligned(a, dtype=np.float32, align: int = 64):
    """A C-contiguous copy of ``a`` whose data starts on an ``align``-byte boundary (a cache
    line). numpy only promises 16 bytes, and a table row that starts mid-line splits each of
    its vector loads across two lines."""
    a = np.asarray(a, dtype=dtype)
    size = a.nbytes
    buf = np.empty(size + align, dtype=np.uint8)
    start = (-buf.ctypes.data) % align
    out = buf[start : start + size].view(dtype).reshape(a.shape)
    out[...] = a
    return out


@kernel(inline="always")
def _row(side, slot, count):
    return (side * 26 + slot) * TABLE_COUNTS + count


@kernel
def _slot_row(pos, i):
    """The table row of slot ``i`` of ``pos`` (-1: empty slot)."""
    v = pos[i]
    if v == 0:
        return -1
    if i == 25:
        return _row(0, 25, v)
    if i == 0:
        return _row(1, 25, -v)
    if v > 0:
        return _row(0, i, v)
    return _row(1, 25 - i, -v)


#: the input index of non-linear feature k of ``inputs._fill_nonlinear``'s layout
_FEATURE_INPUT = np.array(
    [
        side * PER_SIDE + RAW_PER_SIDE + NONLINEAR_FEATURES[k]
        for side in range(2)
        for k in range(NUM_NONLINEAR)
    ],
    dtype=np.int64,
)
#: rows of a table: (side, slot, count) rows, their differences, the non-linear features'
#: rows, a row of zeros (padding for :func:`_accumulate`)
DELTA_ROW = 2 * 26 * TABLE_COUNTS
FEATURE_ROW = 2 * DELTA_ROW
ZERO_ROW = FEATURE_ROW + 2 * NUM_NONLINEAR
TABLE_ROWS = ZERO_ROW + 1


#: most (row, coefficient) terms of one pre-activation: 26 slots and 2 borne-off counts, each
#: a row added and one taken away, and the features; plus room to pad to a multiple of four
MAX_TERMS = 2 * 28 + 2 * NUM_NONLINEAR + 4


def make_terms():
    """Scratch for the terms of a pre-activation: (row indices int64[MAX_TERMS], coefficients
    float32[MAX_TERMS])."""
    return np.zeros(MAX_TERMS, dtype=np.int64), np.zeros(MAX_TERMS, dtype=np.float32)


@kernel(inline="always")
def _terms4(idx, coef, g):
    """The four terms from ``g``: their rows ``idx[g:g+4]``, then their coefficients."""
    return (
        idx[g],
        idx[g + 1],
        idx[g + 2],
        idx[g + 3],
        coef[g],
        coef[g + 1],
        coef[g + 2],
        coef[g + 3],
    )


@kernel(fastmath=True)
def _accumulate(h, base, tab, idx, coef, n):
    """h[:nh] = base + the sum over k < n of coef[k] * tab[idx[k]] (nh = the table's width: the
    workspace's ``h`` and ``base`` may be longer than this net's hidden layer).

    Eight rows, then four, a pass over ``h`` (the last group padded with the zero row): a
    row at a time, every row loaded and stored all of ``h`` again, and the loads and stores,
    not the arithmetic, bound the speed. (The first pass reads ``base`` and writes ``h`` in
    a loop of its own: a loop whose source might be ``h`` itself is not vectorised.)"""
    nh = tab.shape[1]
    m = (n + 3) // 4 * 4
    for k in range(n, m):
        idx[k] = ZERO_ROW
        coef[k] = 0.0
    if m == 0:
        for j in range(nh):
            h[j] = base[j]
        return
    g = 0
    while g < m:
        i0, i1, i2, i3, c0, c1, c2, c3 = _terms4(idx, coef, g)
        if m - g >= 8:
            i4, i5, i6, i7, c4, c5, c6, c7 = _terms4(idx, coef, g + 4)
            if g == 0:
                for j in range(nh):
                    h[j] = base[j] + (
                        ((c0 * tab[i0, j] + c1 * tab[i1, j]) + (c2 * tab[i2, j] + c3 * tab[i3, j]))
                        + (
                            (c4 * tab[i4, j] + c5 * tab[i5, j])
                            + (c6 * tab[i6, j] + c7 * tab[i7, j])
                        )
                    )
            else:
                for j in range(nh):
                    h[j] += (
                        (c0 * tab[i0, j] + c1 * tab[i1, j]) + (c2 * tab[i2, j] + c3 * tab[i3, j])
                    ) + ((c4 * tab[i4, j] + c5 * tab[i5, j]) + (c6 * tab[i6, j] + c7 * tab[i7, j]))
            g += 8
        else:
            if g == 0:
                for j in range(nh):
                    h[j] = base[j] + (
                        (c0 * tab[i0, j] + c1 * tab[i1, j]) + (c2 * tab[i2, j] + c3 * tab[i3, j])
                    )
            else:
                for j in range(nh):
                    h[j] += (c0 * tab[i0, j] + c1 * tab[i1, j]) + (
                        c2 * tab[i2, j] + c3 * tab[i3, j]
                    )
            g += 4


@kernel(inline="always")
def _term(idx, coef, n, row, c):
    """Append the term ``c * tab[row]``; returns the new number of terms."""
    idx[n] = row
    coef[n] = c
    return n + 1


@kernel(inline="always")
def _slot_terms(idx, coef, n, side, slot, old, new):
    """The terms that take ``slot`` of ``side`` from ``old`` to ``new`` checkers (both >= 0,
    different): one difference row when they differ by one (a play moves one checker at a
    time), else the two rows."""
    if new == old + 1:
        return _term(idx, coef, n, DELTA_ROW + _row(side, slot, new), 1.0)
    if old == new + 1:
        return _term(idx, coef, n, DELTA_ROW + _row(side, slot, old), -1.0)
    if new > 0:
        n = _term(idx, coef, n, _row(side, slot, new), 1.0)
    if old > 0:
        n = _term(idx, coef, n, _row(side, slot, old), -1.0)
    return n


@kernel(inline="always")
def _point_terms(idx, coef, n, i, u, v):
    """The terms that take slot ``i`` of a position from ``u`` to ``v`` checkers (signed as in
    the position: positive the player's, negative the opponent's)."""
    if i == 25:  # the player's bar
        return _slot_terms(idx, coef, n, 0, 25, u, v)
    if i == 0:  # the opponent's bar
        return _slot_terms(idx, coef, n, 1, 25, -u, -v)
    if u >= 0 and v >= 0:
        return _slot_terms(idx, coef, n, 0, i, u, v)
    if u <= 0 and v <= 0:
        return _slot_terms(idx, coef, n, 1, 25 - i, -u, -v)
    if u > 0:  # a hit: the point changes hands
        n = _term(idx, coef, n, _row(0, i, u), -1.0)
        return _term(idx, coef, n, _row(1, 25 - i, -v), 1.0)
    n = _term(idx, coef, n, _row(1, 25 - i, -u), -1.0)
    return _term(idx, coef, n, _row(0, i, v), 1.0)


@kernel
def _preact_tables(pos, tab, b1, feats, h, idx, coef):
    """h = the first-layer pre-activation of ``pos`` (player on roll) from the tables and the
    non-linear features ``feats`` (float32[2 * NUM_NONLINEAR], ``inputs._fill_nonlinear``);
    ``idx``, ``coef``: scratch from :func:`make_terms`."""
    n = 0
    for i in range(26):
        r = _slot_row(pos, i)
        if r >= 0:
            n = _term(idx, coef, n, r, 1.0)
    off0, off1 = checkers_off(pos)
    if off0 > 0:
        n = _term(idx, coef, n, _row(0, 0, off0), 1.0)
    if off1 > 0:
        n = _term(idx, coef, n, _row(1, 0, off1), 1.0)
    for k in range(2 * NUM_NONLINEAR):
        if feats[k] != 0.0:
            n = _term(idx, coef, n, FEATURE_ROW + k, feats[k])
    _accumulate(h, b1, tab, idx, coef, n)


@kernel
def _preact_child(pos, parent, parent_h, tab, feats, parent_feats, h, idx, coef):
    """h = the pre-activation of ``pos`` from its ``parent``'s (``parent_h``, features
    ``parent_feats``): the parent's plus the rows of the slots that differ (found as a bit
    mask, without a branch per slot) and of the features that changed."""
    changed = np.int64(0)
    on0 = 0
    on1 = 0
    was0 = 0
    was1 = 0
    for i in range(26):
        v = np.int64(pos[i])
        u = np.int64(parent[i])
        changed |= np.int64(v != u) << i
        on0 += max(v, 0)
        on1 += max(-v, 0)
        was0 += max(u, 0)
        was1 += max(-u, 0)
    n = 0
    while changed != 0:
        low = changed & -changed
        changed ^= low
        i = _popcount(low - 1)
        n = _point_terms(idx, coef, n, i, parent[i], pos[i])
    _preact_rest(n, on0, on1, was0, was1, parent_h, tab, feats, parent_feats, h, idx, coef)


@kernel(inline="always")
def _preact_rest(n, on0, on1, was0, was1, parent_h, tab, feats, parent_feats, h, idx, coef):
    """:func:`_preact_child` after the ``n`` terms of the changed points: the borne-off
    checkers of each side (``on0``, ``on1`` checkers left on the board, the parent's ``was0``,
    ``was1``) and the features that changed, then the sum."""
    if on0 != was0:
        n = _slot_terms(idx, coef, n, 0, 0, 15 - was0, 15 - on0)
    if on1 != was1:
        n = _slot_terms(idx, coef, n, 1, 0, 15 - was1, 15 - on1)
    for k in range(2 * NUM_NONLINEAR):
        d = feats[k] - parent_feats[k]
        if d != 0.0:
            n = _term(idx, coef, n, FEATURE_ROW + k, d)
    _accumulate(h, parent_h, tab, idx, coef, n)
