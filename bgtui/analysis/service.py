"""The real analysis service over the engine (see ``protocol.AnalysisService``)."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from dataclasses import replace

import numpy as np

from bgtui.analysis.board import OTHER_SIDE_OWNER
from bgtui.analysis.models import DEFAULT_PRUNE, Equities, Evaluation, PlayRow, Probabilities
from bgtui.engine import FILTER_MARGIN, FILTER_MAX_PLAYS


class Analyzer:
    """Evaluate positions, rank plays, decide cube actions and run rollouts.

    Heavy imports (numba kernels) happen on first use or in :meth:`warm_up`, so creating an
    Analyzer is instant. Each thread gets its own engine workspaces.
    """

    def __init__(self, weights: str | None = None) -> None:
        self._weights_name = weights
        self._ev = None
        self.weights_meta: dict = {}
        self._lock = threading.Lock()
        self._local = threading.local()
        #: a Dask scheduler's address: rollouts run their chunks on its cluster
        #: (``bgtui.analysis.cluster``); None: on this machine's threads
        self.scheduler: str | None = None
        self._cluster = None
        #: the match equity table's file for analysis at a match score (None: Kazaross-XG2)
        self.met_path: str | None = None
        #: how many of a roll's plays the lookahead values at 0-ply (:data:`DEFAULT_PRUNE`)
        self.prune: int = DEFAULT_PRUNE

    # -- set-up ------------------------------------------------------------------------------
    @property
    def ev(self):
        if self._ev is None:
            with self._lock:
                if self._ev is None:
                    from bgtui.analysis.weights import DEFAULT_WEIGHTS, load_weights, with_databases

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
        if lws is None or int(lws.prune[0]) != self.prune:
            from bgtui.analysis.weights import load_filter_net
            from bgtui.engine import hidden_size, make_lookahead_workspace

            fn = load_filter_net() if self.prune else None
            lws = make_lookahead_workspace(hidden_size(self.ev), fn, self.prune)
            self._local.lws = lws
        return lws

    def no_double_equities(self, state, ply: int) -> np.ndarray:
        """float64[3]: the no-double money equities (cube centred, owned by the player on roll,
        owned by the opponent; 1-cube) of ``state``'s position at ``ply`` by cubeful lookahead
        (``bgtui.engine.cubeful``: the cube decisions made inside the tree, Janowski at its
        leaves)."""
        from bgtui.engine import cubeful_no_double, make_cubeful_workspace

        cws = getattr(self._local, "cws", None)
        if cws is None:
            cws = self._local.cws = make_cubeful_workspace()
        out = np.zeros(3)
        cubeful_no_double(
            np.ascontiguousarray(state.position, dtype=np.int8),
            int(ply),
            self.ev,
            self._lws(),
            cws,
            self._two_sided_cubeful(),
            bool(state.jacoby),
            bool(state.beavers),
            out,
        )
        return out

    def _two_sided_cubeful(self) -> np.ndarray:
        """The two-sided database's cubeful values when evaluation uses that database."""
        if self.ev.two_sided.shape[0] == 0:
            return np.zeros((0, 0, 3), dtype=np.float32)
        from bgtui.analysis.bearoff_cache import get_two_sided

        return get_two_sided().cubeful

    def warm_up(
        self,
        progress: Callable[[str, float], None] | None = None,
        ready: Callable[[str], None] | None = None,
    ) -> None:
        """What a 0-ply evaluation, ranking plays and cube action need first, then
        ``ready("analysis")``, then the rollouts and ``ready("all")``, then the 1- to 3-ply and
        cubeful lookahead.

        On a first start (numba's cache not yet filled, see ``bgtui.analysis.warmup``) a worker
        process builds the bear-off databases from the start, and another compiles the rollout
        kernels once this process has put the evaluator's in numba's cache; this process
        evaluates with the nets alone until the databases are there, and loads the rollout
        kernels from the cache once the worker is done. An evaluation at 1- to 3-ply asked for
        before the lookahead is compiled waits for it.
        ``progress(text, fraction)`` is told what is being done and, on a first start, roughly
        how long is left (in the text), about once a second."""
        from bgtui.analysis import warmup
        from bgtui.analysis.bearoff_cache import all_cached

        cold = not warmup.is_warm()
        allowed = not os.environ.get("BGTUI_NO_WARMUP_WORKERS")
        use_workers = cold and allowed
        dbs_cached = all_cached()
        workers = {}
        if allowed and not dbs_cached:  # a first start, or the cache directory was emptied
            workers.update(warmup.start_workers(("databases",), self._weights_name))
        if use_workers or workers:  # each kernel compiled by one process (see warmup)
            warmup.compile_one_at_a_time()
        ticker = _Ticker(progress, cold)
        try:
            if "databases" in workers:
                ticker.stage("loading weights")
                self._load_nets(bearoff=False)  # the nets value the races meanwhile
            else:
                ticker.stage("loading weights" if dbs_cached else "building the bear-off databases")
                self._load_nets(bearoff=True)
            self.warm_up_analysis(ticker.stage, lookahead=False)
            if ready:
                ready("analysis")
            roll = look = None
            if use_workers:
                # the evaluator's kernels are in numba's cache now: the workers load them. The
                # lookahead's worker first compiles the rollout's subtrees, the rollouts' worker
                # the rollout from the top: each loads what the other compiled
                started = warmup.start_workers(("rollouts", "lookahead"), self._weights_name)
                workers.update(started)
                roll, look = started.get("rollouts"), started.get("lookahead")
            db = workers.get("databases")
            if db is not None:
                ticker.wait_for(db, "building bear-off databases")
                db.wait()
                self._load_nets(bearoff=True)  # from the cache the worker filled (or built)
            if roll is not None:
                ticker.wait_for(roll, "compiling rollouts")
                roll.wait()
            ticker.stage("loading rollouts" if roll is not None else "rollouts")
            self.warm_up_rollouts()
            if ready:
                ready("all")
            # last, the 1- to 3-ply lookahead (the worker's, or compiled here if it failed);
            # an evaluation at 1-3 ply asked for meanwhile waits for it
            if look is not None:
                ticker.wait_for(look, "compiling the lookahead")
                look.wait()
            self.warm_up_lookahead(ticker.stage)
            if cold:
                warmup.mark_warm()
        finally:
            ticker.close()
            for w in workers.values():
                w.stop()

    def _load_nets(self, bearoff: bool) -> None:
        from bgtui.analysis.weights import DEFAULT_WEIGHTS, load_weights, with_databases

        with self._lock:
            if self._ev is None or bearoff:
                ev, meta = load_weights(self._weights_name or DEFAULT_WEIGHTS)
                self.weights_meta = meta
                self._ev = with_databases(ev, bearoff=bearoff)

    def warm_up_analysis(
        self, stage: Callable[[str], None] | None = None, lookahead: bool = True
    ) -> None:
        """Compile (or load) what 0-ply evaluation, ranking plays and cube actions reach, and
        with ``lookahead`` what they reach at 1- to 3-ply too (:meth:`warm_up_lookahead`)."""
        self._warm(
            stage,
            EVALUATION_STAGES,
            (
                ("ranking plays", lambda state: self.rank_plays(state, (3, 1), 0)),
                ("cube action", lambda state: self.cube(state, 0)),
            ),
        )
        if lookahead:
            self.warm_up_lookahead(stage)

    def warm_up_lookahead(self, stage: Callable[[str], None] | None = None) -> None:
        """Compile (or load) the 1- to 3-ply lookahead and the cubeful lookahead."""
        self._warm(
            stage,
            ("lookahead",),
            (
                ("1-ply plays", lambda state: self.rank_plays(state, (3, 1), 1)),
                ("cubeful lookahead", lambda state: self.cube(state, 1)),
            ),
        )

    def warm_up_rollout_parts(self, stage: Callable[[str], None] | None = None) -> None:
        """Compile (or load) the subtrees of the rollout kernels below the trial: what a second
        compile worker does while the first compiles the rollouts from the top."""
        from bgtui.engine import compile_rollout_parts

        compile_rollout_parts(self.ev, stage)

    def warm_up_rollouts(self, stage: Callable[[str], None] | None = None) -> None:
        """Compile (or load) what the rollouts reach, through the services' own calls."""
        from bgtui.analysis.models import RolloutSettings

        quick = RolloutSettings(trials=1, workers=1, truncate=2, seed=1)
        self._warm(
            stage,
            ("rollouts",),
            (
                ("play rollouts", lambda state: list(self.iter_rollout(state, quick, top=2))),
                (
                    "cube rollouts",
                    lambda state: list(
                        self.iter_cube_rollout(
                            state, replace(quick, trials=2, truncate=1, live_cube=True)
                        )
                    ),
                ),
                (
                    "full-game rollouts",
                    lambda state: list(
                        self.iter_rollout(
                            state,
                            replace(quick, truncate=0, cubeful=True, variance_reduction=False),
                        )
                    ),
                ),
            ),
        )

    def _warm(self, stage: Callable[[str], None] | None, only, calls) -> None:
        """Compile (or load) the engine's warm-up stages ``only``, then make each of ``calls``
        ((name, call(state))) on a tiny case, so that every kernel the services reach (with
        the argument types they pass) is compiled or loaded now, not at the first key press.
        ``stage(name)`` is told each stage as it starts."""
        from bgtui.engine import compile_all

        compile_all(self.ev, lambda name, f: stage(name) if stage else None, only=only)
        state = _warm_state()
        for name, call in calls:
            if stage:
                stage(name)
            call(state)

    # -- evaluation --------------------------------------------------------------------------
    def probabilities(self, board: np.ndarray, ply: int = 0) -> np.ndarray:
        """float32[5] for the player on roll of ``board`` (int8[26]) at ``ply``."""
        out = np.zeros(5, dtype=np.float32)
        board = np.ascontiguousarray(board, dtype=np.int8)
        if ply <= 0:
            # what _evaluate_plied does at 0-ply, without compiling the lookahead: a first
            # start can evaluate before the lookahead kernels are compiled
            from bgtui.engine import evaluate0_into

            evaluate0_into(board, self.ev, self._lws().eval, out)
            return out
        from bgtui.engine import evaluate_plied

        evaluate_plied(board, int(ply), self.ev, self._lws(), out)
        return out

    def evaluate(self, state, ply: int = 0) -> Evaluation:
        from bgtui.analysis.formats import format_position_id

        _check_ply(ply)
        if not state.is_money:
            from bgtui.analysis import match

            return match.evaluate(self, state, ply, self.met)

        probs = self.probabilities(state.position, ply)
        p = Probabilities.from_array(probs)
        d = self._money_decision(state, ply, probs)
        return Evaluation(
            position_id=format_position_id(state),
            ply=ply,
            probabilities=p,
            equity=Equities(cubeless=p.cubeless_equity, cubeful=d["cubeful"]),
            evaluated_by=f"{ply}-ply" + (self._database_note(state.position) if ply == 0 else ""),
        )

    def _database_note(self, board) -> str:
        """ ", bear-off database ..." when a database, not a net, gives the 0-ply value."""
        from bgtui.engine import ONE_SIDED_DB, TWO_SIDED_DB, database_kind

        ev = self.ev
        return {
            TWO_SIDED_DB: ", two-sided bear-off database (exact)",
            ONE_SIDED_DB: ", one-sided bear-off database",
        }.get(
            database_kind(np.ascontiguousarray(board, dtype=np.int8), ev.two_sided, ev.one_sided),
            "",
        )

    def _after_probs(self, child: np.ndarray, ply: int) -> np.ndarray:
        out = np.zeros(5, dtype=np.float32)
        if ply <= 0:
            return self._after_probs0(np.ascontiguousarray(child, dtype=np.int8), out)
        from bgtui.engine import evaluate_after_plied

        evaluate_after_plied(np.ascontiguousarray(child), int(ply), self.ev, self._lws(), out)
        return out

    def _after_probs0(self, child: np.ndarray, out: np.ndarray) -> np.ndarray:
        """``_evaluate_after_plied`` at 0-ply, bit for bit (the same float64 arithmetic before
        each float32 store), without compiling the lookahead."""
        from bgtui.engine import evaluate0_into, game_result

        r = game_result(child)
        if r > 0:
            out[:] = 0.0
            out[0] = 1.0
            out[1] = 1.0 if r >= 2 else 0.0
            out[2] = 1.0 if r >= 3 else 0.0
            return out
        sw = np.ascontiguousarray(-child[::-1])
        t = np.zeros(5, dtype=np.float32)
        evaluate0_into(sw, self.ev, self._lws().eval, t)
        out[0] = np.float32(1.0 - np.float64(t[0]))
        out[1], out[2], out[3], out[4] = t[3], t[4], t[1], t[2]
        return out

    def play_probs(self, child: np.ndarray, ply: int, w0: float, probs0=None) -> np.ndarray:
        """float32[5]: the value (mover's view) of a play reaching ``child`` when plays are
        ranked at ``ply``: its resulting position evaluated at ``ply``, except at 1-ply the
        blend ``w0`` times its 0-ply probabilities (``probs0`` if the caller has them) plus the
        rest times its 1-ply ones, as the engine's 1-ply player values plays. ``w0`` is the
        weight of the position before the roll (:func:`one_ply_weight0`); at weight 1 the 1-ply
        value is not computed."""
        if ply != 1:
            return self._after_probs(child, ply)
        p0 = self._after_probs(child, 0) if probs0 is None else probs0
        p0 = np.asarray(p0, dtype=np.float32)
        w = float(w0)
        if w == 1.0:
            return p0.copy()
        out = self._after_probs(child, 1)
        return (w * p0.astype(np.float64) + (1.0 - w) * out.astype(np.float64)).astype(np.float32)

    def rank_plays(self, state, dice: tuple[int, int], ply: int = 0) -> list[PlayRow]:
        """Every legal play, best first. All plays are evaluated at 0-ply; for ``ply`` > 0 the
        best ``FILTER_MAX_PLAYS`` within ``FILTER_MARGIN`` of the best are re-valued at
        ``ply`` by :meth:`play_probs` (the others keep their 0-ply figures and say so)."""
        from bgtui.analysis.formats import format_position_id
        from bgtui.analysis.notation import format_play
        from bgtui.engine import generate_plays

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
            w0 = one_ply_weight0(board)
            for i in keep:
                probs[i] = self.play_probs(children[i], ply, w0, probs[i])
                eqs[i] = Probabilities.from_array(probs[i]).cubeless_equity
                plies[i] = ply
        # deeper evaluations rank ahead of shallower ones, then by equity
        order = sorted(range(len(children)), key=lambda i: (-plies[i], -eqs[i]))
        best = eqs[order[0]]
        rows = []
        for i in order:
            after = _after_play(state, children[i])
            p = Probabilities.from_array(probs[i])
            rows.append(
                PlayRow(
                    move=format_play(board, moves[i]),
                    position_id=format_position_id(after),
                    probabilities=p,
                    equity=Equities(cubeless=p.cubeless_equity),
                    equity_diff=float(eqs[i] - best),
                    evaluated_by=f"{plies[i]}-ply",
                )
            )
        return rows

    def _money_decision(self, state, ply: int, probs):
        """The money cube decision (:func:`cube.decide`) of ``state`` from its ``ply``
        probabilities ``probs``, with cubeful lookahead at ``ply`` > 0."""
        from bgtui.analysis.cube import decide

        return decide(
            probs,
            state.position,
            state.cube_owner,
            state.jacoby,
            state.beavers,
            nd3=self.no_double_equities(state, ply) if ply > 0 else None,
        )

    def cube(self, state, ply: int = 0):
        """Money cube decision for the player on roll: at 0-ply Janowski's model of the 0-ply
        probabilities; at ``ply`` > 0 cubeful lookahead (:meth:`no_double_equities`), the
        cubeless probabilities shown being the ``ply`` evaluation's."""
        from bgtui.analysis.models import CubeDecision

        _check_ply(ply)
        if not state.is_money:
            from bgtui.analysis import match

            return match.cube(self, state, ply, self.met)
        probs = self.probabilities(state.position, ply)
        d = self._money_decision(state, ply, probs)
        p = Probabilities.from_array(probs)
        return CubeDecision(
            no_double=d["no_double"],
            double_take=d["double_take"],
            double_pass=d["double_pass"],
            action=d["action"],
            probabilities=p,
            equity=Equities(
                cubeless=p.cubeless_equity,
                cubeful=d["cubeful"],
                centred=d["centred"],
                owned=d["owned"],
                opponent_owned=d["opponent_owned"],
            ),
            ply=ply,
            evaluated_by=(
                "exact (bear-off database)"
                if d["exact"]
                else f"{ply}-ply, Janowski x={d['efficiency']:.2f}"
                if ply == 0
                else f"{ply}-ply cubeful lookahead, Janowski leaves"
            ),
            dahl_cube_value=d["dahl"],
            take_point=d["take_point"],
            cash_point=d["cash_point"],
            too_good_point=d["too_good_point"],
            cube_access=d["cube_access"],
            wrong_pass_percent=d["wrong_pass_percent"],
            wrong_take_percent=d["wrong_take_percent"],
            model=(
                "bear-off database"
                if d["exact"]
                else "janowski"
                if ply == 0
                else "cubeful lookahead"
            ),
            cube_efficiency=None if d["exact"] else d["efficiency"],
        )

    def iter_cube_rollout(self, state, settings, cancel=None, job=None):
        """Cube decision from rollouts, streamed as (snapshot, CubeDecision or None) pairs.

        With ``settings.live_cube`` the no-double and double/take branches are rolled out side
        by side on identical dice (the cube live inside the trials; in the no-double branch the
        player on roll does not double before his first roll, later decisions are the model's);
        otherwise one full-game rollout with a settlement limit gives Dahl's four cube-state
        equities and no double = the equity in the current state, double/take = 2 x the
        opponent-owns equity. Beavers as in the model (``state.beavers``, centred cube): a
        double/take worth less than 0 to the doubler is beavered, which doubles it (cube on 4,
        owned by the taker; every figure of the branch scales with the cube). The standard
        error of double/take - no double is paired over the same trials. At a match score
        both branches are rolled out with the live cube and scored in MWC
        (``match.cube_rollout_job``), whatever ``live_cube`` says.

        ``job``: the job to run (one of :meth:`make_cube_rollout_job`, e.g. resumed from a
        save) instead of a new one; it is not checked against ``state``.
        """
        if job is None:
            job = self.make_cube_rollout_job(state, settings)
        self.last_rollout_job = job
        for snap in job.run(self.ev, cancel, executor=self.rollout_executor()):
            yield snap, self.cube_from_rollout(job, state, snap)

    def make_cube_rollout_job(self, state, settings):
        """The RolloutJob that decides ``state``'s cube action with ``settings`` (see
        :meth:`iter_cube_rollout`); ValueError when the player on roll cannot double."""
        from bgtui.analysis.formats import format_position_id
        from bgtui.analysis.rollout import RolloutJob
        from bgtui.analysis.state import ENGINE_CUBE_OWNER
        from bgtui.engine import OPP_OWNED

        if state.cube_owner == "opponent":
            raise ValueError("the opponent owns the cube: the player on roll cannot double")
        if not state.is_money:
            from bgtui.analysis import match

            return match.cube_rollout_job(state, settings, self.met)
        pid = format_position_id(state)
        owner = ENGINE_CUBE_OWNER[state.cube_owner]
        if settings.live_cube:
            settings = replace(
                settings, truncate=settings.truncate, cubeful=False, jacoby=state.jacoby
            )
            return RolloutJob(
                np.stack([state.position, state.position]),
                ["No double", "Double, take"],
                [pid, pid],
                settings,
                False,
                cubes=[[1.0, owner, 1.0], [2.0, OPP_OWNED, 0.0]],
            )
        settings = replace(settings, cubeful=True, truncate=0, jacoby=state.jacoby)
        return RolloutJob(state.position[None, :], [""], [pid], settings, False)

    def cube_from_rollout(self, job, state, snap):
        """The CubeDecision of ``state`` from the cube rollout ``job`` at its snapshot
        ``snap``; None before each branch has 2 trials."""
        if not state.is_money:
            from bgtui.analysis import match

            return match.cube_from_rollout(job, state, snap, self.met)
        from bgtui.analysis.cube import rolled_out_fields, settlement_cube_equities
        from bgtui.analysis.models import CubeDecision

        if job.n.min() < 2:
            return None
        centred = state.cube_owner == "centred"
        if job.settings.live_cube:
            nd, dt = job._mean(0, 11), job._mean(1, 11)
            # the taker beavers a double that is bad for the doubler: the branch on a 4-cube
            k = 2.0 if (state.beavers and centred and dt < 0.0) else 1.0
            dt *= k
            se = {
                "no_double": job._se(0, 4),
                "double_take": k * job._se(1, 4),
                "double_take_minus_no_double": job._paired_se(1, 0, 4, a=k),
            }
            row = next(r for r in snap.rows if r.move == "No double")
        else:
            row = snap.rows[0]
            nd, dt, k, se = settlement_cube_equities(
                row.equity, row.equity_se, state.cube_owner, state.beavers
            )
            # per trial: double/take - no double = 2k * opponent owns - (centred or owned)
            coef = (0.0, -1.0, 0.0, 2.0 * k) if centred else (0.0, 0.0, -1.0, 2.0 * k)
            se["double_take_minus_no_double"] = job.state_combination_se(0, coef)
        p = row.probabilities
        tp, cp, tg = self._cube_points(p, state)
        return CubeDecision(
            **rolled_out_fields(nd, dt, state.cube_owner, p),
            ply=job.settings.ply,
            # the position's cubeful value: the better of playing on and doubling (double/pass
            # being 1; the "No double" row's own cubeful figure is only the first)
            equity=replace(row.equity, cubeful=max(nd, min(dt, 1.0))),
            evaluated_by=f"rollout {int(job.n.min())} trials"
            + (
                " (live cube)"
                if job.settings.live_cube
                else f" (settlement limit {job.settings.settlement_limit:g})"
            ),
            standard_errors=se,
            take_point=tp,
            cash_point=cp,
            too_good_point=tg,
            model="live-cube rollout" if job.settings.live_cube else "settlement rollout",
        )

    @staticmethod
    def _cube_points(p, state):
        """The model's take, cash and too-good points for rolled-out probabilities ``p``."""
        from bgtui.analysis.cube import cube_points
        from bgtui.engine import cube_efficiency, win_loss_sizes

        arr = np.array(p.as_tuple(), dtype=np.float64)
        W, L = win_loss_sizes(arr)
        x = float(cube_efficiency(np.ascontiguousarray(state.position, dtype=np.int8)))
        return cube_points(float(W), float(L), x, state.cube_owner, state.jacoby)

    def apply_play(self, state, move: str):
        from bgtui.analysis.notation import parse_play

        if state.dice is None:
            raise ValueError("no dice set: set the dice before playing a move")
        child = parse_play(state.position, move, state.dice)
        return _after_play(state, child)

    def make_rollout_job(self, state, settings, moves=None, top=None):
        """Build a RolloutJob: the position itself, or candidate plays of ``state.dice``; at a
        match score its trials are also scored in cubeless MWC (``match.score_rollout``)."""
        job = self._make_rollout_job(state, settings, moves, top)
        if not state.is_money:
            from bgtui.analysis import match

            match.score_rollout(job, state, self.met)
        return job

    def _make_rollout_job(self, state, settings, moves=None, top=None):
        from bgtui.analysis.formats import format_position_id
        from bgtui.analysis.notation import format_play, parse_play
        from bgtui.analysis.rollout import RolloutJob, validate_settings
        from bgtui.analysis.state import GameState
        from bgtui.engine import generate_plays, swap_sides

        validate_settings(settings)
        if moves is None and top is None:
            if settings.cubeful:  # the cube states follow the position's own Jacoby rule
                settings = replace(settings, jacoby=state.jacoby)
            return RolloutJob(
                state.position[None, :],
                [""],
                [format_position_id(state)],
                settings,
                mover_view=False,
            )
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
        roots = np.array(
            [swap_sides(np.asarray(c, dtype=np.int8)) for c in children], dtype=np.int8
        )
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
            if state is not None:  # a saved match is resumed at its own score only
                from bgtui.analysis import match

                why = match.resume_mismatch(job, state, self.met)
                if why is not None:
                    raise ValueError(f"cannot resume: {why}")
                if not state.is_money:
                    match.score_rollout(job, state, self.met)
        else:
            job = self.make_rollout_job(state, settings, moves, top)
        self.last_rollout_job = job
        yield from job.run(self.ev, cancel, executor=self.rollout_executor())


