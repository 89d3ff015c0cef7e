"""The race side net: a race valued from each side's own distributions of rolls.

In a race the two sides never meet again, so each side's future is a one-player problem: how
many rolls it needs to bear off all its checkers, to take a first checker off, and to have no
checker left in the opponent's home board. Given those three distributions of both sides, the
race's win, gammon and backgammon chances follow by counting (:func:`_race5`), as the bear-off
databases' one-sided approximation counts them (``bearoff.one_sided_race_probs``). The side
net gives the distributions of a side no one-sided database row holds: one hidden layer of
tanh units over one side's checkers, three softmaxes of ``SIDE_BUCKETS`` buckets (0 to 31
rolls, the last one 31 or more), and a skip layer from the inputs straight to the softmaxes.

Inputs (``SIDE_INPUTS``, dense, as training encodes them with :func:`encode_sides`): for each
point 1..24 of the side, at least 1, 2, 3 checkers and half the checkers beyond 3 (four blocks
of 24); checkers off / 15; pips / 100; checkers outside the home board / 15; checkers on points
19..24 / 15; then three rough numbers of rolls, each spread over its two nearest buckets
(``SIDE_BUCKETS`` inputs each): pips / 8.17, (pips to bring every checker home) / 8.17 + 1
for a side of 15 checkers (else 0), and (pips to bring every checker below 19) / 8.17.

A :class:`~bgtui.engine.structs.SideNet` holds the first layer and the skip layer as one
table (:func:`make_side_net`): row ``(p - 1) * 16 + c`` the sum of a point's inputs' rows for
``c`` checkers on point ``p``, then the four scalars' rows, the buckets' rows and the biases,
each row ``H`` hidden pre-activations followed by the ``3 * SIDE_BUCKETS`` logits the skip
layer adds.
"""

import numpy as np

from bgtui.engine._jit import kernel
from bgtui.engine.bearoff import side_row
from bgtui.engine.nn import _activation
from bgtui.engine.structs import SideNet

SIDE_BUCKETS = 32
SIDE_HEADS = 3  #: rolls to bear off all, to a first checker off, to leave 19..24
SIDE_OUTPUTS = SIDE_HEADS * SIDE_BUCKETS
SIDE_INPUTS = 4 * 24 + 4 + SIDE_OUTPUTS
_SCALAR_ROW = 24 * 16  # off, pips, outside, back
_BUCKET_ROW = _SCALAR_ROW + 4
_BIAS_ROW = _BUCKET_ROW + SIDE_OUTPUTS
SIDE_ROWS = _BIAS_ROW + 1
_PIPS_A_ROLL = 8.17
_LAST = np.float64(SIDE_BUCKETS - 1.001)


def _soft_bucket(v):
    """(n, SIDE_BUCKETS): rough numbers of rolls ``v`` as weights on their two nearest buckets."""
    v = np.clip(v, 0.0, _LAST)
    out = np.zeros((len(v), SIDE_BUCKETS), dtype=np.float32)
    lo = np.floor(v).astype(np.int64)
    f = (v - lo).astype(np.float32)
    out[np.arange(len(v)), lo] = 1 - f
    out[np.arange(len(v)), lo + 1] = f
    return out


def encode_sides(sides):
    """float32[n, SIDE_INPUTS], the dense inputs of ``sides`` (int8[n, 25]: checkers on the
    side's points 1..24 at 1..24)."""
    c = np.asarray(sides)[:, 1:25].astype(np.float64)
    pts = np.arange(1, 25, dtype=np.float64)
    n = c.sum(axis=1)
    parts = [
        c >= 1,
        c >= 2,
        c >= 3,
        np.maximum(c - 3, 0) / 2,
        ((15 - n) / 15)[:, None],
        ((c * pts).sum(axis=1) / 100)[:, None],
        (c[:, 6:].sum(axis=1) / 15)[:, None],
        (c[:, 18:].sum(axis=1) / 15)[:, None],
        _soft_bucket((c * pts).sum(axis=1) / _PIPS_A_ROLL),
        _soft_bucket(
            np.where(n == 15, (c * np.maximum(pts - 6, 0)).sum(axis=1) / _PIPS_A_ROLL + 1, 0)
        ),
        _soft_bucket((c * np.maximum(pts - 18, 0)).sum(axis=1) / _PIPS_A_ROLL),
    ]
    return np.concatenate([np.asarray(p, dtype=np.float32) for p in parts], axis=1)


