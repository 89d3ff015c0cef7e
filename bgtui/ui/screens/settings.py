"""App settings: board style, theme, plies, play seed and match length, the order of MWC and EMG
at a match score, the match equity table. Escape closes and keeps the changes."""

from __future__ import annotations

from dataclasses import replace

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, Select

from bgtui.ui.config import BOARD_STYLES, MAX_PLAY_MATCH, UiSettings


def _choice(name: str, options, value, id: str) -> Horizontal:
    """One setting's row: its name, then a compact drop-down of ``options`` at ``value``."""
    return Horizontal(
        Label(name, classes="name"),
        Select(options, value=value, allow_blank=False, id=id, compact=True),
        classes="setting",
    )


class SettingsScreen(ModalScreen[UiSettings | None]):
    BINDINGS = [Binding("escape", "close", "Close", id="settings.close")]

    def __init__(self, settings: UiSettings, themes: list[str]) -> None:
        super().__init__()
        self.settings = settings
        self.themes = themes

    def compose(self) -> ComposeResult:
        s = self.settings
        plies = [
            (f"{n}-ply" + (" (static evaluation; XG's 1-ply)" if n == 0 else ""), n)
            for n in range(4)
        ]
        with Vertical(classes="dialog", id="settings-dialog"):
            yield Label("Settings (tab moves, escape closes and saves)", classes="dialog-title")
            yield _choice("Board style", [(x, x) for x in BOARD_STYLES], s.board_style, "set-board")
            names = self.themes if s.theme in self.themes else self.themes + [s.theme]
            yield _choice("Theme", [(x, x) for x in names], s.theme, "set-theme")
            yield _choice("Evaluation ply", plies, s.ply, "set-ply")
            yield _choice("Engine ply (play)", plies, s.play_ply, "set-play-ply")
            with Horizontal(classes="setting"):
                yield Label("Play seed (0 random)", classes="name")
                yield Input(str(s.play_seed), type="integer", id="set-seed", compact=True)
            with Horizontal(classes="setting"):
                yield Label("Play a match to (0 money)", classes="name")
                yield Input(str(s.play_match), type="integer", id="set-play-match", compact=True)
            yield _choice(
                "At a match score",
                [("MWC first, then EMG", True), ("EMG first, then MWC", False)],
                s.mwc_first,
                "set-mwc-first",
            )
            with Horizontal(classes="setting"):
                yield Label("Match equity table", classes="name")
                yield Input(
                    s.met,
                    placeholder="file (GNU XML); empty: Kazaross-XG2",
                    id="set-met",
                    compact=True,
                )
            yield Label("", id="settings-error", classes="error")

    def _collect(self) -> UiSettings | None:
        seed_text = self.query_one("#set-seed", Input).value.strip() or "0"
        try:
            seed = int(seed_text)
            if seed < 0:
                raise ValueError
        except ValueError:
            self.query_one("#settings-error", Label).update(
                f"Play seed must be a whole number >= 0, not {seed_text!r}"
            )
            return None
        error = self.query_one("#settings-error", Label)
        match_text = self.query_one("#set-play-match", Input).value.strip() or "0"
        try:
            match = int(match_text)
            if not 0 <= match <= MAX_PLAY_MATCH:
                raise ValueError
        except ValueError:
            error.update(
                f"Play a match to: a whole number from 0 (money) to {MAX_PLAY_MATCH}, "
                f"not {match_text!r}"
            )
            return None
        met = self.query_one("#set-met", Input).value.strip()
        if met:
            from bgtui.analysis.met import get_met

            try:
                get_met(met)
            except (OSError, ValueError) as exc:
                error.update(f"Match equity table: {exc}")
                return None
        return replace(
            self.settings,
            board_style=self.query_one("#set-board", Select).value,
            theme=self.query_one("#set-theme", Select).value,
            ply=int(self.query_one("#set-ply", Select).value),
            play_ply=int(self.query_one("#set-play-ply", Select).value),
            play_seed=seed,
            play_match=match,
            mwc_first=bool(self.query_one("#set-mwc-first", Select).value),
            met=met,
        )

    @on(Select.Changed, "#set-theme")
    def _preview_theme(self, event: Select.Changed) -> None:
        if isinstance(event.value, str) and event.value in self.app.available_themes:
            self.app.theme = event.value

    def action_close(self) -> None:
        s = self._collect()
        if s is not None:
            self.dismiss(s)
