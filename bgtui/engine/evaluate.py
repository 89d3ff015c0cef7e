"""0-ply evaluation and best-play selection.

``ev`` (the evaluator context) is a tuple ``(contact_net, race_net, two_sided_win,
one_sided_dist, (contact_tables, race_tables, crashed_tables), crashed_net)``: the nets (see
``nn``; :func:`nn.net_class` picks one, and ``_nets(ev)[cls]`` / ``ev[4][cls]`` are its weights
and tables), the bear-off databases (see ``bearoff``; arrays of size 0 switch a database off)
and the nets' first-layer tables (``nn.make_tables``; size 0 means "evaluate with dense inputs",
as training does while it changes the weights). Where both sides are home with at most 6 checkers the two-sided
database's exact cubeless value is used; in other races that the one-sided database covers
(home-board bear-offs, and with the extended database also a last checker on each side's point
7..18 or a side of at most 6 checkers anywhere, see ``bearoff.side_row``) the one-sided
approximation; elsewhere the race or contact net.
``ews`` is an evaluation workspace from :func:`make_eval_workspace`.
"""

import numpy as np

from bgtui.engine._jit import kernel
from bgtui.engine.bearoff import is_two_sided, one_sided_applies, one_sided_race_probs, two_sided_probs
from bgtui.engine.constants import MAX_PLAYS, MOVE_SIZE, POSITION_SIZE
from bgtui.engine.inputs import (LOW25, NUM_INPUTS, NUM_NONLINEAR, POINTS, _escapes,
                                 _escapes_slot, _fill_inputs, _fill_nonlinear, _highest_bit,
                                 _memo_escapes, _popcount, _reverse26, _scan_masks,
                                 _shots_and_loss_masks, _side_nonlinear, _side_nonlinear_memo,
                                 _write_nonlinear, make_escapes_cache)
from bgtui.engine.movegen import _generate_plays, make_workspace
from bgtui.engine.nn import (CRASHED, MAX_TERMS, _finish, _forward, _point_terms, _preact_rest,
                             _preact_tables, aligned, net_class)
from bgtui.engine.position import checkers_off, game_result, is_race


def hidden_size(ev) -> int:
    """The largest hidden layer of the nets in an evaluator context (for workspaces)."""
    return max(ev[0][1].shape[0], ev[1][1].shape[0], ev[5][1].shape[0])


@kernel(_nrt=True)
def _nets(ev):
    """The nets of ``ev`` in ``net_class`` order, a tuple indexable by a run-time class."""
    return (ev[0], ev[1], ev[5])


#: most groups of plays one call of :func:`_best_in_groups` ranks (the 21 rolls of a position)
MAX_GROUPS = 32


def make_eval_workspace(hidden: int = 512):
    """Scratch for evaluation: (swapped, x, h, dh, tmp5, child_swapped, target5, feats,
    parent_feats, parent_h, parent_swapped, escapes_memo, term_rows, term_coefs,
    escapes_cache_keys, escapes_cache_values, group ends, group bests, group values)."""
    return (
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
    )


def make_play_buffers():
    return (np.zeros((MAX_PLAYS, POSITION_SIZE), dtype=np.int8),
            np.zeros((MAX_PLAYS, MOVE_SIZE), dtype=np.int8))


@kernel(inline="always")
def equity(p):
    """Cubeless equity of five probabilities."""
    return 2.0 * p[0] - 1.0 + p[1] - p[3] + p[2] - p[4]


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
def _evaluate_net(pos, ev, ews, out5):
    """0-ply probabilities of ``pos`` (player on roll, game not over) by the nets."""
    cls = net_class(pos)
    net = _nets(ev)[cls]
    tab = ev[4][cls]
    if tab.shape[0] > 0:
        _fill_nonlinear(pos, ews[0], ews[7])
        _preact_tables(pos, tab, net[1], ews[7], ews[2], ews[12], ews[13])
        _finish(ews[2], net[2], net[3], out5)
    else:
        _fill_inputs(pos, ews[0], ews[1])
        _forward(ews[1], net[0], net[1], net[2], net[3], ews[2], out5)
    _sanitize(pos, out5)


@kernel
def _evaluate0(pos, ev, ews, out5):
    """0-ply probabilities of ``pos`` for the player on roll."""
    kind = database_kind(pos, ev[2], ev[3])
    if kind == TWO_SIDED_DB:
        two_sided_probs(pos, ev[2], out5)
    elif kind == ONE_SIDED_DB:
        one_sided_race_probs(pos, ev[3], out5)
    else:
        _evaluate_net(pos, ev, ews, out5)


