"""The evaluator's neural nets: one hidden layer of sigmoids, five sigmoid outputs.

A net is a tuple ``(W1 float32[NUM_INPUTS, H], b1 float32[H], W2 float32[5, H], b2 float32[5])``;
``nets`` is ``(contact_net, race_net)``. Outputs are the five cumulative probabilities of
conventions.md for the side on roll: win, win gammon, win backgammon, lose gammon,
lose backgammon (lose = 1 - win).
"""

import math

import numpy as np

from bgtui.engine._jit import kernel
from bgtui.engine.inputs import NUM_INPUTS

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


@kernel
def _sigmoid(z):
    if z < -40.0:
        return 0.0
    if z > 40.0:
        return 1.0
    return 1.0 / (1.0 + math.exp(-z))


@kernel
def _forward(x, w1, b1, w2, b2, h, out5):
    """Forward pass over the non-zero inputs of ``x``; fills ``h`` (hidden) and ``out5``."""
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
    for j in range(nh):
        h[j] = _sigmoid(h[j])
    for k in range(5):
        s = b2[k]
        for j in range(nh):
            s += w2[k, j] * h[j]
        out5[k] = _sigmoid(s)


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
