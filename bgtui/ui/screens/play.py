"""Play mode: a money game, or a match to N points (Crawford rule), with the cube against the
engine, hints on request, and after each of your decisions the equity it lost versus the best
one (at a match: EMG and MWC).

The engine's decisions come from the analysis service (cube() for the cube, rank_plays() for
checker plays) in a thread worker; the dice come from the game's seeded generator on the main
thread. The board is always drawn from your side (●, moving 24 -> 1).
"""

from __future__ import annotations

import time
from dataclasses import replace
from types import SimpleNamespace

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, Input, Label, OptionList, Static
from textual.widgets.option_list import Option
from textual.worker import Worker, WorkerState

from bgtui.analysis.board import OTHER_SIDE_OWNER
from bgtui.analysis.models import CubeDecision, PlayRow
from bgtui.ui.fmt import eq, mwc
from bgtui.ui.game import (
    MoneyGame,
    cube_losses,
    double_loss,
    engine_doubles,
    engine_takes,
    natural_key,
    no_double_loss,
    pass_loss,
    play_loss,
    play_mwc_loss,
    take_loss,
)
from bgtui.ui.messages import EngineActed, FeedbackReady
from bgtui.ui.widgets.board import BoardView
from bgtui.ui.widgets.info import PositionInfo


class PlaysRanked(Message):
    """The plays of the user's roll, best first (kept for feedback and hints)."""

    def __init__(self, game_id: int, rows: tuple[PlayRow, ...]) -> None:
        super().__init__()
        self.game_id = game_id
        self.rows = rows


