"""The training pipeline: TD self-play checkpoints resume, supervised rounds, widening a net."""

import io
import json
import zipfile

import numpy as np
import pytest

from bgtui.analysis.weights import load_weights, nets_of, with_databases
from bgtui.engine.evaluate import evaluate0
from bgtui.engine.nn import NET_NAMES, init_net
from bgtui.training.train import (
    SupervisedSettings,
    TDSettings,
    supervised_train,
    td_train,
    widen_net,
)
from tests.reference.games import game_positions


def _tiny_td_train(ck, games, chunk, save_every, **options):
    """:func:`td_train` of a tiny net (8 hidden units, 4 in the race net) without bear-off
    databases, for ``games`` games, with ``options``."""
    tiny = dict(hidden=8, race_hidden=4, bearoff=False, strength_pairs=50)
    log = options.pop("log", None)
    settings = TDSettings(games, chunk=chunk, save_every=save_every, **tiny, **options)
    return td_train(ck, settings, log=log)


def test_td_training_writes_a_checkpoint_and_resumes_where_it_stopped(tmp_path):
    ck = tmp_path / "td.npz"
    log = io.StringIO()
    _tiny_td_train(ck, 60, 30, 30, log=log)
    ev, meta = load_weights(ck)
    assert meta["games_trained"] == 60 and ev[0][1].shape == (8,)
    lines = [json.loads(x) for x in log.getvalue().splitlines()]
    assert [x["games"] for x in lines if "alpha" in x] == [30, 60]
    strength = [x for x in lines if "vs_pubeval_ppg" in x]
    assert [x["games"] for x in strength] == [30, 60]  # logged at each checkpoint
    assert all(-3.0 <= x["vs_pubeval_ppg"] <= 3.0 and x["se"] > 0 for x in strength)
    # resuming continues the count and the random stream: 60 + 40 games
    _tiny_td_train(ck, 100, 40, 40, log=io.StringIO())
    ev2, meta2 = load_weights(ck)
    assert meta2["games_trained"] == 100
    assert meta2["rng_state"] != meta["rng_state"]
    assert not np.array_equal(ev2[0][0], ev[0][0])  # the weights learned something


def test_a_supervised_round_moves_the_net_toward_its_targets(tmp_path):
    ck = tmp_path / "td.npz"
    _tiny_td_train(ck, 30, 30, 30, log=io.StringIO())
    log = io.StringIO()
    supervised_train(ck, SupervisedSettings(2, positions=300, ply=1, epochs=1, alpha=0.05), log=log)
    ev, meta = load_weights(ck)
    assert meta["supervised_rounds"] == 2
    rounds = [json.loads(x) for x in log.getvalue().splitlines()]
    assert [r["round"] for r in rounds] == [1, 2]
    assert all(r["contact_mse"] >= 0 and r["positions"] == 300 for r in rounds)


def test_a_supervised_round_widens_every_net(tmp_path):
    ck = tmp_path / "td.npz"
    _tiny_td_train(ck, 30, 30, 30, log=io.StringIO())
    settings = SupervisedSettings(1, positions=100, ply=0, epochs=1, hidden=12, race_hidden=6)
    supervised_train(ck, settings, log=io.StringIO())
    ev, _ = load_weights(ck)
    widths = {name: net[1].shape[0] for name, net in zip(NET_NAMES, nets_of(ev))}
    assert widths == {name: 6 if name == "race" else 12 for name in NET_NAMES}


def test_widening_a_net_keeps_its_function():
    nets = (init_net(16, 1, 0.3), init_net(8, 2, 0.3))
    wide = (widen_net(nets[0], 40, 3), widen_net(nets[1], 8, 4))
    assert wide[0][0].shape[1] == 40 and wide[1] is nets[1]
    a = with_databases(nets)
    b = with_databases(wide)
    for pos in game_positions(5, 2)[::7]:
        pa = evaluate0(np.asarray(pos, dtype=np.int8), a)
        pb = evaluate0(np.asarray(pos, dtype=np.int8), b)
        assert np.allclose(pa, pb, atol=1e-6)


