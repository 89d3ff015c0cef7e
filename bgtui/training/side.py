"""``bgtui train side``: fit the race side net (``bgtui.engine``'s ``make_side_net``).

The net gives one side's three distributions of rolls (to bear off all, to a first checker
off, to leave the opponent's home board); the one-sided formula makes a race's five
probabilities of both sides' distributions, each side's from its row of the one-sided bear-off
database where it has one. Two stages, both in numpy:

1. Cross-entropy toward the rows of the extended one-sided database (home boards and a
   straggler on 7..18): every one-sided distribution the code can compute exactly.
2. The rolled-out races of the race training sets (``train dataset --race-rollouts``): the
   squared error of the formula's five probabilities against each race's rollout, through
   both sides' softmaxes (a side with a database row is fixed), each step followed by a step of
   stage 1 at a fifth of the step size so that the net keeps the rows.

Held-out races (``--holdout``) are judged after every pass beside the shipped race net.
"""

from __future__ import annotations

import glob
import json
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from bgtui.engine import (
    EQUITY_COEF,
    ONE_SIDED_SIZE,
    SIDE_BUCKETS,
    SIDE_HEADS,
    SIDE_INPUTS,
    SIDE_OUTPUTS,
    STRAGGLER_HOME,
    STRAGGLER_LO,
    bearoff_position,
    encode_sides,
    fixed_heads,
    hidden_size,
    is_race,
    kernel,
    make_eval_workspace,
    make_side_net,
    side_row,
)
from bgtui.training.adam import group_order, sibling_residuals

NB = SIDE_BUCKETS
# TAIL[a, b] = [b >= a]: p @ TAIL.T is P(X >= a); TAIL1[a, b] = [b >= a + 1]
TAIL = np.triu(np.ones((NB, NB)))
TAIL1 = np.triu(np.ones((NB, NB)), 1)


@dataclass(frozen=True)
class SideSettings:
    hidden: int = 128
    passes: int = 40  #: over the races
    alpha: float = 0.001  #: the first race pass's step size (decays tenfold over the passes)
    pre_passes: int = 6  #: over the database rows
    pre_rows: int = 1_500_000  #: database rows drawn for stage 1
    batch: int = 256
    seed: int = 1
    rank_weight: float = 0.0  #: of the squared error in the equity differences of a roll's plays


def softmaxes(z, heads):
    """(n, heads, buckets): a softmax over each of the ``heads`` equal parts of each row of
    the logits ``z`` (n, heads * buckets)."""
    z = z.reshape(len(z), heads, -1)
    z = z - z.max(axis=2, keepdims=True)
    p = np.exp(z)
    return p / p.sum(axis=2, keepdims=True)


def softmax_back(p, g):
    """The gradient at the softmaxes' inputs of a loss whose gradient at their outputs ``p``
    is ``g`` (both (n, heads, buckets))."""
    return p * (g - (p * g).sum(axis=2, keepdims=True))


def adam_step(params, grads, state, alpha):
    """One Adam step of ``params`` (arrays, in place) down ``grads``, with the moments
    ``state.m``, ``state.v`` (lists like ``params``) and the step count ``state.t``; returns
    the new count."""
    t = state.t + 1
    for k, (par, gr) in enumerate(zip(params, grads)):
        state.m[k] = 0.9 * state.m[k] + 0.1 * gr
        state.v[k] = 0.999 * state.v[k] + 0.001 * gr * gr
        mh = state.m[k] / (1 - 0.9**t)
        vh = state.v[k] / (1 - 0.999**t)
        par -= (alpha * mh / (np.sqrt(vh) + 1e-8)).astype(par.dtype)
    return t


