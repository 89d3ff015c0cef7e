"""Rollout speed in CPU seconds, for comparing two trees on a busy machine.

    PYTHONPATH=TREE taskset -c 1 python3 benchmarks/rollout_cpu.py [--repeat 3]

Plays fixed numbers of full-game 0-ply cubeless trials on one core, nets only (as
``benchmarks/rollout.py`` does): without variance reduction from the middle game, and with
variance reduction (the filter's best 2 plays of each roll, the default) from the middle game
and from the opening. Each case prints games per CPU second (``time.process_time``, the median
of ``--repeat`` runs: other jobs' load does not count against it, though they still share the
caches), the variance-reduction factor of the sample (variance of the raw outcomes over that
of the variance-reduced estimates) and games/s times that factor, the plain-trial equivalents a
second. The same trials are played by any tree that gives the same numbers, so two trees are
compared on the same games: the printed mean equity must agree to the last digit.

Run the trees in turn (A, B, A, B) on the same core; only the kernels' entry points used here
(``rollout._rollout_chunk``, ``make_settings``, ``make_rollout_workspace``) need to exist.
"""

import argparse
import statistics
import time

import numpy as np
from rollout import MIDGAME

from bgtui.analysis.weights import load_filter_net, load_weights
from bgtui.engine import (
    NUM_OUT,
    O_CUBELESS,
    O_RAW,
    OPENING_POSITION,
    hidden_size,
    make_permutations,
    make_rollout_workspace,
    make_settings,
    rollout_chunk,
)

CASES = (
    ("middle game, no VR", MIDGAME, dict(vr=False), 2000),
    ("middle game, VR filter 2", MIDGAME, dict(vr=True, vr_filter=2), 300),
    (
        "opening, VR filter 2",
        np.array(OPENING_POSITION, dtype=np.int8),
        dict(vr=True, vr_filter=2),
        300,
    ),
)


def run(ev, filt, root, settings, trials):
    """(CPU seconds, trial rows) of ``trials`` trials from ``root``."""
    ws = make_rollout_workspace(hidden_size(ev), filt)
    out = np.zeros((1, trials, NUM_OUT))
    args = (np.ascontiguousarray(root[None]), np.array([[1.0, 0.0, 0.0]]), 0)
    t = time.process_time()
    rollout_chunk(
        *args, trials, settings, make_permutations(1), 1, ev, ws, out, np.zeros(1, np.int64)
    )
    return time.process_time() - t, out[0]


def main():
    # argparse rather than options.script_parser, which older trees do not have
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3, help="runs of each case (median)")
    ap.add_argument("--weights", default="bgtui-0.npz", help="weights file (default shipped)")
    args = ap.parse_args()
    ev = load_weights(args.weights)[0]
    filt = load_filter_net()
    for name, root, kw, trials in CASES:
        st = make_settings(**kw)
        run(ev, filt, root, st, 2)  # compile, or load from the cache
        times = []
        for _ in range(max(args.repeat, 1)):
            dt, rows = run(ev, filt, root, st, trials)
            times.append(dt)
        rate = trials / statistics.median(times)
        raw, est = rows[:, O_RAW], rows[:, O_CUBELESS]
        vr = raw.var() / est.var() if kw["vr"] else 1.0
        print(
            f"{name:26s} {rate:8.1f} games/CPU-s  VR factor {vr:5.2f}  "
            f"{rate * vr:8.0f} plain-trial equivalents/CPU-s  mean {est.mean():+.12f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