def test_lambda_returns_hand_computed():
    from bgtui.training.kernels import _lambda_returns

    # three moves: A, B, A; the last (A) wins a gammon. Values are each mover's view.
    vals = np.array(
        [[0.6, 0.2, 0.0, 0.1, 0.0], [0.3, 0.1, 0.0, 0.3, 0.0], [1.0, 1.0, 0.0, 0.0, 0.0]],
        dtype=np.float32,
    )
    out = np.zeros_like(vals)
    _lambda_returns(vals, 3, 0.5, out)
    # out[2] = the result; out[1] (B's view) = 0.5 * vals[1] + 0.5 * flip(out[2])
    #   flip(1, 1, 0, 0, 0) = (0, 0, 0, 1, 0) -> (0.15, 0.05, 0, 0.65, 0)
    # out[0] (A) = 0.5 * vals[0] + 0.5 * flip(out[1]) = 0.5 * (0.6, .2, 0, .1, 0)
    #   + 0.5 * (0.85, 0.65, 0, 0.05, 0) = (0.725, 0.425, 0, 0.075, 0)
    assert np.allclose(out[2], vals[2])
    assert np.allclose(out[1], [0.15, 0.05, 0.0, 0.65, 0.0])
    assert np.allclose(out[0], [0.725, 0.425, 0.0, 0.075, 0.0])
    # lambda 0: each move's own value (TD(0)); lambda 1: the result, from each side's view
    _lambda_returns(vals, 3, 0.0, out)
    assert np.allclose(out, vals)
    _lambda_returns(vals, 3, 1.0, out)
    assert np.allclose(out[0], vals[2]) and np.allclose(out[1], [0, 0, 0, 1, 0])


def test_td_lambda_training_runs_and_records_lambda(tmp_path):
    ck = tmp_path / "tdl.npz"
    _tiny_td_train(ck, 40, 20, 40, lam=0.7, log=io.StringIO())
    ev, meta = load_weights(ck)
    assert meta["games_trained"] == 40
    assert meta["training"]["method"] == "td-lambda-selfplay"
    assert meta["training"]["lambda"] == 0.7


def _small_weights(tmp_path):
    from bgtui.analysis.weights import save_weights

    ck = tmp_path / "small.npz"
    ev = with_databases((init_net(8, 3), init_net(4, 4)))
    save_weights(ck, ev, {"games_trained": 0})
    return ck


def test_a_dataset_build_resumes_to_the_same_shards(tmp_path):
    from bgtui.training.train import DatasetSpec, build_dataset, load_dataset

    ck = _small_weights(tmp_path)
    build_dataset(tmp_path / "a", ck, DatasetSpec(60, shard=30, children=2), log=io.StringIO())
    build_dataset(tmp_path / "b", ck, DatasetSpec(30, shard=30, children=2), log=io.StringIO())
    build_dataset(
        tmp_path / "b", ck, DatasetSpec(60, shard=30, children=2), log=io.StringIO()
    )  # resumed
    pa, ta = load_dataset(tmp_path / "a")
    pb, tb = load_dataset(tmp_path / "b")
    assert pa.shape == (60, 26) and np.array_equal(pa, pb) and np.array_equal(ta, tb)
    assert np.all((ta >= 0) & (ta <= 1)) and np.all(ta[:, 1] <= ta[:, 0] + 1e-6)
    both, _ = load_dataset(f"{tmp_path / 'a'},{tmp_path / 'b'}")
    assert len(both) == 120
    second, t2 = load_dataset(f"{tmp_path / 'a'}:1")  # a slice of the sorted shards
    assert np.array_equal(second, pa[30:]) and np.array_equal(t2, ta[30:])
    first_a, _ = load_dataset(f"{tmp_path / 'a'}:0:1")
    assert np.array_equal(first_a, pa[:30])
    mixed, _ = load_dataset(f"{tmp_path / 'a'}:1:2,{tmp_path / 'b'}:0:1")
    assert np.array_equal(mixed, np.concatenate([pa[30:], pb[:30]]))
    with pytest.raises(ValueError, match="no training shards"):
        load_dataset(f"{tmp_path / 'a'}:2")
    with pytest.raises(ValueError, match="DIR:first:last"):
        load_dataset(f"{tmp_path / 'a'}:one")
    with zipfile.ZipFile(tmp_path / "a" / "shard-00000.npz") as z:  # stored compressed
        assert {i.compress_type for i in z.infolist()} == {zipfile.ZIP_DEFLATED}


