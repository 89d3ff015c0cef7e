"""Legal plays: every distinct position a roll can reach, with one canonical play for each.

The kernel is one flat function with an explicit stack, not a recursion through small helpers.
Rules applied inside the kernel:

* checkers on the bar enter first;
* as many dice as possible must be used; when only one of two different dice can be used, the
  larger must be played if it can be;
* doubles move up to four times; for them sub-moves are generated with non-increasing starting
  points, which reaches every multiset of moves exactly once (any legal order can be sorted so,
  because a move from a lower point never makes a move from a higher point legal);
* bearing off only with all fifteen checkers home; a die larger than the highest occupied point
  bears off from the highest point;
* plays that reach the same position are one play (hash table with an exact comparison on a
  hash match); a roll with no legal play yields one "play": the position itself, no steps;
* for a non-double the larger die is tried first; with the smaller die first, a second step by
  another checker that neither enters nor bears off is skipped, because the larger-first run
  already produced it (own moves never unblock a point, and such a pair doesn't depend on order).

Outputs are from the mover's point of view, before sides are swapped. A play is ``int8[8]``:
up to four (from, to) steps, one die each, in the order played, -1 padded (25 = bar, 0 = off).
"""

import numpy as np
from numba.core import cgutils, types
from numba.extending import intrinsic

from bgtui.engine._jit import kernel
from bgtui.engine.bits import leading_zeros
from bgtui.engine.constants import MAX_PLAYS, MOVE_SIZE, POSITION_SIZE
from bgtui.engine.filter_terms import (
    _SPAN,
    _clip,
    _filter_change,
    _filter_score,
    _filter_sum,
)
from bgtui.engine.structs import MoveWorkspace

HASH_SIZE = 16384  # power of two, > 2 * MAX_PLAYS
_HASH_MASK = HASH_SIZE - 1


def make_zobrist(seed: int = 20261122) -> np.ndarray:
    """``uint64[26, 32]`` random keys, one per (slot, count + 16)."""
    rng = np.random.default_rng(seed)
    return rng.integers(0, 2**63, size=(POSITION_SIZE, 32), dtype=np.uint64) * np.uint64(2) + (
        rng.integers(0, 2, size=(POSITION_SIZE, 32), dtype=np.uint64)
    )


def make_workspace() -> MoveWorkspace:
    """Scratch arrays for :func:`_generate_plays` (:class:`MoveWorkspace`); allocate once per
    thread and reuse."""
    return MoveWorkspace(
        np.zeros((5, POSITION_SIZE), dtype=np.int8),  # position at each depth
        np.zeros(5, dtype=np.uint64),  # its hash
        np.zeros(5, dtype=np.int64),  # next starting point to try at each depth
        np.zeros(5, dtype=np.int64),  # children found at each depth
        np.full(MOVE_SIZE, -1, dtype=np.int8),  # steps of the current line
        np.zeros(4, dtype=np.int64),  # dice in the order tried
        make_zobrist(),
        np.zeros(HASH_SIZE, dtype=np.uint64),
        np.zeros(HASH_SIZE, dtype=np.int32),
        np.zeros(HASH_SIZE, dtype=np.int64),
        np.zeros(2, dtype=np.int64),  # [0] hash-table stamp
        np.zeros(5, dtype=np.int64),  # the mover's checkers at each depth, by slot
    )


@kernel(inline="always")
def _highest_bit(x):
    """Index of the highest set bit of an int64 0 < x."""
    return 63 - leading_zeros(x)


