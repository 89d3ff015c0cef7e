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
        s = self.state
        if s is None:
            return Text("no position")
        g = Glyphs(self.unicode)
        cells = board_list(s.board)
        st = {k.split("--")[1]: self.get_component_rich_style(k) for k in self.COMPONENT_CLASSES}
        cur = self.cursor
        t = Text(no_wrap=True, overflow="crop")

        def frame(txt: str) -> None:
            t.append(txt, st["frame"])

        def number_line(left, right, lc, mid, rc) -> None:
            frame(
                lc
                + "".join(f"{n:{g.h}^3}" for n in left)
                + mid
                + g.h * 3
                + mid
                + "".join(f"{n:{g.h}^3}" for n in right)
                + rc
            )

        def point_cell(i: int, level: int) -> None:
            n = cells[i]
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
            if cur is not None and cur == i:
                style = style + st["cursor"]
            t.append(text, style)

        def bar_cell(i: int, level: int) -> None:
            n = abs(cells[i])
            style = st["opponent"] if i == OPPONENT_BAR else st["player"]
            ch = g.opp if i == OPPONENT_BAR else g.me
            if n > level:
                text = f"{n:^3}" if (n > LEVELS and level == LEVELS - 1) else f" {ch} "
            else:
                text = "   "
            if cur is not None and cur == i:
                style = style + st["cursor"]
            t.append(text, style)

        off_me, off_opp = borne_off(cells)
        mine, theirs = pips(cells)
        owner = s.cube_owner
        cube_txt = f"[{s.cube_value}]"
        cube_row = {"opponent": 2, "centred": 6, "player": 10}[owner]

        def side(row: int) -> None:
            if row == cube_row:
                t.append(f" {cube_txt:<4}", st["cube"])
            elif row == 1:
                t.append(f" {g.opp}{off_opp:>2} ", st["opponent"])
            elif row == 11:
                t.append(f" {g.me}{off_me:>2} ", st["player"])
            else:
                t.append(" " * 5)

        def checker_row(row: int, level: int, left, bar: int, right) -> None:
            frame(g.v)
            for i in left:
                point_cell(i, level)
            frame(g.v)
            bar_cell(bar, level)
            frame(g.v)
            for i in right:
                point_cell(i, level)
            frame(g.v)
            side(row)
            t.append("\n")

        # row 0: the top frame carries the point numbers 13..24
        number_line(TOP_LEFT, TOP_RIGHT, g.tl, g.tt, g.tr)
        t.append("\n")
        for level in range(LEVELS):
            checker_row(1 + level, level, TOP_LEFT, OPPONENT_BAR, TOP_RIGHT)
        # the middle row: pip counts on the left half, the dice on the right half
        left = f" {g.me}{mine} {g.opp}{theirs}"
        dice = f" dice {s.dice[0]}{s.dice[1]}" if s.dice else " no dice"
        frame(g.ml)
        t.append(f"{left:<18}"[:18], st["text"])
        frame(g.mx + "BAR" + g.mx)
        t.append(f"{dice:<18}"[:18], st["text"])
        frame(g.mr)
        side(6)
        t.append("\n")
        for level in range(LEVELS - 1, -1, -1):
            checker_row(7 + (LEVELS - 1 - level), level, BOTTOM_LEFT, PLAYER_BAR, BOTTOM_RIGHT)
        number_line(BOTTOM_LEFT, BOTTOM_RIGHT, g.bl, g.bt, g.br)
        return t
