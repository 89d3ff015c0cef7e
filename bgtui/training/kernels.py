"""Training kernels (numba, over arrays): TD self-play, the sets of a roll's best plays and
supervised steps. Self-play that samples positions is the engine's (``sample_positions``,
``sample_children``)."""

import numpy as np

from bgtui.engine import (
    FILTER_ACTIVE,
    MAX_PLAYS,
    NO_DATABASE,
    RACE,
    ROLLS,
    backward,
    best_play0,
    best_play_pubeval,
    database_kind,
    equity,
    eval_nets,
    evaluate0_into,
    evaluate_after,
    fill_inputs,
    filter_rows,
    flip_into,
    forward,
    game_result,
    generate_plays_into,
    kernel,
    net_class,
    roll_dice,
    store_child,
    swap_sides_into,
    uniform,
)


@kernel
def _sgd_step(pos, target, ev, cls, alpha, ews, o5):
    """One gradient step of the net of class ``cls`` (``nn.net_class(pos)``) toward ``target``
    for ``pos``; ``o5`` gets the net's output before the step."""
    net = eval_nets(ev)[cls]
    fill_inputs(pos, ews.swapped, ews.x)
    forward(ews.x, net.w1, net.b1, net.w2, net.b2, ews.h, o5, net.act)
    backward(ews.x, net.w1, net.b1, net.w2, net.b2, ews.h, o5, target, alpha, ews.dh, net.act)


@kernel
def _td_update(pos, target, ev, alpha_contact, alpha_race, ews, stats, o5):
    """Move the value of ``pos`` (player on roll) toward ``target`` at the race or contact step
    size, counting the update in ``stats`` (plays; race or contact updates)."""
    cls = net_class(pos)
    if cls == RACE:
        alpha = alpha_race
        stats[5] += 1
    else:
        alpha = alpha_contact
        stats[6] += 1
    _sgd_step(pos, target, ev, cls, alpha, ews, o5)
    stats[1] += 1


@kernel
def _game_over(child, side, stats):
    """True if the position ``child`` (after a play of ``side``, 0 the first player) ends the
    game, which is then counted in ``stats``: games, first player's points, gammons,
    backgammons."""
    res = game_result(child)
    if res == 0:
        return False
    stats[0] += 1
    stats[2] += res if side == 0 else -res
    if res >= 2:
        stats[3] += 1
    if res >= 3:
        stats[4] += 1
    return True


@kernel(_nrt=True)
def _td_selfplay(ev, n_games, rng, alpha_contact, alpha_race, start, ws, stats):
    """Play ``n_games`` greedy 0-ply self-play games, updating the nets in ``ev`` in place.

    After each play the position before the roll (player on roll) is moved toward the value
    of the chosen play (the mover's view after it), or toward the result when the game ends.
    ``stats`` (float64[8]) accumulates: games, plays, first-player points, gammons,
    backgammons, race updates, contact updates. ``ws``: the play scratch
    (``evaluate.make_play_workspace``).
    """
    mws, ews, out_pos, out_moves = ws.moves, ws.eval, ws.play_pos, ws.play_moves
    pos = np.empty(26, dtype=np.int8)
    t5 = np.empty(5, dtype=np.float32)
    o5 = np.empty(5, dtype=np.float32)
    for _g in range(n_games):
        for i in range(26):
            pos[i] = start[i]
        first = True
        side = 0
        while True:
            d1, d2 = roll_dice(rng, first)
            first = False
            best, n = best_play0(pos, d1, d2, ev, mws, ews, out_pos, out_moves, t5)
            _td_update(pos, t5, ev, alpha_contact, alpha_race, ews, stats, o5)
            if _game_over(out_pos[best], side, stats):
                break
            swap_sides_into(out_pos[best], pos)
            side = 1 - side


@kernel(_nrt=True)
def _lambda_returns(vals, n, lam, out):
    """``out[t]`` = the lambda-return of move t of a game of ``n`` moves, each side's own view:
    ``vals[t]`` is the value of the play chosen at move t (mover's view; the last one is the
    game's result); out[n-1] = vals[n-1] and out[t] = (1 - lam) vals[t] + lam * flip(out[t+1])
    (the next move is the other side's)."""
    fl = np.empty(5, dtype=np.float32)
    for k in range(5):
        out[n - 1, k] = vals[n - 1, k]
    for t in range(n - 2, -1, -1):
        flip_into(out[t + 1], fl)
        for k in range(5):
            out[t, k] = (1.0 - lam) * vals[t, k] + lam * fl[k]


