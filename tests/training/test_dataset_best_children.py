"""``train dataset --children-best K``: the positions after the K best 0-ply plays of every roll."""

import io
import json

import numpy as np
import pytest

from bgtui.analysis.service import Analyzer
from bgtui.engine.constants import START
from bgtui.engine.evaluate import hidden_size, make_play_workspace
from bgtui.engine.movegen import generate_plays
from bgtui.engine.position import game_result, is_race, swap_sides
from bgtui.engine.rng import make_rng
from bgtui.engine.selfplay import _roll
from bgtui.training.kernels import _sample_best_children


def _mover_equity(an, child):
    """Cubeless equity for the side that made the play reaching ``child`` (mover's view),
    from the Analyzer's 0-ply probabilities of the position with the opponent on roll."""
    r = game_result(child)
    if r > 0:
        return float(r)
    p = an.probabilities(swap_sides(child), 0).astype(np.float64)  # opponent's view
    # the opponent's (w, wg, wbg, lg, lbg) seen by the mover
    return 2.0 * (1.0 - p[0]) - 1.0 + p[3] - p[1] + p[4] - p[2]


@pytest.mark.parametrize("k", [1, 3])
def test_children_best_stores_the_k_best_plays_of_every_roll_by_0ply_equity(k):
    # Opening position; two greedy self-play games of the shipped weights, replayed here in
    # Python: the same dice (the same random stream), every legal play ranked by the
    # Analyzer's 0-ply equity, and the roll's group of stored positions compared with the K
    # best (the game going on from the first of the group, the best play).
    an = Analyzer()
    ev = an.ev
    seed, games = 9, 2
    dest = np.zeros((4000, 26), dtype=np.int8)
    groups = np.full(4000, -7, dtype=np.int32)
    m = _sample_best_children(
        ev, games, make_rng(seed), START, k, make_play_workspace(hidden_size(ev)), dest, groups
    )
    assert 0 < m < len(dest)

    rng = make_rng(seed)
    pos, first, at, done, rolls = START.copy(), True, 0, 0, 0
    while done < games:
        d1, d2 = _roll(rng, first)
        first = False
        rolls += 1
        children, _ = generate_plays(pos, int(d1), int(d2))
        eqs = np.array([_mover_equity(an, c) for c in children])
        order = np.argsort(-eqs, kind="stable")
        top = order[:k]
        want = [i for i in top if game_result(children[i]) == 0]
        group = dest[at : at + len(want)]
        assert np.all(groups[at : at + len(want)] == rolls - 1)  # the roll's index, from 0
        at += len(want)
        stored = {g.tobytes() for g in group}
        assert len(stored) == len(group)  # distinct plays
        by_key = {swap_sides(c).tobytes(): e for c, e in zip(children, eqs)}
        kth = eqs[top[-1]]
        for g in group:  # every stored position is a play of this roll among the K best
            assert g.tobytes() in by_key and by_key[g.tobytes()] >= kth - 1e-6
        if len(order) <= k or eqs[order[k]] < kth - 1e-6:  # no tie at the K-th: the same set
            assert stored == {swap_sides(children[i]).tobytes() for i in want}
        if game_result(children[order[0]]) > 0:
            done += 1
            pos, first = START.copy(), True
            continue
        assert by_key[group[0].tobytes()] == pytest.approx(eqs[order[0]], abs=1e-6)
        pos = group[0].copy()  # the best play, the opponent on roll
    assert at == m  # nothing else stored
    assert rolls > 40
    if k == 1:  # one per roll: the positions the game went through
        assert m >= rolls - games


def test_a_children_best_dataset_records_the_option_and_refuses_two_kinds(tmp_path):
    from bgtui.analysis.weights import save_weights, with_databases
    from bgtui.engine.nn import init_net
    from bgtui.training.train import DatasetSpec, build_dataset, load_dataset

    ck = tmp_path / "small.npz"
    save_weights(ck, with_databases((init_net(8, 3), init_net(4, 4))), {"games_trained": 0})
    build_dataset(tmp_path / "b", ck, DatasetSpec(40, shard=20, children_best=2), log=io.StringIO())
    pos, tg = load_dataset(tmp_path / "b")
    assert pos.shape == (40, 26) and tg.shape == (40, 5)
    # sibling groups: non-decreasing within a shard, numbered on across the shards, at most
    # children_best to a group; a set written without them reads as -1
    _, _, grp = load_dataset(tmp_path / "b", with_groups=True)
    assert np.all(np.diff(grp) >= 0) and grp[0] == 0
    assert grp[20] > grp[19] and np.bincount(grp).max() <= 2
    build_dataset(tmp_path / "p", ck, DatasetSpec(20, shard=20), log=io.StringIO())
    _, _, grp = load_dataset(f"{tmp_path / 'b'},{tmp_path / 'p'}", with_groups=True)
    assert np.all(grp[40:] == -1) and np.all(grp[:40] >= 0)
    assert np.all(np.abs(pos).sum(axis=1) > 0) and np.all(pos[:, 0] <= 0)
    assert np.all((tg >= 0) & (tg <= 1))
    with np.load(tmp_path / "b" / "shard-00000.npz") as z:
        assert json.loads(str(z["meta"]))["children_best"] == 2
    with pytest.raises(ValueError, match="choose one"):
        build_dataset(
            tmp_path / "c",
            ck,
            DatasetSpec(20, shard=20, children=2, children_best=2),
            log=io.StringIO(),
        )


