"""A plain-ASCII board diagram in the style of GNU Backgammon's, for terminals and test output.

``O`` are the checkers of the player on roll (at the bottom, moving 24 -> 1), ``X`` the
opponent's; points are numbered from the player on roll's side.
"""

from __future__ import annotations

import numpy as np


def board_ascii(state_or_position) -> str:
    from bgtui.analysis.state import GameState

    if isinstance(state_or_position, GameState):
        state = state_or_position
    else:
        state = GameState.from_position(np.asarray(state_or_position, dtype=np.int8))
    from bgtui.analysis.formats import format_match_id, format_position_id

    pos = state.cells
    mine, theirs = state.pips
    off_me, off_opp = state.borne_off

    def cell(i, row):
        n = pos[i]
        if n == 0:
            return " . " if row == 0 else "   "
        ch = "O" if n > 0 else "X"
        n = abs(n)
        if row < 4:
            return f" {ch} " if n > row else "   "
        if n > 5:
            return f"{n:2d} "
        return f" {ch} " if n > row else "   "

    top = list(range(13, 19)), list(range(19, 25))
    bot = list(range(12, 6, -1)), list(range(6, 0, -1))
    lines = [
        f" GNU Backgammon  Position ID: {format_position_id(state)}",
        f"                 Match ID   : {format_match_id(state)}",
        " +13-14-15-16-17-18------19-20-21-22-23-24-+     X: opponent",
    ]
    for row in range(5):
        left = "".join(cell(i, row) for i in top[0])
        right = "".join(cell(i, row) for i in top[1])
        bar = (
            f" {'X' if -pos[0] > row else ' '} "
            if row < 4
            else (f"{-pos[0]:2d} " if -pos[0] > 4 else "   ")
        )
        extra = f"  {off_opp} off" if row == 0 else ""
        lines.append(f" |{left}|{bar}|{right}|{extra}")
    cube = f"cube {state.cube_value} ({state.cube_owner})"
    dice = f"dice {state.dice[0]}{state.dice[1]}" if state.dice else "not rolled"
    lines.append(f"v|                  |BAR|                  |     {cube}, {dice}")
    for row in range(4, -1, -1):
        left = "".join(cell(i, row) for i in bot[0])
        right = "".join(cell(i, row) for i in bot[1])
        bar = (
            f" {'O' if pos[25] > row else ' '} "
            if row < 4
            else (f"{pos[25]:2d} " if pos[25] > 4 else "   ")
        )
        extra = f"  {off_me} off" if row == 0 else ""
        lines.append(f" |{left}|{bar}|{right}|{extra}")
    lines.append(" +12-11-10--9--8--7-------6--5--4--3--2--1-+     O: on roll")
    lines.append(f" Pip counts: O {mine}, X {theirs}")
    if state.match_length:
        lines.append(
            f" {state.match_length}-point match, score {state.score[0]}-{state.score[1]}"
            + (", Crawford game" if state.crawford else "")
        )
    else:
        lines.append(
            " Money game"
            + (", Jacoby rule" if state.jacoby else "")
            + (", beavers" if state.beavers else "")
        )
    return "\n".join(lines)
