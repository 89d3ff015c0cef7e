"""Two questions about the 1-ply of the shipped nets: how far their 1-ply values lie from their
0-ply values (the odd-ply gap), and whether another rule for the opponent's reply than his best
by 0-ply would let 1-ply choose better.

    python3 research/one_ply_replies.py gap --data data/xp9 --positions 2000 W.npz [W2.npz ...]
    python3 research/one_ply_replies.py replies evaluation/data/ply_decisions_s57.npz \
        --weights W.npz --out rep57.npz
    python3 research/one_ply_replies.py rules evaluation/data/ply_decisions_s57.npz rep57.npz \
        --rollouts evaluation/data/ply_rollouts_s57.npz

``gap``: the mean 1-ply minus 0-ply equity for the side on roll (with the bear-off databases)
of the first ``--positions`` positions of a training set, by class, for each weights file.

``replies``: for every play of a ``ply_errors.py`` decision set that the move filter sends to
1-ply, the opponent's 21 rolls and every legal reply to each, valued at 0-ply (his equity);
the maximum of each roll's values, weighted over the rolls, is the saved 1-ply value (checked by
``rules``).

``rules``: 1-ply values with the opponent's reply valued by other rules than the maximum (the
softmax-weighted mean of the reply values at temperature T in equity units; the mean of the k
best), each with and without the 0-ply blend of the shipped chooser, judged as
``ply_errors.py report`` judges (2-ply over all decisions, rollouts over the decisions where
the choosers disagree: a pick the rollouts lack is counted unknown), and paired against the
shipped blend over the decisions whose picks the rollouts have.
"""

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "evaluation"))
from games import value  # noqa: E402
from ply_errors import _filtered  # noqa: E402

from bgtui.analysis.service import Analyzer  # noqa: E402
from bgtui.analysis.weights import load_weights, with_databases  # noqa: E402
from bgtui.engine import (  # noqa: E402
    CONTACT_CLASSES,
    CRASHED_CLASSES,
    ONE_PLY_WEIGHT0,
    RACE,
    ROLL_WEIGHTS,
    ROLLS,
    equities,
    game_result,
    generate_plays,
    swap_sides,
)
from bgtui.training.kernels import net_classes  # noqa: E402
from bgtui.training.train import load_dataset, plied_targets  # noqa: E402


def gap(args):
    pos = load_dataset(args.data)[0][: args.positions]
    cls = net_classes(pos)
    for w in args.weights:
        ev = with_databases(load_weights(w)[0], True)
        e0, e1 = (equities(plied_targets(ev, pos, k, 1)) for k in (0, 1))
        parts = []
        # the contact nets' positions together (early, trailing, the mutual, the anchor, the
        # early trailing, the early bar and the bar ones below EARLY_PIPS), and both crashed
        # nets'
        for k, name in ((CONTACT_CLASSES, "contact"), (CRASHED_CLASSES, "crashed"), (RACE, "race")):
            d = 1000 * (e1 - e0)[np.isin(cls, k)]
            if len(d):
                parts.append(f"{name} {len(d)}: {d.mean():+.1f} +- {d.std() / np.sqrt(len(d)):.1f}")
        print(f"{w}: 1-ply - 0-ply, millipoints for the side on roll: " + ", ".join(parts))


def replies(args):
    d = dict(np.load(args.data))
    an = Analyzer(args.weights)
    vals, offs, keys = [], [0], []
    t = time.time()
    for i in range(len(d["n"])):
        for j in np.flatnonzero(_filtered(d["e0"][i])):
            c = d["child"][i, j]
            if game_result(c) > 0:
                continue
            opp = swap_sides(c)
            for k, (a, b) in enumerate(ROLLS):
                vals.extend(value(an, r, 0) for r in generate_plays(opp, int(a), int(b))[0])
                offs.append(len(vals))
                keys.append((i, j, k))
        if (i + 1) % 200 == 0:
            print(f"{i + 1} decisions, {time.time() - t:.0f} s", flush=True)
    np.savez_compressed(
        args.out,
        vals=np.array(vals, dtype=np.float32),
        offs=np.array(offs, dtype=np.int64),
        keys=np.array(keys, dtype=np.int32),
    )


