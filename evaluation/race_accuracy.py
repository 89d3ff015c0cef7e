"""Race accuracy: 0-ply win probability against long rollouts, outside the bear-off databases.

    python evaluation/race_accuracy.py [--positions 20] [--trials 1296] [--weights FILE]
                                       [--sample-weights FILE] [--net-only] [--also FILE]
                                       [--data DIR] [--before-few] [--labels]

Samples race positions (no contact, not yet in the two-sided database) from 0-ply self-play
of ``--sample-weights`` (default the shipped weights; the same positions whichever ``--weights``
are measured), rolls each out to the end (variance reduction, bear-off truncation) and prints the 0-ply win
probability, the rollout's with its standard error, and the mean / largest absolute difference.
Also the same over the undecided ones (rollout win between 5% and 95%), where errors matter.
Three 0-ply columns, all against the same rollouts: bgtui's evaluator (``os`` marks the races
the one-sided database values: home boards, a last checker on each side's point 7..18, and a side
of at most 6 checkers anywhere (the few-checker rows); ``net`` the race net), the same evaluator
without the few-checker rows (``before few``: the database as it was before them) and with the
home-board one-sided database only (what bgtui used before the straggler rows).
``--also FILE`` adds the 0-ply of another weights file against the same rollouts (those of
``--weights``). ``--net-only`` samples only the races the race net values (outside every bear-off
database), to compare race nets; with ``--before-few`` it samples the races the race net valued
before the few-checker rows (the same sample as before them, to measure what they changed).
``--data DIR`` takes the races from a training set's shards instead (e.g. races held out of
every fit, such as the straggler races of ``bgtui train dataset --stragglers``), a random sample
of them. ``--labels`` (with ``--data``) runs no rollouts: every race of the data is compared with
the data's own rollout targets (e.g. 36 trials), and the races the few-checker rows value are
summed up with and without them (the approximation against the race net).
Target: within 1 percentage point.
"""

import numpy as np

from bgtui.analysis.bearoff_cache import get_one_sided
from bgtui.analysis.formats import format_position_id
from bgtui.analysis.models import RolloutSettings
from bgtui.analysis.options import script_parser
from bgtui.analysis.rollout import RolloutJob
from bgtui.analysis.state import GameState
from bgtui.analysis.weights import load_weights, with_databases
from bgtui.engine import (
    EXTENDED_SIZE,
    START,
    evaluate0,
    hidden_size,
    is_race,
    is_two_sided,
    make_play_workspace,
    make_rng,
    one_sided_applies,
    sample_positions,
    side_row,
)
from bgtui.training.train import load_dataset


