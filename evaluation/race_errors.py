"""Race checker-play error judged by rollouts: 0, 1 and 2-ply, by who values the race and by pips.

    python3 evaluation/race_errors.py collect --decisions 400 --seed 21 --out runs/re/d21.npz
    python3 evaluation/race_errors.py rollout runs/re/d21.npz --trials 324 --out runs/re/r21.npz
    python3 evaluation/race_errors.py confirm runs/re/d21.npz --rollouts runs/re/r21.npz \
        --trials 648 --seed 2 --out runs/re/c21.npz
    python3 evaluation/race_errors.py report runs/re/d21.npz --rollouts runs/re/r21.npz
                                             [--weights FILE] [--plies 0,1,2]
                                             [--pool runs/re/d22.npz:runs/re/r22.npz ...]
    python3 evaluation/race_errors.py blends runs/re/d21.npz:runs/re/r21.npz ... [--weights FILE]

``collect`` plays 0-ply games of the shipped weights (``--sample-weights``), half against
PubEval and half self-play (a game's source and who moves first drawn from ``--seed``), and
keeps every race decision of the evaluator (no contact before the roll) with more than one
legal play, until it has ``--decisions``. For each it keeps the candidates: the plays within
``--margin`` of the 0-ply best, at most ``--plays`` (by default the services' move filter:
``FILTER_MARGIN`` 0.16, ``FILTER_MAX_PLAYS`` 8, so that 1 and 2-ply choose among them), best first.
A decision with a single candidate is not rolled: every chooser plays it and loses 0.
``--net-only`` keeps only the decisions where the race net values at least one candidate (the
others are judged by the bear-off databases, where every chooser's error is about 0).

``rollout`` values every candidate by a rollout of the position after it (``--trials``, full
games with bear-off truncation and variance reduction, one worker, the same ``--seed``: a play's
rollout is the same whichever plays are rolled with it, and the plays of a decision see the same
dice, so that their differences are far more precise than each value).
The rollout values are stored by decision and resulting position, so that a chooser's play
outside the candidates (another weights file's) can be rolled later (``rollout --weights FILE``
rolls the plays of FILE's choosers that have no value yet, with the same trials and seed, played
by the shipped weights as before) and every chooser is judged on the same positions.

``blends DATA:ROLLOUTS ...`` pools sets and compares the 1-ply blends of ``--blends`` (0-ply
shares) with the one at ``--one-ply-weight`` (the engine's), decision by decision: which share
suits races.

``confirm`` rolls again, with another seed, the 0-ply choice and the rollouts' best where they
differ, to measure how much of 0-ply's error is the rollouts' noise.

``report`` values the plays with ``--weights`` (default the shipped weights) at each of
``--plies``, lets each ply choose (1 and 2-ply among the plays within ``FILTER_MARGIN`` of the
0-ply best, at most ``FILTER_MAX_PLAYS``: the services' move filter; 1-ply by the engine's
blend of the 0-ply and 1-ply values, ``--one-ply-weight`` its 0-ply share), and prints the mean
equity lost a decision (the rollouts' best value among the rolled plays minus that of the play
chosen, millipoints) with its standard error over the decisions, split by who values the
candidates at 0-ply (``net``: the race net values them all; ``net and database``: the race net
some and a database the others; ``one-sided``: the one-sided approximation values at least one,
the net none; ``two-sided``: the exact database values them all), among the decisions the
net values (all or some candidates) by which side of the position has a row of the one-sided
database (``bearoff.side_row``: home, a straggler, few checkers; where the side on roll of a
play's position has one, a side net leaves the play to the race net), by the source of the
games, by whether a side has yet to bear off a checker (gammons at stake) and by the mover's
pip count. The rollouts' noise biases each error up (the best of the rolled plays is the largest
of noisy values; ``confirm`` measures by how much); the report gives the mean standard error
of a rolled play's value. ``--compare FILE`` adds the paired differences between the errors of
``--weights`` and of FILE, decision by decision (the same rollouts judge both).
``--pool DATA:ROLLOUTS ...`` adds more sets: every figure is then over the decisions of all
sets together.
"""

import argparse
import time
from typing import NamedTuple

import numpy as np
from games import decisions, roll_children, sample, save_rows, value

