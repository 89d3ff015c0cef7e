"""Neural-net inputs: a raw board encoding plus hand-crafted features.

Layout of the input vector (``NUM_INPUTS`` float32), for the side on roll ("player") and then
the opponent, each seen from its own side:

* ``RAW_PER_SIDE`` = 98 raw inputs per side: for each of that side's points 1..24 four
  thermometer inputs (n >= 1, n >= 2, n >= 3, (n - 3) / 2 when n > 3), then checkers on the
  bar / 2, then checkers borne off / 15;
* ``NUM_FEATURES`` hand-crafted features per side (see ``FEATURE_NAMES``).

The raw part of a side depends only on (point, count), and so does each feature that is a sum
over the points (all but ``NONLINEAR_FEATURES``), so a first-layer contribution per point and
count can be precomputed for inference (``nn.make_tables``).
"""

import numpy as np

from bgtui.engine._jit import kernel
from bgtui.engine.bits import leading_zeros, popcount
from bgtui.engine.position import is_race, pip_counts, swap_sides_into

RAW_PER_SIDE = 98
FEATURE_NAMES = (
    "pips",  # pip count / 100
    "pip_lead",  # (opponent pips - own pips) / 50
    "back_checkers",  # checkers on the bar or in the opponent's home board / 5
    "back_anchor",  # made points in the opponent's home board / 2
    "escapes",  # rolls (of 36) that let the rearmost checker pass the opponent's last block / 36
    "blocked_rear",  # 1 - escapes, weighted by how far back the rearmost checker is
    "home_points",  # made points in the own home board / 6
    "prime",  # longest run of made points / 6
    "shots",  # rolls (of 36) on which the opponent can hit one of our blots / 36
    "blots",  # blots (not counting home blots in a race) / 4
    "outfield",  # checkers on points 7..18 / 15
    "stacking",  # checkers beyond the third on any point / 10
    "off_progress",  # checkers borne off / 15, squared (bear-off progress)
    "bar",  # checkers on the bar (1 if any)
    "hit_loss",  # pips lost to a hit, summed over the 36 rolls (largest loss per roll) / 360
)
NUM_FEATURES = len(FEATURE_NAMES)
#: The features that are not a sum over points of a function of (point, checker count): all
#: the others are folded into the first-layer tables (``nn.make_tables``), so inference with
#: tables computes only these (``_fill_nonlinear``), and none at all in races.
NONLINEAR_FEATURES = (4, 5, 7, 8, 14)  # escapes, blocked_rear, prime, shots, hit_loss
NUM_NONLINEAR = len(NONLINEAR_FEATURES)
PER_SIDE = RAW_PER_SIDE + NUM_FEATURES
NUM_INPUTS = 2 * PER_SIDE
#: input-encoding version: bump whenever the meaning of any input changes.
INPUT_VERSION = 2


def _direct_rolls():
    """``direct[d]``: the rolls (bit ``6 * (d1 - 1) + d2 - 1``, d1 <= d2) that contain a die d."""
    direct = np.zeros(7, dtype=np.int64)
    for d1 in range(1, 7):
        for d2 in range(d1, 7):
            bit = 6 * (d1 - 1) + d2 - 1
            direct[d1] |= np.int64(1) << bit
            direct[d2] |= np.int64(1) << bit
    return direct


_DIRECT_ROLLS = _direct_rolls()
_DOUBLES = np.int64(sum(1 << (7 * d) for d in range(6)))
_NON_DOUBLES = np.int64(
    sum(1 << (6 * (a - 1) + b - 1) for a in range(1, 7) for b in range(a + 1, 7))
)
#: ``_DOUBLE_DICE[d, :_DOUBLE_COUNT[d]]``: the doubles dd-dd that cover distance d in 2..4 steps
_DOUBLE_DICE = np.zeros((25, 3), dtype=np.int64)
_DOUBLE_COUNT = np.zeros(25, dtype=np.int64)
for _d in range(25):
    for _dd in range(1, 7):
        if _d % _dd == 0 and 2 <= _d // _dd <= 4:
            _DOUBLE_DICE[_d, _DOUBLE_COUNT[_d]] = _dd
            _DOUBLE_COUNT[_d] += 1


