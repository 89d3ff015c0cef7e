"""0-ply evaluation and best-play selection.

``ev`` is an :class:`~bgtui.engine.structs.Evaluator` (:func:`make_evaluator`): the nets (see
``nn``; :func:`nn.net_class` picks one, and ``_nets(ev)[cls]`` / ``ev.tables[cls]`` are its
weights and tables), the bear-off databases (see ``bearoff``; arrays of size 0 switch a
database off) and the nets' first-layer tables (``nn.make_tables``; size 0 means "evaluate with
dense inputs", as training does while it changes the weights).

Where both sides are home with at most 6 checkers the two-sided database's exact cubeless value
is used; in other races that the one-sided database covers
(home-board bear-offs, and with the extended database also a last checker on each side's point
7..18 or a side of at most 6 checkers anywhere, see ``bearoff.side_row``) the one-sided
approximation; elsewhere the race or contact net.
``ews`` is an :class:`~bgtui.engine.structs.EvalWorkspace` from :func:`make_eval_workspace`.
"""

import numpy as np

from bgtui.engine._jit import kernel
from bgtui.engine.bearoff import (
    FULL_SIZE,
    is_two_sided,
    one_sided_applies,
    one_sided_race_probs,
    two_sided_probs,
)
from bgtui.engine.constants import (
    MAX_PLAYS,
    MOVE_SIZE,
    ONE_PLY_WEIGHTS0,
    POSITION_SIZE,
    RACE_SIDE_MARGIN,
    RACE_SIDE_PLAYS,
    ROLL_WEIGHTS,
    ROLLS,
)
from bgtui.engine.filter_net import (
    MAX_FILTER_K,
    as_filter_net,
    filter_keep,
    filter_parent,
    make_filter_scratch,
)
from bgtui.engine.inputs import (
    LOW25,
    NUM_INPUTS,
    NUM_NONLINEAR,
    POINTS,
    _escapes,
    _escapes_slot,
    _fill_inputs,
    _fill_nonlinear,
    _highest_bit,
    _memo_escapes,
    _popcount,
    _reverse26,
    _scan_masks,
    _shots_and_loss_masks,
    _side_nonlinear,
    _side_nonlinear_memo,
    _write_nonlinear,
    make_escapes_cache,
)
from bgtui.engine.movegen import (
    _copy_position,
    _generate_plays,
    _generate_scored_plays,
    make_workspace,
)
from bgtui.engine.nn import (
    ANCHOR,
    ANCHOR_BAR,
    CONTACT,
    CONTACT_BAR,
    CONTACT_CLASSES,
    CRASHED,
    EARLY,
    EARLY_BAR,
    EARLY_TRAILING,
    EARLY_TRAILING_BAR,
    HOLDING,
    MAX_TERMS,
    MUTUAL,
    MUTUAL_ANCHOR,
    MUTUAL_ANCHOR_BAR,
    MUTUAL_BAR,
    MUTUAL_TRAILING,
    MUTUAL_TRAILING_ANCHOR,
    MUTUAL_TRAILING_ANCHOR_BAR,
    MUTUAL_TRAILING_BAR,
    NET_NAMES,
    RACE,
    SIGMOID,
    TRAILING,
    TRAILING_ANCHOR,
    TRAILING_ANCHOR_BAR,
    TRAILING_BAR,
    _finish,
    _forward,
    _point_terms,
    _preact_rest,
    _preact_tables,
    aligned,
    contact_class,
    has_anchor,
    is_mutual,
    net_class,
    on_bar,
)
from bgtui.engine.position import (
    _side_totals,
    checkers_off,
    game_result,
    is_race,
    swap_sides_into,
)
from bgtui.engine.side import (
    SIDE_BUCKETS,
    SIDE_HEADS,
    SIDE_OUTPUTS,
    _race5,
    _row_dists,
    _side_dists,
    _side_dists_memo,
    _side_race_probs,
    no_side_net,
    side_row,
)
from bgtui.engine.structs import (
    Evaluator,
    EvalWorkspace,
    LookaheadWorkspace,
    Net,
    PlayBuffers,
    PlayWorkspace,
)


def as_net(net) -> Net:
    """``net`` (four arrays w1, b1, w2, b2, then the hidden function ``Net.act``: sigmoids if
    not given) as a :class:`Net`."""
    if isinstance(net, Net):
        return net
    w1, b1, w2, b2, *act = net
    return Net(w1, b1, w2, b2, int(act[0]) if act else SIGMOID)


def net_copy(net, dtype=np.float32) -> Net:
    """A :class:`Net` of copies of ``net``'s four arrays (as ``dtype``: training changes them
    in place), with its hidden function."""
    net = as_net(net)
    return Net(*(np.array(a, dtype=dtype) for a in net[:4]), net.act)


#: (class, the class whose net and tables :func:`make_evaluator` takes for it when its net or
#: its tables are not given), in class order from ``EARLY`` on
TIED_CLASSES = (
    (EARLY, CONTACT),
    (HOLDING, CRASHED),
    (TRAILING, CONTACT),
    (MUTUAL, CONTACT),
    (MUTUAL_TRAILING, TRAILING),
    (ANCHOR, CONTACT),
    (MUTUAL_ANCHOR, MUTUAL),
    (TRAILING_ANCHOR, TRAILING),
    (MUTUAL_TRAILING_ANCHOR, MUTUAL_TRAILING),
    (EARLY_TRAILING, EARLY),
    (EARLY_BAR, EARLY),
    (EARLY_TRAILING_BAR, EARLY_TRAILING),
    (CONTACT_BAR, CONTACT),
    (TRAILING_BAR, TRAILING),
    (MUTUAL_BAR, MUTUAL),
    (MUTUAL_TRAILING_BAR, MUTUAL_TRAILING),
    (ANCHOR_BAR, ANCHOR),
    (MUTUAL_ANCHOR_BAR, MUTUAL_ANCHOR),
    (TRAILING_ANCHOR_BAR, TRAILING_ANCHOR),
    (MUTUAL_TRAILING_ANCHOR_BAR, MUTUAL_TRAILING_ANCHOR),
)


def make_evaluator(
    contact,
    race,
    two_sided,
    one_sided,
    tables,
    crashed,
    side=None,
    early=None,
    holding=None,
    trailing=None,
    mutual=None,
    mutual_trailing=None,
    anchor=None,
    mutual_anchor=None,
    trailing_anchor=None,
    mutual_trailing_anchor=None,
    early_trailing=None,
    early_bar=None,
    early_trailing_bar=None,
    contact_bar=None,
    trailing_bar=None,
    mutual_bar=None,
    mutual_trailing_bar=None,
    anchor_bar=None,
    mutual_anchor_bar=None,
    trailing_anchor_bar=None,
    mutual_trailing_anchor_bar=None,
) -> Evaluator:
    """An :class:`Evaluator` of twenty-three nets (a net may be one before it in
    ``NET_NAMES`` order, the contact net, say, which then values those positions too; a net
    None is the net of the class :data:`TIED_CLASSES` names: early, trailing, mutual and
    anchor the contact net, holding the crashed net, mutual trailing and trailing anchor the
    trailing net, mutual anchor the mutual net, mutual trailing anchor the mutual trailing
    net, early trailing and early bar the early net, early trailing bar the early trailing
    net, each bar class below ``EARLY_PIPS`` the net of the class it splits: contact bar the
    contact net, trailing bar the trailing net, and so on), the bear-off databases, the
    nets' tables in ``NET_NAMES`` order (from the first three on; those missing are the
    tables of the class :data:`TIED_CLASSES` names) and the race side net
    (``side.make_side_net``; None: none, the race net values the races; see
    :func:`_side_net_values` for the races it values)."""
    raw = [
        contact,
        race,
        crashed,
        early,
        holding,
        trailing,
        mutual,
        mutual_trailing,
        anchor,
        mutual_anchor,
        trailing_anchor,
        mutual_trailing_anchor,
        early_trailing,
        early_bar,
        early_trailing_bar,
        contact_bar,
        trailing_bar,
        mutual_bar,
        mutual_trailing_bar,
        anchor_bar,
        mutual_anchor_bar,
        trailing_anchor_bar,
        mutual_trailing_anchor_bar,
    ]
    tables = list(tables)
    for k, to in TIED_CLASSES:
        if raw[k] is None:
            raw[k] = raw[to]
        if len(tables) == k:
            tables.append(tables[to])
    # a net passed as one before it is that net (the same Net)
    nets = []
    for k, net in enumerate(raw):
        same = [nets[j] for j in range(k) if raw[j] is net]
        nets.append(same[0] if same else as_net(net))
    side = no_side_net() if side is None else side
    contact_net, race_net, crashed_net, *rest = nets
    return Evaluator(
        contact_net, race_net, two_sided, one_sided, tuple(tables), crashed_net, side, *rest
    )


