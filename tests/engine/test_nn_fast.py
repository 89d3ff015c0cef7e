"""The evaluator's fast inference path against the plain dense forward pass."""

import math
from pathlib import Path

import numpy as np
import pytest

from bgtui.analysis.board_ascii import board_ascii
from bgtui.analysis.weights import load_weights, with_databases
from bgtui.engine import Net
from bgtui.engine.evaluate import (
    _evaluate_after,
    equity,
    make_eval_workspace,
    make_play_buffers,
)
from bgtui.engine.inputs import NUM_INPUTS, NUM_NONLINEAR, _fill_inputs, _fill_nonlinear
from bgtui.engine.movegen import _generate_plays, generate_plays, make_workspace
from bgtui.engine.nn import (
    ANCHOR,
    ANCHOR_BAR,
    CONTACT,
    CONTACT_BAR,
    CONTACT_CLASSES,
    CRASHED,
    CRASHED_CLASSES,
    EARLY,
    EARLY_BAR,
    EARLY_TRAILING,
    EARLY_TRAILING_BAR,
    HOLDING,
    MUTUAL,
    MUTUAL_ANCHOR,
    MUTUAL_ANCHOR_BAR,
    MUTUAL_BAR,
    MUTUAL_TRAILING,
    MUTUAL_TRAILING_ANCHOR,
    MUTUAL_TRAILING_ANCHOR_BAR,
    MUTUAL_TRAILING_BAR,
    NET_NAMES,
    QUADRATIC,
    RACE,
    SIGMOID,
    TRAILING,
    TRAILING_ANCHOR,
    TRAILING_ANCHOR_BAR,
    TRAILING_BAR,
    _finish,
    _forward,
    _preact_child,
    _preact_tables,
    _sigmoid,
    _sigmoid_inplace,
    contact_class,
    has_anchor,
    is_mutual,
    make_tables,
    make_terms,
    net_class,
    on_bar,
)
from tests.engine.test_movegen_reference import _random_position
from tests.reference.games import game_positions

#: the repository
_ROOT = Path(__file__).resolve().parents[2]

#: the contact classes below ``EARLY_PIPS`` where neither side has borne off and no checker
#: is on either bar: not behind in the race and behind, without and with a checker of each
#: side back, without and with an anchor
_BELOW = (
    CONTACT,
    TRAILING,
    MUTUAL,
    MUTUAL_TRAILING,
    ANCHOR,
    MUTUAL_ANCHOR,
    TRAILING_ANCHOR,
    MUTUAL_TRAILING_ANCHOR,
)
#: each class below ``EARLY_PIPS`` without an anchor and its anchor class
_ANCHOR_OF = {
    CONTACT: ANCHOR,
    MUTUAL: MUTUAL_ANCHOR,
    TRAILING: TRAILING_ANCHOR,
    MUTUAL_TRAILING: MUTUAL_TRAILING_ANCHOR,
}
#: each class of ``_BELOW`` and its bar class (its positions with a checker on either bar)
_BAR_OF = {
    CONTACT: CONTACT_BAR,
    TRAILING: TRAILING_BAR,
    MUTUAL: MUTUAL_BAR,
    MUTUAL_TRAILING: MUTUAL_TRAILING_BAR,
    ANCHOR: ANCHOR_BAR,
    MUTUAL_ANCHOR: MUTUAL_ANCHOR_BAR,
    TRAILING_ANCHOR: TRAILING_ANCHOR_BAR,
    MUTUAL_TRAILING_ANCHOR: MUTUAL_TRAILING_ANCHOR_BAR,
}
#: the bar classes below ``EARLY_PIPS``, in class order
_BARS_BELOW = tuple(_BAR_OF.values())
#: the sixteen contact classes below ``EARLY_PIPS`` where neither side has borne off
_ALL_BELOW = _BELOW + _BARS_BELOW
#: each of those sixteen and the class it is without the bar split
_UNBARRED = {**{k: k for k in _BELOW}, **{b: k for k, b in _BAR_OF.items()}}


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
    """Positions of games, odd ones and bear-offs against an anchor; those where a side has
    borne off also seen from the other side (who has borne off decides the net); then more
    positions of games below ``EARLY_PIPS`` (at most 50 of each class there), so that each of
    the sixteen classes there has its share."""
    if _POSITIONS:
        return [p.copy() for p in _POSITIONS]
    out = game_positions(21, 12)
    rng = np.random.default_rng(22)
    for kind in ("bar", "scatter", "bearoff"):
        out += [_random_position(rng, kind) for _ in range(60)]
    out = [np.asarray(p, dtype=np.int8) for p in out] + _bear_off_positions(rng, 60)
    out += [_swapped(p) for p in out if net_class(p) in CRASHED_CLASSES]
    more = {k: 0 for k in _ALL_BELOW}
    for p in game_positions(23, 120):
        p = np.asarray(p, dtype=np.int8)
        k = net_class(p)
        if k in more and more[k] < 50:
            more[k] += 1
            out.append(p)
    _POSITIONS.extend(out)
    return [p.copy() for p in out]


#: :func:`_positions`, made once
_POSITIONS = []


def _swapped(pos):
    """``pos`` seen from the other side."""
    return (-np.asarray(pos)[::-1]).astype(np.int8)


def _twenty_three_nets(act=SIGMOID):
    """The shipped contact and race nets and, as each of the other twenty-one nets (crashed,
    early, holding, trailing, the mutual, the anchor, the early trailing, the early bar and
    the bar nets below ``EARLY_PIPS``, in ``NET_NAMES`` order), the contact net with its
    weights perturbed twenty-one ways: a position valued by the wrong net shows. Every net
    but the race net has the hidden function ``act``."""
    ev = load_weights("bgtui-0.npz")[0]
    rng = np.random.default_rng(31)
    rest = tuple(
        Net(*((a + rng.normal(0, 0.05, a.shape)).astype(np.float32) for a in ev[0][:4]), act)
        for _ in range(len(NET_NAMES) - 2)
    )
    return (ev[0]._replace(act=act), ev[1], *rest)


def _nets_and_tables():
    """(net, its tables) per ``net_class``: the features that are sums over the points are
    folded into the tables, the contact ones only in the contact nets' (every net but the
    race net)."""
    nets = _twenty_three_nets()
    return [(net, make_tables(net, race=k == RACE)) for k, net in enumerate(nets)]


def test_table_forward_equals_dense_forward():
    both = _nets_and_tables()
    x = np.zeros(NUM_INPUTS, dtype=np.float32)
    sw = np.zeros(26, dtype=np.int8)
    feats = np.zeros(2 * NUM_NONLINEAR, dtype=np.float32)
    o_dense = np.zeros(5, dtype=np.float32)
    o_tab = np.zeros(5, dtype=np.float32)
    classes = [0] * len(NET_NAMES)
    for pos in _positions():
        cls = net_class(pos)
        classes[cls] += 1
        net, tab = both[cls]
        w1, b1, w2, b2 = net[:4]
        h = np.zeros(b1.shape[0], dtype=np.float32)
        hd = np.zeros_like(h)
        _fill_inputs(pos, sw, x)
        _forward(x, w1, b1, w2, b2, hd, o_dense, net.act)
        _fill_nonlinear(pos, sw, feats)
        _preact_tables(pos, tab, b1, feats, h, *make_terms())
        _finish(h, w2, b2, o_tab, net.act)
        assert np.abs(o_dense - o_tab).max() < 2e-5, board_ascii(pos)
    assert min(classes) > 50


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
        cls = net_class(parent)
        net, tab = both[cls]
        _w1, b1 = net[0], net[1]
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
            if net_class(child) != cls:
                continue  # evaluation takes another net's own path for these
            _fill_nonlinear(child, sw, fc)
            _preact_child(child, parent, hp, tab, fc, fp, hc, *terms)
            _preact_tables(child, tab, b1, fc, hf, *terms)
            assert np.abs(hc - hf).max() < 1e-4, board_ascii(child)
            n += 1
    assert n > 1000


def _children_alone(pos, d1, d2, ev):
    """(children, values): the positions the plays of ``d1 d2`` reach from ``pos`` and each
    one's probabilities evaluated alone, from scratch (``_evaluate_after`` with a fresh
    workspace), float32[n, 5]."""
    n = _generate_plays(pos, d1, d2, _MWS, _PLAYS.play_pos, _PLAYS.play_moves)
    children = _PLAYS.play_pos[:n].copy()
    values = np.zeros((n, 5), dtype=np.float32)
    for i, child in enumerate(children):
        _evaluate_after(child, ev, make_eval_workspace(), values[i])
    return children, values


_MWS = make_workspace()
_PLAYS = make_play_buffers()


@pytest.mark.parametrize("act", [SIGMOID, QUADRATIC])
def test_best_play_with_incremental_children_equals_each_child_evaluated_alone(act):
    """``_best_child`` (parent's pre-activation plus changed rows, memoised escapes, one scan
    per child) picks the play and probabilities that evaluating every child from scratch
    (``_evaluate_after``: dense-free but non-incremental) gives, in contact, in races, with
    and without the bear-off databases, for nets of either hidden function."""
    from bgtui.engine.evaluate import _best_child

    nets = _twenty_three_nets(act)
    rng = np.random.default_rng(8)
    best5 = np.zeros(5, dtype=np.float32)
    counts = [0] * len(NET_NAMES)
    for bearoff in (False, True):
        ev = with_databases(nets, bearoff=bearoff)
        ews = make_eval_workspace()
        for pos in _positions()[::2]:
            d1, d2 = (int(v) for v in rng.integers(1, 7, size=2))
            children, values = _children_alone(pos, d1, d2, ev)
            if len(children) < 2:
                continue
            best = _best_child(pos, len(children), children, ev, ews, best5)
            eq = np.array([equity(v) for v in values])
            assert eq[best] >= eq.max() - 2e-5, board_ascii(pos)
            assert np.abs(values[best] - best5).max() < 2e-5, board_ascii(pos)
            counts[net_class(pos)] += 1
    assert counts[RACE] > 20 and counts[0] > 50 and counts[CRASHED] > 20 and counts[EARLY] > 50
    assert counts[HOLDING] > 20 and counts[TRAILING] > 50
    assert counts[MUTUAL] > 30 and counts[MUTUAL_TRAILING] > 30
    assert min(counts[k] for k in _ANCHOR_OF.values()) > 30, counts
    assert counts[EARLY_TRAILING] > 50, counts
    assert counts[EARLY_BAR] > 30 and counts[EARLY_TRAILING_BAR] > 30, counts
    assert min(counts[k] for k in _BARS_BELOW) > 20, counts


