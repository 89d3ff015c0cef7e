"""App settings: board style, theme, plies, play seed. Escape closes and keeps the changes."""

from __future__ import annotations

from dataclasses import replace

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, Select

from bgtui.ui.config import BOARD_STYLES, UiSettings


class SettingsScreen(ModalScreen[UiSettings | None]):
    BINDINGS = [Binding("escape", "close", "Close", id="settings.close")]

    def __init__(self, settings: UiSettings, themes: list[str]) -> None:
        super().__init__()
        self.settings = settings
        self.themes = themes

    def compose(self) -> ComposeResult:
        s = self.settings
        plies = [(f"{n}-ply" + (" (static evaluation; XG's 1-ply)" if n == 0 else ""), n)
                 for n in range(4)]
        with Vertical(classes="dialog", id="settings-dialog"):
            yield Label("Settings (tab moves, escape closes and saves)", classes="dialog-title")
            with Horizontal(classes="setting"):
                yield Label("Board style", classes="name")
                yield Select([(x, x) for x in BOARD_STYLES], value=s.board_style,
                             allow_blank=False, id="set-board", compact=True)
            with Horizontal(classes="setting"):
                yield Label("Theme", classes="name")
                names = self.themes if s.theme in self.themes else self.themes + [s.theme]
                yield Select([(x, x) for x in names], value=s.theme, allow_blank=False,
                             id="set-theme", compact=True)
            with Horizontal(classes="setting"):
                yield Label("Evaluation ply", classes="name")
                yield Select(plies, value=s.ply, allow_blank=False, id="set-ply", compact=True)
            with Horizontal(classes="setting"):
                yield Label("Engine ply (play)", classes="name")
                yield Select(plies, value=s.play_ply, allow_blank=False, id="set-play-ply",
                             compact=True)
            with Horizontal(classes="setting"):
                yield Label("Play seed (0 random)", classes="name")
                yield Input(str(s.play_seed), type="integer", id="set-seed", compact=True)
            yield Label("", id="settings-error", classes="error")

    def _collect(self) -> UiSettings | None:
        seed_text = self.query_one("#set-seed", Input).value.strip() or "0"
        try:
            seed = int(seed_text)
            if seed < 0:
                raise ValueError
        except ValueError:
            self.query_one("#settings-error", Label).update(
                f"Play seed must be a whole number >= 0, not {seed_text!r}")
            return None
        return replace(self.settings,
                       board_style=self.query_one("#set-board", Select).value,
                       theme=self.query_one("#set-theme", Select).value,
                       ply=int(self.query_one("#set-ply", Select).value),
                       play_ply=int(self.query_one("#set-play-ply", Select).value),
                       play_seed=seed)

    @on(Select.Changed, "#set-theme")
    def _preview_theme(self, event: Select.Changed) -> None:
        if isinstance(event.value, str) and event.value in self.app.available_themes:
            self.app.theme = event.value

    def action_close(self) -> None:
        s = self._collect()
        if s is not None:
            self.dismiss(s)