def main():
    ap = script_parser(
        positions=20,
        trials=1296,
        weights="bgtui-0.npz",
        sample_weights="bgtui-0.npz",
        net_only=False,
        also=None,
        data=None,
        before_few=False,
        labels=False,
        helps={
            "sample_weights": "the weights whose self-play gives the positions (keep it fixed "
            "to compare weights files on the same positions)",
            "net_only": "only races that no bear-off database values (the race net's)",
            "also": "another weights file measured against the same rollouts",
            "data": "take the races from this training set's shards (a directory, or several "
            "separated by commas)",
            "before_few": "with --net-only: the races the race net valued before the "
            "few-checker rows (the same sample before and after them)",
            "labels": "with --data: compare with the data's own rollout targets, no rollouts",
        },
    )
    a = ap.parse_args()
    ev = with_databases(load_weights(a.weights)[0], bearoff=True)
    ev_home = ev._replace(one_sided=get_one_sided().dist)  # home-board one-sided database only
    ev_before = ev._replace(one_sided=ev.one_sided[:EXTENDED_SIZE])  # without the few-checker rows
    if a.labels:
        if not a.data:
            ap.error("--labels needs --data")
        return by_labels(a.data, ev, ev_before)
    ev_also = with_databases(load_weights(a.also)[0], bearoff=True) if a.also else None
    # the positions come from self-play of --sample-weights, whichever weights are measured,
    # so that two weights files are compared on the same positions
    ship = with_databases(load_weights(a.sample_weights)[0], bearoff=True)
    if a.data:
        pool = load_dataset(a.data)[0]
    else:
        pool = np.zeros((20000, 26), dtype=np.int8)
        n = sample_positions(
            ship, 400, make_rng(9), START, 0.0, make_play_workspace(hidden_size(ship)), pool
        )
        pool = pool[:n]
    sel = ev_before.one_sided if a.before_few else ev.one_sided
    races = [
        p
        for p in pool
        if is_race(p) and not is_two_sided(p) and not (a.net_only and one_sided_applies(p, sel))
    ]
    rng = np.random.default_rng(1)
    picks = [
        races[i] for i in rng.choice(len(races), size=min(a.positions, len(races)), replace=False)
    ]
    diffs, diffs_before, diffs_home, diffs_also, wins, by_db = [], [], [], [], [], []
    for p in picks:
        w0 = float(evaluate0(p, ev)[0])
        wb = float(evaluate0(p, ev_before)[0])
        wh = float(evaluate0(p, ev_home)[0])
        s = RolloutSettings(trials=a.trials, seed=3, truncate=0, variance_reduction=True)
        job = RolloutJob(p[None], [""], ["x"], s, False)
        for snap in job.run(ev):
            pass
        r = snap.rows[0]
        diffs.append(w0 - r.probabilities.win)
        diffs_before.append(wb - r.probabilities.win)
        diffs_home.append(wh - r.probabilities.win)
        wa = float(evaluate0(p, ev_also)[0]) if ev_also is not None else float("nan")
        diffs_also.append(wa - r.probabilities.win)
        wins.append(r.probabilities.win)
        by_db.append(bool(one_sided_applies(p, ev.one_sided)))
        print(
            f"0-ply {100 * w0:5.1f}% ({'os ' if by_db[-1] else 'net'})  before few "
            f"{100 * wb:5.1f}%  home-db-only "
            f"{100 * wh:5.1f}%  rollout {100 * r.probabilities.win:5.1f}% "
            f"±{100 * r.probabilities_se.win:.1f}  diff {100 * diffs[-1]:+5.1f}  "
            + (f"{a.also} {100 * wa:5.1f}%  " if ev_also is not None else "")
            + f"{format_position_id(GameState.from_position(p))}",
            flush=True,
        )
    wins = np.array(wins)
    by_db = np.array(by_db)
    open_ = (wins > 0.05) & (wins < 0.95)

    def summary(d, mask):
        return (
            f"mean {100 * d[mask].mean():.2f}, largest {100 * d[mask].max():.2f}"
            if mask.any()
            else "none"
        )

    named = [
        ("bgtui", diffs),
        ("without the few-checker rows", diffs_before),
        ("home-board database only", diffs_home),
    ]
    if ev_also is not None:
        named.append((a.also, diffs_also))
    for name, dd in named:
        d = np.abs(dd)
        print(
            f"{name}: {len(d)} race positions, mean |diff| {100 * d.mean():.2f} points, "
            f"largest {100 * d.max():.2f}; {open_.sum()} undecided (rollout win 5-95%): "
            f"{summary(d, open_)}; the {by_db.sum()} the one-sided database values: "
            f"{summary(d, by_db)}"
        )


def _few_checkers(p):
    """The most checkers of a side of ``p`` that only the few-checker rows hold (0: none)."""
    n = 0
    for side, mine in ((0, np.clip(p, 0, None)), (1, np.clip(-p, 0, None))):
        if side_row(p, side, EXTENDED_SIZE) < 0:
            n = max(n, int(mine.sum()))
    return n


def by_labels(data, ev, ev_before):
    """The races of ``data`` against the data's own rollout targets: those the few-checker rows
    value, with them (the one-sided approximation) and without them (the race net)."""
    pos, targets = load_dataset(data)
    races = [i for i, p in enumerate(pos) if is_race(p) and not is_two_sided(p)]
    new = [
        i
        for i in races
        if one_sided_applies(pos[i], ev.one_sided)
        and not one_sided_applies(pos[i], ev_before.one_sided)
    ]
    rest = [i for i in races if i not in set(new)]
    print(
        f"{len(races)} races in {data}; the few-checker rows value {len(new)} of them, "
        "compared with the data's rollout win probability:"
    )
    label = targets[:, 0].astype(np.float64)

    def line(name, idx):
        if not idx:
            return
        idx = np.array(idx)
        lab = label[idx]
        und = (lab > 0.05) & (lab < 0.95)
        parts = []
        for what, e in (("approximation", ev), ("race net", ev_before)):
            d = np.array([float(evaluate0(pos[i], e)[0]) for i in idx]) - lab
            parts.append(
                f"{what} mean {100 * np.abs(d).mean():.2f} rms "
                f"{100 * np.sqrt((d**2).mean()):.2f} largest {100 * np.abs(d).max():.1f}"
                f" undecided {100 * np.abs(d[und]).mean() if und.any() else 0:.2f}"
            )
        print(f"  {name}: {len(idx)} races ({und.sum()} undecided): " + "; ".join(parts))

    line("all", new)
    for k in range(1, 16):
        line(
            f"a side of {k} checker(s) in the few-checker rows",
            [i for i in new if _few_checkers(pos[i]) == k],
        )
    if rest:
        d = np.array([float(evaluate0(pos[i], ev)[0]) for i in rest]) - label[rest]
        print(f"  the other {len(rest)} races (unchanged): mean {100 * np.abs(d).mean():.2f}")


if __name__ == "__main__":
    main()
