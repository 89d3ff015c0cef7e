"""Key bindings written as tables, one binding a line, so that a screen's keys read at a glance
(the help screen and the command palette list them from the Bindings made here)."""

from __future__ import annotations

import dataclasses
import re
import textwrap

from textual.binding import Binding

#: where a binding shows: in the footer, only in the help (``-``), or nowhere but it takes
#: its key before any widget does (``priority``)
WHERE = ("footer", "-", "priority")


def key_table(text: str) -> list[Binding]:
    """The bindings of ``text``: a line a binding, its columns two or more spaces apart: the
    key (keys: comma-separated), the action, the footer's label, the binding's id and where
    it shows (:data:`WHERE`); the tooltip follows on the lines indented under it. Blank lines
    and lines starting with ``#`` are skipped."""
    out: list[Binding] = []
    for line in textwrap.dedent(text).splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if line[0] == " ":
            b = out[-1]
            tip = f"{b.tooltip} {line.strip()}" if b.tooltip else line.strip()
            out[-1] = dataclasses.replace(b, tooltip=tip)
            continue
        cols = re.split(r" {2,}", line.strip())
        if len(cols) != 5 or cols[4] not in WHERE:
            raise ValueError(f"not a key table line (key, action, label, id, where): {line!r}")
        key, action, label, bid, where = cols
        out.append(
            Binding(
                key, action, label, id=bid, show=where == "footer", priority=where == "priority"
            )
        )
    return out
