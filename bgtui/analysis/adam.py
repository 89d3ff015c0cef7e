"""Minibatch Adam for the evaluator's nets (numpy), the optimiser of ``bgtui train fit
--optimizer adam``.

The loss is the cross-entropy of each of the five sigmoid outputs against its target
probability, so the output error reaches the weights undamped (squared error multiplies it by
y(1 - y), which all but stops learning where an output is near 0 or 1, as gammon and
backgammon chances often are). On bgtui's 2.5 M-position training set of 1-ply targets this
fits the contact net to less than half the held-out squared error that per-position SGD
reached (see the README's training section for the figures).

The inputs of a training set are computed once (``engine.train._fill_inputs_batch``) and kept
as a dense float32 matrix: 226 inputs x 4 bytes, about 0.9 GB a million positions.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import numpy as np

BETA1 = 0.9
BETA2 = 0.999
EPS = 1e-8


def dense_inputs(positions: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """float32[len(idx), NUM_INPUTS]: the net inputs of ``positions[idx]``."""
    from bgtui.engine.inputs import NUM_INPUTS
    from bgtui.engine.train import _fill_inputs_batch

    x = np.zeros((len(idx), NUM_INPUTS), dtype=np.float32)
    _fill_inputs_batch(positions, np.asarray(idx, dtype=np.int64), x)
    return x


def _sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def forward(net, x):
    """(hidden activations, outputs) of ``net`` for the rows of ``x``."""
    w1, b1, w2, b2 = net
    h = _sigmoid(x @ w1 + b1)
    return h, _sigmoid(h @ w2.T + b2)


def squared_error(net, x, t, chunk: int = 8192) -> float:
    """Summed squared error of the five outputs over the rows of ``x`` against ``t``."""
    se = 0.0
    for s in range(0, len(x), chunk):
        _, y = forward(net, x[s:s + chunk])
        se += float(((y - t[s:s + chunk]) ** 2).sum())
    return se


def gradients(net, x, t):
    """(gradients of the mean cross-entropy loss over the rows of ``x`` for w1, b1, w2, b2;
    summed squared error of the outputs)."""
    w1, b1, w2, b2 = net
    h, y = forward(net, x)
    d = y - t
    se = float((d * d).sum())
    d *= np.asarray(1.0 / len(x), dtype=d.dtype)  # the loss's gradient at the output sums
    dh = (d @ w2) * h * (1.0 - h)
    return (x.T @ dh, dh.sum(0), d.T @ h, d.sum(0)), se


def new_moments(net):
    """``[first moments, second moments, steps]`` of Adam for ``net``: zero, zero, 0."""
    return [[np.zeros_like(p) for p in net], [np.zeros_like(p) for p in net], 0]


def adam_pass(net, moments, x, t, order, batch: int, lr: float) -> float:
    """One pass over the rows ``order`` of ``x`` / ``t`` in minibatches of ``batch`` (a last
    partial batch is skipped: the next pass's order covers those rows), updating ``net`` and
    ``moments`` (``new_moments``) in place. Returns the summed squared error seen in training."""
    m, v, step = moments
    se = 0.0
    for s in range(0, len(order) - batch + 1, batch):
        rows = order[s:s + batch]
        grads, e = gradients(net, x[rows], t[rows])
        se += e
        step += 1
        c1 = 1.0 - BETA1 ** step
        c2 = 1.0 - BETA2 ** step
        for p, g, mm, vv in zip(net, grads, m, v):
            mm *= BETA1
            mm += (1.0 - BETA1) * g
            vv *= BETA2
            vv += (1.0 - BETA2) * g * g
            p -= (lr / c1) * mm / (np.sqrt(vv / c2) + EPS)
    moments[2] = step
    return se


def save_state(path, nets, moments, epochs_done: int) -> None:
    """Write the optimiser's whole state (nets, moments, passes done) atomically to ``path``:
    a fit resumed from it continues exactly as if it had not stopped."""
    arrays = {"epochs_done": np.array(epochs_done)}
    for k, (net, (m, v, step)) in enumerate(zip(nets, moments)):
        arrays[f"step{k}"] = np.array(step)
        for j in range(4):
            arrays[f"net{k}_{j}"] = net[j]
            arrays[f"m{k}_{j}"] = m[j]
            arrays[f"v{k}_{j}"] = v[j]
    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    os.close(fd)
    try:
        with open(tmp, "wb") as f:
            np.savez(f, **arrays)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def load_state(path):
    """``(nets, moments, epochs_done)`` as written by :func:`save_state`."""
    with np.load(path) as z:
        nets, moments = [], []
        k = 0
        while f"net{k}_0" in z.files:
            nets.append(tuple(z[f"net{k}_{j}"] for j in range(4)))
            moments.append([[z[f"m{k}_{j}"] for j in range(4)],
                            [z[f"v{k}_{j}"] for j in range(4)], int(z[f"step{k}"])])
            k += 1
        return tuple(nets), moments, int(z["epochs_done"])
