"""The board editor: a cursor over the points, checkers added and removed by key, dice, cube,
side on roll, undo/redo. An impossible position is explained and cannot be accepted.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from types import SimpleNamespace

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import Footer, Static

from bgtui.analysis.board import (
    CUBE_OWNERS,
    OPPONENT_BAR,
    OTHER_SIDE_OWNER,
    PLAYER_BAR,
    board_list,
    on_board,
    problems,
    swapped,
    to_bytes,
)
from bgtui.ui.board_model import GRID
from bgtui.ui.keymap import key_table
from bgtui.ui.widgets.board import BoardView

OPENING_CELLS = [0, -2, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, -5, 5, 0, 0, 0, -3, 0, -5, 0, 0, 0, 0, 2, 0]
CUBE_VALUES = (1, 2, 4, 8, 16, 32, 64)


@dataclass(frozen=True)
class EditState:
    cells: tuple[int, ...]
    cube_value: int = 1
    cube_owner: str = "centred"
    dice: tuple[int, int] | None = None
    jacoby: bool = True
    beavers: bool = True
    on_roll: int = 1
    score: tuple[int, int] = (0, 0)
    match_length: int = 0
    crawford: bool = False

    @classmethod
    def of(cls, state) -> EditState:
        return cls(
            tuple(board_list(state.board)),
            state.cube_value,
            state.cube_owner,
            state.dice,
            state.jacoby,
            state.beavers,
            state.on_roll,
            tuple(state.score),
            state.match_length,
            state.crawford,
        )


def parse_match_text(text: str) -> tuple[int, tuple[int, int], bool]:
    """ "7 4-2" (match length, score of the player on roll and of the opponent), with "c" or
    "crawford" after it for the Crawford game; "0" or "money" for money play. ValueError
    (one line) otherwise."""
    from bgtui.analysis.match import parse_score

    words = text.lower().replace(",", " ").split()
    if not words or words[0] in ("0", "money"):
        return 0, (0, 0), False
    if not words[0].isdigit():
        raise ValueError(f"bad match length {words[0]!r}: give e.g. 7 4-2 (or 0 for money)")
    n = int(words[0])
    score = parse_score(words[1]) if len(words) > 1 else (0, 0)
    crawford = len(words) > 2 and words[2] in ("c", "crawford")
    if len(words) > 3 or (len(words) > 2 and not crawford):
        raise ValueError(f"bad match {text!r}: give LENGTH A-B [c], e.g. 7 4-2 or 5 4-2 c")
    return n, score, crawford


def slot_name(i: int) -> str:
    if i == PLAYER_BAR:
        return "the bar of the player on roll"
    if i == OPPONENT_BAR:
        return "the opponent's bar"
    return f"point {i}"


class EditorScreen(Screen):
    """Dismisses with the edited GameState (enter) or None (escape)."""

    BINDINGS = key_table("""
        left                    move(0,-1)         Left         editor.left          -
        right                   move(0,1)          Right        editor.right         -
        up                      move(-1,0)         Up           editor.up            -
        down                    move(1,0)          Down         editor.down          -
        p,plus                  add(1)             +●           editor.add_player    footer
            Add a checker of the player on roll to the point under the cursor
        o                       add(-1)            +○           editor.add_opponent  footer
            Add an opponent's checker to the point under the cursor
        backspace,delete,minus  remove             Remove       editor.remove        footer
            Take one checker off the point under the cursor
        x                       clear_point        Clear point  editor.clear_point   -
            Take every checker off the point under the cursor
        d                       dice               Dice         editor.dice          footer
            Set or clear the dice
        c                       cube_value         Cube         editor.cube_value    footer
            Next cube value (1, 2, 4 ... 64)
        w                       cube_owner         Owner        editor.cube_owner    footer
            Cube owner: centred, player on roll, opponent
        m                       match              Match        editor.match         -
            Match length, score (player on roll first) and Crawford, e.g. 7 4-2; 0 for money
        s                       swap               Swap         editor.swap          footer
            The other side is on roll (the board turns round, dice cleared)
        j                       toggle('jacoby')   Jacoby       editor.jacoby        -
            Money play: Jacoby rule on/off
        b                       toggle('beavers')  Beavers      editor.beavers       -
            Money play: beavers allowed on/off
        n                       opening            Opening      editor.opening       -
            Reset to the opening position
        e                       empty              Empty        editor.empty         -
            Take every checker off the board
        ctrl+z                  undo               Undo         editor.undo          footer
            Undo the last edit
        ctrl+y                  redo               Redo         editor.redo          -
            Redo an undone edit
        enter                   accept             Accept       editor.accept        footer
            Use this position (refused, with the reason, if it is impossible)
        escape                  cancel             Cancel       editor.cancel        footer
            Leave the editor without changing the position
    """)

    def __init__(self, state, unicode: bool = True) -> None:
        super().__init__()
        self.original = state
        self.edit = EditState.of(state)
        self.undo_stack: list[EditState] = []
        self.redo_stack: list[EditState] = []
        self.row, self.col = 1, 12  # point 1
        self.unicode = unicode
        self.message = ""

    def compose(self) -> ComposeResult:
        yield Static(
            "Board editor: arrows move the cursor; p/o add ●/○, backspace removes; "
            "n opening, e empty; enter accepts, escape cancels.",
            id="editor-title",
        )
        with Horizontal(id="editor-body"):
            yield BoardView(id="editor-board")
            yield Static(id="editor-info")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(BoardView).unicode = self.unicode
        self.refresh_view()

    # -- state -------------------------------------------------------------------------------
    @property
    def slot(self) -> int:
        return GRID[self.row][self.col]

    def preview_state(self):
        """What the board draws (not validated: the editor may hold an impossible board)."""
        e = self.edit
        return SimpleNamespace(
            board=to_bytes(e.cells), cube_value=e.cube_value, cube_owner=e.cube_owner, dice=e.dice
        )

    def result(self):
        """The edited GameState, or ValueError saying why the position is impossible."""
        e = self.edit
        errs = problems(list(e.cells))
        if errs:
            raise ValueError("; ".join(errs))
        state = replace(
            self.original,
            board=to_bytes(e.cells),
            cube_value=e.cube_value,
            cube_owner=e.cube_owner,
            dice=e.dice,
            dice_raw=None,
            jacoby=e.jacoby,
            beavers=e.beavers,
            on_roll=e.on_roll,
            score=e.score,
            match_length=e.match_length,
            crawford=e.crawford,
            double_offered=False,
        )
        from bgtui.analysis.match import check_match

        check_match(state)
        return state

    def change(self, **kw) -> None:
        self.undo_stack.append(self.edit)
        self.redo_stack.clear()
        self.edit = replace(self.edit, **kw)
        self.message = ""
        self.refresh_view()

    def refresh_view(self) -> None:
        board = self.query_one(BoardView)
        board.state = self.preview_state()
        board.cursor = self.slot
        cells = list(self.edit.cells)
        mine, theirs = on_board(cells)
        me, opp = ("●", "○") if self.unicode else ("O", "X")
        t = Text()
        n = cells[self.slot]
        who = me if n > 0 else (opp if n < 0 else "")
        t.append(f"Cursor: {slot_name(self.slot)}", "bold")
        t.append(f"  {abs(n)} {who}\n" if n else "  empty\n")
        t.append(f"{me} on roll: {mine} on the board, {15 - mine} off\n")
        t.append(f"{opp} opponent: {theirs} on the board, {15 - theirs} off\n")
        e = self.edit
        t.append(
            f"Dice {''.join(map(str, e.dice)) if e.dice else 'not set'}   Cube {e.cube_value} "
            f"{e.cube_owner}\n"
        )
        if e.match_length:
            t.append(
                f"{e.match_length}-point match, {e.score[0]}-{e.score[1]}"
                f"{', Crawford' if e.crawford else ''}\n"
            )
        else:
            t.append(
                f"Jacoby {'on' if e.jacoby else 'off'}, beavers {'on' if e.beavers else 'off'}\n"
            )
        t.append(f"Undo {len(self.undo_stack)}  redo {len(self.redo_stack)}\n\n")
        errs = problems(cells)
        if errs:
            t.append("Not a legal position:\n", "bold")
            for err in errs:
                t.append(f"  - {err}\n")
        else:
            t.append("A legal position: enter to use it.\n", "bold")
        if self.message:
            t.append("\n" + self.message + "\n", "bold")
        self.query_one("#editor-info", Static).update(t)

    # -- actions -----------------------------------------------------------------------------
    def action_move(self, drow: int, dcol: int) -> None:
        self.row = (self.row + drow) % 2
        self.col = (self.col + dcol) % len(GRID[0])
        self.refresh_view()

    def _say(self, msg: str) -> None:
        self.message = msg
        self.refresh_view()

    def action_add(self, sign: int) -> None:
        cells = list(self.edit.cells)
        i = self.slot
        side = "the player on roll" if sign > 0 else "the opponent"
        if i == PLAYER_BAR and sign < 0:
            return self._say(
                "Only the player on roll's checkers go on this bar (the opponent's "
                "bar is the top one)."
            )
        if i == OPPONENT_BAR and sign > 0:
            return self._say(
                "Only the opponent's checkers go on this bar (the player's bar is the bottom one)."
            )
        if cells[i] * sign < 0:
            return self._say(
                f"{slot_name(i).capitalize()} holds the other side's checkers: remove them first."
            )
        mine, theirs = on_board(cells)
        if (mine if sign > 0 else theirs) >= 15:
            return self._say(f"{side.capitalize()} already has 15 checkers on the board.")
        cells[i] += sign
        self.change(cells=tuple(cells))

    def action_remove(self) -> None:
        cells = list(self.edit.cells)
        i = self.slot
        if cells[i] == 0:
            return self._say(f"{slot_name(i).capitalize()} is empty.")
        cells[i] -= 1 if cells[i] > 0 else -1
        self.change(cells=tuple(cells))

    def action_clear_point(self) -> None:
        cells = list(self.edit.cells)
        if cells[self.slot]:
            cells[self.slot] = 0
            self.change(cells=tuple(cells))

    def action_dice(self) -> None:
        from bgtui.ui.screens.dialogs import TextPrompt, read_dice_or_clear, reader_check

        def done(text: str | None) -> None:
            if text is not None:
                self.change(dice=read_dice_or_clear(text))

        self.app.push_screen(
            TextPrompt(
                "Dice (two digits, e.g. 31; empty clears them):", reader_check(read_dice_or_clear)
            ),
            done,
        )

    def action_cube_value(self) -> None:
        v = self.edit.cube_value
        nxt = CUBE_VALUES[(CUBE_VALUES.index(v) + 1) % len(CUBE_VALUES)] if v in CUBE_VALUES else 1
        owner = self.edit.cube_owner
        if nxt == 1:
            owner = "centred"
        elif owner == "centred":
            owner = "opponent"
        self.change(cube_value=nxt, cube_owner=owner)

    def action_cube_owner(self) -> None:
        owner = CUBE_OWNERS[(CUBE_OWNERS.index(self.edit.cube_owner) + 1) % 3]
        value = self.edit.cube_value
        if owner != "centred" and value == 1:
            value = 2
        self.change(cube_owner=owner, cube_value=value)

    def action_swap(self) -> None:
        e = self.edit
        self.change(
            cells=tuple(swapped(e.cells)),
            cube_owner=OTHER_SIDE_OWNER[e.cube_owner],
            dice=None,
            on_roll=1 - e.on_roll,
            score=(e.score[1], e.score[0]),
        )

    def action_match(self) -> None:
        from bgtui.ui.screens.dialogs import TextPrompt, reader_check

        def done(text: str | None) -> None:
            if text is not None:
                n, score, crawford = parse_match_text(text)
                self.change(match_length=n, score=score, crawford=crawford)

        self.app.push_screen(
            TextPrompt(
                "Match: length and score, player on roll first "
                "(e.g. 7 4-2; 5 4-2 c for the Crawford game; 0 for "
                "money):",
                reader_check(parse_match_text),
            ),
            done,
        )

    def action_toggle(self, name: str) -> None:
        self.change(**{name: not getattr(self.edit, name)})

    def action_opening(self) -> None:
        self.change(cells=tuple(OPENING_CELLS), cube_value=1, cube_owner="centred", dice=None)

    def action_empty(self) -> None:
        self.change(cells=(0,) * 26)

    def _step_back(self, back: list[EditState], forth: list[EditState]) -> None:
        """Undo (``back`` the undo stack) or redo (``back`` the redo stack) one edit."""
        if back:
            forth.append(self.edit)
            self.edit = back.pop()
            self.message = ""
            self.refresh_view()

    def action_undo(self) -> None:
        self._step_back(self.undo_stack, self.redo_stack)

    def action_redo(self) -> None:
        self._step_back(self.redo_stack, self.undo_stack)

    def action_accept(self) -> None:
        try:
            state = self.result()
        except ValueError as exc:
            self._say(f"Cannot use this position: {exc}.")
            return
        self.dismiss(state)

    def action_cancel(self) -> None:
        self.dismiss(None)
