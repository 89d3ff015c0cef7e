"""The engine's named structures: what numba sees of them, and the public names."""

import numpy as np
from numba import typeof
from numba.core import types

import bgtui.engine as engine
from bgtui.analysis.weights import load_weights
from bgtui.engine.evaluate import hidden_size, make_eval_workspace
from bgtui.engine.rollout import make_rollout_workspace, make_settings
from bgtui.engine.structs import Evaluator, Net, RolloutWorkspace


def _field_by_field(val):
    """numba's own type of a NamedTuple, worked out field by field."""
    fields = [
        _field_by_field(v) if isinstance(v, tuple) and hasattr(v, "_fields") else typeof(v)
        for v in val
    ]
    return types.BaseTuple.from_types(fields, type(val))


def test_struct_type_is_the_named_field_by_field_type():
    ev = load_weights("bgtui-0.npz")[0]
    assert isinstance(ev, Evaluator) and isinstance(ev.contact, Net)
    for val in (
        ev,
        make_eval_workspace(hidden_size(ev)),
        make_rollout_workspace(8),
        make_settings(truncate=3),
    ):
        t = typeof(val)
        assert t == _field_by_field(val)
        assert typeof(val._replace()) == t


def test_struct_type_follows_a_replaced_field():
    ws = make_rollout_workspace(8)
    t = typeof(ws)
    other = ws._replace(cur=np.zeros(26, dtype=np.int64))
    assert typeof(other) != t
    assert typeof(other).types[RolloutWorkspace._fields.index("cur")] == typeof(other.cur)


def test_engine_public_names_resolve_to_the_kernels():
    from bgtui.engine import evaluate, rollout

    assert engine.evaluate_plied is evaluate._evaluate_plied
    assert engine.rollout_chunk is rollout._rollout_chunk
    assert engine.make_settings is rollout.make_settings
    assert set(engine.__all__) <= set(dir(engine))
    for name in engine.__all__:
        assert not name.startswith("_")
        getattr(engine, name)
