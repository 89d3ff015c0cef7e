"""The training pipeline: TD self-play checkpoints resume, supervised rounds, widening a net."""

import io
import json

import numpy as np

from bgtui.analysis.training import supervised_train, td_train, widen_net
from bgtui.analysis.weights import load_weights, with_databases
from bgtui.engine.evaluate import evaluate0
from bgtui.engine.nn import init_net
from tests.engine.test_movegen_reference import _game_positions


def test_td_training_writes_a_checkpoint_and_resumes_where_it_stopped(tmp_path):
    ck = tmp_path / "td.npz"
    log = io.StringIO()
    td_train(ck, 60, hidden=8, race_hidden=4, chunk=30, save_every=30, bearoff=False,
             strength_pairs=50, log=log)
    ev, meta = load_weights(ck)
    assert meta["games_trained"] == 60 and ev[0][1].shape == (8,)
    lines = [json.loads(x) for x in log.getvalue().splitlines()]
    assert [x["games"] for x in lines if "alpha" in x] == [30, 60]
    strength = [x for x in lines if "vs_pubeval_ppg" in x]
    assert [x["games"] for x in strength] == [30, 60]  # logged at each checkpoint
    assert all(-3.0 <= x["vs_pubeval_ppg"] <= 3.0 and x["se"] > 0 for x in strength)
    # resuming continues the count and the random stream: 60 + 40 games
    td_train(ck, 100, hidden=8, race_hidden=4, chunk=40, save_every=40, bearoff=False,
             strength_pairs=50, log=io.StringIO())
    ev2, meta2 = load_weights(ck)
    assert meta2["games_trained"] == 100
    assert meta2["rng_state"] != meta["rng_state"]
    assert not np.array_equal(ev2[0][0], ev[0][0])  # the weights learned something


def test_a_supervised_round_moves_the_net_toward_its_targets(tmp_path):
    ck = tmp_path / "td.npz"
    td_train(ck, 30, hidden=8, race_hidden=4, chunk=30, save_every=30, bearoff=False,
             strength_pairs=50, log=io.StringIO())
    log = io.StringIO()
    supervised_train(ck, 2, positions=300, ply=1, epochs=1, alpha=0.05, log=log)
    ev, meta = load_weights(ck)
    assert meta["supervised_rounds"] == 2
    rounds = [json.loads(x) for x in log.getvalue().splitlines()]
    assert [r["round"] for r in rounds] == [1, 2]
    assert all(r["contact_mse"] >= 0 and r["positions"] == 300 for r in rounds)


def test_widening_a_net_keeps_its_function():
    nets = (init_net(16, 1, 0.3), init_net(8, 2, 0.3))
    wide = (widen_net(nets[0], 40, 3), widen_net(nets[1], 8, 4))
    assert wide[0][0].shape[1] == 40 and wide[1] is nets[1]
    a = with_databases(nets)
    b = with_databases(wide)
    for pos in _game_positions(5, 2)[::7]:
        pa = evaluate0(np.asarray(pos, dtype=np.int8), a)
        pb = evaluate0(np.asarray(pos, dtype=np.int8), b)
        assert np.allclose(pa, pb, atol=1e-6)


def test_lambda_returns_hand_computed():
    from bgtui.engine.train import _lambda_returns

    # three moves: A, B, A; the last (A) wins a gammon. Values are each mover's view.
    vals = np.array([[0.6, 0.2, 0.0, 0.1, 0.0],
                     [0.3, 0.1, 0.0, 0.3, 0.0],
                     [1.0, 1.0, 0.0, 0.0, 0.0]], dtype=np.float32)
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
    td_train(ck, 40, hidden=8, race_hidden=4, chunk=20, save_every=40, bearoff=False,
             strength_pairs=50, lam=0.7, log=io.StringIO())
    ev, meta = load_weights(ck)
    assert meta["games_trained"] == 40
    assert meta["training"]["method"] == "td-lambda-selfplay"
    assert meta["training"]["lambda"] == 0.7
