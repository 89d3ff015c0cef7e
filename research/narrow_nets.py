"""Narrower contact and crashed nets distilled from wider ones: a training set labelled by the
teacher's own outputs, and a start of fewer hidden units for ``bgtui train fit``.

    python3 research/narrow_nets.py teacher OUT_DIR --data SETS [--weights W]
    python3 research/narrow_nets.py narrow OUT.npz --hidden H --teacher OUT_DIR [--weights W]
        [--activation quadratic]
    bgtui train fit --checkpoint OUT.npz --data OUT_DIR --optimizer adam --rank-weight 16 \\
        --nets contact,crashed,... --epochs E --alpha A --alpha-end B

``teacher``: the positions of the training sets ``SETS`` (``DIR[:first:last]``, comma-separated,
as ``bgtui train fit --data`` reads them) that a contact or crashed net values, each labelled by
the five outputs of the net of ``W`` (default: shipped) that values it, in shards of 100,000
with their sibling groups: a set whose fit teaches a student to compute what ``W`` computes.

``narrow``: ``W`` with every net wider than ``H`` units cut to ``H`` units: the units kept are
those with the largest spread of activation (standard deviation over 30,000 of the teacher
set's positions of the net's class) times the sum of their absolute output weights; each
dropped unit's mean activation is folded into the output biases. A net that is another's (two
classes valued by the same arrays) stays so. The race net and the race side net are kept as
they are. With ``--activation quadratic`` the nets cut get the piecewise quadratic hidden
function (``nn.QUADRATIC``) in place of their sigmoids (the units are chosen by the sigmoids'
activations). The fit then recovers what the cut lost
(docs/lab-notes/2026-12-07-narrow-nets.md, docs/lab-notes/2026-12-07-quadratic-units.md).
"""

import json
from pathlib import Path

import numpy as np

from bgtui.analysis.options import script_parser
from bgtui.analysis.weights import load_weights, nets_of, save_weights
from bgtui.engine import ACTIVATIONS, NET_NAMES, RACE, Net, as_net, net_copy
from bgtui.training import adam
from bgtui.training.kernels import net_classes
from bgtui.training.train import load_dataset

SHARD = 100_000
SAMPLE = 30_000


def _nets(weights):
    ev, meta = load_weights(weights)
    return ev, meta, [net_copy(n) for n in nets_of(ev)]


def teacher(out_dir, data, weights):
    """Write the teacher set of ``data`` labelled by ``weights`` into ``out_dir``."""
    _, meta, nets = _nets(weights)
    pos, _, groups = load_dataset(data, with_groups=True)
    cls = net_classes(pos)
    keep = cls != RACE
    pos, groups, cls = pos[keep], groups[keep], cls[keep]
    targets = np.zeros((len(pos), 5), dtype=np.float32)
    for k in range(len(NET_NAMES)):
        rows = np.flatnonzero(cls == k)
        for s in range(0, len(rows), 50_000):
            r = rows[s : s + 50_000]
            targets[r] = adam.forward(nets[k], adam.dense_inputs(pos, r))[1]
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    info = np.array(json.dumps({"teacher_sha256": meta.get("sha256"), "data": data}))
    for i, s in enumerate(range(0, len(pos), SHARD)):
        part = slice(s, s + SHARD)
        np.savez(
            out / f"shard-{i:05d}.npz",
            positions=pos[part],
            targets=targets[part],
            groups=groups[part],
            meta=info,
        )
    counts = {
        NET_NAMES[k]: int((cls == k).sum()) for k in range(len(NET_NAMES)) if (cls == k).any()
    }
    print(json.dumps({"positions": len(pos), "by_net": counts}))


def narrow_net(net, x, hidden, act=None):
    """``net`` cut to the ``hidden`` units of largest activation spread times output weight
    over the inputs ``x``, the dropped units' mean activations folded into the output biases;
    the hidden function ``act`` (default: ``net``'s)."""
    w1, b1, w2, b2 = net[:4]
    h, _ = adam.forward(net, x)
    score = h.std(axis=0) * np.abs(w2).sum(axis=0)
    keep = np.sort(np.argsort(-score)[:hidden])
    drop = np.setdiff1d(np.arange(b1.shape[0]), keep)
    b2 = b2 + w2[:, drop] @ h[:, drop].mean(axis=0)
    kept = (w1[:, keep], b1[keep], w2[:, keep], b2)
    share = score[keep].sum() / score.sum()
    act = as_net(net).act if act is None else act
    return Net(*(np.ascontiguousarray(a, dtype=np.float32) for a in kept), act), share


def narrow(out, hidden, teacher_dir, weights, act=None):
    """Write ``weights`` with its contact and crashed nets cut to ``hidden`` units (of the
    hidden function ``act``, default their own) to ``out``."""
    ev, meta, nets = _nets(weights)
    pos, _ = load_dataset(str(teacher_dir))
    cls = net_classes(pos)
    rng = np.random.default_rng(1)
    first = {}  # a net tied to an earlier one (the same arrays) stays that net, cut once
    cut = []
    for k, (name, net) in enumerate(zip(NET_NAMES, nets_of(ev))):
        j = first.setdefault(id(net), k)
        if j != k:
            cut.append(cut[j])
            continue
        rows = np.flatnonzero(cls == k)
        if name == "race" or nets[k][1].shape[0] <= hidden or not len(rows):
            cut.append(nets[k])
            continue
        rows = np.sort(rng.choice(rows, min(SAMPLE, len(rows)), replace=False))
        net, share = narrow_net(nets[k], adam.dense_inputs(pos, rows), hidden, act)
        cut.append(net)
        print(json.dumps({"net": name, "rows": len(rows), "score_kept": round(float(share), 3)}))
    meta = {k: v for k, v in meta.items() if k not in ("fit", "path")}
    meta["narrowed"] = {"from_sha256": meta.get("sha256"), "hidden": hidden}
    if act is not None:
        meta["narrowed"]["activation"] = ACTIVATIONS[act]
    save_weights(out, tuple(cut), meta, side=ev.side)


def main():
    parser = script_parser(__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    t = sub.add_parser("teacher", help="the teacher-labelled training set")
    t.add_argument("out_dir")
    t.add_argument("--data", required=True)
    t.add_argument("--weights", default="bgtui-0.npz")
    n = sub.add_parser("narrow", help="the narrowed start of a fit")
    n.add_argument("out")
    n.add_argument("--hidden", type=int, required=True)
    n.add_argument("--teacher", required=True)
    n.add_argument("--weights", default="bgtui-0.npz")
    n.add_argument("--activation", choices=ACTIVATIONS, help="the cut nets' hidden function")
    args = parser.parse_args()
    if args.command == "teacher":
        teacher(args.out_dir, args.data, args.weights)
    else:
        act = None if args.activation is None else ACTIVATIONS.index(args.activation)
        narrow(args.out, args.hidden, args.teacher, args.weights, act)


if __name__ == "__main__":
    main()
