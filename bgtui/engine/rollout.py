"""Rollouts: trials played out from a root position, with quasi-random dice, variance reduction
by lookahead and the cube states estimated in the same games.

One trial is a pure function of (root, trial index, settings, rollout seed, nets): the dice of
trial ``t`` come from its dice sequence ``s(t)``, so results are identical whatever the chunking
or the number of workers, and candidate plays rolled out with the same seed see the same dice.

Dice:
* the quasi-random scheme: a permutation of the 36 rolls per turn, made once per rollout seed
  (``make_permutations``). With digits ``d_k = (s // 36**k) % 36`` the roll of turn k < 3 is
  ``perm[k][(d_0 + ... + d_k) % 36]``: the first roll rotates with period 36, the first two
  with 1296, the first three with 46656, and every aligned block of 36 trials holds each first,
  second and third roll exactly once (stratification); any 36 consecutive trials hold each first
  roll once and any 1296 consecutive ones each ordered pair of first two rolls once. Later turns
  are pseudo-random (counter-based, per sequence and turn), or, with ``stratify_all``,
  "deck of cards": in every aligned block of 36 trials each turn sees each roll once.
* rollout as initial position: sequences whose first roll is a double are skipped, so 30 / 1080
  / 38880 trials complete the cycles.

Variance reduction by lookahead: at every roll the luck is the value of the best play for
the roll that came minus the average of that value over all 36 rolls (same evaluation); the
trial's estimate is the outcome minus the summed luck. Each luck term has mean zero given the
history, so the estimate is unbiased (Sheppard's unbiased estimator, E = Average(e) + Delta,
recursively); subtracting only part of the luck would not be.

Cube states: with ``cubeful`` settings, equities for four cube states on a 1-cube are
estimated in the same games: cubeless; cube centred; root player owns it; opponent owns it. A
player with access to the cube whose cubeless equity (0-ply, before rolling) reaches the
settlement limit settles the game for 1 point, unless it is above the play-on limit and a
gammon is still possible, in which case the game goes on for the gammon. With the Jacoby
rule (the ``jacoby`` setting, on for money) a game that ends unsettled in the centred state
counts single: the cube was never turned.
"""

import numpy as np

from bgtui.engine._jit import kernel
from bgtui.engine.bearoff import is_two_sided, one_sided_applies
from bgtui.engine.constants import (
    CENTRED,
    CUBE_HOLD,
    CUBE_OWNER,
    CUBE_VALUE,
    FILTER_MARGIN,
    FILTER_MAX_PLAYS,
    MAX_PLAYS,
    MOVE_SIZE,
    OPP_OWNED,
    OWNED,
    POSITION_SIZE,
    ROLL_WEIGHTS,
    ROLLS,
)
from bgtui.engine.cube import cube_efficiency, cubeful_equity
from bgtui.engine.evaluate import (
    _best_child_from,
    _best_in_groups,
    _evaluate0,
    _evaluate_after,
    _evaluate_after_plied,
    _flip_into,
    _value_rolls,
    equity,
    equity_terms,
    make_eval_workspace,
    make_lookahead_workspace,
    one_ply_weight0,
)
from bgtui.engine.filter_net import (
    MAX_FILTER_K,
    as_filter_net,
    filter_keep,
    filter_parent,
    filter_pick,
    make_filter_scratch,
)
from bgtui.engine.match import POINT_ROWS, match_cube_values, mwc_after, mwc_coefficients
from bgtui.engine.movegen import (
    _copy_position,
    _generate_plays,
    _generate_scored_plays,
    make_workspace,
)
from bgtui.engine.position import game_result, swap_sides_into
from bgtui.engine.structs import (
    CubeStates,
    PlayCache,
    RolloutSettings,
    RolloutWorkspace,
    Trial,
)

# cube owner of a root (``cubes[r, CUBE_OWNER]``) and in a trial: ``constants.CENTRED``,
# ``OWNED`` (the root player owns it), ``OPP_OWNED`` (his opponent does)

#: a trial's scores (:class:`Trial`) stored as a float64 row: NUM_OUT columns in the order of
#: its fields, so the sums of the rows (``_accumulate``) are column by column too
NUM_OUT = len(Trial._fields)
O_WIN, O_WG, O_WBG, O_LG, O_LBG = range(5)  # the five probabilities, minus the luck
O_CUBELESS = Trial._fields.index("cubeless")
O_CENTRED = Trial._fields.index("centred")
O_OWNED = Trial._fields.index("owned")
O_OPP_OWNED = Trial._fields.index("opp_owned")
O_RAW = Trial._fields.index("raw")
O_TURNS = Trial._fields.index("turns")
O_LIVE = Trial._fields.index("live")
#: equities with paired statistics between roots (index into the ``cross`` sums)
PAIRED = (O_CUBELESS, O_CENTRED, O_OWNED, O_OPP_OWNED, O_LIVE)

#: no double and the double within this of each other are a tie, decided as a double (as
#: ``analysis.cube.cube_action`` decides)
CUBE_TIE = 1e-6

MAX_TURNS = 2000  # safety bound: backgammon games always end, but be defensive
#: Zehr split: at most this many extra lines per trial, so a trial costs at most
#: (1 + MAX_SPLITS) games however often the cube is taken
MAX_SPLITS = 7


def make_permutations(seed: int) -> np.ndarray:
    """``int64[4, 36]``: roll permutations for turns 0, 1, 2 and the stratified later turns."""
    rng = np.random.default_rng(np.random.SeedSequence([int(seed) & 0xFFFFFFFF, 0x5EED]))
    return np.stack([rng.permutation(36) for _ in range(4)]).astype(np.int64)


def make_settings(late_ply=None, met=None, away=(0, 0), **options) -> RolloutSettings:
    """:class:`RolloutSettings`: its defaults, overridden by ``options`` (any of its fields
    but those made from the arguments here), every field of the type the kernels are
    compiled for. ``late_ply`` None: the same as ``ply``. ``met`` (the table,
    ``engine.match`` layout) with ``away`` (points needed by the root player, by his
    opponent) and ``crawford``: the live cube at that match score (``live_cube``)."""
    kinds = RolloutSettings.__annotations__
    unknown = set(options) - set(kinds) | set(options) & {"match", "opp_away", "met"}
    if unknown:
        raise TypeError(f"make_settings: no such option {sorted(unknown)[0]!r}")
    fields = {**RolloutSettings._field_defaults, **options}
    fields["late_ply"] = fields["ply"] if late_ply is None else late_ply
    fields["match"] = met is not None
    fields["away"], fields["opp_away"] = away
    typed = {name: kinds[name](value) for name, value in fields.items() if name != "met"}
    table = met if met is not None else np.zeros((1, 1))
    return RolloutSettings(**typed, met=np.ascontiguousarray(table, dtype=np.float64))


