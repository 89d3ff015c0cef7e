"""The race side net: its inputs, its kernel against a dense forward pass written here, the
one-sided formula against brute force and against the bear-off databases' formula, and its
place in the evaluator."""

import numpy as np
import pytest

from bgtui.analysis.bearoff_cache import get_one_sided
from bgtui.analysis.weights import (
    WeightsError,
    evaluator_digest,
    load_weights,
    nets_of,
    save_weights,
    with_databases,
)
from bgtui.engine import (
    MAX_PLAYS,
    MOVE_SIZE,
    RACE_SIDE_MARGIN,
    RACE_SIDE_PLAYS,
    SIDE_BUCKETS,
    SIDE_INPUTS,
    SIDE_OUTPUTS,
    best_play0,
    encode_sides,
    evaluate0,
    fixed_heads,
    game_result,
    generate_plays,
    hidden_size,
    is_race,
    make_eval_workspace,
    make_move_workspace,
    make_side_net,
    one_sided_race_probs,
    side_dists,
    side_race_probs,
    swap_sides,
)
from bgtui.engine.evaluate import _sanitize, equity
from bgtui.engine.side import _race5, side_row

NB = SIDE_BUCKETS


def _random_side_net(rng, hidden=24, scale=0.3):
    w = [
        rng.standard_normal((SIDE_INPUTS, hidden)) * scale,
        rng.standard_normal(hidden) * scale,
        rng.standard_normal((hidden, SIDE_OUTPUTS)) * scale,
        rng.standard_normal(SIDE_OUTPUTS) * scale,
        rng.standard_normal((SIDE_INPUTS, SIDE_OUTPUTS)) * scale,
    ]
    return w, make_side_net(*w)


def _random_race(rng, straggler=False):
    """A race position (player on roll): the player's checkers on points 1..12, the
    opponent's on its points 1..12 (slots 13..24), some borne off; with ``straggler`` one
    more checker each, on 12 and on the opponent's 12 (never both sides home)."""
    pos = np.zeros(26, dtype=np.int8)
    for sign, lo in ((1, 1), (-1, 13)):
        for _ in range(rng.integers(1, 15)):
            pos[lo + rng.integers(0, 12)] += sign
    if straggler:
        pos[12] += 1
        pos[13] -= 1
    return pos


def _deep_race(rng):
    """A race in which the player on roll has all 15 checkers on points 1..22, some of them on
    19..22, and the opponent has its checkers on its points 1 and 2 (slots 23 and 24)."""
    pos = np.zeros(26, dtype=np.int8)
    for _ in range(14):
        pos[1 + rng.integers(0, 22)] += 1
    pos[19 + rng.integers(0, 4)] += 1
    for _ in range(rng.integers(1, 15)):
        pos[23 + rng.integers(0, 2)] -= 1
    return pos


def _side_of(pos, side):
    s = np.zeros(25, dtype=np.int8)
    for p in range(1, 25):
        s[p] = max(pos[p], 0) if side == 0 else max(-pos[25 - p], 0)
    return s


def test_inputs_of_a_side_by_hand():
    side = np.zeros(25, dtype=np.int8)
    side[6], side[8], side[20] = 2, 5, 1  # 8 checkers, 7 off, 72 pips
    x = encode_sides(side[None])[0]
    assert x.shape == (SIDE_INPUTS,)
    want = np.zeros(SIDE_INPUTS)
    want[[5, 24 + 5]] = 1  # point 6: at least 1 and 2
    want[[7, 24 + 7, 48 + 7]] = 1  # point 8: at least 1, 2, 3
    want[72 + 7] = 1.0  # and (5 - 3) / 2
    want[19] = 1  # point 20: at least 1
    want[96:100] = [7 / 15, 0.72, 6 / 15, 1 / 15]
    v = 72 / 8.17
    want[100 + 8], want[100 + 9] = 9 - v, v - 8
    want[100 + NB] = 1.0  # not 15 checkers: 0 rolls to a first checker off
    v = 2 / 8.17
    want[100 + 2 * NB], want[100 + 2 * NB + 1] = 1 - v, v
    assert np.allclose(x, want, atol=1e-6)


