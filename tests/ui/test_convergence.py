"""The convergence plot: where each candidate's digit and band land, the history a snapshot
carries, and the plot in the exported analysis."""

from dataclasses import replace

from bgtui.analysis.models import (
    HISTORY_POINTS,
    Equities,
    PlayRow,
    Probabilities,
    RolloutSnapshot,
    extend_history,
)
from bgtui.ui.widgets.convergence import ConvergenceHistory, plot_lines

P = Probabilities(0.5, 0.1, 0.0, 0.1, 0.0)


def _row(move, e, se, trials):
    return PlayRow(
        move=move,
        position_id="",
        probabilities=P,
        equity=Equities(e),
        equity_se=Equities(se),
        trials=trials,
    )


def test_history_keeps_the_latest_point_and_thins_evenly():
    h = ()
    for t in range(1, 3 * HISTORY_POINTS):
        h = extend_history(h, t, [_row("8/5 6/5", 0.1, 0.01, t)])
    assert len(h) <= HISTORY_POINTS and h[-1][0] == 3 * HISTORY_POINTS - 1
    trials = [p[0] for p in h]
    assert trials == sorted(trials) and trials[0] < HISTORY_POINTS  # the start is still there
    assert extend_history(h, h[-1][0], [_row("8/5 6/5", 0.2, 0.01, 5)])[-1][1][0][1] == 0.2


def test_digits_sit_on_their_equity_rows_inside_their_bands():
    # two candidates far apart with tight bands: 1 on the top rows, 2 on the bottom rows
    h = ConvergenceHistory()
    h.series = {
        "a": [(100, 0.50, 0.001), (200, 0.50, 0.001)],
        "b": [(100, 0.10, 0.001), (200, 0.10, 0.001)],
    }
    lines = plot_lines(h, width=40, height=11, unicode=False)
    grid = lines[:11]
    assert "1" in grid[0] and "2" in grid[10]
    assert all("1" not in r and "2" not in r for r in grid[1:10])
    assert grid[0].startswith(" +0.502") and grid[10].startswith(" +0.098")  # ± 1.96 SE
    assert lines[12].rstrip().endswith("200 trials")
    assert "1 a  2 b" in lines[13] and "95% band" in lines[13]
    assert all(ord(c) < 128 for line in lines for c in line)  # ASCII mode


def test_exported_analysis_holds_the_plot():
    from bgtui.ui import persist

    rows = [_row("8/5 6/5", 0.2, 0.01, 72), _row("24/23 13/10", 0.1, 0.01, 72)]
    h = extend_history(extend_history((), 36, rows), 72, rows)
    snap = RolloutSnapshot(1, 72, 72, 1.0, 72.0, 0.0, tuple(rows), finished=True, history=h)
    doc = persist.AnalysisDoc(
        position="XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10", rollout=snap
    )
    text = persist.export(doc, "(board)")
    assert "95% band" in text and "72 trials" in text
    again = persist.from_dict(persist.to_dict(doc))  # saved and opened: the history stays
    assert (
        ConvergenceHistory.from_snapshot(again.rollout).series
        == ConvergenceHistory.from_snapshot(replace(snap)).series
    )
