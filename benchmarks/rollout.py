"""Rollout speed: games per second for the standard cases below.

    python benchmarks/rollout.py [--weights bgtui-0.npz] [--seconds 10] [--databases] [--ply1]
                                 [--position opening] [--one-core]

Prints games/s for full-game 0-ply cubeless rollouts without and with variance reduction (exact,
and with ``vr_filter`` 2, the default, and 1: the luck values only the plays of each roll the
filter net ranks highest; the same games are played) and for 7-roll truncated rollouts, on one core and on all cores (compile time excluded), the ratio
of all cores to one core, and the variance-reduction factor measured in the same runs.

Each run lasts ``--seconds`` with as many trials as fit (about 100,000 for the truncated case),
and each worker caches the plays of the first three turns (``rollout.make_play_cache``: their
quasi-random rolls recur across trials). The first line is the truncated case as a user's
rollout of 1296 trials meets it: back-to-back 1296-trial runs, each with an empty cache.

The rollouts start from a middle-game position (both sides have split their back checkers), or
with ``--position opening`` from the opening position. ``--one-core`` skips the all-cores runs.
The VR factor times games/s is the plain-trial equivalents a second: a variance-reduced
trial is worth VR-factor plain ones, so that figure over the plain case's games/s is the
accuracy per CPU-second, 1/(SE^2 x seconds), of variance reduction relative to plain trials.

By default the nets only: every game is played to its last checker. ``--databases``: the
evaluator that ``bgtui rollout`` and the app use, nets and bear-off databases, with the default
settings' exact two-sided truncation (a game ends when both sides are home with at most 6
checkers: its value is exact there) and the one-sided databases valuing home-board bear-offs
and straggler races inside the games (as fast as the nets alone, within the noise of a
measurement).
"""

import os
import time

import numpy as np

from bgtui.analysis.models import RolloutSettings
from bgtui.analysis.options import script_parser
from bgtui.analysis.rollout import RolloutJob
from bgtui.analysis.weights import load_weights, with_databases
from bgtui.engine import OPENING_POSITION

# a middle-game position (both sides have split their back checkers)
MIDGAME = np.array(OPENING_POSITION, dtype=np.int8)
MIDGAME[13], MIDGAME[11], MIDGAME[24], MIDGAME[21] = 4, 1, 1, 1


def rate(ev, settings, seconds, root=MIDGAME):
    """Games/s of ``settings`` from ``root`` within ``seconds``."""
    s = RolloutSettings(**{**settings, "trials": 10**9, "time_limit": seconds})
    job = RolloutJob(root[None], [""], ["root"], s, False)
    snap = None
    for snap in job.run(ev):
        pass
    return snap


def rate_short(ev, settings, seconds, trials=1296, root=MIDGAME):
    """Games/s of back-to-back runs of ``trials`` trials each (new seeds, so every run starts
    with an empty play cache, as a user's 1296-trial rollout does), for ``seconds``."""
    games = 0
    seed = 1
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        s = RolloutSettings(**{**settings, "trials": trials, "seed": seed})
        for _ in RolloutJob(root[None], [""], ["root"], s, False).run(ev):
            pass
        games += trials
        seed += 1
    return games / (time.perf_counter() - t0)


def main():
    args = script_parser(
        weights="bgtui-0.npz",
        seconds=10.0,
        ply1=False,
        databases=False,
        position="midgame",
        one_core=False,
        helps={
            "position": "the root: midgame (the default) or opening",
            "one_core": "one core only (no all-cores runs)",
            "ply1": "instead: 4-roll truncated rollouts with 1-ply checker play and variance "
            "reduction, exact and with vr_filter 2, on one core",
            "databases": "the bear-off databases too, with the default two-sided truncation",
        },
    ).parse_args()
    if args.position not in ("midgame", "opening"):
        raise SystemExit("--position is midgame or opening")
    root = MIDGAME if args.position == "midgame" else np.array(OPENING_POSITION)
    ev = load_weights(args.weights)[0]
    if args.databases:
        ev = with_databases(ev, bearoff=True)
    print(
        "evaluator: "
        + ("nets and bear-off databases, two-sided truncation" if args.databases else "nets only")
    )
    # compile (or load from cache) before timing
    rate(ev, dict(truncate=2, workers=1, variance_reduction=True), 0.5)
    cases = [
        ("full game, 0-ply, no VR", dict(truncate=0, variance_reduction=False)),
        (
            "full game, 0-ply, VR, every play",
            dict(truncate=0, variance_reduction=True, vr_filter=0),
        ),
        (
            "full game, 0-ply, VR, filter k=2",
            dict(truncate=0, variance_reduction=True, vr_filter=2),
        ),
        (
            "full game, 0-ply, VR, filter k=1",
            dict(truncate=0, variance_reduction=True, vr_filter=1),
        ),
        ("7-roll truncated, 0-ply, no VR", dict(truncate=7, variance_reduction=False)),
    ]
    ncores = 1 if args.one_core else os.cpu_count() or 1
    if args.ply1:
        for k in (0, 2):
            one = rate(
                ev,
                dict(truncate=4, ply=1, variance_reduction=True, vr_filter=k, workers=1),
                args.seconds,
                root,
            )
            vr = one.variance_reduction_factor
            print(
                f"4-roll truncated, 1-ply, VR, vr_filter {k}: {one.games_per_second:.2f} games/s "
                f"on 1 core, VR factor {vr:.1f}, {one.games_per_second * vr:.0f} plain-trial "
                f"equivalents/s",
                flush=True,
            )
        return
    print(
        f"{'case':34s} {'1 core':>10s} {str(ncores) + ' cores':>10s} {'ratio':>6s} {'VR factor':>9s}"
        f" {'plain-equivalent/s':>18s}"
    )
    short = dict(truncate=7, variance_reduction=False)
    print(
        f"{'7-roll truncated, 1296-trial runs':34s} "
        f"{rate_short(ev, dict(short, workers=1), args.seconds, root=root):10.0f} "
        f"{rate_short(ev, dict(short, workers=ncores), args.seconds, root=root):10.0f}",
        flush=True,
    )
    for name, st in cases:
        one = rate(ev, dict(st, workers=1), args.seconds, root)
        many = one if ncores == 1 else rate(ev, dict(st, workers=ncores), args.seconds, root)
        vr = one.variance_reduction_factor
        print(
            f"{name:34s} {one.games_per_second:10.0f} {many.games_per_second:10.0f} "
            f"{many.games_per_second / one.games_per_second:6.2f} "
            f"{'' if vr is None else f'{vr:9.1f}'}"
            f"{'' if vr is None else f' {one.games_per_second * vr:18.0f}'}",
            flush=True,
        )


if __name__ == "__main__":
    main()