def hidden_size(ev) -> int:
    """The largest hidden layer of the nets in an evaluator (for workspaces)."""
    return max(*(getattr(ev, name).b1.shape[0] for name in NET_NAMES), ev.side.w2.shape[0])


@kernel(inline="always")
def _nets(ev):
    """The nets of ``ev`` in ``net_class`` order, a tuple indexable by a run-time class."""
    return (
        ev.contact,
        ev.race,
        ev.crashed,
        ev.early,
        ev.holding,
        ev.trailing,
        ev.mutual,
        ev.mutual_trailing,
        ev.anchor,
        ev.mutual_anchor,
        ev.trailing_anchor,
        ev.mutual_trailing_anchor,
        ev.early_trailing,
        ev.early_bar,
        ev.early_trailing_bar,
        ev.contact_bar,
        ev.trailing_bar,
        ev.mutual_bar,
        ev.mutual_trailing_bar,
        ev.anchor_bar,
        ev.mutual_anchor_bar,
        ev.trailing_anchor_bar,
        ev.mutual_trailing_anchor_bar,
    )


# _contact_groups keeps a bit per class in an int64 (the classes found, the rows of
# ews.stage_h computed, the nets that are the parent class's)
assert len(NET_NAMES) <= 63

#: most groups of plays one call of :func:`_best_in_groups` ranks (the 21 rolls of a position)
MAX_GROUPS = 32


def make_eval_workspace(hidden: int = 512) -> EvalWorkspace:
    """Scratch for evaluation and best-play selection (fields in :class:`EvalWorkspace`)."""
    return EvalWorkspace(
        np.zeros(POSITION_SIZE, dtype=np.int8),
        np.zeros(NUM_INPUTS, dtype=np.float32),
        aligned(np.zeros(hidden)),
        aligned(np.zeros(hidden)),
        np.zeros(5, dtype=np.float32),
        np.zeros(POSITION_SIZE, dtype=np.int8),
        np.zeros(5, dtype=np.float32),
        np.zeros(2 * NUM_NONLINEAR, dtype=np.float32),
        np.zeros(2 * NUM_NONLINEAR, dtype=np.float32),
        aligned(np.zeros(hidden)),
        np.zeros(POSITION_SIZE, dtype=np.int8),
        np.zeros(POSITION_SIZE, dtype=np.float32),
        np.zeros(MAX_TERMS, dtype=np.int64),
        np.zeros(MAX_TERMS, dtype=np.float32),
        *make_escapes_cache(),
        np.zeros(MAX_GROUPS, dtype=np.int64),
        np.zeros(MAX_GROUPS, dtype=np.int64),
        np.zeros((MAX_GROUPS, 5), dtype=np.float32),
        aligned(np.zeros(hidden + SIDE_OUTPUTS)),
        np.zeros((3, SIDE_HEADS, SIDE_BUCKETS), dtype=np.float32),
        np.zeros(2 * MAX_PLAYS, dtype=np.float64),  # LOOKAHEAD_ROWS: gathered rolls' plays
        aligned(np.zeros((len(NET_NAMES), hidden))),
        np.zeros(len(NET_NAMES), dtype=np.int64),
        np.full(3, -1, dtype=np.int64),
    )


def make_play_buffers() -> PlayBuffers:
    """Output arrays for one roll's plays (:class:`PlayBuffers`), as
    ``movegen._generate_plays`` fills them."""
    return PlayBuffers(
        play_pos=np.zeros((MAX_PLAYS, POSITION_SIZE), dtype=np.int8),
        play_moves=np.zeros((MAX_PLAYS, MOVE_SIZE), dtype=np.int8),
    )


def make_play_workspace(hidden: int = 512) -> PlayWorkspace:
    """Scratch for 0-ply play of whole games (fields in :class:`PlayWorkspace`)."""
    plays = make_play_buffers()
    return PlayWorkspace(
        make_workspace(), make_eval_workspace(hidden), plays.play_pos, plays.play_moves
    )


@kernel(inline="always")
def equity_terms(w, wg, wbg, lg, lbg, base):
    """``base`` plus the cubeless equity's terms of (win, win gammon, win backgammon, lose
    gammon, lose backgammon) values: 2 w + wg + wbg - lg - lbg (the coefficients of
    ``EQUITY_COEF``), summed in the order written here."""
    return 2.0 * w + base + wg - lg + wbg - lbg


@kernel(inline="always")
def equity(p):
    """Cubeless equity of five probabilities."""
    return equity_terms(p[0], p[1], p[2], p[3], p[4], -1.0)


#: d(cubeless equity) / d(probability), in the order of the five outputs: win, win gammon,
#: win backgammon, lose gammon, lose backgammon (:func:`equity` = p @ EQUITY_COEF - 1)
EQUITY_COEF = np.array([2.0, 1.0, 1.0, -1.0, -1.0], dtype=np.float32)


def equities(p):
    """Cubeless equities of the rows of ``p`` (numpy, [N, 5]): :func:`equity` row by row."""
    return np.asarray(p) @ EQUITY_COEF - 1.0


@kernel(inline="always")
def _flip_into(t, out):
    """``out`` = the probabilities ``t`` of the side on roll, seen by the other side."""
    out[0] = 1.0 - t[0]
    out[1] = t[3]
    out[2] = t[4]
    out[3] = t[1]
    out[4] = t[2]


@kernel(inline="always")
def _keep_group_best(t, i, best, beste, gvals, g):
    """Best-play bookkeeping of group ``g``: if play ``i`` (probabilities ``t``) beats
    ``beste``, copy ``t`` into ``gvals[g]``; returns the new (best index, best equity)."""
    e = equity(t)
    if e > beste:
        for k in range(5):
            gvals[g, k] = t[k]
        return i, e
    return best, beste


@kernel(inline="always")
def _group_of(i, g, start, best, beste, ends):
    """Before play ``i`` of the groups ``ends`` (``ews.group_ends``) of a grouped call: the
    group it belongs to (past empty groups, never asked for: their slots are left as they
    are) and the group's best so far, reset at its first play. Returns (g, best, beste)."""
    while ends[g] == start:
        g += 1
    if i == start:
        return g, i, -1e9
    return g, best, beste


@kernel(inline="always")
def _after_play(t, i, g, start, best, beste, ews):
    """After play ``i`` of group ``g`` valued ``t``: the group's best (:func:`_keep_group_best`)
    and, at its last play, the best's index into ``ews.group_best[g]`` and the next group.
    Returns (g, start, best, beste)."""
    best, beste = _keep_group_best(t, i, best, beste, ews.group_values, g)
    if i == ews.group_ends[g] - 1:
        ews.group_best[g] = best
        return g + 1, i + 1, best, beste
    return g, start, best, beste


