"""Race play head to head: two weights files play out the same races on the same dice.

    python3 evaluation/race_duel.py --weights A.npz --vs B.npz [--starts 4000] [--pairs 5]
                                    [--data data/rs3] [--seed 1]

Takes ``--starts`` races of ``--data`` (race sets of ``train dataset --race-rollouts``, one
position of each roll's group, in the order of the shards: the player on roll to move) and
plays ``--pairs`` game pairs from each, cubeless, 0-ply, the bear-off databases on: in a pair's
first game A moves first (the side on roll), in the second B does, on the same dice. Prints
A's points a game over B's, with the standard error over the starts, and by how many sides
had borne off a checker at the start. All cores (the result does not
depend on the number of threads).
"""

import glob
import os
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from bgtui.analysis.options import script_parser
from bgtui.analysis.weights import load_weights, with_databases
from bgtui.engine import WC, WR, checkers_off, duel_pairs, hidden_size, make_rollout_workspace


def starts(data, count):
    out = []
    for f in sorted(glob.glob(os.path.join(data, "*.npz"))):
        with np.load(f) as z:
            pos, groups = z["positions"], z["groups"]
        first = np.flatnonzero(np.r_[True, np.diff(groups) != 0])
        out.extend(pos[first])
        if len(out) >= count:
            break
    return np.array(out[:count], dtype=np.int8)


def main():
    ap = script_parser(weights="bgtui-0.npz", vs=None, pairs=5, seed=1, workers=os.cpu_count() or 1)
    ap.add_argument("--starts", type=int, default=4000)
    ap.add_argument("--data", default="data/rs3")
    a = ap.parse_args()
    if not a.vs:
        raise SystemExit("--vs FILE: the weights to play against")
    ev_a = with_databases(load_weights(a.weights)[0], bearoff=True)
    ev_b = with_databases(load_weights(a.vs)[0], bearoff=True)
    st = starts(a.data, a.starts)
    if len(st) == 0:
        raise SystemExit(f"--data {a.data}: no race set shards (*.npz) there")
    hidden = max(hidden_size(ev_a), hidden_size(ev_b))
    res = np.zeros((len(st), a.pairs, 4))

    def part(lo, hi):
        ws = make_rollout_workspace(hidden)
        for k in range(lo, hi):
            seed = a.seed * 1_000_003 + k
            duel_pairs(ev_a, 0, ev_b, 0, 0, a.pairs, seed, st[k], WR, WC, ws, res[k])

    part(0, 1)  # compile
    t = time.perf_counter()
    bounds = np.linspace(0, len(st), a.workers * 8 + 1).astype(int)
    with ThreadPoolExecutor(a.workers) as pool:
        list(pool.map(lambda b: part(*b), zip(bounds[:-1], bounds[1:])))
    dt = time.perf_counter() - t
    per_start = res[:, :, :2].mean(axis=(1, 2))
    off = np.array([checkers_off(p) for p in st])
    none_off = off.max(axis=1) == 0
    print(
        f"{a.weights} vs {a.vs}: {len(st)} races of {a.data}, {a.pairs} game pairs each, "
        f"{2 * len(st) * a.pairs / dt:.0f} games/s"
    )
    for name, m in (
        ("all", np.ones(len(st), bool)),
        ("neither side has any off", none_off),
        ("one side has some off", ~none_off & (off.min(axis=1) == 0)),
        ("both sides have some off", off.min(axis=1) > 0),
    ):
        v = per_start[m]
        if len(v) < 2:
            continue
        print(
            f"{name:26s} {m.sum():6d} starts: {1000 * v.mean():+.2f} +- "
            f"{1000 * v.std(ddof=1) / np.sqrt(len(v)):.2f} millipoints a game"
        )


if __name__ == "__main__":
    main()
