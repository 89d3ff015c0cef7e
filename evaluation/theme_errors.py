"""The 0-ply equity's error against a training set's labels, by theme and by side.

    python3 evaluation/theme_errors.py [--data data/bg_hold] [--positions 60000] W.npz [W2.npz ...]

For each weights file, the cubeless equity of the side on roll by 0-ply minus the label's, in
millipoints, as a root mean square and a mean (the bias), over all positions of ``--data`` (a
random ``--positions`` of them when there are more) and over the contact positions of each
theme of ``bgtui/training/themes.py``, split by whether the side on roll or the other side has
the theme (positions where both have it are left out of the split). The labels' own noise is
in every rms: 36-trial rollouts truncated after 7 rolls add about 12 millipoints.
"""

import argparse

import numpy as np

from bgtui.analysis.weights import load_weights, with_databases
from bgtui.engine import equities
from bgtui.training.themes import THEMES, theme_sides
from bgtui.training.train import load_dataset, plied_targets


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("weights", nargs="+")
    ap.add_argument("--data", default="data/bg_hold")
    ap.add_argument("--positions", type=int, default=60000)
    args = ap.parse_args()
    pos, tg = load_dataset(args.data)[:2]
    if len(pos) > args.positions:
        pick = np.random.default_rng(0).choice(len(pos), args.positions, replace=False)
        pos, tg = pos[pick], tg[pick]
    rows = [("all positions", np.ones(len(pos), dtype=bool))]
    for name in THEMES:
        mine, theirs = theme_sides(pos, name)
        rows += [(f"{name}, side on roll", mine & ~theirs), (f"{name}, other side", theirs & ~mine)]
    truth = equities(tg.astype(np.float64))
    for path in args.weights:
        ev = with_databases(load_weights(path)[0], True)
        err = 1000 * (equities(plied_targets(ev, pos, 0, 1).astype(np.float64)) - truth)
        print(f"{path}: {len(pos)} positions of {args.data}, millipoints")
        for label, m in rows:
            if m.any():
                rms, bias = np.sqrt(np.mean(err[m] ** 2)), err[m].mean()
                print(f"  {label:24s} {int(m.sum()):7d}  rms {rms:6.1f}  bias {bias:+6.1f}")


if __name__ == "__main__":
    main()