class PlayScreen(Screen):
    BINDINGS = [
        Binding("r", "roll", "Roll", id="play.roll", tooltip="Roll the dice (no double)"),
        Binding("d", "double", "Double", id="play.double", tooltip="Offer the engine the cube"),
        Binding("t", "take", "Take", id="play.take", tooltip="Take the engine's double"),
        Binding("p", "pass_", "Pass", id="play.pass", tooltip="Pass the engine's double"),
        Binding(
            "m",
            "type_move",
            "Type move",
            id="play.type",
            tooltip="Type a play in GNU notation (8/5 6/5) instead of picking it",
        ),
        Binding(
            "h",
            "hint",
            "Hint",
            id="play.hint",
            tooltip="The engine's best choice for you right now",
        ),
        Binding("n", "new_game", "New game", id="play.new", tooltip="Start a new game"),
        Binding(
            "a",
            "analyse",
            "Analyse",
            id="play.analyse",
            tooltip="Back to the analysis screen with the current position",
        ),
        Binding("escape", "leave", "Leave", id="play.leave", tooltip="Back to the analysis screen"),
    ]

    def __init__(
        self, seed: int | None = None, ply: int = 0, unicode: bool = True, match_length: int = 0
    ) -> None:
        super().__init__()
        self.seed = seed if seed else int(time.time() * 1000) % 1_000_000_007
        self.ply = ply
        self.unicode = unicode
        self.game = MoneyGame(self.seed, match_length=int(match_length))
        self.game_id = 0
        self.rows: tuple[PlayRow, ...] = ()
        self.losses: list[float] = []  # equity (EMG at a match) lost by each decision
        self.mwc_losses: list[float] = []  # at a match: the MWC lost by each decision

    def _lost(self, loss: float, mwc_loss: float | None) -> None:
        self.losses.append(loss)
        if mwc_loss is not None:
            self.mwc_losses.append(mwc_loss)

    @staticmethod
    def _loss_text(loss: float, mwc_loss: float | None) -> str:
        if mwc_loss is None:
            return f"{loss:.3f}"
        return f"{loss:.3f} EMG ({mwc(mwc_loss)} MWC)"

    def compose(self) -> ComposeResult:
        with Horizontal(id="play-body"):
            with Vertical(id="play-left"):
                yield BoardView(id="play-board")
                yield PositionInfo(id="play-info")
            with Vertical(id="play-right"):
                with VerticalScroll(id="play-log"):
                    yield Static("", id="play-log-text")
                yield OptionList(id="play-moves")
        yield Label("", id="play-prompt")
        yield Input(
            placeholder="your play, e.g. 8/5 6/5 (enter plays it, escape returns)",
            id="play-input",
            compact=True,
        )
        yield Label("", id="play-error", classes="error")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(BoardView).unicode = self.unicode
        self.query_one(PositionInfo).unicode = self.unicode
        what = f"{self.game.match_length}-point match" if self.game.is_match else "Money game"
        self.log_line(f"{what} against the engine ({self.ply}-ply), seed {self.seed}.")
        self.action_new_game()

    # -- display -----------------------------------------------------------------------------
    def log_line(self, text: str) -> None:
        self.transcript.append(text)
        self.query_one("#play-log-text", Static).update("\n".join(self.transcript[-300:]))
        self.query_one("#play-log", VerticalScroll).scroll_end(animate=False)

    @property
    def transcript(self) -> list[str]:
        if not hasattr(self, "_transcript"):
            self._transcript: list[str] = []
        return self._transcript

    def human_view(self):
        s = self.game.state
        if self.game.human_on_roll:
            return s
        from bgtui.ui.board_model import board_list, swapped, to_bytes

        return SimpleNamespace(
            board=to_bytes(swapped(board_list(s.board))),
            dice=s.dice,
            cube_value=s.cube_value,
            cube_owner=OTHER_SIDE_OWNER[s.cube_owner],
        )

    def redraw(self) -> None:
        g = self.game
        view = self.human_view()
        self.query_one(BoardView).state = view
        info_state = g.state if g.human_on_roll else g.state.swapped()
        if not g.human_on_roll and g.state.dice:
            info_state = replace(info_state, dice=g.state.dice, dice_raw=None)
        turn = "your turn" if g.human_on_roll else "engine's turn"
        lost = sum(self.losses)
        if g.is_match:
            crawford = (
                ", Crawford game"
                if g.crawford_game
                else (", post-Crawford" if g.crawford_done else "")
            )
            score = f"{g.match_length}-point match: you {g.score[0]}, engine {g.score[1]}{crawford}"
            lost_text = f"{lost:.3f} EMG, {mwc(sum(self.mwc_losses))} MWC"
        else:
            score = f"score you {g.score[0]}, engine {g.score[1]}"
            lost_text = f"{lost:.3f}"
        self.query_one(PositionInfo).show(
            info_state,
            names=("you", "engine"),
            note=(
                f"{turn}; {score}\nequity lost so far {lost_text} in {len(self.losses)} decisions"
            ),
        )
        prompts = {
            "human_cube": "r roll" + (", d double" if g.may_double() else "") + ", h hint",
            "human_move": "pick your play (up/down, enter) or m to type it; h hint",
            "human_answer": "The engine doubles: t take, p pass, h hint",
            "engine": "The engine is thinking...",
            "over": ("Match over: n new match" if g.winner else "Game over: n new game")
            + ", escape back to the analysis",
        }
        self.query_one("#play-prompt", Label).update(prompts.get(g.phase, ""))
        self.refresh_bindings()

    def check_action(self, action: str, parameters) -> bool | None:
        g = self.game
        allowed = {
            "roll": g.phase == "human_cube",
            "double": g.phase == "human_cube" and g.may_double(),
            "take": g.phase == "human_answer",
            "pass_": g.phase == "human_answer",
            "type_move": g.phase == "human_move",
            "hint": g.phase in ("human_cube", "human_move", "human_answer"),
        }
        if action in allowed:
            return allowed[action]  # hidden from the Footer when it does not apply
        return True

    # -- the flow ----------------------------------------------------------------------------
    def action_new_game(self) -> None:
        self.game_id += 1
        g = self.game
        a, b = g.start()
        self.rows = ()
        self.query_one("#play-moves", OptionList).clear_options()
        first = "you start" if g.human_on_roll else "the engine starts"
        self.log_line(
            f"Game {g.games}: you roll {a}, the engine rolls {b}: {first} with "
            f"{max(a, b)}{min(a, b)}."
        )
        if g.human_on_roll:
            self.begin_move()
        else:
            self.run_engine(may_double=False, dice=g.state.dice)

    def begin_cube(self) -> None:
        g = self.game
        if not g.may_double():
            self.roll_dice()
            return
        g.phase = "human_cube"
        self.redraw()

    def action_roll(self) -> None:
        g = self.game
        if g.phase != "human_cube":
            return
        self.cube_feedback(g.state, "roll")
        self.roll_dice()

    def roll_dice(self) -> None:
        g = self.game
        g.with_dice(g.roll())
        self.begin_move()

    def begin_move(self) -> None:
        g = self.game
        g.phase = "human_move"
        self.rows = ()
        d = g.state.dice
        self.log_line(f"You roll {d[0]}{d[1]}.")
        self.query_one("#play-moves", OptionList).clear_options()
        self.redraw()
        self.rank_worker(self.game_id, g.state, self.ply)

    @work(
        thread=True,
        exclusive=True,
        group="play",
        exit_on_error=False,
        description="Ranking your plays",
    )
    def rank_worker(self, game_id: int, state, ply: int) -> None:
        rows = tuple(self.app.analyzer.rank_plays(state, state.dice, ply))
        self.post_message(PlaysRanked(game_id, rows))

    @on(PlaysRanked)
    def _plays_ranked(self, m: PlaysRanked) -> None:
        if m.game_id != self.game_id or self.game.phase != "human_move":
            return
        self.rows = m.rows
        if len(m.rows) == 1 and not m.rows[0].move:
            self.log_line("You have no legal play.")
            self.play_move("")
            return
        ol = self.query_one("#play-moves", OptionList)
        ol.clear_options()
        for mv in sorted((r.move for r in m.rows), key=natural_key):
            ol.add_option(Option(mv, id=mv))
        ol.highlighted = 0
        ol.focus()

    @on(OptionList.OptionSelected, "#play-moves")
    def _picked(self, event: OptionList.OptionSelected) -> None:
        self.play_move(event.option.id)

    def action_type_move(self) -> None:
        self.query_one("#play-input", Input).focus()

    @on(Input.Submitted, "#play-input")
    def _typed(self, event: Input.Submitted) -> None:
        if self.game.phase != "human_move":
            return
        if self.play_move(event.value):
            event.input.value = ""

    def on_key(self, event) -> None:
        inp = self.query_one("#play-input", Input)
        if event.key == "escape" and inp.has_focus:
            event.stop()
            self.query_one("#play-moves", OptionList).focus()

    def play_move(self, text: str) -> bool:
        """Play ``text`` for the user; False (and the reason shown) when it is not legal."""
        g = self.game
        if g.phase != "human_move":
            return False
        before = g.state
        try:
            after = self.app.analyzer.apply_play(before, text)
        except ValueError as exc:
            self.query_one("#play-error", Label).update(str(exc))
            return False
        self.query_one("#play-error", Label).update("")
        after = self._carry(before, after)
        from bgtui.analysis.formats import format_position_id

        shown = text or "(no legal play)"
        found = play_loss(list(self.rows), format_position_id(after)) if self.rows else None
        if found is not None and len(self.rows) > 1:
            row, loss = found
            shown = row.move or shown
            mloss = play_mwc_loss(list(self.rows), row)
            self._lost(loss, mloss)
            best = self.rows[0]
            if mloss is None:
                verdict = (
                    "the best play"
                    if loss < 0.0005
                    else f"lost {loss:.3f} versus {best.move} ({eq(best.equity.cubeless)})"
                )
                self.log_line(f"You play {shown}: {verdict} [{row.evaluated_by}, cubeless].")
            else:
                verdict = (
                    "the best play"
                    if mloss < 0.00005
                    else f"lost {self._loss_text(loss, mloss)} versus {best.move} "
                    f"(MWC {mwc(best.mwc)})"
                )
                self.log_line(f"You play {shown}: {verdict} [{row.evaluated_by}].")
        else:
            self.log_line(f"You play {shown}.")
        self.query_one("#play-moves", OptionList).clear_options()
        over = g.after_play(after, human_moved=True)
        if over:
            self.log_line(over)
            self.redraw()
            return True
        self.run_engine(may_double=g.may_double(), dice=None)
        return True

    def _carry(self, before, after):
        """The service's next state with this game's context (rules, the match's score seen
        from the other side, side on roll)."""
        return replace(
            after,
            jacoby=before.jacoby,
            beavers=before.beavers,
            match_length=before.match_length,
            score=(before.score[1], before.score[0]),
            crawford=before.crawford,
            on_roll=1 - before.on_roll,
        )

    # -- the engine's turn -------------------------------------------------------------------
    def run_engine(self, may_double: bool, dice) -> None:
        g = self.game
        g.phase = "engine"
        if dice is None:
            dice = g.roll()
        self.redraw()
        self.engine_worker(self.game_id, g.state, dice, may_double, self.ply)

    @work(
        thread=True,
        exclusive=True,
        group="play",
        exit_on_error=False,
        description="The engine's turn",
    )
    def engine_worker(self, game_id: int, state, dice, may_double: bool, ply: int) -> None:
        an = self.app.analyzer
        if may_double:
            dec = an.cube(state, ply)
            if engine_doubles(dec):
                self.post_message(
                    EngineActed(
                        game_id,
                        "double",
                        state,
                        f"The engine doubles to {state.cube_value * 2}.",
                        detail=dec,
                    )
                )
                return
        st = replace(state, dice=dice, dice_raw=None)
        rows = an.rank_plays(st, dice, ply)
        move = rows[0].move
        after = self._carry(st, an.apply_play(st, move))
        text = (
            f"The engine rolls {dice[0]}{dice[1]} and plays {move}."
            if move
            else f"The engine rolls {dice[0]}{dice[1]} and cannot move."
        )
        self.post_message(EngineActed(game_id, "move", after, text, dice=dice))

    @work(
        thread=True,
        exclusive=True,
        group="play",
        exit_on_error=False,
        description="The engine answers your double",
    )
    def answer_worker(self, game_id: int, state, ply: int) -> None:
        dec = self.app.analyzer.cube(state, ply)
        loss, mloss = cube_losses(dec, double_loss)
        self.post_message(
            FeedbackReady(game_id, self._cube_verdict("double", loss, dec, mloss), loss, mloss)
        )
        kind = "take" if engine_takes(dec) else "pass"
        self.post_message(
            EngineActed(
                game_id,
                kind,
                state,
                "The engine takes." if kind == "take" else "The engine passes.",
                detail=dec,
            )
        )

    @on(EngineActed)
    def _engine_acted(self, m: EngineActed) -> None:
        if m.game_id != self.game_id:
            return
        g = self.game
        self.log_line(m.text)
        if m.kind == "double":
            g.phase = "human_answer"
            g.offered = m.detail
            self.redraw()
        elif m.kind == "move":
            over = g.after_play(m.state, human_moved=False)
            if over:
                self.log_line(over)
                self.redraw()
            else:
                self.begin_cube()
        elif m.kind == "take":
            g.doubled_and_taken()
            self.roll_dice()
        elif m.kind == "pass":
            self.log_line(g.finish(True, g.state.cube_value, "when the engine passes"))
            self.redraw()

    # -- your cube decisions -----------------------------------------------------------------
    def action_double(self) -> None:
        g = self.game
        if g.phase != "human_cube" or not g.may_double():
            return
        self.log_line(f"You double to {g.state.cube_value * 2}.")
        g.phase = "engine"
        self.redraw()
        self.answer_worker(self.game_id, g.state, self.ply)

    def action_take(self) -> None:
        g = self.game
        if g.phase != "human_answer" or g.offered is None:
            return
        dec = g.offered
        loss, mloss = cube_losses(dec, take_loss)
        self._lost(loss, mloss)
        self.log_line("You take. " + self._cube_verdict("take", loss, dec, mloss))
        g.doubled_and_taken()
        g.offered = None
        self.run_engine(may_double=False, dice=None)

    def action_pass_(self) -> None:
        g = self.game
        if g.phase != "human_answer" or g.offered is None:
            return
        dec = g.offered
        loss, mloss = cube_losses(dec, pass_loss)
        self._lost(loss, mloss)
        self.log_line("You pass. " + self._cube_verdict("pass", loss, dec, mloss))
        g.offered = None
        self.log_line(g.finish(False, g.state.cube_value, "as you pass"))
        self.redraw()

    def cube_feedback(self, state, action: str) -> None:
        """After you roll without doubling: was doubling better?"""
        self.cube_worker(self.game_id, state, self.ply)

    @work(
        thread=True,
        group="play-feedback",
        exit_on_error=False,
        description="Checking your cube decision",
    )
    def cube_worker(self, game_id: int, state, ply: int) -> None:
        dec = self.app.analyzer.cube(state, ply)
        loss, mloss = cube_losses(dec, no_double_loss)
        self.post_message(
            FeedbackReady(game_id, self._cube_verdict("no double", loss, dec, mloss), loss, mloss)
        )

    @classmethod
    def _cube_verdict(
        cls, what: str, loss: float, dec: CubeDecision, mwc_loss: float | None = None
    ) -> str:
        figures = cls._cube_figures(dec)
        if (loss if mwc_loss is None else 10 * mwc_loss) < 0.0005:
            return f"Your {what} is right ({figures})."
        return f"Your {what} lost {cls._loss_text(loss, mwc_loss)} ({figures}; {dec.action})."

    @staticmethod
    def _cube_figures(dec: CubeDecision) -> str:
        """No double, double/take, double/pass (at a match: EMG with the MWC beside it)."""
        m = dec.mwc if dec.mwc is not None and dec.mwc.get("double_take") is not None else None

        def one(name, key):
            v = getattr(dec, key)
            return f"{name} {eq(v)}" + (f" ({mwc(m[key])})" if m else "")

        return ", ".join(
            (
                one("no double", "no_double"),
                one("double/take", "double_take"),
                one("double/pass", "double_pass"),
            )
        )

    @on(FeedbackReady)
    def _feedback(self, m: FeedbackReady) -> None:
        if m.game_id != self.game_id:
            return
        if m.loss is not None:
            self._lost(m.loss, m.mwc_loss)
        self.log_line(m.text)
        self.redraw()

    # -- hints, leaving ----------------------------------------------------------------------
    def action_hint(self) -> None:
        g = self.game
        if g.phase == "human_move" and self.rows:
            top = ", ".join(
                f"{r.move or '(none)'} "
                + (eq(r.equity.cubeless) if r.mwc is None else f"MWC {mwc(r.mwc)}")
                for r in self.rows[:3]
            )
            self.log_line(f"Hint: {top}")
        elif g.phase == "human_answer" and g.offered is not None:
            dec = g.offered
            self.log_line(
                "Hint: "
                + ("take" if engine_takes(dec) else "pass")
                + f" (double/take {eq(dec.double_take)} for the engine, "
                f"double/pass {eq(dec.double_pass)})"
            )
        elif g.phase == "human_cube":
            self.hint_worker(self.game_id, g.state, self.ply)

    @work(thread=True, group="play-feedback", exit_on_error=False, description="Hint")
    def hint_worker(self, game_id: int, state, ply: int) -> None:
        dec = self.app.analyzer.cube(state, ply)
        self.post_message(FeedbackReady(game_id, f"Hint: {dec.action} ({self._cube_figures(dec)})"))

    def action_analyse(self) -> None:
        g = self.game
        state = g.state if g.human_on_roll else g.state.swapped()
        self.dismiss(state)

    def action_leave(self) -> None:
        self.dismiss(None)

    @on(Worker.StateChanged)
    def _worker_failed(self, event: Worker.StateChanged) -> None:
        if event.state == WorkerState.ERROR:
            self.app.worker_failed(event.worker)
        if event.state == WorkerState.ERROR and event.worker.group == "play":
            # the game waits for the user instead of hanging
            if self.game.phase == "engine":
                self.game.phase = "over"
                self.log_line("The engine failed; n starts a new game.")
                self.redraw()
