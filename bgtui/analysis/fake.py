"""A deterministic stand-in for the analysis service, for UI tests and UI development.

Same methods as ``bgtui.analysis.service.Analyzer`` (``protocol.AnalysisService``). Numbers are
plausible and fixed: derived from a hash of the position (and ply), so the same question always
gets the same answer. Legal plays come from the real move generator; rollouts yield scripted
snapshots whose trials grow in steps, whose figures settle as trials grow, which stop promptly
when cancelled and continue from where they stopped (``resume``), or past their end (extend).
Timing in the snapshots is scripted too (``rate`` games per second), so screenshots of a
rollout are reproducible.

Knobs: ``delay`` seconds slept per warm-up stage and per rollout step (0 for tests);
``gate`` pauses rollouts after each snapshot until it lets them go on (or the rollout is
cancelled), so a test can act in the middle of a rollout: a threading.Event lets them run while
it is set, a threading.Semaphore lets one step run per release; ``warmup_gate`` holds the
warm-up until it is set, ``rollout_warmup_gate`` its rollout part (after ``ready("analysis")``);
no gate waits longer than ``gate_timeout`` seconds (then the call
raises TimeoutError, so a test that forgets to release a gate fails instead of hanging);
``fail`` (or a set of
method names in ``fail_on``) makes those methods raise, to test error handling.

Never used by the shipped app unless the hidden ``--fake`` developer option is given.
"""

from __future__ import annotations

import hashlib
import threading
import time
from dataclasses import replace

from bgtui.analysis.models import (
    CubeDecision,
    Equities,
    Evaluation,
    PlayRow,
    Probabilities,
    RolloutSettings,
    RolloutSnapshot,
    extend_history,
    result_from_dict,
)


def _h(*parts) -> float:
    """A number in [0, 1) fixed by ``parts``."""
    d = hashlib.sha256(repr(parts).encode()).digest()
    return int.from_bytes(d[:4], "little") / 2**32


def _probs(key) -> Probabilities:
    w = 0.3 + 0.4 * _h(key, "w")
    wg = w * 0.3 * _h(key, "g")
    lg = (1 - w) * 0.3 * _h(key, "l")
    return Probabilities(w, wg, wg * 0.05, lg, lg * 0.05)


def _mwc(emg: float) -> float:
    """The fake's MWC of an EMG at a match score: 50% + a quarter of it, within [0, 1]."""
    return min(1.0, max(0.0, 0.5 + 0.25 * emg))


def _cube_states(p: Probabilities) -> Equities:
    e = p.cubeless_equity
    return Equities(
        cubeless=e, cubeful=None, centred=0.9 * e, owned=0.9 * e + 0.1, opponent_owned=0.9 * e - 0.1
    )


class FakeRolloutJob:
    """The fake's resumable rollout state (the real service's is
    ``analysis.rollout.RolloutJob``)."""

    def __init__(
        self, analysis_id: int, rows: tuple[PlayRow, ...], settings: RolloutSettings, done: int = 0
    ) -> None:
        self.analysis_id = analysis_id
        self.rows = rows
        self.settings = settings
        self.done = done

    def to_state(self) -> dict:
        from dataclasses import asdict

        return {
            "fake": True,
            "analysis_id": self.analysis_id,
            "done": self.done,
            "settings": asdict(self.settings),
            "rows": [asdict(r) for r in self.rows],
        }

    @classmethod
    def from_state(cls, d: dict) -> FakeRolloutJob:
        if not d.get("fake"):
            raise ValueError("this saved rollout was not made by the fake analyser")
        rows = tuple(result_from_dict(PlayRow, r) for r in d["rows"])
        return cls(
            int(d["analysis_id"]),
            rows,
            result_from_dict(RolloutSettings, d["settings"]),
            int(d["done"]),
        )


