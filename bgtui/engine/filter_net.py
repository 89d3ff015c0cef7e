"""The filter net: a tiny raw-input net that ranks the plays of a roll, so that a
variance-reduction step (rollouts with ``vr_filter`` k > 0) values only the best few of each
roll with the evaluator.

Inputs (``FILTER_ROWS`` one-hot rows, 28 of them on): for each of the 26 slots of the position
after the play (mover's view, mover positive), its signed checker count clipped to
[-``FILTER_CLIP``, ``FILTER_CLIP``]; and the checkers borne off by each side. One sigmoid hidden
layer, one linear output: the evaluator's 0-ply cubeless equity of that position for the mover
(``bgtui train filter`` distils it from the shipped nets). It never values a position the user
sees: it only chooses which plays the evaluator looks at, and the variance-reduction estimate
stays unbiased whatever it chooses (the luck is a difference of the same function of the roll).
"""

import numpy as np

from bgtui.engine._jit import kernel
from bgtui.engine.constants import MAX_PLAYS, ROLLS
from bgtui.engine.evaluate import _evaluate_after, equity
from bgtui.engine.inputs import _popcount
from bgtui.engine.movegen import _copy_position, _generate_plays
from bgtui.engine.nn import _activation
from bgtui.engine.structs import FilterScratch

FILTER_CLIP = 7
_SPAN = 2 * FILTER_CLIP + 1
#: rows: 26 slots x 15 counts, then 16 borne-off counts for the mover and 16 for the opponent
FILTER_ROWS = 26 * _SPAN + 32
FILTER_ACTIVE = 28
#: the most plays a filter keeps per roll
MAX_FILTER_K = 8


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


def extend_filter_table(w1):
    """The filter net's first layer as the kernels use it: ``w1`` (float32[FILTER_ROWS, H]),
    then a difference row for each row (the next row of its group minus it; zero for a
    group's last row), so that a count moving by one costs one row."""
    w1 = np.asarray(w1, dtype=np.float32)
    d = np.zeros_like(w1)
    groups = [(i * _SPAN, _SPAN) for i in range(26)] + [(26 * _SPAN, 16), (26 * _SPAN + 16, 16)]
    for start, size in groups:
        d[start : start + size - 1] = w1[start + 1 : start + size] - w1[start : start + size - 1]
    return np.ascontiguousarray(np.concatenate([w1, d]))


def make_filter_scratch(hidden: int) -> FilterScratch:
    """Scratch of the filter's kernels (:class:`FilterScratch`) for ``hidden`` units."""
    hidden = max(hidden, 1)
    return FilterScratch(
        np.zeros(hidden, dtype=np.float32),
        np.zeros(60, dtype=np.int64),
        np.zeros(60, dtype=np.float32),
        np.zeros(MAX_FILTER_K, dtype=np.float64),
        np.zeros(MAX_FILTER_K, dtype=np.int64),
        np.zeros((MAX_FILTER_K, 26), dtype=np.int8),
        np.zeros(hidden, dtype=np.float32),
        np.zeros(MAX_PLAYS, dtype=np.float32),
    )


@kernel(fastmath=True)
def filter_scores(positions, n, fw1, fb1, fw2, fs, out):
    """out[i] = the filter net's score of positions[i] for i < n, from all its rows (the
    reference for :func:`filter_pick`'s incremental scores; tests and training)."""
    h, ti, tc = fs.h, fs.term_rows, fs.term_coefs
    for i in range(n):
        _filter_rows(positions[i], ti)
        for q in range(FILTER_ACTIVE):
            tc[q] = 1.0
        _filter_sum(h, fb1, fw1, ti, tc, FILTER_ACTIVE)
        out[i] = _filter_output(h, fw2)


@kernel(fastmath=True)
def filter_pick(parent, positions, moves, n, k, fw1, fb1, fw2, fs):
    """Copy the ``k`` plays ``positions[:n]`` (from ``parent``, mover's view; ``moves[:n]``
    their steps as ``movegen._generate_plays`` gives them) that the filter net scores highest
    (ties to the earlier play; best first) into ``fs.picked``; returns how many (min(k, n)).

    Each play's pre-activation is the parent's plus the rows of the slots the play changed
    (a play changes two to eight of the 26, read from its steps; a count moving by one is one
    difference row). ``fs``: :func:`make_filter_scratch`. The net:
    ``fw1`` float32[2 * FILTER_ROWS, H] (:func:`extend_filter_table`), ``fb1`` float32[H],
    ``fw2`` float32[H + 1] (the output weights, then the output bias)."""
    filter_parent(parent, fw1, fb1, fs)
    return filter_pick_from(parent, positions, moves, n, k, fw1, fw2, fs)


