"""Evaluation speed, one core: static evaluations per second alone and inside move selection,
per net, and the time of a 1-ply and 2-ply evaluation of middle-game positions.

    python benchmarks/eval.py

Times are CPU time of this process (time.process_time), so other load on the machine does
not count against the kernels (it still shares caches and turbo frequency).

Targets (issue 3): >= 1.5 M static evaluations/s inside move selection; 1-ply of a middle-game
position under 0.3 ms.
"""

import time

import numpy as np
from bgtui.engine._jit import kernel

from bgtui.analysis.weights import load_weights, with_databases
from bgtui.engine.evaluate import (
    _best_play0,
    _evaluate_net,
    _evaluate_plied,
    hidden_size,
    make_eval_workspace,
    make_lookahead_workspace,
    make_play_buffers,
)
from bgtui.engine.movegen import make_workspace
from bgtui.engine.position import is_race
from bgtui.engine.rng import make_rng
from bgtui.engine.train import _START, _sample_positions


@kernel
def _static(P, ev, ews, reps):
    out = np.zeros(5, dtype=np.float32)
    for r in range(reps):
        for k in range(P.shape[0]):
            _evaluate_net(P[k], ev, ews, out)


@kernel
def _in_selection(P, ev, mws, ews, op, om):
    b5 = np.zeros(5, dtype=np.float32)
    n = 0
    for k in range(P.shape[0]):
        for d1 in range(1, 7):
            for d2 in range(1, d1 + 1):
                best, m = _best_play0(P[k], d1, d2, ev, mws, ews, op, om, b5)
                n += m
    return n


def main():
    ev = with_databases(load_weights()[0][:2], bearoff=False)
    ews = make_eval_workspace(hidden_size(ev))
    mws = make_workspace()
    op, om = make_play_buffers()
    dest = np.zeros((6000, 26), dtype=np.int8)
    m = _sample_positions(ev, 200, make_rng(3), _START, 0.0, mws, ews, op, om, dest)
    contact = np.array([p for p in dest[:m] if not is_race(p)][:2000])
    race = np.array([p for p in dest[:m] if is_race(p)][:2000])
    _static(contact[:2], ev, ews, 1)
    _in_selection(contact[:2], ev, mws, ews, op, om)
    for name, P in (("contact", contact), ("race", race)):
        t = time.process_time()
        _static(P, ev, ews, 5)
        dt = time.process_time() - t
        print(f"{name:8s} static evaluations/s: {5 * len(P) / dt:12,.0f}", flush=True)
        t = time.process_time()
        n = _in_selection(P[:500], ev, mws, ews, op, om)
        dt = time.process_time() - t
        print(f"{name:8s} evaluations/s inside move selection: {n / dt:12,.0f}", flush=True)
    lws = make_lookahead_workspace(hidden_size(ev))
    out = np.zeros(5, dtype=np.float32)
    _evaluate_plied(contact[0], 1, ev, lws, out)
    for ply, k in ((1, 200), (2, 10)):
        t = time.process_time()
        for p in contact[:k]:
            _evaluate_plied(p, ply, ev, lws, out)
        print(f"{ply}-ply evaluation of a middle-game position: "
              f"{1000 * (time.process_time() - t) / k:.2f} ms", flush=True)


if __name__ == "__main__":
    main()
