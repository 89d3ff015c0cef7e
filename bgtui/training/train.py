"""Training runs: TD self-play, supervised rounds, training sets and fits, all resumable.

TD(0) / TD(lambda) self-play (:func:`td_train`) and supervised rounds toward the nets' own
n-ply evaluations (:func:`supervised_train`) run the training kernels in chunks, log progress
as JSON lines and write a checkpoint (weights and metadata, the RNG state included) atomically
as they go. :func:`build_dataset` grows a training set of self-play positions and their targets
shard by shard, and :func:`fit` trains the nets on a whole set pass by pass. Restarting any of
them with the same checkpoint or directory resumes where it stopped.
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import NamedTuple

import numpy as np

from bgtui.analysis.atomic import atomic_write
from bgtui.analysis.cube import in_cube_region
from bgtui.analysis.weights import (
    DEFAULT_WEIGHTS,
    TIED_TO,
    activations_of,
    as_nets,
    load_weights,
    nets_of,
    save_weights,
    side_net_of_arrays,
    tied_nets,
    with_databases,
    with_tables,
)
from bgtui.engine import (
    ACTIVATIONS,
    NET_NAMES,
    SIGMOID,
    START,
    Net,
    as_net,
    hidden_size,
    init_net,
    make_eval_workspace,
    make_play_workspace,
    make_rng,
    net_copy,
    sample_positions,
    source_stamp,
)
from bgtui.training.kernels import _td_lambda_selfplay, _td_selfplay
from bgtui.training.themes import parse_themes, themes_mask


def td_alpha(games: int, base: float) -> float:
    """Learning-rate schedule: ``base`` for 200k games, then decaying to base/10."""
    if games < 200_000:
        return base
    return max(base / 10.0, base * 200_000 / games)


def pubeval_ppg(ev, pairs: int = 500, seed: int = 12345) -> tuple[float, float]:
    """Points per game (and its standard error over game pairs) of 0-ply ``ev`` against
    PubEval in ``pairs`` duplicate-dice game pairs: the strength logged while training
    (``evaluation/strength.py`` runs the long version)."""
    from bgtui.engine import WC, WR, duel_pairs, make_rollout_workspace

    out = np.zeros((pairs, 4))
    duel_pairs(
        ev, 0, ev, 1, 0, pairs, seed, START, WR, WC, make_rollout_workspace(hidden_size(ev)), out
    )
    per_pair = out[:, :2].mean(axis=1)
    return float(per_pair.mean()), float(per_pair.std(ddof=1) / np.sqrt(pairs))


@dataclass(frozen=True)
class TDSettings:
    """How :func:`td_train` trains (the fields are described there)."""

    games: int
    hidden: int = 128
    race_hidden: int = 64
    alpha: float = 0.1
    seed: int = 1
    chunk: int = 1000
    save_every: int = 20_000
    bearoff: bool = True
    strength_pairs: int = 500
    lam: float = 0.0


def td_train(checkpoint, settings: TDSettings, log=None) -> dict:
    """Train until ``games`` self-play games in total (counting those in the checkpoint), by
    TD(0) (``lam`` = 0: each position moves toward its chosen play's value at once) or by
    TD(lambda) with offline lambda-returns (``lam`` > 0, see ``train._td_lambda_selfplay``).

    With ``bearoff`` the bear-off databases give exact (two-sided) or near-exact (one-sided)
    values in home-board bear-offs, so those positions teach the nets true values. At every
    checkpoint the log gets a line with the strength against PubEval over ``strength_pairs``
    duplicate-dice game pairs. The names above are the fields of ``settings``."""
    log = sys.stdout if log is None else log  # the stdout of the call, not of the import
    checkpoint = Path(checkpoint)
    if checkpoint.exists():
        ev, meta = load_weights(checkpoint)
        ev = with_databases(
            tuple(net_copy(net) for net in nets_of(ev)),
            settings.bearoff,
            tables=False,
        )  # the weights change after every play
        done = int(meta.get("games_trained", 0))
        rng = np.array([int(meta["rng_state"])], dtype=np.uint64)
    else:
        # the crashed net starts as a copy of the contact net
        contact = init_net(settings.hidden, settings.seed)
        ev = with_databases(
            (
                contact,
                init_net(settings.race_hidden, settings.seed + 1),
                net_copy(contact),
            ),
            settings.bearoff,
            tables=False,
        )
        meta = {}
        done = 0
        rng = make_rng(settings.seed)
    ws = make_play_workspace(hidden_size(ev))
    # one game's positions, values and TD(lambda) targets
    game = (
        np.zeros((4096, 26), dtype=np.int8),
        np.zeros((4096, 5), dtype=np.float32),
        np.zeros((4096, 5), dtype=np.float32),
    )
    stats = np.zeros(8)
    t0 = time.time()
    last_save = done
    while done < settings.games:
        n = min(settings.chunk, settings.games - done)
        a = td_alpha(done, settings.alpha)
        stats[:] = 0
        t = time.time()
        if settings.lam > 0.0:
            _td_lambda_selfplay(ev, n, rng, a, a, settings.lam, START, ws, stats, *game)
        else:
            _td_selfplay(ev, n, rng, a, a, START, ws, stats)
        dt = time.time() - t
        done += n
        print(
            json.dumps(
                {
                    "games": done,
                    "alpha": round(a, 5),
                    "games_per_s": round(n / dt, 1),
                    "plays_per_game": round(stats[1] / n, 2),
                    "gammons": round(stats[3] / n, 4),
                    "backgammons": round(stats[4] / n, 4),
                    "first_player_ppg": round(stats[2] / n, 4),
                    "elapsed": round(time.time() - t0, 1),
                }
            ),
            file=log,
            flush=True,
        )
        if done - last_save >= settings.save_every or done >= settings.games:
            ppg, se = pubeval_ppg(ev, settings.strength_pairs)
            print(
                json.dumps(
                    {
                        "games": done,
                        "vs_pubeval_ppg": round(ppg, 3),
                        "se": round(se, 3),
                        "pairs": settings.strength_pairs,
                    }
                ),
                file=log,
                flush=True,
            )
            meta.update(
                games_trained=done,
                rng_state=str(int(rng[0])),
                training={
                    "method": "td-lambda-selfplay" if settings.lam > 0 else "td0-selfplay",
                    "lambda": settings.lam,
                    "alpha": settings.alpha,
                    "seed": settings.seed,
                    "schedule": "td_alpha",
                },
            )
            save_weights(checkpoint, ev, meta)
            last_save = done
    return meta


def plied_targets(ev, positions, ply, workers):
    """Targets for ``positions`` at ``ply`` lookahead, computed by ``workers`` threads."""
    from concurrent.futures import ThreadPoolExecutor

    from bgtui.engine import make_lookahead_workspace
    from bgtui.training.targets import _plied_batch

    hidden = hidden_size(ev)
    out = np.zeros((len(positions), 5), dtype=np.float32)
    bounds = np.linspace(0, len(positions), workers + 1).astype(int)

    def part(a, b):
        _plied_batch(positions[a:b], ply, ev, make_lookahead_workspace(hidden), out[a:b])

    with ThreadPoolExecutor(workers) as pool:
        list(pool.map(lambda ab: part(*ab), zip(bounds[:-1], bounds[1:])))
    return out


def widen_net(net, hidden: int, seed: int, scale: float = 0.05):
    """``net`` with ``hidden`` hidden units: the new units get small random input weights and
    zero output weights, so the widened net computes exactly what the old one did and training
    then puts the new capacity to use."""
    net = as_net(net)
    w1, b1, w2, b2 = net[:4]
    old = b1.shape[0]
    if hidden < old:
        raise ValueError(f"cannot narrow a net from {old} to {hidden} hidden units")
    if hidden == old:
        return net
    rng = np.random.default_rng(seed)
    extra = hidden - old
    w1n = np.concatenate([w1, rng.uniform(-scale, scale, (w1.shape[0], extra))], axis=1)
    b1n = np.concatenate([b1, np.zeros(extra)])
    w2n = np.concatenate([w2, np.zeros((5, extra))], axis=1)
    return Net(*(np.ascontiguousarray(a, dtype=np.float32) for a in (w1n, b1n, w2n, b2)), net.act)


@dataclass(frozen=True)
class SupervisedSettings:
    """How :func:`supervised_train` trains (the fields are described there)."""

    rounds: int
    positions: int = 50_000
    ply: int = 1
    epochs: int = 2
    alpha: float = 0.02
    explore: float = 0.1
    seed: int = 7
    workers: int = 1
    hidden: int = 0
    race_hidden: int = 0


def supervised_train(checkpoint, settings: SupervisedSettings, log=None) -> dict:
    """Improve the nets in ``checkpoint`` toward their own ``ply``-ply evaluations.

    Each round samples ``positions`` positions from 0-ply self-play (with ``explore`` random
    plays for variety), evaluates them at ``ply`` with the current nets, and runs ``epochs``
    passes of SGD toward those targets; then writes the checkpoint. ``hidden`` /
    ``race_hidden`` (when larger than the checkpoint's) first widen every net, the race net to
    ``race_hidden`` and the others to ``hidden`` (:func:`widen_net`).
    The names above are the fields of ``settings``."""
    log = sys.stdout if log is None else log  # the stdout of the call, not of the import
    from bgtui.training.kernels import _supervised_epoch

    ev, meta = load_weights(checkpoint)
    nets = [net_copy(net) for net in nets_of(ev)]
    for k, h in enumerate(net_widths(settings.hidden, settings.race_hidden)):
        if h and h != nets[k][1].shape[0]:
            nets[k] = widen_net(nets[k], h, settings.seed + k)
            meta.setdefault("widened", []).append(
                {"net": k, "hidden": h, "after_rounds": int(meta.get("supervised_rounds", 0))}
            )
    ev = with_databases(tuple(nets), True)
    rng = make_rng(settings.seed + int(meta.get("supervised_rounds", 0)) * 1000)
    ws = make_play_workspace(hidden_size(ev))
    for _rnd in range(settings.rounds):
        t = time.time()
        dest = np.zeros((settings.positions, 26), dtype=np.int8)
        m = 0
        while m < settings.positions:
            m += sample_positions(ev, 50, rng, START, settings.explore, ws, dest[m:])
        t_sample = time.time() - t
        tg = plied_targets(ev, dest, settings.ply, settings.workers)
        t_targets = time.time() - t - t_sample
        stats = np.zeros(2 * len(NET_NAMES))
        for ep in range(settings.epochs):
            order = np.random.default_rng(int(rng[0] % (2**32)) + ep).permutation(
                settings.positions
            )
            stats[:] = 0
            _supervised_epoch(
                dest,
                tg,
                order.astype(np.int64),
                ev,
                np.full(len(NET_NAMES), settings.alpha),
                ws.eval,
                stats,
            )
        ev = with_tables(ev)  # the next round's sampling and targets see the new weights
        meta["supervised_rounds"] = int(meta.get("supervised_rounds", 0)) + 1
        meta.setdefault("supervised", []).append(
            {
                "positions": settings.positions,
                "ply": settings.ply,
                "epochs": settings.epochs,
                "alpha": settings.alpha,
            }
        )
        save_weights(checkpoint, ev, meta)
        print(
            json.dumps(
                {
                    "round": meta["supervised_rounds"],
                    "positions": settings.positions,
                    **{
                        f"{name}_mse": round(stats[2 * k] / max(stats[2 * k + 1], 1), 6)
                        for k, name in enumerate(NET_NAMES)
                    },
                    "sample_s": round(t_sample, 1),
                    "targets_s": round(t_targets, 1),
                    "total_s": round(time.time() - t, 1),
                }
            ),
            file=log,
            flush=True,
        )
    return meta


def list_shards(data_dir: Path) -> list[Path]:
    """The finished shards (a shard being written is a hidden ``.tmp`` file until complete)."""
    return sorted(Path(data_dir).glob("shard-[0-9][0-9][0-9][0-9][0-9].npz"))


def target_rollout_settings(
    trials: int,
    seed: int,
    truncate: int = 0,
    vr_filter: int = 0,
    one_sided: bool = True,
    ply: int = 0,
):
    """The RolloutSettings of the rollouts that label positions: ``trials`` trials from
    ``seed``, variance reduction (its ``vr_filter``), one worker a job, ``truncate`` rolls a
    trial (0: to the end); ``one_sided``: cut by the one-sided bear-off approximation too;
    ``ply``: the checker play's ply."""
    from bgtui.analysis.models import RolloutSettings

    chosen = dict(trials=trials, seed=seed, truncate=truncate, vr_filter=vr_filter, ply=ply)
    fixed = dict(variance_reduction=True, one_sided_truncation=one_sided, workers=1)
    return RolloutSettings(**chosen, **fixed)


def rollout_targets(
    ev,
    positions,
    trials: int,
    seed: int,
    workers: int,
    truncate: int = 0,
    vr_filter: int = 0,
    groups=1,
    ply: int = 0,
) -> np.ndarray:
    """Targets for ``positions`` from rollouts of ``trials`` trials each (variance reduction,
    quasi-random dice, ``ply``-ply play), truncated where a bear-off database values the position:
    exactly in the two-sided one, by the one-sided approximation in home-board bear-offs and
    straggler races (mean error 0.03 points of winning chances against long rollouts; the
    rollouts take 0.06 s a race instead of 0.11 s).

    ``truncate`` > 0: each trial stops after that many rolls and takes the 0-ply value there
    (a deeper target than an n-ply lookahead at a fraction of a full game's cost);
    ``vr_filter``: the rollouts' ``vr_filter``; ``groups``: which positions are rolled out
    together as the roots of one job (the same dice for each; fewer jobs to start): an int g,
    each g consecutive positions (the last job may have fewer); or an int[N] of non-decreasing
    numbers, each run of positions with the same number (sibling plays of one roll, rolled
    with the same dice)."""
    from concurrent.futures import ThreadPoolExecutor

    from bgtui.analysis.rollout import RolloutJob

    out = np.zeros((len(positions), 5), dtype=np.float32)
    settings = target_rollout_settings(trials, seed, truncate, vr_filter, ply=ply)
    if np.ndim(groups) == 0:
        starts = list(range(0, len(positions), int(groups)))
        ends = starts[1:] + [len(positions)]
    else:
        cut = np.flatnonzero(np.diff(groups)) + 1
        starts = [0, *cut.tolist()] if len(positions) else []
        ends = [*cut.tolist(), len(positions)]

    def one(job):
        lo, hi = job
        roots = positions[lo:hi]
        snap = None
        labels = [str(i) for i in range(len(roots))]
        for snap in RolloutJob(roots, labels, [""] * len(roots), settings, False).run(ev):
            pass
        for row in snap.rows:  # the rows come best first: the label says which root
            p = row.probabilities
            out[lo + int(row.move)] = (
                p.win,
                p.win_gammon,
                p.win_backgammon,
                p.lose_gammon,
                p.lose_backgammon,
            )

    with ThreadPoolExecutor(workers) as pool:
        list(pool.map(one, zip(starts, ends)))
    return np.clip(out, 0.0, 1.0)  # variance reduction can overshoot 0 or 1 by a hair


def is_straggler_race(pos) -> bool:
    """A race in which a side has borne off at least ``STRAGGLER_OFF`` checkers and still has
    two or more outside its home board: the kind the race net erred most on (9 points of
    winning chances in ``3wwAADQQEAAAAA``) and 0.2% of the races self-play gives it."""
    pos = np.asarray(pos)
    mine = np.clip(pos, 0, None)
    theirs = np.clip(-pos, 0, None)
    for side, outside in ((mine, mine[7:26].sum()), (theirs, theirs[0:19].sum())):
        if 15 - side.sum() >= STRAGGLER_OFF and outside >= 2:
            return True
    return False


#: checkers borne off that make a side with two checkers outside a straggler race
STRAGGLER_OFF = 5


def _keep_races(positions: np.ndarray, ev, stragglers: bool = False) -> np.ndarray:
    """The races of ``positions`` that the race net of ``ev`` values: those none of its bear-off
    databases (``evaluate.database_kind``) values; with ``stragglers`` only the straggler races
    among them (:func:`is_straggler_race`)."""
    from bgtui.engine import NO_DATABASE, database_kind, is_race

    keep = [
        i
        for i, p in enumerate(positions)
        if is_race(p)
        and database_kind(p, ev.two_sided, ev.one_sided) == NO_DATABASE
        and (not stragglers or is_straggler_race(p))
    ]
    return positions[keep]


def _keep_cube_region(positions: np.ndarray, ev) -> np.ndarray:
    """The contact positions of ``positions`` in the cube region (:func:`in_cube_region`)."""
    from bgtui.engine import evaluate0, is_race

    keep = [
        i
        for i, pos in enumerate(positions)
        if not is_race(pos) and in_cube_region(evaluate0(pos, ev))
    ]
    return positions[keep]


#: how far below the 0-ply best a play may be and still be valued at 2-ply when looking for
#: disagreements (the move filter's margin, ``analysis.service``)
DISAGREE_MARGIN = 0.16


def _keep_disagreements(children, groups, ev, workers) -> tuple[np.ndarray, np.ndarray]:
    """The rolls among ``children`` whose best play by 2-ply is not their best by 0-ply.

    ``children`` holds, roll by roll, the positions after a roll's best plays by 0-ply, best
    first, the opponent on roll, and ``groups`` each child's roll (non-decreasing), as
    ``kernels._sample_best_children`` stores them. The plays within :data:`DISAGREE_MARGIN`
    of a roll's best at 0-ply are valued at 2-ply (the others are not candidates of the move
    filter either); a roll is kept when one of them is better than the first by 2-ply. Returns
    the kept rolls' children (all of each roll's plays, as given) and their rolls renumbered
    0, 1, ..."""
    from bgtui.engine import equities

    n = len(children)
    if n == 0:
        return children, groups[:0]
    mover0 = -equities(plied_targets(ev, children, 0, workers).astype(np.float64))
    starts = _roll_starts(groups)
    best0 = np.repeat(mover0[starts], np.diff(np.r_[starts, n]))
    near = np.flatnonzero(best0 - mover0 <= DISAGREE_MARGIN)
    mover2 = np.full(n, -np.inf)
    mover2[near] = -equities(plied_targets(ev, children[near], 2, workers).astype(np.float64))
    return _keep_rolls(children, groups, np.maximum.reduceat(mover2, starts) > mover2[starts])


def _roll_starts(groups) -> np.ndarray:
    """The index of each roll's first child in ``groups`` (non-decreasing roll numbers)."""
    return np.flatnonzero(np.r_[True, np.diff(groups) != 0])


def _keep_rolls(children, groups, keep_roll) -> tuple[np.ndarray, np.ndarray]:
    """The children of the rolls ``keep_roll`` (bool, one per roll of ``groups``, in order)
    selects, and their rolls renumbered 0, 1, ..."""
    starts = _roll_starts(groups)
    keep = np.repeat(keep_roll, np.diff(np.r_[starts, len(children)]))
    kept_groups = np.cumsum(np.r_[True, np.diff(groups[keep]) != 0]) - 1
    return children[keep], kept_groups.astype(np.int32)


def _keep_theme_rolls(children, groups, themes) -> tuple[np.ndarray, np.ndarray]:
    """The rolls among ``children`` (grouped as :func:`_keep_disagreements` takes them) whose
    best play by 0-ply, the first of the roll, leads to a position of one of ``themes``
    (``themes.themes_mask``)."""
    if len(children) == 0:
        return children, groups[:0]
    starts = _roll_starts(groups)
    return _keep_rolls(children, groups, themes_mask(children[starts], themes))


def _keep_crashed_rolls(children, groups) -> tuple[np.ndarray, np.ndarray]:
    """The rolls among ``children`` (grouped as :func:`_keep_disagreements` takes them) whose
    best play by 0-ply, the first of the roll, leads to a position a crashed net values (a
    side has borne off: ``CRASHED_CLASSES``)."""
    from bgtui.engine import CRASHED_CLASSES
    from bgtui.training.kernels import net_classes

    if len(children) == 0:
        return children, groups[:0]
    starts = _roll_starts(groups)
    keep = np.isin(net_classes(children[starts]), CRASHED_CLASSES)
    return _keep_rolls(children, groups, keep)


def _sample_kept_rolls(spec: DatasetSpec, ev, rng, ws, groups, keep, batch=0) -> np.ndarray:
    """``spec.shard`` positions: the ``spec.children_best`` best plays of the rolls of greedy
    self-play (of the evaluator against PubEval with ``spec.vs_pubeval``) that ``keep``
    (children and their rolls to the kept ones, as :func:`_keep_rolls` returns) keeps, their
    rolls into ``groups``. Self-play runs ``batch`` children at a time (default: a shard's
    worth), whole games from the start: large enough to reach the rolls ``keep`` wants."""
    n = spec.shard
    batch = max(batch, n)
    dest = np.zeros((n, 26), dtype=np.int8)
    m = 0
    while m < n:
        g = np.zeros(batch, dtype=np.int32)
        more = _sample_into(
            np.zeros((batch, 26), dtype=np.int8),
            ev,
            rng,
            0.0,
            0,
            ws,
            spec.children_best,
            vs_pubeval=spec.vs_pubeval,
            groups=g,
        )
        kept, kg = keep(more, g)
        k = min(len(kept), n - m)
        dest[m : m + k] = kept[:k]
        groups[m : m + k] = kg[:k] + (groups[m - 1] + 1 if m else 0)
        m += k
    return dest


def _keep_themes(positions: np.ndarray, themes) -> np.ndarray:
    """The positions of ``positions`` of one of ``themes`` (``themes.themes_mask``)."""
    return positions[themes_mask(positions, themes)]


def _sample_shard(spec: DatasetSpec, ev, rng, ws, groups=None) -> np.ndarray:
    """``spec.shard`` positions of 0-ply self-play for one shard of the set ``spec`` describes
    (see :func:`build_dataset`), drawn with ``rng`` and the play scratch ``ws``
    (``evaluate.make_play_workspace``); with ``spec.children_best``, ``groups``
    (int32[spec.shard]) receives each child's roll
    (:func:`_sample_into`)."""
    from bgtui.engine import CRASHED_CLASSES
    from bgtui.training.kernels import _race_sibling_children, net_classes

    n = spec.shard
    explore, children, children_best = spec.explore, spec.children, spec.children_best

    def kept(games, room, keep):
        """Self-play positions before a roll, ``games`` games at a time, until ``n`` of them
        pass ``keep`` (a function of an array of positions)."""
        found = np.zeros((0, 26), dtype=np.int8)
        while len(found) < n:
            more = np.zeros((n * room, 26), dtype=np.int8)
            k = sample_positions(ev, games, rng, START, explore, ws, more)
            found = np.concatenate([found, keep(more[:k])])
        return found[:n]

    if spec.race_rollouts and children_best:
        dest = np.zeros((n, 26), dtype=np.int8)
        m = 0
        while m < n:
            parents = kept(200, 4, lambda more: _keep_races(more, ev, spec.stragglers))
            k, _ = _race_sibling_children(parents, ev, rng, children_best, ws, dest[m:], groups[m:])
            if m and k:  # the rolls of this batch come after those of the batches before
                groups[m : m + k] += groups[m - 1] + 1
            m += k
        return dest
    if spec.race_rollouts:
        return kept(200, 4, lambda more: _keep_races(more, ev, spec.stragglers))
    if spec.cube_region:
        return kept(100, 2, lambda more: _keep_cube_region(more, ev))
    if spec.disagree:
        keep = partial(_keep_disagreements, ev=ev, workers=spec.workers)
        return _sample_kept_rolls(spec, ev, rng, ws, groups, keep)
    if spec.theme and children_best:
        keep = partial(_keep_theme_rolls, themes=parse_themes(spec.theme))
        return _sample_kept_rolls(spec, ev, rng, ws, groups, keep)
    if spec.theme:
        return kept(100, 2, lambda more: _keep_themes(more, parse_themes(spec.theme)))
    if spec.crashed_only and children_best:
        # crashed positions come late in a game: room for the 20 games of a sampling call
        # (``_sample_into``) to run to their ends, about 60 rolls each
        batch = 1200 * children_best
        return _sample_kept_rolls(spec, ev, rng, ws, groups, _keep_crashed_rolls, batch)
    if spec.crashed_only:
        found = np.zeros((0, 26), dtype=np.int8)
        while len(found) < n:
            more = _sample_into(
                np.zeros((n, 26), dtype=np.int8), ev, rng, explore, children, ws, children_best
            )
            found = np.concatenate([found, more[np.isin(net_classes(more), CRASHED_CLASSES)]])
        return found[:n]
    dest = np.zeros((n, 26), dtype=np.int8)
    return _sample_into(
        dest,
        ev,
        rng,
        explore,
        children,
        ws,
        children_best,
        vs_pubeval=spec.vs_pubeval,
        groups=groups,
        cousins=spec.cousins,
    )


def _sample_into(
    dest,
    ev,
    rng,
    explore,
    children,
    ws,
    children_best,
    *,
    vs_pubeval=False,
    groups=None,
    cousins=False,
) -> np.ndarray:
    """Fill ``dest`` with positions of 0-ply self-play (or children of its rolls); returns it.
    With ``children_best``, ``groups`` (int32, as long as ``dest``; or None) receives for every
    child the index of its roll (0, 1, ... over the whole of ``dest``): siblings share one.
    With ``cousins`` too, the positions are the leaves 1-ply compares
    (``kernels._sample_cousins``), grouped by roll in the same way."""
    from bgtui.engine import WC, WR, sample_children
    from bgtui.training.kernels import (
        _sample_best_children,
        _sample_best_children_vs_pubeval,
        _sample_cousins,
    )

    n = len(dest)
    if children_best and groups is None:
        groups = np.zeros(n, dtype=np.int32)
    head = (ev, 20, rng, START, children_best)  # 20 games a call
    m = 0
    while m < n:
        if children_best:
            if cousins:
                k = _sample_cousins(*head, ws, dest[m:], groups[m:])
            elif vs_pubeval:
                k = _sample_best_children_vs_pubeval(*head, WR, WC, ws, dest[m:], groups[m:])
            else:
                k = _sample_best_children(*head, ws, dest[m:], groups[m:])
            if m and k:  # the rolls of this call come after those of the calls before
                groups[m : m + k] += groups[m - 1] + 1
            m += k
        elif children:
            m += sample_children(ev, 20, rng, START, children, ws, dest[m:])
        else:
            m += sample_positions(ev, 50, rng, START, explore, ws, dest[m:])
    return dest


@dataclass(frozen=True)
class DatasetSpec:
    """What :func:`build_dataset` makes: how many positions, which ones and how they are
    labelled (the fields are described there)."""

    positions: int
    ply: int = 1
    shard: int = 20_000
    explore: float = 0.1
    seed: int = 101
    workers: int = 1
    children: int = 0
    race_rollouts: int = 0
    children_best: int = 0
    crashed_only: bool = False
    stragglers: bool = False
    target_truncate: int = 0
    trials: int = 36
    vs_pubeval: bool = False
    cube_region: bool = False
    target_games: bool = False
    cousins: bool = False
    disagree: bool = False
    theme: str = ""

    def __post_init__(self):
        """Refuse combinations that make no set (the messages name ``bgtui train`` options)."""
        if min(self.children, self.children_best, self.race_rollouts) < 0:
            raise ValueError("--children, --children-best and --race-rollouts take a count >= 0")
        if self.children and (self.children_best or self.race_rollouts):
            raise ValueError("choose one of --children, --children-best and --race-rollouts")
        if self.race_rollouts and self.children_best and self.vs_pubeval:
            raise ValueError("--race-rollouts with --children-best samples self-play races only")
        if self.crashed_only and self.race_rollouts:
            raise ValueError("--crashed-only keeps contact positions; --race-rollouts races only")
        if self.stragglers and not self.race_rollouts:
            raise ValueError("--stragglers selects among the races of --race-rollouts")
        if self.target_truncate < 0:
            raise ValueError("--target-truncate takes a number of rolls >= 0")
        if self.target_truncate and self.race_rollouts:
            raise ValueError("choose one of --target-truncate and --race-rollouts")
        if self.trials < 1:
            raise ValueError(f"--trials must be at least 1, got {self.trials}")
        if self.target_games and (self.target_truncate or self.race_rollouts):
            raise ValueError("choose one of --target-games, --target-truncate and --race-rollouts")
        if self.cube_region and (
            self.children or self.children_best or self.race_rollouts or self.crashed_only
        ):
            raise ValueError(
                "--cube-region keeps positions before a roll: no --children, "
                "--children-best, --race-rollouts or --crashed-only"
            )
        if self.cousins and (
            not self.children_best or self.vs_pubeval or self.race_rollouts or self.crashed_only
        ):
            raise ValueError(
                "--cousins stores the leaves of self-play's K best plays: give "
                "--children-best K, without --vs-pubeval, --race-rollouts or --crashed-only"
            )
        if self.disagree and (
            not self.children_best
            or self.vs_pubeval
            or self.cousins
            or self.race_rollouts
            or self.crashed_only
        ):
            raise ValueError(
                "--disagree stores the K best plays of the rolls where 0-ply and 2-ply "
                "choose differently: give --children-best K, without --vs-pubeval, "
                "--cousins, --race-rollouts or --crashed-only"
            )
        if self.disagree and not (self.target_truncate or self.target_games):
            raise ValueError(
                "--disagree labels its positions by rollouts: give --target-truncate R "
                "or --target-games"
            )
        if self.theme:
            parse_themes(self.theme)
            if self.race_rollouts or self.crashed_only or self.cousins or self.disagree:
                raise ValueError(
                    "--theme keeps contact positions of the kinds it names: no "
                    "--race-rollouts, --crashed-only, --cousins or --disagree"
                )
            if self.children or self.cube_region:
                raise ValueError("--theme: no --children or --cube-region")
        if self.vs_pubeval and not self.children_best:
            raise ValueError(
                "--vs-pubeval stores the evaluator's best plays: give --children-best K"
            )


class CodeChangedError(RuntimeError):
    """bgtui's kernel code changed on disk while a long job ran (:func:`code_stamp`)."""


#: the packages whose numba kernels a long job compiles or loads from numba's cache
_KERNEL_PACKAGES = ("engine", "training")


def code_stamp(root=None) -> str:
    """A digest of every source file of bgtui's kernel packages under ``root`` (default: this
    bgtui's; name, size, modification time). numba checks a cached kernel against its source
    file on disk, not against the code a process has imported: a kernel that a running job
    compiles or loads after those files changed can come from the new code while the rest of
    the process runs the old."""
    root = Path(__file__).resolve().parent.parent if root is None else Path(root)
    return source_stamp(*(root / pkg for pkg in _KERNEL_PACKAGES))


def _check_code(stamp: str, what: str) -> None:
    """Raise :class:`CodeChangedError` (``what`` not written) if :func:`code_stamp` moved
    from ``stamp``."""
    if code_stamp() != stamp:
        raise CodeChangedError(
            f"bgtui's engine or training code changed on disk while this job ran; {what} was "
            "not written (numba may have mixed kernels of the old and the new code). Run the "
            "same command again to resume, from a checkout that does not change while it runs "
            "(a git worktree, with PYTHONPATH pointing at it)"
        )


def build_dataset(data_dir, weights, spec: DatasetSpec, log=None) -> int:
    """Grow the training set in ``data_dir`` to ``positions`` positions (in shards of ``shard``),
    each a position from 0-ply self-play of ``weights`` (``explore`` random plays for variety)
    with its ``ply``-ply probabilities as the target. With ``children`` > 0 the positions are
    instead, for every roll of the self-play, that many of its plays picked at random (the
    positions that move selection compares, bad plays included); with ``children_best`` > 0,
    for every roll of greedy self-play the positions after its ``children_best`` best plays at
    0-ply (the near-best alternatives that move selection has to rank; same view as
    ``children``: the opponent on roll); with ``cousins`` too, for each of those plays the
    position after the opponent's 0-ply best reply to one roll drawn for the roll (the same
    roll for all of them): the leaves that 1-ply compares, the mover on roll. With
    ``race_rollouts`` > 0
    only the races that the race net values (outside the bear-off databases, see
    :func:`_keep_races`) are kept, labelled by rollouts of that many trials (the race net's
    targets then come from play, not from its own lookahead); with ``children_best`` too, the
    positions are instead, for such a race and a roll drawn for it, those after the roll's
    ``children_best`` best plays at 0-ply that the race net values
    (``kernels._race_sibling_children``), the siblings of a roll rolled out together as the roots of
    one job (the same dice for each, so that their differences are more precise than their values).
    With ``crashed_only`` only the positions the crashed nets value (``nn.net_class`` in
    ``CRASHED_CLASSES``: a side has borne off) are kept
    (with ``children_best``, the rolls whose best play leads to one: :func:`_keep_crashed_rolls`);
    with ``stragglers`` (and ``race_rollouts``) only straggler races (:func:`is_straggler_race`).
    With ``vs_pubeval`` (and ``children_best``) the games are the evaluator's against PubEval and
    the positions are the ``children_best`` best plays of the evaluator's rolls: the positions a
    duel against PubEval has the evaluator rank, labelled like any others by the evaluator's own
    look ahead (with ``target_truncate``, by truncated rollouts in which the plays of a roll share
    their dice, as the race siblings do). With ``cube_region`` only contact positions where the
    player on roll has doubling chances by 0-ply (:func:`in_cube_region`) are kept: blitzes,
    primes and attacks, where a cube action turns on a few points of equity. With ``disagree``
    (and ``children_best`` and rollout targets) only the rolls where 0-ply and 2-ply choose
    different plays are kept (:func:`_keep_disagreements`): the decisions 0-ply gets wrong,
    labelled by rollouts in which the plays of a roll share their dice. With ``theme`` (names of
    ``themes.THEMES``, comma-separated) only contact positions of those kinds are kept: the
    positions before a roll, or with ``children_best`` the rolls whose best play leads to one
    (:func:`_keep_theme_rolls`). With ``target_games`` the targets are full-game rollouts
    of ``trials`` trials (variance reduction with the filter's two best plays, cut only by the
    bear-off databases): what whole games give, at about 0.15 s a position.

    Every shard is written atomically and made from its own seed (``seed`` and its index), so an
    interrupted build resumes where it stopped and gives the same shards. A shard is not
    written if bgtui's kernel code changed on disk since the build started
    (:class:`CodeChangedError`). Returns the number of positions in the set. The names above
    are the fields of ``spec``."""
    log = sys.stdout if log is None else log  # the stdout of the call, not of the import
    stamp = code_stamp()
    data_dir = Path(data_dir)
    data_dir.mkdir(parents=True, exist_ok=True)
    ev0, meta = load_weights(weights)
    ev = with_databases(ev0, True)
    ws = make_play_workspace(hidden_size(ev))
    have = len(list_shards(data_dir)) * spec.shard
    while have < spec.positions:
        idx = len(list_shards(data_dir))
        t = time.time()
        shard_seed = spec.seed * 1_000_003 + idx
        groups = np.zeros(spec.shard, dtype=np.int32) if spec.children_best else None
        dest = _sample_shard(spec, ev, make_rng(shard_seed), ws, groups)
        if spec.race_rollouts:
            tg = rollout_targets(
                ev, dest, spec.race_rollouts, shard_seed, spec.workers, groups=groups
            )
        elif spec.target_truncate:
            tg = rollout_targets(
                ev,
                dest,
                spec.trials,
                shard_seed,
                spec.workers,
                truncate=spec.target_truncate,
                vr_filter=1,
                groups=50 if groups is None else groups,
            )
        elif spec.target_games:
            tg = rollout_targets(
                ev,
                dest,
                spec.trials,
                shard_seed,
                spec.workers,
                vr_filter=2,
                groups=25 if groups is None else groups,
            )
        else:
            tg = plied_targets(ev, dest, spec.ply, spec.workers)
        info = {
            "weights_sha256": meta.get("sha256"),
            "ply": spec.ply,
            "explore": spec.explore,
            "children": spec.children,
            "children_best": spec.children_best,
            "race_rollouts": spec.race_rollouts,
            "seed": spec.seed,
            "crashed_only": spec.crashed_only,
            "index": idx,
        }
        if spec.target_truncate or spec.target_games:
            del info["ply"]
            info.update(target_truncate=spec.target_truncate, trials=spec.trials)
        if spec.target_games:
            info["target_games"] = True
        if spec.cube_region:
            info["cube_region"] = True
        if spec.stragglers:
            info["stragglers"] = True
        if spec.vs_pubeval:
            info["vs_pubeval"] = True
        if spec.cousins:
            info["cousins"] = True
        if spec.disagree:
            info["disagree"] = True
        if spec.theme:
            info["theme"] = ",".join(parse_themes(spec.theme))
        extra = {} if groups is None else {"groups": groups}
        _check_code(stamp, f"shard {idx}")
        atomic_write(
            data_dir / f"shard-{idx:05d}.npz",
            partial(
                np.savez_compressed,
                positions=dest,
                targets=tg,
                meta=np.array(json.dumps(info)),
                **extra,
            ),
            mode=0o644,
        )
        have += spec.shard
        print(
            json.dumps(
                {
                    "shard": idx,
                    "positions": have,
                    **(
                        {"truncate": spec.target_truncate}
                        if spec.target_truncate
                        else {"games": spec.trials}
                        if spec.target_games
                        else {"ply": spec.ply}
                    ),
                    "seconds": round(time.time() - t, 1),
                }
            ),
            file=log,
            flush=True,
        )
    return have


def source_shards(spec: str) -> tuple[Path, list[Path]]:
    """The directory of ``DIR[:first[:last]]`` and its shards in that slice of its sorted
    shards (``data/cs2:0:1`` is the first shard of ``data/cs2``, ``data/cs2:260`` all from the
    261st)."""
    parts = str(spec).split(":")
    d = Path(parts[0])
    shards = list_shards(d)
    try:
        if len(parts) > 3:
            raise ValueError
        first = int(parts[1]) if len(parts) > 1 and parts[1] else 0
        last = int(parts[2]) if len(parts) > 2 and parts[2] else len(shards)
    except ValueError:
        raise ValueError(
            f"{spec!r}: a set of shards is DIR or DIR:first or DIR:first:last, "
            "with whole numbers counting the directory's sorted shards from 0"
        ) from None
    return d, shards[first:last]


def load_dataset(data_dir, with_groups: bool = False):
    """All shards of ``data_dir`` (several ``DIR[:first[:last]]`` separated by commas, as
    :func:`source_shards` reads them): positions int8[N, 26] and targets float32[N, 5]; with
    ``with_groups`` also int64[N], the sibling group of each position (the children of one roll
    share a number, unique over the whole set; -1 for positions of shards written without
    groups)."""
    shards = [p for spec in str(data_dir).split(",") for p in source_shards(spec)[1]]
    if not shards:
        raise ValueError(f"no training shards (shard-*.npz) in {data_dir}")
    pos, tg, grp = [], [], []
    base = 0
    for p in shards:
        with np.load(p, allow_pickle=False) as z:
            pos.append(z["positions"])
            tg.append(z["targets"])
            if "groups" in z.files:
                g = z["groups"].astype(np.int64) + base
                base = int(g.max()) + 1 if len(g) else base
            else:
                g = np.full(len(pos[-1]), -1, dtype=np.int64)
            grp.append(g)
    if with_groups:
        return np.concatenate(pos), np.concatenate(tg), np.concatenate(grp)
    return np.concatenate(pos), np.concatenate(tg)


def fit_alpha(epoch: int, epochs: int, alpha: float, alpha_end: float) -> float:
    """Geometric decay from ``alpha`` (first epoch) to ``alpha_end`` (last epoch)."""
    if epochs <= 1:
        return alpha
    return float(alpha * (alpha_end / alpha) ** (epoch / (epochs - 1)))


@dataclass(frozen=True)
class FitSettings:
    """How :func:`fit` trains (the fields are described there)."""

    epochs: int
    alpha: float = 0.01
    alpha_end: float = 0.0005
    init: str | None = None
    holdout: float = 0.02
    seed: int = 5
    strength_pairs: int = 0
    hidden: int = 0
    race_hidden: int = 0
    optimizer: str = "sgd"
    batch: int = 256
    nets: str = ",".join(NET_NAMES)
    rank_weight: float = 0.0
    activation: str = ""


def _tie(nets_: list, tied) -> list:
    """``nets_`` (in ``NET_NAMES`` order) with each net named in ``tied`` the net it is tied
    to (:data:`TIED_TO`)."""
    for name, (to, _) in TIED_TO.items():
        if name in tied:
            nets_[NET_NAMES.index(name)] = nets_[NET_NAMES.index(to)]
    return nets_


def _owners(tied) -> np.ndarray:
    """int8, one per class: the net that values (and learns from) the class's positions when
    the nets ``tied`` are tied (:data:`TIED_TO`)."""
    owner = np.arange(len(NET_NAMES), dtype=np.int8)
    for name, (to, _) in TIED_TO.items():
        if name in tied:
            owner[NET_NAMES.index(name)] = owner[NET_NAMES.index(to)]
    return owner


def _fit_continues(state: dict, data_dir, which) -> bool:
    """Whether a checkpoint's fit record ``state`` is of the training set ``data_dir`` and the
    nets ``which``: a fit to resume (or extend), not weights to start a new fit from."""
    same_nets = state.get("nets", ",".join(which)) == ",".join(which)
    data = state.get("data")
    same_data = data is not None and (
        data == str(data_dir) or Path(data).resolve() == Path(data_dir).resolve()
    )
    return same_nets and same_data


def _fit_nets(settings: FitSettings) -> list[str]:
    """The names of the nets a fit trains (``settings.nets``), after checking the optimiser
    and rank weight of ``settings``: a ValueError names the option at fault."""
    if settings.optimizer not in ("sgd", "adam"):
        raise ValueError(f"unknown optimizer {settings.optimizer!r} (sgd or adam)")
    if settings.rank_weight < 0 or (settings.rank_weight and settings.optimizer != "adam"):
        raise ValueError(
            "rank_weight (--rank-weight) is a weight >= 0 in the loss of the Adam "
            "optimizer: give --optimizer adam"
        )
    which = [n.strip() for n in settings.nets.split(",") if n.strip()]
    if not which or any(n not in NET_NAMES for n in which):
        raise ValueError(
            f"--nets takes a comma-separated list of {', '.join(NET_NAMES)}; got {settings.nets!r}"
        )
    return which


def _new_fit_weights(settings: FitSettings, which) -> tuple:
    """(nets, metadata, metadata of the weights started from, race side net) of a new
    checkpoint: fresh nets for the nets ``which`` with ``settings.init`` "random" (the others
    and the side net shipped), else the weights ``settings.init`` (default: shipped) widened to
    ``hidden`` / ``race_hidden``, with their side net."""
    if settings.init == "random":
        ev, meta0 = load_weights(DEFAULT_WEIGHTS)  # the nets not trained come from there
        shipped, shipped_side = nets_of(ev), ev.side
        # default widths: the race net 64, every other net 128
        ev = tuple(
            init_net(h or (64 if name == "race" else 128), settings.seed + k)
            if name in which
            else shipped[k]
            for k, (name, h) in enumerate(
                zip(NET_NAMES, net_widths(settings.hidden, settings.race_hidden))
            )
        )
        meta = {"init": {"random": which, "seed": settings.seed}}
        return ev, meta, meta0, shipped_side
    ev, meta = load_weights(settings.init or DEFAULT_WEIGHTS)
    side = ev.side
    ev = tuple(
        widen_net(net, h, settings.seed + k) if h else net
        for k, (net, h) in enumerate(
            zip(nets_of(ev), net_widths(settings.hidden, settings.race_hidden))
        )
    )
    return ev, meta, meta, side


def net_widths(hidden: int, race_hidden: int) -> tuple:
    """The hidden width asked of each net, in ``NET_NAMES`` order: the race net's
    ``race_hidden``, every other net's ``hidden`` (0: none asked)."""
    return tuple(race_hidden if name == "race" else hidden for name in NET_NAMES)


def _fit_start(checkpoint: Path, data_dir, settings: FitSettings, which, log) -> tuple:
    """(nets, metadata, tied, race side net) a fit starts from: ``checkpoint``'s when it
    exists (its own fit resumed, or a new fit from its weights when that fit was of other data
    or other nets, logged), else :func:`_new_fit_weights`. ``tied``: the names of the nets
    (crashed, early, holding, trailing, the mutual, the anchor, the early trailing, the early
    bar and the bar nets below ``EARLY_PIPS``) that are the net they are tied to
    (:data:`TIED_TO`). A new fit moves the starting weights' own fit record to their
    ``fit_history``."""
    start = None  # the metadata of the weights a new fit starts from
    if checkpoint.exists():
        ev, meta = load_weights(checkpoint)
        side = ev.side
        old = meta.get("fit")
        old_ = old or {}
        # a record made before the early, the holding, the trailing, the mutual, the anchor,
        # the early trailing, the early bar or the bar nets below EARLY_PIPS existed: tied if
        # the file has none of its own
        was = {
            name: name != "crashed" and name not in which and meta.get(flag, False)
            for name, (_, flag) in TIED_TO.items()
        }
        tied = [name for name in TIED_TO if old_.get(f"tied_{name}", was[name])]
        if old is not None and not _fit_continues(old, data_dir, which):
            # the weights' own fit was of other data or other nets (a copy of the shipped
            # weights, say): they start a new fit
            start = meta
            print(
                json.dumps(
                    {
                        "new_fit_from": str(checkpoint),
                        "its_last_fit": {"data": old.get("data"), "nets": old.get("nets")},
                    }
                ),
                file=log,
                flush=True,
            )
    else:
        ev, meta, start, side = _new_fit_weights(settings, which)
    if start is not None:
        tied = [
            name
            for name, (_, flag) in TIED_TO.items()
            if name not in which and start.get(flag, False)
        ]
        if "fit" in meta:  # the starting weights' own fit stays on record
            meta.setdefault("fit_history", []).append(meta.pop("fit"))
    return _with_activation(ev, settings, which, resumed="fit" in meta), meta, tied, side


def _with_activation(ev, settings: FitSettings, which, resumed: bool):
    """The nets ``ev`` with the nets ``which`` of hidden function ``settings.activation``
    (none: as they are). A new fit's nets are given it (fresh ones, or a start's, which then
    compute their function of the same weights); a resumed fit's must have it (ValueError)."""
    if not settings.activation:
        return ev
    if settings.activation not in ACTIVATIONS:
        raise ValueError(
            f"--activation takes {' or '.join(ACTIVATIONS)}; got {settings.activation!r}"
        )
    act = ACTIVATIONS.index(settings.activation)
    nets_ = [as_net(net) for net in as_nets(ev)]
    if resumed:
        other = [n for n, net in zip(NET_NAMES, nets_) if n in which and net.act != act]
        if other:
            raise ValueError(
                f"the fit being resumed trains {', '.join(other)} of "
                f"{ACTIVATIONS[nets_[NET_NAMES.index(other[0])].act]} units, "
                f"not {settings.activation}: give another --checkpoint for a new fit"
            )
        return ev
    return tuple(
        net._replace(act=act) if name in which else net for name, net in zip(NET_NAMES, nets_)
    )


def _fit_state(checkpoint: Path, meta: dict, data_dir, settings: FitSettings, which, tied):
    """(the fit record, the rank weight): ``meta``'s own record of a fit to resume, else a new
    one; a resumed fit keeps its rank weight and must keep its optimiser (ValueError)."""
    state = meta.get("fit") or {
        "data": str(data_dir),
        "epochs": settings.epochs,
        "epochs_done": 0,
        "alpha": settings.alpha,
        "alpha_end": settings.alpha_end,
        "seed": settings.seed,
        "optimizer": settings.optimizer,
        "nets": ",".join(which),
        **{f"tied_{name}": name in tied for name in TIED_TO},
    }
    if settings.rank_weight:
        state.setdefault("rank_weight", settings.rank_weight)
    rank_weight = float(state.get("rank_weight", 0.0))  # a resumed fit keeps its own
    if state["epochs_done"] and state.get("optimizer", "sgd") != settings.optimizer:
        raise ValueError(
            f"{checkpoint} is part-way through a fit with "
            f"--optimizer {state.get('optimizer', 'sgd')}; finish it with that"
        )
    if settings.optimizer == "adam":
        state.setdefault("batch", settings.batch)
    return state, rank_weight


class _FitData(NamedTuple):
    """A training set split for a fit: positions, targets and sibling groups (as
    :func:`load_dataset` gives them), the rows held out and those trained on, and whether the
    set has sibling groups."""

    pos: np.ndarray
    tg: np.ndarray
    groups: np.ndarray
    hold: np.ndarray
    train: np.ndarray
    has_groups: bool


def _split_data(data_dir, settings: FitSettings) -> _FitData:
    """The training set of ``data_dir`` with ``settings.holdout`` of its rows held out, picked
    by ``settings.seed``: whole sibling groups when the set has them."""
    pos, tg, groups = load_dataset(data_dir, with_groups=True)
    n = len(pos)
    has_groups = bool(np.any(groups >= 0))
    if has_groups:  # whole sibling groups held out
        from bgtui.training.adam import group_order

        rows = group_order(groups, np.random.default_rng(settings.seed))
        n_hold = int(n * settings.holdout)
        while (
            0 < n_hold < n
            and groups[rows[n_hold]] >= 0
            and groups[rows[n_hold]] == groups[rows[n_hold - 1]]
        ):
            n_hold += 1  # not splitting the last group held out
        hold, train = np.sort(rows[:n_hold]), np.sort(rows[n_hold:])
    else:
        perm = np.random.default_rng(settings.seed).permutation(n)
        n_hold = int(n * settings.holdout)
        hold, train = perm[:n_hold].astype(np.int64), perm[n_hold:].astype(np.int64)
    return _FitData(pos, tg, groups, hold, train, has_groups)


def _adam_sets(data: _FitData, owner, trained) -> list[tuple]:
    """Per net: (train rows, train inputs, train targets, holdout inputs, holdout targets,
    train groups, holdout groups), each net with the rows of the classes it values
    (``owner``: the net of each class); a net not ``trained`` keeps only its held-out rows
    (its error is still logged)."""
    from bgtui.training import adam
    from bgtui.training.kernels import net_classes

    pos, tg, groups, hold, train = data.pos, data.tg, data.groups, data.hold, data.train
    net_of = owner[net_classes(pos)]
    sets = []
    for k in range(len(NET_NAMES)):
        tr = train[net_of[train] == k] if trained[k] else train[:0]
        ho = hold[net_of[hold] == k]
        sets.append(
            (
                tr,
                adam.dense_inputs(pos, tr),
                tg[tr],
                adam.dense_inputs(pos, ho),
                tg[ho],
                groups[tr],
                groups[ho],
            )
        )
    return sets


def _adam_resume(opt_path: Path, done: int, nets_: list, tied) -> tuple:
    """(nets, Adam moments, passes done) of an Adam fit: the optimiser state at ``opt_path``
    when the fit is part-way (``done`` passes), else fresh moments for ``nets_``."""
    from bgtui.training import adam

    if done and opt_path.exists():
        nets_, moments, opt_done = adam.load_state(opt_path)
        nets_ = list(nets_)
        done = opt_done  # the state is written first: it may be one pass ahead
    else:
        moments = [adam.new_moments(net) for net in nets_]
    return _tie(nets_, tied), moments, done


def _adam_pass(nets_, moments, sets, trained, settings, ep, a, rank_weight, has_groups, rec):
    """One Adam pass of step size ``a`` (pass ``ep``) over each trained net's rows in
    ``sets`` (:func:`_adam_sets`); returns each net's held-out mean squared error and adds
    the held-out sibling RMS (sets with groups) and the training error to ``rec``."""
    from bgtui.training import adam

    hold_mse = {}
    se = cnt = 0.0
    for k, name in enumerate(NET_NAMES):
        tr, x, t5, xh, th, gtr, gho = sets[k]
        if trained[k] and len(tr):
            rng = np.random.default_rng(settings.seed * 7919 + ep * 2 + k)
            if rank_weight:
                order = adam.group_order(gtr, rng)
                se += adam.adam_pass(
                    nets_[k], moments[k], x, t5, order, settings.batch, a, gtr, rank_weight
                )
            else:
                order = rng.permutation(len(tr))
                se += adam.adam_pass(nets_[k], moments[k], x, t5, order, settings.batch, a)
            cnt += len(tr) - len(tr) % settings.batch
        hold_mse[name] = adam.squared_error(nets_[k], xh, th) / max(len(th), 1)
        if has_groups and len(th):
            rc = adam.sibling_residuals(adam.forward(nets_[k], xh)[1], th, gho)
            paired = np.count_nonzero(rc)
            if paired:
                rec[f"holdout_{name}_sibling_rms"] = round(
                    float(np.sqrt((rc.astype(np.float64) ** 2).sum() / paired)), 5
                )
    rec["train_mse"] = round(se / max(cnt, 1), 6)
    return hold_mse


def _sgd_pass(data: _FitData, ev, ews, owner, trained, settings, ep, a, rec) -> dict:
    """One pass of stochastic gradient descent of step size ``a`` (pass ``ep``) over the
    training rows, each class training its ``owner`` net if ``trained``, then a measuring
    pass over the held-out rows; returns each net's held-out mean squared error and adds the
    training error to ``rec``."""
    from bgtui.training.kernels import _supervised_epoch

    pos, tg, hold, train = data.pos, data.tg, data.hold, data.train
    rng = np.random.default_rng(settings.seed * 7919 + ep)
    order = train[rng.permutation(len(train))]
    stats = np.zeros(2 * len(NET_NAMES))
    alphas = np.array([a if trained[owner[c]] else 0.0 for c in range(len(NET_NAMES))])
    _supervised_epoch(pos, tg, order, ev, alphas, ews, stats)
    hs = np.zeros(2 * len(NET_NAMES))
    _supervised_epoch(pos, tg, hold, ev, np.zeros(len(NET_NAMES)), ews, hs)  # alpha 0: measure only
    rec["train_mse"] = round(stats[0::2].sum() / max(stats[1::2].sum(), 1), 6)
    return {name: hs[2 * k] / max(hs[2 * k + 1], 1) for k, name in enumerate(NET_NAMES)}


def _end_pass(checkpoint, ev, side, meta, state, settings, ep, n, rec, hold_mse, t, log) -> None:
    """After pass ``ep`` (started at ``t``): write ``checkpoint`` (the nets ``ev`` and the race
    side net ``side``, which a fit does not change) with the fit record ``state`` in ``meta``,
    measure the strength against PubEval if asked and log ``rec`` with the held-out errors
    ``hold_mse``."""
    for name in NET_NAMES:
        rec[f"holdout_{name}_mse"] = round(hold_mse[name], 6)
    state.update(epochs_done=ep + 1, epochs=settings.epochs, positions=n)
    meta["fit"] = state
    save_weights(checkpoint, ev, meta, side=side)
    rec["seconds"] = round(time.time() - t, 1)
    if settings.strength_pairs:
        ppg, se_ = pubeval_ppg(with_databases(ev, True, side=side), settings.strength_pairs)
        rec.update(vs_pubeval_ppg=round(ppg, 3), se=round(se_, 3))
    print(json.dumps(rec), file=log, flush=True)


def fit(checkpoint, data_dir, settings: FitSettings, log=None) -> dict:
    """Train the nets on the whole training set of ``data_dir`` for ``epochs`` passes, the step
    size decaying from ``alpha`` to ``alpha_end``, writing ``checkpoint`` after every pass; a
    checkpoint part-way through the passes resumes where it stopped (exactly: the same weights
    as an uninterrupted fit); one whose fit was of another training set or other nets (a copy
    of the shipped weights, say) starts a new fit from its weights. ``optimizer`` "sgd":
    stochastic gradient descent position by position on squared error (numba); "adam": minibatch
    Adam on cross-entropy (:mod:`bgtui.training.adam`), whose state is kept beside the
    checkpoint in ``CHECKPOINT.adam.npz``. Only the nets named in ``nets`` are trained, each on
    the positions of its class (``nn.net_class``).

    A new checkpoint starts from ``init`` (default: the shipped weights; "random": fresh nets of
    ``hidden`` / ``race_hidden`` units for the nets trained, the shipped ones for the others),
    widened to ``hidden`` / ``race_hidden`` units if they are larger (:func:`widen_net`). When
    the starting weights have no crashed net of their own (their contact net values those
    positions too), a fit that trains the crashed net starts it as a copy of the contact net;
    one that does not keeps the two tied, the contact net learning from both classes, as
    before there was a crashed net; the same holds for the early, the trailing, the mutual and
    the anchor contact nets, for the mutual trailing net with the trailing net (the contact
    net when that is tied too), for the mutual anchor, trailing anchor and mutual trailing
    anchor nets with the mutual, trailing and mutual trailing nets (or the nets those are in
    turn), for the early trailing and the early bar nets with the early net (the contact net
    when that is tied too), for the early trailing bar net with the early trailing net (or the
    net that is in turn), for each bar net below ``EARLY_PIPS`` with the net of the class it
    splits (or the net that is in turn: the anchor bar net the contact net when the anchor
    net is tied to it) and for the holding net with the crashed net (weights without one
    value those positions by their crashed net). ``holdout`` of the positions (fixed by
    ``seed``) are kept out of training and their mean squared error is logged; when the set
    has sibling groups (``children_best`` shards) whole groups are held out, and the RMS of
    the held-out sibling residuals (``adam.sibling_residuals``: the error in the equity
    differences between the plays of a roll) is logged too. ``rank_weight`` > 0 (Adam only)
    adds that weight times the squared sibling residuals to the loss: a fit aimed at the
    decisions between plays. The names above are the fields of ``settings``."""
    log = sys.stdout if log is None else log  # the stdout of the call, not of the import
    which = _fit_nets(settings)
    checkpoint = Path(checkpoint)
    ev, meta, tied, side = _fit_start(checkpoint, data_dir, settings, which, log)
    nets_ = [net_copy(net) for net in as_nets(ev)]
    nets_ = _tie(nets_, tied)
    state, rank_weight = _fit_state(checkpoint, meta, data_dir, settings, which, tied)
    owner = _owners(tied)  # the net each class trains
    trained = [name in which for name in NET_NAMES]
    data = _split_data(data_dir, settings)
    done = int(state["epochs_done"])
    if settings.optimizer == "adam":
        from bgtui.training import adam

        sets = _adam_sets(data, owner, trained)
        opt_path = checkpoint.with_name(checkpoint.name + ".adam.npz")
        nets_, moments, done = _adam_resume(opt_path, done, nets_, tied)
    else:
        ev = with_databases(tuple(nets_), True, tables=False)
        ews = make_eval_workspace(hidden_size(ev))
    for ep in range(done, settings.epochs):
        t = time.time()
        a = fit_alpha(ep, settings.epochs, settings.alpha, settings.alpha_end)
        rec = {"epoch": ep + 1, "alpha": float(f"{a:.4g}"), "positions": len(data.pos)}
        if settings.optimizer == "adam":
            hold_mse = _adam_pass(
                nets_, moments, sets, trained, settings, ep, a, rank_weight, data.has_groups, rec
            )
            adam.save_state(opt_path, nets_, moments, ep + 1)
            ev = tuple(nets_)
        else:
            hold_mse = _sgd_pass(data, ev, ews, owner, trained, settings, ep, a, rec)
        _end_pass(
            checkpoint, ev, side, meta, state, settings, ep, len(data.pos), rec, hold_mse, t, log
        )
    return meta


def upgrade_inputs(src, dst) -> dict:
    """Write to ``dst`` the weights of ``src`` made for an older input encoding with fewer
    features per side, with zero first-layer weights for the features added since: the nets
    compute exactly what they did, and training (``fit``) then learns the new features."""
    from bgtui.engine import INPUT_VERSION, NET_NAMES, NUM_FEATURES, PER_SIDE, RAW_PER_SIDE

    with np.load(src, allow_pickle=False) as z:
        data = {k: z[k] for k in z.files}
    meta = json.loads(str(data.pop("meta")))
    old_inputs = int(meta["num_inputs"])
    old_side = old_inputs // 2
    if old_side - RAW_PER_SIDE > NUM_FEATURES or old_inputs % 2:
        raise ValueError(f"{src}: {old_inputs} inputs do not fit under this encoding")
    acts = activations_of(src, meta)
    nets = []
    for name in NET_NAMES:
        if f"{name}_w1" not in data:
            # a file without this net: the net it is tied to stands in (crashed, early,
            # trailing, mutual and anchor: the contact net; holding: the crashed net;
            # mutual_trailing and trailing_anchor: the trailing net; mutual_anchor: the mutual
            # net; mutual_trailing_anchor: the mutual trailing net; early_trailing and
            # early_bar: the early net; early_trailing_bar: the early trailing net; each bar
            # net below EARLY_PIPS: the net of the class it splits)
            nets.append(nets[NET_NAMES.index(TIED_TO[name][0])])
            continue
        w1 = data[f"{name}_w1"]
        new = np.zeros((2 * PER_SIDE, w1.shape[1]), dtype=np.float32)
        new[:old_side] = w1[:old_side]
        new[PER_SIDE : PER_SIDE + old_side] = w1[old_side:]
        act = acts.get(name, SIGMOID)
        nets.append(Net(new, data[f"{name}_b1"], data[f"{name}_w2"], data[f"{name}_b2"], act))
    meta.setdefault("upgraded", []).append(
        {"from_input_version": meta.get("input_version"), "to_input_version": INPUT_VERSION}
    )
    # the race side net reads one side's checkers, not the nets' encoding: kept as it is
    side = side_net_of_arrays(src, data)
    save_weights(dst, with_databases(tuple(nets), side=side), meta)
    return meta


def average_weights(out, paths) -> dict:
    """Write to ``out`` the element-wise mean of the nets of the weights files ``paths`` (all
    of one architecture): a point between them in weight space. Between a fine-tune and the
    weights it started from (one basin), such a mean can keep most of what the fine-tune
    learnt while losing little of what it unlearnt. Returns the metadata written: the files
    averaged, their checksums and their own metadata."""
    loaded = [load_weights(p) for p in paths]
    nets = [nets_of(ev) for ev, _ in loaded]
    for k, (_ev, _) in enumerate(loaded[1:], 1):
        for name, a, b in zip(NET_NAMES, nets[0], nets[k]):
            if [x.shape for x in a[:4]] != [x.shape for x in b[:4]] or a.act != b.act:
                raise ValueError(
                    f"{paths[k]}: its {name} net has another shape or hidden function than "
                    f"{paths[0]}'s; only weights of one architecture average"
                )
    mean = [
        Net(*(_mean([n[j][q] for n in nets]) for q in range(4)), nets[0][j].act)
        for j in range(len(NET_NAMES))
    ]
    for k, to in tied_nets([ev for ev, _ in loaded]):
        mean[k] = mean[to]  # one net in every file: one net in the mean, saved as one
    side = _mean_side_net([ev.side for ev, _ in loaded], paths)
    meta = {
        "average": {"of": [str(p) for p in paths], "sha256": [m.get("sha256") for _, m in loaded]},
        "averaged_meta": [m for _, m in loaded],
        "games_trained": max(int(m.get("games_trained", 0)) for _, m in loaded),
    }
    save_weights(out, tuple(mean), meta, side=side)
    return meta


def _mean_side_net(sides, paths):
    """The element-wise mean of the race side nets ``sides`` of the files ``paths``: None
    when no file has one; a file without one, or with one of another width, is refused."""
    from bgtui.engine import make_side_net

    has = [s.w2.shape[0] > 0 for s in sides]
    if not any(has):
        return None
    if not all(has):
        k = has.index(False)
        raise ValueError(
            f"{paths[k]} has no race side net and {paths[has.index(True)]} has one; "
            "only weights of one architecture average"
        )
    for k, s in enumerate(sides[1:], 1):
        if s.w2.shape != sides[0].w2.shape:
            raise ValueError(
                f"{paths[k]}: its race side net has another shape than {paths[0]}'s; "
                "only weights of one architecture average"
            )
    parts = ("w1", "b1", "w2", "b2", "skip")
    return make_side_net(*(_mean([getattr(s, q) for s in sides]) for q in parts))


def _mean(arrays):
    """The element-wise mean of ``arrays`` (one shape), summed in float64, as float32."""
    return (sum(np.asarray(a, dtype=np.float64) for a in arrays) / len(arrays)).astype(np.float32)
