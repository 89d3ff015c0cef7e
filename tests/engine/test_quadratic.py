"""Nets whose hidden layer is the piecewise quadratic (``nn.QUADRATIC``) in place of
sigmoids: the function, the engine's values against the numpy reference of training, the
gradients, and the weights files that record it."""

import json

import numpy as np
import pytest

from bgtui.analysis.weights import (
    WeightsError,
    evaluator_digest,
    load_weights,
    nets_of,
    save_weights,
    with_databases,
)
from bgtui.engine import QUADRATIC, RACE, SIGMOID, evaluate0, init_net, net_class
from bgtui.engine.nn import _quadratic
from bgtui.training import adam
from tests.reference.games import game_positions


def test_the_quadratic_is_a_sigmoid_to_about_two_hundredths_by_hand_values():
    x = np.linspace(-12.0, 12.0, 4801).astype(np.float32)
    q = np.array([_quadratic(v) for v in x], dtype=np.float64)
    exact = 1.0 / (1.0 + np.exp(-x.astype(np.float64)))
    assert np.abs(q - exact).max() < 0.022
    # 1/2 + y (2 - |y|) / 2, y = x / 4: x = 2 gives 1/2 + (1/2)(3/2)/2 = 7/8, x = -1 gives
    # 1/2 - (1/4)(7/4)/2 = 9/32
    assert _quadratic(np.float32(0.0)) == 0.5
    assert _quadratic(np.float32(2.0)) == 0.875
    assert _quadratic(np.float32(-1.0)) == 0.28125
    assert np.allclose(q + q[::-1], 1.0, atol=1e-7)  # symmetric about (0, 1/2)
    assert (q[x >= 4.0] == 1.0).all() and (q[x <= -4.0] == 0.0).all()
    d = np.float32(1e-3)
    assert (_quadratic(d) - _quadratic(-d)) / (2 * d) == pytest.approx(0.25, rel=1e-3)


def _nets(seed):
    """Twenty-three random nets, every one but the race net of quadratic units."""
    return tuple(
        init_net(4 if k == RACE else 8, seed + k, scale=0.3)._replace(
            act=SIGMOID if k == RACE else QUADRATIC
        )
        for k in range(23)
    )


def test_the_engine_values_quadratic_nets_as_the_numpy_reference_does():
    """Static values, by the tables and by dense inputs, against ``adam.forward``."""
    nets = _nets(70)
    positions = np.array(game_positions(5, 12), dtype=np.int8)
    x = adam.dense_inputs(positions, np.arange(len(positions)))
    seen = set()
    for tables in (True, False):
        ev = with_databases(nets, tables=tables)
        for i, pos in enumerate(positions):
            cls = net_class(pos)
            want = adam.forward(nets[cls], x[i : i + 1])[1][0]
            assert abs(evaluate0(pos, ev)[0] - want[0]) < 2e-6
            seen.add(cls)
    assert len(seen - {RACE}) > 15
    # the same arrays as sigmoids value positions otherwise
    sig = with_databases(tuple(n._replace(act=SIGMOID) for n in nets))
    quad = with_databases(nets)
    diff = [abs(evaluate0(p, sig)[0] - evaluate0(p, quad)[0]) for p in positions[::5]]
    assert max(diff) > 1e-3


def test_a_weights_file_records_which_nets_are_quadratic(tmp_path):
    nets = _nets(90)
    ev = with_databases(nets)
    save_weights(tmp_path / "q.npz", ev, {})
    got, meta = load_weights(tmp_path / "q.npz")
    assert meta["activation"]["contact"] == "quadratic" and "race" not in meta["activation"]
    assert [n.act for n in nets_of(got)] == [n.act for n in nets]
    positions = [np.asarray(p, dtype=np.int8) for p in game_positions(5, 3)[::7]]
    assert all(np.array_equal(evaluate0(p, got), evaluate0(p, ev)) for p in positions)
    # the same arrays as sigmoids: no activation table, another digest
    sig = with_databases(tuple(n._replace(act=SIGMOID) for n in nets))
    save_weights(tmp_path / "s.npz", sig, dict(meta))
    s_ev, s_meta = load_weights(tmp_path / "s.npz")
    assert "activation" not in s_meta and s_ev.contact.act == SIGMOID
    assert evaluator_digest(s_ev) != evaluator_digest(got)


@pytest.mark.parametrize(
    "table, message",
    [
        ({"contact": "relu"}, "contact net's hidden function 'relu' is not one of sigmoid"),
        ({"contakt": "quadratic"}, "activation names 'contakt', not a net"),
        (["contact"], "activation is not a table of net names"),
    ],
)
def test_a_file_with_an_unknown_hidden_function_is_refused(tmp_path, table, message):
    from bgtui.analysis.checksum import arrays_sha256
    from bgtui.analysis.weights import _write_npz

    save_weights(tmp_path / "w.npz", with_databases(_nets(5)), {})
    with np.load(tmp_path / "w.npz") as z:
        arrays = {k: z[k] for k in z.files if k != "meta"}
        meta = json.loads(str(z["meta"]))
    meta.update(activation=table, sha256=arrays_sha256(arrays))
    _write_npz(tmp_path / "x.npz", meta, arrays)
    with pytest.raises(WeightsError, match=message):
        load_weights(tmp_path / "x.npz")


def test_an_sgd_step_on_a_quadratic_net_follows_the_squared_error_gradient():
    """``nn._backward`` (the SGD of ``bgtui train td`` and ``fit --optimizer sgd``) moves a
    quadratic net's weights by minus the step size times the gradient of half the squared
    error, the gradient by central differences of the numpy reference."""
    from bgtui.engine.nn import _backward, _forward

    rng = np.random.default_rng(11)
    w1, b1, w2, b2 = (np.array(a) for a in init_net(8, 4, scale=0.3)[:4])
    b1[:] = rng.normal(0.0, 1.5, 8).astype(np.float32)
    pos = np.array(game_positions(5, 2)[17], dtype=np.int8)[None]
    x = adam.dense_inputs(pos, np.array([0]))
    t = rng.uniform(0, 1, 5).astype(np.float32)

    def loss(a1, c1):  # in float64 throughout: the differences are small
        net = (*(np.float64(a) for a in (a1, c1, w2, b2)), QUADRATIC)
        y = adam.forward(net, x.astype(np.float64))[1][0]
        return 0.5 * float(((t - y) ** 2).sum())

    h, out = np.zeros(8, np.float32), np.zeros(5, np.float32)
    n1, c1 = w1.copy(), b1.copy()
    _forward(x[0], n1, c1, w2.copy(), b2.copy(), h, out, QUADRATIC)
    alpha = 1.0  # the step is alpha times the gradient at the start, whatever alpha
    _backward(x[0], n1, c1, w2.copy(), b2.copy(), h, out, t, alpha, np.zeros(8, np.float32), 1)
    eps = 1e-3
    for j in range(8):
        up, down = b1.astype(np.float64), b1.astype(np.float64)
        up[j] += eps
        down[j] -= eps
        grad = (loss(w1, up) - loss(w1, down)) / (2 * eps)
        assert c1[j] - b1[j] == pytest.approx(-alpha * grad, rel=2e-2, abs=1e-9)
    i = int(np.flatnonzero(x[0])[0])  # an input that is on
    assert np.allclose(n1[i] - w1[i], (c1 - b1) * x[0, i], rtol=1e-3, atol=1e-7)
