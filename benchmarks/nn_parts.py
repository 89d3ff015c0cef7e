"""The cost of the evaluator's two dense kernels, one core: the output layer (``nn._finish``,
exported as ``finish_outputs``: the hidden layer's function, sigmoid or piecewise quadratic
(``nn.QUADRATIC``), and the five output sums) and the
first layer's sum of table rows (``nn._accumulate``, exported as ``sum_table_rows``), with
rows drawn from a few (cache-hot) or from a whole net's table.

    python benchmarks/nn_parts.py [--hidden 224] [--calls 1000000] [--repeat 3]

Prints nanoseconds a call, best of ``--repeat``; the time of drawing the row indices is
measured alone and taken off. Inside contact move selection an evaluation costs one
``_finish`` and one ``_accumulate`` of about 8-12 rows, mostly hot (``benchmarks/eval.py``
gives the whole).
"""

import argparse
import time

import numpy as np

from bgtui.engine import ACTIVATIONS, QUADRATIC, SIGMOID, TABLE_ROWS, kernel
from bgtui.engine import finish_outputs as _finish
from bgtui.engine import sum_table_rows as _accumulate


@kernel
def _finish_calls(h0, w2, b2, calls, copy_only, act):
    """``calls`` output layers (hidden function ``act``) over ``h0`` (its first unit nudged
    each call); with ``copy_only``, only the copies of ``h0`` into the workspace."""
    h = h0.copy()
    out = np.zeros(5, dtype=np.float32)
    s = 0.0
    for r in range(calls):
        for j in range(h.shape[0]):
            h[j] = h0[j]
        h[0] = h0[0] + np.float32(r * 1e-7)
        if copy_only:
            s += h[1]
        else:
            _finish(h, w2, b2, out, act)
            s += out[0]
    return s


@kernel
def _accumulate_calls(base, tab, calls, n, pool, seed, draw_only):
    """``calls`` sums of ``n`` rows drawn from the first ``pool``; with ``draw_only``, only the
    drawing of the rows."""
    h = np.zeros(base.shape[0], dtype=np.float32)
    idx = np.zeros(n + 4, dtype=np.int64)
    coef = np.ones(n + 4, dtype=np.float32)
    np.random.seed(seed)
    s = 0.0
    for _ in range(calls):
        for k in range(n):
            idx[k] = np.random.randint(0, pool)
        if draw_only:
            s += idx[0]
        else:
            _accumulate(h, base, tab, idx, coef, n)
            s += h[3]
    return s


def _best_ns(fn, calls, repeat):
    best = np.inf
    for _ in range(repeat):
        t = time.process_time()
        fn()
        best = min(best, time.process_time() - t)
    return best / calls * 1e9


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hidden", type=int, default=224, help="hidden units (default 224)")
    parser.add_argument("--calls", type=int, default=1_000_000, help="calls a measurement")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each measurement")
    args = parser.parse_args()
    rng = np.random.default_rng(1)
    hidden, calls, repeat = args.hidden, args.calls, args.repeat
    h0 = (3 * rng.normal(size=hidden)).astype(np.float32)
    w2 = (0.1 * rng.normal(size=(5, hidden))).astype(np.float32)
    b2 = np.zeros(5, dtype=np.float32)
    tab = rng.normal(size=(TABLE_ROWS, hidden)).astype(np.float32)
    _accumulate_calls(h0, tab, 2, 8, 16, 1, False)
    for act in (SIGMOID, QUADRATIC):
        _finish_calls(h0, w2, b2, 2, False, act)
        copy, fin = (
            _best_ns(lambda c=c, a=act: _finish_calls(h0, w2, b2, calls, c, a), calls, repeat)
            for c in (True, False)
        )
        print(
            f"output layer ({hidden} hidden, {ACTIVATIONS[act]}): {fin - copy:6.1f} ns a call",
            flush=True,
        )
    for pool, name in ((16, "16 rows (hot)"), (TABLE_ROWS, f"all {TABLE_ROWS} rows")):
        for n in (4, 8, 12):
            draw, acc = (
                _best_ns(
                    lambda n=n, pool=pool, d=d: _accumulate_calls(h0, tab, calls, n, pool, 1, d),
                    calls,
                    repeat,
                )
                for d in (True, False)
            )
            print(
                f"first layer, {n:2d} rows from {name}: {acc - draw:6.1f} ns a call",
                flush=True,
            )


if __name__ == "__main__":
    main()
