"""Small modal screens: a one-line prompt with inline errors, a choice of keys, a file list."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Generic, TypeVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, OptionList, Static
from textual.widgets.option_list import Option


def reader_check(read: Callable[[str], object]) -> Callable[[str], str | None]:
    """A :class:`TextPrompt` check from a reader: the message of the ValueError ``read(text)``
    raises, None when it reads."""

    def check(text: str) -> str | None:
        try:
            read(text)
        except ValueError as exc:
            return str(exc)
        return None

    return check


def read_dice_or_clear(text: str) -> tuple[int, int] | None:
    """Dice typed in a prompt (``31``), or None for the words that clear them (empty, ``-``,
    ``0``, ``00``); ValueError otherwise."""
    from bgtui.analysis.notation import parse_dice

    return None if text.strip() in ("", "-", "0", "00") else parse_dice(text)


_R = TypeVar("_R")


class _Dialog(ModalScreen[_R], Generic[_R]):
    """A box over the screen: a title line, then the widgets :meth:`body` yields."""

    def __init__(self, title: str) -> None:
        super().__init__()
        self.title_text = title

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(self.title_text, classes="dialog-title")
            yield from self.body()

    def body(self) -> Iterable:
        return ()


class TextPrompt(_Dialog[str | None]):
    """Ask for one line. ``check(text)`` returns an error message or None; the error shows under
    the input after enter and is re-checked as the text changes. Escape cancels (None)."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="prompt.cancel")]

    def __init__(
        self,
        title: str,
        check: Callable[[str], str | None],
        value: str = "",
        hint: str = "",
        placeholder: str = "",
    ) -> None:
        super().__init__(title)
        self.check, self.value, self.hint = check, value, hint
        self.placeholder = placeholder
        self._tried = False

    def body(self) -> Iterable:
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


class ChoiceScreen(_Dialog[str | None]):
    """A question answered with one key: ``choices`` is [(key, id, label)]; escape = None."""

    def __init__(self, question: str, choices: Sequence[tuple[str, str, str]]) -> None:
        super().__init__(question)
        self.question = question
        self.choices = list(choices)

    def body(self) -> Iterable:
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


class FileListScreen(_Dialog[Path | None]):
    """Pick a saved analysis: up/down, enter; escape cancels."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="files.cancel")]

    def __init__(self, title: str, files: Sequence[Path]) -> None:
        super().__init__(title)
        self.files = list(files)

    def body(self) -> Iterable:
        if self.files:
            yield OptionList(
                *[Option(f.name, id=str(i)) for i, f in enumerate(self.files)], id="files"
            )
        else:
            yield Label("No saved analyses yet (ctrl+s saves one).")

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(self.files[int(event.option.id)])

    def action_cancel(self) -> None:
        self.dismiss(None)
