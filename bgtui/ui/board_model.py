"""Plain-Python facts about a board (the 26 signed bytes of a GameState), for drawing and editing.

Layout (the engine's position array): index 1..24 are points from the player on roll's view,
positive = player's checkers, negative = opponent's; 25 = player's bar (>= 0); 0 = opponent's
bar (<= 0). The opponent's point k is our index 25 - k. Nothing here imports the engine.
"""

from __future__ import annotations

from collections.abc import Sequence

PLAYER_BAR = 25
OPPONENT_BAR = 0
CHECKERS = 15

#: the editor's cursor grid, as drawn: top row 13..24 with the opponent's bar in the middle,
#: bottom row 12..1 with the player's bar in the middle
GRID = (
    (13, 14, 15, 16, 17, 18, OPPONENT_BAR, 19, 20, 21, 22, 23, 24),
    (12, 11, 10, 9, 8, 7, PLAYER_BAR, 6, 5, 4, 3, 2, 1),
)


def board_list(board: bytes) -> list[int]:
    return [b - 256 if b > 127 else b for b in bytes(board)]


def to_bytes(cells: Sequence[int]) -> bytes:
    return bytes((c + 256) % 256 for c in cells)


def pips(cells: Sequence[int]) -> tuple[int, int]:
    """(player on roll's pip count, opponent's)."""
    mine = sum(i * cells[i] for i in range(1, 26) if cells[i] > 0)
    theirs = sum((25 - i) * -cells[i] for i in range(0, 25) if cells[i] < 0)
    return mine, theirs


def on_board(cells: Sequence[int]) -> tuple[int, int]:
    return (sum(c for c in cells if c > 0), -sum(c for c in cells if c < 0))


def borne_off(cells: Sequence[int]) -> tuple[int, int]:
    a, b = on_board(cells)
    return CHECKERS - a, CHECKERS - b


def problems(cells: Sequence[int]) -> list[str]:
    """Why a board cannot be analysed (empty list: it can)."""
    out = []
    if len(cells) != 26:
        return [f"a board has 26 slots, got {len(cells)}"]
    if cells[PLAYER_BAR] < 0:
        out.append("the player's bar holds opponent checkers")
    if cells[OPPONENT_BAR] > 0:
        out.append("the opponent's bar holds the player's checkers")
    mine, theirs = on_board(cells)
    if mine > CHECKERS:
        out.append(f"the player on roll has {mine} checkers on the board; at most 15")
    if theirs > CHECKERS:
        out.append(f"the opponent has {theirs} checkers on the board; at most 15")
    if mine == 0:
        out.append("the player on roll has no checkers left: the game is over")
    if theirs == 0:
        out.append("the opponent has no checkers left: the game is over")
    return out


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


def swapped(cells: Sequence[int]) -> list[int]:
    return [-cells[25 - i] for i in range(26)]
