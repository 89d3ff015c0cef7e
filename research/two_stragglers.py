"""Would one-sided rows for a side with two (or three) checkers outside its home board fix race
decisions?

    python3 research/two_stragglers.py build --out runs/ts/two.npy [--three]   # minutes
    python3 research/two_stragglers.py judge runs/re/d31.npz --rollouts runs/re/r31.npz \
        --rows runs/ts/two.npy [--roll] [--show]

``build`` solves, like the straggler rows of ``bgtui.engine.bearoff``, every side with exactly two
checkers on its points 7..18 (two on one point included) and at most 13 on its home points, and
with ``--three`` also every side with exactly three there and at most 12 home: each roll played
to minimise the expected number of rolls (to bear off all, and separately to take a first
checker off), successors first in order of increasing pip count; a successor is such a row
again, a straggler row or a home-board row of the extended database. Rows
``BASE2 + pair * HOME13 + bearoff_index(home)`` and ``BASE3 + triple * HOME12 + ...``, ``pair`` /
``triple`` the rank of the sorted points among the 78 pairs / 364 triples; the file holds the
rows from ``BASE2`` on (541 MB for two, 2.3 GB with three, as float32).

``judge`` values each candidate of the race decisions of ``evaluation/race_errors.py`` by the
one-sided approximation (``bearoff.one_sided_race_probs``' formula) wherever both sides have a
row in the extended database or these rows and one of them a row here, else by the shipped 0-ply
evaluator, lets 0-ply choose, and prints the equity lost a decision against the rollouts beside
the shipped 0-ply's, paired. ``--roll`` rolls out (with the set's settings: 324 trials, seed 1)
the choices that have no rollout yet, into the rollouts file.
"""

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from numba import njit

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "evaluation"))

from bgtui.engine import (  # noqa: E402
    EXTENDED_SIZE,
    MAX_PLAYS,
    MOVE_SIZE,
    ONE_SIDED_SIZE,
    ROLL_WEIGHTS,
    ROLLS,
    STRAGGLER_HOME,
    STRAGGLER_LO,
    bearoff_index,
    bearoff_position,
    generate_plays_into,
    make_move_workspace,
    one_sided_rows_race_probs,
    one_sided_solve_row,
)

LO, HI = 7, 18
PAIRS = np.array([(a, b) for b in range(LO, HI + 1) for a in range(LO, b + 1)], dtype=np.int64)
PAIR_INDEX = np.full((25, 25), -1, dtype=np.int64)
for _k, (_a, _b) in enumerate(PAIRS):
    PAIR_INDEX[_a, _b] = _k
HOME13 = 27132  # one-sided home boards of at most 13 checkers, C(19, 6)
TWO_ROWS = len(PAIRS) * HOME13
TRIPLES = np.array(
    [(a, b, c) for c in range(LO, HI + 1) for b in range(LO, c + 1) for a in range(LO, b + 1)],
    dtype=np.int64,
)
TRIPLE_INDEX = np.full((25, 25, 25), -1, dtype=np.int64)
for _k, (_a, _b, _c) in enumerate(TRIPLES):
    TRIPLE_INDEX[_a, _b, _c] = _k
HOME12 = 18564  # home boards of at most 12 checkers, C(18, 6)
THREE_ROWS = len(TRIPLES) * HOME12
#: where the two- and three-straggler rows start in the combined table
BASE2 = EXTENDED_SIZE
BASE3 = EXTENDED_SIZE + TWO_ROWS


@njit(cache=True)
def row2(pos, side, nrows):
    """Row of one side (0: the player, 1: the opponent) in the combined table of ``nrows`` rows
    (the extended database's rows, the two-straggler rows from ``BASE2``, then, if the table
    has them, the three-straggler rows from ``BASE3``), or -1."""
    home = np.zeros(6, dtype=np.int64)
    for j in range(1, 7):
        v = pos[j] if side == 0 else -pos[25 - j]
        if v > 0:
            home[j - 1] = v
    r = bearoff_index(home)
    out = 0
    at = np.zeros(3, dtype=np.int64)
    for j in range(7, 26):
        v = pos[j] if side == 0 else -pos[25 - j]
        if v > 0:
            if j > HI or out + v > 3:
                return -1
            for _ in range(v):
                at[out] = j
                out += 1
    if out == 0:
        return r
    if out == 1:
        return ONE_SIDED_SIZE + (at[0] - STRAGGLER_LO) * STRAGGLER_HOME + r
    if out == 2:
        return BASE2 + PAIR_INDEX[at[0], at[1]] * HOME13 + r
    if nrows > BASE3:
        return BASE3 + TRIPLE_INDEX[at[0], at[1], at[2]] * HOME12 + r
    return -1


