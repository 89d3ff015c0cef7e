"""What the side memo saves in race move selection, one core: the same kernels with
``EvalWorkspace.side_memo`` kept between calls (as the engine runs) and cleared before each.

    python benchmarks/side_memo.py [--repeat 3] [--databases] [--weights FILE]

The race side net's distributions of the side not moving are remembered between calls
(``side._side_dists_memo``), so the 21 rolls of a position value that side once. The
positions and the kernel are ``benchmarks/eval.py``'s (races of 200 games of the weights,
seed 3, the first 500; ``_in_selection``). Printed: M evaluations a second inside move
selection with the memo and with it cleared, best of ``--repeat`` (interleaved, CPU time),
and their ratio. ``--databases``: with the bear-off databases, where the side net values only
the races whose side on roll has no row.
"""

import argparse
import time

from eval import _in_selection, sample_classes

from bgtui.analysis.weights import load_weights, with_databases
from bgtui.engine import hidden_size, make_play_workspace


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
    race = sample_classes(sampler, ws)[1][:500]
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