@kernel
def _shots(pos):
    """Rolls (of 36) on which the opponent can hit at least one of the player's blots.

    The opponent moves upward (index increasing) from slot 0 (their bar). Points with two or
    more of the player's checkers block intermediate landings. With checkers on the bar the
    opponent can hit only with entering checkers (an approximation that ignores the second die
    being used by another checker after entry); with two or more on the bar each die enters its
    own checker, so only direct shots count.

    Computed over (opponent checker, blot) pairs into a set of rolls (a bit per roll): a direct
    shot at distance d <= 6 is hit by every roll with a d; a shot at d = d1 + d2 needs one of the
    two intermediate points open; a double's shot at k * d needs its k - 1 landing points open.
    ``tests/engine/test_features.py`` checks it against the roll-by-roll reference.
    """
    first = 25
    last = 0
    for i in range(1, 25):
        if pos[i] == 1:
            if first == 25:
                first = i
            last = i
    return _shots_at(pos, first, last)


@kernel
def _shots_at(pos, first, last):
    """:func:`_shots` given the player's first and last blot (``last == 0``: no blot)."""
    return _shots_and_loss(pos, first, last)[0]


def _shot_table():
    """``SHOT[d, blocks]`` for distances d <= 12: the rolls (bits as in ``_direct_rolls``) on
    which an opponent checker ``d`` pips behind a blot hits it, given which of the 11 points in
    front of that checker the player blocks (bit ``t`` of ``blocks``: the point ``t + 1``
    ahead). A direct shot is hit by every roll with that die; a combination d1 + d2 needs one
    of the two intermediate points open; a double's k steps need every landing before the last
    open. Beyond 12 pips only doubles hit (:func:`_far_shots`)."""
    blocks = np.arange(2048, dtype=np.int64)

    def is_open(t):  # the point t pips ahead of the hitter is not blocked
        return ((blocks >> (t - 1)) & 1) == 0

    table = np.zeros((13, 2048), dtype=np.int64)
    for d in range(1, 13):
        if d <= 6:
            table[d] |= _DIRECT_ROLLS[d]
        for d1 in range(1, 7):
            d2 = d - d1
            if d1 < d2 <= 6:
                ok = is_open(d1) | is_open(d2)
                table[d] |= np.where(ok, np.int64(1) << (6 * (d1 - 1) + d2 - 1), 0)
        for q in range(_DOUBLE_COUNT[d]):
            dd = _DOUBLE_DICE[d, q]
            ok = np.ones(2048, dtype=bool)
            for t in range(dd, d, dd):
                ok &= is_open(t)
            table[d] |= np.where(ok, np.int64(1) << (7 * (dd - 1)), 0)
    return table


_SHOT = _shot_table()


@kernel
def _far_shots(blocks, j, d):
    """The rolls (doubles only) on which an opponent checker on ``j`` hits a blot ``d`` > 12
    pips ahead: every landing before the last open (``blocks``: the player's made points, a
    bit per slot)."""
    mask = np.int64(0)
    for q in range(_DOUBLE_COUNT[d]):
        dd = _DOUBLE_DICE[d, q]
        ok = True
        for t in range(dd, d, dd):
            if (blocks >> (j + t)) & 1:
                ok = False
                break
        if ok:
            mask |= np.int64(1) << (7 * (dd - 1))
    return mask


@kernel
def _shots_and_loss(pos, first, last):
    """(:func:`_shots`, the pips the player loses to the hit summed over the 36 rolls: for
    each roll the largest loss ``25 - b`` among the blots ``b`` it can hit).

    The points the player blocks, the opponent's checkers and the blots as bit masks, then
    :func:`_shots_and_loss_masks`."""
    if last == 0:
        return 0.0, 0.0
    blocks = np.int64(0)
    hitters = np.int64(0)
    blots = np.int64(0)
    for p in range(25):
        v = pos[p]
        blocks |= np.int64(v >= 2) << p
        hitters |= np.int64(v < 0) << p
        blots |= np.int64(v == 1) << p
    return _shots_and_loss_masks(blocks, hitters, blots, pos[0] < -1, first, last)


