"""Play mode's rules and bookkeeping, free of Textual: a money game, or a match to N points with
the Crawford rule, against the engine.

The GameState is always seen from the side on roll. Dice come from a seeded ``random.Random``
owned here (on the main thread), so a seed replays the same game. The cube arithmetic of the
feedback ("equity lost versus the best") is on a 1-cube, from the deciding side's view:

* the side on roll doubling: best = max(no double, min(double/take, double/pass)); doubling
  gets min(double/take, double/pass) (the opponent answers correctly), not doubling gets
  no double;
* the side answering a double: taking is worth -double/take and passing -double/pass (the
  doubler's figures negated); best is the larger.

At a match score the same arithmetic runs twice: on the EMG figures (the equities) and on the
MWC (``CubeDecision.mwc``, ``PlayRow.mwc``); the answering side's MWC is one minus the
doubler's, and the constant cancels in every difference.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field, replace

from bgtui.analysis.models import CubeDecision, PlayRow
from bgtui.ui.board_model import board_list, game_result

OPENING_ID = "4HPwATDgc/ABMA"
RESULT_NAMES = {1: "a single game", 2: "a gammon", 3: "a backgammon"}


def _options(c: CubeDecision, mwc: bool = False) -> tuple[float, float, float]:
    """(no double, double/take, double/pass) in EMG (equities), or with ``mwc`` in MWC."""
    if mwc:
        return c.mwc["no_double"], c.mwc["double_take"], c.mwc["double_pass"]
    return c.no_double, c.double_take, c.double_pass


def double_loss(c: CubeDecision, mwc: bool = False) -> float:
    nd, dt, dp = _options(c, mwc)
    return max(nd, min(dt, dp)) - min(dt, dp)


def no_double_loss(c: CubeDecision, mwc: bool = False) -> float:
    nd, dt, dp = _options(c, mwc)
    return max(nd, min(dt, dp)) - nd


def take_loss(c: CubeDecision, mwc: bool = False) -> float:
    _, dt, dp = _options(c, mwc)
    return max(-dt, -dp) - (-dt)


def pass_loss(c: CubeDecision, mwc: bool = False) -> float:
    _, dt, dp = _options(c, mwc)
    return max(-dt, -dp) - (-dp)


def cube_losses(c: CubeDecision, kind) -> tuple[float, float | None]:
    """(equity lost, MWC lost or None for money) of a cube decision: ``kind`` one of
    :func:`double_loss`, :func:`no_double_loss`, :func:`take_loss`, :func:`pass_loss`."""
    return kind(c), (
        kind(c, mwc=True) if c.mwc is not None and c.mwc.get("double_take") is not None else None
    )


def engine_doubles(c: CubeDecision) -> bool:
    return c.action.startswith(("Double", "Redouble"))


def engine_takes(c: CubeDecision) -> bool:
    """The engine, answering, takes when double/take is worse for the doubler than the cash."""
    return c.double_take < c.double_pass


def _ranking(r: PlayRow) -> float:
    """A play's ranking figure: cubeful EMG at a match score, else the cubeless equity."""
    if r.mwc is not None and r.equity.cubeful is not None:
        return r.equity.cubeful
    return r.equity.cubeless


def play_loss(rows: list[PlayRow], position_id: str) -> tuple[PlayRow, float] | None:
    """(the chosen row, equity lost versus the best row) for the play reaching ``position_id``;
    at a match score the equity is EMG (the row's MWC loss: :func:`play_mwc_loss`)."""
    for r in rows:
        if r.position_id == position_id:
            return r, _ranking(rows[0]) - _ranking(r)
    return None


def play_mwc_loss(rows: list[PlayRow], row: PlayRow) -> float | None:
    """MWC lost by ``row`` versus the best, at a match score (None for money)."""
    if row.mwc is None or rows[0].mwc is None:
        return None
    return rows[0].mwc - row.mwc


def natural_key(move: str):
    """Sort plays the way they read: bar first, then higher points first."""
    nums = [
        25 if x == "bar" else (0 if x == "off" else int(x))
        for x in re.findall(r"bar|off|\d+", move)
    ]
    return [-n for n in nums]


