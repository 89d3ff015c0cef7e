"""Evaluation speed, one core: static evaluations per second alone and inside move selection,
per net, and the time of a 1-ply and 2-ply evaluation of middle-game positions.

    python benchmarks/eval.py [--repeat 5] [--weights FILE] [--positions-from FILE] [--databases]

The positions are sampled from games of ``--weights`` (200 games, seed 3) unless
``--positions-from`` names another weights file whose games to sample: two weights files
compared with the same ``--positions-from`` are timed on the same positions.

By default the nets alone: a race outside the bear-off databases is then valued by the race
side net if the weights carry one. ``--databases``: the evaluator that ``bgtui`` and the app
use, with the bear-off databases, where the side net values only the races in which the side
on roll has no row of the one-sided database and the race net the others
(``evaluate._side_net_values``), and a static evaluation is the 0-ply one (a race both of
whose sides have a row is the database's); the positions are the same.

Times are CPU time of this process (time.process_time), so other load on the machine does
not count against the kernels (it still shares caches and turbo frequency). Each figure is
measured ``--repeat`` times and printed as the best and the median: on a shared virtual
machine the speed of the same kernel drifts by a quarter within minutes, and the best of
several runs is the steadiest estimate of what the code itself costs.

The 1- and 2-ply times are given twice: with the lookahead's pruning as ``bgtui`` and the
app use it (each roll's play chosen among the filter net's best ``DEFAULT_PRUNE`` plays), and
with every play valued.

Targets: >= 1.5 M static evaluations/s inside move selection; 1-ply of a middle-game
position under 0.3 ms.
"""

import argparse
import time

import numpy as np

from bgtui.analysis.models import DEFAULT_PRUNE
from bgtui.analysis.weights import load_filter_net, load_weights, with_databases
from bgtui.engine import (
    CONTACT_CLASSES,
    CRASHED_CLASSES,
    RACE,
    START,
    best_play0,
    evaluate0_into,
    evaluate_net,
    evaluate_plied,
    hidden_size,
    kernel,
    make_lookahead_workspace,
    make_play_workspace,
    make_rng,
    net_class,
    sample_positions,
)


@kernel
def _static(P, ev, ews, reps, full):
    """``reps`` passes of static evaluations of ``P``: the 0-ply ones with ``full`` (databases
    where they apply), else the nets'."""
    out = np.zeros(5, dtype=np.float32)
    for r in range(reps):
        for k in range(P.shape[0]):
            if full:
                evaluate0_into(P[k], ev, ews, out)
            else:
                evaluate_net(P[k], ev, ews, out)


@kernel
def _in_selection(P, ev, mws, ews, op, om, clear):
    """The best play of each roll of each of ``P`` chosen by ``best_play0``; the number of
    plays valued. ``clear``: forget the side memo (``ews.side_memo``) before each roll."""
    b5 = np.zeros(5, dtype=np.float32)
    n = 0
    for k in range(P.shape[0]):
        for d1 in range(1, 7):
            for d2 in range(1, d1 + 1):
                if clear:
                    ews.side_memo[0] = -1
                best, m = best_play0(P[k], d1, d2, ev, mws, ews, op, om, b5)
                n += m
    return n


def sample_classes(sampler, ws):
    """The positions of 200 games of ``sampler`` (seed 3), by class: (contact, race, crashed),
    up to 2,000 each. contact: the contact nets' positions (early and later, either side
    ahead in the race, both sides with a checker back or not, a side with an anchor or not),
    as they come in games; crashed: both crashed nets' (either side borne off)."""
    dest = np.zeros((6000, 26), dtype=np.int8)
    m = sample_positions(sampler, 200, make_rng(3), START, 0.0, ws, dest)
    classes = np.array([net_class(p) for p in dest[:m]])
    return tuple(
        dest[:m][np.isin(classes, k)][:2000] for k in (CONTACT_CLASSES, RACE, CRASHED_CLASSES)
    )


def _runs(fn, repeat):
    """(best, median) of ``repeat`` calls of ``fn`` returning (work, seconds): work per second
    for counts, seconds per call when work is None."""
    rates = []
    for _ in range(repeat):
        work, dt = fn()
        rates.append(work / dt)
    rates.sort()
    return rates[-1], rates[len(rates) // 2]


def _timed(f, *args):
    t = time.process_time()
    r = f(*args)
    return r, time.process_time() - t


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="runs of each measurement")
    parser.add_argument("--weights", default="bgtui-0.npz", help="weights file (default shipped)")
    parser.add_argument(
        "--positions-from",
        default=None,
        help="weights file whose games give the positions (default: --weights)",
    )
    parser.add_argument(
        "--databases",
        action="store_true",
        help="evaluate with the bear-off databases, as bgtui and the app do",
    )
    args = parser.parse_args()
    repeat = args.repeat
    nets = load_weights(args.weights)[0]
    ev = with_databases(nets, bearoff=args.databases)
    if args.positions_from:
        sampler = with_databases(load_weights(args.positions_from)[0])
    else:  # the games of --weights, played without the databases
        sampler = with_databases(nets) if args.databases else ev
    ws = make_play_workspace(max(hidden_size(ev), hidden_size(sampler)))
    ews, mws, op, om = ws.eval, ws.moves, ws.play_pos, ws.play_moves
    contact, race, crashed = sample_classes(sampler, ws)
    full = args.databases
    _static(contact[:2], ev, ews, 1, full)
    _in_selection(contact[:2], ev, mws, ews, op, om, False)
    for name, P in (("contact", contact), ("crashed", crashed), ("race", race)):
        best, med = _runs(lambda P=P: (5 * len(P), _timed(_static, P, ev, ews, 5, full)[1]), repeat)
        print(
            f"{name:8s} static evaluations/s: {best:12,.0f} best, {med:12,.0f} median", flush=True
        )
        best, med = _runs(
            lambda P=P: _timed(_in_selection, P[:500], ev, mws, ews, op, om, False), repeat
        )
        print(
            f"{name:8s} evaluations/s inside move selection: {best:12,.0f} best, "
            f"{med:12,.0f} median",
            flush=True,
        )
    out = np.zeros(5, dtype=np.float32)
    for prune in (DEFAULT_PRUNE, 0):
        fn = load_filter_net() if prune else None
        lws = make_lookahead_workspace(hidden_size(ev), fn, prune)
        evaluate_plied(contact[0], 2, ev, lws, out)
        what = f"pruned to the filter's best {prune}" if prune else "every play"
        for ply, k in ((1, 200), (2, 10)):

            def run(ply=ply, k=k, lws=lws):
                t = time.process_time()
                for p in contact[:k]:
                    evaluate_plied(p, ply, ev, lws, out)
                return k, time.process_time() - t

            best, med = _runs(run, repeat)  # positions per second
            print(
                f"{ply}-ply evaluation of a middle-game position ({what}): "
                f"{1000 / best:.2f} ms best, {1000 / med:.2f} ms median",
                flush=True,
            )


if __name__ == "__main__":
    main()
