"""bgtui's Textual app: board, candidate plays, rollouts and cube action, keyboard first.

The app talks only to an analysis service (``bgtui.analysis``); long work runs in thread workers
that post immutable messages, and the handlers own the state (style.md 4.4).
"""

from __future__ import annotations

import os
from dataclasses import replace
from typing import Optional

from textual import on, work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import (
    DataTable,
    Footer,
    Header,
    Input,
    Label,
    ProgressBar,
    Static,
    TabbedContent,
    TabPane,
)
from textual.worker import Worker, WorkerState, get_current_worker

from bgtui.analysis.cancel import CancelToken
from bgtui.analysis.models import RolloutSettings
from bgtui.analysis.state import GameState
from bgtui.ui.messages import AnalysisProgressed, EngineReady, Evaluated, WarmupProgressed
from bgtui.ui.themes import BOARD_VARIABLE_DEFAULTS, DEFAULT_THEME, load_themes
from bgtui.ui.widgets.board import BoardView

OPENING = "4HPwATDgc/ABMA"
PRESETS = {
    "Quick truncated": RolloutSettings(trials=1296, truncate=7),
    "Standard full": RolloutSettings(trials=1296, truncate=0),
    "Cube rollout": RolloutSettings(trials=1296, truncate=0, cubeful=True),
}

HELP = """\
bgtui - keys
  l  load a position (Position ID, POSID:MATCHID or XGID)   d  set the dice
  e  evaluate the position / rank the plays of the dice       0-3  ply for evaluations
  space  mark a candidate play                                r  roll out marked plays (or the position)
  s  stop the rollout        c  continue (extend) it         p  next rollout preset
  u  cube action             x  swap sides        o  opening position
  ctrl+z / ctrl+y  undo / redo         y  copy the IDs       t  next theme      q  quit
  ctrl+s  save the analysis (and the rollout, resumable)    ctrl+o  open one    m  export Markdown

Numbers (as in GNU Backgammon): probabilities are for the player on roll before rolling,
a play's figures are the mover's after the play: win, gammon (W/G/BG) ... Equities are on a
1-cube: cubeless, and cubeful in the current cube state. 0-ply is the static evaluation (XG calls
it 1-ply); n-ply averages the best play of every roll n rolls deep. Rollout figures carry
standard errors (+-); differences between candidates are paired (same dice for every play).
Rollout presets: Quick truncated (7 rolls, 1296 trials, variance reduction), Standard full
(to the end), Cube rollout (full games with a settlement limit of 0.5; equities for cube
centred, owned, opponent owns). The cube panel shows no double / double-take / double-pass,
the proper action and Dahl's estimate 0.35 x (W + G/2) of the cube's value.
Press escape to close this help.
"""


def pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def eq(x: Optional[float]) -> str:
    return "" if x is None else f"{x:+.3f}"


