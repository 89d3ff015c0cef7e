"""Fit the nets through the 1-ply lookahead: a loss on the 1-ply value of positions with
rollout labels, not only on the 0-ply value of each position.

    python research/one_ply_fit.py leaves WEIGHTS OUT.npz SRC[:first[:last]] [--workers 2]
    python research/one_ply_fit.py fit WEIGHTS LEAVES.npz OUT.npz --anchor DIRS \\
        [--lam 1.0] [--epochs 4] [--alpha 5e-5] [--alpha-end 1e-5] [--rank-weight 16] [--cross] \\
        [--nets contact,crashed,early,holding,trailing,mutual,mutual_trailing,anchor,...,
        early_trailing,early_bar,early_trailing_bar,contact_bar,...,mutual_trailing_anchor_bar]

The 1-ply value of a play's position (the opponent on roll) averages, over his 21 rolls, the
0-ply value of the position after his 0-ply best reply (the mover on roll again: the leaf). A
net whose errors are shared by a position's leaves keeps them at 1-ply, however many rolls it
averages; a loss on that average against the position's rollout label corrects the shared
part directly.

``leaves``: for each position of the shards (the plays of rolls, opponent on roll, as
``bgtui train dataset --children-best`` writes them), its 21 leaves (mover on roll), their
0-ply values by WEIGHTS (the mover's view), their classes (``nn.net_class``; -1: the reply
ends the game; ``DATABASE``, 23: a bear-off database values the leaf) and the rolls' weights;
with the positions' labels turned to the mover's view and their sibling groups. Leaves made
with another code for the database (15, 13, 12, 8 or 6, before the classes it follows; 15 is
``CONTACT_BAR``, 13 ``EARLY_BAR``, 12 ``EARLY_TRAILING``) are refused by ``fit``: they are to
be made again.

``fit``: minibatch Adam from WEIGHTS on two losses. Each step takes a batch of the ``--anchor``
rows per trained net (the fit's own loss: cross-entropy and the sibling rank term, as
``bgtui train fit --optimizer adam`` has it; with ``--cross`` the rank term also takes in the
anchor rows of the same rolls that other nets value, fixed at WEIGHTS' 0-ply values) and a batch of whole sibling groups of the
leaves' positions, whose 1-ply value (the leaves' mean, contact and crashed leaves by the
nets being fitted (every net but the race net; weights whose contact net values the early,
the trailing, the mutual or the anchor positions too keep it so, and so do weights whose
crashed net values the holding ones, those whose trailing net values the mutual trailing or
the trailing anchor ones, those whose mutual or mutual trailing net values the positions
of its anchor class, those whose early net values the early trailing or the early bar ones,
those whose early trailing net values the early trailing bar ones and those whose net of a
class below ``EARLY_PIPS`` values its bar class's, the net a chain of such ties ends at
valuing them),
the others at their saved values) is compared with the label by
cross-entropy and the same rank term, times ``--lam``. ``--nets`` fits only the nets it names
(the others, and the leaves they value, stay as they are; a net that is another net of the
weights, as a missing early, holding, trailing, mutual, mutual trailing, anchor, early
trailing, early bar or bar net is, values and learns as the net it is; named itself, it is
fitted as a net of its own, starting as a copy of the net it is tied to). The replies stay
those WEIGHTS chose. ``--lam 0`` is the control: the same anchor steps alone.

The engine's 0-ply, 1-ply and blend values of held-out positions against their labels:
``evaluation/sibling_errors.py --data data/cs2:0:1,data/cs2:260:286 --plies 0,1 W.npz``.
"""

import argparse
import json
import time
from concurrent.futures import ThreadPoolExecutor

import numba
import numpy as np

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
    EQUITY_COEF,
    MAX_PLAYS,
    NET_NAMES,
    NO_DATABASE,
    RACE,
    ROLL_WEIGHTS,
    ROLLS,
    best_play0,
    database_kind,
    flip_into,
    game_result,
    hidden_size,
    make_eval_workspace,
    make_move_workspace,
    net_class,
    net_copy,
    swap_sides_into,
)
from bgtui.training import adam
from bgtui.training.kernels import net_classes
from bgtui.training.train import fit_alpha, load_dataset

#: the class code of a leaf a bear-off database values (after the classes of ``NET_NAMES``)
DATABASE = len(NET_NAMES)
#: the classes whose nets the fit trains: every class but the race
FITTED = tuple(k for k in range(len(NET_NAMES)) if k != RACE)
FITTED_NAMES = ",".join(NET_NAMES[k] for k in FITTED)


