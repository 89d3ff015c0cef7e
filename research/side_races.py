"""Can a one-side net, fitted through the one-sided race formula to rolled-out races, value the
races the race net values better than the race net?

    python3 research/side_races.py --rows runs/ts/three.npy --pre runs/ts/pre.npz \
        --passes 20 --save runs/ts/races.npz

A net from one side's checkers to three distributions of rolls (to bear off all, to a first
checker off, to have no checker left on its points 19..24; softmaxes of 32 buckets) values a
race by the one-sided formula (``bearoff.one_sided_race_probs``), extended to backgammons: the
side on roll, finishing on its roll a, wins a gammon if the opponent needs a or more rolls to a
first checker off, a backgammon if it needs a or more to clear the winner's home board. Each
side comes from its exact one-sided row when it has one (home boards, one, two or three
checkers on points 7..18: ``research/two_stragglers.py build --three``), else from the net.

The net is first fitted by cross-entropy to rows of the tables (``--pre``: trained then saved,
or loaded if the file exists), then (``--passes``) to the rollout labels of the races of
data/rs, rs2 and rs4 that have a side without a row: squared error of the formula's five
probabilities, each step of it followed by a cross-entropy step on table rows. Judged on the
held-out races of data/rs3 and on the rolled-out candidates of the race decision sets (seeds
31-36, runs/re), equity rms beside the race net's, by how many sides have rows.
"""

import argparse
import glob
import sys
import time
from pathlib import Path

import numpy as np
from numba import njit

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "evaluation"))

import side_model as S  # noqa: E402
import two_stragglers as T  # noqa: E402

from bgtui.engine import EXTENDED_SIZE, encode_sides  # noqa: E402
from bgtui.training.side import race5, sides_of, softmax_back, with_clear  # noqa: E402

NB = 32
EQ = np.array([2.0, 1.0, 1.0, -1.0, -1.0])


LOC = False  # --loc: the inputs also place each distribution's rough mean among the buckets


def encode(sides):
    """float32[n, k]: with ``LOC`` the engine's side-net inputs (``encode_sides``), else
    ``side_model.encode`` and the checkers outside home and on 19..24 / 15."""
    if LOC:
        return encode_sides(sides)
    c = sides[:, 1:25].astype(np.float32)
    extra = np.stack([c[:, 6:].sum(axis=1), c[:, 18:].sum(axis=1)], axis=1) / 15
    return np.concatenate([S.encode(sides), extra], axis=1).astype(np.float32)


ROWS_LIMIT = 1 << 62  # --shipped-rows: EXTENDED_SIZE, the rows the engine has


@njit(cache=True)
def _side_rows_below(positions, nrows, limit):
    out = np.empty((positions.shape[0], 2), dtype=np.int64)
    for k in range(positions.shape[0]):
        for side in range(2):
            r = T.row2(positions[k], side, nrows)
            out[k, side] = r if r < limit else -1
    return out


def _side_rows(positions, nrows):
    """(n, 2) rows of each position's two sides (-1: none, or not below ``ROWS_LIMIT``)."""
    return _side_rows_below(positions, nrows, ROWS_LIMIT)


def load_races(pattern, nrows):
    """Positions (player on roll), labels, sides and rows of the races in the shards that
    ``pattern`` matches that have a side without a row."""
    pos, lab = [], []
    for f in sorted(glob.glob(pattern)):
        z = np.load(f)
        pos.append(z["positions"])
        lab.append(z["targets"])
    pos = np.ascontiguousarray(np.concatenate(pos), dtype=np.int8)
    lab = np.concatenate(lab).astype(np.float32)
    keep = (pos[:, 0] == 0) & (pos[:, 25] == 0)
    rows = _side_rows(pos, nrows)
    keep &= (rows < 0).any(axis=1)
    return pos[keep], lab[keep], sides_of(pos[keep]), rows[keep]


def dists(net, sides, rows, db):
    """(n, 2, 3, 32) both sides' distributions, the forward pass of the net's sides."""
    n = len(sides)
    d = np.empty((n, 2, 3, NB), dtype=np.float32)
    have = rows >= 0
    d[have] = with_clear(db[rows[have]])
    x = encode(sides[~have])
    h, p = net.forward(x)
    d[~have] = p
    return d, (x, h, p, ~have)


