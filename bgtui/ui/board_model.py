"""The board editor's cursor grid. The position rules (counts, pips, validity, the side swap)
live in :mod:`bgtui.analysis.board`; the names below are re-exported for the play-mode modules
that import them from here."""

from __future__ import annotations

from bgtui.analysis.board import (  # noqa: F401 (re-exported)
    OPPONENT_BAR,
    PLAYER_BAR,
    board_list,
    game_result,
    swapped,
    to_bytes,
)

#: the editor's cursor grid, as drawn: top row 13..24 with the opponent's bar in the middle,
#: bottom row 12..1 with the player's bar in the middle
GRID = (
    (13, 14, 15, 16, 17, 18, OPPONENT_BAR, 19, 20, 21, 22, 23, 24),
    (12, 11, 10, 9, 8, 7, PLAYER_BAR, 6, 5, 4, 3, 2, 1),
)