from bgtui.analysis.service import FILTER_MARGIN, FILTER_MAX_PLAYS, Analyzer, one_ply_weight0
from bgtui.engine import (
    NO_DATABASE,
    ONE_PLY_WEIGHTS0,
    ONE_SIDED_DB,
    RACE,
    TWO_SIDED_DB,
    database_kind,
    game_result,
    generate_plays,
    is_race,
    pip_counts,
    side_row,
    swap_sides,
)

#: the mover's pip count buckets of the report (lower bounds)
PIP_BUCKETS = (0, 30, 60, 90, 120)
#: a decision whose candidates the race net and a database value (some each)
MIXED = 3
KINDS = {
    NO_DATABASE: "net",
    MIXED: "net and database",
    ONE_SIDED_DB: "one-sided",
    TWO_SIDED_DB: "two-sided",
}


def _kind(an, child):
    """Who values ``child`` (mover's view after the play) at 0-ply."""
    if game_result(child) > 0:
        return TWO_SIDED_DB
    ev = an.ev
    sw = np.ascontiguousarray(swap_sides(child), dtype=np.int8)
    return int(database_kind(sw, ev.two_sided, ev.one_sided))


def collect(args):
    an, ws, rng = sample(args.sample_weights, args.seed)
    k = args.plays

    def rows():
        for pos, d1, d2, vs, _ in decisions(an, rng, ws):
            if not is_race(pos):
                continue
            children, _ = generate_plays(pos, d1, d2)
            e0 = np.array([value(an, c, 0) for c in children])
            order = np.argsort(-e0, kind="stable")[:k]
            keep = [i for i in order if e0[i] >= e0[order[0]] - args.margin]
            cand = np.zeros((k, 26), dtype=np.int8)
            kind = np.full(k, -1, dtype=np.int8)
            for j, i in enumerate(keep):
                cand[j] = children[i]
                kind[j] = _kind(an, children[i])
            if args.net_only and _decision_kind(kind[: len(keep)]) not in (NO_DATABASE, MIXED):
                continue
            yield dict(pos=pos, dice=(d1, d2), pubeval=vs, n=len(keep), cand=cand, kind=kind)

    save_rows(rows(), args.decisions, args.out, "race decisions")


# -- rollout values, by (decision, resulting position) -------------------------------------------
def _load_table(path):
    try:
        r = np.load(path)
    except FileNotFoundError:
        return {}
    return {
        (int(i), c.tobytes()): (float(e), float(s))
        for i, c, e, s in zip(r["dec"], r["child"], r["equity"], r["se"])
    }


def _save_table(path, table):
    keys = sorted(table)
    np.savez_compressed(
        path,
        dec=np.array([k[0] for k in keys], dtype=np.int32),
        child=np.array([np.frombuffer(k[1], dtype=np.int8) for k in keys]).reshape(-1, 26),
        equity=np.array([table[k][0] for k in keys]),
        se=np.array([table[k][1] for k in keys]),
    )


def _candidates(d, i):
    return [d["cand"][i, j] for j in range(int(d["n"][i]))]


def _roll(an, d, i, plays, settings, table):
    """Roll the ``plays`` (children) of decision ``i`` that have no value yet into ``table``."""
    todo = [c for c in plays if (i, c.tobytes()) not in table]
    if int(d["n"][i]) == 1:  # the single candidate needs no rollout
        todo = [c for c in todo if not np.array_equal(c, d["cand"][i, 0])]
    if not todo:
        return 0
    todo = list({c.tobytes(): c for c in todo}.values())
    for c, value_se in zip(todo, roll_children(an, d["pos"][i], d["dice"][i], todo, settings)):
        table[(i, c.tobytes())] = value_se
    return len(todo)


def rollout(args):
    from bgtui.analysis.models import RolloutSettings

    d = dict(np.load(args.data))
    table = _load_table(args.out)
    an = Analyzer(args.sample_weights)
    settings = RolloutSettings(
        trials=args.trials, seed=args.seed, truncate=0, variance_reduction=True, workers=1
    )
    picks = None
    if args.weights:
        picks = _choices(Analyzer(args.weights), d, args.plies)
    t = time.time()
    done = 0
    for i in range(len(d["n"])):
        if args.count and i >= args.count:
            break
        if picks is None:
            plays = _candidates(d, i)
        else:
            plays = [p[i] for p in picks.values()]
        done += _roll(an, d, i, plays, settings, table)
        if (i + 1) % 10 == 0:
            _save_table(args.out, table)
            print(f"decision {i + 1}, {done} plays rolled, {time.time() - t:.0f} s", flush=True)
    _save_table(args.out, table)


