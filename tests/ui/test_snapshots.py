"""Snapshots (fake engine, fixed theme and size): the main screen with an evaluated position at
80x24 and 120x40 in every shipped theme; two rolled-out plays at both sizes; the board editor
and play mode at 120x40.

Regenerate with ``python3 -m pytest tests/ui/test_snapshots.py --snapshot-update`` and look at
the pictures before committing them. Nothing on these screens depends on time, paths or chance:
the fake's numbers are hashes of the position, play mode's dice come from a fixed seed.
"""

import pytest
from ui_helpers import XGID_31, evaluated, ready, wait_for


async def _evaluated_and_marked(pilot):
    await ready(pilot.app, pilot)
    await evaluated(pilot)
    await pilot.press("down", "space", "up")  # mark the second play, cursor on the best


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
@pytest.mark.parametrize("theme", ["bgtui-dark", "bgtui-light", "bgtui-16"])
def test_main_screen(snap_compare, make_app, size, theme):
    app = make_app(state=XGID_31, theme=theme)
    assert snap_compare(app, terminal_size=size, run_before=_evaluated_and_marked)


async def _editing(pilot):
    app = pilot.app
    await pilot.press("b")
    await wait_for(pilot, lambda: type(app.screen).__name__ == "EditorScreen", what="editor")
    # cursor to the 5 point, one more checker there; the cube to 2, owned by the opponent
    await pilot.press(*["left"] * 4, "p", "c")


def test_board_editor(snap_compare, make_app):
    app = make_app(state=XGID_31)
    assert snap_compare(app, terminal_size=(120, 40), run_before=_editing)


async def _playing(pilot):
    from bgtui.ui.game import MoneyGame

    app = pilot.app
    await ready(app, pilot)
    # a fixed seed whose opening roll goes to the human
    seed = next(s for s in range(1, 100) if MoneyGame(s).start()[0] > MoneyGame(s).start()[1])
    app.remember(play_seed=seed)
    await pilot.press("P")
    await wait_for(pilot, lambda: type(app.screen).__name__ == "PlayScreen", what="play mode")
    ps = app.screen
    await wait_for(pilot, lambda: ps.transcript, what="play mode mounted")
    moves = ps.query_one("#play-moves")
    await wait_for(
        pilot, lambda: ps.game.phase == "human_move" and moves.option_count, what="plays listed"
    )
    await pilot.press("h")  # a hint in the log


def test_play_screen(snap_compare, make_app):
    app = make_app()
    assert snap_compare(app, terminal_size=(120, 40), run_before=_playing)


async def _rolled_out(pilot):
    await _evaluated_and_marked(pilot)
    m = pilot.app.main_screen
    await pilot.press("space", "r")  # the best play marked too: two plays rolled out together
    await wait_for(
        pilot,
        lambda: not m.rollout_running and m.last_snapshot is not None and m.last_snapshot.finished,
        what="rollout finished",
    )


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
def test_rollout_results(snap_compare, make_app, size):
    """Two plays rolled out (fake engine): at 80x24 one line each, at 120x40 two lines each
    with every probability and its standard error."""
    app = make_app(state=XGID_31)
    assert snap_compare(app, terminal_size=size, run_before=_rolled_out)


async def _five_rolled_out(pilot):
    await ready(pilot.app, pilot)
    await evaluated(pilot)
    m = pilot.app.main_screen
    await pilot.press("space", *["down", "space"] * 4, "r")  # the five best plays
    await wait_for(
        pilot,
        lambda: not m.rollout_running and m.last_snapshot is not None and m.last_snapshot.finished,
        what="rollout finished",
    )


def test_rollout_of_five_plays_at_80x24(snap_compare, make_app):
    """At 80x24 every rolled-out candidate has one line: equity, ±, difference, ±."""
    app = make_app(state=XGID_31)
    assert snap_compare(app, terminal_size=(80, 24), run_before=_five_rolled_out)


async def _rolled_out_zoomed(pilot):
    await _rolled_out(pilot)
    await pilot.press("z")  # 80x24: the board gives its room to the plot


@pytest.mark.parametrize("theme", ["bgtui-16"])
def test_convergence_plot_at_80x24_zoomed_in_16_colours_ascii(snap_compare, make_app, theme):
    """Two candidates' equities and 95% bands against trials, ASCII board style."""
    app = make_app(state=XGID_31, theme=theme, unicode=False)
    assert snap_compare(app, terminal_size=(80, 24), run_before=_rolled_out_zoomed)
