"""How much equity 0-ply and 1-ply checker play lose a decision, judged by 2-ply and by rollouts.

    python3 evaluation/ply_errors.py collect --decisions 800 --seed 11 --out /tmp/d.npz
    python3 evaluation/ply_errors.py report /tmp/d.npz
    python3 evaluation/ply_errors.py rollout /tmp/d.npz --count 150 --trials 1296 --out /tmp/r.npz
    python3 evaluation/ply_errors.py report /tmp/d.npz --rollouts /tmp/r.npz
    python3 evaluation/ply_errors.py rollout /tmp/d.npz --agreed 200 --trials 1296 --out /tmp/a.npz
    python3 evaluation/ply_errors.py shared /tmp/d.npz --rollouts /tmp/r.npz --agreed /tmp/a.npz

``collect`` plays 0-ply games (half against PubEval, half self-play, a game's source and who
moves first drawn from ``--seed``) and keeps every decision of the evaluator with more than one
legal play until it has ``--decisions``. For each it values the best ``--judge-plays`` plays by
0-ply at 0, 1 and 2-ply (every play at 0 and 1-ply when they are fewer), and saves the values
with what the plays do (hits, net class) in an npz.

``revalue DATA --weights W --out FILE`` values the saved plays again with other weights (the
same decisions and plays in the same order): what those weights choose among them, judged by
the same rollouts; ``rollout --with FILE`` rolls the plays that the choosers of both value
sets pick (so one rollouts file judges both), and ``--base ROLLOUTS`` takes the plays that
ROLLOUTS (the same ``--trials``, ``--seed`` and ``--weights``) has instead of rolling them.

``compare ROLLOUTS A B ...`` pairs the choosers of revalue files A, B, ... (the same
decisions valued by different weights) over the decisions where ROLLOUTS values every play any
of them picks: each one's millipoints lost, summed, and each one's minus A's with its standard
error (the differences' standard deviation times the square root of the decisions), then the
same by kind (the contact nets', the crashed nets' and the race net's decisions), a decision of
the kind.

``rollout --agreed K`` rolls out instead K decisions spread over those where every chooser
and the 2-ply judge agree, the common play and the next ``--alternatives`` by 2-ply; ``shared
DATA --rollouts R --agreed A`` turns them into the error every chooser shares (the common
play's loss against the best of those rolled, a decision) and adds it, over all the agreed
decisions, to the disagreements' figures of ``R``: each chooser's error a decision over the
whole set and its ratio to 0-ply's, the part of the full error the report leaves out; with
``--with FILE`` (the revalue files that ``rollout --with`` counted) each file's choosers too.

``report`` prints, for each way of choosing a play, the mean equity lost a decision (the
judge's value of its best play minus that of the play chosen, millipoints) and how often it
differs from the judge's choice. The choosers are 0-ply; 1-ply through the services' move
filter (the best ``FILTER_MAX_PLAYS`` within ``FILTER_MARGIN`` at 0-ply); 1-ply without a filter;
blends ``w * 0-ply + (1 - w) * 1-ply`` through the filter; and the engine's blend, ``w`` of
the position before the roll (``one_ply_weight0``). The 2-ply judge plays the role of
a deeper evaluation; as it shares the nets and the 0-ply choices inside its tree it
favours the errors 1-ply makes, so ``rollout`` values, for the first ``--count`` decisions
where the choosers disagree, every play some chooser (or the 2-ply judge) picked by rollouts
(``--trials``, truncated at ``--truncate`` plies, 0 = full games; variance reduction), and
``report --rollouts`` judges those decisions by them. The other decisions count 0 for every
chooser, though the choosers may all be wrong there: the rollout figures are the part of each
chooser's error that differs between them, and their ratios are below those of the full errors.
"""

import argparse
import time

import numpy as np
from games import decisions, roll_children, sample, save_rows, value

from bgtui.analysis.service import FILTER_MARGIN, FILTER_MAX_PLAYS, Analyzer, one_ply_weight0
from bgtui.engine import (
    CONTACT,
    CONTACT_CLASSES,
    CRASHED,
    CRASHED_CLASSES,
    NET_NAMES,
    RACE,
    generate_plays,
    net_class,
)

#: blend weights of the 0-ply value tried by ``report``
BLENDS = (0.15, 0.25, 0.4, 0.5, 0.6, 0.75)
#: the chooser of the engine's 1-ply: the blend's weight of the position before the roll
#: (``one_ply_weight0``: ``ONE_PLY_WEIGHTS0`` by class, 1 in the races where only the side on
#: roll has a row of the one-sided database)
BY_CLASS = "blend by class"


