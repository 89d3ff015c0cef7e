"""Small modal screens: a one-line prompt with inline errors, a choice of keys, a file list."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, OptionList, Static
from textual.widgets.option_list import Option


class TextPrompt(ModalScreen[str | None]):
    """Ask for one line. ``check(text)`` returns an error message or None; the error shows under
    the input after enter and is re-checked as the text changes. Escape cancels (None)."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="prompt.cancel")]

    def __init__(self, title: str, check: Callable[[str], str | None], value: str = "",
                 hint: str = "", placeholder: str = "") -> None:
        super().__init__()
        self.title_text, self.check, self.value, self.hint = title, check, value, hint
        self.placeholder = placeholder
        self._tried = False

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(self.title_text, classes="dialog-title")
            yield Input(value=self.value, placeholder=self.placeholder, id="prompt-input")
            yield Label("", id="prompt-error", classes="error")
            if self.hint:
                yield Static(self.hint, classes="hint")

    @property
    def error_text(self) -> str:
        return str(self.query_one("#prompt-error", Label).content)

    @on(Input.Changed)
    def _changed(self, event: Input.Changed) -> None:
        if self._tried:
            self.query_one("#prompt-error", Label).update(self.check(event.value) or "")

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._tried = True
        err = self.check(event.value)
        if err:
            self.query_one("#prompt-error", Label).update(err)
        else:
            self.dismiss(event.value)

    def action_cancel(self) -> None:
        self.dismiss(None)


class ChoiceScreen(ModalScreen[str | None]):
    """A question answered with one key: ``choices`` is [(key, id, label)]; escape = None."""

    def __init__(self, question: str, choices: Sequence[tuple[str, str, str]]) -> None:
        super().__init__()
        self.question = question
        self.choices = list(choices)

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(self.question, classes="dialog-title")
            for key, _id, label in self.choices:
                yield Label(f"  {key}  {label}")
            yield Label("  escape  cancel", classes="hint")

    def on_key(self, event) -> None:
        for key, cid, _ in self.choices:
            if event.key == key:
                event.stop()
                self.dismiss(cid)
                return
        if event.key == "escape":
            event.stop()
            self.dismiss(None)


class FileListScreen(ModalScreen[Path | None]):
    """Pick a saved analysis: up/down, enter; escape cancels."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="files.cancel")]

    def __init__(self, title: str, files: Sequence[Path]) -> None:
        super().__init__()
        self.title_text = title
        self.files = list(files)

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(self.title_text, classes="dialog-title")
            if self.files:
                yield OptionList(*[Option(f.name, id=str(i)) for i, f in enumerate(self.files)],
                                 id="files")
            else:
                yield Label("No saved analyses yet (ctrl+s saves one).")

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(self.files[int(event.option.id)])

    def action_cancel(self) -> None:
        self.dismiss(None)