def test_best_play_reusing_the_parent_state_over_the_21_rolls_equals_each_child_alone():
    """The lookahead's and variance reduction's path (``_best_child_from``: the parent's
    pre-activation, features and escapes computed by the first roll and reused by the other
    20, ``ready`` a run-time value) picks, roll by roll, the play and probabilities that
    evaluating every child from scratch gives. (numba once compiled this path wrong while
    the path with ``ready`` a constant 0, ``_best_child``, was right: both are checked.)"""
    from bgtui.engine.evaluate import _best_child_from

    nets = _twenty_three_nets()
    best5 = np.zeros(5, dtype=np.float32)
    checked = [0] * len(NET_NAMES)
    for bearoff in (False, True):
        ev = with_databases(nets, bearoff=bearoff)
        ews = make_eval_workspace()
        for pos in _positions()[1::6]:
            ready = 0
            for d1 in range(1, 7):
                for d2 in range(1, d1 + 1):
                    children, values = _children_alone(pos, d1, d2, ev)
                    best, ready = _best_child_from(
                        pos, len(children), children, ev, ews, best5, ready
                    )
                    eq = np.array([equity(v) for v in values])
                    assert eq[best] >= eq.max() - 2e-5, (board_ascii(pos), d1, d2)
                    assert np.abs(values[best] - best5).max() < 2e-5, (board_ascii(pos), d1, d2)
                    checked[net_class(pos)] += 1
    assert min(checked) > 100, checked


def test_every_play_across_the_early_boundary_is_valued_by_its_own_net():
    """Plays whose result changes stage (both sides' pips falling below ``EARLY_PIPS``, or a
    hit lifting them to it) are valued by the net of the result's class: every play of the
    rolls of positions near the boundary, each a group of its own in ``_best_in_groups``,
    has the probabilities it has evaluated alone."""
    from bgtui.engine.constants import EARLY_PIPS

    ev = with_databases(_twenty_three_nets(), bearoff=False)
    ews = make_eval_workspace()
    crossed = {"fall": 0, "rise": 0}
    for pos in _positions():
        if net_class(pos) == RACE or abs(_pips(pos) - EARLY_PIPS) > 40:
            continue
        for d1 in range(1, 7):
            for d2 in range(1, d1 + 1):
                children = _assert_plays_valued_alone(pos, d1, d2, ev, ews)
                for child in children:
                    if net_class(child) in (RACE, *CRASHED_CLASSES) or not (child > 0).any():
                        continue
                    before, after = _pips(pos) >= EARLY_PIPS, _pips(child) >= EARLY_PIPS
                    crossed["fall"] += before and not after
                    crossed["rise"] += after and not before
    assert crossed["fall"] > 200 and crossed["rise"] > 20, crossed


def _assert_plays_valued_alone(pos, d1, d2, ev, ews):
    """Every play of ``pos`` with ``d1``-``d2``, each a group of its own in ``_best_in_groups``
    (the incremental path of move selection), has the probabilities it has evaluated alone;
    returns the plays."""
    children, values = _children_alone(pos, d1, d2, ev)
    _assert_each_valued_alone(pos, children, values, ev, ews, (d1, d2))
    return children


def _assert_each_valued_alone(pos, children, values, ev, ews, what):
    """``children`` of ``pos``, each a group of its own in calls of ``_best_in_groups`` of
    ``MAX_GROUPS`` groups, have the probabilities ``values`` they have evaluated alone."""
    from bgtui.engine.evaluate import MAX_GROUPS, _best_in_groups

    for lo in range(0, len(children), MAX_GROUPS):
        part = np.ascontiguousarray(children[lo : lo + MAX_GROUPS])
        k = len(part)
        ews.group_ends[:k] = np.arange(1, k + 1)
        ews.group_best[:k] = 0  # none is a roll's only play
        _best_in_groups(pos, k, part, ev, ews, 0, k, 1)
        got = ews.group_values[:k]
        assert np.abs(got - values[lo : lo + k]).max() < 2e-5, (board_ascii(pos), what, lo)


def _bear_off_positions(rng, n):
    """``n`` contact positions whose side on roll has every checker home, against an anchor
    of the other side's there: most plays bear off; some with checkers borne off already,
    by either side or both."""
    from bgtui.engine.position import make_position

    out = []
    while len(out) < n:
        anchor = int(rng.integers(20, 25))  # the other side's point, his numbering
        home = [p for p in range(1, 7) if p != 25 - anchor]
        mine = np.bincount(rng.choice(home, 15 - int(rng.choice([0, 0, 1, 4]))), minlength=7)
        rest = 13 - int(rng.choice([0, 0, 2]))
        theirs = np.bincount(rng.integers(1, 13, rest), minlength=13)
        pos = make_position(
            {p: int(c) for p, c in enumerate(mine) if c},
            {anchor: 2, **{p: int(c) for p, c in enumerate(theirs) if c}},
        )
        if net_class(pos) != RACE:
            out.append(pos)
    return out


