"""Bear-off databases, built by retrograde analysis, and the kernels that look them up.

Indexing
--------
A one-sided bear-off position is one side's checkers on its home points 1..6, given as
``counts6`` (``counts6[i]`` = checkers on point ``i + 1``, 0..15 in all). With cumulative sums
``s_j = c_1 + ... + c_j`` the strictly increasing numbers ``a_j = s_j + j - 1`` (j = 1..6) form a
6-subset of ``{0, ..., 20}`` and the index is its colexicographic rank
``sum_j C(a_j, j)`` (stars and bars / combinatorial number system). So:

* all ``C(21, 6) = 54,264`` positions with 0..15 checkers have indices ``0 .. 54263``;
* index 0 is "all checkers off";
* the positions with at most ``N`` checkers are exactly the indices ``< C(N + 6, 6)``
  (:func:`num_positions`), e.g. 924 for ``N = 6`` (the two-sided database).

One-sided database (:func:`build_one_sided`)
-------------------------------------------
``dist : float32[54264, 2, MAX_ROLLS]``:

* ``dist[i, 0, k]`` = probability that position ``i`` needs exactly ``k`` rolls to bear off
  all its checkers, playing each roll to minimise the expected number of rolls;
* ``dist[i, 1, k]`` = probability that the side needs exactly ``k`` rolls until it has borne off
  at least one checker, playing to minimise the expected number of rolls to that event. A side
  with fewer than 15 checkers on its board already has one off (``k = 0``). This is what a side
  needs to save a gammon.

``mean : float64[54264, 2]``: the expected values of the two distributions.
``MAX_ROLLS`` (= 32) covers every position: the longest possible bear-off (15 checkers on the
6 point rolling 2-1 every time) takes 30 rolls, see the tests.

Two-sided database (:func:`build_two_sided`)
-------------------------------------------
For a pair (player on roll ``x``, opponent ``y``), both with at most 6 checkers on their home
points (so at least 9 off each: no gammons), indices as above (``0 .. 923``):

* ``win : float32[924, 924]``, ``win[x, y]`` = the exact cubeless probability that the player
  on roll wins, both sides playing to maximise their winning chances;
* ``cubeful : float32[924, 924, 3]``: the exact money equities (normalised to a 1-cube) of the
  player on roll, before his doubling decision, with the cube centred (``[..., 0]``), owned by
  the player on roll (``[..., 1]``) and owned by the opponent (``[..., 2]``), the cube states'
  indices of ``constants`` (``CENTRED``, ``OWNED``, ``OPP_OWNED``); both sides double,
  take and play optimally (cubeful-optimal plays, separately for each cube state);
* ``no_double : float32[924, 924, 3]``: the same three cube states, but the value of NOT
  doubling now (``ND_c`` below): the player on roll rolls and plays with the cube as it is, and
  the opponent is then on roll with his own cube decision. ``no_double[..., 2] ==
  cubeful[..., 2]`` (the player cannot double when the opponent owns the cube); where doubling
  is right ``cubeful`` holds the double's value and ``no_double`` the lower one of playing on.

Recurrences, ``w`` running over the 21 rolls with weights 1 (doubles) or 2 out of 36, ``x'``
over the positions reachable from ``x`` with that roll::

    P(x, y)    = sum_w w/36 * max_x' (1 if x' empty else 1 - P(y, x'))
    ND_c(x, y) = sum_w w/36 * max_x' (1 if x' empty else -E_flip(c)(y, x'))
    E_centred  = max(ND_centred, min(1, 2 * ND_opponent))
    E_owned    = max(ND_owned,   min(1, 2 * ND_opponent))
    E_opponent = ND_opponent

where ``flip`` swaps "owned" and "opponent" (centred stays centred). A double that is taken
gives the opponent the cube on 2 and the doubler rolls at once (``2 * ND_opponent``); a pass
gives +1. Beavers do not change these values: a side only doubles when
``2 * ND_opponent >= ND >= ND_opponent``, i.e. when its position is favourable
(``ND_opponent >= 0``), and such a double is never worth a beaver. Every play lowers the pip
count, so all dependencies have a smaller total pip count and the tables are filled in order
of increasing ``pip(x) + pip(y)``. Boundary values: ``x`` empty (the player on roll has
already borne off) gives 1 / +1; otherwise ``y`` empty gives 0 / -1.

Lookups
-------
:func:`is_two_sided`, :func:`two_sided_probs`, :func:`two_sided_cubeful`, :func:`is_bearoff`
and :func:`one_sided_race_probs` take full ``int8[26]`` positions (engine layout).
:func:`one_sided_race_probs` is an APPROXIMATION: it treats the two sides' numbers of rolls as
independent, each side playing to minimise its own expected rolls, so it ignores that a side
should play differently when the race is close (e.g. to maximise the chance of finishing in
exactly the rolls it has left, or to save a gammon rather than to finish fast). It is exact only
in the trivial cases; the two-sided database is exact.

The one-sided rows extend past the home board (module sections below): a straggler (one
checker on the side's point 7..18, :data:`STRAGGLER_ROWS`) and few checkers (at most
:data:`FEW_CHECKERS` anywhere on points 1..24, :data:`FEW_ROWS`); :func:`side_row` finds a
side's row and :func:`build_full_one_sided` builds them all. In these races the approximation is
far closer to rollouts and to exact two-sided values than the race net
(``evaluation/race_accuracy.py`` measures it): e.g. ``gQAC8A8AAAAAAA`` (8 checkers on the ace
point against three on the 1, 7 and 16 points) is 78.25% by the approximation, 78.11% exactly
(``tests/engine/test_bearoff_few.py``).
"""

