"""Cubeful lookahead (``bgtui.engine.cubeful``) against a slow reference written here in plain
Python: the same tree (the engine's 0-ply play for each roll), the cube arithmetic done by
hand: flips of the cube states, wins counted single under the Jacoby rule with the cube
centred, the cube decision of every node's player below the root (leaves included), beavers.
And what must hold whatever the nets say: 0-ply is Janowski's model; in the two-sided bear-off
database, where every leaf is exact, the 1-ply no-double values are the database's own when
each roll leaves one position."""

import numpy as np
import pytest

from bgtui.analysis.bearoff_cache import get_two_sided
from bgtui.analysis.weights import load_filter_net, load_weights, with_databases
from bgtui.engine import bearoff, best_play0, equity, evaluate_after, generate_plays_into
from bgtui.engine.cube import cube_efficiency, cube_equities
from bgtui.engine.cubeful import cubeful_no_double, make_cubeful_workspace
from bgtui.engine.evaluate import (
    evaluate0,
    hidden_size,
    make_eval_workspace,
    make_lookahead_workspace,
    make_play_buffers,
)
from bgtui.engine.movegen import make_workspace
from bgtui.engine.position import game_result
from tests.engine.test_bearoff import index_board
from tests.reference.games import engine_game_positions
from tests.reference.pruning import filter_top_k

C, OWN, OPP = 0, 1, 2


@pytest.fixture(scope="module")
def ev():
    return with_databases(load_weights("bgtui-0.npz")[0], bearoff=True)


@pytest.fixture(scope="module")
def two_cf():
    return get_two_sided().cubeful


@pytest.fixture(scope="module")
def positions(ev):
    """Self-play positions, the volatile ones first (far from an even game: where the cube
    decisions inside the tree matter)."""
    pos = engine_game_positions(ev, 12, 17, 0.0, 600)
    win = np.array([evaluate0(p, ev)[0] for p in pos])
    return pos[np.argsort(-np.abs(win - 0.5))]


def _swap(p):
    return np.ascontiguousarray(-p[::-1], dtype=np.int8)


class Reference:
    """The cubeful tree in plain Python; only the play for each roll comes from the engine."""

    def __init__(self, ev, two_cf, jacoby, beavers):
        self.ev, self.two_cf, self.jacoby, self.beavers = ev, two_cf, jacoby, beavers
        self.mws = make_workspace()
        self.ews = make_eval_workspace(hidden_size(ev))
        self.buf = make_play_buffers()

    def choose(self, pos, d1, d2):
        """The play made for roll (d1, d2): the engine's 0-ply best."""
        op, om = self.buf
        best5 = np.zeros(5, dtype=np.float32)
        best, _ = best_play0(pos, d1, d2, self.ev, self.mws, self.ews, op, om, best5)
        return op[best].copy()

    def exact(self, pos):
        return self.two_cf.shape[0] > 0 and bearoff.is_two_sided(pos)

    def exact_values(self, pos):
        out = np.zeros(3)
        bearoff.two_sided_cubeful(pos, self.two_cf, out)
        return out

    def leaf(self, pos):
        if self.exact(pos):
            return self.exact_values(pos)
        out = np.zeros(3)
        cube_equities(
            evaluate0(pos, self.ev).astype(np.float64), cube_efficiency(pos), self.jacoby, out
        )
        return out

    def decide(self, nd):
        dt = 2.0 * nd[OPP]
        dt_centred = 2.0 * dt if (self.beavers and dt < 0) else dt
        return np.array([max(nd[C], min(dt_centred, 1.0)), max(nd[OWN], min(dt, 1.0)), nd[OPP]])

    def value(self, pos, ply):
        """After the cube decision of the player on roll (the leaves' too; the database's
        values are after it already)."""
        if self.exact(pos):
            return self.exact_values(pos)
        return self.decide(self.leaf(pos) if ply == 0 else self.no_double(pos, ply))

    def no_double(self, pos, ply):
        if ply == 0:
            return self.leaf(pos)
        acc = np.zeros(3)
        for d1 in range(1, 7):
            for d2 in range(1, d1 + 1):
                w = 1.0 if d1 == d2 else 2.0
                child = self.choose(pos, d1, d2)
                r = game_result(child)
                if r > 0:
                    won = np.array([1.0 if self.jacoby else r, r, r], dtype=float)
                    acc += w * won
                    continue
                v = self.value(_swap(child), ply - 1)
                # the child's player on roll is the opponent: his "owned" is our "opponent owns"
                acc += w * -np.array([v[C], v[OPP], v[OWN]])
        return acc / 36.0


