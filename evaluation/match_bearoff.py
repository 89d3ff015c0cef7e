"""The match cube model against exact cubeful play in small bear-offs at match scores.

    python evaluation/match_bearoff.py [--checkers 2] [--scores 2-2,4-2,2-4,3-5,5-3,1-3]

For every position where each side has at most ``--checkers`` checkers on its six home points
(no gammons possible), the exact cubeful MWC at a score follows by recursion over the rolls,
the plays and both players' cube decisions (a double/take is the same recursion on twice the
cube, owned by the taker; a game won counts its points on the score). The 0-ply match cube
model (``bgtui cube POSITION --ply 0`` at the score, which values the leaves with the
two-sided database's exact cubeless probabilities) is scored by how often its action (double
or not; take or pass) is the exact one, over the positions where the exact action is clear
(the better option beats the other by more than 0.5% MWC).
"""

import argparse
import itertools
from dataclasses import replace
from functools import cache

import numpy as np

from bgtui.analysis.met import get_met
from bgtui.analysis.service import Analyzer
from bgtui.analysis.state import GameState
from bgtui.engine import ROLLS, game_result, generate_plays, swap_sides

MET = get_met()


def sides(n):
    """Every way to place 1..n checkers on points 1..6."""
    out = []
    for k in range(1, n + 1):
        for combo in itertools.combinations_with_replacement(range(1, 7), k):
            out.append(combo)
    return out


def board(mine, theirs):
    pos = np.zeros(26, dtype=np.int8)
    for p in mine:
        pos[p] += 1
    for p in theirs:
        pos[25 - p] -= 1
    return pos


@cache
def children(key):
    pos = np.frombuffer(key, dtype=np.int8)
    out = []
    for d1, d2 in ROLLS.tolist():
        kids, _ = generate_plays(pos, d1, d2)
        opts = []
        for c in kids:
            c = np.asarray(c, dtype=np.int8)
            r = int(game_result(c))
            opts.append((r, None if r else swap_sides(c).tobytes()))
        out.append((1 if d1 == d2 else 2, opts))
    return out


@cache
def no_double(key, a, b, v, owner):
    """Exact MWC of the player on roll (a-away, b-away), cube ``v`` in state ``owner`` (0
    centred, 1 his, 2 the opponent's), before his roll, not doubling now."""
    total = 0.0
    flip = {0: 0, 1: 2, 2: 1}[owner]
    for w, opts in children(key):
        best = 0.0
        for r, child in opts:
            m = MET.after(a, b, r * v) if r else 1.0 - value(child, b, a, v, flip)
            best = max(best, m)
        total += w * best
    return total / 36.0


@cache
def value(key, a, b, v, owner):
    """Exact MWC with the player's cube decision (and the opponent's answer) made."""
    nd = no_double(key, a, b, v, owner)
    if owner == 2 or v >= max(a, b):
        return nd
    return max(nd, min(MET.after(a, b, v), no_double(key, a, b, 2 * v, 2)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--checkers", type=int, default=2)
    ap.add_argument("--scores", default="2-2,4-2,2-4,3-5,5-3,1-3,3-1")
    ap.add_argument("--margin", type=float, default=0.005)
    args = ap.parse_args()
    an = Analyzer()
    positions = [(m, t) for m in sides(args.checkers) for t in sides(args.checkers)]
    for sc in args.scores.split(","):
        a, b = (int(x) for x in sc.split("-"))
        n = max(a, b) + 1
        agree_d = clear_d = agree_t = clear_t = early = late = 0
        for mine, theirs in positions:
            pos = board(mine, theirs)
            key = pos.tobytes()
            nd = no_double(key, a, b, 1, 0)
            dt = no_double(key, a, b, 2, 2)
            dp = MET.after(a, b, 1)
            s = replace(GameState.from_position(pos), match_length=n, score=(n - a, n - b))
            c = an.cube(s, 0)
            if not c.cube_access:
                continue
            model_double = c.action.startswith(("Double", "Redouble"))
            model_take = c.mwc["double_take"] < c.mwc["double_pass"]
            gain = min(dt, dp) - nd
            if abs(gain) > args.margin:
                clear_d += 1
                agree_d += model_double == (gain > 0)
                early += model_double and gain < 0
                late += not model_double and gain > 0
            if abs(dt - dp) > args.margin:
                clear_t += 1
                agree_t += model_take == (dt < dp)
        print(
            f"-{a}a -{b}a: double {agree_d}/{clear_d} clear decisions agree, "
            f"({early} doubles too early, {late} too late), take {agree_t}/{clear_t}",
            flush=True,
        )


if __name__ == "__main__":
    main()
