"""Two nets, each for one part of the contact (or crashed) positions: does a split buy capacity?

    python research/experts.py median --anchor DIRS
    python research/experts.py fit WEIGHTS OUT.npz --anchor DIRS --split T[,T2...]|off|lead|mutual|anchor|bar|prime|homeblot[+...] \\
        --part K|all [--net contact|crashed] [--below PIPS] [--from PIPS] [--start NET] \\
        [--epochs 4] [--alpha 1e-4] [--alpha-end 2e-5] [--batch 256] [--rank-weight 16] [--cross] [--output-only]
    python research/experts.py errors --data DIRS --split T[,T2...]|off|lead|mutual|anchor|bar|prime|homeblot[+...] \\
        [--net contact|crashed] [--below PIPS] [--from PIPS] WEIGHTS PART0.npz PART1.npz [...] \\
        [--control CONTROL.npz | --controls C0.npz,C1.npz,... --control-split S]
    python research/experts.py assemble WEIGHTS PART0.npz PART1.npz OUT.npz \\
        [--net contact|crashed|lead]

A wider contact net values the held-out plays better than the shipped width, but every
evaluation pays for the width. Two nets of the shipped width, each valuing one part of the
contact positions, have twice the weights at the cost of one net per evaluation. The split
here is the pip count of both sides together, cut at the thresholds ``T`` (ascending; part 0
below the first, part K from the K-th up): a quantity that falls slowly through a game, so
that the plays of one roll nearly always fall in the same part. ``--split off`` splits by who
has borne off: part 0 the positions where the side on roll has (whatever the other side has
done), part 1 those where only the other side has; every play of a roll falls in one part (a
play cannot change the borne-off checkers of the side on roll after it): on the crashed nets'
positions, part 0 is the engine's class ``CRASHED`` and part 1 its class ``HOLDING``.
``--split lead`` splits by the race: part 0 where the side on roll is not behind (his pips at
most the other side's), part 1 where he is: below ``EARLY_PIPS`` pips, part 0 is the engine's
class ``CONTACT`` and part 1 its class ``TRAILING`` (each with its mutual, anchor and bar
classes); from ``EARLY_PIPS`` up, part 0 is its
classes ``EARLY`` and ``EARLY_BAR`` and part 1 its classes ``EARLY_TRAILING`` and
``EARLY_TRAILING_BAR``. ``--split mutual``: part 1 where both
sides have a checker back (on the bar or in the other side's home board), part 0 where at most
one side has. ``--split anchor``: part 1 where a side has an anchor (two checkers or more on a
point of the other side's home board: the engine's ``has_anchor``), else 0. ``--split bar``:
part 1 where a checker of either side is on the bar (the engine's ``on_bar``); ``--split
prime``: where a side has five points in a row (two checkers or more on each); ``--split
homeblot``: where a side has a blot in his home board and the other side a checker back (on
the bar or in that home board). Splits joined by ``+`` combine, the first the most significant:
``lead+mutual`` has part 0 ahead (or even) with at most one side back, 1 ahead with both back, 2
behind with at most one side back, 3 behind with both back: below ``EARLY_PIPS``, the engine's
classes ``CONTACT``, ``MUTUAL``, ``TRAILING`` and ``MUTUAL_TRAILING``, each with its anchor
and bar classes.
``lead+mutual+anchor`` has eight parts, below ``EARLY_PIPS`` the engine's eight classes there
without the bar split (each with its bar class): parts 0..7 ``CONTACT``, ``ANCHOR``,
``MUTUAL``, ``MUTUAL_ANCHOR``, ``TRAILING``, ``TRAILING_ANCHOR``, ``MUTUAL_TRAILING`` and
``MUTUAL_TRAILING_ANCHOR``. ``lead+mutual+anchor+bar`` has sixteen, below ``EARLY_PIPS`` the
engine's sixteen classes there: parts 0..15 ``CONTACT``, ``CONTACT_BAR``, ``ANCHOR``,
``ANCHOR_BAR``, ``MUTUAL``, ``MUTUAL_BAR``, ``MUTUAL_ANCHOR``, ``MUTUAL_ANCHOR_BAR``,
``TRAILING``, ``TRAILING_BAR``, ``TRAILING_ANCHOR``, ``TRAILING_ANCHOR_BAR``,
``MUTUAL_TRAILING``, ``MUTUAL_TRAILING_BAR``, ``MUTUAL_TRAILING_ANCHOR`` and
``MUTUAL_TRAILING_ANCHOR_BAR`` (tests/engine/test_nn_fast.py checks it). ``lead+bar`` has
four parts, from ``EARLY_PIPS`` up the engine's four classes there: parts 0..3 ``EARLY``,
``EARLY_BAR``, ``EARLY_TRAILING`` and ``EARLY_TRAILING_BAR``. ``--net crashed``
fits and judges the crashed net on the crashed positions (both crashed classes,
``CRASHED_CLASSES``) instead; ``--below PIPS`` keeps only the positions of fewer pips of both
sides together (with ``--below 259`` the contact, trailing, mutual, anchor and bar nets
there, not the early, early trailing and early bar nets'), ``--from PIPS`` those of at least
that many (with ``--from 259`` the early, early trailing and early bar nets'); ``fit --start
NET`` fits a copy of that net of WEIGHTS (by default the ``--net`` one; ``--start
early_trailing``, ``--start early_bar`` or ``--start contact_bar``, say: a net the weights
tie to another is that net).

``median``: the median of the split quantity over the contact rows of the anchor sets.

``fit``: fine-tunes the contact (``--net``) net of WEIGHTS (the other nets kept) by minibatch
Adam on the anchor's contact (``--net``) rows of one part (``all``: every such row, the
control), the loss of ``bgtui train fit --optimizer adam`` (cross-entropy and the sibling rank
term; with ``--cross``, a roll's plays outside the part join the sibling term too, at the
0-ply values of WEIGHTS, fixed). Weights whose early, trailing, mutual or anchor net is their contact net (or whose
holding net is their crashed net, whose mutual trailing net their trailing net or, through it,
their contact net, whose other anchor nets the nets of the classes they split or the nets those
are in turn, whose early trailing net their early net or, through it, their contact net,
whose early bar nets or bar nets below ``EARLY_PIPS`` the nets of the classes they split or
the nets those are in turn) keep them one net: it learns from the rows of the classes it
values and values them.

``assemble``: WEIGHTS with the contact net of PART0 as its contact net and that of PART1 as its
early net (the engine's split, ``EARLY_PIPS``: the parts of ``--split 259``); with ``--net
crashed``, the crashed net of PART0 as its crashed net and that of PART1 as its holding net
(the engine's split by who has borne off: the parts of ``--split off``); with ``--net lead``,
the contact net of PART0 as its contact net and the contact net of PART1 as its trailing net
(the engine's split by the race below ``EARLY_PIPS``: the parts of ``--split lead --below
259``). A net of WEIGHTS that is another (an early, trailing, mutual or anchor net that is the
contact net, a mutual trailing or trailing anchor net that is the trailing net, a mutual anchor
net that is the mutual net, an early trailing or early bar net that is the early net, an
early trailing bar net that is the early trailing net, a bar net below ``EARLY_PIPS`` that
is the net of the class it splits) and is not replaced stays the net it is tied to, that
net's replacement when it is replaced (a mutual trailing net tied to a trailing net PART1's
contact net replaces with ``--net lead`` is PART1's net, and so are a trailing anchor net and
a trailing bar net tied to it; an early trailing net tied to the early net is PART1's net
with ``--net contact``, and so are the early bar nets tied to those). ``assemble`` has no
split for the mutual, the anchor, the early trailing, the early bar or the bar nets below
``EARLY_PIPS``: ``research/combine_nets.py`` puts experts in as those.

Contact rows here are those of the engine's contact nets of the stages of the game
(``CONTACT_CLASSES``: ``CONTACT``, ``EARLY``, ``TRAILING``, ``MUTUAL``, ``MUTUAL_TRAILING``,
the anchor classes ``ANCHOR``, ``MUTUAL_ANCHOR``, ``TRAILING_ANCHOR`` and
``MUTUAL_TRAILING_ANCHOR``, ``EARLY_TRAILING``, the early bar classes ``EARLY_BAR`` and
``EARLY_TRAILING_BAR`` and the bar classes below ``EARLY_PIPS``, ``CONTACT_BAR`` to
``MUTUAL_TRAILING_ANCHOR_BAR``): these scripts split them themselves.

``errors``: group-centred equity errors (as ``evaluation/sibling_errors.py`` has them, root
mean square in millipoints) of the 0-ply values of the held-out plays whose sibling groups are
all contact (``--net``), by part: WEIGHTS, the experts PART0, PART1, ... (each play by the
net of its own part, centred over its whole group), and CONTROL; ``--controls`` with
``--control-split S`` takes the control's values of each part of the coarser split ``S`` from
its own weights (the experts of a finer split against those of ``S`` fitted as long).
Besides each part: ``mixed``, the groups whose plays span parts, and ``one_part`` the rest; the
experts' figure less WEIGHTS' and CONTROL's with standard errors over whole groups for all
three.
"""

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "evaluation"))

