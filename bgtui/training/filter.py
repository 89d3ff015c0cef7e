"""``bgtui train filter``: distil the filter net (:mod:`bgtui.engine.filter_net`) from the
evaluator.

Samples: every play of every roll of self-play positions of the evaluator, each with the
evaluator's 0-ply equity of it for the mover (the bear-off databases included, as rollouts use
them). The net is fitted by Adam on squared error (equities clipped to [-3, 3]); a tenth of the
positions is held out and the report says how well the filter does there what it is for:
picking, among each roll's plays, a few that include the evaluator's best.
"""

from __future__ import annotations

import json
import time

import numpy as np

from bgtui.analysis.weights import load_weights, nets_of, save_filter_net, with_databases
from bgtui.engine import (
    FILTER_ACTIVE,
    FILTER_ROWS,
    ROLL_WEIGHTS,
    START,
    hidden_size,
    make_eval_workspace,
    make_move_workspace,
    make_play_buffers,
    make_play_workspace,
    make_rng,
    sample_positions,
)
from bgtui.training.kernels import filter_samples

#: probability of each of the 21 rolls (doubles 1/36, the others 2/36)
ROLL_PROBS = ROLL_WEIGHTS / 36


def play_samples(ev, positions, cap):
    """Every play of every roll of ``positions`` (at most ``cap``): its filter rows, the
    evaluator ``ev``'s 0-ply equity of it for the mover and its group (position * 21 + roll),
    and how many positions were used (``training.kernels.filter_samples``)."""
    mws = make_move_workspace()
    ews = make_eval_workspace(hidden_size(ev))
    plays = make_play_buffers()
    rows = np.zeros((cap, FILTER_ACTIVE), dtype=np.int16)
    values = np.zeros(cap, dtype=np.float32)
    groups = np.zeros(cap, dtype=np.int64)
    m, used = filter_samples(
        positions, ev, mws, ews, plays.play_pos, plays.play_moves, rows, values, groups, cap
    )
    return rows[:m], values[:m], groups[:m], used


def scores(net, rows):
    """The filter net's scores of samples ``rows`` (numpy, float64)."""
    w1, b1, w2 = net
    out = []
    for s in range(0, len(rows), 100_000):
        h = w1[rows[s : s + 100_000].astype(np.int64)].sum(1) + b1
        out.append((1.0 / (1.0 + np.exp(-h))) @ w2[:-1] + w2[-1])
    return np.concatenate(out) if out else np.zeros(0)


def filter_quality(values, groups, s, ks=(1, 2, 3, 4)) -> dict:
    """For each k: how often the best by the evaluator of the filter's top k plays of a roll
    is the evaluator's best play of the roll, the mean equity it falls short, and the variance
    of the luck it would give around the exact luck, as a share of the exact luck's variance
    (the cost to variance reduction). ``groups``: position * 21 + roll, whole positions."""
    starts = np.flatnonzero(np.r_[True, groups[1:] != groups[:-1]])
    ends = np.r_[starts[1:], len(groups)]
    ng = len(starts)
    assert ng % 21 == 0, "whole positions only"
    best = np.array([values[a:e].max() for a, e in zip(starts, ends)])
    order = [np.argsort(-s[a:e], kind="stable") for a, e in zip(starts, ends)]
    report = {}
    exact = best.reshape(-1, 21)
    luck_exact = exact - (exact * ROLL_PROBS).sum(1, keepdims=True)
    var_exact = float(((luck_exact**2) * ROLL_PROBS).sum(1).mean())
    for k in ks:
        f = np.array([values[a:e][o[:k]].max() for a, e, o in zip(starts, ends, order)])
        ff = f.reshape(-1, 21)
        luck = ff - (ff * ROLL_PROBS).sum(1, keepdims=True)
        resid = float((((luck - luck_exact) ** 2) * ROLL_PROBS).sum(1).mean())
        report[k] = dict(
            best_kept=float(np.mean(f == best)),
            shortfall=float(np.mean(best - f)),
            luck_variance_share=resid / var_exact,
        )
    return report


