"""The legal-play kernel against the slow reference generator and hand-made rule cases."""

import numpy as np
import pytest

from bgtui.analysis.board_ascii import board_ascii
from bgtui.engine.constants import OPENING_POSITION
from bgtui.engine.movegen import generate_plays
from bgtui.engine.position import make_position
from tests.reference.games import game_positions
from tests.reference.slow_movegen import apply, legal_plays


def _keys(children):
    return {np.asarray(c, dtype=np.int8).tobytes() for c in children}


def _check(pos, d1, d2):
    children, moves = generate_plays(pos, d1, d2)
    ref = legal_plays(list(np.asarray(pos, dtype=int)), d1, d2)
    keys = [np.asarray(c, dtype=np.int8).tobytes() for c in children]
    assert len(set(keys)) == len(keys), "duplicate resulting positions\n" + board_ascii(pos)
    assert set(keys) == set(ref), f"dice {d1}{d2}\n{board_ascii(pos)}"
    # every step record replays, one die per step, to the child it claims
    for c, m in zip(children, moves):
        b = list(np.asarray(pos, dtype=int))
        for k in range(0, 8, 2):
            if m[k] < 0:
                break
            b = apply(b, (int(m[k]), int(m[k + 1])))
        assert np.array_equal(np.array(b), np.asarray(c, dtype=int))


def _random_position(rng, kind):
    """Weird but legal positions: many on the bar, closed boards, bear-offs."""
    pos = np.zeros(26, dtype=np.int64)
    if kind == "bearoff":
        for _ in range(rng.integers(1, 16)):
            pos[rng.integers(1, 7)] += 1
        for _ in range(rng.integers(1, 16)):
            i = rng.integers(19, 25)
            if pos[i] >= 0 and i > 6:
                pos[i] -= 1
        return pos.astype(np.int8)
    if kind == "bar":
        pos[25] = rng.integers(1, 4)
        for p in rng.choice(np.arange(19, 25), size=rng.integers(3, 7), replace=False):
            pos[p] = -2  # a partly or fully closed board against us
        pos[0] = -rng.integers(0, 2)
    n_me = 15 - pos[25]
    n_opp = 15 + pos[19:25].sum() + pos[0]
    for _ in range(rng.integers(1, n_me + 1)):
        i = rng.integers(1, 25)
        if pos[i] >= 0:
            pos[i] += 1
    for _ in range(rng.integers(1, max(2, n_opp + 1))):
        i = rng.integers(1, 25)
        if pos[i] <= 0:
            pos[i] -= 1
    return pos.astype(np.int8)


def test_kernel_matches_reference_on_positions_from_games():
    positions = game_positions(3, 40)
    rng = np.random.default_rng(4)
    for pos in positions:
        d1, d2 = (int(x) for x in rng.integers(1, 7, size=2))
        _check(pos, d1, d2)
    assert len(positions) > 2000


@pytest.mark.parametrize("kind", ["bar", "bearoff", "scatter"])
def test_kernel_matches_reference_on_weird_positions(kind):
    rng = np.random.default_rng({"bar": 1, "bearoff": 2, "scatter": 3}[kind])
    n = 0
    while n < 150:
        pos = _random_position(rng, kind)
        if (
            (pos > 0).sum() == 0
            or (pos < 0).sum() == 0
            or pos[pos > 0].sum() > 15
            or -pos[pos < 0].sum() > 15
        ):
            continue
        for d1 in range(1, 7):
            for d2 in range(1, d1 + 1):
                _check(pos, d1, d2)
        n += 1


def test_opening_rolls_distinct_play_counts():
    # Counted by hand for 31 (16: 8/5 6/5, 24/20, 13/9, 8/4, 6/2, 24/21 24/23, 24/21 13/12,
    # 24/21 8/7, 24/21 6/5, 24/23 13/10, 24/23 8/5, 24/23 6/3, 13/10 13/12, 13/10 8/7,
    # 13/10 6/5, 8/5 8/7 ... minus transpositions) and 65 (7: 24/13, 24/18 13/8, 24/18 8/3,
    # 13/8 13/7, 13/7 8/3, 13/2, 8/3 8/2); all 21 agree with the reference generator.
    counts = {}
    for d1 in range(1, 7):
        for d2 in range(1, d1 + 1):
            children, _ = generate_plays(np.array(OPENING_POSITION), d1, d2)
            ref = legal_plays(list(OPENING_POSITION.astype(int)), d1, d2)
            assert len(children) == len(ref)
            counts[f"{d1}{d2}"] = len(children)
    assert counts["31"] == 16 and counts["65"] == 7 and counts["55"] == 4