def test_every_play_in_move_selection_is_valued_by_the_net_of_its_own_class():
    """With twenty-three different nets, every play of every roll of positions of every contact
    class, each a group of its own in ``_best_in_groups`` (the incremental path of move
    selection: the parent's state is that of the opponent's view, whose class is not the
    mover's), has the probabilities it has evaluated alone by the net of its class: plays
    where either side has borne off, where the mover bears off his first checker (from
    contact or early contact to holding, the opponent on roll), across ``EARLY_PIPS`` (early
    and early trailing to each class below, a hit lifting each class below to early or
    early trailing), where the lead in the race changes hands (the mover's pips falling by
    the roll, a hit adding to the opponent's; from ``EARLY_PIPS`` up too: early to early
    trailing), where the position becomes mutual (a hit, the mover having a checker
    back) or stops being so (the mover's last checker back running), where it becomes an
    anchor class (the mover making an anchor in the opponent's home board) or stops being one
    (the mover breaking his last anchor there), and where it becomes a bar class (a hit, from
    ``EARLY_PIPS`` up an early bar class, below each of the eight bar classes there) or stops
    being one (the mover entering his last checker from the bar).
    """
    ev = with_databases(_twenty_three_nets(), bearoff=False)
    ews = make_eval_workspace()
    rng = np.random.default_rng(40)
    positions = [p for p in _positions()[::3] if net_class(p) != RACE]
    positions += _bear_off_positions(rng, 30)
    seen = {}  # (the parent's class, the play's), both with the opponent on roll
    by_hit = 0  # plays a hit moves between the classes ahead and behind in the race
    flips = {}  # (the parent's class, the play's, "hit" or "run"): mutual made or ended
    # (the parent's class, the play's, "made" or "broken"): an anchor; a bar class below
    # EARLY_PIPS counted as the class it splits
    anchors = {}
    for pos in positions:
        before = net_class(_swapped(pos))
        for d1 in range(1, 7):
            for d2 in range(1, d1 + 1):
                children = _assert_plays_valued_alone(pos, d1, d2, ev, ews)
                for child in children:
                    if (child > 0).any():
                        key = (before, net_class(_swapped(child)))
                        seen[key] = seen.get(key, 0) + 1
                        by_hit += _class_by_hit(pos, child)
                        if is_mutual(child) != is_mutual(pos):
                            how = (*key, "hit" if is_mutual(child) else "run")
                            flips[how] = flips.get(how, 0) + 1
                        if has_anchor(child) != has_anchor(pos):
                            how = tuple(_UNBARRED.get(k, k) for k in key)
                            how += ("made" if has_anchor(child) else "broken",)
                            anchors[how] = anchors.get(how, 0) + 1
    # (a play cannot take the opponent from behind in the race to ahead: either early
    # trailing class to either early class, any class below EARLY_PIPS behind to any ahead)
    for key in (
        (EARLY_TRAILING, EARLY),
        (EARLY_TRAILING, EARLY_BAR),
        (EARLY_TRAILING_BAR, EARLY),
        (EARLY_TRAILING_BAR, EARLY_BAR),
    ):
        assert seen.get(key, 0) == 0, (key, seen)
    behind = (TRAILING, MUTUAL_TRAILING, TRAILING_ANCHOR, MUTUAL_TRAILING_ANCHOR)
    behind += tuple(_BAR_OF[k] for k in behind)
    for a in behind:
        for c in _ALL_BELOW:
            if c not in behind:
                assert seen.get((a, c), 0) == 0, (a, c, seen)
    for key in (
        (CRASHED, CRASHED),
        (HOLDING, HOLDING),
        (TRAILING, HOLDING),
        (TRAILING_ANCHOR, HOLDING),
        (EARLY, EARLY),
        (EARLY, EARLY_TRAILING),
        (EARLY_TRAILING, EARLY_TRAILING),
        (EARLY_TRAILING, MUTUAL_TRAILING),
        (EARLY_TRAILING, TRAILING_ANCHOR),
        (EARLY_TRAILING, MUTUAL_TRAILING_ANCHOR),
        # a hit puts a checker on the bar: into an early bar class
        (EARLY, EARLY_BAR),
        (EARLY, EARLY_TRAILING_BAR),
        (EARLY_TRAILING, EARLY_TRAILING_BAR),
        (EARLY_BAR, EARLY_BAR),
        (EARLY_TRAILING_BAR, EARLY_TRAILING_BAR),
        # the mover enters his last checker from the bar: out of an early bar class
        (EARLY_BAR, EARLY),
        (EARLY_BAR, EARLY_TRAILING),
        (EARLY_TRAILING_BAR, EARLY_TRAILING),
        (CONTACT, CONTACT),
        (CONTACT, TRAILING),
        (TRAILING, TRAILING),
        (MUTUAL, MUTUAL),
        (MUTUAL, MUTUAL_TRAILING),
        (MUTUAL_TRAILING, MUTUAL_TRAILING),
        (ANCHOR, ANCHOR),
        (MUTUAL_ANCHOR, MUTUAL_ANCHOR),
        (MUTUAL_ANCHOR, MUTUAL_TRAILING_ANCHOR),
        (TRAILING_ANCHOR, TRAILING_ANCHOR),
        (MUTUAL_TRAILING_ANCHOR, MUTUAL_TRAILING_ANCHOR),
    ):
        assert seen.get(key, 0) > 50, (key, seen)
    # the pips falling below EARLY_PIPS: from early contact (any of its four classes) to
    # each class below and to the bar classes there, from early trailing to trailing or
    # trailing bar (rarer in these positions), and from each early bar class
    early = (EARLY, EARLY_TRAILING, EARLY_BAR, EARLY_TRAILING_BAR)
    for key in _BELOW:
        assert sum(seen.get((e, key), 0) for e in early) > 50, (key, seen)
    assert sum(seen.get((e, b), 0) for e in early for b in _BARS_BELOW) > 100, seen
    assert seen.get((EARLY_TRAILING, TRAILING), 0) + seen.get((EARLY_TRAILING, TRAILING_BAR), 0) > 2
    for e in (EARLY_BAR, EARLY_TRAILING_BAR):
        assert sum(seen.get((e, key), 0) for key in _ALL_BELOW) > 20, (e, seen)
    # a hit lifts the pips over EARLY_PIPS, the checker hit on the bar: into an early bar
    # class, never an early class without one (the opponent, whose pips it adds to, behind
    # in the race then if he was before)
    for key in _ALL_BELOW:
        if key in _BELOW:
            up = seen.get((key, EARLY_BAR), 0) + seen.get((key, EARLY_TRAILING_BAR), 0)
            assert up > 5, (key, seen)
        assert seen.get((key, EARLY), 0) == seen.get((key, EARLY_TRAILING), 0) == 0, (key, seen)
    for key in behind:
        assert seen.get((key, EARLY_BAR), 0) == 0, (key, seen)
    # below EARLY_PIPS a hit puts the position into a bar class (from each class but ANCHOR
    # into its own bar class: the mover with no checker back hitting the holder of the
    # anchor is rare), the mover entering his last checker from the bar, the other side's
    # bar empty, takes it out of one (into the class it splits, but from TRAILING_ANCHOR_BAR,
    # where the mover on the bar is ahead in the race with an anchor, the other side not
    # back: rare); every class into and out of each bar class
    for k, b in _BAR_OF.items():
        if k != ANCHOR:
            assert seen.get((k, b), 0) > 50, (k, b, seen)
        if k != TRAILING_ANCHOR:
            assert seen.get((b, k), 0) > 50, (b, k, seen)
        assert seen.get((b, b), 0) > 50, (b, seen)
        assert sum(n for (x, c), n in seen.items() if c == b and x != b) > 10, (b, seen)
        assert sum(n for (x, c), n in seen.items() if x == b and c != b) > 50, (b, seen)
    assert sum(n for (b, c), n in seen.items() if b != c and c != RACE) > 500, seen
    assert by_hit > 50, by_hit
    # a hit makes the position mutual (and puts it in a bar class), the mover's last checker
    # back running ends it
    for key in (
        (CONTACT, MUTUAL_BAR, "hit"),
        (TRAILING, MUTUAL_TRAILING_BAR, "hit"),
        (MUTUAL, CONTACT, "run"),
        (MUTUAL_TRAILING, TRAILING, "run"),
        (ANCHOR, MUTUAL_ANCHOR_BAR, "hit"),
        (MUTUAL_ANCHOR, ANCHOR, "run"),
        (MUTUAL_TRAILING_ANCHOR, TRAILING_ANCHOR, "run"),
    ):
        assert flips.get(key, 0) > 50, (key, flips)
    for a, c, how in flips:
        if how == "hit" and c in _ALL_BELOW:
            assert c in _BARS_BELOW, (a, c, flips)
    # the mover makes an anchor in the opponent's home board, or breaks his last one there
    for key in (
        (CONTACT, ANCHOR, "made"),
        (MUTUAL, MUTUAL_ANCHOR, "made"),
        (MUTUAL, MUTUAL_TRAILING_ANCHOR, "made"),
        (ANCHOR, CONTACT, "broken"),
        (ANCHOR, TRAILING, "broken"),
        (MUTUAL_ANCHOR, MUTUAL, "broken"),
        (MUTUAL_ANCHOR, MUTUAL_TRAILING, "broken"),
        (MUTUAL_TRAILING_ANCHOR, MUTUAL_TRAILING, "broken"),
    ):
        assert anchors.get(key, 0) > 30, (key, anchors)
    for key in (
        (CONTACT, TRAILING_ANCHOR, "made"),
        (MUTUAL_TRAILING, MUTUAL_TRAILING_ANCHOR, "made"),
    ):
        assert anchors.get(key, 0) > 5, (key, anchors)


def _class_by_hit(pos, child):
    """Whether the hits of the play from ``pos`` to ``child`` (mover's view) move the child
    (the opponent on roll) between a class ahead in the race and one behind below
    ``EARLY_PIPS`` (``CONTACT_BAR`` and ``TRAILING_BAR``, ``MUTUAL_BAR`` and
    ``MUTUAL_TRAILING_BAR``, or their anchor classes: a hit checker is on the bar): its
    class with the hit checkers' pips added to the opponent's, against its class without."""
    from bgtui.engine.position import _side_totals

    sc = _swapped(child)
    if net_class(sc) not in _ALL_BELOW:
        return False
    slots = np.arange(26)
    gone = np.maximum(-pos.astype(np.int64), 0)[1:25] - np.maximum(-child.astype(np.int64), 0)[1:25]
    gain = int((np.maximum(gone, 0) * slots[1:25]).sum())  # a checker hit on k goes to 25
    mine, theirs, my_pips, their_pips = _side_totals(sc)
    flags = (is_mutual(sc), has_anchor(sc), on_bar(sc))
    without = contact_class(mine, theirs, my_pips - gain, their_pips, *flags)
    return gain > 0 and without != net_class(sc) and without in _ALL_BELOW


def _gathered_rolls(pos, ev):
    """The plays of the 21 rolls of ``pos`` one after the other, where each roll's group
    ends, whether it is the roll's only play, and each play's probabilities evaluated
    alone."""
    children, values, ends, single = [], [], [], []
    for d1 in range(1, 7):
        for d2 in range(1, d1 + 1):
            c, v = _children_alone(pos, d1, d2, ev)
            children.append(c)
            values.append(v)
            ends.append(sum(len(x) for x in children))
            single.append(1 if len(c) == 1 else 0)
    return children, values, np.array(ends), np.array(single)


def test_the_21_rolls_valued_in_one_call_value_each_play_by_the_net_of_its_own_class():
    """With twenty-three different nets, the plays of the 21 rolls of positions of every contact
    class gathered and valued in one call of ``_best_in_groups``, a group per roll (the
    shape of variance reduction and of the 1-ply: groups whose plays are of different
    classes, the classes alternating from group to group), give each roll the best play and
    its probabilities that valuing each play alone by the net of its own class gives; so does
    the same call after one for a single roll that leaves the parent's state (``ready``), and
    every play, each a group of its own, in calls of ``MAX_GROUPS`` plays across the rolls
    has the probabilities it has evaluated alone."""
    from bgtui.engine.evaluate import _best_child_from, _best_in_groups

    ev = with_databases(_twenty_three_nets(), bearoff=False)
    ews = make_eval_workspace()
    best5 = np.zeros(5, dtype=np.float32)
    rng = np.random.default_rng(41)
    positions = [p for p in _positions()[1::2] if net_class(p) != RACE]
    positions += _bear_off_positions(rng, 10)
    calls = {"mixed": 0, "alternating": 0}
    for pos in positions:
        children, values, ends, single = _gathered_rolls(pos, ev)
        buf = np.ascontiguousarray(np.concatenate(children))
        # every play, each a group of its own, in calls across the rolls
        _assert_each_valued_alone(pos, buf, np.concatenate(values), ev, ews, "21 rolls")
        for ready in (0, 1):
            if ready:  # a roll's plays first: the parent's state is left in ews
                ready = _best_child_from(pos, len(buf), buf, ev, ews, best5, 0)[1]
            ews.group_ends[:21] = ends
            ews.group_best[:21] = single
            _best_in_groups(pos, len(buf), buf, ev, ews, ready, 21, 1)
            for g, v in enumerate(values):
                eq = np.array([equity(x) for x in v])
                best = ews.group_best[g] - (ends[g - 1] if g else 0)
                assert eq[best] >= eq.max() - 2e-5, (board_ascii(pos), g, ready)
                assert np.abs(ews.group_values[g] - v[best]).max() < 2e-5, (board_ascii(pos), g)
        # the classes of the plays in the call's order, runs of one class merged
        runs = []
        for c in buf:
            k = net_class(_swapped(c)) if (c > 0).any() else RACE
            if k in CONTACT_CLASSES and (not runs or runs[-1] != k):
                runs.append(k)
        calls["mixed"] += len(set(runs)) > 1
        calls["alternating"] += len(runs) > len(set(runs))  # a class back after another
    assert calls["mixed"] > 40 and calls["alternating"] > 20, calls