@njit(cache=True)
def _build(order, home_counts, tuples, nhome, base, dist, mean, rolls, weights, mws, ppos, pmov):
    """Solve the rows ``base + q`` (``q`` in ``order``: tuple ``q // nhome`` of stragglers over
    home board ``q % nhome``) of ``dist`` / ``mean``, whose successors' rows are solved."""
    nrows = dist.shape[0]
    pos = np.zeros(26, dtype=np.int8)
    succ = np.empty((rolls.shape[0], ppos.shape[0]), dtype=np.int64)
    nsucc = np.empty(rolls.shape[0], dtype=np.int64)
    k_out = tuples.shape[1]
    for oi in range(order.shape[0]):
        q = order[oi]
        i = base + q
        h = q % nhome
        p = q // nhome
        for k in range(26):
            pos[k] = 0
        tot = k_out
        for j in range(6):
            pos[j + 1] = home_counts[h, j]
            tot += home_counts[h, j]
        for t in range(k_out):
            pos[tuples[p, t]] += 1
        for r in range(rolls.shape[0]):
            nsucc[r] = generate_plays_into(pos, rolls[r, 0], rolls[r, 1], mws, ppos, pmov)
            for k in range(nsucc[r]):
                succ[r, k] = row2(ppos[k], 0, nrows)
        one_sided_solve_row(i, tot == 15, succ, nsucc, dist, mean, weights)


@njit(cache=True)
def _home_boards(npos):
    counts = np.zeros((npos, 6), dtype=np.int64)
    pips = np.zeros(npos, dtype=np.int64)
    for i in range(npos):
        bearoff_position(i, counts[i])
        for j in range(6):
            pips[i] += (j + 1) * counts[i, j]
    return counts, pips


def build(args):
    from bgtui.analysis.bearoff_cache import get_extended_one_sided

    full = get_extended_one_sided()
    nr = full.shape[2]
    n = BASE3 + (THREE_ROWS if args.three else 0)
    dist = np.zeros((n, 2, nr))
    dist[:EXTENDED_SIZE] = full[:EXTENDED_SIZE]
    mean = np.zeros((n, 2))
    mean[:EXTENDED_SIZE] = (dist[:EXTENDED_SIZE] * np.arange(nr)).sum(axis=2)
    blocks = [(PAIRS, HOME13, BASE2)] + ([(TRIPLES, HOME12, BASE3)] if args.three else [])
    scratch = (
        make_move_workspace(),
        np.zeros((MAX_PLAYS, 26), dtype=np.int8),
        np.zeros((MAX_PLAYS, MOVE_SIZE), dtype=np.int8),
    )
    for tuples, nhome, base in blocks:  # a block's successors: its own rows or earlier ones
        t = time.time()
        counts, pips = _home_boards(nhome)
        total = np.repeat(tuples.sum(axis=1), nhome) + np.tile(pips, len(tuples))
        order = np.argsort(total, kind="stable").astype(np.int64)
        _build(order, counts, tuples, nhome, base, dist, mean, ROLLS, ROLL_WEIGHTS, *scratch)
        rows = dist[base : base + len(order)]
        lost = np.abs(rows.sum(axis=2) - 1.0).max()
        print(f"{len(order)} rows in {time.time() - t:.0f} s; largest probability lost {lost:.2g}")
    np.save(args.out, dist[EXTENDED_SIZE:].astype(np.float32))