def collect(args):
    an, ws, rng = sample(args.weights, args.seed)
    k = args.judge_plays

    def rows():
        for pos, d1, d2, vs, _ in decisions(an, rng, ws):
            children, _ = generate_plays(pos, d1, d2)
            n = len(children)
            e0 = np.array([value(an, c, 0) for c in children])
            order = np.argsort(-e0, kind="stable")[:k]
            pad = np.full(k, np.nan)
            e0k, e1k, e2k = pad.copy(), pad.copy(), pad.copy()
            hit = np.zeros(k, dtype=bool)
            kids = np.zeros((k, 26), dtype=np.int8)
            for j, i in enumerate(order):
                c = children[i]
                e0k[j] = e0[i]
                e1k[j] = value(an, c, 1)
                e2k[j] = value(an, c, 2)
                hit[j] = c[0] < pos[0]
                kids[j] = c
            cls = net_class(pos)
            row = dict(pos=pos, dice=(d1, d2), cls=cls, pubeval=vs, n=n, child=kids)
            yield row | dict(e0=e0k, e1=e1k, e2=e2k, hit=hit)

    save_rows(rows(), args.decisions, args.out)


def _filtered(e0):
    """Mask of the plays the services' move filter sends deeper: the best ``FILTER_MAX_PLAYS``
    by 0-ply (ties to the earlier play) within ``FILTER_MARGIN`` of the best."""
    ok = ~np.isnan(e0)
    keep = np.zeros_like(ok)
    keep[np.argsort(-np.where(ok, e0, -np.inf), kind="stable")[:FILTER_MAX_PLAYS]] = True
    return ok & keep & (e0 >= np.nanmax(e0) - FILTER_MARGIN)


def engine_classes(d) -> np.ndarray:
    """The class of each decision's position before the roll as the engine takes it now (a
    set's stored ``cls`` is the class when it was collected)."""
    return np.array([net_class(p) for p in d["pos"]], dtype=np.int64)


def _kinds(d) -> np.ndarray:
    """:func:`engine_classes` with the contact nets' classes as ``CONTACT`` and the crashed
    nets' as ``CRASHED``: contact, crashed and race."""
    cls = engine_classes(d)
    cls = np.where(np.isin(cls, CONTACT_CLASSES), CONTACT, cls)
    return np.where(np.isin(cls, CRASHED_CLASSES), CRASHED, cls)


def choosers(d):
    """name -> index (into the sorted plays) chosen in each decision."""
    e0, e1 = d["e0"], d["e1"]
    out = {"0-ply": np.nanargmax(e0, axis=1)}
    f = np.array([_filtered(r) for r in e0])
    out["1-ply"] = np.nanargmax(np.where(f, e1, -np.inf), axis=1)
    out["1-ply, no filter"] = np.nanargmax(np.where(np.isnan(e1), -np.inf, e1), axis=1)
    for w in BLENDS:
        out[f"blend {w:.2f} 0-ply"] = np.argmax(np.where(f, w * e0 + (1 - w) * e1, -np.inf), axis=1)
    w = np.array([one_ply_weight0(p) for p in d["pos"]])[:, None]
    out[BY_CLASS] = np.argmax(np.where(f, w * e0 + (1 - w) * e1, -np.inf), axis=1)
    out["2-ply (filter)"] = np.argmax(np.where(f, d["e2"], -np.inf), axis=1)
    return out


def revalue(args):
    """The plays of a saved set valued again at 0, 1 and 2-ply by ``--weights``: the same
    decisions and plays (in the same order, so a rollouts file of the set still applies), the
    choices those weights make among them."""
    d = dict(np.load(args.data))
    an = Analyzer(args.weights)
    if args.prune is not None:
        an.prune = args.prune
    t = time.time()
    for i in range(len(d["n"])):
        for j in np.flatnonzero(~np.isnan(d["e0"][i])):
            c = d["child"][i, j]
            d["e0"][i, j], d["e1"][i, j], d["e2"][i, j] = (value(an, c, k) for k in (0, 1, 2))
        if (i + 1) % 100 == 0:
            print(f"{i + 1} decisions, {time.time() - t:.0f} s", flush=True)
    np.savez_compressed(args.out, **d)