@kernel
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
    sw = ews[5]
    for i in range(26):
        sw[i] = -child[25 - i]
    t = ews[4]
    _evaluate0(sw, ev, ews, t)
    _flip_into(t, out5)


NO_DATABASE, TWO_SIDED_DB, ONE_SIDED_DB = 0, 1, 2
#: slots of a position (mover's view) where the mover's checkers can still be backgammoned:
#: the opponent's home board (19..24) and the bar (25)
_MOVER_BACK = np.int64(((1 << 26) - 1) ^ ((1 << 19) - 1))
#: where the opponent's can: the mover's home board (1..6) and the opponent's bar (0)
_OPPONENT_BACK = np.int64((1 << 7) - 1)


@kernel
def database_kind(pos, two_sided, one_sided):
    """Which bear-off database (``ev[2]``, ``ev[3]``) gives the 0-ply value of ``pos``:
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
    ews[16][0] = n
    ews[17][0] = 1  # (with n <= 1 the plain path values it anyway)
    ready = _best_in_groups(pos, n, out_pos, ev, ews, ready, np.int64(1))
    for k in range(5):
        best5[k] = ews[18][0, k]
    return ews[17][0], ready


@kernel(inline="always")
def _best_in_groups(pos, n, out_pos, ev, ews, ready, groups):
    """The 0-ply best of each of ``groups`` groups of plays from ``pos``: group g is
    ``out_pos[ends[g - 1]:ends[g]]`` (``ends`` = ``ews[16]``, the first group from 0, the
    last ending at ``n``); its best's index into ``ews[17][g]``, its probabilities (mover's
    view) into ``ews[18][g]``. Returns ``ready`` as :func:`_best_child_from` does.

    Each group is valued as :func:`_best_child` values a roll's plays, bit for bit: a group
    that is a roll's only play (flagged by ``ews[17][g]`` != 0 on entry) on its own
    (:func:`_evaluate_after`), the others incrementally from the parent, a group of one
    picked play too. One call for the picked plays of all 21 rolls (variance reduction with a filter)
    saves the cost of 20 calls, each passing the evaluator's twenty arrays."""
    race = is_race(pos)  # then every child is a race too
    tab = ev[4][1] if race else ev[4][0]
    if tab.shape[0] == 0:  # dense inputs: every play on its own
        start = 0
        for g in range(groups):
            _plain_group(pos, start, ews[16][g], out_pos, ev, ews, g)
            start = ews[16][g]
        return ready
    if groups == 1 and n <= 1:  # leaves the parent's state alone
        _plain_group(pos, np.int64(0), n, out_pos, ev, ews, np.int64(0))
        return ready
    if race:
        _race_groups(pos, n, out_pos, ev, ews, ready, groups)
    else:
        _contact_groups(pos, n, out_pos, ev, ews, ready, groups)
    return 1


@kernel
def _plain_group(pos, start, end, out_pos, ev, ews, g):
    """Group ``g`` (plays ``start .. end - 1``) valued play by play on its own."""
    t = ews[6]
    best = start
    beste = -1e9
    for i in range(start, end):
        _evaluate_after(out_pos[i], ev, ews, t)
        best, beste = _keep_group_best(t, i, best, beste, ews[18], g)
    ews[17][g] = best


