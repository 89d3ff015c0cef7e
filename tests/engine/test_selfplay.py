"""Self-play sampling (``bgtui.engine.selfplay``): the contact positions of 0-ply games."""

import numpy as np

from bgtui.analysis.board import impossible_reason
from bgtui.analysis.weights import load_weights
from bgtui.engine import (
    START,
    contact_positions,
    hidden_size,
    is_race,
    make_play_workspace,
    make_rng,
    sample_positions,
)


def test_contact_positions_are_the_sampled_positions_that_are_not_races():
    ev = load_weights("bgtui-0.npz")[0]
    ws = make_play_workspace(hidden_size(ev))
    got = contact_positions(ev, 6, make_rng(21), ws, 2000)
    dest = np.zeros((2000, 26), dtype=np.int8)
    m = sample_positions(ev, 6, make_rng(21), START, 0.0, ws, dest)
    want = [p for p in dest[:m] if not is_race(p)]
    assert got.dtype == np.int8 and got.shape == (len(want), 26)
    assert 0 < len(want) < m  # six games have both contact and races
    assert np.array_equal(got, np.array(want))
    assert all(impossible_reason(p) is None for p in got)


def test_contact_positions_stop_at_the_capacity():
    ev = load_weights("bgtui-0.npz")[0]
    ws = make_play_workspace(hidden_size(ev))
    got = contact_positions(ev, 50, make_rng(3), ws, 25)
    assert 0 < len(got) <= 25
    assert np.array_equal(got, contact_positions(ev, 50, make_rng(3), ws, 25))