def test_tied_nets_value_every_play_as_the_nets_they_are():
    """Weights without bar nets below ``EARLY_PIPS`` of their own (each the net of the class
    it splits, the anchor bar net the anchor net, which may itself be the contact net: a
    chain), with some of them, or all with the anchor nets the nets of the classes they
    split; without early bar nets of their own (the early bar net the early net, the
    early trailing bar net the early trailing net, which may itself be the early net: a
    chain), with an early bar net only, or with both and without an early trailing net;
    without an early trailing net of their own (the early net, or through it the contact
    net: a chain of ties), or with one of their own and the early net the contact net;
    without anchor nets of their own either (each the net of the class it splits: the anchor
    net the contact net, the mutual anchor net the mutual net, the trailing anchor net the
    trailing net, the mutual trailing anchor net the mutual trailing net), and without
    mutual nets either (the mutual net the contact net, the mutual trailing net the trailing
    net, which may itself be the contact net: chains of ties), or with anchor nets of their
    own but no mutual nets: every play of the 21 rolls of positions of every contact class,
    each a group of its own in calls across the rolls, has the probabilities it has
    evaluated alone, by the net it is tied to."""
    from bgtui.analysis.weights import nets_of
    from bgtui.engine.evaluate import TIED_CLASSES

    nets = _twenty_three_nets()
    c, t = nets[0], nets[5]
    rng = np.random.default_rng(42)
    positions = [p for p in _positions()[2::10] if net_class(p) != RACE]
    positions += _bear_off_positions(rng, 4)
    e = nets[3]
    for tied in (
        nets,
        nets[:19],
        (*nets[:8], c, nets[6], t, nets[7], *nets[12:]),
        (*nets[:8], c, *nets[9:]),
        nets[:15],
        nets[:14],
        nets[:13],
        (*nets[:12], e, *nets[13:15]),
        nets[:12],
        (*nets[:3], c, *nets[4:13]),
        (*nets[:3], c, *nets[4:15]),
        nets[:8],
        nets[:6],
        nets[:5],
        (*nets[:6], c, t, *nets[8:15]),
    ):
        ev = with_databases(tied, bearoff=False)
        # the net of each class: its own, else that of the class it splits (TIED_CLASSES)
        want = list(tied)
        for k, to in TIED_CLASSES:
            if k >= len(tied):
                want.append(want[to])
        got = nets_of(ev)
        for j in range(len(NET_NAMES)):
            for k in range(j):
                assert (got[j] is got[k]) == (want[j] is want[k]), (len(tied), j, k)
        if len(tied) < 15:
            assert ev.early_trailing_bar is ev.early_trailing
        else:
            assert ev.early_trailing_bar is not ev.early_trailing
            assert ev.early_trailing_bar is not ev.early
        if len(tied) == 14:
            assert ev.early_bar is not ev.early and ev.early_trailing is not ev.early
        if len(tied) < 13:
            assert ev.early_trailing is ev.early is ev.early_bar
        elif tied[12] is e:
            assert ev.early_trailing is ev.early and ev.early_bar is not ev.early
        else:
            assert ev.early_trailing is not ev.early and ev.early_trailing is not ev.contact
        assert (ev.early is ev.contact) == (tied[3] is c)
        if len(tied) < 12:
            assert ev.anchor is ev.contact and ev.mutual_anchor is ev.mutual
            assert ev.trailing_anchor is ev.trailing
            assert ev.mutual_trailing_anchor is ev.mutual_trailing
        if len(tied) < 8:
            assert ev.mutual is ev.contact and ev.mutual_trailing is ev.trailing
            # the anchor bar net is the anchor net is the contact net
            assert ev.anchor_bar is ev.anchor is ev.contact is ev.contact_bar
        if len(tied) < 6:
            assert ev.mutual_trailing_anchor is ev.contact
            assert ev.mutual_trailing_anchor_bar is ev.contact
        if len(tied) == 15 and tied[6] is c:
            assert ev.mutual is ev.contact and ev.mutual_trailing is ev.trailing
            assert len({id(x) for x in (ev.anchor, ev.mutual_anchor, ev.contact)}) == 3
        if len(tied) < len(NET_NAMES):
            assert ev.mutual_trailing_anchor_bar is ev.mutual_trailing_anchor
        if len(tied) <= 15:
            assert ev.contact_bar is ev.contact and ev.trailing_bar is ev.trailing
            assert ev.mutual_bar is ev.mutual and ev.mutual_trailing_bar is ev.mutual_trailing
        if len(tied) == 19:  # the bar nets of the anchor classes tied, the others not
            assert ev.anchor_bar is ev.anchor and ev.contact_bar is not ev.contact
        if len(tied) == len(NET_NAMES) and tied[8] is c:
            # the anchor nets the nets of the classes they split, their bar nets their own
            assert ev.anchor is ev.contact and ev.anchor_bar is not ev.anchor
            assert ev.anchor_bar is not ev.contact_bar
        ews = make_eval_workspace()
        for pos in positions:
            children, values, _, _ = _gathered_rolls(pos, ev)
            buf = np.ascontiguousarray(np.concatenate(children))
            _assert_each_valued_alone(pos, buf, np.concatenate(values), ev, ews, len(tied))


def _pips(pos):
    """Both sides' pips together."""
    from bgtui.engine.position import _side_totals

    _, _, mine, theirs = _side_totals(np.asarray(pos, dtype=np.int8))
    return mine + theirs


def test_net_class_by_hand():
    from bgtui.engine.constants import EARLY_PIPS, OPENING_POSITION
    from bgtui.engine.position import make_position

    # the opening: 167 pips a side, 334 together
    assert net_class(np.array(OPENING_POSITION, dtype=np.int8)) == EARLY
    # both sides home: a race, whatever has been borne off
    assert net_class(make_position({6: 5, 5: 5}, {6: 15})) == RACE
    # the player has borne off 3 and the opponent still holds an anchor on the player's 1 point
    assert net_class(make_position({6: 4, 5: 4, 4: 4}, {24: 2, 6: 13})) == CRASHED
    # 75 pips against 126: ahead in the race (the opponent's anchor on the 1 point: the
    # anchor class)
    assert net_class(make_position({6: 5, 5: 5, 4: 5}, {24: 2, 6: 13})) == ANCHOR
    assert net_class(make_position({6: 5, 5: 5, 4: 5}, {24: 1, 23: 1, 6: 13})) == CONTACT
    # 132 + 126 = 258 pips together, then 133 + 126 = 259 (EARLY_PIPS)
    assert EARLY_PIPS == 259
    assert net_class(make_position({13: 6, 6: 9}, {24: 2, 6: 13})) == TRAILING_ANCHOR  # 132 > 126
    assert net_class(make_position({13: 6, 6: 9}, {24: 1, 18: 1, 7: 1, 6: 12})) == TRAILING
    # (133 > 126: behind in the race)
    assert net_class(make_position({13: 6, 7: 1, 6: 8}, {24: 2, 6: 13})) == EARLY_TRAILING
    # the same seen from the other side (pips together are the same; 126 < 133)
    assert net_class(make_position({24: 2, 6: 13}, {13: 6, 7: 1, 6: 8})) == EARLY
    assert net_class(make_position({24: 2, 6: 13}, {13: 6, 6: 9})) == ANCHOR  # 126 < 132
    # even in the race: not behind (neither side back, then both)
    assert net_class(make_position({18: 2, 6: 13}, {18: 2, 6: 13})) == CONTACT  # 114 each
    assert net_class(make_position({18: 2, 8: 1, 6: 12}, {18: 2, 6: 13})) == TRAILING  # 116
    assert net_class(make_position({24: 1, 23: 1, 6: 13}, {24: 1, 23: 1, 6: 13})) == MUTUAL
    assert net_class(make_position({24: 2, 6: 13}, {24: 2, 6: 13})) == MUTUAL_ANCHOR  # 126
    assert (
        net_class(make_position({24: 1, 23: 1, 8: 1, 6: 12}, {24: 1, 23: 1, 6: 13}))
        == MUTUAL_TRAILING
    )
    assert net_class(make_position({24: 2, 7: 1, 6: 12}, {24: 2, 6: 13})) == MUTUAL_TRAILING_ANCHOR
    # a checker on the bar counts 25 (and makes the class a bar class): 25 + 24 + 78 = 127
    # against 126, behind
    assert (
        net_class(make_position({25: 1, 24: 1, 6: 13}, {24: 1, 23: 1, 7: 1, 6: 12}))
        == MUTUAL_TRAILING_BAR
    )
    assert net_class(make_position({25: 1, 18: 1, 6: 13}, {18: 2, 6: 13})) == TRAILING_BAR  # 121
    # the opponent's checker on the bar: 126 against 127, ahead
    assert net_class(make_position({24: 2, 6: 13}, {25: 1, 24: 1, 6: 13})) == MUTUAL_ANCHOR_BAR
    assert net_class(make_position({18: 2, 6: 13}, {25: 1, 18: 1, 6: 13})) == CONTACT_BAR

    # only the opponent has borne off: holding; seen by him, crashed (he has borne off)
    assert net_class(make_position({24: 1, 6: 14}, {6: 14})) == HOLDING
    assert net_class(make_position({6: 14}, {24: 1, 6: 14})) == CRASHED
    # both have borne off: crashed, seen by either side
    assert net_class(make_position({24: 1, 6: 13}, {6: 14})) == CRASHED
    assert net_class(make_position({6: 14}, {24: 1, 6: 13})) == CRASHED
    # the side on roll's checkers and pips first: not symmetric
    for mutual, anchor, ahead, behind in (
        (False, False, CONTACT, TRAILING),
        (True, False, MUTUAL, MUTUAL_TRAILING),
        (False, True, ANCHOR, TRAILING_ANCHOR),
        (True, True, MUTUAL_ANCHOR, MUTUAL_TRAILING_ANCHOR),
    ):
        flags = (mutual, anchor, False)  # no checker on a bar
        assert contact_class(15, 15, 128, 128, *flags) == ahead  # even
        assert contact_class(15, 15, 128, 129, *flags) == ahead  # ahead by a pip
        assert contact_class(15, 15, 129, 128, *flags) == behind  # behind by a pip
        assert contact_class(15, 15, 129, 129, *flags) == ahead  # even, 258 together
        assert contact_class(15, 15, 130, 129, *flags) == EARLY_TRAILING  # 259 together
        assert contact_class(15, 15, 129, 130, *flags) == EARLY
        assert contact_class(15, 15, 130, 130, *flags) == EARLY  # even
        assert contact_class(15, 15, EARLY_PIPS - 101, 100, *flags) == behind  # 258 together
        assert contact_class(15, 15, EARLY_PIPS - 100, 100, *flags) == EARLY_TRAILING  # 259
        assert contact_class(15, 15, 100, EARLY_PIPS - 100, *flags) == EARLY
        assert contact_class(15, 15, 100, EARLY_PIPS - 101, *flags) == ahead
        for mp, tp in ((50, 50), (60, 40), (40, 60), (200, 100), (100, 200)):
            assert contact_class(14, 15, mp, tp, *flags) == CRASHED
            assert contact_class(15, 14, mp, tp, *flags) == HOLDING
            assert contact_class(3, 12, mp, tp, *flags) == CRASHED
            assert contact_class(12, 3, mp, tp, *flags) == CRASHED


