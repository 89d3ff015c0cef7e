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
which is what 1-ply ranks by, and blends at the 0-ply weights ``--blends``. Then, for each
way of valuing, the equity each roll's pick loses by the labels (the label of the play it
values best less the best label of the group, millipoints a group of two plays or more: the
decision error the labels see, a noisy best label making it too high alike for every
chooser), by the class of the group's plays where they share one, and for the second weights
file on, its difference with the first's over the same groups, with a standard error (picks
that differ are judged by the same labels, so the differences carry no bias). The label noise
is in every figure: 36-trial race rollouts (``data/rs3``) add about 3 millipoints, 36-trial
contact rollouts truncated after 7 rolls (``data/cs2`` shard 0, ``data/cr_hold``) about 10
and 11.
"""

import argparse

import numpy as np

from bgtui.analysis.weights import load_weights, with_databases
from bgtui.engine import (
    ANCHOR,
    ANCHOR_BAR,
    CONTACT,
    CONTACT_BAR,
    CRASHED,
    EARLY,
    EARLY_BAR,
    EARLY_TRAILING,
    EARLY_TRAILING_BAR,
    EQUITY_COEF,
    HOLDING,
    MUTUAL,
    MUTUAL_ANCHOR,
    MUTUAL_ANCHOR_BAR,
    MUTUAL_BAR,
    MUTUAL_TRAILING,
    MUTUAL_TRAILING_ANCHOR,
    MUTUAL_TRAILING_ANCHOR_BAR,
    MUTUAL_TRAILING_BAR,
    ONE_PLY_WEIGHTS0,
    RACE,
    TRAILING,
    TRAILING_ANCHOR,
    TRAILING_ANCHOR_BAR,
    TRAILING_BAR,
)
from bgtui.training.adam import sibling_residuals
from bgtui.training.kernels import net_classes
from bgtui.training.train import load_dataset, plied_targets

CLASSES = (
    ("contact", CONTACT),
    ("trailing", TRAILING),
    ("mutual", MUTUAL),
    ("mutual_trailing", MUTUAL_TRAILING),
    ("anchor", ANCHOR),
    ("mutual_anchor", MUTUAL_ANCHOR),
    ("trailing_anchor", TRAILING_ANCHOR),
    ("mutual_trailing_anchor", MUTUAL_TRAILING_ANCHOR),
    ("contact_bar", CONTACT_BAR),
    ("trailing_bar", TRAILING_BAR),
    ("mutual_bar", MUTUAL_BAR),
    ("mutual_trailing_bar", MUTUAL_TRAILING_BAR),
    ("anchor_bar", ANCHOR_BAR),
    ("mutual_anchor_bar", MUTUAL_ANCHOR_BAR),
    ("trailing_anchor_bar", TRAILING_ANCHOR_BAR),
    ("mutual_trailing_anchor_bar", MUTUAL_TRAILING_ANCHOR_BAR),
    ("early", EARLY),
    ("early_trailing", EARLY_TRAILING),
    ("early_bar", EARLY_BAR),
    ("early_trailing_bar", EARLY_TRAILING_BAR),
    ("crashed", CRASHED),
    ("holding", HOLDING),
    ("race", RACE),
)


def choice_losses(values, truth, groups):
    """float64[G]: for each group of ``groups`` (int64[N], -1: none), the label equity of the
    play ``values`` pick (the lowest equity for the side on roll after the play: the mover's
    best) less the lowest label equity of the group; NaN for groups of fewer than two plays."""
    ve = values @ EQUITY_COEF
    te = truth @ EQUITY_COEF
    _, inv, cnt = np.unique(groups, return_inverse=True, return_counts=True)
    order = np.lexsort((ve, inv))  # by group, then the pick first
    first = order[np.r_[True, inv[order][1:] != inv[order][:-1]]]
    picked = np.empty(len(cnt))
    picked[inv[first]] = te[first]
    best = np.full(len(cnt), np.inf)
    np.minimum.at(best, inv, te)
    loss = picked - best
    loss[cnt < 2] = np.nan
    loss[np.unique(groups) < 0] = np.nan
    return loss


def group_classes(cls, groups):
    """int64[G]: the class every play of each group shares, -1 where they differ."""
    _, inv = np.unique(groups, return_inverse=True)
    lo = np.full(inv.max() + 1, 99)
    hi = np.full(inv.max() + 1, -1)
    np.minimum.at(lo, inv, cls)
    np.maximum.at(hi, inv, cls)
    return np.where(lo == hi, lo, -1)


def _mean_se(d):
    """'mean ± standard error' of ``d``."""
    return f"{d.mean():+.2f} ± {d.std() / np.sqrt(len(d)):.2f}"


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
    gcls = group_classes(cls, groups)
    first = {}  # the first weights file's choice losses, by way of valuing
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
        print(f"{w}: equity lost a decision by the labels, millipoints")
        for name, v in p.items():
            loss = choice_losses(v, truth, groups)
            live = ~np.isnan(loss)
            parts = [f"all {1000 * loss[live].mean():5.2f}"]
            parts += [
                f"{c} {1000 * loss[live & (gcls == k)].mean():5.2f}"
                for c, k in CLASSES
                if np.any(live & (gcls == k))
            ]
            line = f"  {name:12s} " + "  ".join(parts)
            print(line + f"  ({int(live.sum())} groups)", flush=True)
            if name not in first:
                first[name] = loss
                continue
            d = 1000 * (loss - first[name])
            parts = [f"all {_mean_se(d[live])}"]
            parts += [
                f"{c} {_mean_se(d[live & (gcls == k)])}"
                for c, k in CLASSES
                if np.any(live & (gcls == k))
            ]
            print(f"  {'minus first':12s} " + "  ".join(parts), flush=True)


if __name__ == "__main__":
    main()
