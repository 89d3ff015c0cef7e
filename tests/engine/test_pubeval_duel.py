"""PubEval's published scoring, and duplicate-dice duels."""

import numpy as np
import pytest

from bgtui.analysis.models import DEFAULT_PRUNE
from bgtui.analysis.weights import load_weights, with_databases
from bgtui.engine import duel_pairs
from bgtui.engine.constants import OPENING_POSITION, START
from bgtui.engine.pubeval import WC, WR, pubeval_score
from bgtui.engine.rollout import make_rollout_workspace


def _slow_pubeval(race, pos):
    # the published C routine, transcribed literally (setx + dot product)
    x = [0.0] * 122
    for j in range(1, 25):
        n = int(pos[25 - j])
        jm1 = j - 1
        if n == -1:
            x[5 * jm1 + 0] = 1.0
        if n == 1:
            x[5 * jm1 + 1] = 1.0
        if n >= 2:
            x[5 * jm1 + 2] = 1.0
        if n == 3:
            x[5 * jm1 + 3] = 1.0
        if n >= 4:
            x[5 * jm1 + 4] = (n - 3) / 2.0
    x[120] = -int(pos[0]) / 2.0
    off = 15 - sum(int(v) for v in pos if v > 0)
    x[121] = off / 15.0
    w = WR if race else WC
    return sum(a * b for a, b in zip(w, x))


def test_pubeval_score_matches_the_published_routine():
    np.random.default_rng(2)
    positions = [np.array(OPENING_POSITION)]
    p = np.array(OPENING_POSITION)
    p[13], p[10], p[0], p[4] = 3, 2, -1, -2  # with a checker of the opponent on the bar
    p[1] = 0
    positions.append(p)
    for pos in positions:
        for race in (0, 1):
            assert abs(pubeval_score(race, pos, WR, WC) - _slow_pubeval(race, pos)) < 1e-9
    # hand check of one term: the opening's contact score includes wc[2] for our 24-point
    # pair? no: x[0..4] encode OUR point 24 (pos[25 - 1]): 2 checkers -> x[2] = 1
    assert _slow_pubeval(0, np.array(OPENING_POSITION)) == pubeval_score(
        0, OPENING_POSITION, WR, WC
    )


def _duel(ev_a, kind_a, ev_b, kind_b, first, n, seed):
    out = np.zeros((n, 4))
    duel_pairs(
        ev_a, kind_a, ev_b, kind_b, first, n, seed, START, WR, WC, make_rollout_workspace(512), out
    )
    return out


def test_duel_is_deterministic_and_independent_of_chunking():
    ev = load_weights("bgtui-0.npz")[0]
    a = _duel(ev, 0, ev, 1, 0, 20, 7)
    b = np.concatenate([_duel(ev, 0, ev, 1, 0, 7, 7), _duel(ev, 0, ev, 1, 7, 13, 7)])
    assert np.array_equal(a, b)


def test_a_player_against_itself_scores_exactly_zero_per_pair():
    # identical players on identical dice with swapped seats mirror each other
    ev = with_databases(load_weights("bgtui-0.npz")[0])
    out = _duel(ev, 0, ev, 0, 0, 25, 3)
    assert np.all(out[:, 0] + out[:, 1] == 0)
    out = _duel(ev, 1, ev, 1, 0, 25, 3)  # PubEval against itself
    assert np.all(out[:, 0] + out[:, 1] == 0)


@pytest.mark.parametrize("prune", [DEFAULT_PRUNE, 0])
def test_the_1ply_player_chooses_the_services_1ply_best_play(prune):
    # the duel's 1-ply player (kind 2) filters, looks ahead and blends as
    # Analyzer.rank_plays(ply=1), both with the lookahead pruned as shipped or neither
    from bgtui.analysis.service import Analyzer
    from bgtui.analysis.state import GameState
    from bgtui.analysis.weights import load_filter_net
    from bgtui.engine import evaluate_after_plied
    from bgtui.engine.duel import _choose
    from bgtui.engine.evaluate import equity, make_lookahead_workspace
    from tests.reference.games import game_positions

    an = Analyzer()
    an.prune = prune
    ev = an.ev
    filt = load_filter_net() if prune else None
    ws = make_rollout_workspace(512, filt, prune)
    lws = make_lookahead_workspace(512, filt, prune)
    b5 = np.zeros(5, dtype=np.float32)
    p1 = np.zeros(5, dtype=np.float32)
    checked_blend = 0
    rng = np.random.default_rng(4)
    positions = game_positions(9, 3)
    checked = 0
    for k in rng.choice(len(positions), 25, replace=False):
        pos = np.asarray(positions[k], dtype=np.int8)
        d1, d2 = (int(x) for x in rng.integers(1, 7, size=2))
        rows = an.rank_plays(GameState.from_position(pos), (d1, d2), ply=1)
        best = _choose(2, ev, pos, d1, d2, ws, b5, WR, WC)
        # b5: the blend of the play's 0-ply and 1-ply values, which rank_plays shows
        assert abs(equity(b5) - rows[0].equity.cubeless) < 1e-5
        p = rows[0].probabilities
        want = [p.win, p.win_gammon, p.win_backgammon, p.lose_gammon, p.lose_backgammon]
        assert np.allclose(b5, want, atol=1e-6)
        evaluate_after_plied(ws.play_pos[best], 1, ev, lws, p1)  # the plain 1-ply differs
        checked_blend += abs(equity(p1) - equity(b5)) > 1e-4
        checked += len(rows) > 1
    assert checked > 15 and checked_blend > 10


def test_the_1ply_player_against_itself_scores_exactly_zero_per_pair():
    ev = with_databases(load_weights("bgtui-0.npz")[0])
    out = _duel(ev, 2, ev, 2, 0, 3, 5)
    assert np.all(out[:, 0] + out[:, 1] == 0) and np.all(out[:, :2] != 0)
