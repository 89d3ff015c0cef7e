"""The board: render-only, from a GameState; colours from theme variables."""

from __future__ import annotations

from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from bgtui.analysis.state import GameState


class BoardView(Widget):
    """Points numbered from the side on roll; ``unicode`` False gives a plain ASCII board."""

    COMPONENT_CLASSES = {"board--player", "board--opponent", "board--point", "board--frame"}
    DEFAULT_CSS = """
    BoardView { height: auto; width: auto; }
    """
    state: reactive[GameState | None] = reactive(None)
    unicode: reactive[bool] = reactive(True)

    def render(self) -> Text:
        s = self.state
        if s is None:
            return Text("no position")
        pos = s.position.astype(int)
        me = self.get_component_rich_style("board--player")
        opp = self.get_component_rich_style("board--opponent")
        pt = self.get_component_rich_style("board--point")
        fr = self.get_component_rich_style("board--frame")
        mine_ch, opp_ch, dot = ("●", "○", "·") if self.unicode else ("O", "X", ".")
        t = Text()

        def row(points, r, top):
            for i in points:
                n = pos[i]
                k = abs(n)
                show_count = k > 5 and r == (4 if top else 0)
                level = r if top else 4 - r
                if n == 0 or k <= level:
                    t.append(f" {dot} " if level == 0 else "   ", pt)
                elif show_count:
                    t.append(f"{k:2d} ", me if n > 0 else opp)
                else:
                    t.append(f" {mine_ch if n > 0 else opp_ch} ", me if n > 0 else opp)

        t.append("".join(f"{i:>2} " for i in range(13, 19)) + "   "
                 + "".join(f"{i:>2} " for i in range(19, 25)) + "\n", fr)
        for r in range(5):
            row(range(13, 19), r, True)
            t.append(f" {opp_ch if -pos[0] > r else ' '} ", opp)
            row(range(19, 25), r, True)
            t.append("\n")
        line = "-" if not self.unicode else "─"
        t.append(line * 18 + "BAR" + line * 18 + "\n", fr)
        for r in range(5):
            row(range(12, 6, -1), r, False)
            t.append(f" {mine_ch if pos[25] > 4 - r else ' '} ", me)
            row(range(6, 0, -1), r, False)
            t.append("\n")
        t.append("".join(f"{i:>2} " for i in range(12, 6, -1)) + "   "
                 + "".join(f"{i:>2} " for i in range(6, 0, -1)), fr)
        return t
