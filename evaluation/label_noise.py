"""How noisy a set's rollout labels are: the same plays labelled by two rollout sets of
different trials, and each weights file's 0-ply against both.

    python3 evaluation/label_noise.py --few data/dz2 --many data/dz2t144 --shards 0,1,2,3,4 \\
        [--ratio 4] [--workers 2] [W.npz ...]

``--few`` and ``--many`` are two sets made by ``bgtui train dataset`` with the same seed and
``--children-best`` but different ``--trials`` (``--ratio`` times as many in ``--many``). Each
shard's rolls (sibling groups) are matched by their plays (a roll whose 2-ply check went the
other way in one of them is left out). Printed, group-centred RMS in millipoints
(``sibling_errors.rms`` of ``adam.sibling_residuals``): the two labels against each other, and
each weights file's 0-ply against either. With the labels' noise independent of the net's
error, a file's two figures give the few-trial labels' noise σ (its squared figures differ by
(1 - 1 / ratio) σ²) and the file's own error (the few-trial figure less that noise).
"""

import argparse

import numpy as np
from sibling_errors import rms

from bgtui.analysis.weights import load_weights, with_databases
from bgtui.training.adam import sibling_residuals
from bgtui.training.train import load_dataset, plied_targets


def _rolls(pos, groups):
    """{the sorted plays of a roll (bytes): its rows sorted the same way}, the first of equal
    rolls kept."""
    out = {}
    for g in np.unique(groups):
        rows = np.flatnonzero(groups == g)
        keys = [bytes(pos[r]) for r in rows]
        order = np.argsort(keys, kind="stable")
        out.setdefault(tuple(sorted(keys)), rows[order])
    return out


def matched(few, many, shards):
    """(positions, few-trial labels, many-trial labels, groups) of the rolls both sets have,
    shard by shard."""
    P, A, B, G = [], [], [], []
    for k in shards:
        pa, ta, ga = load_dataset(f"{few}:{k}:{k + 1}", with_groups=True)
        pb, tb, gb = load_dataset(f"{many}:{k}:{k + 1}", with_groups=True)
        ra, rb = _rolls(pa, ga), _rolls(pb, gb)
        common = [key for key in rb if key in ra]
        print(f"shard {k}: {len(common)} of {len(rb)} distinct rolls shared")
        for key in common:
            P.append(pa[ra[key]])
            A.append(ta[ra[key]])
            B.append(tb[rb[key]])
            G.append(np.full(len(ra[key]), len(G)))
    return (np.concatenate(x) for x in (P, A, B, G))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("weights", nargs="*")
    ap.add_argument("--few", required=True)
    ap.add_argument("--many", required=True)
    ap.add_argument("--shards", required=True, help="shard indices, comma-separated")
    ap.add_argument("--ratio", type=float, default=4.0, help="trials of --many over --few")
    ap.add_argument("--workers", type=int, default=2)
    a = ap.parse_args()
    pos, few, many, groups = matched(a.few, a.many, [int(s) for s in a.shards.split(",")])
    few, many = few.astype(np.float64), many.astype(np.float64)
    print(
        f"{len(pos)} plays; labels against each other {rms(sibling_residuals(few, many, groups)):.2f}"
    )
    for w in a.weights:
        ev = with_databases(load_weights(w)[0])
        v = plied_targets(ev, pos, 0, a.workers).astype(np.float64)
        r_few = rms(sibling_residuals(v, few, groups))
        r_many = rms(sibling_residuals(v, many, groups))
        sigma = np.sqrt((r_few**2 - r_many**2) / (1 - 1 / a.ratio))
        own = np.sqrt(max(r_few**2 - sigma**2, 0.0))
        print(
            f"{w}: 0-ply against the few-trial labels {r_few:.2f}, the many-trial {r_many:.2f}; "
            f"few-trial noise {sigma:.1f}, own error {own:.1f}"
        )


if __name__ == "__main__":
    main()
