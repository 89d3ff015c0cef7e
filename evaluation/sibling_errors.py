"""Plays valued at 0, 1 and 2-ply against the labels of a set of sibling groups, by net class.

    python3 evaluation/sibling_errors.py [--data data/rs3] [--positions 100000] [--plies 0,1,2]
                                         W.npz [W2.npz ...]

For each weights file, the error of each ply's equity of the positions of ``--data``
(directories ``DIR[:first[:last]]``, a slice of their sorted shards, separated by commas: a set
with groups whose positions are rolled out on the same dice: the plays of a roll, as
``train dataset --children-best K`` with rollout targets or ``--race-rollouts T`` makes them,
or the leaves 1-ply compares, ``--cousins``) against the set's labels, group-centred (a
position's error less the mean error of its group: the part that decides which play of a roll
is chosen), as a root mean square in millipoints, over all positions and over those each net
(contact, crashed, race) values; a play alone in its group counts with error 0. With 1-ply,
also the engine's 1-ply blend (``ONE_PLY_WEIGHTS0`` of the 0-ply value, here by each
position's own class, where the engine takes the class of the position before the roll),
which is what 1-ply ranks by, and blends at the 0-ply weights ``--blends``. The label noise
is in every figure: 36-trial race rollouts (``data/rs3``) add about 3 millipoints, 36-trial
contact rollouts truncated after 7 rolls (``data/cs2`` shard 0, ``data/cr_hold``) about 10
and 11.
"""

import argparse

import numpy as np

from bgtui.analysis.weights import load_weights, with_databases
from bgtui.engine import CONTACT, CRASHED, EARLY, HOLDING, ONE_PLY_WEIGHTS0, RACE
from bgtui.training.adam import sibling_residuals
from bgtui.training.kernels import net_classes
from bgtui.training.train import load_dataset, plied_targets

CLASSES = (
    ("contact", CONTACT),
    ("early", EARLY),
    ("crashed", CRASHED),
    ("holding", HOLDING),
    ("race", RACE),
)


def rms(residuals):
    """Millipoints: the root mean square of group-centred equity errors."""
    return 1000 * float(np.sqrt(np.mean(residuals**2)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("weights", nargs="+")
    ap.add_argument("--data", default="data/rs3")
    ap.add_argument("--positions", type=int, default=100_000, help="the first this many")
    ap.add_argument("--plies", default="0,1,2")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument(
        "--blends", default="", help="more 0-ply weights of the blend, every class alike: 0.25,0.5"
    )
    a = ap.parse_args()
    plies = sorted({int(p) for p in a.plies.split(",")})
    pos, tg, groups = load_dataset(a.data, with_groups=True)
    pos, tg, groups = pos[: a.positions], tg[: a.positions], groups[: a.positions]
    truth = tg.astype(np.float64)
    cls = net_classes(pos)
    counts = ", ".join(f"{name} {int(np.sum(cls == k))}" for name, k in CLASSES)
    print(f"{a.data}: {len(pos)} positions ({counts}) in {len(np.unique(groups))} groups")
    for w in a.weights:
        ev = with_databases(load_weights(w)[0], True)
        p = {f"{k}-ply": plied_targets(ev, pos, k, a.workers).astype(np.float64) for k in plies}
        if "0-ply" in p and "1-ply" in p:
            w0 = np.asarray(ONE_PLY_WEIGHTS0)[cls][:, None]
            p["1-ply blend"] = w0 * p["0-ply"] + (1 - w0) * p["1-ply"]
            for b in filter(None, a.blends.split(",")):
                p[f"blend {float(b):.2f}"] = float(b) * p["0-ply"] + (1 - float(b)) * p["1-ply"]
        print(f"{w}: group-centred error, millipoints")
        for name, v in p.items():
            r = sibling_residuals(v, truth, groups)  # over whole groups, then split by class
            parts = [f"all {rms(r):6.2f}"]
            parts += [f"{c} {rms(r[cls == k]):6.2f}" for c, k in CLASSES if np.any(cls == k)]
            print(f"  {name:12s} " + "  ".join(parts), flush=True)


if __name__ == "__main__":
    main()
