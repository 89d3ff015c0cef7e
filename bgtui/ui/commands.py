"""Command-palette (ctrl+p) commands: the domain actions, searchable by name."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider


class BgTuiCommands(Provider):
    """Load a position, evaluate at a ply, roll out, stop/resume, copy IDs, switch theme, ..."""

    def _commands(self) -> Iterator[tuple[str, str, Callable[[], object]]]:
        from bgtui.ui.screens.main import MainScreen

        app = self.app
        main = self.screen if isinstance(self.screen, MainScreen) else None
        if main is not None:
            ready = app.engine_ready
            yield ("Load position", "Paste a Position ID, POSID:MATCHID or XGID", main.action_load)
            yield ("Set dice", "Two digits, e.g. 31", main.action_dice)
            yield ("Edit board", "Board editor by keyboard", main.action_edit)
            yield ("Opening position", "Reset to the opening position", main.action_opening)
            yield ("Swap sides", "The other side is on roll", main.action_swap)
            yield ("Undo position change", "Back to the previous position", main.action_undo)
            yield ("Redo position change", "Forward again", main.action_redo)
            yield (
                "Copy Position ID and Match ID",
                "POSID:MATCHID to the clipboard",
                main.action_copy_ids,
            )
            yield ("Copy XGID", "The XGID to the clipboard", main.action_copy_xgid)
            if ready:
                for n in range(4):
                    extra = " (static evaluation; XG's 1-ply)" if n == 0 else ""
                    yield (
                        f"Evaluate at {n}-ply",
                        f"Evaluate and rank plays at {n}-ply{extra}",
                        partial(main.action_ply, n),
                    )
                yield ("Cube action", "No double / double-take / double-pass", main.action_cube)
                if app.rollouts_ready and not main.rollout_running:
                    yield (
                        "Roll out selected",
                        "Roll out the marked plays (or the highlighted "
                        "play; the position without dice)",
                        main.action_rollout,
                    )
                yield ("Play against the engine", "A money game with the cube", main.action_play)
            if main.rollout_running:
                yield ("Stop rollout", "Stop the running rollout", main.action_stop)
            if main.check_action("resume", ()):
                yield ("Resume rollout", "Continue the stopped rollout", main.action_resume)
            if main.check_action("extend", ()):
                yield (
                    "Extend rollout",
                    "Add the settings' trials to the finished rollout",
                    main.action_extend,
                )
            for name in ("Quick truncated", "Standard full", "Cube rollout"):
                yield (
                    f"Rollout preset: {name}",
                    "Load the preset into the rollout settings",
                    partial(self._preset, main, name),
                )
            yield ("Rollout settings", "Edit every rollout setting", main.action_show_settings)
            yield ("Save analysis", "Save as JSON in the user data dir", main.action_save)
            yield ("Open saved analysis", "Load a saved analysis", main.action_open)
            for kind, file, markdown in (
                ("Markdown", "a Markdown file", True),
                ("text", "a plain-text file", False),
            ):
                yield (
                    f"Export as {kind}",
                    f"Write the analysis as {file}",
                    partial(main.action_export, markdown),
                )
            yield ("Zoom tables", "Hide or show the board", main.action_zoom)
        for name in app.theme_names:
            yield (f"Theme: {name}", "Switch the colour theme", partial(app.set_theme, name))
        for style, name, hint in (
            ("unicode", "Unicode", "Draw the board with Unicode"),
            ("ascii", "ASCII", "Draw the board in plain ASCII"),
            ("auto", "auto", "Unicode when the terminal can show it"),
        ):
            yield (f"Board style: {name}", hint, partial(app.set_board_style, style))
        yield ("Settings", "Board style, theme, plies, play seed", app.action_settings)
        yield ("Help", "Keys, settings and what the numbers mean", app.action_help)

    @staticmethod
    def _preset(main, name: str) -> None:
        # action_preset advances to the next preset: start from the one before the wanted one
        names = ["Quick truncated", "Standard full", "Cube rollout"]
        main.preset = names[(names.index(name) - 1) % len(names)]
        main.action_preset()

    async def discover(self) -> Hits:
        for title, help_text, cmd in self._commands():
            yield DiscoveryHit(title, cmd, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, help_text, cmd in self._commands():
            score = matcher.match(title)
            if score > 0:
                yield Hit(score, matcher.highlight(title), cmd, text=title, help=help_text)