@kernel(_nrt=True)
def _td_lambda_selfplay(
    ev,
    n_games,
    rng,
    alpha_contact,
    alpha_race,
    lam,
    start,
    ws,
    stats,
    game_pos,
    game_val,
    game_tg,
):
    """Like :func:`_td_selfplay` with TD(lambda) targets (the offline lambda-return): each
    game is played greedily with the weights as they are, then every position before a roll
    is moved toward ``(1 - lam) * V(its chosen play) + lam * (the next position's target,
    seen from this side)``, the last toward the game's result. ``lam = 0`` is TD(0) with the
    updates made after the game. ``game_pos`` int8[L, 26], ``game_val`` / ``game_tg``
    float32[L, 5]: scratch for the game's positions, values and targets (a game longer than L
    moves trains on its first L)."""
    mws, ews, out_pos, out_moves = ws.moves, ws.eval, ws.play_pos, ws.play_moves
    pos = np.empty(26, dtype=np.int8)
    t5 = np.empty(5, dtype=np.float32)
    o5 = np.empty(5, dtype=np.float32)
    cap = game_pos.shape[0]
    for _g in range(n_games):
        for i in range(26):
            pos[i] = start[i]
        first = True
        side = 0
        n = 0
        while True:
            d1, d2 = roll_dice(rng, first)
            first = False
            best, m = best_play0(pos, d1, d2, ev, mws, ews, out_pos, out_moves, t5)
            if n < cap:
                for i in range(26):
                    game_pos[n, i] = pos[i]
                for k in range(5):
                    game_val[n, k] = t5[k]
                n += 1
            if _game_over(out_pos[best], side, stats):
                break
            swap_sides_into(out_pos[best], pos)
            side = 1 - side
        _lambda_returns(game_val, n, lam, game_tg)
        for t in range(n - 1, -1, -1):
            _td_update(game_pos[t], game_tg[t], ev, alpha_contact, alpha_race, ews, stats, o5)


@kernel(_nrt=True)
def _sample_best_children(ev, n_games, rng, start, k_best, ws, dest, groups):
    """For every roll of ``n_games`` of greedy 0-ply self-play, the positions after its
    ``k_best`` best plays by 0-ply equity (all of them when there are fewer), best first, with
    the opponent on roll as ``store_child`` stores them: the near-best alternatives
    that move selection has to tell apart. Plays that end the game are not stored. The game
    goes on with the best play (the first of the roll's group unless it ended the game; ties
    go to the earlier play, as in ``evaluate._best_child``). Stores into ``dest``
    (int8[cap, 26]) and, in ``groups`` (int32[cap]), the roll each child belongs to (0, 1, ...
    in the order of the rolls of this call: children of one roll are siblings, the plays that
    one decision chooses among); returns the number stored (stops when full)."""
    return _best_children_games(
        ev, n_games, rng, start, k_best, False, _NO_W, _NO_W, ws, dest, groups, False
    )


@kernel(_nrt=True)
def _sample_best_children_vs_pubeval(ev, n_games, rng, start, k_best, wr, wc, ws, dest, groups):
    """As :func:`_sample_best_children`, but in games of the 0-ply evaluator against PubEval
    (``wr``, ``wc``: its weights; who moves first is drawn for each game): the children of the
    evaluator's rolls only. These are the decisions a duel against PubEval asks of the
    evaluator, in positions that PubEval's weaker play leads to and self-play rarely reaches
    (its blots and stacks, the evaluator's blitzes). The children are stored for the labels of
    the evaluator's own deeper look (a rollout of both sides by the evaluator), never for
    anything of PubEval's."""
    return _best_children_games(
        ev, n_games, rng, start, k_best, True, wr, wc, ws, dest, groups, False
    )


_NO_W = np.zeros(122, dtype=np.float64)


@kernel
def _best_plays(pos, d1, d2, k_best, ev, ws, eq, t5, order):
    """The plays of roll ``(d1, d2)`` from ``pos`` (player on roll) into ``ws.play_pos`` and the
    indices of its ``k_best`` best by 0-ply equity (all of them when there are fewer), best
    first, into ``order``; ties go to the earlier play, as in ``evaluate._best_child``. ``eq``
    (float64[MAX_PLAYS]) and ``t5`` (float32[5]) are scratch. Returns the number of indices
    put into ``order``."""
    mws, ews, out_pos, out_moves = ws.moves, ws.eval, ws.play_pos, ws.play_moves
    n = generate_plays_into(pos, d1, d2, mws, out_pos, out_moves)
    for i in range(n):
        evaluate_after(out_pos[i], ev, ews, t5)
        eq[i] = equity(t5)
    top = min(k_best, n)
    for q in range(top):
        j = 0
        for i in range(1, n):
            if eq[i] > eq[j]:
                j = i
        order[q] = j
        eq[j] = -1e30  # taken
    return top


