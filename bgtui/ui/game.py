"""Play mode's rules and bookkeeping, free of Textual: a money game against the engine.

The GameState is always seen from the side on roll. Dice come from a seeded ``random.Random``
owned here (on the main thread), so a seed replays the same game. The cube arithmetic of the
feedback ("equity lost versus the best") is on a 1-cube, from the deciding side's view:

* the side on roll doubling: best = max(no double, min(double/take, double/pass)); doubling
  gets min(double/take, double/pass) (the opponent answers correctly), not doubling gets
  no double;
* the side answering a double: taking is worth -double/take and passing -double/pass (the
  doubler's figures negated); best is the larger.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field, replace

from bgtui.analysis.models import CubeDecision, PlayRow
from bgtui.ui.board_model import board_list, game_result

OPENING_ID = "4HPwATDgc/ABMA"
RESULT_NAMES = {1: "a single game", 2: "a gammon", 3: "a backgammon"}


def double_loss(c: CubeDecision) -> float:
    best = max(c.no_double, min(c.double_take, c.double_pass))
    return best - min(c.double_take, c.double_pass)


def no_double_loss(c: CubeDecision) -> float:
    best = max(c.no_double, min(c.double_take, c.double_pass))
    return best - c.no_double


def take_loss(c: CubeDecision) -> float:
    return max(-c.double_take, -c.double_pass) - (-c.double_take)


def pass_loss(c: CubeDecision) -> float:
    return max(-c.double_take, -c.double_pass) - (-c.double_pass)


def engine_doubles(c: CubeDecision) -> bool:
    return c.action.startswith(("Double", "Redouble"))


def engine_takes(c: CubeDecision) -> bool:
    """The engine, answering, takes when double/take is worse for the doubler than the cash."""
    return c.double_take < c.double_pass


def play_loss(rows: list[PlayRow], position_id: str) -> tuple[PlayRow, float] | None:
    """(the chosen row, equity lost versus the best row) for the play reaching ``position_id``."""
    for r in rows:
        if r.position_id == position_id:
            return r, rows[0].equity.cubeless - r.equity.cubeless
    return None


def natural_key(move: str):
    """Sort plays the way they read: bar first, then higher points first."""
    nums = [25 if x == "bar" else (0 if x == "off" else int(x))
            for x in re.findall(r"bar|off|\d+", move)]
    return [-n for n in nums]


@dataclass
class MoneyGame:
    """One game (and the running score of the session) against the engine."""

    seed: int
    jacoby: bool = True
    beavers: bool = True
    state: object = None  # GameState, side on roll
    human_on_roll: bool = True
    phase: str = "new"  # human_cube, human_move, engine, human_answer, over
    score: list = field(default_factory=lambda: [0, 0])  # human, engine
    games: int = 0
    rng: random.Random = field(default=None, repr=False)
    offered: CubeDecision | None = None  # the engine's decision when it doubled

    def __post_init__(self) -> None:
        if self.rng is None:
            self.rng = random.Random(self.seed)

    def roll(self) -> tuple[int, int]:
        return (self.rng.randint(1, 6), self.rng.randint(1, 6))

    def start(self) -> tuple[int, int]:
        """A new game from the opening position: both roll one die (again on a tie); the higher
        die moves first with both dice. Returns (human's die, engine's die)."""
        from bgtui.analysis.formats import parse_position

        while True:
            a, b = self.rng.randint(1, 6), self.rng.randint(1, 6)
            if a != b:
                break
        self.games += 1
        self.human_on_roll = a > b
        self.state = replace(parse_position(OPENING_ID), dice=(a, b), dice_raw=None,
                             jacoby=self.jacoby, beavers=self.beavers)
        self.phase = "human_move" if self.human_on_roll else "engine"
        self.offered = None
        return a, b

    def may_double(self) -> bool:
        s = self.state
        return s.dice is None and s.cube_owner in ("centred", "player") and s.cube_value < 64

    def with_dice(self, dice: tuple[int, int]):
        self.state = replace(self.state, dice=dice, dice_raw=None)
        return self.state

    def after_play(self, new_state, human_moved: bool) -> str | None:
        """Record a play; returns the game-over text, or None (the other side is now on roll)."""
        new_state = replace(new_state, jacoby=self.jacoby, beavers=self.beavers)
        res = game_result(board_list(new_state.board))
        self.state = new_state
        self.human_on_roll = not human_moved
        if res is None:
            return None
        mult = res[1]
        if self.jacoby and new_state.cube_value == 1:
            mult = 1  # Jacoby rule: gammons count only once the cube has been turned
        points = mult * new_state.cube_value
        return self.finish(human_moved, points, RESULT_NAMES[mult])

    def finish(self, human_won: bool, points: int, how: str) -> str:
        self.score[0 if human_won else 1] += points
        self.phase = "over"
        who = "You win" if human_won else "The engine wins"
        return (f"{who} {how}: {points} point{'s' if points != 1 else ''}. "
                f"Score: you {self.score[0]}, engine {self.score[1]}. n starts a new game.")

    def doubled_and_taken(self) -> None:
        """The side on roll doubled and the other took: cube doubled, owned by the taker."""
        s = self.state
        self.state = replace(s, cube_value=s.cube_value * 2, cube_owner="opponent")