class _KilledAfter(io.StringIO):
    """A log that stops the process (raises) once it has ``n`` lines: a fit killed mid-way."""

    def __init__(self, n):
        super().__init__()
        self.n = n

    def write(self, text):
        super().write(text)
        if self.getvalue().count("\n") >= self.n:
            raise KeyboardInterrupt


def test_fit_resumed_equals_uninterrupted_and_lowers_the_error(tmp_path):
    from bgtui.training.train import DatasetSpec, FitSettings, build_dataset, fit

    ck = _small_weights(tmp_path)
    build_dataset(tmp_path / "d", ck, DatasetSpec(200, shard=100), log=io.StringIO())
    log = io.StringIO()
    fit(tmp_path / "one.npz", tmp_path / "d", FitSettings(4, init=ck, holdout=0.2), log=log)
    try:
        fit(
            tmp_path / "two.npz",
            tmp_path / "d",
            FitSettings(4, init=ck, holdout=0.2),
            log=_KilledAfter(2),
        )
    except KeyboardInterrupt:
        pass
    _, part = load_weights(tmp_path / "two.npz")
    assert part["fit"]["epochs_done"] == 2
    fit(
        tmp_path / "two.npz", tmp_path / "d", FitSettings(4, holdout=0.2), log=io.StringIO()
    )  # resumed
    a, meta = load_weights(tmp_path / "one.npz")
    b, meta_b = load_weights(tmp_path / "two.npz")
    assert meta["fit"]["epochs_done"] == meta_b["fit"]["epochs_done"] == 4
    for net_a, net_b in zip(a[:2], b[:2]):
        assert all(np.array_equal(x, y) for x, y in zip(net_a, net_b))
    recs = [json.loads(x) for x in log.getvalue().splitlines()]
    assert recs[-1]["train_mse"] < recs[0]["train_mse"]


def _older_weights(path, extra=None, **meta_extra):
    """The shipped contact and race nets written to ``path`` as made for the input encoding
    before this one (the last feature of each side missing), with the arrays ``extra`` and
    the metadata ``meta_extra``; returns (the nets with that feature's weights zero, the
    shipped metadata)."""
    from bgtui.analysis.checksum import arrays_sha256
    from bgtui.engine import Net
    from bgtui.engine.inputs import PER_SIDE

    ev, meta = load_weights()
    gone = [PER_SIDE - 1, 2 * PER_SIDE - 1]  # the last feature of the player's and opponent's
    arrays, zeroed = dict(extra or {}), []
    for name, net in zip(NET_NAMES, ev[:2]):
        w1, b1, w2, b2 = (np.array(a) for a in net[:4])
        old = np.delete(w1, gone, axis=0)
        w1[gone] = 0.0
        zeroed.append(Net(w1, b1, w2, b2, net.act))
        arrays.update({f"{name}_w1": old, f"{name}_b1": b1, f"{name}_w2": w2, f"{name}_b2": b2})
    old_meta = dict(
        meta,
        **meta_extra,
        input_version=meta["input_version"] - 1,
        num_inputs=2 * (PER_SIDE - 1),
        sha256=arrays_sha256(arrays),
    )
    np.savez(path, meta=np.array(json.dumps(old_meta)), **arrays)
    return zeroed, meta


def test_upgrading_older_weights_keeps_what_the_nets_compute(tmp_path):
    """Weights made without the last feature, upgraded, evaluate exactly like the current nets
    with that feature's weights set to zero."""
    from bgtui.engine import net_copy
    from bgtui.engine.inputs import NUM_FEATURES
    from bgtui.training.train import upgrade_inputs

    zeroed, meta = _older_weights(tmp_path / "old.npz")
    upgrade_inputs(tmp_path / "old.npz", tmp_path / "new.npz")
    up, up_meta = load_weights(tmp_path / "new.npz")
    assert up_meta["upgraded"][-1]["to_input_version"] == meta["input_version"]
    want = with_databases(tuple(net_copy(n) for n in zeroed))
    for pos in game_positions(5, 2)[:40]:
        p = np.asarray(pos, dtype=np.int8)
        assert np.array_equal(evaluate0(p, up), evaluate0(p, want))
    assert NUM_FEATURES >= 1


