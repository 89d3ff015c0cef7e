"""Measured effect of quasi-random dice and of stratifying every roll on the standard error.

    python research/stratification.py [--reps 60] [--trials 144] [--truncate 7]

Runs ``reps`` independent rollouts (different seeds) of the same position for each dice mode
and prints the empirical standard deviation of their means: the true standard error of one
rollout, which the per-rollout estimate (computed as for independent trials) overstates when the
dice are stratified. Ratios below 1 mean the mode removes luck.
"""

import numpy as np

from bgtui.analysis.models import RolloutSettings
from bgtui.analysis.options import script_parser
from bgtui.analysis.rollout import RolloutJob
from bgtui.analysis.weights import load_weights, with_databases
from bgtui.engine import OPENING_POSITION

MIDGAME = np.array(OPENING_POSITION)
MIDGAME[13], MIDGAME[11], MIDGAME[24], MIDGAME[21] = 4, 1, 1, 1
RACE = np.zeros(26, dtype=np.int8)
RACE[1:7] = [2, 2, 3, 3, 2, 2]
RACE[8] = 1
RACE[18:25] = [-1, -2, -2, -3, -2, -2, -2]


def spread(ev, pos, reps, **kw):
    means = []
    for seed in range(reps):
        s = RolloutSettings(seed=1000 + seed, variance_reduction=False, **kw)
        job = RolloutJob(pos[None], [""], ["x"], s, False)
        for snap in job.run(ev):
            pass
        means.append(snap.rows[0].equity.cubeless)
    return float(np.std(means, ddof=1))


def main():
    a = script_parser(reps=60, trials=144, truncate=7, weights="bgtui-0.npz").parse_args()
    ev = with_databases(load_weights(a.weights)[0], bearoff=True)
    for name, pos in (("midgame", MIDGAME), ("race", RACE)):
        base = dict(trials=a.trials, truncate=a.truncate)
        pseudo = spread(ev, pos, a.reps, quasi_random=False, **base)
        quasi = spread(ev, pos, a.reps, quasi_random=True, **base)
        strat = spread(ev, pos, a.reps, quasi_random=True, stratify_all=True, **base)
        print(
            f"{name:8s} SE of a {a.trials}-trial rollout (truncated at {a.truncate}): "
            f"pseudo {pseudo:.4f}  quasi {quasi:.4f} ({quasi / pseudo:.2f}x)  "
            f"quasi+stratify all {strat:.4f} ({strat / pseudo:.2f}x)",
            flush=True,
        )


if __name__ == "__main__":
    main()