def fit_filter(
    rows,
    values,
    hidden: int,
    epochs: int,
    seed: int,
    alpha: float = 0.003,
    batch: int = 512,
    log=print,
):
    """Adam on squared error; the step halves after each pass. Returns (w1, b1, w2)."""
    rng = np.random.default_rng(seed)
    w1 = (rng.standard_normal((FILTER_ROWS, hidden)) * 0.1).astype(np.float32)
    b1 = np.zeros(hidden, np.float32)
    w2 = np.zeros(hidden + 1, np.float32)
    w2[:-1] = rng.standard_normal(hidden) * 0.1
    params = [w1, b1, w2]
    m1 = [np.zeros_like(p) for p in params]
    m2 = [np.zeros_like(p) for p in params]
    target = np.clip(values, -3.0, 3.0).astype(np.float32)
    step = 0
    for ep in range(epochs):
        perm = rng.permutation(len(rows))
        total = 0.0
        t0 = time.time()
        for s in range(0, len(rows), batch):
            b = perm[s : s + batch]
            x = rows[b].astype(np.int64)
            a = 1.0 / (1.0 + np.exp(-(w1[x].sum(1) + b1)))
            err = a @ w2[:-1] + w2[-1] - target[b]
            total += float(err @ err)
            g = err / len(b)
            g2 = np.empty_like(w2)
            g2[:-1] = a.T @ g
            g2[-1] = g.sum()
            dh = (g[:, None] * w2[:-1]) * a * (1.0 - a)
            g1 = np.zeros_like(w1)
            np.add.at(g1, x.ravel(), np.repeat(dh, FILTER_ACTIVE, axis=0))
            step += 1
            for p, gp, u, v in zip(params, (g1, dh.sum(0), g2), m1, m2):
                u *= 0.9
                u += 0.1 * gp
                v *= 0.999
                v += 0.001 * gp * gp
                p -= alpha * (u / (1 - 0.9**step)) / (np.sqrt(v / (1 - 0.999**step)) + 1e-8)
        log(
            json.dumps(
                {
                    "pass": ep + 1,
                    "train_rms": round(float(np.sqrt(total / len(rows))), 5),
                    "seconds": round(time.time() - t0, 1),
                }
            )
        )
        alpha *= 0.5
    return w1, b1, w2


def train_filter(
    out,
    weights,
    positions: int,
    hidden: int = 32,
    epochs: int = 3,
    seed: int = 1,
    cap: int = 4_000_000,
    log=print,
) -> dict:
    """Distil a filter net from ``weights`` on the plays of ``positions`` self-play positions
    (a tenth held out); write it to ``out``; return the held-out report."""
    ev0, meta = load_weights(weights)
    ev = with_databases(nets_of(ev0), bearoff=True)
    ws = make_play_workspace(hidden_size(ev))
    dest = np.zeros((positions, 26), dtype=np.int8)
    n = sample_positions(ev, positions // 20 + 1, make_rng(seed), START, 0.0, ws, dest)
    pos = dest[:n]
    np.random.default_rng(seed).shuffle(pos)
    n_test = max(1, n // 10)
    rows, values, _, used = play_samples(ev, pos[n_test:], cap)
    log(json.dumps({"positions": n, "train_positions": int(used), "samples": len(rows)}))
    net = fit_filter(rows, values, hidden, epochs, seed, log=log)
    del rows, values
    trows, tvalues, tgroups, _ = play_samples(ev, pos[:n_test], cap)
    s = scores(net, trows)
    w1, b1, w2 = (np.ascontiguousarray(a, dtype=np.float32) for a in net)
    report = {
        "held_out_positions": n_test,
        "held_out_rms": float(np.sqrt(np.mean((s - np.clip(tvalues, -3, 3)) ** 2))),
        "filter": {
            str(k): {a: round(b, 5) for a, b in v.items()}
            for k, v in filter_quality(tvalues, tgroups, s).items()
        },
    }
    log(json.dumps(report))
    save_filter_net(
        out,
        (w1, b1, w2),
        {
            "distilled_from": meta.get("sha256"),
            "positions": n,
            "samples": int(used),
            "epochs": epochs,
            "seed": seed,
            "report": report,
        },
    )
    return report