@kernel(fastmath=True)
def filter_parent(parent, fw1, fb1, fs):
    """The parent's pre-activation into ``fs.parent_h``, for :func:`filter_pick_from`: the
    plays of
    all 21 rolls of one position share it (a variance-reduction step computes it once)."""
    ti, tc, hp = fs.term_rows, fs.term_coefs, fs.parent_h
    _filter_rows(parent, ti)
    for q in range(FILTER_ACTIVE):
        tc[q] = 1.0
    _filter_sum(hp, fb1, fw1, ti, tc, FILTER_ACTIVE)


@kernel(fastmath=True)
def filter_pick_from(parent, positions, moves, n, k, fw1, fw2, fs):
    """:func:`filter_pick` with the parent's pre-activation already in ``fs.parent_h``
    (:func:`filter_parent` of the same ``parent``)."""
    h, ti, tc, ks, ki, picked, hp, scores = fs  # FilterScratch, field by field
    pmine = 0
    for c in range(26):
        pmine += max(np.int64(parent[c]), 0)
    for i in range(n):
        child = positions[i]
        # the slots a play may have changed, from its steps (from, to; 0 = off): each step's
        # two points, and the opponent's bar when it lands on a blot (a checker passing
        # through a point leaves it as it was: no terms); the checkers borne off
        changed = np.int64(0)
        off = 0
        for q in range(4):
            f = np.int64(moves[i, 2 * q])
            if f < 0:
                break
            t = np.int64(moves[i, 2 * q + 1])
            changed |= np.int64(1) << f
            if t >= 1:
                changed |= (np.int64(1) << t) | np.int64(parent[np.uint64(t)] < 0)
            else:
                off += 1
        nt = 0
        while changed != 0:
            low = changed & -changed
            changed ^= low
            c = _popcount(low - 1)
            u = np.uint64(c)
            nt = _filter_change(
                ti, tc, nt, c * _SPAN, _clip(np.int64(child[u])), _clip(np.int64(parent[u]))
            )
        if off != 0:  # the opponent's checkers all stay on the board in a play
            nt = _filter_change(ti, tc, nt, 26 * _SPAN, 15 - (pmine - off), 15 - pmine)
        _filter_sum(h, hp, fw1, ti, tc, nt)
        scores[np.uint64(i)] = _filter_output(h, fw2)
    # the kept list (sorted, best first; a tie keeps the earlier play first), in a pass of its
    # own: a branch on a score in the scoring loop, mispredicted, would stall the next play's
    # scoring until the score is known
    m = 0
    for i in range(n):
        s = scores[i]
        if m < k:
            m += 1
        elif s <= ks[np.uint64(m - 1)]:
            continue
        q2 = m - 1
        while q2 > 0 and ks[q2 - 1] < s:
            ks[q2] = ks[q2 - 1]
            ki[q2] = ki[q2 - 1]
            q2 -= 1
        ks[q2] = s
        ki[q2] = i
    for j in range(m):
        _copy_position(picked, j, positions, ki[j])
    return m


@kernel(_nrt=True)
def filter_samples(positions, ev, mws, ews, out_pos, out_moves, rows, values, groups, cap):
    """Training samples for the filter net: for every position (player on roll) and each of
    its 21 rolls, every play's 28 active rows (``rows`` int16[cap, 28]) and the evaluator's
    0-ply equity of it for the mover (``values``), with the index of its (position, roll)
    group (``groups``: position * 21 + roll). Stops before a position whose plays would not
    fit; returns (samples stored, positions used)."""
    t5 = np.zeros(5, dtype=np.float32)
    idx = np.zeros(FILTER_ACTIVE, dtype=np.int64)
    m = 0
    for p in range(positions.shape[0]):
        start = m
        for roll in range(21):
            n = _generate_plays(
                positions[p], ROLLS[roll, 0], ROLLS[roll, 1], mws, out_pos, out_moves
            )
            if m + n > cap:
                return start, p
            for i in range(n):
                _evaluate_after(out_pos[i], ev, ews, t5)
                values[m] = equity(t5)
                _filter_rows(out_pos[i], idx)
                for r in range(FILTER_ACTIVE):
                    rows[m, r] = idx[r]
                groups[m] = p * 21 + roll
                m += 1
    return m, positions.shape[0]
