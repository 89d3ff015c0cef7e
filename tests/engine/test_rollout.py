"""Rollout kernel: quasi-random dice properties, and rollouts that equal n-ply by construction."""

import numpy as np
import pytest
from numba import njit

from bgtui.engine import evaluate_plied, rollout_chunk
from bgtui.engine.constants import OPENING_POSITION
from bgtui.engine.evaluate import hidden_size, make_lookahead_workspace
from bgtui.engine.rollout import (
    NUM_OUT,
    O_CENTRED,
    O_CUBELESS,
    O_OPP_OWNED,
    O_OWNED,
    make_permutations,
    make_rollout_workspace,
    make_settings,
    roll_of,
    sequence_index,
)


@njit(cache=False)
def _rolls(first, n, turns, initial, strat, perms, seed):
    out = np.empty((n, turns), dtype=np.int64)
    for j in range(n):
        s = sequence_index(first + j, initial, perms)
        for t in range(turns):
            out[j, t] = roll_of(s, t, True, strat, perms, seed)
    return out


def _settings(**kw):
    """Rollout settings with everything off but quasi-random dice (and what ``kw`` sets)."""
    fields = dict(quasi=True, vr=False, bearoff=False, jacoby=False)
    fields.update(kw)
    return make_settings(**fields)


def _run(roots, first, n, st, seed, ev):
    perms = make_permutations(seed)
    ws = make_rollout_workspace(hidden_size(ev))
    out = np.zeros((len(roots), n, NUM_OUT))
    cubes = np.tile([1.0, 0.0], (len(roots), 1))
    done = rollout_chunk(
        np.ascontiguousarray(roots, dtype=np.int8),
        cubes,
        first,
        n,
        st,
        perms,
        seed,
        ev,
        ws,
        out,
        np.zeros(1, dtype=np.int64),
    )
    assert done == n
    return out


@pytest.mark.parametrize("seed", [1, 77])
def test_quasi_dice_first_roll_once_in_any_36_consecutive_trials(seed):
    perms = make_permutations(seed)
    r = _rolls(0, 36 * 40, 1, False, False, perms, seed)[:, 0]
    for start in (0, 1, 17, 35, 36, 100, 1000):
        assert sorted(r[start : start + 36]) == list(range(36))


@pytest.mark.parametrize("seed", [1, 77])
def test_quasi_dice_second_and_third_rolls_stratified_in_aligned_blocks(seed):
    perms = make_permutations(seed)
    r = _rolls(0, 46656, 3, False, False, perms, seed)
    for block in range(0, 46656, 36 * 97):
        for t in range(3):
            assert sorted(r[block : block + 36, t]) == list(range(36))
    # any 1296 consecutive trials: every ordered pair of first two rolls exactly once
    for start in (0, 5, 1296, 2000):
        pairs = r[start : start + 1296, 0] * 36 + r[start : start + 1296, 1]
        assert sorted(pairs) == list(range(1296))
    # aligned 1296 blocks: every (first, third) pair once; 46656: every triple once
    pairs = r[:1296, 0] * 36 + r[:1296, 2]
    assert sorted(pairs) == list(range(1296))
    triples = r[:, 0] * 1296 + r[:, 1] * 36 + r[:, 2]
    assert sorted(triples) == list(range(46656))