def test_kernel_matches_a_dense_forward_pass():
    rng = np.random.default_rng(5)
    w, net = _random_side_net(rng)
    w1, b1, w2, b2, skip = w
    u = np.zeros(w1.shape[1] + SIDE_OUTPUTS, dtype=np.float32)
    out = np.zeros((3, NB), dtype=np.float32)
    fixed = [0, 0]
    for k in range(40):
        pos = _random_race(rng) if k % 2 else _deep_race(rng)
        for side in (0, 1):
            x = encode_sides(_side_of(pos, side)[None]).astype(np.float64)
            z = np.tanh(x @ w1 + b1) @ w2 + b2 + x @ skip
            z = z.reshape(3, NB)
            p = np.exp(z - z.max(axis=1, keepdims=True))
            p /= p.sum(axis=1, keepdims=True)
            checkers = _side_of(pos, side)[1:25]
            if checkers.sum() < 15:  # a checker off: 0 rolls to the first
                p[1] = np.eye(NB)[0]
            if checkers[18:].sum() == 0:  # none on 19..24: 0 rolls to leave them
                p[2] = np.eye(NB)[0]
            np.testing.assert_array_equal(
                fixed_heads(_side_of(pos, side)[None])[0, 1:],
                [checkers.sum() < 15, checkers[18:].sum() == 0],
            )
            side_dists(pos, side, net, u, out)
            assert np.abs(out - p).max() < 1e-5
            fixed[side] += checkers[18:].sum() == 0
    assert fixed[0] == 20 and fixed[1] == 40  # sides with and without checkers on 19..24


def _distribution(rng, first_zero=True):
    p = rng.random(NB) ** 4
    if first_zero:
        p[0] = 0
    return p / p.sum()


def test_the_formula_counts_like_brute_force():
    rng = np.random.default_rng(7)
    for _ in range(20):
        pa = np.stack([_distribution(rng), _distribution(rng), _distribution(rng, False)])
        pb = np.stack([_distribution(rng), _distribution(rng), _distribution(rng, False)])
        # consistent sides: a first checker off never after the last, 19..24 left before either
        pa[1] = pa[0]
        pb[1] = np.roll(pb[0], -1)
        pb[1, 0] += pb[1, -1]
        pb[1, -1] = 0
        pa[2] = pb[2] = 0
        pa[2, 0] = 1
        pb[2, 0] = 0.5
        pb[2, 1] = 0.5
        want = np.zeros(5)
        for a in range(NB):
            for b in range(NB):
                # the player, on roll, finishes on its roll a, the opponent on its roll b
                want[0] += pa[0, a] * pb[0, b] * (a <= b)
                want[1] += pa[0, a] * pb[1, b] * (b >= a)  # opponent's first off: b rolls
                want[2] += pa[0, a] * pb[2, b] * (b >= a)
                want[3] += pb[0, b] * pa[1, a] * (a >= b + 1)
                want[4] += pb[0, b] * pa[2, a] * (a >= b + 1)
        out = np.zeros(5, dtype=np.float32)
        _race5(pa.astype(np.float32), pb.astype(np.float32), out)
        assert np.allclose(out, want, atol=1e-5)


def test_two_database_rows_give_the_databases_formula():
    db = get_one_sided().dist
    rng = np.random.default_rng(9)
    _, net = _random_side_net(rng)
    u = np.zeros(64 + SIDE_OUTPUTS, dtype=np.float32)
    d = np.zeros((2, 3, NB), dtype=np.float32)
    out, want = np.zeros(5, dtype=np.float32), np.zeros(5, dtype=np.float32)
    for _ in range(30):
        pos = np.zeros(26, dtype=np.int8)
        for _ in range(rng.integers(1, 16)):
            pos[1 + rng.integers(0, 6)] += 1
        for _ in range(rng.integers(1, 16)):
            pos[19 + rng.integers(0, 6)] -= 1
        side_race_probs(pos, net, db, u, d, out)
        one_sided_race_probs(pos, db, want)
        assert np.allclose(out, want, atol=2e-6)