def report(args):
    d = dict(np.load(args.data))
    e2 = d["e2"]
    m = len(e2)
    ch = choosers(d)
    judge = np.nanmax(e2, axis=1)
    best2 = np.nanargmax(e2, axis=1)
    f = np.array([_filtered(r) for r in d["e0"]])
    outside = ~f[np.arange(m), best2] & (judge - np.nanmax(np.where(f, e2, -np.inf), axis=1) > 0)
    loss_out = judge - np.nanmax(np.where(f, e2, -np.inf), axis=1)
    print(f"{args.data}: {m} decisions")
    print(
        f"the 2-ply best is outside the move filter in {outside.sum()} ({100 * outside.mean():.1f}%),"
        f" costing {1000 * loss_out.mean():.2f} millipoints a decision"
    )
    cls = _kinds(d)
    print(
        f"{'chooser':22s} {'all':>6s} {'contact':>8s} {'crashed':>8s} {'race':>6s} {'differs':>8s}"
    )
    for name, c in ch.items():
        err = judge - e2[np.arange(m), c]
        parts = [
            1000 * err[cls == k].mean() if (cls == k).any() else np.nan
            for k in (CONTACT, CRASHED, RACE)
        ]
        print(
            f"{name:22s} {1000 * err.mean():6.2f} {parts[0]:8.2f} {parts[1]:8.2f} {parts[2]:6.2f}"
            f" {100 * (c != best2).mean():7.1f}%"
        )
    _bias(d, f)
    if args.rollouts:
        _rollout_report(d, ch, args.rollouts)


def _bias(d, f):
    """Mean 1-ply minus 0-ply and minus 2-ply values of the filtered plays, by kind of play."""
    e0, e1, e2, hit, cls = d["e0"], d["e1"], d["e2"], d["hit"], _kinds(d)
    print("\nmean value differences of the filtered plays (millipoints, mover's view):")
    print(f"{'plays':22s} {'count':>6s} {'1-0':>7s} {'1-2':>7s} {'0-2':>7s}")
    c = np.repeat(cls[:, None], e0.shape[1], axis=1)
    for name, mask in (
        ("all", f),
        ("contact", f & (c == CONTACT)),
        ("crashed", f & (c == CRASHED)),
        ("race", f & (c == RACE)),
        ("hits (contact)", f & hit & (c != RACE)),
        ("no hit (contact)", f & ~hit & (c != RACE)),
    ):
        if not mask.any():
            continue
        print(
            f"{name:22s} {mask.sum():6d} {1000 * (e1 - e0)[mask].mean():7.1f}"
            f" {1000 * (e1 - e2)[mask].mean():7.1f} {1000 * (e0 - e2)[mask].mean():7.1f}"
        )


def _disagreements(sets, first=None):
    """Decisions (of the first ``first``) where some chooser (or the 2-ply judge) of the sets
    ``sets`` (the same decisions and plays, valued by different weights) picks another play
    than the others, with the plays picked."""
    picked = [[*choosers(d).values(), np.nanargmax(d["e2"], axis=1)] for d in sets]
    out = []
    for i in range(len(sets[0]["e2"]) if first is None else first):
        picks = sorted({int(c[i]) for cs in picked for c in cs})
        if len(picks) > 1:
            out.append((i, picks))
    return out


def _agreed(sets, count, alternatives):
    """``count`` decisions spread evenly over those where every chooser and the 2-ply judge
    of the sets ``sets`` pick the same play, each with that play and the next
    ``alternatives`` plays by the first set's 2-ply."""
    d = sets[0]
    out_of = {i for i, _ in _disagreements(sets)}
    agreed = [i for i in range(len(d["e2"])) if i not in out_of]
    take = np.unique(np.linspace(0, len(agreed) - 1, min(count, len(agreed))).astype(int))
    e2 = np.where(np.isnan(d["e2"]), -np.inf, d["e2"])
    out = []
    for i in (agreed[k] for k in take):
        order = [int(j) for j in np.argsort(-e2[i], kind="stable") if np.isfinite(e2[i, j])]
        out.append((i, order[: 1 + alternatives]))
    return out


