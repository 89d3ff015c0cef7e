"""The evaluator's neural nets: one hidden layer of sigmoids, five sigmoid outputs.

A net is a tuple ``(W1 float32[NUM_INPUTS, H], b1 float32[H], W2 float32[5, H], b2 float32[5])``;
``nets`` is ``(contact_net, race_net)``. Outputs are the five cumulative probabilities of
conventions.md for the side on roll: win, win gammon, win backgammon, lose gammon,
lose backgammon (lose = 1 - win).
"""

import numpy as np

from bgtui.engine._jit import kernel
from bgtui.engine.inputs import NUM_FEATURES, NUM_INPUTS, PER_SIDE, RAW_PER_SIDE
from bgtui.engine.position import checkers_off

CONTACT, RACE = 0, 1
NET_NAMES = ("contact", "race")


def init_net(hidden: int, seed: int, scale: float = 0.1):
    """Small random weights (uniform in +-scale) for a fresh net."""
    rng = np.random.default_rng(seed)
    w1 = rng.uniform(-scale, scale, size=(NUM_INPUTS, hidden)).astype(np.float32)
    b1 = np.zeros(hidden, dtype=np.float32)
    w2 = rng.uniform(-scale, scale, size=(5, hidden)).astype(np.float32)
    b2 = np.zeros(5, dtype=np.float32)
    return (w1, b1, w2, b2)


# The logistic function as 0.5 + 0.5 * tanh(z / 2), tanh by a rational function of odd degree
# 9 / even degree 8 fitted by bgtui (weighted least squares toward minimax on [0, 9], see
# benchmarks/sigmoid_fit.py), clamped at |z / 2| = 9 where tanh is 1 to 3e-8. Largest error
# against the exact logistic 1.7e-7 in float32 (tests/engine/test_nn_fast.py), and only
# multiplications, additions and one division: the hidden-layer loop vectorises (math.exp does
# not without Intel's SVML): 128 sigmoids take 0.05 us instead of 0.39 (benchmarks/sigmoid_fit.py).
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


@kernel
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


@kernel(fastmath=True)
def _sigmoid_inplace(h, n):
    """h[:n] = sigmoid(h[:n]) (vectorised)."""
    for j in range(n):
        y = min(max(h[j] * _HALF, -_CLAMP), _CLAMP)
        u = y * y
        p = (((_P4 * u + _P3) * u + _P2) * u + _P1) * u + _P0
        q = (((_Q4 * u + _Q3) * u + _Q2) * u + _Q1) * u + _ONE
        h[j] = min(max(_HALF + _HALF * (y * p / q), np.float32(0.0)), _ONE)


@kernel(fastmath=True)
def _finish(h, w2, b2, out5):
    """From the hidden pre-activations ``h`` (overwritten by activations) to the five outputs."""
    nh = w2.shape[1]  # the workspace ``h`` may be longer than this net's hidden layer
    _sigmoid_inplace(h, nh)
    for k in range(5):
        s = np.float32(0.0)
        for j in range(nh):
            s += w2[k, j] * h[j]
        out5[k] = _sigmoid(s + b2[k])


@kernel
def _forward(x, w1, b1, w2, b2, h, out5):
    """Forward pass over the non-zero inputs of ``x`` (dense inputs, as in training); fills
    ``h`` (hidden activations) and ``out5``."""
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
    _finish(h, w2, b2, out5)


@kernel
def _backward(x, w1, b1, w2, b2, h, out5, target5, alpha, dh):
    """One gradient step on squared error toward ``target5`` (after ``_forward`` on ``x``)."""
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
        dh[j] *= alpha * h[j] * (1.0 - h[j])
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


def make_tables(net):
    """float32[2 * 26 * 16, H]: the first-layer row of each (side, slot, count), at row
    ``(side * 26 + slot) * 16 + count`` (see :func:`_row`)."""
    w1 = np.asarray(net[0], dtype=np.float64)
    hidden = w1.shape[1]
    t = np.zeros((2, 26, TABLE_COUNTS, hidden), dtype=np.float64)
    for side in range(2):
        base = side * PER_SIDE
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
    return np.ascontiguousarray(t.reshape(2 * 26 * TABLE_COUNTS, hidden), dtype=np.float32)


@kernel
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


@kernel
def _add_rows(h, tab, plus, minus, nh):
    """h += tab[plus] - tab[minus] (either index may be -1: no row)."""
    if plus >= 0 and minus >= 0:
        for j in range(nh):
            h[j] += tab[plus, j] - tab[minus, j]
    elif plus >= 0:
        for j in range(nh):
            h[j] += tab[plus, j]
    elif minus >= 0:
        for j in range(nh):
            h[j] -= tab[minus, j]


@kernel
def _add_scaled(h, v, w1, r, nh):
    for j in range(nh):
        h[j] += v * w1[r, j]


@kernel
def _preact_tables(pos, tab, w1, b1, feats, h):
    """h = the first-layer pre-activation of ``pos`` (player on roll) from the tables and the
    features ``feats`` (float32[2 * NUM_FEATURES], from ``inputs._fill_features``)."""
    nh = b1.shape[0]
    for j in range(nh):
        h[j] = b1[j]
    for i in range(26):
        _add_rows(h, tab, _slot_row(pos, i), -1, nh)
    off0, off1 = checkers_off(pos)
    if off0 > 0:
        _add_rows(h, tab, _row(0, 0, off0), -1, nh)
    if off1 > 0:
        _add_rows(h, tab, _row(1, 0, off1), -1, nh)
    for k in range(2 * NUM_FEATURES):
        v = feats[k]
        if v != 0.0:
            _add_scaled(h, v, w1, _feature_input(k), nh)


@kernel
def _feature_input(k):
    """Index in the input vector of feature ``k`` of ``inputs._fill_features``' layout."""
    if k < NUM_FEATURES:
        return RAW_PER_SIDE + k
    return PER_SIDE + RAW_PER_SIDE + (k - NUM_FEATURES)


@kernel
def _preact_child(pos, parent, parent_h, tab, w1, feats, parent_feats, h):
    """h = the pre-activation of ``pos`` from its ``parent``'s (``parent_h``, features
    ``parent_feats``): the parent's plus the rows of the slots that differ."""
    nh = parent_h.shape[0]
    for j in range(nh):
        h[j] = parent_h[j]
    for i in range(26):
        if pos[i] != parent[i]:
            _add_rows(h, tab, _slot_row(pos, i), _slot_row(parent, i), nh)
    off0, off1 = checkers_off(pos)
    p0, p1 = checkers_off(parent)
    if off0 != p0:
        _add_rows(h, tab, _row(0, 0, off0) if off0 > 0 else -1, _row(0, 0, p0) if p0 > 0 else -1, nh)
    if off1 != p1:
        _add_rows(h, tab, _row(1, 0, off1) if off1 > 0 else -1, _row(1, 0, p1) if p1 > 0 else -1, nh)
    for k in range(2 * NUM_FEATURES):
        d = feats[k] - parent_feats[k]
        if d != 0.0:
            _add_scaled(h, d, w1, _feature_input(k), nh)