def confirm(args):
    """Rolls again, with another seed, the 0-ply choice and the rollouts' best of every decision
    where they differ, and prints 0-ply's error valued by the new rollouts: the play judged
    best by one set of dice valued by another, an estimate free of the bias of taking the
    largest of noisy values (a lower bound for the candidates rolled)."""
    from bgtui.analysis.models import RolloutSettings

    d = dict(np.load(args.data))
    by_dec, _ = _judged(d, _load_table(args.rollouts))
    an = Analyzer(args.sample_weights)
    settings = RolloutSettings(
        trials=args.trials, seed=args.seed, truncate=0, variance_reduction=True, workers=1
    )
    table = _load_table(args.out)
    m = len(d["n"])
    first, second = np.zeros(m), np.zeros(m)
    for i, vals in sorted(by_dec.items()):
        best = max(vals, key=lambda c: vals[c][0])
        c0 = d["cand"][i, 0].tobytes()
        if best == c0:
            continue
        plays = [np.frombuffer(c, dtype=np.int8).copy() for c in (c0, best)]
        _roll(an, d, i, plays, settings, table)
        first[i] = vals[best][0] - vals[c0][0]
        second[i] = table[(i, best)][0] - table[(i, c0)][0]
    _save_table(args.out, table)
    for name, e in (("the rollouts that chose", first), ("another seed's", second)):
        print(
            f"0-ply's error by {name} values: {1000 * e.mean():.2f} +- "
            f"{1000 * e.std(ddof=1) / np.sqrt(m):.2f} millipoints a decision ({m} decisions, "
            f"{np.count_nonzero(first)} where 0-ply's play is not the rollouts' best)"
        )


# -- report ---------------------------------------------------------------------------------
def _choices(an, d, plies, w0=None):
    """ply -> the child each ply of ``an`` plays in each decision (the services' move filter;
    at 1-ply a play's value is ``w0`` times its 0-ply equity plus the rest times its 1-ply
    equity: None the engine's blend, ``one_ply_weight0`` of the decision's position; 0 the
    plain 1-ply)."""
    out = {p: [] for p in plies}
    for i in range(len(d["n"])):
        pos, (d1, d2) = d["pos"][i], d["dice"][i]
        children, _ = generate_plays(pos, int(d1), int(d2))
        e0 = np.array([value(an, c, 0) for c in children])
        order = np.argsort(-e0, kind="stable")[:FILTER_MAX_PLAYS]
        keep = [j for j in order if e0[j] >= e0[order[0]] - FILTER_MARGIN]
        w = one_ply_weight0(pos) if w0 is None else w0
        for p in plies:
            if p == 0:
                best = int(order[0])
            elif p == 1 and w == 1.0:
                best = int(order[0])
            elif p == 1:
                best = max(keep, key=lambda j: w * e0[j] + (1.0 - w) * value(an, children[j], 1))
            else:
                best = max(keep, key=lambda j: value(an, children[j], p))
            out[p].append(children[best])
    return out


class _SetRows(NamedTuple):
    """One set's part of :func:`report`: its decisions, their rollout values and, per decision,
    the plays chosen, their errors and the columns the report splits by."""

    d: dict  #: the decisions file's arrays
    by_dec: dict  #: decision -> {play: rollout value}
    judged: int  #: decisions all of whose candidates are rolled out
    picks: dict  #: ply -> the play ``--weights`` chooses in each decision
    errs: dict  #: ply -> each decision's error (nan: not judged)
    base: dict | None  #: the same errors of ``--compare``'s choices
    missing: dict  #: ply -> decisions whose chosen play has no rollout
    cols: dict  #: kind, pip, off, pubeval: a value a decision
    se: list  #: each rolled play's standard error


