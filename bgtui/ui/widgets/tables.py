"""The candidate-plays table and the live rollout table.

Both keep one row per play under a stable key (the move text) and change cells in place with
``update_cell`` (memray's pattern), so a table never flickers or loses the cursor while a
rollout streams in. Every update re-measures its column: a column is as wide as the widest
figure it shows now, whichever snapshot happened to be drawn first.
"""

from __future__ import annotations

from collections.abc import Iterable

from rich.text import Text
from textual.coordinate import Coordinate
from textual.widgets import DataTable

from bgtui.analysis.models import PlayRow, RolloutSnapshot
from bgtui.ui.fmt import eq, match_pair, mwc, mwc_diff, mwc_first, pct, pct_se, se

POSITION_KEY = "(position)"
NO_PLAY = "(no legal play)"


def num(value: str) -> Text:
    """A right-aligned figure with one space before it (the tables use no cell padding, so
    that the plays fit 70 columns)."""
    return Text(" " + value if value else "", justify="right")


def txt(value: str) -> Text:
    return Text(" " + value if value else "")


def row_key(move: str) -> str:
    return move if move else POSITION_KEY


def how(row: PlayRow) -> str:
    if row.trials:
        return f"R {row.trials}" + (" pruned" if row.pruned else "")
    return row.evaluated_by


class LiveTable(DataTable):
    """A DataTable whose cells change in place and whose columns follow their widest cell.

    DataTable measures columns when idle, but its cell render caches are keyed without the
    column widths: a row drawn before a column widened would keep its narrow, cut-off cells
    until the next cell update. When the widths change, one cell is set again (``update_cell``
    bumps the caches' generation), so the next frame draws every row at the new widths.
    """

    _drawn_widths: tuple[int, ...] = ()

    def on_idle(self) -> None:
        widths = tuple(c.get_render_width(self) for c in self.ordered_columns)
        if widths == self._drawn_widths:
            return
        self._drawn_widths = widths
        if self.row_count and self.columns:
            first = Coordinate(0, 0)
            self.update_cell_at(first, self.get_cell_at(first))


# The equity, its difference from the best and the outcome probabilities: the columns that
# the plays table and the rolled-out plays table share.
_RESULT_COLUMNS = (
    ("equity", "Equity"),
    ("diff", "Diff"),
    ("w", "Win"),
    ("wg", "W G"),
    ("wbg", "W BG"),
    ("lg", "L G"),
    ("lbg", "L BG"),
)


class PlaysTable(LiveTable):
    """Candidate plays of the dice, best first: rank, play, equity, diff, W/G/BG, how evaluated.

    ``marked`` holds the moves chosen for a rollout (space toggles the row under the cursor).
    """

    COLUMNS = (
        ("mark", ""),
        ("rank", "#"),
        ("move", "Play"),
        *_RESULT_COLUMNS,
        ("how", "Eval"),
    )

    def __init__(self, **kwargs) -> None:
        super().__init__(cursor_type="row", zebra_stripes=True, cell_padding=0, **kwargs)
        self.rows_by_key: dict[str, PlayRow] = {}
        self.marked: list[str] = []
        self.mark_glyph = "*"

    def on_mount(self) -> None:
        for key, label in self.COLUMNS:
            self.add_column(
                num(label) if key not in ("mark", "move", "how") else txt(label), key=key
            )

    # -- content -----------------------------------------------------------------------------
    def show_plays(self, rows: Iterable[PlayRow]) -> None:
        """Replace the table with a new evaluation (a new position or dice)."""
        self.clear()
        self.rows_by_key = {}
        self.marked = []
        for i, r in enumerate(rows, 1):
            k = row_key(r.move)
            self.rows_by_key[k] = r
            self.add_row(*self._cells(r, i), key=k)
        if self.row_count:
            self.move_cursor(row=0)

    def _cells(self, r: PlayRow, rank: int) -> tuple:
        p = r.probabilities
        if r.mwc is not None:  # at a match score: MWC and EMG, in the order of the setting
            first = mwc_first(self)
            value = match_pair(r.mwc, _emg(r), first)
            if rank == 1:
                diff = ""
            elif first and r.mwc_diff is not None:
                diff = mwc_diff(r.mwc_diff)
            else:
                diff = eq(r.equity_diff)
        else:
            value, diff = eq(r.equity.cubeless), eq(r.equity_diff) if rank > 1 else ""
        return (
            self._mark(r.move),
            num(str(rank)),
            txt(r.move or NO_PLAY),
            num(value),
            num(diff),
            num(pct(p.win)),
            num(pct(p.win_gammon)),
            num(pct(p.win_backgammon)),
            num(pct(p.lose_gammon)),
            num(pct(p.lose_backgammon)),
            txt(how(r)),
        )

    def _mark(self, move: str) -> str:
        return self.mark_glyph if move in self.marked else " "

    def update_rows(self, rows: Iterable[PlayRow]) -> None:
        """Put rollout figures into the rows of the same plays, in place."""
        for r in rows:
            k = row_key(r.move)
            if k not in self.rows_by_key or k == POSITION_KEY:
                continue
            self.rows_by_key[k] = r
            rank = self.get_row_index(k) + 1
            for (col, _), value in zip(self.COLUMNS, self._cells(r, rank)):
                if col not in ("mark", "rank", "diff"):
                    self.update_cell(k, col, value, update_width=True)

    def resort(self) -> None:
        """Rolled-out plays first (by equity), then the others; ranks and diffs redone."""

        def value(r: PlayRow) -> float:
            return r.mwc if r.mwc is not None else r.equity.cubeless

        def order(r: PlayRow):
            return (0 if r.trials else 1, -value(r))

        ranked = sorted(self.rows_by_key.items(), key=lambda kv: order(kv[1]))
        position = {k: i for i, (k, _) in enumerate(ranked)}
        self.sort("move", key=lambda cell: position[row_key(_plain(cell))])
        best = value(ranked[0][1]) if ranked else 0.0
        first = mwc_first(self)
        best_emg = _emg(ranked[0][1]) if ranked else 0.0
        for i, (k, r) in enumerate(ranked, 1):
            self.update_cell(k, "rank", num(str(i)), update_width=True)
            d = value(r) - best
            if r.mwc is None:
                text = eq(d)
            else:
                text = mwc_diff(d) if first else eq(_emg(r) - best_emg)
            self.update_cell(k, "diff", num("" if i == 1 else text), update_width=True)

    # -- marks -------------------------------------------------------------------------------
    def current_move(self) -> str | None:
        if not self.row_count:
            return None
        key = self.coordinate_to_cell_key(self.cursor_coordinate).row_key.value
        return "" if key == POSITION_KEY else key

    def toggle_mark(self) -> str | None:
        move = self.current_move()
        if move is None:
            return None
        if move in self.marked:
            self.marked.remove(move)
        else:
            self.marked.append(move)
        self.update_cell(row_key(move), "mark", self._mark(move))
        return move


