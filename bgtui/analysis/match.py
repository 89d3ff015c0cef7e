"""Analysis at a match score: the match context of a position, MWC and EMG of evaluations,
plays and cube decisions (``bgtui.engine.match`` does the arithmetic in the kernels).

Every MWC is the player on roll's (a play's: the mover's after it). EMG maps an MWC linearly
onto the money scale at the current cube: (2 MWC - (W + L)) / (W - L), W and L the MWC after
winning and after losing a single game at the cube's value, so losing a single game is -1 and
winning one +1.
"""

from __future__ import annotations

import re

import numpy as np

from bgtui.analysis.board import OTHER_SIDE_OWNER
from bgtui.analysis.met import MatchEquityTable, get_met
from bgtui.analysis.models import CubeDecision, Equities, Evaluation, PlayRow, Probabilities
from bgtui.analysis.state import ENGINE_CUBE_OWNER
from bgtui.engine import CENTRED, CUBE_OWNER, CUBE_VALUE, OPP_OWNED, OWNED


def away(state) -> tuple[int, int]:
    """Points still needed: (player on roll, opponent)."""
    n = state.match_length
    return n - state.score[0], n - state.score[1]


def max_cube(state) -> int:
    """The largest cube the match allows: a cube is doubled to ``2 v`` only while a side still
    needs more than ``v`` points."""
    need = max(away(state))
    v = 1
    while v < need:
        v *= 2
    return v


def check_match(state, met: MatchEquityTable | None = None) -> None:
    """ValueError (one line) for a match context that cannot occur or the table cannot value."""
    if state.is_money:
        return
    a, b = away(state)
    n = state.match_length
    if state.crawford and min(a, b) != 1:
        raise ValueError(
            f"Crawford game at {state.score[0]}-{state.score[1]} of a {n}-point "
            "match: only when a side is 1-away"
        )
    if state.crawford and (a == 1 and b == 1):
        raise ValueError("Crawford game with both sides 1-away: that is double match point")
    if state.crawford and (state.cube_value != 1 or state.cube_owner != "centred"):
        raise ValueError("nobody may double in the Crawford game: the cube must be 1, centred")
    if state.cube_value > max_cube(state):
        raise ValueError(
            f"cube {state.cube_value} is above what the match allows at "
            f"{describe_score(state)} (at most {max_cube(state)})"
        )
    if state.cube_value > 1 and state.cube_owner == "centred":
        raise ValueError(
            f"a centred cube at {state.cube_value}: in match play a doubled cube "
            "is owned by the side that took it"
        )
    met = met or get_met()
    if max(a, b) > met.length:
        raise ValueError(
            f"the match equity table {met.name!r} covers scores up to "
            f"{met.length}-away, not {max(a, b)}-away"
        )


def describe_score(state) -> str:
    """ "4-2 (-3a -5a)": the score, player on roll first, and as points still needed."""
    a, b = away(state)
    return f"{state.score[0]}-{state.score[1]} (-{a}a -{b}a)"


def describe(state) -> str:
    """ "7-point match, 4-2 (-3a -5a)" (with ", Crawford" or ", post-Crawford"), or
    "money game"."""
    if state.is_money:
        return "money game"
    a, b = away(state)
    tail = ""
    if min(a, b) == 1 and max(a, b) > 1:
        tail = ", Crawford" if state.crawford else ", post-Crawford"
    return f"{state.match_length}-point match, {describe_score(state)}{tail}"


def match_dict(state) -> dict:
    """The JSON ``match`` object of the conventions."""
    return {
        "length": state.match_length,
        "score": [state.score[0], state.score[1]],
        "crawford": bool(state.crawford),
        "away": list(away(state)),
    }


