"""Positions of games of random legal plays, for tests that need many positions that can
arise in a game."""

from __future__ import annotations

from itertools import islice

import numpy as np

from bgtui.engine.constants import OPENING_POSITION
from bgtui.engine.movegen import generate_plays
from bgtui.engine.position import swap_sides


def random_game(rng, turns: int):
    """Yield the positions (player on roll) of a game of random legal plays on random dice
    from ``rng`` (a numpy Generator): the opening, then the position after each play, for at
    most ``turns`` plays; the play that ends the game is not followed."""
    pos = np.array(OPENING_POSITION)
    yield pos
    for _ in range(turns):
        d1, d2 = (int(x) for x in rng.integers(1, 7, size=2))
        children, _ = generate_plays(pos, d1, d2)
        child = children[rng.integers(len(children))]
        if (child > 0).sum() == 0:
            return
        pos = swap_sides(child)
        yield pos


def game_positions(seed: int, games: int) -> list:
    """The positions of ``games`` random games (at most 300 positions each), seeded by
    ``seed``."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(games):
        out.extend(islice(random_game(rng, 300), 300))
    return out


def engine_game_positions(ev, games: int, seed: int, explore: float, cap: int) -> np.ndarray:
    """Up to ``cap`` positions (player on roll) of ``games`` games from the start played by the
    engine's sampler (``selfplay._sample_positions``) with the evaluator ``ev``: 0-ply play,
    or a random play with probability ``explore``; dice from ``seed``."""
    from bgtui.engine.constants import START
    from bgtui.engine.evaluate import hidden_size, make_play_workspace
    from bgtui.engine.rng import make_rng
    from bgtui.engine.selfplay import _sample_positions

    ws = make_play_workspace(hidden_size(ev))
    dest = np.zeros((cap, 26), dtype=np.int8)
    n = _sample_positions(ev, games, make_rng(seed), START, explore, ws, dest)
    return dest[:n]
