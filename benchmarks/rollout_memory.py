"""Rollout memory: the resident set size must not grow with the number of trials.

    python3 -m benchmarks.rollout_memory [--trials 1000000] [--truncate 1]

Runs one long rollout of the middle-game position (truncated after ``--truncate`` rolls so that
a million trials take a minute or two on two cores) and prints the process's resident memory
(VmRSS from /proc) as the trials go by, then the growth between 10% of the trials and the end.
A rollout keeps only running sums per candidate (and per pair of candidates), never per-trial
records, so the growth should be noise (a few MB of allocator slack), not proportional to trials.
"""

import argparse
import time

from benchmarks.rollout import MIDGAME
from bgtui.analysis.models import RolloutSettings
from bgtui.analysis.rollout import RolloutJob
from bgtui.analysis.weights import load_weights


def rss_mb() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    return float("nan")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--trials", type=int, default=1_000_000)
    ap.add_argument("--truncate", type=int, default=1)
    args = ap.parse_args()
    ev = load_weights()[0]
    s = RolloutSettings(
        trials=args.trials, truncate=args.truncate, seed=1, variance_reduction=False
    )
    job = RolloutJob(MIDGAME[None], [""], ["midgame"], s, False)
    marks = [args.trials * f // 100 for f in (1, 10, 25, 50, 75, 100)]
    seen = {}
    t0 = time.perf_counter()
    for snap in job.run(ev):
        for m in marks:
            if m not in seen and snap.trials_done >= m:
                seen[m] = rss_mb()
                print(
                    f"{snap.trials_done:>10,d} trials  RSS {seen[m]:8.1f} MB  "
                    f"{time.perf_counter() - t0:7.1f} s",
                    flush=True,
                )
    if marks[1] in seen and marks[-1] in seen:
        print(
            f"growth from {marks[1]:,d} to {marks[-1]:,d} trials: "
            f"{seen[marks[-1]] - seen[marks[1]]:+.1f} MB"
        )


if __name__ == "__main__":
    main()