import numpy as np

from bgtui.engine._jit import kernel
from bgtui.engine.constants import NUM_CHECKERS, ROLL_WEIGHTS, ROLLS
from bgtui.engine.movegen import _generate_plays
from bgtui.engine.position import is_race
from bgtui.engine.structs import SuccessorScratch

HOME_POINTS = 6
ONE_SIDED_CHECKERS = NUM_CHECKERS  # 15
TWO_SIDED_CHECKERS = 6
MAX_ROLLS = 32
#: layout of ``dist`` axis 1 and ``mean`` axis 1
ALL_OFF, FIRST_OFF = 0, 1

# BINOM[a, j] = C(a, j), a <= 21, j <= 6 (read-only constant for the kernels)
BINOM = np.zeros((22, 7), dtype=np.int64)
for _a in range(22):
    BINOM[_a, 0] = 1
    for _j in range(1, 7):
        BINOM[_a, _j] = BINOM[_a - 1, _j - 1] + BINOM[_a - 1, _j] if _a > 0 else 0
BINOM.setflags(write=False)


def num_positions(max_checkers: int) -> int:
    """Number of one-sided positions with at most ``max_checkers`` (0..15) checkers."""
    if not 0 <= max_checkers <= ONE_SIDED_CHECKERS:
        raise ValueError(f"max_checkers must be 0..15, got {max_checkers}")
    return int(BINOM[max_checkers + 6, 6])


ONE_SIDED_SIZE = num_positions(ONE_SIDED_CHECKERS)  # 54264
TWO_SIDED_SIZE = num_positions(TWO_SIDED_CHECKERS)  # 924


# --------------------------------------------------------------------------------------------
# indexing


@kernel
def bearoff_index(counts6):
    """Index of a one-sided position. ``counts6`` : int[6], checkers on points 1..6, sum <= 15."""
    s = 0
    r = 0
    for j in range(6):
        s += counts6[j]
        r += BINOM[s + j, j + 1]
    return r


@kernel
def bearoff_position(index, out6):
    """Inverse of :func:`bearoff_index`: write the counts of points 1..6 into ``out6``
    (int[6]); return the number of checkers. ``index`` must be in ``0 .. 54263``."""
    r = index
    s_above = 0  # s_{j+1}
    total = 0
    for j in range(6, 0, -1):
        # a_j = the largest a with C(a, j) <= remainder (colex unranking)
        a = j - 1
        while a < 20 and BINOM[a + 1, j] <= r:
            a += 1
        r -= BINOM[a, j]
        s = a - (j - 1)  # checkers on points 1..j
        if j == 6:
            total = s
        else:
            out6[j] = s_above - s  # point j + 1
        s_above = s
    out6[0] = s_above
    return total


# --------------------------------------------------------------------------------------------
# bear-off successors: the general move generator on a one-sided board


def _successor_scratch() -> SuccessorScratch:
    """Scratch for :func:`_successors` (:class:`SuccessorScratch`)."""
    from bgtui.engine.constants import MAX_PLAYS, MOVE_SIZE
    from bgtui.engine.movegen import make_workspace

    return SuccessorScratch(
        moves=make_workspace(),
        board=np.zeros(26, dtype=np.int8),
        play_pos=np.zeros((MAX_PLAYS, 26), dtype=np.int8),
        play_moves=np.zeros((MAX_PLAYS, MOVE_SIZE), dtype=np.int8),
        rows=np.empty(MAX_PLAYS, dtype=np.int64),
    )


@kernel
def _successors(counts6, d1, d2, scratch):
    """The one-sided indices of the positions the roll ``d1 d2`` reaches from the side
    ``counts6`` (checkers on points 1..6, no opponent), one per distinct position, into
    ``scratch.rows``; returns their number. The plays are :func:`movegen._generate_plays`'s
    (in a bear-off every die can be played while a checker is left); an empty side stays
    empty. ``scratch``: a :class:`SuccessorScratch`."""
    pos, ppos, out = scratch.board, scratch.play_pos, scratch.rows
    for k in range(26):
        pos[k] = 0
    total = 0
    for j in range(6):
        pos[j + 1] = counts6[j]
        total += counts6[j]
    if total == 0:
        out[0] = 0
        return 1
    n = _generate_plays(pos, d1, d2, scratch.moves, ppos, scratch.play_moves)
    for k in range(n):
        out[k] = player_index(ppos[k])
    return n


@kernel(_nrt=True)
def _positions_and_pips(npos):
    counts = np.zeros((npos, 6), dtype=np.int64)
    pips = np.zeros(npos, dtype=np.int64)
    tot = np.zeros(npos, dtype=np.int64)
    for i in range(npos):
        bearoff_position(i, counts[i])
        for j in range(6):
            pips[i] += (j + 1) * counts[i, j]
            tot[i] += counts[i, j]
    return counts, pips, tot


def successors(index: int, d1: int, d2: int) -> np.ndarray:
    """Sorted distinct indices reachable from one-sided position ``index`` with roll ``d1 d2``."""
    counts6 = np.zeros(6, dtype=np.int64)
    bearoff_position(index, counts6)
    scratch = _successor_scratch()
    n = _successors(counts6, d1, d2, scratch)
    return np.unique(scratch.rows[:n])


