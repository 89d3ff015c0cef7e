"""Strength: cubeless money duels with duplicate dice against PubEval or earlier weights.

    python evaluation/strength.py [--weights bgtui-0.npz] [--vs pubeval|home-db|plain-1ply|FILE]
                                   [--pairs 10000] [--ply 0|1]

``--vs plain-1ply``: the same weights at 1-ply ranking plays by their plain 1-ply value instead
of its blend with the 0-ply value (weighted by ``one_ply_weight0``); with ``--ply 1``, blend
against plain.

``--vs home-db``: the same weights with the home-board one-sided database only (what bgtui used
before the extended database's straggler rows), to measure what those rows are worth in play.
Each game pair plays one dice sequence twice with the seats swapped; prints bgtui's points per
game with the standard error over pairs, games per second and gammon rates. All cores (threads,
each with its own pairs; the result does not depend on the number of threads).
Target: 0-ply beats PubEval by >= +0.60 ppg over >= 10,000 pairs (GNU Backgammon
0-ply's published figure is +0.63).
"""

import os
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from bgtui.analysis.models import DEFAULT_PRUNE
from bgtui.analysis.options import script_parser
from bgtui.analysis.weights import load_filter_net, load_weights, with_databases
from bgtui.engine import START, WC, WR, duel_pairs, hidden_size, make_rollout_workspace


def duel(ev_a, kind_a, ev_b, kind_b, pairs, seed, workers):
    out = np.zeros((pairs, 4))
    bounds = np.linspace(0, pairs, workers * 4 + 1).astype(int)
    hidden = max(hidden_size(ev_a), hidden_size(ev_b))
    filt = load_filter_net()  # the 1-ply player's lookahead prunes as the app's does

    def part(lo, hi):
        duel_pairs(
            ev_a,
            kind_a,
            ev_b,
            kind_b,
            lo,
            hi - lo,
            seed,
            START,
            WR,
            WC,
            make_rollout_workspace(hidden, filt, DEFAULT_PRUNE),
            out[lo:hi],
        )

    with ThreadPoolExecutor(workers) as pool:
        list(pool.map(lambda b: part(*b), zip(bounds[:-1], bounds[1:])))
    return out


def main():
    ap = script_parser(
        weights="bgtui-0.npz", vs="pubeval", pairs=10000, seed=1, workers=os.cpu_count() or 1
    )
    ap.add_argument(
        "--ply",
        type=int,
        default=0,
        choices=(0, 1),
        help="bgtui's lookahead (1: every play at 0-ply, the best 8 within 0.16 at 1-ply, "
        "each roll of the lookahead pruned to the filter net's best 8 plays)",
    )
    a = ap.parse_args()
    ev = with_databases(load_weights(a.weights)[0], bearoff=True)
    if a.vs == "pubeval":
        ev_b, kind_b = ev, 1
    elif a.vs == "plain-1ply":
        ev_b, kind_b = ev, 3
    elif a.vs == "home-db":
        from bgtui.analysis.bearoff_cache import get_one_sided

        ev_b, kind_b = ev._replace(one_sided=get_one_sided().dist), 0
    else:
        ev_b, kind_b = with_databases(load_weights(a.vs)[0], bearoff=True), 0
    kind_a = 2 if a.ply == 1 else 0
    duel(ev, kind_a, ev_b, kind_b, 2, a.seed, 1)  # compile
    t = time.perf_counter()
    out = duel(ev, kind_a, ev_b, kind_b, a.pairs, a.seed, a.workers)
    dt = time.perf_counter() - t
    pair_ppg = out[:, :2].mean(axis=1)
    se = pair_ppg.std(ddof=1) / np.sqrt(len(pair_ppg))
    print(
        f"bgtui ({a.weights}, {a.ply}-ply) vs {a.vs}: {pair_ppg.mean():+.3f} ppg ± {se:.3f} over "
        f"{a.pairs} game pairs; {2 * a.pairs / dt:.0f} games/s; gammons "
        f"{out[:, 2].sum() / (2 * a.pairs):.1%}, backgammons {out[:, 3].sum() / (2 * a.pairs):.1%}"
    )


if __name__ == "__main__":
    main()
