"""The two homes of the position rules agree: :mod:`bgtui.analysis.board` (plain Python, what
the UI and the file formats use) and :mod:`bgtui.engine.position` (what the engine uses).

The rules both implement, checked on random boards, legal and not:

- the board seen by the other side: ``board.swapped`` and ``position.swap_sides`` /
  ``swap_sides_into``;
- checkers borne off: ``board.borne_off`` (from ``board.on_board``) and
  ``position.checkers_off``;
- pip counts: ``board.pips`` and ``position.pip_counts``;
- the end of a game after a play: ``board.game_result`` (seen from the side now on roll, so
  of the swapped board) and ``position.game_result`` (seen from the side that played);
- what a board may hold: ``board.count_problems`` / ``board.problems`` and
  ``position.validate`` (which leaves the boards no game reaches,
  ``board.impossible_reason``, to the board module).
"""

import numpy as np
from hypothesis import example, given, settings
from hypothesis import strategies as st

from bgtui.analysis import board
from bgtui.engine.position import (
    InvalidPosition,
    checkers_off,
    game_result,
    pip_counts,
    swap_sides,
    swap_sides_into,
    validate,
)


@st.composite
def legal_boards(draw):
    """A board a game can hold: up to 15 checkers a side (the rest borne off), the player's
    on 1..25 (25: his bar), the opponent's on 0..24 (0: her bar), never both on one point."""
    cells = [0] * 26
    for _ in range(draw(st.integers(0, 15))):
        cells[draw(st.integers(1, 25))] += 1
    free = [i for i in range(25) if cells[i] == 0]  # the opponent's bar is always free
    for _ in range(draw(st.integers(0, 15))):
        cells[draw(st.sampled_from(free))] -= 1
    return cells


@st.composite
def ended_games(draw):
    """A board just after the player bore off his last checker: the opponent's checkers
    anywhere, or (for gammons) only outside the player's home board and the opponent's bar."""
    cells = [0] * 26
    lo = draw(st.sampled_from([0, 7]))
    for _ in range(draw(st.integers(0, 15))):
        cells[draw(st.integers(lo, 24))] -= 1
    return cells


@st.composite
def broken_boards(draw):
    """A legal board with one slot, a bar included, changed to any count or by one or two
    checkers (a 16th checker, a checker on the wrong bar...)."""
    cells = draw(legal_boards())
    i = draw(st.integers(0, 25))
    if draw(st.booleans()):
        cells[i] = draw(st.integers(-20, 20))
    else:
        cells[i] += draw(st.sampled_from([-2, -1, 1, 2]))
    return cells


any_boards = st.lists(st.integers(-20, 20), min_size=26, max_size=26)
boards = st.one_of(legal_boards(), ended_games(), broken_boards(), any_boards)


def _engine_accepts(cells, allow_finished: bool) -> bool:
    try:
        validate(np.array(cells, dtype=np.int8), allow_finished=allow_finished)
        validate(cells, allow_finished=allow_finished)  # a list of ints is a position too
    except InvalidPosition:
        return False
    return True


@settings(max_examples=400, deadline=None)
@given(boards)
def test_swapping_sides_agrees(cells):
    pos = np.array(cells, dtype=np.int8)
    out = np.zeros(26, dtype=np.int8)
    swap_sides_into(pos, out)
    assert swap_sides(pos).tolist() == out.tolist() == board.swapped(cells)


@settings(max_examples=400, deadline=None)
@given(boards)
def test_pips_and_checkers_off_agree(cells):
    pos = np.array(cells, dtype=np.int8)
    assert tuple(int(x) for x in pip_counts(pos)) == board.pips(cells)
    assert tuple(int(x) for x in checkers_off(pos)) == board.borne_off(cells)


@settings(max_examples=400, deadline=None)
@given(boards)
@example([0] * 7 + [-15] + [0] * 18)  # a gammon
@example([-1] + [0] * 6 + [-14] + [0] * 18)  # a backgammon: a checker on the bar
@example([0] * 6 + [-1] + [-14] + [0] * 18)  # a backgammon: one in the winner's home board
def test_the_end_of_a_game_agrees(cells):
    """``cells`` is the board after a play, seen from the side that played."""
    points = int(game_result(np.array(cells, dtype=np.int8)))
    seen_by_next = board.game_result(board.swapped(cells))
    assert seen_by_next == (None if points == 0 else ("opponent", points))


@settings(max_examples=400, deadline=None)
@given(boards)
def test_what_a_board_may_hold_agrees(cells):
    counts_ok = board.count_problems(cells) == []
    assert _engine_accepts(cells, allow_finished=True) == counts_ok
    playable = counts_ok and min(board.on_board(cells)) > 0
    assert _engine_accepts(cells, allow_finished=False) == playable
    # what the board module refuses beyond the engine is only a board no game reaches
    why = board.impossible_reason(cells)
    assert all(p == why for p in board.problems(cells)) == playable