@kernel(inline="always")
def _shots_and_loss_masks(blocks, hitters, blots, multi, first, last):
    """:func:`_shots_and_loss` from bit masks over the slots 0..24 of the side on roll:
    ``blocks`` its made points, ``hitters`` the opponent's checkers (bit 0: the opponent's
    bar), ``blots`` its blots; ``multi``: two or more opponent checkers on the bar.

    Blot by blot from the rearmost (largest loss): the rolls that hit blot ``b`` and no blot
    behind it count its loss. Each (opponent point, blot) pair is one lookup in ``_SHOT`` by
    their distance and the blocks in between."""
    if last == 0:
        return 0.0, 0.0
    if hitters & 1:
        hitters = np.int64(1)  # on the bar: only entering checkers can hit
    blots &= (np.int64(2) << last) - (np.int64(1) << first)
    covered = np.int64(0)
    loss = 0.0
    while blots != 0:
        low_b = blots & -blots
        blots ^= low_b
        b = _popcount(low_b - 1)
        mask = np.int64(0)
        behind = hitters & (low_b - 1)
        while behind != 0:
            low = behind & -behind
            behind ^= low
            j = _popcount(low - 1)
            d = b - j
            if multi:  # each die enters its own checker: direct shots only
                if d <= 6:
                    mask |= _DIRECT_ROLLS[d]
            elif d <= 12:
                mask |= _SHOT[d, (blocks >> (j + 1)) & 2047]
            else:
                mask |= _far_shots(blocks, j, d)
        new = mask & ~covered
        if new != 0:
            # each non-double bit stands for two of the 36 rolls, each double bit for one
            loss += (2 * _popcount(new & _NON_DOUBLES) + _popcount(new & _DOUBLES)) * (25 - b)
            covered |= mask
    return float(2 * _popcount(covered & _NON_DOUBLES) + _popcount(covered & _DOUBLES)), loss


@kernel(inline="always")
def _popcount(x):
    """Number of set bits of a non-negative int64 (``bits.popcount``)."""
    return popcount(x)


@kernel
def _escapes(pos, b):
    """Rolls (of 36) on which a player checker on point ``b`` can pass the opponent's last
    blocking point (two or more opponent checkers) among the 12 points in front of it.

    The points it may land on are a bit mask by distance; each roll is then a few bit tests
    (a non-double: either die first, the sum only through an open first landing; a double:
    every landing up to the first beyond the block open)."""
    last = 0
    for k in range(max(1, b - 12), b):
        if pos[k] <= -2:
            last = k
            break
    if last == 0:
        return 36.0
    need = b - last  # must move more than this many pips
    reach = min(b - 1, 24)
    land = np.int64(0)  # bit t: the point t pips ahead is on the board and not blocked
    for t in range(1, reach + 1):
        land |= np.int64(pos[b - t] > -2) << t
    total = 0
    for d1 in range(1, 7):
        o1 = (land >> d1) & 1
        loc = 0
        for k in range(4):
            loc += d1
            if ((land >> loc) & 1) == 0:
                break
            if loc > need:
                total += 1
                break
        for d2 in range(d1 + 1, 7):
            o2 = (land >> d2) & 1
            via = ((land >> (d1 + d2)) & 1) & np.int64(d1 + d2 > need)
            ok = (o1 & (np.int64(d1 > need) | via)) | (o2 & (np.int64(d2 > need) | via))
            total += 2 * ok
    return float(total)


@kernel
def _fill_side(pos, out, base, opp_pips, race):
    """Inputs of the side on roll in ``pos`` into ``out[base : base + PER_SIDE]``."""
    mine = 0
    pips = 0
    for i in range(1, 25):
        n = pos[i]
        o = base + 4 * (i - 1)
        if n > 0:
            mine += n
            pips += n * i
            out[o] = 1.0
            out[o + 1] = 1.0 if n >= 2 else 0.0
            out[o + 2] = 1.0 if n >= 3 else 0.0
            out[o + 3] = (n - 3) * 0.5 if n > 3 else 0.0
        else:
            out[o] = 0.0
            out[o + 1] = 0.0
            out[o + 2] = 0.0
            out[o + 3] = 0.0
    bar = pos[25]
    mine += bar
    pips += 25 * bar
    out[base + 96] = bar * 0.5
    off = 15 - mine
    out[base + 97] = off / 15.0
    _side_features(pos, out, base + RAW_PER_SIDE, opp_pips, race)