class MatchView:
    """The arithmetic of one position's score: MWC after results, EMG, cubeless MWC."""

    def __init__(self, state, met: MatchEquityTable):
        check_match(state, met)
        self.state = state
        self.met = met
        self.a, self.b = away(state)
        self.cube = int(state.cube_value)
        self.crawford = bool(state.crawford)

    def emg(self, mwc: float, cube: int | None = None) -> float:
        from bgtui.engine import mwc_to_emg

        return float(mwc_to_emg(float(mwc), self.met.array, self.a, self.b, int(cube or self.cube)))

    def mwc_from_emg(self, emg: float) -> float:
        from bgtui.engine import emg_to_mwc

        return float(emg_to_mwc(float(emg), self.met.array, self.a, self.b, self.cube))

    def cubeless(self, probs) -> float:
        from bgtui.engine import cubeless_mwc

        return float(
            cubeless_mwc(
                np.asarray(probs, dtype=np.float64), self.met.array, self.a, self.b, self.cube
            )
        )

    def after(self, won: int) -> float:
        return self.met.after(self.a, self.b, won)

    def model_values(self, probs, board) -> np.ndarray:
        """float64[6]: the 0-ply model's MWC at this cube (level 0) and twice it (level 1),
        each in the three cube states (``engine.cube`` order)."""
        from bgtui.engine import POINT_ROWS, cube_efficiency, match_cube_values

        out = np.zeros(6)
        match_cube_values(
            np.asarray(probs, dtype=np.float64),
            self.met.array,
            self.a,
            self.b,
            self.cube,
            self.crawford,
            float(cube_efficiency(np.ascontiguousarray(board, dtype=np.int8))),
            np.zeros((2, POINT_ROWS)),
            out,
        )
        return out


def no_double_values(an, state, ply: int, met: MatchEquityTable) -> np.ndarray:
    """float64[NV] (``engine.match``): the no-double MWC of ``state`` at ``ply`` at each cube
    level and state, by cubeful lookahead at the score (``engine.cubeful`` in a match
    context; 0-ply: the model)."""
    from bgtui.engine import (
        MATCH_VALUES,
        make_cubeful_workspace,
        make_match_context,
        match_no_double,
    )

    cws = getattr(an._local, "match_cws", None)
    if cws is None:
        cws = an._local.match_cws = make_cubeful_workspace(MATCH_VALUES)
    a, b = away(state)
    ctx = make_match_context(met.array, int(a), int(b), int(state.cube_value), bool(state.crawford))
    out = np.zeros(MATCH_VALUES)
    match_no_double(
        np.ascontiguousarray(state.position, dtype=np.int8),
        int(ply),
        an.ev,
        an._lws(),
        cws,
        ctx,
        out,
    )
    return out


def _options(view: MatchView, values: np.ndarray, owner: str):
    """(no double, double/take, double/pass) MWC from the no-double values of the levels."""
    nd = float(values[ENGINE_CUBE_OWNER[owner]])
    dt = float(values[3 + OPP_OWNED])
    dp = view.after(view.cube)
    return nd, dt, dp


def _access(state) -> bool:
    """Whether the player on roll may usefully double: not in the Crawford game, not when the
    opponent owns the cube, not when the cube is dead (both sides need no more than it, so
    doubling changes no result)."""
    a, b = away(state)
    dead = state.cube_value >= max(a, b)
    return not state.crawford and state.cube_owner != "opponent" and not dead


def evaluate(an, state, ply: int, met: MatchEquityTable) -> Evaluation:
    """``Analyzer.evaluate`` at a match score: ``equity`` in EMG, ``mwc`` beside it."""
    from bgtui.analysis.formats import format_position_id

    view = MatchView(state, met)
    probs = an.probabilities(state.position, ply)
    p = Probabilities.from_array(probs)
    values = no_double_values(an, state, ply, met)
    nd, dt, dp = _options(view, values, state.cube_owner)
    cubeful = max(nd, min(dt, dp)) if _access(state) else nd
    cubeless = view.cubeless(probs)
    return Evaluation(
        position_id=format_position_id(state),
        ply=ply,
        probabilities=p,
        equity=Equities(cubeless=view.emg(cubeless), cubeful=view.emg(cubeful)),
        evaluated_by=f"{ply}-ply" + (an._database_note(state.position) if ply == 0 else ""),
        mwc={"cubeless": cubeless, "cubeful": cubeful},
    )


