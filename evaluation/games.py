"""The checker-play decisions of bgtui's evaluator at 0-ply in games against PubEval and in
self-play, for the scripts that judge its choices (decision_errors.py, ply_errors.py,
race_errors.py). Run from this folder's scripts: ``from games import decisions, value``."""

import time

import numpy as np

from bgtui.engine import (
    OPENING_POSITION,
    WC,
    WR,
    best_play_pubeval,
    equity,
    game_result,
    generate_plays,
    swap_sides,
)


def sample(weights, seed):
    """(the analyser of ``weights``, PubEval's move generation buffers, the generator of
    ``seed``): what :func:`decisions` needs."""
    from bgtui.analysis.service import Analyzer
    from bgtui.engine import make_move_workspace, make_play_buffers

    return (
        Analyzer(weights),
        (make_move_workspace(), *make_play_buffers()),
        np.random.default_rng(seed),
    )


def value(an, child, ply):
    """Equity for the player who just moved of the position ``child`` after his play, at
    ``ply`` (the analyser ``an``'s evaluator; a finished game's points)."""
    r = game_result(child)
    return float(r) if r > 0 else float(equity(an._after_probs(child, ply)))


def decisions(an, rng, ws, vs_pubeval=None):
    """Decisions ``(position, d1, d2, vs PubEval, game number)`` of the evaluator at 0-ply,
    game after game, every roll with more than one legal play (position: the mover's view).
    The evaluator plays the 0-ply best. ``vs_pubeval``: every game against PubEval (True) or
    in self-play (False); None draws it for each game. Against PubEval who moves first is
    drawn for each game. ``ws``: PubEval's move generation buffers (``make_move_workspace()`` and
    ``make_play_buffers()``)."""
    mws, play_pos, play_moves = ws
    game = 0
    while True:
        vs = bool(rng.integers(2)) if vs_pubeval is None else vs_pubeval
        pos = OPENING_POSITION.copy()
        ours = bool(rng.integers(2)) if vs else True
        first = True
        while True:
            d1, d2 = (int(d) for d in rng.integers(1, 7, size=2))
            while first and d1 == d2:
                d1, d2 = (int(d) for d in rng.integers(1, 7, size=2))
            first = False
            if ours:
                children, _ = generate_plays(pos, d1, d2)
                if len(children) > 1:
                    yield pos.copy(), d1, d2, vs, game
                e0 = [value(an, c, 0) for c in children]
                child = children[int(np.argmax(e0))]
            else:
                best, _ = best_play_pubeval(pos, d1, d2, WR, WC, mws, play_pos, play_moves)
                child = play_pos[best].copy()
            if game_result(child) > 0:
                break
            pos = swap_sides(child)
            if vs:
                ours = not ours
        game += 1


def save_rows(rows, count, out, what="decisions"):
    """Store the first ``count`` of ``rows`` (dicts of values by name, one a decision) in the
    ``.npz`` file ``out``, one array a name; progress every 100 rows."""
    table: dict = {}
    t = time.time()
    m = 0
    for row in rows:
        for name, v in row.items():
            table.setdefault(name, []).append(v)
        m += 1
        if m % 100 == 0:
            print(f"{m} {what}, {time.time() - t:.0f} s", flush=True)
        if m >= count:
            break
    np.savez_compressed(out, **{name: np.array(v) for name, v in table.items()})


def roll_children(an, pos, dice, kids, settings):
    """Rollouts (``settings``, ``an``'s evaluator playing) of the positions ``kids`` after plays
    of ``pos`` with ``dice``, rolled together (the same dice for each): their cubeless equities
    and standard errors for the mover, in the order of ``kids``."""
    from bgtui.analysis.notation import format_play
    from bgtui.analysis.state import GameState

    d1, d2 = int(dice[0]), int(dice[1])
    children, moves = generate_plays(pos, d1, d2)
    labels = []
    for c in kids:
        m = next(q for q in range(len(children)) if np.array_equal(children[q], c))
        labels.append(format_play(pos, moves[m]))
    snap = None
    for snap in an.iter_rollout(
        GameState.from_position(pos, dice=(d1, d2)), settings, moves=labels
    ):
        pass
    rows = {row.move: row for row in snap.rows}
    return [(rows[lab].equity.cubeless, rows[lab].equity_se.cubeless) for lab in labels]