@numba.njit(nogil=True, cache=True)
def _leaves(roots, labels, ev, mws, ews, out_pos, out_moves, leaves, vals, cls, targets):
    b5 = np.empty(5, dtype=np.float32)
    for i in range(len(roots)):
        flip_into(labels[i], targets[i])  # the labels are the opponent's (on roll) view
        for r in range(21):
            d1, d2 = ROLLS[r, 0], ROLLS[r, 1]
            b, _n = best_play0(roots[i], d1, d2, ev, mws, ews, out_pos, out_moves, b5)
            swap_sides_into(out_pos[b], leaves[i, r])
            # b5: the replier's view after his play; the leaf's mover is the other side
            flip_into(b5, vals[i, r])
            if game_result(out_pos[b]) > 0:
                cls[i, r] = -1
            elif database_kind(leaves[i, r], ev.two_sided, ev.one_sided) != NO_DATABASE:
                cls[i, r] = DATABASE
            else:
                cls[i, r] = net_class(leaves[i, r])


def make_leaves(ev, roots, labels, workers):
    n = len(roots)
    leaves = np.zeros((n, 21, 26), dtype=np.int8)
    vals = np.zeros((n, 21, 5), dtype=np.float32)
    cls = np.zeros((n, 21), dtype=np.int8)
    targets = np.zeros((n, 5), dtype=np.float32)
    bounds = np.linspace(0, n, workers + 1).astype(int)
    hidden = hidden_size(ev)

    def part(a, b):
        out_pos = np.zeros((MAX_PLAYS, 26), dtype=np.int8)
        out_moves = np.zeros((MAX_PLAYS, 8), dtype=np.int8)
        _leaves(
            roots[a:b],
            labels[a:b],
            ev,
            make_move_workspace(),
            make_eval_workspace(hidden),
            out_pos,
            out_moves,
            leaves[a:b],
            vals[a:b],
            cls[a:b],
            targets[a:b],
        )

    with ThreadPoolExecutor(workers) as pool:
        list(pool.map(lambda ab: part(*ab), zip(bounds[:-1], bounds[1:])))
    return leaves, vals, cls, targets


def cmd_leaves(args):
    ev = with_databases(load_weights(args.weights)[0], bearoff=True)
    roots, tg, groups = load_dataset(",".join(args.sources), with_groups=True)
    t = time.time()
    leaves, vals, cls, targets = make_leaves(ev, roots, tg, args.workers)
    # the nets' own values of the trainable leaves, as a check of the saved ones
    nets = as_nets(ev)
    for k in FITTED:
        rows = np.flatnonzero(cls.reshape(-1) == k)
        rows = np.sort(np.random.default_rng(0).permutation(rows)[:20000])
        x = adam.dense_inputs(leaves.reshape(-1, 26), rows)
        _, y = adam.forward(nets[k], x)
        y = sanitize(y, leaves.reshape(-1, 26)[rows])[0]
        err = float(np.abs(y - vals.reshape(-1, 5)[rows]).max()) if len(rows) else 0.0
        print(f"{NET_NAMES[k]} leaves: largest |net - saved| {err:.2e} over {len(rows)}")
    np.savez_compressed(
        args.out,
        roots=roots,
        targets=targets,
        groups=groups,
        leaves=leaves,
        vals=vals,
        cls=cls,
        weights=ROLL_WEIGHTS.astype(np.float32) / 36.0,
        database=np.int8(DATABASE),
    )
    counts = np.bincount(cls.reshape(-1) + 1, minlength=DATABASE + 2)
    kinds = ("game over", *NET_NAMES, "database")
    print(
        f"{len(roots)} positions, {time.time() - t:.1f} s; leaves: "
        + ", ".join(f"{name} {n}" for name, n in zip(kinds, counts))
    )


def sanitize(y, positions):
    """The engine's ``evaluate._sanitize`` of net outputs ``y`` of contact ``positions``
    (cumulative order; a side that has borne off a checker cannot lose a gammon), and a mask
    (float32[N, 5]) of the outputs it left as they were: the others pass no gradient."""
    v = y.copy()
    v[:, 1] = np.minimum(v[:, 1], v[:, 0])
    v[:, 2] = np.minimum(v[:, 2], v[:, 1])
    v[:, 3] = np.minimum(v[:, 3], 1.0 - v[:, 0])
    v[:, 4] = np.minimum(v[:, 4], v[:, 3])
    mine = np.maximum(positions, 0).sum(1)
    theirs = np.maximum(-positions, 0).sum(1)
    v[theirs < 15, 1:3] = 0.0
    v[mine < 15, 3:] = 0.0
    return v, (v == y).astype(np.float32)


