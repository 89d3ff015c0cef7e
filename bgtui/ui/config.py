"""The app's remembered settings: TOML in the user config dir, read with tomllib, written by a
tiny writer (strings, numbers, booleans and one level of tables are all it needs).

File: ``platformdirs.user_config_path("bgtui") / "tui.toml"``::

    theme = "bgtui-dark"
    board_style = "auto"        # auto, unicode or ascii
    ply = 0                     # evaluation ply (0-3)
    play_ply = 0                # the engine's ply in play mode
    play_seed = 0               # 0: a new random seed each game
    play_match = 0              # play mode: a match to this many points (0: money)
    mwc_first = true            # at a match score: MWC first, then EMG (false: EMG first)
    met = ""                    # a match equity table file (GNU XML); "": Kazaross-XG2
    preset = "Quick truncated"
    scheduler = ""              # a Dask scheduler's address: rollouts run on its cluster

    [rollout]                   # the rollout settings last used (any RolloutSettings field)
    trials = 1296

    [keys]                      # key overrides by binding id (Textual keymap)
    "analysis.evaluate" = "E"

A bad file or value is reported (file and key named) and the default used instead.
"""

from __future__ import annotations

import math
import os
import tomllib
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path

from bgtui.analysis.atomic import atomic_write_text
from bgtui.analysis.models import RolloutSettings

BOARD_STYLES = ("auto", "unicode", "ascii")
#: the longest match play mode plays (the match equity table's reach)
MAX_PLAY_MATCH = 25
FILE_NAME = "tui.toml"


@dataclass
class UiSettings:
    theme: str = "bgtui-dark"
    board_style: str = "auto"
    ply: int = 0
    play_ply: int = 0
    play_seed: int = 0
    preset: str = "Quick truncated"
    scheduler: str = ""
    play_match: int = 0
    mwc_first: bool = True
    met: str = ""
    rollout: RolloutSettings | None = None
    keys: dict = field(default_factory=dict)


def config_dir() -> Path:
    env = os.environ.get("BGTUI_CONFIG_DIR")
    if env:
        return Path(env)
    from platformdirs import user_config_path

    return user_config_path("bgtui")


def data_dir() -> Path:
    env = os.environ.get("BGTUI_DATA_DIR")
    if env:
        return Path(env)
    from platformdirs import user_data_path

    return user_data_path("bgtui")


def _check(cond: bool, msg: str) -> None:
    if not cond:
        raise ValueError(msg)


def read_settings(path: Path) -> tuple[UiSettings, list[str]]:
    """(settings, problems). A missing file is not a problem."""
    s = UiSettings()
    problems: list[str] = []
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        return s, problems
    except OSError as exc:
        return s, [f"{path}: cannot read: {exc.strerror or exc}"]
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        return s, [f"{path}: not valid TOML: {exc}"]
    simple = {
        "theme": (str, lambda v: True, "a theme name"),
        "board_style": (str, lambda v: v in BOARD_STYLES, "auto, unicode or ascii"),
        "ply": (int, lambda v: 0 <= v <= 3, "0, 1, 2 or 3"),
        "play_ply": (int, lambda v: 0 <= v <= 3, "0, 1, 2 or 3"),
        "play_seed": (int, lambda v: v >= 0, "a whole number >= 0"),
        "preset": (str, lambda v: True, "a preset name"),
        "scheduler": (str, lambda v: v == v.strip(), "a scheduler address"),
        "play_match": (
            int,
            lambda v: 0 <= v <= MAX_PLAY_MATCH,
            f"a match length from 0 (money) to {MAX_PLAY_MATCH}",
        ),
        "met": (str, lambda v: v == v.strip(), "a file name"),
    }
    for key, value in data.items():
        if key == "mwc_first":
            if isinstance(value, bool):
                s.mwc_first = value
            else:
                problems.append(
                    f"{path}: mwc_first = {value!r} is not true or false; using {s.mwc_first!r}"
                )
        elif key in simple:
            kind, ok, what = simple[key]
            if isinstance(value, kind) and not isinstance(value, bool) and ok(value):
                setattr(s, key, value)
            else:
                problems.append(
                    f"{path}: {key} = {value!r} is not {what}; using {getattr(s, key)!r}"
                )
        elif key == "rollout" and isinstance(value, dict):
            known = {f.name: f for f in fields(RolloutSettings)}
            kw = {}
            for k, v in value.items():
                if k not in known:
                    problems.append(f"{path}: [rollout] has no setting {k!r}")
                else:
                    kw[k] = v
            try:
                from bgtui.analysis.rollout import validate_settings

                rs = RolloutSettings(**kw)
                for f in fields(RolloutSettings):
                    default = getattr(RolloutSettings(), f.name)
                    v = getattr(rs, f.name)
                    if (
                        v is not None
                        and default is not None
                        and type(v) is not type(default)
                        and not (
                            isinstance(default, float)
                            and isinstance(v, int)
                            and not isinstance(v, bool)
                        )
                    ):
                        raise ValueError(f"{f.name} = {v!r} has the wrong type")
                s.rollout = validate_settings(rs)
            except (TypeError, ValueError) as exc:
                problems.append(f"{path}: [rollout]: {exc}; using the preset")
        elif key == "keys" and isinstance(value, dict):
            s.keys = {str(k): str(v) for k, v in value.items() if isinstance(v, str)}
        else:
            problems.append(f"{path}: unknown setting {key!r}")
    return s, problems


def _toml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v) or math.isinf(v):
            raise ValueError(f"cannot write {v!r} to TOML")
        r = repr(v)
        return r if any(c in r for c in ".eE") else r + ".0"
    if isinstance(v, str):
        out = ['"']
        for ch in v:
            if ch in '"\\':
                out.append("\\" + ch)
            elif ch == "\n":
                out.append("\\n")
            elif ch == "\t":
                out.append("\\t")
            elif ord(ch) < 0x20 or ord(ch) == 0x7F:
                out.append(f"\\u{ord(ch):04x}")
            else:
                out.append(ch)
        out.append('"')
        return "".join(out)
    raise TypeError(f"cannot write {type(v).__name__} to TOML")


def _toml_key(k: str) -> str:
    if k and all(c.isalnum() or c in "_-" for c in k):
        return k
    return _toml_value(k)


def dumps(data: dict) -> str:
    """TOML for a dict of scalars and dicts of scalars (None values are left out)."""
    lines = []
    tables = []
    for k, v in data.items():
        if v is None:
            continue
        if isinstance(v, dict):
            tables.append((k, v))
        else:
            lines.append(f"{_toml_key(k)} = {_toml_value(v)}")
    for name, table in tables:
        lines.append("")
        lines.append(f"[{_toml_key(name)}]")
        for k, v in table.items():
            if v is not None:
                lines.append(f"{_toml_key(k)} = {_toml_value(v)}")
    return "\n".join(lines) + "\n"


def write_settings(path: Path, s: UiSettings) -> None:
    data = {k: v for k, v in asdict(s).items() if k not in ("rollout", "keys")}
    if s.rollout is not None:
        data["rollout"] = {k: v for k, v in asdict(s.rollout).items() if v is not None}
    if s.keys:
        data["keys"] = dict(s.keys)
    atomic_write_text(path, dumps(data), mode=0o644)


def with_changes(s: UiSettings, **kw) -> UiSettings:
    return replace(s, **kw)
