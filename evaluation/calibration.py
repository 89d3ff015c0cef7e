"""Calibration of the 0-ply outputs against full-game rollouts: self-play contact positions,
each rolled out (36 trials, variance reduction, 0-ply play), compared output by output.

    python3 evaluation/calibration.py --reference evaluation/data/calibration_s91.npz \\
        [--weights bgtui-0.npz OTHER.npz ...]
    python3 evaluation/calibration.py --positions 600 --seed 91 --save FILE
    python3 evaluation/calibration.py --data runs/c36_test [--weights ...]

Prints, for the contact and the crashed net's positions and for each weights file, the mean of
each of the five outputs beside the rollouts' mean (with the standard error of the difference),
and over all positions the cubeless equity's mean and RMS error against the rollouts (the RMS
includes the rollouts' own noise, the same for every weights file). ``--save`` keeps the
positions and rollouts; ``--reference`` reads them back (seconds instead of a minute or two).
``--data DIR[,DIR...]`` takes the positions and targets of training-set shards instead (``bgtui
train dataset``; with ``--target-games`` their targets are full-game rollouts), e.g. shards of
``--cube-region`` positions held out of a fit.
"""

import time

import numpy as np

from bgtui.analysis.options import script_parser
from bgtui.analysis.weights import load_weights, with_databases
from bgtui.engine import (
    CONTACT,
    CONTACT_CLASSES,
    CRASHED,
    CRASHED_CLASSES,
    equities,
    evaluate0,
    net_class,
)
from bgtui.training.head_refit import sample_contact_positions
from bgtui.training.train import rollout_targets

NAMES = ("win", "win_gammon", "win_bg", "lose_gammon", "lose_bg")


def main():
    ap = script_parser(__doc__.splitlines()[0], positions=600, seed=91, trials=36, workers=2)
    ap.add_argument("--weights", nargs="+", default=["bgtui-0.npz"])
    ap.add_argument("--save", help="write the positions and rollouts to this .npz")
    ap.add_argument("--reference", help="read the positions and rollouts from this .npz")
    ap.add_argument("--data", help="read positions and targets from these training-set shards")
    args = ap.parse_args()

    if args.data:
        from bgtui.training.train import load_dataset

        pos, ro = load_dataset(args.data)
        ro = ro.astype(np.float64)
        print(f"{len(pos)} positions and their targets from {args.data}")
    elif args.reference:
        with np.load(args.reference) as z:
            pos, ro = z["pos"], z["ro"]
        print(f"{len(pos)} positions and their rollouts from {args.reference}")
    else:
        ev = with_databases(load_weights(args.weights[0])[0], bearoff=True)
        pos = sample_contact_positions(ev, args.positions, args.seed, games=3000, capacity=200000)
        t = time.time()
        ro = rollout_targets(ev, pos, args.trials, args.seed, args.workers)
        print(
            f"{len(pos)} positions, {args.trials}-trial rollouts played by {args.weights[0]} "
            f"in {time.time() - t:.0f} s"
        )
        if args.save:
            np.savez(args.save, pos=pos, ro=ro)
    cls = np.array([net_class(p) for p in pos])
    # the contact nets' positions together (early, trailing, the mutual, the anchor, the
    # early trailing, the early bar and the bar ones below EARLY_PIPS)
    cls[np.isin(cls, CONTACT_CLASSES)] = CONTACT
    cls[np.isin(cls, CRASHED_CLASSES)] = CRASHED  # and both crashed nets'
    for w in args.weights:
        ev = with_databases(load_weights(w)[0], bearoff=True)
        y = np.array([evaluate0(p, ev) for p in pos], dtype=np.float64)
        print(f"\n{w}")
        for c, name in ((0, "contact"), (2, "crashed")):
            k = cls == c
            if not k.any():
                continue
            print(f"  {name} ({k.sum()} positions):")
            for j in range(5):
                d = y[k, j] - ro[k, j]
                print(
                    f"    {NAMES[j]:12s} net {y[k, j].mean():.4f}  rollouts {ro[k, j].mean():.4f}"
                    f"  difference {d.mean():+.4f} ± {d.std() / np.sqrt(k.sum()):.4f}"
                )
        e = equities(y) - equities(ro)
        print(
            f"  cubeless equity against the rollouts: mean error {e.mean():+.4f}, "
            f"RMS {np.sqrt((e**2).mean()):.4f}"
        )


if __name__ == "__main__":
    main()
