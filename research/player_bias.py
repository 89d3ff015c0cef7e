"""How far does a rollout player move a set's labels, beyond the noise of both?

    python research/player_bias.py --data data/dz2t144 --shards 0,1 --sharp runs/pb/P0 \\
        --halves data/pl1/s9902/Z-ply1 data/pl1/s9903/Z-ply1 [--other runs/pb/Z]

The reference R is the mean of the set's own labels (``--data``) and ``--sharp``, the same
plays rolled out again by the set's own player, as many trials on other dice
(``research/player_labels.py``). The candidate M is the mean of ``--halves``, two label sets of
the same plays by the candidate player on independent dice, equal trials each. On
group-centred equities (``adam.sibling_residuals``, millipoints), with D the mean square of a
difference over the plays:

- M's noise variance is D(halves) / 4, R's is D(set, sharp) / 4;
- the player's part is D(M, R) less both noise variances: the mean square of what the
  candidate's play changes in the labels, in mp² (negative when it is below the noise's reach).

``--other`` (optional) is a third player's labels with as many trials as the set, its noise
variance taken as the set's own, D(set, sharp) / 2. Standard errors by a bootstrap over the
rolls (1,000 resamples, seed 1).
"""

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from player_labels import load_shards  # noqa: E402

from bgtui.engine import EQUITY_COEF  # noqa: E402
from bgtui.training.adam import sibling_residuals  # noqa: E402


def _labels(directory, shards, positions):
    out = []
    for k, p in zip(shards, positions):
        z = np.load(Path(directory) / f"shard-{k:05d}.npz")
        if z["positions"].shape != p.shape or not (z["positions"] == p).all():
            raise SystemExit(f"{directory}: shard {k} holds other positions than the set's")
        out.append(z["targets"].astype(np.float64))
    return np.concatenate(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", required=True)
    ap.add_argument("--shards", required=True, help="shard indices, comma-separated")
    ap.add_argument("--sharp", required=True)
    ap.add_argument("--halves", nargs=2, required=True)
    ap.add_argument("--other")
    a = ap.parse_args()
    shards = [int(s) for s in a.shards.split(",")]
    pos, own, _, g = load_shards(a.data, shards)
    own = np.concatenate(own).astype(np.float64)
    sharp = _labels(a.sharp, shards, pos)
    ha, hb = (_labels(d, shards, pos) for d in a.halves)
    r, m = (own + sharp) / 2, (ha + hb) / 2
    pairs = {"MR": (m, r), "AB": (ha, hb), "R": (own, sharp)}
    if a.other:
        pairs["MO"] = (m, _labels(a.other, shards, pos))
    rolls, inv = np.unique(g, return_inverse=True)
    count = np.bincount(inv)
    per_roll = {
        k: np.bincount(inv, weights=(1e3 * sibling_residuals(x, y, g)) ** 2)
        for k, (x, y) in pairs.items()
    }

    def estimate(pick):
        d = {k: v[pick].sum() / count[pick].sum() for k, v in per_roll.items()}
        noise_m, noise_r = d["AB"] / 4, d["R"] / 4
        parts = {"player": d["MR"] - noise_m - noise_r}
        if "MO" in d:
            parts["other"] = d["MO"] - noise_m - 2 * noise_r
        return parts, d

    parts, d = estimate(np.arange(len(rolls)))
    rng = np.random.default_rng(1)
    boot = [estimate(rng.integers(len(rolls), size=len(rolls)))[0] for _ in range(1000)]
    print(f"{len(g)} plays in {len(rolls)} rolls, millipoints")
    print(f"candidate against reference: RMS {np.sqrt(d['MR']):.2f}")
    print(f"noise of one candidate label (the halves' mean): {np.sqrt(d['AB'] / 4):.2f}")
    print(f"noise of one reference label: {np.sqrt(d['R'] / 4):.2f}")
    for k, v in parts.items():
        se = np.std([b[k] for b in boot])
        what = "candidate against reference" if k == "player" else "candidate against --other"
        print(
            f"player's part, {what}: {v:+.1f} ± {se:.1f} mp² (RMS under {np.sqrt(max(v, 0) + 2 * se):.1f})"
        )
    mean = 1e3 * np.mean((m - r) @ EQUITY_COEF)
    print(f"mean equity, candidate minus reference: {mean:+.2f}")


if __name__ == "__main__":
    main()
