"""Evaluating, marking candidates, rolling them out, stopping and resuming, engine errors,
warm-up gating and the command palette (Pilot, fake service)."""

from ui_helpers import (
    XGID_31,
    evaluated,
    fake,
    notes,
    paste,
    ready,
    run,
    running,
    wait_for,
)

from bgtui.analysis.formats import parse_position
from bgtui.ui.fmt import eq
from bgtui.ui.widgets.rollout_form import PRESETS
from bgtui.ui.widgets.tables import PlaysTable, ResultsTable

STATE_31 = parse_position(XGID_31)


def _column(table, key):
    """The plain text of column ``key``, top row first (as displayed)."""
    out = []
    for row in table.ordered_rows:
        cell = table.get_cell(row.key, key)
        out.append(getattr(cell, "plain", str(cell)).strip())
    return out


def _row_keys(table):
    return [row.key.value for row in table.ordered_rows]


@run
async def test_evaluate_at_the_chosen_ply_ranks_every_play(make_app):
    app = make_app(state=XGID_31)
    async with running(app) as pilot:
        m = app.main_screen
        await evaluated(pilot, "2")  # 2 chooses 2-ply and evaluates
        assert m.ply == 2 and m.evaluation.ply == 2
        expected = fake().evaluate(STATE_31, 2)
        assert m.evaluation.probabilities == expected.probabilities
        table = m.query_one(PlaysTable)
        # 31 from the opening has 16 legal plays, shown best first, all at 2-ply
        assert table.row_count == 16
        ranked = fake().rank_plays(STATE_31, (3, 1), 2)
        assert _row_keys(table) == [r.move for r in ranked]
        assert set(_column(table, "how")) == {"2-ply"}
        assert _column(table, "equity")[0] == eq(ranked[0].equity.cubeless)
        assert _column(table, "diff")[0] == ""  # the best play has no difference
        assert _column(table, "diff")[1] == eq(ranked[1].equity_diff)
        info = str(m.query_one("#info").render())
        assert "2-ply:" in info and "Equity" in info
        assert "2-ply" in str(m.query_one("#status").render())
        # the cube tab has the cube action of the same evaluation
        assert m.cube is not None and m.cube.ply == 2
        # 0 goes back to 0-ply: the table is re-ranked
        await evaluated(pilot, "0")
        assert m.evaluation.ply == 0
        assert set(_column(table, "how")) == {"0-ply"}


@run
async def test_two_marked_candidates_rolled_out_together(make_app):
    app = make_app(state=XGID_31)
    async with running(app) as pilot:
        m = app.main_screen
        await evaluated(pilot)
        table = m.query_one(PlaysTable)
        # mark the 2nd and 4th plays (not the best: the rollout must re-sort them)
        await pilot.press("down", "space", "down", "down", "space")
        second, fourth = m.plays[1].move, m.plays[3].move
        assert table.marked == [second, fourth]
        assert _column(table, "mark")[1] == "✓" and _column(table, "mark")[3] == "✓"
        assert "2 marked" in str(m.query_one("#status").render())
        await pilot.press("r")
        await wait_for(
            pilot,
            lambda: (
                not m.rollout_running and m.last_snapshot is not None and m.last_snapshot.finished
            ),
            what="rollout finished",
        )
        snap = m.last_snapshot
        assert {r.move for r in snap.rows} == {second, fourth}
        assert snap.trials_done == snap.trials_total == PRESETS["Quick truncated"].trials
        results = m.query_one(ResultsTable)
        assert m.query_one("#tabs").active == "tab-rollout"
        assert results.row_count == 2
        by_equity = sorted(snap.rows, key=lambda r: -r.equity.cubeless)
        assert _row_keys(results) == [r.move for r in by_equity]  # sorted by equity
        diffs = _column(results, "diff")
        assert diffs[0] == ""
        diff = by_equity[1].equity.cubeless - by_equity[0].equity.cubeless
        assert diffs[1].startswith(eq(diff)) and "±" in diffs[1]  # difference and its SE
        assert _column(results, "trials") == [str(snap.trials_total)] * 2
        assert "finished" in str(m.query_one("#rollout-head").render())
        # the plays table puts the rolled-out plays first, by rollout equity
        assert _row_keys(table)[:2] == [r.move for r in by_equity]
        assert _column(table, "how")[:2] == [f"R {snap.trials_total}"] * 2
        # finished: + (extend) is offered, s (stop) and c (continue) are not
        assert m.check_action("extend", ()) and not m.check_action("stop", ())
        assert not m.check_action("resume", ())


def _figures(rows):
    return sorted(
        (r.move, r.trials, r.probabilities, r.equity, r.equity_se, r.equity_diff) for r in rows
    )


@run
async def test_stopped_and_resumed_rollout_equals_an_uninterrupted_one(make_app, gates):
    steps = gates.steps()  # the fake runs one step of the rollout per release
    app = make_app(analyzer=fake(gate=steps), state=XGID_31)
    async with running(app) as pilot:
        m = app.main_screen
        await evaluated(pilot)
        await pilot.press("space", "down", "space")
        moves = list(m.query_one(PlaysTable).marked)
        await pilot.press("r")
        trials = PRESETS["Quick truncated"].trials
        step = trials // 8
        await wait_for(pilot, lambda: m.last_snapshot is not None, what="first snapshot")
        steps.release(3)
        await wait_for(
            pilot, lambda: m.last_snapshot.trials_done == 3 * step, what="three steps done"
        )
        assert m.rollout_running and m.check_action("stop", ())
        assert f"rollout {3 * step}/{trials}" in str(m.query_one("#status").render())
        await pilot.press("s")
        await wait_for(pilot, lambda: not m.rollout_running, what="rollout stopped")
        stopped = m.last_snapshot
        assert stopped.cancelled and not stopped.finished
        assert stopped.trials_done == 3 * step
        assert "stopped" in str(m.query_one("#rollout-head").render())
        assert m.check_action("resume", ())
        steps.release(100)
        await pilot.press("c")
        await wait_for(
            pilot,
            lambda: not m.rollout_running and m.last_snapshot.finished,
            what="resumed rollout finished",
        )
        resumed = m.last_snapshot
    # the same rollout without a stop, straight from a fresh fake
    uninterrupted = list(fake().iter_rollout(STATE_31, PRESETS["Quick truncated"], moves=moves))[-1]
    assert uninterrupted.finished and resumed.trials_done == uninterrupted.trials_done
    assert _figures(resumed.rows) == _figures(uninterrupted.rows)


