"""How much do rollout labels depend on the player of the rollouts? The plays of a
rollout-labelled set relabelled by full-game rollouts played by other weights.

    python research/player_labels.py --data data/dz2t144 --shards 0,1 --seed 9901 \\
        --into DIR [--trials 144] [--ply 0] [--workers 2] PLAYER.npz [PLAYER.npz ...]

Each shard ``k`` of ``--data`` (made by ``bgtui train dataset --target-games --children-best``)
is rolled out again by each PLAYER, ``--trials`` trials with the set's settings (variance
reduction by the filter's two best plays, the plays of a roll on the same dice), from the seed
``seed * 1_000_003 + k``, into ``DIR/<player's file stem>/`` (a shard already there is kept, so
an interrupted run resumes). With ``--ply 1`` the players choose their plays (and value the
variance reduction's) at 1-ply, about twenty times the time; the directory is then
``DIR/<stem>-ply1/``. Printed, in millipoints, the group-centred RMS
(``sibling_errors.rms`` of ``adam.sibling_residuals``) of every pair of label sets, the set's
own included, and of each player's 0-ply against each. With the set's own player among the
PLAYERs, its pair with the set is the labels' noise alone (two independent rollouts, so
sqrt(2) times one's noise); a pair of players on independent dice that differs by more has
that much more, in quadrature, from the players.
"""

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "evaluation"))

from sibling_errors import rms  # noqa: E402

from bgtui.analysis.weights import load_weights, with_databases  # noqa: E402
from bgtui.engine import EQUITY_COEF  # noqa: E402
from bgtui.training.adam import sibling_residuals  # noqa: E402
from bgtui.training.train import load_dataset, plied_targets, rollout_targets  # noqa: E402


def load_shards(data, shards):
    """(positions, labels, groups: one array per shard of ``data``; the groups of all the
    shards numbered apart, concatenated)."""
    pos, own, rolls, groups = [], [], [], []
    for k in shards:
        p, t, g = load_dataset(f"{data}:{k}:{k + 1}", with_groups=True)
        pos.append(p)
        own.append(t)
        rolls.append(g)
        groups.append(g + (0 if not groups else groups[-1].max() + 1))
    return pos, own, rolls, np.concatenate(groups)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("players", nargs="+")
    ap.add_argument("--data", required=True)
    ap.add_argument("--shards", required=True, help="shard indices, comma-separated")
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--into", required=True)
    ap.add_argument("--trials", type=int, default=144)
    ap.add_argument("--ply", type=int, default=0, choices=(0, 1, 2))
    ap.add_argument("--workers", type=int, default=2)
    a = ap.parse_args()
    shards = [int(s) for s in a.shards.split(",")]
    pos, own, rolls, groups = load_shards(a.data, shards)
    labels = {Path(a.data).name: np.concatenate(own).astype(np.float64)}
    for w in a.players:
        ev = with_databases(load_weights(w)[0], True)
        name = Path(w).stem + (f"-ply{a.ply}" if a.ply else "")
        out = Path(a.into) / name
        out.mkdir(parents=True, exist_ok=True)
        rows = []
        for k, p, g in zip(shards, pos, rolls):
            f = out / f"shard-{k:05d}.npz"
            if not f.exists():
                seed = a.seed * 1_000_003 + k
                t = rollout_targets(
                    ev, p, a.trials, seed, a.workers, vr_filter=2, groups=g, ply=a.ply
                )
                np.savez_compressed(f, positions=p, targets=t, groups=g)
            with np.load(f) as z:
                rows.append(z["targets"])
        labels[name] = np.concatenate(rows).astype(np.float64)
    pos = np.concatenate(pos)
    names = list(labels)
    print(f"{len(pos)} plays")
    for i, x in enumerate(names):
        for y in names[i + 1 :]:
            d = 1000 * float(np.mean((labels[x] - labels[y]) @ EQUITY_COEF))
            r = rms(sibling_residuals(labels[x], labels[y], groups))
            print(f"{x} against {y}: group-centred {r:.2f}, mean equity {d:+.2f}")
    for w in a.players:
        ev = with_databases(load_weights(w)[0])
        v = plied_targets(ev, pos, 0, a.workers).astype(np.float64)
        against = ", ".join(
            f"{n} {rms(sibling_residuals(v, labels[n], groups)):.2f}" for n in names
        )
        print(f"{Path(w).stem}'s 0-ply against {against}")


if __name__ == "__main__":
    main()