@kernel
def _side_features(pos, out, f, opp_pips, race):
    """The ``NUM_FEATURES`` hand-crafted features of the side on roll in ``pos`` into
    ``out[f : f + NUM_FEATURES]`` (one pass over the points, then escapes and shots)."""
    bar = pos[25]
    mine = bar
    pips = 25 * bar
    back = bar  # on the bar or in the opponent's home board
    anchors = 0
    home = 0
    best = 0
    run = 0
    blots = 0
    first_blot = 25
    last_blot = 0
    outfield = 0
    stack = 0
    rear = 25 if bar > 0 else 0
    for i in range(1, 25):
        n = pos[i]
        if n > 0:
            mine += n
            pips += n * i
            if bar == 0:
                rear = i
            if n > 3:
                stack += n - 3
            if n >= 2:
                run += 1
                if run > best:
                    best = run
                if i <= 6:
                    home += 1
                elif i >= 19:
                    anchors += 1
            else:
                run = 0
                blots += 1
                if first_blot == 25:
                    first_blot = i
                last_blot = i
            if i >= 19:
                back += n
            elif 7 <= i <= 18:
                outfield += n
        else:
            run = 0
    off = 15 - mine
    out[f + 0] = pips / 100.0
    out[f + 1] = (opp_pips - pips) / 50.0
    if race:
        for k in range(2, NUM_FEATURES):
            out[f + k] = 0.0
        out[f + 11] = stack / 10.0
        out[f + 12] = (off / 15.0) ** 2
        return
    out[f + 2] = back / 5.0
    out[f + 3] = anchors / 2.0
    esc = _escapes(pos, rear) if rear > 0 else 36.0
    out[f + 4] = esc / 36.0
    out[f + 5] = (1.0 - esc / 36.0) * (rear / 24.0)
    out[f + 6] = home / 6.0
    out[f + 7] = best / 6.0
    shots, loss = _shots_and_loss(pos, first_blot, last_blot)
    out[f + 8] = shots / 36.0
    out[f + 9] = blots / 4.0
    out[f + 10] = outfield / 15.0
    out[f + 11] = stack / 10.0
    out[f + 12] = (off / 15.0) ** 2
    out[f + 13] = 1.0 if bar > 0 else 0.0
    out[f + 14] = loss / 360.0


@kernel
def _fill_inputs(pos, swapped, out):
    """Fill ``out`` (float32[NUM_INPUTS]) for ``pos`` (player on roll).

    ``swapped`` : int8[26] scratch, receives the board from the opponent's side.
    """
    swap_sides_into(pos, swapped)
    my_pips, opp_pips = pip_counts(pos)
    race = is_race(pos)
    _fill_side(pos, out, 0, opp_pips, race)
    _fill_side(swapped, out, PER_SIDE, my_pips, race)


@kernel(inline="always")
def _highest_bit(x):
    """Index of the highest set bit of an int64 0 < x."""
    return 63 - leading_zeros(x)


@kernel(inline="always")
def _side_scan(pos):
    """(rearmost point of the side on roll (25: on the bar, 0: none left), longest run of made
    points, first blot, last blot (0: no blot)), from bit masks of its checkers, made points
    and blots (no branch per point)."""
    mine = np.int64(0)
    made = np.int64(0)
    blots = np.int64(0)
    for i in range(1, 25):
        v = pos[i]
        mine |= np.int64(v > 0) << i
        made |= np.int64(v >= 2) << i
        blots |= np.int64(v == 1) << i
    return _scan_masks(mine, made, blots, pos[25] > 0)


#: the bits of the points 1..24 in a mask of slots; of the slots 0..24
POINTS = np.int64(((1 << 25) - 1) ^ 1)
LOW25 = np.int64((1 << 25) - 1)


@kernel(inline="always")
def _scan_masks(mine, made, blots, on_bar):
    """:func:`_side_scan` from bit masks over the points 1..24 (other bits must be clear) of
    the side's checkers, made points and blots, and whether it has a checker on the bar."""
    if on_bar:
        rear = 25
    elif mine != 0:
        rear = _highest_bit(mine)
    else:
        rear = 0
    best = 0
    while made != 0:  # each step shortens every run of made points by one
        made &= made << 1
        best += 1
    if blots != 0:
        first_blot = _popcount((blots & -blots) - 1)
        last_blot = _highest_bit(blots)
    else:
        first_blot = 25
        last_blot = 0
    return rear, best, first_blot, last_blot


@kernel(inline="always")
def _reverse26(x):
    """The 26-bit mask ``x`` (0 <= x < 2**26) seen from the other side: bit k to bit 25 - k
    (slot k of a position is slot 25 - k of the swapped one). Bits reversed within 32 bits
    by swapping halves, quarters, ..., then shifted down by 6."""
    x = ((x >> 1) & 0x55555555) | ((x & 0x55555555) << 1)
    x = ((x >> 2) & 0x33333333) | ((x & 0x33333333) << 2)
    x = ((x >> 4) & 0x0F0F0F0F) | ((x & 0x0F0F0F0F) << 4)
    x = ((x >> 8) & 0x00FF00FF) | ((x & 0x00FF00FF) << 8)
    x = ((x >> 16) & 0x0000FFFF) | ((x & 0x0000FFFF) << 16)
    return x >> 6


