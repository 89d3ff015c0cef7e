"""Can a small net give one side's race distributions where no one-sided row exists?

    python3 research/side_model.py --rows runs/ts/three.npy --samples 1500000 --epochs 6

Trains, in numpy, a net from one side's checkers (per point: at least 1, 2, 3 checkers and
half the checkers beyond 3; checkers off / 15; pips / 100) to its two one-sided distributions
(rolls to bear off all, rolls to a first checker off; a softmax of 32 buckets each, cross-entropy)
on rows of the one-sided tables: home boards, one straggler, and the two- and three-straggler
rows of ``research/two_stragglers.py``. Then values the rolled-out race candidates of the race
decision sets (seeds 31-36) that the race net values today by the one-sided formula, each side
from its exact row when it has one and from the net otherwise, and prints the equity rms
against the rollouts beside the race net's, by whether both sides have rows.

``--iterate N``: before judging, N rounds of one-sided value iteration over ``--sides`` sides of
the races of data/rs, rs2 and rs4 that have no row: a side's target is, over the 21 rolls, the
distribution one roll later of its successor that bears off soonest on average (and that takes
a first checker off soonest), successors valued by their rows or by the net; then two passes
over the targets with 300,000 rows.
"""

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from numba import njit

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "evaluation"))

import two_stragglers as T  # noqa: E402

from bgtui.engine import (  # noqa: E402
    EXTENDED_SIZE,
    ONE_SIDED_SIZE,
    STRAGGLER_HOME,
    STRAGGLER_LO,
    one_sided_rows_race_probs,
)
from bgtui.training.side import adam_step, softmaxes  # noqa: E402

NIN = 24 * 4 + 2


def encode(sides):
    """float32[n, NIN] inputs of sides ``int[n, 25]`` (checkers on points 1..24 at 1..24)."""
    c = sides[:, 1:25].astype(np.float32)
    x = np.concatenate(
        [c >= 1, c >= 2, c >= 3, np.maximum(c - 3, 0) / 2],
        axis=1,
    ).astype(np.float32)
    off = (15 - c.sum(axis=1, keepdims=True)) / 15
    pips = (c * np.arange(1, 25, dtype=np.float32)).sum(axis=1, keepdims=True) / 100
    return np.concatenate([x, off, pips], axis=1)


