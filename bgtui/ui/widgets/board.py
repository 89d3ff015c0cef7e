"""The board: render-only, drawn from a GameState; colours come from theme variables.

Points are numbered from the side on roll (``●``, bottom, moving 24 -> 1); the opponent (``○``)
moves the other way. The bar sits in the middle column (the opponent's half at the top, the
player's at the bottom); the right-hand column shows checkers borne off and the cube (at the
top when the opponent owns it, in the middle when centred, at the bottom when the player on
roll owns it). ``unicode = False`` draws plain ASCII (``O``/``X``) for terminals without
Unicode. ``cursor`` (a slot 0..25) highlights a point for the board editor.
"""

from __future__ import annotations

from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from bgtui.analysis.board import OPPONENT_BAR, PLAYER_BAR, board_list, borne_off, pips

TOP_LEFT, TOP_RIGHT = (13, 14, 15, 16, 17, 18), (19, 20, 21, 22, 23, 24)
BOTTOM_LEFT, BOTTOM_RIGHT = (12, 11, 10, 9, 8, 7), (6, 5, 4, 3, 2, 1)
LEVELS = 5
WIDTH = 48


class Glyphs:
    def __init__(self, unicode: bool) -> None:
        if unicode:
            self.me, self.opp, self.empty = "●", "○", "·"
            self.h, self.v = "─", "│"
            self.tl, self.tr, self.bl, self.br, self.tt, self.bt = "┌", "┐", "└", "┘", "┬", "┴"
            self.ml, self.mr, self.mx = "├", "┤", "┼"
        else:
            self.me, self.opp, self.empty = "O", "X", "."
            self.h, self.v = "-", "|"
            self.tl = self.tr = self.bl = self.br = self.tt = self.bt = "+"
            self.ml = self.mr = self.mx = "+"


class BoardView(Widget):
    """A backgammon board drawn from ``state`` (a GameState)."""

    COMPONENT_CLASSES = {
        "board--player",
        "board--opponent",
        "board--point-a",
        "board--point-b",
        "board--frame",
        "board--text",
        "board--cursor",
        "board--cube",
    }
    DEFAULT_CSS = """
    BoardView { height: 13; width: 48; }
    """
    can_focus = False

    state = reactive(None)
    unicode: reactive[bool] = reactive(True)
    cursor: reactive[int | None] = reactive(None)
    labels: reactive[tuple[str, str]] = reactive(("", ""))  # (player, opponent) names, play mode

    def render(self) -> Text:
        if self.state is None:
            return Text("no position")
        styles = {
            k.split("--")[1]: self.get_component_rich_style(k) for k in self.COMPONENT_CLASSES
        }
        return _Painter(self.state, Glyphs(self.unicode), styles, self.cursor).paint()


class _Painter:
    """The board's text, row by row: the top frame with points 13..24, the opponent's half,
    the middle row (pip counts, the bar, the dice), the player's half, the bottom frame; beside
    each row the side column (borne-off checkers, the cube)."""

    def __init__(self, state, glyphs: Glyphs, styles: dict, cursor: int | None) -> None:
        self.s = state
        self.g = glyphs
        self.st = styles
        self.cur = cursor
        self.cells = board_list(state.board)
        self.off_me, self.off_opp = borne_off(self.cells)
        self.cube_row = {"opponent": 2, "centred": 6, "player": 10}[state.cube_owner]
        self.t = Text(no_wrap=True, overflow="crop")

    def paint(self) -> Text:
        g = self.g
        self.number_line(TOP_LEFT, TOP_RIGHT, g.tl, g.tt, g.tr)
        self.t.append("\n")
        for level in range(LEVELS):
            self.checker_row(1 + level, level, TOP_LEFT, OPPONENT_BAR, TOP_RIGHT)
        self.middle_row()
        for level in range(LEVELS - 1, -1, -1):
            self.checker_row(7 + (LEVELS - 1 - level), level, BOTTOM_LEFT, PLAYER_BAR, BOTTOM_RIGHT)
        self.number_line(BOTTOM_LEFT, BOTTOM_RIGHT, g.bl, g.bt, g.br)
        return self.t

    def frame(self, txt: str) -> None:
        self.t.append(txt, self.st["frame"])

    def number_line(self, left, right, lc, mid, rc) -> None:
        """A frame row that carries the point numbers."""
        h = self.g.h
        self.frame(
            lc
            + "".join(f"{n:{h}^3}" for n in left)
            + mid
            + h * 3
            + mid
            + "".join(f"{n:{h}^3}" for n in right)
            + rc
        )

    def with_cursor(self, i: int, style):
        return style + self.st["cursor"] if self.cur is not None and self.cur == i else style

    def point_cell(self, i: int, level: int) -> None:
        """Point ``i``'s cell at stack height ``level`` (the top cell counts a tall stack)."""
        g, st = self.g, self.st
        n = self.cells[i]
        k = abs(n)
        style = st["player"] if n > 0 else st["opponent"]
        if k > level:
            if k > LEVELS and level == LEVELS - 1:
                text = f"{k:^3}"
            else:
                text = f" {g.me if n > 0 else g.opp} "
        else:
            text = f" {g.empty} " if level == 0 else "   "
            style = st["point-a"] if i % 2 else st["point-b"]
        self.t.append(text, self.with_cursor(i, style))

    def bar_cell(self, i: int, level: int) -> None:
        """The bar's cell (slot ``i``: a side's bar) at stack height ``level``."""
        g, st = self.g, self.st
        n = abs(self.cells[i])
        style = st["opponent"] if i == OPPONENT_BAR else st["player"]
        ch = g.opp if i == OPPONENT_BAR else g.me
        if n > level:
            text = f"{n:^3}" if (n > LEVELS and level == LEVELS - 1) else f" {ch} "
        else:
            text = "   "
        self.t.append(text, self.with_cursor(i, style))

    def side(self, row: int) -> None:
        """The side column of ``row``: the cube, or a side's checkers borne off."""
        g, st, t = self.g, self.st, self.t
        if row == self.cube_row:
            cube_txt = f"[{self.s.cube_value}]"
            t.append(f" {cube_txt:<4}", st["cube"])
        elif row == 1:
            t.append(f" {g.opp}{self.off_opp:>2} ", st["opponent"])
        elif row == 11:
            t.append(f" {g.me}{self.off_me:>2} ", st["player"])
        else:
            t.append(" " * 5)

    def checker_row(self, row: int, level: int, left, bar: int, right) -> None:
        g = self.g
        self.frame(g.v)
        for i in left:
            self.point_cell(i, level)
        self.frame(g.v)
        self.bar_cell(bar, level)
        self.frame(g.v)
        for i in right:
            self.point_cell(i, level)
        self.frame(g.v)
        self.side(row)
        self.t.append("\n")

    def middle_row(self) -> None:
        """Pip counts on the left half, the dice on the right half."""
        g, st, s = self.g, self.st, self.s
        mine, theirs = pips(self.cells)
        left = f" {g.me}{mine} {g.opp}{theirs}"
        dice = f" dice {s.dice[0]}{s.dice[1]}" if s.dice else " no dice"
        self.frame(g.ml)
        self.t.append(f"{left:<18}"[:18], st["text"])
        self.frame(g.mx + "BAR" + g.mx)
        self.t.append(f"{dice:<18}"[:18], st["text"])
        self.frame(g.mr)
        self.side(6)
        self.t.append("\n")