def test_bar_checker_must_enter_first():
    # Given one checker on the bar and the opponent's points 1-5 made (our 24-20), when the
    # roll is 6-1, then the checker enters with the 6 (our 19, the only open point) before
    # anything else moves.
    #
    #  +13-14-15-16-17-18------19-20-21-22-23-24-+     X: opponent
    #  | O  .  .  .  .  . |   | .  X  X  X  X  X |  0 off
    #  | O                |   |    X  X  X  X  X |
    #  | O                |   |                  |
    #  | O                |   |                  |
    #  |14                |   |                  |
    # v|                  |BAR|                  |     cube 1 (centred), not rolled
    #  | X                |   |                  |
    #  | X                |   |                  |
    #  | X                |   |                  |
    #  | X                |   |                  |
    #  | X  .  .  .  .  . | O | .  .  .  .  .  . |  0 off
    #  +12-11-10--9--8--7-------6--5--4--3--2--1-+     O: on roll
    pos = make_position({25: 1, 13: 14}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 13: 5})
    children, moves = generate_plays(pos, 6, 1)
    assert all(m[0] == 25 for m in moves)  # every play starts from the bar
    assert all(c[25] == 0 for c in children)


def test_dance_on_a_closed_board_leaves_the_position():
    #
    #  +13-14-15-16-17-18------19-20-21-22-23-24-+     X: opponent
    #  | O  .  .  .  .  . |   | X  X  X  X  X  X |  0 off
    #  | O                |   | X  X  X  X  X  X |
    #  | O                |   |                  |
    #  | O                |   |                  |
    #  |14                |   |                  |
    # v|                  |BAR|                  |     cube 1 (centred), not rolled
    #  |                  |   |                  |
    #  |                  |   |                  |
    #  | X                |   |                  |
    #  | X                |   |                  |
    #  | X  .  .  .  .  . | O | .  .  .  .  .  . |  0 off
    #  +12-11-10--9--8--7-------6--5--4--3--2--1-+     O: on roll
    pos = make_position({25: 1, 13: 14}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 13: 3})
    children, moves = generate_plays(pos, 6, 4)
    assert len(children) == 1 and np.array_equal(children[0], pos) and moves[0][0] == -1


def test_two_on_the_bar_one_enters():
    # opponent's board closed except his 4 point (our 21): with 4-2 only one checker enters
    # (the 2 is blocked) and nothing else may move
    #
    #  +13-14-15-16-17-18------19-20-21-22-23-24-+     X: opponent
    #  | O  .  .  .  .  . |   | X  X  .  X  X  X |  0 off
    #  | O                |   | X  X     X  X  X |
    #  | O                |   |                  |
    #  | O                |   |                  |
    #  |13                |   |                  |
    # v|                  |BAR|                  |     cube 1 (centred), not rolled
    #  | X                |   |                  |
    #  | X                |   |                  |
    #  | X                |   |                  |
    #  | X                | O |                  |
    #  | X  .  .  .  .  . | O | .  .  .  .  .  . |  0 off
    #  +12-11-10--9--8--7-------6--5--4--3--2--1-+     O: on roll
    pos = make_position({25: 2, 13: 13}, {1: 2, 2: 2, 3: 2, 5: 2, 6: 2, 13: 5})
    children, moves = generate_plays(pos, 4, 2)
    assert len(children) == 1 and children[0][25] == 1 and children[0][21] == 1


def test_both_dice_must_be_used_when_possible():
    # player: one checker on his 8 point, 14 on the 1 point; opponent holds our 2 point.
    # 6-1: the 6 alone (8/2) is blocked and nothing else can move a 6 while a checker is
    # outside, but 8/7 then 7/1 uses both dice: that is the only legal play.
    #
    #  +13-14-15-16-17-18------19-20-21-22-23-24-+     X: opponent
    #  | X  .  .  .  .  . |   | .  .  .  .  .  . |  0 off
    #  | X                |   |                  |
    #  | X                |   |                  |
    #  | X                |   |                  |
    #  |13                |   |                  |
    # v|                  |BAR|                  |     cube 1 (centred), not rolled
    #  |                  |   |               14 |
    #  |                  |   |                O |
    #  |                  |   |                O |
    #  |                  |   |             X  O |
    #  | .  .  .  .  O  . |   | .  .  .  .  X  O |  0 off
    #  +12-11-10--9--8--7-------6--5--4--3--2--1-+     O: on roll
    pos = make_position({8: 1, 1: 14}, {23: 2, 12: 13})
    children, moves = generate_plays(pos, 6, 1)
    assert len(children) == 1 and children[0][1] == 15
    assert moves[0][2] >= 0  # two steps


