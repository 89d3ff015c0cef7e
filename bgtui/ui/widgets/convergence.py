"""A rollout converging: each candidate's equity and its 95% band against trials.

The plot is text: candidate ``k`` draws its equity with its digit (``1`` the best at the
time of drawing, as in the table) and its band (equity ± 1.96 standard errors) with a light
dot, so it reads the same in 16 colours, in any theme and in plain ASCII (``.`` for the band).
The same lines go into the exported analysis. The vertical range follows the later part of
the rollout (the first trials' wide bands would flatten everything else).
"""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from bgtui.ui.fmt import eq

#: z of a two-sided 95% band
Z95 = 1.96
#: at most this many candidates are drawn (digits 1-9)
MAX_SERIES = 9


class ConvergenceHistory:
    """``series[move] = [(trials, equity, se), ...]``, from a snapshot's ``history``."""

    def __init__(self) -> None:
        self.series: dict[str, list[tuple[int, float, float]]] = {}

    @classmethod
    def from_snapshot(cls, snap) -> ConvergenceHistory:
        h = cls()
        for trials, figures in getattr(snap, "history", None) or ():
            for move, e, s in figures:
                h.series.setdefault(move or "position", []).append(
                    (int(trials), float(e), float(s))
                )
        return h


def plot_lines(
    history: ConvergenceHistory, width: int = 60, height: int = 10, unicode: bool = True
) -> list[str]:
    """The plot as ``height`` grid lines with an equity axis, a trials axis and a legend;
    empty when no candidate has two points yet."""
    series = [(k, v) for k, v in history.series.items() if len(v) >= 2]
    if not series:
        return []
    # the best candidate at the end first, as the table orders them
    series.sort(key=lambda kv: -kv[1][-1][1])
    series = series[:MAX_SERIES]
    t_max = max(v[-1][0] for _, v in series)
    label_w = 7
    cols = max(10, width - label_w - 1)
    rows = max(3, height)
    lo, hi = [], []
    for _, v in series:
        late = [p for p in v if p[0] >= t_max / 4] or v
        lo.append(min(e - Z95 * s for _, e, s in late))
        hi.append(max(e + Z95 * s for _, e, s in late))
    y_lo, y_hi = min(lo), max(hi)
    if y_hi - y_lo < 1e-6:
        y_lo, y_hi = y_lo - 0.001, y_hi + 0.001

    def row_of(y: float) -> int | None:
        if y < y_lo or y > y_hi:
            return None
        return min(rows - 1, int((y_hi - y) / (y_hi - y_lo) * rows))

    grid = [[" "] * cols for _ in range(rows)]
    band = "·" if unicode else "."
    for k, (_, v) in enumerate(series):
        digit = str(k + 1)
        j = 0
        for c in range(cols):
            t = (c + 1) / cols * t_max
            while j + 1 < len(v) and v[j + 1][0] <= t:
                j += 1
            if v[j][0] > t:
                continue  # no point yet this early
            _, e, s = v[j]
            top, bottom = row_of(min(y_hi, e + Z95 * s)), row_of(max(y_lo, e - Z95 * s))
            if top is not None and bottom is not None:
                for r in range(top, bottom + 1):
                    if grid[r][c] == " ":
                        grid[r][c] = band
            r = row_of(e)
            if r is not None:
                grid[r][c] = digit
    axis = "│" if unicode else "|"
    out = []
    for r in range(rows):
        label = eq(y_hi) if r == 0 else eq(y_lo) if r == rows - 1 else ""
        out.append(f"{label:>{label_w}}{axis}" + "".join(grid[r]).rstrip())
    corner, rule = ("└", "─") if unicode else ("+", "-")
    out.append(" " * label_w + corner + rule * cols)
    right = f"{t_max} trials"
    out.append(" " * (label_w + 1) + "0" + right.rjust(cols - 1))
    legend = "  ".join(f"{k + 1} {name}" for k, (name, _) in enumerate(series))
    out.append(f"{'':>{label_w}} {legend}   {band} 95% band")
    return out


class ConvergencePlot(Static):
    """The live plot under the rollout table."""

    def __init__(self, **kwargs) -> None:
        super().__init__("", **kwargs)
        self.history = ConvergenceHistory()
        self.unicode = True

    def show(self, snap) -> None:
        """Draw the history of ``snap`` (None: empty)."""
        self.history = (
            ConvergenceHistory.from_snapshot(snap) if snap is not None else ConvergenceHistory()
        )
        self.redraw()

    def redraw(self) -> None:
        width = max(20, self.size.width or 60)
        height = max(3, (self.size.height or 14) - 4)
        lines = plot_lines(self.history, width, height, self.unicode)
        self.update(
            Text("\n".join(lines))
            if lines
            else Text("The equities and their 95% bands appear here as the rollout runs.")
        )

    def on_resize(self, _event) -> None:
        self.redraw()
