"""Legal-play generation speed, one core.

    python benchmarks/movegen.py [--reps 20]

Prints legal-play generations per second and resulting positions per second for five sets of
positions (opening; middle game from 0-ply self-play; middle game from random play, which
scatters checkers and has twice as many plays per roll; player on the bar; bear-off), each with
all 36 rolls, calling the kernel from a jitted loop (compile time excluded).
Targets: >= 0.5 M generations/s on middle-game positions, >= 10 M positions/s overall.
"""

import argparse
import time

import numpy as np

from bgtui.engine import (
    MAX_PLAYS,
    OPENING_POSITION,
    generate_plays,
    generate_plays_into,
    kernel,
    make_move_workspace,
    swap_sides,
)


@kernel
def _bench(P, ws, op, om, reps):
    tot = 0
    for r in range(reps):
        for k in range(P.shape[0]):
            for d1 in range(1, 7):
                for d2 in range(1, 7):
                    tot += generate_plays_into(P[k], d1, d2, ws, op, om)
    return tot


def position_sets(seed=1):
    rng = np.random.default_rng(seed)
    mid, bar, bearoff = [], [], []
    for _ in range(300):
        pos = np.array(OPENING_POSITION)
        for t in range(400):
            if pos[25] > 0:
                bar.append(pos)
            elif all(pos[7:26] <= 0) and all(pos[0:19] >= 0):
                bearoff.append(pos)
            elif 4 <= t <= 30:
                mid.append(pos)
            children, _ = generate_plays(pos, *(int(x) for x in rng.integers(1, 7, size=2)))
            child = children[rng.integers(len(children))]
            if (child > 0).sum() == 0:
                break
            pos = swap_sides(child)
    return {
        "opening": np.array([OPENING_POSITION]),
        "midgame": selfplay_midgame(1000),
        "mid-random": np.array(mid[:1000]),
        "bar": np.array(bar[:1000]),
        "bear-off": np.array(bearoff[:1000]),
    }


def selfplay_midgame(n):
    """Contact positions from 0-ply self-play with the shipped nets (typical games)."""
    from bgtui.analysis.weights import load_weights
    from bgtui.engine import contact_positions, hidden_size, make_play_workspace, make_rng

    ev = load_weights()[0]
    ws = make_play_workspace(hidden_size(ev))
    contact = contact_positions(ev, 200, make_rng(5), ws, 4 * n)
    return contact[:n]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=20)
    a = ap.parse_args()
    ws = make_move_workspace()
    op = np.empty((MAX_PLAYS, 26), np.int8)
    om = np.empty((MAX_PLAYS, 8), np.int8)
    sets = position_sets()
    _bench(sets["opening"], ws, op, om, 1)
    total_pos = total_t = 0.0
    print(
        f"{'set':10s} {'positions':>9s} {'generations/s':>14s} {'results/s':>12s} {'plays/roll':>10s}"
    )
    for name, P in sets.items():
        reps = max(1, a.reps * 1000 // max(len(P), 1)) if name == "opening" else a.reps
        t = time.perf_counter()
        n = _bench(P, ws, op, om, reps)
        dt = time.perf_counter() - t
        calls = reps * len(P) * 36
        total_pos += n
        total_t += dt
        print(
            f"{name:10s} {len(P):9d} {calls / dt:14,.0f} {n / dt:12,.0f} {n / calls:10.1f}",
            flush=True,
        )
    print(f"{'overall':10s} {'':9s} {'':14s} {total_pos / total_t:12,.0f}")


if __name__ == "__main__":
    main()