@kernel(inline="always")
def _sanitize_order(out5):
    """Cumulative order: win >= win gammon >= win backgammon, likewise for the losses."""
    w = out5[0]
    if out5[1] > w:
        out5[1] = w
    if out5[2] > out5[1]:
        out5[2] = out5[1]
    if out5[3] > 1.0 - w:
        out5[3] = 1.0 - w
    if out5[4] > out5[3]:
        out5[4] = out5[3]


@kernel
def _sanitize(pos, out5):
    """Make the outputs consistent: cumulative order, impossible gammons and backgammons zero."""
    _sanitize_order(out5)
    mine = 0
    theirs = 0
    my_back = False  # player checker on the bar or in the opponent's home board
    opp_back = False
    for i in range(26):
        c = pos[i]
        if c > 0:
            mine += c
            if i >= 19:
                my_back = True
        elif c < 0:
            theirs -= c
            if i <= 6:
                opp_back = True
    if theirs < 15:  # the opponent has borne off: no gammon for us
        out5[1] = 0.0
        out5[2] = 0.0
    if mine < 15:
        out5[3] = 0.0
        out5[4] = 0.0
    if is_race(pos):
        if not opp_back:
            out5[2] = 0.0
        if not my_back:
            out5[4] = 0.0


@kernel
def one_ply_weight0(pos):
    """The weight of a play's 0-ply value in its 1-ply blend when ``pos`` is the position
    before the roll: ``constants.ONE_PLY_WEIGHTS0`` of its class, but 1 (the 0-ply value
    alone) in a race where the side on roll is in the one-sided database's range (a row of
    ``bearoff.side_row``) and the other side is not. There a roll's plays differ at 0-ply by
    the mover's own distributions, the database's, against the opponent's, the same in every
    play; at 1-ply the race net values the leaves, whose side on roll has a row
    (:func:`_side_net_values`), and its noise outweighs what the lookahead adds
    (docs/lab-notes/2026-12-07-race-one-ply.md)."""
    cls = net_class(pos)
    if cls == RACE and side_row(pos, 0, FULL_SIZE) >= 0 and side_row(pos, 1, FULL_SIZE) < 0:
        return 1.0
    return ONE_PLY_WEIGHTS0[cls]


@kernel(inline="always")
def _side_net_values(pos, ev, side):
    """Whether the side net of ``ev`` values the race ``pos`` (outside the databases): ``ev``
    has one and side ``side`` of ``pos`` (0 the player on roll, 1 the other) has no row of the
    one-sided database. Where the side on roll has one (home, against a side outside), the race
    net values the race: the side net ranks the plays of the side outside worse than the race
    net does, and every other race's plays better (docs/lab-notes/2026-12-07-race-side-hybrid.md).
    """
    if ev.side.w2.shape[0] == 0:
        return False
    nrows = ev.one_sided.shape[0]
    return nrows == 0 or side_row(pos, side, nrows) < 0


@kernel
def _evaluate_net(pos, ev, ews, out5):
    """0-ply probabilities of ``pos`` (player on roll, game not over) by the nets (a race by
    the side net where :func:`_side_net_values`)."""
    cls = net_class(pos)
    if cls == RACE and _side_net_values(pos, ev, 0):
        _side_race_probs(pos, ev.side, ev.one_sided, ews.side_u, ews.side_d, out5)
        _sanitize(pos, out5)
        return
    net = _nets(ev)[cls]
    tab = ev.tables[cls]
    if tab.shape[0] > 0:
        _fill_nonlinear(pos, ews.swapped, ews.feats)
        _preact_tables(pos, tab, net.b1, ews.feats, ews.h, ews.term_rows, ews.term_coefs)
        _finish(ews.h, net.w2, net.b2, out5, net.act)
    else:
        _fill_inputs(pos, ews.swapped, ews.x)
        _forward(ews.x, net.w1, net.b1, net.w2, net.b2, ews.h, out5, net.act)
    _sanitize(pos, out5)


@kernel
def _evaluate0(pos, ev, ews, out5):
    """0-ply probabilities of ``pos`` for the player on roll."""
    kind = database_kind(pos, ev.two_sided, ev.one_sided)
    if kind == TWO_SIDED_DB:
        two_sided_probs(pos, ev.two_sided, out5)
    elif kind == ONE_SIDED_DB:
        one_sided_race_probs(pos, ev.one_sided, out5)
    else:
        _evaluate_net(pos, ev, ews, out5)


@kernel(separate=True)
def _evaluate_after(child, ev, ews, out5):
    """Probabilities from the mover's view after a play reaching ``child`` (mover's view)."""
    r = game_result(child)
    if r > 0:
        out5[0] = 1.0
        out5[1] = 1.0 if r >= 2 else 0.0
        out5[2] = 1.0 if r >= 3 else 0.0
        out5[3] = 0.0
        out5[4] = 0.0
        return
    sw = ews.child_swapped
    swap_sides_into(child, sw)
    t = ews.probs5
    _evaluate0(sw, ev, ews, t)
    _flip_into(t, out5)


NO_DATABASE, TWO_SIDED_DB, ONE_SIDED_DB = 0, 1, 2
#: slots of a position (mover's view) where the mover's checkers are back (can still be
#: backgammoned; count for ``nn.is_mutual``): the opponent's home board (19..24) and the bar
#: (25)
_MOVER_BACK = np.int64(((1 << 26) - 1) ^ ((1 << 19) - 1))
#: where the opponent's are: the mover's home board (1..6) and the opponent's bar (0)
_OPPONENT_BACK = np.int64((1 << 7) - 1)
#: points of a position (mover's view) where two or more of the mover's checkers are an
#: anchor (count for ``nn.has_anchor``): the opponent's home board (19..24), not the bar
_MOVER_ANCHOR = np.int64(((1 << 25) - 1) ^ ((1 << 19) - 1))
#: where two or more of the opponent's are: the mover's home board (1..6), not the bar
_OPPONENT_ANCHOR = np.int64(((1 << 7) - 1) ^ 1)
#: the slot of a position (mover's view) where a checker of the mover's is on the bar (count
#: for ``nn.on_bar``): 25
_MOVER_BAR = np.int64(1 << 25)
#: where one of the opponent's is: 0
_OPPONENT_BAR = np.int64(1)


@kernel(inline="always")
def _database_after(sw, kind, two_sided, one_sided, o, out5):
    """Probabilities ``out5`` (mover's view) after a play whose position seen by the opponent
    ``sw`` the bear-off database ``kind`` (:func:`database_kind`) values; ``o`` scratch. As
    :func:`_evaluate_after` values it, without passing the evaluator to a call."""
    if kind == TWO_SIDED_DB:
        two_sided_probs(sw, two_sided, o)
    else:
        one_sided_race_probs(sw, one_sided, o)
    _flip_into(o, out5)


@kernel
def database_kind(pos, two_sided, one_sided):
    """Which bear-off database (``ev.two_sided``, ``ev.one_sided``) gives the 0-ply value of
    ``pos``:
    ``TWO_SIDED_DB`` (exact), ``ONE_SIDED_DB`` (the approximation), or ``NO_DATABASE`` (a net).

    Takes the two arrays, not ``ev``: a tuple of twenty arrays passed to a function that is not
    inlined is copied on every call (this test cost 0.12 us a child when it took ``ev``)."""
    if two_sided.shape[0] > 0 and is_two_sided(pos):
        return TWO_SIDED_DB
    if one_sided.shape[0] > 0 and one_sided_applies(pos, one_sided):
        return ONE_SIDED_DB
    return NO_DATABASE