@kernel
def _contact_groups(pos, n, out_pos, ev, ews, ready, groups):
    """:func:`_best_in_groups` in contact (tables): the children valued by the parent's net
    (contact or crashed) are evaluated incrementally, the others (a race, the game over, or
    the first checker borne off) on their own, and so is a group of one play."""
    cls = net_class(pos)
    tab = ev[4][cls]
    ends = ews[16]
    g = 0
    start = 0
    best = 0
    beste = -1e9
    t = ews[6]
    net = _nets(ev)[cls]
    psw = ews[10]
    sw = ews[5]
    o = ews[4]
    memo = ews[11]
    if not ready:
        for i in range(26):
            psw[i] = -pos[25 - i]
            memo[i] = -1.0
        _side_nonlinear(psw, ews[8], 0)
        _side_nonlinear_memo(pos, ews[8], NUM_NONLINEAR, memo)
        _preact_tables(psw, tab, net[1], ews[8], ews[9], ews[12], ews[13])
    off_mover, off_opponent = checkers_off(pos)
    was0 = 15 - off_opponent  # checkers on the board before the play: the opponent's
    was1 = 15 - off_mover  # and the mover's
    f = ews[7]
    idx = ews[12]
    coef = ews[13]
    for i in range(n):
        while ends[g] == start:  # an empty group (never asked for): its slot is left as is
            g += 1
        child = out_pos[i]
        if i == start:
            best = i
            beste = -1e9
        alone = ends[g] - start == 1 and ews[17][g] != 0  # a roll's only play: on its own
        # one pass over the child (no branch per slot): bit masks of each side's checkers,
        # made points and blots, the slots the play changed, and the checkers left; the
        # swapped view's masks are these reversed (slot k is slot 25 - k there)
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
        their_back = 25 if op == 0 else _popcount((op & -op) - 1)
        crashed = mine < 15 or theirs < 15
        if (alone or mine == 0 or _highest_bit(mp) < their_back  # the game is over, a race
                or crashed != (cls == CRASHED)):  # another net values it
            _evaluate_after(child, ev, ews, t)
        else:
            # the opponent, on roll after the play (features 0..4, the swapped view)
            s_made = _reverse26(om)
            s_blots = _reverse26(ob)
            rear, run, fb, lb = _scan_masks(_reverse26(op) & POINTS, s_made & POINTS,
                                            s_blots & POINTS, child[0] < 0)
            esc = 36.0
            if rear > 0:
                key, slot = _escapes_slot(rear, mm)
                if ews[14][slot] == key:
                    esc = ews[15][slot]
                else:
                    for k in range(26):
                        sw[25 - k] = -child[k]
                    esc = _escapes(sw, rear)
                    ews[14][slot] = key
                    ews[15][slot] = esc
            shots, loss = _shots_and_loss_masks(s_made & LOW25, _reverse26(mp) & LOW25,
                                                s_blots & LOW25, child[25] > 1, fb, lb)
            _write_nonlinear(f, 0, esc, rear, run, shots, loss)
            # the mover (features 5..9), escapes memoised by rearmost point for the roll
            rear, run, fb, lb = _scan_masks(mp & POINTS, mm & POINTS, mb & POINTS,
                                            child[25] > 0)
            esc = _memo_escapes(child, rear, memo)
            shots, loss = _shots_and_loss_masks(mm & LOW25, op & LOW25, mb & LOW25,
                                                child[0] < -1, fb, lb)
            _write_nonlinear(f, NUM_NONLINEAR, esc, rear, run, shots, loss)
            # the pre-activation: the parent's plus the rows of what changed, in the order
            # of nn._preact_child (slots of the swapped view, ascending)
            m = _child_slot_terms(child, psw, _reverse26(ch), idx, coef)
            _preact_rest(m, theirs, mine, was0, was1, ews[9], tab, f, ews[8], ews[2], idx, coef)
            _finish(ews[2], net[2], net[3], o)
            _sanitize_order(o)
            if mine < 15:  # the mover has borne off: no gammon for the opponent
                o[1] = 0.0
                o[2] = 0.0
            if theirs < 15:
                o[3] = 0.0
                o[4] = 0.0
            _flip_into(o, t)
        best, beste = _keep_group_best(t, i, best, beste, ews[18], g)
        if i == ends[g] - 1:
            ews[17][g] = best
            g += 1
            start = i + 1


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