def _break_even(f, target: float) -> float | None:
    """The winning chance in [0, 1] where the non-decreasing ``f`` reaches ``target``."""
    from bgtui.analysis.cube import _break_even as bisect

    return bisect(f, target, iterations=50)


def cube_points(view: MatchView, probs, board) -> tuple[float | None, float | None]:
    """(take point, cash point) of the 0-ply model at this score and cube, as the player on
    roll's winning chances, his gammon rates held fixed: doubled to twice the cube (owning
    it) he takes above the take point; doubling, he has the opponent pass above the cash
    point."""
    p = np.asarray(probs, dtype=np.float64)
    w = p[0]
    gw = p[1:3] / w if w > 1e-9 else np.zeros(2)
    gl = p[3:5] / (1.0 - w) if w < 1.0 - 1e-9 else np.zeros(2)

    def at(q):
        return np.array([q, gw[0] * q, gw[1] * q, gl[0] * (1 - q), gl[1] * (1 - q)])

    if view.crawford:
        return None, None
    tp = _break_even(lambda q: view.model_values(at(q), board)[3 + OWNED], view.after(-view.cube))
    cp = _break_even(
        lambda q: view.model_values(at(q), board)[3 + OPP_OWNED], view.after(view.cube)
    )
    return tp, cp


def cube(an, state, ply: int, met: MatchEquityTable) -> CubeDecision:
    """The cube decision of the player on roll at a match score: no double, double/take and
    double/pass as MWC (``mwc``) and EMG (the equities), by the match cube model at 0-ply and
    cubeful lookahead at ``ply`` > 0. In the Crawford game there is no cube action."""
    from bgtui.analysis.cube import NO_DOUBLE, cube_action, wrong_decision_percent

    view = MatchView(state, met)
    probs = an.probabilities(state.position, ply)
    p = Probabilities.from_array(probs)
    values = no_double_values(an, state, ply, met)
    nd, dt, dp = _options(view, values, state.cube_owner)
    access = _access(state)
    if access:
        action = cube_action(nd, dt, dp, redouble=state.cube_owner == "player")
        cubeful = max(nd, min(dt, dp))
        wp, wt = wrong_decision_percent(nd, dt, dp)
    else:
        action = "No redouble" if state.cube_owner == "player" else NO_DOUBLE
        cubeful, wp, wt = nd, None, None
    tp, cp = cube_points(view, probs, state.position)
    from bgtui.engine import cube_efficiency

    e = view.emg
    if state.crawford:
        by = f"{ply}-ply, Crawford game: no cube"
    elif state.cube_value >= max(view.a, view.b):
        by = f"{ply}-ply, dead cube (both sides need no more than {state.cube_value})"
    elif ply == 0:
        x = float(cube_efficiency(np.ascontiguousarray(state.position, dtype=np.int8)))
        by = f"0-ply, match cube model x={x:.2f}"
    else:
        by = f"{ply}-ply cubeful"
    return CubeDecision(
        no_double=e(nd),
        double_take=e(dt),
        double_pass=e(dp),
        action=action,
        probabilities=p,
        equity=Equities(
            cubeless=e(view.cubeless(probs)),
            cubeful=e(cubeful),
            centred=e(values[CENTRED]),
            owned=e(values[OWNED]),
            opponent_owned=e(values[OPP_OWNED]),
        ),
        ply=ply,
        evaluated_by=by,
        take_point=tp,
        cash_point=cp,
        cube_access=access,
        model="match cube model" if ply == 0 else "match cubeful lookahead",
        cube_efficiency=float(cube_efficiency(np.ascontiguousarray(state.position, dtype=np.int8))),
        wrong_pass_percent=wp,
        wrong_take_percent=wt,
        mwc={"no_double": nd, "double_take": dt, "double_pass": dp, "cubeful": cubeful},
    )


