"""The filter net: a tiny raw-input net that ranks the plays of a roll, so that a
variance-reduction step (rollouts with ``vr_filter`` k > 0) values only the best few of each
roll with the evaluator.

Inputs: the position after the play as one-hot rows (``filter_terms``). One sigmoid hidden
layer, one linear output: the evaluator's 0-ply cubeless equity of that position for the mover
(``bgtui train filter`` distils it from the shipped nets). It never values a position the user
sees: it only chooses which plays the evaluator looks at, and the variance-reduction estimate
stays unbiased whatever it chooses (the luck is a difference of the same function of the roll).
A variance-reduction step scores the plays as move generation makes them
(``movegen._generate_scored_plays``) and keeps the best with :func:`filter_keep`;
:func:`filter_pick` scores plays already made.
"""

import numpy as np

from bgtui.engine._jit import kernel
from bgtui.engine.constants import MAX_PLAYS
from bgtui.engine.filter_terms import (
    _SPAN,
    FILTER_ACTIVE,
    FILTER_ROWS,
    _clip,
    _filter_change,
    _filter_output,
    _filter_rows,
    _filter_sum,
)
from bgtui.engine.inputs import _popcount
from bgtui.engine.movegen import _copy_position
from bgtui.engine.structs import FilterNet, FilterScratch

#: the most plays a filter keeps per roll
MAX_FILTER_K = 8
#: scores made during move generation and from the parent's pre-activation (summed in
#: another order) differ by less than 2e-6; two plays whose scores are closer than this are
#: ranked by the latter, so that the picks do not depend on the order of the sums
FILTER_TIE = 1e-4


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


def empty_filter_net() -> FilterNet:
    """A placeholder filter net, for the workspaces of callers that never rank plays with one."""
    return FilterNet(
        np.zeros((2 * FILTER_ROWS, 1), dtype=np.float32),
        np.zeros(1, dtype=np.float32),
        np.zeros(2, dtype=np.float32),
    )


def as_filter_net(filter_net) -> FilterNet:
    """``filter_net`` (w1 float32[2 * FILTER_ROWS, H], b1 float32[H], w2 float32[H + 1], as
    ``weights.load_filter_net`` gives it) as a :class:`FilterNet` the kernels take; None: the
    placeholder :func:`empty_filter_net`."""
    if filter_net is None:
        return empty_filter_net()
    fw1, fb1, fw2 = filter_net
    return FilterNet(
        np.ascontiguousarray(fw1, dtype=np.float32),
        np.ascontiguousarray(fb1, dtype=np.float32),
        np.ascontiguousarray(fw2, dtype=np.float32),
    )


def make_filter_scratch(hidden: int) -> FilterScratch:
    """Scratch of the filter's kernels (:class:`FilterScratch`) for ``hidden`` units."""
    hidden = max(hidden, 1)
    level_h = np.zeros((5, hidden), dtype=np.float32)
    return FilterScratch(
        np.zeros(hidden, dtype=np.float32),
        np.zeros(60, dtype=np.int64),
        np.zeros(60, dtype=np.float32),
        np.zeros(MAX_FILTER_K + 1, dtype=np.float64),
        np.zeros(MAX_FILTER_K + 1, dtype=np.int64),
        np.zeros((MAX_FILTER_K, 26), dtype=np.int8),
        level_h[0],
        np.zeros(MAX_PLAYS, dtype=np.float32),
        level_h,
        np.zeros(5, dtype=np.int64),
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
    plays of all 21 rolls of one position share it (a variance-reduction step computes it
    once), and move generation that scores its plays starts from it (``fs.level_h[0]``)."""
    ti, tc, hp = fs.term_rows, fs.term_coefs, fs.parent_h
    _filter_rows(parent, ti)
    for q in range(FILTER_ACTIVE):
        tc[q] = 1.0
    _filter_sum(hp, fb1, fw1, ti, tc, FILTER_ACTIVE)


@kernel(fastmath=True)
def filter_pick_from(parent, positions, moves, n, k, fw1, fw2, fs):
    """:func:`filter_pick` with the parent's pre-activation already in ``fs.parent_h``
    (:func:`filter_parent` of the same ``parent``)."""
    h, ti, tc, hp, scores = fs.h, fs.term_rows, fs.term_coefs, fs.parent_h, fs.scores
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
    return _keep_best(scores, positions, n, k, 0.0, fs)


@kernel
def filter_keep(parent, positions, moves, n, k, fw1, fw2, fs):
    """:func:`filter_pick` of the plays ``positions[:n]`` of ``parent`` (``moves[:n]`` their
    steps) whose scores ``fs.scores[:n]`` move generation made
    (``movegen._generate_scored_plays``): the same picks, bit for bit. Where two of the best
    scores are within ``FILTER_TIE``, the scores from the parent's pre-activation
    (``fs.parent_h``, :func:`filter_parent`) decide, as :func:`filter_pick_from` makes them."""
    m = _keep_best(fs.scores, positions, n, k, FILTER_TIE, fs)
    if m < 0:
        m = filter_pick_from(parent, positions, moves, n, k, fw1, fw2, fs)
    return m


@kernel
def _keep_best(scores, positions, n, k, tie, fs):
    """Copy the ``k`` plays of ``positions[:n]`` whose ``scores`` are highest into
    ``fs.picked`` (best first; a tie keeps the earlier play first); returns how many (min(k,
    n)), or -1 (nothing copied) when two of the ``k`` + 1 best scores are less than ``tie``
    apart: a near tie that scores summed in another order could break the other way. A pass
    of its own after the scoring: a branch on a score in the scoring loop, mispredicted,
    would stall the next play's scoring until the score is known."""
    ks, ki, picked = fs.kept_scores, fs.kept_idx, fs.picked
    top = min(k + 1, n)
    m = 0
    for i in range(n):
        s = scores[i]
        if m < top:
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
    for j in range(m - 1):
        if ks[j] - ks[j + 1] < tie:
            return -1
    m = min(k, m)
    for j in range(m):
        _copy_position(picked, j, positions, ki[j])
    return m
