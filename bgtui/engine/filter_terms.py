"""The filter net's input rows and the arithmetic on them, shared by the filter's kernels
(``filter_net``) and move generation, which scores each play as it makes it.

Inputs (``FILTER_ROWS`` one-hot rows, ``FILTER_ACTIVE`` of them on): for each of the 26 slots
of a position (mover's view, mover positive), its signed checker count clipped to
[-``FILTER_CLIP``, ``FILTER_CLIP``]; and the checkers borne off by each side. The first layer
as the kernels use it (``filter_net.extend_filter_table``) is followed by a difference row
for each row, so that a count moving by one costs one row.
"""

import numpy as np

from bgtui.engine._jit import kernel
from bgtui.engine.nn import _activation

FILTER_CLIP = 7
_SPAN = 2 * FILTER_CLIP + 1
#: rows: 26 slots x 15 counts, then 16 borne-off counts for the mover and 16 for the opponent
FILTER_ROWS = 26 * _SPAN + 32
FILTER_ACTIVE = 28


@kernel(inline="always")
def _clip(v):
    """The row of a signed count within its slot's group (clipped to +-FILTER_CLIP)."""
    return min(max(v, -FILTER_CLIP), FILTER_CLIP) + FILTER_CLIP


@kernel(inline="always")
def _filter_rows(pos, idx):
    """The 28 active rows of ``pos`` (mover's view) into ``idx`` (int64[28])."""
    mine = 0
    theirs = 0
    for i in range(26):
        v = np.int64(pos[i])
        mine += max(v, 0)
        theirs += max(-v, 0)
        idx[i] = i * _SPAN + _clip(v)
    idx[26] = 26 * _SPAN + 15 - mine
    idx[27] = 26 * _SPAN + 16 + 15 - theirs


@kernel(inline="always")
def _filter_output(h, fw2):
    """The score from the hidden pre-activations ``h`` (overwritten by the activations): one
    pass of sigmoids and the output sum, written as ``nn._finish`` is so that it vectorises."""
    nh = fw2.shape[0] - 1
    s = np.float32(0.0)
    for j in range(nh):
        a = _activation(h[j])
        h[j] = a
        s += fw2[j] * a
    return s + fw2[nh]


@kernel(inline="always")
def _filter_terms4(ti, tc, g):
    """The four terms from ``g``: their rows ``ti[g:g+4]`` (unsigned, so that indexing a
    row does not test for a negative index), then their coefficients."""
    return (
        np.uint64(ti[g]),
        np.uint64(ti[g + 1]),
        np.uint64(ti[g + 2]),
        np.uint64(ti[g + 3]),
        tc[g],
        tc[g + 1],
        tc[g + 2],
        tc[g + 3],
    )


@kernel(inline="always")
def _filter_sum(h, base, fw1, ti, tc, nt):
    """h = base + the sum over k < nt of tc[k] * fw1[ti[k]], four rows a pass over ``h``
    (padded with zero-weighted terms), as ``nn._accumulate`` does; the first pass reads
    ``base``."""
    nh = base.shape[0]
    m = (nt + 3) // 4 * 4
    for q in range(nt, m):
        ti[np.uint64(q)] = 0
        tc[np.uint64(q)] = 0.0
    if m == 0:
        for j in range(nh):
            h[j] = base[j]
        return
    i0, i1, i2, i3, c0, c1, c2, c3 = _filter_terms4(ti, tc, 0)
    for j in range(nh):
        h[j] = base[j] + ((c0 * fw1[i0, j] + c1 * fw1[i1, j]) + (c2 * fw1[i2, j] + c3 * fw1[i3, j]))
    for g in range(4, m, 4):
        i0, i1, i2, i3, c0, c1, c2, c3 = _filter_terms4(ti, tc, g)
        for j in range(nh):
            h[j] += (c0 * fw1[i0, j] + c1 * fw1[i1, j]) + (c2 * fw1[i2, j] + c3 * fw1[i3, j])


@kernel(inline="always")
def _filter_change(ti, tc, nt, base, new, old):
    """Terms taking a group of one-hot rows (first row ``base``) from row ``old`` to ``new``:
    one difference row (``extend_filter_table``) when they are neighbours, else two rows."""
    if new == old:
        return nt
    u = np.uint64(nt)  # an index that is not tested for being negative
    if new == old + 1:
        ti[u] = FILTER_ROWS + base + old
        tc[u] = 1.0
        return nt + 1
    if old == new + 1:
        ti[u] = FILTER_ROWS + base + new
        tc[u] = -1.0
        return nt + 1
    ti[u] = base + new
    tc[u] = 1.0
    ti[u + np.uint64(1)] = base + old
    tc[u + np.uint64(1)] = -1.0
    return nt + 2


@kernel(inline="always")
def _filter_score(h, fw2):
    """The score from the hidden pre-activations ``h``, left as they are (a node of move
    generation's search serves each play below it)."""
    nh = fw2.shape[0] - 1
    s = np.float32(0.0)
    for j in range(nh):
        s += fw2[j] * _activation(h[j])
    return s + fw2[nh]
