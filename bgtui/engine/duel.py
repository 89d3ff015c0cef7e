"""Cubeless money duels with duplicate dice, for strength benchmarks.

Game pair ``g`` draws its dice from a counter-based stream of (seed, g): both games of the pair
see the same dice sequence, with the players' seats swapped, so the luck of the dice cancels.
Players: kind 0 = a bgtui evaluator context at 0-ply, kind 1 = PubEval, kind 2 = bgtui at
1-ply (every play at 0-ply, the best 8 within 0.16 at 1-ply: the rollouts' ``_choose``), kind 3
= the same with the plain 1-ply value instead of its blend with the 0-ply one.
"""

import numpy as np

from bgtui.engine._jit import kernel
from bgtui.engine.evaluate import _best_play0
from bgtui.engine.position import game_result, swap_sides_into
from bgtui.engine.pubeval import _best_play_pubeval
from bgtui.engine.rollout import _choose as _choose_play
from bgtui.engine.rollout import _choose_weighted, _mix


@kernel
def _choose(kind, ev, pos, d1, d2, ws, b5, wr, wc):
    """The index (in ``ws.play_pos``) of the play a player of ``kind`` picks for (d1, d2)."""
    if kind == 1:
        best, n = _best_play_pubeval(pos, d1, d2, wr, wc, ws.moves, ws.play_pos, ws.play_moves)
    elif kind == 2:  # the rollouts' own 1-ply choice: the same move filter as rank_plays
        best = _choose_play(pos, d1, d2, 1, ev, ws, b5)
    elif kind == 3:
        best = _choose_weighted(pos, d1, d2, 1, 0.0, ev, ws, b5)
    else:
        best, n = _best_play0(pos, d1, d2, ev, ws.moves, ws.eval, ws.play_pos, ws.play_moves, b5)
    return best


@kernel(_nrt=True)
def _duel_pairs(ev_a, kind_a, ev_b, kind_b, first_pair, n_pairs, seed, start, wr, wc, ws, out):
    """Play game pairs ``first_pair ..`` (``ws``: ``rollout.make_rollout_workspace``);
    ``out[j]`` = (A's points in game 1, in game 2, gammons, backgammons) for pair j. A moves
    first in game 1, B in game 2."""
    pos = np.empty(26, dtype=np.int8)
    b5 = np.empty(5, dtype=np.float32)
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
                    best = _choose(kind_a, ev_a, pos, d1, d2, ws, b5, wr, wc)
                else:
                    best = _choose(kind_b, ev_b, pos, d1, d2, ws, b5, wr, wc)
                child = ws.play_pos[best]
                res = game_result(child)
                if res > 0:
                    out[j, rep] = res if a_to_move else -res
                    if res >= 2:
                        gams += 1
                    if res >= 3:
                        bgs += 1
                    break
                swap_sides_into(child, pos)
                a_to_move = not a_to_move
                turn += 1
        out[j, 2] = gams
        out[j, 3] = bgs
