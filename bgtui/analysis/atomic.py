"""Writing a file atomically: a reader sees the old file or the whole new one, never a torn
write, and a process killed part-way leaves at most a hidden temporary beside the file.

The new content goes to ``.NAME.PID.XXXX.tmp`` in the destination's directory (the same file
system, so the final ``os.replace`` is atomic), which is removed again if writing fails.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import IO


def atomic_write(
    path,
    fill: Callable[[IO], None],
    *,
    text: bool = False,
    mode: int | None = None,
    fsync: bool = False,
) -> Path:
    """Write ``path`` through ``fill(f)``, which writes the content to the open file ``f``
    (text in UTF-8 with ``text``, else binary); creates the parent directories. ``mode`` sets
    the file's permission bits (default: readable by the user only). With ``fsync`` the
    content reaches the disk before the rename, so that a crash of the machine leaves the old
    file or the whole new one. Returns the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(
        dir=path.parent, prefix=f".{path.name}.{os.getpid()}.", suffix=".tmp"
    )
    try:
        with os.fdopen(fd, "w", encoding="utf-8") if text else os.fdopen(fd, "wb") as f:
            fill(f)
            if fsync:
                f.flush()
                os.fsync(f.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return path


def atomic_write_text(path, text: str, *, mode: int | None = None, fsync: bool = False) -> Path:
    """Write the string ``text`` to ``path`` atomically (UTF-8)."""
    return atomic_write(path, lambda f: f.write(text), text=True, mode=mode, fsync=fsync)