@kernel(inline="always")
def _best_child(pos, n, out_pos, ev, ews, best5):
    """The 0-ply best of the ``n`` plays ``out_pos`` from ``pos``; returns its index and puts its
    probabilities (mover's view after the play) into ``best5``.

    With first-layer tables the children are evaluated incrementally:
    each child's pre-activation is the parent's (the position before the play, seen by the
    opponent) plus the table rows of the few points the play changed
    (``nn._preact_child``); children that leave contact for a race, end the game or reach a
    bear-off database go through :func:`_evaluate_after`. In contact one pass over a child
    finds what decides its path (checkers left, contact) and the checker counts that make
    impossible gammons zero; the mover's escapes are memoised by rearmost point for the roll.
    """
    # int64 arguments, not literals: a literal would compile the large kernels below once
    # more for each constant (numba specialises on literal integers)
    return _best_child_from(pos, n, out_pos, ev, ews, best5, np.int64(0))[0]


@kernel
def _best_child_from(pos, n, out_pos, ev, ews, best5, ready):
    """:func:`_best_child`; with ``ready`` (1) the parent's state in ``ews`` (its
    pre-activation, features and escapes memo) is already that of ``pos`` with this ``ev``,
    left by the call before (the 21 rolls of one position in a lookahead). Returns (best
    index, 1 when ``ews`` now holds the parent's state of ``pos``, else 0)."""
    ews.group_ends[0] = n
    ews.group_best[0] = 1  # (with n <= 1 the plain path values it anyway)
    ready = _best_in_groups(pos, n, out_pos, ev, ews, ready, np.int64(1), np.int64(1))
    for k in range(5):
        best5[k] = ews.group_values[0, k]
    return ews.group_best[0], ready


@kernel(inline="always")
def _best_in_groups(pos, n, out_pos, ev, ews, ready, groups, side):
    """The 0-ply best of each of ``groups`` groups of plays from ``pos``: group g is
    ``out_pos[ends[g - 1]:ends[g]]`` (``ends`` = ``ews.group_ends``, the first group from 0, the
    last ending at ``n``); its best's index into ``ews.group_best[g]``, its probabilities (mover's
    view) into ``ews.group_values[g]``. Returns ``ready`` as :func:`_best_child_from` does.

    Each group is valued as :func:`_best_child` values a roll's plays, bit for bit: a group
    that is a roll's only play (flagged by ``ews.group_best[g]`` != 0 on entry) on its own
    (:func:`_evaluate_after`), the others incrementally from the parent, a group of one
    picked play too. One call for the picked plays of all 21 rolls (variance reduction with a
    filter) saves the cost of 20 calls, each passing the evaluator's twenty arrays. A race is
    valued by the side net (:func:`_side_groups`) if ``side`` is 1 and :func:`_side_net_values`
    the children (the side on roll in each is the side not moving here, the same in all), else
    by the race net (variance reduction's picks: ``side`` 0)."""
    race = is_race(pos)  # then every child is a race too
    tab = ev.tables[RACE] if race else ev.tables[CONTACT]
    if race and side and _side_net_values(pos, ev, 1):
        return _side_groups(pos, n, out_pos, ev, ews, ready, groups)
    if tab.shape[0] == 0:  # dense inputs: every play on its own
        start = 0
        for g in range(groups):
            _plain_group(pos, start, ews.group_ends[g], out_pos, ev, ews, g)
            start = ews.group_ends[g]
        return ready
    if groups == 1 and n <= 1:  # leaves the parent's state alone
        _plain_group(pos, np.int64(0), n, out_pos, ev, ews, np.int64(0))
        return ready
    if race:
        _race_groups(pos, n, out_pos, ev, ews, ready, groups)
    else:
        _contact_groups(pos, n, out_pos, ev, ews, ready, groups)
    return 1


@kernel(separate=True)
def _plain_group(pos, start, end, out_pos, ev, ews, g):
    """Group ``g`` (plays ``start .. end - 1``) valued play by play on its own."""
    t = ews.child5
    best = start
    beste = -1e9
    for i in range(start, end):
        _evaluate_after(out_pos[i], ev, ews, t)
        best, beste = _keep_group_best(t, i, best, beste, ews.group_values, g)
    ews.group_best[g] = best


#: bit k set for each class k of ``CONTACT_CLASSES``
_STAGE_MASK = np.int64(sum(1 << k for k in CONTACT_CLASSES))


@kernel(inline="always")
def _is_stage(cls):
    """Whether ``cls`` (a class, 0 or more) is a class of a contact net of a stage of the
    game (``CONTACT_CLASSES``: neither side has borne off)."""
    return (_STAGE_MASK >> cls) & 1 != 0


@kernel(inline="always")
def _same_preact(ev, a, b):
    """Whether the nets of classes ``a`` and ``b`` give a position the same first-layer
    pre-activation: they share their tables and their hidden biases (a net that values
    another class's positions too)."""
    return (
        ev.tables[a].ctypes.data == ev.tables[b].ctypes.data
        and _nets(ev)[a].b1.ctypes.data == _nets(ev)[b].b1.ctypes.data
    )


@kernel(inline="always")
def _same_net(ev, a, b):
    """Whether the nets of classes ``a`` and ``b`` are one net: the same tables and the same
    arrays of both layers (a net tied to another)."""
    na = _nets(ev)[a]
    nb = _nets(ev)[b]
    return (
        _same_preact(ev, a, b)
        and na.w2.ctypes.data == nb.w2.ctypes.data
        and na.b2.ctypes.data == nb.b2.ctypes.data
    )


@kernel(inline="always")
def _stage_row(ev, k, cls):
    """Where the pre-activation by the net of contact stage class ``k`` of a parent of contact
    stage class ``cls`` is, as a class: ``cls`` (``ews.parent_h``) when ``k``'s net gives the
    parent class's, else the first contact stage class whose net gives the same as ``k``'s
    (its row of ``ews.stage_h``, shared by the classes whose nets give the same)."""
    if _same_preact(ev, k, cls):
        return np.int64(cls)
    for j in CONTACT_CLASSES:
        if j < k and _same_preact(ev, j, k):
            return np.int64(j)
    return np.int64(k)


