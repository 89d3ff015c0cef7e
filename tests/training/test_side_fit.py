"""``bgtui train side``: the formula's gradients against finite differences, the numpy net
against the engine's kernel, and a small fit end to end."""

import json

import numpy as np
import pytest

from bgtui.analysis.weights import load_weights, nets_of, save_weights
from bgtui.engine import SIDE_OUTPUTS, side_dists
from bgtui.training.side import (
    SideFit,
    SideSettings,
    fit_side,
    race5,
    sides_of,
)
from bgtui.training.side import (
    _dists as side_dists_of,
)


def _dists(rng, n):
    z = rng.standard_normal((n, 3, 32))
    p = np.exp(z)
    return p / p.sum(axis=2, keepdims=True)


def test_the_formulas_gradients_are_its_derivatives():
    rng = np.random.default_rng(1)
    pa, pb = _dists(rng, 4), _dists(rng, 4)
    out, grads = race5(pa, pb)
    g = rng.standard_normal((4, 5))
    ga, gb = grads(g)
    eps = 1e-6
    for p, gp, which in ((pa, ga, 0), (pb, gb, 1)):
        for idx in [(0, 0, 3), (1, 1, 7), (2, 2, 0), (3, 0, 31), (3, 1, 15)]:
            q = p.copy()
            q[idx] += eps
            o2 = race5(q, pb)[0] if which == 0 else race5(pa, q)[0]
            assert np.isclose((g * (o2 - out)).sum() / eps, gp[idx], rtol=1e-4, atol=1e-6)


def test_the_numpy_net_is_the_engines():
    rng = np.random.default_rng(2)
    fit = SideFit(rng, 12)
    for p in fit.params:
        p += rng.standard_normal(p.shape) * 0.2
    net = fit.side_net()
    positions = np.load("data/rs3/shard-00000.npz")["positions"][:30]
    sides = sides_of(positions)
    # training's distributions of both sides: the net's, with the fixed heads the engine fixes
    d = side_dists_of(fit, sides, np.full((len(sides), 2), -1), np.zeros((0, 2, 32)))[0]
    u = np.zeros(12 + SIDE_OUTPUTS, dtype=np.float32)
    out = np.zeros((3, 32), dtype=np.float32)
    for k, pos in enumerate(positions):
        for side in (0, 1):
            side_dists(pos, side, net, u, out)
            assert np.abs(out - d[k, side]).max() < 1e-5  # float32 weights against float64


def test_a_small_fit_lowers_its_error_and_writes_the_net(tmp_path):
    data = tmp_path / "races"
    data.mkdir()
    with np.load("data/rs/shard-00000.npz") as z:
        np.savez(
            data / "shard-00000.npz", positions=z["positions"][:600], targets=z["targets"][:600]
        )
    out = tmp_path / "w.npz"
    settings = SideSettings(hidden=8, passes=4, alpha=0.003, pre_passes=1, pre_rows=3000, batch=64)
    figures = fit_side(out, "bgtui-0.npz", [data], [], settings, log=lambda _: None)
    loss = figures["race_squared_error"]
    assert len(loss) == 4 and loss[-1] < 0.5 * loss[0]
    ev, meta = load_weights(out)
    assert ev.side.w2.shape == (8, SIDE_OUTPUTS)
    assert meta["side_fit"]["passes_done"] == 4 and meta["side_fit"]["data"] == [str(data)]


def _teacher(tmp_path, seed):
    """The shipped weights with a small side net of random weights, saved in ``tmp_path``."""
    from bgtui.analysis.weights import save_weights

    rng = np.random.default_rng(seed)
    fit = SideFit(rng, 8)
    for p in fit.params:
        p += rng.standard_normal(p.shape) * 0.2
    ev0, meta = load_weights("bgtui-0.npz")
    teacher = tmp_path / "t.npz"
    save_weights(teacher, ev0, meta, side=fit.side_net())
    return teacher


def test_side_labels_are_the_teachers_values_of_the_races_and_of_a_rolls_every_play(tmp_path):
    from bgtui.analysis.weights import with_databases
    from bgtui.engine import evaluate0, game_result, generate_plays, swap_sides
    from bgtui.training.side import label_races

    src = tmp_path / "races"
    src.mkdir()
    with np.load("data/rs/shard-00000.npz") as z:
        np.savez(src / "shard-00000.npz", positions=z["positions"][:40], targets=z["targets"][:40])
    teacher = _teacher(tmp_path, seed=3)
    out = tmp_path / "labels"
    n = label_races(out, teacher, [src], children=3, seed=2, log=lambda _: None)
    with np.load(out / "shard-00000.npz") as z:
        pos, lab, grp = z["positions"], z["targets"], z["groups"]
    assert len(pos) == n > 40
    np.testing.assert_array_equal(pos[:40], np.load(src / "shard-00000.npz")["positions"])
    np.testing.assert_array_equal(grp[:40], np.arange(40))  # no groups: each its own
    ev = with_databases(load_weights(teacher)[0], bearoff=True)
    for i in range(0, n, 7):
        np.testing.assert_allclose(lab[i], evaluate0(pos[i], ev), atol=1e-6)
    # the children: for each of the 3 positions drawn (seed 2: the positions, then their
    # rolls), the positions after every play of its roll that does not end the game, one group
    # a roll, rolls of fewer than two such plays left out
    draw = np.random.default_rng(2)
    picks = draw.choice(40, 3, replace=False)
    dice = draw.integers(1, 7, size=(3, 2))
    want = []
    for i, (d1, d2) in zip(picks, dice):
        plays, _ = generate_plays(pos[i], int(d1), int(d2))
        kids = {swap_sides(c).tobytes() for c in plays if game_result(c) == 0}
        if len(kids) >= 2:
            want.append(kids)
    got = [{k.tobytes() for k in pos[grp == g]} for g in range(40, grp.max() + 1)]
    assert want and got == want
    # a second run keeps the shard
    before = (out / "shard-00000.npz").stat().st_mtime_ns
    assert label_races(out, teacher, [src], children=3, seed=2, log=lambda _: None) == 0
    assert (out / "shard-00000.npz").stat().st_mtime_ns == before