def _softmax_mean(t):
    def agg(v):
        z = np.exp((v - v.max()) / t)
        return float((z * v).sum() / z.sum())

    return agg


def _top_mean(k):
    return lambda v: float(np.sort(v)[-k:].mean())


def rules(args):
    d = dict(np.load(args.data))
    r = np.load(args.replies)
    vals, offs, keys = r["vals"].astype(np.float64), r["offs"], r["keys"]
    w = np.asarray(ROLL_WEIGHTS, dtype=np.float64) / 36
    m = len(d["e0"])
    e0, e1, e2 = d["e0"], d["e1"], d["e2"]
    f = np.array([_filtered(x) for x in e0])

    def one_ply(agg):
        out = np.where(f, e1, np.nan)  # a finished game keeps its result
        acc: dict = {}
        for n, (i, j, k) in enumerate(keys):
            acc[(i, j)] = acc.get((i, j), 0.0) - w[k] * agg(vals[offs[n] : offs[n + 1]])
        for (i, j), x in acc.items():
            out[i, j] = x
        return out

    def pick(v):
        return np.nanargmax(np.where(f, v, -np.inf), axis=1)

    ro = dict(np.load(args.rollouts)) if args.rollouts else None
    if ro is not None:
        eq = ro["equity"]
        idx = np.array([i for i in range(m) if np.sum(~np.isnan(eq[i])) > 1])
        best = np.nanmax(eq[idx], axis=1)
        base0 = best - eq[idx, np.nanargmax(e0, axis=1)[idx]]
    mx = one_ply(np.max)
    print(f"maximum rule against the saved 1-ply: rms {np.sqrt(np.nanmean((mx - e1) ** 2)):.1e}")
    b = ONE_PLY_WEIGHT0
    shipped = pick(b * e0 + (1 - b) * mx)
    rows = [("maximum", mx)]
    rows += [(f"softmax T={t}", one_ply(_softmax_mean(t))) for t in (0.005, 0.01, 0.02, 0.04)]
    rows += [(f"mean of {k} best", one_ply(_top_mean(k))) for k in (2, 3)]
    print(f"{'rule':22s} {'blend':>5s} {'2-ply':>6s} {'shift':>6s}" + ("  rollouts" if ro else ""))
    for name, v in rows:
        shift = 1000 * np.nanmean(v - mx)
        for wt in (0.0, b):
            c = pick(wt * e0 + (1 - wt) * v)
            err2 = np.nanmax(e2, axis=1) - e2[np.arange(m), c]
            s = f"{name:22s} {wt:5.2f} {1000 * err2.mean():6.2f} {shift:+6.1f}"
            if ro is not None:
                got = eq[idx, c[idx]]
                err = best - got
                s += f"  {1000 * np.nansum(err):6.0f} ({np.isnan(got).sum()} unknown),"
                s += f" ratio {np.nansum(err) / np.nansum(base0):.2f}"
                x = (eq[idx, shipped[idx]] - got)[~np.isnan(got)]
                s += f"; against the shipped blend {1000 * x.sum():+.0f}"
                s += f" +- {1000 * x.std(ddof=1) * np.sqrt(len(x)):.0f} over {len(x)}"
            print(s)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("gap")
    g.add_argument("weights", nargs="+")
    g.add_argument("--data", required=True)
    g.add_argument("--positions", type=int, default=2000)
    q = sub.add_parser("replies")
    q.add_argument("data")
    q.add_argument("--weights", required=True)
    q.add_argument("--out", required=True)
    u = sub.add_parser("rules")
    u.add_argument("data")
    u.add_argument("replies")
    u.add_argument("--rollouts", default=None)
    args = p.parse_args()
    {"gap": gap, "replies": replies, "rules": rules}[args.cmd](args)


if __name__ == "__main__":
    main()
