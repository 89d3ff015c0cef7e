"""Reading ``--batch`` input: one query per line, whatever the bytes.

Every input line yields exactly one item, so that a program that writes a line and reads a line
never waits forever: the fields of the query, or an error that names the problem (a blank line,
a ``#`` comment, bytes that are not UTF-8, control characters such as NUL, a line longer than
:data:`MAX_LINE` bytes) and quotes at most a short prefix of the line. Lines end at ``\\n``; a
``\\r`` before it is dropped; a last line without ``\\n`` is a line.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from typing import BinaryIO

#: longest line read as a query (bytes); a longer one is answered with an error, whole
MAX_LINE = 64 * 1024
QUOTE_CHARS = 40
_CHUNK = 64 * 1024


def quote(text: str | bytes, limit: int = QUOTE_CHARS) -> str:
    """``repr`` of at most ``limit`` characters of ``text`` (``...`` when cut)."""
    if isinstance(text, (bytes, bytearray)):
        text = bytes(text[: limit * 4]).decode("utf-8", "replace")
    return repr(text[:limit]) + ("..." if len(text) > limit else "")


def read_lines(stream: BinaryIO) -> Iterator[tuple[bytes, int]]:
    """(first :data:`MAX_LINE` + 1 bytes of the line without its end, its full length) per
    line of the binary ``stream``, reading at most one chunk beyond a long line at a time."""
    while True:
        line = stream.readline(MAX_LINE + 2)
        if not line:
            return
        total = len(line)
        if not line.endswith(b"\n"):  # longer than the limit: skip to its end
            while True:
                more = stream.readline(_CHUNK)
                if not more:
                    break
                total += len(more)
                if more.endswith(b"\n"):
                    break
        else:
            line = line[:-1]
            total -= 1
        if line.endswith(b"\r"):
            line = line[:-1]
            total -= 1
        yield line[: MAX_LINE + 1], total


def parse_line(raw: bytes, length: int | None = None) -> tuple[list[str] | None, str | None]:
    """(fields, None) for a query line, or (None, error message)."""
    length = len(raw) if length is None else length
    if length > MAX_LINE:
        return None, (
            f"line of {length} bytes is too long for a query (at most {MAX_LINE}): {quote(raw)}"
        )
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return None, (
            f"line is not UTF-8 text (byte 0x{raw[exc.start]:02x} at {exc.start}): {quote(raw)}"
        )
    bad = next((c for c in text if (ord(c) < 32 and c != "\t") or 127 <= ord(c) < 160), None)
    if bad is not None:
        return None, f"line holds the control character U+{ord(bad):04X}: {quote(text)}"
    t = text.strip()
    if not t:
        return None, "blank line: no query (one query per line: POSITION [DICE])"
    if t.startswith("#"):
        return None, f"comment line: no query: {quote(t)}"
    return t.split(), None


def finite_json(obj):
    """``obj`` with every float that is not finite (NaN, infinities: undefined figures such as
    the standard error of one trial) replaced by None, so that the output is strict JSON."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: finite_json(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [finite_json(v) for v in obj]
    return obj


def json_line(obj) -> str:
    """One line of strict JSON (no NaN) for ``obj``."""
    try:
        return json.dumps(obj, allow_nan=False)
    except ValueError:
        return json.dumps(finite_json(obj), allow_nan=False)