def make_rollout_workspace(hidden: int = 512, filter_net=None, prune: int = 0) -> RolloutWorkspace:
    """The scratch of one rollout worker (:class:`RolloutWorkspace`), with its play cache
    (:func:`make_play_cache`).

    ``filter_net``: (w1 float32[2 * FILTER_ROWS, H], b1 float32[H], w2 float32[H + 1]), the
    filter net of ``vr_filter`` as ``weights.load_filter_net`` gives it
    (:mod:`bgtui.engine.filter_net`); None: a placeholder. ``prune``: the pruning of the
    lookahead of checker play at 1-ply and deeper (``evaluate.make_lookahead_workspace``;
    0: every play; k > 0 needs ``filter_net``)."""
    fn = as_filter_net(filter_net)
    return RolloutWorkspace(
        moves=make_workspace(),
        eval=make_eval_workspace(hidden),
        lookahead=make_lookahead_workspace(hidden, filter_net, prune),
        play_pos=np.zeros((MAX_PLAYS, POSITION_SIZE), dtype=np.int8),
        play_moves=np.zeros((MAX_PLAYS, MOVE_SIZE), dtype=np.int8),
        cur=np.zeros(POSITION_SIZE, dtype=np.int8),
        nxt=np.zeros(POSITION_SIZE, dtype=np.int8),
        play5=np.zeros(5, dtype=np.float32),
        best5=np.zeros(5, dtype=np.float32),
        luck=np.zeros(5, dtype=np.float64),
        roll_sum5=np.zeros(5, dtype=np.float64),
        choice5=np.zeros(5, dtype=np.float32),
        blend5=np.zeros(5, dtype=np.float32),
        before5=np.zeros(5, dtype=np.float32),
        play_equities=np.zeros(MAX_PLAYS, dtype=np.float64),
        play_flags=np.zeros(MAX_PLAYS, dtype=np.int8),
        split_pos=np.zeros((MAX_SPLITS, POSITION_SIZE), dtype=np.int8),
        split_side=np.zeros(MAX_SPLITS, dtype=np.int64),
        split_turn=np.zeros(MAX_SPLITS, dtype=np.int64),
        split_owner=np.zeros(MAX_SPLITS, dtype=np.int64),
        split_cube=np.zeros(MAX_SPLITS, dtype=np.float64),
        line_cur=np.zeros(POSITION_SIZE, dtype=np.int8),
        line_nxt=np.zeros(POSITION_SIZE, dtype=np.int8),
        filter_net=fn,
        filter_scratch=make_filter_scratch(fn.b1.shape[0]),
        actual5=np.zeros(5, dtype=np.float32),
        cache=make_play_cache(),
        picks=np.zeros((21 * MAX_FILTER_K, POSITION_SIZE), dtype=np.int8),
        pick_ends=np.zeros(21, dtype=np.int64),
        pick_single=np.zeros(21, dtype=np.int64),
        cube_states=make_cube_states(),
        match_points=np.zeros((2, POINT_ROWS), dtype=np.float64),
        match_values=np.zeros(6, dtype=np.float64),
    )


def make_cube_states() -> CubeStates:
    """A trial's cube states (:class:`CubeStates`), none settled."""
    return CubeStates(
        np.zeros(3, dtype=np.bool_), np.zeros(3, dtype=np.float64), np.zeros(3, dtype=np.float64)
    )


#: turns whose plays are cached (:func:`make_play_cache`): the quasi-random dice of the first
#: three turns are stratified, so their (position, roll) pairs recur across trials (each first
#: roll every 36 trials, each pair of first two rolls every 1296)
CACHE_TURNS = 3
#: entries of the play cache, a power of two (the third turn's pairs number up to 21**3 = 9261)
CACHE_SIZE = 16384


def make_play_cache() -> PlayCache:
    """A per-worker cache of the early turns' plays (:class:`PlayCache`).

    An entry is a pure function of the position, the roll, the settings and the evaluator, so
    a hit gives bit for bit what playing the turn again would: only the time changes. It holds
    while those are fixed: :func:`_rollout_chunk` empties it unless the caller passes the same
    non-zero epoch as when it was filled, a number the caller gives to one evaluator and one
    set of settings (a digest of them)."""
    return PlayCache(
        keys=np.zeros(CACHE_SIZE, dtype=np.uint64),
        codes=np.full(CACHE_SIZE, -1, dtype=np.int64),
        parents=np.zeros((CACHE_SIZE, POSITION_SIZE), dtype=np.int8),
        children=np.zeros((CACHE_SIZE, POSITION_SIZE), dtype=np.int8),
        values=np.zeros((CACHE_SIZE, 5), dtype=np.float32),
        actual=np.zeros((CACHE_SIZE, 5), dtype=np.float32),
        roll_sums=np.zeros((CACHE_SIZE, 5), dtype=np.float64),
        epoch=np.zeros(1, dtype=np.int64),
    )


@kernel
def _cache_find(cache, zob, pos, code):
    """(slot, hit) of (``pos``, roll ``code``) in the play cache."""
    keys, codes, parents = cache.keys, cache.codes, cache.parents
    h = np.uint64(code + 1) * np.uint64(0x9E3779B97F4A7C15)
    for i in range(26):
        h ^= zob[i, pos[i] + 16]
    slot = np.int64(h >> np.uint64(50)) & (CACHE_SIZE - 1)
    if codes[slot] != code or keys[slot] != h:
        keys[slot] = h  # claimed for the entry about to be written
        codes[slot] = -1
        return slot, False
    for i in range(26):
        if parents[slot, i] != pos[i]:
            codes[slot] = -1
            return slot, False
    return slot, True


@kernel
def _mix(a, b, c):
    """A 64-bit hash of three integers (splitmix64 rounds): counter-based random numbers."""
    z = np.uint64(a) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(b) * np.uint64(0xC2B2AE3D27D4EB4F)
    z += np.uint64(c) * np.uint64(0x165667B19E3779F9) + np.uint64(0x27D4EB2F165667C5)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    return z


@kernel
def sequence_index(trial, initial_position, perms):
    """The dice sequence used by trial ``trial`` (skipping double-first sequences if asked)."""
    if not initial_position:
        return trial
    block = trial // 30
    k = trial % 30
    j = 0
    for d0 in range(36):
        r = perms[0, d0]
        if r // 6 != r % 6:
            if j == k:
                return block * 36 + d0
            j += 1
    return -1