def rank_plays(an, state, dice, ply: int, met: MatchEquityTable) -> list[PlayRow]:
    """``Analyzer.rank_plays`` at a match score: every play ranked by the mover's cubeful MWC
    (the match cube model over the ``ply`` probabilities, the opponent's cube decision made),
    EMG in ``equity``; the filter keeps for ``ply`` > 0 the plays within the money filter's
    margin of EMG, valued then by ``an.play_probs``."""
    from bgtui.analysis.formats import format_position_id
    from bgtui.analysis.notation import format_play
    from bgtui.analysis.service import (
        FILTER_MARGIN,
        FILTER_MAX_PLAYS,
        _after_play,
        _check_ply,
        one_ply_weight0,
    )
    from bgtui.engine import POINT_ROWS, generate_plays, make_play_scratch, play_values

    _check_ply(ply)
    view = MatchView(state, met)
    board = state.position
    children, moves = generate_plays(board, int(dice[0]), int(dice[1]))
    children = np.ascontiguousarray(children, dtype=np.int8)
    probs = np.array([an._after_probs(c, 0) for c in children], dtype=np.float64)
    opp_state = ENGINE_CUBE_OWNER[OTHER_SIDE_OWNER[state.cube_owner]]
    points = np.zeros((2, POINT_ROWS))
    scratch = make_play_scratch()
    vals = np.zeros((len(children), 2))

    def value(idx):
        out = np.zeros((len(idx), 2))
        play_values(
            np.ascontiguousarray(probs[idx]),
            np.ascontiguousarray(children[idx]),
            met.array,
            view.a,
            view.b,
            view.cube,
            view.crawford,
            opp_state,
            points,
            scratch,
            out,
        )
        vals[idx] = out

    value(np.arange(len(children)))
    plies = np.zeros(len(children), dtype=int)
    if ply > 0:
        key = vals[:, 1]
        order = np.argsort(-key, kind="stable")
        margin = FILTER_MARGIN * (view.after(view.cube) - view.after(-view.cube)) / 2.0
        keep = [i for i in order[:FILTER_MAX_PLAYS] if key[i] >= key[order[0]] - margin]
        w0 = one_ply_weight0(board)
        for i in keep:
            probs[i] = an.play_probs(children[i], ply, w0, probs[i])
            plies[i] = ply
        value(np.array(keep, dtype=np.int64))
    order = sorted(range(len(children)), key=lambda i: (-plies[i], -vals[i, 1]))
    best = vals[order[0], 1]
    w, l = view.after(view.cube), view.after(-view.cube)
    emgs = (2.0 * vals - (w + l)) / (w - l)  # EMG at the current cube, as MatchView.emg
    rows = []
    for i in order:
        after = _after_play(state, children[i])
        p = Probabilities.from_array(probs[i])
        _cl, cf = float(vals[i, 0]), float(vals[i, 1])
        rows.append(
            PlayRow(
                move=format_play(board, moves[i]),
                position_id=format_position_id(after),
                probabilities=p,
                equity=Equities(cubeless=float(emgs[i, 0]), cubeful=float(emgs[i, 1])),
                equity_diff=float(emgs[i, 1] - emgs[order[0], 1]),
                evaluated_by=f"{plies[i]}-ply",
                mwc=cf,
                mwc_diff=cf - best,
            )
        )
    return rows


def parse_score(text: str) -> tuple[int, int]:
    """ "4-2" -> (4, 2): points of the player on roll, then of the opponent."""
    parts = str(text).strip().split("-")
    if len(parts) != 2 or not all(re.fullmatch(r"[0-9]{1,5}", p.strip()) for p in parts):
        shown = repr(str(text)[:40]) + ("..." if len(str(text)) > 40 else "")
        raise ValueError(
            f"bad score {shown}: give it as A-B, the points of the player on roll "
            "then the opponent's in ASCII digits (e.g. 4-2)"
        )
    return int(parts[0]), int(parts[1])