from sibling_errors import group_classes  # noqa: E402

from bgtui.analysis.weights import (
    TIES,
    as_nets,
    load_weights,
    save_weights,
    tied_nets,
    with_databases,
)
from bgtui.engine import (
    CONTACT,
    CONTACT_CLASSES,
    CRASHED,
    CRASHED_CLASSES,
    EARLY,
    HOLDING,
    NET_NAMES,
    TRAILING,
    hidden_size,
    make_eval_workspace,
)
from bgtui.training import adam
from bgtui.training.kernels import evaluate_all, net_classes
from bgtui.training.train import fit_alpha, load_dataset

SLOTS = np.arange(26)


#: the net fitted and the classes of its rows
NETS = {"contact": (CONTACT, CONTACT_CLASSES), "crashed": (CRASHED, CRASHED_CLASSES)}
#: ``assemble``: the net of the experts (in their weights) and of part 0 in the weights
#: assembled, and the net of part 1 there
SPLITS = {"contact": (CONTACT, EARLY), "crashed": (CRASHED, HOLDING), "lead": (CONTACT, TRAILING)}


def in_contact(positions, net="contact"):
    """bool[N]: the positions that the nets of ``net`` (the contact nets of the stages of the
    game, or either crashed net) value."""
    return np.isin(net_classes(positions), NETS[net][1])