def make_side_net(w1, b1, w2, b2, skip) -> SideNet:
    """The :class:`SideNet` of dense weights: ``w1`` float32[SIDE_INPUTS, H], ``b1`` [H],
    ``w2`` [H, SIDE_OUTPUTS], ``b2`` [SIDE_OUTPUTS], ``skip`` [SIDE_INPUTS, SIDE_OUTPUTS]
    (rounded to float32 first: the same table whether they come from training or a file)."""
    w1, b1, w2, b2, skip = (
        np.ascontiguousarray(a, dtype=np.float32) for a in (w1, b1, w2, b2, skip)
    )
    w = np.concatenate([w1, skip], axis=1).astype(np.float64)
    h = w1.shape[1]
    tab = np.zeros((SIDE_ROWS, h + SIDE_OUTPUTS), dtype=np.float64)
    for p in range(24):
        for c in range(1, 16):
            x = (c >= 1, c >= 2, c >= 3, max(c - 3, 0) / 2)
            tab[p * 16 + c] = sum(x[k] * w[k * 24 + p] for k in range(4))
    tab[_SCALAR_ROW : _SCALAR_ROW + 4] = w[96:100]
    tab[_BUCKET_ROW:_BIAS_ROW] = w[100:]
    tab[_BIAS_ROW, :h] = b1
    tab[_BIAS_ROW, h:] = b2
    return SideNet(np.ascontiguousarray(tab, dtype=np.float32), w2, w1, b1, b2, skip)


def no_side_net() -> SideNet:
    """An empty :class:`SideNet`: the race net values the races."""
    z = np.zeros((0, SIDE_OUTPUTS), np.float32)
    e = np.zeros(0, np.float32)
    return SideNet(z, z, np.zeros((SIDE_INPUTS, 0), np.float32), e, e, z)


@kernel(inline="always")
def _add_row(u, tab, row, coef, width):
    for j in range(width):
        u[j] += coef * tab[row, j]


@kernel
def _side_dists(pos, side, net, u, out):
    """``out`` float32[SIDE_HEADS, SIDE_BUCKETS]: the distributions of one side of the race
    ``pos`` (``side`` 0: the player on roll; 1: the opponent) by the side net ``net``; ``u``
    float32[>= H + SIDE_OUTPUTS] scratch."""
    tab = net.tab
    hid = net.w2.shape[0]
    width = hid + SIDE_OUTPUTS
    for j in range(width):
        u[j] = tab[_BIAS_ROW, j]
    n = 0
    pips = 0
    home_pips = 0
    clear_pips = 0
    outside = 0
    back = 0
    for p in range(1, 25):
        c = pos[p] if side == 0 else -pos[25 - p]
        if c > 0:
            n += c
            pips += c * p
            if p > 6:
                outside += c
                home_pips += c * (p - 6)
            if p > 18:
                back += c
                clear_pips += c * (p - 18)
            _add_row(u, tab, (p - 1) * 16 + min(c, 15), np.float32(1.0), width)
    _add_row(u, tab, _SCALAR_ROW, np.float32((15 - n) / 15.0), width)
    _add_row(u, tab, _SCALAR_ROW + 1, np.float32(pips / 100.0), width)
    _add_row(u, tab, _SCALAR_ROW + 2, np.float32(outside / 15.0), width)
    _add_row(u, tab, _SCALAR_ROW + 3, np.float32(back / 15.0), width)
    for hd in range(SIDE_HEADS):
        if hd == 0:
            v = pips / _PIPS_A_ROLL
        elif hd == 1:
            v = home_pips / _PIPS_A_ROLL + 1.0 if n == 15 else 0.0
        else:
            v = clear_pips / _PIPS_A_ROLL
        v = min(max(v, 0.0), _LAST)
        lo = int(v)
        f = v - lo
        row = _BUCKET_ROW + hd * SIDE_BUCKETS + lo
        _add_row(u, tab, row, np.float32(1.0 - f), width)
        _add_row(u, tab, row + 1, np.float32(f), width)
    # tanh(x) = 2 sigmoid(2x) - 1
    two = np.float32(2.0)
    one = np.float32(1.0)
    for j in range(hid):
        u[j] = two * _activation(two * u[j]) - one
    w2 = net.w2
    for j in range(hid):
        a = u[j]
        for k in range(SIDE_OUTPUTS):
            u[hid + k] += a * w2[j, k]
    for hd in range(SIDE_HEADS):
        base = hid + hd * SIDE_BUCKETS
        m = u[base]
        for k in range(1, SIDE_BUCKETS):
            m = max(m, u[base + k])
        s = np.float32(0.0)
        for k in range(SIDE_BUCKETS):
            e = np.exp(u[base + k] - m)
            out[hd, k] = e
            s += e
        for k in range(SIDE_BUCKETS):
            out[hd, k] /= s