# --------------------------------------------------------------------------------------------
# one-sided database


@kernel
def _fastest(rows, n, mean):
    """Among the successor rows ``rows[:n]``: (the one that bears off soonest on average, its
    mean, the one that takes a first checker off soonest, its mean); the first of equals."""
    best = rows[0]
    bestv = mean[best, 0]
    gbest = rows[0]
    gbestv = mean[gbest, 1]
    for k in range(1, n):
        s = rows[k]
        if mean[s, 0] < bestv:
            bestv = mean[s, 0]
            best = s
        if mean[s, 1] < gbestv:
            gbestv = mean[s, 1]
            gbest = s
    return best, bestv, gbest, gbestv


@kernel(_nrt=True)
def _build_one_sided(npos, order, counts, tot, rolls, weights, nrolls, dist, mean, scratch):
    dist[0, 0, 0] = 1.0
    mean[0, 0] = 0.0
    for i in range(npos):
        if tot[i] < 15:
            dist[i, 1, 0] = 1.0
            mean[i, 1] = 0.0
    for oi in range(npos):
        i = order[oi]
        if i == 0:
            continue
        e_all = 1.0
        e_first = 1.0
        full = tot[i] == 15
        for r in range(rolls.shape[0]):
            w = weights[r] / 36.0
            n = _successors(counts[i], rolls[r, 0], rolls[r, 1], scratch)
            best, bestv, gbest, gbestv = _fastest(scratch.rows, n, mean)
            e_all += w * bestv
            for k in range(nrolls - 1):
                dist[i, 0, k + 1] += w * dist[best, 0, k]
            if full:
                e_first += w * gbestv
                for k in range(nrolls - 1):
                    dist[i, 1, k + 1] += w * dist[gbest, 1, k]
        mean[i, 0] = e_all
        if full:
            mean[i, 1] = e_first


def build_one_sided(max_checkers: int = ONE_SIDED_CHECKERS, nrolls: int = MAX_ROLLS):
    """Build the one-sided database for positions with at most ``max_checkers`` checkers.

    Returns ``(dist float32[n, 2, nrolls], mean float64[n, 2])`` (layout in the module doc).
    Positions are solved in order of increasing pip count, so every successor is done first.
    Raises ``ValueError`` if ``nrolls`` is too small to hold some distribution.
    """
    npos = num_positions(max_checkers)
    counts, pips, tot = _positions_and_pips(npos)
    order = np.argsort(pips, kind="stable")
    dist = np.zeros((npos, 2, nrolls), dtype=np.float64)
    mean = np.zeros((npos, 2), dtype=np.float64)
    _build_one_sided(
        npos, order, counts, tot, ROLLS, ROLL_WEIGHTS, nrolls, dist, mean, _successor_scratch()
    )
    lost = np.abs(dist.sum(axis=2) - 1.0).max()
    if lost > 1e-9:
        raise ValueError(f"nrolls={nrolls} is too small: probability {lost:.3g} lost")
    return dist.astype(np.float32), mean


# --------------------------------------------------------------------------------------------
# two-sided database


@kernel(_nrt=True)
def _successor_table(npos, counts, rolls, scratch):
    """CSR table of distinct successors: ``idx[start[21*x + r] : start[21*x + r + 1]]``."""
    nr = rolls.shape[0]
    start = np.zeros(npos * nr + 1, dtype=np.int64)
    cap = npos * nr * 8
    idx = np.empty(cap, dtype=np.int64)
    m = 0
    for x in range(npos):
        for r in range(nr):
            n = _successors(counts[x], rolls[r, 0], rolls[r, 1], scratch)
            u = np.unique(scratch.rows[:n])
            if m + u.shape[0] > cap:
                new = np.empty(cap * 2, dtype=np.int64)
                new[:m] = idx[:m]
                idx = new
                cap *= 2
            for k in range(u.shape[0]):
                idx[m] = u[k]
                m += 1
            start[x * nr + r + 1] = m
    return start, idx[:m].copy()


@kernel(_nrt=True)
def _build_two_sided(npos, pips, order, pip_start, start, idx, weights, win, eq, nd):
    nr = weights.shape[0]
    maxpip = pips.max()
    for x in range(npos):
        for y in range(npos):
            if x == 0:
                win[x, y] = 1.0
                for s in range(3):
                    eq[x, y, s] = 1.0
                    nd[x, y, s] = 1.0
            elif y == 0:
                win[x, y] = 0.0
                for s in range(3):
                    eq[x, y, s] = -1.0
                    nd[x, y, s] = -1.0
    for t in range(2, 2 * maxpip + 1):
        for x in range(1, npos):
            py = t - pips[x]
            if py < 1 or py > maxpip:
                continue
            for k in range(pip_start[py], pip_start[py + 1]):
                y = order[k]
                p = 0.0
                nd_c = 0.0
                nd_o = 0.0  # player owns
                nd_x = 0.0  # opponent owns
                for r in range(nr):
                    bp = -1.0
                    bc = -2.0
                    bo = -2.0
                    bx = -2.0
                    for m in range(start[x * nr + r], start[x * nr + r + 1]):
                        s = idx[m]
                        if s == 0:
                            v = 1.0
                            vc = 1.0
                            vo = 1.0
                            vx = 1.0
                        else:
                            v = 1.0 - win[y, s]
                            vc = -eq[y, s, 0]
                            vo = -eq[y, s, 2]  # I own -> opponent sees "opponent owns"
                            vx = -eq[y, s, 1]  # opponent owns -> opponent sees "owned"
                        if v > bp:
                            bp = v
                        if vc > bc:
                            bc = vc
                        if vo > bo:
                            bo = vo
                        if vx > bx:
                            bx = vx
                    w = weights[r] / 36.0
                    p += w * bp
                    nd_c += w * bc
                    nd_o += w * bo
                    nd_x += w * bx
                win[x, y] = p
                nd[x, y, 0] = nd_c
                nd[x, y, 1] = nd_o
                nd[x, y, 2] = nd_x
                dbl = 2.0 * nd_x
                if dbl > 1.0:
                    dbl = 1.0
                eq[x, y, 0] = nd_c if nd_c >= dbl else dbl
                eq[x, y, 1] = nd_o if nd_o >= dbl else dbl
                eq[x, y, 2] = nd_x