def test_only_the_larger_die_when_just_one_can_be_played():
    # player: one checker on his 13 point; opponent holds our 2 point (his 23). 6-5: 13/7 or
    # 13/8 can each be played, but neither can be followed (7/2 and 8/2 are blocked, and no
    # bear-off with a checker outside): only the larger die may be played, 13/7.
    #
    #  +13-14-15-16-17-18------19-20-21-22-23-24-+     X: opponent
    #  | O  .  .  .  .  . |   | .  .  .  .  .  . |  0 off
    #  |                  |   |                  |
    #  |                  |   |                  |
    #  |                  |   |                  |
    #  |                  |   |                  |
    # v|                  |BAR|                  |     cube 1 (centred), not rolled
    #  |                  |   |   13          14 |
    #  |                  |   |    X           O |
    #  |                  |   |    X           O |
    #  |                  |   |    X        X  O |
    #  | .  .  .  .  .  . |   | .  X  .  .  X  O |  0 off
    #  +12-11-10--9--8--7-------6--5--4--3--2--1-+     O: on roll
    pos = make_position({13: 1, 1: 14}, {23: 2, 20: 13})
    children, moves = generate_plays(pos, 6, 5)
    assert len(children) == 1 and children[0][7] == 1 and moves[0][2] == -1
    assert _keys(children) == set(legal_plays(list(pos.astype(int)), 6, 5))


def test_larger_die_blocked_so_smaller_is_played():
    # our lone checker on the 13 point; our 7 point held (his 18) so no 6; 13/8 with the 5,
    # then 8/2 is blocked (his 23 = our 2): the single legal play is 13/8
    #
    #  +13-14-15-16-17-18------19-20-21-22-23-24-+     X: opponent
    #  | O  .  .  .  .  . |   | .  .  .  .  .  . |  0 off
    #  |                  |   |                  |
    #  |                  |   |                  |
    #  |                  |   |                  |
    #  |                  |   |                  |
    # v|                  |BAR|                  |     cube 1 (centred), not rolled
    #  |                  |   |   11          14 |
    #  |                  |   |    X           O |
    #  |                  |   |    X           O |
    #  |                X |   |    X        X  O |
    #  | .  .  .  .  .  X |   | .  X  .  .  X  O |  0 off
    #  +12-11-10--9--8--7-------6--5--4--3--2--1-+     O: on roll
    pos = make_position({13: 1, 1: 14}, {18: 2, 23: 2, 20: 11})
    children, moves = generate_plays(pos, 6, 5)
    assert len(children) == 1 and children[0][8] == 1 and moves[0][2] == -1


def test_doubles_partly_playable():
    # only two of four sixes can be played: our checker on 20 goes 20/14/8, then 8/2 is
    # blocked (his 23 = our 2) and the checkers on the 1 point cannot move while one is out
    #
    #  +13-14-15-16-17-18------19-20-21-22-23-24-+     X: opponent
    #  | X  .  .  .  .  . |   | .  O  .  .  .  . |  0 off
    #  | X                |   |                  |
    #  | X                |   |                  |
    #  | X                |   |                  |
    #  |13                |   |                  |
    # v|                  |BAR|                  |     cube 1 (centred), not rolled
    #  |                  |   |               14 |
    #  |                  |   |                O |
    #  |                  |   |                O |
    #  |                  |   |             X  O |
    #  | .  .  .  .  .  . |   | .  .  .  .  X  O |  0 off
    #  +12-11-10--9--8--7-------6--5--4--3--2--1-+     O: on roll
    pos = make_position({20: 1, 1: 14}, {23: 2, 12: 13})
    children, moves = generate_plays(pos, 6, 6)
    assert len(children) == 1 and children[0][8] == 1
    assert moves[0][2] >= 0 and moves[0][4] == -1


