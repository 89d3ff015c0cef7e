"""The race side net: a race valued from each side's own distributions of rolls.

In a race the two sides never meet again, so each side's future is a one-player problem: how
many rolls it needs to bear off all its checkers, to take a first checker off, and to have no
checker left in the opponent's home board. Given those three distributions of both sides, the
race's win, gammon and backgammon chances follow by counting (:func:`_race5`), as the bear-off
databases' one-sided approximation counts them (``bearoff.one_sided_race_probs``). The side
net gives the distributions of a side no one-sided database row holds: one hidden layer of
tanh units over one side's checkers, three softmaxes of ``SIDE_BUCKETS`` buckets (0 to 31
rolls, the last one 31 or more), and a skip layer from the inputs straight to the softmaxes.
A side with a checker off needs 0 rolls to a first checker off, and one with none on 19..24
needs 0 to leave them: those heads are fixed, not the net's (:func:`fixed_heads`).

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

import math
import secrets

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


def fixed_heads(sides):
    """bool[n, SIDE_HEADS]: the heads of ``sides`` (as :func:`encode_sides` takes them) whose
    distribution is 0 rolls for certain (a checker off: head 1; none on 19..24: head 2)."""
    c = np.asarray(sides)[:, 1:25].astype(np.int64)
    out = np.zeros((len(c), SIDE_HEADS), dtype=bool)
    out[:, 1] = c.sum(axis=1) < 15
    out[:, 2] = c[:, 18:].sum(axis=1) == 0
    return out


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
    ident = np.array([secrets.randbits(62) + 1], dtype=np.int64)
    return SideNet(np.ascontiguousarray(tab, dtype=np.float32), w2, w1, b1, b2, skip, ident)


def no_side_net() -> SideNet:
    """An empty :class:`SideNet`: the race net values the races."""
    z = np.zeros((0, SIDE_OUTPUTS), np.float32)
    e = np.zeros(0, np.float32)
    return SideNet(z, z, np.zeros((SIDE_INPUTS, 0), np.float32), e, e, z, np.zeros(1, np.int64))


@kernel(inline="always")
def _side_dists_memo(pos, side, net, u, memo, out):
    """:func:`_side_dists` into ``out``, unless ``out`` holds them already: ``memo`` int64[3]
    names what it holds (-1: nothing), and ``out`` is written by nothing else. The
    distributions depend on the side's checkers and the net, nothing else: the key is the
    checkers on the side's points 1..24 (four bits each, two words) and the net's ``ident``,
    drawn at random when the net is built, so that a net built later never passes for another
    (as a freed array's address could). The values are the net's own, bit for bit."""
    k0 = np.int64(0)
    k1 = np.int64(0)
    for p in range(1, 13):
        c0 = max(np.int64(pos[p]) if side == 0 else -np.int64(pos[25 - p]), 0)
        c1 = max(np.int64(pos[p + 12]) if side == 0 else -np.int64(pos[13 - p]), 0)
        k0 |= c0 << (4 * (p - 1))
        k1 |= c1 << (4 * (p - 1))
    ident = net.ident[0]
    if memo[0] == k0 and memo[1] == k1 and memo[2] == ident:
        return
    _side_dists(pos, side, net, u, out)
    memo[0] = k0
    memo[1] = k1
    memo[2] = ident


@kernel(inline="always")
def _add_rows4(u, tab, i0, i1, i2, i3, c0, c1, c2, c3, width):
    """u[:width] += c0 tab[i0] + c1 tab[i1] + c2 tab[i2] + c3 tab[i3] (one load and store of u
    for four rows)."""
    for j in range(width):
        u[j] += (c0 * tab[i0, j] + c1 * tab[i1, j]) + (c2 * tab[i2, j] + c3 * tab[i3, j])


@kernel(inline="always")
def _bucket(v):
    """The bucket below the rough number of rolls ``v`` (clipped to the buckets) and the
    weight of the one above it (float32)."""
    v = min(max(v, 0.0), _LAST)
    lo = int(v)
    return lo, np.float32(v - lo)


@kernel(fastmath={"contract"})
def _side_dists(pos, side, net, u, out):
    """``out`` float32[SIDE_HEADS, SIDE_BUCKETS]: the distributions of one side of the race
    ``pos`` (``side`` 0: the player on roll; 1: the opponent) by the side net ``net``; ``u``
    float32[>= H + SIDE_OUTPUTS] scratch. A head the side's checkers answer (:func:`fixed_heads`)
    is that answer, 0 rolls, and its logits are not computed. Multiplies and adds fuse
    (fastmath ``contract``): the same values wherever it runs, computed in fewer steps."""
    tab = net.tab
    hid = net.w2.shape[0]
    # branch-free sums over the points (in point order: the loops unroll, no branch on the
    # checkers)
    n = 0
    pips = 0
    home_pips = 0
    clear_pips = 0
    outside = 0
    back = 0
    for p in range(1, 25):
        c = max(np.int64(pos[p]) if side == 0 else -np.int64(pos[25 - p]), 0)
        n += c
        pips += c * p
        outside += c * (p > 6)
        home_pips += c * max(p - 6, 0)
        back += c * (p > 18)
        clear_pips += c * max(p - 18, 0)
    # the heads whose distribution the side fixes (no logits needed): a first checker is off
    # already (head 1), no checker is left on 19..24 (head 2); the logits of heads 0 .. last
    fixed1 = n < 15
    last = 2 if back > 0 else (0 if fixed1 else 1)
    width = hid + (last + 1) * SIDE_BUCKETS
    for j in range(width):
        u[j] = tab[_BIAS_ROW, j]
    # the rows of the points with checkers, four a pass over u (the rest of a last group is
    # the bias row times 0)
    one = np.float32(1.0)
    zero = np.float32(0.0)
    r0 = r1 = r2 = _BIAS_ROW
    k = 0
    for p in range(1, 25):
        c = pos[p] if side == 0 else -pos[25 - p]
        if c > 0:
            r = (p - 1) * 16 + min(c, 15)
            if k == 0:
                r0 = r
            elif k == 1:
                r1 = r
            elif k == 2:
                r2 = r
            else:
                _add_rows4(u, tab, r0, r1, r2, r, one, one, one, one, width)
            k = (k + 1) % 4
    if k > 0:
        _add_rows4(
            u,
            tab,
            r0,
            r1,
            r2,
            _BIAS_ROW,
            one,
            one if k > 1 else zero,
            one if k > 2 else zero,
            zero,
            width,
        )
    _add_rows4(
        u,
        tab,
        _SCALAR_ROW,
        _SCALAR_ROW + 1,
        _SCALAR_ROW + 2,
        _SCALAR_ROW + 3,
        np.float32((15 - n) / 15.0),
        np.float32(pips / 100.0),
        np.float32(outside / 15.0),
        np.float32(back / 15.0),
        width,
    )
    # each head's rough number of rolls on its two nearest buckets
    lo0, f0 = _bucket(pips / _PIPS_A_ROLL)
    lo1, f1 = _bucket(home_pips / _PIPS_A_ROLL + 1.0 if n == 15 else 0.0)
    lo2, f2 = _bucket(clear_pips / _PIPS_A_ROLL)
    b0 = _BUCKET_ROW + lo0
    b1 = _BUCKET_ROW + SIDE_BUCKETS + lo1
    b2 = _BUCKET_ROW + 2 * SIDE_BUCKETS + lo2
    _add_rows4(u, tab, b0, b0 + 1, b1, b1 + 1, one - f0, f0, one - f1, f1, width)
    _add_rows4(u, tab, b2, b2 + 1, _BIAS_ROW, _BIAS_ROW, one - f2, f2, zero, zero, width)
    # tanh(x) = 2 sigmoid(2x) - 1
    two = np.float32(2.0)
    for j in range(hid):
        u[j] = two * _activation(two * u[j]) - one
    _output_logits(u, net.w2, hid, width - hid)
    for hd in range(SIDE_HEADS):
        if hd > last or (hd == 1 and fixed1):
            for k in range(SIDE_BUCKETS):
                out[hd, k] = np.float32(0.0)
            out[hd, 0] = one
        else:
            _softmax_into(u, hid + hd * SIDE_BUCKETS, out[hd])


@kernel(inline="always")
def _output_logits(u, w2, hid, width):
    """u[hid:hid + width] += the hidden activations u[:hid] times ``w2``'s first ``width``
    columns, eight hidden units a pass (a pass loads and stores the logits once)."""
    j = 0
    while j + 8 <= hid:
        a0, a1, a2, a3 = u[j], u[j + 1], u[j + 2], u[j + 3]
        a4, a5, a6, a7 = u[j + 4], u[j + 5], u[j + 6], u[j + 7]
        for k in range(width):
            u[hid + k] += (
                (a0 * w2[j, k] + a1 * w2[j + 1, k]) + (a2 * w2[j + 2, k] + a3 * w2[j + 3, k])
            ) + ((a4 * w2[j + 4, k] + a5 * w2[j + 5, k]) + (a6 * w2[j + 6, k] + a7 * w2[j + 7, k]))
        j += 8
    while j < hid:
        a = u[j]
        for k in range(width):
            u[hid + k] += a * w2[j, k]
        j += 1


_EXP_TERMS = tuple(np.float32(1.0 / math.factorial(k)) for k in range(11))
_E_1 = np.float32(math.exp(-1.0))


@kernel(inline="always")
def _exp_neg(x):
    """exp(x) for x <= 0 (float32, within 4e-6 of it relatively; below -32, exp(-32)), in
    arithmetic only, so that a loop of it vectorises: exp(x) = (e^-1 e^t)^16 with
    t = x / 16 + 1 in [-1, 1] and e^t by its Taylor series to t^10."""
    c = _EXP_TERMS
    t = max(x, np.float32(-32.0)) * np.float32(0.0625) + np.float32(1.0)
    p = c[10]
    p = p * t + c[9]
    p = p * t + c[8]
    p = p * t + c[7]
    p = p * t + c[6]
    p = p * t + c[5]
    p = p * t + c[4]
    p = p * t + c[3]
    p = p * t + c[2]
    p = p * t + c[1]
    p = (p * t + c[0]) * _E_1
    p = p * p
    p = p * p
    p = p * p
    return p * p


@kernel(inline="always")
def _softmax_into(u, base, out):
    """out[:] = the softmax of u[base:base + len(out)] (separate loops for the maximum, the
    exponentials and the sum, so that the exponentials' loop has no reduction in it and
    vectorises)."""
    nb = out.shape[0]  # a multiple of 8
    # maximum and sum over eight lanes, combined in a fixed order
    m0, m1, m2, m3 = u[base], u[base + 1], u[base + 2], u[base + 3]
    m4, m5, m6, m7 = u[base + 4], u[base + 5], u[base + 6], u[base + 7]
    for k in range(8, nb, 8):
        q = base + k
        m0, m1, m2, m3 = max(m0, u[q]), max(m1, u[q + 1]), max(m2, u[q + 2]), max(m3, u[q + 3])
        m4, m5, m6, m7 = max(m4, u[q + 4]), max(m5, u[q + 5]), max(m6, u[q + 6]), max(m7, u[q + 7])
    m = max(max(max(m0, m1), max(m2, m3)), max(max(m4, m5), max(m6, m7)))
    for k in range(nb):
        out[k] = _exp_neg(u[base + k] - m)
    s0 = s1 = s2 = s3 = s4 = s5 = s6 = s7 = np.float32(0.0)
    for k in range(0, nb, 8):
        s0, s1, s2, s3 = s0 + out[k], s1 + out[k + 1], s2 + out[k + 2], s3 + out[k + 3]
        s4, s5, s6, s7 = s4 + out[k + 4], s5 + out[k + 5], s6 + out[k + 6], s7 + out[k + 7]
    r = np.float32(1.0) / (((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7)))
    for k in range(nb):
        out[k] *= r


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