class FakeAnalyzer:
    rate = 5000.0  # scripted games per second

    def __init__(
        self,
        delay: float = 0.0,
        fail: bool = False,
        gate=None,
        fail_on: tuple[str, ...] = (),
        steps: int = 8,
        warmup_gate: threading.Event | None = None,
        rollout_warmup_gate: threading.Event | None = None,
        gate_timeout: float = 30.0,
    ) -> None:
        self.delay = delay
        self.warmup_gate = warmup_gate
        self.rollout_warmup_gate = rollout_warmup_gate
        self.gate_timeout = gate_timeout
        self.fail_on = set(fail_on) | (
            {"evaluate", "rank_plays", "cube", "iter_rollout"} if fail else set()
        )
        self.gate = gate
        self.steps = steps
        self.warmed = False
        self.last_rollout_job: FakeRolloutJob | None = None
        self._ids = iter(range(1, 1 << 62))
        self.calls: list[str] = []

    def _check(self, name: str) -> None:
        self.calls.append(name)
        if name in self.fail_on:
            raise RuntimeError(f"fake engine failure in {name}")

    # -- protocol ----------------------------------------------------------------------------
    def warm_up(self, progress=None, ready=None) -> None:
        self._check("warm_up")
        stages = ("loading weights", "move generator", "evaluator", "rollouts")
        for i, stage in enumerate(stages):
            if progress:
                progress(stage, i / len(stages))
            time.sleep(self.delay)
            if i == 0 and self.warmup_gate is not None:
                if not self.warmup_gate.wait(self.gate_timeout):
                    raise TimeoutError(f"fake warm-up gate not released in {self.gate_timeout} s")
            if stage == "evaluator":
                if ready:
                    ready("analysis")
                gate = self.rollout_warmup_gate
                if gate is not None and not gate.wait(self.gate_timeout):
                    raise TimeoutError(
                        f"fake rollout warm-up gate not released in {self.gate_timeout} s"
                    )
        if progress:
            progress("ready", 1.0)
        self.warmed = True

    def evaluate(self, state, ply: int = 0) -> Evaluation:
        from bgtui.analysis.formats import format_position_id

        self._check("evaluate")
        p = _probs((state.board, ply))
        eqs = replace(_cube_states(p), cubeful=None)
        eqs = replace(eqs, cubeful=self._cubeful(state, eqs))
        mwc = (
            None
            if state.is_money
            else {"cubeless": _mwc(eqs.cubeless), "cubeful": _mwc(eqs.cubeful)}
        )
        return Evaluation(format_position_id(state), ply, p, eqs, f"{ply}-ply", mwc=mwc)

    @staticmethod
    def _cubeful(state, e: Equities) -> float:
        if state.cube_owner == "opponent":
            return e.opponent_owned
        nd = e.centred if state.cube_owner == "centred" else e.owned
        return max(nd, min(2 * e.opponent_owned, 1.0))

    def rank_plays(self, state, dice, ply: int = 0) -> list[PlayRow]:
        from bgtui.analysis.formats import format_position_id
        from bgtui.analysis.notation import format_play
        from bgtui.engine import generate_plays, swap_sides

        self._check("rank_plays")
        children, moves = generate_plays(state.position, int(dice[0]), int(dice[1]))
        rows = []
        for c, m in zip(children, moves):
            p = _probs((c.tobytes(), ply))
            move = format_play(state.position, m) if m[0] >= 0 else ""
            rows.append(
                PlayRow(
                    move,
                    format_position_id(swap_sides(c)),
                    p,
                    Equities(p.cubeless_equity),
                    0.0,
                    f"{ply}-ply",
                )
            )
        rows.sort(key=lambda r: (-r.equity.cubeless, r.move))
        best = rows[0].equity.cubeless
        rows = [replace(r, equity_diff=r.equity.cubeless - best) for r in rows]
        if not state.is_money:  # at a match score: MWC beside EMG (cubeful = cubeless here)
            rows = [
                replace(
                    r,
                    equity=replace(r.equity, cubeful=r.equity.cubeless),
                    mwc=_mwc(r.equity.cubeless),
                    mwc_diff=_mwc(r.equity.cubeless) - _mwc(best),
                )
                for r in rows
            ]
        return rows

    def cube(self, state, ply: int = 0) -> CubeDecision:
        from bgtui.analysis.cube import cube_action, dahl_cube_value, wrong_decision_percent

        self._check("cube")
        p = _probs((state.board, ply))
        e = _cube_states(p)
        dp = 1.0
        dt = 2.0 * e.opponent_owned
        access = state.cube_owner != "opponent"
        if not access:  # no cube access: nothing to weigh, as the engine says
            nd, action = e.opponent_owned, "No double"
        else:
            nd = e.centred if state.cube_owner == "centred" else e.owned
            action = cube_action(nd, dt, dp, redouble=state.cube_owner == "player")
        wp, wt = wrong_decision_percent(nd, dt, dp) if access else (None, None)
        mwc = None
        if not state.is_money:
            mwc = {
                "no_double": _mwc(nd),
                "double_take": _mwc(dt),
                "double_pass": _mwc(dp),
                "cubeful": _mwc(self._cubeful(state, e)),
            }
            if state.crawford:  # nobody doubles in the Crawford game
                action, access = "No double", False
        return CubeDecision(
            nd,
            dt,
            dp,
            action,
            p,
            replace(e, cubeful=self._cubeful(state, e)),
            ply,
            f"{ply}-ply (fake)",
            dahl_cube_value(p.win, p.win_gammon),
            take_point=0.215,
            cash_point=0.785,
            wrong_pass_percent=wp,
            wrong_take_percent=wt,
            cube_access=access,
            mwc=mwc,
        )

    def apply_play(self, state, move: str):
        from bgtui.analysis.notation import parse_play
        from bgtui.analysis.state import GameState
        from bgtui.engine import swap_sides

        self._check("apply_play")
        if state.dice is None:
            raise ValueError("no dice set: set the dice before playing a move")
        child = parse_play(state.position, move, state.dice)
        owner = {"player": "opponent", "opponent": "player"}.get(state.cube_owner, "centred")
        return GameState.from_position(
            swap_sides(child),
            cube_value=state.cube_value,
            cube_owner=owner,
            dice=None,
            jacoby=state.jacoby,
            beavers=state.beavers,
            on_roll=1 - state.on_roll,
        )

    def iter_rollout(
        self, state, settings: RolloutSettings, moves=None, cancel=None, resume=None, top=None
    ):
        from bgtui.analysis.rollout import validate_settings

        self._check("iter_rollout")
        if resume is not None:
            job = (
                resume if isinstance(resume, FakeRolloutJob) else FakeRolloutJob.from_state(resume)
            )
            if settings is not None and settings.trials != job.settings.trials:
                job.settings = replace(job.settings, trials=settings.trials)
        else:
            validate_settings(settings)
            if moves is not None or top is not None:
                if state.dice is None:
                    raise ValueError("rolling out candidate plays needs dice")
                ranked = self.rank_plays(state, state.dice)
                if moves is not None:
                    by_move = {r.move: r for r in ranked}
                    missing = [m for m in moves if m not in by_move]
                    if missing:
                        raise ValueError(
                            f"{missing[0]!r} is not a legal play of {state.dice[0]}{state.dice[1]}"
                        )
                    base = tuple(by_move[m] for m in moves)
                else:
                    base = tuple(ranked[: max(1, int(top))])
            else:
                p = _probs(state.board)
                base = (
                    PlayRow(
                        "",
                        "",
                        p,
                        Equities(p.cubeless_equity),
                        mwc=None if state.is_money else _mwc(p.cubeless_equity),
                    ),
                )
            job = FakeRolloutJob(next(self._ids), base, settings)
        self.last_rollout_job = job
        yield from self._run(job, cancel)

    def _run(self, job: FakeRolloutJob, cancel):
        total = job.settings.trials
        step = max(1, total // self.steps)
        started = job.done
        while True:
            cancelled = cancel is not None and cancel.is_set()
            finished = job.done >= total
            yield self._snapshot(
                job, finished and not cancelled, cancelled and not finished, started
            )
            if finished or cancelled:
                return
            time.sleep(self.delay)
            self._pass_gate(cancel)
            if cancel is not None and cancel.is_set():
                continue
            job.done = min(total, job.done + step)

    def _pass_gate(self, cancel) -> None:
        """Wait until the gate lets the next step run (an Event: while it is set; a Semaphore:
        one step per release) or the rollout is cancelled; TimeoutError after gate_timeout."""
        gate = self.gate
        if gate is None:
            return
        deadline = time.monotonic() + self.gate_timeout
        while not (cancel is not None and cancel.is_set()):
            if isinstance(gate, threading.Event):
                if gate.wait(0.005):
                    return
            elif gate.acquire(timeout=0.005):
                return
            if time.monotonic() > deadline:
                raise TimeoutError(f"fake rollout gate not released in {self.gate_timeout} s")

    def _snapshot(
        self, job: FakeRolloutJob, finished: bool, cancelled: bool, started: int
    ) -> RolloutSnapshot:
        s = job.settings
        n = job.done
        vr = 3.0 if s.variance_reduction else 1.0
        sd = 0.9 / vr
        rows = []
        for i, r in enumerate(job.rows):
            key = (r.move, r.position_id, s.seed)
            if n:
                wobble = (_h(key, n) - 0.5) * 2.0 * sd / n**0.5
                target = r.equity.cubeless + 0.02 * (_h(key, "bias") - 0.5)
                shift = target + wobble - r.equity.cubeless
            else:
                shift = 0.0
            p0 = r.probabilities
            w = min(1.0, max(0.0, p0.win + shift / 2))
            p = Probabilities(
                w,
                min(w, p0.win_gammon),
                min(p0.win_gammon, p0.win_backgammon),
                min(1 - w, p0.lose_gammon),
                min(p0.lose_gammon, p0.lose_backgammon),
            )
            e_se = sd / max(1, n) ** 0.5
            p_se = Probabilities(e_se / 2, e_se / 4, e_se / 20, e_se / 4, e_se / 20)
            if s.cubeful:
                eqs = _cube_states(p)
                se = Equities(e_se, None, e_se * 1.1, e_se * 1.1, e_se * 1.1)
            else:
                eqs = Equities(p.cubeless_equity)
                se = Equities(e_se)
            rows.append(
                replace(
                    r,
                    probabilities=p,
                    equity=eqs,
                    probabilities_se=p_se,
                    equity_se=se,
                    trials=n,
                    evaluated_by=f"rollout {n} trials",
                )
            )
        rows.sort(key=lambda r: -r.equity.cubeless)
        best = rows[0].equity.cubeless
        diff_se = 0.6 * sd / max(1, n) ** 0.5
        rows = tuple(
            replace(
                r, equity_diff=r.equity.cubeless - best, equity_diff_se=None if i == 0 else diff_se
            )
            for i, r in enumerate(rows)
        )
        if rows[0].mwc is not None:  # at a match score (the rows came with MWC)
            rows = tuple(
                replace(
                    r,
                    mwc=_mwc(r.equity.cubeless),
                    mwc_diff=_mwc(r.equity.cubeless) - _mwc(best),
                    mwc_se=r.equity_se.cubeless / 4,
                    mwc_diff_se=None if i == 0 else diff_se / 4,
                )
                for i, r in enumerate(rows)
            )
        elapsed = n / self.rate
        run = (n - started) / self.rate
        left = 0.0 if finished else (s.trials - n) * len(rows) / self.rate
        job.history = extend_history(getattr(job, "history", ()), n, rows)
        return RolloutSnapshot(
            job.analysis_id,
            n,
            s.trials,
            elapsed,
            self.rate if run > 0 else 0.0,
            left,
            rows,
            s,
            finished,
            cancelled,
            vr * vr if s.variance_reduction else None,
            history=job.history,
        )