class SideFit:
    """The side net's dense weights, trained by Adam (tanh hidden layer, skip layer)."""

    def __init__(self, rng, hidden):
        n = SIDE_INPUTS
        self.w1 = rng.standard_normal((n, hidden)) * np.sqrt(1 / n)
        self.b1 = np.zeros(hidden)
        self.w2 = rng.standard_normal((hidden, SIDE_OUTPUTS)) * np.sqrt(1 / hidden)
        self.b2 = np.zeros(SIDE_OUTPUTS)
        self.skip = np.zeros((n, SIDE_OUTPUTS))
        self.params = [self.w1, self.b1, self.w2, self.b2, self.skip]
        self.m = [np.zeros_like(p) for p in self.params]
        self.v = [np.zeros_like(p) for p in self.params]
        self.t = 0

    def forward(self, x):
        h = np.tanh(x @ self.w1 + self.b1)
        return h, softmaxes(h @ self.w2 + self.b2 + x @ self.skip, SIDE_HEADS)

    def update(self, x, h, gz, alpha):
        """One Adam step from the loss's gradient ``gz`` (n, heads, buckets) at the softmaxes'
        inputs (already divided by the batch size)."""
        g = gz.reshape(len(x), -1)
        gh = (g @ self.w2.T) * (1 - h * h)
        self.t = adam_step(
            self.params, [x.T @ gh, gh.sum(axis=0), h.T @ g, g.sum(axis=0), x.T @ g], self, alpha
        )

    def step(self, x, y, alpha):
        """A cross-entropy step toward the distributions ``y``; returns the loss."""
        h, p = self.forward(x)
        self.update(x, h, (p - y) / len(x), alpha)
        return float(-(y * np.log(p + 1e-12)).sum() / len(x))

    def side_net(self):
        return make_side_net(self.w1, self.b1, self.w2, self.b2, self.skip)


def with_clear(d2):
    """Database rows' (n, 2, buckets) distributions with the third: 0 rolls to leave 19..24."""
    out = np.zeros((len(d2), SIDE_HEADS, NB))
    out[:, :2] = d2[:, :, :NB]
    out[:, 2, 0] = 1.0
    return out


def race5(pa, pb):
    """The five probabilities (n, 5) for the side on roll of the sides' distributions ``pa``
    (on roll) and ``pb`` (n, heads, buckets), as the engine's ``side_race_probs`` counts them
    (before its clamps), and a function of ``g`` (n, 5) giving the gradients of
    ``sum(g * out)`` with respect to ``pa`` and ``pb``."""
    ta = pa[:, 0] @ TAIL
    tb = pb @ TAIL.T
    t1a = pa @ TAIL1.T
    out = np.stack(
        [
            (pa[:, 0] * tb[:, 0]).sum(1),
            (pa[:, 0] * tb[:, 1]).sum(1),
            (pa[:, 0] * tb[:, 2]).sum(1),
            (pb[:, 0] * t1a[:, 1]).sum(1),
            (pb[:, 0] * t1a[:, 2]).sum(1),
        ],
        axis=1,
    )

    def grads(g):
        vb = pb[:, 0] @ TAIL1
        ga = np.zeros_like(pa)
        gb = np.zeros_like(pb)
        ga[:, 0] = g[:, 0:1] * tb[:, 0] + g[:, 1:2] * tb[:, 1] + g[:, 2:3] * tb[:, 2]
        ga[:, 1] = g[:, 3:4] * vb
        ga[:, 2] = g[:, 4:5] * vb
        gb[:, 0] = g[:, 0:1] * ta + g[:, 3:4] * t1a[:, 1] + g[:, 4:5] * t1a[:, 2]
        gb[:, 1] = g[:, 1:2] * ta
        gb[:, 2] = g[:, 2:3] * ta
        return ga, gb

    return out, grads