def _after_play(state, child):
    """The state once the player on roll has played to ``child`` (his side's view): the
    opponent on roll, the cube as it was (its owner seen from the other side), no dice."""
    from bgtui.analysis.state import GameState
    from bgtui.engine import swap_sides

    return GameState.from_position(
        swap_sides(child),
        cube_value=state.cube_value,
        cube_owner=OTHER_SIDE_OWNER[state.cube_owner],
        dice=None,
    )


def one_ply_weight0(board) -> float:
    """The weight of a play's 0-ply value in its 1-ply blend for a roll from ``board`` (the
    position before the roll, mover's view), as the engine's 1-ply player weighs it
    (``engine.one_ply_weight0``: the weight of its class, 1 in the races where only the side
    on roll has a row of the one-sided database)."""
    from bgtui.engine import one_ply_weight0 as kernel

    return float(kernel(np.ascontiguousarray(board, dtype=np.int8)))


def _check_ply(ply: int) -> None:
    if not isinstance(ply, int) or not 0 <= ply <= 3:
        raise ValueError(f"ply must be 0, 1, 2 or 3, got {ply!r}")


def _warm_state():
    from bgtui.analysis.formats import parse_position

    return replace(parse_position("4HPwATDgc/ABMA"), dice=(3, 1))


#: the warm-up stages of a 0-ply evaluation (``bgtui.engine.warmup``)
EVALUATION_STAGES = ("legal plays", "positions", "evaluator", "cube model")

