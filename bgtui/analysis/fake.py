"""A deterministic stand-in for the analysis service, for UI tests and UI development.

Same methods as ``bgtui.analysis.service.Analyzer``; numbers are plausible and derived from a
hash of the position, legal plays come from the real move generator, and rollouts yield
scripted snapshots (fast, cancellable, resumable). Never used by the shipped app unless the
hidden ``--fake`` developer option is given.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import replace
from typing import Optional

from bgtui.analysis.models import (
    CubeDecision,
    Equities,
    Evaluation,
    PlayRow,
    Probabilities,
    RolloutSettings,
    RolloutSnapshot,
)


def _h(*parts) -> float:
    d = hashlib.sha256(repr(parts).encode()).digest()
    return int.from_bytes(d[:4], "little") / 2**32


def _probs(key) -> Probabilities:
    w = 0.3 + 0.4 * _h(key, "w")
    wg = w * 0.3 * _h(key, "g")
    lg = (1 - w) * 0.3 * _h(key, "l")
    return Probabilities(w, wg, wg * 0.05, lg, lg * 0.05)


class FakeAnalyzer:
    def __init__(self, delay: float = 0.0, fail: bool = False, gate=None) -> None:
        """``gate``: a threading.Event; when given, rollouts pause after each snapshot until it
        is set (or the rollout is cancelled), so tests can act in the middle of a rollout."""
        self.delay = delay
        self.fail = fail
        self.gate = gate
        self.warmed = False

    def warm_up(self, progress=None) -> None:
        for i, stage in enumerate(("weights", "legal plays", "evaluator", "rollouts")):
            time.sleep(self.delay)
            if progress:
                progress(stage, (i + 1) / 4)
        self.warmed = True

    def evaluate(self, state, ply: int = 0) -> Evaluation:
        from bgtui.analysis.formats import format_position_id

        if self.fail:
            raise RuntimeError("fake engine failure")
        p = _probs(state.board)
        return Evaluation(format_position_id(state), ply, p,
                          Equities(p.cubeless_equity, cubeful=p.cubeless_equity * 1.1), f"{ply}-ply")

    def rank_plays(self, state, dice, ply: int = 0) -> list[PlayRow]:
        from bgtui.analysis.formats import format_position_id
        from bgtui.analysis.notation import format_play
        from bgtui.analysis.state import GameState
        from bgtui.engine.movegen import generate_plays
        from bgtui.engine.position import swap_sides

        children, moves = generate_plays(state.position, *dice)
        rows = []
        for c, m in zip(children, moves):
            p = _probs(c.tobytes())
            rows.append(PlayRow(format_play(state.position, m),
                                format_position_id(GameState.from_position(swap_sides(c))), p,
                                Equities(p.cubeless_equity), 0.0, f"{ply}-ply"))
        rows.sort(key=lambda r: -r.equity.cubeless)
        best = rows[0].equity.cubeless
        return [replace(r, equity_diff=r.equity.cubeless - best) for r in rows]

    def cube(self, state, ply: int = 0) -> CubeDecision:
        from bgtui.analysis.cube import cube_action, dahl_cube_value

        p = _probs(state.board)
        nd = p.cubeless_equity * 1.1
        dt = 2 * (p.cubeless_equity - 0.1)
        return CubeDecision(nd, dt, 1.0, cube_action(nd, dt, 1.0), p,
                            Equities(p.cubeless_equity, cubeful=max(nd, min(dt, 1.0))), ply,
                            f"{ply}-ply (fake)", dahl_cube_value(p.win, p.win_gammon))

    def apply_play(self, state, move: str):
        from bgtui.analysis.service import Analyzer

        return Analyzer.apply_play(self, state, move)

    def iter_rollout(self, state, settings: RolloutSettings, moves=None, cancel=None,
                     resume=None, top=None):
        rows0 = ([r for r in self.rank_plays(state, state.dice) if r.move in moves]
                 if moves else [PlayRow("", "", _probs(state.board),
                                        Equities(_probs(state.board).cubeless_equity))])
        start = getattr(resume, "trials_done", 0) if resume is not None else 0
        total = settings.trials
        step = max(1, total // 10)
        done = start
        aid = int(_h(state.board, "id") * 1e9)
        t0 = time.perf_counter()
        while True:
            cancelled = cancel is not None and cancel.is_set()
            finished = done >= total
            se = 0.5 / max(1, done) ** 0.5
            rows = tuple(replace(r, trials=done, evaluated_by=f"rollout {done}",
                                 equity_se=Equities(se), probabilities_se=Probabilities(se / 2, se / 4, 0, se / 4, 0),
                                 equity_diff_se=se) for r in rows0)
            el = time.perf_counter() - t0
            yield RolloutSnapshot(aid, done, total, el, done / el if el else 0.0,
                                  0.0 if finished else None, rows, settings, finished, cancelled)
            if finished or cancelled:
                return
            time.sleep(self.delay)
            while self.gate is not None and not self.gate.is_set() and not (
                    cancel is not None and cancel.is_set()):
                time.sleep(0.01)
            done = min(total, done + step)
