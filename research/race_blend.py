"""Where the mover is outside and the opponent home, does a blend of the race net and the side
net's one-sided formula choose race plays better than the race net alone?

    python3 research/race_blend.py s37 s38 ... [--shares 0,0.25,0.5,0.75,1] [--weights FILE]

In those races (the opponent, not the mover, has a row of the one-sided bear-off database)
every play's position has the opponent on roll with a row, so the shipped evaluator values it
by the race net (``evaluate._side_net_values``). The side net's formula values it from the
opponent's exact row and the side net's distributions of the mover's side
(``side_race_probs``). For each share ``w`` of the formula, each decision's play is the best
of all legal plays by ``(1 - w)`` times the race net's equity plus ``w`` times the formula's,
and its error is the rollouts' best value among the rolled candidates minus the chosen play's
(``evaluation/race_errors.py``'s sets, ``evaluation/data/race/race_{decisions,rollouts}_SET.npz``).
A decision is skipped for every share when one share's play has no rollout. Printed: each
share's mean error a decision (millipoints) and its difference from the race net's, paired
decision by decision, with its standard error.
"""

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "evaluation"))

from race_errors import _judged, _load_table  # noqa: E402

from bgtui.analysis.weights import load_weights, with_databases  # noqa: E402
from bgtui.engine import (  # noqa: E402
    SIDE_BUCKETS,
    SIDE_OUTPUTS,
    equity,
    evaluate0,
    game_result,
    generate_plays,
    side_race_probs,
    side_row,
    swap_sides,
)

DATA = Path(__file__).resolve().parent.parent / "evaluation" / "data" / "race"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sets", nargs="+", help="race decision sets by name (s37 ...)")
    parser.add_argument("--shares", default="0,0.25,0.5,0.75,1", help="the formula's shares")
    parser.add_argument("--weights", default="bgtui-0.npz", help="weights file (default shipped)")
    args = parser.parse_args()
    shares = [float(w) for w in args.shares.split(",")]
    ev = with_databases(load_weights(args.weights)[0], bearoff=True)
    one = ev.one_sided
    nrows = one.shape[0]
    u = np.zeros(ev.side.w2.shape[0] + SIDE_OUTPUTS, np.float32)
    dists = np.zeros((2, 3, SIDE_BUCKETS), np.float32)
    formula = np.zeros(5, np.float32)

    def values(child):
        """(race net, formula) equities of a play's position, the mover's view."""
        sw = np.ascontiguousarray(swap_sides(child), dtype=np.int8)
        e = -float(equity(evaluate0(sw, ev)))
        if game_result(child) > 0 or not (side_row(sw, 0, nrows) >= 0 > side_row(sw, 1, nrows)):
            return e, e
        side_race_probs(sw, ev.side, one, u, dists, formula)
        return e, -float(equity(formula))

    errs = {w: [] for w in shares}
    skipped = 0
    for name in args.sets:
        d = dict(np.load(DATA / f"race_decisions_{name}.npz"))
        by_dec, done = _judged(d, _load_table(DATA / f"race_rollouts_{name}.npz"))
        for i in done:
            pos = d["pos"][i]
            vals = by_dec.get(i, {})
            mover_outside = side_row(pos, 1, nrows) >= 0 > side_row(pos, 0, nrows)
            if not mover_outside or d["n"][i] == 1 or len(vals) < 2:
                continue
            best = max(v[0] for v in vals.values())
            children, _ = generate_plays(pos, int(d["dice"][i][0]), int(d["dice"][i][1]))
            e = np.array([values(c) for c in children])
            picks = {w: children[int(np.argmax((1 - w) * e[:, 0] + w * e[:, 1]))] for w in shares}
            picks = {w: c.tobytes() for w, c in picks.items()}
            if any(p not in vals for p in picks.values()):
                skipped += 1
                continue
            for w in shares:
                errs[w].append(best - vals[picks[w]][0])
    base = np.array(errs[shares[0]])
    print(
        f"{', '.join(args.sets)}: {len(base)} decisions (the mover outside, the opponent home), "
        f"{skipped} skipped (a play without a rollout)"
    )
    for w in shares:
        x = np.array(errs[w])
        dx = x - base
        print(
            f"formula's share {w:4.2f}: {1000 * x.mean():6.3f} millipoints a decision, "
            f"minus share {shares[0]:.2f}: {1000 * dx.mean():+6.3f} "
            f"+- {1000 * dx.std(ddof=1) / np.sqrt(len(dx)):.3f}"
        )


if __name__ == "__main__":
    main()
