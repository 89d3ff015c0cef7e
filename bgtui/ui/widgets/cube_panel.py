"""The cube panel: no double / double-take / double-pass, the proper action, Dahl's estimate."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.widgets import Static

from bgtui.analysis.models import CubeDecision, PlayRow
from bgtui.ui.fmt import eq, mwc, mwc_first, pct, se


def cube_from_rollout(state, row: PlayRow) -> CubeDecision | None:
    """A cube decision from a cubeful position rollout (Dahl's cube states: centred, owned by
    the player on roll, owned by the opponent), as the command line's settlement-limit cube
    rollout derives it (beavers included), without the paired standard error of the
    difference (that needs the job's trials)."""
    from bgtui.analysis.cube import rolled_out_fields, settlement_cube_equities

    e = row.equity
    if e.centred is None or e.opponent_owned is None or state.cube_owner == "opponent":
        return None
    nd, dt, _, ses = settlement_cube_equities(e, row.equity_se, state.cube_owner, state.beavers)
    if nd is None:
        return None
    return CubeDecision(
        **rolled_out_fields(nd, dt, state.cube_owner, row.probabilities),
        equity=e,
        ply=0,
        evaluated_by=f"rollout {row.trials} trials (cubeful)",
        standard_errors=ses,
        model="settlement rollout",
    )


class CubePanel(Static):
    """Renders a CubeDecision (or a message saying why there is none)."""

    def show(self, c: CubeDecision | None, message: str = "") -> None:
        if c is None:
            self.update(message or "Press u for the cube action (evaluated at the current ply).")
            return
        if not c.cube_access:
            out = Text()
            out.append(f"Cube action ({c.evaluated_by or str(c.ply) + '-ply'})\n", "bold")
            if c.mwc is not None:  # at a match score: Crawford game, dead cube or no access
                m, e = f"MWC {mwc(c.mwc['no_double'])}", f"EMG {eq(c.no_double)}"
                out.append(
                    f"{c.action}: no cube access.\n"
                    + (f"{m}  {e}\n" if mwc_first(self) else f"{e}  {m}\n")
                )
                self.update(_group(out, self._footer(c)))
                return
            out.append(
                f"No double: the opponent owns the cube (no cube access).\n"
                f"Equity {eq(c.no_double)}\n"
            )
            self.update(_group(out, self._footer(c)))
            return
        best = max(c.no_double, min(c.double_take, c.double_pass))
        ses = c.standard_errors or {}
        redouble = c.action.startswith(("No redouble", "Redouble", "Too good to redouble"))
        word = "redouble" if redouble else "double"
        tab = Table(box=None, padding=(0, 1), show_header=True, header_style="bold")
        tab.add_column("Action")
        first = c.mwc is not None and mwc_first(self)  # at a match score: MWC, then EMG
        if first:
            tab.add_column("MWC", justify="right")
        tab.add_column("Equity" if c.mwc is None else "EMG", justify="right")
        tab.add_column("±", justify="right")
        tab.add_column("vs best", justify="right")
        if c.mwc is not None and not first:
            tab.add_column("MWC", justify="right")
        for name, v, k in (
            (f"No {word}", c.no_double, "no_double"),
            (f"{word.capitalize()}, take", c.double_take, "double_take"),
            (f"{word.capitalize()}, pass", c.double_pass, None),
        ):
            cells = [name, eq(v), se(ses.get(k)) if k else "", eq(v - best) if v != best else ""]
            if c.mwc is not None:  # equities are EMG at a match score; MWC beside them
                m = mwc(c.mwc[k or "double_pass"])
                cells.insert(1 if first else len(cells), m)
            tab.add_row(*cells)
        out = Text()
        out.append(f"Cube action ({c.evaluated_by or str(c.ply) + '-ply'})\n", "bold")
        self.update(_group(out, tab, self._footer(c)))

    @staticmethod
    def _footer(c: CubeDecision) -> Text:
        t = Text()
        t.append("Proper action: ", "bold")
        t.append(c.action + "\n", "bold")
        p = c.probabilities
        t.append(
            f"W {pct(p.win)}  G {pct(p.win_gammon)}   L {pct(p.lose)}  G {pct(p.lose_gammon)}\n"
        )
        e = c.equity
        parts = [f"cubeless {eq(e.cubeless)}"]
        for label, v in (
            ("centred", e.centred),
            ("own cube", e.owned),
            ("opp. cube", e.opponent_owned),
        ):
            if v is not None:
                parts.append(f"{label} {eq(v)}")
        t.append("Cube-state equities (after the best cube action): " + ", ".join(parts) + "\n")
        if c.model:
            x = "" if c.cube_efficiency is None else f", x={c.cube_efficiency:.2f}"
            ply = "" if "rollout" in c.model else f", {c.ply}-ply"
            t.append(f"Model: {c.model}{x}{ply}\n")
        dahl = (
            c.dahl_cube_value
            if c.dahl_cube_value is not None
            else 0.35 * (p.win + p.win_gammon / 2)
        )
        t.append(f"Dahl's estimate of the cube's value, 0.35*(P(W)+P(G)/2) = {dahl:.3f}\n")
        if c.take_point is not None or c.cash_point is not None:
            t.append(f"Take point {pct(c.take_point)}  cash point {pct(c.cash_point)}")
            if c.too_good_point is not None:
                t.append(f"  too good {pct(c.too_good_point)}")
            t.append("\n")
        if c.wrong_pass_percent is not None:
            t.append(
                f"Doubling is right if the opponent passes wrongly {c.wrong_pass_percent:.1f}% of the time\n"
            )
        if c.wrong_take_percent is not None:
            t.append(
                f"Doubling is right if the opponent takes wrongly {c.wrong_take_percent:.1f}% of the time\n"
            )
        return t


def _group(*parts):
    from rich.console import Group

    return Group(*parts)
