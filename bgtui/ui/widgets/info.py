"""Text beside the board: whose turn, pips, checkers off, dice, cube, game type, IDs, evaluation."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from bgtui.analysis.board import board_list, borne_off, pips
from bgtui.analysis.models import Evaluation
from bgtui.ui.fmt import eq, mwc, mwc_first, pct


def position_ids(state) -> tuple[str, str, str]:
    """(Position ID, Match ID, XGID) of ``state``; any that cannot be encoded read '?'."""
    from bgtui.analysis.formats import format_match_id, format_position_id, format_xgid

    out = []
    for f in (format_position_id, format_match_id, format_xgid):
        try:
            out.append(f(state))
        except Exception:  # an ID that cannot be written must not break the screen
            out.append("?")
    return out[0], out[1], out[2]


def game_text(state) -> str:
    if state.match_length:
        from bgtui.analysis.match import describe

        return describe(state)
    return "Money" + (", Jacoby" if state.jacoby else "") + (", beavers" if state.beavers else "")


class PositionInfo(Static):
    """Facts about the position; ``names`` label the two sides (play mode: you / engine)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.unicode = True
        self._last: tuple | None = None

    def on_resize(self, _event) -> None:
        if self._last is not None:
            self.show(*self._last)

    def show(
        self,
        state,
        evaluation: Evaluation | None = None,
        names: tuple[str, str] = ("on roll", "opponent"),
        note: str = "",
    ) -> None:
        self._last = (state, evaluation, names, note)
        me, opp = ("●", "○") if self.unicode else ("O", "X")
        cells = board_list(state.board)
        (mine, theirs), (off_me, off_opp) = pips(cells), borne_off(cells)
        pid, mid, xgid = position_ids(state)
        t = Text()
        t.append(f"{me} {names[0]:<9}", "bold")
        t.append(f"pips {mine:>3}  off {off_me:>2}\n")
        t.append(f"{opp} {names[1]:<9}", "bold")
        t.append(f"pips {theirs:>3}  off {off_opp:>2}\n")
        owner = {"centred": "centred", "player": f"{me} owns", "opponent": f"{opp} owns"}
        dice = f"{state.dice[0]}{state.dice[1]}" if state.dice else "-"
        t.append(f"Dice {dice}   Cube {state.cube_value} ({owner[state.cube_owner]})\n")
        t.append(game_text(state) + "\n")
        t.append("Position ID ", "dim")
        t.append(pid + "\n")
        t.append("Match ID    ", "dim")
        t.append(mid + "\n")
        width = self.content_region.width
        if 0 < width < len(xgid) and len(xgid) > 31:
            t.append(xgid[:31] + "\n" + "     " + xgid[31:] + "\n")  # break after the board
        else:
            t.append(xgid + "\n")
        if evaluation is not None:
            p = evaluation.probabilities
            t.append(f"{evaluation.evaluated_by or str(evaluation.ply) + '-ply'}: ", "bold")
            t.append(f"W {pct(p.win)} G {pct(p.win_gammon)} BG {pct(p.win_backgammon)}\n")
            t.append(f" L {pct(p.lose)} G {pct(p.lose_gammon)} BG {pct(p.lose_backgammon)}\n")
            equity = f" Equity {eq(evaluation.equity.cubeless)}"
            if evaluation.equity.cubeful is not None:
                equity += f", cubeful {eq(evaluation.equity.cubeful)}"
            equity += " (EMG)\n" if evaluation.mwc else "\n"
            lines = [equity]
            if evaluation.mwc:  # at a match score: MWC and EMG, in the order of the setting
                m = f" MWC {mwc(evaluation.mwc['cubeless'])}"
                if evaluation.mwc.get("cubeful") is not None:
                    m += f", cubeful {mwc(evaluation.mwc['cubeful'])}"
                lines.insert(0 if mwc_first(self) else 1, m + "\n")
            for line in lines:
                t.append(line)
        if note:
            t.append(note)
        self.update(t)