@kernel(_nrt=True)
def _best_children_games(
    ev, n_games, rng, start, k_best, vs_pubeval, wr, wc, ws, dest, groups, cousins
):
    """The games of :func:`_sample_best_children` (``vs_pubeval`` False) and
    :func:`_sample_best_children_vs_pubeval` (True); with ``cousins``, of
    :func:`_sample_cousins`."""
    mws, ews, out_pos, out_moves = ws.moves, ws.eval, ws.play_pos, ws.play_moves
    pos = np.empty(26, dtype=np.int8)
    opp = np.empty(26, dtype=np.int8)
    reply_pos = np.empty((MAX_PLAYS, 26), dtype=np.int8)  # the opponent's replies (cousins)
    reply_moves = np.empty((MAX_PLAYS, 8), dtype=np.int8)
    eq = np.empty(MAX_PLAYS, dtype=np.float64)
    order = np.empty(MAX_PLAYS, dtype=np.int64)
    t5 = np.empty(5, dtype=np.float32)
    m = 0
    roll = 0
    for _g in range(n_games):
        for i in range(26):
            pos[i] = start[i]
        first = True
        ours = True
        if vs_pubeval:
            ours = uniform(rng) < 0.5
        while True:
            d1, d2 = roll_dice(rng, first)
            first = False
            if not ours:
                best, n = best_play_pubeval(pos, d1, d2, wr, wc, mws, out_pos, out_moves)
            else:
                top = _best_plays(pos, d1, d2, k_best, ev, ws, eq, t5, order)
                best = order[0]
                r1, r2 = roll_dice(rng, False) if cousins else (d1, d2)
                for q in range(top):
                    j = order[q]
                    if not cousins:
                        kept = store_child(out_pos[j], dest, m)
                    elif game_result(out_pos[j]) > 0:
                        continue
                    else:  # the opponent's best reply to the roll drawn for the decision
                        swap_sides_into(out_pos[j], opp)
                        b, _n = best_play0(opp, r1, r2, ev, mws, ews, reply_pos, reply_moves, t5)
                        kept = store_child(reply_pos[b], dest, m)
                    if kept < 0:
                        return m
                    if kept:
                        groups[m] = roll
                        m += 1
                roll += 1
            child = out_pos[best]
            if game_result(child) > 0:
                break
            swap_sides_into(child, pos)
            if vs_pubeval:
                ours = not ours
    return m


@kernel(_nrt=True)
def _sample_cousins(ev, n_games, rng, start, k_best, ws, dest, groups):
    """For every roll of ``n_games`` of greedy 0-ply self-play, a roll of the opponent drawn
    for it and, for each of the roll's ``k_best`` best plays by 0-ply equity (as
    :func:`_sample_best_children` picks them, best first), the position after the opponent's
    0-ply best reply to that roll, stored with the mover on roll again. These are the leaves
    that 1-ply compares when it ranks the plays: a roll's values of two plays differ by the
    values of such a pair. Plays or replies that end the game are not stored. ``ws``,
    ``dest``, ``groups`` and the game as in :func:`_sample_best_children` (the leaves of one
    roll share a group). Returns the number stored (stops when full)."""
    return _best_children_games(
        ev, n_games, rng, start, k_best, False, _NO_W, _NO_W, ws, dest, groups, True
    )