def with_match(
    state,
    length: int | None = None,
    score: str | None = None,
    crawford: bool = False,
    met: MatchEquityTable | None = None,
):
    """``state`` with the match context given on the command line (each part overrides the
    position's own): ``length`` (0: money), ``score`` "A-B", ``crawford``. ValueError (one
    line) for a context that cannot occur."""
    from dataclasses import replace

    kw = {}
    if length is not None:
        if length < 0:
            raise ValueError(f"match length must be 0 (money) or more, got {length}")
        kw["match_length"] = int(length)
        if length == 0:
            kw.update(score=(0, 0), crawford=False)
    n = kw.get("match_length", state.match_length)
    if score is not None:
        if n == 0:
            raise ValueError(
                "--score needs a match: give --match N (or a position whose ID carries one)"
            )
        kw["score"] = parse_score(score)
    if crawford and n == 0:
        raise ValueError("--crawford needs a match: give --match N")
    if crawford or score is not None or length is not None:
        # a score given on the command line is a new context: Crawford only when said so
        kw["crawford"] = bool(crawford)
    if not kw:
        check_match(state, met)
        return state
    s = kw.get("score", state.score)
    if n and (s[0] >= n or s[1] >= n):
        raise ValueError(f"score {s[0]}-{s[1]} is not below the match length {n}")
    new = replace(state, **kw)
    check_match(new, met)
    return new


def mwc_coefficients(met: MatchEquityTable, a: int, b: int, cube: int) -> np.ndarray:
    """float64[6]: the cubeless MWC of the side ``a``-away against ``b``-away at ``cube`` as
    ``c[0] + c[1:] . p`` for its five probabilities ``p`` (the MWC is linear in them):
    ``bgtui.engine.match.mwc_coefficients``."""
    from bgtui.engine import mwc_coefficients as engine_coefficients

    return np.array(engine_coefficients(met.array, int(a), int(b), int(cube)), dtype=np.float64)


def rollout_record(state, met: MatchEquityTable) -> dict:
    """The match of a rollout at ``state``'s score as saved with it (checked on resume)."""
    return dict(match_dict(state), cube=int(state.cube_value), owner=state.cube_owner, met=met.name)


def resume_mismatch(job, state, met: MatchEquityTable) -> str | None:
    """Why the saved ``job`` is not a rollout at ``state``'s match score (or for money), None
    when it is."""
    want = None if state.is_money else rollout_record(state, met)
    have = job.match
    if want == have:
        return None

    def name(m):
        if m is None:
            return "for money"
        a = m.get("away") or ["?", "?"]
        return (
            f"at a {m.get('length')}-point match, {a[0]}-away {a[1]}-away"
            + (", Crawford" if m.get("crawford") else "")
            + f", cube {m.get('cube')} {m.get('owner')}, table {m.get('met')!r}"
        )

    return f"it was rolled out {name(have)}, not {name(want)}"


def score_rollout(job, state, met: MatchEquityTable) -> None:
    """Make ``job`` (a rollout of ``state``'s position or of its candidate plays) score its
    trials in MWC at ``state``'s score, from the root player's view (the opponent's after a
    candidate play): each trial's cubeless MWC from its five outputs and, with ``cubeful``
    (or ``live_cube``) settings, the cube live in the trials with the match's cube decisions
    (none in the Crawford game), a pass scored at the cube's value, each trial scored in
    MWC."""
    from bgtui.analysis.rollout import LiveMatch

    s = job.settings
    live = bool(s.cubeful or s.live_cube)
    if live and s.zehr_split:
        raise ValueError(
            "the Zehr split is for money play: at a match score two games at the "
            "undoubled cube are not worth one at the doubled cube"
        )
    view = MatchView(state, met)
    a, b = (view.b, view.a) if job.mover_view else (view.a, view.b)
    live_match = None
    if live:
        live_match = LiveMatch(met.array, int(a), int(b), bool(state.crawford))
        owner = state.cube_owner
        if job.mover_view:  # the root player is the mover's opponent
            owner = OTHER_SIDE_OWNER[owner]
        job.cubes[:, CUBE_VALUE] = float(state.cube_value)
        job.cubes[:, CUBE_OWNER] = float(ENGINE_CUBE_OWNER[owner])
    job.set_match(
        mwc_coefficients(met, a, b, view.cube),
        view.after(view.cube),
        view.after(-view.cube),
        live=live_match,
        match=rollout_record(state, met),
    )