@kernel
def _race_groups(pos, n, out_pos, ev, ews, ready, groups):
    """:func:`_best_in_groups` in a race: the race net's tables hold every input, so a child
    is the parent's pre-activation plus its changed rows, unless a database values it or its
    group is one play."""
    ends = ews[16]
    g = 0
    start = 0
    best = 0
    beste = -1e9
    t = ews[6]
    tab = ev[4][1]
    net = ev[1]
    psw = ews[10]
    sw = ews[5]
    o = ews[4]
    f = ews[7]
    for i in range(2 * NUM_NONLINEAR):
        f[i] = 0.0
    if not ready:
        for i in range(2 * NUM_NONLINEAR):
            ews[8][i] = 0.0
        for i in range(26):
            psw[i] = -pos[25 - i]
        _preact_tables(psw, tab, net[1], ews[8], ews[9], ews[12], ews[13])
    off_mover, off_opponent = checkers_off(pos)
    was0 = 15 - off_opponent  # checkers on the board before the play: the opponent's
    was1 = 15 - off_mover  # and the mover's
    databases = ev[2].shape[0] > 0 or ev[3].shape[0] > 0
    idx = ews[12]
    coef = ews[13]
    for i in range(n):
        while ends[g] == start:  # an empty group (never asked for): its slot is left as is
            g += 1
        child = out_pos[i]
        if i == start:
            best = i
            beste = -1e9
        # one pass over the child: checkers left, where each side has checkers, the slots
        # the play changed (what _sanitize and _preact_child would find in three passes)
        mine = 0
        theirs = 0
        mp = np.int64(0)
        op = np.int64(0)
        ch = np.int64(0)
        for k in range(26):
            c = np.int64(child[k])
            mine += max(c, 0)
            theirs += max(-c, 0)
            mp |= np.int64(c > 0) << k
            op |= np.int64(c < 0) << k
            ch |= np.int64(c != pos[k]) << k
        # a roll's only play (valued on its own), or the mover has won
        alone = (ends[g] - start == 1 and ews[17][g] != 0) or mine == 0
        if not alone and databases:
            for k in range(26):
                sw[k] = -child[25 - k]
            alone = database_kind(sw, ev[2], ev[3]) != NO_DATABASE
        if alone:
            _evaluate_after(child, ev, ews, t)
        else:
            m = _child_slot_terms(child, psw, _reverse26(ch), idx, coef)
            _preact_rest(m, theirs, mine, was0, was1, ews[9], tab, f, ews[8], ews[2], idx, coef)
            _finish(ews[2], net[2], net[3], o)
            # _sanitize of the opponent on roll after the play, from the masks
            _sanitize_order(o)
            if mine < 15:  # the mover has borne off: no gammon for the opponent
                o[1] = 0.0
                o[2] = 0.0
            if theirs < 15:
                o[3] = 0.0
                o[4] = 0.0
            if (mp & _MOVER_BACK) == 0:  # no checker of the mover's left in their home board
                o[2] = 0.0
            if (op & _OPPONENT_BACK) == 0:
                o[4] = 0.0
            _flip_into(o, t)
        best, beste = _keep_group_best(t, i, best, beste, ews[18], g)
        if i == ends[g] - 1:
            ews[17][g] = best
            g += 1
            start = i + 1


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


def make_lookahead_workspace(hidden: int = 512):
    """``(mws, ews, play_pos[L], play_moves[L], swapped[L], acc[L], t5[L])`` for L levels."""
    levels = MAX_PLY + 2  # one spare level for _evaluate_after_plied
    return (
        make_workspace(),
        make_eval_workspace(hidden),
        # LOOKAHEAD_ROWS plays a level: the 21 rolls' plays gathered for one grouped call
        np.zeros((levels, LOOKAHEAD_ROWS, POSITION_SIZE), dtype=np.int8),
        np.zeros((levels, LOOKAHEAD_ROWS, MOVE_SIZE), dtype=np.int8),
        np.zeros((levels, POSITION_SIZE), dtype=np.int8),
        np.zeros((levels, 5), dtype=np.float64),
        np.zeros((levels, 5), dtype=np.float32),
    )


@kernel
def _roll_value(pos, d1, d2, ev, lws, level, out5):
    """Pick the 0-ply best play of (d1, d2) at this level; leave the swapped result in
    ``lws[4][level]`` and return 0, or return the game result (1..3) when the play wins."""
    mws, ews, ppos, pmov, sw, acc, t5 = lws
    best, n = _best_play0(pos, d1, d2, ev, mws, ews, ppos[level], pmov[level], out5)
    child = ppos[level, best]
    r = game_result(child)
    if r == 0:
        for i in range(26):
            sw[level, i] = -child[25 - i]
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


@kernel(inline="always")
def _roll_weight(r):
    """How many of the 36 rolls the r-th of the 21 (d1 = 1..6, d2 = 1..d1) stands for."""
    d = 1
    s = 0
    while s + d <= r:
        s += d
        d += 1
    return 1.0 if r - s == d - 1 else 2.0