def one_ply_gradients(nets, owner, batch, d, rank_weight):
    """Gradients (per net, w1 b1 w2 b2; None where not trained) of the mean 1-ply loss of the
    positions ``batch`` (indices into the leaves set ``d``) and its summed squared error;
    ``owner``: the net that values each fitted class."""
    leaves, vals, cls, w, tg, groups = d
    n = len(batch)
    lv = leaves[batch].reshape(-1, 26)
    v = vals[batch].reshape(-1, 5).copy()
    c = cls[batch].reshape(-1)
    wr = np.tile(w, n)
    parts = {}
    for k in sorted(set(owner.values())):
        rows = np.flatnonzero(np.isin(c, [q for q, o in owner.items() if o == k]))
        if len(rows) == 0:
            continue
        x = adam.dense_inputs(lv, rows)
        h, y = adam.forward(nets[k], x)
        v[rows], live = sanitize(y, lv[rows])
        parts[k] = (rows, x, h, y, live)
    m = (v * wr[:, None]).reshape(n, 21, 5).sum(1)
    t = tg[batch]
    mc = np.clip(m, 1e-4, 1.0 - 1e-4)
    dm = (m - t) / (mc * (1.0 - mc))
    if rank_weight > 0.0:
        rc = adam.sibling_residuals(m, t, groups[batch])
        dm = dm + (2.0 * rank_weight) * rc[:, None] * EQUITY_COEF[None, :]
    dm = dm / n
    grads = [None] * len(nets)
    for k, (rows, x, h, y, live) in parts.items():
        root = rows // 21
        dz = (dm[root] * wr[rows, None] * y * (1.0 - y) * live).astype(np.float32)
        w1, b1, w2, b2 = nets[k][:4]
        dh = (dz @ w2) * adam.hidden_slope(h, nets[k].act)
        grads[k] = (x.T @ dh, dh.sum(0), dz.T @ h, dz.sum(0))
    return grads, float(((m - t) ** 2).sum())