def table_sides(rng, samples):
    """(sides int8[n, 25], their rows) drawn from the table's blocks: home boards, one
    straggler, two and three stragglers (a tenth, a fifth and 35 % each)."""
    blocks = [  # (first row, home boards a tuple, straggler tuples, rows, share)
        (0, ONE_SIDED_SIZE, None, ONE_SIDED_SIZE, 0.1),
        (ONE_SIDED_SIZE, STRAGGLER_HOME, np.arange(12)[:, None] + STRAGGLER_LO, 0, 0.2),
        (T.BASE2, T.HOME13, T.PAIRS, T.TWO_ROWS, 0.35),
        (T.BASE3, T.HOME12, T.TRIPLES, T.THREE_ROWS, 0.35),
    ]
    counts, _ = T._home_boards(ONE_SIDED_SIZE)  # boards of fewer checkers come first
    sides, rows = [], []
    for base, nhome, tuples, size, share in blocks:
        size = size or len(tuples) * nhome
        k = int(samples * share)
        q = rng.integers(0, size, k)
        s = np.zeros((k, 25), dtype=np.int8)
        s[:, 1:7] = counts[q % nhome]
        if tuples is not None:
            for t in range(tuples.shape[1]):
                np.add.at(s, (np.arange(k), tuples[q // nhome, t]), 1)
        sides.append(s)
        rows.append(base + q)
    return np.concatenate(sides), np.concatenate(rows)


class Net:
    """One side's inputs -> ``heads`` softmaxes of 32 buckets (tanh hidden layer, Adam)."""

    def __init__(self, rng, hidden, heads=2, nin=NIN, skip=False):
        self.heads = heads
        self.skip = skip
        self.w1 = (rng.standard_normal((nin, hidden)) * np.sqrt(1 / nin)).astype(np.float32)
        self.b1 = np.zeros(hidden, dtype=np.float32)
        self.w2 = (rng.standard_normal((hidden, 32 * heads)) * np.sqrt(1 / hidden)).astype(
            np.float32
        )
        self.b2 = np.zeros(32 * heads, dtype=np.float32)
        self.params = [self.w1, self.b1, self.w2, self.b2]
        if skip:  # the inputs straight to the softmaxes too
            self.params.append(np.zeros((nin, 32 * heads), dtype=np.float32))
        self.m = [np.zeros_like(p) for p in self.params]
        self.v = [np.zeros_like(p) for p in self.params]
        self.t = 0

    def forward(self, x):
        h = np.tanh(x @ self.w1 + self.b1)
        z = h @ self.w2 + self.b2
        if self.skip:
            z += x @ self.params[4]
        return h, softmaxes(z, self.heads)

    def update(self, x, h, gz, alpha):
        """One Adam step from the loss's gradient ``gz`` (n, heads, 32) at the softmaxes'
        inputs (already divided by the batch size)."""
        g = gz.reshape(len(x), -1)
        gh = (g @ self.w2.T) * (1 - h * h)
        grads = [x.T @ gh, gh.sum(axis=0), h.T @ g, g.sum(axis=0)]
        if self.skip:
            grads.append(x.T @ g)
        self.t = adam_step(self.params, grads, self, alpha)

    def step(self, x, y, alpha):
        """A cross-entropy step toward the distributions ``y``; returns the loss."""
        h, p = self.forward(x)
        n = len(x)
        self.update(x, h, (p - y) / n, alpha)
        return float(-(y * np.log(p + 1e-12)).sum() / n)

    def save(self, path):
        np.savez(path, *self.params)

    def load(self, path):
        z = np.load(path)
        for k, par in enumerate(self.params):
            par[...] = z[f"arr_{k}"]


def side_of(pos, side):
    """int8[25] one side's checkers on its points 1..24 (``side`` 1: the opponent)."""
    s = np.zeros(25, dtype=np.int8)
    for j in range(1, 25):
        v = pos[j] if side == 0 else -pos[25 - j]
        s[j] = max(v, 0)
    return s


def race_net_candidates(an):
    """(candidate, its swapped view, its rollout equity) of every rolled-out candidate of the
    race decision sets (seeds 31-36, runs/re) that the race net values, no checker on a bar."""
    import race_errors as R

    from bgtui.engine import swap_sides

    for s in range(31, 37):
        for (_i, cb), (e, _se) in R._load_table(f"runs/re/r{s}.npz").items():
            c = np.frombuffer(cb, dtype=np.int8).copy()
            if R._kind(an, c) != 0:
                continue
            sw = np.ascontiguousarray(swap_sides(c), dtype=np.int8)
            if sw[0] == 0 and sw[25] == 0:
                yield c, sw, e


def judge(net, db):
    from games import value

    from bgtui.analysis.service import Analyzer
    from bgtui.engine import equity

    an = Analyzer(None)
    out5 = np.zeros(5)
    pair = np.zeros((2, 2, db.shape[2]), dtype=np.float32)
    res = []
    for c, sw, e in race_net_candidates(an):
        have = 0
        for side in (0, 1):
            r = T.row2(sw, side, len(db))
            if r >= 0:
                pair[side] = db[r]
                have += 1
            else:
                _, p = net.forward(encode(side_of(sw, side)[None]))
                pair[side] = p[0]
        one_sided_rows_race_probs(0, 1, pair, out5)
        res.append((value(an, c, 0), -float(equity(out5.astype(np.float32))), e, have))
    a = np.array(res)
    for name, m in (
        ("all", np.ones(len(a), dtype=bool)),
        ("both sides have rows", a[:, 3] == 2),
        ("one side from the net", a[:, 3] == 1),
        ("both sides from the net", a[:, 3] == 0),
    ):
        d0, d1 = a[m, 0] - a[m, 2], a[m, 1] - a[m, 2]
        print(
            f"{name:24s} {m.sum():5d}: race net rms {np.sqrt((d0**2).mean()):.4f}, one-sided "
            f"with the side net {np.sqrt((d1**2).mean()):.4f}"
        )


@njit(cache=True)
def _rows(children, nrows):
    """The table row of the player's side of each position of ``children`` (int8[n, 26]), or -1."""
    out = np.empty(children.shape[0], dtype=np.int64)
    for k in range(children.shape[0]):
        out[k] = T.row2(children[k], 0, nrows)
    return out


def race_sides(nrows, limit):
    """Distinct sides (int8[n, 25]) of the races of data/rs, rs2 and rs4 that have no row."""
    import glob

    found = set()
    for f in sorted(glob.glob("data/rs*/*.npz")):
        if "rs3" in f:
            continue
        for p in np.load(f)["positions"]:
            for side in (0, 1):
                found.add(side_of(p, side).tobytes())
    sides = np.array([np.frombuffer(b, dtype=np.int8) for b in sorted(found)])
    pos = np.zeros((len(sides), 26), dtype=np.int8)
    pos[:, 1:25] = sides[:, 1:25]
    keep = _rows(pos, nrows) < 0
    return sides[keep][:limit]


def iterate_targets(net, sides, db):
    """Each side's two distributions one roll ahead: over the 21 rolls (1 or 2 of 36), the
    distribution of the successor that bears off soonest on average (and, for 15 checkers,
    of the one that takes a first checker off soonest) shifted by one roll, successors valued
    by their rows or by ``net``."""
    from bgtui.engine import (
        MAX_PLAYS,
        MOVE_SIZE,
        ROLL_WEIGHTS,
        ROLLS,
        generate_plays_into,
        make_move_workspace,
    )

    mws = make_move_workspace()
    ppos = np.zeros((MAX_PLAYS, 26), dtype=np.int8)
    pmov = np.zeros((MAX_PLAYS, MOVE_SIZE), dtype=np.int8)

    def generate_plays(pos, a, b):  # one side alone: no validation of the empty opponent
        n = generate_plays_into(pos, a, b, mws, ppos, pmov)
        return (ppos[:n].copy(),)

    nr = db.shape[2]
    ks = np.arange(nr)
    out = np.zeros((len(sides), 2, nr), dtype=np.float32)
    for n, side in enumerate(sides):
        pos = np.zeros(26, dtype=np.int8)
        pos[1:25] = side[1:25]
        full = int(side[1:25].sum()) == 15
        kids = [generate_plays(pos, int(a), int(b))[0] for a, b in ROLLS]
        allk = np.ascontiguousarray(np.concatenate(kids), dtype=np.int8)
        rows = _rows(allk, len(db))
        d = np.empty((len(allk), 2, nr), dtype=np.float32)
        d[rows >= 0] = db[rows[rows >= 0]]
        if (rows < 0).any():
            d[rows < 0] = net.forward(encode(allk[rows < 0][:, :25]))[1]
        means = (d * ks).sum(axis=2)
        at = 0
        for (a, b), w, kk in zip(ROLLS, ROLL_WEIGHTS, kids):
            seg = slice(at, at + len(kk))
            at += len(kk)
            best = seg.start + int(np.argmin(means[seg, 0]))
            out[n, 0, 1:] += w / 36 * d[best, 0, :-1]
            out[n, 0, -1] += w / 36 * d[best, 0, -1]
            if full:
                g = seg.start + int(np.argmin(means[seg, 1]))
                out[n, 1, 1:] += w / 36 * d[g, 1, :-1]
                out[n, 1, -1] += w / 36 * d[g, 1, -1]
        if not full:
            out[n, 1, 0] = 1.0
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", required=True)
    ap.add_argument("--samples", type=int, default=1_500_000)
    ap.add_argument("--epochs", type=int, default=6)
    ap.add_argument("--hidden", type=int, default=128)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--iterate", type=int, default=0, help="rounds of one-sided value iteration")
    ap.add_argument("--sides", type=int, default=5000, help="race sides a round")
    a = ap.parse_args()
    from bgtui.analysis.bearoff_cache import get_extended_one_sided

    full = get_extended_one_sided()
    db = np.concatenate([full[:EXTENDED_SIZE], np.load(a.rows, mmap_mode="r")])
    rng = np.random.default_rng(a.seed)
    sides, rows = table_sides(rng, a.samples)
    x = encode(sides)
    y = db[rows]
    hold = rng.random(len(x)) < 0.02
    net = Net(rng, a.hidden)
    t = time.time()
    for ep in range(a.epochs):
        alpha = 0.002 * (0.5**ep)
        order = rng.permutation(np.flatnonzero(~hold))
        loss = [net.step(x[b], y[b], alpha) for b in np.array_split(order, len(order) // 512)]
        _, p = net.forward(x[hold])
        mean_err = np.abs(((p - y[hold]) * np.arange(32)).sum(axis=2)).mean(axis=0)
        print(
            f"epoch {ep + 1}: train loss {np.mean(loss):.4f}, held-out mean-rolls error "
            f"{mean_err[0]:.3f} / {mean_err[1]:.3f}, {time.time() - t:.0f} s",
            flush=True,
        )
    if a.iterate:
        pool = race_sides(len(db), None)
        pool = pool[rng.permutation(len(pool))[: a.sides * a.iterate]]
        print(f"{len(pool)} race sides without a row", flush=True)
        ex = rng.choice(len(x), min(len(x), 300_000), replace=False)
        for it, chunk in enumerate(np.array_split(pool, a.iterate)):
            t = time.time()
            tx = encode(chunk)
            ty = iterate_targets(net, chunk, db)
            xs = np.concatenate([x[ex], np.repeat(tx, 4, axis=0)])
            ys = np.concatenate([y[ex], np.repeat(ty, 4, axis=0)])
            for ep in range(2):
                order = rng.permutation(len(xs))
                loss = [
                    net.step(xs[b], ys[b], 0.0005) for b in np.array_split(order, len(order) // 512)
                ]
            print(
                f"iteration {it + 1}: {len(chunk)} sides, loss {np.mean(loss):.4f}, {time.time() - t:.0f} s",
                flush=True,
            )
    judge(net, db)


if __name__ == "__main__":
    main()