def table_sides(rng, n, nrows):
    """(sides int8[n, 25], rows): rows drawn from the database's home-board rows (a third)
    and straggler rows (if it has them)."""
    k_home = n if nrows <= ONE_SIDED_SIZE else n // 3
    rows = np.concatenate(
        [
            rng.integers(0, ONE_SIDED_SIZE, k_home),
            ONE_SIDED_SIZE + rng.integers(0, 12 * STRAGGLER_HOME, n - k_home),
        ]
    )
    sides = np.zeros((n, 25), dtype=np.int8)
    home = np.zeros(6, dtype=np.int64)
    for i, r in enumerate(rows):
        q = r if r < ONE_SIDED_SIZE else (r - ONE_SIDED_SIZE) % STRAGGLER_HOME
        bearoff_position(q, home)
        sides[i, 1:7] = home
        if r >= ONE_SIDED_SIZE:
            sides[i, (r - ONE_SIDED_SIZE) // STRAGGLER_HOME + STRAGGLER_LO] += 1
    return sides, rows


@kernel
def _side_rows(positions, nrows):
    out = np.empty((positions.shape[0], 2), dtype=np.int64)
    for k in range(positions.shape[0]):
        for side in range(2):
            out[k, side] = side_row(positions[k], side, nrows)
    return out


def sides_of(positions):
    """(n, 2, 25) the sides (player on roll, opponent) of ``positions`` (int8[n, 26])."""
    out = np.zeros((len(positions), 2, 25), dtype=np.int8)
    out[:, 0, 1:25] = np.maximum(positions[:, 1:25], 0)
    out[:, 1, 1:25] = np.maximum(-positions[:, 24:0:-1], 0)
    return out


@dataclass
class Races:
    """Races the side net values (a side without a database row), their rollouts' five
    probabilities, sides and rows (-1: from the net)."""

    positions: np.ndarray
    labels: np.ndarray
    sides: np.ndarray
    rows: np.ndarray
    groups: np.ndarray  #: the plays of one roll share a number (each position its own if unknown)

    @classmethod
    def load(cls, dirs, db):
        pos, lab, grp = [], [], []
        n = 0
        for d in dirs:
            files = sorted(glob.glob(str(Path(d) / "*.npz")))
            if not files:
                raise ValueError(f"{d}: no shards of a training set")
            for f in files:
                with np.load(f) as z:
                    pos.append(z["positions"])
                    lab.append(z["targets"])
                    g = z["groups"] if "groups" in z.files else np.arange(len(z["positions"]))
                    grp.append(n + g)
                    n += int(g.max()) + 1
        pos = np.ascontiguousarray(np.concatenate(pos), dtype=np.int8)
        keep = np.array([is_race(p) for p in pos]) & (pos[:, 0] == 0) & (pos[:, 25] == 0)
        rows = _side_rows(pos, len(db))
        keep &= (rows < 0).any(axis=1)
        pos = pos[keep]
        labels = np.concatenate(lab)[keep].astype(np.float64)
        _, groups = np.unique(np.concatenate(grp)[keep], return_inverse=True)
        return cls(pos, labels, sides_of(pos), rows[keep], groups)

    def batches(self, rng, size):
        """Minibatches of ``size`` positions in a random order that keeps the plays of a roll
        together (``adam.group_order``)."""
        order = group_order(self.groups, rng)
        return [order[s : s + size] for s in range(0, len(order), size)]


def _dists(fit, sides, rows, db):
    """(n, 2, heads, buckets) both sides' distributions (a database row's, or the net's with
    its fixed heads, as the engine's ``side_dists``), and the net's forward pass with the
    fixed heads' mask."""
    d = np.empty((len(sides), 2, SIDE_HEADS, NB))
    have = rows >= 0
    d[have] = with_clear(db[rows[have]])
    x = encode_sides(sides[~have])
    h, p = fit.forward(x)
    fixed = fixed_heads(sides[~have])
    q = p.copy()
    q[fixed] = 0.0
    q[fixed, 0] = 1.0
    d[~have] = q
    return d, (x, h, p, ~have, fixed)


def _race_step(fit, sides, rows, db, labels, groups, alpha, rank_weight):
    d, (x, h, p, net, fixed) = _dists(fit, sides, rows, db)
    out, grads = race5(d[:, 0], d[:, 1])
    e = out - labels
    g = 2 * e / len(e)
    if rank_weight:
        r = sibling_residuals(out, labels, groups)
        g = g + rank_weight * 2 * r[:, None] * EQ / len(e)
    ga, gb = grads(g)
    g = np.stack([ga, gb], axis=1)[net]
    g[fixed] = 0.0
    fit.update(x, h, softmax_back(p, g), alpha)
    return float((e * e).sum(1).mean())


EQ = np.asarray(EQUITY_COEF, dtype=np.float64)


def _sibling_rms(p5, races):
    """The rms of the equity errors of ``p5`` less their roll's mean (rolls of 2 or more)."""
    r = sibling_residuals(p5, races.labels, races.groups)
    return float(np.sqrt((r[np.bincount(races.groups)[races.groups] > 1] ** 2).mean()))


def values0(positions, ev):
    """float32[n, 5]: the 0-ply probabilities of ``positions`` (player on roll) by ``ev``."""
    from bgtui.training.kernels import evaluate_all

    out = np.zeros((len(positions), 5), dtype=np.float32)
    evaluate_all(
        np.ascontiguousarray(positions, dtype=np.int8),
        ev,
        make_eval_workspace(hidden_size(ev)),
        out,
    )
    return out


def equity5(p):
    return p @ EQ - 1.0


def fit_side(out, init, data, holdout, settings: SideSettings, log=print):
    """Fit the side net on the races of ``data`` (directories) and write ``init``'s weights
    with it to ``out``; returns the figures of the last pass (``race_squared_error``: each
    pass's mean over the races fitted; the held-out figures)."""
    from bgtui.analysis.bearoff_cache import get_extended_one_sided
    from bgtui.analysis.weights import load_weights, nets_of, save_weights, with_databases

    ev0, meta = load_weights(init)
    ev = with_databases(nets_of(ev0), bearoff=True)  # the race net, to compare
    db = np.asarray(get_extended_one_sided())
    rng = np.random.default_rng(settings.seed)
    fit = SideFit(rng, settings.hidden)
    sides, trows = table_sides(rng, settings.pre_rows, len(db))
    x = encode_sides(sides)
    t0 = time.time()
    for ep in range(settings.pre_passes):
        order = rng.permutation(len(x))
        loss = [
            fit.step(x[b], with_clear(db[trows[b]]), 0.002 * 0.5**ep)
            for b in np.array_split(order, max(1, len(order) // 512))
        ]
        log(f"rows pass {ep + 1}: cross-entropy {np.mean(loss):.4f}, {time.time() - t0:.0f} s")
    races = Races.load(data, db)
    held = Races.load(holdout, db) if holdout else None
    log(f"{len(races.positions)} races to fit, {len(held.positions) if held else 0} held out")
    if held is not None:
        base = values0(held.positions, ev).astype(np.float64)
    figures = {}
    race_loss = []
    for ep in range(settings.passes):
        alpha = settings.alpha * 0.1 ** (ep / max(1, settings.passes - 1))
        losses = []
        for b in races.batches(rng, settings.batch):
            losses.append(
                _race_step(
                    fit,
                    races.sides[b],
                    races.rows[b],
                    db,
                    races.labels[b],
                    races.groups[b],
                    alpha,
                    settings.rank_weight,
                )
            )
            q = rng.integers(0, len(x), settings.batch)
            fit.step(x[q], with_clear(db[trows[q]]), alpha * 0.2)
        race_loss.append(float(np.mean(losses)))
        line = f"race pass {ep + 1}: squared error {race_loss[-1]:.5f}"
        if held is not None:
            d, _ = _dists(fit, held.sides, held.rows, db)
            p5 = race5(d[:, 0], d[:, 1])[0]
            eq = equity5(held.labels)
            figures = dict(
                holdout_equity_rms=float(np.sqrt(((equity5(p5) - eq) ** 2).mean())),
                holdout_race_net_equity_rms=float(np.sqrt(((equity5(base) - eq) ** 2).mean())),
                holdout_sibling_rms=_sibling_rms(p5, held),
                holdout_race_net_sibling_rms=_sibling_rms(base, held),
                holdout_output_rms=[float(v) for v in np.sqrt(((p5 - held.labels) ** 2).mean(0))],
            )
            line += (
                f"; held out: equity rms {figures['holdout_equity_rms']:.4f} (race net "
                f"{figures['holdout_race_net_equity_rms']:.4f}), sibling rms "
                f"{figures['holdout_sibling_rms']:.4f} "
                f"({figures['holdout_race_net_sibling_rms']:.4f})"
            )
        log(f"{line}, {time.time() - t0:.0f} s")
        meta = dict(meta)
        meta["side_fit"] = dict(
            asdict(settings),
            data=list(map(str, data)),
            holdout=list(map(str, holdout or [])),
            passes_done=ep + 1,
            race_squared_error=race_loss[-1],
            **figures,
        )
        save_weights(out, ev0, meta, side=fit.side_net())
    return dict(figures, race_squared_error=race_loss)


def race_cousins(pos, groups, rolls, ev):
    """The leaves 1-ply compares in the sibling groups of a race set: for each group of
    ``groups`` (the plays of one roll, ``pos`` with the opponent on roll) and its roll in
    ``rolls`` (int[n_groups, 2], in the order of ``np.unique(groups)``), the position after
    the opponent's best reply by ``ev``'s 0-ply to that roll, the mover on roll. A leaf that
    ends the game or that a bear-off database of ``ev`` values is left out, and so is a group
    left with fewer than two leaves. Returns (int8[m, 26] leaves, int64[m] their group). The
    siblings of a set differ in the side not on roll; their leaves differ in the side on
    roll, which 1-ply's values of the plays turn on."""
    from bgtui.engine import NO_DATABASE, database_kind, equities, game_result, generate_plays
    from bgtui.engine import swap_sides as swapped

    replies = []
    spans = []  # per group: its number and the (first, end) rows of each sibling's replies
    for g, (d1, d2) in zip(np.unique(groups), rolls):
        rows = []
        for i in np.flatnonzero(groups == g):
            plays, _ = generate_plays(pos[i], int(d1), int(d2))
            rows.append((len(replies), len(replies) + len(plays)))
            replies.extend(plays)
        spans.append((g, rows))
    finished = np.array([game_result(c) > 0 for c in replies], dtype=bool)
    leaves = np.array([swapped(c) for c in replies], dtype=np.int8).reshape(-1, 26)
    # the mover's equity after each reply: the opponent picks the lowest, a win outright first
    eq = np.where(finished, -np.inf, equities(values0(leaves, ev)))
    out, out_g = [], []
    for g, rows in spans:
        kept = []
        for lo, hi in rows:
            b = lo + int(np.argmin(eq[lo:hi]))
            leaf = leaves[b]
            if not finished[b] and database_kind(leaf, ev.two_sided, ev.one_sided) == NO_DATABASE:
                kept.append(leaf)
        if len(kept) >= 2:
            out.extend(kept)
            out_g.extend([g] * len(kept))
    return np.array(out, dtype=np.int8).reshape(-1, 26), np.array(out_g, dtype=np.int64)


def label_races(
    out, teacher, sources, children=300, seed=1, cousins=False, ply=0, workers=1, log=print
) -> int:
    """Write to ``out`` a training set for the race net labelled by ``teacher``'s side net:
    for each shard of the race sets ``sources`` (directories, in order), a shard of its
    positions and, for ``children`` of them drawn at random, a random roll's every play (the
    position after it, opponent on roll; a play that ends the game left out), each labelled by
    the teacher's 0-ply probabilities (its side net and the bear-off databases), the plays of a
    roll numbered as one group (the source's groups kept). With ``cousins`` a shard holds
    instead the leaves of the source shard's sibling groups (:func:`race_cousins`, a roll drawn
    for each group, the best replies by the teacher's 0-ply), grouped as their siblings were.
    With ``ply`` above 0 every label is the teacher's ``ply``-ply probabilities instead
    (``workers`` threads), and the teacher needs no side net: its 0-ply values the leaves.
    A shard already in ``out`` is kept (the same command resumes). Returns the number of
    positions written."""
    from functools import partial

    from bgtui.analysis.atomic import atomic_write
    from bgtui.analysis.weights import load_weights, with_databases
    from bgtui.engine import game_result, generate_plays
    from bgtui.engine import swap_sides as swapped
    from bgtui.training.train import plied_targets

    evs, meta = load_weights(teacher)
    ev = with_databases(evs, bearoff=True)
    if ply == 0 and ev.side.w2.shape[0] == 0:
        raise ValueError(f"{teacher}: no side net to label the races with")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    files = [f for d in sources for f in sorted(glob.glob(str(Path(d) / "*.npz")))]
    if not files:
        raise ValueError(f"{','.join(map(str, sources))}: no shards of a race set")
    total = 0
    for k, f in enumerate(files):
        with np.load(f) as z:
            pos = np.ascontiguousarray(z["positions"], dtype=np.int8)
            grp = z["groups"] if "groups" in z.files else np.arange(len(pos))
        # the draws of every shard, whether it is written now or was before
        if cousins:
            rolls = rng.integers(1, 7, size=(len(np.unique(grp)), 2))
        else:
            picks = rng.choice(len(pos), min(children, len(pos)), replace=False)
            rolls = rng.integers(1, 7, size=(len(picks), 2))
        dest = out / f"shard-{k:05d}.npz"
        if dest.exists():
            continue
        if cousins:
            pos, grp = race_cousins(pos, grp, rolls, ev)
            pos_parts, grp_parts = [pos], [grp]
        else:
            pos_parts, grp_parts = [pos], [grp.astype(np.int64)]
            g = int(grp.max()) + 1
            for i, (d1, d2) in zip(picks, rolls):
                plays, _ = generate_plays(pos[i], int(d1), int(d2))
                kids = [swapped(c) for c in plays if game_result(c) == 0]
                if len(kids) >= 2:
                    pos_parts.append(np.array(kids, dtype=np.int8))
                    grp_parts.append(np.full(len(kids), g))
                    g += 1
        pos = np.concatenate(pos_parts)
        labels = values0(pos, ev) if ply == 0 else plied_targets(ev, pos, ply, workers)
        info = dict(
            teacher=str(teacher),
            teacher_sha256=meta.get("sha256", ""),
            source=str(f),
            children=0 if cousins else children,
            cousins=cousins,
            seed=seed,
            index=k,
            ply=ply,
        )
        atomic_write(
            dest,
            partial(
                np.savez_compressed,
                positions=pos,
                targets=labels,
                groups=np.concatenate(grp_parts).astype(np.int32),
                meta=np.array(json.dumps(info)),
            ),
            mode=0o644,
        )
        total += len(pos)
        log(f"{dest.name}: {len(pos)} positions from {f}")
    return total
