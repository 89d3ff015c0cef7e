"""Compile (or load from numba's cache) every public kernel by calling it on tiny fixtures."""

import time

import numpy as np

from bgtui.engine.constants import OPENING_POSITION
from bgtui.engine.evaluate import hidden_size

#: the stages that evaluation, ranking plays and cube actions need (the rest: "rollouts")
ANALYSIS_STAGES = ("legal plays", "positions", "evaluator", "lookahead", "cube model")


def compile_all(ev, progress=None, only=None) -> dict:
    """Call each kernel once (or those of the stages named in ``only``); ``progress(stage,
    fraction)`` before each (the fraction of the stages done). Returns seconds per stage."""
    from bgtui.engine import evaluate, movegen, position

    timings = {}
    pos = np.array(OPENING_POSITION, dtype=np.int8)
    stages = [
        ("legal plays", lambda: movegen.generate_plays(pos, 3, 1)),
        (
            "positions",
            lambda: (
                position.swap_sides(pos),
                position.pip_counts(pos),
                position.game_result(pos),
                position.is_race(pos),
            ),
        ),
        ("evaluator", lambda: evaluate.evaluate0(pos, ev)),
        (
            "lookahead",
            lambda: evaluate._evaluate_plied(pos, 1, ev, _lws(ev), np.zeros(5, dtype=np.float32)),
        ),
        ("cube model", lambda: _cube(pos)),
        ("rollouts", lambda: _rollout(pos, ev)),
    ]
    if only is not None:
        stages = [s for s in stages if s[0] in only]
    for i, (name, fn) in enumerate(stages):
        if progress is not None:
            progress(name, i / len(stages))
        t = time.perf_counter()
        fn()
        timings[name] = time.perf_counter() - t
    return timings


def _lws(ev):
    from bgtui.engine.evaluate import make_lookahead_workspace

    return make_lookahead_workspace(hidden_size(ev))


def _cube(pos):
    from bgtui.engine import cube

    out = np.zeros(3)
    cube.cube_equities(np.array([0.6, 0.2, 0.01, 0.1, 0.01]), cube.cube_efficiency(pos), True, out)


def _rollout(pos, ev):
    from bgtui.engine import rollout as R

    hidden = hidden_size(ev)
    st = R.make_settings(truncate=1)
    out = np.zeros((1, 1, R.NUM_OUT))
    R._rollout_chunk(
        pos[None, :].copy(),
        np.array([[1.0, 0.0]]),
        0,
        1,
        st,
        R.make_permutations(1),
        1,
        ev,
        R.make_rollout_workspace(hidden),
        out,
        np.zeros(1, dtype=np.int64),
    )
    sums = np.zeros((1, R.NUM_OUT))
    R._accumulate(out, 1, sums, sums.copy(), np.zeros((5, 1, 1)))


def rollout_parts(ev) -> list:
    """The separate kernels of a rollout's call tree below its trial, with the argument types
    a rollout with evaluator ``ev`` compiles them for: ``[(kernel, argument types), ...]``.

    A second process compiles these (``kernel.compile(types)``) while the first compiles
    the rollout from the top: each subtree is compiled once and loaded by the other (see
    ``bgtui.analysis.warmup``). The order is chosen so that the two work on different subtrees
    and the first waits least. First the contact and race plays' valuing, which the first
    process reaches early, through a variance-reduction step, after the side net's (which it
    compiles itself); then the lookahead it reaches half-way, down to the lookahead's entry
    points; then the trial's last callees (its outcome and live-cube end, the filtered
    lookahead of a variance-reduction step), which it reaches last; then the rest, from the
    bottom of the tree up."""
    from numba import typeof

    from bgtui.engine import evaluate as E
    from bgtui.engine import match as M
    from bgtui.engine import rollout as R

    ws = R.make_rollout_workspace(hidden_size(ev))
    st = R.make_settings(truncate=1)
    lws = _lws(ev)
    i, f, b = typeof(1), typeof(1.0), typeof(True)
    pos, p5, p5d = typeof(ws.cur), typeof(ws.play5), typeof(ws.luck)
    tev, tws, tst, tlws = typeof(ev), typeof(ws), typeof(st), typeof(lws)
    met, f1, f2 = typeof(st.met), typeof(np.zeros(1)), typeof(np.zeros((1, 1)))
    plied = (pos, i, tev, tlws, p5)
    vr = (pos, typeof(ws.nxt), p5d)
    tews = typeof(ws.eval)
    groups = (pos, i, typeof(ws.play_pos), tev, tews, i, i)
    return [
        (E._contact_groups, groups),
        (E._race_groups, groups),
        (E._eval_ply1, (pos, tev, tlws, i, p5)),
        (E._eval_deep, plied),
        (E._evaluate_plied, plied),
        (E._evaluate_after_plied, plied),
        (R._live_end, (pos, i, i, i, i, f, tst, tev, tws, p5)),
        (R._trial_outcome, (pos, i, i, i, tev, tews, p5)),
        (R._filtered_plied, (pos, i, i, i, tev, tws, p5)),
        (M.cubeless_mwc, (p5, met, i, i, i)),
        (M.match_points, (p5, met, i, i, i, f1, f1)),
        (M.match_cube_values, (p5, met, i, i, i, b, f, f2, f1)),
        (R._luck_level, (p5d, f, tst)),
        (R._vr_step_grouped, (pos, i, i, tev, tws, p5) + vr[1:]),
        (R._vr_step_filtered, (pos, i, i, i, tev, tws, p5) + vr[1:]),
        (R._vr_step, (pos, i, i, i, i, tev, tws, p5) + vr[1:]),
    ]


def compile_rollout_parts(ev, progress=None) -> None:
    """Compile (or load) :func:`rollout_parts`; ``progress(name)`` before each."""
    for kernel, types in rollout_parts(ev):
        if progress is not None:
            progress(kernel.py_func.__name__.strip("_"))
        kernel.compile(types)
