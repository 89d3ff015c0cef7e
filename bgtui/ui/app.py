"""bgtui's Textual app: board, candidate plays, rollouts, cube action, play mode; keyboard first.

The app talks only to an analysis service (``bgtui.analysis.protocol.AnalysisService``): the
real ``Analyzer`` from the command line, or ``FakeAnalyzer`` in tests and with the hidden
``--fake`` option. Long work runs in thread workers that post immutable messages; the handlers
own the state (style.md 4.4). The first frame is drawn at once; the engine warms up in a
worker with visible progress, and the analysis keys stay greyed out until it is ready.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from textual import on, work
from textual.app import App
from textual.binding import Binding
from textual.reactive import reactive
from textual.worker import Worker, WorkerState

from bgtui.ui.commands import BgTuiCommands
from bgtui.ui.config import UiSettings, config_dir, data_dir, read_settings, write_settings
from bgtui.ui.keymap import key_table
from bgtui.ui.messages import EngineReady, WarmupProgressed
from bgtui.ui.themes import BOARD_VARIABLE_DEFAULTS, DEFAULT_THEME, PLAIN_THEME, load_themes

OPENING_ID = "4HPwATDgc/ABMA"


def detect_unicode(environ=None, encoding: str | None = None) -> bool:
    """Can the terminal show the Unicode board? No on the Linux console and dumb terminals, or
    when neither the output encoding nor the locale is UTF-8."""
    env = os.environ if environ is None else environ
    term = env.get("TERM", "")
    if term in ("linux", "dumb", "vt100", "vt220"):
        return False
    enc = encoding if encoding is not None else (getattr(sys.__stdout__, "encoding", "") or "")
    if "utf" in enc.lower():
        return True
    locale = env.get("LC_ALL") or env.get("LC_CTYPE") or env.get("LANG") or ""
    return "utf-8" in locale.lower() or "utf8" in locale.lower()


class BgTuiApp(App):
    """``BgTuiApp(analyzer, state=None, theme=None)``; ``state`` defaults to the opening."""

    CSS_PATH = "styles/app.tcss"
    TITLE = "bgtui"
    COMMANDS = App.COMMANDS | {BgTuiCommands}
    BINDINGS = key_table("""
        question_mark  help        Help      app.help       footer
            Every key, every setting and what the numbers mean
        S              settings    Settings  app.settings   -
            Board style, theme, plies, play seed
        t              next_theme  Theme     app.theme      -
            Next colour theme
        q              quit        Quit      app.quit       footer
            Quit (asks whether to save a running rollout)
        ctrl+q         quit        Quit      app.quit_ctrl  priority
            Quit
    """)

    engine_ready: reactive[bool] = reactive(False)
    #: the rollout kernels are warm too (they warm up after the evaluation's)
    rollouts_ready: reactive[bool] = reactive(False)

    def __init__(
        self,
        analyzer,
        state=None,
        theme: str | None = None,
        *,
        unicode: bool | None = None,
        config_path: Path | None = None,
        data_path: Path | None = None,
        persist_settings: bool = True,
    ) -> None:
        super().__init__()
        from bgtui.analysis.formats import parse_position

        self.analyzer = analyzer
        self.initial_state = state if state is not None else parse_position(OPENING_ID)
        self.config_path = Path(config_path) if config_path else config_dir() / "tui.toml"
        self.data_dir = Path(data_path) if data_path else data_dir()
        self.persist_settings = persist_settings
        self.settings, self.settings_problems = read_settings(self.config_path)
        self._wanted_theme = theme
        self._unicode_arg = unicode
        self.unicode = self._decide_unicode()
        self.engine_status = "engine: starting"
        self.theme_names: list[str] = []
        self.main_screen = None

    # -- set-up ------------------------------------------------------------------------------
    @classmethod
    def for_tools(cls, analyzer, state, folder) -> BgTuiApp:
        """The app as the tools that drive it (screenshots, latency benchmarks) run it: dark
        theme, Unicode board, no animation, its settings and data in ``folder``, settings
        never written."""
        app = cls(
            analyzer,
            state,
            "bgtui-dark",
            unicode=True,
            config_path=Path(folder) / "tui.toml",
            data_path=Path(folder) / "data",
            persist_settings=False,
        )
        app.animation_level = "none"
        return app

    def _decide_unicode(self) -> bool:
        if self._unicode_arg is not None:
            return self._unicode_arg
        if os.environ.get("BGTUI_ASCII"):
            return False
        style = self.settings.board_style
        if style == "unicode":
            return True
        if style == "ascii":
            return False
        return detect_unicode()

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return dict(BOARD_VARIABLE_DEFAULTS)

    def get_default_screen(self):
        from bgtui.analysis.models import RolloutSettings
        from bgtui.ui.screens.main import MainScreen
        from bgtui.ui.widgets.rollout_form import PRESETS

        s = self.settings
        rollout = s.rollout or PRESETS.get(s.preset) or RolloutSettings()
        if s.scheduler and hasattr(self.analyzer, "scheduler"):
            self.analyzer.scheduler = s.scheduler  # rollouts run on that Dask cluster
        self.apply_met(s.met)
        self.main_screen = MainScreen(
            self.initial_state, rollout, s.preset, s.ply, scheduler=s.scheduler
        )
        return self.main_screen

    def on_mount(self) -> None:
        themes, problems = load_themes()
        for th in themes:
            self.register_theme(th)
            self.theme_names.append(th.name)
        for p in self.settings_problems + problems:
            self.notify(p, severity="error", timeout=10)
        want = self._wanted_theme
        if want is None:
            want = PLAIN_THEME if self.no_color else self.settings.theme
        if want in self.available_themes:
            self.theme = want
        else:
            self.notify(
                f"Unknown theme {want!r}; themes: {', '.join(self.theme_names)}", severity="error"
            )
            if DEFAULT_THEME in self.available_themes:
                self.theme = DEFAULT_THEME
        if self.settings.keys:
            self.set_keymap(self.settings.keys)
        self.warm_up()

    # -- the engine --------------------------------------------------------------------------
    @work(thread=True, group="warmup", exit_on_error=False, description="Engine warm-up")
    def warm_up(self) -> None:
        self.post_message(WarmupProgressed("starting", 0.0))
        self.analyzer.warm_up(
            lambda stage, f: self.post_message(WarmupProgressed(stage, f)),
            ready=lambda part: self.post_message(EngineReady(part)),
        )
        self.post_message(EngineReady("all"))

    @on(WarmupProgressed)
    def _warmup_progressed(self, m: WarmupProgressed) -> None:
        if self.engine_ready:
            self.engine_status = f"engine ready; {m.stage}"
        else:
            self.engine_status = f"engine: {m.stage}"
        self._status_changed()

    @on(EngineReady)
    def _engine_ready(self, m: EngineReady) -> None:
        self.engine_ready = True
        if m.part == "all":
            self.rollouts_ready = True
            self.engine_status = "engine ready"
        elif not self.rollouts_ready:
            self.engine_status = "engine ready; rollouts warming up"
        self._status_changed()

    def watch_engine_ready(self, _value: bool) -> None:
        for screen in self.screen_stack:
            screen.refresh_bindings()

    def watch_rollouts_ready(self, _value: bool) -> None:
        for screen in self.screen_stack:
            screen.refresh_bindings()

    def _status_changed(self) -> None:
        if self.main_screen is not None and self.main_screen.is_mounted:
            self.main_screen.update_status()

    @on(Worker.StateChanged)
    def _worker_state(self, event: Worker.StateChanged) -> None:
        if event.state == WorkerState.ERROR:
            self.worker_failed(event.worker)

    def worker_failed(self, worker: Worker) -> None:
        """An exception in a worker becomes a notification; the app carries on.

        Worker.StateChanged does not bubble: it reaches only the node that started the worker,
        so the screens call this from their own handlers for their workers."""
        err = worker.error
        what = worker.description or worker.name
        if worker.group == "warmup":
            self.engine_status = f"engine failed: {err}"
            self._status_changed()
        self.notify(f"{what} failed: {err}", severity="error", timeout=10)

    # -- settings ----------------------------------------------------------------------------
    def remember(self, **changes) -> None:
        for k, v in changes.items():
            setattr(self.settings, k, v)
        if not self.persist_settings:
            return
        try:
            write_settings(self.config_path, self.settings)
        except (OSError, ValueError, TypeError) as exc:
            self.notify(f"Could not save settings to {self.config_path}: {exc}", severity="warning")

    def apply_met(self, met: str) -> None:
        """Analysis at a match score uses the table of file ``met`` ("": Kazaross-XG2); a file
        that is not one is reported and the default used."""
        if met:
            from bgtui.analysis.met import get_met

            try:
                get_met(met)
            except (OSError, ValueError) as exc:
                self.settings_problems.append(
                    f"match equity table {met}: {exc}; using Kazaross-XG2"
                )
                met = ""
        self.analyzer.met_path = met or None

    def set_theme(self, name: str) -> None:
        if name in self.available_themes:
            self.theme = name
            self.remember(theme=name)

    def action_next_theme(self) -> None:
        if self.theme_names:
            i = self.theme_names.index(self.theme) if self.theme in self.theme_names else -1
            self.set_theme(self.theme_names[(i + 1) % len(self.theme_names)])

    def set_board_style(self, style: str) -> None:
        self.settings.board_style = style
        self._unicode_arg = None
        self.unicode = self._decide_unicode()
        self.remember(board_style=style)
        if self.main_screen is not None:
            self.main_screen.apply_board_style()

    def action_settings(self) -> None:
        from bgtui.ui.screens.settings import SettingsScreen

        def done(new: UiSettings | None) -> None:
            if new is None:
                return
            met_changed = new.met != self.settings.met
            self.settings = new
            self.apply_met(new.met)
            self.set_board_style(new.board_style)
            if new.theme in self.available_themes:
                self.theme = new.theme
            if self.main_screen is not None:
                self.main_screen.ply = new.ply
                self.main_screen.update_status()
                self.main_screen.refresh_match_figures(reanalyse=met_changed)
            self.remember()

        self.push_screen(SettingsScreen(self.settings, list(self.theme_names)), done)

    # -- help and quitting -------------------------------------------------------------------
    def action_help(self) -> None:
        from bgtui.ui.screens.editor import EditorScreen
        from bgtui.ui.screens.help import HelpScreen
        from bgtui.ui.screens.main import MainScreen
        from bgtui.ui.screens.play import PlayScreen

        palette = [
            Binding(
                "ctrl+p",
                "command_palette",
                "Command palette",
                tooltip="Search every command by name",
            )
        ]
        self.push_screen(
            HelpScreen(
                [
                    ("Analysis screen", MainScreen.BINDINGS),
                    ("Everywhere", list(self.BINDINGS) + palette),
                    ("Board editor (b)", EditorScreen.BINDINGS),
                    ("Play mode (P)", PlayScreen.BINDINGS),
                ]
            )
        )

    async def action_quit(self) -> None:
        main = self.main_screen
        if main is None or not main.rollout_running:
            self.exit()
            return
        from bgtui.ui.screens.dialogs import ChoiceScreen

        def done(choice: str | None) -> None:
            if choice == "save":
                main.save_then_quit = True
                main.action_stop()
            elif choice == "quit":
                main.action_stop()
                self.exit()

        self.push_screen(
            ChoiceScreen(
                "A rollout is running. Save it before quitting?",
                [
                    ("s", "save", "stop it, save the analysis and quit"),
                    ("q", "quit", "quit without saving"),
                ],
            ),
            done,
        )


def run_app(analyzer, state=None, theme: str | None = None) -> int:
    """Run the app until the user quits; the exit status for the command line."""
    app = BgTuiApp(analyzer, state, theme)
    app.run()
    from bgtui.ui import persist

    # a clean exit: no rollout of this process is left to resume
    persist.autosave_path(app.data_dir).unlink(missing_ok=True)
    return int(app.return_code or 0)
