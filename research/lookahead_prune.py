"""What pruning the lookahead to the filter net's best k plays a roll costs: how often the
filter's top k hold the evaluator's best play of a roll, and how far pruned 1- and 2-ply values
move from the exact ones.

    python3 research/lookahead_prune.py [--filter filter-0.npz] [--positions 2000] [--seed 901]

Part 1: self-play positions of the shipped weights (``--positions``, ``--seed``), every play
of each of their 21 rolls valued at 0-ply (bear-off databases included). For k = 2 to 12 it
prints the share of rolls whose best play the filter's top k hold, the equity the best of the
top k falls short of the roll's best (millipoints a roll), and the extra variance of the luck
of variance reduction (``training.filter.filter_quality``).

Part 2: contact positions of the shipped weights' games (seed 3, as ``benchmarks/eval.py``),
300 at 1-ply and 60 at 2-ply, valued pruned to ``DEFAULT_PRUNE`` and exactly: the mean, mean
absolute and largest difference of the player on roll's cubeless equity, and the share of
positions valued identically (docs/lab-notes/2026-12-07-lookahead-pruning.md).
"""

import numpy as np

from bgtui.analysis.models import DEFAULT_PRUNE
from bgtui.analysis.options import script_parser
from bgtui.analysis.weights import load_filter_net, load_weights, with_databases
from bgtui.engine import (
    CONTACT_CLASSES,
    START,
    equity,
    evaluate_plied,
    hidden_size,
    make_lookahead_workspace,
    make_play_workspace,
    make_rng,
    net_class,
    sample_positions,
)
from bgtui.training.filter import filter_quality, play_samples, scores


def quality(ev, fn, positions: int, seed: int) -> None:
    ws = make_play_workspace(hidden_size(ev))
    dest = np.zeros((positions, 26), dtype=np.int8)
    n = sample_positions(ev, positions // 20 + 1, make_rng(seed), START, 0.0, ws, dest)
    rows, values, groups, used = play_samples(ev, dest[:n], 4_000_000)
    w1, b1, w2 = fn
    s = scores((w1[: w1.shape[0] // 2], b1, w2), rows)
    print(f"{used} positions, {len(rows)} plays, {len(rows) / (used * 21):.1f} a roll")
    for k, v in filter_quality(values, groups, s, ks=(2, 3, 4, 5, 6, 8, 10, 12)).items():
        print(
            f"k {k:2d}: best kept {100 * v['best_kept']:.1f} %, shortfall "
            f"{1000 * v['shortfall']:.2f} mp a roll, luck variance share "
            f"{100 * v['luck_variance_share']:.2f} %"
        )


def value_shift(nets, ev, fn) -> None:
    hidden = hidden_size(ev)
    ws = make_play_workspace(hidden)
    dest = np.zeros((6000, 26), dtype=np.int8)
    sampler = with_databases(nets)  # as benchmarks/eval.py samples them
    m = sample_positions(sampler, 200, make_rng(3), START, 0.0, ws, dest)
    classes = np.array([net_class(p) for p in dest[:m]])
    contact = dest[:m][np.isin(classes, CONTACT_CLASSES)]
    pruned = make_lookahead_workspace(hidden, fn, DEFAULT_PRUNE)
    exact = make_lookahead_workspace(hidden)
    a, b = np.zeros(5, dtype=np.float32), np.zeros(5, dtype=np.float32)
    for ply, count in ((1, 300), (2, 60)):
        d = []
        for p in contact[:count]:
            evaluate_plied(p, ply, ev, pruned, a)
            evaluate_plied(p, ply, ev, exact, b)
            d.append(equity(a) - equity(b))
        d = np.array(d)
        print(
            f"{ply}-ply, {len(d)} contact positions, pruned to {DEFAULT_PRUNE} minus exact: "
            f"mean {1000 * d.mean():+.3f} mp, mean abs {1000 * np.abs(d).mean():.3f} mp, "
            f"largest {1000 * np.abs(d).max():.2f} mp, identical {100 * np.mean(d == 0):.0f} %"
        )


def main() -> None:
    args = script_parser(
        __doc__.splitlines()[0], filter="filter-0.npz", positions=2000, seed=901
    ).parse_args()
    nets = load_weights("bgtui-0.npz")[0]
    ev = with_databases(nets, bearoff=True)
    fn = load_filter_net(args.filter)
    quality(ev, fn, args.positions, args.seed)
    value_shift(nets, ev, fn)


if __name__ == "__main__":
    main()