def test_early_trailing_class_by_hand():
    """From ``EARLY_PIPS`` pips of both sides together up, neither side borne off, no checker
    on either bar: ``EARLY_TRAILING`` where the side on roll is behind in the race (more pips
    than the other side), ``EARLY`` where he is not (even counts as not behind), whether a
    side is back or has an anchor or not; each seen from the other side is the other
    class."""
    from bgtui.engine.constants import EARLY_PIPS, OPENING_POSITION
    from bgtui.engine.position import make_position, pip_counts

    # the opening: 167 pips each, even
    assert net_class(np.array(OPENING_POSITION, dtype=np.int8)) == EARLY
    # the opening after a 6-5 run (24/13): 156 against 167, then the other side on roll
    ran = make_position({24: 1, 13: 6, 8: 3, 6: 5}, {24: 2, 13: 5, 8: 3, 6: 5})
    assert tuple(pip_counts(ran)) == (156, 167)
    assert net_class(ran) == EARLY
    assert net_class(_swapped(ran)) == EARLY_TRAILING
    # behind by a pip: 168 against 167
    one = make_position({24: 2, 13: 5, 8: 3, 7: 1, 6: 4}, {24: 2, 13: 5, 8: 3, 6: 5})
    assert tuple(pip_counts(one)) == (168, 167)
    assert net_class(one) == EARLY_TRAILING
    assert net_class(_swapped(one)) == EARLY
    # behind by a pip at EARLY_PIPS together (130 against 129), then 258 together: trailing
    assert EARLY_PIPS == 259
    at = make_position({24: 1, 13: 3, 8: 3, 6: 7, 1: 1}, {18: 1, 13: 3, 8: 3, 6: 8})
    assert tuple(pip_counts(at)) == (130, 129)
    assert net_class(at) == EARLY_TRAILING and net_class(_swapped(at)) == EARLY
    below = make_position({23: 1, 13: 3, 8: 3, 6: 7, 1: 1}, {18: 1, 13: 3, 8: 3, 6: 8})
    assert tuple(pip_counts(below)) == (129, 129)
    assert net_class(below) == CONTACT and net_class(_swapped(below)) == CONTACT
    below = make_position({24: 1, 13: 3, 8: 3, 6: 7, 1: 1}, {18: 1, 13: 3, 8: 3, 6: 7, 5: 1})
    assert tuple(pip_counts(below)) == (130, 128)
    assert net_class(below) == TRAILING and net_class(_swapped(below)) == CONTACT
    # a side borne off: crashed or holding, whoever is behind
    assert net_class(make_position({24: 2, 13: 13}, {13: 14})) == HOLDING
    assert net_class(make_position({13: 14}, {24: 2, 13: 13})) == CRASHED
    # over positions of games: early contact without a checker on a bar is one of the two,
    # by the race alone
    n = [0, 0]
    for pos in _positions():
        cls = net_class(pos)
        if cls in (EARLY, EARLY_TRAILING):
            mine, theirs = (int(x) for x in pip_counts(pos))
            assert mine + theirs >= EARLY_PIPS and pos[25] == 0 and pos[0] == 0
            assert cls == (EARLY_TRAILING if mine > theirs else EARLY), board_ascii(pos)
            n[cls == EARLY_TRAILING] += 1
    assert min(n) > 80, n


def test_early_bar_classes_by_hand():
    """From ``EARLY_PIPS`` pips of both sides together up, neither side borne off, with a
    checker on either bar (the side on roll's, slot 25, or the other side's, slot 0):
    ``EARLY_TRAILING_BAR`` where the side on roll is behind in the race, ``EARLY_BAR`` where
    he is not; below ``EARLY_PIPS`` the bar classes there; a side borne off, the bar does
    not split."""
    from bgtui.engine.constants import EARLY_PIPS, OPENING_POSITION
    from bgtui.engine.position import make_position, pip_counts

    # one of the opening's checkers on the 24 point of the side on roll's hit, on the bar:
    # 168 pips against 167
    hit = make_position({25: 1, 24: 1, 13: 5, 8: 3, 6: 5}, {24: 2, 13: 5, 8: 3, 6: 5})
    assert tuple(pip_counts(hit)) == (168, 167) and on_bar(hit)
    assert net_class(hit) == EARLY_TRAILING_BAR
    assert net_class(_swapped(hit)) == EARLY_BAR  # the bar checker the other side's
    # the same checker on the 24 point instead: no bar, 167 each
    back = make_position({24: 2, 13: 5, 8: 3, 6: 5}, {24: 2, 13: 5, 8: 3, 6: 5})
    assert not on_bar(back) and net_class(back) == EARLY
    # on the bar and ahead in the race: 109 against 217
    ahead = make_position({25: 1, 6: 14}, {24: 2, 13: 13})
    assert tuple(pip_counts(ahead)) == (109, 217)
    assert net_class(ahead) == EARLY_BAR and net_class(_swapped(ahead)) == EARLY_TRAILING_BAR
    # both sides on the bar, even in the race (135 each): not behind
    both = make_position({25: 2, 13: 1, 6: 12}, {25: 2, 13: 1, 6: 12})
    assert tuple(pip_counts(both)) == (135, 135)
    assert net_class(both) == EARLY_BAR == net_class(_swapped(both))
    # the side on roll on the bar and behind at EARLY_PIPS together (131 against 128), then
    # 258 and 230 together: below EARLY_PIPS the bar classes there
    assert EARLY_PIPS == 259
    at = make_position({25: 1, 13: 3, 8: 3, 6: 7, 1: 1}, {18: 1, 13: 3, 8: 3, 6: 7, 5: 1})
    assert tuple(pip_counts(at)) == (131, 128)
    assert net_class(at) == EARLY_TRAILING_BAR and net_class(_swapped(at)) == EARLY_BAR
    below = make_position({25: 1, 13: 3, 8: 3, 6: 7, 1: 1}, {16: 1, 13: 3, 8: 3, 6: 8})
    assert tuple(pip_counts(below)) == (131, 127)
    assert net_class(below) == TRAILING_BAR and net_class(_swapped(below)) == CONTACT_BAR
    below = make_position({25: 1, 13: 3, 8: 3, 6: 7, 1: 1}, {23: 1, 13: 3, 8: 3, 5: 1, 2: 7})
    assert tuple(pip_counts(below)) == (131, 105)
    assert net_class(below) == MUTUAL_TRAILING_BAR and net_class(_swapped(below)) == MUTUAL_BAR
    # a side borne off: crashed or holding, whoever is on the bar
    assert net_class(make_position({25: 1, 24: 1, 13: 13}, {13: 14})) == HOLDING
    assert net_class(make_position({13: 14}, {25: 1, 24: 1, 13: 13})) == CRASHED
    # contact_class from EARLY_PIPS up by the race and the bar, whatever mutual and anchor
    # say; below, by the race, mutual, anchor and the bar
    for mutual, anchor, below_ahead, below_behind in (
        (False, False, CONTACT, TRAILING),
        (True, False, MUTUAL, MUTUAL_TRAILING),
        (False, True, ANCHOR, TRAILING_ANCHOR),
        (True, True, MUTUAL_ANCHOR, MUTUAL_TRAILING_ANCHOR),
    ):
        for bar, ahead_cls, behind_cls in (
            (False, EARLY, EARLY_TRAILING),
            (True, EARLY_BAR, EARLY_TRAILING_BAR),
        ):
            flags = (mutual, anchor, bar)
            low_ahead = _BAR_OF[below_ahead] if bar else below_ahead
            low_behind = _BAR_OF[below_behind] if bar else below_behind
            assert contact_class(15, 15, 130, 129, *flags) == behind_cls  # 259 together
            assert contact_class(15, 15, 129, 130, *flags) == ahead_cls
            assert contact_class(15, 15, 130, 130, *flags) == ahead_cls  # even
            assert contact_class(15, 15, 129, 129, *flags) == low_ahead  # 258, even
            assert contact_class(15, 15, 130, 128, *flags) == low_behind  # 258
            assert contact_class(14, 15, 200, 100, *flags) == CRASHED
            assert contact_class(15, 14, 200, 100, *flags) == HOLDING
    assert net_class(np.array(OPENING_POSITION, dtype=np.int8)) == EARLY
    # over positions of games: each of the four early classes, by the race and the bar
    n = {EARLY: 0, EARLY_TRAILING: 0, EARLY_BAR: 0, EARLY_TRAILING_BAR: 0}
    for pos in _positions():
        mine, theirs = (int(x) for x in pip_counts(pos))
        cls = net_class(pos)
        if cls in n:
            behind, bar = mine > theirs, bool(pos[25] > 0 or pos[0] < 0)
            want = ((EARLY, EARLY_BAR), (EARLY_TRAILING, EARLY_TRAILING_BAR))[behind][bar]
            assert cls == want, board_ascii(pos)
            n[cls] += 1
        elif cls in CONTACT_CLASSES:
            assert mine + theirs < EARLY_PIPS
    assert min(n.values()) > 20, n


