"""The main screen: board and position facts, candidate plays, rollout (settings and live
results), cube action; a status line and the Footer.

Layout: at 100 columns or more the board sits left and the tabs right; narrower, the board
(with the facts beside it) sits above the tabs, and ``z`` zooms the tabs to the full screen.
All analysis runs in thread workers that post immutable messages (``bgtui.ui.messages``);
the handlers here own the state.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from pathlib import Path

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, ProgressBar, Static, TabbedContent, TabPane
from textual.worker import Worker, WorkerState, get_current_worker

from bgtui.analysis.atomic import atomic_write_text
from bgtui.analysis.cancel import CancelToken
from bgtui.analysis.models import CubeDecision, Evaluation, PlayRow, RolloutSettings
from bgtui.ui import persist
from bgtui.ui.fmt import dice_text, duration, rate
from bgtui.ui.keymap import key_table
from bgtui.ui.messages import Evaluated, RolloutEnded, RolloutProgressed
from bgtui.ui.widgets.board import BoardView
from bgtui.ui.widgets.convergence import ConvergencePlot
from bgtui.ui.widgets.cube_panel import CubePanel, cube_from_rollout
from bgtui.ui.widgets.info import PositionInfo, position_ids
from bgtui.ui.widgets.rollout_form import PRESETS, RolloutForm, describe, preset_name
from bgtui.ui.widgets.tables import PlaysTable, ResultsTable

OPENING_ID = "4HPwATDgc/ABMA"
TABS = ("tab-moves", "tab-rollout", "tab-settings", "tab-cube")
NARROW = 100
#: actions that need the engine: greyed out (check_action None) until warm-up is done
ENGINE_ACTIONS = {"evaluate", "cube", "rollout", "resume", "extend", "play"}
#: ... and those that wait for the rollout kernels, warmed up after the evaluation's
ROLLOUT_ACTIONS = {"rollout", "resume", "extend"}


def position_error(text: str) -> str | None:
    """Why ``text`` is not a position (None: it is one)."""
    from bgtui.analysis.formats import parse_position

    try:
        parse_position(text)
    except ValueError as exc:
        return str(exc)
    except Exception as exc:  # a reader bug must not take the app down
        return f"cannot read this position ({type(exc).__name__}: {exc})"
    return None


class MainScreen(Screen):
    BINDINGS = key_table("""
        # position
        l                     load           Load              position.load       footer
            Paste a Position ID, POSID:MATCHID or XGID
        d                     dice           Dice              position.dice       footer
            Set or clear the dice (31, 66)
        b                     edit           Edit              position.edit       footer
            Board editor: checkers, dice, cube, side on roll
        x                     swap           Swap sides        position.swap       -
            The other side is on roll (board turned round, dice cleared)
        n                     opening        Opening           position.opening    -
            The opening position
        ctrl+z                undo           Undo              position.undo       -
            Back to the previous position
        ctrl+y                redo           Redo              position.redo       -
            Forward again after undo
        y                     copy_ids       Copy IDs          position.copy       -
            Copy POSID:MATCHID to the clipboard
        Y                     copy_xgid      Copy XGID         position.copy_xgid  -
            Copy the XGID to the clipboard
        # analysis
        e                     evaluate       Eval              analysis.evaluate   footer
            Evaluate the position, rank the plays of the dice, cube action
        0                     ply(0)         0-ply             analysis.ply0       -
            Evaluate at 0-ply (static evaluation; XG calls it 1-ply)
        1                     ply(1)         1-ply             analysis.ply1       -
            Evaluate at 1-ply
        2                     ply(2)         2-ply             analysis.ply2       -
            Evaluate at 2-ply
        3                     ply(3)         3-ply             analysis.ply3       -
            Evaluate at 3-ply
        u                     cube           Cube              analysis.cube       footer
            Cube action: no double / double-take / double-pass
        space                 mark           Mark              analysis.mark       footer
            Mark or unmark the highlighted play for a rollout
        r                     rollout        Roll out          analysis.rollout    footer
            Roll out the marked plays (or the highlighted one; the position without dice)
        s                     stop           Stop              analysis.stop       footer
            Stop the rollout
        c                     resume         Continue          analysis.resume     footer
            Continue a stopped rollout
        plus                  extend         Extend            analysis.extend     footer
            Add the settings' trials to a finished rollout
        p                     preset         Preset            rollout.preset      -
            Next rollout preset
        g                     show_settings  Rollout settings  rollout.settings    -
            Edit the rollout settings (escape returns)
        # view, files, modes
        right_square_bracket  next_tab       Next tab          view.next_tab       -
            Next tab: plays, rollout, settings, cube
        left_square_bracket   prev_tab       Previous tab      view.prev_tab       -
            Previous tab
        z                     zoom           Zoom              view.zoom           footer
            Hide or show the board (more room for the tables)
        ctrl+s                save           Save              file.save           -
            Save the analysis (JSON, user data dir)
        ctrl+o                open           Open              file.open           -
            Open a saved analysis
        ctrl+e                export         Export            file.export         -
            Export the analysis as Markdown (user data dir)
        P                     play           Play              mode.play           footer
            Play a money game or a match (setting) against the engine
    """)

    def __init__(
        self, state, settings: RolloutSettings, preset: str, ply: int, scheduler: str = ""
    ) -> None:
        super().__init__(id="main")
        self.scheduler = scheduler
        self.state = state
        self.history: list = []
        self.future: list = []
        self.ply = ply
        self.preset = preset if preset in PRESETS else "Quick truncated"
        self.rollout_settings: RolloutSettings | None = settings
        self.settings_error = ""
        self.evaluation: Evaluation | None = None
        self.plays: tuple[PlayRow, ...] = ()
        self.cube: CubeDecision | None = None
        self.cube_message = ""
        self.eval_run = 0
        self.evaluating = False
        self.rollout_run = 0
        self.series = 0
        self.rollout_running = False
        self.cancel: CancelToken | None = None
        self.last_snapshot = None
        self.resume_token = None
        self.rollout_request = None  # (state, moves) of the shown rollout
        self.save_then_quit = False
        self.unicode = True

    # -- layout ------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        with Horizontal(id="body"):
            with Vertical(id="board-pane"):
                yield BoardView(id="board")
                yield PositionInfo(id="info")
            with TabbedContent(id="tabs", initial="tab-moves"):
                with TabPane("Plays", id="tab-moves"):
                    yield Static(
                        "e evaluates; with dice set (d) it ranks the plays. space marks "
                        "plays, r rolls them out.",
                        id="plays-hint",
                    )
                    yield PlaysTable(id="plays")
                with TabPane("Rollout", id="tab-rollout"):
                    yield Static("No rollout yet: r starts one (settings: g).", id="rollout-head")
                    yield ProgressBar(id="rollout-bar", show_eta=False)
                    yield ResultsTable(id="results")
                    yield ConvergencePlot(id="convergence")
                with TabPane("Settings", id="tab-settings"):
                    yield RolloutForm(
                        self.rollout_settings or PRESETS[self.preset],
                        scheduler=self.scheduler,
                        id="form",
                    )
                with TabPane("Cube", id="tab-cube"):
                    with VerticalScroll(id="cube-scroll"):  # taller than the pane at 80x24
                        yield CubePanel(id="cube")
        yield Static("", id="status")
        yield Footer()

    def on_mount(self) -> None:
        self.unicode = self.app.unicode
        self.apply_board_style()
        self.query_one(CubePanel).show(None)
        self.refresh_position()
        self._layout(self.app.size.width)
        self.query_one(PlaysTable).focus()
        self.call_after_refresh(self.offer_autosaves)

    def on_resize(self, event) -> None:
        self._layout(event.size.width)

    def _layout(self, width: int) -> None:
        narrow = width < NARROW
        changed = narrow != self.has_class("-narrow")
        self.set_class(narrow, "-narrow")
        self.query_one(ResultsTable).set_compact(narrow)
        if changed:
            self.update_status()
        # in 80 columns the keys need the room of the "^p palette" hint (ctrl+p still works)
        self.query_one(Footer).show_command_palette = width >= NARROW

    @on(TabbedContent.TabActivated)
    def _tab_activated(self, event: TabbedContent.TabActivated) -> None:
        """The keys of the tab shown (arrows, page up/down) go to its table or pane; the
        rollout-settings form is entered with g, so its inputs never swallow command keys."""
        target = {
            "tab-moves": PlaysTable,
            "tab-rollout": ResultsTable,
            "tab-cube": "#cube-scroll",
        }.get(event.pane.id or "")
        if target is not None:
            self.query_one(target).focus()

    def apply_board_style(self) -> None:
        self.unicode = self.app.unicode
        self.query_one(BoardView).unicode = self.unicode
        self.query_one(PositionInfo).unicode = self.unicode
        self.query_one(PlaysTable).mark_glyph = "✓" if self.unicode else "*"
        plot = self.query_one(ConvergencePlot)
        plot.unicode = self.unicode
        plot.redraw()
        self.refresh_position(keep_analysis=True)

    # -- bindings ----------------------------------------------------------------------------
    def check_action(self, action: str, parameters) -> bool | None:
        if action in ("resume", "extend") and self.resume_token is None:
            return False  # hidden, also while the engine warms up (they crowded the Footer)
        if action in ENGINE_ACTIONS and not self.app.engine_ready:
            return None
        if action in ROLLOUT_ACTIONS and not self.app.rollouts_ready:
            return None
        if action == "stop":
            return self.rollout_running
        if action in ("resume", "extend"):
            # resume a stopped rollout, extend a finished one
            return (
                not self.rollout_running
                and self.resume_token is not None
                and self.last_snapshot is not None
                and (
                    self.last_snapshot.cancelled
                    if action == "resume"
                    else self.last_snapshot.finished
                )
            )
        if action == "rollout" and self.rollout_running:
            return None
        return True

    # -- position ----------------------------------------------------------------------------
    def refresh_position(self, keep_analysis: bool = False) -> None:
        if not keep_analysis:
            self.evaluation, self.plays, self.cube, self.cube_message = None, (), None, ""
            self.eval_run += 1
            self.evaluating = False
            table = self.query_one(PlaysTable)
            table.show_plays(())
            self.query_one(CubePanel).show(None)
        self.query_one(BoardView).state = self.state
        self.query_one(PositionInfo).show(self.state, self.evaluation)
        self.update_status()

    def set_state(self, new, record: bool = True) -> None:
        if self.rollout_running:
            self.action_stop()
            self.app.notify("The position changed: the rollout was stopped.")
        if record:
            self.history.append(self.state)
            self.future.clear()
        self.state = new
        self.refresh_position()
        self.refresh_bindings()

    def action_load(self) -> None:
        from bgtui.analysis.formats import parse_position
        from bgtui.ui.screens.dialogs import TextPrompt

        def done(text: str | None) -> None:
            if text:
                self.set_state(parse_position(text))

        self.app.push_screen(
            TextPrompt(
                "Position: a Position ID, POSID:MATCHID or an XGID",
                position_error,
                hint="e.g. 4HPwATDgc/ABMA (the opening), 4HPwATDgc/ABMA:cAkAAAAAAAAA, "
                "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:3:0:10",
                placeholder="paste here, enter loads, escape cancels",
            ),
            done,
        )

    def action_dice(self) -> None:
        from bgtui.ui.screens.dialogs import TextPrompt, read_dice_or_clear, reader_check

        def done(text: str | None) -> None:
            if text is not None:
                self.set_state(replace(self.state, dice=read_dice_or_clear(text), dice_raw=None))

        current = dice_text(self.state.dice) if self.state.dice else ""
        self.app.push_screen(
            TextPrompt(
                "Dice: two digits, e.g. 31 (empty clears them)",
                reader_check(read_dice_or_clear),
                value=current,
            ),
            done,
        )

    def action_edit(self) -> None:
        from bgtui.ui.screens.editor import EditorScreen

        def done(state) -> None:
            if state is not None:
                self.set_state(state)

        self.app.push_screen(EditorScreen(self.state, unicode=self.unicode), done)

    def action_swap(self) -> None:
        self.set_state(self.state.swapped())

    def action_opening(self) -> None:
        from bgtui.analysis.formats import parse_position

        self.set_state(parse_position(OPENING_ID))

    def action_undo(self) -> None:
        if self.history:
            self.future.append(self.state)
            self.set_state(self.history.pop(), record=False)

    def action_redo(self) -> None:
        if self.future:
            self.history.append(self.state)
            self.set_state(self.future.pop(), record=False)

    def action_copy_ids(self) -> None:
        pid, mid, _ = position_ids(self.state)
        text = f"{pid}:{mid}"
        self.app.copy_to_clipboard(text)
        self.app.notify(f"Copied {text}")

    def action_copy_xgid(self) -> None:
        xgid = position_ids(self.state)[2]
        self.app.copy_to_clipboard(xgid)
        self.app.notify(f"Copied {xgid}")

    # -- evaluation --------------------------------------------------------------------------
    def action_ply(self, n: int) -> None:
        self.ply = n
        self.app.remember(ply=n)
        self.update_status()
        self.action_evaluate()

    def action_evaluate(self) -> None:
        if not self.app.engine_ready:
            return
        self.eval_run += 1
        self.evaluating = True
        self.update_status()
        self.evaluate_worker(self.eval_run, self.state, self.ply)

    @work(
        thread=True, exclusive=True, group="evaluate", exit_on_error=False, description="Evaluation"
    )
    def evaluate_worker(self, run_id: int, state, ply: int) -> None:
        an = self.app.analyzer
        ev = an.evaluate(state, ply)
        if get_current_worker().is_cancelled:
            return
        plays = tuple(an.rank_plays(state, state.dice, ply)) if state.dice else ()
        cube = an.cube(state, ply)
        self.post_message(Evaluated(run_id, state, ply, ev, plays, cube))

    @on(Evaluated)
    def _evaluated(self, m: Evaluated) -> None:
        if m.run_id != self.eval_run or m.state != self.state:
            return  # a result for a position or request that is gone
        self.evaluating = False
        self.evaluation, self.plays, self.cube = m.evaluation, m.plays, m.cube
        self.query_one(PositionInfo).show(self.state, self.evaluation)
        self.query_one(PlaysTable).show_plays(self.plays)
        self.query_one(CubePanel).show(self.cube)
        hint = self.query_one("#plays-hint", Static)
        if self.state.dice:
            hint.update(
                f"{len(self.plays)} legal plays of {dice_text(self.state.dice)} at "
                f"{m.ply}-ply. space marks, r rolls out the marked plays."
            )
        else:
            hint.update(
                "No dice: the position is evaluated (beside the board) and the cube "
                "action is on the Cube tab. d sets the dice."
            )
        tabs = self.query_one(TabbedContent)
        if tabs.active != "tab-cube":
            tabs.active = "tab-moves" if self.state.dice else "tab-cube"
        if tabs.active == "tab-moves":
            self.query_one(PlaysTable).focus()
        self.update_status()

    def action_cube(self) -> None:
        self.query_one(TabbedContent).active = "tab-cube"
        if self.cube is None and not self.evaluating:
            self.action_evaluate()

    def action_mark(self) -> None:
        table = self.query_one(PlaysTable)
        if table.toggle_mark() is None:
            self.app.notify("Nothing to mark: set the dice (d) and evaluate (e) first.")
        self.update_status()

    # -- rollouts ----------------------------------------------------------------------------
    @on(RolloutForm.Changed)
    def _settings_changed(self, m: RolloutForm.Changed) -> None:
        self.rollout_settings = m.settings
        self.settings_error = m.error
        if m.settings is not None:
            self.preset = (
                preset_name(m.settings) if preset_name(m.settings) != "custom" else self.preset
            )
            self.app.remember(rollout=m.settings)
        self.update_status()

    @on(RolloutForm.SchedulerChanged)
    def _scheduler_changed(self, m: RolloutForm.SchedulerChanged) -> None:
        self.scheduler = m.address
        an = self.app.analyzer
        if hasattr(an, "scheduler"):
            an.scheduler = m.address or None
        self.app.remember(scheduler=m.address)
        self.update_status()

    def current_settings(self) -> RolloutSettings | None:
        form = self.query_one(RolloutForm)
        try:
            return form.settings()
        except ValueError as exc:
            self.app.notify(f"Rollout settings: {exc}", severity="error")
            self.query_one(TabbedContent).active = "tab-settings"
            return None

    def action_preset(self) -> None:
        names = list(PRESETS)
        i = names.index(self.preset) if self.preset in names else -1
        self.preset = names[(i + 1) % len(names)]
        self.query_one(RolloutForm).load(PRESETS[self.preset])
        self.rollout_settings = PRESETS[self.preset]
        self.app.remember(preset=self.preset, rollout=self.rollout_settings)
        self.app.notify(f"Rollout preset: {self.preset} ({describe(self.rollout_settings)})")
        self.update_status()

    def action_rollout(self) -> None:
        if not self.app.rollouts_ready or self.rollout_running:
            return
        settings = self.current_settings()
        if settings is None:
            return
        moves = None
        if self.state.dice is not None:
            table = self.query_one(PlaysTable)
            if table.marked:
                order = [r.move for r in self.plays]
                moves = sorted(table.marked, key=lambda m: order.index(m) if m in order else 0)
            elif table.row_count:
                moves = [table.current_move()]
            else:
                self.app.notify(
                    "With dice set, a rollout is of candidate plays: evaluate (e), "
                    "mark plays (space), then r.",
                    severity="warning",
                )
                return
            if moves == [""]:
                self.app.notify("There is no legal play to roll out.", severity="warning")
                return
        self.series += 1
        self.start_rollout(self.state, settings, moves, None)

    def start_rollout(self, state, settings: RolloutSettings, moves, resume) -> None:
        self.rollout_run += 1
        self.cancel = CancelToken()
        self.rollout_running = True
        self.rollout_request = (state, moves)
        self.query_one(TabbedContent).active = "tab-rollout"
        what = (
            f"{len(moves)} play{'s' if len(moves) > 1 else ''} of {dice_text(state.dice)}"
            if moves
            else "the position"
        )
        self.query_one("#rollout-head", Static).update(f"Rolling out {what}: starting...")
        if resume is None:
            self.query_one(ConvergencePlot).show(None)
        self.refresh_bindings()
        self.update_status()
        self.rollout_worker(self.rollout_run, state, settings, moves, resume, self.cancel)

    @work(thread=True, exclusive=True, group="rollout", exit_on_error=False, description="Rollout")
    def rollout_worker(
        self, run_id: int, state, settings, moves, resume, cancel: CancelToken
    ) -> None:
        import time

        from bgtui.analysis.rollout import CHECKPOINT_EVERY

        an = self.app.analyzer
        worker = get_current_worker()
        last_save = None
        try:
            for snap in an.iter_rollout(state, settings, moves=moves, cancel=cancel, resume=resume):
                self.post_message(RolloutProgressed(run_id, snap))
                if worker.is_cancelled:
                    cancel.cancel()
                now = time.monotonic()
                if last_save is None or now - last_save >= CHECKPOINT_EVERY:
                    last_save = now
                    self.autosave(state, moves, snap, getattr(an, "last_rollout_job", None))
        finally:
            self.post_message(RolloutEnded(run_id, getattr(an, "last_rollout_job", None)))

    def autosave(self, state, moves, snap, job) -> None:
        """Write the running rollout to this process's autosave file (called between two of
        the rollout's snapshots, on its worker thread, where the job's state is whole): if
        bgtui dies, the next start offers to resume it. Never disturbs the rollout."""
        if job is None or not hasattr(job, "to_state"):
            return
        pid, mid, xgid = position_ids(state)
        doc = persist.AnalysisDoc(
            position=xgid,
            position_id=pid,
            match_id=mid,
            ply=self.ply,
            rollout=replace(snap, finished=False, cancelled=True),
            rollout_state=job.to_state(),
            extra={"rollout_moves": list(moves) if moves else None, "autosave": True},
        )
        try:
            persist.save(persist.autosave_path(self.app.data_dir), doc)
        except (OSError, ValueError, TypeError):
            pass

    def offer_autosaves(self) -> None:
        """Offer to resume a rollout that an earlier bgtui was running when it died."""
        from bgtui.ui.screens.dialogs import ChoiceScreen

        found = persist.orphan_autosaves(self.app.data_dir)
        if not found:
            return
        path = found[0]
        try:
            doc = persist.load(path)
            trials = doc.rollout.trials_done if doc.rollout is not None else 0
        except ValueError:
            path.unlink(missing_ok=True)
            return

        def done(choice: str | None) -> None:
            if choice == "resume":
                if self.open_file(path):
                    path.unlink(missing_ok=True)
            elif choice == "discard":
                path.unlink(missing_ok=True)

        self.app.push_screen(
            ChoiceScreen(
                f"bgtui stopped while rolling out {doc.position_id} ({trials} trials done). "
                "Resume that rollout?",
                [
                    ("r", "resume", "open it (c continues the rollout)"),
                    ("d", "discard", "delete it"),
                    ("l", "later", "ask again next time"),
                ],
            ),
            done,
        )

    @on(RolloutProgressed)
    def _rollout_progressed(self, m: RolloutProgressed) -> None:
        if m.run_id != self.rollout_run:
            return  # a stale snapshot of an earlier run
        s = m.snapshot
        self.last_snapshot = s
        with self.app.batch_update():
            self.query_one(ResultsTable).show_snapshot(self.series, s)
            self.query_one(ConvergencePlot).show(s)
            self.query_one("#rollout-bar", ProgressBar).update(
                total=max(1, s.trials_total), progress=s.trials_done
            )
            self.query_one("#rollout-head", Static).update(self.rollout_headline(s))
            state, moves = self.rollout_request or (self.state, None)
            if moves:
                table = self.query_one(PlaysTable)
                table.update_rows(s.rows)
                if s.finished or s.cancelled:
                    table.resort()
                    self.plays = tuple(
                        sorted(
                            table.rows_by_key.values(),
                            key=lambda r: (0 if r.trials else 1, -r.equity.cubeless),
                        )
                    )
            elif s.rows and s.settings.cubeful:
                dec = cube_from_rollout(state, s.rows[0])
                if dec is not None:
                    self.cube = dec
                    self.query_one(CubePanel).show(dec)
        self.update_status()

    def rollout_headline(self, s) -> str:
        state, moves = self.rollout_request or (self.state, None)
        what = (
            f"{len(moves)} play{'s' if len(moves) > 1 else ''} of {dice_text(state.dice)}"
            if moves
            else "the position"
        )
        word = "finished" if s.finished else ("stopped" if s.cancelled else "running")
        narrow = self.app.size.width < NARROW  # one line, so that 80x24 shows two plays
        head = f"{what[0].upper()}{what[1:]} {word}: " if narrow else f"Rollout of {what}, {word}: "
        head += f"{s.trials_done}/{s.trials_total} trials, {rate(s.games_per_second)} games/s"
        if not (s.finished or s.cancelled):
            head += f", {duration(s.time_left)} left"
            if getattr(s, "cluster_workers", None):
                busy, total = s.cluster_workers
                head += f", {busy}/{total} workers busy"
        if s.variance_reduction_factor:
            head += (
                f", VR x{s.variance_reduction_factor:.0f}"
                if narrow
                else f", VR worth x{s.variance_reduction_factor:.1f} trials"
            )
        if narrow:  # one line: the settings are on the Settings tab
            return head + (". c continues" if s.cancelled else ". + extends" if s.finished else "")
        tail = f"\n{preset_name(s.settings)}: {describe(s.settings)}"
        if s.cancelled:
            tail += ".  c continues"
        elif s.finished:
            tail += ".  + extends"
        return head + tail

    @on(RolloutEnded)
    def _rollout_ended(self, m: RolloutEnded) -> None:
        if m.run_id != self.rollout_run:
            return
        self.rollout_running = False
        persist.autosave_path(self.app.data_dir).unlink(missing_ok=True)
        self.resume_token = m.resume
        self.refresh_bindings()
        self.update_status()
        if self.save_then_quit:
            path = self.save_to(self.default_name())
            if path is not None:
                self.app.exit(message=f"Saved the analysis to {path}")
            else:
                self.app.exit()

    def action_stop(self) -> None:
        if self.cancel is not None:
            self.cancel.cancel()

    def action_resume(self) -> None:
        s = self.last_snapshot
        if self.rollout_running or s is None or self.resume_token is None or not s.cancelled:
            return
        state, moves = self.rollout_request or (self.state, None)
        self.start_rollout(state, s.settings, moves, self.resume_token)

    def action_extend(self) -> None:
        s = self.last_snapshot
        if self.rollout_running or s is None or self.resume_token is None or not s.finished:
            return
        more = (self.rollout_settings or s.settings).trials
        state, moves = self.rollout_request or (self.state, None)
        self.start_rollout(
            state, replace(s.settings, trials=s.trials_total + more), moves, self.resume_token
        )

    # -- view --------------------------------------------------------------------------------
    def _switch(self, step: int) -> None:
        tabs = self.query_one(TabbedContent)
        i = TABS.index(tabs.active) if tabs.active in TABS else 0
        tabs.active = TABS[(i + step) % len(TABS)]

    def action_next_tab(self) -> None:
        self._switch(1)

    def action_prev_tab(self) -> None:
        self._switch(-1)

    def action_show_settings(self) -> None:
        self.query_one(TabbedContent).active = "tab-settings"
        self.query_one("#f-trials").focus()

    def action_zoom(self) -> None:
        self.toggle_class("-zoomed")

    @on(RolloutForm.Left)
    def _left_form(self, _event) -> None:
        self.query_one(TabbedContent).active = "tab-moves"
        self.query_one(PlaysTable).focus()

    def refresh_match_figures(self, reanalyse: bool = False) -> None:
        """Draw the panes again (the order of MWC and EMG may have changed); with
        ``reanalyse`` (another match equity table) evaluate a position at a score again."""
        self.query_one(PositionInfo).show(self.state, self.evaluation)
        self.query_one(PlaysTable).show_plays(self.plays)
        self.query_one(CubePanel).show(self.cube)
        results = self.query_one(ResultsTable)
        if self.last_snapshot is not None and results.run_id is not None:
            results.run_id = None  # columns again, in the new order
            results.show_snapshot(self.series, self.last_snapshot)
        if reanalyse and not self.state.is_money and self.evaluation is not None:
            self.action_evaluate()

    def update_status(self) -> None:
        app = self.app
        parts = [app.engine_status]
        busy = f"evaluating at {self.ply}-ply..." if self.evaluating else f"{self.ply}-ply"
        parts.append(busy)
        if self.rollout_settings is None:
            parts.append("rollout settings invalid")
        else:
            parts.append(f"preset {preset_name(self.rollout_settings)}")
        marked = len(self.query_one(PlaysTable).marked)
        if marked:
            parts.append(f"{marked} marked")
        s = self.last_snapshot
        if self.rollout_running and s is not None:
            parts.append(f"rollout {s.trials_done}/{s.trials_total}")
        text = " | ".join(parts)
        if self.has_class("-narrow") and len(text) + 24 <= app.size.width - 2:
            text += " | ? help, ^p commands"  # the Footer has no room for them in 80 columns
        self.query_one("#status", Static).update(text)

    # -- play mode ---------------------------------------------------------------------------
    def action_play(self) -> None:
        from bgtui.ui.screens.play import PlayScreen

        def done(state) -> None:
            if state is not None:
                self.set_state(replace(state, dice=None, dice_raw=None))

        s = self.app.settings
        self.app.push_screen(
            PlayScreen(
                seed=s.play_seed or None,
                ply=s.play_ply,
                unicode=self.unicode,
                match_length=s.play_match,
            ),
            done,
        )

    # -- files -------------------------------------------------------------------------------
    def document(self) -> persist.AnalysisDoc:
        pid, mid, xgid = position_ids(self.state)
        token = self.resume_token
        if token is not None and hasattr(token, "to_state"):
            token = token.to_state()
        if self.rollout_running:
            token = None  # the service is still writing to it
        return persist.AnalysisDoc(
            position=xgid,
            position_id=pid,
            match_id=mid,
            ply=self.ply,
            evaluation=self.evaluation,
            plays=self.plays,
            marked=tuple(self.query_one(PlaysTable).marked),
            cube=self.cube,
            rollout=self.last_snapshot,
            rollout_state=token if isinstance(token, dict) else None,
            extra={
                "rollout_moves": list(self.rollout_request[1] or [])
                if self.rollout_request
                else None,
                "saved_at": datetime.now().isoformat(timespec="seconds"),
            },
        )

    def default_name(self) -> str:
        return datetime.now().strftime("analysis-%Y%m%d-%H%M%S.json")

    def save_to(self, name: str) -> Path | None:
        try:
            path = self.app.data_dir / persist.safe_name(name, ".json")
            persist.save(path, self.document())
        except (OSError, ValueError, TypeError) as exc:
            self.app.notify(f"Could not save the analysis: {exc}", severity="error")
            return None
        self.app.notify(f"Saved {path}")
        return path

    def action_save(self) -> None:
        from bgtui.ui.screens.dialogs import TextPrompt, reader_check

        check = reader_check(lambda text: persist.safe_name(text, ".json"))

        def done(text: str | None) -> None:
            if text:
                self.save_to(text)

        self.app.push_screen(
            TextPrompt(
                f"Save the analysis as (in {self.app.data_dir}):", check, value=self.default_name()
            ),
            done,
        )

    def action_open(self) -> None:
        from bgtui.ui.screens.dialogs import FileListScreen

        def done(path: Path | None) -> None:
            if path is not None:
                self.open_file(path)

        self.app.push_screen(
            FileListScreen(
                "Open a saved analysis (enter opens, escape cancels)",
                persist.saved_files(self.app.data_dir),
            ),
            done,
        )

    def open_file(self, path: Path) -> bool:
        from bgtui.analysis.formats import parse_position

        try:
            doc = persist.load(path)
            state = parse_position(doc.position)
        except ValueError as exc:
            self.app.notify(f"Could not open {path}: {exc}", severity="error")
            return False
        self.set_state(state)
        self.ply = doc.ply
        self.evaluation, self.plays, self.cube = doc.evaluation, doc.plays, doc.cube
        table = self.query_one(PlaysTable)
        table.show_plays(doc.plays)
        for mv in doc.marked:
            if mv in [r.move for r in doc.plays]:
                table.marked.append(mv)
                table.update_cell(mv or "(position)", "mark", table.mark_glyph)
        self.query_one(CubePanel).show(doc.cube)
        self.query_one(PositionInfo).show(self.state, self.evaluation)
        self.last_snapshot = doc.rollout
        self.resume_token = doc.rollout_state
        moves = (doc.extra or {}).get("rollout_moves")
        self.rollout_request = (state, moves or None)
        if doc.rollout is not None:
            self.series += 1
            self.query_one(ResultsTable).show_snapshot(self.series, doc.rollout)
            self.query_one(ConvergencePlot).show(doc.rollout)
            self.query_one("#rollout-head", Static).update(self.rollout_headline(doc.rollout))
            self.query_one("#rollout-bar", ProgressBar).update(
                total=max(1, doc.rollout.trials_total), progress=doc.rollout.trials_done
            )
        self.refresh_bindings()
        self.update_status()
        self.app.notify(f"Opened {path.name}")
        return True

    def export_text(self, markdown: bool = True) -> str:
        from bgtui.analysis.board_ascii import board_ascii

        return persist.export(self.document(), board_ascii(self.state), markdown)

    def action_export(self, markdown: bool = True) -> Path | None:
        suffix = ".md" if markdown else ".txt"
        name = datetime.now().strftime("analysis-%Y%m%d-%H%M%S") + suffix
        path = self.app.data_dir / name
        try:
            atomic_write_text(path, self.export_text(markdown), mode=0o644)
        except OSError as exc:
            self.app.notify(f"Could not export: {exc}", severity="error")
            return None
        self.app.notify(f"Exported {path}")
        return path

    # -- errors ------------------------------------------------------------------------------
    @on(Worker.StateChanged)
    def _worker_changed(self, event: Worker.StateChanged) -> None:
        if event.state != WorkerState.ERROR:
            return
        self.app.worker_failed(event.worker)
        if event.worker.group == "evaluate":
            self.evaluating = False
        self.update_status()