def _set_rows(data, rollouts, an, plies, w0, base_an) -> _SetRows:
    """One set's :class:`_SetRows`: the choices of ``an`` (and of ``base_an``, or None) at
    each ply; who values the candidates, the mover's pips, the fewest checkers off of a side,
    the games' source."""
    d = dict(np.load(data))
    by_dec, done = _judged(d, _load_table(rollouts))
    picks = _choices(an, d, plies, w0)
    errs, missing = _errors(d, by_dec, done, picks, plies)
    base = None
    if base_an is not None:
        base = _errors(d, by_dec, done, _choices(base_an, d, plies, w0), plies)[0]
    m = len(d["n"])
    cols = {
        "kind": np.array([_decision_kind(d["kind"][i, : d["n"][i]]) for i in range(m)]),
        "pip": np.array([pip_counts(d["pos"][i])[0] for i in range(m)]),
        "off": np.array(
            [
                min(15 - int(np.clip(q, 0, None).sum()), 15 - int(np.clip(-q, 0, None).sum()))
                for q in d["pos"]
            ]
        ),
        "pubeval": d["pubeval"].astype(bool),
        "rows": np.array([_rows(an, q) for q in d["pos"]]),
    }
    se = [v[1] for i in done for v in by_dec.get(i, {}).values()]
    return _SetRows(d, by_dec, len(done), picks, errs, base, missing, cols, se)


def _rows(an, pos):
    """Which sides of ``pos`` have a row of the one-sided database: 1 the mover, 2 the
    opponent, 3 both, 0 neither."""
    n = an.ev.one_sided.shape[0]
    return int(side_row(pos, 0, n) >= 0) + 2 * int(side_row(pos, 1, n) >= 0) if n else 0


def report(args):
    plies = [int(p) for p in args.plies.split(",")]
    an = Analyzer(args.weights)
    base_an = Analyzer(args.compare) if args.compare else None
    sets = [(args.data, args.rollouts)] + [tuple(s.split(":")) for s in args.pool]
    if args.worst and len(sets) > 1:
        raise SystemExit("race_errors.py report: --worst lists one set's decisions, not --pool's")
    rows = [_set_rows(dt, ro, an, plies, args.one_ply_weight, base_an) for dt, ro in sets]
    for (dt, ro), r in zip(sets, rows):
        print(
            f"{dt}: {len(r.d['n'])} race decisions, {r.judged} with rollouts ({ro}); "
            f"plays valued by {args.weights or 'the shipped weights'}"
        )
    errs = {p: np.concatenate([r.errs[p] for r in rows]) for p in plies}
    missing = {p: sum(r.missing[p] for r in rows) for p in plies}
    cols = {k: np.concatenate([r.cols[k] for r in rows]) for k in rows[0].cols}
    kind, pip, off = cols["kind"], cols["pip"], cols["off"]
    m = len(kind)
    if len(sets) > 1:
        print(f"pooled: {len(sets)} sets, {m} race decisions")
    groups = [("all", np.ones(m, dtype=bool))]
    groups += [(f"valued by {KINDS[k]}", kind == k) for k in KINDS]
    groups.append(("games against PubEval", cols["pubeval"]))
    groups.append(("self-play", ~cols["pubeval"]))
    net = (kind == NO_DATABASE) | (kind == MIXED)
    rows_ = cols["rows"]
    groups.append(("net, neither side has a row", net & (rows_ == 0)))
    groups.append(("net, the mover has a row", net & (rows_ == 1)))
    groups.append(("net, the opponent has a row", net & (rows_ == 2)))
    groups.append(("a side has none off (gammons)", off == 0))
    groups.append(("both sides have some off", off > 0))
    for lo, hi in zip(PIP_BUCKETS, PIP_BUCKETS[1:] + (999,)):
        groups.append((f"mover's pips {lo}-{hi - 1}", (pip >= lo) & (pip < hi)))
    head = "".join(f"{f'{p}-ply':>17s}" for p in plies)
    print(f"{'decisions':28s} {'count':>6s}{head}   (millipoints a decision +- SE)")
    for name, mask in groups:
        cells = []
        count = 0
        for p in plies:
            e = errs[p][mask]
            e = e[~np.isnan(e)]
            count = max(count, len(e))
            cells.append(
                f"{1000 * e.mean():8.2f} +- {1000 * e.std(ddof=1) / np.sqrt(len(e)):4.2f}"
                if len(e) > 1
                else f"{'-':>17s}"
            )
        print(f"{name:28s} {count:6d}" + "".join(f"{c:>17s}" for c in cells))
    for p in plies:
        e = errs[p][~np.isnan(errs[p])]
        print(
            f"{p}-ply: differs from the rollouts' best in {np.sum(e > 0)} decisions; "
            f"{missing[p]} decisions skipped (its play has no rollout: `rollout --weights`)"
        )
    if base_an is not None:
        base = {p: np.concatenate([r.base[p] for r in rows]) for p in plies}
        print(
            f"\npaired: {args.weights or 'shipped'} minus {args.compare} (millipoints a decision)"
        )
        for name, mask in groups:
            cells = []
            for p in plies:
                x = (errs[p] - base[p])[mask]
                x = x[~np.isnan(x)]
                cells.append(
                    f"{1000 * x.mean():+8.2f} +- {1000 * x.std(ddof=1) / np.sqrt(len(x)):4.2f}"
                    if len(x) > 1
                    else f"{'-':>17s}"
                )
            print(f"{name:28s} {mask.sum():6d}" + "".join(f"{c:>17s}" for c in cells))
    if args.worst:
        one = rows[0]
        _worst(one.d, one.by_dec, errs, one.picks, plies, kind, pip, args.worst)
    # the precision of a difference of two rolled plays of a decision (same dice)
    se = [s for r in rows for s in r.se]
    print(f"mean standard error of a rolled play's equity: {1000 * np.mean(se):.2f} millipoints")


