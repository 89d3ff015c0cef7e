"""Match play against money, one core: evaluation, ranking of plays and cube actions through
the analysis service (``Analyzer``), at money and at match scores, on the same positions.

    python benchmarks/match.py [--positions 40] [--repeat 3] [--rollout-trials 216]

CPU time of this process (time.process_time); each figure is the best of ``--repeat`` passes
over the positions (a shared machine's speed drifts). Targets: evaluation and ranking at a
score within 10% of money; a 2-ply cube action at a score under 50 ms. Rollouts (one worker,
truncated at 7 rolls, the first position): cubeless at a score against money, and the live cube
at a score (``--cubeful``) against money's live cube.
"""

import argparse
import time
from dataclasses import replace

import numpy as np

from bgtui.analysis.formats import parse_position
from bgtui.analysis.service import Analyzer

SCORES = [(7, 4, 2), (5, 3, 3), (3, 1, 1), (11, 0, 0), (5, 4, 2)]


def _states(an, n, seed=5):
    """``n`` positions of 0-ply self-play (every third position of games from the opening,
    random dice), each with dice 31."""
    rng = np.random.default_rng(seed)
    start = parse_position("4HPwATDgc/ABMA")
    out, s, k = [], start, 0
    while len(out) < n:
        dice = tuple(sorted(int(d) for d in rng.integers(1, 7, 2)))[::-1]
        best = an.rank_plays(s, dice, 0)[0]
        nxt = parse_position(best.position_id)
        if nxt.borne_off[1] == 15 or nxt.borne_off[0] == 15 or min(nxt.pips) == 0:
            s = start
            continue
        s = nxt
        k += 1
        if k % 3 == 0:
            out.append(replace(s, dice=(3, 1)))
    return out


def _best_time(fn, repeat):
    best = float("inf")
    for _ in range(repeat):
        t = time.process_time()
        fn()
        best = min(best, time.process_time() - t)
    return best


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--positions", type=int, default=40)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--rollout-trials", type=int, default=216)
    args = ap.parse_args()
    an = Analyzer()
    money = _states(an, args.positions)
    match = [
        replace(s, match_length=n, score=(x, y))
        for k, s in enumerate(money)
        for n, x, y in [SCORES[k % len(SCORES)]]
    ]
    an.rank_plays(money[0], (3, 1), 0)
    an.rank_plays(match[0], (3, 1), 0)
    an.cube(match[0], 2)
    an.cube(money[0], 2)
    n = len(money)
    for name, f in [
        ("eval 0-ply", lambda s: an.evaluate(s, 0)),
        ("eval 1-ply", lambda s: an.evaluate(s, 1)),
        ("rank plays 0-ply (31)", lambda s: an.rank_plays(s, (3, 1), 0)),
        ("rank plays 1-ply (31)", lambda s: an.rank_plays(s, (3, 1), 1)),
        ("cube 2-ply", lambda s: an.cube(s, 2)),
    ]:
        tm = _best_time(lambda f=f: [f(s) for s in money], args.repeat) / n
        ts = _best_time(lambda f=f: [f(s) for s in match], args.repeat) / n
        print(
            f"{name:24s} money {1000 * tm:8.2f} ms  match {1000 * ts:8.2f} ms  "
            f"({100 * (ts / tm - 1):+.0f}%)",
            flush=True,
        )
    _rollouts(an, money[0], match[0], args)


def _rollouts(an, money, match, args):
    """Trials a CPU second of the same rollout for money and at a score."""
    from bgtui.analysis.models import RolloutSettings

    base = RolloutSettings(trials=args.rollout_trials, truncate=7, workers=1, seed=1)
    for name, m_set, s_set in [
        ("rollout cubeless t7", base, base),
        ("rollout live cube t7", replace(base, live_cube=True), replace(base, cubeful=True)),
    ]:

        def run(state, settings):
            list(an.iter_rollout(state, settings))

        run(money, replace(m_set, trials=36))  # compiled and cached before timing
        run(match, replace(s_set, trials=36))
        tm = _best_time(lambda m=m_set: run(money, m), args.repeat) / args.rollout_trials
        ts = _best_time(lambda m=s_set: run(match, m), args.repeat) / args.rollout_trials
        print(
            f"{name:24s} money {1000 * tm:8.2f} ms  match {1000 * ts:8.2f} ms  "
            f"({100 * (ts / tm - 1):+.0f}%) a trial",
            flush=True,
        )


if __name__ == "__main__":
    main()