@kernel(separate=True)
def _contact_groups(pos, n, out_pos, ev, ews, ready, groups):
    """:func:`_best_in_groups` in contact (tables): each child is valued by the net of its
    class with the opponent on roll (the children's view). Those of the parent's class seen
    by the opponent are evaluated incrementally from the parent's pre-activation
    (``ews.parent_h``, kept while ``ready``), and so are those of another contact stage
    (``CONTACT_CLASSES``: the pips crossing ``EARLY_PIPS``, the lead in the race changing
    hands, above ``EARLY_PIPS`` or below, a hit or the last checker back leaving making the
    position mutual or not, the mover making an anchor or breaking his last one making it of
    an anchor class or not, a hit putting a checker on the bar or the last checker on a bar
    entering making it of a bar class or not) when the parent is of one: from the parent's
    pre-activation by that class's net (as the parent's class when that net is the parent
    class's, tied to it; ``ews.parent_h`` when that net gives the parent class's
    pre-activation, else a row of ``ews.stage_h`` computed once a call when first needed,
    shared by the classes whose nets give the same).
    The others (a race, the game over, the mover's first checker borne off) on their own,
    and so is a group of one play."""
    # checkers on the board and pips before the play: was1 the mover's, was0 the opponent's
    was1, was0, my_pips, their_pips = _side_totals(pos)
    # the caller has ruled out a race; the parent's state is that of its swapped view, so its
    # class is the opponent's view of it (contact_class is not symmetric; is_mutual,
    # has_anchor and on_bar are)
    cls = contact_class(
        was0, was1, their_pips, my_pips, is_mutual(pos), has_anchor(pos), on_bar(pos)
    )
    stage = _is_stage(cls)
    tab = ev.tables[cls]
    ends = ews.group_ends
    g, start, best, beste = 0, 0, 0, -1e9  # the group, its first play, its best so far
    # for each contact stage class k, rows[k]: where the parent's pre-activation by k's net
    # is (_stage_row), found when a child of this call first reaches k (then bit k of
    # found; rows[k] is not read before); a row r of ews.stage_h is computed when first
    # needed in this call (then bit r of done)
    rows = ews.stage_rows
    found = np.int64(0)
    done = np.int64(0)
    # bit k: class k's net is the parent class's (tied weights), found with rows[k]
    same = np.int64(0)
    t = ews.child5
    net = _nets(ev)[cls]
    psw = ews.parent_swapped
    sw = ews.child_swapped
    o = ews.probs5
    memo = ews.escapes_memo
    if not ready:
        swap_sides_into(pos, psw)
        for i in range(26):
            memo[i] = -1.0
        _side_nonlinear(psw, ews.parent_feats, 0)
        _side_nonlinear_memo(pos, ews.parent_feats, NUM_NONLINEAR, memo)
        _preact_tables(
            psw, tab, net.b1, ews.parent_feats, ews.parent_h, ews.term_rows, ews.term_coefs
        )
    f = ews.feats
    opp = np.int64(0)  # the side not moving in the race children (_race_child)
    for i in range(n):
        g, best, beste = _group_of(i, g, start, best, beste, ends)
        child = out_pos[i]
        # a roll's only play: on its own
        alone = ends[g] - start == 1 and ews.group_best[g] != 0
        # the swapped view's masks are these reversed (slot k is slot 25 - k there)
        mine, theirs, mp, mm, mb, op, om, ob, ch = _child_masks(child, pos)
        their_back = 25 if op == 0 else _popcount((op & -op) - 1)
        # the child's class, the opponent on roll (their checkers on the board are was0)
        ccls = -1  # on its own: alone, the game over or a race
        if not (alone or mine == 0 or _highest_bit(mp) < their_back):
            if was0 < 15:  # the opponent has borne off
                ccls = CRASHED
            elif mine < 15:  # only the mover has
                ccls = HOLDING
            else:
                # both sides' pips after the play (a branch-free pass that vectorises)
                _, _, m_pips, t_pips = _side_totals(child)
                mutual = (mp & _MOVER_BACK) != 0 and (op & _OPPONENT_BACK) != 0
                anchor = (mm & _MOVER_ANCHOR) != 0 or (om & _OPPONENT_ANCHOR) != 0
                bar = (mp & _MOVER_BAR) != 0 or (op & _OPPONENT_BAR) != 0
                ccls = contact_class(theirs, mine, t_pips, m_pips, mutual, anchor, bar)
        if ccls < 0 and not alone and mine > 0:  # a race
            opp = _race_child(child, ev, ews, t, opp)
        elif ccls < 0 or (ccls != cls and not (stage and _is_stage(ccls))):
            _evaluate_after(child, ev, ews, t)
        else:
            # the opponent, on roll after the play (features 0..4, the swapped view)
            s_made = _reverse26(om)
            s_blots = _reverse26(ob)
            rear, run, fb, lb = _scan_masks(
                _reverse26(op) & POINTS, s_made & POINTS, s_blots & POINTS, child[0] < 0
            )
            esc = 36.0
            if rear > 0:
                key, slot = _escapes_slot(rear, mm)
                if ews.escapes_keys[slot] == key:
                    esc = ews.escapes_values[slot]
                else:
                    swap_sides_into(child, sw)
                    esc = _escapes(sw, rear)
                    ews.escapes_keys[slot] = key
                    ews.escapes_values[slot] = esc
            shots, loss = _shots_and_loss_masks(
                s_made & LOW25, _reverse26(mp) & LOW25, s_blots & LOW25, child[25] > 1, fb, lb
            )
            _write_nonlinear(f, 0, esc, rear, run, shots, loss)
            # the mover (features 5..9), escapes memoised by rearmost point for the roll
            rear, run, fb, lb = _scan_masks(mp & POINTS, mm & POINTS, mb & POINTS, child[25] > 0)
            esc = _memo_escapes(child, rear, memo)
            shots, loss = _shots_and_loss_masks(
                mm & LOW25, op & LOW25, mb & LOW25, child[0] < -1, fb, lb
            )
            _write_nonlinear(f, NUM_NONLINEAR, esc, rear, run, shots, loss)
            if ccls != cls and not (same >> ccls) & 1:
                if not (found >> ccls) & 1:  # the first child of class ccls in this call
                    rows[ccls] = _stage_row(ev, ccls, cls)
                    found |= np.int64(1) << ccls
                    if _same_net(ev, ccls, cls):
                        same |= np.int64(1) << ccls
            if ccls == cls or (same >> ccls) & 1:  # the parent class's net
                ph, ctab, cnet = ews.parent_h, tab, net
            else:  # another contact stage's net, from the parent's pre-activation by it
                ctab, cnet = ev.tables[ccls], _nets(ev)[ccls]
                r = rows[ccls]
                if r == cls:
                    ph = ews.parent_h
                else:
                    ph = ews.stage_h[r]
                    bit = np.int64(1) << r
                    if not done & bit:
                        _preact_tables(
                            psw, ctab, cnet.b1, ews.parent_feats, ph, ews.term_rows, ews.term_coefs
                        )
                        done |= bit
            _incremental_child(child, psw, ch, mine, theirs, was0, was1, ctab, cnet, ph, ews, o)
            _flip_into(o, t)
        g, start, best, beste = _after_play(t, i, g, start, best, beste, ews)


@kernel(inline="always")
def _race_child(child, ev, ews, t, opp):
    """``t`` (mover's view): a contact parent's play reaching the race ``child`` (game not
    over), valued as :func:`_evaluate_after` values it, bit for bit. The side not moving is
    the same in every race child of a parent (a hit leaves contact), so where the side net
    values these races its distributions are found once, by the first (``opp`` 0 on the
    first race child; returned: 1 the side net values them, its distributions in
    ``ews.side_d[2]``; 2 it does not)."""
    sw = ews.child_swapped
    o = ews.probs5
    d = ews.side_d
    swap_sides_into(child, sw)
    kind = database_kind(sw, ev.two_sided, ev.one_sided)
    if kind != NO_DATABASE:
        _database_after(sw, kind, ev.two_sided, ev.one_sided, o, t)
        return opp
    if opp == 0:
        opp = 1 if _side_net_values(sw, ev, 0) else 2
        if opp == 1:  # the side on roll in the children has no row (_side_net_values)
            _side_dists_memo(sw, 0, ev.side, ews.side_u, ews.side_memo, d[2])
    if opp == 2:
        _evaluate_after(child, ev, ews, t)
        return opp
    nrows = ev.one_sided.shape[0]
    r = side_row(sw, 1, nrows) if nrows > 0 else -1
    if r >= 0:
        _row_dists(ev.one_sided, r, d[1])
    else:
        _side_dists(sw, 1, ev.side, ews.side_u, d[1])
    _race5(d[2], d[1], o)
    _sanitize(sw, o)
    _flip_into(o, t)
    return opp


@kernel(inline="always")
def _child_masks(child, pos):
    """One pass over a play's result ``child`` from ``pos`` (both mover's view), no branch per
    slot: (the mover's checkers on the board, the opponent's, then bit masks by slot of the
    mover's checkers, his made points, his blots, the same three of the opponent's, and the
    slots the play changed)."""
    mine = 0
    theirs = 0
    mp = np.int64(0)
    mm = np.int64(0)
    mb = np.int64(0)
    op = np.int64(0)
    om = np.int64(0)
    ob = np.int64(0)
    ch = np.int64(0)
    for k in range(26):
        c = np.int64(child[k])
        mine += max(c, 0)
        theirs += max(-c, 0)
        mp |= np.int64(c > 0) << k
        mm |= np.int64(c >= 2) << k
        mb |= np.int64(c == 1) << k
        op |= np.int64(c < 0) << k
        om |= np.int64(c <= -2) << k
        ob |= np.int64(c == -1) << k
        ch |= np.int64(c != pos[k]) << k
    return mine, theirs, mp, mm, mb, op, om, ob, ch