def test_side_label_cousins_are_the_leaves_after_the_opponents_best_reply(tmp_path):
    from bgtui.analysis.weights import with_databases
    from bgtui.engine import (
        NO_DATABASE,
        database_kind,
        equity,
        evaluate0,
        game_result,
        generate_plays,
        swap_sides,
    )
    from bgtui.training.side import label_races

    src = tmp_path / "races"
    src.mkdir()
    with np.load("data/rs/shard-00000.npz") as z:
        sp, sg = z["positions"][:40], z["groups"][:40]
    np.savez(src / "shard-00000.npz", positions=sp, targets=np.zeros((40, 5)), groups=sg)
    teacher = _teacher(tmp_path, seed=5)
    out = tmp_path / "cousins"
    n = label_races(out, teacher, [src], seed=4, cousins=True, log=lambda _: None)
    with np.load(out / "shard-00000.npz") as z:
        pos, lab, grp = z["positions"], z["targets"], z["groups"]
    assert len(pos) == n > 0
    ev = with_databases(load_weights(teacher)[0], bearoff=True)
    # brute force: a roll per group (seed 4, in the order of the groups); for each sibling the
    # reply that leaves the mover (on roll) the lowest 0-ply equity, a reply that ends the game
    # first; leaves that end the game or that a database values left out, and groups of one
    keys = np.unique(sg)
    dice = np.random.default_rng(4).integers(1, 7, size=(len(keys), 2))
    want = {}
    for g, (d1, d2) in zip(keys, dice):
        leaves = []
        for i in np.flatnonzero(sg == g):
            plays, _ = generate_plays(sp[i], int(d1), int(d2))
            if any(game_result(c) > 0 for c in plays):
                continue
            values = [equity(evaluate0(swap_sides(c), ev)) for c in plays]
            leaf = swap_sides(plays[int(np.argmin(values))])
            if database_kind(leaf, ev.two_sided, ev.one_sided) == NO_DATABASE:
                leaves.append(leaf.tobytes())
        if len(leaves) >= 2:
            want[int(g)] = leaves
    got = {int(g): [p.tobytes() for p in pos[grp == g]] for g in np.unique(grp)}
    assert want and got == want
    for i in range(n):
        np.testing.assert_allclose(lab[i], evaluate0(pos[i], ev), atol=1e-6)


def test_plied_side_labels_are_the_teachers_n_ply_values_and_need_no_side_net(tmp_path):
    from bgtui.analysis.weights import with_databases
    from bgtui.engine import evaluate_plied, hidden_size, make_lookahead_workspace
    from bgtui.training.side import label_races

    src = tmp_path / "races"
    src.mkdir()
    with np.load("data/rs/shard-00000.npz") as z:
        np.savez(src / "shard-00000.npz", positions=z["positions"][:6], targets=z["targets"][:6])
    out = tmp_path / "labels"
    # the shipped nets without their side net: 0-ply labels need one, 1-ply labels do not
    teacher = tmp_path / "no_side.npz"
    shipped, meta = load_weights("bgtui-0.npz")
    meta.pop("path")
    save_weights(teacher, nets_of(shipped), meta)
    with pytest.raises(ValueError, match="no side net"):
        label_races(out, teacher, [src], children=0, log=lambda _: None)
    n = label_races(out, teacher, [src], children=0, ply=1, workers=2, log=lambda _: None)
    with np.load(out / "shard-00000.npz") as z:
        pos, lab = z["positions"], z["targets"]
        assert json.loads(str(z["meta"]))["ply"] == 1
    assert n == len(pos) == 6
    ev = with_databases(load_weights(teacher)[0], bearoff=True)
    assert ev.side.w2.shape[0] == 0
    lws = make_lookahead_workspace(hidden_size(ev))
    for i in range(n):
        want = np.zeros(5, dtype=np.float32)
        evaluate_plied(pos[i], 1, ev, lws, want)
        np.testing.assert_allclose(lab[i], want, atol=1e-6)
