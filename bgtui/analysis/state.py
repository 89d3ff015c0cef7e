"""GameState: everything a user analyses — board, cube, dice, score — from the side on roll."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from bgtui.analysis import board
from bgtui.analysis.board import CUBE_OWNERS, OTHER_SIDE_OWNER, board_list, count_problems
from bgtui.engine import CENTRED, OPP_OWNED, OWNED

#: the engine's number for each ``cube_owner`` (owned by the player on roll: ``OWNED``)
ENGINE_CUBE_OWNER = {"centred": CENTRED, "player": OWNED, "opponent": OPP_OWNED}


@dataclass(frozen=True)
class GameState:
    """A position with its match context, always seen from the player on roll.

    ``board`` holds the bytes of the ``int8[26]`` engine position (see
    ``bgtui.engine.constants``). ``dice`` is (high, low) or None. ``on_roll`` says which of the
    two players of a Match ID / XGID (0 or 1; XG's bottom player X is 1) is on roll, so that IDs
    re-encode byte for byte. ``score`` is (player on roll, opponent). ``match_length`` 0 is money.
    """

    board: bytes
    cube_value: int = 1
    cube_owner: str = "centred"
    dice: tuple[int, int] | None = None
    match_length: int = 0
    score: tuple[int, int] = (0, 0)
    crawford: bool = False
    jacoby: bool = True
    beavers: bool = True
    on_roll: int = 1
    # carried only so that Match IDs and XGIDs re-encode exactly
    game_state: int = 1
    double_offered: bool = False
    resigned: int = 0
    dice_raw: tuple[int, int] | None = field(default=None, compare=False)
    max_cube_log: int = field(default=10, compare=False)
    match_id_tail: int = field(default=0, compare=False)  # Match ID bits past the 66 documented

    def __post_init__(self):
        if not isinstance(self.board, (bytes, bytearray)) or len(self.board) != 26:
            raise ValueError("board must be the 26 bytes of an int8[26] position")
        errs = count_problems(board_list(self.board))
        if errs:
            raise ValueError(errs[0])
        v = self.cube_value
        if not isinstance(v, (int, np.integer)) or v < 1 or v > 2**15 or v & (v - 1):
            raise ValueError(f"cube value must be a power of 2 from 1 to 32768, got {v!r}")
        if self.cube_owner not in CUBE_OWNERS:
            raise ValueError(
                f"cube owner must be one of {', '.join(CUBE_OWNERS)}, got {self.cube_owner!r}"
            )
        if self.dice is not None:
            d = tuple(int(x) for x in self.dice)
            if len(d) != 2 or not all(1 <= x <= 6 for x in d):
                raise ValueError(f"dice must be two numbers from 1 to 6, got {self.dice!r}")
            object.__setattr__(self, "dice", (max(d), min(d)))
            if self.dice_raw is None:
                object.__setattr__(self, "dice_raw", d)
        if self.match_length < 0 or self.match_length > 2**15 - 1:
            raise ValueError(f"match length must be 0 (money) to 32767, got {self.match_length}")
        a, b = self.score
        if a < 0 or b < 0:
            raise ValueError(f"scores cannot be negative, got {self.score}")
        if self.match_length and (a >= self.match_length or b >= self.match_length):
            raise ValueError(f"score {a}-{b} is not below the match length {self.match_length}")
        if self.on_roll not in (0, 1):
            raise ValueError(f"on_roll must be 0 or 1, got {self.on_roll!r}")

    @property
    def position(self) -> np.ndarray:
        """The engine position (``int8[26]``, a fresh writable copy: the state itself cannot
        change), player on roll. Writable because numba compiles a kernel once per argument
        type and a read-only array is a type of its own: every kernel reached from a
        read-only position would be compiled twice."""
        return np.frombuffer(self.board, dtype=np.int8).copy()

    @classmethod
    def from_position(cls, pos, **kw) -> GameState:
        a = np.ascontiguousarray(np.asarray(pos), dtype=np.int8)
        return cls(board=a.tobytes(), **kw)

    def with_position(self, pos) -> GameState:
        return replace(self, board=np.ascontiguousarray(pos, dtype=np.int8).tobytes())

    @property
    def is_money(self) -> bool:
        return self.match_length == 0

    @property
    def cells(self) -> list[int]:
        """The board's 26 signed counts (see :mod:`bgtui.analysis.board`)."""
        return board_list(self.board)

    @property
    def pips(self) -> tuple[int, int]:
        """(player on roll's pip count, opponent's)."""
        return board.pips(self.cells)

    @property
    def borne_off(self) -> tuple[int, int]:
        """(player on roll's checkers borne off, opponent's)."""
        return board.borne_off(self.cells)

    def swapped(self) -> GameState:
        """The same position with the other side on roll (dice cleared)."""
        return replace(
            self,
            board=board.to_bytes(board.swapped(self.cells)),
            cube_owner=OTHER_SIDE_OWNER[self.cube_owner],
            dice=None,
            dice_raw=None,
            on_roll=1 - self.on_roll,
            score=(self.score[1], self.score[0]),
        )