@kernel(inline="always")
def _incremental_child(child, psw, changed, mine, theirs, was0, was1, tab, net, ph, ews, o):
    """The net's outputs ``o`` for the opponent on roll after a play reaching ``child``
    (mover's view) from the parent whose state ``ews`` holds (``psw``, its swapped view;
    ``ph``, its pre-activation by ``net``): the pre-activation is the parent's plus the rows
    of what changed (``changed``, a bit mask
    of the mover's slots; the checkers on the board, ``mine`` and ``theirs`` after the play,
    ``was0`` and ``was1`` before it; the features in ``ews.feats``), in the order of
    ``nn._preact_child``; the outputs in cumulative order, with no gammon for a side whose
    opponent has borne off."""
    idx = ews.term_rows
    coef = ews.term_coefs
    m = _child_slot_terms(child, psw, _reverse26(changed), idx, coef)
    _preact_rest(
        m,
        theirs,
        mine,
        was0,
        was1,
        ph,
        tab,
        ews.feats,
        ews.parent_feats,
        ews.h,
        idx,
        coef,
    )
    _finish(ews.h, net.w2, net.b2, o, net.act)
    _sanitize_order(o)
    if mine < 15:  # the mover has borne off: no gammon for the opponent
        o[1] = 0.0
        o[2] = 0.0
    if theirs < 15:
        o[3] = 0.0
        o[4] = 0.0


@kernel
def _child_slot_terms(child, psw, changed, idx, coef):
    """The first-layer terms (into ``idx``, ``coef``; returns how many) of the slots
    ``changed`` (a bit mask in the swapped view) of a play from the position ``psw`` (swapped
    view) to ``child`` (mover's view), in ascending slot order as ``nn._preact_child`` adds
    them. (A kernel of its own: inlined into the contact loop, numba 0.68 compiled it wrong
    when that kernel's ``ready`` was not a constant.)"""
    n = 0
    while changed != 0:
        low = changed & -changed
        changed ^= low
        i = _popcount(low - 1)
        n = _point_terms(idx, coef, n, i, psw[i], -child[25 - i])
    return n


@kernel(separate=True)
def _race_groups(pos, n, out_pos, ev, ews, ready, groups):
    """:func:`_best_in_groups` in a race: the race net's tables hold every input, so a child
    is the parent's pre-activation plus its changed rows, unless a database values it or its
    group is one play."""
    ends = ews.group_ends
    g, start, best, beste = 0, 0, 0, -1e9  # the group, its first play, its best so far
    t = ews.child5
    sw = ews.child_swapped
    o = ews.probs5
    was0, was1 = _race_parent(pos, ev, ews, ready)
    databases = ev.two_sided.shape[0] > 0 or ev.one_sided.shape[0] > 0
    for i in range(n):
        g, best, beste = _group_of(i, g, start, best, beste, ends)
        child = out_pos[i]
        # what _sanitize and _preact_child would find in three passes (the made points and
        # blots are not used: LLVM drops them)
        mine, theirs, mp, _, _, op, _, _, ch = _child_masks(child, pos)
        # a roll's only play (valued on its own), or the mover has won
        alone = (ends[g] - start == 1 and ews.group_best[g] != 0) or mine == 0
        kind = NO_DATABASE
        if not alone and databases:
            swap_sides_into(child, sw)
            kind = database_kind(sw, ev.two_sided, ev.one_sided)
        if alone:
            _evaluate_after(child, ev, ews, t)
        elif kind != NO_DATABASE:
            _database_after(sw, kind, ev.two_sided, ev.one_sided, o, t)
        else:
            _race_net_child(child, mine, theirs, mp, op, ch, was0, was1, ev, ews, o, t)
        g, start, best, beste = _after_play(t, i, g, start, best, beste, ews)


@kernel(inline="always")
def _race_parent(pos, ev, ews, ready):
    """The parent's state for the race net's incremental children (its swapped view and, unless
    ``ready``, its pre-activation); returns the checkers on the board before the play, the
    opponent's and the mover's."""
    f = ews.feats
    for i in range(2 * NUM_NONLINEAR):
        f[i] = 0.0
    if not ready:
        for i in range(2 * NUM_NONLINEAR):
            ews.parent_feats[i] = 0.0
        swap_sides_into(pos, ews.parent_swapped)
        _preact_tables(
            ews.parent_swapped,
            ev.tables[RACE],
            ev.race.b1,
            ews.parent_feats,
            ews.parent_h,
            ews.term_rows,
            ews.term_coefs,
        )
    off_mover, off_opponent = checkers_off(pos)
    return 15 - off_opponent, 15 - off_mover


@kernel(inline="always")
def _race_net_child(child, mine, theirs, mp, op, ch, was0, was1, ev, ews, o, t):
    """The race net's probabilities ``t`` (mover's view) after a play reaching ``child``,
    incrementally from the parent's state (:func:`_race_parent`), given what
    :func:`_child_masks` finds in it (checkers on the board, the mover's and the opponent's
    checker masks, the slots the play changed); ``o`` scratch."""
    tab = ev.tables[RACE]
    _incremental_child(
        child, ews.parent_swapped, ch, mine, theirs, was0, was1, tab, ev.race, ews.parent_h, ews, o
    )
    # the rest of _sanitize in a race, from the masks
    if (mp & _MOVER_BACK) == 0:  # no checker of the mover's left in their home board
        o[2] = 0.0
    if (op & _OPPONENT_BACK) == 0:
        o[4] = 0.0
    _flip_into(o, t)


@kernel(separate=True)
def _side_groups(pos, n, out_pos, ev, ews, ready, groups):
    """:func:`_best_in_groups` in a race valued by the side net: the race net ranks each
    group's plays (incrementally, as :func:`_race_groups` does; a play a database values, or
    that wins, by that value), and the side net values the best ``RACE_SIDE_PLAYS`` within
    ``RACE_SIDE_MARGIN`` of the group's best; the group's best is the best of those. The side
    not moving is the same in every child and has no row of the one-sided database (else
    :func:`_side_net_values` leaves the roll to the race net), so its distributions are the
    side net's, found once (``ews.side_d[2]``, kept for the next call on the same side: the
    other rolls of a position); a play a database values, that wins, or
    that is its roll's only play is valued as :func:`_evaluate_after` values it, and so is
    every play the side net values, bit for bit."""
    ends = ews.group_ends
    t = ews.child5
    o = ews.probs5
    sw = ews.child_swapped
    d = ews.side_d
    eq = ews.side_eq
    one = ev.one_sided
    nrows = one.shape[0]
    databases = ev.two_sided.shape[0] > 0 or nrows > 0
    has_net = ev.tables[RACE].shape[0] > 0
    if has_net:
        was0, was1 = _race_parent(pos, ev, ews, ready)
    _side_dists_memo(pos, 1, ev.side, ews.side_u, ews.side_memo, d[2])
    start = 0
    for g in range(groups):
        end = ends[g]
        if end == start:
            continue
        single = end - start == 1 and ews.group_best[g] != 0
        # the ranking: the race net's values, a database's or a won game's own (the only
        # play of a roll, or any play without the race net's tables, is always kept)
        top = -1e9
        for i in range(start, end):
            child = out_pos[i]
            if single or not has_net:
                eq[i] = 1e9
                continue
            if game_result(child) > 0:
                _evaluate_after(child, ev, ews, t)
            else:
                kind = NO_DATABASE
                if databases:
                    swap_sides_into(child, sw)
                    kind = database_kind(sw, ev.two_sided, one)
                if kind != NO_DATABASE:
                    _database_after(sw, kind, ev.two_sided, one, o, t)
                else:
                    mine, theirs, mp, _, _, op, _, _, ch = _child_masks(child, pos)
                    _race_net_child(child, mine, theirs, mp, op, ch, was0, was1, ev, ews, o, t)
            eq[i] = equity(t)
            top = max(top, eq[i])
        best = start
        beste = -1e9
        # without the race net's tables (training's dense evaluation) the side net values all
        for _k in range(RACE_SIDE_PLAYS if has_net else end - start):
            pick = -1
            pe = top - RACE_SIDE_MARGIN
            for i in range(start, end):
                if eq[i] >= pe and (pick < 0 or eq[i] > eq[pick]):
                    pick = i
            if pick < 0:
                break
            eq[pick] = -1e10  # taken
            child = out_pos[pick]
            alone = single or game_result(child) > 0
            kind = NO_DATABASE
            if not alone and databases:
                swap_sides_into(child, sw)
                kind = database_kind(sw, ev.two_sided, one)
            if alone:
                _evaluate_after(child, ev, ews, t)
            elif kind != NO_DATABASE:
                _database_after(sw, kind, ev.two_sided, one, o, t)
            else:
                r = side_row(child, 0, nrows) if nrows > 0 else -1
                if r >= 0:
                    _row_dists(one, r, d[1])
                else:
                    _side_dists(child, 0, ev.side, ews.side_u, d[1])
                _race5(d[2], d[1], o)
                swap_sides_into(child, sw)
                _sanitize(sw, o)
                _flip_into(o, t)
            best, beste = _keep_group_best(t, pick, best, beste, ews.group_values, g)
        ews.group_best[g] = best
        start = end
    return 1 if has_net else ready


