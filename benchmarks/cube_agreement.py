"""Cube actions of the model (0-2 ply) against bgtui's own live-cube rollouts.

    python3 benchmarks/cube_agreement.py [--positions 40] [--trials 1296] [--seed 5]

Issue 5's target compares bgtui's 2-ply cube action with an established engine's on positions
where that engine's action is clear (equity margin > 0.04). No such engine is available here, so
this measures the nearest thing bgtui can check on its own: the model's action (Janowski over
0-, 1- and 2-ply cubeless probabilities, ``Analyzer.cube``) against the action of a live-cube
rollout of the same position (``Analyzer.iter_cube_rollout``: no double and double/take rolled
out on identical dice, variance reduction, both players using the cube inside the trials).

Positions: 0-ply self-play positions of the shipped weights (``--seed``), centred cube, where
the player on roll has doubling chances by the 0-ply estimate (winning chances 60-95% or a
cubeless equity above 0.25): the region where cube actions are decided.

A rollout's action is *clear* when every decision it makes has a margin above ``--margin``
(0.04) and above two standard errors: the double decision (no double against the better for the
opponent of double/take and double/pass, paired standard error) and, when doubling, the take
decision (double/take against double/pass = 1.0). Agreement is counted on the action's name
(``No double, take``, ``Double, take``, ``Double, pass``, ``Too good to double, pass``, ...)
and on the double / take decisions separately. The reference shares the evaluator with the
model, so this measures the cube model and the lookahead, not the nets.
"""

import argparse
import time

import numpy as np

from bgtui.analysis.formats import encode_position_id, parse_position
from bgtui.analysis.models import RolloutSettings
from bgtui.analysis.service import Analyzer
from bgtui.analysis.weights import load_weights, with_databases
from bgtui.engine.evaluate import evaluate0, hidden_size, make_eval_workspace, make_play_buffers
from bgtui.engine.movegen import make_workspace
from bgtui.engine.rng import make_rng
from bgtui.engine.train import _START, _sample_positions


def _candidates(seed: int, count: int):
    """Self-play positions (player on roll) with doubling chances by 0-ply, ``count`` of them,
    spread over the games sampled (every k-th one)."""
    ev = with_databases(load_weights()[0], bearoff=False)
    ews = make_eval_workspace(hidden_size(ev))
    mws = make_workspace()
    op, om = make_play_buffers()
    dest = np.zeros((40000, 26), dtype=np.int8)
    m = _sample_positions(ev, 1200, make_rng(seed), _START, 0.0, mws, ews, op, om, dest)
    keep = []
    for pos in dest[:m]:
        p = evaluate0(pos, ev)
        e = 2 * p[0] - 1 + p[1] - p[3] + p[2] - p[4]
        if 0.60 <= p[0] <= 0.95 or e > 0.25:
            keep.append(pos.copy())
    step = max(1, len(keep) // count)
    return keep[::step][:count]


def _decisions(nd, dt, dp=1.0):
    """(doubles?, takes?) of an equity triple: double when the opponent's best reply beats
    not doubling; take when double/take is below double/pass."""
    return min(dt, dp) > nd, dt < dp


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", type=int, default=40)
    ap.add_argument("--trials", type=int, default=1296)
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--margin", type=float, default=0.04)
    args = ap.parse_args()

    an = Analyzer()
    positions = _candidates(args.seed, args.positions)
    print(f"{len(positions)} positions, live-cube rollouts of {args.trials} trials each "
          f"(variance reduction, 0-ply)", flush=True)
    plies = (0, 1, 2)
    agree = {k: [0, 0] for k in plies}  # action name: [agreements, clear positions]
    agree_d = {k: [0, 0] for k in plies}
    agree_t = {k: [0, 0] for k in plies}
    t0 = time.perf_counter()
    for n, pos in enumerate(positions):
        pid = encode_position_id(pos)
        state = parse_position(pid)
        model = {k: an.cube(state, ply=k) for k in plies}
        settings = RolloutSettings(trials=args.trials, seed=args.seed + n, live_cube=True)
        dec = None
        for _, dec in an.iter_cube_rollout(state, settings):
            pass
        nd, dt, dp = dec.no_double, dec.double_take, dec.double_pass
        se_diff = dec.standard_errors["double_take_minus_no_double"]
        se_dt = dec.standard_errors["double_take"]
        doubles, takes = _decisions(nd, dt, dp)
        # the double decision: no double against the opponent's best reply
        if dt < dp:
            m_double, se_double = abs(dt - nd), se_diff
        else:
            m_double, se_double = abs(dp - nd), dec.standard_errors["no_double"]
        clear_double = m_double > max(args.margin, 2 * se_double)
        m_take = abs(dp - dt)
        clear_take = m_take > max(args.margin, 2 * se_dt)
        # a take decision matters to the action's name only when the player doubles (or is
        # too good: then it is a pass by name, but the opponent's reply is still a decision)
        clear = clear_double and clear_take
        marks = []
        for k in plies:
            md, mt = _decisions(model[k].no_double, model[k].double_take, model[k].double_pass)
            if clear:
                agree[k][1] += 1
                agree[k][0] += model[k].action == dec.action
            if clear_double:
                agree_d[k][1] += 1
                agree_d[k][0] += md == doubles
            if clear_take:
                agree_t[k][1] += 1
                agree_t[k][0] += mt == takes
            marks.append(f"{k}-ply {model[k].action}")
        print(f"{n + 1:3d} {pid}  rollout {dec.action} (ND {nd:+.3f} DT {dt:+.3f} "
              f"+-{se_dt:.3f}, DT-ND se {se_diff:.3f}){'  clear' if clear else ''}  | "
              + "; ".join(marks), flush=True)
    print(f"\n{time.perf_counter() - t0:.0f} s")
    for k in plies:
        a, c = agree[k]
        ad, cd = agree_d[k]
        at, ct = agree_t[k]
        pct = (lambda x, y: f"{100 * x / y:.0f}%" if y else "-")
        print(f"{k}-ply: action agrees on {a}/{c} clear positions ({pct(a, c)}); double "
              f"decision {ad}/{cd} ({pct(ad, cd)}); take decision {at}/{ct} ({pct(at, ct)})")


if __name__ == "__main__":
    main()
