"""Snapshots of the main screen at 80x24 and 120x40 in every shipped theme (fake engine)."""

import pytest

from bgtui.analysis.fake import FakeAnalyzer
from bgtui.analysis.formats import parse_position
from bgtui.ui.app import BgTuiApp

STATE = "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10"


async def _evaluated(pilot):
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    await pilot.press("e")
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
@pytest.mark.parametrize("theme", ["bgtui-dark", "bgtui-light", "bgtui-16"])
def test_main_screen(snap_compare, size, theme):
    app = BgTuiApp(FakeAnalyzer(), parse_position(STATE), theme)
    assert snap_compare(app, terminal_size=size, run_before=_evaluated)