def _pubeval_choice(pos, d1, d2):
    """PubEval's play, by Tesauro's published rule written out here: the legal play with the
    highest score, the race flag taken from the position before the move, ties to the first."""
    from bgtui.engine.position import is_race
    from bgtui.engine.pubeval import WC, WR, pubeval_score

    children, _ = generate_plays(pos, int(d1), int(d2))
    race = bool(is_race(pos))
    scores = [float(pubeval_score(race, c, WR, WC)) for c in children]
    return children[int(np.argmax(scores))]


def test_vs_pubeval_stores_the_evaluators_best_plays_in_games_against_pubeval():
    # Replayed in Python with the same random stream: a coin for who moves first, then the
    # dice; on PubEval's rolls its own best play (nothing stored), on the evaluator's rolls
    # the position after its 0-ply best play (k = 1; of plays equal within 1e-5, the one
    # stored), which the game then goes on from.
    from bgtui.engine.pubeval import WC, WR
    from bgtui.engine.rng import uniform
    from bgtui.training.kernels import _sample_best_children_vs_pubeval

    an = Analyzer()
    seed, games = 4, 3
    dest = np.zeros((4000, 26), dtype=np.int8)
    groups = np.zeros(4000, dtype=np.int32)
    m = _sample_best_children_vs_pubeval(
        an.ev,
        games,
        make_rng(seed),
        START,
        1,
        WR,
        WC,
        make_play_workspace(hidden_size(an.ev)),
        dest,
        groups,
    )
    rng = make_rng(seed)
    at, ours_rolls, theirs_rolls = 0, 0, 0
    for _ in range(games):
        pos, first = START.copy(), True
        ours = uniform(rng) < 0.5
        while True:
            d1, d2 = _roll(rng, first)
            first = False
            if ours:
                ours_rolls += 1
                children, _ = generate_plays(pos, int(d1), int(d2))
                eqs = np.array([_mover_equity(an, c) for c in children])
                # the kernel values plays incrementally, this replay from scratch: where plays
                # tie to float32 rounding, the game goes on from the one the kernel stored, or
                # ends with a tied play that wins (a won position is never stored)
                near = [children[j] for j in np.flatnonzero(eqs >= eqs.max() - 1e-5)]
                child = next(
                    (c for c in near if at < m and dest[at].tobytes() == swap_sides(c).tobytes()),
                    next(
                        (c for c in near if game_result(c) > 0),
                        children[int(np.argmax(eqs))],
                    ),
                )
                if game_result(child) == 0:
                    assert dest[at].tobytes() == swap_sides(child).tobytes()
                    assert groups[at] == ours_rolls - 1  # only the evaluator's rolls count
                    at += 1
            else:
                theirs_rolls += 1
                child = _pubeval_choice(pos, d1, d2)
            if game_result(child) > 0:
                break
            pos = swap_sides(child)
            ours = not ours
    assert at == m
    assert ours_rolls > 20 and theirs_rolls > 20


def test_a_cube_region_dataset_keeps_contact_positions_with_doubling_chances(tmp_path):
    # Positions before a roll, kept only where the 0-ply evaluation gives the player on roll
    # 60-95% or a cubeless equity above 0.25 (checked here from the Analyzer's probabilities),
    # labelled by full-game rollouts (probabilities, consistent as the five outputs are).
    from bgtui.analysis.weights import DEFAULT_WEIGHTS
    from bgtui.engine.position import is_race
    from bgtui.training.train import DatasetSpec, build_dataset, load_dataset

    an = Analyzer()
    build_dataset(
        tmp_path / "c",
        DEFAULT_WEIGHTS,
        DatasetSpec(6, shard=6, cube_region=True, target_games=True, trials=2),
        log=io.StringIO(),
    )
    pos, tg = load_dataset(tmp_path / "c")
    assert pos.shape == (6, 26)
    for p in pos:
        assert not is_race(p)
        q = an.probabilities(p, 0).astype(np.float64)
        e = 2 * q[0] - 1 + q[1] - q[3] + q[2] - q[4]
        assert 0.60 <= q[0] <= 0.95 or e > 0.25
    assert np.all((tg >= 0) & (tg <= 1))
    assert np.all(tg[:, 1] <= tg[:, 0] + 1e-6) and np.all(tg[:, 2] <= tg[:, 1] + 1e-6)
    with np.load(tmp_path / "c" / "shard-00000.npz") as z:
        meta = json.loads(str(z["meta"]))
        assert meta["cube_region"] and meta["target_games"] and meta["trials"] == 2
    with pytest.raises(ValueError, match="--cube-region"):
        build_dataset(
            tmp_path / "d",
            DEFAULT_WEIGHTS,
            DatasetSpec(6, shard=6, cube_region=True, children_best=2),
            log=io.StringIO(),
        )
    with pytest.raises(ValueError, match="--children-best"):
        build_dataset(
            tmp_path / "e",
            DEFAULT_WEIGHTS,
            DatasetSpec(6, shard=6, vs_pubeval=True),
            log=io.StringIO(),
        )


