"""The real analysis service over the engine (see ``protocol.AnalysisService``)."""

from __future__ import annotations

import threading
from dataclasses import replace
from typing import Callable, Optional

import numpy as np

from bgtui.analysis.models import Equities, Evaluation, PlayRow, Probabilities

#: GNU Backgammon-like move filter: plays kept for the deeper evaluation, after 0-ply.
FILTER_MAX_PLAYS = 8
FILTER_MARGIN = 0.16


class Analyzer:
    """Evaluate positions, rank plays, decide cube actions and run rollouts.

    Heavy imports (numba kernels) happen on first use or in :meth:`warm_up`, so creating an
    Analyzer is instant. Each thread gets its own engine workspaces.
    """

    def __init__(self, weights: Optional[str] = None) -> None:
        self._weights_name = weights
        self._ev = None
        self.weights_meta: dict = {}
        self._lock = threading.Lock()
        self._local = threading.local()
        #: a Dask scheduler's address: rollouts run their chunks on its cluster
        #: (``bgtui.analysis.cluster``); None: on this machine's threads
        self.scheduler: Optional[str] = None
        self._cluster = None
        #: the match equity table's file for analysis at a match score (None: Kazaross-XG2)
        self.met_path: Optional[str] = None

    # -- set-up ------------------------------------------------------------------------------
    @property
    def ev(self):
        if self._ev is None:
            with self._lock:
                if self._ev is None:
                    from bgtui.analysis.weights import (
                        DEFAULT_WEIGHTS, load_weights, with_databases)

                    ev, meta = load_weights(self._weights_name or DEFAULT_WEIGHTS)
                    self.weights_meta = meta
                    self._ev = with_databases(ev, bearoff=True)
        return self._ev

    def rollout_executor(self):
        """Where a rollout's chunks run: None (this machine's threads) or, with
        :attr:`scheduler`, an executor on that Dask cluster (connected on first use; raises
        ``cluster.ClusterError`` when it cannot be reached)."""
        if not self.scheduler:
            return None
        c = self._cluster
        if c is None or c.address != self.scheduler or c.client.status != "running":
            from bgtui.analysis.cluster import connect

            if self._cluster is not None:
                self._cluster.close()
                self._cluster = None
            self._cluster = connect(self.scheduler)
        return self._cluster.executor()

    @property
    def met(self):
        """The match equity table in use (``bgtui.analysis.met``)."""
        from bgtui.analysis.met import get_met

        return get_met(self.met_path)

    def _lws(self):
        lws = getattr(self._local, "lws", None)
        if lws is None:
            from bgtui.engine.evaluate import hidden_size, make_lookahead_workspace

            lws = make_lookahead_workspace(hidden_size(self.ev))
            self._local.lws = lws
        return lws

    def no_double_equities(self, state, ply: int) -> np.ndarray:
        """float64[3]: the no-double money equities (cube centred, owned by the player on roll,
        owned by the opponent; 1-cube) of ``state``'s position at ``ply`` by cubeful lookahead
        (``bgtui.engine.cubeful``: the cube decisions made inside the tree, Janowski at its
        leaves)."""
        from bgtui.engine.cubeful import cubeful_no_double, make_cubeful_workspace

        cws = getattr(self._local, "cws", None)
        if cws is None:
            cws = self._local.cws = make_cubeful_workspace()
        out = np.zeros(3)
        cubeful_no_double(np.ascontiguousarray(state.position, dtype=np.int8), int(ply),
                          self.ev, self._lws(), cws, self._two_sided_cubeful(),
                          bool(state.jacoby), bool(state.beavers), out)
        return out

    def _two_sided_cubeful(self) -> np.ndarray:
        """The two-sided database's cubeful values when evaluation uses that database."""
        if self.ev[2].shape[0] == 0:
            return np.zeros((0, 0, 3), dtype=np.float32)
        from bgtui.analysis.bearoff_cache import get_two_sided

        return get_two_sided().cubeful

    def warm_up(self, progress: Optional[Callable[[str, float], None]] = None,
                ready: Optional[Callable[[str], None]] = None) -> None:
        """The evaluation kernels and services first, then ``ready("analysis")``, then the
        rollouts: the first evaluation need not wait for the rollout kernels."""
        if progress:
            from bgtui.analysis.bearoff_cache import all_cached

            progress("loading weights" if all_cached() else
                     "building the bear-off databases (first start only, under a minute)", 0.0)
        ev = self.ev
        from bgtui.engine.warmup import ANALYSIS_STAGES, compile_all

        compile_all(ev, lambda stage, f: progress(stage, 0.5 * f) if progress else None,
                    only=ANALYSIS_STAGES)
        # then the services themselves on a tiny case, so that every kernel they reach (with
        # the argument types they pass) is compiled or loaded now, not at the first key press
        from bgtui.analysis.formats import parse_position
        from bgtui.analysis.models import RolloutSettings

        state = replace(parse_position("4HPwATDgc/ABMA"), dice=(3, 1))
        quick = RolloutSettings(trials=1, workers=1, truncate=2, seed=1)
        for name, fn in (("ranking plays", lambda: self.rank_plays(state, (3, 1), 1)),
                         ("cube action", lambda: self.cube(state, 1))):
            if progress:
                progress(name, 0.5)
            fn()
        if ready:
            ready("analysis")
        compile_all(ev, lambda stage, f: progress(stage, 0.5 + 0.2 * f) if progress else None,
                    only=("rollouts",))
        stages = [
            ("play rollouts", lambda: list(self.iter_rollout(state, quick, top=2))),
            ("cube rollouts", lambda: list(self.iter_cube_rollout(
                state, replace(quick, trials=2, truncate=1, live_cube=True)))),
            ("full-game rollouts", lambda: list(self.iter_rollout(
                state, replace(quick, truncate=0, cubeful=True, variance_reduction=False)))),
        ]
        for i, (name, fn) in enumerate(stages):
            if progress:
                progress(name, 0.7 + 0.3 * i / len(stages))
            fn()

    # -- evaluation --------------------------------------------------------------------------
    def probabilities(self, board: np.ndarray, ply: int = 0) -> np.ndarray:
        """float32[5] for the player on roll of ``board`` (int8[26]) at ``ply``."""
        from bgtui.engine.evaluate import _evaluate_plied

        out = np.zeros(5, dtype=np.float32)
        _evaluate_plied(np.ascontiguousarray(board, dtype=np.int8), int(ply), self.ev,
                        self._lws(), out)
        return out

    def evaluate(self, state, ply: int = 0) -> Evaluation:
        from bgtui.analysis.formats import format_position_id

        _check_ply(ply)
        if not state.is_money:
            from bgtui.analysis import match

            return match.evaluate(self, state, ply, self.met)
        from bgtui.analysis.cube import decide

        probs = self.probabilities(state.position, ply)
        p = Probabilities.from_array(probs)
        d = decide(probs, state.position, state.cube_owner, state.jacoby, state.beavers,
                   nd3=self.no_double_equities(state, ply) if ply > 0 else None)
        return Evaluation(
            position_id=format_position_id(state),
            ply=ply,
            probabilities=p,
            equity=Equities(cubeless=p.cubeless_equity, cubeful=d["cubeful"]),
            evaluated_by=f"{ply}-ply" + (self._database_note(state.position) if ply == 0 else ""),
        )

    def _database_note(self, board) -> str:
        """", bear-off database ..." when a database, not a net, gives the 0-ply value."""
        from bgtui.engine.evaluate import ONE_SIDED_DB, TWO_SIDED_DB, database_kind

        ev = self.ev
        return {TWO_SIDED_DB: ", two-sided bear-off database (exact)",
                ONE_SIDED_DB: ", one-sided bear-off database"}.get(
            database_kind(np.ascontiguousarray(board, dtype=np.int8), ev[2], ev[3]), "")

    def _after_probs(self, child: np.ndarray, ply: int) -> np.ndarray:
        from bgtui.engine.evaluate import _evaluate_after_plied

        out = np.zeros(5, dtype=np.float32)
        _evaluate_after_plied(np.ascontiguousarray(child), int(ply), self.ev, self._lws(), out)
        return out

    def rank_plays(self, state, dice: tuple[int, int], ply: int = 0) -> list[PlayRow]:
        """Every legal play, best first. All plays are evaluated at 0-ply; for ``ply`` > 0 the
        best ``FILTER_MAX_PLAYS`` within ``FILTER_MARGIN`` of the best are re-evaluated at
        ``ply`` (the others keep their 0-ply figures and say so)."""
        from bgtui.analysis.formats import format_position_id
        from bgtui.analysis.notation import format_play
        from bgtui.analysis.state import GameState
        from bgtui.engine.movegen import generate_plays
        from bgtui.engine.position import swap_sides

        _check_ply(ply)
        if not state.is_money:
            from bgtui.analysis import match

            return match.rank_plays(self, state, dice, ply, self.met)
        board = state.position
        children, moves = generate_plays(board, int(dice[0]), int(dice[1]))
        probs = np.array([self._after_probs(c, 0) for c in children])
        eqs = np.array([Probabilities.from_array(p).cubeless_equity for p in probs])
        plies = np.zeros(len(children), dtype=int)
        if ply > 0:
            order = np.argsort(-eqs, kind="stable")
            keep = [i for i in order[:FILTER_MAX_PLAYS] if eqs[i] >= eqs[order[0]] - FILTER_MARGIN]
            for i in keep:
                probs[i] = self._after_probs(children[i], ply)
                eqs[i] = Probabilities.from_array(probs[i]).cubeless_equity
                plies[i] = ply
        # deeper evaluations rank ahead of shallower ones, then by equity
        order = sorted(range(len(children)), key=lambda i: (-plies[i], -eqs[i]))
        best = eqs[order[0]]
        rows = []
        for i in order:
            after = GameState.from_position(
                swap_sides(children[i]), cube_value=state.cube_value,
                cube_owner=_flip_owner(state.cube_owner), dice=None,
            )
            p = Probabilities.from_array(probs[i])
            rows.append(PlayRow(
                move=format_play(board, moves[i]),
                position_id=format_position_id(after),
                probabilities=p,
                equity=Equities(cubeless=p.cubeless_equity),
                equity_diff=float(eqs[i] - best),
                evaluated_by=f"{plies[i]}-ply",
            ))
        return rows

    def cube(self, state, ply: int = 0):
        """Money cube decision for the player on roll: at 0-ply Janowski's model of the 0-ply
        probabilities; at ``ply`` > 0 cubeful lookahead (:meth:`no_double_equities`), the
        cubeless probabilities shown being the ``ply`` evaluation's."""
        from bgtui.analysis.cube import decide
        from bgtui.analysis.models import CubeDecision

        _check_ply(ply)
        if not state.is_money:
            from bgtui.analysis import match

            return match.cube(self, state, ply, self.met)
        probs = self.probabilities(state.position, ply)
        d = decide(probs, state.position, state.cube_owner, state.jacoby, state.beavers,
                   nd3=self.no_double_equities(state, ply) if ply > 0 else None)
        p = Probabilities.from_array(probs)
        return CubeDecision(
            no_double=d["no_double"], double_take=d["double_take"], double_pass=d["double_pass"],
            action=d["action"], probabilities=p,
            equity=Equities(cubeless=p.cubeless_equity, cubeful=d["cubeful"],
                            centred=d["centred"], owned=d["owned"],
                            opponent_owned=d["opponent_owned"]),
            ply=ply, evaluated_by=("exact (bear-off database)" if d["exact"]
                                   else f"{ply}-ply, Janowski x={d['efficiency']:.2f}"
                                   if ply == 0 else
                                   f"{ply}-ply cubeful"),
            dahl_cube_value=d["dahl"], take_point=d["take_point"], cash_point=d["cash_point"],
            too_good_point=d["too_good_point"], cube_access=d["cube_access"],
            wrong_pass_percent=d["wrong_pass_percent"], wrong_take_percent=d["wrong_take_percent"],
        )

    def iter_cube_rollout(self, state, settings, cancel=None):
        """Cube decision from rollouts, streamed as (snapshot, CubeDecision or None) pairs.

        With ``settings.live_cube`` the no-double and double/take branches are rolled out side
        by side on identical dice (the cube live inside the trials; in the no-double branch the
        player on roll does not double before his first roll, later decisions are the model's);
        otherwise one full-game rollout with a settlement limit gives Dahl's four cube-state
        equities and no double = the equity in the current state, double/take = 2 x the
        opponent-owns equity. Beavers as in the model (``state.beavers``, centred cube): a
        double/take worth less than 0 to the doubler is beavered, which doubles it (cube on 4,
        owned by the taker; every figure of the branch scales with the cube). The standard
        error of double/take - no double is paired over the same trials.
        """
        from bgtui.analysis.formats import format_position_id
        from bgtui.analysis.rollout import RolloutJob

        if state.cube_owner == "opponent":
            raise ValueError("the opponent owns the cube: the player on roll cannot double")
        pid = format_position_id(state)
        owner = 0 if state.cube_owner == "centred" else 1
        if settings.live_cube:
            settings = replace(settings, truncate=settings.truncate, cubeful=False,
                               jacoby=state.jacoby)
            job = RolloutJob(np.stack([state.position, state.position]), ["No double", "Double, take"],
                             [pid, pid], settings, False, cubes=[[1.0, owner, 1.0], [2.0, 2, 0.0]])
        else:
            settings = replace(settings, cubeful=True, truncate=0, jacoby=state.jacoby)
            job = RolloutJob(state.position[None, :], [""], [pid], settings, False)
        self.last_rollout_job = job
        for snap in job.run(self.ev, cancel, executor=self.rollout_executor()):
            yield snap, self._cube_from_job(job, state, snap)

    def _cube_from_job(self, job, state, snap):
        from bgtui.analysis.cube import (cube_action, dahl_cube_value, settlement_cube_equities,
                                         wrong_decision_percent)
        from bgtui.analysis.models import CubeDecision

        if job.n.min() < 2:
            return None
        centred = state.cube_owner == "centred"
        if job.settings.live_cube:
            nd, dt = job._mean(0, 11), job._mean(1, 11)
            # the taker beavers a double that is bad for the doubler: the branch on a 4-cube
            k = 2.0 if (state.beavers and centred and dt < 0.0) else 1.0
            dt *= k
            se = {"no_double": job._se(0, 4), "double_take": k * job._se(1, 4),
                  "double_take_minus_no_double": job._paired_se(1, 0, 4, a=k)}
            row = next(r for r in snap.rows if r.move == "No double")
        else:
            row = snap.rows[0]
            nd, dt, k, se = settlement_cube_equities(row.equity, row.equity_se, state.cube_owner,
                                                     state.beavers)
            # per trial: double/take - no double = 2k * opponent owns - (centred or owned)
            coef = (0.0, -1.0, 0.0, 2.0 * k) if centred else (0.0, 0.0, -1.0, 2.0 * k)
            se["double_take_minus_no_double"] = job.state_combination_se(0, coef)
        dp = 1.0
        wp, wt = wrong_decision_percent(nd, dt, dp)
        p = row.probabilities
        tp, cp, tg = self._cube_points(p, state)
        return CubeDecision(
            no_double=nd, double_take=dt, double_pass=dp,
            action=cube_action(nd, dt, dp, redouble=state.cube_owner == "player"),
            probabilities=p, ply=job.settings.ply,
            # the position's cubeful value: the better of playing on and doubling (the "No
            # double" row's own cubeful figure is only the first)
            equity=replace(row.equity, cubeful=max(nd, min(dt, dp))),
            evaluated_by=f"rollout {int(job.n.min())} trials"
            + (" (live cube)" if job.settings.live_cube else " (settlement limit "
               f"{job.settings.settlement_limit:g})"),
            dahl_cube_value=dahl_cube_value(p.win, p.win_gammon),
            wrong_pass_percent=wp, wrong_take_percent=wt, standard_errors=se,
            take_point=tp, cash_point=cp, too_good_point=tg,
        )

    @staticmethod
    def _cube_points(p, state):
        """The model's take, cash and too-good points for rolled-out probabilities ``p``."""
        from bgtui.analysis.cube import cube_points
        from bgtui.engine import cube as C

        arr = np.array(p.as_tuple(), dtype=np.float64)
        W, L = C.win_loss_sizes(arr)
        x = float(C.cube_efficiency(np.ascontiguousarray(state.position, dtype=np.int8)))
        return cube_points(float(W), float(L), x, state.cube_owner, state.jacoby)

    def apply_play(self, state, move: str):
        from bgtui.analysis.notation import parse_play
        from bgtui.analysis.state import GameState
        from bgtui.engine.position import swap_sides

        if state.dice is None:
            raise ValueError("no dice set: set the dice before playing a move")
        child = parse_play(state.position, move, state.dice)
        return GameState.from_position(
            swap_sides(child), cube_value=state.cube_value,
            cube_owner=_flip_owner(state.cube_owner), dice=None,
        )



    def make_rollout_job(self, state, settings, moves=None, top=None):
        """Build a RolloutJob: the position itself, or candidate plays of ``state.dice``."""
        from bgtui.analysis.formats import format_position_id
        from bgtui.analysis.notation import format_play, parse_play
        from bgtui.analysis.rollout import RolloutJob, validate_settings
        from bgtui.analysis.state import GameState
        from bgtui.engine.movegen import generate_plays
        from bgtui.engine.position import swap_sides

        validate_settings(settings)
        if moves is None and top is None:
            if settings.cubeful:  # the cube states follow the position's own Jacoby rule
                settings = replace(settings, jacoby=state.jacoby)
            return RolloutJob(state.position[None, :], [""], [format_position_id(state)], settings,
                              mover_view=False)
        if state.dice is None:
            raise ValueError("rolling out candidate plays needs dice")
        board = state.position
        if moves:
            children = [parse_play(board, m, state.dice) for m in moves]
            c_all, m_all = generate_plays(board, *state.dice)
            labels = []
            for ch in children:
                j = next(i for i in range(len(c_all)) if np.array_equal(c_all[i], ch))
                labels.append(format_play(board, m_all[j]))
            if len({bytes(np.asarray(c, dtype=np.int8)) for c in children}) < len(children):
                raise ValueError("two of the given moves reach the same position")
        else:
            rows = self.rank_plays(state, state.dice, 0)[: max(1, int(top))]
            labels = [r.move for r in rows]
            children = [parse_play(board, m, state.dice) if m else board for m in labels]
        roots = np.array([swap_sides(np.asarray(c, dtype=np.int8)) for c in children], dtype=np.int8)
        pids = [format_position_id(GameState.from_position(r)) for r in roots]
        return RolloutJob(roots, labels, pids, settings, mover_view=True)


    def iter_rollout(self, state, settings, moves=None, cancel=None, resume=None, top=None):
        """See ``protocol.AnalysisService.iter_rollout``; ``resume`` is a saved job state (dict),
        a RolloutJob, or a path; ``settings.trials`` may exceed the saved count to extend it."""
        from bgtui.analysis.rollout import RolloutJob

        if resume is not None:
            if isinstance(resume, RolloutJob):
                job = resume
            elif isinstance(resume, dict):
                job = RolloutJob.from_state(resume)
            else:
                job = RolloutJob.load(resume)
            if settings is not None and settings.trials != job.settings.trials:
                job.settings = replace(job.settings, trials=settings.trials)
        else:
            job = self.make_rollout_job(state, settings, moves, top)
        self.last_rollout_job = job
        yield from job.run(self.ev, cancel, executor=self.rollout_executor())


def _flip_owner(owner: str) -> str:
    return {"player": "opponent", "opponent": "player"}.get(owner, owner)


def _check_ply(ply: int) -> None:
    if not isinstance(ply, int) or not 0 <= ply <= 3:
        raise ValueError(f"ply must be 0, 1, 2 or 3, got {ply!r}")