def build_two_sided(max_checkers: int = TWO_SIDED_CHECKERS):
    """Build the two-sided database for sides with at most ``max_checkers`` checkers.

    Returns ``(win float32[n, n], cubeful float32[n, n, 3], no_double float32[n, n, 3])``
    with ``n = num_positions(max_checkers)`` (layout and recurrences in the module doc).
    """
    npos = num_positions(max_checkers)
    counts, pips, _ = _positions_and_pips(npos)
    order = np.argsort(pips, kind="stable")
    pip_start = np.zeros(pips.max() + 2, dtype=np.int64)
    np.add.at(pip_start, pips + 1, 1)
    pip_start = np.cumsum(pip_start)
    start, idx = _successor_table(npos, counts, ROLLS, _successor_scratch())
    win = np.zeros((npos, npos), dtype=np.float64)
    eq = np.zeros((npos, npos, 3), dtype=np.float64)
    nd = np.zeros((npos, npos, 3), dtype=np.float64)
    _build_two_sided(npos, pips, order, pip_start, start, idx, ROLL_WEIGHTS, win, eq, nd)
    return win.astype(np.float32), eq.astype(np.float32), nd.astype(np.float32)


# --------------------------------------------------------------------------------------------
# lookups on full positions


@kernel
def _home_counts(pos):
    """``(ok, player's checkers, opponent's checkers)``: ``ok`` is True if every checker of
    both sides on the board is in its home board (none on a bar, none outside)."""
    if pos[0] != 0 or pos[25] != 0:
        return False, 0, 0
    a = 0
    b = 0
    for i in range(1, 25):
        v = pos[i]
        if v > 0:
            if i > 6:
                return False, 0, 0
            a += v
        elif v < 0:
            if i < 19:
                return False, 0, 0
            b -= v
    return True, a, b


@kernel
def _side_index(pos, zero, sign):
    """One-sided index of the checkers of sign ``sign`` on their points 1..6, their point j
    being ``pos[zero + sign * j]``."""
    s = 0
    r = 0
    for j in range(1, 7):
        v = sign * pos[zero + sign * j]
        if v > 0:
            s += v
        r += BINOM[s + j - 1, j]
    return r


@kernel
def player_index(pos):
    """One-sided index of the player's checkers on points 1..6 (call only for home positions)."""
    return _side_index(pos, 0, 1)


@kernel
def opponent_index(pos):
    """One-sided index of the opponent's checkers on their points 1..6 (our 24..19)."""
    return _side_index(pos, 25, -1)


@kernel
def is_bearoff(pos):
    """True if both sides have all their checkers (on the board) in their home boards."""
    ok, _, _ = _home_counts(pos)
    return ok


@kernel
def is_two_sided(pos):
    """True if both sides are home with at most 6 checkers each (two-sided database range)."""
    ok, a, b = _home_counts(pos)
    return ok and a <= TWO_SIDED_CHECKERS and b <= TWO_SIDED_CHECKERS


@kernel
def two_sided_probs(pos, db, out5):
    """Write (win, 0, 0, 0, 0) for the player on roll; ``db`` : float32[924, 924]."""
    out5[0] = db[player_index(pos), opponent_index(pos)]
    for k in range(1, 5):
        out5[k] = 0.0


@kernel
def two_sided_cubeful(pos, db_cubeful, out3):
    """Write (centred, owned, opponent owned) money equities; ``db_cubeful`` : [924, 924, 3]."""
    _two_sided_row(pos, db_cubeful, out3)


@kernel
def two_sided_no_double(pos, db_no_double, out3):
    """Write the no-double equities (centred, owned, opponent owned) of the player on roll:
    he does not double now, rolls and plays, and the opponent then decides with the cube as
    it was; ``db_no_double`` : [924, 924, 3]."""
    _two_sided_row(pos, db_no_double, out3)


@kernel(inline="always")
def _two_sided_row(pos, table, out):
    """``out[:3]`` = the two-sided ``table``'s row of ``pos`` (player on roll, opponent)."""
    x = player_index(pos)
    y = opponent_index(pos)
    for k in range(3):
        out[k] = table[x, y, k]


