"""Gammon and backgammon outputs refitted toward full-game rollouts (``bgtui train
game-rollouts`` and ``bgtui train heads``).

Nets fitted to their own n-ply evaluations inherit what the leaves of the lookahead believe:
a backgammon enters a 2-ply target only when it happens within two rolls, so nets trained on
such targets understate the backgammon chances. A rollout counts what happens in whole
games. Here the output units for the gammons and backgammons (``w2``, ``b2`` rows 1-4) of
every net but the race net (contact, crashed, early, holding, trailing, the mutual, the
anchor, the early trailing, the early bar and the bar nets below ``EARLY_PIPS``) are
refitted to rollout outcomes by logistic regression on the nets' own hidden layer, with a
ridge penalty toward the current weights; the hidden layer and the win output stay as they
were.
"""

from __future__ import annotations

import time
from functools import partial
from pathlib import Path

import numpy as np

from bgtui.analysis.atomic import atomic_write
from bgtui.analysis.weights import (
    as_nets,
    load_weights,
    save_weights,
    tied_nets,
    with_databases,
)
from bgtui.engine import NET_NAMES, net_copy

#: output rows refitted by default: win gammon, win backgammon, lose gammon, lose backgammon
DEFAULT_HEADS = (1, 2, 3, 4)
#: the nets refitted (``nn.net_class`` values) and their names
REFIT_NETS = tuple((k, name) for k, name in enumerate(NET_NAMES) if name != "race")


def _chunks(data_dir) -> list[Path]:
    return sorted(Path(data_dir).glob("chunk-[0-9][0-9][0-9][0-9].npz"))


def sample_contact_positions(
    ev, n: int, seed: int, games: int, capacity: int = 0, ws=None
) -> np.ndarray:
    """``n`` contact positions drawn at random (seed ``seed``) from 0-ply self-play of
    ``games`` games of the evaluator ``ev`` (seed ``seed``; at most ``capacity`` positions
    kept, default ``250 * games``). ``ws``: a play scratch (``evaluate.make_play_workspace``) to
    reuse."""
    from bgtui.engine import contact_positions, hidden_size, make_play_workspace, make_rng

    if ws is None:
        ws = make_play_workspace(hidden_size(ev))
    pos = contact_positions(ev, games, make_rng(seed), ws, capacity or games * 250)
    return pos[np.random.default_rng(seed).choice(len(pos), n, replace=False)]


def build_game_rollouts(
    data_dir,
    weights,
    positions: int,
    shard: int = 500,
    seed: int = 5000,
    trials: int = 36,
    workers: int = 2,
    games: int = 400,
    log=print,
) -> int:
    """Grow ``data_dir`` to ``positions`` contact positions labelled by full-game rollouts, in
    chunks of ``shard`` written atomically (a restarted build resumes). Chunk ``c``: 0-ply
    self-play of ``games`` games of the ``weights`` (seed ``seed + c``), ``shard`` of their
    contact positions drawn at random, each rolled out ``trials`` times (variance reduction,
    quasi-random dice, 0-ply play, cut where a bear-off database values the position).
    Returns the number of positions in the directory."""
    from bgtui.engine import hidden_size, make_play_workspace
    from bgtui.training.train import rollout_targets

    data_dir = Path(data_dir)
    data_dir.mkdir(parents=True, exist_ok=True)
    ev = with_databases(load_weights(weights)[0], bearoff=True)
    ws = make_play_workspace(hidden_size(ev))
    for c in range((positions + shard - 1) // shard):
        path = data_dir / f"chunk-{c:04d}.npz"
        if path.exists():
            continue
        s = seed + c
        pos = sample_contact_positions(ev, shard, s, games, ws=ws)
        t = time.time()
        ro = rollout_targets(ev, pos, trials, s, workers)
        atomic_write(path, partial(np.savez, pos=pos, ro=ro), mode=0o644)
        log(f"chunk {c}: {shard} positions, {trials}-trial rollouts, {time.time() - t:.0f} s")
    return sum(len(np.load(p)["pos"]) for p in _chunks(data_dir))


def fit_head(
    H: np.ndarray, t: np.ndarray, w0: np.ndarray, ridge: float, iterations: int = 50
) -> np.ndarray:
    """Weights (the last one the bias) of one sigmoid output over the features ``H`` (float64,
    a column of ones last) minimising the cross-entropy against the targets ``t`` (0..1) plus
    ``ridge / 2 * |w - w0|^2``: Newton's method with backtracking (the objective is convex)."""

    def objective(w):
        z = H @ w
        return float((np.logaddexp(0.0, z) - t * z).sum() + 0.5 * ridge * ((w - w0) ** 2).sum())

    w = w0.astype(np.float64).copy()
    f = objective(w)
    eye = np.eye(len(w))
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-(H @ w)))
        g = H.T @ (p - t) + ridge * (w - w0)
        step = np.linalg.solve((H * (p * (1.0 - p))[:, None]).T @ H + ridge * eye, g)
        a = 1.0
        while objective(w - a * step) > f - 1e-4 * a * float(g @ step) and a > 1e-6:
            a *= 0.5  # a full Newton step from far off can overshoot
        w = w - a * step
        f_new = objective(w)
        if f - f_new < 1e-9:
            break
        f = f_new
    return w


