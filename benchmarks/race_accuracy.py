"""Race accuracy: 0-ply win probability against long rollouts, outside the bear-off databases.

    python benchmarks/race_accuracy.py [--positions 20] [--trials 1296] [--weights FILE]
                                       [--sample-weights FILE] [--net-only] [--also FILE]
                                       [--data DIR]

Samples race positions (no contact, not yet in the two-sided database) from 0-ply self-play
of ``--sample-weights`` (default the shipped weights; the same positions whichever ``--weights``
are measured), rolls each out to the end (variance reduction, bear-off truncation) and prints the 0-ply win
probability, the rollout's with its standard error, and the mean / largest absolute difference.
Also the same over the undecided ones (rollout win between 5% and 95%), where errors matter.
Two 0-ply columns: bgtui's evaluator (``os`` marks the races the extended one-sided database
values: home boards and a last checker on each side's point 7..18; ``net`` the race net) and,
for comparison, the same evaluator with the home-board one-sided database only (what bgtui
used before the extended database), both against the same rollouts.
``--also FILE`` adds the 0-ply of another weights file against the same rollouts (those of
``--weights``). ``--net-only`` samples only the races the race net values (outside every bear-off database), to
compare race nets. ``--data DIR`` takes the races from a training set's shards instead (e.g. races
held out of every fit, such as the straggler races of ``bgtui train dataset --stragglers``),
a random sample of them.
Target (issue 3): within 1 percentage point.
"""

import argparse

import numpy as np

from bgtui.analysis.formats import format_position_id
from bgtui.analysis.models import RolloutSettings
from bgtui.analysis.rollout import RolloutJob
from bgtui.analysis.state import GameState
from bgtui.analysis.training import load_dataset
from bgtui.analysis.weights import load_weights, with_databases
from bgtui.analysis.bearoff_cache import get_one_sided
from bgtui.engine.bearoff import is_two_sided, one_sided_applies
from bgtui.engine.evaluate import evaluate0, hidden_size, make_eval_workspace, make_play_buffers
from bgtui.engine.movegen import make_workspace
from bgtui.engine.position import is_race
from bgtui.engine.rng import make_rng
from bgtui.engine.train import _START, _sample_positions


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--positions", type=int, default=20)
    ap.add_argument("--trials", type=int, default=1296)
    ap.add_argument("--weights", default="bgtui-0.npz")
    ap.add_argument("--sample-weights", default="bgtui-0.npz",
                    help="the weights whose self-play gives the positions (keep it fixed to "
                         "compare weights files on the same positions)")
    ap.add_argument("--net-only", action="store_true",
                    help="only races that no bear-off database values (the race net's)")
    ap.add_argument("--also", help="another weights file measured against the same rollouts")
    ap.add_argument("--data", help="take the races from this training set's shards (a "
                                   "directory, or several separated by commas)")
    a = ap.parse_args()
    ev = with_databases(load_weights(a.weights)[0], bearoff=True)
    ev_home = ev[:3] + (get_one_sided().dist,) + ev[4:]  # home-board one-sided database only
    ev_also = with_databases(load_weights(a.also)[0], bearoff=True) if a.also else None
    # the positions come from self-play of --sample-weights, whichever weights are measured,
    # so that two weights files are compared on the same positions
    ship = with_databases(load_weights(a.sample_weights)[0], bearoff=True)
    if a.data:
        pool = load_dataset(a.data)[0]
    else:
        pool = np.zeros((20000, 26), dtype=np.int8)
        op, om = make_play_buffers()
        n = _sample_positions(ship, 400, make_rng(9), _START, 0.0, make_workspace(),
                              make_eval_workspace(hidden_size(ship)), op, om, pool)
        pool = pool[:n]
    races = [p for p in pool if is_race(p) and not is_two_sided(p)
             and not (a.net_only and one_sided_applies(p, ev[3]))]
    rng = np.random.default_rng(1)
    picks = [races[i] for i in rng.choice(len(races), size=min(a.positions, len(races)), replace=False)]
    diffs, diffs_home, diffs_also, wins, by_db = [], [], [], [], []
    for p in picks:
        w0 = float(evaluate0(p, ev)[0])
        wh = float(evaluate0(p, ev_home)[0])
        s = RolloutSettings(trials=a.trials, seed=3, truncate=0, variance_reduction=True)
        job = RolloutJob(p[None], [""], ["x"], s, False)
        for snap in job.run(ev):
            pass
        r = snap.rows[0]
        diffs.append(w0 - r.probabilities.win)
        diffs_home.append(wh - r.probabilities.win)
        wa = float(evaluate0(p, ev_also)[0]) if ev_also is not None else float("nan")
        diffs_also.append(wa - r.probabilities.win)
        wins.append(r.probabilities.win)
        by_db.append(bool(one_sided_applies(p, ev[3])))
        print(f"0-ply {100 * w0:5.1f}% ({'os ' if by_db[-1] else 'net'})  home-db-only "
              f"{100 * wh:5.1f}%  rollout {100 * r.probabilities.win:5.1f}% "
              f"±{100 * r.probabilities_se.win:.1f}  diff {100 * diffs[-1]:+5.1f}  "
              + (f"{a.also} {100 * wa:5.1f}%  " if ev_also is not None else "") +
              f"{format_position_id(GameState.from_position(p))}", flush=True)
    wins = np.array(wins)
    by_db = np.array(by_db)
    open_ = (wins > 0.05) & (wins < 0.95)
    def summary(d, mask):
        return (f"mean {100 * d[mask].mean():.2f}, largest {100 * d[mask].max():.2f}"
                if mask.any() else "none")

    named = [("bgtui", diffs), ("home-board database only", diffs_home)]
    if ev_also is not None:
        named.append((a.also, diffs_also))
    for name, dd in named:
        d = np.abs(dd)
        print(f"{name}: {len(d)} race positions, mean |diff| {100 * d.mean():.2f} points, "
              f"largest {100 * d.max():.2f}; {open_.sum()} undecided (rollout win 5-95%): "
              f"{summary(d, open_)}; the {by_db.sum()} the extended database values: "
              f"{summary(d, by_db)}")


if __name__ == "__main__":
    main()