def test_on_bar_by_hand_and_the_same_seen_from_either_side():
    """``on_bar`` is whether the side on roll has a checker on his bar (slot 25) or the other
    side one on his (slot 0), the same of a position's swapped view; so a position from
    ``EARLY_PIPS`` up is of an early bar class exactly when its swapped view is, and one below
    (neither side borne off) of a bar class there exactly when its swapped view is."""
    from bgtui.engine.position import make_position

    assert on_bar(make_position({25: 1, 12: 14}, {12: 15}))
    assert on_bar(make_position({12: 15}, {25: 3, 12: 12}))
    assert on_bar(make_position({25: 2, 12: 13}, {25: 1, 12: 14}))
    assert not on_bar(make_position({24: 1, 12: 14}, {24: 1, 2: 1, 12: 13}))
    pairs = 0
    below = [0, 0]  # positions below EARLY_PIPS without a checker on a bar, with one
    bars = (EARLY_BAR, EARLY_TRAILING_BAR)
    for pos in _positions():
        sw = _swapped(pos)
        want = bool(pos[25] > 0 or pos[0] < 0)
        assert on_bar(pos) == on_bar(sw) == want, board_ascii(pos)
        a, b = net_class(pos), net_class(sw)
        early = (EARLY, EARLY_TRAILING, *bars)
        if a in early and b in early:
            assert (a in bars) == (b in bars) == want
            pairs += want
        if a in _ALL_BELOW:
            assert b in _ALL_BELOW, board_ascii(pos)
            assert (a in _BARS_BELOW) == (b in _BARS_BELOW) == want, board_ascii(pos)
            below[want] += 1
    assert pairs > 20, pairs
    assert min(below) > 200, below


def _research_experts():
    """``research/experts.py`` loaded as a module (it is a script, not a package)."""
    from tests.reference.scripts import load_script

    return load_script("research/experts.py")


def _cs2_both_views():
    """3,000 positions of ``data/cs2``'s first shard and the same seen from the other side."""
    from bgtui.training.train import load_dataset

    pos = load_dataset(f"{_ROOT / 'data' / 'cs2'}:0:1")[0][:3000]
    return np.ascontiguousarray(np.concatenate([pos, (-pos[:, ::-1]).astype(np.int8)]))


def test_on_bar_is_the_bar_split_of_research_experts():
    """``on_bar`` of positions of a training set (``data/cs2``, both sides' views) is
    ``research/experts.py``'s ``parts(positions, "bar")``, and the engine's classes from
    ``EARLY_PIPS`` up are the parts of its ``lead+bar`` split: 0..3 ``EARLY``,
    ``EARLY_BAR``, ``EARLY_TRAILING``, ``EARLY_TRAILING_BAR``."""
    from bgtui.training.kernels import net_classes

    experts = _research_experts()
    pos = _cs2_both_views()
    got = np.array([on_bar(p) for p in pos])
    assert np.array_equal(got, experts.parts(pos, "bar") == 1)
    assert 0.02 < got.mean() < 0.9
    cls = net_classes(pos)
    part = experts.parts(pos, "lead+bar")
    order = (EARLY, EARLY_BAR, EARLY_TRAILING, EARLY_TRAILING_BAR)
    early = np.isin(cls, order)
    assert np.array_equal(np.array(order)[part[early]], cls[early])
    assert len(set(cls[early].tolist())) == 4


def test_the_split_lead_mutual_anchor_bar_below_early_pips_is_the_sixteen_classes_there():
    """The parts of ``research/experts.py``'s ``lead+mutual+anchor+bar`` split (lead the most
    significant, then mutual, anchor and bar: part 8 lead + 4 mutual + 2 anchor + bar) of the
    positions below ``EARLY_PIPS`` where neither side has borne off (``data/cs2``, both
    sides' views) are the engine's sixteen classes there, one to one: parts 0..15
    ``CONTACT``, ``CONTACT_BAR``, ``ANCHOR``, ``ANCHOR_BAR``, ``MUTUAL``, ``MUTUAL_BAR``,
    ``MUTUAL_ANCHOR``, ``MUTUAL_ANCHOR_BAR``, ``TRAILING``, ``TRAILING_BAR``,
    ``TRAILING_ANCHOR``, ``TRAILING_ANCHOR_BAR``, ``MUTUAL_TRAILING``,
    ``MUTUAL_TRAILING_BAR``, ``MUTUAL_TRAILING_ANCHOR``, ``MUTUAL_TRAILING_ANCHOR_BAR``."""
    from bgtui.engine.constants import EARLY_PIPS
    from bgtui.training.kernels import net_classes

    experts = _research_experts()
    pos = _cs2_both_views()
    part = experts.parts(pos, "lead+mutual+anchor+bar")
    # the parts from the code of ``parts``: each split's part weighted by the number of
    # parts of the splits after it
    lead, mutual, anchor, bar = (experts.parts(pos, k) for k in ("lead", "mutual", "anchor", "bar"))
    assert np.array_equal(part, 8 * lead + 4 * mutual + 2 * anchor + bar)
    order = []
    for behind in (False, True):
        for both_back in (False, True):
            for held in (False, True):
                for on in (False, True):
                    order.append(contact_class(15, 15, 1 + behind, 1, both_back, held, on))
    assert order == [
        CONTACT,
        CONTACT_BAR,
        ANCHOR,
        ANCHOR_BAR,
        MUTUAL,
        MUTUAL_BAR,
        MUTUAL_ANCHOR,
        MUTUAL_ANCHOR_BAR,
        TRAILING,
        TRAILING_BAR,
        TRAILING_ANCHOR,
        TRAILING_ANCHOR_BAR,
        MUTUAL_TRAILING,
        MUTUAL_TRAILING_BAR,
        MUTUAL_TRAILING_ANCHOR,
        MUTUAL_TRAILING_ANCHOR_BAR,
    ]
    assert sorted(order) == sorted(_ALL_BELOW)
    cls = net_classes(pos)
    below = np.isin(cls, _ALL_BELOW)
    assert np.array_equal(below, np.isin(cls, CONTACT_CLASSES) & (_pips_of(pos) < EARLY_PIPS))
    assert np.array_equal(np.array(order)[part[below]], cls[below])
    assert len(set(cls[below].tolist())) == 16


def _pips_of(positions):
    """int64[N]: both sides' pips together of each of ``positions``."""
    p = positions.astype(np.int64)
    slots = np.arange(26)
    return (np.maximum(p, 0) * slots).sum(1) + (np.maximum(-p, 0) * (25 - slots)).sum(1)


def test_bar_classes_below_early_pips_by_hand():
    """Below ``EARLY_PIPS`` pips of both sides together, neither side borne off, a checker on
    either bar (the side on roll's, slot 25, or the other side's, slot 0) makes each of the
    eight classes there its bar class: ``CONTACT_BAR``, ``TRAILING_BAR``, ``MUTUAL_BAR``,
    ``MUTUAL_TRAILING_BAR``, ``ANCHOR_BAR``, ``MUTUAL_ANCHOR_BAR``, ``TRAILING_ANCHOR_BAR``,
    ``MUTUAL_TRAILING_ANCHOR_BAR``; seen from the other side, the bar class the other side's
    view is of (ahead and behind in the race trade places); from ``EARLY_PIPS`` up an early
    bar class; a side borne off, crashed or holding whoever is on the bar."""
    from bgtui.engine.constants import EARLY_PIPS
    from bgtui.engine.position import make_position, pip_counts

    # (the side on roll's checkers, the other side's, their pips, the class, the class of
    # the swapped view)
    cases = (
        # the other side's checker on the bar, the side on roll's none back: 94 against 137
        ({8: 2, 6: 13}, {25: 1, 13: 4, 6: 10}, (94, 137), CONTACT_BAR, TRAILING_BAR),
        # the side on roll on the bar, the other side's none back: 130 against 100
        ({25: 1, 13: 3, 6: 11}, {8: 5, 6: 10}, (130, 100), TRAILING_BAR, CONTACT_BAR),
        # the side on roll's blot on the other side's 1 point, the other side's on the bar
        ({24: 1, 6: 14}, {25: 1, 6: 14}, (108, 109), MUTUAL_BAR, MUTUAL_TRAILING_BAR),
        ({25: 1, 6: 14}, {24: 1, 6: 14}, (109, 108), MUTUAL_TRAILING_BAR, MUTUAL_BAR),
        # the side on roll on the bar with an anchor on the other side's 2 point, the other
        # side's none back: 95 against 135
        ({25: 1, 23: 2, 2: 12}, {13: 5, 8: 5, 6: 5}, (95, 135), ANCHOR_BAR, TRAILING_ANCHOR_BAR),
        # the other side on the bar with an anchor on the side on roll's 4 point: 111 against
        # 139, then seen by him
        ({13: 3, 6: 12}, {25: 1, 21: 2, 6: 12}, (111, 139), ANCHOR_BAR, TRAILING_ANCHOR_BAR),
        ({25: 1, 21: 2, 6: 12}, {13: 3, 6: 12}, (139, 111), TRAILING_ANCHOR_BAR, ANCHOR_BAR),
        # both sides' anchors on the other side's 1 point, a checker of one side on the bar
        (
            {24: 2, 4: 13},
            {25: 1, 24: 2, 4: 12},
            (100, 121),
            MUTUAL_ANCHOR_BAR,
            MUTUAL_TRAILING_ANCHOR_BAR,
        ),
        (
            {25: 1, 24: 2, 4: 12},
            {24: 2, 4: 13},
            (121, 100),
            MUTUAL_TRAILING_ANCHOR_BAR,
            MUTUAL_ANCHOR_BAR,
        ),
        # both sides on the bar, even in the race: mutual, not behind either way
        ({25: 1, 6: 14}, {25: 1, 6: 14}, (109, 109), MUTUAL_BAR, MUTUAL_BAR),
    )
    for mine, theirs, pips, cls, other in cases:
        pos = make_position(mine, theirs)
        assert tuple(pip_counts(pos)) == pips, (NET_NAMES[cls], tuple(pip_counts(pos)))
        assert sum(pips) < EARLY_PIPS and on_bar(pos) and on_bar(_swapped(pos))
        assert net_class(pos) == cls, (NET_NAMES[cls], NET_NAMES[net_class(pos)])
        assert net_class(_swapped(pos)) == other, (NET_NAMES[other], pips)
        # the checker on the bar (the first side's that has one) on his 20 point instead:
        # the class the bar class splits, by the race and the flags after the move
        bare = dict(mine if 25 in mine else theirs)
        bare[20] = bare.get(20, 0) + bare.pop(25)
        moved = make_position(bare, theirs) if 25 in mine else make_position(mine, bare)
        if not on_bar(moved):
            assert net_class(moved) in _BELOW, (NET_NAMES[cls], NET_NAMES[net_class(moved)])
    assert {c[3] for c in cases} == {c[4] for c in cases} == set(_BARS_BELOW)
    # 258 pips together (130 against 128), then 259 (130 against 129): the early bar
    # classes from there up
    pos = make_position({25: 1, 13: 3, 6: 11}, {13: 3, 9: 5, 8: 1, 6: 6})
    assert tuple(pip_counts(pos)) == (130, 128)
    assert net_class(pos) == TRAILING_BAR and net_class(_swapped(pos)) == CONTACT_BAR
    pos = make_position({25: 1, 13: 3, 6: 11}, {13: 3, 9: 5, 8: 1, 7: 1, 6: 5})
    assert tuple(pip_counts(pos)) == (130, 129)
    assert net_class(pos) == EARLY_TRAILING_BAR and net_class(_swapped(pos)) == EARLY_BAR
    # a side borne off: crashed or holding, whoever is on the bar
    assert net_class(make_position({25: 1, 6: 13}, {24: 1, 6: 14})) == CRASHED
    assert net_class(make_position({24: 1, 6: 14}, {25: 1, 6: 13})) == HOLDING
    assert net_class(make_position({6: 14}, {25: 1, 6: 14})) == CRASHED
    assert net_class(make_position({25: 1, 6: 14}, {6: 14})) == HOLDING


