"""Other weights' 0-ply checker play against the shipped weights', judged by rollouts on a
saved decision set of ``ply_errors.py``.

    python3 evaluation/fit_decisions.py FIT.npz [--data evaluation/data/ply_decisions_s51.npz]
        [--rollouts evaluation/data/ply_rollouts_s51.npz] [--out FILE.npz]
        [--trials 1296] [--seed 13] [--workers 2] [--rollout-weights FILE]

The saved sets: seed 51 (``--out evaluation/data/fit_rollouts_s51.npz`` adds the plays rolled
for fits judged on it so far), and seeds 52 and 53 (``--data
evaluation/data/ply_decisions_s52.npz --rollouts evaluation/data/fit_rollouts_s52.npz --out
evaluation/data/fit_rollouts_s52.npz``, the same with 53).

For every decision of ``--data`` (its plays are the best 16 at the shipped weights' 0-ply), the
play FIT's 0-ply picks among them and the play the shipped weights' 0-ply picks. Where the two
differ, both are valued by rollouts (full games, variance reduction, ``--rollout-weights``
playing: the committed sets' rollouts were played by the weights of 434179a, so give those to
add to them), taken from ``--rollouts`` where ``ply_errors.py rollout`` made them with the same
``--trials`` and ``--seed`` (a play's rollout does not depend on the plays rolled with it; a
missing file: none), the others rolled here and saved in ``--out`` (rerunning resumes). Prints the mean over all the
decisions of (FIT's pick minus the shipped pick), in millipoints, with its standard error:
positive, FIT chooses better. The decisions where both pick the same count 0.
"""

import argparse
import time

import numpy as np
from games import roll_children, value

from bgtui.analysis.models import RolloutSettings
from bgtui.analysis.service import Analyzer


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("weights")
    ap.add_argument("--data", default="evaluation/data/ply_decisions_s51.npz")
    ap.add_argument("--rollouts", default="evaluation/data/ply_rollouts_s51.npz")
    ap.add_argument("--out", default=None, help="the plays rolled here (default: none saved)")
    ap.add_argument("--trials", type=int, default=1296)
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument(
        "--rollout-weights",
        default=None,
        help="the weights that play the rollouts (default shipped; the committed sets' "
        "rollouts were played by the weights of 434179a: `git show 434179a:weights/bgtui-0.npz`)",
    )
    args = ap.parse_args()

    d = dict(np.load(args.data))
    try:
        eq = dict(np.load(args.rollouts))["equity"].copy()
    except FileNotFoundError:  # none rolled yet: every play needed is rolled here
        eq = np.full(d["e0"].shape, np.nan)
    if args.out:
        try:
            more = dict(np.load(args.out))["equity"]
            eq[~np.isnan(more)] = more[~np.isnan(more)]
        except FileNotFoundError:
            pass
    fit, shipped = Analyzer(args.weights), Analyzer(args.rollout_weights)
    m = len(d["n"])
    picks = np.array(
        [
            int(np.argmax([value(fit, c, 0) for c in d["child"][i, : min(int(d["n"][i]), 16)]]))
            for i in range(m)
        ]
    )
    ship = np.array([int(np.nanargmax(d["e0"][i])) for i in range(m)])
    differ = np.flatnonzero(picks != ship)
    print(f"{args.weights}: picks another play than the shipped 0-ply in {len(differ)} of {m}")
    settings = RolloutSettings(trials=args.trials, seed=args.seed, workers=args.workers)
    t = time.time()
    for k, i in enumerate(differ):
        need = [j for j in (ship[i], picks[i]) if np.isnan(eq[i, j])]
        if not need:
            continue
        kids = [d["child"][i, j] for j in need]
        for j, (v, _) in zip(
            need, roll_children(shipped, d["pos"][i], d["dice"][i], kids, settings)
        ):
            eq[i, j] = v
        if args.out:
            np.savez_compressed(args.out, equity=eq)
        print(f"{k + 1}/{len(differ)} decision {i}, {time.time() - t:.0f} s", flush=True)
    delta = np.array([eq[i, picks[i]] - eq[i, ship[i]] for i in differ])
    se = delta.std(ddof=1) * np.sqrt(len(differ)) / m if len(differ) > 1 else float("nan")
    print(
        f"{args.weights} minus the shipped weights, 0-ply, by rollouts: "
        f"{1000 * delta.sum() / m:+.3f} +- {1000 * se:.3f} millipoints a decision "
        f"({len(differ)} of {m} decisions differ; positive: {args.weights} chooses better)"
    )


if __name__ == "__main__":
    main()
