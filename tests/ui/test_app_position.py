"""Loading positions and editing the board from the keyboard (Pilot, fake service)."""

from ui_helpers import (
    OPENING,
    XGID_31,
    is_screen,
    load,
    prompt_open,
    run,
    running,
    type_text,
    wait_for,
)

from bgtui.analysis.board import board_list
from bgtui.analysis.formats import format_position_id, format_xgid, parse_position


@run
async def test_load_malformed_id_shows_error_and_keeps_position(make_app):
    app = make_app(state=XGID_31)
    async with running(app, warm=False) as pilot:
        m = app.main_screen
        await load(pilot, "4HPwATDgc/ABM!")
        prompt = app.screen
        await wait_for(pilot, lambda: prompt.error_text != "", what="inline error")
        assert is_screen(app, "TextPrompt")  # the prompt stays open, showing why
        err = prompt.error_text.lower()
        assert "position" in err or "id" in err
        await pilot.press("escape")
        await wait_for(pilot, lambda: is_screen(app, "MainScreen"), what="prompt closed")
        assert format_xgid(m.state) == XGID_31  # the position it started with
        assert m.history == []  # nothing recorded for undo either


@run
async def test_load_position_id_and_xgid_with_dice(make_app):
    app = make_app()  # the opening, no dice
    async with running(app) as pilot:
        m = app.main_screen
        await load(pilot, XGID_31)
        await wait_for(pilot, lambda: m.state.dice == (3, 1), what="XGID loaded")
        assert format_xgid(m.state) == XGID_31
        assert "Dice 31" in str(m.query_one("#info").render())
        # a Position ID of another position replaces it; a Position ID carries no dice
        other = parse_position(XGID_31).swapped()
        pid = format_position_id(other)
        await load(pilot, pid)
        await wait_for(pilot, lambda: format_position_id(m.state) == pid, what="ID loaded")
        assert m.state.dice is None
        # the board shows the loaded position; undo goes back to the XGID, then the opening
        assert m.query_one("#board").state == m.state
        await pilot.press("ctrl+z")
        assert format_xgid(m.state) == XGID_31
        await pilot.press("ctrl+z")
        assert format_position_id(m.state) == OPENING
        await pilot.press("ctrl+y", "ctrl+y")
        assert format_position_id(m.state) == pid


@run
async def test_dice_prompt_sets_and_rejects_dice(make_app):
    app = make_app()
    async with running(app, warm=False) as pilot:
        m = app.main_screen
        await pilot.press("d")
        await prompt_open(pilot, "dice prompt")
        await type_text(pilot, "71")
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.screen.error_text != "", what="dice error")
        assert m.state.dice is None
        await pilot.press("backspace", "backspace")
        await type_text(pilot, "64")
        await pilot.press("enter")
        await wait_for(pilot, lambda: m.state.dice is not None, what="dice set")
        assert m.state.dice == (6, 4)


@run
async def test_board_editor_by_keyboard(make_app):
    app = make_app()  # the opening
    async with running(app, warm=False) as pilot:
        m = app.main_screen
        await pilot.press("b")
        await wait_for(pilot, lambda: is_screen(app, "EditorScreen"), what="editor open")
        ed = app.screen
        board = ed.query_one("#editor-board")
        await wait_for(pilot, lambda: board.cursor is not None, what="editor drawn")
        assert ed.slot == 1 and board.cursor == 1  # the cursor starts on point 1
        # point 1 holds two opponent checkers in the opening: remove one, then the other
        assert ed.edit.cells[1] == -2
        await pilot.press("backspace", "backspace")
        assert ed.edit.cells[1] == 0
        # left walks 1 -> 2 -> 3; up jumps to the top row (22)
        await pilot.press("left", "left")
        assert ed.slot == 3 and board.cursor == 3
        await pilot.press("up")
        assert ed.slot == 22
        await pilot.press("down", "right", "right")  # back to point 1
        assert ed.slot == 1
        # we have all 15 on the board: no 16th
        await pilot.press("p")
        assert ed.edit.cells[1] == 0 and "already has 15" in ed.message
        # take one of ours off the 6 point (five left on 1 -> 6), put it on point 1
        await pilot.press(*["left"] * 5)
        assert ed.slot == 6 and ed.edit.cells[6] == 5
        await pilot.press("minus")
        await pilot.press(*["right"] * 5, "p")
        assert ed.edit.cells[6] == 4 and ed.edit.cells[1] == 1
        # undo / redo of edits
        await pilot.press("ctrl+z")
        assert ed.edit.cells[1] == 0 and ed.edit.cells[6] == 4
        await pilot.press("ctrl+z")
        assert ed.edit.cells[6] == 5
        await pilot.press("ctrl+y", "ctrl+y")
        assert ed.edit.cells[6] == 4 and ed.edit.cells[1] == 1
        # an opponent checker on the opponent's bar: up (top row), then to the bar column
        await pilot.press("up", *["left"] * 6)
        assert ed.slot == 0
        await pilot.press("o")
        assert ed.edit.cells[0] == -1
        # ours cannot go on the opponent's bar
        await pilot.press("p")
        assert ed.edit.cells[0] == -1 and "Only the opponent" in ed.message
        # dice 52, cube 2 owned by the opponent -> by us, then the other side on roll
        await pilot.press("d")
        await prompt_open(pilot, "dice prompt")
        await type_text(pilot, "52")
        await pilot.press("enter")
        await wait_for(pilot, lambda: is_screen(app, "EditorScreen"), what="back in the editor")
        assert ed.edit.dice == (5, 2)
        await pilot.press("c")
        assert ed.edit.cube_value == 2 and ed.edit.cube_owner == "opponent"
        await pilot.press("w")
        assert ed.edit.cube_owner == "centred"
        await pilot.press("w")
        assert ed.edit.cube_owner == "player"
        cells = list(ed.edit.cells)
        await pilot.press("s")  # swap sides: board turned round, cube owner too, dice gone
        assert ed.edit.cube_owner == "opponent" and ed.edit.dice is None
        assert list(ed.edit.cells) == [-cells[25 - i] for i in range(26)]
        await pilot.press("s")
        await pilot.press("enter")
        await wait_for(pilot, lambda: is_screen(app, "MainScreen"), what="editor accepted")
        st = m.state
        assert board_list(st.board) == cells
        assert st.cube_value == 2 and st.cube_owner == "player" and st.dice is None
        # the edit is one step of the main screen's undo
        await pilot.press("ctrl+z")
        assert format_position_id(m.state) == OPENING


@run
async def test_board_editor_refuses_an_empty_side_and_escape_keeps_the_position(make_app):
    app = make_app(state=XGID_31)
    async with running(app, warm=False) as pilot:
        m = app.main_screen
        await pilot.press("b")
        await wait_for(pilot, lambda: is_screen(app, "EditorScreen"), what="editor open")
        ed = app.screen
        await pilot.press("e")  # empty board: nobody has checkers
        await pilot.press("enter")
        assert is_screen(app, "EditorScreen")
        assert "no checkers left" in ed.message
        await pilot.press("escape")
        await wait_for(pilot, lambda: is_screen(app, "MainScreen"), what="editor cancelled")
        assert format_xgid(m.state) == XGID_31  # the position it started with