def _row_copier(nbytes):
    """An intrinsic ``copy(dst, i, src, j)``: the first ``nbytes`` bytes of row ``j`` of the
    int8 array ``src`` into row ``i`` of ``dst`` (a 1-D array is its own row 0; the rows
    must not overlap). One ``llvm.memcpy`` of a constant size, which LLVM turns into a few
    wide moves; a loop over the bytes stays a byte a move (numba cannot tell that the rows
    do not overlap)."""

    @intrinsic
    def copy(typingctx, dst, i, src, j):
        if not (isinstance(dst, types.Array) and isinstance(src, types.Array)):
            return None

        def codegen(context, builder, signature, args):
            def row_ptr(aryty, ary, idx, idxty):
                a = context.make_array(aryty)(context, builder, ary)
                inds = [context.cast(builder, idx, idxty, types.intp)]
                inds += [context.get_constant(types.intp, 0)] * (aryty.ndim - 1)
                if aryty.ndim == 1:
                    inds = [context.get_constant(types.intp, 0)]
                return cgutils.get_item_pointer(context, builder, aryty, a, inds)

            d = row_ptr(signature.args[0], args[0], args[1], signature.args[1])
            s = row_ptr(signature.args[2], args[2], args[3], signature.args[3])
            cgutils.raw_memcpy(builder, d, s, context.get_constant(types.intp, nbytes), 1)
            return context.get_dummy_value()

        return types.void(dst, i, src, j), codegen

    return copy


_copy_position = _row_copier(POSITION_SIZE)
_copy_move = _row_copier(MOVE_SIZE)


#: the 24 points (slots 1..24)
_POINTS = np.int64(((1 << 25) - 1) ^ 1)
#: the slots outside the mover's home board: points 7..24 and his bar (25)
_OUTSIDE = np.int64(((1 << 26) - 1) ^ ((1 << 7) - 1))
_BAR = np.int64(1 << 25)


@kernel(inline="always")
def _legal_starts(own, blocked, d):
    """The slots from which a checker can play die ``d``, as a bit mask: ``own``, the mover's
    checkers by slot; ``blocked``, the opponent's made points. A checker on the bar first;
    else any checker whose destination is not blocked, and, with every checker home, a
    checker on point ``d`` bearing off, or on the highest point when it is below ``d``."""
    if (own & _BAR) != 0:
        if (blocked >> (25 - d)) & 1:
            return np.int64(0)
        return _BAR
    # from p > d to p - d, not blocked
    legal = own & ~(blocked << d) & ~((np.int64(2) << d) - 1)
    if (own & _OUTSIDE) == 0 and own != 0:
        top = _highest_bit(own)
        if top <= d:  # exactly d pips off, or the highest checker with a larger die
            legal |= np.int64(1) << top
        else:
            legal |= own & (np.int64(1) << d)
    return legal


@kernel
def _generate_plays(pos, d1, d2, ws, out_pos, out_moves):
    """Fill ``out_pos[:n]`` (int8[n, 26]) and ``out_moves[:n]`` (int8[n, 8]); return ``n``.

    ``pos`` : int8[26], player on roll, must not be a finished game. ``d1``, ``d2`` : 1..6.
    ``ws`` : a :class:`MoveWorkspace` (:func:`make_workspace`). ``n >= 1`` always (a forced
    pass gives the position itself with no steps). Returns -1 if the output arrays are too small.
    """
    return _generate(pos, d1, d2, ws, out_pos, out_moves, 0, 0, 0, False)


@kernel(fastmath=True)
def _generate_scored_plays(pos, d1, d2, ws, out_pos, out_moves, fw1, fw2, fs):
    """:func:`_generate_plays`, and ``fs.scores[i]`` the filter net's score of play ``i``.

    The filter net (``filter_net``): ``fw1`` float32[2 * FILTER_ROWS, H] with its difference
    rows, ``fw2`` float32[H + 1]; ``fs`` its scratch (``filter_net.make_filter_scratch``),
    whose ``level_h[0]`` holds the pre-activation of ``pos`` (``filter_net.filter_parent``).
    Each node of the search adds the rows its step changes to its parent node's pre-activation
    (a count moving by one is one difference row), so that a play's score costs its last step's
    rows and the output, not the rows of every slot the play changed."""
    return _generate(pos, d1, d2, ws, out_pos, out_moves, fw1, fw2, fs, True)


