"""Race plays valued at 0, 1 and 2-ply against the labels of a race sibling set.

    python3 evaluation/race_siblings.py [--data data/rs3] [--positions 100000] [--plies 0,1,2]
                                        W.npz [W2.npz ...]

For each weights file, the error of each ply's equity of the positions of ``--data`` (a set
with sibling groups: ``train dataset --race-rollouts T --children-best K``, whose plays of a
roll are rolled out on the same dice, or ``train side-labels --cousins``) against the set's
labels, group-centred (a position's error less the mean error of its group: the part that
decides which play of a roll is chosen), as a root mean square in millipoints. With 1-ply, also
the engine's 1-ply blend (``ONE_PLY_WEIGHT0`` of the 0-ply value), which is what 1-ply ranks
by. The label noise is in every figure: 36-trial rollouts (``data/rs3``) add about 3 millipoints.
"""

import argparse

import numpy as np

from bgtui.analysis.weights import load_weights, with_databases
from bgtui.engine import ONE_PLY_WEIGHT0
from bgtui.training.adam import sibling_residuals
from bgtui.training.train import load_dataset, plied_targets


def rms(p, truth, groups):
    """Millipoints: the root mean square of ``p``'s group-centred equity errors."""
    return 1000 * float(np.sqrt(np.mean(sibling_residuals(p, truth, groups) ** 2)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("weights", nargs="+")
    ap.add_argument("--data", default="data/rs3")
    ap.add_argument("--positions", type=int, default=100_000, help="the first this many")
    ap.add_argument("--plies", default="0,1,2")
    ap.add_argument("--workers", type=int, default=2)
    a = ap.parse_args()
    plies = sorted({int(p) for p in a.plies.split(",")})
    pos, tg, groups = load_dataset(a.data, with_groups=True)
    pos, tg, groups = pos[: a.positions], tg[: a.positions], groups[: a.positions]
    truth = tg.astype(np.float64)
    print(f"{a.data}: {len(pos)} positions in {len(np.unique(groups))} groups")
    for w in a.weights:
        ev = with_databases(load_weights(w)[0], True)
        p = {k: plied_targets(ev, pos, k, a.workers).astype(np.float64) for k in plies}
        parts = [f"{k}-ply {rms(p[k], truth, groups):.2f}" for k in plies]
        if 0 in p and 1 in p:
            blend = ONE_PLY_WEIGHT0 * p[0] + (1 - ONE_PLY_WEIGHT0) * p[1]
            parts.append(f"1-ply blend {rms(blend, truth, groups):.2f}")
        print(f"{w}: group-centred error, millipoints: " + ", ".join(parts), flush=True)


if __name__ == "__main__":
    main()