_SIDE_PARTS = ("w1", "b1", "w2", "b2", "skip")


def test_upgrading_older_weights_keeps_their_side_net_and_hidden_functions(tmp_path):
    """The side net reads one side's checkers, not the nets' encoding: an upgraded file has
    the same side net, array for array, and its nets the hidden functions they had."""
    from bgtui.engine import QUADRATIC, SIGMOID
    from bgtui.training.side import SideFit
    from bgtui.training.train import upgrade_inputs

    side = SideFit(np.random.default_rng(8), 6).side_net()
    extra = {f"side_{q}": np.asarray(getattr(side, q)) for q in _SIDE_PARTS}
    _older_weights(tmp_path / "old.npz", extra, activation={"contact": "quadratic"})
    upgrade_inputs(tmp_path / "old.npz", tmp_path / "new.npz")
    up, _ = load_weights(tmp_path / "new.npz")
    for q in _SIDE_PARTS:
        assert np.array_equal(getattr(up.side, q), getattr(side, q)), q
    assert up.contact.act == QUADRATIC and up.race.act == SIGMOID


def test_a_shard_left_half_written_is_not_part_of_the_set(tmp_path):
    from bgtui.training.train import DatasetSpec, build_dataset, load_dataset

    ck = _small_weights(tmp_path)
    d = tmp_path / "d"
    build_dataset(d, ck, DatasetSpec(30, shard=30), log=io.StringIO())
    (d / ".shard-00001.tmp").write_bytes(b"PK\x03\x04 cut off")  # a build killed mid-write
    (d / "shard-00001.tmp.npz").write_bytes(b"PK\x03\x04 cut off")  # an older build's name
    pos, _ = load_dataset(d)
    assert len(pos) == 30
    build_dataset(d, ck, DatasetSpec(60, shard=30), log=io.StringIO())  # resumes with shard 1
    assert len(load_dataset(d)[0]) == 60


def test_race_training_set_keeps_only_the_races_the_race_net_values():
    from bgtui.analysis.bearoff_cache import get_one_sided
    from bgtui.analysis.formats import decode_position_id
    from bgtui.engine.constants import OPENING_POSITION
    from bgtui.training.train import _keep_races

    contact = np.array(OPENING_POSITION)
    two_sided = np.zeros(26, dtype=np.int8)
    two_sided[1], two_sided[24] = 3, -2  # both sides home with at most 6 checkers
    straggler = decode_position_id("7wABAG4bAAAAAA")  # one checker outside on one side
    long_race = decode_position_id("tnWEBwC2mvIBAA")  # 103 pips each, many outside
    positions = np.stack([contact, two_sided, straggler, long_race])
    ev = with_databases(load_weights("bgtui-0.npz")[0][:2], bearoff=True)
    kept = _keep_races(positions, ev)
    assert [bytes(p) for p in kept] == [bytes(long_race)]
    # with the home-board database only, the straggler race is the net's too
    kept = _keep_races(positions, ev._replace(one_sided=get_one_sided().dist))
    assert [bytes(p) for p in kept] == [bytes(straggler), bytes(long_race)]


