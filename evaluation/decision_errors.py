"""Where 0-ply checker play errs: its choices against 2-ply, by kind of position, in games against
PubEval and in self-play.

    python3 evaluation/decision_errors.py [--games 100] [--seed 3] [--weights bgtui-0.npz]

Plays ``--games`` games of the evaluator at 0-ply against PubEval (who moves first drawn for each
game) and as many 0-ply self-play games. At every roll the evaluator plays with more than one
legal play, the plays within 0.16 of the best at 0-ply (at most 8, the move filter of
``bgtui moves --ply 2``) are valued at 2-ply; the decision's error is the 2-ply equity of the
2-ply best minus that of the 0-ply choice (0 when they agree). Prints, for each kind of position
(the net that values the position before the roll: contact, crashed, race) and each source of
games, the decisions, how often 0-ply chose another play than 2-ply, and the mean error per
decision in millipoints of equity (2-ply's own judgement: an estimate of where 0-ply loses
equity, not an exact figure).
"""

import argparse
import time

import numpy as np
from games import decisions, value

from bgtui.analysis.service import FILTER_MARGIN, FILTER_MAX_PLAYS, Analyzer
from bgtui.engine import (
    CONTACT,
    CONTACT_CLASSES,
    EARLY,
    EARLY_BAR,
    EARLY_TRAILING,
    EARLY_TRAILING_BAR,
    NET_NAMES,
    generate_plays,
    make_move_workspace,
    make_play_buffers,
    net_class,
)


def _error(an, pos, d1, d2):
    """The 2-ply error of the 0-ply choice among the plays of (d1, d2) from ``pos``."""
    children, _ = generate_plays(pos, d1, d2)
    e0 = np.array([value(an, c, 0) for c in children])
    choice = int(np.argmax(e0))
    order = np.argsort(-e0, kind="stable")[:FILTER_MAX_PLAYS]
    cand = [i for i in order if e0[i] >= e0[choice] - FILTER_MARGIN]
    e2 = {i: value(an, children[i], 2) for i in cand}
    best = max(e2, key=e2.get)
    return e2[best] - e2[choice]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--weights", default=None)
    args = ap.parse_args()
    an = Analyzer(args.weights)
    ws = (make_move_workspace(), *make_play_buffers())  # PubEval's move generation
    for name, vs in (("against PubEval", True), ("self-play", False)):
        rng = np.random.default_rng(args.seed)
        stats = {}
        t = time.time()
        for pos, d1, d2, _, game in decisions(an, rng, ws, vs_pubeval=vs):
            if game >= args.games:
                break
            err = _error(an, pos, d1, d2)
            cls = net_class(pos)
            # contact below EARLY_PIPS together (the contact nets' classes but the early
            # ones), whichever side is ahead in the race, whether both sides have a checker
            # back or not, whether a side has an anchor or not and whether a checker is on a
            # bar or not (each bar class with the class it splits); early contact together,
            # whichever side is ahead in the race and whether a checker is on a bar or not
            if cls in (EARLY_TRAILING, EARLY_BAR, EARLY_TRAILING_BAR):
                cls = EARLY
            below = cls in CONTACT_CLASSES and cls != EARLY
            st = stats.setdefault(NET_NAMES[CONTACT if below else cls], [0, 0, 0.0])
            st[0] += 1
            st[1] += err > 1e-9
            st[2] += err
        n = sum(s[0] for s in stats.values())
        total = sum(s[2] for s in stats.values())
        print(
            f"\n{name}: {args.games} games, {n} decisions, {time.time() - t:.0f} s; "
            f"0-ply loses {1000 * total / max(n, 1):.1f} millipoints a decision by 2-ply"
        )
        for cls in ("contact", "early", "crashed", "holding", "race"):
            if cls in stats:
                k, wrong, err = stats[cls]
                print(
                    f"  {cls:8s} {k:6d} decisions ({100 * k / n:4.1f}%), 0-ply differs from "
                    f"2-ply in {100 * wrong / k:4.1f}%, {1000 * err / k:5.1f} millipoints a "
                    f"decision, {100 * err / max(total, 1e-12):4.1f}% of the total"
                )


if __name__ == "__main__":
    main()
