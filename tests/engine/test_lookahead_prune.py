"""The lookahead's pruning (``make_lookahead_workspace(..., prune=k)``): inside 1- to 3-ply each
roll's play is the 0-ply best of the k plays the filter net ranks highest. Checked against a
brute force that scores every play with the filter net from all its rows, keeps the top k and
values each kept play on its own."""

import numpy as np
import pytest

from bgtui.analysis.weights import load_filter_net
from bgtui.engine import (
    RACE,
    ROLL_WEIGHTS,
    ROLLS,
    equity,
    evaluate_after,
    evaluate_plied,
    generate_plays_into,
    net_class,
    swap_sides_into,
)
from bgtui.engine.evaluate import (
    hidden_size,
    make_eval_workspace,
    make_lookahead_workspace,
    make_play_buffers,
)
from bgtui.engine.filter_net import MAX_FILTER_K
from bgtui.engine.movegen import make_workspace
from bgtui.engine.position import game_result
from tests.reference.games import engine_game_positions
from tests.reference.pruning import filter_top_k


@pytest.fixture(scope="module")
def positions(ev):
    """Positions of 0-ply self-play from the start: contact, races and bear-offs."""
    return engine_game_positions(ev, 5, 31, 0.0, 400)


def _pruned_choice(ev, pos, d1, d2, k):
    """(value of the play chosen (mover's view after it), the play) by brute force, or None
    where two filter scores at the edge of the top k are a near tie (the engine's
    incremental sums may break it the other way) or where ``pos`` is a race: there the race
    net ranks the kept plays and the side net values only its best few
    (``RACE_SIDE_PLAYS``), which tests/engine/test_side.py checks."""
    if net_class(pos) == RACE:
        return None
    op, om = make_play_buffers()
    n = generate_plays_into(pos, d1, d2, make_workspace(), op, om)
    kept, tie = filter_top_k(op[:n], k)
    if tie:
        return None
    ews = make_eval_workspace(512)
    t = np.zeros(5, dtype=np.float32)
    best, best_eq, best_play = None, -np.inf, None
    for i in kept:
        evaluate_after(op[i], ev, ews, t)
        if equity(t) > best_eq:
            best, best_eq, best_play = t.copy(), equity(t), op[i].copy()
    return best, best_play


def _pruned_one_ply(ev, pos, k):
    acc = np.zeros(5)
    for r in range(21):
        got = _pruned_choice(ev, pos, ROLLS[r, 0], ROLLS[r, 1], k)
        if got is None:
            return None
        acc += ROLL_WEIGHTS[r] * got[0]
    return acc / 36.0


@pytest.mark.parametrize("k", [2, 5])
def test_pruned_one_ply_is_the_average_of_each_rolls_best_of_the_filters_top_k(ev, positions, k):
    fn = load_filter_net()
    lws = make_lookahead_workspace(hidden_size(ev), fn, k)
    exact = make_lookahead_workspace(hidden_size(ev))
    out, full = np.zeros(5, dtype=np.float32), np.zeros(5, dtype=np.float32)
    checked = differ = 0
    for pos in positions[::8]:
        want = _pruned_one_ply(ev, pos, k)
        if want is None:
            continue
        evaluate_plied(pos, 1, ev, lws, out)
        np.testing.assert_allclose(out, want, atol=2e-6)
        evaluate_plied(pos, 1, ev, exact, full)
        differ += not np.allclose(out, full, atol=1e-7)
        checked += 1
    assert checked >= 20
    assert differ > 0  # pruning changes some values: the check above is not of the exact path


def test_pruned_two_ply_chooses_each_rolls_play_among_the_filters_top_k(ev, positions):
    """2-ply: each roll's play chosen among the filter's top k, its position valued at
    (pruned) 1-ply from the opponent's side."""
    k = 4
    fn = load_filter_net()
    lws = make_lookahead_workspace(hidden_size(ev), fn, k)
    out, t = np.zeros(5, dtype=np.float32), np.zeros(5, dtype=np.float32)
    sw = np.zeros(26, dtype=np.int8)
    checked = 0
    for pos in positions[5::60][:4]:
        acc = np.zeros(5)
        for r in range(21):
            got = _pruned_choice(ev, pos, ROLLS[r, 0], ROLLS[r, 1], k)
            if got is None:
                break
            play = got[1]
            res = game_result(play)
            if res:
                acc += ROLL_WEIGHTS[r] * np.array([1.0, res >= 2, res >= 3, 0.0, 0.0])
                continue
            swap_sides_into(play, sw)
            evaluate_plied(sw, 1, ev, lws, t)
            acc += ROLL_WEIGHTS[r] * np.array([1 - t[0], t[3], t[4], t[1], t[2]])
        else:
            evaluate_plied(pos, 2, ev, lws, out)
            np.testing.assert_allclose(out, acc / 36.0, atol=2e-6)
            checked += 1
    assert checked >= 3


def test_pruning_that_keeps_every_play_is_the_exact_lookahead(ev, positions):
    """Where no roll has more than k plays, pruned 1-ply values every play: the same values,
    bit for bit."""
    k = MAX_FILTER_K
    lws = make_lookahead_workspace(hidden_size(ev), load_filter_net(), k)
    exact = make_lookahead_workspace(hidden_size(ev))
    op, om = make_play_buffers()
    mws = make_workspace()
    a, b = np.zeros(5, dtype=np.float32), np.zeros(5, dtype=np.float32)
    checked = 0
    for pos in positions:
        counts = [generate_plays_into(pos, d1, d2, mws, op, om) for d1, d2 in ROLLS]
        if max(counts) > k or max(counts) < 2:
            continue
        evaluate_plied(pos, 1, ev, lws, a)
        evaluate_plied(pos, 1, ev, exact, b)
        assert np.array_equal(a, b)
        checked += 1
    assert checked >= 3


def test_lookahead_pruning_settings_are_checked():
    with pytest.raises(ValueError, match="prune must be 0 to"):
        make_lookahead_workspace(64, load_filter_net(), MAX_FILTER_K + 1)
    with pytest.raises(ValueError, match="needs a filter net"):
        make_lookahead_workspace(64, None, 3)
