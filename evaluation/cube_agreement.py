"""Cube actions of the model (0-2 ply) against bgtui's own live-cube rollouts.

    python3 evaluation/cube_agreement.py --reference evaluation/data/cube_rollouts_s8.json
    python3 evaluation/cube_agreement.py [--positions 40] [--trials 1296] [--seed 5]
        [--vr-filter K] [--workers N] [--save FILE | --reference FILE]

``--save FILE`` writes each position's rollout (no double, double/take, their standard errors)
to a JSON file as it goes (a re-run with the same file resumes after the last position saved);
``--reference FILE`` reads them back instead of rolling out, so that changes to the model can
be compared on the same references in seconds. With ``--owned`` each rollout has a third
branch on the same dice, the player owning the cube and not redoubling before his first roll
(the owned state's no-double value, ``owned``); every row also keeps the trials' cubeless
equity (``cubeless``: the games are played out after a pass) and probabilities. Where a
reference holds them, the owned state, the cubeless equity and the lift (no double minus
cubeless) are compared as well.

Issue 5's target compares bgtui's 2-ply cube action with an established engine's on positions
where that engine's action is clear (equity margin > 0.04). No such engine is available here, so
this measures the nearest thing bgtui can check on its own: the model's action (``Analyzer.cube``:
Janowski at 0-ply, cubeful lookahead at 1 and 2 ply; and, as "N-ply root", Janowski once over
the N-ply cubeless probabilities) against the action of a live-cube
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

import json
import os
import time
from dataclasses import replace

import numpy as np

from bgtui.analysis.atomic import atomic_write_text
from bgtui.analysis.cube import decide, in_cube_region
from bgtui.analysis.formats import encode_position_id, parse_position
from bgtui.analysis.models import RolloutSettings
from bgtui.analysis.options import script_parser
from bgtui.analysis.rollout import RolloutJob
from bgtui.analysis.service import Analyzer
from bgtui.analysis.weights import load_weights, with_databases
from bgtui.engine import (
    O_CUBELESS,
    O_LIVE,
    OWNED,
    START,
    evaluate0,
    hidden_size,
    make_play_workspace,
    make_rng,
    sample_positions,
)


def _candidates(seed: int, count: int):
    """Self-play positions (player on roll) with doubling chances by 0-ply, ``count`` of them,
    spread over the games sampled (every k-th one)."""
    ev = with_databases(load_weights()[0], bearoff=False)
    ws = make_play_workspace(hidden_size(ev))
    dest = np.zeros((40000, 26), dtype=np.int8)
    m = sample_positions(ev, 1200, make_rng(seed), START, 0.0, ws, dest)
    keep = []
    for pos in dest[:m]:
        if in_cube_region(evaluate0(pos, ev)):
            keep.append(pos.copy())
    step = max(1, len(keep) // count)
    return keep[::step][:count]


def _model(an, state, method):
    """(no double, double/take, double/pass, action, the CubeDecision or None) by
    ``method``: "N-ply" is
    ``Analyzer.cube`` (Janowski at 0-ply, cubeful lookahead above), "N-ply root" Janowski's
    model applied once to the N-ply cubeless probabilities (bgtui's cube model before the
    cubeful lookahead)."""
    ply = int(method[0])
    if method.endswith("root"):
        d = decide(
            an.probabilities(state.position, ply),
            state.position,
            state.cube_owner,
            state.jacoby,
            state.beavers,
        )
        return d["no_double"], d["double_take"], d["double_pass"], d["action"], None
    c = an.cube(state, ply=ply)
    return c.no_double, c.double_take, c.double_pass, c.action, c


def _decisions(nd, dt, dp=1.0):
    """(doubles?, takes?) of an equity triple: double when the opponent's best reply beats
    not doubling; take when double/take is below double/pass."""
    return min(dt, dp) > nd, dt < dp


def _rollout_reference(an, state, args, n):
    """The live-cube rollout's figures for one position (a dict, JSON-ready)."""
    settings = RolloutSettings(
        trials=args.trials,
        seed=args.seed + n,
        live_cube=True,
        vr_filter=args.vr_filter,
        workers=args.workers,
    )
    job = an.make_cube_rollout_job(state, settings)
    if args.owned:
        # a third branch on the same dice: the player on roll owns the cube and does not
        # redouble before his first roll (the owned state's no-double value)
        job = RolloutJob(
            np.concatenate([job.roots, job.roots[:1]]),
            job.labels + ["No redouble"],
            job.position_ids + job.position_ids[:1],
            job.settings,
            False,
            cubes=np.concatenate([job.cubes, [[1.0, OWNED, 1.0]]]),
        )
    dec = None
    for _, dec in an.iter_cube_rollout(state, settings, job=job):
        pass
    se = dec.standard_errors
    row = {
        "no_double": dec.no_double,
        "double_take": dec.double_take,
        "double_pass": dec.double_pass,
        "action": dec.action,
        "se_no_double": se["no_double"],
        "se_double_take": se["double_take"],
        "se_diff": se["double_take_minus_no_double"],
    }
    # the trials play every game out: its cubeless result (variance reduced) as well
    row["cubeless"] = job._mean(0, O_CUBELESS)
    row["se_cubeless"] = job._se(0, 0)
    row["probabilities"] = [job._mean(0, k) for k in range(5)]
    if args.owned:
        row["owned"] = job._mean(2, O_LIVE)
        row["se_owned"] = job._se(2, 4)
        row["se_owned_minus_no_double"] = job._paired_se(2, 0, 4)
    return row


