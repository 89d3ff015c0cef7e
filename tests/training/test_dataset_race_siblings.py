"""``train dataset --race-rollouts T --children-best K``: sibling plays of race rolls."""

import io
import json

import numpy as np
import pytest

from bgtui.analysis.weights import load_weights, with_databases
from bgtui.engine.evaluate import NO_DATABASE, database_kind, equity, evaluate0
from bgtui.engine.position import is_race
from bgtui.training.train import DatasetSpec, build_dataset, load_dataset, rollout_targets


def test_race_sibling_sets_are_best_plays_of_one_roll_rolled_with_the_same_dice(tmp_path):
    ev = with_databases(load_weights()[0], bearoff=True)
    spec = DatasetSpec(24, shard=12, race_rollouts=6, children_best=3, seed=7)
    build_dataset(tmp_path / "s", "bgtui-0.npz", spec, log=io.StringIO())
    pos, tg, grp = load_dataset(tmp_path / "s", with_groups=True)
    assert pos.shape == (24, 26) and np.all((tg >= 0) & (tg <= 1))
    assert np.all(np.diff(grp) >= 0) and grp[0] == 0 and grp[12] > grp[11]
    for shard in (0, 1):  # 2 or 3 siblings a roll; the last roll of a shard may be cut short
        sizes = np.unique(grp[12 * shard : 12 * shard + 12], return_counts=True)[1]
        assert sizes.max() <= 3 and np.all(sizes[:-1] >= 2)
    for p in pos:  # races the race net values, with the opponent of the mover on roll
        assert is_race(p) and database_kind(p, ev[2], ev[3]) == NO_DATABASE
    for shard in (0, 1):
        rows = slice(12 * shard, 12 * shard + 12)
        g = grp[rows]
        for r in np.unique(g):
            kids = pos[rows][g == r]
            # siblings: the same opponent (the side on roll now, unmoved in a race), the
            # mover's checkers moved by the same roll (equal pip counts unless one bears off)
            assert all(np.array_equal(np.maximum(k, 0), np.maximum(kids[0], 0)) for k in kids)
            # best first by the mover's 0-ply equity: the side on roll's rising
            opp = [equity(evaluate0(k, ev)) for k in kids]
            assert np.all(np.diff(opp) >= -1e-6), opp
        # the labels: each child's own rollout from the shard's seed (the same dice for every
        # sibling; rolled alone it gets the same value to the bit)
        seed = spec.seed * 1_000_003 + shard
        alone = rollout_targets(ev, pos[rows], 6, seed, 1, groups=1)
        assert np.array_equal(tg[rows], alone)
    with np.load(tmp_path / "s" / "shard-00000.npz") as z:
        meta = json.loads(str(z["meta"]))
        assert meta["children_best"] == 3 and meta["race_rollouts"] == 6


def test_race_siblings_refuse_random_children_and_pubeval_games(tmp_path):
    for bad in (
        dict(children=2, race_rollouts=4),
        dict(race_rollouts=4, children_best=2, vs_pubeval=True),
    ):
        with pytest.raises(ValueError):
            DatasetSpec(10, shard=10, **bad)


def test_rollouts_grouped_by_sibling_number_match_fixed_groups():
    ev = with_databases(load_weights()[0], bearoff=True)
    from bgtui.engine.evaluate import hidden_size, make_play_workspace
    from bgtui.engine.rng import make_rng
    from bgtui.training.train import _keep_races, _sample_shard

    ws = make_play_workspace(hidden_size(ev))
    spec = DatasetSpec(6, shard=6, explore=0.1, race_rollouts=4)
    races = _sample_shard(spec, ev, make_rng(4), ws)
    assert len(_keep_races(races, ev)) == 6
    by_id = rollout_targets(ev, races, 4, 11, 1, groups=np.array([0, 0, 1, 1, 1, 2]))
    fixed = rollout_targets(ev, races, 4, 11, 1, groups=3)
    assert np.array_equal(by_id, fixed)