@kernel
def _best_play0(pos, d1, d2, ev, mws, ews, out_pos, out_moves, best5):
    """Generate the plays of (d1, d2), evaluate each at 0-ply; return (best index, n).

    ``best5`` receives the best play's probabilities (mover's view after the play).
    """
    n = _generate_plays(pos, d1, d2, mws, out_pos, out_moves)
    return _best_child(pos, n, out_pos, ev, ews, best5), n


def evaluate0(pos, ev):
    """Python wrapper: 0-ply probabilities (float32[5]) of ``pos`` for the player on roll."""
    ews = make_eval_workspace(hidden_size(ev))
    out = np.zeros(5, dtype=np.float32)
    _evaluate0(np.ascontiguousarray(pos, dtype=np.int8), ev, ews, out)
    return out


# --------------------------------------------------------------------------------------------
# n-ply lookahead (GNU Backgammon's counting: 1-ply averages, over the 21 rolls, the 0-ply value
# of the play chosen for each roll). Inside the lookahead the play for each roll is chosen at
# 0-ply, as GNU Backgammon does, and its resulting position is evaluated at (n - 1)-ply.
# --------------------------------------------------------------------------------------------

MAX_PLY = 3


#: rows of a lookahead level's play buffer: the plays of as many rolls as fit with room for one
#: more roll's largest possible count (MAX_PLAYS); midgame positions have a few hundred plays
#: over the 21 rolls, so one grouped call values them all
LOOKAHEAD_ROWS = 2 * MAX_PLAYS


def make_lookahead_workspace(
    hidden: int = 512, filter_net=None, prune: int = 0
) -> LookaheadWorkspace:
    """Scratch of the lookahead, L = ``MAX_PLY`` + 2 levels (:class:`LookaheadWorkspace`).

    ``prune`` k > 0: inside the lookahead, each roll's play is the 0-ply best of the ``k``
    plays ``filter_net`` (``weights.load_filter_net``) ranks highest, as GNU Backgammon's
    pruning nets choose; 0: of every play."""
    prune = int(prune)
    if not 0 <= prune <= MAX_FILTER_K:
        raise ValueError(f"prune must be 0 to {MAX_FILTER_K}, got {prune}")
    if prune and filter_net is None:
        raise ValueError("prune > 0 needs a filter net")
    fn = as_filter_net(filter_net)
    levels = MAX_PLY + 2  # one spare level for _evaluate_after_plied
    return LookaheadWorkspace(
        make_workspace(),
        make_eval_workspace(hidden),
        # LOOKAHEAD_ROWS plays a level: the 21 rolls' plays gathered for one grouped call
        np.zeros((levels, LOOKAHEAD_ROWS, POSITION_SIZE), dtype=np.int8),
        np.zeros((levels, LOOKAHEAD_ROWS, MOVE_SIZE), dtype=np.int8),
        np.zeros((levels, POSITION_SIZE), dtype=np.int8),
        np.zeros((levels, 5), dtype=np.float64),
        np.zeros((levels, 5), dtype=np.float32),
        fn,
        make_filter_scratch(fn.b1.shape[0]),
        np.array([prune], dtype=np.int64),
    )


@kernel
def _pruned_plays(pos, d1, d2, lws, buf, mv):
    """The plays of (d1, d2) the lookahead chooses among when it prunes (``lws.prune`` k > 0)
    into ``buf`` (their steps in ``mv``, both with room for a roll's every play): the filter
    net's best k, best first, or every play when there are no more. Returns (how many, how
    many the roll has). ``lws.filter_scratch.parent_h`` must hold the filter net's
    pre-activation of ``pos`` (``filter_net.filter_parent``)."""
    fw1, fb1, fw2 = lws.filter_net
    fs = lws.filter_scratch
    k = lws.prune[0]
    n = _generate_scored_plays(pos, d1, d2, lws.moves, buf, mv, fw1, fw2, fs)
    if n <= k:
        return n, n
    m = filter_keep(pos, buf, mv, n, k, fw1, fw2, fs)
    for j in range(m):
        _copy_position(buf, j, fs.picked, j)
    return m, n


@kernel
def _pruned_best(pos, d1, d2, ev, lws, level, out5, ready):
    """The 0-ply best of the plays of (d1, d2) that :func:`_pruned_plays` keeps, in
    ``lws.play_pos[level]``: returns (its index there, ``ready``) and puts its value (mover's
    view after the play) into ``out5``, as ``_best_child_from`` does for every play."""
    fn = lws.filter_net
    filter_parent(pos, fn.w1, fn.b1, lws.filter_scratch)
    buf = lws.play_pos[level]
    m, n = _pruned_plays(pos, d1, d2, lws, buf, lws.play_moves[level])
    return _best_child_from(pos, m, buf, ev, lws.eval, out5, ready)


@kernel
def _value_rolls_pruned(pos, ev, lws, buf, mv, a):
    """Add to ``a`` the sum over the 36 rolls of the 0-ply value of the roll's best play
    among those :func:`_pruned_plays` keeps (each roll's value is the mover's view after
    the play); the kept plays of the 21 rolls are gathered in ``buf`` (steps in ``mv``) and
    valued in one grouped call (``_best_in_groups``)."""
    fn = lws.filter_net
    filter_parent(pos, fn.w1, fn.b1, lws.filter_scratch)
    ews = lws.eval
    ends = ews.group_ends
    single = ews.group_best
    total = 0
    for r in range(21):
        m, n = _pruned_plays(pos, ROLLS[r, 0], ROLLS[r, 1], lws, buf[total:], mv[total:])
        total += m
        ends[r] = total
        single[r] = 1 if n == 1 else 0  # a roll's only play is valued on its own
    _best_in_groups(pos, total, buf, ev, ews, np.int64(0), np.int64(21), np.int64(1))
    gv = ews.group_values
    for g in range(21):
        w = ROLL_WEIGHTS[g]
        for k in range(5):
            a[k] += w * gv[g, k]