@kernel
def one_sided_race_probs(pos, db1, out5):
    """Approximate five probabilities of a race from two one-sided lookups (call where
    :func:`one_sided_applies`).

    ``db1`` : float32[54264, 2, R] (:func:`build_one_sided`'s ``dist``: home-board
    bear-offs), float32[EXTENDED_SIZE, 2, R] (:func:`build_extended_one_sided`: also a
    straggler on each side) or float32[FULL_SIZE, 2, R] (:func:`build_full_one_sided`: also a
    side of at most ``FEW_CHECKERS`` checkers anywhere). With ``A`` / ``B`` the
    rolls the player / opponent need to finish and ``G_p`` / ``G_o`` the rolls each needs for a
    first checker off (independent): the player on roll wins iff ``A <= B``, wins a gammon iff
    ``A <= G_o``, loses a gammon iff ``G_p > B``. Backgammons are impossible here.
    Approximation: see the module doc.
    """
    _rows_race_probs(side_row(pos, 0, db1.shape[0]), side_row(pos, 1, db1.shape[0]), db1, out5)


@kernel(inline="always")
def _rows_race_probs(x, y, db1, out5):
    """:func:`one_sided_race_probs` of the rows ``x`` (the player on roll) and ``y`` (the
    opponent) of ``db1``."""
    nr = db1.shape[2]
    win = 0.0
    wg = 0.0
    lg = 0.0
    # tails: T_B(a) = P(B >= a), T_Go(a) = P(G_o >= a), T_Gp(a) = P(G_p >= a)
    tb = 1.0
    tgo = 1.0
    tgp = 1.0
    for a in range(nr):
        pa = db1[x, 0, a]
        win += pa * tb
        wg += pa * tgo
        tgp -= db1[x, 1, a]  # now P(G_p >= a + 1)
        lg += db1[y, 0, a] * tgp
        tb -= db1[y, 0, a]
        tgo -= db1[y, 1, a]
    if win > 1.0:
        win = 1.0
    if wg < 0.0:
        wg = 0.0
    if lg < 0.0:
        lg = 0.0
    out5[0] = win
    out5[1] = wg if wg < win else win
    out5[2] = 0.0
    out5[3] = lg if lg < 1.0 - win else 1.0 - win
    out5[4] = 0.0


# --------------------------------------------------------------------------------------------
# one-sided database extended by a straggler
#
# Rows ``ONE_SIDED_SIZE ..`` of the extended one-sided database hold the positions of one side
# with exactly one checker outside its home board, on its point 7..18, and at most 14 on its
# home points: row ``ONE_SIDED_SIZE + (s - 7) * STRAGGLER_HOME + bearoff_index(home)``. Their
# distributions are solved like the home-board ones (each roll played to minimise the expected
# number of rolls, successors first in order of increasing pip count); a successor is a
# straggler row again or a home-board row. The two sides of a race are looked up
# independently (:func:`one_sided_race_probs`): the same approximation as in the home board,
# now also for the late races with a last checker coming home, where the race net errs most.
# A straggler on 18 or lower is never in the opponent's home board: no backgammons.

STRAGGLER_LO, STRAGGLER_HI = 7, 18
STRAGGLER_HOME = num_positions(NUM_CHECKERS - 1)  # 38,760 home boards of <= 14 checkers
STRAGGLER_ROWS = (STRAGGLER_HI - STRAGGLER_LO + 1) * STRAGGLER_HOME  # 465,120
EXTENDED_SIZE = ONE_SIDED_SIZE + STRAGGLER_ROWS


# --------------------------------------------------------------------------------------------
# one-sided database extended by the few-checker rows
#
# Rows ``EXTENDED_SIZE ..`` hold every position of one side with at most ``FEW_CHECKERS``
# checkers anywhere on its points 1..24 (none on the bar), the rest borne off:
# row ``EXTENDED_SIZE + few_index(counts)``, where ``few_index`` ranks the counts of the 24
# points like :func:`bearoff_index` ranks those of 6 (stars and bars, colexicographic: with
# ``s_j = c_1 + ... + c_j`` the numbers ``a_j = s_j + j - 1`` form a 24-subset of
# ``{0, ..., N + 23}`` for ``N`` checkers, and the rank is ``sum_j C(a_j, j)``). So the
# positions of at most ``K`` checkers are exactly the ranks ``< C(K + 24, 24)``: 118,755 for
# ``K = 5``, 593,775 for ``K = 6``, and rank 0 is "all off". A side with fewer than 15
# checkers has one off, so these rows' "first checker off" distribution is ``k = 0`` with
# probability 1, as in the other rows; and a side with a checker off cannot lose a gammon.
#
# These rows are solved on their own (a successor of a few-checker position is one again: its
# row here, never a home-board or straggler row), so where both apply they are a second
# computation of the same distribution; :func:`side_row` looks up the home-board and straggler
# rows first. Like the straggler rows, their last bucket means "R - 1 rolls or more".

FEW_POINTS = 24
#: most checkers of a side in the few-checker rows (K)
FEW_CHECKERS = 6

# FEW_BINOM[a, j] = C(a, j), a <= 15 + 24, j <= 24: ranks any side of up to 15 checkers
FEW_BINOM = np.zeros((NUM_CHECKERS + FEW_POINTS + 1, FEW_POINTS + 1), dtype=np.int64)
for _a in range(FEW_BINOM.shape[0]):
    FEW_BINOM[_a, 0] = 1
    for _j in range(1, FEW_POINTS + 1):
        FEW_BINOM[_a, _j] = FEW_BINOM[_a - 1, _j - 1] + FEW_BINOM[_a - 1, _j] if _a > 0 else 0
