"""Position rules on a board given as its 26 signed checker counts, in plain Python.

Layout (the engine's position array): index 1..24 are points from the player on roll's view,
positive = player's checkers, negative = opponent's; 25 = player's bar (>= 0); 0 = opponent's
bar (<= 0). The opponent's point k is our index 25 - k.

This is the one home of what makes a board a position: :func:`problems` is what the board
editor shows and :mod:`bgtui.analysis.formats` and :class:`~bgtui.analysis.state.GameState`
refuse. Nothing here imports the engine, so the app can draw and edit a board before the
engine is compiled.
"""

from __future__ import annotations

from collections.abc import Sequence

PLAYER_BAR = 25
OPPONENT_BAR = 0
CHECKERS = 15
#: who owns the cube: nobody, the player on roll, his opponent
CUBE_OWNERS = ("centred", "player", "opponent")
#: the cube owner seen from the other side
OTHER_SIDE_OWNER = {"centred": "centred", "player": "opponent", "opponent": "player"}


def board_list(board: bytes) -> list[int]:
    """The 26 signed counts of a GameState's ``board`` bytes."""
    return [b - 256 if b > 127 else b for b in bytes(board)]


def to_bytes(cells: Sequence[int]) -> bytes:
    """The ``board`` bytes of 26 signed counts."""
    return bytes((c + 256) % 256 for c in cells)


def on_board(cells: Sequence[int]) -> tuple[int, int]:
    """(player on roll's checkers on the board, bar included; opponent's)."""
    return (sum(c for c in cells if c > 0), -sum(c for c in cells if c < 0))


def borne_off(cells: Sequence[int]) -> tuple[int, int]:
    """(player on roll's checkers borne off, opponent's)."""
    a, b = on_board(cells)
    return CHECKERS - a, CHECKERS - b


def pips(cells: Sequence[int]) -> tuple[int, int]:
    """(player on roll's pip count, opponent's); a checker on the bar counts 25."""
    mine = sum(i * cells[i] for i in range(1, 26) if cells[i] > 0)
    theirs = sum((25 - i) * -cells[i] for i in range(0, 25) if cells[i] < 0)
    return mine, theirs


def swapped(cells: Sequence[int]) -> list[int]:
    """The board seen by the other side."""
    return [-cells[25 - i] for i in range(26)]


def game_result(cells: Sequence[int]) -> tuple[str, int] | None:
    """After a play, seen from the side now on roll: ("opponent", 1/2/3) when the opponent (who
    just moved) has borne off everything - single game, gammon or backgammon - else None."""
    mine, theirs = on_board(cells)
    if theirs != 0:
        return None
    if mine < CHECKERS:
        return ("opponent", 1)
    # no checker off: gammon; and backgammon with a checker on the bar or in the winner's home
    # board (the winner's points 1..6 are our indices 19..24)
    if any(cells[i] > 0 for i in range(19, 26)):
        return ("opponent", 3)
    return ("opponent", 2)


def count_problems(cells: Sequence[int]) -> list[str]:
    """What is wrong with the slots and counts of a board: its length, a bar holding the
    other side's checkers, more than 15 checkers a side (empty list: nothing)."""
    if len(cells) != 26:
        return [f"a board has 26 slots, got {len(cells)}"]
    out = []
    if cells[PLAYER_BAR] < 0:
        out.append("the player's bar holds opponent checkers")
    if cells[OPPONENT_BAR] > 0:
        out.append("the opponent's bar holds the player's checkers")
    mine, theirs = on_board(cells)
    if mine > CHECKERS:
        out.append(f"the player on roll has {mine} checkers on the board; at most 15")
    if theirs > CHECKERS:
        out.append(f"the opponent has {theirs} checkers on the board; at most 15")
    return out


def _closed(cells: Sequence[int], lo: int, hi: int, sign: int) -> bool:
    return all(sign * int(cells[i]) >= 2 for i in range(lo, hi + 1))


def impossible_reason(cells: Sequence[int]) -> str | None:
    """Why the board (player on roll, about to roll or to play), whose counts are right (see
    :func:`count_problems`), cannot arise in a game of backgammon, or None when it can.

    - the player on roll has no checker left: the game ended on that player's own turn, before
      the opponent's, so it is nobody's turn now (the opponent having none left is a finished
      game that can be shown);
    - both sides have a checker on the bar and each side's home board is closed against the
      other: a side with a checker on the bar can only enter during its turn (no other checker
      moves while one is on the bar), and entering puts its own checker on a point of the
      other side's home board, so after the last turn that changed the board the side that
      played either has no checker on the bar or the other's home board is open.
    """
    if not any(int(c) > 0 for c in cells):
        return (
            "the player on roll has borne off all 15 checkers: the game ended on that player's turn"
        )
    if (
        cells[PLAYER_BAR] > 0
        and cells[OPPONENT_BAR] < 0
        and _closed(cells, 19, 24, -1)
        and _closed(cells, 1, 6, 1)
    ):
        return (
            "both sides have a checker on the bar against a closed board: no turn of "
            "either side can lead to it"
        )
    return None


def problems(cells: Sequence[int]) -> list[str]:
    """Why a board cannot be analysed (empty list: it can): :func:`count_problems`, a finished
    game (either side without checkers) and :func:`impossible_reason`."""
    out = count_problems(cells)
    if len(cells) != 26:
        return out
    mine, theirs = on_board(cells)
    if mine == 0:
        out.append("the player on roll has no checkers left: the game is over")
    if theirs == 0:
        out.append("the opponent has no checkers left: the game is over")
    why = impossible_reason(cells)
    if mine and why:
        out.append(why)
    return out