def _best_reply(an, pos, d1, d2):
    """The plays of ``(d1, d2)`` from ``pos`` (player on roll) equal to the best by the
    Analyzer's 0-ply equity within float32 rounding (the kernel values them incrementally)."""
    children, _ = generate_plays(pos, int(d1), int(d2))
    eqs = np.array([_mover_equity(an, c) for c in children])
    return [children[j] for j in np.flatnonzero(eqs >= eqs.max() - 1e-5)]


def test_cousins_store_the_opponents_best_reply_after_each_of_the_k_best_plays():
    # Replayed in Python with the same random stream: the roll, its K best plays by 0-ply
    # equity, one more roll drawn for the opponent, and for each of those plays (best first)
    # the position after the opponent's best reply to it, the mover on roll; the game goes on
    # from the best play. The replay stops at the first roll with a play that reaches a race:
    # there move selection lets the side net value only the race net's best plays
    # (evaluate._side_groups), which valuing every reply alone does not replay.
    from bgtui.training.kernels import _sample_cousins

    an = Analyzer()
    seed, games, k = 3, 2, 3
    dest = np.zeros((4000, 26), dtype=np.int8)
    groups = np.full(4000, -7, dtype=np.int32)
    m = _sample_cousins(
        an.ev,
        games,
        make_rng(seed),
        START,
        k,
        make_play_workspace(hidden_size(an.ev)),
        dest,
        groups,
    )
    assert 0 < m < len(dest)
    rng = make_rng(seed)
    pos, first, at, done, rolls, replies = START.copy(), True, 0, 0, 0, 0
    raced = False
    while done < games:
        d1, d2 = _roll(rng, first)
        first = False
        children, _ = generate_plays(pos, int(d1), int(d2))
        eqs = np.array([_mover_equity(an, c) for c in children])
        order = np.argsort(-eqs, kind="stable")
        r1, r2 = _roll(rng, False)
        if any(is_race(children[i]) and game_result(children[i]) == 0 for i in order[:k]):
            raced = True
            break
        for i in order[:k]:
            if game_result(children[i]) > 0:
                continue
            leaves = [swap_sides(c) for c in _best_reply(an, swap_sides(children[i]), r1, r2)]
            if game_result(swap_sides(leaves[0])) > 0:
                continue  # the reply ends the game: nothing stored
            assert any(dest[at].tobytes() == leaf.tobytes() for leaf in leaves)
            assert groups[at] == rolls
            at += 1
            replies += 1
        rolls += 1
        if game_result(children[order[0]]) > 0:
            done += 1
            pos, first = START.copy(), True
            continue
        pos = swap_sides(children[order[0]])
    assert raced or at == m  # nothing else stored
    assert rolls > 40 and replies > 2 * rolls


def test_a_cousins_dataset_records_the_option_and_needs_children_best(small_dataset):
    from bgtui.training.train import DatasetSpec

    pos, tg, grp, meta = small_dataset(DatasetSpec(40, shard=20, children_best=2, cousins=True))
    assert pos.shape == (40, 26) and np.all((tg >= 0) & (tg <= 1))
    assert np.all(np.diff(grp) >= 0) and np.bincount(grp).max() <= 2
    assert meta["cousins"] and meta["children_best"] == 2
    with pytest.raises(ValueError, match="--cousins"):
        DatasetSpec(20, shard=20, cousins=True)
    with pytest.raises(ValueError, match="--cousins"):
        DatasetSpec(20, shard=20, cousins=True, children_best=2, vs_pubeval=True)
    assert DatasetSpec(20, shard=20, cousins=True, children_best=2).cousins