@kernel
def roll_of(seq, turn, quasi, stratify_all, perms, seed):
    """Roll 0..35 (die1 = r // 6 + 1, die2 = r % 6 + 1) of turn ``turn`` in sequence ``seq``."""
    if quasi:
        if turn < 3:
            s = 0
            q = seq
            for k in range(turn + 1):
                s += q % 36
                q //= 36
            return perms[turn, s % 36]
        if stratify_all:
            off = np.int64(_mix(seed, turn, seq // 36) % np.uint64(36))
            return perms[3, (seq % 36 + off) % 36]
    return np.int64(_mix(seed, seq + 0x51, turn) % np.uint64(36))


@kernel(inline="always")
def _choose(pos, d1, d2, ply, ev, ws, best5):
    """Index of the chosen play (in ws.play_pos) and its value (mover's view) in ``best5``.

    0-ply: best by 0-ply. ply >= 1: all plays at 0-ply, the best few (8 within 0.16) re-evaluated
    at ``ply`` - 1 lookahead of the resulting position (so the play is chosen at ``ply``); at
    1-ply a play's value is the blend of its 0-ply and 1-ply values (``evaluate.one_ply_weight0``).
    Inlined: a kernel of its own would optimise :func:`_choose_weighted`'s code once more on
    a first start, on the way to the rollouts.
    """
    return _choose_weighted(pos, d1, d2, ply, _blend_weight(pos, ply), ev, ws, best5)


@kernel(inline="always")
def _blend_weight(pos, ply):
    """The 1-ply blend's weight for a roll from ``pos`` (``evaluate.one_ply_weight0``); 0.0 at any
    other ``ply``, where no blend is made, without classifying ``pos``."""
    if ply == 1:
        return one_ply_weight0(pos)
    return 0.0


@kernel
def _choose_weighted(pos, d1, d2, ply, w0, ev, ws, best5):
    """:func:`_choose` with ``w0`` the weight of a play's 0-ply value at 1-ply (0: the plain
    1-ply, for duels against it)."""
    n = _generate_plays(pos, d1, d2, ws.moves, ws.play_pos, ws.play_moves)
    return _choose_among_weighted(pos, n, ply, w0, ev, ws, best5)


@kernel(inline="always")
def _choose_among(pos, n, ply, ev, ws, best5):
    """:func:`_choose` among the ``n`` plays ``ws.play_pos[:n]`` of a roll from ``pos``."""
    return _choose_among_weighted(pos, n, ply, _blend_weight(pos, ply), ev, ws, best5)


@kernel(inline="always")
def _choose_among_weighted(pos, n, ply, w0, ev, ws, best5):
    """:func:`_choose_among` with the 1-ply blend's weight ``w0``."""
    ews, lws, ppos = ws.eval, ws.lookahead, ws.play_pos
    t5 = ws.choice5
    if ply <= 0:
        return _best_child_from(pos, n, ppos, ev, ews, best5, np.int64(0))[0]
    best = 0
    beste = -1e9
    # filter: keep up to FILTER_MAX_PLAYS plays within FILTER_MARGIN of the best at 0-ply (no
    # allocation: the 0-ply equities go in ws.play_equities, the picked flags in ws.play_flags)
    eqs = ws.play_equities
    picked = ws.play_flags
    top = -1e9
    for i in range(n):
        _evaluate_after(ppos[i], ev, ews, t5)
        eqs[i] = equity(t5)
        picked[i] = 0
        if eqs[i] > top:
            top = eqs[i]
    if ply == 1 and w0 == 1.0 and n > 0:  # the 0-ply value alone: the blend's choice, no lookahead
        best = 0
        while eqs[best] != top:
            best += 1
        _evaluate_after(ppos[best], ev, ews, best5)
        return best
    for j in range(min(FILTER_MAX_PLAYS, n)):
        i = -1
        m = -1e9
        for q in range(n):
            if picked[q] == 0 and eqs[q] > m:
                m = eqs[q]
                i = q
        if i < 0 or m < top - FILTER_MARGIN:
            break
        picked[i] = 1
        _evaluate_after_plied(ppos[i], ply, ev, lws, t5)
        e = equity(t5)
        if ply == 1:  # cubeless equity is linear in the probabilities
            e = w0 * eqs[i] + (1.0 - w0) * e
        if e > beste:
            beste = e
            best = i
            for k in range(5):
                best5[k] = t5[k]
    if ply == 1:
        _blend_one_ply(ppos[best], w0, ev, ews, t5, best5)
    return best


@kernel(inline="always")
def _blend_one_ply(child, w0, ev, ews, t5, p5):
    """``p5`` (a play's 1-ply probabilities, mover's view) := the value of the play at 1-ply,
    ``w0`` times its 0-ply probabilities (into ``t5``) plus ``1 - w0`` times ``p5``."""
    if w0 == 0.0:  # the plain 1-ply
        return
    _evaluate_after(child, ev, ews, t5)
    for k in range(5):
        p5[k] = w0 * t5[k] + (1.0 - w0) * p5[k]


@kernel
def _choose_from(pos, d1, d2, ply, ev, ws, best5, ready):
    """:func:`_choose` for one of the 21 rolls of ``pos`` in a variance-reduction step:
    returns (index, ready). At 0-ply the parent's state (pre-activation, features, escapes
    memo) is computed by the first roll's call and reused by the others (``ready``), as the
    1-ply evaluation does; the choice and its value are the same as :func:`_choose`'s."""
    if ply <= 0:
        n = _generate_plays(pos, d1, d2, ws.moves, ws.play_pos, ws.play_moves)
        return _best_child_from(pos, n, ws.play_pos, ev, ws.eval, best5, ready)
    return _choose(pos, d1, d2, ply, ev, ws, best5), ready


@kernel(separate=True)
def _filtered_plied(cur, n, k, ply, ev, ws, best5):
    """f(roll) of :func:`_vr_step` at ``ply`` >= 1 with a filter: the best at ``ply`` (each
    play valued by its position's ``ply`` - 1 lookahead, as :func:`_choose` values its
    candidates) of the ``k`` plays ``ws.play_pos[:n]`` the filter net ranks highest, or of all of
    them when ``n`` <= ``k``; into ``best5``."""
    fs = ws.filter_scratch
    t5 = ws.choice5
    plays = ws.play_pos
    m = n
    if n > k:
        fn = ws.filter_net
        m = filter_pick(cur, ws.play_pos, ws.play_moves, n, k, fn.w1, fn.b1, fn.w2, fs)
        plays = fs.picked
    w0 = _blend_weight(cur, ply)
    beste = -1e9
    for j in range(m):
        if ply == 1 and w0 == 1.0:  # the 0-ply value alone, without its lookahead
            _evaluate_after(plays[j], ev, ws.eval, t5)
        else:
            _evaluate_after_plied(plays[j], ply, ev, ws.lookahead, t5)
            if ply == 1:
                _blend_one_ply(plays[j], w0, ev, ws.eval, ws.blend5, t5)
        e = equity(t5)
        if e > beste:
            beste = e
            for q in range(5):
                best5[q] = t5[q]


@kernel(inline="always")
def _take_play(child, value5, nxt, t5):
    """The play made: ``child`` into ``nxt``, its value ``value5`` into ``t5``."""
    for q in range(5):
        t5[q] = value5[q]
    _copy_position(nxt, 0, child, 0)


@kernel(separate=True)
def _vr_step(cur, a1, a2, ply, k, ev, ws, t5, nxt, tmpa):
    """One variance-reduction step from ``cur`` (player on roll) whose roll is (a1, a2): the
    chosen play into ``nxt`` and its value into ``t5`` (mover's view after the play, as
    :func:`_choose` gives them); ``tmpa`` = the sum over the 36 rolls of the roll's value
    f(roll), and ``ws.actual5`` = f(a1, a2). The luck is ``ws.actual5 - tmpa / 36``.

    f(roll) is the value of the roll's best play as :func:`_choose` picks it at ``ply``
    (``k`` = 0), or, with a filter (``k`` > 0), the best at ``ply`` of the ``k`` plays the
    filter net ranks highest (all plays when there are no more than ``k``; in a race valued by a
    side net, their values by the race net): every roll's plays are still generated, but only
    ``k`` of them evaluated. The play made is the one
    :func:`_choose` makes either way; f is a fixed function of the position and the roll, so the
    luck has mean zero and the estimate stays unbiased; the filter only makes it a little less
    tight when it misses a roll's best play."""
    best5 = ws.best5
    fa5 = ws.actual5
    for q in range(5):
        tmpa[q] = 0.0
    ready = np.int64(0)
    if k > 0 and ply <= 0:
        _vr_step_filtered(cur, a1, a2, k, ev, ws, t5, nxt, tmpa)
        return
    if ply <= 0:
        _vr_step_grouped(cur, a1, a2, ev, ws, t5, nxt, tmpa)
        return
    for r in range(21):
        d1 = ROLLS[r, 0]
        d2 = ROLLS[r, 1]
        w = ROLL_WEIGHTS[r]
        actual = d1 == a1 and d2 == a2
        if k <= 0:
            b, ready = _choose_from(cur, d1, d2, ply, ev, ws, best5, ready)
            if actual:
                _take_play(ws.play_pos[b], best5, nxt, t5)
        else:  # a filter at ply >= 1
            if actual:  # the play made: chosen at ``ply`` as without the filter
                b = _choose(cur, d1, d2, ply, ev, ws, best5)
                _take_play(ws.play_pos[b], best5, nxt, t5)
            n = _generate_plays(cur, d1, d2, ws.moves, ws.play_pos, ws.play_moves)
            _filtered_plied(cur, n, k, ply, ev, ws, best5)
        if actual:  # f(a1, a2)
            for q in range(5):
                fa5[q] = best5[q]
        for q in range(5):
            tmpa[q] += w * best5[q]


@kernel(separate=True)
def _vr_step_grouped(cur, a1, a2, ev, ws, t5, nxt, tmpa):
    """:func:`_vr_step` at 0-ply without a filter: every play of the 21 rolls gathered and
    valued in grouped calls (``evaluate._value_rolls``, as 1-ply values them: each roll's
    group exactly as :func:`_choose_from` would, so f(roll), the luck and the play made are
    unchanged bit for bit). The gathering buffer is level 0 of the lookahead workspace
    ``ws.lookahead``, which 0-ply play does not otherwise use."""
    lws = ws.lookahead
    fa5 = ws.actual5
    ra = a1 * (a1 - 1) // 2 + a2 - 1  # (a1, a2)'s index among the 21 rolls, a1 >= a2
    _value_rolls(
        cur, np.int64(ra), ev, ws.moves, ws.eval, lws.play_pos[0], lws.play_moves[0], tmpa, nxt, fa5
    )
    for q in range(5):
        t5[q] = fa5[q]  # the play made is the roll's best: its value is f(a1, a2)


@kernel(separate=True)
def _vr_step_filtered(cur, a1, a2, k, ev, ws, t5, nxt, tmpa):
    """:func:`_vr_step` at 0-ply with a filter of ``k`` > 0: each roll's picks (the filter's
    ``k`` best, scored as move generation makes the plays, or all its plays when it has no
    more) are gathered, then valued in one call
    (``evaluate._best_in_groups``), each roll's group exactly as a call of its own would
    value it; the play made is the evaluator's best of all the actual roll's plays."""
    best5 = ws.best5
    fa5 = ws.actual5
    fw1, fb1, fw2 = ws.filter_net
    fs = ws.filter_scratch
    picks = ws.picks
    ends = ws.pick_ends
    single = ws.pick_single
    ews = ws.eval
    ready = np.int64(0)
    total = 0
    ra = 0
    # one parent pre-activation for the 21 rolls' plays (``fs.parent_h``, which is the
    # level move generation starts from)
    filter_parent(cur, fw1, fb1, fs)
    for r in range(21):
        d1 = ROLLS[r, 0]
        d2 = ROLLS[r, 1]
        n = _generate_scored_plays(cur, d1, d2, ws.moves, ws.play_pos, ws.play_moves, fw1, fw2, fs)
        if d1 == a1 and d2 == a2:  # the play made: the evaluator's best of all
            b, ready = _best_child_from(cur, n, ws.play_pos, ev, ews, best5, ready)
            _take_play(ws.play_pos[b], best5, nxt, t5)
            ra = r
        m = n
        src = ws.play_pos
        if n > k:
            m = filter_keep(cur, ws.play_pos, ws.play_moves, n, k, fw1, fw2, fs)
            src = fs.picked
        for j in range(m):
            _copy_position(picks, total + j, src, j)
        total += m
        ends[r] = total
        # a roll with one play is valued on its own, as _best_child_from values it; a
        # single pick of several (k = 1) incrementally, as any pick is
        single[r] = 1 if n == 1 else 0
    for g in range(21):
        ews.group_ends[g] = ends[g]
        ews.group_best[g] = single[g]
    # the race net values the picks of a race (``side`` 0): f stays a fixed function of the
    # position and the roll, at the race net's cost rather than the side net's
    _best_in_groups(cur, total, picks, ev, ews, ready, np.int64(21), np.int64(0))
    gv = ews.group_values
    for r in range(21):
        w = ROLL_WEIGHTS[r]
        for q in range(5):
            tmpa[q] += w * gv[r, q]
    for q in range(5):
        fa5[q] = gv[ra, q]


@kernel(inline="always")
def _dice(r):
    """The dice of roll ``r`` (0..35: die1 = r // 6 + 1, die2 = r % 6 + 1), higher first."""
    a1 = r // 6 + 1
    a2 = r % 6 + 1
    if a1 < a2:
        a1, a2 = a2, a1
    return a1, a2


@kernel
def _turn_ply(settings, turn):
    """The checker-play ply of turn ``turn``: ``late_ply`` from turn ``late_after`` on."""
    if settings.late_after >= 0 and turn >= settings.late_after:
        return settings.late_ply
    return settings.ply


@kernel
def _truncated(cur, turn, settings, databases, two_sided, one_sided):
    """True when the trial stops before turn ``turn`` in ``cur`` (player on roll) and is
    valued by the evaluator: at the horizon ``settings.truncate``, at the ``MAX_TURNS``
    safety bound, or, with ``databases``, at a position of a bear-off database the settings
    truncate at: the two-sided database's value is exact, the one-sided's a
    close approximation (only if asked for; it covers home-board bear-offs and, extended,
    races where each side has a last checker outside or at most 6 checkers left, see
    ``bearoff.one_sided_applies``)."""
    if settings.truncate > 0 and turn >= settings.truncate:
        return True
    if turn >= MAX_TURNS:
        return True
    if databases and (settings.bearoff or settings.one_sided):
        if settings.bearoff and two_sided.shape[0] > 0 and is_two_sided(cur):
            return True
        if settings.one_sided and one_sided.shape[0] > 0 and one_sided_applies(cur, one_sided):
            return True
    return False


@kernel(inline="always")
def _play_turn(cur, a1, a2, ply, turn, use_cache, need_value, settings, ev, ws, nxt, t5, tmpa):
    """Play the roll (a1, a2) of the player on roll in ``cur``: the chosen play into ``nxt``
    and its value (mover's view after the play) into ``t5``; with variance reduction also
    f(a1, a2) into ``ws.actual5`` and the sum of f over the 36 rolls into ``tmpa``
    (:func:`_vr_step`). Without variance reduction and without ``need_value`` a roll's only
    play is made without valuing it (``t5`` is left as it was). With ``use_cache`` the first
    ``CACHE_TURNS`` turns go through the play cache, which gives bit for bit what playing them
    again would. Inlined into its callers, as :func:`_choose_among` is into it: a call would
    pass the rollout workspace, the evaluator and the settings as about a thousand scalar
    arguments every turn."""
    cache = ws.cache
    cached = use_cache and turn < CACHE_TURNS
    hit = False
    slot = 0
    code = (ply * 8 + a1) * 8 + a2  # the cache's key besides the position
    if cached:
        slot, hit = _cache_find(cache, ws.moves.zobrist, cur, code)
    if hit:
        _copy_position(nxt, 0, cache.children, slot)
        for k in range(5):
            t5[k] = cache.values[slot, k]
            ws.actual5[k] = cache.actual[slot, k]
            tmpa[k] = cache.roll_sums[slot, k]
    elif settings.vr:
        # the value f of every roll (mover's view), and the actual roll's play
        _vr_step(cur, a1, a2, ply, settings.vr_filter, ev, ws, t5, nxt, tmpa)
    else:
        n = _generate_plays(cur, a1, a2, ws.moves, ws.play_pos, ws.play_moves)
        b = 0
        if n > 1 or need_value:
            b = _choose_among(cur, n, ply, ev, ws, t5)
        _copy_position(nxt, 0, ws.play_pos, b)
    if cached and not hit:
        _copy_position(cache.parents, slot, cur, 0)
        _copy_position(cache.children, slot, nxt, 0)
        for k in range(5):
            cache.values[slot, k] = t5[k]
            cache.actual[slot, k] = ws.actual5[k]
            cache.roll_sums[slot, k] = tmpa[k]
        cache.codes[slot] = code


@kernel(inline="always")
def _next_turn(cur, nxt, ply, t5, before5, need_probs, ev, ews):
    """The position after the play ``nxt`` (mover's view) into ``cur``, the opponent on roll;
    with ``need_probs`` its 0-ply probabilities into ``before5``: at 0-ply the chosen play's
    value ``t5`` flipped, else evaluated."""
    swap_sides_into(nxt, cur)
    if need_probs:
        if ply == 0:
            _flip_into(t5, before5)
        else:
            _evaluate0(cur, ev, ews, before5)


@kernel(inline="always")
def _luck_equity(luck):
    """The cubeless equity of summed luck (five probability differences, no constant)."""
    return equity_terms(luck[0], luck[1], luck[2], luck[3], luck[4], 0.0)


@kernel(inline="always")
def _roll_luck_equity(fa5, tmpa):
    """The cubeless equity of one roll's luck, mover's view: f(the roll) minus the mean of f
    over the 36 rolls (``tmpa`` their sum): the terms of ``evaluate.equity_terms``, summed
    in their own order (wins, then losses), which the rollout's results depend on to the last
    bit."""
    return (
        2.0 * (fa5[0] - tmpa[0] / 36.0)
        + (fa5[1] - tmpa[1] / 36.0)
        + (fa5[2] - tmpa[2] / 36.0)
        - (fa5[3] - tmpa[3] / 36.0)
        - (fa5[4] - tmpa[4] / 36.0)
    )


@kernel
def _add_roll_luck(luck, fa5, tmpa, side):
    """Add one roll's luck (f of the roll that came, ``fa5``, minus the mean of f over the 36
    rolls, ``tmpa`` their sum; mover's view) to ``luck`` in the root player's view (``side``
    0: the root player moved)."""
    if side == 0:
        luck[0] += fa5[0] - tmpa[0] / 36.0
        luck[1] += fa5[1] - tmpa[1] / 36.0
        luck[2] += fa5[2] - tmpa[2] / 36.0
        luck[3] += fa5[3] - tmpa[3] / 36.0
        luck[4] += fa5[4] - tmpa[4] / 36.0
    else:
        luck[0] -= fa5[0] - tmpa[0] / 36.0
        luck[1] += fa5[3] - tmpa[3] / 36.0
        luck[2] += fa5[4] - tmpa[4] / 36.0
        luck[3] += fa5[1] - tmpa[1] / 36.0
        luck[4] += fa5[2] - tmpa[2] / 36.0


@kernel
def _settle_states(before5, side, luck, settle, play_on, states):
    """Dahl's settlement limit for the cube states of a ``cubeful`` trial: a player with
    access to the cube whose cubeless equity before rolling (0-ply ``before5``) reaches
    ``settle`` settles the game for 1 point, unless it is above ``play_on`` with a gammon
    still possible. ``states``: the :class:`CubeStates`, of which those the player on roll
    has access to are settled: their value (root view) and the luck (equity) summed up to
    then; a settled state stays as it is."""
    e = equity(before5)  # on-roll player's cubeless equity
    if not e >= settle:
        return
    gammon_possible = before5[1] > 1e-6
    if e > play_on and gammon_possible:
        return
    sgn = 1.0 if side == 0 else -1.0
    eq_luck = _luck_equity(luck)
    for s in range(3):
        if not states.settled[s] and (s == CENTRED or (s == OWNED) == (side == 0)):
            states.settled[s] = True
            states.value[s] = sgn
            states.luck[s] = eq_luck


@kernel
def _aways(settings, side):
    """(points needed by the player of ``side`` at a match score, by his opponent)."""
    if side == 0:
        return settings.away, settings.opp_away
    return settings.opp_away, settings.away


@kernel(separate=True)
def _cube_action(cur, probs, owner, side, cube_v, settings, ws):
    """Live-cube decision of the player on roll (``side``) in ``cur`` with 0-ply ``probs``:
    0 no double (or no access to the cube), 1 double and take, 2 double and pass
    (Janowski model with the position's cube efficiency; at a match score the match cube
    model at the cube ``cube_v``, nobody doubling in the Crawford game nor a cube both sides
    need no more than). ``owner`` is relative to the root player (``side`` 0); the cube
    model's states are relative to the player on roll."""
    access = (
        owner == CENTRED or (owner == OWNED and side == 0) or (owner == OPP_OWNED and side == 1)
    )
    if not access:
        return 0
    x = cube_efficiency(cur)
    state = CENTRED if owner == CENTRED else OWNED
    if settings.match:
        a, b = _aways(settings, side)
        cube = np.int64(cube_v)
        if settings.crawford or cube >= max(a, b):
            return 0
        v = ws.match_values
        match_cube_values(probs, settings.met, a, b, cube, False, x, ws.match_points, v)
        nd = v[state]
        dt = v[3 + OPP_OWNED]
        dp = mwc_after(settings.met, a, b, cube)
        if min(dt, dp) <= nd:
            return 0
        return 2 if dt >= dp else 1
    jacoby = settings.jacoby
    nd = cubeful_equity(probs, x, state, jacoby and owner == CENTRED)
    dt = 2.0 * cubeful_equity(probs, x, OPP_OWNED, False)
    # he plays on only when that beats the double by more than rounding: past his cash point
    # with the cube centred under the Jacoby rule the model's no double is the cash itself
    # (exactly 1.0 once the gammons fill the dead part), and a tie is a double and pass
    if nd > min(dt, 1.0) + CUBE_TIE:
        return 0
    return 2 if dt >= 1.0 else 1


@kernel
def _pass_value(side, cube_v, settings):
    """The root player's score of a game the player of ``side`` won by a pass of ``cube_v``:
    points, or at a match score his MWC."""
    if settings.match:
        return mwc_after(
            settings.met,
            settings.away,
            settings.opp_away,
            np.int64(cube_v) if side == 0 else -np.int64(cube_v),
        )
    return cube_v if side == 0 else -cube_v


@kernel(separate=True)
def _push_split(ws, q, pos, side, turn, owner, cube_v):
    """Record a Zehr split: the line from ``pos`` (``side`` on roll, about to roll at ``turn``)
    with the taker ``owner`` of an undoubled ``cube_v``."""
    for i in range(26):
        ws.split_pos[q, i] = pos[i]
    ws.split_side[q] = side
    ws.split_turn[q] = turn
    ws.split_owner[q] = owner
    ws.split_cube[q] = cube_v


@kernel(separate=True)
def _live_cube_turn(cur, before5, side, turn, owner, cube_v, n_split, split, settings, ws):
    """The live cube before a roll of the player on roll (``side``) in ``cur``: his decision
    (:func:`_cube_action`) and, after a take, the new owner (the taker) and either a Zehr
    split (``split``, while fewer than ``MAX_SPLITS`` lines wait: this line goes on at the
    undoubled cube and the other half is recorded, :func:`_push_split`) or the doubled cube.
    Returns (action, owner, cube value, splits recorded)."""
    act = _cube_action(cur, before5, owner, side, cube_v, settings, ws)
    if act == 1:  # take: the taker owns the cube
        owner = OPP_OWNED if side == 0 else OWNED
        if split and n_split < MAX_SPLITS:
            _push_split(ws, n_split, cur, side, turn, owner, cube_v)
            n_split += 1
        else:
            cube_v *= 2.0
    return act, owner, cube_v, n_split


@kernel
def score_game(root_won, result, cube_v, gammons_count):
    """Points of a finished game for the root player: ``result`` (1 single, 2 gammon,
    3 backgammon) times the cube value, won or lost (``root_won``); a gammon counts single
    when not ``gammons_count`` (the Jacoby rule with the cube centred). The one place a
    finished game is scored on the cube: a match-play scorer replaces it."""
    pts = result if gammons_count else 1.0
    return cube_v * pts if root_won else -cube_v * pts


@kernel(separate=True)
def _live_end(cur, side, final_kind, result, owner, cube_v, settings, ev, ws, tmp5):
    """Points of a finished live-cube line (root view): the game's result on the cube, or, when
    truncated, the Janowski cubeful equity of the final position with the current cube. At a
    match score the root player's MWC: the score the result leads to, or the match cube
    model's value of the truncated position after the cube decision of its player on roll."""
    jacoby = settings.jacoby
    if final_kind == 1:
        # the line ended with the player who moved last winning; ``side`` is that mover
        if settings.match:
            won = result * np.int64(cube_v)
            return mwc_after(
                settings.met, settings.away, settings.opp_away, won if side == 0 else -won
            )
        return score_game(side == 0, result, cube_v, not (jacoby and owner == CENTRED))
    _evaluate0(cur, ev, ws.eval, tmp5)
    x = cube_efficiency(cur)
    if owner == CENTRED:
        k = CENTRED
    elif (owner == OWNED) == (side == 0):
        k = OWNED
    else:
        k = OPP_OWNED
    if settings.match:
        a, b = _aways(settings, side)
        cube = np.int64(cube_v)
        vals = ws.match_values
        match_cube_values(
            tmp5, settings.met, a, b, cube, settings.crawford, x, ws.match_points, vals
        )
        m = vals[k]
        if k != OPP_OWNED and not settings.crawford and cube < max(a, b):
            # his cube decision, as at the cubeful lookahead's leaves: past his cash point
            # the position is worth the cash
            m = max(m, min(vals[3 + OPP_OWNED], mwc_after(settings.met, a, b, cube)))
        return m if side == 0 else 1.0 - m
    v = cube_v * cubeful_equity(tmp5, x, k, jacoby and owner == CENTRED)
    return v if side == 0 else -v


@kernel(separate=True)
def _luck_level(luck, cube_v, settings):
    """The root player's summed ``luck`` (five probability differences) as live-cube score:
    its cubeless equity (money: times ``cube_v`` by the caller), or at a match score its MWC
    at the cube ``cube_v`` (the MWC is linear in the five probabilities)."""
    if not settings.match:
        return _luck_equity(luck)
    _, c1, c2, c3, c4, c5 = mwc_coefficients(
        settings.met, settings.away, settings.opp_away, np.int64(cube_v)
    )
    return luck[0] * c1 + luck[1] * c2 + luck[2] * c3 + luck[3] * c4 + luck[4] * c5


@kernel(inline="always")
def _advance(cur, nxt, ply, t5, before5, need_probs, ev, ews, side):
    """After a play ``nxt`` (mover's view): (the game's result, 1..3, or 0 when it goes on,
    the side on roll). When it goes on, ``cur`` is the next position with the other side
    on roll (:func:`_next_turn`)."""
    res = game_result(nxt)
    if res == 0:
        _next_turn(cur, nxt, ply, t5, before5, need_probs, ev, ews)
        side = 1 - side
    return res, side


@kernel(separate=True)
def _live_line(ws, q, n_split, seq, settings, perms, seed, ev):
    """Play Zehr split ``q`` of the current trial to its end, live cube only; returns (points
    from the root's view minus its variance-reduction luck, the new split count).

    Its dice are pseudo-random from (rollout seed, split number, dice sequence, turn), so the
    trial stays a pure function of its index. Cube handling, truncation and variance reduction
    are those of the main line (:func:`_rollout_trial`); as there while the cube is live, a
    bear-off is played out, not cut at the cubeless databases.
    """
    ews = ws.eval
    t5, tmpa, tmpb = ws.play5, ws.roll_sum5, ws.before5
    cur, nxt = ws.line_cur, ws.line_nxt
    for i in range(26):
        cur[i] = ws.split_pos[q, i]
    side = ws.split_side[q]
    turn = ws.split_turn[q]
    owner = ws.split_owner[q]
    cube_v = ws.split_cube[q]
    branch_seed = np.int64(_mix(seed, 0x2E4E + q, 0x7E11) % np.uint64(2**62))
    _evaluate0(cur, ev, ews, tmpb)
    lk = 0.0
    result = 0  # the game's result when it ends (0: truncated)
    while True:
        # no bear-off database truncation: the cube is live in this line
        if _truncated(cur, turn, settings, False, ev.two_sided, ev.one_sided):
            break
        # (no access at the split itself: the taker owns the cube there)
        act, owner, cube_v, n_split = _live_cube_turn(
            cur, tmpb, side, turn, owner, cube_v, n_split, True, settings, ws
        )
        if act == 2:  # double, pass: the doubler wins the cube's value
            return _pass_value(side, cube_v, settings) - lk, n_split
        ply = _turn_ply(settings, turn)
        a1, a2 = _dice(np.int64(_mix(branch_seed, seq + 0x51, turn) % np.uint64(36)))
        _play_turn(cur, a1, a2, ply, turn, False, ply == 0, settings, ev, ws, nxt, t5, tmpa)
        if settings.vr:
            mover_luck = _roll_luck_equity(ws.actual5, tmpa)
            lk += cube_v * (mover_luck if side == 0 else -mover_luck)
        result, side = _advance(cur, nxt, ply, t5, tmpb, True, ev, ews, side)
        turn += 1
        if result > 0:
            break
    final_kind = 1 if result > 0 else 2
    v = _live_end(cur, side, final_kind, result, owner, cube_v, settings, ev, ws, tmpb)
    return v - lk, n_split


@kernel(separate=True)
def _trial_outcome(cur, side, final_kind, result, ev, ews, t5):
    """The cubeless outcome of a trial's main line, its five probabilities (root view): a
    finished game's result (``final_kind`` 1: the player who moved last, ``side``, won
    ``result`` points), or the 0-ply probabilities of the truncated position ``cur`` (``side``
    on roll)."""
    if final_kind == 1:
        o1 = 1.0 if result >= 2 else 0.0
        o2 = 1.0 if result >= 3 else 0.0
        if side == 0:
            return 1.0, o1, o2, 0.0, 0.0
        return 0.0, 0.0, 0.0, o1, o2
    _evaluate0(cur, ev, ews, t5)  # on-roll view of the truncated position
    if side == 0:
        return (
            np.float64(t5[0]),
            np.float64(t5[1]),
            np.float64(t5[2]),
            np.float64(t5[3]),
            np.float64(t5[4]),
        )
    # the other side's view (as _flip_into)
    return 1.0 - t5[0], np.float64(t5[3]), np.float64(t5[4]), np.float64(t5[1]), np.float64(t5[2])


@kernel(separate=True)
def _rollout_trial(root, cube_v, owner, hold, seq, settings, perms, seed, ev, ws):
    """Play one trial from ``root`` (player on roll about to roll) with dice sequence ``seq``;
    returns its scores, a :class:`Trial` (the root player's view).

    The root's cube, used by the live-cube mode: its value ``cube_v``, its ``owner``
    (``CENTRED``, ``OWNED`` by the root player, ``OPP_OWNED``) and the ``hold`` flag. Both
    players double, take and pass inside the trial by the Janowski model at 0-ply;
    ``Trial.live`` is the points won, in units of the 1-cube (so a root with a 2-cube counts
    double), Jacoby rule as set. With ``hold`` the root player makes no cube decision before
    his first roll: he has decided not to double now (the "No double" branch of a live-cube
    decision); every later decision is the model's.

    A turn: truncation (:func:`_truncated`), the cube states' settlement
    (:func:`_settle_states`), the live cube (:func:`_live_cube_turn`), the play
    (:func:`_play_turn`), its luck (:func:`_add_roll_luck`), the next position
    (:func:`_next_turn`). Then the outcome (:func:`_trial_outcome`) and the scores
    (:func:`_score_trial`, with the Zehr splits' lines, :func:`_live_line`).
    """
    cur, nxt, t5, luck, tmpa = ws.cur, ws.nxt, ws.play5, ws.luck, ws.roll_sum5
    tmpb = ws.before5
    ews = ws.eval
    states = ws.cube_states
    cubeful = settings.cubeful
    live = settings.live_cube
    for i in range(26):
        cur[i] = root[i]
    for k in range(5):
        luck[k] = 0.0
    for s in range(3):
        states.settled[s] = False
        states.value[s] = 0.0
        states.luck[s] = 0.0
    side = 0  # 0: the root player is on roll
    live_done = False
    live_val = 0.0
    live_luck = 0.0
    zehr = live and settings.zehr
    n_split = 0
    need_probs = cubeful or live
    # value of the position before the roll, on-roll view (needed for cube decisions)
    if need_probs:
        _evaluate0(cur, ev, ews, tmpb)
    turn = 0
    result = 0  # the game's result when it ends (0: truncated)
    while True:
        # the databases are cubeless: no truncation at them while a cube state is open or a
        # live cube is in play (a truncated live line would be scored by the cube model; the
        # bear-off is played out instead)
        settled = states.settled
        open_states = cubeful and not (settled[CENTRED] and settled[OWNED] and settled[OPP_OWNED])
        databases = not open_states and not (live and not live_done)
        if _truncated(cur, turn, settings, databases, ev.two_sided, ev.one_sided):
            break
        if cubeful:
            _settle_states(tmpb, side, luck, settings.settle, settings.play_on, states)
        if live and not live_done and not (hold and turn == 0):
            act, owner, cube_v, n_split = _live_cube_turn(
                cur, tmpb, side, turn, owner, cube_v, n_split, zehr, settings, ws
            )
            if act == 2:  # pass: the doubler wins the cube's value
                live_done = True
                live_val = _pass_value(side, cube_v, settings)
        ply = _turn_ply(settings, turn)
        a1, a2 = _dice(roll_of(seq, turn, settings.quasi, settings.stratify_all, perms, seed))
        eq_luck_before = _luck_level(luck, cube_v, settings)
        # the play's value: for the next position's cube decisions, at 0-ply (_next_turn)
        need_value = need_probs and ply == 0
        _play_turn(cur, a1, a2, ply, turn, True, need_value, settings, ev, ws, nxt, t5, tmpa)
        if settings.vr:
            _add_roll_luck(luck, ws.actual5, tmpa, side)
        if live and not live_done:
            if settings.match:
                live_luck += _luck_level(luck, cube_v, settings) - eq_luck_before
            else:
                live_luck += cube_v * (_luck_equity(luck) - eq_luck_before)
        # the next position, opponent on roll; its 0-ply value: the chosen play's, flipped
        result, side = _advance(cur, nxt, ply, t5, tmpb, need_probs, ev, ews, side)
        turn += 1
        if result > 0:
            break
    final_kind = 1 if result > 0 else 2  # the game over, or truncated
    outcome = _trial_outcome(cur, side, final_kind, result, ev, ews, t5)
    live_score = 0.0
    if live:
        if live_done:
            live_score = live_val - live_luck
        else:
            live_score = (
                _live_end(cur, side, final_kind, result, owner, cube_v, settings, ev, ws, tmpb)
                - live_luck
            )
        # the other halves of the Zehr splits, each a line of its own at the undoubled cube
        # (a line may split again while the budget lasts: n_split grows as we go)
        q = 0
        while q < n_split:
            v, n_split = _live_line(ws, q, n_split, seq, settings, perms, seed, ev)
            live_score += v
            q += 1
    return _score_trial(outcome, luck, states, settings.jacoby, cubeful, turn, live_score)


@kernel
def _score_trial(outcome, luck, states, jacoby, cubeful, turns, live):
    """A trial's :class:`Trial` from its cubeless ``outcome`` (five probabilities, root view),
    the ``turns`` played and the ``live`` cube's score: the outcome minus the summed ``luck``
    (variance reduction), the raw and the luck-corrected cubeless equity, and with
    ``cubeful`` the three cube states: the value at settlement minus the luck up to then
    (:func:`_settle_states`), or, never settled, the game's value (single under the Jacoby
    rule with the cube centred: it was never turned)."""
    raw = equity(outcome)
    single = 2.0 * outcome[0] - 1.0  # the game's value when gammons count single (Jacoby)
    total_luck = _luck_equity(luck)
    centred = 0.0
    owned = 0.0
    opp_owned = 0.0
    if cubeful:
        # never settled with the cube centred: under the Jacoby rule gammons count single
        # (its luck: that of the win probability)
        centred_end = (single - 2.0 * luck[0]) if jacoby else (raw - total_luck)
        centred = _settled_value(states, CENTRED, centred_end)
        owned = _settled_value(states, OWNED, raw - total_luck)
        opp_owned = _settled_value(states, OPP_OWNED, raw - total_luck)
    return Trial(
        win=outcome[0] - luck[0],
        win_gammon=outcome[1] - luck[1],
        win_backgammon=outcome[2] - luck[2],
        lose_gammon=outcome[3] - luck[3],
        lose_backgammon=outcome[4] - luck[4],
        cubeless=raw - total_luck,
        centred=centred,
        owned=owned,
        opp_owned=opp_owned,
        raw=raw,
        turns=np.float64(turns),
        live=np.float64(live),
    )


@kernel(inline="always")
def _settled_value(states, s, unsettled):
    """Cube state ``s``'s score: its value at settlement minus the luck up to then, or
    ``unsettled``."""
    return (states.value[s] - states.luck[s]) if states.settled[s] else unsettled


@kernel
def _rollout_chunk(roots, cubes, first_trial, n_trials, settings, perms, seed, ev, ws, out, cancel):
    """Trials ``first_trial .. first_trial + n_trials - 1`` of every root; returns the number
    of trials completed (fewer than ``n_trials`` only when ``cancel[0]`` was set).

    ``roots`` int8[R, 26]; ``cubes`` float64[R, 3], the roots' cubes for the live-cube mode
    (columns ``constants.CUBE_VALUE``, ``CUBE_OWNER``, ``CUBE_HOLD``: see
    :func:`_rollout_trial`; float64[R, 2]: no hold flag); ``out`` float64[R, n_trials,
    NUM_OUT]: trial t of root r, a :class:`Trial`, in ``out[r, t]`` (its fields in order).
    Root r, trial t uses dice sequence ``sequence_index(t)`` for every r (same dice for every
    candidate). ``cancel``: int64[1], or int64[2] whose second element is the run's epoch for
    the play cache (:func:`make_play_cache`).
    """
    initial = settings.initial
    # the play cache holds across calls under one epoch (``cancel[1]``, the same non-zero
    # number): the evaluator and the settings may differ from call to call
    epoch = cancel[1] if cancel.shape[0] > 1 else 0
    cache = ws.cache
    if epoch == 0 or cache.epoch[0] != epoch:
        for i in range(CACHE_SIZE):
            cache.codes[i] = -1
        cache.epoch[0] = epoch
    for j in range(n_trials):
        if cancel[0] != 0:
            return j
        seq = sequence_index(first_trial + j, initial, perms)
        for r in range(roots.shape[0]):
            cube_v = cubes[r, CUBE_VALUE]
            owner = np.int64(cubes[r, CUBE_OWNER])
            hold = cubes.shape[1] > CUBE_HOLD and cubes[r, CUBE_HOLD] != 0.0
            trial = _rollout_trial(
                roots[r], cube_v, owner, hold, seq, settings, perms, seed, ev, ws
            )
            row = out[r, j]
            for k in range(NUM_OUT):
                row[k] = trial[k]
    return n_trials


@kernel
def _accumulate(out, n_done, sums, sumsq, cross):
    """Add trials ``out[:, :n_done]`` to running sums in trial order (deterministic).

    ``sums``/``sumsq`` float64[R, NUM_OUT]; ``cross`` float64[5, R, R]: sums of products between
    roots of the same trials, for the equities in ``PAIRED`` order (cubeless, centred, owned,
    opponent owned, live cube).
    """
    nr = out.shape[0]
    for j in range(n_done):
        for r in range(nr):
            for k in range(NUM_OUT):
                v = out[r, j, k]
                sums[r, k] += v
                sumsq[r, k] += v * v
            for q in range(nr):
                for e in range(4):
                    cross[e, r, q] += out[r, j, O_CUBELESS + e] * out[q, j, O_CUBELESS + e]
                cross[4, r, q] += out[r, j, O_LIVE] * out[q, j, O_LIVE]


@kernel
def _accumulate_states(out, n_done, cs):
    """Add, in trial order, the products of the four cube-state equities of the same trial
    (``O_CUBELESS .. O_OPP_OWNED``) to ``cs`` float64[R, 4, 4]: with the sums, they give the
    covariance of any two of them (a paired standard error of, e.g., double/take - no double
    from one settlement-limit rollout)."""
    nr = out.shape[0]
    for j in range(n_done):
        for r in range(nr):
            for a in range(4):
                va = out[r, j, O_CUBELESS + a]
                for b in range(4):
                    cs[r, a, b] += va * out[r, j, O_CUBELESS + b]
