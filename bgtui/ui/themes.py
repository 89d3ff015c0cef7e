"""Themes from ``*.toml`` files, loaded into textual Theme objects.

Built-in themes live in the repository's top-level ``themes/``; a wheel carries them as
``bgtui/data/themes`` (setup.py copies them). ``theme_dirs()`` lists both, the package data
first, so an installed copy and a checkout both find them. A theme file::

    name = "bgtui-dark"
    dark = true
    primary = "#5fafd7"      # and secondary, accent, warning, error, success, foreground,
                             # background, surface, panel, boost (all optional but primary)
    [variables]
    board-player = "#ffd787" # board colours (see BOARD_VARIABLE_DEFAULTS) and any Textual
                             # design variable

Colours appear only here: the stylesheets use ``$variables``.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable
from pathlib import Path

from textual.color import Color, ColorParseError
from textual.theme import Theme

#: board colours every theme may set; the app's get_theme_variable_defaults supplies these to
#: themes (including Textual's built-in ones) that don't
BOARD_VARIABLE_DEFAULTS = {
    "board-player": "ansi_bright_yellow",
    "board-opponent": "ansi_bright_cyan",
    "board-point-a": "ansi_bright_black",
    "board-point-b": "ansi_white",
    "board-frame": "ansi_white",
    "board-text": "ansi_default",
    "board-cube": "ansi_bright_green",
    "board-cursor": "ansi_blue",
}
DEFAULT_THEME = "bgtui-dark"
PLAIN_THEME = "bgtui-16"
_COLOUR_FIELDS = (
    "primary",
    "secondary",
    "warning",
    "error",
    "success",
    "accent",
    "foreground",
    "background",
    "surface",
    "panel",
    "boost",
)
_KNOWN = set(_COLOUR_FIELDS) | {"name", "dark", "variables", "luminosity_spread", "text_alpha"}


def theme_dirs() -> list[Path]:
    """Where theme files are looked for: package data (``bgtui/data/themes``), then the
    checkout's ``themes/``. Independent of ``bgtui.paths``."""
    package = Path(__file__).resolve().parent.parent  # .../bgtui
    return [package / "data" / "themes", package.parent / "themes"]


def _colour_ok(value: str) -> bool:
    if value.startswith("ansi_"):
        return True
    try:
        Color.parse(value)
    except (ColorParseError, ValueError):
        return False
    return True


def theme_from_dict(data: dict, source: str = "<theme>") -> Theme:
    """A Theme from parsed TOML; ValueError naming the file and key when something is wrong."""
    if not isinstance(data.get("name"), str) or not data["name"]:
        raise ValueError(f'{source}: a theme needs a name = "..."')
    if "primary" not in data:
        raise ValueError(f"{source}: theme {data['name']!r} needs a primary colour")
    unknown = set(data) - _KNOWN
    if unknown:
        raise ValueError(f"{source}: unknown theme key(s) {', '.join(sorted(unknown))}")
    for k in _COLOUR_FIELDS:
        if k in data and (not isinstance(data[k], str) or not _colour_ok(data[k])):
            raise ValueError(f"{source}: {k} = {data[k]!r} is not a colour")
    variables = data.get("variables", {})
    if not isinstance(variables, dict):
        raise ValueError(f"{source}: [variables] must be a table")
    for k, v in variables.items():
        if not isinstance(v, str):
            raise ValueError(f"{source}: variable {k} = {v!r} must be a string")
        if k.startswith("board-") and not _colour_ok(v):
            raise ValueError(f"{source}: variable {k} = {v!r} is not a colour")
    kw = {k: data[k] for k in _COLOUR_FIELDS if k in data}
    if "dark" in data:
        kw["dark"] = bool(data["dark"])
    for k in ("luminosity_spread", "text_alpha"):
        if k in data:
            kw[k] = float(data[k])
    return Theme(name=data["name"], variables=dict(variables), **kw)


def load_themes(dirs: Iterable[Path] | None = None) -> tuple[list[Theme], list[str]]:
    """(themes, problems): every good theme file (the first of each name wins) and a message
    for each bad one."""
    themes, problems, seen = [], [], set()
    for d in theme_dirs() if dirs is None else dirs:
        d = Path(d)
        if not d.is_dir():
            continue
        for f in sorted(d.glob("*.toml")):
            try:
                data = tomllib.loads(f.read_text(encoding="utf-8"))
                theme = theme_from_dict(data, str(f))
            except OSError as exc:
                problems.append(f"theme file {f}: cannot read: {exc.strerror or exc}")
                continue
            except tomllib.TOMLDecodeError as exc:
                problems.append(f"theme file {f}: not valid TOML: {exc}")
                continue
            except ValueError as exc:
                problems.append(f"theme file {exc}")
                continue
            if theme.name not in seen:
                seen.add(theme.name)
                themes.append(theme)
    return themes, problems
