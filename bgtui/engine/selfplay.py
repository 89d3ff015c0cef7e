"""Positions from 0-ply self-play: the games that give training sets their positions and
benchmarks and evaluation scripts typical ones.

A game starts from ``start`` (``constants.START`` for a whole game) with an opening roll that
is never a double; every player picks the best play at 0-ply (``evaluate._best_play0``),
unless told to explore. ``ws`` is the play scratch (``evaluate.make_play_workspace``) and
``rng`` a stream of ``rng.make_rng``.
"""

import numpy as np

from bgtui.engine._jit import kernel
from bgtui.engine.constants import START
from bgtui.engine.evaluate import _best_play0
from bgtui.engine.position import game_result, is_race, swap_sides_into
from bgtui.engine.rng import roll_index, uniform


@kernel
def _roll(rng, opening):
    """Two dice; the opening roll of a game is never a double."""
    r = roll_index(rng)
    while opening and r // 6 == r % 6:
        r = roll_index(rng)
    return r // 6 + 1, r % 6 + 1


@kernel
def _store_child(child, dest, m):
    """Store the position ``child`` (after a play) with the opponent on roll into ``dest[m]``:
    returns 1 when stored, 0 when skipped (the play ends the game), -1 when ``dest`` is full."""
    if game_result(child) > 0:
        return 0
    if m >= dest.shape[0]:
        return -1
    swap_sides_into(child, dest[m])
    return 1


@kernel(_nrt=True)
def _self_play_sample(ev, n_games, rng, start, explore, per_roll, ws, dest):
    """Self-play ``n_games`` at 0-ply (with ``per_roll`` = 0, a random play instead of the best
    with probability ``explore``) and store into ``dest`` (int8[cap, 26]), with the player on
    roll, either every position before a roll (``per_roll`` = 0) or, for every roll,
    ``per_roll`` of its plays picked at random (the positions that move selection compares,
    good plays and bad). Returns the number stored (stops when full)."""
    mws, ews, out_pos, out_moves = ws.moves, ws.eval, ws.play_pos, ws.play_moves
    pos = np.empty(26, dtype=np.int8)
    t5 = np.empty(5, dtype=np.float32)
    cap = dest.shape[0]
    m = 0
    for _g in range(n_games):
        for i in range(26):
            pos[i] = start[i]
        first = True
        while True:
            d1, d2 = _roll(rng, first)
            if not first and per_roll == 0:
                if m >= cap:
                    return m
                for i in range(26):
                    dest[m, i] = pos[i]
                m += 1
            first = False
            best, n = _best_play0(pos, d1, d2, ev, mws, ews, out_pos, out_moves, t5)
            for _q in range(min(per_roll, n)):
                k = min(np.int64(uniform(rng) * n), n - 1)
                kept = _store_child(out_pos[k], dest, m)
                if kept < 0:
                    return m
                m += kept
            if per_roll == 0 and n > 1 and uniform(rng) < explore:
                best = min(np.int64(uniform(rng) * n), n - 1)
            child = out_pos[best]
            if game_result(child) > 0:
                break
            swap_sides_into(child, pos)
    return m


@kernel(_nrt=True)
def _sample_positions(ev, n_games, rng, start, explore, ws, dest):
    """Every position before a roll of ``n_games`` of 0-ply self-play (see
    :func:`_self_play_sample`); returns the number stored."""
    return _self_play_sample(ev, n_games, rng, start, explore, 0, ws, dest)


@kernel(_nrt=True)
def _sample_children(ev, n_games, rng, start, per_roll, ws, dest):
    """``per_roll`` random plays of every roll of ``n_games`` of greedy 0-ply self-play, with
    the opponent on roll (see :func:`_self_play_sample`); returns the number stored."""
    return _self_play_sample(ev, n_games, rng, start, 0.0, per_roll, ws, dest)


def contact_positions(ev, n_games, rng, ws, capacity):
    """The contact positions (player on roll) among every position before a roll of
    ``n_games`` of greedy 0-ply self-play from the start (at most ``capacity`` positions
    sampled, races dropped after), in the order played."""
    dest = np.zeros((capacity, 26), dtype=np.int8)
    m = _sample_positions(ev, n_games, rng, START, 0.0, ws, dest)
    return np.array([p for p in dest[:m] if not is_race(p)], dtype=np.int8).reshape(-1, 26)