class TextPrompt(ModalScreen[Optional[str]]):
    """Ask for one line; ``check`` returns an error message or None; escape cancels."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="prompt.cancel")]

    def __init__(self, title: str, check, value: str = "") -> None:
        super().__init__()
        self.title_text, self.check, self.value = title, check, value

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(self.title_text)
            yield Input(value=self.value, id="prompt-input")
            yield Label("", id="prompt-error", classes="error")

    @on(Input.Submitted)
    def submitted(self, event: Input.Submitted) -> None:
        err = self.check(event.value)
        if err:
            self.query_one("#prompt-error", Label).update(err)
        else:
            self.dismiss(event.value)

    def action_cancel(self) -> None:
        self.dismiss(None)


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,question_mark,q", "dismiss", "Close", id="help.close")]

    def compose(self) -> ComposeResult:
        yield Static(HELP, id="help-text")


class BgTuiApp(App):
    CSS_PATH = "styles/app.tcss"
    TITLE = "bgtui"
    BINDINGS = [
        Binding("l", "load", "Load", id="position.load"),
        Binding("d", "dice", "Dice", id="position.dice"),
        Binding("e", "evaluate", "Evaluate", id="analysis.evaluate"),
        Binding("space", "mark", "Mark", id="analysis.mark"),
        Binding("r", "rollout", "Roll out", id="analysis.rollout"),
        Binding("s", "stop", "Stop", id="analysis.stop"),
        Binding("c", "resume", "Continue", id="analysis.resume"),
        Binding("u", "cube", "Cube", id="analysis.cube"),
        Binding("p", "preset", "Preset", id="rollout.preset", show=False),
        Binding("0", "ply(0)", "0-ply", id="analysis.ply0", show=False),
        Binding("1", "ply(1)", "1-ply", id="analysis.ply1", show=False),
        Binding("2", "ply(2)", "2-ply", id="analysis.ply2", show=False),
        Binding("3", "ply(3)", "3-ply", id="analysis.ply3", show=False),
        Binding("x", "swap", "Swap", id="position.swap", show=False),
        Binding("o", "opening", "Opening", id="position.opening", show=False),
        Binding("ctrl+z", "undo", "Undo", id="position.undo", show=False),
        Binding("ctrl+y", "redo", "Redo", id="position.redo", show=False),
        Binding("y", "copy_ids", "Copy IDs", id="position.copy", show=False),
        Binding("ctrl+s", "save", "Save", id="analysis.save", show=False),
        Binding("ctrl+o", "open", "Open", id="analysis.open", show=False),
        Binding("m", "export", "Export", id="analysis.export", show=False),
        Binding("t", "next_theme", "Theme", id="app.theme", show=False),
        Binding("question_mark", "help", "Help", id="app.help"),
        Binding("q", "quit_app", "Quit", id="app.quit"),
    ]
    ANALYSIS_ACTIONS = {"evaluate", "rollout", "resume", "cube"}

    def __init__(self, analyzer, state: Optional[GameState] = None, theme: Optional[str] = None,
                 unicode: Optional[bool] = None) -> None:
        super().__init__()
        from bgtui.analysis.formats import parse_position

        self.analyzer = analyzer
        self.state = state or parse_position(OPENING)
        self.history: list[GameState] = []
        self.future: list[GameState] = []
        self.ply = 0
        self.engine_ready = False
        self.marked: set[str] = set()
        self.plays = []
        self.preset = "Quick truncated"
        self.cancel: Optional[CancelToken] = None
        self.last_cube = None
        self.last_snapshot = None
        self.rollout_running = False
        self._theme_names: list[str] = []
        self._wanted_theme = theme
        self._unicode = (os.environ.get("BGTUI_ASCII") is None) if unicode is None else unicode

    # -- set-up ------------------------------------------------------------------------------
    def get_theme_variable_defaults(self) -> dict[str, str]:
        return dict(BOARD_VARIABLE_DEFAULTS)

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="main"):
            with Vertical(id="left"):
                yield BoardView(id="board")
                yield Static(id="status")
                yield Static("compiling the engine...", id="engine")
            with TabbedContent(id="right"):
                with TabPane("Plays", id="tab-plays"):
                    yield DataTable(id="plays", cursor_type="row", zebra_stripes=True)
                with TabPane("Rollout", id="tab-rollout"):
                    yield Static(id="rollout-head")
                    yield ProgressBar(id="rollout-bar", show_eta=True)
                    yield DataTable(id="results", cursor_type="row")
                with TabPane("Cube", id="tab-cube"):
                    yield Static("press u for the cube action", id="cube")
        yield Footer()

    def on_mount(self) -> None:
        themes, problems = load_themes()
        for th in themes:
            self.register_theme(th)
            self._theme_names.append(th.name)
        for p in problems:
            self.notify(p, severity="error")
        want = self._wanted_theme or DEFAULT_THEME
        if want in self.available_themes:
            self.theme = want
        elif self._wanted_theme:
            self.notify(f"unknown theme {want!r}; themes: {', '.join(self._theme_names)}",
                        severity="error")
        board = self.query_one(BoardView)
        board.unicode = self._unicode
        plays = self.query_one("#plays", DataTable)
        plays.add_columns("", "#", "Play", "Equity", "Diff", "Win", "W G", "W BG", "L G", "How")
        res = self.query_one("#results", DataTable)
        res.add_columns("Play", "Equity", "±", "Diff", "±", "Win", "W G", "L G", "Trials")
        self.refresh_position()
        self._on_resize_layout(self.size.width)
        self.warm_up()

    def on_resize(self, event) -> None:
        self._on_resize_layout(event.size.width)

    def _on_resize_layout(self, width: int) -> None:
        self.query_one("#main").set_class(width < 100, "-narrow")

    @work(thread=True, group="warmup", exit_on_error=False, description="Compiling the engine")
    def warm_up(self) -> None:
        self.analyzer.warm_up(lambda stage, f: self.post_message(WarmupProgressed(stage, f)))
        self.post_message(EngineReady())

    @on(WarmupProgressed)
    def warmup_progress(self, m: WarmupProgressed) -> None:
        self.query_one("#engine", Static).update(f"compiling the engine: {m.stage} ({m.fraction:.0%})")

    @on(EngineReady)
    def engine_ready_(self, _m) -> None:
        self.engine_ready = True
        eng = self.query_one("#engine", Static)
        eng.update(f"engine ready - {self.ply}-ply - preset: {self.preset}")
        eng.add_class("-ready")
        self.refresh_bindings()

    def check_action(self, action: str, parameters) -> Optional[bool]:
        if action in self.ANALYSIS_ACTIONS and not self.engine_ready:
            return None  # shown greyed out until the engine is ready
        if action == "stop" and not self.rollout_running:
            return None
        return True

    # -- position ----------------------------------------------------------------------------
    def refresh_position(self) -> None:
        from bgtui.analysis.formats import format_match_id, format_position_id

        s = self.state
        self.query_one(BoardView).state = s
        (mine, theirs), (off_me, off_opp) = s.pips, s.borne_off
        dice = f"{s.dice[0]}{s.dice[1]}" if s.dice else "not rolled"
        owner = {"centred": "centred", "player": "owned by the player on roll",
                 "opponent": "owned by the opponent"}[s.cube_owner]
        self.query_one("#status", Static).update(
            f"On roll: {'●' if self._unicode else 'O'}  dice {dice}\n"
            f"Cube {s.cube_value}, {owner}\n"
            f"Pips {mine} / {theirs}  off {off_me} / {off_opp}\n"
            f"{format_position_id(s)}:{format_match_id(s)}")
        self.marked.clear()
        self.plays = []
        self.query_one("#plays", DataTable).clear()

    def set_state(self, new: GameState, record: bool = True) -> None:
        if record:
            self.history.append(self.state)
            self.future.clear()
        self.state = new
        self.refresh_position()

    def action_load(self) -> None:
        from bgtui.analysis.formats import parse_position

        def check(text):
            try:
                parse_position(text)
            except ValueError as exc:
                return str(exc)
            return None

        def done(text):
            if text:
                self.set_state(parse_position(text))

        self.push_screen(TextPrompt("Position ID, POSID:MATCHID or XGID:", check), done)

    def action_dice(self) -> None:
        from bgtui.analysis.notation import parse_dice

        def check(text):
            try:
                parse_dice(text)
            except ValueError as exc:
                return str(exc)
            return None

        def done(text):
            if text:
                self.set_state(replace(self.state, dice=parse_dice(text), dice_raw=None))

        self.push_screen(TextPrompt("Dice (two digits, e.g. 31):", check), done)

    def action_swap(self) -> None:
        self.set_state(self.state.swapped())

    def action_opening(self) -> None:
        from bgtui.analysis.formats import parse_position

        self.set_state(parse_position(OPENING))

    def action_undo(self) -> None:
        if self.history:
            self.future.append(self.state)
            self.set_state(self.history.pop(), record=False)

    def action_redo(self) -> None:
        if self.future:
            self.history.append(self.state)
            self.set_state(self.future.pop(), record=False)

    def action_copy_ids(self) -> None:
        from bgtui.analysis.formats import format_match_id, format_position_id

        ids = f"{format_position_id(self.state)}:{format_match_id(self.state)}"
        self.copy_to_clipboard(ids)
        self.notify(f"copied {ids}")

    def action_ply(self, n: int) -> None:
        self.ply = n
        self.query_one("#engine", Static).update(f"engine ready - {n}-ply - preset: {self.preset}")

    def action_preset(self) -> None:
        names = list(PRESETS)
        self.preset = names[(names.index(self.preset) + 1) % len(names)]
        self.notify(f"rollout preset: {self.preset}")
        self.action_ply(self.ply)

    def action_next_theme(self) -> None:
        if self._theme_names:
            i = self._theme_names.index(self.theme) if self.theme in self._theme_names else -1
            self.theme = self._theme_names[(i + 1) % len(self._theme_names)]

    def action_help(self) -> None:
        self.push_screen(HelpScreen())

    def _save(self, name: str) -> None:
        from bgtui.analysis.persist import save_analysis

        job = getattr(self.analyzer, "last_rollout_job", None)
        path = save_analysis(name, self.state, self.plays, self.last_snapshot,
                             job.to_state() if job is not None and hasattr(job, "to_state") else None,
                             self.preset)
        self.notify(f"saved {path}")

    def _default_name(self) -> str:
        from bgtui.analysis.formats import format_position_id

        return format_position_id(self.state).replace("/", "_").replace("+", "-")

    def action_save(self) -> None:
        self.push_screen(TextPrompt("Save the analysis as:", lambda t: None if t.strip() else
                                    "give a name", self._default_name()),
                         lambda name: name and self._save(name.strip()))

    def action_open(self) -> None:
        from bgtui.analysis.persist import load_analysis

        def check(text):
            try:
                load_analysis(text.strip())
            except ValueError as exc:
                return str(exc)
            return None

        def done(text):
            if text:
                data = load_analysis(text.strip())
                self.set_state(data["state"])
                self.notify(f"opened {text.strip()}" + (" (rollout state saved: press c to resume)"
                                                        if data.get("rollout_state") else ""))
                self._saved_rollout = data.get("rollout_state")

        self.push_screen(TextPrompt("Open analysis (name or path):", check), done)

    def action_export(self) -> None:
        from bgtui.analysis.persist import export_markdown, write_markdown

        path = write_markdown(self._default_name(), export_markdown(
            self.state, self.plays, self.last_snapshot, self.last_cube))
        self.notify(f"exported {path}")

    def action_quit_app(self) -> None:
        if self.rollout_running:
            def done(answer):
                a = (answer or "").strip().lower()
                if a.startswith("y") or a.startswith("n"):
                    if self.cancel:
                        self.cancel.cancel()
                    if a.startswith("y"):
                        self._save(self._default_name())
                    self.exit()
            self.push_screen(TextPrompt("A rollout is running. Save it before quitting? "
                                        "(y = save and quit, n = quit, escape = stay)",
                                        lambda t: None if t.strip().lower()[:1] in ("y", "n")
                                        else "answer y or n"), done)
        else:
            self.exit()

    # -- analysis ----------------------------------------------------------------------------
    def action_evaluate(self) -> None:
        self.query_one("#engine", Static).update(f"evaluating at {self.ply}-ply...")
        self.evaluate_worker(self.state, self.ply)

    def action_cube(self) -> None:
        self.query_one(TabbedContent).active = "tab-cube"
        self.evaluate_worker(self.state, self.ply)

    @work(thread=True, exclusive=True, group="analysis", exit_on_error=False, description="Evaluate")
    def evaluate_worker(self, state: GameState, ply: int) -> None:
        ev = self.analyzer.evaluate(state, ply)
        plays = tuple(self.analyzer.rank_plays(state, state.dice, ply)) if state.dice else ()
        cube = self.analyzer.cube(state, ply)
        self.post_message(Evaluated(ev, plays, cube))

    @on(Evaluated)
    def show_evaluation(self, m: Evaluated) -> None:
        e, c = m.evaluation, m.cube
        self.last_cube = c
        p = e.probabilities
        self.query_one("#engine", Static).update(
            f"{e.evaluated_by}: win {pct(p.win)} (g {pct(p.win_gammon)}, bg {pct(p.win_backgammon)})"
            f"  lose g {pct(p.lose_gammon)}  cubeless {eq(e.equity.cubeless)} cubeful {eq(e.equity.cubeful)}")
        best = max(c.no_double, min(c.double_take, c.double_pass))
        self.query_one("#cube", Static).update(
            f"Cube action ({c.evaluated_by})\n"
            f"  No double     {eq(c.no_double)}  ({eq(c.no_double - best)})\n"
            f"  Double, take  {eq(c.double_take)}  ({eq(c.double_take - best)})\n"
            f"  Double, pass  {eq(c.double_pass)}  ({eq(c.double_pass - best)})\n"
            f"Proper action: {c.action}\n"
            f"Dahl's estimate of the cube's value 0.35 x (W + G/2) = {c.dahl_cube_value:.3f}")
        self.plays = list(m.plays)
        t = self.query_one("#plays", DataTable)
        t.clear()
        for i, r in enumerate(self.plays, 1):
            pr = r.probabilities
            t.add_row("*" if r.move in self.marked else "", str(i), r.move or "(no legal play)",
                      eq(r.equity.cubeless), eq(r.equity_diff), pct(pr.win), pct(pr.win_gammon),
                      pct(pr.win_backgammon), pct(pr.lose_gammon), r.evaluated_by, key=r.move)
        if self.plays and self.query_one(TabbedContent).active != "tab-cube":
            self.query_one(TabbedContent).active = "tab-plays"
            t.focus()

    def action_mark(self) -> None:
        t = self.query_one("#plays", DataTable)
        if not self.plays or t.cursor_row is None or t.cursor_row >= len(self.plays):
            return
        move = self.plays[t.cursor_row].move
        if move in self.marked:
            self.marked.discard(move)
        else:
            self.marked.add(move)
        t.update_cell_at((t.cursor_row, 0), "*" if move in self.marked else "")

    def action_rollout(self) -> None:
        settings = PRESETS[self.preset]
        moves = sorted(self.marked) if self.marked and self.state.dice else None
        self.start_rollout(self.state, settings, moves, None)

    def action_resume(self) -> None:
        saved = getattr(self, "_saved_rollout", None)
        if saved is not None and not self.rollout_running:
            self._saved_rollout = None
            settings = RolloutSettings(**saved["settings"])
            self.start_rollout(self.state, settings, None, saved)
            return
        snap = self.last_snapshot
        if snap is None or self.rollout_running:
            return
        job = getattr(self.analyzer, "last_rollout_job", None)
        settings = replace(snap.settings, trials=snap.trials_total + snap.settings.trials
                           if snap.finished else snap.trials_total)
        self.start_rollout(self.state, settings, None, job if job is not None else snap)

    def action_stop(self) -> None:
        if self.cancel is not None:
            self.cancel.cancel()

    def start_rollout(self, state, settings, moves, resume) -> None:
        self.cancel = CancelToken()
        self.rollout_running = True
        self.refresh_bindings()
        self.query_one(TabbedContent).active = "tab-rollout"
        self.query_one("#results", DataTable).clear()
        self.rollout_worker(state, settings, moves, resume, self.cancel)

    @work(thread=True, exclusive=True, group="analysis", exit_on_error=False, description="Rollout")
    def rollout_worker(self, state, settings, moves, resume, cancel: CancelToken) -> None:
        worker = get_current_worker()
        for snap in self.analyzer.iter_rollout(state, settings, moves=moves, cancel=cancel,
                                               resume=resume):
            if worker.is_cancelled:
                cancel.cancel()
            self.post_message(AnalysisProgressed(snap))

    @on(AnalysisProgressed)
    def show_rollout(self, m: AnalysisProgressed) -> None:
        s = m.snapshot
        self.last_snapshot = s
        bar = self.query_one("#rollout-bar", ProgressBar)
        bar.update(total=s.trials_total, progress=s.trials_done)
        left = "" if s.time_left is None else f", {s.time_left:.0f} s left"
        vr = (f", variance reduction x{s.variance_reduction_factor:.0f}"
              if s.variance_reduction_factor else "")
        state = "finished" if s.finished else ("stopped" if s.cancelled else "running")
        self.query_one("#rollout-head", Static).update(
            f"{state}: {s.trials_done}/{s.trials_total} trials, {s.games_per_second:.0f} games/s"
            f"{left}{vr}\npreset {self.preset}: truncate {s.settings.truncate or 'none'}, "
            f"{s.settings.ply}-ply, VR {'on' if s.settings.variance_reduction else 'off'}")
        t = self.query_one("#results", DataTable)
        for r in s.rows:
            key = r.move or "position"
            pr = r.probabilities
            cells = (r.move or "position", eq(r.equity.cubeless),
                     f"{r.equity_se.cubeless:.3f}" if r.equity_se else "", eq(r.equity_diff),
                     f"{r.equity_diff_se:.3f}" if r.equity_diff_se is not None else "",
                     pct(pr.win), pct(pr.win_gammon), pct(pr.lose_gammon), str(r.trials))
            if key in t.rows:
                for col, v in zip(t.columns, cells):
                    t.update_cell(key, col, v)
            else:
                t.add_row(*cells, key=key)
        if s.finished or s.cancelled:
            self.rollout_running = False
            self.refresh_bindings()
            t.sort(list(t.columns)[1], key=lambda v: -float(v) if v else 0.0)

    @on(Worker.StateChanged)
    def worker_state(self, event: Worker.StateChanged) -> None:
        if event.state == WorkerState.ERROR:
            self.rollout_running = False
            self.refresh_bindings()
            err = event.worker.error
            self.notify(f"{event.worker.description} failed: {err}", severity="error", timeout=8)
            self.query_one("#engine", Static).update(f"error: {err}")


def run_app(analyzer, state=None, theme=None) -> int:
    BgTuiApp(analyzer, state, theme).run()
    return 0