def judge(args):
    import race_errors as R
    from games import value

    from bgtui.analysis.bearoff_cache import get_extended_one_sided
    from bgtui.analysis.service import Analyzer
    from bgtui.engine import equity, swap_sides

    full = get_extended_one_sided()
    db = np.concatenate([full[:EXTENDED_SIZE], np.load(args.rows)])
    an = Analyzer(None)
    d = dict(np.load(args.data))
    table = R._load_table(args.rollouts)
    by = {}
    for (i, c), v in table.items():
        by.setdefault(i, {})[c] = v
    out5 = np.zeros(5)
    m = len(d["n"])
    base_err, new_err, used = np.full(m, np.nan), np.full(m, np.nan), np.zeros(m, dtype=bool)
    todo = []
    for i in range(m):
        cands = R._candidates(d, i)
        v0 = [value(an, c, 0) for c in cands]
        v1 = []
        for c, v in zip(cands, v0):
            sw = np.ascontiguousarray(swap_sides(c), dtype=np.int8)  # opponent on roll
            x, y = row2(sw, 0, len(db)), row2(sw, 1, len(db))
            two = x >= EXTENDED_SIZE or y >= EXTENDED_SIZE
            if x < 0 or y < 0 or not two or R._kind(an, c) != 0:
                v1.append(v)
                continue
            one_sided_rows_race_probs(x, y, db, out5)
            v1.append(-float(equity(out5.astype(np.float32))))
            used[i] = True
        if not used[i]:
            continue
        vals = by.get(i, {})
        b0, b1 = cands[int(np.argmax(v0))], cands[int(np.argmax(v1))]
        if b1.tobytes() not in vals or b0.tobytes() not in vals:
            todo.append((i, [b0, b1]))
            continue
        best = max(v[0] for v in vals.values())
        base_err[i] = best - vals[b0.tobytes()][0]
        new_err[i] = best - vals[b1.tobytes()][0]
        if args.show and abs(new_err[i] - base_err[i]) > 0.004:
            _show(d, i, cands, v0, v1, vals)
    print(
        f"{args.data}: {m} decisions, {used.sum()} with a row here, "
        f"{len(todo)} choices without a rollout"
    )
    if args.roll and todo:
        from bgtui.analysis.models import RolloutSettings

        settings = RolloutSettings(
            trials=324, seed=1, truncate=0, variance_reduction=True, workers=1
        )
        for i, plays in todo:
            R._roll(an, d, i, plays, settings, table)
        R._save_table(args.rollouts, table)
        print("rolled; run again to judge")
        return
    ok = ~np.isnan(base_err)
    diff = (new_err - base_err)[ok]
    print(
        f"judged {ok.sum()}: shipped 0-ply {1000 * base_err[ok].sum() / m:.3f}, with the rows "
        f"{1000 * new_err[ok].sum() / m:.3f} millipoints a decision of the set; paired "
        f"{1000 * diff.mean():+.2f} +- {1000 * diff.std(ddof=1) / np.sqrt(len(diff)):.2f} "
        f"a judged decision, changed choice in {np.count_nonzero(diff)}"
    )


def _show(d, i, cands, v0, v1, vals):
    """A decision whose choice the rows change: each candidate's values and rollout."""
    from bgtui.analysis.formats import format_position_id
    from bgtui.analysis.state import GameState
    from bgtui.engine import pip_counts

    pos = d["pos"][i]
    print(
        f"decision {i}: {format_position_id(GameState.from_position(pos))} "
        f"{tuple(int(x) for x in d['dice'][i])}, pips {tuple(int(x) for x in pip_counts(pos))}"
    )
    for c, a, b in zip(cands, v0, v1):
        r = vals.get(c.tobytes(), (np.nan, np.nan))
        out = [int(p) for p in range(7, 25) if c[p] > 0 for _ in range(int(c[p]))]
        print(f"   outside {out}: 0-ply {a:+.4f}  rows {b:+.4f}  rollout {r[0]:+.4f} +- {r[1]:.4f}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build")
    b.add_argument("--out", required=True)
    b.add_argument("--three", action="store_true", help="also three stragglers (1.7 GB)")
    j = sub.add_parser("judge")
    j.add_argument("data")
    j.add_argument("--rollouts", required=True)
    j.add_argument("--rows", required=True)
    j.add_argument("--roll", action="store_true")
    j.add_argument("--show", action="store_true", help="print the decisions the rows change")
    a = ap.parse_args()
    {"build": build, "judge": judge}[a.cmd](a)


if __name__ == "__main__":
    main()
