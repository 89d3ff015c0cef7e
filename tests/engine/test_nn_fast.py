"""The evaluator's fast inference path against the plain dense forward pass."""

import math

import numpy as np

from bgtui.analysis.board_ascii import board_ascii
from bgtui.analysis.weights import load_weights
from bgtui.engine.inputs import NUM_INPUTS, NUM_NONLINEAR, _fill_inputs, _fill_nonlinear
from bgtui.engine.nn import (_finish, _forward, _preact_child, _preact_tables, _sigmoid,
                             _sigmoid_inplace, make_tables, make_terms)
from bgtui.engine.movegen import generate_plays
from bgtui.engine.position import is_race
from tests.engine.test_movegen_reference import _game_positions, _random_position


def test_fast_sigmoid_is_the_logistic_function_to_float_precision():
    z = np.linspace(-30, 30, 600001).astype(np.float32)
    exact = 1.0 / (1.0 + np.exp(-z.astype(np.float64)))
    h = z.copy()
    _sigmoid_inplace(h, h.shape[0])
    assert np.abs(h - exact).max() < 3e-7
    assert h.min() == 0.0 and h.max() == 1.0  # never outside [0, 1]
    assert np.diff(h).min() > -4e-7  # monotone up to a few float32 ulps
    for v in (-50.0, -3.3, 0.0, 0.7, 12.0, 50.0):
        assert abs(_sigmoid(v) - 1.0 / (1.0 + math.exp(-v))) < 3e-7
    assert _sigmoid(0.0) == 0.5


def _positions():
    out = _game_positions(21, 12)
    rng = np.random.default_rng(22)
    for kind in ("bar", "scatter", "bearoff"):
        out += [_random_position(rng, kind) for _ in range(60)]
    return [np.asarray(p, dtype=np.int8) for p in out]


def _nets_and_tables():
    """(contact net, its tables), (race net, its tables): the features that are sums over the
    points are folded into the tables, the contact ones only in the contact net's."""
    nets = load_weights("bgtui-0.npz")[0]
    return (nets[0], make_tables(nets[0])), (nets[1], make_tables(nets[1], race=True))


def test_table_forward_equals_dense_forward():
    both = _nets_and_tables()
    x = np.zeros(NUM_INPUTS, dtype=np.float32)
    sw = np.zeros(26, dtype=np.int8)
    feats = np.zeros(2 * NUM_NONLINEAR, dtype=np.float32)
    o_dense = np.zeros(5, dtype=np.float32)
    o_tab = np.zeros(5, dtype=np.float32)
    races = 0
    for pos in _positions():
        race = is_race(pos)
        races += race
        net, tab = both[race]
        w1, b1, w2, b2 = net
        h = np.zeros(b1.shape[0], dtype=np.float32)
        hd = np.zeros_like(h)
        _fill_inputs(pos, sw, x)
        _forward(x, w1, b1, w2, b2, hd, o_dense)
        _fill_nonlinear(pos, sw, feats)
        _preact_tables(pos, tab, b1, feats, h, *make_terms())
        _finish(h, w2, b2, o_tab)
        assert np.abs(o_dense - o_tab).max() < 2e-5, board_ascii(pos)
    assert races > 50


def test_child_preactivation_from_the_parent_equals_a_fresh_one():
    both = _nets_and_tables()
    sw = np.zeros(26, dtype=np.int8)
    fp = np.zeros(2 * NUM_NONLINEAR, dtype=np.float32)
    fc = np.zeros_like(fp)
    rng = np.random.default_rng(5)
    terms = make_terms()
    n = 0
    for pos in _positions()[::3]:
        if not (pos < 0).any():
            continue
        d1, d2 = (int(v) for v in rng.integers(1, 7, size=2))
        parent = (-pos[::-1]).astype(np.int8)  # the opponent's view before the play
        race = is_race(parent)
        net, tab = both[race]
        w1, b1 = net[0], net[1]
        hp = np.zeros(b1.shape[0], dtype=np.float32)
        hc = np.zeros_like(hp)
        hf = np.zeros_like(hp)
        _fill_nonlinear(parent, sw, fp)
        _preact_tables(parent, tab, b1, fp, hp, *terms)
        children, _ = generate_plays(pos, d1, d2)
        for c in children:
            if not (c > 0).any():
                continue  # the play bears off the last checker
            child = (-np.asarray(c)[::-1]).astype(np.int8)
            if is_race(child) != race:
                continue  # evaluation takes the race net's own path for these
            _fill_nonlinear(child, sw, fc)
            _preact_child(child, parent, hp, tab, fc, fp, hc, *terms)
            _preact_tables(child, tab, b1, fc, hf, *terms)
            assert np.abs(hc - hf).max() < 1e-4, board_ascii(child)
            n += 1
    assert n > 1000


def test_best_play_with_incremental_children_equals_each_child_evaluated_alone():
    """``_best_child`` (parent's pre-activation plus changed rows, memoised escapes, one scan
    per child) picks the play and probabilities that evaluating every child from scratch
    (``_evaluate_after``: dense-free but non-incremental) gives, in contact, in races, with
    and without the bear-off databases."""
    from bgtui.analysis.weights import with_databases
    from bgtui.engine.evaluate import (_best_child, _evaluate_after, equity, make_eval_workspace,
                                       make_play_buffers)
    from bgtui.engine.movegen import _generate_plays, make_workspace

    nets = load_weights("bgtui-0.npz")[0]
    rng = np.random.default_rng(8)
    mws = make_workspace()
    out_pos, out_moves = make_play_buffers()
    best5 = np.zeros(5, dtype=np.float32)
    t = np.zeros(5, dtype=np.float32)
    counts = {True: 0, False: 0}
    for bearoff in (False, True):
        ev = with_databases(nets[:2], bearoff=bearoff)
        ews = make_eval_workspace(128)
        for pos in _positions()[::2]:
            d1, d2 = (int(v) for v in rng.integers(1, 7, size=2))
            n = _generate_plays(pos, d1, d2, mws, out_pos, out_moves)
            if n < 2:
                continue
            best = _best_child(pos, n, out_pos, ev, ews, best5)
            values = []
            for i in range(n):
                _evaluate_after(out_pos[i], ev, make_eval_workspace(128), t)
                values.append(t.copy())
            eq = np.array([equity(v) for v in values])
            assert eq[best] >= eq.max() - 2e-5, board_ascii(pos)
            assert np.abs(values[best] - best5).max() < 2e-5, board_ascii(pos)
            counts[bool(is_race(pos))] += 1
    assert counts[True] > 20 and counts[False] > 100