def cmd_fit(args):
    ev, meta = load_weights(args.weights)
    nets = [net_copy(net) for net in as_nets(ev)]
    # the net each fitted class trains: the contact net the early, the trailing, the mutual
    # and the anchor positions too if it values them, the crashed net the holding ones, the
    # trailing net the mutual trailing and the trailing anchor ones, the mutual and mutual
    # trailing nets their anchor classes', the early net the early trailing and early bar
    # ones, the early trailing net the early trailing bar ones, the net of each class below
    # EARLY_PIPS its bar class's (the net a chain of ties ends at; saved as one net); a tied
    # net that --nets names is fitted on its own, from a copy of the net it is tied to (nets
    # holds a copy of each net), and the nets tied to it in turn stay tied to it
    which = {NET_NAMES.index(n) for n in args.nets.split(",")}
    tied = {k for k, _ in tied_nets([ev])} - which
    owner = {c: c for c in FITTED}
    for k, to in TIES:  # in order: each net's owner is that of the net it is tied to
        if k in tied:
            owner[k] = owner[to]
            nets[k] = nets[to]
    owner = {c: o for c, o in owner.items() if o in which}
    if not owner:
        raise SystemExit(f"--nets {args.nets}: none of the fitted nets {FITTED_NAMES}")
    z = np.load(args.leaves)
    if "database" not in z.files or int(z["database"]) != DATABASE:
        raise SystemExit(
            f"{args.leaves}: leaves of another class numbering (database leaves not "
            f"{DATABASE}); make them again with `leaves`"
        )
    keep = np.flatnonzero(np.isin(z["cls"], list(owner)).any(1))
    d = (
        z["leaves"][keep],
        z["vals"][keep],
        z["cls"][keep],
        z["weights"],
        z["targets"][keep],
        z["groups"][keep],
    )
    apos, atg, agrp = load_dataset(args.anchor, with_groups=True)
    acls = net_classes(apos)
    anchor = {}
    for k in sorted(set(owner.values())):
        rows = np.flatnonzero(np.isin(acls, [q for q, o in owner.items() if o == k]))
        anchor[k] = (adam.dense_inputs(apos, rows), atg[rows], agrp[rows])
    fixed = {}
    if args.cross:
        from experts import cross_siblings  # research/experts.py, beside this script

        owned = np.array([owner.get(int(c), -1) for c in acls])
        for k in anchor:
            fixed[k] = cross_siblings(args.weights, apos, atg, agrp, owned == k)
    n_roots = len(keep)
    steps = n_roots // args.roots
    ref = len(anchor[CONTACT][1]) if CONTACT in anchor else max(len(a[1]) for a in anchor.values())
    ab = {k: max(16, int(round(args.batch * len(anchor[k][1]) / ref))) for k in anchor}
    moments = [adam.new_moments(net) for net in nets]
    print(
        json.dumps(
            {
                "positions": n_roots,
                "steps": steps,
                "anchor": {NET_NAMES[k]: len(anchor[k][1]) for k in anchor},
                "anchor_batch": {NET_NAMES[k]: ab[k] for k in ab},
            }
        ),
        flush=True,
    )
    cursor = {k: 0 for k in anchor}
    aorder = {}
    rng = np.random.default_rng(args.seed)
    for ep in range(args.epochs):
        t0 = time.time()
        a = fit_alpha(ep, args.epochs, args.alpha, args.alpha_end)
        order = adam.group_order(d[5], rng)
        se1 = se0 = 0.0
        for s in range(steps):
            batch = order[s * args.roots : (s + 1) * args.roots]
            total = [None] * len(nets)
            for k in anchor:
                x, tk, gk = anchor[k]
                if k not in aorder or cursor[k] + ab[k] > len(aorder[k]):
                    aorder[k] = adam.group_order(gk, rng)
                    cursor[k] = 0
                rows = aorder[k][cursor[k] : cursor[k] + ab[k]]
                cursor[k] += ab[k]
                fk = adam.fixed_siblings(fixed[k], gk[rows]) if k in fixed else None
                g, e = adam.gradients(nets[k], x[rows], tk[rows], gk[rows], args.rank_weight, fk)
                total[k] = list(g)
                se0 += e
            if args.lam > 0.0:
                g1, e1 = one_ply_gradients(nets, owner, batch, d, args.rank_weight)
                se1 += e1
                for k in anchor:
                    if g1[k] is not None:
                        for j in range(4):
                            total[k][j] = total[k][j] + args.lam * g1[k][j]
            for k in anchor:
                adam.step_net(nets[k], moments[k], total[k], a)
        meta_out = dict(meta)
        if "fit" in meta_out:  # the starting weights' own fit stays on record
            meta_out["fit_history"] = [*meta_out.get("fit_history", []), meta_out.pop("fit")]
        meta_out["one_ply_fit"] = {
            "weights": str(args.weights),
            "leaves": str(args.leaves),
            "anchor": args.anchor,
            "lam": args.lam,
            "nets": args.nets,
            "epochs_done": ep + 1,
            "epochs": args.epochs,
            "alpha": args.alpha,
            "alpha_end": args.alpha_end,
            "rank_weight": args.rank_weight,
            "seed": args.seed,
            "roots": args.roots,
            "batch": args.batch,
        }
        save_weights(args.out, tuple(nets), meta_out, side=ev.side)  # the side net unchanged
        print(
            json.dumps(
                {
                    "epoch": ep + 1,
                    "alpha": a,
                    "one_ply_mse": se1 / max(steps * args.roots, 1) / 5,
                    "anchor_se": se0,
                    "seconds": round(time.time() - t0, 1),
                }
            ),
            flush=True,
        )


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("leaves")
    p.add_argument("weights")
    p.add_argument("out")
    p.add_argument("sources", nargs="+")
    p.add_argument("--workers", type=int, default=2)
    p = sub.add_parser("fit")
    p.add_argument("weights")
    p.add_argument("leaves")
    p.add_argument("out")
    p.add_argument("--anchor", required=True)
    p.add_argument("--lam", type=float, default=1.0)
    p.add_argument("--epochs", type=int, default=4)
    p.add_argument("--alpha", type=float, default=5e-5)
    p.add_argument("--alpha-end", type=float, default=1e-5)
    p.add_argument("--rank-weight", type=float, default=16.0)
    p.add_argument(
        "--cross",
        action="store_true",
        help="the anchor's sibling term spans nets: a roll's plays of other nets join it, fixed",
    )
    p.add_argument("--roots", type=int, default=64)
    p.add_argument("--batch", type=int, default=256)
    p.add_argument("--seed", type=int, default=5)
    p.add_argument("--nets", default=FITTED_NAMES, help="the nets to fit (comma-separated)")
    args = ap.parse_args()
    {"leaves": cmd_leaves, "fit": cmd_fit}[args.cmd](args)


if __name__ == "__main__":
    main()