@pytest.fixture(scope="module")
def shipped():
    return load_weights()[0]


def test_the_evaluator_values_races_by_the_side_net(shipped):
    rng = np.random.default_rng(11)
    _, net = _random_side_net(rng, hidden=32)
    plain = with_databases(nets_of(shipped))
    ev = with_databases(nets_of(shipped), side=net)
    assert evaluator_digest(ev) != evaluator_digest(plain)
    u = np.zeros(32 + SIDE_OUTPUTS, dtype=np.float32)
    d = np.zeros((2, 3, NB), dtype=np.float32)
    empty = np.zeros((0, 2, NB), dtype=np.float32)
    for _ in range(20):
        pos = _random_race(rng, straggler=True)
        assert is_race(pos)
        want = np.zeros(5, dtype=np.float32)
        side_race_probs(pos, net, empty, u, d, want)
        _sanitize(pos, want)
        assert np.array_equal(evaluate0(pos, ev), want)
    opening = np.array(
        [0, -2, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, -5, 5, 0, 0, 0, -3, 0, -5, 0, 0, 0, 0, 2, 0]
    )
    assert np.array_equal(evaluate0(opening.astype(np.int8), ev), evaluate0(opening, plain))


def test_with_the_databases_the_side_net_values_the_races_where_the_roller_has_no_row(shipped):
    """With the one-sided database the side net values a race outside the databases only where
    the side on roll has no row of it (by the formula, a side with a row from that row); where
    it has one, the race net does, as without a side net."""
    rng = np.random.default_rng(21)
    _, net = _random_side_net(rng, hidden=32)
    plain = with_databases(nets_of(shipped), bearoff=True)
    ev = with_databases(nets_of(shipped), bearoff=True, side=net)
    one = ev.one_sided
    u = np.zeros(32 + SIDE_OUTPUTS, dtype=np.float32)
    d = np.zeros((2, 3, NB), dtype=np.float32)
    seen = {"side net": 0, "race net": 0}
    for k in range(400):
        pos = _random_race(rng, straggler=k % 2 == 1)
        if k % 4 == 2:  # the player's checkers all home, the opponent's not
            pos[7:13] = 0
            pos[13] -= 1
        rows = [side_row(pos, s, one.shape[0]) >= 0 for s in (0, 1)]
        if all(rows) or game_result(pos):
            continue
        if rows[0]:
            assert np.array_equal(evaluate0(pos, ev), evaluate0(pos, plain))
            seen["race net"] += 1
        else:
            want = np.zeros(5, dtype=np.float32)
            side_race_probs(pos, net, one, u, d, want)
            _sanitize(pos, want)
            assert np.array_equal(evaluate0(pos, ev), want)
            seen["side net"] += 1
    assert min(seen.values()) >= 20, seen


def _flip(p):
    return np.array([1 - p[0], p[3], p[4], p[1], p[2]], dtype=np.float32)