@kernel
def _value_gathered(pos, total, groups, first, ra, buf, ev, ews, ready, a, nxt, f5):
    """Value the gathered groups (rolls ``first .. first + groups - 1``, plays
    ``buf[:total]``) in one call and add their weighted values to ``a``; if the roll ``ra``
    is among them, its best play into ``nxt`` and its value into ``f5``. Returns ``ready``."""
    ready = _best_in_groups(pos, total, buf, ev, ews, ready, groups)
    gv = ews[18]
    for g in range(groups):
        w = _roll_weight(first + g)
        for k in range(5):
            a[k] += w * gv[g, k]
    if first <= ra < first + groups:
        g = ra - first
        child = buf[ews[17][g]]
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
    ends = ews[16]
    single = ews[17]
    ready = np.int64(0)  # the parent's state in ews is computed once for the 21 rolls
    total = 0
    g = 0
    first = 0
    r = 0
    for d1 in range(1, 7):
        for d2 in range(1, d1 + 1):
            if total > cap:
                ready = _value_gathered(pos, total, np.int64(g), first, ra, buf, ev, ews,
                                        ready, a, nxt, f5)
                total = 0
                g = 0
                first = r
            n = _generate_plays(pos, d1, d2, mws, buf[total:], mv[total:])
            total += n
            ends[g] = total
            single[g] = 1 if n == 1 else 0  # a roll's only play is valued on its own
            g += 1
            r += 1
    _value_gathered(pos, total, np.int64(g), first, ra, buf, ev, ews, ready, a, nxt, f5)


@kernel
def _eval_ply1(pos, ev, lws, level, out5):
    """1-ply: the mean over the 36 rolls of the roll's best play's 0-ply value (the player on
    roll's view; each roll's value is the mover's), by :func:`_value_rolls`."""
    mws, ews, ppos, pmov, sw, acc, t5 = lws
    a = acc[level]
    for k in range(5):
        a[k] = 0.0
    # no roll's play is taken (ra = -1): this level's sw and t5 are never written
    _value_rolls(pos, np.int64(-1), ev, mws, ews, ppos[level], pmov[level], a, sw[level],
                 t5[level])
    for k in range(5):
        out5[k] = a[k] / 36.0


@kernel
def _eval_ply2(pos, ev, lws, level, out5):
    mws, ews, ppos, pmov, sw, acc, t5 = lws
    a = acc[level]
    for k in range(5):
        a[k] = 0.0
    for d1 in range(1, 7):
        for d2 in range(1, d1 + 1):
            w = 1.0 if d1 == d2 else 2.0
            r = _roll_value(pos, d1, d2, ev, lws, level, t5[level])
            if r > 0:
                _add_result(a, w, r)
            else:
                _eval_ply1(sw[level], ev, lws, level + 1, t5[level])
                _add_flipped(a, w, t5[level])
    for k in range(5):
        out5[k] = a[k] / 36.0


@kernel
def _eval_ply3(pos, ev, lws, level, out5):
    mws, ews, ppos, pmov, sw, acc, t5 = lws
    a = acc[level]
    for k in range(5):
        a[k] = 0.0
    for d1 in range(1, 7):
        for d2 in range(1, d1 + 1):
            w = 1.0 if d1 == d2 else 2.0
            r = _roll_value(pos, d1, d2, ev, lws, level, t5[level])
            if r > 0:
                _add_result(a, w, r)
            else:
                _eval_ply2(sw[level], ev, lws, level + 1, t5[level])
                _add_flipped(a, w, t5[level])
    for k in range(5):
        out5[k] = a[k] / 36.0


@kernel
def _evaluate_plied(pos, ply, ev, lws, out5):
    """Probabilities of ``pos`` (player on roll, before rolling) at ``ply`` (0..3)."""
    if ply <= 0:
        _evaluate0(pos, ev, lws[1], out5)
    elif ply == 1:
        _eval_ply1(pos, ev, lws, 0, out5)
    elif ply == 2:
        _eval_ply2(pos, ev, lws, 0, out5)
    else:
        _eval_ply3(pos, ev, lws, 0, out5)


@kernel
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
    top = lws[4].shape[0] - 1  # the deepest lookahead level is never used by ply <= MAX_PLY
    sw = lws[4][top]
    for i in range(26):
        sw[i] = -child[25 - i]
    t = lws[6][top]
    _evaluate_plied(sw, ply, ev, lws, t)
    out5[0] = 1.0 - t[0]
    out5[1] = t[3]
    out5[2] = t[4]
    out5[3] = t[1]
    out5[4] = t[2]