def side_pips(positions):
    """(int64[N], int64[N]): the side on roll's pip counts and the other side's (a checker on
    the bar counts 25)."""
    p = positions.astype(np.int64)
    return (np.maximum(p, 0) * SLOTS).sum(1), (np.maximum(-p, 0) * (25 - SLOTS)).sum(1)


def total_pips(positions):
    """int64[N]: both sides' pip counts added."""
    mine, theirs = side_pips(positions)
    return mine + theirs


def in_pips(positions, args):
    """bool[N]: the positions of at least ``args.from_`` pips of both sides together and,
    with ``args.below``, fewer than ``args.below``."""
    pips = total_pips(positions)
    return (pips >= args.from_) & ((pips < args.below) if args.below else True)


def _five_in_a_row(made):
    """bool[N]: whether ``made`` (bool[N, 24], a side's made points) has five in a row."""
    return (made[:, 0:20] & made[:, 1:21] & made[:, 2:22] & made[:, 3:23] & made[:, 4:24]).any(1)


def _bar(p):
    return (p[:, 25] > 0) | (p[:, 0] < 0)


def _prime(p):
    q = p[:, 1:25]
    return _five_in_a_row(q >= 2) | _five_in_a_row(q <= -2)


def _homeblot(p):
    mine = (p[:, 1:7] == 1).any(1) & (p[:, 0:7] < 0).any(1)
    theirs = (p[:, 19:25] == -1).any(1) & (p[:, 19:26] > 0).any(1)
    return mine | theirs


def _anchor(p):
    return (p[:, 19:25] >= 2).any(1) | (p[:, 1:7] <= -2).any(1)