def rollout(args):
    from bgtui.analysis.models import RolloutSettings

    d = dict(np.load(args.data))
    an = Analyzer(args.weights)
    sets = [d] + [dict(np.load(p)) for p in args.with_ or ()]
    if args.agreed:
        todo = _agreed(sets, args.agreed, args.alternatives)
    else:
        todo = _disagreements(sets, args.decisions)[: args.count]
    settings = RolloutSettings(
        trials=args.trials, seed=args.seed, truncate=args.truncate, workers=args.workers
    )
    res = np.full(d["e2"].shape, np.nan)
    se = np.full(d["e2"].shape, np.nan)
    for path in args.base or ():  # plays rolled before, with the same settings and weights
        b = dict(np.load(path))
        have = ~np.isnan(b["equity"])
        res[have], se[have] = b["equity"][have], b["se"][have]
    t = time.time()
    for k, (i, picks) in enumerate(todo):
        keep = [j for j in picks if not np.isnan(res[i, j])]
        picks = [j for j in picks if np.isnan(res[i, j])]
        if not picks:
            continue
        kids = [d["child"][i, j] for j in picks]
        for j, (v, e) in zip(picks, roll_children(an, d["pos"][i], d["dice"][i], kids, settings)):
            res[i, j], se[i, j] = v, e
        print(
            f"{k + 1}/{len(todo)} decision {i}, {len(picks)} plays rolled "
            f"({len(keep)} known), {time.time() - t:.0f} s",
            flush=True,
        )
        np.savez_compressed(args.out, equity=res, se=se)
    np.savez_compressed(args.out, equity=res, se=se)


def _rolled(eq):
    """Indices of the decisions where the rollouts ``eq`` value more than one play."""
    return np.flatnonzero(np.sum(~np.isnan(eq), axis=1) > 1)


def _losses(eq, ch, idx):
    """Each chooser's loss (name -> array) in the decisions ``idx``: the rollouts ``eq``' best
    of the plays rolled minus the play chosen."""
    judge = np.nanmax(eq[idx], axis=1)
    return {name: judge - eq[idx, c[idx]] for name, c in ch.items()}


def _paired_se(x):
    """The standard error of the sum of the paired differences ``x``."""
    return x.std(ddof=1) * np.sqrt(len(x))


def _rollout_report(d, ch, path):
    r = dict(np.load(path))
    eq = r["equity"]
    idx = _rolled(eq)
    print(
        f"\nby rollouts ({path}), {len(idx)} decisions where the choosers disagree "
        "(the others count 0):"
    )
    best = np.nanargmax(eq[idx], axis=1)
    losses = _losses(eq, ch, idx)
    base = losses["0-ply"]
    boot = np.random.default_rng(0).integers(0, len(idx), (1000, len(idx)))
    for name, c in ch.items():
        err = losses[name]
        ratio = err[boot].sum(axis=1) / base[boot].sum(axis=1)
        print(
            f"  {name:22s} sum {1000 * np.nansum(err):7.1f} millipoints, "
            f"{err.sum() / base.sum():.2f} +- {ratio.std():.2f} of 0-ply's (bootstrap over the "
            f"decisions), {1000 * np.nansum(err) / len(d['e2']):5.2f} a decision of all "
            f"{len(d['e2'])}, differs from the rollouts' best in {np.sum(c[idx] != best)}"
        )
    plain = losses["1-ply"]
    print("  paired against the plain 1-ply (millipoints summed over these decisions, +- SE):")
    for name in ch:
        if name in ("0-ply", "1-ply"):
            continue
        x = losses[name] - plain
        print(f"  {name:22s} {1000 * x.sum():+8.1f} +- {1000 * _paired_se(x):.1f}")
    se = np.nanmean(r["se"][idx])
    print(f"  mean standard error of a play's rollout equity: {1000 * se:.1f} millipoints")