def test_mutual_classes_by_hand():
    """Below ``EARLY_PIPS``, neither side borne off: ``MUTUAL`` (not behind in the race) and
    ``MUTUAL_TRAILING`` (behind) where each side has a checker back, on his bar or in the
    other side's home board; ``CONTACT`` and ``TRAILING`` where at most one side has."""
    from bgtui.engine.constants import OPENING_POSITION
    from bgtui.engine.position import make_position

    # a checker on each side's 24 point: 108 pips each, then 109 against 108
    assert net_class(make_position({24: 1, 6: 14}, {24: 1, 6: 14})) == MUTUAL
    assert net_class(make_position({24: 1, 7: 1, 6: 13}, {24: 1, 6: 14})) == MUTUAL_TRAILING
    assert net_class(make_position({24: 1, 6: 14}, {24: 1, 7: 1, 6: 13})) == MUTUAL
    # on the bar counts as back, either side's (the bar classes): 108 against 109, then 109
    # against 108
    assert net_class(make_position({24: 1, 6: 14}, {25: 1, 6: 14})) == MUTUAL_BAR
    assert net_class(make_position({25: 1, 6: 14}, {24: 1, 6: 14})) == MUTUAL_TRAILING_BAR
    assert net_class(make_position({25: 1, 6: 14}, {25: 1, 6: 14})) == MUTUAL_BAR
    # any point of the other side's home board counts: the side on roll's 19, his 1
    assert net_class(make_position({19: 1, 5: 14}, {19: 1, 5: 14})) == MUTUAL
    # only one side back: the other side's checker on the 18 point (his 7) is out
    assert net_class(make_position({18: 1, 6: 14}, {24: 1, 6: 14})) == CONTACT  # 102 < 108
    assert net_class(make_position({24: 1, 6: 14}, {18: 1, 6: 14})) == TRAILING  # 108 > 102
    assert net_class(make_position({24: 1, 23: 1, 6: 13}, {13: 6, 6: 9})) == CONTACT  # 125
    assert net_class(make_position({13: 6, 6: 9}, {24: 1, 23: 1, 6: 13})) == TRAILING  # 132
    # both back but from EARLY_PIPS up, or a side borne off: not split
    assert net_class(np.array(OPENING_POSITION, dtype=np.int8)) == EARLY
    assert net_class(make_position({24: 1, 6: 13}, {24: 1, 6: 14})) == CRASHED
    assert net_class(make_position({24: 1, 6: 14}, {24: 1, 6: 13})) == HOLDING


def test_anchor_classes_by_hand():
    """Below ``EARLY_PIPS``, neither side borne off: each of ``CONTACT``, ``MUTUAL``,
    ``TRAILING`` and ``MUTUAL_TRAILING`` is its anchor class (``ANCHOR``, ``MUTUAL_ANCHOR``,
    ``TRAILING_ANCHOR``, ``MUTUAL_TRAILING_ANCHOR``) where a side has an anchor: two checkers
    or more on one point of the other side's home board, either side's, the side on roll's or
    the other's; two on the bar, or two on the 7 point, are none."""
    from bgtui.engine.constants import OPENING_POSITION
    from bgtui.engine.position import make_position

    # the side on roll's anchor (his 20 point), then the other side's (the side on roll's 5)
    assert net_class(make_position({20: 2, 6: 13}, {13: 4, 6: 11})) == ANCHOR  # 118 < 118
    assert net_class(make_position({13: 4, 6: 11}, {20: 2, 6: 13})) == ANCHOR
    assert net_class(make_position({20: 3, 4: 12}, {13: 4, 6: 11})) == ANCHOR  # three, 108
    # no anchor: split over two points, on the bar, or on the 7 point (out of the board)
    assert net_class(make_position({20: 1, 21: 1, 5: 13}, {13: 4, 6: 11})) == CONTACT  # 106
    assert net_class(make_position({25: 2, 6: 13}, {13: 4, 6: 11})) == TRAILING_BAR  # 128
    assert net_class(make_position({18: 2, 6: 13}, {13: 4, 6: 11})) == CONTACT  # 114
    # a side's anchor and the other side's blot back: mutual anchor (118 against 136)
    assert net_class(make_position({20: 2, 6: 13}, {24: 1, 13: 4, 6: 10})) == MUTUAL_ANCHOR
    assert net_class(make_position({24: 1, 13: 4, 6: 10}, {20: 2, 6: 13})) == (
        MUTUAL_TRAILING_ANCHOR
    )
    # behind, the other side's anchor: trailing anchor (132 against 126)
    assert net_class(make_position({13: 6, 6: 9}, {24: 2, 6: 13})) == TRAILING_ANCHOR
    # both sides' anchors and blots back
    assert net_class(make_position({24: 2, 6: 13}, {24: 2, 6: 13})) == MUTUAL_ANCHOR
    assert net_class(make_position({24: 2, 7: 1, 6: 12}, {24: 2, 6: 13})) == (
        MUTUAL_TRAILING_ANCHOR
    )
    # from EARLY_PIPS up or a side borne off: not split (the opening: both sides' anchors)
    assert net_class(np.array(OPENING_POSITION, dtype=np.int8)) == EARLY
    assert net_class(make_position({24: 2, 6: 12}, {24: 2, 6: 13})) == CRASHED
    assert net_class(make_position({24: 2, 6: 13}, {24: 2, 6: 12})) == HOLDING


def test_has_anchor_by_hand_and_the_same_seen_from_either_side():
    """``has_anchor`` is whether the side on roll has two checkers or more on one of slots
    19..24 or the other side two or more on one of slots 1..6 (the bar, slots 0 and 25,
    never counts), the same of a position's swapped view; so a position of a class below
    ``EARLY_PIPS`` is of an anchor class (or the bar class of one) exactly when its swapped
    view is."""
    from bgtui.engine.position import make_position

    # the other side's checkers on his 12 point (slot 13), the side on roll's on his 12
    assert has_anchor(make_position({24: 2, 12: 13}, {12: 15}))
    assert has_anchor(make_position({19: 2, 12: 13}, {12: 15}))
    assert not has_anchor(make_position({18: 2, 12: 13}, {12: 15}))
    assert not has_anchor(make_position({25: 2, 12: 13}, {12: 15}))
    assert not has_anchor(make_position({24: 1, 19: 1, 12: 13}, {12: 15}))
    assert has_anchor(make_position({12: 15}, {24: 2, 12: 13}))
    assert has_anchor(make_position({12: 15}, {19: 4, 12: 11}))
    assert not has_anchor(make_position({12: 15}, {25: 3, 12: 12}))
    assert not has_anchor(make_position({12: 15}, {18: 2, 12: 13}))
    # one to three checkers of the side on roll on each point (but the two taken), and seen
    # by the other side
    for point in range(1, 26):
        for n in (1, 2, 3):
            if point not in (12, 13):
                pos = make_position({point: n, 12: 15 - n}, {12: 15})
                want = n >= 2 and 19 <= point <= 24
                assert has_anchor(pos) == has_anchor(_swapped(pos)) == want, (point, n)
    pairs = 0
    for pos in _positions():
        sw = _swapped(pos)
        want = bool((pos[19:25] >= 2).any() or (pos[1:7] <= -2).any())
        assert has_anchor(pos) == has_anchor(sw) == want, board_ascii(pos)
        a, b = net_class(pos), net_class(sw)
        if a in _ALL_BELOW and b in _ALL_BELOW:
            a, b = _UNBARRED[a], _UNBARRED[b]
            assert (a in _ANCHOR_OF.values()) == (b in _ANCHOR_OF.values())
            pairs += want
    assert pairs > 50, pairs


