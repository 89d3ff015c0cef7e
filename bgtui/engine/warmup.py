"""Compile (or load from numba's cache) every public kernel by calling it on tiny fixtures."""

import time

import numpy as np

from bgtui.engine.constants import OPENING_POSITION


def compile_all(ev, progress=None) -> dict:
    """Call each kernel once; ``progress(stage, fraction)`` after each. Returns seconds per stage."""
    from bgtui.engine import evaluate, movegen, position

    timings = {}
    pos = np.array(OPENING_POSITION, dtype=np.int8)
    stages = [
        ("legal plays", lambda: movegen.generate_plays(pos, 3, 1)),
        ("positions", lambda: (position.swap_sides(pos), position.pip_counts(pos),
                               position.game_result(pos), position.is_race(pos))),
        ("evaluator", lambda: evaluate.evaluate0(pos, ev)),
        ("lookahead", lambda: evaluate._evaluate_plied(
            pos, 1, ev, _lws(ev), np.zeros(5, dtype=np.float32))),
    ]
    for i, (name, fn) in enumerate(stages):
        t = time.perf_counter()
        fn()
        timings[name] = time.perf_counter() - t
        if progress is not None:
            progress(name, (i + 1) / len(stages))
    return timings


def _lws(ev):
    from bgtui.engine.evaluate import make_lookahead_workspace

    return make_lookahead_workspace(max(net[1].shape[0] for net in ev))