def _mutual(p):
    return (np.maximum(p[:, 19:26], 0).sum(1) > 0) & (np.maximum(-p[:, 0:7], 0).sum(1) > 0)


def _not_off(p):
    return np.maximum(p, 0).sum(1) >= 15


def _behind(p):
    mine, theirs = side_pips(p)
    return mine > theirs


#: the two-part splits: name -> bool[N] of int64[N, 26] positions, part 1 where true
TWO_PART_SPLITS = {
    "off": _not_off,
    "lead": _behind,
    "mutual": _mutual,
    "anchor": _anchor,
    "bar": _bar,
    "prime": _prime,
    "homeblot": _homeblot,
}


def parts(positions, split):
    """int64[N]: the part of each position (0 below the first threshold of ``split``; with
    ``off``, 0 where the side on roll has borne off a checker, else 1; with ``lead``, 0 where
    the side on roll is not behind in the race (his pips at most the other side's), else 1;
    with ``mutual``, 1 where both sides have a checker back, else 0; with ``anchor``, 1 where
    a side has an anchor (the engine's ``has_anchor``), else 0; with ``bar``, ``prime`` and
    ``homeblot`` 1 where a checker is on a bar, a side has five points in a row, a side has a
    blot in his home board and the other side a checker back; splits joined by ``+``
    numbered with the first the most significant)."""
    if "+" in split:
        out = np.zeros(len(positions), dtype=np.int64)
        for one in split.split("+"):
            p = parts(positions, one)
            out = out * (2 if one in TWO_PART_SPLITS else one.count(",") + 2) + p
        return out
    if split in TWO_PART_SPLITS:
        return TWO_PART_SPLITS[split](positions.astype(np.int64)).astype(np.int64)
    cuts = np.array([float(t) for t in str(split).split(",")])
    return np.searchsorted(cuts, total_pips(positions), side="right")


def cmd_median(args):
    pos, _ = load_dataset(args.anchor)
    rows = in_contact(pos)
    t = total_pips(pos[rows])
    q = {f"q{k}": float(np.quantile(t, k / 4)) for k in (1, 2, 3)}
    print(json.dumps({"contact_rows": int(rows.sum()), **q}))


def cmd_fit(args):
    ev, meta = load_weights(args.weights)
    nets = [tuple(np.array(a, dtype=np.float32) for a in net) for net in as_nets(ev)]
    for k, to in tied_nets([ev]):
        nets[k] = nets[to]  # one net, saved as one
    pos, tg, grp = load_dataset(args.anchor, with_groups=True)
    keep = in_contact(pos, args.net)
    keep &= in_pips(pos, args)
    if args.part != "all":
        keep &= parts(pos, args.split) == int(args.part)
    rows = np.flatnonzero(keep)
    x, t, g = adam.dense_inputs(pos, rows), tg[rows], grp[rows]
    fixed = cross_siblings(args.weights, pos, tg, grp, keep) if args.cross else None
    del pos, tg, grp
    print(
        json.dumps({"part": args.part, "rows": len(rows), "cross": len(fixed[2]) if fixed else 0}),
        flush=True,
    )
    net = nets[NET_NAMES.index(args.start) if args.start else NETS[args.net][0]]
    moments = adam.new_moments(net)
    rng = np.random.default_rng(args.seed)
    for ep in range(args.epochs):
        t0 = time.time()
        a = fit_alpha(ep, args.epochs, args.alpha, args.alpha_end)
        order = adam.group_order(g, rng)
        se = adam.adam_pass(
            net,
            moments,
            x,
            t,
            order,
            args.batch,
            a,
            g,
            args.rank_weight,
            fixed=fixed,
            first_layer=not args.output_only,
        )
        meta_out = dict(meta)
        meta_out["experts_fit"] = {
            "weights": str(args.weights),
            "anchor": args.anchor,
            "split": args.split,
            "part": args.part,
            "net": args.net,
            "epochs_done": ep + 1,
            "epochs": args.epochs,
            "alpha": args.alpha,
            "alpha_end": args.alpha_end,
            "batch": args.batch,
            "rank_weight": args.rank_weight,
            "seed": args.seed,
            "cross": args.cross,
            "output_only": args.output_only,
        }
        save_weights(args.out, tuple(nets), meta_out)
        print(
            json.dumps(
                {
                    "epoch": ep + 1,
                    "alpha": a,
                    "mse": se / len(order) / 5,
                    "seconds": round(time.time() - t0, 1),
                }
            ),
            flush=True,
        )


