"""What the side memo saves in race move selection, one core: the same kernels with
``EvalWorkspace.side_memo`` kept between calls (as the engine runs) and cleared before each.

    python benchmarks/side_memo.py [--repeat 3] [--databases] [--weights FILE]

The race side net's distributions of the side not moving are remembered between calls
(``side._side_dists_memo``), so the 21 rolls of a position value that side once. The
positions are those of ``benchmarks/eval.py`` (races of 200 games of the weights, seed 3,
the first 500); each roll's best play is chosen by ``best_play0`` as there. Printed: M
evaluations a second inside move selection with the memo and with it cleared, best of
``--repeat`` (interleaved, CPU time), and their ratio. ``--databases``: with the bear-off
databases, where the side net values only the races whose side on roll has no row.
"""

import argparse
import time

import numpy as np

from bgtui.analysis.weights import load_weights, with_databases
from bgtui.engine import (
    RACE,
    START,
    best_play0,
    hidden_size,
    kernel,
    make_play_workspace,
    make_rng,
    net_class,
    sample_positions,
)


@kernel
def _in_selection(P, ev, mws, ews, op, om, clear):
    b5 = np.zeros(5, dtype=np.float32)
    n = 0
    for k in range(P.shape[0]):
        for d1 in range(1, 7):
            for d2 in range(1, d1 + 1):
                if clear:
                    ews.side_memo[0] = -1
                _, m = best_play0(P[k], d1, d2, ev, mws, ews, op, om, b5)
                n += m
    return n


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs of each measurement")
    parser.add_argument("--weights", default="bgtui-0.npz", help="weights file (default shipped)")
    parser.add_argument("--databases", action="store_true", help="with the bear-off databases")
    args = parser.parse_args()
    nets = load_weights(args.weights)[0]
    sampler = with_databases(nets)
    ev = with_databases(nets, bearoff=args.databases)
    ws = make_play_workspace(hidden_size(ev))
    dest = np.zeros((6000, 26), dtype=np.int8)
    m = sample_positions(sampler, 200, make_rng(3), START, 0.0, ws, dest)
    race = np.array([p for p in dest[:m] if net_class(p) == RACE])[:500]
    ews, mws, op, om = ws.eval, ws.moves, ws.play_pos, ws.play_moves
    for clear in (True, False):
        _in_selection(race[:2], ev, mws, ews, op, om, clear)
    best = {True: 0.0, False: 0.0}
    for _ in range(args.repeat):
        for clear in (True, False):
            t = time.process_time()
            n = _in_selection(race, ev, mws, ews, op, om, clear)
            best[clear] = max(best[clear], n / (time.process_time() - t))
    print(f"{len(race)} races, {'nets and databases' if args.databases else 'nets alone'}")
    print(f"with the memo:     {best[False] / 1e6:.3f} M evaluations/s inside move selection")
    print(f"memo cleared:      {best[True] / 1e6:.3f} M evaluations/s")
    print(f"ratio:             {best[False] / best[True]:.3f}")


if __name__ == "__main__":
    main()