#: seconds each in-process warm-up stage takes on a first start (empty numba cache) on two
#: cores beside the workers (``benchmarks/cold_start.py``), in two phases: up to the first
#: evaluation, then the lookahead. The status line's "about N s" scales them by how long the
#: stages done so far took against them (a busy machine is slower throughout).
COLD_SECONDS = (
    {
        "loading weights": 1.0,
        "legal plays": 4.0,
        "positions": 2.0,
        "evaluator": 20.0,
        "cube model": 2.0,
        "ranking plays": 3.0,
        "cube action": 4.0,
    },
    {"lookahead": 10.0, "1-ply plays": 3.0, "cubeful lookahead": 10.0},
)
#: the workers' whole run on a first start (seconds on two cores, the workers side by side:
#: ``benchmarks/cold_start.py``; the compile workers start once the evaluator is cached, and
#: both have ended when the rollouts' has)
COLD_WORKER_SECONDS = {"databases": 60.0, "rollouts": 150.0, "lookahead": 150.0}


class _Ticker:
    """Tells ``progress`` what the warm-up is doing and, on a first start, roughly how long is
    left, about once a second (a numba compile gives no progress of its own)."""

    def __init__(self, progress, cold: bool) -> None:
        self.progress = progress
        self.cold = cold
        self.name = ""
        self.since = time.monotonic()
        self.worker = None
        self.spent = 0.0  # seconds the stages done so far took
        self.expected = 0.0  # ... and what COLD_SECONDS said they would
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._thread = None
        if progress is not None and cold:
            self._thread = threading.Thread(
                target=self._run, daemon=True, name="bgtui-warmup-status"
            )
            self._thread.start()

    def _scale(self) -> float:
        # ten seconds of the estimate as a prior: one slow small stage does not triple it
        return max(1.0, (self.spent + 10.0) / (self.expected + 10.0))

    def text(self) -> str:
        """What the status line says now."""
        with self._lock:
            name, worker = self.name, self.worker
            elapsed = time.monotonic() - self.since
            scale = self._scale()
        if not self.cold:
            return (
                f"loading {name}"
                if name in ("lookahead", "1-ply plays", "cubeful lookahead")
                else name
            )
        if worker is not None:
            spent = worker.elapsed()
            left = COLD_WORKER_SECONDS.get(worker.part, 30.0) * scale - spent
            what = name if worker.stage in ("starting", "done") else f"{name} ({worker.stage})"
            if left <= 0:  # slower than the estimate: say so rather than "a few seconds"
                return f"{what}: {spent:.0f} s so far, slower than usual"
            return f"{what}: {_about(left)} left"
        for i, phase in enumerate(COLD_SECONDS):
            if name in phase:
                names = list(phase)
                rest = names[names.index(name) + 1 :]
                # a stage that overruns its estimate slows the estimate of the rest too
                with self._lock:
                    scale = max(
                        scale, (self.spent + elapsed + 10.0) / (self.expected + phase[name] + 10.0)
                    )
                left = max(phase[name] * scale - elapsed, 0.0) + scale * sum(phase[s] for s in rest)
                goal = "to the first evaluation" if i == 0 else "left"
                verb = "" if name == "loading weights" else "compiling "
                return f"{verb}{name} (first start): {_about(left)} {goal}"
        return name

    def _post(self) -> None:
        if self.progress is not None:
            self.progress(self.text(), 0.0)

    def stage(self, name: str) -> None:
        with self._lock:
            now = time.monotonic()
            for phase in COLD_SECONDS:
                if self.name in phase and self.worker is None:
                    self.spent += now - self.since
                    self.expected += phase[self.name]
            self.name, self.since, self.worker = name, now, None
        self._post()

    def wait_for(self, worker, name: str) -> None:
        with self._lock:
            self.name, self.since, self.worker = name, time.monotonic(), worker
        self._post()

    def _run(self) -> None:
        while not self._stop.wait(1.0):
            self._post()

    def close(self) -> None:
        self._stop.set()


def _about(seconds: float) -> str:
    """ "about 35 s" (to 5 s above 15 s), "a few seconds" (and when past the estimate)."""
    if seconds <= 3:
        return "a few seconds"
    if seconds < 15:
        return f"about {seconds:.0f} s"
    return f"about {5 * round(seconds / 5):.0f} s"