def test_has_anchor_is_the_anchor_split_of_research_experts():
    """``has_anchor`` of positions of a training set (``data/cs2``, both sides' views) is
    ``research/experts.py``'s ``parts(positions, "anchor")``, and the engine's classes below
    ``EARLY_PIPS`` (each bar class as the class it splits) are the parts of its
    ``lead+mutual+anchor`` split in the order its docstring gives: 0..7 ``CONTACT``,
    ``ANCHOR``, ``MUTUAL``, ``MUTUAL_ANCHOR``, ``TRAILING``, ``TRAILING_ANCHOR``,
    ``MUTUAL_TRAILING``, ``MUTUAL_TRAILING_ANCHOR``."""
    from bgtui.training.kernels import net_classes

    experts = _research_experts()
    pos = _cs2_both_views()
    got = np.array([has_anchor(p) for p in pos])
    assert np.array_equal(got, experts.parts(pos, "anchor") == 1)
    assert 0.1 < got.mean() < 0.9
    cls = net_classes(pos)
    part = experts.parts(pos, "lead+mutual+anchor")
    order = (
        CONTACT,
        ANCHOR,
        MUTUAL,
        MUTUAL_ANCHOR,
        TRAILING,
        TRAILING_ANCHOR,
        MUTUAL_TRAILING,
        MUTUAL_TRAILING_ANCHOR,
    )
    below = np.isin(cls, _ALL_BELOW)
    unbarred = np.array([_UNBARRED[k] for k in cls[below]])
    assert np.array_equal(np.array(order)[part[below]], unbarred)
    assert len(set(unbarred.tolist())) == 8


def test_mutual_is_the_same_seen_from_either_side():
    """``is_mutual`` of a position is that of its swapped view (both sides back, or not), and
    is what the slots say (19..25 of the side on roll's, 0..6 of the other side's); so a
    position of a contact stage class below ``EARLY_PIPS`` is of a mutual class (or the bar
    class of one) exactly when its swapped view is."""
    pairs = 0
    for pos in _positions():
        sw = _swapped(pos)
        want = bool((pos[19:26] > 0).any() and (pos[0:7] < 0).any())
        assert is_mutual(pos) == is_mutual(sw) == want, board_ascii(pos)
        a, b = net_class(pos), net_class(sw)
        if a in _ALL_BELOW and b in _ALL_BELOW:
            a, b = _UNBARRED[a], _UNBARRED[b]
            mutual = (MUTUAL, MUTUAL_TRAILING, MUTUAL_ANCHOR, MUTUAL_TRAILING_ANCHOR)
            assert (a in mutual) == (b in mutual)
            pairs += want
    assert pairs > 50, pairs


def test_each_class_is_valued_by_its_own_net():
    """``evaluate0`` with twenty-three different nets gives each position its class's dense forward
    pass (then the consistency rules), with tables and without."""
    from bgtui.engine.evaluate import _sanitize, evaluate0

    nets = _twenty_three_nets()
    x = np.zeros(NUM_INPUTS, dtype=np.float32)
    sw = np.zeros(26, dtype=np.int8)
    o = np.zeros(5, dtype=np.float32)
    seen = [0] * len(NET_NAMES)
    for tables in (True, False):
        ev = with_databases(nets, bearoff=False, tables=tables)
        for pos in _positions()[::4]:
            cls = net_class(pos)
            seen[cls] += 1
            w1, b1, w2, b2 = nets[cls][:4]
            _fill_inputs(pos, sw, x)
            _forward(x, w1, b1, w2, b2, np.zeros(b1.shape[0], dtype=np.float32), o)
            _sanitize(pos, o)
            assert np.abs(evaluate0(pos, ev) - o).max() < 2e-5, board_ascii(pos)
    assert min(seen) > 10


def _small_buffers(lws, rows):
    """``lws`` with play buffers of ``MAX_PLAYS + rows`` rows a level: a grouped lookahead
    then values what it has gathered whenever more than ``rows`` plays wait (several calls
    where the full buffer needs one)."""
    from bgtui.engine.constants import MAX_PLAYS

    levels = lws.play_pos.shape[0]
    return lws._replace(
        play_pos=np.zeros((levels, MAX_PLAYS + rows, 26), dtype=np.int8),
        play_moves=np.zeros((levels, MAX_PLAYS + rows, 8), dtype=np.int8),
    )


def test_grouped_1ply_is_the_mean_over_the_rolls_of_each_childs_own_best_value():
    """1-ply gathers the plays of the 21 rolls and values them in grouped calls. Reference:
    every child evaluated alone, the best by equity for each roll, weighted 1 (doubles) or 2
    over 36. Also with buffers so small that the rolls are valued a few at a time: the same
    result bit for bit."""
    from bgtui.engine.evaluate import _eval_ply1, make_lookahead_workspace

    nets = _twenty_three_nets()
    for bearoff in (False, True):
        ev = with_databases(nets, bearoff=bearoff)
        lws = make_lookahead_workspace()
        small = _small_buffers(make_lookahead_workspace(), 40)
        for pos in _positions()[2::15]:
            want = np.zeros(5)
            for d1 in range(1, 7):
                for d2 in range(1, d1 + 1):
                    _, values = _children_alone(pos, d1, d2, ev)
                    best = max(values, key=equity)  # the first of equals
                    want += (1.0 if d1 == d2 else 2.0) * best
            want /= 36.0
            got = np.zeros(5, dtype=np.float32)
            _eval_ply1(pos, ev, lws, 0, got)
            again = np.zeros(5, dtype=np.float32)
            _eval_ply1(pos, ev, small, 0, again)
            assert np.abs(got - want).max() < 2e-5, board_ascii(pos)
            assert np.array_equal(got, again), board_ascii(pos)


def test_grouped_variance_reduction_step_does_not_depend_on_how_the_rolls_are_batched():
    """The exact 0-ply variance-reduction step values the 21 rolls in grouped calls, gathered
    in the lookahead workspace's buffer: a buffer that takes a few rolls at a time gives the
    same rollout bit for bit (the play made, every roll's value, the luck)."""
    from bgtui.analysis.models import RolloutSettings
    from bgtui.analysis.rollout import engine_settings
    from bgtui.engine.rollout import (
        NUM_OUT,
        _rollout_chunk,
        make_permutations,
        make_rollout_workspace,
    )

    ev = with_databases(_twenty_three_nets(), bearoff=True)
    roots = np.ascontiguousarray(_positions()[5::40][:4])
    cubes = np.zeros((len(roots), 3))
    cubes[:, 0] = 1.0
    st = engine_settings(RolloutSettings(truncate=6, variance_reduction=True, seed=4))
    perms = make_permutations(4)
    outs = []
    for rows in (None, 30):
        ws = make_rollout_workspace()
        if rows is not None:
            ws = ws._replace(lookahead=_small_buffers(ws.lookahead, rows))
        out = np.zeros((len(roots), 12, NUM_OUT))
        _rollout_chunk(roots, cubes, 0, 12, st, perms, 4, ev, ws, out, np.zeros(1, np.int64))
        outs.append(out)
    assert np.array_equal(outs[0], outs[1])
    assert np.any(outs[0][:, :, 0] != outs[0][:, :1, 0])  # the trials differ


def test_accumulate_sums_over_the_tables_width_and_leaves_a_longer_workspace_alone():
    """A workspace sized for the widest net (``hidden_size``) serves a narrower one: the
    table's rows are summed over the table's width only, the rest of ``h`` untouched."""
    from bgtui.engine.nn import TABLE_ROWS, ZERO_ROW, _accumulate

    rng = np.random.default_rng(5)
    tab = rng.normal(size=(TABLE_ROWS, 24)).astype(np.float32)
    tab[ZERO_ROW] = 0.0
    base = rng.normal(size=64).astype(np.float32)
    for n in (0, 3, 9):
        idx, coef = make_terms()
        rows = rng.integers(0, ZERO_ROW, size=n)
        c = rng.normal(size=n).astype(np.float32)
        idx[:n] = rows
        coef[:n] = c
        h = np.full(64, 7.0, dtype=np.float32)
        _accumulate(h, base, tab, idx, coef, n)
        want = base[:24] + (c[:, None] * tab[rows]).sum(axis=0)
        np.testing.assert_allclose(h[:24], want, rtol=1e-5, atol=1e-5)
        assert (h[24:] == 7.0).all()


def test_the_screening_splits_of_research_experts_by_hand():
    """``research/experts.py``'s ``bar``, ``prime`` and ``homeblot`` parts of positions set up
    by hand, the same seen from either side."""
    experts = _research_experts()

    def board(mine, theirs):
        pos = np.zeros(26, dtype=np.int8)
        for k, n in mine.items():
            pos[k] += n
        for k, n in theirs.items():
            pos[k] -= n
        return pos

    start = board({6: 5, 8: 3, 13: 5, 24: 2}, {19: 5, 17: 3, 12: 5, 1: 2})
    cases = [  # position, (bar, prime, homeblot)
        (start, (0, 0, 0)),
        (board({25: 1, 6: 5, 8: 3, 13: 4, 24: 2}, {19: 5, 17: 3, 12: 5, 1: 2}), (1, 0, 0)),
        (
            board({4: 2, 5: 2, 6: 3, 7: 2, 8: 2, 13: 2, 24: 2}, {19: 5, 17: 3, 12: 5, 1: 2}),
            (0, 1, 0),
        ),
        (
            board({4: 2, 5: 2, 6: 3, 8: 2, 9: 2, 13: 2, 24: 2}, {19: 5, 17: 3, 12: 5, 1: 2}),
            (0, 0, 0),
        ),
        (board({3: 1, 6: 4, 8: 3, 13: 5, 24: 2}, {19: 5, 17: 3, 12: 5, 1: 2}), (0, 0, 1)),
        (board({3: 1, 6: 4, 8: 3, 13: 5, 24: 2}, {19: 5, 17: 3, 12: 7}), (0, 0, 0)),
        (board({6: 5, 8: 3, 13: 5, 24: 2}, {0: 1, 19: 5, 17: 3, 12: 4, 1: 2}), (1, 0, 0)),
    ]
    for pos, want in cases:
        both = np.ascontiguousarray(np.stack([pos, _swapped(pos)]))
        got = tuple(
            tuple(int(v) for v in experts.parts(both, s)) for s in ("bar", "prime", "homeblot")
        )
        assert got == tuple((w, w) for w in want), board_ascii(pos)
