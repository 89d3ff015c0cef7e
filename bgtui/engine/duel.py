"""Cubeless money duels with duplicate dice, for strength benchmarks.

Game pair ``g`` draws its dice from a counter-based stream of (seed, g): both games of the pair
see the same dice sequence, with the players' seats swapped, so the luck of the dice cancels.
Players: kind 0 = a bgtui evaluator context at 0-ply, kind 1 = PubEval, kind 2 = bgtui at
1-ply (every play at 0-ply, the best few within a margin at 1-ply, as ``evaluate``'s move filter).
"""

import numpy as np

from bgtui.engine._jit import kernel
from bgtui.engine.constants import OPENING_POSITION
from bgtui.engine.evaluate import _best_play0, _evaluate_after, _evaluate_after_plied, equity
from bgtui.engine.movegen import _generate_plays
from bgtui.engine.position import game_result
from bgtui.engine.pubeval import WC, WR, _best_play_pubeval
from bgtui.engine.rollout import _mix

START = np.array(OPENING_POSITION, dtype=np.int8)


FILTER_KEEP = 8  # plays kept for the 1-ply look ...
FILTER_MARGIN = 0.16  # ... within this equity of the 0-ply best


@kernel
def _best_play1(pos, d1, d2, ev, lws, out_pos, out_moves, b5, eq):
    """The 1-ply best play of (d1, d2): all plays at 0-ply, then the best ``FILTER_KEEP`` within
    ``FILTER_MARGIN`` of the best at 1-ply. ``eq`` (float64[MAX_PLAYS]) is scratch."""
    n = _generate_plays(pos, d1, d2, lws[0], out_pos, out_moves)
    if n == 1:
        return 0
    top = -1e9
    for i in range(n):
        _evaluate_after(out_pos[i], ev, lws[1], b5)
        eq[i] = equity(b5)
        top = max(top, eq[i])
    best = 0
    beste = -1e9
    for r in range(FILTER_KEEP):
        k = -1
        for i in range(n):  # the r-th best at 0-ply (taken ones are marked below -1e8)
            if eq[i] > -1e8 and (k < 0 or eq[i] > eq[k]):
                k = i
        if k < 0 or eq[k] < top - FILTER_MARGIN:
            break
        eq[k] = -1e9
        _evaluate_after_plied(out_pos[k], 1, ev, lws, b5)
        e = equity(b5)
        if e > beste:
            beste = e
            best = k
    return best


@kernel
def _choose(kind, ev, pos, d1, d2, lws, out_pos, out_moves, b5, wr, wc, eq):
    mws = lws[0]
    ews = lws[1]
    if kind == 1:
        best, n = _best_play_pubeval(pos, d1, d2, wr, wc, mws, out_pos, out_moves)
    elif kind == 2:
        best = _best_play1(pos, d1, d2, ev, lws, out_pos, out_moves, b5, eq)
    else:
        best, n = _best_play0(pos, d1, d2, ev, mws, ews, out_pos, out_moves, b5)
    return best


@kernel
def _duel_pairs(ev_a, kind_a, ev_b, kind_b, first_pair, n_pairs, seed, start, wr, wc, lws,
                out_pos, out_moves, out):
    """Play game pairs ``first_pair ..`` (``lws``: ``evaluate.make_lookahead_workspace``); ``out[j]`` = (A's points in game 1, in game 2,
    gammons, backgammons) for pair j. A moves first in game 1, B in game 2."""
    pos = np.empty(26, dtype=np.int8)
    b5 = np.empty(5, dtype=np.float32)
    eq = np.empty(out_pos.shape[0], dtype=np.float64)
    for j in range(n_pairs):
        g = first_pair + j
        gams = 0.0
        bgs = 0.0
        for rep in range(2):
            for i in range(26):
                pos[i] = start[i]
            turn = 0
            a_to_move = rep == 0
            while True:
                r = np.int64(_mix(seed, g, turn) % np.uint64(36))
                d1 = r // 6 + 1
                d2 = r % 6 + 1
                k = 0
                while turn == 0 and d1 == d2:  # the opening roll is never a double
                    k += 1
                    r = np.int64(_mix(seed, g, 1000 + k) % np.uint64(36))
                    d1 = r // 6 + 1
                    d2 = r % 6 + 1
                if a_to_move:
                    best = _choose(kind_a, ev_a, pos, d1, d2, lws, out_pos, out_moves, b5, wr, wc, eq)
                else:
                    best = _choose(kind_b, ev_b, pos, d1, d2, lws, out_pos, out_moves, b5, wr, wc, eq)
                child = out_pos[best]
                res = game_result(child)
                if res > 0:
                    out[j, rep] = res if a_to_move else -res
                    if res >= 2:
                        gams += 1
                    if res >= 3:
                        bgs += 1
                    break
                for i in range(26):
                    pos[i] = -child[25 - i]
                a_to_move = not a_to_move
                turn += 1
        out[j, 2] = gams
        out[j, 3] = bgs