@pytest.mark.parametrize("bearoff", [False, True])
def test_a_race_best_play_is_the_side_nets_best_of_the_race_nets_best(shipped, bearoff):
    """Move selection in a race valued by the side net: the race net ranks the plays, the side
    net values the best RACE_SIDE_PLAYS within RACE_SIDE_MARGIN of the race net's best (a play a
    database values ranks by that value), each as evaluating it alone does,
    bit for bit, with and without the bear-off databases. Where the side not moving has a row
    of the one-sided database the race net alone chooses, as without a side net."""
    rng = np.random.default_rng(13)
    _, net = _random_side_net(rng, hidden=32)
    ev = with_databases(nets_of(shipped), bearoff=bearoff, side=net)
    plain = with_databases(nets_of(shipped), bearoff=bearoff)
    mws = make_move_workspace()
    ews = make_eval_workspace(hidden_size(ev))
    op = np.zeros((MAX_PLAYS, 26), dtype=np.int8)
    om = np.zeros((MAX_PLAYS, MOVE_SIZE), dtype=np.int8)
    best5 = np.zeros(5, dtype=np.float32)
    nrows = ev.one_sided.shape[0]
    checked = differs = by_race_net = 0
    for k in range(200):
        pos = _random_race(rng, straggler=k % 2 == 1)
        d1, d2 = int(rng.integers(1, 7)), int(rng.integers(1, 7))
        children, _ = generate_plays(pos, d1, d2)
        if len(children) < 2 or any(game_result(c) for c in children):
            continue
        if nrows > 0 and side_row(pos, 1, nrows) >= 0:
            ews0 = make_eval_workspace(hidden_size(plain))
            want5 = np.zeros(5, dtype=np.float32)
            want = best_play0(pos, d1, d2, plain, mws, ews0, op, om, want5)
            assert best_play0(pos, d1, d2, ev, mws, ews, op, om, best5) == want
            assert np.array_equal(best5, want5)
            by_race_net += 1
            continue
        # the race net's values, or a database's (the same in both evaluators)
        net_eq = [float(equity(_flip(evaluate0(swap_sides(c), plain)))) for c in children]
        top = max(net_eq)
        finite = np.sort(net_eq)
        if np.any(np.diff(finite) < 1e-5) or np.any(np.abs(finite - top + RACE_SIDE_MARGIN) < 1e-5):
            continue  # ties, or a play at the margin: the incremental race net may order them
        order = sorted(range(len(children)), key=lambda i: -net_eq[i])
        picked = [i for i in order if net_eq[i] >= top - RACE_SIDE_MARGIN][:RACE_SIDE_PLAYS]
        alone = {i: _flip(evaluate0(swap_sides(children[i]), ev)) for i in picked}
        want = max(picked, key=lambda i: (float(equity(alone[i])), -picked.index(i)))
        i, n = best_play0(pos, d1, d2, ev, mws, ews, op, om, best5)
        assert n == len(children) and i == want
        assert np.array_equal(best5, alone[i])
        everything = [float(equity(_flip(evaluate0(swap_sides(c), ev)))) for c in children]
        differs += int(np.argmax(everything)) != i
        checked += 1
    assert checked >= 20 and differs > 0  # the filter mattered somewhere
    assert by_race_net >= 10 if bearoff else by_race_net == 0


@pytest.mark.parametrize("bearoff", [False, True])
def test_the_side_not_moving_is_remembered_per_net_bit_for_bit(shipped, bearoff):
    """One workspace, three side nets taking turns at choosing plays in the same races (each
    roll three times by each net: the side not moving is then remembered from the call before,
    and the next net finds the last one's in memory): every choice and value is the one a
    fresh workspace finds, bit for bit. Two of the nets have the same weights and different
    identities."""
    rng = np.random.default_rng(23)
    _, a = _random_side_net(rng, hidden=32)
    w, b = _random_side_net(rng, hidden=32)
    again = make_side_net(*w)
    assert again.ident[0] != b.ident[0]
    evs = [with_databases(nets_of(shipped), bearoff=bearoff, side=n) for n in (a, b, again)]
    mws = make_move_workspace()
    ews = make_eval_workspace(hidden_size(evs[0]))
    op = np.zeros((MAX_PLAYS, 26), dtype=np.int8)
    om = np.zeros((MAX_PLAYS, MOVE_SIZE), dtype=np.int8)
    got, want = np.zeros(5, dtype=np.float32), np.zeros(5, dtype=np.float32)
    differ = remembered = 0
    for k in range(40):
        pos = _random_race(rng, straggler=k % 2 == 1)
        if game_result(pos):
            continue
        for d1, d2 in ((6, 5), (3, 1), (2, 2)):
            values = []
            for ev in evs:
                for _ in range(3):
                    before = ews.side_memo.copy()
                    i = best_play0(pos, d1, d2, ev, mws, ews, op, om, got)
                    remembered += before[2] == ev.side.ident[0]
                    fresh = make_eval_workspace(hidden_size(ev))
                    assert best_play0(pos, d1, d2, ev, mws, fresh, op, om, want) == i
                    assert np.array_equal(got, want)
                    values.append(got.copy())
            differ += not np.array_equal(values[0], values[3])
    assert remembered > 0
    assert differ >= 20  # a's values are not b's: a mixed-up memory would show