@kernel(inline="always")
def _generate(pos, d1, d2, ws, out_pos, out_moves, fw1, fw2, fs, score):
    """:func:`_generate_plays`, with the filter net's scores when ``score``: a constant in
    each of the two kernels this one is inlined in, so that the one without scores compiles
    none of their code."""
    stack, hstack, own = ws.stack, ws.hstack, ws.own

    nextp, nchild, steps, dice = ws.next_point, ws.n_children, ws.steps, ws.dice
    zob, ht_key, ht_idx, ht_stamp = ws.zobrist, ws.ht_key, ws.ht_idx, ws.ht_stamp
    counters = ws.counters
    cap = out_pos.shape[0]
    n = 0
    best = 0  # depth (number of dice used) of the plays kept so far
    counters[0] += 1
    stamp = counters[0]

    # the position's hash, the mover's checkers as a bit mask of slots (own[0]) and the
    # opponent's made points (blocked): his own steps never change the opponent's points
    # (a hit takes a blot), so blocked holds for every step of every line
    h0 = np.uint64(0)
    own0 = np.int64(0)
    blocked = np.int64(0)
    for i in range(26):
        c = pos[i]
        h0 ^= zob[i, c + 16]
        own0 |= np.int64(c > 0) << i
        blocked |= np.int64(c <= -2) << i
    blocked &= _POINTS  # the opponent's bar (slot 0) is no destination
    mine0 = 0  # the mover's checkers on the board
    if score:
        for i in range(26):
            mine0 += max(np.int64(pos[i]), 0)

    doubles = d1 == d2
    if doubles:
        nruns = 1
        ndice = 4
    else:
        nruns = 2
        ndice = 2
    hi = d1 if d1 > d2 else d2
    lo = d1 + d2 - hi
    larger_playable = False

    for run in range(nruns):
        if doubles:
            for k in range(4):
                dice[k] = d1
        elif run == 0:
            dice[0] = hi
            dice[1] = lo
        else:
            dice[0] = lo
            dice[1] = hi
        _copy_position(stack, 0, pos, 0)
        hstack[0] = h0
        own[0] = own0
        if score:
            fs.level_off[0] = 0
        for k in range(MOVE_SIZE):
            steps[k] = -1
        level = 0
        nextp[0] = 25
        nchild[0] = 0
        while level >= 0:
            d = dice[level]
            # --- find the next legal starting point at this level -----------------------
            # the highest point at or below nextp[level] from which die d can be played
            p = nextp[level]
            found = False
            if p >= 1:
                legal = _legal_starts(own[level], blocked, d) & ((np.int64(2) << p) - 1)
                if legal != 0:
                    p = _highest_bit(legal)
                    found = True
            if found:
                nextp[level] = p - 1
                nchild[level] += 1
                if run == 1 and level == 1 and p != steps[1] and steps[0] != 25 and p - d >= 1:
                    # smaller die first, then the larger die with another checker, neither
                    # entering nor bearing off: the first run (larger die first) already made
                    # this play, since neither step can unlock the other. Skip it (it still
                    # counts as a continuation, so the node is not a one-die leaf).
                    continue
                if run == 0 and level == 0:
                    larger_playable = True
                dest = p - d
                if dest < 0:
                    dest = 0
                nl = level + 1
                h = hstack[level]
                _copy_position(stack, nl, stack, level)
                c = stack[nl, p]
                h ^= zob[p, c + 16] ^ zob[p, c + 15]
                stack[nl, p] = c - 1
                o = own[level]
                if c == 1:  # the point's last checker
                    o ^= np.int64(1) << p
                nt = 0  # the filter rows this step changes (with ``score``)
                if score:
                    nt = _filter_change(
                        fs.term_rows, fs.term_coefs, nt, p * _SPAN, _clip(np.int64(c) - 1), _clip(c)
                    )
                    fs.level_off[nl] = fs.level_off[level]
                if dest >= 1:
                    o |= np.int64(1) << dest
                    c = stack[nl, dest]
                    if c == -1:  # hit: the blot goes to the opponent's bar (slot 0)
                        b = stack[nl, 0]
                        h ^= zob[0, b + 16] ^ zob[0, b + 15]
                        stack[nl, 0] = b - 1
                        h ^= zob[dest, 15] ^ zob[dest, 17]
                        stack[nl, dest] = 1
                        if score:
                            nt = _filter_change(
                                fs.term_rows, fs.term_coefs, nt, dest * _SPAN, _clip(1), _clip(-1)
                            )
                            nt = _filter_change(
                                fs.term_rows, fs.term_coefs, nt, 0, _clip(np.int64(b) - 1), _clip(b)
                            )
                    else:
                        h ^= zob[dest, c + 16] ^ zob[dest, c + 17]
                        stack[nl, dest] = c + 1
                        if score:
                            nt = _filter_change(
                                fs.term_rows,
                                fs.term_coefs,
                                nt,
                                dest * _SPAN,
                                _clip(np.int64(c) + 1),
                                _clip(c),
                            )
                elif score:  # borne off: the mover's row is 15 - his checkers on the board
                    left = mine0 - fs.level_off[level]
                    fs.level_off[nl] = fs.level_off[level] + 1
                    nt = _filter_change(
                        fs.term_rows, fs.term_coefs, nt, 26 * _SPAN, 16 - left, 15 - left
                    )
                if score:
                    _filter_sum(
                        fs.level_h[nl], fs.level_h[level], fw1, fs.term_rows, fs.term_coefs, nt
                    )
                hstack[nl] = h
                own[nl] = o
                steps[2 * level] = p
                steps[2 * level + 1] = dest
                if nl < ndice:
                    level = nl
                    nextp[level] = p if doubles else 25
                    nchild[level] = 0
                    continue
                leaf = nl  # all dice used: record stack[nl]
            else:
                if nchild[level] > 0:
                    # every continuation from this node has been explored: back up
                    level -= 1
                    if level >= 0:
                        steps[2 * level] = -1
                        steps[2 * level + 1] = -1
                    continue
                leaf = level  # no legal continuation: a leaf using `level` dice
                # (the step slots beyond `level` are already -1)
            # --- record the leaf at depth `leaf` -------------------------------------------
            record = True
            if leaf < best:
                record = False
            elif leaf == 1 and not doubles and run == 1 and larger_playable:
                record = False  # only one die can be used: the larger one must be
            elif leaf > best:
                best = leaf
                n = 0
                counters[0] += 1
                stamp = counters[0]
            if record:
                h = hstack[leaf]
                slot = np.int64(h & np.uint64(_HASH_MASK))
                dup = False
                while ht_stamp[slot] == stamp:
                    if ht_key[slot] == h:
                        j = ht_idx[slot]
                        same = True
                        for i in range(26):
                            if out_pos[j, i] != stack[leaf, i]:
                                same = False
                                break
                        if same:
                            dup = True
                            break
                    slot = (slot + 1) & _HASH_MASK
                if not dup:
                    if n >= cap:
                        return -1
                    ht_stamp[slot] = stamp
                    ht_key[slot] = h
                    ht_idx[slot] = n
                    _copy_position(out_pos, n, stack, leaf)
                    _copy_move(out_moves, n, steps, 0)
                    if score:
                        fs.scores[n] = _filter_score(fs.level_h[leaf], fw2)
                    n += 1
            if leaf == level:
                # a dead end: go back up one level
                level -= 1
                if level >= 0:
                    steps[2 * level] = -1
                    steps[2 * level + 1] = -1
            else:
                # a full-depth leaf: undo its last step and keep searching this level
                steps[2 * level] = -1
                steps[2 * level + 1] = -1
    return n


_tls_workspace = None


def generate_plays(pos, d1: int, d2: int):
    """Every distinct legal play of roll ``(d1, d2)``.

    Returns ``(positions int8[n, 26], moves int8[n, 8])`` from the mover's view (not swapped).
    Validates its input (raises ``InvalidPosition`` or ``ValueError``) and allocates; the kernel
    :func:`_generate_plays` does neither.
    """
    from bgtui.engine.position import validate

    global _tls_workspace
    p = validate(pos)
    for d in (d1, d2):
        if not (isinstance(d, (int, np.integer)) and 1 <= d <= 6):
            raise ValueError(f"a die shows 1 to 6, got {d!r}")
    if _tls_workspace is None:
        _tls_workspace = make_workspace()
    out_pos = np.empty((MAX_PLAYS, POSITION_SIZE), dtype=np.int8)
    out_moves = np.empty((MAX_PLAYS, MOVE_SIZE), dtype=np.int8)
    n = _generate_plays(p, int(d1), int(d2), _tls_workspace, out_pos, out_moves)
    if n < 0:
        raise RuntimeError("more distinct plays than MAX_PLAYS")
    return out_pos[:n].copy(), out_moves[:n].copy()
