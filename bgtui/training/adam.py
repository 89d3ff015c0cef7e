"""Minibatch Adam for the evaluator's nets (numpy), the optimiser of ``bgtui train fit
--optimizer adam``.

The loss is the cross-entropy of each of the five sigmoid outputs against its target
probability, so the output error reaches the weights undamped (squared error multiplies it by
y(1 - y), which all but stops learning where an output is near 0 or 1, as gammon and
backgammon chances often are). On bgtui's 2.5 M-position training set of 1-ply targets this
fits the contact net to less than half the held-out squared error that per-position SGD
reached (docs/training.md has the figures).

The inputs of a training set are computed once (``training.kernels._fill_inputs_batch``) and kept
as a dense float32 matrix: 226 inputs x 4 bytes, about 0.9 GB a million positions.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bgtui.analysis.atomic import atomic_write
from bgtui.engine import QUADRATIC, SIGMOID, Net, as_net

BETA1 = 0.9
BETA2 = 0.999
EPS = 1e-8


def dense_inputs(positions: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """float32[len(idx), NUM_INPUTS]: the net inputs of ``positions[idx]``."""
    from bgtui.engine import NUM_INPUTS
    from bgtui.training.kernels import _fill_inputs_batch

    x = np.zeros((len(idx), NUM_INPUTS), dtype=np.float32)
    _fill_inputs_batch(positions, np.asarray(idx, dtype=np.int64), x)
    return x


def _sigmoid(z):
    # exp(-z) overflows to inf for z far below 0, and 1 / (1 + inf) is the right 0
    with np.errstate(over="ignore"):
        return 1.0 / (1.0 + np.exp(-z))


def _hidden(z, act):
    """The hidden layer's function (``Net.act``) of the pre-activations ``z``, as
    ``nn._finish`` computes it: sigmoids, or ``nn._quadratic``."""
    if act == QUADRATIC:
        y = np.clip(0.25 * z, -1.0, 1.0)
        return 0.5 + 0.5 * y * (2.0 - np.abs(y))
    return _sigmoid(z)


def hidden_slope(h, act):
    """The hidden function's slope where its values are ``h`` (``nn._slope``)."""
    if act == QUADRATIC:
        return 0.25 * np.sqrt(np.maximum(1.0 - np.abs(2.0 * h - 1.0), 0.0))
    return h * (1.0 - h)


def forward(net, x):
    """(hidden activations, outputs) of ``net`` (a ``Net``, or its four arrays for sigmoids)
    for the rows of ``x``."""
    w1, b1, w2, b2 = net[:4]
    h = _hidden(x @ w1 + b1, as_net(net).act).astype(w1.dtype, copy=False)
    return h, _sigmoid(h @ w2.T + b2)


def squared_error(net, x, t, chunk: int = 8192) -> float:
    """Summed squared error of the five outputs over the rows of ``x`` against ``t``."""
    se = 0.0
    for s in range(0, len(x), chunk):
        _, y = forward(net, x[s : s + chunk])
        se += float(((y - t[s : s + chunk]) ** 2).sum())
    return se


def sibling_residuals(y, t, groups):
    """For each row, its equity error (output equity minus target equity) less the mean error of
    its sibling group among these rows: what a decision between siblings sees of the error (an
    error common to all the plays of a roll changes no choice). Rows of group -1, and groups
    with one row here, get 0."""
    from bgtui.engine import EQUITY_COEF

    r = (y - t) @ EQUITY_COEF
    _, inv, cnt = np.unique(groups, return_inverse=True, return_counts=True)
    mean = np.bincount(inv, weights=r) / cnt
    rc = (r - mean[inv]).astype(y.dtype)
    rc[(groups < 0) | (cnt[inv] < 2)] = 0.0
    return rc


def gradients(net, x, t, groups=None, rank_weight: float = 0.0, fixed=None):
    """(gradients of the mean loss over the rows of ``x`` for w1, b1, w2, b2; summed squared
    error of the outputs). The loss is the cross-entropy of the five outputs and, with
    ``rank_weight`` > 0 and ``groups`` (the sibling group of each row, -1 for none), that
    weight times the squared sibling residual of each row (:func:`sibling_residuals`): the
    error in the equity differences between plays of one roll, the part of the error that
    changes which play is chosen. ``fixed`` (outputs, targets, groups) adds siblings valued
    elsewhere (by other nets): they join the groups' centring and the sibling term, without
    gradients of their own and without a row of the mean."""
    w1, b1, w2, b2 = net[:4]
    h, y = forward(net, x)
    d = y - t
    se = float((d * d).sum())
    if rank_weight > 0.0 and groups is not None:
        from bgtui.engine import EQUITY_COEF

        if fixed is None:
            rc = sibling_residuals(y, t, groups)
        else:
            fy, ft, fg = fixed
            both = sibling_residuals(
                np.concatenate([y, fy.astype(y.dtype)]),
                np.concatenate([t, ft.astype(t.dtype)]),
                np.concatenate([groups, fg]),
            )
            rc = both[: len(y)]
        # d(sum of rc^2)/d(output equity) = 2 rc (the group means' own terms sum to zero);
        # then through the equity's coefficients and the sigmoid to the output's input
        d += (2.0 * rank_weight) * rc[:, None] * EQUITY_COEF[None, :] * y * (1.0 - y)
    d *= np.asarray(1.0 / len(x), dtype=d.dtype)  # the loss's gradient at the output sums
    dh = (d @ w2) * hidden_slope(h, as_net(net).act)
    return (x.T @ dh, dh.sum(0), d.T @ h, d.sum(0)), se