def predict(net, sides, rows, db, batch=4096):
    out = []
    for s in range(0, len(sides), batch):
        d, _ = dists(net, sides[s : s + batch], rows[s : s + batch], db)
        out.append(race5(d[:, 0], d[:, 1])[0])
    return np.concatenate(out)


def race_step(net, sides, rows, db, lab, alpha):
    d, (x, h, p, mask) = dists(net, sides, rows, db)
    out, grads = race5(d[:, 0], d[:, 1])
    e = out - lab
    ga, gb = grads(2 * e / len(e))
    g = np.stack([ga, gb], axis=1)[mask]
    net.update(x, h, softmax_back(p, g), alpha)
    return float((e * e).sum(1).mean())


def race_net_equity(positions):
    from bgtui.analysis.service import Analyzer
    from bgtui.engine import equity, evaluate0

    ev = Analyzer(None).ev
    return np.array([float(equity(evaluate0(p, ev))) for p in positions])


def report(name, eq_model, eq_net, eq_true, nrow):
    for label, m in (
        ("all", np.ones(len(eq_true), dtype=bool)),
        ("one side has a row", nrow == 1),
        ("no side has a row", nrow == 0),
    ):
        if not m.any():
            continue
        r0 = np.sqrt(((eq_net[m] - eq_true[m]) ** 2).mean())
        r1 = np.sqrt(((eq_model[m] - eq_true[m]) ** 2).mean())
        print(f"{name} {label:20s} {m.sum():6d}: race net {r0:.4f}, side net {r1:.4f}", flush=True)


def judge_decisions(net, db):
    """The rolled-out candidates of the race decision sets the race net values."""
    from games import value

    from bgtui.analysis.service import Analyzer

    an = Analyzer(None)
    cands, truth, old = [], [], []
    for c, sw, e in S.race_net_candidates(an):
        cands.append(sw)
        truth.append(e)
        old.append(value(an, c, 0))
    pos = np.array(cands)
    rows = _side_rows(pos, len(db))
    out = predict(net, sides_of(pos), rows, db)
    report("decisions", -(out @ EQ - 1), np.array(old), np.array(truth), (rows >= 0).sum(1))