def test_weights_keep_the_side_net(tmp_path, shipped):
    rng = np.random.default_rng(15)
    w, net = _random_side_net(rng, hidden=8)
    path = tmp_path / "w.npz"
    save_weights(path, shipped, {"note": "test"}, side=net)
    ev, meta = load_weights(path)
    assert meta["hidden"]["side"] == 8
    for a, b in zip(w, (ev.side.w1, ev.side.b1, ev.side.w2, ev.side.b2, ev.side.skip)):
        assert np.array_equal(np.float32(a), b)
    assert np.array_equal(ev.side.tab, net.tab)
    z = dict(np.load(path))
    z["side_w2"] = z["side_w2"][:, :10]
    import json

    from bgtui.analysis.checksum import arrays_sha256

    meta = json.loads(str(z.pop("meta")))
    meta["sha256"] = arrays_sha256(z)
    np.savez(tmp_path / "bad.npz", meta=np.array(json.dumps(meta)), **z)
    with pytest.raises(WeightsError, match="side net has inconsistent shapes"):
        load_weights(tmp_path / "bad.npz")


def test_variance_reductions_picks_are_valued_by_the_race_net(shipped):
    """``_best_in_groups`` with ``side`` 0 (variance reduction's picks) values a race's groups
    by the race net even when the evaluator has a side net: the same values, bit for bit, as
    the evaluator without one."""
    from bgtui.engine.evaluate import _best_in_groups

    rng = np.random.default_rng(17)
    _, net = _random_side_net(rng, hidden=16)
    ev = with_databases(nets_of(shipped), bearoff=True, side=net)
    plain = with_databases(nets_of(shipped), bearoff=True)
    for k in range(8):
        pos = _random_race(rng, straggler=True)
        picks, ends = [], []
        for d1 in range(1, 7):
            for d2 in range(1, d1 + 1):
                children, _ = generate_plays(pos, d1, d2)
                picks.extend(children[:3])
                ends.append(len(picks))
        picks = np.ascontiguousarray(picks, dtype=np.int8)
        values = []
        for e, side in ((ev, 0), (plain, 1), (ev, 1)):
            ews = make_eval_workspace(hidden_size(e))
            ews.group_ends[:21] = ends
            ews.group_best[:21] = 0
            _best_in_groups(pos, len(picks), picks, e, ews, 0, 21, side)
            values.append((ews.group_values[:21].copy(), ews.group_best[:21].copy()))
        assert np.array_equal(values[0][0], values[1][0])
        assert np.array_equal(values[0][1], values[1][1])
        if k == 0:
            assert not np.array_equal(values[2][0], values[1][0])  # the side net's differ