def test_straggler_races_by_hand():
    from bgtui.analysis.formats import decode_position_id
    from bgtui.training.train import _keep_races, is_straggler_race

    # the race net's worst race: the player has 10 off and checkers on his 8 and 15 points
    worst = decode_position_id("3wwAADQQEAAAAA")
    assert sorted(worst[worst > 0].tolist()) == [1, 1, 1, 2] and worst[8] == worst[15] == 1
    assert is_straggler_race(worst)
    # the same seen from the other side: the opponent is the one with the stragglers
    assert is_straggler_race(-worst[::-1])
    # two outside but only four off: not yet
    four_off = np.zeros(26, dtype=np.int8)
    four_off[1], four_off[2], four_off[8], four_off[15] = 4, 5, 1, 1  # 11 on the board
    four_off[24] = -9
    assert not is_straggler_race(four_off)
    four_off[1] = 3  # 10 on the board: five off
    assert is_straggler_race(four_off)
    # five off but one checker outside: the extended one-sided database's kind, not this
    one_out = four_off.copy()
    one_out[15], one_out[2] = 0, 6
    assert not is_straggler_race(one_out)
    long_race = decode_position_id("tnWEBwC2mvIBAA")  # nobody has borne off
    assert not is_straggler_race(long_race)
    ev = with_databases(load_weights("bgtui-0.npz")[0][:2], bearoff=True)
    # ten checkers with two outside: the race net's; the worst race's side has only five
    # checkers, so the one-sided database (its few-checker rows) values it now
    kept = _keep_races(np.stack([long_race, worst, four_off]), ev, stragglers=True)
    assert [bytes(p) for p in kept] == [bytes(four_off)]


def test_average_is_the_elementwise_mean_of_the_nets_and_refuses_other_shapes(tmp_path):
    from bgtui.analysis.weights import load_weights, nets_of, save_weights
    from bgtui.engine.nn import init_net
    from bgtui.training.train import average_weights

    a = (init_net(8, 1), init_net(4, 2), init_net(8, 3))
    b = (init_net(8, 4), init_net(4, 5), init_net(8, 6))
    save_weights(tmp_path / "a.npz", a, {"games_trained": 10})
    save_weights(tmp_path / "b.npz", b, {"games_trained": 20})
    meta = average_weights(tmp_path / "m.npz", [tmp_path / "a.npz", tmp_path / "b.npz"])
    ev, m = load_weights(tmp_path / "m.npz")
    for net, na, nb in zip(nets_of(ev), a, b):
        for x, y, z in zip(net, na, nb):
            np.testing.assert_allclose(x, (np.float64(y) + np.float64(z)) / 2, rtol=1e-6)
    assert m["average"]["sha256"] == meta["average"]["sha256"] and m["games_trained"] == 20
    # the nets both files have as another (early and trailing the contact net, holding the
    # crashed net) are that net in the mean too
    assert ev.early is ev.contact and ev.trailing is ev.contact and ev.holding is ev.crashed
    save_weights(tmp_path / "c.npz", (init_net(6, 1), init_net(4, 2), init_net(6, 3)), {})
    with pytest.raises(ValueError, match="another shape"):
        average_weights(tmp_path / "x.npz", [tmp_path / "a.npz", tmp_path / "c.npz"])


def test_average_means_the_race_side_nets_and_refuses_a_file_without_one(tmp_path):
    from bgtui.analysis.weights import save_weights
    from bgtui.training.side import SideFit
    from bgtui.training.train import average_weights

    nets = (init_net(8, 1), init_net(4, 2), init_net(8, 3))
    sa = SideFit(np.random.default_rng(1), 6).side_net()
    sb = SideFit(np.random.default_rng(2), 6).side_net()
    save_weights(tmp_path / "a.npz", nets, {}, side=sa)
    save_weights(tmp_path / "b.npz", nets, {}, side=sb)
    average_weights(tmp_path / "m.npz", [tmp_path / "a.npz", tmp_path / "b.npz"])
    ev, _ = load_weights(tmp_path / "m.npz")
    for q in _SIDE_PARTS:
        want = (np.float64(getattr(sa, q)) + np.float64(getattr(sb, q))) / 2
        np.testing.assert_allclose(getattr(ev.side, q), want, rtol=1e-6, atol=1e-7)
    save_weights(tmp_path / "c.npz", nets, {})
    with pytest.raises(ValueError, match="c.npz has no race side net"):
        average_weights(tmp_path / "x.npz", [tmp_path / "a.npz", tmp_path / "c.npz"])
    wide = SideFit(np.random.default_rng(3), 8).side_net()
    save_weights(tmp_path / "w.npz", nets, {}, side=wide)
    with pytest.raises(ValueError, match="race side net has another shape"):
        average_weights(tmp_path / "x.npz", [tmp_path / "a.npz", tmp_path / "w.npz"])