def cross_siblings(path, pos, targets, groups, mine):
    """The siblings of the rows ``mine`` that other nets value, as ``adam.gradients`` takes them
    (``fixed``): the rows not in ``mine`` whose group (>= 0) has a row in it, sorted by group,
    as (their 0-ply values by the weights at ``path``, targets, groups)."""
    other = np.flatnonzero(~mine & (groups >= 0) & np.isin(groups, groups[mine & (groups >= 0)]))
    other = other[np.argsort(groups[other], kind="stable")]
    return values(path, pos[other]), targets[other], groups[other]


def values(path, positions):
    """float64[N, 5]: the 0-ply probabilities of ``positions`` (player on roll) by the weights
    at ``path``, the engine's evaluation."""
    ev = with_databases(load_weights(path)[0])
    out = np.zeros((len(positions), 5), dtype=np.float64)
    evaluate_all(positions, ev, make_eval_workspace(hidden_size(ev)), out)
    return out


def values_by_part(paths, part, positions):
    """float64[N, 5]: the 0-ply probabilities of ``positions``, each by the weights of
    ``paths`` its ``part`` names."""
    out = np.zeros((len(positions), 5))
    for k, path in enumerate(paths):
        m = part == k
        out[m] = values(path, positions[m])
    return out


def cmd_errors(args):
    pos, tg, grp = load_dataset(args.data, with_groups=True)
    contact = in_contact(pos, args.net)
    contact &= in_pips(pos, args)
    # groups whose every play is valued by the net, with two plays or more
    _, inv = np.unique(grp, return_inverse=True)
    whole = np.bincount(inv, weights=~contact) == 0
    rows = np.flatnonzero(whole[inv] & (grp >= 0))
    pos, tg, grp = pos[rows], tg[rows], grp[rows]
    label = tg.astype(np.float64)
    part = parts(pos, args.split)
    if part.max() >= len(args.experts):
        raise SystemExit(f"{part.max() + 1} parts and {len(args.experts)} expert weights")
    eq = {
        "weights": values(args.weights, pos),
        "control": values(args.control, pos) if args.control else None,
    }
    if args.controls:
        if not args.control_split:
            raise SystemExit("--controls needs --control-split")
        cpart = parts(pos, args.control_split)
        files = args.controls.split(",")
        if cpart.max() >= len(files):
            raise SystemExit(f"{cpart.max() + 1} control parts and {len(files)} control weights")
        eq["control"] = values_by_part(files, cpart, pos)
    eq["experts"] = values_by_part(args.experts, part, pos)
    report = {"plays": len(rows), "parts": np.bincount(part).tolist()}
    _, ginv = np.unique(grp, return_inverse=True)
    spans = group_classes(part, grp) < 0  # groups whose plays span parts
    masks = [("all", np.ones(len(pos), dtype=bool))]
    masks += [("mixed", spans[ginv]), ("one_part", ~spans[ginv])]
    masks += [(str(k), part == k) for k in range(len(args.experts))]
    live = np.bincount(ginv)[ginv] >= 2  # plays with a sibling
    sq = {}
    for name, v in eq.items():
        if v is None:
            continue
        c = adam.sibling_residuals(v, label, grp)
        report[name] = {
            k: round(1000 * float(np.sqrt(np.mean(c[live & m] ** 2))), 3) for k, m in masks
        }
        sq[name] = np.bincount(ginv, weights=np.where(live, c * c, 0.0))
    # the experts' error less the other's, with a standard error from resampling whole groups:
    # over all groups, those whose plays span parts, and those within one part
    rows_per_group = np.bincount(ginv, weights=live.astype(float))
    rng = np.random.default_rng(0)
    for other in ("weights", "control"):
        if other not in sq:
            continue
        out = {}
        for key, sel in (("all", np.ones_like(spans)), ("mixed", spans), ("one_part", ~spans)):
            pool = np.flatnonzero(sel)
            if len(pool) == 0:
                continue
            d = [
                np.sqrt(sq["experts"][i].sum() / rows_per_group[i].sum())
                - np.sqrt(sq[other][i].sum() / rows_per_group[i].sum())
                for i in (rng.choice(pool, len(pool)) for _ in range(400))
            ]
            out[key] = round(report["experts"][key] - report[other][key], 3)
            out["se" if key == "all" else f"se_{key}"] = round(1000 * float(np.std(d)), 3)
        report[f"experts_minus_{other}"] = out
    print(json.dumps(report, indent=1))


