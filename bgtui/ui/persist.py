"""Saving an analysis as JSON (user data dir), loading it back, exporting it as text/Markdown."""

from __future__ import annotations

import json
import os
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from bgtui.analysis.atomic import atomic_write
from bgtui.analysis.models import (
    CubeDecision,
    Evaluation,
    PlayRow,
    RolloutSnapshot,
    result_from_dict,
)
from bgtui.ui.fmt import eq, pct, pct_se, se

FORMAT = "bgtui-analysis"
VERSION = 1


@dataclass
class AnalysisDoc:
    """Everything on the screen worth keeping: the position and what was computed about it."""

    position: str  # XGID (keeps cube, dice, score and side on roll)
    ply: int = 0
    evaluation: Evaluation | None = None
    plays: tuple[PlayRow, ...] = ()
    marked: tuple[str, ...] = ()
    cube: CubeDecision | None = None
    rollout: RolloutSnapshot | None = None
    rollout_state: dict | None = None  # the service's resumable rollout state, if it has one
    position_id: str = ""
    match_id: str = ""
    extra: dict = field(default_factory=dict)


# -- dicts -------------------------------------------------------------------------------------
def _result(cls, d):
    return None if d is None else result_from_dict(cls, d)


def to_dict(doc: AnalysisDoc) -> dict:
    return {
        "format": FORMAT,
        "version": VERSION,
        "position": doc.position,
        "position_id": doc.position_id,
        "match_id": doc.match_id,
        "ply": doc.ply,
        "evaluation": None if doc.evaluation is None else asdict(doc.evaluation),
        "plays": [asdict(r) for r in doc.plays],
        "marked": list(doc.marked),
        "cube": None if doc.cube is None else asdict(doc.cube),
        "rollout": None if doc.rollout is None else asdict(doc.rollout),
        "rollout_state": doc.rollout_state,
        "extra": doc.extra,
    }


def from_dict(d: dict) -> AnalysisDoc:
    if not isinstance(d, dict) or d.get("format") != FORMAT:
        raise ValueError('not a bgtui analysis file (no "format": "bgtui-analysis")')
    if d.get("version") != VERSION:
        raise ValueError(f"analysis file version {d.get('version')!r}; this bgtui reads {VERSION}")
    try:
        return AnalysisDoc(
            position=str(d["position"]),
            ply=int(d.get("ply", 0)),
            evaluation=_result(Evaluation, d.get("evaluation")),
            plays=tuple(result_from_dict(PlayRow, r) for r in d.get("plays", ())),
            marked=tuple(d.get("marked", ())),
            cube=_result(CubeDecision, d.get("cube")),
            rollout=_result(RolloutSnapshot, d.get("rollout")),
            rollout_state=d.get("rollout_state"),
            position_id=d.get("position_id", ""),
            match_id=d.get("match_id", ""),
            extra=d.get("extra") or {},
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"the analysis file is damaged: {exc}") from None


def _jsonable(o: Any):
    """numpy scalars/arrays in a service's rollout state become plain JSON."""
    if hasattr(o, "tolist"):
        return o.tolist()
    if hasattr(o, "item"):
        return o.item()
    raise TypeError(f"cannot save {type(o).__name__}")


def save(path: Path, doc: AnalysisDoc) -> Path:
    return atomic_write(
        path, lambda f: json.dump(to_dict(doc), f, indent=1, default=_jsonable), text=True
    )


def load(path: Path) -> AnalysisDoc:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise ValueError(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path} is not JSON: {exc}") from None
    return from_dict(data)


def autosave_path(data_dir: Path, pid: int | None = None) -> Path:
    """The file a running rollout of process ``pid`` (default: this one) is autosaved to."""
    return Path(data_dir) / "autosave" / f"rollout-{os.getpid() if pid is None else pid}.json"


def orphan_autosaves(data_dir: Path) -> list[Path]:
    """Autosaved rollouts of processes that are gone (bgtui died while rolling out), newest
    first."""
    from bgtui.analysis.rollout import pid_alive

    d = Path(data_dir) / "autosave"
    if not d.is_dir():
        return []
    out = []
    for p in d.glob("rollout-*.json"):
        pid = p.stem[len("rollout-") :]
        if pid.isdigit() and int(pid) != os.getpid() and not pid_alive(int(pid)):
            out.append(p)
    return sorted(out, key=lambda p: p.stat().st_mtime, reverse=True)


def safe_name(name: str, suffix: str) -> str:
    """A file name from user text: no directories, only safe characters, the right suffix."""
    base = re.sub(r"[^A-Za-z0-9._ -]+", "-", Path(name.strip()).name).strip(" .-")
    if not base:
        raise ValueError("the file name is empty")
    return base if base.endswith(suffix) else base + suffix


def saved_files(directory: Path) -> list[Path]:
    d = Path(directory)
    if not d.is_dir():
        return []
    return sorted(d.glob("*.json"), key=lambda p: p.stat().st_mtime, reverse=True)