def cube_rollout_job(state, settings, met: MatchEquityTable):
    """The rollout job of a cube decision at ``state``'s score: no double and double/take
    rolled out side by side on the same dice with the cube live in the trials (the match's
    decisions, scored in MWC); in the no-double branch the player on roll keeps the cube for
    his first roll. ValueError when he has no cube action (Crawford game, dead cube, the
    opponent's cube)."""
    from dataclasses import replace

    from bgtui.analysis.formats import format_position_id
    from bgtui.analysis.rollout import LiveMatch, RolloutJob

    view = MatchView(state, met)
    if not _access(state):
        raise ValueError(
            f"no cube action to roll out at {describe(state)} with the cube "
            f"{state.cube_value} {state.cube_owner}: use --ply N"
        )
    settings = replace(settings, live_cube=True, cubeful=False)
    pid = format_position_id(state)
    v = float(state.cube_value)
    job = RolloutJob(
        np.stack([state.position, state.position]),
        ["No double", "Double, take"],
        [pid, pid],
        settings,
        False,
        cubes=[[v, ENGINE_CUBE_OWNER[state.cube_owner], 1.0], [2 * v, OPP_OWNED, 0.0]],
    )
    job.set_match(
        mwc_coefficients(met, view.a, view.b, view.cube),
        view.after(view.cube),
        view.after(-view.cube),
        live=LiveMatch(met.array, view.a, view.b, False),
        match=rollout_record(state, met),
    )
    return job


def cube_from_rollout(job, state, snap, met: MatchEquityTable) -> CubeDecision | None:
    """The cube decision of a :func:`cube_rollout_job` so far (None before two trials): MWC of
    no double and double/take with their standard errors and the paired one of their
    difference, double/pass from the table, EMG in the equities."""
    from dataclasses import replace

    from bgtui.analysis.cube import cube_action, wrong_decision_percent

    if job.n.min() < 2:
        return None
    view = MatchView(state, met)
    nd, dt, dp = job.mwc(0), job.mwc(1), view.after(view.cube)
    k = 2.0 / (view.after(view.cube) - view.after(-view.cube))  # d EMG / d MWC
    se = {
        "no_double": k * job.mwc_se(0),
        "double_take": k * job.mwc_se(1),
        "double_take_minus_no_double": k * job.mwc_paired_se(1, 0),
    }
    wp, wt = wrong_decision_percent(nd, dt, dp)
    row = next(r for r in snap.rows if r.move == "No double")
    cubeful = max(nd, min(dt, dp))
    e = view.emg
    tp, cp = cube_points(view, np.array(row.probabilities.as_tuple()), state.position)
    return CubeDecision(
        no_double=e(nd),
        double_take=e(dt),
        double_pass=e(dp),
        action=cube_action(nd, dt, dp, redouble=state.cube_owner == "player"),
        probabilities=row.probabilities,
        ply=job.settings.ply,
        equity=replace(row.equity, cubeful=e(cubeful)),
        evaluated_by=f"rollout {int(job.n.min())} trials (live cube)",
        take_point=tp,
        cash_point=cp,
        wrong_pass_percent=wp,
        wrong_take_percent=wt,
        standard_errors=se,
        model="live-cube rollout",
        mwc={"no_double": nd, "double_take": dt, "double_pass": dp, "cubeful": cubeful},
    )