@dataclass
class MoneyGame:
    """One game (and the running score of the session) against the engine: money, or with
    ``match_length`` N a match to N points (no Jacoby rule nor beavers; the Crawford rule: no
    double in the game after a side first reaches N - 1)."""

    seed: int
    jacoby: bool = True
    beavers: bool = True
    match_length: int = 0
    state: object = None  # GameState, side on roll
    human_on_roll: bool = True
    phase: str = "new"  # human_cube, human_move, engine, human_answer, over
    score: list = field(default_factory=lambda: [0, 0])  # human, engine
    games: int = 0
    rng: random.Random = field(default=None, repr=False)
    offered: CubeDecision | None = None  # the engine's decision when it doubled
    crawford_game: bool = False  # this game is the match's Crawford game
    crawford_done: bool = False  # the Crawford game has been played (post-Crawford)
    winner: str | None = None  # the match's winner ("you" or "engine") once it is over

    def __post_init__(self) -> None:
        if self.rng is None:
            self.rng = random.Random(self.seed)
        if self.match_length:
            self.jacoby = self.beavers = False

    @property
    def is_match(self) -> bool:
        return self.match_length > 0

    def roll(self) -> tuple[int, int]:
        return (self.rng.randint(1, 6), self.rng.randint(1, 6))

    def context(self, human_on_roll: bool) -> dict:
        """The game's context for a GameState with the human (or the engine) on roll: rules,
        and at a match the score (side on roll first) and the Crawford game."""
        kw = dict(jacoby=self.jacoby, beavers=self.beavers, match_length=self.match_length)
        if self.is_match:
            h, e = self.score
            kw.update(score=(h, e) if human_on_roll else (e, h), crawford=self.crawford_game)
        else:
            kw.update(score=(0, 0), crawford=False)
        return kw

    def start(self) -> tuple[int, int]:
        """A new game from the opening position: both roll one die (again on a tie); the higher
        die moves first with both dice. Returns (human's die, engine's die). After a finished
        match, a new match."""
        from bgtui.analysis.formats import parse_position

        if self.winner is not None:
            self.score = [0, 0]
            self.games = 0
            self.crawford_game = self.crawford_done = False
            self.winner = None
        while True:
            a, b = self.rng.randint(1, 6), self.rng.randint(1, 6)
            if a != b:
                break
        self.games += 1
        self.human_on_roll = a > b
        self.state = replace(
            parse_position(OPENING_ID),
            dice=(a, b),
            dice_raw=None,
            **self.context(self.human_on_roll),
        )
        self.phase = "human_move" if self.human_on_roll else "engine"
        self.offered = None
        return a, b

    def may_double(self) -> bool:
        s = self.state
        if s.dice is not None or s.cube_owner not in ("centred", "player"):
            return False
        if not self.is_match:
            return s.cube_value < 64
        # a match: not in the Crawford game, nor with a cube both sides need no more than
        away = [self.match_length - x for x in s.score]
        return not self.crawford_game and s.cube_value < max(away)

    def with_dice(self, dice: tuple[int, int]):
        self.state = replace(self.state, dice=dice, dice_raw=None)
        return self.state

    def after_play(self, new_state, human_moved: bool) -> str | None:
        """Record a play; returns the game-over text, or None (the other side is now on roll)."""
        new_state = replace(new_state, **self.context(not human_moved))
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
        text = f"{who} {how}: {points} point{'s' if points != 1 else ''}. "
        if not self.is_match:
            return (
                text + f"Score: you {self.score[0]}, engine {self.score[1]}. n starts a new game."
            )
        n = self.match_length
        h, e = self.score
        if max(h, e) >= n:
            self.winner = "you" if h >= n else "engine"
            return text + (
                f"{'You win' if h >= n else 'The engine wins'} the {n}-point match "
                f"{max(h, e)}-{min(h, e)}. n starts a new match."
            )
        if self.crawford_game:
            self.crawford_game, self.crawford_done = False, True
        elif not self.crawford_done and (h == n - 1 or e == n - 1):
            self.crawford_game = True
        nxt = (
            " (Crawford game next: no doubling)"
            if self.crawford_game
            else (" (post-Crawford)" if self.crawford_done else "")
        )
        return text + (f"Match to {n}: you {h}, engine {e}{nxt}. n starts the next game.")

    def doubled_and_taken(self) -> None:
        """The side on roll doubled and the other took: cube doubled, owned by the taker."""
        s = self.state
        self.state = replace(s, cube_value=s.cube_value * 2, cube_owner="opponent")