def test_disagreements_keep_the_rolls_where_2ply_picks_another_play_than_0ply():
    # Every roll of a greedy self-play game, its 4 best plays by 0-ply; each play valued
    # again here by the Analyzer at 0 and 2-ply (the mover's cubeless equity), and a roll
    # counted as a disagreement when a play within the filter's margin of the 0-ply best is
    # better than the first play by 2-ply. The kept rolls must be exactly those, all of
    # their plays in their order, numbered 0, 1, ...
    from bgtui.training.train import DISAGREE_MARGIN, _keep_disagreements

    an = Analyzer()
    an.prune = 0  # the training set's 2-ply values every play of each roll (plied_targets)
    ev = an.ev
    dest = np.zeros((4000, 26), dtype=np.int8)
    groups = np.zeros(4000, dtype=np.int32)
    m = _sample_best_children(
        ev, 1, make_rng(21), START, 4, make_play_workspace(hidden_size(ev)), dest, groups
    )
    dest, groups = dest[:m], groups[:m]
    kept, kept_groups = _keep_disagreements(dest, groups, ev, 2)

    def mover(child, ply):
        p = an.probabilities(child, ply).astype(np.float64)  # the opponent on roll
        return -(2.0 * p[0] - 1.0 + p[1] + p[2] - p[3] - p[4])

    want = []
    for g in np.unique(groups):
        plays = dest[groups == g]
        e0 = np.array([mover(c, 0) for c in plays])
        near = [i for i in range(len(plays)) if e0[0] - e0[i] <= DISAGREE_MARGIN]
        e2 = {i: mover(plays[i], 2) for i in near}
        if max(e2.values()) > e2[0]:
            want.append(plays)
    assert 0 < len(want) < len(np.unique(groups))
    assert np.array_equal(kept, np.concatenate(want))
    assert np.array_equal(kept_groups, np.repeat(np.arange(len(want)), [len(w) for w in want]))


def test_a_disagreement_dataset_records_the_option_and_needs_rollout_labels(small_dataset):
    from bgtui.training.train import DatasetSpec

    spec = DatasetSpec(40, shard=20, children_best=3, disagree=True, target_truncate=1, trials=2)
    pos, tg, grp, meta = small_dataset(spec)
    assert pos.shape == (40, 26) and np.all((tg >= 0) & (tg <= 1))
    assert np.all(np.diff(grp) >= 0) and np.bincount(grp).max() <= 3
    assert meta["disagree"] and meta["children_best"] == 3
    with pytest.raises(ValueError, match="--disagree"):
        DatasetSpec(20, shard=20, disagree=True, target_truncate=1)
    with pytest.raises(ValueError, match="rollouts"):
        DatasetSpec(20, shard=20, disagree=True, children_best=2)
    with pytest.raises(ValueError, match="--disagree"):
        DatasetSpec(20, shard=20, disagree=True, children_best=2, cousins=True, target_games=True)


def _crashed_by_hand(pos) -> bool:
    """Contact after a side has borne off: some checker of one side still has an opponent's
    checker in front of it, and a side has fewer than 15 checkers on the board and the bar."""
    mine = sum(max(int(c), 0) for c in pos)
    theirs = sum(max(-int(c), 0) for c in pos)
    my_rear = max((i for i in range(26) if pos[i] > 0), default=-1)
    their_front = min((i for i in range(26) if pos[i] < 0), default=99)
    return my_rear > their_front and (mine < 15 or theirs < 15)


def test_crashed_rolls_keep_every_play_of_the_rolls_whose_best_play_is_crashed():
    from bgtui.training.train import _keep_crashed_rolls

    an = Analyzer()
    dest = np.zeros((4000, 26), dtype=np.int8)
    groups = np.zeros(4000, dtype=np.int32)
    m = _sample_best_children(
        an.ev, 3, make_rng(33), START, 3, make_play_workspace(hidden_size(an.ev)), dest, groups
    )
    dest, groups = dest[:m], groups[:m]
    kept, kept_groups = _keep_crashed_rolls(dest, groups)
    want = [dest[groups == g] for g in np.unique(groups)]
    want = [plays for plays in want if _crashed_by_hand(plays[0])]
    assert 0 < len(want) < len(np.unique(groups))
    assert np.array_equal(kept, np.concatenate(want))
    assert np.array_equal(kept_groups, np.repeat(np.arange(len(want)), [len(w) for w in want]))


def test_a_crashed_dataset_with_children_best_keeps_sibling_groups(small_dataset):
    from bgtui.training.train import DatasetSpec

    spec = DatasetSpec(40, shard=20, children_best=3, crashed_only=True)
    pos, tg, grp, meta = small_dataset(spec)
    assert pos.shape == (40, 26) and np.all((tg >= 0) & (tg <= 1))
    first = np.r_[True, np.diff(grp) != 0]
    assert np.all(np.diff(grp) >= 0) and np.bincount(grp).max() <= 3
    assert all(_crashed_by_hand(p) for p in pos[first])
    assert meta["crashed_only"] and meta["children_best"] == 3
