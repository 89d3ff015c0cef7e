"""Quitting during a rollout, saving and opening analyses, settings remembered between runs,
NO_COLOR, the 80x24 layout (Pilot, fake service)."""

import tomllib

from textual.geometry import Region
from ui_helpers import (
    XGID_31,
    evaluated,
    fake,
    is_screen,
    notes,
    paste,
    prompt_open,
    ready,
    run,
    running,
    start_rollout,
    type_text,
    wait_for,
)

from bgtui.analysis.formats import format_xgid
from bgtui.ui.widgets.rollout_form import PRESETS, RolloutForm
from bgtui.ui.widgets.tables import PlaysTable, ResultsTable


@run
async def test_quit_during_a_rollout_asks_and_saves(make_app, gates, tmp_path):
    steps = gates.steps()
    app = make_app(analyzer=fake(gate=steps), state=XGID_31)
    async with running(app) as pilot:
        m = app.main_screen
        await start_rollout(pilot, steps, release=2)
        await pilot.press("q")
        await wait_for(pilot, lambda: is_screen(app, "ChoiceScreen"), what="quit question")
        assert "rollout is running" in app.screen.question
        await pilot.press("escape")  # changed my mind: nothing stops
        await wait_for(pilot, lambda: is_screen(app, "MainScreen"), what="question closed")
        assert m.rollout_running and app.is_running
        await pilot.press("q")
        await wait_for(pilot, lambda: is_screen(app, "ChoiceScreen"), what="quit question again")
        await pilot.press("s")  # stop, save, quit
        await wait_for(pilot, lambda: app.return_code is not None, what="app exited")
    saved = list((tmp_path / "data").glob("analysis-*.json"))
    assert len(saved) == 1
    from bgtui.ui import persist

    doc = persist.load(saved[0])
    assert doc.position == XGID_31
    assert doc.rollout is not None and doc.rollout.cancelled and doc.rollout.trials_done > 0
    assert doc.rollout_state is not None  # resumable


@run
async def test_quit_during_a_rollout_without_saving(make_app, gates, tmp_path):
    steps = gates.steps()
    app = make_app(analyzer=fake(gate=steps), state=XGID_31)
    async with running(app) as pilot:
        await start_rollout(pilot)
        await pilot.press("q")
        await wait_for(pilot, lambda: is_screen(app, "ChoiceScreen"), what="quit question")
        await pilot.press("q")
        await wait_for(pilot, lambda: app.return_code is not None, what="app exited")
    assert not list((tmp_path / "data").glob("*.json"))


@run
async def test_save_then_open_an_analysis_in_a_new_session(make_app, tmp_path):
    app = make_app(state=XGID_31)
    async with running(app) as pilot:
        m = app.main_screen
        await evaluated(pilot)
        await pilot.press("space", "down", "space", "r")
        await wait_for(
            pilot,
            lambda: (
                m.last_snapshot is not None and m.last_snapshot.finished and not m.rollout_running
            ),
            what="rollout finished",
        )
        saved_rows = m.last_snapshot.rows
        marked = list(m.query_one(PlaysTable).marked)
        await pilot.press("ctrl+s")
        await prompt_open(pilot, "save prompt")
        assert app.screen.query_one("Input").value.startswith("analysis-")
        await pilot.press("ctrl+u")  # clear the suggested name
        await type_text(pilot, "mine")
        await pilot.press("enter")
        await wait_for(pilot, lambda: (tmp_path / "data" / "mine.json").exists(), what="file saved")
        assert any("Saved" in n for n in notes(app))
        # ctrl+e exports the same analysis as Markdown beside it
        await pilot.press("ctrl+e")
        await wait_for(pilot, lambda: list((tmp_path / "data").glob("*.md")), what="export")
        md = next((tmp_path / "data").glob("*.md")).read_text()
        assert all(r.move in md for r in saved_rows) and m.plays[0].move in md
    app2 = make_app()  # a new session on the opening position, same data dir
    async with app2.run_test(size=(120, 40)) as pilot:
        m = app2.main_screen
        await ready(app2, pilot)
        await pilot.press("ctrl+o")
        await wait_for(pilot, lambda: is_screen(app2, "FileListScreen"), what="file list")
        assert [f.name for f in app2.screen.files] == ["mine.json"]
        await pilot.press("enter")
        await wait_for(pilot, lambda: is_screen(app2, "MainScreen"), what="file opened")
        assert format_xgid(m.state) == XGID_31
        assert m.query_one(PlaysTable).row_count == 16
        assert m.query_one(PlaysTable).marked == marked
        assert m.last_snapshot.finished and m.last_snapshot.rows == saved_rows
        assert m.query_one(ResultsTable).row_count == 2
        assert "finished" in str(m.query_one("#rollout-head").render())
        # the saved rollout can be extended in the new session
        assert m.check_action("extend", ())
        total = m.last_snapshot.trials_total
        await pilot.press("plus")
        await wait_for(
            pilot,
            lambda: (
                not m.rollout_running
                and m.last_snapshot.finished
                and m.last_snapshot.trials_total > total
            ),
            what="extended",
        )
        assert m.last_snapshot.trials_done == total + PRESETS["Quick truncated"].trials


@run
async def test_settings_are_remembered_between_two_app_instances(make_app, tmp_path):
    app = make_app(theme=None)
    async with running(app) as pilot:
        assert app.theme == "bgtui-dark"  # the default
        await evaluated(pilot, "2")  # 2-ply
        await pilot.press("t")  # next theme
        await pilot.press("p")  # next rollout preset
        theme, preset = app.theme, app.main_screen.preset
        assert theme != "bgtui-dark" and preset == "Standard full"
    conf = tomllib.loads((tmp_path / "config" / "tui.toml").read_text())
    assert conf["theme"] == theme and conf["ply"] == 2 and conf["preset"] == preset
    assert conf["rollout"]["trials"] == PRESETS[preset].trials
    app2 = make_app(theme=None)
    async with app2.run_test(size=(120, 40)) as pilot:
        m = app2.main_screen
        assert app2.theme == theme
        assert m.ply == 2 and m.preset == preset
        assert m.query_one(RolloutForm).settings() == PRESETS[preset]
        assert "2-ply" in str(m.query_one("#status").render())


