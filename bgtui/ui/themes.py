"""Themes from ``themes/*.toml`` (shipped in the wheel as ``bgtui/data/themes``)."""

from __future__ import annotations

import tomllib
from pathlib import Path

from textual.theme import Theme

#: board colours every theme may set; defaults for themes that don't
BOARD_VARIABLE_DEFAULTS = {
    "board-player": "ansi_bright_yellow",
    "board-opponent": "ansi_bright_cyan",
    "board-point": "ansi_bright_black",
    "board-frame": "ansi_white",
}
DEFAULT_THEME = "bgtui-dark"
_FIELDS = ("primary", "secondary", "warning", "error", "success", "accent", "foreground",
           "background", "surface", "panel", "boost", "dark", "ansi")


def theme_dirs() -> list[Path]:
    here = Path(__file__).resolve().parent.parent
    return [here / "data" / "themes", here.parent / "themes"]


def load_themes() -> tuple[list[Theme], list[str]]:
    """(themes, problems): every readable theme file, and a message for each bad one."""
    themes, problems, seen = [], [], set()
    for d in theme_dirs():
        for f in sorted(d.glob("*.toml")) if d.is_dir() else []:
            try:
                data = tomllib.loads(f.read_text(encoding="utf-8"))
                name = data["name"]
                if name in seen:
                    continue
                kw = {k: data[k] for k in _FIELDS if k in data}
                themes.append(Theme(name=name, variables=dict(data.get("variables", {})), **kw))
                seen.add(name)
            except (OSError, tomllib.TOMLDecodeError, KeyError, TypeError, ValueError) as exc:
                problems.append(f"theme file {f}: {exc}")
    return themes, problems