FEW_BINOM.setflags(write=False)


def num_few_positions(max_checkers: int) -> int:
    """Number of one-side positions with at most ``max_checkers`` (0..15) checkers on 1..24."""
    if not 0 <= max_checkers <= NUM_CHECKERS:
        raise ValueError(f"max_checkers must be 0..15, got {max_checkers}")
    return int(FEW_BINOM[max_checkers + FEW_POINTS, FEW_POINTS])


FEW_ROWS = num_few_positions(FEW_CHECKERS)
FULL_SIZE = EXTENDED_SIZE + FEW_ROWS


@kernel
def few_index(pos, side):
    """Rank of one side's checkers on its points 1..24 (``side`` as in :func:`side_row`), or
    -1 if it has a checker on the bar. The positions of at most ``K`` checkers have the ranks
    ``0 .. num_few_positions(K) - 1``."""
    bar = pos[25] if side == 0 else -pos[0]
    if bar > 0:
        return -1
    s = 0
    r = 0
    for j in range(1, FEW_POINTS + 1):
        v = pos[j] if side == 0 else -pos[25 - j]
        if v > 0:
            s += v
        r += FEW_BINOM[s + j - 1, j]
    return r


@kernel
def side_row(pos, side, nrows):
    """Row of one side's checkers in a one-sided database of ``nrows`` rows, or -1.

    ``side`` 0: the player (positive counts, bar at 25); 1: the opponent (negative counts, its
    point ``j`` at ``pos[25 - j]``, its bar at 0). All checkers home: the home-board row
    (:func:`bearoff_index`). One checker on the side's point 7..18 and the rest home: its
    straggler row, if the database is the extended one (``nrows > ONE_SIDED_SIZE``). Else, if
    the database also has few-checker rows (``nrows > EXTENDED_SIZE``, see
    :func:`few_index`) and the side is in their range (none on the bar, at most as many
    checkers as the rows hold): its few-checker row. The home-board and straggler rows come
    first: a position in both is looked up there."""
    s = 0
    r = 0
    for j in range(1, 7):
        v = pos[j] if side == 0 else -pos[25 - j]
        if v > 0:
            s += v
        r += BINOM[s + j - 1, j]
    straggler = 0  # its point; -1: not a single straggler
    outside = 0
    for j in range(7, 26):
        v = pos[j] if side == 0 else -pos[25 - j]
        if v > 0:
            outside += v
            if straggler != 0 or v > 1 or j > STRAGGLER_HI:
                straggler = -1
            else:
                straggler = j
    if straggler == 0:
        return r
    if straggler > 0 and nrows > ONE_SIDED_SIZE:
        return ONE_SIDED_SIZE + (straggler - STRAGGLER_LO) * STRAGGLER_HOME + r
    if nrows <= EXTENDED_SIZE or s + outside > FEW_CHECKERS:  # (most races: no ranking)
        return -1
    f = few_index(pos, side)
    if f < 0 or f >= nrows - EXTENDED_SIZE:
        return -1
    return EXTENDED_SIZE + f


@kernel
def one_sided_applies(pos, db1):
    """Can :func:`one_sided_race_probs` value ``pos`` with the database ``db1``: a race (or a
    home-board bear-off) where each side is in ``db1``'s range?"""
    n = db1.shape[0]
    if n == 0:
        return False
    if n <= ONE_SIDED_SIZE:
        return is_bearoff(pos)
    if side_row(pos, 0, n) < 0 or side_row(pos, 1, n) < 0:
        return False
    return is_race(pos)  # a straggler may still be in contact with the other side's


@kernel(inline="always")
def _add_successor(dist, i, j, kind, w):
    """``dist[i, kind] += w *`` row ``j``'s distribution one roll later: what a roll of weight
    ``w`` whose best play reaches row ``j`` adds to row ``i``. The last bucket means "that
    many rolls or more"."""
    nrolls = dist.shape[2]
    for k in range(nrolls - 1):
        dist[i, kind, k + 1] += w * dist[j, kind, k]
    dist[i, kind, nrolls - 1] += w * dist[j, kind, nrolls - 1]


@kernel(inline="always")
def _solve_row(i, full, succ, nsucc, dist, mean, weights):
    """Row ``i`` of ``dist`` (zero) and ``mean`` from its successors: ``succ[r, :nsucc[r]]`` the
    rows the plays of roll ``r`` (weight ``weights[r]`` of 36) reach, each roll played to
    minimise the expected number of rolls, to bear off all and, for a side of 15 checkers
    (``full``), separately to take a first checker off (else that takes 0 rolls)."""
    if not full:
        dist[i, FIRST_OFF, 0] = 1.0
        mean[i, FIRST_OFF] = 0.0
    e_all = 1.0
    e_first = 1.0
    for r in range(nsucc.shape[0]):
        w = weights[r] / 36.0
        best, bestv, gbest, gbestv = _fastest(succ[r], nsucc[r], mean)
        e_all += w * bestv
        _add_successor(dist, i, best, ALL_OFF, w)
        if full:
            e_first += w * gbestv
            _add_successor(dist, i, gbest, FIRST_OFF, w)
    mean[i, ALL_OFF] = e_all
    if full:
        mean[i, FIRST_OFF] = e_first