@dataclass
class Moments:
    """Adam's state for one net, updated in place by :func:`adam_pass`: per parameter of the
    net (w1, b1, w2, b2) an array of its shape."""

    m: list  #: the first moments
    v: list  #: the second moments
    step: int = 0  #: the minibatch steps taken


def new_moments(net) -> Moments:
    """Adam's :class:`Moments` for ``net``: zero, zero, 0 steps."""
    return Moments([np.zeros_like(p) for p in net[:4]], [np.zeros_like(p) for p in net[:4]], 0)


def group_order(groups, rng):
    """A random order of the rows in which the rows of each sibling group (``groups`` >= 0)
    come together, so that a minibatch holds whole groups (but one at each of its ends);
    rows of group -1 each count as a group of their own."""
    key = np.asarray(groups, dtype=np.int64).copy()
    lone = key < 0
    key[lone] = key.max(initial=-1) + 1 + np.arange(int(lone.sum()))
    uniq, inv = np.unique(key, return_inverse=True)
    rank = rng.permutation(len(uniq))
    return np.argsort(rank[inv], kind="stable")


def fixed_siblings(fixed, groups):
    """The rows of ``fixed`` (outputs, targets, groups sorted ascending) whose group is one of
    ``groups`` (-1 excluded), as a ``fixed`` of :func:`gradients`."""
    fy, ft, fg = fixed
    ug = np.unique(groups[groups >= 0])
    lo = np.searchsorted(fg, ug, "left")
    n = np.searchsorted(fg, ug, "right") - lo
    rows = np.repeat(lo - np.cumsum(n) + n, n) + np.arange(n.sum())
    return fy[rows], ft[rows], fg[rows]


def adam_pass(
    net,
    moments,
    x,
    t,
    order,
    batch: int,
    lr: float,
    groups=None,
    rank_weight: float = 0.0,
    fixed=None,
    first_layer: bool = True,
) -> float:
    """One pass over the rows ``order`` of ``x`` / ``t`` in minibatches of ``batch`` (a last
    partial batch is skipped: the next pass's order covers those rows), updating ``net`` and
    its :class:`Moments` in place (without ``first_layer``, only the output layer: w1 and b1
    stay as they are). Returns the summed squared error seen in training.
    With ``rank_weight`` and ``groups``, the loss has the sibling term of :func:`gradients`
    (``order`` should then keep groups together: :func:`group_order`), over the batch's rows
    and the rows of ``fixed`` (outputs, targets, groups sorted ascending: siblings valued by
    other nets) in the batch's groups."""
    se = 0.0
    for s in range(0, len(order) - batch + 1, batch):
        rows = order[s : s + batch]
        g = None if groups is None else groups[rows]
        grads, e = gradients(
            net,
            x[rows],
            t[rows],
            g,
            rank_weight,
            None if fixed is None or g is None else fixed_siblings(fixed, g),
        )
        se += e
        step_net(net, moments, grads, lr, 0 if first_layer else 2)
    return se


def step_net(net, moments, grads, lr: float, first: int = 0) -> None:
    """One Adam step of size ``lr`` on ``net`` (in place) with gradients ``grads`` (w1, b1, w2,
    b2), updating its :class:`Moments`; the parameters before index ``first`` are left alone."""
    moments.step += 1
    c1 = 1.0 - BETA1**moments.step
    c2 = 1.0 - BETA2**moments.step
    for p, g, mm, vv in list(zip(net, grads, moments.m, moments.v))[first:]:
        mm *= BETA1
        mm += (1.0 - BETA1) * g
        vv *= BETA2
        vv += (1.0 - BETA2) * g * g
        p -= (lr / c1) * mm / (np.sqrt(vv / c2) + EPS)


def save_state(path, nets, moments, epochs_done: int) -> None:
    """Write the optimiser's whole state (nets, moments, passes done) atomically to ``path``:
    a fit resumed from it continues exactly as if it had not stopped."""
    arrays = {"epochs_done": np.array(epochs_done)}
    for k, (net, mom) in enumerate(zip(nets, moments)):
        arrays[f"step{k}"] = np.array(mom.step)
        arrays[f"act{k}"] = np.array(as_net(net).act)
        for j in range(4):
            arrays[f"net{k}_{j}"] = net[j]
            arrays[f"m{k}_{j}"] = mom.m[j]
            arrays[f"v{k}_{j}"] = mom.v[j]
    atomic_write(path, lambda f: np.savez(f, **arrays))


def load_state(path):
    """``(nets, moments, epochs_done)`` as written by :func:`save_state` (``moments``: a
    :class:`Moments` per net)."""
    with np.load(path) as z:
        nets, moments = [], []
        k = 0
        while f"net{k}_0" in z.files:
            act = int(z[f"act{k}"]) if f"act{k}" in z.files else SIGMOID
            nets.append(Net(*(z[f"net{k}_{j}"] for j in range(4)), act))
            moments.append(
                Moments(
                    m=[z[f"m{k}_{j}"] for j in range(4)],
                    v=[z[f"v{k}_{j}"] for j in range(4)],
                    step=int(z[f"step{k}"]),
                )
            )
            k += 1
        return tuple(nets), moments, int(z["epochs_done"])