def test_quasi_dice_initial_position_skips_doubles_30_1080_cycles():
    perms = make_permutations(5)
    r = _rolls(0, 1080 * 2, 2, True, False, perms, 5)
    nondoubles = [x for x in range(36) if x // 6 != x % 6]
    for start in (0, 30, 300):
        assert sorted(r[start : start + 30, 0]) == nondoubles
    for start in (0, 1080):
        pairs = sorted(r[start : start + 1080, 0] * 36 + r[start : start + 1080, 1])
        assert pairs == sorted(a * 36 + b for a in nondoubles for b in range(36))


def test_quasi_dice_stratify_all_later_turns_each_roll_once_per_36():
    perms = make_permutations(9)
    r = _rolls(0, 36 * 20, 12, False, True, perms, 9)
    for block in range(0, 36 * 20, 36):
        for t in range(12):
            assert sorted(r[block : block + 36, t]) == list(range(36))


def test_pseudo_random_dice_are_uniform_and_differ_from_quasi():
    perms = make_permutations(3)

    @njit(cache=False)
    def pseudo(n):
        out = np.empty(n, dtype=np.int64)
        for j in range(n):
            out[j] = roll_of(j, 0, False, False, perms, 3)
        return out

    counts = np.bincount(pseudo(36000), minlength=36)
    # chi-square with 35 degrees of freedom; 99.99th percentile is about 75
    chi2 = ((counts - 1000) ** 2 / 1000).sum()
    assert chi2 < 75


@pytest.mark.parametrize("rolls, seed", [(1, 11), (2, 4)])
def test_quasi_random_rollout_truncated_after_n_rolls_equals_the_n_ply_value(ev, rolls, seed):
    # Given the opening position, a quasi-random rollout of 36**n trials truncated after n
    # rolls uses each sequence of n first rolls once and evaluates the 0-ply-chosen plays at
    # 0-ply: the n-ply value.
    pos = np.array(OPENING_POSITION)
    out = _run(pos[None], 0, 36**rolls, _settings(truncate=rolls), seed, ev)
    want = np.zeros(5, dtype=np.float32)
    evaluate_plied(pos, rolls, ev, make_lookahead_workspace(512), want)
    np.testing.assert_allclose(out[0, :, :5].mean(axis=0), want, atol=2e-6)


def test_variance_reduction_one_roll_has_zero_variance(ev):
    # With variance reduction and truncation after one roll, every trial's estimate is the
    # average over the 36 rolls: the 1-ply value exactly, whatever roll it got.
    pos = np.array(OPENING_POSITION)
    out = _run(pos[None], 0, 36, _settings(truncate=1, vr=1), 2, ev)
    assert out[:, :, O_CUBELESS].std() < 1e-6


def test_variance_reduced_and_plain_rollouts_agree_within_standard_errors(ev):
    # a middle-game position, 4-roll truncated, pseudo-random dice (independent samples)
    pos = np.array(OPENING_POSITION)
    pos[13], pos[11], pos[24], pos[21] = 4, 1, 1, 1
    plain = _run(pos[None], 0, 1500, _settings(truncate=4, quasi=0), 21, ev)[0, :, O_CUBELESS]
    vr = _run(pos[None], 0, 300, _settings(truncate=4, quasi=0, vr=1), 22, ev)[0, :, O_CUBELESS]
    se = np.hypot(plain.std() / np.sqrt(len(plain)), vr.std() / np.sqrt(len(vr)))
    assert abs(plain.mean() - vr.mean()) < 3.5 * se
    assert vr.std() < plain.std()  # and the reduction is real


def test_rollout_results_do_not_depend_on_chunking(ev):
    pos = np.array(OPENING_POSITION)
    st = _settings(truncate=5)
    whole = _run(pos[None], 0, 40, st, 8, ev)
    parts = np.concatenate(
        [_run(pos[None], 0, 13, st, 8, ev), _run(pos[None], 13, 27, st, 8, ev)], axis=1
    )
    assert np.array_equal(whole, parts)


def test_candidates_see_the_same_dice(ev):
    # Two identical roots rolled out together must give identical trials.
    pos = np.array(OPENING_POSITION)
    out = _run(np.stack([pos, pos]), 0, 20, _settings(truncate=6), 3, ev)
    assert np.array_equal(out[0], out[1])


def test_cube_states_settle_at_once_when_the_root_player_cashes(ev):
    # Given a gammonless race the player on roll is sure to win (15 checkers on his 1 point
    # borne off two at a time, the opponent far behind but past contact), the settlement limit
    # (0.5) is reached before the first roll: the game is settled for 1 point with the cube
    # centred or owned by the player; with the opponent owning the cube it is played out.
    pos = np.zeros(26, dtype=np.int8)
    pos[1] = 2  # player: 2 checkers on the 1 point, 13 off
    pos[2] = -1  # opponent: 1 checker on our 2 point (his 23), 14 off -> race, no gammons
    out = _run(pos[None], 0, 36, _settings(cubeful=1), 6, ev)
    assert np.all(out[0, :, O_CENTRED] == 1.0)
    assert np.all(out[0, :, O_OWNED] == 1.0)
    # with the opponent owning the cube the game is played out: the player bears off at once
    assert np.all(out[0, :, O_OPP_OWNED] == 1.0)
    assert np.all(out[0, :, O_CUBELESS] == 1.0)


def _live(roots, cubes, n, ev):
    """Live-cube trials 0..n-1 of ``roots`` with cube states ``cubes`` (Jacoby on)."""
    st = _settings(live_cube=True, jacoby=True)
    out = np.zeros((len(roots), n, NUM_OUT))
    rollout_chunk(
        np.ascontiguousarray(roots, dtype=np.int8),
        cubes,
        0,
        n,
        st,
        make_permutations(1),
        1,
        ev,
        make_rollout_workspace(512),
        out,
        np.zeros(1, dtype=np.int64),
    )
    return out


def test_live_cube_counts_the_cube_value_of_the_root(ev):
    # Given the player on roll bears off his last two checkers from the 1 point with any roll,
    # and the opponent (14 off) cannot be gammoned: with a 2-cube owned by the opponent the
    # player cannot double and wins the game on the 2-cube: +2 in 1-cube units; with the cube
    # centred he wins at least one point whatever he does (cash or play on).
    pos = np.zeros(26, dtype=np.int8)
    pos[1] = 2
    pos[2] = -1
    out = _live(np.stack([pos, pos]), np.array([[2.0, 2.0], [1.0, 0.0]]), 36, ev)
    from bgtui.engine.rollout import O_LIVE

    assert np.all(out[0, :, O_LIVE] == 2.0)
    assert np.all(out[1, :, O_LIVE] == 1.0)


def test_live_cube_opponent_cashes_when_far_ahead(ev):
    # Given the player on roll is far behind (one checker on his 24 point, 14 off) against the
    # opponent's two checkers on the opponent's 2 point (our 23), cube centred: the opponent
    # cashes or wins; gammons are impossible (13 and 14 checkers off), so every trial is worth
    # the cube's final value, won or lost: +-1, +-2, +-4 ..., and on average the player loses.
    pos = np.zeros(26, dtype=np.int8)
    pos[24] = 1
    pos[23] = -2
    out = _live(pos[None], np.array([[1.0, 0.0]]), 72, ev)
    from bgtui.engine.rollout import O_LIVE

    v = np.abs(out[0, :, O_LIVE])
    assert np.all(np.isin(v, [1.0, 2.0, 4.0, 8.0]))
    assert out[0, :, O_LIVE].mean() < 0.0


def test_choose_at_1ply_picks_the_best_1ply_play_among_the_filtered(ev):
    # Given a middle-game position and a roll, the rollout's 1-ply checker play is the play
    # with the best 1-ply value among the (up to 8) plays within 0.16 of the best at 0-ply:
    # recomputed here with the public wrappers.
    from bgtui.engine import choose_play, evaluate_after, evaluate_after_plied
    from bgtui.engine.evaluate import equity
    from bgtui.engine.movegen import generate_plays

    pos = np.array(OPENING_POSITION)
    pos[13], pos[11], pos[24], pos[21] = 4, 1, 1, 1
    ws = make_rollout_workspace(hidden_size(ev))
    for d1, d2 in ((3, 1), (6, 5), (4, 4)):
        children, _ = generate_plays(pos, d1, d2)
        t = np.zeros(5, dtype=np.float32)
        e0 = []
        for c in children:
            evaluate_after(c, ev, ws.eval, t)
            e0.append(equity(t))
        e0 = np.array(e0)
        order = np.argsort(-e0, kind="stable")[:8]
        keep = [i for i in order if e0[i] >= e0[order[0]] - 0.16]
        e1 = {}
        for i in keep:
            evaluate_after_plied(children[i], 1, ev, ws.lookahead, t)
            e1[i] = equity(t)
        want = max(keep, key=lambda i: (e1[i], -list(keep).index(i)))
        best5 = np.zeros(5, dtype=np.float32)
        got = choose_play(pos, d1, d2, 1, ev, ws, best5)
        assert np.array_equal(ws.play_pos[got], children[want]) or e1[want] == pytest.approx(
            equity(best5), abs=1e-7
        )


def test_choose_at_1ply_where_only_the_mover_has_a_row_is_the_0ply_choice(ev):
    # In a race where only the side on roll has a row of the one-sided database the 1-ply
    # blend's weight is 1 (evaluate.one_ply_weight0): the rollout's 1-ply checker play is the
    # first play of the best 0-ply equity, valued by its 0-ply probabilities, bit for bit.
    from bgtui.analysis.weights import with_databases
    from bgtui.engine import choose_play, evaluate_after, make_position, one_ply_weight0
    from bgtui.engine.evaluate import equity
    from bgtui.engine.movegen import generate_plays

    full = with_databases(ev, bearoff=True)
    pos = make_position({6: 5, 5: 5, 4: 5}, {8: 3, 6: 6, 5: 6})
    assert one_ply_weight0(pos) == 1.0
    ws = make_rollout_workspace(hidden_size(full))
    t = np.zeros(5, dtype=np.float32)
    best5 = np.zeros(5, dtype=np.float32)
    for d1, d2 in ((6, 5), (3, 1), (2, 2), (6, 6)):
        children, _ = generate_plays(pos, d1, d2)
        e0 = []
        for c in children:
            evaluate_after(c, full, ws.eval, t)
            e0.append(float(equity(t)))
        want = int(np.argmax(e0))
        got = choose_play(pos, d1, d2, 1, full, ws, best5)
        assert np.array_equal(ws.play_pos[got], children[want])
        evaluate_after(children[want], full, ws.eval, t)
        assert np.array_equal(best5, t)


def _live_zehr(roots, cubes, first, n, ev, zehr):
    from bgtui.engine.rollout import O_LIVE

    st = _settings(live_cube=True, jacoby=True, zehr=zehr)
    out = np.zeros((len(roots), n, NUM_OUT))
    rollout_chunk(
        np.ascontiguousarray(roots, dtype=np.int8),
        cubes,
        first,
        n,
        st,
        make_permutations(3),
        3,
        ev,
        make_rollout_workspace(hidden_size(ev)),
        out,
        np.zeros(1, dtype=np.int64),
    )
    return out[:, :, O_LIVE]


def test_zehr_split_agrees_with_the_plain_live_cube_and_has_a_smaller_spread(ev):
    # Given the player on roll leads (his back checkers escaped, the opponent's are not), the
    # cube is doubled and taken in most games. The Zehr split plays two games at the
    # undoubled cube instead of one at the doubled cube: the same expectation, less spread.
    pos = np.zeros(26, dtype=np.int8)
    pos[5], pos[6], pos[8], pos[13] = 2, 5, 3, 5
    pos[12], pos[17], pos[18], pos[19] = -5, -3, -2, -5
    cubes = np.array([[1.0, 0.0]])
    plain = _live_zehr(pos[None], cubes, 0, 800, ev, False)[0]
    zehr = _live_zehr(pos[None], cubes, 0, 800, ev, True)[0]
    se_p = plain.std() / np.sqrt(len(plain))
    se_z = zehr.std() / np.sqrt(len(zehr))
    # the splits happened, in a share that rests on the nets' cube decisions (0.30 of the
    # trials with the shipped weights)
    assert (plain != zehr).mean() > 0.2
    assert abs(plain.mean() - zehr.mean()) < 4 * np.hypot(se_p, se_z)
    assert se_z < se_p
    # a trial is a pure function of its index: chunking does not matter
    again = np.concatenate(
        [
            _live_zehr(pos[None], cubes, 0, 300, ev, True)[0],
            _live_zehr(pos[None], cubes, 300, 500, ev, True)[0],
        ]
    )
    assert np.array_equal(again, zehr)


def test_zehr_split_changes_nothing_where_no_cube_is_taken(ev):
    # The player bears off his last two checkers at once: with the opponent owning a 2-cube
    # nobody can double, so the split never happens and each trial is worth exactly +2.
    pos = np.zeros(26, dtype=np.int8)
    pos[1] = 2
    pos[2] = -1
    out = _live_zehr(pos[None], np.array([[2.0, 2.0]]), 0, 36, ev, True)
    assert np.all(out == 2.0)


@pytest.mark.parametrize("vr", [0, 1])
def test_play_cache_changes_no_result(ev, vr):
    """The first turns' plays are cached per worker (``make_play_cache``): a hit must give
    bit for bit what playing the turn again gives. A run of 144 trials in chunks that share
    the cache (one epoch) equals the same trials one per call with the cache emptied every
    call (epoch 0, so no trial sees another's entries), and the cache was used: the 144
    first turns made exactly 21 entries (one per distinct roll of the root)."""
    from bgtui.engine.rollout import CACHE_TURNS

    root = np.array(OPENING_POSITION, dtype=np.int8)
    root[13], root[11], root[24], root[21] = 4, 1, 1, 1
    st = _settings(truncate=5, vr=vr)
    perms = make_permutations(5)
    cubes = np.array([[1.0, 0.0]])
    roots = np.ascontiguousarray(root[None])
    n = 144
    shared = np.zeros((1, n, NUM_OUT))
    ws = make_rollout_workspace(hidden_size(ev))
    flag = np.array([0, 7], dtype=np.int64)  # epoch 7 for every chunk
    for first in range(0, n, 36):
        rollout_chunk(
            roots, cubes, first, 36, st, perms, 5, ev, ws, shared[:, first : first + 36], flag
        )
    used = ws.cache.codes >= 0
    first_turn = int((ws.cache.parents[used] == root).all(axis=1).sum())
    # the 144 first turns (every first roll four times): one entry for each of the 21
    # distinct rolls of the root, each kept once and reused
    assert first_turn == 21
    assert int(used.sum()) < CACHE_TURNS * n - 100
    alone = np.zeros((1, n, NUM_OUT))
    ws2 = make_rollout_workspace(hidden_size(ev))
    for t in range(n):
        rollout_chunk(
            roots,
            cubes,
            t,
            1,
            st,
            perms,
            5,
            ev,
            ws2,
            alone[:, t : t + 1],
            np.zeros(1, dtype=np.int64),
        )
    np.testing.assert_array_equal(shared, alone)


def test_play_cache_is_emptied_for_another_run(ev):
    """An entry made under one evaluator is not used under another: a new epoch (or none)
    empties the cache, so a workspace reused with other nets gives those nets' results."""
    root = np.array(OPENING_POSITION, dtype=np.int8)
    st = _settings(truncate=2)
    perms = make_permutations(3)
    cubes = np.array([[1.0, 0.0]])
    roots = np.ascontiguousarray(root[None])
    rng = np.random.default_rng(4)
    contact = tuple((a + rng.normal(0, 0.3, a.shape)).astype(np.float32) for a in ev.contact[:4])
    early = tuple((a + rng.normal(0, 0.3, a.shape)).astype(np.float32) for a in ev.early[:4])
    from bgtui.engine.evaluate import as_net
    from bgtui.engine.nn import make_tables

    # the contact nets perturbed: the opening's lines are the early nets' (the trailing, the
    # mutual, the anchor nets and the bar nets below EARLY_PIPS are the contact net, the early
    # trailing and the early bar nets the early net)
    contact, ctab = as_net(contact), make_tables(contact)
    early, etab = as_net(early), make_tables(early)
    tables = (ctab, *ev.tables[1:3], etab, ev.tables[4], *(ctab,) * 7, etab, etab, etab)
    tables += (ctab,) * 8
    below = ("trailing", "mutual", "mutual_trailing")
    below += ("anchor", "mutual_anchor", "trailing_anchor", "mutual_trailing_anchor")
    below += tuple(f"{name}_bar" for name in ("contact", *below))
    ev2 = ev._replace(
        contact=contact,
        tables=tables,
        **dict.fromkeys(below, contact),
        **dict.fromkeys(("early", "early_trailing", "early_bar", "early_trailing_bar"), early),
    )
    ws = make_rollout_workspace(hidden_size(ev))
    a = np.zeros((1, 36, NUM_OUT))
    b = np.zeros((1, 36, NUM_OUT))
    ref = np.zeros((1, 36, NUM_OUT))
    rollout_chunk(roots, cubes, 0, 36, st, perms, 3, ev, ws, a, np.array([0, 11], dtype=np.int64))
    rollout_chunk(roots, cubes, 0, 36, st, perms, 3, ev2, ws, b, np.array([0, 12], dtype=np.int64))
    rollout_chunk(
        roots,
        cubes,
        0,
        36,
        st,
        perms,
        3,
        ev2,
        make_rollout_workspace(hidden_size(ev)),
        ref,
        np.zeros(1, dtype=np.int64),
    )
    np.testing.assert_array_equal(b, ref)
    assert not np.array_equal(a, b)