def _cross_entropy(p, t) -> float:
    p = np.clip(p, 1e-7, 1.0 - 1e-7)
    return float(-(t * np.log(p) + (1.0 - t) * np.log(1.0 - p)).mean())


def refit_heads(
    out, init, data_dir, ridge: float = 1.0, heads=DEFAULT_HEADS, holdout: int = 5, log=print
) -> dict:
    """Refit output rows ``heads`` of the contact nets (all but the race net) of ``init`` (a
    net that is another, as an early, a trailing or a mutual net that is the contact net, a
    holding net that is the crashed net, a mutual trailing net that is the trailing net, an
    anchor net that is the net of the class it splits, an early trailing or early bar net
    that is the early net, an early trailing bar net that is the early trailing net or a bar
    net below ``EARLY_PIPS`` that is the net of the class it splits, refitted as one with the
    net its ties end at: an anchor bar net that is the anchor net that is the contact net
    with the contact net) on the rollout
    outcomes in ``data_dir`` (:func:`build_game_rollouts`), leaving every ``holdout``-th chunk
    out to measure the fit (0: use all); write the weights to ``out``. Returns the report that
    also goes into the weights' metadata (``output_refit``)."""
    from bgtui.engine import net_class
    from bgtui.training.adam import dense_inputs, forward

    files = _chunks(data_dir)
    if not files:
        raise ValueError(f"no rollout chunks (chunk-*.npz) in {data_dir}")
    if not all(0 <= h <= 4 for h in heads):
        raise ValueError(f"output rows are 0..4, got {list(heads)}")
    pos, tg, test = [], [], []
    for i, f in enumerate(files):
        with np.load(f) as z:
            pos.append(z["pos"])
            tg.append(z["ro"])
            test.append(np.full(len(z["pos"]), holdout > 0 and i % holdout == 0))
    P, T, test = np.concatenate(pos), np.concatenate(tg), np.concatenate(test)
    ev, meta = load_weights(init)
    nets = [net_copy(net) for net in as_nets(ev)]
    cls = np.array([net_class(p) for p in P])
    for k, to in tied_nets([ev]):  # a net that is another: refitted as one with that net
        nets[k] = nets[to]
        cls[cls == k] = to
    report: dict = {}
    for c, name in REFIT_NETS:
        rows = np.flatnonzero(cls == c)
        if len(rows) == 0:
            continue
        net = nets[c]
        h, _ = forward(net, dense_inputs(P, rows))
        H = np.hstack([h, np.ones((len(h), 1))]).astype(np.float64)
        te = test[rows]
        tr = ~te
        for j in heads:
            t = np.clip(T[rows, j].astype(np.float64), 0.0, 1.0)
            w0 = np.concatenate([net.w2[j], [net.b2[j]]]).astype(np.float64)
            w = fit_head(H[tr], t[tr], w0, ridge)
            r = {"train": int(tr.sum()), "held_out": int(te.sum())}
            if te.any():
                p0 = 1.0 / (1.0 + np.exp(-(H[te] @ w0)))
                p1 = 1.0 / (1.0 + np.exp(-(H[te] @ w)))
                r.update(
                    ce_before=_cross_entropy(p0, t[te]),
                    ce_after=_cross_entropy(p1, t[te]),
                    mse_before=float(((p0 - t[te]) ** 2).mean()),
                    mse_after=float(((p1 - t[te]) ** 2).mean()),
                    mean_before=float(p0.mean()),
                    mean_after=float(p1.mean()),
                    mean_rollouts=float(t[te].mean()),
                )
                log(
                    f"{name} output {j}: held-out ({r['held_out']}) cross-entropy "
                    f"{r['ce_before']:.5f} -> {r['ce_after']:.5f}, squared error "
                    f"{r['mse_before']:.6f} -> {r['mse_after']:.6f}, mean {r['mean_before']:.4f}"
                    f" -> {r['mean_after']:.4f} (rollouts {r['mean_rollouts']:.4f})"
                )
            report[f"{name}_{j}"] = r
            net.w2[j] = w[:-1].astype(np.float32)
            net.b2[j] = np.float32(w[-1])
    info = {
        "data": str(data_dir),
        "positions": int(len(P)),
        "heads": list(heads),
        "ridge": ridge,
        "holdout": holdout,
        "from": str(init),
        "report": report,
    }
    meta = dict(meta, output_refit=info)
    save_weights(out, tuple(nets), meta)
    return info