@run
async def test_no_color_selects_the_16_colour_theme(make_app, tmp_path, monkeypatch):
    conf = tmp_path / "config" / "tui.toml"
    conf.parent.mkdir(parents=True)
    conf.write_text('theme = "bgtui-light"\n')
    app = make_app(theme=None)
    async with app.run_test(size=(80, 24)):
        assert app.theme == "bgtui-light"  # the remembered theme without NO_COLOR
    monkeypatch.setenv("NO_COLOR", "1")
    app = make_app(theme=None)
    async with app.run_test(size=(80, 24)):
        assert app.no_color
        assert app.theme == "bgtui-16"
    # NO_COLOR does not overwrite the remembered choice
    assert 'theme = "bgtui-light"' in conf.read_text()


def _visible(app, widget) -> bool:
    """Shown, with a non-empty region inside the screen."""
    r = widget.region
    screen = Region(0, 0, *app.size)
    return widget.display and r.area > 0 and screen.contains_region(r)


@run
async def test_80x24_layout_has_every_pane_reachable(make_app):
    app = make_app(state=XGID_31)
    async with running(app, size=(80, 24)) as pilot:
        m = app.main_screen
        assert m.has_class("-narrow")
        board, info = m.query_one("#board"), m.query_one("#info")
        status, footer = m.query_one("#status"), m.query_one("Footer")
        assert _visible(app, board) and board.region.size == (48, 13)  # not clipped
        assert _visible(app, info) and info.region.x >= board.region.right
        assert status.region.y == 22 and footer.region.y == 23
        await evaluated(pilot)
        plays = m.query_one(PlaysTable)
        assert _visible(app, plays) and plays.region.height >= 4
        # every tab shows its pane when chosen with ] (wraps round)
        panes = {
            "tab-moves": "#plays",
            "tab-rollout": "#results",
            "tab-settings": "#form",
            "tab-cube": "#cube-scroll",
        }
        tabs = m.query_one("#tabs")
        seen = set()
        for _ in range(4):
            await pilot.press("right_square_bracket")
            seen.add(tabs.active)
            await wait_for(
                pilot,
                lambda: _visible(app, m.query_one(panes[tabs.active])),
                what=f"{tabs.active} visible",
            )
        assert seen == set(panes)
        # the cube action is taller than its pane at this size: it scrolls by keyboard
        await pilot.press("u")
        scroll = m.query_one("#cube-scroll")
        await wait_for(pilot, lambda: m.focused is scroll, what="cube pane focused")
        assert scroll.max_scroll_y > 0
        await pilot.press("end")
        await wait_for(
            pilot,
            lambda: scroll.scroll_y == scroll.max_scroll_y > 0,
            what="cube pane scrolled to its end",
        )
        # the rollout settings: g focuses the first field, the last field scrolls into view
        await pilot.press("g")
        assert m.focused.id == "f-trials" and _visible(app, m.focused)
        form = m.query_one(RolloutForm)
        last = form.query("Input, Checkbox").last()
        last.focus()
        await wait_for(pilot, lambda: _visible(app, last), what="last field scrolled to")
        await pilot.press("escape")
        assert tabs.active == "tab-moves"
        # zoom hides the board and gives the tables the room
        before = plays.region.height
        await pilot.press("z")
        await wait_for(pilot, lambda: plays.region.height > before, what="zoomed")
        assert not board.display or board.region.area == 0
        await pilot.press("z")
        await wait_for(pilot, lambda: _visible(app, board), what="unzoomed")
        # help opens and closes at this size
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: is_screen(app, "HelpScreen"), what="help")
        assert _visible(app, app.screen.query_one("#help-body"))
        await pilot.press("escape")
        await wait_for(pilot, lambda: is_screen(app, "MainScreen"), what="help closed")


def test_the_scheduler_address_is_given_to_the_service_and_remembered(make_app, tmp_path):

    @run
    async def body():
        an = fake()
        an.scheduler = None  # the real service's attribute (the fake runs nothing remotely)
        app = make_app(analyzer=an)
        async with running(app) as pilot:
            m = app.main_screen
            await pilot.press("g")
            field = m.query_one("#f-scheduler")
            field.focus()
            await wait_for(pilot, lambda: m.focused is field, what="the address field focused")
            await paste(pilot, "tcp://10.0.0.7:8786")
            await wait_for(
                pilot,
                lambda: an.scheduler == "tcp://10.0.0.7:8786",
                what="the service given the address",
            )
            assert "Dask scheduler" in str(m.query_one("#form-help").render())
        conf = tomllib.loads((tmp_path / "config" / "tui.toml").read_text())
        assert conf["scheduler"] == "tcp://10.0.0.7:8786"
        an2 = fake()
        an2.scheduler = None
        app2 = make_app(analyzer=an2)
        async with app2.run_test(size=(120, 40)) as pilot:
            await ready(app2, pilot)
            assert an2.scheduler == "tcp://10.0.0.7:8786"
            assert app2.main_screen.query_one("#f-scheduler").value == "tcp://10.0.0.7:8786"
            # emptied: rollouts on this machine again
            app2.main_screen.query_one("#f-scheduler").value = ""
            await wait_for(pilot, lambda: an2.scheduler is None, what="the address cleared")

    body()
