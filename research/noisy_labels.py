"""Does the rollout labels' noise limit the fit? A copy of a set whose labels carry more noise
of their own kind, to fit on in place of the set.

    python research/noisy_labels.py --few data/dz2 --many data/dz2t144 --pool 5,6,7,8,9,10 \\
        --source data/dz2:5:194 --into DIR [--scale 1] [--seed 2026] [--components 0,1,3]

``--few`` and ``--many`` are the same plays labelled with few and ``--ratio`` times as many
trials (as for ``evaluation/label_noise.py``, whose matching of rolls this uses), on the shards
``--pool``. A roll's label differences ``few - many`` are sqrt(ratio / (ratio - 1)) times the
few-trial labels' noise in size when the many-trial labels share the few-trial ones' first
trials; the noise of a roll of ``--source`` is the differences of a roll of the pool drawn at
random (the rows of one roll for the rows of one roll, so the siblings' correlation under the
same dice is kept, a random subset of them when the pool's roll is larger), scaled so that its
group-centred equity RMS is ``--scale`` times the few-trial labels' noise. Only the outputs
``--components`` get noise (by default the win and the two gammons: a backgammon probability
is near 0 in most positions, and noise clipped there would move its mean); the five are then
clipped back into a consistent set (gammons within wins, backgammons within gammons).
``--scale 1`` doubles the noise's variance, ``--scale 1.414`` triples it. With
``--clipping-only`` the copy gets only what the clipping changed (the labels plus the noisy
labels' clipped part, clipped again): a control that has the noisy copy's shift of the means
without its noise.

Each shard of ``--source`` is written to ``--into`` with the same positions, groups and
metadata. Printed: the noise of each output in the pool, the injected noise's group-centred
RMS over the copy and the mean shift of each output that the clipping leaves.
"""

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "evaluation"))

from label_noise import matched  # noqa: E402
from sibling_errors import rms  # noqa: E402

from bgtui.training.adam import sibling_residuals  # noqa: E402
from bgtui.training.train import source_shards  # noqa: E402


def consistent(y):
    """``y`` (float64[N, 5], cumulative order) clipped into probabilities that can be."""
    y = np.clip(y, 0.0, 1.0)
    y[:, 1] = np.minimum(y[:, 1], y[:, 0])
    y[:, 2] = np.minimum(y[:, 2], y[:, 1])
    y[:, 3] = np.minimum(y[:, 3], 1.0 - y[:, 0])
    y[:, 4] = np.minimum(y[:, 4], y[:, 3])
    return y


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--few", required=True)
    ap.add_argument("--many", required=True)
    ap.add_argument("--pool", required=True, help="shard indices, comma-separated")
    ap.add_argument("--source", required=True)
    ap.add_argument("--into", required=True)
    ap.add_argument("--ratio", type=float, default=4.0, help="trials of --many over --few")
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--components", default="0,1,3")
    ap.add_argument("--clipping-only", action="store_true")
    a = ap.parse_args()
    _, few, many, groups = matched(a.few, a.many, [int(s) for s in a.pool.split(",")])
    d = few.astype(np.float64) - many.astype(np.float64)
    zero = np.zeros_like(d)
    for c in range(5):
        dc = zero.copy()
        dc[:, c] = d[:, c]
        print(f"output {c}: group-centred {rms(sibling_residuals(dc, zero, groups)):.2f}")
    mask = np.zeros(5)
    mask[[int(c) for c in a.components.split(",")]] = 1.0
    noise = np.sqrt(a.ratio / (a.ratio - 1.0))  # from the differences to the few-trial noise
    full = rms(sibling_residuals(d * noise, zero, groups))
    s = noise * a.scale * full / rms(sibling_residuals(d * mask * noise, zero, groups))
    dm = d * mask * s
    print(f"few-trial labels' group-centred noise {full:.2f}; injected {a.scale * full:.2f}")
    pool = [np.flatnonzero(groups == g) for g in np.unique(groups)]
    sizes = np.array([len(p) for p in pool])
    rng = np.random.default_rng(a.seed)
    into = Path(a.into)
    into.mkdir(parents=True, exist_ok=True)
    shift = np.zeros(5)
    residuals = []
    _, shards = source_shards(a.source)
    for j, p in enumerate(shards):
        with np.load(p, allow_pickle=False) as z:
            pos, t, g, meta = (
                z["positions"],
                z["targets"].astype(np.float64),
                z["groups"],
                z["meta"],
            )
        n = np.zeros_like(t)
        for k in np.unique(g):
            rows = np.flatnonzero(g == k)
            fits = np.flatnonzero(sizes >= len(rows))
            src = pool[fits[rng.integers(len(fits))]]
            n[rows] = dm[rng.permutation(src)[: len(rows)]]
        y = consistent(t + n)
        if a.clipping_only:
            y = consistent(y - n)
        shift += (y - t).sum(axis=0)
        residuals.append(sibling_residuals(y, t, g.astype(np.int64)))
        np.savez_compressed(
            into / f"shard-{j:05d}.npz",
            positions=pos,
            targets=y.astype(np.float32),
            groups=g,
            meta=meta,
        )
    rows = sum(len(r) for r in residuals)
    print(
        f"{len(shards)} shards, {rows} rows: injected group-centred RMS "
        f"{rms(np.concatenate(residuals)):.2f}; mean shift by output "
        + " ".join(f"{x:+.5f}" for x in shift / rows)
    )


if __name__ == "__main__":
    main()