def _judged(d, table):
    """(decision -> {play: rollout value}, the decisions whose candidates are all rolled out or
    that have one candidate)."""
    by_dec = {}
    for (i, c), v in table.items():
        by_dec.setdefault(i, {})[c] = v
    done = [i for i in range(len(d["n"])) if d["n"][i] == 1 or len(by_dec.get(i, {})) >= d["n"][i]]
    return by_dec, done


def blends(args):
    """Each 1-ply blend of ``--blends`` against the blend at ``--one-ply-weight``, decision by
    decision over the sets ``DATA:ROLLOUTS`` pooled (the same rollouts judge both)."""
    an = Analyzer(args.weights)
    ws = [args.one_ply_weight] + [float(w) for w in args.blends.split(",")]
    errs = {w: [] for w in ws}
    for spec in args.sets:
        data, rollouts = spec.split(":")
        d = dict(np.load(data))
        by_dec, done = _judged(d, _load_table(rollouts))
        for w in ws:
            errs[w].append(_errors(d, by_dec, done, _choices(an, d, [1], w), [1])[0][1])
    base = np.concatenate(errs[ws[0]])
    print(
        f"1-ply blends by their 0-ply share, minus {ws[0]:.2f} (millipoints; {len(args.sets)} sets)"
    )
    for w in ws:
        x = np.concatenate(errs[w])
        diff = (x - base)[~np.isnan(x - base)]
        se = diff.std(ddof=1) * np.sqrt(len(diff)) if len(diff) > 1 else 0.0
        print(
            f"  {w:4.2f}: {1000 * np.nanmean(x):6.3f} a decision over {len(diff)}, "
            f"summed {1000 * diff.sum():+7.0f} +- {1000 * se:.0f}"
        )


def _errors(d, by_dec, done, picks, plies):
    """ply -> each decision's error (nan: not rolled), and ply -> decisions whose play chosen
    has no rollout."""
    errs, missing = {}, {}
    for p in plies:
        e = np.full(len(d["n"]), np.nan)
        miss = 0
        for i in done:
            vals = by_dec.get(i, {})
            c = picks[p][i].tobytes()
            if d["n"][i] == 1 and c == d["cand"][i, 0].tobytes():
                e[i] = 0.0
                continue
            if c not in vals:
                miss += 1
                continue
            e[i] = max(v[0] for v in vals.values()) - vals[c][0]
        errs[p], missing[p] = e, miss
    return errs, missing