def test_one_ply_gathers_more_plays_than_a_roll_can_have(shipped):
    """A race whose 21 rolls have more plays than MAX_PLAYS: the lookahead values them in
    grouped calls of up to twice that many, through the side net's groups, and gets the
    average of each roll's best play as valued roll by roll."""
    from bgtui.engine import ROLL_WEIGHTS, ROLLS, evaluate_plied, make_lookahead_workspace

    rng = np.random.default_rng(19)
    _, net = _random_side_net(rng, hidden=16)
    ev = with_databases(nets_of(shipped), side=net)
    pos = np.zeros(26, dtype=np.int8)
    pos[[7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 18, 19, 20, 21, 23]] = 1
    pos[24] = -15
    assert is_race(pos)
    plays = sum(len(generate_plays(pos, int(a), int(b))[0]) for a, b in ROLLS)
    assert plays > MAX_PLAYS
    out = np.zeros(5, dtype=np.float32)
    evaluate_plied(pos, 1, ev, make_lookahead_workspace(hidden_size(ev)), out)
    mws = make_move_workspace()
    ews = make_eval_workspace(hidden_size(ev))
    op = np.zeros((MAX_PLAYS, 26), dtype=np.int8)
    om = np.zeros((MAX_PLAYS, MOVE_SIZE), dtype=np.int8)
    b5 = np.zeros(5, dtype=np.float32)
    acc = np.zeros(5)
    for (d1, d2), w in zip(ROLLS, ROLL_WEIGHTS):
        best_play0(pos, int(d1), int(d2), ev, mws, ews, op, om, b5)
        acc += w * b5
    assert np.allclose(out, acc / 36, atol=1e-6)


def test_the_softmaxes_exponential_is_exp_to_four_millionths():
    from bgtui.engine.side import _exp_neg

    for x in np.concatenate([np.linspace(-31.9, 0.0, 4001), [-1e-6, -0.5, -16.0]]):
        want = np.exp(np.float64(np.float32(x)))
        assert abs(_exp_neg(np.float32(x)) - want) <= 4e-6 * want
    assert _exp_neg(np.float32(0.0)) == pytest.approx(1.0, abs=4e-6)
    assert 0 < _exp_neg(np.float32(-80.0)) <= np.exp(-31.9)


def _leaving_contact(rng):
    """A contact position (player on roll) one play from a race: the player's checkers on
    points 1..12 and one on 14..17, the opponent's on its points 1..12 (slots 13..24) but that
    one, one on slot 13."""
    pos = np.zeros(26, dtype=np.int8)
    for _ in range(rng.integers(3, 14)):
        pos[1 + rng.integers(0, 12)] += 1
    s = 14 + rng.integers(0, 4)
    pos[s] = 1
    pos[13] = -1
    for _ in range(rng.integers(2, 14)):
        q = 13 + rng.integers(0, 12)
        pos[q if q != s else 13] -= 1
    return pos


@pytest.mark.parametrize("bearoff", [False, True])
def test_plays_from_contact_into_a_race_are_valued_as_alone_bit_for_bit(shipped, bearoff):
    """A contact position's plays that reach a race are valued in move selection as
    evaluating each alone values it (the side net's distributions of the side not moving
    are found once for all of them), bit for bit, with and without the bear-off databases;
    the chosen play is the best of all."""
    rng = np.random.default_rng(17)
    _, net = _random_side_net(rng, hidden=32)
    ev = with_databases(nets_of(shipped), bearoff=bearoff, side=net)
    mws = make_move_workspace()
    ews = make_eval_workspace(hidden_size(ev))
    op = np.zeros((MAX_PLAYS, 26), dtype=np.int8)
    om = np.zeros((MAX_PLAYS, MOVE_SIZE), dtype=np.int8)
    best5 = np.zeros(5, dtype=np.float32)
    race_best = 0
    for _ in range(150):
        pos = _leaving_contact(rng)
        assert not is_race(pos)
        d1, d2 = int(rng.integers(1, 7)), int(rng.integers(1, 7))
        children, _ = generate_plays(pos, d1, d2)
        races = [is_race(c) and not game_result(c) for c in children]
        if len(children) < 2 or not any(races):
            continue
        alone = [_flip(evaluate0(swap_sides(c), ev)) for c in children]
        i, n = best_play0(pos, d1, d2, ev, mws, ews, op, om, best5)
        assert n == len(children)
        assert float(equity(best5)) >= max(float(equity(a)) for a in alone) - 2e-5
        if races[i]:
            assert np.array_equal(best5, alone[i])
            race_best += 1
        else:
            assert np.abs(best5 - alone[i]).max() < 2e-5
    assert race_best >= 20