def _load_json(path):
    if path and os.path.exists(path):
        with open(path) as f:
            return json.load(f)
    return None


def _save_json(path, data):
    atomic_write_text(path, json.dumps(data, indent=1), mode=0o644)


def main():
    ap = script_parser(
        __doc__.splitlines()[0],
        positions=40,
        trials=1296,
        seed=5,
        margin=0.04,
        vr_filter=0,
        workers=0,
        owned=False,
        helps={"owned": "also roll out the player-owned cube (no redouble) on the same dice"},
    )
    ap.add_argument("--save", help="write the rollouts to this JSON file (resumes)")
    ap.add_argument("--reference", help="read the rollouts from this JSON file")
    ap.add_argument("--weights", default=None, help="the model's weights (default: shipped)")
    args = ap.parse_args()

    an = Analyzer(args.weights)
    ref = _load_json(args.reference)
    if args.reference and ref is None:
        ap.error(f"no such reference file: {args.reference}")
    if ref is not None:
        args.seed, args.trials = ref["seed"], ref["trials"]
        positions = [parse_position(r["position_id"]).position for r in ref["rows"]]
        print(
            f"{len(positions)} positions, live-cube rollouts of {args.trials} trials each "
            f"read from {args.reference}",
            flush=True,
        )
    else:
        positions = _candidates(args.seed, args.positions)
        ref = _load_json(args.save) or {
            "seed": args.seed,
            "trials": args.trials,
            "vr_filter": args.vr_filter,
            "rows": [],
        }
        print(
            f"{len(positions)} positions, live-cube rollouts of {args.trials} trials each "
            f"(variance reduction, 0-ply)",
            flush=True,
        )
    plies = ("0-ply", "1-ply", "2-ply", "1-ply root", "2-ply root")
    agree = {k: [0, 0] for k in plies}  # action name: [agreements, clear positions]
    agree_d = {k: [0, 0] for k in plies}
    agree_t = {k: [0, 0] for k in plies}
    level = {k: [] for k in plies}  # (model - rollout) no double, double/take
    # (model - rollout) of the owned state's no redouble, the cubeless equity and the lift
    # (no double - cubeless), where the reference holds them
    states = {k: {"owned": [], "cubeless": [], "lift": []} for k in plies if "root" not in k}
    t0 = time.perf_counter()
    for n, pos in enumerate(positions):
        pid = encode_position_id(pos)
        state = parse_position(pid)
        model = {k: _model(an, state, k) for k in plies}
        if n < len(ref["rows"]):
            r = ref["rows"][n]
            assert r["position_id"] == pid, (r["position_id"], pid)
        else:
            r = dict(position_id=pid, **_rollout_reference(an, state, args, n))
            ref["rows"].append(r)
            if args.save:
                _save_json(args.save, ref)
        nd, dt, dp = r["no_double"], r["double_take"], r["double_pass"]
        se_diff, se_dt = r["se_diff"], r["se_double_take"]
        doubles, takes = _decisions(nd, dt, dp)
        # the double decision: no double against the opponent's best reply
        if dt < dp:
            m_double, se_double = abs(dt - nd), se_diff
        else:
            m_double, se_double = abs(dp - nd), r["se_no_double"]
        clear_double = m_double > max(args.margin, 2 * se_double)
        m_take = abs(dp - dt)
        clear_take = m_take > max(args.margin, 2 * se_dt)
        # a take decision matters to the action's name only when the player doubles (or is
        # too good: then it is a pass by name, but the opponent's reply is still a decision)
        clear = clear_double and clear_take
        marks = []
        for k in states:
            c = model[k][4]
            if "owned" in r:
                owned = an.cube(replace(state, cube_owner="player", cube_value=2), int(k[0]))
                states[k]["owned"].append(owned.no_double - r["owned"])
            if "cubeless" in r:
                cl = c.probabilities.cubeless_equity
                states[k]["cubeless"].append(cl - r["cubeless"])
                states[k]["lift"].append((c.no_double - cl) - (nd - r["cubeless"]))
        for k in plies:
            nd_k, dt_k, dp_k, action_k = model[k][:4]
            level[k].append((nd_k - nd, dt_k - dt))
            md, mt = _decisions(nd_k, dt_k, dp_k)
            if clear:
                agree[k][1] += 1
                agree[k][0] += action_k == r["action"]
            if clear_double:
                agree_d[k][1] += 1
                agree_d[k][0] += md == doubles
            if clear_take:
                agree_t[k][1] += 1
                agree_t[k][0] += mt == takes
            marks.append(f"{k} {action_k}")
        print(
            f"{n + 1:3d} {pid}  rollout {r['action']} (ND {nd:+.3f} DT {dt:+.3f} "
            f"+-{se_dt:.3f}, DT-ND se {se_diff:.3f}){'  clear' if clear else ''}  | "
            + "; ".join(marks),
            flush=True,
        )
    print(f"\n{time.perf_counter() - t0:.0f} s")
    for k in plies:
        a, c = agree[k]
        ad, cd = agree_d[k]
        at, ct = agree_t[k]

        def pct(x, y):
            return f"{100 * x / y:.0f}%" if y else "-"

        print(
            f"{k:10s}: action agrees on {a}/{c} clear positions ({pct(a, c)}); double "
            f"decision {ad}/{cd} ({pct(ad, cd)}); take decision {at}/{ct} ({pct(at, ct)})"
        )
    print("\nlevel (model - rollout, all positions): mean error / mean absolute error")
    for k in plies:
        e = np.array(level[k])
        print(
            f"{k:10s}: no double {e[:, 0].mean():+.4f} / {np.abs(e[:, 0]).mean():.4f};  "
            f"double/take {e[:, 1].mean():+.4f} / {np.abs(e[:, 1]).mean():.4f}"
        )
    for name, what in (
        ("owned", "the player owns the cube, no redouble"),
        ("cubeless", "cubeless equity"),
        ("lift", "no double minus cubeless"),
    ):
        if any(states[k][name] for k in states):
            print(f"\n{what} (model - rollout): mean error / mean absolute error")
            for k in states:
                e = np.array(states[k][name])
                print(f"{k:10s}: {e.mean():+.4f} / {np.abs(e).mean():.4f}  ({len(e)} positions)")


if __name__ == "__main__":
    main()