@kernel(_nrt=True)
def _build_stragglers(order, home_counts, dist, mean, rolls, weights, mws, ppos, pmov):
    """Fill the straggler rows of ``dist`` float64[EXTENDED_SIZE, 2, R] and ``mean`` (whose
    home-board rows are filled), in the pip order ``order`` (row offsets)."""
    pos = np.zeros(26, dtype=np.int8)
    succ = np.empty((rolls.shape[0], ppos.shape[0]), dtype=np.int64)
    nsucc = np.empty(rolls.shape[0], dtype=np.int64)
    nrows = dist.shape[0]
    for oi in range(order.shape[0]):
        q = order[oi]
        i = ONE_SIDED_SIZE + q
        h = q % STRAGGLER_HOME
        for k in range(26):
            pos[k] = 0
        tot = 1
        for j in range(6):
            pos[j + 1] = home_counts[h, j]
            tot += home_counts[h, j]
        pos[q // STRAGGLER_HOME + STRAGGLER_LO] = 1
        for r in range(rolls.shape[0]):
            nsucc[r] = _generate_plays(pos, rolls[r, 0], rolls[r, 1], mws, ppos, pmov)
            for k in range(nsucc[r]):
                succ[r, k] = side_row(ppos[k], 0, nrows)
        _solve_row(i, tot == NUM_CHECKERS, succ, nsucc, dist, mean, weights)


def _build_by_pip_level(order, pips, parts, run, build) -> None:
    """Calls ``build(rows, workspace, plays, moves)`` on the rows ``order`` lists (sorted by
    their pip counts ``pips``), one pip count after the other, each pip count's rows cut into
    ``parts`` slices that ``run`` (a callable given the list of tasks; None: one after the
    other) may run at once, each slice with a move-generation workspace of its own."""
    from bgtui.engine.constants import MAX_PLAYS, MOVE_SIZE
    from bgtui.engine.movegen import make_workspace

    workspaces = [
        (
            make_workspace(),
            np.zeros((MAX_PLAYS, 26), dtype=np.int8),
            np.zeros((MAX_PLAYS, MOVE_SIZE), dtype=np.int8),
        )
        for _ in range(parts)
    ]
    levels = np.flatnonzero(np.diff(pips[order])) + 1  # where the pip count changes
    bounds = np.concatenate([[0], levels, [len(order)]])
    run = run or (lambda tasks: [t() for t in tasks])
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        cuts = np.linspace(lo, hi, parts + 1).astype(np.int64)

        def task(k, a, b):
            mws, ppos, pmov = workspaces[k]
            return lambda: build(order[a:b], mws, ppos, pmov)

        run([task(k, cuts[k], cuts[k + 1]) for k in range(parts) if cuts[k + 1] > cuts[k]])


def build_extended_one_sided(home_dist, home_mean, parts: int = 1, run=None):
    """The extended one-sided database: the home-board database ``(home_dist float32[54264,
    2, R], home_mean)`` followed by the straggler rows. A straggler row's last bucket means
    "R - 1 rolls or more" (a straggler on 18 behind 14 checkers on the 6 point can need more
    than 32 rolls, with a probability below 1e-7). Returns ``(dist float32[EXTENDED_SIZE,
    2, R], mean float64[EXTENDED_SIZE, 2])``.

    The rows of one pip count depend only on rows of smaller pip counts, so each pip count's
    rows are split into ``parts`` slices, built by ``run(tasks)`` (default: one after the
    other; the caller may run them on threads: the kernel releases the GIL), one pip count
    after the other. Every row is computed alone, so the result does not depend on ``parts``.
    """

    nrolls = home_dist.shape[2]
    counts, pips, _ = _positions_and_pips(STRAGGLER_HOME)
    spt = np.repeat(np.arange(STRAGGLER_LO, STRAGGLER_HI + 1), STRAGGLER_HOME)
    total = spt + np.tile(pips, STRAGGLER_HI - STRAGGLER_LO + 1)
    order = np.argsort(total, kind="stable").astype(np.int64)
    dist = np.zeros((EXTENDED_SIZE, 2, nrolls), dtype=np.float64)
    mean = np.zeros((EXTENDED_SIZE, 2), dtype=np.float64)
    dist[:ONE_SIDED_SIZE] = home_dist
    mean[:ONE_SIDED_SIZE] = home_mean
    _build_by_pip_level(
        order,
        total,
        parts,
        run,
        lambda rows, mws, ppos, pmov: _build_stragglers(
            rows, counts, dist, mean, ROLLS, ROLL_WEIGHTS, mws, ppos, pmov
        ),
    )
    # the home rows come in float32 (sums within 1e-7 of 1); nothing else is lost
    lost = np.abs(dist[ONE_SIDED_SIZE:].sum(axis=2) - 1.0).max()
    if lost > 1e-6:
        raise ValueError(f"straggler rows lose probability {lost:.3g}")
    return dist.astype(np.float32), mean


# --------------------------------------------------------------------------------------------
# few-checker rows: the builder


@kernel
def few_position(index, out):
    """Inverse of :func:`few_index` for the player: write the counts of points 1..24 into
    ``out[1..24]`` (``out`` int8[26], cleared first); return the number of checkers."""
    for k in range(out.shape[0]):
        out[k] = 0
    r = index
    s_above = 0
    total = 0
    for j in range(FEW_POINTS, 0, -1):
        a = j - 1
        while a < FEW_BINOM.shape[0] - 2 and FEW_BINOM[a + 1, j] <= r:
            a += 1
        r -= FEW_BINOM[a, j]
        s = a - (j - 1)  # checkers on points 1..j
        if j == FEW_POINTS:
            total = s
        else:
            out[j + 1] = s_above - s
        s_above = s
    out[1] = s_above
    return total


@kernel(_nrt=True)
def _few_pips(npos):
    pos = np.zeros(26, dtype=np.int8)
    pips = np.zeros(npos, dtype=np.int64)
    for i in range(npos):
        few_position(i, pos)
        for j in range(1, FEW_POINTS + 1):
            pips[i] += j * pos[j]
    return pips


@kernel(_nrt=True)
def _build_few(order, dist0, mean0, rolls, weights, mws, ppos, pmov):
    """Fill the few-checker rows ``order`` (ranks) of ``dist0`` float64[n, R] (the rolls to bear
    off all) and ``mean0`` float64[n] (their means), rank = row, each roll played to minimise
    the expected number of rolls; every successor's row must be filled."""
    pos = np.zeros(26, dtype=np.int8)
    nrolls = dist0.shape[1]
    for oi in range(order.shape[0]):
        i = order[oi]
        if i == 0:
            dist0[0, 0] = 1.0
            mean0[0] = 0.0
            continue
        few_position(i, pos)
        e_all = 1.0
        for r in range(rolls.shape[0]):
            w = weights[r] / 36.0
            n = _generate_plays(pos, rolls[r, 0], rolls[r, 1], mws, ppos, pmov)
            best = few_index(ppos[0], 0)
            bestv = mean0[best]
            for k in range(1, n):  # the first of equals, as _fastest
                s = few_index(ppos[k], 0)
                if mean0[s] < bestv:
                    bestv = mean0[s]
                    best = s
            e_all += w * bestv
            for k in range(nrolls - 1):
                dist0[i, k + 1] += w * dist0[best, k]
            dist0[i, nrolls - 1] += w * dist0[best, nrolls - 1]  # "that many or more"
        mean0[i] = e_all


def build_few_checker_rows(
    max_checkers: int = FEW_CHECKERS, nrolls: int = MAX_ROLLS, parts: int = 1, run=None, out=None
):
    """The few-checker rows on their own: every side of at most ``max_checkers`` checkers on
    points 1..24 (row = :func:`few_index`). Returns ``(dist float32[n, 2, nrolls], mean
    float64[n, 2])`` with ``n = num_few_positions(max_checkers)``, ``dist`` written into
    ``out`` if given (then ``out`` is returned: the caller's rows of a larger array).
    ``dist[:, 1]`` (the rolls to a first checker off) is 0 rolls with probability 1.

    Solved in order of increasing pip count, each pip count's rows in ``parts`` slices run by
    ``run(tasks)`` as in :func:`build_extended_one_sided` (the result does not depend on it).
    Working memory: ``8 * n * nrolls`` bytes besides the result (152 MB for ``K = 6``).
    """

    if not 0 <= max_checkers < NUM_CHECKERS:
        raise ValueError(
            "the few-checker rows are for sides with a checker off (0..14 on the "
            f"board), got {max_checkers}"
        )
    npos = num_few_positions(max_checkers)
    pips = _few_pips(npos)
    order = np.argsort(pips, kind="stable").astype(np.int64)
    dist0 = np.zeros((npos, nrolls), dtype=np.float64)
    mean0 = np.zeros(npos, dtype=np.float64)
    _build_by_pip_level(
        order,
        pips,
        parts,
        run,
        lambda rows, mws, ppos, pmov: _build_few(
            rows, dist0, mean0, ROLLS, ROLL_WEIGHTS, mws, ppos, pmov
        ),
    )
    lost = np.abs(dist0.sum(axis=1) - 1.0).max()
    if lost > 1e-9:
        raise ValueError(f"few-checker rows lose probability {lost:.3g}")
    if out is None:
        out = np.empty((npos, 2, nrolls), dtype=np.float32)
    if out.shape != (npos, 2, nrolls) or out.dtype != np.float32:
        raise ValueError(f"out must be float32{(npos, 2, nrolls)}, got {out.dtype}{out.shape}")
    out[:, 0] = dist0
    out[:, 1] = 0.0
    out[:, 1, 0] = 1.0
    mean = np.zeros((npos, 2), dtype=np.float64)
    mean[:, 0] = mean0
    return out, mean


def build_full_one_sided(home_dist, home_mean, parts: int = 1, run=None):
    """The one-sided database of every kind of row: home boards, stragglers
    (:func:`build_extended_one_sided`) and few checkers (:func:`build_few_checker_rows`),
    ``float32[FULL_SIZE, 2, R]``, looked up by :func:`side_row`."""
    ext, _ = build_extended_one_sided(home_dist, home_mean, parts=parts, run=run)
    full = np.empty((FULL_SIZE,) + ext.shape[1:], dtype=np.float32)
    full[:EXTENDED_SIZE] = ext
    del ext
    build_few_checker_rows(
        FEW_CHECKERS, full.shape[2], parts=parts, run=run, out=full[EXTENDED_SIZE:]
    )
    return full
