"""The app's main flows, driven by keys against the deterministic fake analysis service."""

import asyncio

import pytest

from bgtui.analysis.fake import FakeAnalyzer
from bgtui.analysis.formats import format_position_id
from bgtui.ui.app import BgTuiApp


async def _ready(app, pilot):
    await app.workers.wait_for_complete()
    await pilot.pause()
    assert app.engine_ready


async def _type(pilot, text):
    for ch in text:
        await pilot.press(ch)


def test_load_position_evaluate_mark_and_roll_out_two_candidates():
    async def run():
        app = BgTuiApp(FakeAnalyzer())
        async with app.run_test(size=(120, 40)) as pilot:
            await _ready(app, pilot)
            # load a position by XGID, with an error shown first for a bad ID
            await pilot.press("l")
            await pilot.pause()
            await _type(pilot, "garbage")
            await pilot.press("enter")
            await pilot.pause()
            err = app.screen.query_one("#prompt-error").render()
            assert "position" in str(err)
            await pilot.press(*["backspace"] * 7)
            await _type(pilot, "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10")
            await pilot.press("enter")
            await pilot.pause()
            assert app.state.dice == (3, 1)
            await pilot.press("e")
            await app.workers.wait_for_complete()
            await pilot.pause()
            assert len(app.plays) == 16
            await pilot.press("space", "down", "space")
            await pilot.pause()
            assert len(app.marked) == 2
            await pilot.press("r")
            await app.workers.wait_for_complete()
            await pilot.pause()
            snap = app.last_snapshot
            assert snap.finished and len(snap.rows) == 2
            assert {r.move for r in snap.rows} == app.marked
            table = app.query_one("#results")
            assert table.row_count == 2
    asyncio.run(run())


def test_stop_and_resume_a_rollout():
    import threading

    async def run():
        gate = threading.Event()
        app = BgTuiApp(FakeAnalyzer(gate=gate))
        async with app.run_test(size=(120, 40)) as pilot:
            await _ready(app, pilot)
            await pilot.press("r")
            await pilot.pause(0.2)
            assert app.rollout_running
            await pilot.press("s")
            await app.workers.wait_for_complete()
            await pilot.pause()
            snap = app.last_snapshot
            assert snap.cancelled and snap.trials_done < snap.trials_total
            assert not app.rollout_running
            gate.set()
            await pilot.press("c")
            await app.workers.wait_for_complete()
            await pilot.pause()
            assert app.last_snapshot.finished
    asyncio.run(run())


def test_swap_undo_redo_and_opening():
    async def run():
        app = BgTuiApp(FakeAnalyzer())
        async with app.run_test(size=(80, 24)) as pilot:
            await _ready(app, pilot)
            start = format_position_id(app.state)
            await pilot.press("d")
            await pilot.pause()
            await _type(pilot, "61")
            await pilot.press("enter")
            await pilot.pause()
            assert app.state.dice == (6, 1)
            await pilot.press("x")
            await pilot.pause()
            assert app.state.dice is None and app.state.on_roll == 0
            await pilot.press("ctrl+z", "ctrl+z")
            await pilot.pause()
            assert format_position_id(app.state) == start and app.state.dice is None
            await pilot.press("ctrl+y")
            await pilot.pause()
            assert app.state.dice == (6, 1)
    asyncio.run(run())


def test_engine_error_becomes_a_notification_and_the_app_stays_usable():
    async def run():
        app = BgTuiApp(FakeAnalyzer(fail=True))
        async with app.run_test(size=(120, 40)) as pilot:
            await _ready(app, pilot)
            await pilot.press("e")
            await pilot.pause(0.3)
            assert any("failed" in n.message for n in app._notifications)
            await pilot.press("o")  # still answers keys
            await pilot.pause()
            assert app.is_running
    asyncio.run(run())


def test_analysis_keys_wait_for_the_engine():
    async def run():
        app = BgTuiApp(FakeAnalyzer(delay=0.2))
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            assert not app.engine_ready
            assert app.check_action("evaluate", ()) is None
            await app.workers.wait_for_complete()
            await pilot.pause()
            assert app.check_action("evaluate", ()) is True
    asyncio.run(run())


def test_save_open_and_export_an_analysis(tmp_path, monkeypatch):
    monkeypatch.setenv("BGTUI_DATA_DIR", str(tmp_path))

    async def run():
        app = BgTuiApp(FakeAnalyzer())
        async with app.run_test(size=(120, 40)) as pilot:
            await _ready(app, pilot)
            await pilot.press("d")
            await pilot.pause()
            await _type(pilot, "42")
            await pilot.press("enter")
            await pilot.pause()
            await pilot.press("e")
            await app.workers.wait_for_complete()
            await pilot.pause()
            await pilot.press("ctrl+s")
            await pilot.pause()
            await pilot.press(*["backspace"] * 20)
            await _type(pilot, "mine")
            await pilot.press("enter")
            await pilot.pause()
            assert (tmp_path / "analyses" / "mine.json").exists()
            await pilot.press("m")
            await pilot.pause()
            md = list((tmp_path / "analyses").glob("*.md"))
            assert md and "| 1 |" in md[0].read_text()
            await pilot.press("o", "ctrl+o")
            await pilot.pause()
            await _type(pilot, "mine")
            await pilot.press("enter")
            await pilot.pause()
            assert app.state.dice == (4, 2)
    asyncio.run(run())