class NearTie(Exception):
    """A roll of the tree whose filter scores tie near the ``k``-th play: the engine may keep
    the other of the two, so the reference has no single answer."""


class PrunedReference(Reference):
    """The tree of a lookahead that prunes to the filter net's best ``k`` plays: each roll's
    play is the best by 0-ply (each play valued on its own) of the ``k`` plays whose filter
    scores, from all their rows, are highest (:class:`NearTie` where they nearly tie)."""

    def __init__(self, ev, two_cf, jacoby, beavers, k):
        super().__init__(ev, two_cf, jacoby, beavers)
        self.k = k

    def choose(self, pos, d1, d2):
        op, om = self.buf
        n = generate_plays_into(pos, d1, d2, self.mws, op, om)
        kept, tie = filter_top_k(op[:n], self.k)
        if tie:
            raise NearTie
        t = np.zeros(5, dtype=np.float32)
        values = []
        for i in kept:
            evaluate_after(op[i], self.ev, self.ews, t)
            values.append(equity(t))
        return op[kept[int(np.argmax(values))]].copy()


def _kernel(ev, two_cf, pos, ply, jacoby, beavers, prune=0):
    out = np.zeros(3)
    cubeful_no_double(
        np.ascontiguousarray(pos, dtype=np.int8),
        ply,
        ev,
        make_lookahead_workspace(hidden_size(ev), load_filter_net() if prune else None, prune),
        make_cubeful_workspace(),
        two_cf,
        jacoby,
        beavers,
        out,
    )
    return out


@pytest.mark.parametrize("jacoby,beavers", [(True, True), (False, False), (True, False)])
def test_one_ply_matches_the_reference(ev, two_cf, positions, jacoby, beavers):
    ref = Reference(ev, two_cf, jacoby, beavers)
    for pos in positions[:12]:
        np.testing.assert_allclose(
            _kernel(ev, two_cf, pos, 1, jacoby, beavers), ref.no_double(pos, 1), atol=2e-6
        )