@kernel(inline="always")
def _row_dists(db, r, out):
    """``out`` (as :func:`_side_dists`) of row ``r`` of a one-sided database: its two
    distributions, and no checker in the opponent's home board (a row's side never has one
    there that could matter: its checkers there are at most six, and then nine are off)."""
    nb = db.shape[2]
    for hd in range(2):
        for k in range(SIDE_BUCKETS):
            out[hd, k] = db[r, hd, k] if k < nb else np.float32(0.0)
    for k in range(SIDE_BUCKETS):
        out[2, k] = np.float32(0.0)
    out[2, 0] = np.float32(1.0)


@kernel(inline="always")
def _race5(pa, pb, out5):
    """The five probabilities (player on roll) of a race of the sides' distributions ``pa``
    (on roll) and ``pb``. The side on roll, finishing on its roll ``a``, wins when the opponent
    needs ``a`` or more rolls (it has had ``a - 1``); a gammon when the opponent needs ``a`` or
    more to a first checker off, a backgammon when it needs ``a`` or more to leave the winner's
    home board; the opponent, finishing on its roll ``b``, when the player needs ``b + 1``."""
    win = 0.0
    wg = 0.0
    wb = 0.0
    lg = 0.0
    lb = 0.0
    tb0 = 1.0  # P(B_all >= a)
    tb1 = 1.0
    tb2 = 1.0
    ta1 = 1.0  # P(A_first >= a + 1) once a's term is taken off
    ta2 = 1.0
    for a in range(SIDE_BUCKETS):
        p = pa[0, a]
        win += p * tb0
        wg += p * tb1
        wb += p * tb2
        ta1 -= pa[1, a]
        ta2 -= pa[2, a]
        q = pb[0, a]
        lg += q * ta1
        lb += q * ta2
        tb0 -= pb[0, a]
        tb1 -= pb[1, a]
        tb2 -= pb[2, a]
    win = min(max(win, 0.0), 1.0)
    wg = min(max(wg, 0.0), win)
    wb = min(max(wb, 0.0), wg)
    lg = min(max(lg, 0.0), 1.0 - win)
    lb = min(max(lb, 0.0), lg)
    out5[0] = win
    out5[1] = wg
    out5[2] = wb
    out5[3] = lg
    out5[4] = lb


@kernel
def _side_race_probs(pos, net, one_sided, u, d, out5):
    """The five probabilities of the race ``pos`` (player on roll) by the one-sided formula
    (:func:`_race5`), each side's distributions from its row of the one-sided database
    ``one_sided`` (``bearoff.side_row``; size 0: none) or from the side net ``net``; ``u``, ``d``
    float32[>= H + SIDE_OUTPUTS] and float32[2, SIDE_HEADS, SIDE_BUCKETS] scratch."""
    nrows = one_sided.shape[0]
    for side in range(2):
        r = side_row(pos, side, nrows) if nrows > 0 else -1
        if r >= 0:
            _row_dists(one_sided, r, d[side])
        else:
            _side_dists(pos, side, net, u, d[side])
    _race5(d[0], d[1], out5)
