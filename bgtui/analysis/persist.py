"""Save and load an analysis (position, settings, results, resumable rollout state) as JSON in
the user data directory, and export it as Markdown."""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import asdict
from pathlib import Path
from typing import Optional

ANALYSIS_VERSION = 1


def analyses_dir() -> Path:
    env = os.environ.get("BGTUI_DATA_DIR")
    if env:
        return Path(env).expanduser() / "analyses"
    import platformdirs

    return Path(platformdirs.user_data_path("bgtui")) / "analyses"


def _atomic_write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def save_analysis(name: str, state, plays=(), snapshot=None, rollout_state: Optional[dict] = None,
                  preset: str = "") -> Path:
    """Write the analysis to ``analyses_dir()/name.json`` (atomically); returns the path."""
    from bgtui.analysis.formats import format_match_id, format_position_id

    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in name) or "analysis"
    path = analyses_dir() / f"{safe}.json"
    data = {
        "version": ANALYSIS_VERSION,
        "position": f"{format_position_id(state)}:{format_match_id(state)}",
        "dice": list(state.dice) if state.dice else None,
        "jacoby": state.jacoby,
        "beavers": state.beavers,
        "preset": preset,
        "plays": [asdict(p) for p in plays],
        "rollout": asdict(snapshot) if snapshot is not None else None,
        "rollout_state": rollout_state,
    }
    _atomic_write(path, json.dumps(data, indent=1, default=float))
    return path


def load_analysis(path) -> dict:
    """The saved dict with ``state`` (a GameState) added; ValueError saying what is wrong."""
    from dataclasses import replace

    from bgtui.analysis.formats import parse_position

    p = Path(path)
    if not p.is_absolute() and not p.exists():
        p = analyses_dir() / (p.name if p.suffix else f"{p.name}.json")
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ValueError(f"cannot read {p}: {exc.strerror}") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"{p} is not an analysis file: {exc}") from None
    if data.get("version") != ANALYSIS_VERSION:
        raise ValueError(f"{p}: analysis format {data.get('version')}, expected {ANALYSIS_VERSION}")
    state = parse_position(data["position"])
    if data.get("dice"):
        state = replace(state, dice=tuple(data["dice"]), dice_raw=None)
    state = replace(state, jacoby=bool(data.get("jacoby", True)),
                    beavers=bool(data.get("beavers", True)))
    data["state"] = state
    return data


def export_markdown(state, plays=(), snapshot=None, cube=None) -> str:
    from bgtui.analysis.board_ascii import board_ascii

    lines = ["# bgtui analysis", "", "```", board_ascii(state), "```", ""]
    if plays:
        lines += ["## Plays", "", "| # | Play | Equity | Diff | Win | W G | L G | How |",
                  "|---|---|---|---|---|---|---|---|"]
        for i, r in enumerate(plays, 1):
            p = r.probabilities
            lines.append(f"| {i} | {r.move or '(none)'} | {r.equity.cubeless:+.3f} | "
                         f"{r.equity_diff:+.3f} | {100 * p.win:.1f}% | {100 * p.win_gammon:.1f}% | "
                         f"{100 * p.lose_gammon:.1f}% | {r.evaluated_by} |")
        lines.append("")
    if snapshot is not None:
        lines += [f"## Rollout ({snapshot.trials_done} trials)", "",
                  "| Play | Equity | ± | Diff | ± | Win |", "|---|---|---|---|---|---|"]
        for r in snapshot.rows:
            se = r.equity_se.cubeless if r.equity_se else float("nan")
            dse = r.equity_diff_se if r.equity_diff_se is not None else float("nan")
            lines.append(f"| {r.move or 'position'} | {r.equity.cubeless:+.3f} | {se:.3f} | "
                         f"{r.equity_diff:+.3f} | {dse:.3f} | {100 * r.probabilities.win:.1f}% |")
        lines.append("")
    if cube is not None:
        lines += ["## Cube", "", f"- No double: {cube.no_double:+.3f}",
                  f"- Double, take: {cube.double_take:+.3f}", f"- Double, pass: {cube.double_pass:+.3f}",
                  f"- Proper action: {cube.action}", ""]
    return "\n".join(lines)


def write_markdown(name: str, text: str) -> Path:
    path = analyses_dir() / f"{name}.md"
    _atomic_write(path, text)
    return path