class ResultsTable(LiveTable):
    """Live rollout figures: per candidate (or for the position) the five probabilities with
    their standard errors, the cubeless equity, the difference to the best with its paired
    standard error, the cube-state equities of a cubeful rollout, and the trials done.

    ``compact`` (narrow screens, 80x24): one line a candidate, the columns a choice between
    candidates needs: equity and its standard error, the difference to the best and its paired
    standard error, winning chances and trials."""

    COMPACT = (
        ("move", "Play"),
        ("equity", "Equity"),
        ("equity_se", "±"),
        ("diff", "Diff"),
        ("diff_se", "±"),
        ("w", "Win"),
        ("trials", "Trials"),
    )

    COLUMNS = (
        ("move", "Play"),
        *_RESULT_COLUMNS,
        ("centred", "Centred"),
        ("owned", "Own cube"),
        ("opp", "Opp cube"),
        ("trials", "Trials"),
    )

    def __init__(self, **kwargs) -> None:
        super().__init__(cursor_type="row", cell_padding=0, **kwargs)
        self.run_id: int | None = None
        self.equities: dict[str, float] = {}
        self.cubeful = False
        self.match = False
        self.mwc_first = True
        self.compact = False
        self._last: tuple[int, RolloutSnapshot] | None = None

    def on_mount(self) -> None:
        self.reset()

    def set_compact(self, compact: bool) -> None:
        """One line a candidate (or two lines with every probability); the rows shown are
        drawn again in the new form."""
        if compact == self.compact:
            return
        self.compact = compact
        last = self._last
        self.reset()
        if last is not None:
            self.show_snapshot(*last)

    def _columns(self) -> tuple:
        cols = (
            self.COMPACT
            if self.compact
            else tuple(
                (k, label)
                for k, label in self.COLUMNS
                if (self.cubeful and not self.match) or k not in ("centred", "owned", "opp")
            )
        )
        if not self.match:
            return cols
        # at a match score: MWC beside the equity (EMG), in the order of the setting
        out = []
        for k, label in cols:
            if k == "equity":
                pair = [("mwc", "MWC"), ("equity", "EMG")]
                out += pair if self.mwc_first else pair[::-1]
            else:
                out.append((k, label))
        return tuple(out)

    def reset(self, cubeful: bool = False, match: bool = False) -> None:
        """Empty the table; the cube-state columns are there only for cubeful money rollouts,
        the MWC column only at a match score."""
        self.clear(columns=True)
        self.cubeful = cubeful
        self.match = match
        self.mwc_first = mwc_first(self) if self.is_attached else True
        for key, label in self._columns():
            self.add_column(txt(label) if key == "move" else num(label), key=key)
        self.equities = {}
        self.run_id = None

    def cells(self, r: PlayRow, best: bool) -> dict:
        """The cells of a row by column key."""
        p, s = r.probabilities, r.probabilities_se
        e, es = r.equity, r.equity_se

        def two(value: str, err: str) -> Text:
            return num(f"{value}\n {err}" if err else value)

        def cube(v, sv):
            return two(eq(v), se(sv)) if v is not None else num("")

        live = e.cubeful is not None and r.mwc is not None  # the live cube at a match score
        diff = num("") if best else two(eq(r.equity_diff), se(r.equity_diff_se))
        if r.mwc is not None and self.mwc_first and not best:
            diff = two(mwc_diff(r.mwc_diff), f"±{100 * r.mwc_diff_se:.2f}%")
        cells = (
            txt(r.move or "position"),
            two(
                eq(e.cubeful if live else e.cubeless),
                se((es.cubeful if live else es.cubeless) if es else None) if es else "",
            ),
            diff,
            two(pct(p.win), pct_se(s.win) if s else ""),
            two(pct(p.win_gammon), pct_se(s.win_gammon) if s else ""),
            two(pct(p.win_backgammon), pct_se(s.win_backgammon) if s else ""),
            two(pct(p.lose_gammon), pct_se(s.lose_gammon) if s else ""),
            two(pct(p.lose_backgammon), pct_se(s.lose_backgammon) if s else ""),
            cube(e.centred, es.centred if es else None),
            cube(e.owned, es.owned if es else None),
            cube(e.opponent_owned, es.opponent_owned if es else None),
            num(str(r.trials) + (" pruned" if r.pruned else "")),
        )
        out = {k: c for (k, _), c in zip(self.COLUMNS, cells)}
        if r.mwc is not None:
            out["mwc"] = two(mwc(r.mwc), f"±{100 * r.mwc_se:.2f}%")
        return out

    def compact_cells(self, r: PlayRow, best: bool) -> dict:
        es = r.equity_se
        live = r.equity.cubeful is not None and r.mwc is not None
        e_val = r.equity.cubeful if live else r.equity.cubeless
        e_se = (es.cubeful if live else es.cubeless) if es else None
        diff, diff_se = eq(r.equity_diff), se(r.equity_diff_se)
        if r.mwc is not None and self.mwc_first:
            diff, diff_se = mwc_diff(r.mwc_diff), f"±{100 * r.mwc_diff_se:.2f}%"
        cells = (
            txt(r.move or "position"),
            num(eq(e_val)),
            num(se(e_se) if es else ""),
            num("" if best else diff),
            num("" if best else diff_se),
            num(pct(r.probabilities.win)),
            num(str(r.trials) + (" pruned" if r.pruned else "")),
        )
        out = {k: c for (k, _), c in zip(self.COMPACT, cells)}
        if r.mwc is not None:
            out["mwc"] = num(mwc(r.mwc))
        return out

    def show_snapshot(self, run_id: int, snap: RolloutSnapshot) -> None:
        """Rows are added once (stable keys) and then updated cell by cell."""
        if run_id != self.run_id:
            self.reset(
                cubeful=snap.settings.cubeful,
                match=bool(snap.rows) and snap.rows[0].mwc is not None,
            )
            self.run_id = run_id
        self._last = (run_id, snap)
        best_key = row_key(snap.rows[0].move) if snap.rows else None
        for r in snap.rows:
            k = row_key(r.move)
            self.equities[k] = r.mwc if r.mwc is not None else r.equity.cubeless
            by_key = (self.compact_cells if self.compact else self.cells)(r, k == best_key)
            cells = [by_key.get(col, num("")) for col, _ in self._columns()]
            if k in self.rows:
                for col, value in zip(self.columns, cells):
                    self.update_cell(k, col, value, update_width=True)
            else:
                self.add_row(*cells, key=k, height=1 if self.compact else 2)
        if snap.finished or snap.cancelled:
            eqs = self.equities
            self.sort(
                "move",
                key=lambda cell: (
                    -eqs.get(row_key("" if _plain(cell) == "position" else _plain(cell)), 0.0)
                ),
            )


def _emg(r: PlayRow) -> float:
    """A play's EMG at a match score: cubeful when given, else cubeless."""
    return r.equity.cubeful if r.equity.cubeful is not None else r.equity.cubeless


def _plain(cell) -> str:
    text = cell.plain if isinstance(cell, Text) else str(cell)
    text = text.strip()
    return "" if text in (NO_PLAY,) else text