def judge_choices(net, db):
    """0-ply's choices in the race decision sets (seeds 31-36) with the candidates the race net
    values today valued by the side net instead, judged by the rollouts: millipoints lost a
    decision of the set, beside the shipped 0-ply's."""
    import race_errors as R
    from games import value

    from bgtui.analysis.service import Analyzer
    from bgtui.engine import swap_sides

    an = Analyzer(None)
    tot0 = tot1 = 0.0
    diffs = []
    for s in range(31, 37):
        d = dict(np.load(f"runs/re/d{s}.npz"))
        by = {}
        for (i, c), v in R._load_table(f"runs/re/r{s}.npz").items():
            by.setdefault(i, {})[c] = v[0]
        m = len(d["n"])
        e0 = e1 = 0.0
        for i in range(m):
            cands = R._candidates(d, i)
            v0 = np.array([value(an, c, 0) for c in cands])
            net_ix = [k for k, c in enumerate(cands) if R._kind(an, c) == 0]
            if not net_ix:
                continue
            sw = np.array([swap_sides(cands[k]) for k in net_ix], dtype=np.int8)
            out = predict(net, sides_of(sw), _side_rows(sw, len(db)), db)
            v1 = v0.copy()
            v1[net_ix] = -(out @ EQ - 1)
            vals = by.get(i, {})
            b0, b1 = cands[int(np.argmax(v0))].tobytes(), cands[int(np.argmax(v1))].tobytes()
            if b0 not in vals or b1 not in vals:
                continue
            best = max(vals.values())
            e0 += best - vals[b0]
            e1 += best - vals[b1]
            diffs.append(vals[b0] - vals[b1])
        print(f"seed {s}: shipped 0-ply {1000 * e0 / m:.3f}, side net {1000 * e1 / m:.3f} mp")
        tot0 += e0 / m / 6
        tot1 += e1 / m / 6
    dd = np.array(diffs)
    print(
        f"six sets: shipped {1000 * tot0:.3f}, side net {1000 * tot1:.3f} mp a race decision; "
        f"paired over {len(dd)} decisions {1000 * dd.mean():+.3f} +- "
        f"{1000 * dd.std(ddof=1) / np.sqrt(len(dd)):.3f}, {np.count_nonzero(dd)} changed"
    )


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", required=True)
    ap.add_argument("--pre", required=True, help="the pre-fitted net (made if missing)")
    ap.add_argument("--samples", type=int, default=1_500_000)
    ap.add_argument("--epochs", type=int, default=6)
    ap.add_argument("--hidden", type=int, default=128)
    ap.add_argument("--passes", type=int, default=10)
    ap.add_argument("--alpha", type=float, default=0.0005)
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--save")
    ap.add_argument("--judge", help="only judge this saved net")
    ap.add_argument(
        "--shipped-rows", action="store_true", help="only the extended database's rows exact"
    )
    ap.add_argument("--loc", action="store_true", help="rough-mean inputs, and a skip layer")
    a = ap.parse_args()
    global LOC, ROWS_LIMIT
    LOC = a.loc
    if a.shipped_rows:
        ROWS_LIMIT = EXTENDED_SIZE
    from bgtui.analysis.bearoff_cache import get_extended_one_sided

    full = get_extended_one_sided()
    db = np.concatenate([full[:EXTENDED_SIZE], np.load(a.rows, mmap_mode="r")])
    rng = np.random.default_rng(a.seed)
    sides, trows = S.table_sides(rng, a.samples)
    x = encode(sides)
    net = S.Net(rng, a.hidden, heads=3, nin=x.shape[1], skip=a.loc)
    if a.judge:
        net.load(a.judge)
        judge_decisions(net, db)
        judge_choices(net, db)
        return
    if Path(a.pre).exists():
        net.load(a.pre)
    else:
        t = time.time()
        for ep in range(a.epochs):
            alpha = 0.002 * (0.5**ep)
            order = rng.permutation(len(x))
            loss = [
                net.step(x[b], with_clear(db[trows[b]]), alpha)
                for b in np.array_split(order, len(order) // 512)
            ]
            print(f"pre-fit pass {ep + 1}: loss {np.mean(loss):.4f}, {time.time() - t:.0f} s")
        net.save(a.pre)

    tr = load_races("data/rs/*.npz", len(db)), load_races("data/rs2/*.npz", len(db))
    tr += (load_races("data/rs4/*.npz", len(db)),)
    pos, lab, sd, rw = (np.concatenate(k) for k in zip(*tr))
    hpos, hlab, hsd, hrw = load_races("data/rs3/*.npz", len(db))
    hpos, hlab, hsd, hrw = hpos[:20000], hlab[:20000], hsd[:20000], hrw[:20000]
    heq_net = race_net_equity(hpos)
    heq = hlab @ EQ - 1
    print(f"{len(pos)} training races, {len(hpos)} held out", flush=True)

    def check(tag):
        out = predict(net, hsd, hrw, db)
        print(f"{tag}: held-out output rms {np.sqrt(((out - hlab) ** 2).mean(0)).round(4)}")
        report("rs3", out @ EQ - 1, heq_net, heq, (hrw >= 0).sum(1))

    check("pre-fit")
    for ep in range(a.passes):
        t = time.time()
        alpha = a.alpha * (0.1 ** (ep / max(1, a.passes - 1)))
        order = rng.permutation(len(pos))
        losses = []
        for b in np.array_split(order, len(order) // a.batch):
            losses.append(race_step(net, sd[b], rw[b], db, lab[b], alpha))
            q = rng.integers(0, len(x), a.batch)
            net.step(x[q], with_clear(db[trows[q]]), alpha * 0.2)
        check(f"pass {ep + 1} (train mse {np.mean(losses):.5f}, {time.time() - t:.0f} s)")
        if a.save:
            net.save(a.save)
    judge_decisions(net, db)
    judge_choices(net, db)


if __name__ == "__main__":
    main()