@pytest.mark.parametrize("jacoby,beavers", [(True, True), (False, False)])
def test_two_ply_matches_the_reference(ev, two_cf, positions, jacoby, beavers):
    """Two levels: the opponent's cube decision inside the tree (a volatile position, where
    it doubles after some rolls, and a quieter one)."""
    ref = Reference(ev, two_cf, jacoby, beavers)
    for pos in (positions[0], positions[len(positions) // 2]):
        np.testing.assert_allclose(
            _kernel(ev, two_cf, pos, 2, jacoby, beavers), ref.no_double(pos, 2), atol=2e-6
        )


@pytest.mark.parametrize("ply", [1, 2])
def test_pruned_tree_matches_the_reference(ev, two_cf, positions, ply):
    """The tree of a lookahead that prunes: each roll's play chosen among the filter net's
    best three; over the first positions (six at 1-ply, one at 2-ply) whose trees have no
    near tie of filter scores."""
    ref = PrunedReference(ev, two_cf, True, True, 3)
    compared = 0
    for pos in positions:
        try:
            want = ref.no_double(pos, ply)
        except NearTie:
            continue
        np.testing.assert_allclose(
            _kernel(ev, two_cf, pos, ply, True, True, prune=3), want, atol=2e-6
        )
        compared += 1
        if compared == (6 if ply == 1 else 1):
            break
    assert compared == (6 if ply == 1 else 1)


def test_inner_decisions_change_the_value_somewhere(ev, two_cf, positions):
    """The decisions inside the tree are not idle: where the player on roll is the underdog
    (his opponent in the doubling window), his opponent doubles after some of his rolls, and the 2-ply values differ from those of
    the same tree where the opponent never doubles, by lowering his."""
    ref = Reference(ev, two_cf, True, True)
    quiet = Reference(ev, two_cf, True, True)  # the opponent's nodes (ply 1) never double
    quiet.value = lambda pos, ply: (
        quiet.exact_values(pos)
        if quiet.exact(pos)
        else quiet.decide(quiet.leaf(pos))
        if ply == 0
        else quiet.no_double(pos, ply)
    )
    underdogs = sorted(positions, key=lambda p: abs(evaluate0(p, ev)[0] - 0.28))[:3]
    gaps = [quiet.no_double(p, 2) - ref.no_double(p, 2) for p in underdogs]
    assert max(g.max() for g in gaps) > 1e-3
    assert min(g.min() for g in gaps) >= -1e-12  # his opponent's options never help him


def test_zero_ply_is_janowski_of_the_zero_ply_probabilities(ev, two_cf, positions):
    for pos in positions[:20]:
        for jacoby in (True, False):
            want = np.zeros(3)
            cube_equities(evaluate0(pos, ev).astype(np.float64), cube_efficiency(pos), jacoby, want)
            np.testing.assert_allclose(_kernel(ev, two_cf, pos, 0, jacoby, True), want, atol=1e-12)


def _bearoff(mine, theirs):
    """A position from the player's home-board counts (points 1..6) and the opponent's."""
    pos = np.zeros(26, dtype=np.int8)
    for i, c in enumerate(mine):
        pos[i + 1] = c
    for i, c in enumerate(theirs):
        pos[24 - i] = -c
    return pos


@pytest.mark.parametrize(
    "point,theirs", [(6, (0, 1, 0, 1, 0, 0)), (4, (0, 0, 0, 0, 2, 0)), (5, (1, 0, 1, 0, 0, 1))]
)
def test_one_checker_bearoff_equals_the_exact_no_double_values(ev, two_cf, point, theirs):
    """With one checker left every roll leads to one position, so the 1-ply tree plays as the
    database does; its leaves are the database's exact values, and the no-double values are
    the database's own."""
    pos = _bearoff([1 if i + 1 == point else 0 for i in range(6)], theirs)
    want = np.zeros(3)
    bearoff.two_sided_no_double(pos, get_two_sided().no_double, want)
    np.testing.assert_allclose(_kernel(ev, two_cf, pos, 1, True, True), want, atol=1e-6)


def test_cube_states_stay_ordered_without_jacoby(ev, two_cf, positions):
    """Access to the cube is worth something: owned >= centred >= opponent owns (no Jacoby
    rule, where a centred cube also changes what a gammon counts)."""
    for pos in positions[:10]:
        v = _kernel(ev, two_cf, pos, 1, False, False)
        assert v[OWN] >= v[C] - 1e-9 and v[C] >= v[OPP] - 1e-9


def test_leaf_players_cash_where_they_are_past_their_cash_point(ev, two_cf, positions):
    """At 2-ply the leaves are the root player's positions. Where he is strong some leaves
    are past his cash point: there he doubles and the opponent passes (+1), which is worth
    more to him than Janowski's value of playing on with the cube centred. Valuing the
    leaves without that decision reads lower for him, never higher."""
    ref = Reference(ev, two_cf, True, True)
    no_leaf_decision = Reference(ev, two_cf, True, True)
    no_leaf_decision.value = lambda pos, ply: (
        no_leaf_decision.exact_values(pos)
        if no_leaf_decision.exact(pos)
        else no_leaf_decision.leaf(pos)
        if ply == 0
        else no_leaf_decision.decide(no_leaf_decision.no_double(pos, ply))
    )
    favourites = sorted(positions, key=lambda p: abs(evaluate0(p, ev)[0] - 0.8))[:3]
    gaps = [ref.no_double(p, 2)[C] - no_leaf_decision.no_double(p, 2)[C] for p in favourites]
    assert max(gaps) > 1e-3
    assert min(gaps) >= -1e-12
    for p in favourites:
        np.testing.assert_allclose(
            _kernel(ev, two_cf, p, 2, True, True), ref.no_double(p, 2), atol=2e-6
        )


def test_lookahead_with_model_leaves_approaches_the_exact_bearoff_values(ev):
    """Two-sided bear-offs of 4-6 checkers a side, the database's exact cubeful values
    withheld from the tree (only its exact cubeless probabilities feed Janowski at the
    leaves): the no-double values move towards the exact ones as the tree deepens. Measured
    on these 60 positions (centred, mean absolute error): 0-ply 0.056, 1-ply 0.039, 2-ply
    0.027."""
    two = get_two_sided()
    none = np.zeros((0, 0, 3), dtype=np.float32)
    rng = np.random.default_rng(5)
    errs = {0: [], 2: []}
    while len(errs[0]) < 60:
        x, y = rng.integers(84, 924, size=2)  # index >= C(9, 6) = 84: at least 4 checkers
        pos = index_board(x, y)
        want = np.zeros(3)
        bearoff.two_sided_no_double(pos, two.no_double, want)
        if abs(want[0]) > 0.9:  # (nearly) decided races tell nothing about the cube
            continue
        for ply in errs:
            errs[ply].append(np.abs(_kernel(ev, none, pos, ply, True, True) - want))
    mae0, mae2 = np.mean(errs[0], axis=0), np.mean(errs[2], axis=0)
    assert mae2[C] < 0.7 * mae0[C] and mae2[C] < 0.04
    assert np.all(mae2 < 0.035)
