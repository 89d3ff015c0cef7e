"""Where a file's 0-ply errs among a roll's plays: by the kind of roll, and in rolls whose plays
different nets value, between those nets' plays or within them.

    python research/mixed_rolls.py --data data/dz2t144 --shards 0-12 --sharp runs/pb/H1 W.npz

On the plays of ``--data``'s shards (a ``--children-best`` set, its labels of one player),
group-centred equity errors of W's 0-ply (``adam.sibling_residuals``, millipoints). ``--sharp``
holds the first shards' plays labelled again by the set's own player on other dice
(``research/player_labels.py``): the squared difference of the two label sets, halved, is the
labels' noise, which is taken off every figure (by family where it has 50 plays or more).

- By family: the rolls whose plays the engine values with one family of classes (early, the
  contact classes without and with both sides back, crashed, holding, race), and ``mixed``, the
  rolls whose plays fall in different classes (a hit, an anchor made or given up, contact
  broken). The share of W's squared error each holds.
- In the mixed rolls, each play's error split into the mean over the plays of its class in its
  roll (between classes) and the rest (within): against the same split with the classes
  shuffled within each roll, what a class structure adds to the error between classes.
"""

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "evaluation"))

from player_labels import load_shards  # noqa: E402
from sibling_errors import CLASSES, group_classes  # noqa: E402

from bgtui.analysis.weights import load_weights  # noqa: E402
from bgtui.training.adam import sibling_residuals  # noqa: E402
from bgtui.training.kernels import net_classes  # noqa: E402
from bgtui.training.train import plied_targets  # noqa: E402

FAMILIES = ("early", "contact", "mutual", "crashed", "holding", "race", "mixed")


def family(name):
    if name.startswith("early"):
        return "early"
    if name in ("crashed", "holding", "race"):
        return name
    return "mutual" if "mutual" in name else "contact"


def squared(y, t, g):
    return (1e3 * sibling_residuals(y, t, g)) ** 2


def between_within(r, groups, classes, rows):
    """(mean square of the between-class part, of the rest) of the residuals ``r`` over ``rows``."""
    _, k = np.unique(groups[rows] * 64 + classes[rows], return_inverse=True)
    mean = np.bincount(k, weights=r[rows]) / np.bincount(k)
    return float((mean[k] ** 2).mean()), float(((r[rows] - mean[k]) ** 2).mean())


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("weights")
    ap.add_argument("--data", required=True)
    ap.add_argument("--shards", required=True, help="A-B, inclusive")
    ap.add_argument("--sharp", required=True)
    ap.add_argument("--workers", type=int, default=2)
    a = ap.parse_args()
    lo, hi = (int(v) for v in a.shards.split("-"))
    P, T, _, G = load_shards(a.data, range(lo, hi + 1))
    P, T = np.concatenate(P), np.concatenate(T).astype(np.float64)
    S = []
    for k in range(lo, hi + 1):  # the sharp labels of the first shards, in a row
        f = Path(a.sharp) / f"shard-{k:05d}.npz"
        if not f.exists():
            break
        S.append(np.load(f)["targets"].astype(np.float64))
    S = np.concatenate(S)
    ns = len(S)
    y = plied_targets(load_weights(a.weights)[0], P, 0, a.workers).astype(np.float64)
    pc = net_classes(P)
    gc = group_classes(pc, G)
    _, inv = np.unique(G, return_inverse=True)
    names = dict((k, n) for n, k in CLASSES)
    fam = np.array([family(names[c]) if c in names else "mixed" for c in gc[inv]])
    err = squared(y, T, G)
    noise = squared(T[:ns], S, G[:ns]) / 2
    print(f"{len(G)} plays, {ns} with sharp labels; millipoints, the labels' noise taken off")
    print(f"{'family':10s} {'plays':>6s} {'0-ply':>6s} {'noise':>6s} {'share':>6s}")
    for f in FAMILIES + ("all",):
        m = np.ones(len(G), bool) if f == "all" else fam == f
        if not m.any():
            continue
        nz = noise[m[:ns]].mean() if m[:ns].sum() >= 50 else noise.mean()
        e = np.sqrt(max(err[m].mean() - nz, 0))
        print(f"{f:10s} {m.sum():6d} {e:6.2f} {np.sqrt(nz):6.2f} {err[m].sum() / err.sum():6.2f}")
    mixed = np.flatnonzero(fam == "mixed")
    r = 1e3 * sibling_residuals(y, T, G)
    rn = 1e3 * sibling_residuals(T[:ns], S, G[:ns])
    shuffled = pc.copy()
    rng = np.random.default_rng(3)
    for g in np.unique(G[mixed]):
        rows = np.flatnonzero(G == g)
        shuffled[rows] = rng.permutation(pc[rows])
    mixed_s = mixed[mixed < ns]
    for label, cls in (("classes", pc), ("shuffled", shuffled)):
        b, w = between_within(r, G, cls, mixed)
        nb, nw = between_within(rn, G[:ns], cls[:ns], mixed_s)
        print(
            f"mixed rolls, {label}: between {np.sqrt(max(b - nb / 2, 0)):.1f}, "
            f"within {np.sqrt(max(w - nw / 2, 0)):.1f} (mean squares {b:.0f} and {w:.0f}, "
            f"noise {nb / 2:.0f} and {nw / 2:.0f})"
        )


if __name__ == "__main__":
    main()