@run
async def test_engine_errors_become_notifications_and_the_app_stays_usable(make_app):
    an = fake(fail_on=("evaluate", "iter_rollout"))
    app = make_app(analyzer=an, state=XGID_31)
    async with running(app) as pilot:
        m = app.main_screen
        await pilot.press("e")
        await wait_for(
            pilot,
            lambda: any("Evaluation failed" in n for n in notes(app)),
            what="evaluation error notified",
        )
        assert any("fake engine failure in evaluate" in n for n in notes(app))
        await wait_for(pilot, lambda: not m.evaluating, what="evaluation state cleared")
        assert "evaluating" not in str(m.query_one("#status").render())
        # a failing rollout (of the position: no dice) ends; r works again
        await pilot.press("x")  # swap sides: no dice
        assert m.state.dice is None
        await pilot.press("r")
        await wait_for(
            pilot,
            lambda: any("Rollout failed" in n for n in notes(app)),
            what="rollout error notified",
        )
        await wait_for(pilot, lambda: not m.rollout_running, what="rollout ended")
        assert m.check_action("rollout", ()) is True
        # the app still works: the engine recovers and evaluation goes through
        an.fail_on.clear()
        await evaluated(pilot)
        assert m.evaluation is not None
        assert app.is_running


def _held_warmup(make_app, gates, gate: str):
    """(app, its fake service, the event that releases it): the fake's warm-up stage ``gate``
    (``warmup_gate``, ``rollout_warmup_gate``) waits for the event."""
    hold = gates.event()
    an = fake(**{gate: hold})
    return make_app(analyzer=an, state=XGID_31), an, hold


@run
async def test_analysis_keys_disabled_until_warm_up_finishes(make_app, gates):
    app, an, hold = _held_warmup(make_app, gates, "warmup_gate")
    async with running(app, warm=False) as pilot:
        m = app.main_screen
        await wait_for(
            pilot, lambda: "loading weights" in app.engine_status, what="warm-up under way"
        )
        assert not app.engine_ready
        for key in ("e", "r", "u", "P"):
            assert m.active_bindings[key].enabled is False, key  # greyed in the Footer
        assert "engine: loading weights" in str(m.query_one("#status").render())
        await pilot.press("e", "r")
        assert "evaluate" not in an.calls and "iter_rollout" not in an.calls
        assert not m.evaluating and not m.rollout_running
        hold.set()
        await ready(app, pilot)
        assert m.active_bindings["e"].enabled is True
        assert "engine ready" in str(m.query_one("#status").render())
        await evaluated(pilot)
        assert "evaluate" in an.calls


@run
async def test_evaluation_does_not_wait_for_the_rollouts_warm_up(make_app, gates):
    app, an, hold = _held_warmup(make_app, gates, "rollout_warmup_gate")
    async with running(app, warm=False) as pilot:
        m = app.main_screen
        await wait_for(pilot, lambda: app.engine_ready, what="evaluation warm")
        assert not app.rollouts_ready
        assert m.active_bindings["e"].enabled is True
        assert m.active_bindings["r"].enabled is False
        assert "rollouts warming up" in str(m.query_one("#status").render())
        await evaluated(pilot)
        await pilot.press("r")
        await pilot.pause()
        assert "iter_rollout" not in an.calls and not m.rollout_running
        hold.set()
        await ready(app, pilot)
        assert m.active_bindings["r"].enabled is True
        assert "engine ready" in str(m.query_one("#status").render())


@run
async def test_command_palette_runs_a_domain_command(make_app):
    app = make_app(state=XGID_31)
    async with running(app, warm=False) as pilot:
        from textual.command import CommandList, CommandPalette

        m = app.main_screen
        await ready(app, pilot)
        await pilot.press("ctrl+p")
        await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette), what="palette open")
        await paste(pilot, "evaluate at 3")
        palette = app.screen
        await wait_for(
            pilot, lambda: palette.query_one(CommandList).option_count > 0, what="palette hits"
        )
        first = palette.query_one(CommandList).get_option_at_index(0)
        assert "Evaluate at 3-ply" in str(first.prompt)
        await pilot.press("down", "enter")  # highlight the first hit, run it
        await wait_for(
            pilot,
            lambda: m.evaluation is not None and m.evaluation.ply == 3,
            what="evaluated at 3-ply from the palette",
        )
        assert m.ply == 3


def test_rollout_description_names_the_vr_filter():
    from bgtui.analysis.models import RolloutSettings
    from bgtui.ui.widgets.rollout_form import describe

    assert "VR (filter 2)" in describe(RolloutSettings())  # the default
    plain = describe(RolloutSettings(vr_filter=0))
    assert "VR" in plain and "filter" not in plain
    assert "VR" not in describe(RolloutSettings(variance_reduction=False, vr_filter=2))
