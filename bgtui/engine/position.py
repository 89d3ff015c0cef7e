"""Positions as ``int8[26]`` arrays from the side on roll (layout in ``constants``).

Validation and construction are plain Python (they run once per user input); the small
functions the kernels need are jitted.
"""

import numpy as np

from bgtui.engine._jit import kernel
from bgtui.engine.constants import NUM_CHECKERS, POSITION_DTYPE, POSITION_SIZE


class InvalidPosition(ValueError):
    """A board that cannot occur in a game of backgammon; the message names the problem."""


def validate(pos, allow_finished: bool = False) -> np.ndarray:
    """Return ``pos`` as a C-contiguous ``int8[26]`` or raise :class:`InvalidPosition`.

    Checks: shape, integer dtype, bars on the right side, at most 15 checkers a side, no
    finished game unless ``allow_finished``. Positions that these counts allow but no game can
    reach are not rejected here (``bgtui.analysis.board.impossible_reason`` finds them).
    """
    a = np.asarray(pos)
    if a.shape != (POSITION_SIZE,):
        raise InvalidPosition(f"a position has {POSITION_SIZE} slots, got shape {a.shape}")
    if a.dtype.kind not in "iu":
        raise InvalidPosition(f"a position holds integer checker counts, got dtype {a.dtype}")
    a = a.astype(np.int64)
    if a[25] < 0:
        raise InvalidPosition(f"the player's bar holds {a[25]} checkers; it cannot be negative")
    if a[0] > 0:
        raise InvalidPosition(
            f"the opponent's bar (slot 0) holds {a[0]} of the player's checkers; it stores "
            "the opponent's checkers as a negative count"
        )
    mine = int(a[a > 0].sum())
    theirs = int(-a[a < 0].sum())
    if mine > NUM_CHECKERS:
        raise InvalidPosition(f"the player on roll has {mine} checkers; at most 15 are allowed")
    if theirs > NUM_CHECKERS:
        raise InvalidPosition(f"the opponent has {theirs} checkers; at most 15 are allowed")
    if not allow_finished:
        if mine == 0:
            raise InvalidPosition(
                "the player on roll has borne off all 15 checkers: the game is over"
            )
        if theirs == 0:
            raise InvalidPosition("the opponent has borne off all 15 checkers: the game is over")
    return np.ascontiguousarray(a.astype(POSITION_DTYPE))


def make_position(player: dict, opponent: dict) -> np.ndarray:
    """Build a position from ``{point: count}`` maps, each in its own side's numbering.

    ``player`` uses the player's point numbers (25 = bar); ``opponent`` uses the opponent's
    point numbers (25 = the opponent's bar). Example: the opening position is
    ``make_position({24: 2, 13: 5, 8: 3, 6: 5}, {24: 2, 13: 5, 8: 3, 6: 5})``.
    """
    pos = np.zeros(POSITION_SIZE, dtype=np.int64)
    for point, n in player.items():
        if not 1 <= point <= 25:
            raise InvalidPosition(f"player's point {point} is outside 1..25")
        if n < 0:
            raise InvalidPosition(f"negative checker count {n} on the player's point {point}")
        pos[point] += n
    for point, n in opponent.items():
        if not 1 <= point <= 25:
            raise InvalidPosition(f"opponent's point {point} is outside 1..25")
        if n < 0:
            raise InvalidPosition(f"negative checker count {n} on the opponent's point {point}")
        idx = 25 - point
        if pos[idx] > 0 and idx != 0:
            raise InvalidPosition(
                f"both sides have checkers on one point (player's point {idx}, opponent's {point})"
            )
        pos[idx] -= n
    if np.any(np.abs(pos) > 127):
        raise InvalidPosition("more checkers on one point than a position can hold")
    return validate(pos.astype(np.int64), allow_finished=True)


@kernel(_nrt=True)
def swap_sides(pos):
    """The same board seen from the other side: ``out[i] = -pos[25 - i]``."""
    out = np.empty(26, dtype=np.int8)
    swap_sides_into(pos, out)
    return out


@kernel(inline="always")
def swap_sides_into(pos, out):
    """Out-parameter twin of :func:`swap_sides` (no allocation)."""
    for i in range(26):
        out[i] = -pos[25 - i]


@kernel(inline="always")
def _side_totals(pos):
    """(player's checkers on the board, opponent's, player's pip count, opponent's); a checker
    on the bar counts 25 pips."""
    mine = 0
    theirs = 0
    my_pips = 0
    their_pips = 0
    for i in range(26):  # no branch per slot: the loop vectorises
        c = np.int64(pos[i])
        m = max(c, 0)
        t = max(-c, 0)
        mine += m
        theirs += t
        my_pips += m * i
        their_pips += t * (25 - i)
    return mine, theirs, my_pips, their_pips


@kernel
def checkers_off(pos):
    """(player's checkers borne off, opponent's checkers borne off)."""
    mine, theirs, _, _ = _side_totals(pos)
    return 15 - mine, 15 - theirs


@kernel
def pip_counts(pos):
    """(player's pip count, opponent's pip count); a checker on the bar counts 25."""
    _, _, my_pips, their_pips = _side_totals(pos)
    return my_pips, their_pips


@kernel
def game_result(pos):
    """Points won by the player on roll's side if the game is over, else 0.

    Called on a position after the player has moved (before swapping sides). Returns 1, 2 or 3
    when the player has borne off all 15 checkers (single game, gammon, backgammon), 0 otherwise.
    A backgammon: the loser has borne off nothing and still has a checker on the bar or in the
    winner's home board.
    """
    mine, theirs, _, _ = _side_totals(pos)
    if mine > 0:
        return 0
    if theirs < 15:
        return 1
    for i in range(7):  # the opponent's bar (slot 0) or the player's home board
        if pos[i] < 0:
            return 3
    return 2


@kernel
def is_race(pos):
    """True when contact is over: every player checker has passed every opponent checker."""
    my_back = 0
    for i in range(25, -1, -1):
        if pos[i] > 0:
            my_back = i
            break
    their_back = 25
    for i in range(0, 26):
        if pos[i] < 0:
            their_back = i
            break
    return my_back < their_back