def shared(args):
    """The error every chooser shares, from rollouts of decisions where they all agree
    (``rollout --agreed``), and the ratios over all decisions it implies; with ``--with``, the
    choosers of every file (as ``rollout --with`` counted the agreements), each file's figures."""
    d = dict(np.load(args.data))
    paths = [args.data] + list(args.with_ or ())
    sets = [d] + [dict(np.load(p)) for p in paths[1:]]
    agreed = dict(np.load(args.agreed))["equity"]
    idx = _rolled(agreed)
    loss = _losses(agreed, choosers(d), idx)["0-ply"]
    n_dis = len(_disagreements(sets))
    n_agreed = len(d["e2"]) - n_dis
    mean, se = 1000 * loss.mean(), 1000 * loss.std(ddof=1) / np.sqrt(len(loss))
    print(
        f"{len(idx)} of the {n_agreed} decisions where every chooser agrees, rolled out: the "
        f"common play loses {mean:.2f} +- {se:.2f} millipoints a decision (worse than the best "
        f"rolled alternative in {int(np.sum(loss > 0))})"
    )
    eq = dict(np.load(args.rollouts))["equity"]
    ri = _rolled(eq)
    extra = mean * n_agreed
    for path, ds in zip(paths, sets):
        losses = _losses(eq, choosers(ds), ri)
        base = 1000 * np.sum(losses["0-ply"])
        print(
            f"{path}: over all {len(d['e2'])} decisions ({len(ri)} where the choosers disagree, "
            f"by {args.rollouts}), with the shared error added: 0-ply "
            f"{(base + extra) / len(d['e2']):.2f} millipoints a decision"
        )
        for name in losses:
            if name == "0-ply":
                continue
            err = 1000 * np.sum(losses[name])
            lo, hi = (err + (mean + k * se) * n_agreed for k in (-1, 1))
            b_lo, b_hi = (base + (mean + k * se) * n_agreed for k in (-1, 1))
            print(
                f"  {name:22s} {(err + extra) / len(d['e2']):5.2f} a decision, "
                f"{(err + extra) / (base + extra):.2f} of 0-ply's "
                f"({lo / b_lo:.2f} to {hi / b_hi:.2f} with the shared error one SE lower or higher)"
            )


def _every_pick_rolled(eq, picks, what: str = "") -> np.ndarray:
    """The decisions of the rollouts ``eq`` (``_rolled``) where they value every play that
    the choices ``picks`` (arrays of play indices) pick; warns when others are left out: they
    are where a chooser strays, so figures without them flatter it."""
    idx = _rolled(eq)
    rolled = len(idx)
    for c in picks:
        idx = idx[~np.isnan(eq[idx, c[idx]])]
    if len(idx) < rolled:
        print(
            f"warning: {rolled - len(idx)} of the {rolled} decisions rolled out{what} are left "
            "out for a pick the rollouts lack; they are where a chooser strays, so the figures "
            "flatter it: roll its picks out (rollout --with) first"
        )
    return idx


def compare(args):
    """Paired losses of the same choosers under different weights, over the decisions where
    ``args.rollouts`` values every play that any of them picks."""
    eq = dict(np.load(args.rollouts))["equity"]
    names = ("0-ply", "1-ply", BY_CLASS, "2-ply (filter)")
    picks = [choosers(dict(np.load(p))) for p in args.sets]
    idx = _every_pick_rolled(eq, [ch[n] for ch in picks for n in names])
    loss = [{n: 1000 * x for n, x in _losses(eq, ch, idx).items() if n in names} for ch in picks]
    print(f"{len(idx)} decisions with every pick rolled out; millipoints lost, summed")
    for path, lo in zip(args.sets, loss):
        row = "  ".join(f"{n} {lo[n].sum():7.0f}" for n in names)
        print(
            f"{path:30s} {row}  1-ply / 0-ply {lo['1-ply'].sum() / lo['0-ply'].sum():.2f},"
            f" blend / 0-ply {lo[names[2]].sum() / lo['0-ply'].sum():.2f}"
        )
    for path, lo in zip(args.sets[1:], loss[1:]):
        diff = {n: lo[n] - loss[0][n] for n in names}
        row = "  ".join(f"{n} {x.sum():+6.0f} +- {_paired_se(x):.0f}" for n, x in diff.items())
        print(f"{path} minus {args.sets[0]}: {row}")
    kinds = _kinds(dict(np.load(args.sets[0])))
    print("by kind, millipoints a decision of the kind (the decisions not rolled count 0)")
    for kind, label in ((CONTACT, "contact nets"), (CRASHED, "crashed nets"), (RACE, "race")):
        n = int(np.sum(kinds == kind))
        sel = kinds[idx] == kind
        if not n:
            continue
        for path, lo in zip(args.sets, loss):
            row = "  ".join(f"{name} {lo[name][sel].sum() / n:5.2f}" for name in names)
            print(f"  {label} ({n}, {int(sel.sum())} rolled) {path}: {row}")
        for path, lo in zip(args.sets[1:], loss[1:]):
            x = (lo["0-ply"] - loss[0]["0-ply"])[sel]
            se = _paired_se(x) / n if len(x) > 1 else 0.0
            print(f"  {label}: {path} minus {args.sets[0]}, 0-ply {x.sum() / n:+.2f} +- {se:.2f}")