@kernel(_nrt=True)
def _race_sibling_children(parents, ev, rng, k_best, ws, dest, groups):
    """For each of ``parents`` (races before a roll, player on roll) in turn, a roll drawn from
    ``rng`` and the positions after its ``k_best`` best plays by 0-ply equity (all of them when
    there are fewer; :func:`_best_plays`, as :func:`_sample_best_children` picks them), best
    first, stored with the opponent on roll as ``store_child`` stores them; a play that
    ends the game or whose position a bear-off database values (the race net never does) is
    left out. A roll with fewer than two plays kept is skipped (siblings are what the set is
    for); the last one stored may be cut short where ``dest`` (int8[cap, 26]) ends. ``groups``
    (int32[cap]) receives each child's roll (0, 1, ... over the rolls kept). Stops when
    ``dest`` is full, before drawing another roll; returns the number of children stored and
    of parents used. ``ws``: the play scratch (``evaluate.make_play_workspace``)."""
    out_pos = ws.play_pos
    eq = np.empty(MAX_PLAYS, dtype=np.float64)
    order = np.empty(MAX_PLAYS, dtype=np.int64)
    keep = np.empty(MAX_PLAYS, dtype=np.int64)
    t5 = np.empty(5, dtype=np.float32)
    sw = np.empty(26, dtype=np.int8)
    cap = dest.shape[0]
    m = 0
    used = 0
    roll = 0
    for p in range(parents.shape[0]):
        if m >= cap:
            break
        used += 1
        d1, d2 = roll_dice(rng, False)
        top = _best_plays(parents[p], d1, d2, k_best, ev, ws, eq, t5, order)
        kept = 0
        for q in range(top):
            child = out_pos[order[q]]
            if game_result(child) > 0:
                continue
            swap_sides_into(child, sw)
            if database_kind(sw, ev.two_sided, ev.one_sided) == NO_DATABASE:
                keep[kept] = order[q]
                kept += 1
        if kept < 2:
            continue
        for q in range(min(kept, cap - m)):
            swap_sides_into(out_pos[keep[q]], dest[m])
            groups[m] = roll
            m += 1
        roll += 1
    return m, used


@kernel(_nrt=True)
def _supervised_epoch(positions, targets, order, ev, alphas, ews, stats):
    """One pass of stochastic gradient descent toward ``targets`` (float32[N, 5]) in ``order``,
    each position's net (``nn.net_class``) stepping by ``alphas[class]`` (float64, one per
    class).

    ``stats`` (float64, two per class): summed squared error and count per class (contact,
    race, crashed, early, holding, trailing, mutual, mutual_trailing, anchor, mutual_anchor,
    trailing_anchor, mutual_trailing_anchor, early_trailing, early_bar, early_trailing_bar,
    contact_bar, trailing_bar, mutual_bar, mutual_trailing_bar, anchor_bar,
    mutual_anchor_bar, trailing_anchor_bar, mutual_trailing_anchor_bar: ``NET_NAMES``).
    """
    o5 = np.empty(5, dtype=np.float32)
    for j in range(order.shape[0]):
        k = order[j]
        pos = positions[k]
        cls = net_class(pos)
        _sgd_step(pos, targets[k], ev, cls, alphas[cls], ews, o5)
        err = 0.0
        for q in range(5):
            d = targets[k, q] - o5[q]
            err += d * d
        stats[2 * cls] += err
        stats[2 * cls + 1] += 1


@kernel(_nrt=True)
def _fill_inputs_batch(positions, idx, out):
    """The dense net inputs of ``positions[idx[r]]`` into ``out[r]``
    (float32[len(idx), NUM_INPUTS])."""
    sw = np.empty(26, dtype=np.int8)
    for r in range(idx.shape[0]):
        fill_inputs(positions[idx[r]], sw, out[r])


@kernel(_nrt=True)
def net_classes(positions):
    """int8[N]: the class (``nn.net_class``: the net that values it) of each of ``positions``."""
    out = np.zeros(positions.shape[0], dtype=np.int8)
    for i in range(positions.shape[0]):
        out[i] = net_class(positions[i])
    return out


@kernel
def evaluate_all(positions, ev, ews, out):
    """out[i] = the 0-ply probabilities of ``positions[i]`` (player on roll) by ``ev``."""
    for i in range(positions.shape[0]):
        evaluate0_into(positions[i], ev, ews, out[i])


@kernel
def filter_samples(positions, ev, mws, ews, out_pos, out_moves, rows, values, groups, cap):
    """Training samples for the filter net: for every position (player on roll) and each of
    its 21 rolls, every play's 28 active rows (``rows`` int16[cap, 28]) and the evaluator's
    0-ply equity of it for the mover (``values``), with the index of its (position, roll)
    group (``groups``: position * 21 + roll). Stops before a position whose plays would not
    fit; returns (samples stored, positions used)."""
    t5 = np.zeros(5, dtype=np.float32)
    idx = np.zeros(FILTER_ACTIVE, dtype=np.int64)
    m = 0
    for p in range(positions.shape[0]):
        start = m
        for roll in range(21):
            n = generate_plays_into(
                positions[p], ROLLS[roll, 0], ROLLS[roll, 1], mws, out_pos, out_moves
            )
            if m + n > cap:
                return start, p
            for i in range(n):
                evaluate_after(out_pos[i], ev, ews, t5)
                values[m] = equity(t5)
                filter_rows(out_pos[i], idx)
                for r in range(FILTER_ACTIVE):
                    rows[m, r] = idx[r]
                groups[m] = p * 21 + roll
                m += 1
    return m, positions.shape[0]