def cmd_assemble(args):
    ev, meta = load_weights(args.weights)
    nets = list(as_nets(ev))
    first, second = SPLITS[args.net]
    parts = [as_nets(load_weights(p)[0])[first] for p in (args.part0, args.part1)]
    nets[first], nets[second] = parts
    tied = {k for k, _ in tied_nets([ev])}
    for k, to in TIES:  # in order: a net tied to one tied in turn follows that net's end
        if k in tied and k not in (first, second):
            nets[k] = nets[to]  # still the net it is tied to, or that net's replacement
    names = (NET_NAMES[first], NET_NAMES[second])
    flag = f"{names[1]}_is_{names[0]}"  # the second net is a net of its own now
    meta = {k: v for k, v in meta.items() if k not in ("path", flag, "sha256")}
    meta["experts"] = {
        names[0]: str(args.part0),
        names[1]: str(args.part1),
        "from": args.weights,
    }
    save_weights(args.out, tuple(nets), meta, side=ev.side)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("median")
    p.add_argument("--anchor", required=True)
    p.set_defaults(func=cmd_median)
    p = sub.add_parser("fit")
    p.add_argument("weights")
    p.add_argument("out")
    p.add_argument("--anchor", required=True)
    p.add_argument("--split", required=True)
    p.add_argument("--part", required=True)
    p.add_argument("--net", choices=sorted(NETS), default="contact")
    p.add_argument("--below", type=int, default=0, help="only positions of fewer pips")
    p.add_argument(
        "--from", dest="from_", type=int, default=0, help="only positions of so many pips or more"
    )
    p.add_argument("--epochs", type=int, default=4)
    p.add_argument("--alpha", type=float, default=1e-4)
    p.add_argument("--alpha-end", type=float, default=2e-5)
    p.add_argument("--batch", type=int, default=256)
    p.add_argument("--rank-weight", type=float, default=16.0)
    p.add_argument(
        "--cross",
        action="store_true",
        help="the sibling term spans whole rolls: plays outside the part join it at WEIGHTS' values",
    )
    p.add_argument(
        "--output-only",
        action="store_true",
        help="fit the output layer only: the first layer stays the starting net's",
    )
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--start", choices=NET_NAMES, help="the net fitted starts as this one")
    p.set_defaults(func=cmd_fit)
    p = sub.add_parser("errors")
    p.add_argument("--data", required=True)
    p.add_argument("--split", required=True)
    p.add_argument("--control")
    p.add_argument("--controls", help="control weights by part of --control-split, comma-separated")
    p.add_argument("--control-split", help="the split of --controls")
    p.add_argument("--net", choices=sorted(NETS), default="contact")
    p.add_argument("--below", type=int, default=0, help="only positions of fewer pips")
    p.add_argument(
        "--from", dest="from_", type=int, default=0, help="only positions of so many pips or more"
    )
    p.add_argument("weights")
    p.add_argument("experts", nargs="+")
    p.set_defaults(func=cmd_errors)
    p = sub.add_parser("assemble")
    p.add_argument("weights")
    p.add_argument("part0")
    p.add_argument("part1")
    p.add_argument("out")
    p.add_argument("--net", choices=sorted(SPLITS), default="contact")
    p.set_defaults(func=cmd_assemble)
    args = ap.parse_args()
    args.func(args)


if __name__ == "__main__":
    main()