@kernel(inline="always")
def _side_write(pos, out, f, esc, rear, best, first_blot, last_blot):
    """Write the non-linear features of a side (see :func:`_side_nonlinear`) given its
    escapes ``esc`` and :func:`_side_scan`."""
    shots, loss = _shots_and_loss(pos, first_blot, last_blot)
    _write_nonlinear(out, f, esc, rear, best, shots, loss)


@kernel(inline="always")
def _write_nonlinear(out, f, esc, rear, best, shots, loss):
    out[f + 0] = esc / 36.0
    out[f + 1] = (1.0 - esc / 36.0) * (rear / 24.0)
    out[f + 2] = best / 6.0
    out[f + 3] = shots / 36.0
    out[f + 4] = loss / 360.0


@kernel
def _side_nonlinear(pos, out, f):
    """The ``NONLINEAR_FEATURES`` of the side on roll in a contact position ``pos`` into
    ``out[f : f + NUM_NONLINEAR]``, as :func:`_side_features` computes them."""
    rear, best, first_blot, last_blot = _side_scan(pos)
    esc = _escapes(pos, rear) if rear > 0 else 36.0
    _side_write(pos, out, f, esc, rear, best, first_blot, last_blot)


@kernel(inline="always")
def _side_nonlinear_memo(pos, out, f, memo):
    """:func:`_side_nonlinear`, the escapes looked up in (or added to) ``memo``
    (float32[26], escapes by rearmost point, -1: not yet known). The escapes depend on the
    rearmost point and the opponent's blocks only, and no play changes the blocks of the side
    not moving (a hit takes a blot), so one memo serves a mover's side in every play of a roll."""
    rear, best, first_blot, last_blot = _side_scan(pos)
    esc = _memo_escapes(pos, rear, memo)
    _side_write(pos, out, f, esc, rear, best, first_blot, last_blot)


@kernel(inline="always")
def _memo_escapes(pos, rear, memo):
    """The escapes of the side on roll in ``pos`` whose rearmost point is ``rear`` (36 when
    it has no checker left), from ``memo`` (see :func:`_side_nonlinear_memo`), computed and
    kept there when not yet known."""
    esc = 36.0
    if rear > 0:
        esc = memo[rear]
        if esc < 0.0:
            esc = _escapes(pos, rear)
            memo[rear] = esc
    return esc


#: entries of the escapes cache (:func:`_escapes_slot`), a power of two
ESCAPES_CACHE = 256


def make_escapes_cache():
    """(keys int64[ESCAPES_CACHE] all -1, escapes float32[ESCAPES_CACHE])."""
    return (np.full(ESCAPES_CACHE, -1, dtype=np.int64), np.zeros(ESCAPES_CACHE, dtype=np.float32))


@kernel(inline="always")
def _escapes_slot(rear, blocks):
    """(key, slot) of the escapes of rearmost point ``rear`` in a direct-mapped cache
    (:func:`make_escapes_cache`). The escapes of a rearmost point depend on that point and on
    which points the opponent blocks, nothing else; ``blocks`` is any one-to-one encoding of
    the latter (a bit mask of the opponent's made points), so a cached value holds for every
    position with the same key, whatever else differs."""
    key = rear | (blocks << 5)
    return key, ((key * np.int64(-7046029254386353131)) >> 56) & (ESCAPES_CACHE - 1)


@kernel
def _fill_nonlinear(pos, swapped, out):
    """The non-linear features of both sides (``2 * NUM_NONLINEAR`` floats, player first) into
    ``out``, for evaluation with first-layer tables (``nn.make_tables``), which hold all the
    other inputs; all zero in a race (where every race input is in the tables). ``swapped`` as
    in :func:`_fill_inputs`."""
    if is_race(pos):
        for k in range(2 * NUM_NONLINEAR):
            out[k] = 0.0
        return
    swap_sides_into(pos, swapped)
    _side_nonlinear(pos, out, 0)
    _side_nonlinear(swapped, out, NUM_NONLINEAR)
