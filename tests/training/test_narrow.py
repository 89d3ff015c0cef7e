"""``research/narrow_nets.py``: cutting a net to fewer hidden units."""

import numpy as np

from bgtui.engine.nn import init_net
from bgtui.training import adam
from tests.reference.games import game_positions
from tests.reference.scripts import load_script


def _narrow_nets():
    return load_script("research/narrow_nets.py")


def _inputs():
    positions = np.array(game_positions(3, 1)[:200], dtype=np.int8)
    return adam.dense_inputs(positions, np.arange(len(positions)))


def test_units_of_constant_activation_are_dropped_and_folded_into_the_output_biases():
    # three of eight units see no input: their activation is the same in every position, so
    # a net without them, their mean folded into the output biases, computes the same outputs
    net = tuple(np.array(a, dtype=np.float32) for a in init_net(8, 7, scale=0.3)[:4])
    constant = [1, 4, 6]
    net[0][:, constant] = 0.0
    net[1][:] = np.linspace(-1.0, 1.0, 8)
    net[2][:] = np.random.default_rng(3).normal(0.0, 1.0, net[2].shape)
    x = _inputs()
    cut, share = _narrow_nets().narrow_net(net, x, 5)
    assert cut[0].shape == (net[0].shape[0], 5) and cut[1].shape == (5,) and cut[2].shape == (5, 5)
    kept = [j for j in range(8) if j not in constant]
    assert np.array_equal(cut[0], net[0][:, kept]) and np.array_equal(cut[1], net[1][kept])
    assert share > 1.0 - 1e-5  # the constant units have no spread: no share of the score
    assert np.abs(adam.forward(cut, x)[1] - adam.forward(net, x)[1]).max() < 1e-5


def test_the_units_kept_are_those_of_largest_spread_times_output_weight():
    net = tuple(np.array(a, dtype=np.float32) for a in init_net(6, 2, scale=0.3)[:4])
    x = _inputs()
    h, _ = adam.forward(net, x)
    w2 = np.random.default_rng(5).normal(0.0, 1.0, (5, 6)).astype(np.float32)
    w2[:, 2] *= 50.0  # the largest output weights: kept whatever its spread
    net = (net[0], net[1], w2, net[3])
    score = h.std(axis=0) * np.abs(w2).sum(axis=0)
    want = sorted(np.argsort(-score)[:3])
    assert 2 in want
    cut, share = _narrow_nets().narrow_net(net, x, 3)
    assert np.array_equal(cut[1], net[1][want])
    assert np.isclose(share, score[want].sum() / score.sum())
