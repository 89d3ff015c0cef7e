"""Which training target comes closest to full-game rollouts: n-ply lookahead or rollouts
truncated after a few rolls.

    python3 research/target_depth.py [--reference evaluation/data/calibration_s91.npz]
        [--data runs/bgcal] [--positions 1000] [--weights bgtui-0.npz] [--trials 36]

The reference: self-play contact positions each labelled by a 36-trial full-game rollout
(variance reduction, 0-ply play): ``evaluation/data/calibration_s91.npz`` (600 positions,
committed), or the chunks of ``bgtui train game-rollouts`` (``--data``, e.g. ``runs/bgcal``).
For each candidate target (0-, 1- and 2-ply evaluation; rollouts of ``--trials`` trials,
variance reduction, truncated after 2, 4, 7 and 10 rolls and valued at 0-ply there) it prints
the mean squared difference of the cubeless equity and of the winning chances from the
reference, their mean difference, and seconds per position on one core. The reference's own
noise adds the same amount to every row, so the rows compare as they stand; a 2-roll truncated
rollout of 36 quasi-random trials is the 2-ply evaluation by construction (a check).
"""

import glob
import time

import numpy as np

from bgtui.analysis.options import script_parser
from bgtui.analysis.rollout import RolloutJob
from bgtui.analysis.weights import load_weights, with_databases
from bgtui.engine import equities, evaluate_plied, hidden_size, make_lookahead_workspace
from bgtui.training.train import target_rollout_settings


def _reference(args):
    if args.data:
        files = sorted(glob.glob(f"{args.data}/chunk-*.npz"))
        pos = np.concatenate([np.load(f)["pos"] for f in files])
        ro = np.concatenate([np.load(f)["ro"] for f in files])
    else:
        z = np.load(args.reference)
        pos, ro = z["pos"], z["ro"]
    pick = np.random.default_rng(args.seed).permutation(len(pos))[: args.positions]
    return pos[pick], ro[pick]


def _plied(ev, pos, ply):
    lws = make_lookahead_workspace(hidden_size(ev))
    out = np.zeros((len(pos), 5), dtype=np.float32)
    for i, p in enumerate(pos):
        evaluate_plied(p, ply, ev, lws, out[i])
    return out


def _truncated(ev, pos, trials, truncate, vr_filter, seed):
    s = target_rollout_settings(trials, seed, truncate, vr_filter, one_sided=False)
    out = np.zeros((len(pos), 5), dtype=np.float32)
    for i, p in enumerate(pos):
        snap = None
        for snap in RolloutJob(p[None], [""], [""], s, False).run(ev):
            pass
        q = snap.rows[0].probabilities
        out[i] = (q.win, q.win_gammon, q.win_backgammon, q.lose_gammon, q.lose_backgammon)
    return out


def main():
    ap = script_parser(
        reference="evaluation/data/calibration_s91.npz",
        positions=1000,
        weights="bgtui-0.npz",
        trials=36,
        seed=3,
    )
    ap.add_argument("--data", help="instead: the chunks of `bgtui train game-rollouts`")
    a = ap.parse_args()
    pos, ro = _reference(a)
    ev = with_databases(load_weights(a.weights)[0], bearoff=True)
    _plied(ev, pos[:2], 2)  # compile (or load) before timing
    _truncated(ev, pos[:1], 36, 2, 1, 11)
    ref_eq = equities(ro)
    print(f"{len(pos)} positions; the reference: 36-trial full-game rollouts")
    print(
        f"{'target':30s} {'mse equity':>10s} {'mse win':>9s} {'mean diff':>9s} {'s/position':>10s}"
    )
    cases = [(f"{p}-ply", lambda p=p: _plied(ev, pos, p)) for p in (0, 1, 2)]
    cases += [
        (
            f"truncated {t}, {a.trials} trials, filter {k}",
            lambda t=t, k=k: _truncated(ev, pos, a.trials, t, k, 11),
        )
        for t, k in ((2, 0), (4, 1), (7, 1), (10, 1))
    ]
    for name, run in cases:
        t0 = time.perf_counter()
        lab = run()
        dt = (time.perf_counter() - t0) / len(pos)
        e = equities(lab)
        print(
            f"{name:30s} {np.mean((e - ref_eq) ** 2):10.5f} "
            f"{np.mean((lab[:, 0] - ro[:, 0]) ** 2):9.5f} {np.mean(e - ref_eq):+9.4f} "
            f"{dt:10.4f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