def by_class(args):
    """Each chooser's losses by the engine's class of the position before the roll
    (:func:`engine_classes`), pooled over the sets ``DATA:ROLLOUTS`` (the decisions where the
    rollouts value every chooser's play), and the paired differences against the engine's
    blend: which weight of the blend suits which class. Then the contact nets' classes
    (``CONTACT_CLASSES``) together and the crashed nets' (``CRASHED_CLASSES``)."""
    pooled = {}
    for spec in args.sets:
        data, rollouts = spec.split(":")
        d = dict(np.load(data))
        eq = dict(np.load(rollouts))["equity"]
        ch = choosers(d)
        idx = _every_pick_rolled(eq, ch.values(), f" in {rollouts}")
        cls = engine_classes(d)[idx]
        for name, loss in _losses(eq, ch, idx).items():
            pooled.setdefault(name, []).append((cls, 1000 * loss))
    groups = [(name, (k,)) for k, name in enumerate(NET_NAMES)]
    groups += [("contact nets", CONTACT_CLASSES), ("crashed nets", CRASHED_CLASSES)]
    for gname, ks in groups:

        def part(name, ks=ks):
            return np.concatenate([loss[np.isin(cls, ks)] for cls, loss in pooled[name]])

        ref = part(BY_CLASS)
        if not len(ref):
            continue
        zero = part("0-ply").sum()
        print(
            f"{gname}: {len(ref)} decisions, millipoints lost summed (share of 0-ply's), "
            f"minus the engine's blend"
        )
        for name in pooled:
            x = part(name)
            diff = x - ref
            print(
                f"  {name:22s} {x.sum():7.0f} ({x.sum() / max(zero, 1e-9):.2f})  "
                f"{diff.sum():+6.0f} +- {_paired_se(diff):.0f}"
            )


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("collect")
    c.add_argument("--decisions", type=int, default=800)
    c.add_argument("--seed", type=int, default=11)
    c.add_argument("--judge-plays", type=int, default=16)
    c.add_argument("--weights", default=None)
    c.add_argument("--out", required=True)
    r = sub.add_parser("report")
    r.add_argument("data")
    r.add_argument("--rollouts", default=None)
    o = sub.add_parser("rollout")
    o.add_argument("data")
    o.add_argument("--count", type=int, default=100)
    o.add_argument("--trials", type=int, default=1296)
    o.add_argument("--truncate", type=int, default=0)
    o.add_argument("--seed", type=int, default=1)
    o.add_argument("--workers", type=int, default=1)
    o.add_argument("--weights", default=None)
    o.add_argument(
        "--with",
        dest="with_",
        action="append",
        help="the same decisions valued by other weights (revalue): their choosers' plays are "
        "rolled too, so that one rollouts file judges both (repeatable)",
    )
    o.add_argument(
        "--decisions",
        type=int,
        default=None,
        help="only the first this many decisions (all of them)",
    )
    o.add_argument(
        "--base",
        action="append",
        help="a rollouts file of the same decisions, --trials, --seed and --weights: its plays "
        "are taken, not rolled again (repeatable)",
    )
    o.add_argument(
        "--agreed",
        type=int,
        default=0,
        help="instead of the disagreements, this many decisions where every chooser agrees "
        "(spread over the set): the common play and --alternatives more by 2-ply",
    )
    o.add_argument("--alternatives", type=int, default=2)
    o.add_argument("--out", required=True)
    s_ = sub.add_parser("shared")
    s_.add_argument("data")
    s_.add_argument("--rollouts", required=True, help="the disagreements' rollouts")
    s_.add_argument("--agreed", required=True, help="rollout --agreed's file")
    s_.add_argument(
        "--with",
        dest="with_",
        action="append",
        help="revalue files whose choosers the agreements counted (rollout --with)",
    )
    v = sub.add_parser("revalue")
    v.add_argument("data")
    v.add_argument("--weights", required=True)
    v.add_argument("--prune", type=int, default=None, help="the lookahead's pruning (k plays)")
    v.add_argument("--out", required=True)
    k = sub.add_parser("classes")
    k.add_argument("sets", nargs="+", metavar="DATA:ROLLOUTS")
    m = sub.add_parser("compare")
    m.add_argument("rollouts")
    m.add_argument(
        "sets", nargs="+", help="revalue files of the same decisions; the first is the base"
    )
    args = ap.parse_args()
    run = {
        "collect": collect,
        "report": report,
        "rollout": rollout,
        "revalue": revalue,
        "compare": compare,
        "classes": by_class,
        "shared": shared,
    }
    run[args.cmd](args)


if __name__ == "__main__":
    main()