# -- export ------------------------------------------------------------------------------------
def export(doc: AnalysisDoc, board_text: str, markdown: bool = True) -> str:
    """The analysis as Markdown (tables) or plain text."""
    w = _Writer(markdown)
    w.heading_block(doc, board_text)
    if doc.evaluation is not None:
        w.evaluation(doc.evaluation)
    if doc.plays:
        w.plays(doc.plays)
    if doc.rollout is not None:
        w.rollout(doc.rollout)
    if doc.cube is not None:
        w.cube(doc.cube)
    return "\n".join(w.out).rstrip() + "\n"


class _Writer:
    """The lines of an export, section by section, in Markdown or plain text."""

    def __init__(self, markdown: bool) -> None:
        self.markdown = markdown
        self.out: list[str] = []

    def heading(self, text: str) -> None:
        """A section heading and a blank line."""
        self.out.append(f"## {text}" if self.markdown else f"{text}\n{'=' * len(text)}")
        self.out.append("")

    def preformatted(self, lines: list[str]) -> None:
        """``lines`` as they are: a fenced code block in Markdown; then a blank line."""
        fence = "```" if self.markdown else ""
        self.out.append(fence)
        self.out.extend(lines)
        self.out.append(fence)
        self.out.append("")

    def table(self, header: list[str], rows: list[list[str]]) -> None:
        """A table: Markdown's, or columns padded to their widest cell; then a blank line."""
        out = self.out
        if self.markdown:
            out.append("| " + " | ".join(header) + " |")
            out.append("|" + "|".join("---" for _ in header) + "|")
            for r in rows:
                out.append("| " + " | ".join(c.replace("|", "\\|") for c in r) + " |")
        else:
            widths = [max(len(x) for x in col) for col in zip(header, *rows)]
            out.append("  ".join(x.ljust(w) for x, w in zip(header, widths)).rstrip())
            for r in rows:
                out.append("  ".join(x.ljust(w) for x, w in zip(r, widths)).rstrip())
        out.append("")

    def heading_block(self, doc: AnalysisDoc, board_text: str) -> None:
        """The title, the position's IDs and the board."""
        md = self.markdown
        self.out.append("# bgtui analysis" if md else "bgtui analysis")
        self.out.append("")
        self.out.append(
            f"Position ID `{doc.position_id}`, Match ID `{doc.match_id}`"
            if md
            else f"Position ID {doc.position_id}, Match ID {doc.match_id}"
        )
        self.out.append(f"`{doc.position}`" if md else doc.position)
        self.out.append("")
        self.preformatted([board_text])

    def evaluation(self, e) -> None:
        p = e.probabilities
        self.heading(f"Evaluation ({e.evaluated_by or str(e.ply) + '-ply'})")
        self.table(
            ["Win", "W G", "W BG", "Lose", "L G", "L BG", "Cubeless", "Cubeful"],
            [
                [
                    pct(p.win),
                    pct(p.win_gammon),
                    pct(p.win_backgammon),
                    pct(p.lose),
                    pct(p.lose_gammon),
                    pct(p.lose_backgammon),
                    eq(e.equity.cubeless),
                    eq(e.equity.cubeful),
                ]
            ],
        )

    def plays(self, plays) -> None:
        self.heading("Candidate plays")
        rows = []
        for i, r in enumerate(plays, 1):
            p = r.probabilities
            rows.append(
                [
                    str(i),
                    r.move or "(no legal play)",
                    eq(r.equity.cubeless),
                    "" if i == 1 else eq(r.equity_diff),
                    pct(p.win),
                    pct(p.win_gammon),
                    pct(p.win_backgammon),
                    pct(p.lose_gammon),
                    pct(p.lose_backgammon),
                    f"rollout {r.trials}" if r.trials else r.evaluated_by,
                ]
            )
        self.table(
            ["#", "Play", "Equity", "Diff", "Win", "W G", "W BG", "L G", "L BG", "Eval"], rows
        )

    def rollout(self, s) -> None:
        """The rollout's rows and its convergence plot."""
        state = "finished" if s.finished else ("stopped" if s.cancelled else "running")
        self.heading(f"Rollout ({state}, {s.trials_done}/{s.trials_total} trials)")
        rows = []
        for i, r in enumerate(s.rows):
            p, ps, es = r.probabilities, r.probabilities_se, r.equity_se
            rows.append(
                [
                    r.move or "position",
                    eq(r.equity.cubeless),
                    se(es.cubeless) if es else "",
                    "" if i == 0 else eq(r.equity_diff),
                    "" if i == 0 else se(r.equity_diff_se),
                    f"{pct(p.win)} {pct_se(ps.win) if ps else ''}".strip(),
                    pct(p.win_gammon),
                    pct(p.lose_gammon),
                    str(r.trials),
                ]
            )
        self.table(["Play", "Equity", "SE", "Diff", "SE", "Win", "W G", "L G", "Trials"], rows)
        from bgtui.ui.widgets.convergence import ConvergenceHistory, plot_lines

        lines = plot_lines(ConvergenceHistory.from_snapshot(s), width=72, height=12, unicode=False)
        if lines:
            self.out.append("Equity and its 95% band against trials:")
            self.out.append("")
            self.preformatted(lines)

    def cube(self, c) -> None:
        self.heading(f"Cube action ({c.evaluated_by or str(c.ply) + '-ply'})")
        self.table(
            ["No double", "Double, take", "Double, pass", "Proper action"],
            [[eq(c.no_double), eq(c.double_take), eq(c.double_pass), c.action]],
        )
