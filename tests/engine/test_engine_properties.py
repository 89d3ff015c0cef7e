"""Hypothesis properties of positions and legal plays, and position validation messages."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bgtui.engine.constants import OPENING_POSITION
from bgtui.engine.movegen import generate_plays
from bgtui.engine.position import (
    InvalidPosition,
    checkers_off,
    game_result,
    is_race,
    make_position,
    pip_counts,
    swap_sides,
    validate,
)
from tests.reference.games import random_game


@st.composite
def game_positions(draw):
    """A position reached by random legal plays from the opening."""
    seed = draw(st.integers(0, 2**31))
    turns = draw(st.integers(0, 80))
    *_, pos = random_game(np.random.default_rng(seed), turns)
    return pos


dice = st.tuples(st.integers(1, 6), st.integers(1, 6))


@settings(max_examples=150, deadline=None)
@given(game_positions(), dice)
def test_plays_conserve_checkers_and_are_distinct_legal_positions(pos, d):
    children, moves = generate_plays(pos, *d)
    assert len(children) >= 1
    keys = {c.tobytes() for c in children}
    assert len(keys) == len(children)
    mine0, theirs0 = checkers_off(pos)
    for c in children:
        validate(c, allow_finished=True)
        mine, theirs = checkers_off(c)
        on_board_me = int(c[c > 0].sum())
        assert on_board_me + mine == 15 and int(-c[c < 0].sum()) + theirs == 15
        assert theirs == theirs0  # the opponent never bears off on our turn
    # maximal dice usage: every play uses the same number of dice
    used = {int((m[::2] >= 0).sum()) for m in moves}
    assert len(used) == 1


@settings(max_examples=150, deadline=None)
@given(game_positions())
def test_swap_sides_twice_is_identity(pos):
    assert np.array_equal(swap_sides(swap_sides(pos)), pos)
    a, b = pip_counts(pos)
    assert pip_counts(swap_sides(pos)) == (b, a)


@settings(max_examples=100, deadline=None)
@given(game_positions(), dice)
def test_hits_flagged_exactly_when_a_blot_is_landed_on(pos, d):
    children, moves = generate_plays(pos, *d)
    for c, m in zip(children, moves):
        b = np.array(pos, dtype=int)
        hits = 0
        for k in range(0, 8, 2):
            if m[k] < 0:
                break
            f, t = int(m[k]), int(m[k + 1])
            b[f] -= 1
            if t >= 1:
                if b[t] == -1:
                    hits += 1
                    b[t] = 0
                    b[0] -= 1
                b[t] += 1
        assert -int(c[0]) - (-int(pos[0])) == hits


def test_opening_pip_counts_are_167():
    assert pip_counts(OPENING_POSITION) == (167, 167)


@pytest.mark.parametrize(
    "build, words",
    [
        (lambda p: p.__setitem__(6, 9), "19 checkers"),  # 5 on the 6 point became 9
        (lambda p: p.__setitem__(1, -9), "opponent has 22 checkers"),
        (lambda p: p.__setitem__(25, -1), "bar holds -1"),
        (lambda p: p.__setitem__(0, 1), "opponent's bar"),
    ],
)
def test_validation_names_the_problem(build, words):
    p = np.array(OPENING_POSITION, dtype=np.int64)
    build(p)
    with pytest.raises(InvalidPosition, match=words):
        validate(p)


def test_finished_game_is_rejected_unless_allowed():
    p = make_position({}, {6: 15})
    with pytest.raises(InvalidPosition, match="borne off all 15"):
        validate(p)
    validate(p, allow_finished=True)


def test_both_sides_on_one_point_is_rejected():
    with pytest.raises(InvalidPosition, match="both sides"):
        make_position({6: 2}, {19: 2})


def test_game_result_single_gammon_backgammon():
    # the player has borne off everything; the opponent has checkers off / home / in our home
    single = make_position({}, {6: 10})  # the opponent bore off 5
    assert game_result(single) == 1
    gammon = make_position({}, {7: 15})  # none off, none in our home board
    assert game_result(gammon) == 2
    bg = make_position({}, {7: 14, 24: 1})  # none off, one in our home board (his 24 = our 1)
    assert game_result(bg) == 3
    bg_bar = make_position({}, {7: 14, 25: 1})
    assert game_result(bg_bar) == 3
    assert game_result(OPENING_POSITION) == 0


def test_the_opening_is_contact_and_two_home_boards_are_a_race():
    assert not is_race(OPENING_POSITION)
    assert is_race(make_position({6: 15}, {6: 15}))