def _worst(d, by_dec, errs, picks, plies, kind, pip, count):
    """The decisions where the first of ``plies`` loses most, with the rollouts' values."""
    from bgtui.analysis.formats import format_position_id
    from bgtui.analysis.state import GameState

    p0 = plies[0]
    e = np.nan_to_num(errs[p0], nan=-1.0)
    share = np.sum(e[e > 0])
    print(f"\nthe {count} decisions where {p0}-ply loses most (of {1000 * share:.1f} millipoints):")
    for i in np.argsort(-e)[:count]:
        if e[i] <= 0:
            break
        vals = by_dec[i]
        cells = []
        for j in range(int(d["n"][i])):
            c = d["cand"][i, j]
            who = KINDS[int(d["kind"][i, j])][:3]
            mark = "".join(str(p) for p in plies if np.array_equal(picks[p][i], c))
            cells.append(f"{vals[c.tobytes()][0]:+.4f}{who}{'<' + mark if mark else ''}")
        gid = format_position_id(GameState.from_position(d["pos"][i]))
        print(
            f"  {gid} {d['dice'][i][0]}{d['dice'][i][1]} pips {pip[i]:3d} "
            f"{KINDS[int(kind[i])]:16s} "
            + " ".join(f"{p}-ply {1000 * errs[p][i]:5.1f}" for p in plies)
            + "  rollouts (0-ply order): "
            + " ".join(cells)
        )


def _decision_kind(kinds):
    if (kinds == NO_DATABASE).any():
        return MIXED if (kinds != NO_DATABASE).any() else NO_DATABASE
    if (kinds == ONE_SIDED_DB).any():
        return ONE_SIDED_DB
    return TWO_SIDED_DB


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("collect")
    c.add_argument("--decisions", type=int, default=400)
    c.add_argument("--seed", type=int, default=21)
    c.add_argument("--margin", type=float, default=FILTER_MARGIN)
    c.add_argument("--plays", type=int, default=FILTER_MAX_PLAYS)
    c.add_argument("--sample-weights", default=None)
    c.add_argument(
        "--net-only",
        action="store_true",
        help="keep only the decisions where the race net values a candidate",
    )
    c.add_argument("--out", required=True)
    o = sub.add_parser("rollout")
    o.add_argument("data")
    o.add_argument("--trials", type=int, default=648)
    o.add_argument("--seed", type=int, default=1)
    o.add_argument("--count", type=int, default=0, help="only the first COUNT decisions")
    o.add_argument("--sample-weights", default=None, help="the weights that play the rollouts")
    o.add_argument("--weights", default=None, help="roll the plays these weights choose")
    o.add_argument("--plies", default="0,1,2")
    o.add_argument("--out", required=True)
    f = sub.add_parser("confirm")
    f.add_argument("data")
    f.add_argument("--rollouts", required=True)
    f.add_argument("--trials", type=int, default=648)
    f.add_argument("--seed", type=int, default=2)
    f.add_argument("--sample-weights", default=None)
    f.add_argument("--out", required=True)
    r = sub.add_parser("report")
    r.add_argument("data")
    r.add_argument("--rollouts", required=True)
    r.add_argument("--weights", default=None)
    r.add_argument("--plies", default="0,1,2")
    r.add_argument(
        "--one-ply-weight",
        type=float,
        default=None,
        help="the 0-ply share of the 1-ply blend in every decision (default the engine's, "
        "one_ply_weight0 of each position; 0: the plain 1-ply)",
    )
    r.add_argument("--compare", default=None, help="paired differences against this weights file")
    r.add_argument("--worst", type=int, default=0, help="list the COUNT worst decisions")
    r.add_argument(
        "--pool",
        nargs="+",
        default=[],
        metavar="DATA:ROLLOUTS",
        help="more sets, pooled with the first decision by decision",
    )
    b = sub.add_parser("blends")
    b.add_argument("sets", nargs="+", metavar="DATA:ROLLOUTS")
    b.add_argument("--weights", default=None)
    b.add_argument("--blends", default="0.15,0.25,0.4,0.6")
    b.add_argument("--one-ply-weight", type=float, default=ONE_PLY_WEIGHTS0[RACE])  # the base
    args = ap.parse_args()
    if getattr(args, "plies", None) and args.cmd == "rollout":
        args.plies = [int(p) for p in args.plies.split(",")]
    run = {
        "collect": collect,
        "rollout": rollout,
        "confirm": confirm,
        "report": report,
        "blends": blends,
    }
    run[args.cmd](args)


if __name__ == "__main__":
    main()