def test_bear_off_exact_and_with_a_larger_die():
    # checkers on our 5 and 3 points, 6-5: the 6 bears off from the 5 (the highest point),
    # the 5 then bears off the 3: one play takes both off
    #
    #  +13-14-15-16-17-18------19-20-21-22-23-24-+     X: opponent
    #  | .  .  .  .  .  . |   | .  .  .  .  .  . |  0 off
    #  |                  |   |                  |
    #  |                  |   |                  |
    #  |                  |   |                  |
    #  |                  |   |                  |
    # v|                  |BAR|                  |     cube 1 (centred), not rolled
    #  |15                |   |                  |
    #  | X                |   |                  |
    #  | X                |   |                  |
    #  | X                |   |                  |
    #  | X  .  .  .  .  . |   | .  O  .  O  .  . |  13 off
    #  +12-11-10--9--8--7-------6--5--4--3--2--1-+     O: on roll
    pos = make_position({5: 1, 3: 1}, {13: 15})
    children, _ = generate_plays(pos, 6, 5)
    assert any((c[1:26] <= 0).all() for c in children)
    # checkers on our 6 and 2, 4-1: the 4 cannot bear off the 2 while the 6 is occupied, and
    # after 6/5 the 5 point is higher still: no play bears anything off
    #
    #  +13-14-15-16-17-18------19-20-21-22-23-24-+     X: opponent
    #  | .  .  .  .  .  . |   | .  .  .  .  .  . |  0 off
    #  |                  |   |                  |
    #  |                  |   |                  |
    #  |                  |   |                  |
    #  |                  |   |                  |
    # v|                  |BAR|                  |     cube 1 (centred), not rolled
    #  |15                |   |                  |
    #  | X                |   |                  |
    #  | X                |   |                  |
    #  | X                |   |                  |
    #  | X  .  .  .  .  . |   | O  .  .  .  O  . |  13 off
    #  +12-11-10--9--8--7-------6--5--4--3--2--1-+     O: on roll
    pos = make_position({6: 1, 2: 1}, {13: 15})
    children, moves = generate_plays(pos, 4, 1)
    assert all(c[1:7].sum() == 2 for c in children)


def test_no_bear_off_with_a_checker_outside():
    # one checker on our 7 point: nothing may be borne off before it is home
    #
    #  +13-14-15-16-17-18------19-20-21-22-23-24-+     X: opponent
    #  | .  .  .  .  .  . |   | .  .  .  .  .  . |  0 off
    #  |                  |   |                  |
    #  |                  |   |                  |
    #  |                  |   |                  |
    #  |                  |   |                  |
    # v|                  |BAR|                  |     cube 1 (centred), not rolled
    #  |                  |   |15             14 |
    #  |                  |   | X              O |
    #  |                  |   | X              O |
    #  |                  |   | X              O |
    #  | .  .  .  .  .  O |   | X  .  .  .  .  O |  0 off
    #  +12-11-10--9--8--7-------6--5--4--3--2--1-+     O: on roll
    pos = make_position({7: 1, 1: 14}, {19: 15})
    children, moves = generate_plays(pos, 6, 1)
    assert _keys(children) == set(legal_plays(list(pos.astype(int)), 6, 1))
    assert not any(c[7] == 1 and c[1] < 14 for c in children)


def test_hits_are_recorded_en_route():
    # opponent blot on our 18 (his 7); 6-5 from 24: 24/18*/13 and 24/19/13 are two plays
    #
    #  +13-14-15-16-17-18------19-20-21-22-23-24-+     X: opponent
    #  | .  .  .  .  .  X |   | .  .  .  .  .  O |  0 off
    #  |                  |   |                  |
    #  |                  |   |                  |
    #  |                  |   |                  |
    #  |                  |   |                  |
    # v|                  |BAR|                  |     cube 1 (centred), not rolled
    #  |                  |   |14       14       |
    #  |                  |   | X        O       |
    #  |                  |   | X        O       |
    #  |                  |   | X        O       |
    #  | .  .  .  .  .  . |   | X  .  .  O  .  . |  0 off
    #  +12-11-10--9--8--7-------6--5--4--3--2--1-+     O: on roll
    pos = make_position({24: 1, 3: 14}, {7: 1, 19: 14})
    children, _ = generate_plays(pos, 6, 5)
    hit = [c for c in children if c[0] == -1 and c[13] == 1]
    nohit = [c for c in children if c[0] == 0 and c[13] == 1]
    assert len(hit) == 1 and len(nohit) == 1