@kernel
def _roll_value(pos, d1, d2, ev, lws, level, out5):
    """Pick the 0-ply best play of (d1, d2) at this level (of the plays the filter net ranks
    highest when the lookahead prunes: :func:`_pruned_plays`); leave the swapped result in
    ``lws.swapped[level]`` and return 0, or return the game result (1..3) when the play
    wins."""
    if lws.prune[0] > 0:
        best = _pruned_best(pos, d1, d2, ev, lws, level, out5, np.int64(0))[0]
    else:
        best = _best_play0(
            pos, d1, d2, ev, lws.moves, lws.eval, lws.play_pos[level], lws.play_moves[level], out5
        )[0]
    child = lws.play_pos[level, best]
    r = game_result(child)
    if r == 0:
        swap_sides_into(child, lws.swapped[level])
    return r


@kernel
def _add_flipped(acc, w, t):
    """acc += w * (the outcome ``t`` of the opponent on roll, seen from the mover)."""
    acc[0] += w * (1.0 - t[0])
    acc[1] += w * t[3]
    acc[2] += w * t[4]
    acc[3] += w * t[1]
    acc[4] += w * t[2]


@kernel
def _add_result(acc, w, r):
    acc[0] += w
    if r >= 2:
        acc[1] += w
    if r >= 3:
        acc[2] += w


@kernel
def _value_gathered(pos, total, groups, first, ra, buf, ev, ews, ready, a, nxt, f5):
    """Value the gathered groups (rolls ``first .. first + groups - 1``, plays
    ``buf[:total]``) in one call and add their weighted values to ``a``; if the roll ``ra``
    is among them, its best play into ``nxt`` and its value into ``f5``. Returns ``ready``."""
    ready = _best_in_groups(pos, total, buf, ev, ews, ready, groups, np.int64(1))
    gv = ews.group_values
    for g in range(groups):
        w = ROLL_WEIGHTS[first + g]
        for k in range(5):
            a[k] += w * gv[g, k]
    if first <= ra < first + groups:
        g = ra - first
        child = buf[ews.group_best[g]]
        for k in range(5):
            f5[k] = gv[g, k]
        for i in range(26):
            nxt[i] = child[i]
    return ready


@kernel
def _value_rolls(pos, ra, ev, mws, ews, buf, mv, a, nxt, f5):
    """Add to ``a`` the sum over the 36 rolls of the roll's best play's 0-ply value (each
    roll's value is the mover's view after the play); for the roll ``ra`` (its index among
    the 21, d1 = 1..6, d2 = 1..d1; -1 for none) its best play into ``nxt`` and its value into
    ``f5``. The plays of the 21 rolls are gathered in ``buf``, ``mv`` and valued in grouped
    calls (``_best_in_groups``: each roll's group exactly as a call of its own would value
    it), flushed when the next roll's plays might not fit."""
    cap = buf.shape[0] - MAX_PLAYS  # room for one more roll's plays whatever it has
    ends = ews.group_ends
    single = ews.group_best
    ready = np.int64(0)  # the parent's state in ews is computed once for the 21 rolls
    total = 0
    g = 0
    first = 0
    for r in range(21):
        if total > cap:
            ready = _value_gathered(
                pos, total, np.int64(g), first, ra, buf, ev, ews, ready, a, nxt, f5
            )
            total = 0
            g = 0
            first = r
        n = _generate_plays(pos, ROLLS[r, 0], ROLLS[r, 1], mws, buf[total:], mv[total:])
        total += n
        ends[g] = total
        single[g] = 1 if n == 1 else 0  # a roll's only play is valued on its own
        g += 1
    _value_gathered(pos, total, np.int64(g), first, ra, buf, ev, ews, ready, a, nxt, f5)


@kernel(separate=True)
def _eval_ply1(pos, ev, lws, level, out5):
    """1-ply: the mean over the 36 rolls of the roll's best play's 0-ply value (the player on
    roll's view; each roll's value is the mover's), by :func:`_value_rolls`."""
    a = lws.acc[level]
    for k in range(5):
        a[k] = 0.0
    if lws.prune[0] > 0:
        _value_rolls_pruned(pos, ev, lws, lws.play_pos[level], lws.play_moves[level], a)
    else:
        # no roll's play is taken (ra = -1): this level's sw and t5 are never written
        _value_rolls(
            pos,
            np.int64(-1),
            ev,
            lws.moves,
            lws.eval,
            lws.play_pos[level],
            lws.play_moves[level],
            a,
            lws.swapped[level],
            lws.probs5[level],
        )
    for k in range(5):
        out5[k] = a[k] / 36.0


@kernel(inline="always")
def _add_roll(pos, r, ev, lws, level, a, t5):
    """Pick the 0-ply best play of roll ``r`` (of the 21) at this level; a play that wins adds
    its result to ``a`` with the roll's weight and returns False; otherwise returns True, the
    play's position (opponent on roll) in ``lws.swapped[level]``, for the caller to value it
    into ``t5`` and add it with :func:`_add_flipped`. Inlined: a kernel of its own would
    optimise :func:`_roll_value`'s code once more on a first start."""
    res = _roll_value(pos, ROLLS[r, 0], ROLLS[r, 1], ev, lws, level, t5)
    if res > 0:
        _add_result(a, ROLL_WEIGHTS[r], res)
        return False
    return True


@kernel(separate=True)
def _eval_deep(pos, depth, ev, lws, out5):
    """2-ply (``depth`` 2) or 3-ply (3): the mean over the 36 rolls of the roll's 0-ply best
    play valued one ply less deep, down to :func:`_eval_ply1`. Level ``l`` of the lookahead
    workspace holds the sums and the chosen play of the tree's ``l``-th ply. (Loops, not a
    recursive kernel: numba 0.68 loads a cached caller of a recursive kernel with a null
    call.)"""
    a = lws.acc[0]
    t5 = lws.probs5[0]
    for k in range(5):
        a[k] = 0.0
    for r in range(21):
        if not _add_roll(pos, r, ev, lws, 0, a, t5):
            continue
        child = lws.swapped[0]
        if depth == 2:
            _eval_ply1(child, ev, lws, 1, t5)
        else:
            a1 = lws.acc[1]
            t1 = lws.probs5[1]
            for k in range(5):
                a1[k] = 0.0
            for r1 in range(21):
                if _add_roll(child, r1, ev, lws, 1, a1, t1):
                    _eval_ply1(lws.swapped[1], ev, lws, 2, t1)
                    _add_flipped(a1, ROLL_WEIGHTS[r1], t1)
            for k in range(5):
                t5[k] = a1[k] / 36.0
        _add_flipped(a, ROLL_WEIGHTS[r], t5)
    for k in range(5):
        out5[k] = a[k] / 36.0


@kernel(separate=True)
def _evaluate_plied(pos, ply, ev, lws, out5):
    """Probabilities of ``pos`` (player on roll, before rolling) at ``ply`` (0..3)."""
    if ply <= 0:
        _evaluate0(pos, ev, lws.eval, out5)
    elif ply == 1:
        _eval_ply1(pos, ev, lws, 0, out5)
    else:
        _eval_deep(pos, min(ply, 3), ev, lws, out5)


@kernel(separate=True)
def _evaluate_after_plied(child, ply, ev, lws, out5):
    """A play's value (mover's view) with its resulting position evaluated at ``ply``.

    Uses the lookahead workspace's top level for the swapped position (no allocation)."""
    r = game_result(child)
    if r > 0:
        for k in range(5):
            out5[k] = 0.0
        out5[0] = 1.0
        if r >= 2:
            out5[1] = 1.0
        if r >= 3:
            out5[2] = 1.0
        return
    # the deepest lookahead level is never used by ply <= MAX_PLY
    top = lws.swapped.shape[0] - 1
    sw = lws.swapped[top]
    swap_sides_into(child, sw)
    t = lws.probs5[top]
    _evaluate_plied(sw, ply, ev, lws, t)
    out5[0] = 1.0 - t[0]
    out5[1] = t[3]
    out5[2] = t[4]
    out5[3] = t[1]
    out5[4] = t[2]
