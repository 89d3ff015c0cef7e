"""The user commands (show, eval, moves, cube, rollout, serve and the app), their options and
what every command shares: the user-error type, parsing a position or dice, the analyzer of a
process and number formatting."""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace

from bgtui.analysis import options as R
from bgtui.analysis.models import DEFAULT_PRUNE, MAX_VR_FILTER, RolloutSettings
from bgtui.analysis.numbers import eq, mwc, mwc_diff, mwc_se, pct, percent, se
from bgtui.analysis.options import real, whole

EXAMPLE_POSITION = "4HPwATDgc/ABMA"  # the opening position


class UserError(Exception):
    """Bad input from the user: printed as one line, exit status 2."""


# -- helpers -----------------------------------------------------------------------------------
def _parse_state(text: str, args=None, an=None):
    """The position of ``text`` with the match context of the options (``--match``,
    ``--score``, ``--crawford``, ``--met``) applied and checked."""
    from bgtui.analysis.formats import parse_position, quote

    try:
        state = parse_position(text)
    except ValueError as exc:
        raise UserError(f"bad position {quote(text)}: {exc}") from None
    if args is None:
        return state
    from bgtui.analysis.match import with_match
    from bgtui.analysis.met import get_met

    try:
        met = get_met(getattr(args, "met", None))
        if an is not None:
            an.met_path = getattr(args, "met", None)
        return with_match(
            state,
            getattr(args, "match", None),
            getattr(args, "score", None),
            bool(getattr(args, "crawford", False)),
            met,
        )
    except ValueError as exc:
        raise UserError(str(exc)) from None


def _match_text(state) -> str:
    """ ", 7-point match, 4-2 (-3a -5a)" at a match score, else ""."""
    if state.is_money:
        return ""
    from bgtui.analysis.match import describe

    return ", " + describe(state)


def _sp(text: str) -> str:
    """``text`` after a space, or nothing when it is empty (a standard error not known yet)."""
    return " " + text if text else ""


def _parse_dice(text: str):
    from bgtui.analysis.notation import parse_dice

    try:
        return parse_dice(text)
    except ValueError as exc:
        raise UserError(str(exc)) from None


_ANALYZERS: dict = {}  # one per weights file and process (a server answers many queries)


def _analyzer(args):
    """The analyser of ``args.weights`` (one per process), its lookahead pruning ``--prune``."""
    from bgtui.analysis.weights import WeightsError

    key = getattr(args, "weights", None)
    an = _ANALYZERS.get(key)
    if an is None:
        an = _new_analyzer(key)
        _ANALYZERS[key] = an
    an.prune = getattr(args, "prune", DEFAULT_PRUNE)
    if an.prune and getattr(args, "ply", 0):
        from bgtui.analysis.weights import load_filter_net

        try:  # the pruned lookahead's filter net: a missing file is reported now
            load_filter_net()
        except WeightsError as exc:
            raise UserError(str(exc)) from None
    return an


def _new_analyzer(key):
    from bgtui.analysis.bearoff_cache import all_cached
    from bgtui.analysis.service import Analyzer
    from bgtui.analysis.weights import WeightsError

    an = Analyzer(weights=key)
    if not all_cached():
        print(
            "bgtui: building the bear-off databases (first run only, under a minute)",
            file=sys.stderr,
            flush=True,
        )
    try:
        _ = an.ev  # loads the nets now: a missing weights file is reported first
    except WeightsError as exc:
        raise UserError(str(exc)) from None
    return an


def _probs_line(p) -> str:
    return (
        f"W {pct(p.win, 5)}  WG {pct(p.win_gammon, 5)}  WBG {pct(p.win_backgammon, 5)}  "
        f"L {pct(p.lose, 5)}  LG {pct(p.lose_gammon, 5)}  LBG {pct(p.lose_backgammon, 5)}"
    )


# -- commands ----------------------------------------------------------------------------------
def cmd_show(args, query: list[str], an=None):
    from bgtui.analysis.board_ascii import board_ascii
    from bgtui.analysis.formats import format_match_id, format_position_id, format_xgid

    if len(query) != 1:
        raise UserError("show takes one POSITION")
    state = _parse_state(query[0], args)
    mine, theirs = state.pips
    data = {
        "position_id": format_position_id(state),
        "match_id": format_match_id(state),
        "xgid": format_xgid(state),
        "pips": {"player": int(mine), "opponent": int(theirs)},
    }
    if args.json:
        return data
    return board_ascii(state)


def cmd_eval(args, query: list[str], an):
    from bgtui.analysis.formats import format_position_id

    if len(query) != 1:
        raise UserError("eval takes one POSITION")
    state = _parse_state(query[0], args, an)
    e = an.evaluate(state, args.ply)
    data = {
        "position_id": format_position_id(state),
        "ply": e.ply,
        "probabilities": e.probabilities.to_dict(),
        "equity": e.equity.to_dict(),
    }
    if e.mwc is not None:
        from bgtui.analysis.match import match_dict

        data["match"] = match_dict(state)
        data["mwc"] = dict(e.mwc)
    if args.json:
        return data
    text = (
        f"{data['position_id']}  {e.evaluated_by}, player on roll{_match_text(state)}\n"
        f"{_probs_line(e.probabilities)}\n"
    )
    if e.mwc is None:
        return text + f"cubeless equity {eq(e.equity.cubeless)}"
    return text + (
        f"cubeless MWC {mwc(e.mwc['cubeless'], 6)}  EMG {eq(e.equity.cubeless)}\n"
        f"cubeful  MWC {mwc(e.mwc['cubeful'], 6)}  EMG {eq(e.equity.cubeful)}"
    )


def cmd_moves(args, query: list[str], an):
    from bgtui.analysis.formats import format_position_id
    from bgtui.analysis.notation import format_dice

    if len(query) not in (1, 2):
        raise UserError("moves takes POSITION DICE")
    state = _parse_state(query[0], args, an)
    if len(query) == 2:
        dice = _parse_dice(query[1])
    elif state.dice is not None:
        dice = state.dice
    else:
        raise UserError("no dice: give DICE (e.g. 31) after the position")
    rows = an.rank_plays(state, dice, args.ply)
    data = {
        "position_id": format_position_id(state),
        "dice": format_dice(dice),
        "ply": args.ply,
        "moves": [
            {
                "move": r.move,
                "position_id": r.position_id,
                "probabilities": r.probabilities.to_dict(),
                "equity": r.equity.to_dict(),
                "equity_diff": r.equity_diff,
                "evaluated_by": r.evaluated_by,
                **({"mwc": r.mwc, "mwc_diff": r.mwc_diff} if r.mwc is not None else {}),
            }
            for r in rows
        ],
    }
    if not state.is_money:
        from bgtui.analysis.match import match_dict

        data["match"] = match_dict(state)
    if args.json:
        return data
    lines = [
        f"{data['position_id']}  dice {data['dice']}  {len(rows)} legal plays{_match_text(state)}"
    ]
    if not state.is_money:
        lines[0] += "; ranked by cubeful MWC, EMG beside it"
    for i, r in enumerate(rows[: args.top] if args.top else rows, 1):
        if r.mwc is not None:
            lines.append(
                f"{i:3d}. {r.move or '(no legal play)':28s} MWC {mwc(r.mwc, 6)} "
                f"({mwc_diff(r.mwc_diff)})  EMG {eq(r.equity.cubeful)} "
                f"({eq(r.equity_diff)})  {r.evaluated_by:>6s}  "
                f"{_probs_line(r.probabilities)}"
            )
            continue
        lines.append(
            f"{i:3d}. {r.move or '(no legal play)':28s} {eq(r.equity.cubeless)} "
            f"({eq(r.equity_diff)})  {r.evaluated_by:>6s}  {_probs_line(r.probabilities)}"
        )
    return "\n".join(lines)


def cmd_cube(args, query: list[str], an):
    if len(query) != 1:
        raise UserError("cube takes one POSITION")
    state = _cube_state(args, _parse_state(query[0], args, an))
    stopped = None
    if args.rollout:
        c, stopped = _cube_by_rollout(args, query, state, an)
    else:
        c = an.cube(state, args.ply)
    data = _cube_data(c, state)
    result = data if args.json else _cube_text(data, c, state)
    if stopped:
        _stopped(args, result, "cube rollout", *stopped)
    return result


def _cube_state(args, state):
    """``state`` with the money rules the options turn off, after checking that the cube
    options go together."""
    # money play: Jacoby and beavers on by default (conventions.md), or as the XGID / Match ID
    # says; these options turn them off
    if args.no_jacoby:
        state = replace(state, jacoby=False)
    if args.no_beavers:
        state = replace(state, beavers=False)
    if args.zehr and not (args.rollout and args.live):
        raise UserError("--zehr splits live-cube rollouts: use it with --rollout --live")
    if args.rollout and not state.is_money and args.zehr:
        raise UserError(
            "the Zehr split is for money play: at a match score two games at the "
            "undoubled cube are not worth one at the doubled cube"
        )
    if not args.rollout and (args.save or args.resume or args.checkpoint_every is not None):
        raise UserError("--save, --resume and --checkpoint-every go with --rollout")
    return state


def _cube_by_rollout(args, query: list[str], state, an):
    """``(decision, stopped)``: the cube decision of a rollout; ``stopped`` is None, or what
    :func:`_stopped` reports when the rollout was stopped before its trials were done."""
    from bgtui.analysis.formats import format_position_id

    job = _cube_rollout_job(args, state, an)
    (snap, c), signum = _run_job(
        args,
        job,
        lambda cancel: an.iter_cube_rollout(state, job.settings, cancel, job=job),
        lambda item: item[1].action if item[1] else "",
    )
    stopped = None
    if snap.cancelled:
        again = [
            "bgtui",
            "cube",
            query[0],
            "--rollout",
            *(["--live"] if args.live else []),
            *(["--no-jacoby"] if args.no_jacoby else []),
            *(["--no-beavers"] if args.no_beavers else []),
        ]
        stopped = (snap, job.settings.trials, again, signum)
    if c is None:  # too few trials for a decision: each branch needs 2
        if stopped:
            _stopped(
                args,
                {
                    "position_id": format_position_id(state),
                    "action": None,
                    "trials": snap.trials_done,
                },
                "cube rollout",
                *stopped,
            )
        raise UserError(
            f"a cube decision needs at least 2 trials, the rollout ran {snap.trials_done}"
        )
    return c, stopped


def _cube_data(c, state) -> dict:
    """The cube decision's JSON (conventions.md)."""
    from bgtui.analysis.formats import format_position_id

    access = c.cube_access
    data = {
        "position_id": format_position_id(state),
        "ply": c.ply,
        "no_double": c.no_double,
        # no cube access (the opponent owns the cube): there is no double to price
        "double_take": c.double_take if access else None,
        "double_pass": c.double_pass if access else None,
        "action": c.action,
        "cube_access": access,
        "probabilities": c.probabilities.to_dict(),
        "equity": c.equity.to_dict(),
        "take_point": c.take_point,
        "cash_point": c.cash_point,
        "too_good_point": c.too_good_point,
        "wrong_pass_percent": c.wrong_pass_percent,
        "wrong_take_percent": c.wrong_take_percent,
        "dahl_cube_value": c.dahl_cube_value,
        "evaluated_by": c.evaluated_by,
        "model": c.model,
        "cube_efficiency": c.cube_efficiency,
    }
    if c.standard_errors:
        data["standard_errors"] = c.standard_errors
    if c.mwc is not None:
        from bgtui.analysis.match import match_dict

        data["match"] = match_dict(state)
        data["mwc"] = {
            k: (c.mwc[k] if access or k == "no_double" else None)
            for k in ("no_double", "double_take", "double_pass")
        }
        data["dahl_cube_value"] = None
    return data


def _cube_text(data, c, state) -> str:
    if c.mwc is not None:
        return _cube_match_text(data, c, state)
    access = c.cube_access
    head = [
        f"{data['position_id']}  cube action, {c.evaluated_by}",
        _probs_line(c.probabilities),
        f"cubeless equity {eq(c.equity.cubeless)}",
    ]
    if not access:
        lines = head + [
            f"  No double     {eq(c.no_double)}",
            f"Proper cube action: {c.action} (the opponent owns the cube: no cube access)",
            *_states_lines(c),
            _points_line(c),
            f"Dahl's estimate of the cube's value: 0.35 x (W + G/2) = {c.dahl_cube_value:.3f}",
        ]
        return "\n".join(lines)
    best = max(c.no_double, min(c.double_take, c.double_pass))
    lines = head + [
        f"  No double     {eq(c.no_double)}  ({eq(c.no_double - best)})",
        f"  Double, take  {eq(c.double_take)}  ({eq(c.double_take - best)})",
        f"  Double, pass  {eq(c.double_pass)}  ({eq(c.double_pass - best)})",
        f"Proper cube action: {c.action}",
        *_states_lines(c),
        _points_line(c),
        f"Dahl's estimate of the cube's value: 0.35 x (W + G/2) = {c.dahl_cube_value:.3f}",
    ]
    if c.wrong_pass_percent is not None:
        lines.append(
            f"Percentage of wrong passes needed to make the double right: "
            f"{c.wrong_pass_percent:.1f}%"
        )
    if c.wrong_take_percent is not None:
        lines.append(
            f"Percentage of wrong takes needed to make the double right: "
            f"{c.wrong_take_percent:.1f}%"
        )
    return "\n".join(lines)


def _states_lines(c) -> list[str]:
    """The cube states' values (1-cube, each after the player's best cube action), where the
    decision gives them."""
    e = c.equity
    if e.centred is None or e.owned is None or e.opponent_owned is None:
        return []
    return [
        f"Cube states (1-cube): centred {eq(e.centred)}  player owns {eq(e.owned)}  "
        f"opponent owns {eq(e.opponent_owned)}"
    ]


def _cube_match_text(data, c, state) -> str:
    """The cube decision at a match score: MWC with two decimals beside EMG."""
    lines = [
        f"{data['position_id']}  cube action, {c.evaluated_by}{_match_text(state)}",
        _probs_line(c.probabilities),
    ]
    if state.crawford:
        lines += [
            f"  No double     MWC {mwc(c.mwc['no_double'], 6)}  EMG {eq(c.no_double)}",
            "Proper cube action: No double (Crawford game: nobody may double)",
        ]
        return "\n".join(lines)
    if not c.cube_access:
        why = (
            "the opponent owns the cube: no cube access"
            if state.cube_owner == "opponent"
            else "dead cube: both sides need no more than it"
        )
        lines += [
            f"  No double     MWC {mwc(c.mwc['no_double'], 6)}  EMG {eq(c.no_double)}",
            f"Proper cube action: {c.action} ({why})",
        ]
        return "\n".join(lines)
    best = c.mwc["cubeful"]
    for name, key, emg in (
        ("No double", "no_double", c.no_double),
        ("Double, take", "double_take", c.double_take),
        ("Double, pass", "double_pass", c.double_pass),
    ):
        m = c.mwc[key]
        lines.append(f"  {name:13s} MWC {mwc(m, 6)} ({mwc_diff(m - best)})  EMG {eq(emg)}")
    lines.append(f"Proper cube action: {c.action}")
    lines.append(
        f"Take point {_point(c.take_point)}  cash point {_point(c.cash_point)}  (winning "
        "chances at this score and cube, match cube model)"
    )
    return "\n".join(lines)


def _point(v: float | None) -> str:
    """A take, cash or too-good point (winning chances) as a percentage; ``-`` when there is
    none."""
    return "-" if v is None else percent(v)


def _points_line(c) -> str:
    """Take, cash and too-good points (the player's winning chances, Janowski model)."""
    if not c.cube_access:
        return f"Take point {_point(c.take_point)}  (winning chances, Janowski model)"
    tg = "never" if c.too_good_point is None else _point(c.too_good_point)
    return (
        f"Take point {_point(c.take_point)}  cash point {_point(c.cash_point)}  "
        f"too good point {tg}  (winning chances, Janowski model)"
    )


def _rollout_settings(args):
    try:
        settings = RolloutSettings(
            trials=args.trials,
            seed=args.seed,
            truncate=args.truncate,
            ply=getattr(args, "rollout_ply", getattr(args, "ply", 0)),
            late_ply=args.late_ply,
            late_after=args.late_after,
            variance_reduction=not args.no_vr,
            vr_filter=args.vr_filter,
            quasi_random=not args.no_quasi,
            stratify_all=args.stratify_all,
            bearoff_truncation=not args.no_bearoff,
            one_sided_truncation=args.one_sided,
            initial_position=args.initial_position,
            cubeful=args.cubeful,
            settlement_limit=args.settlement,
            gammon_play_on=args.play_on,
            stop_se=args.stop_se,
            time_limit=args.time_limit,
            prune_sigma=args.prune_sigma,
            workers=args.workers,
            zehr_split=getattr(args, "zehr", False),
        )
        from bgtui.analysis.rollout import validate_settings

        validate_settings(settings)
        # the filter net is needed (variance reduction's filter, the pruned lookahead of
        # checker play at 1-ply and deeper): say now if it cannot be loaded
        if settings.vr_filter or settings.ply or settings.late_ply:
            from bgtui.analysis.weights import load_filter_net

            load_filter_net()
        return settings
    except (TypeError, ValueError) as exc:  # WeightsError is a ValueError
        raise UserError(str(exc)) from None


def _use_scheduler(args, an) -> None:
    """``--scheduler``: the analyzer's rollouts run on that Dask cluster (connected when the
    rollout starts); without it, this machine's threads (an analyzer answers many queries)."""
    an.scheduler = getattr(args, "scheduler", None)


def _progress_printer(args):
    """A rich progress bar on stderr when it is a terminal (and not in --batch mode)."""
    if getattr(args, "batch", None) or not sys.stderr.isatty():
        return None
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

    prog = Progress(
        TextColumn("rollout"),
        BarColumn(),
        TextColumn("{task.completed}/{task.total}"),
        TextColumn("{task.fields[info]}"),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        transient=True,
    )
    return prog


class Interrupted(Exception):
    """A rollout stopped by SIGINT / SIGTERM: its partial ``result`` is printed, then
    ``message`` on standard error, and the command exits with ``code`` (128 + the signal)."""

    def __init__(self, result, message: str, code: int) -> None:
        super().__init__(message)
        self.result, self.message, self.code = result, message, code


class _StopOnSignal:
    """While active (in the main thread), SIGINT and SIGTERM set ``cancel`` instead of raising
    in the middle of the rollout's bookkeeping; a second signal interrupts at once."""

    def __init__(self, cancel) -> None:
        self.cancel = cancel
        self.signum = None  # the signal that stopped the rollout
        self._old: dict = {}

    def _handler(self, signum, frame):
        if self.signum is not None:
            raise KeyboardInterrupt
        self.signum = signum
        self.cancel.cancel()

    def __enter__(self):
        import signal
        import threading

        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGINT, signal.SIGTERM):
                self._old[sig] = signal.signal(sig, self._handler)
        return self

    def __exit__(self, *exc):
        import signal

        for sig, h in self._old.items():
            signal.signal(sig, h)
        return False


def _resume_job(args, state, settings, dice_text):
    """The saved job of ``--resume``, checked against the POSITION (and dice) and the options
    given: an option left at its default takes the saved value, one that differs from the
    saved value is refused."""
    from bgtui.analysis.formats import format_position_id
    from bgtui.analysis.rollout import RESULT_SETTINGS, RolloutJob

    try:
        job = RolloutJob.load(args.resume)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    if dice_text:
        state = replace(state, dice=_parse_dice(dice_text))
    default = RolloutSettings()
    given = {
        k: getattr(settings, k)
        for k in RESULT_SETTINGS
        if getattr(settings, k) != getattr(default, k)
    }
    why = job.mismatch(state, replace(job.settings, **given))
    if why is not None:
        raise UserError(
            f"cannot resume {args.resume} as a rollout of {format_position_id(state)}: {why}"
        )
    keep = {
        "trials": settings.trials if settings.trials != default.trials else job.settings.trials,
        "workers": settings.workers,
    }
    for k in ("stop_se", "time_limit"):
        if getattr(settings, k) is not None:
            keep[k] = getattr(settings, k)
    job.settings = replace(job.settings, **keep)
    return job, state


def _check_save_options(args, state) -> None:
    """The --save / --resume / --checkpoint-every options of a rollout, checked before any
    trial: --save's file can be written, --checkpoint-every has a --save."""
    from bgtui.analysis.rollout import check_writable

    if getattr(args, "batch", None) and (args.save or args.resume):
        raise UserError("--save / --resume save one rollout: not with --batch")
    if args.checkpoint_every is not None and not args.save:
        raise UserError("--checkpoint-every sets how often --save FILE is written: give --save")
    if args.save:
        try:
            check_writable(args.save)
        except ValueError as exc:
            raise UserError(str(exc)) from None


def _cube_rollout_job(args, state, an):
    """The job of ``cube --rollout``: a new one, or with --resume the saved one, refused
    unless it is the cube rollout of this position, cube and options."""
    import numpy as np

    from bgtui.analysis.formats import format_position_id

    settings = _rollout_settings(args)
    settings = replace(settings, live_cube=args.live, cubeful=not args.live)
    _check_save_options(args, state)
    _use_scheduler(args, an)
    try:
        if not args.resume:
            return an.make_cube_rollout_job(state, settings)
        if not state.is_money:  # the match job's settings (the cube live in both branches)
            settings = an.make_cube_rollout_job(state, settings).settings
        job, _ = _resume_job(args, state, settings, None)
        if not state.is_money:
            from bgtui.analysis import match

            why = match.resume_mismatch(job, state, an.met)
            if why is not None:
                raise UserError(f"cannot resume {args.resume}: {why}")
        fresh = an.make_cube_rollout_job(state, job.settings)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    why = job.mismatch(state, fresh.settings)
    if why is None and (job.labels != fresh.labels or not np.array_equal(job.cubes, fresh.cubes)):
        why = "it is not a cube rollout of this position with this cube"
    if why is not None:
        raise UserError(
            f"cannot resume {args.resume} as the cube rollout of {format_position_id(state)}: {why}"
        )
    if fresh.mwc_coef is not None:  # at a match score: trials scored in MWC, as a new job's
        job.set_match(fresh.mwc_coef, *fresh.mwc_scale, live=fresh.live_match, match=fresh.match)
    return job


def _run_job(args, job, start, describe):
    """Run a rollout ``job`` to its end or to the first SIGINT / SIGTERM (then its last
    snapshot is cancelled): ``start(cancel)`` iterates over its snapshots (each item a
    snapshot or a (snapshot, ...) tuple). With --save the job is saved before the first trial
    (a kill from then on leaves a file to resume), every --checkpoint-every seconds, when
    stopped and at the end. On a terminal a progress bar shows ``describe(item)``. Returns
    (the last item, the number of the signal that stopped it or None)."""
    import contextlib

    from bgtui.analysis.cancel import CancelToken
    from bgtui.analysis.rollout import CHECKPOINT_EVERY, Checkpointer

    cancel = CancelToken()
    ckpt = None
    if args.save:
        ckpt = Checkpointer(job, args.save, args.checkpoint_every or CHECKPOINT_EVERY)
        try:
            ckpt.save()
        except OSError as exc:
            raise UserError(f"cannot save to {args.save}: {exc.strerror}") from None
    prog = _progress_printer(args)
    item = None
    try:
        with _StopOnSignal(cancel) as stopper, prog or contextlib.nullcontext():
            task = prog.add_task("rollout", total=job.settings.trials, info="") if prog else None
            for item in start(cancel):
                if ckpt is not None:
                    ckpt()
                if prog is not None:
                    snap = item[0] if isinstance(item, tuple) else item
                    prog.update(task, completed=snap.trials_done, info=describe(item))
            if ckpt is not None:
                ckpt.save()
    except (ValueError, ConnectionError) as exc:  # ConnectionError: cluster.ClusterError
        raise UserError(str(exc)) from None
    return item, stopper.signum


def _stopped(args, result, what, snap, target, again, signum):
    """Raise :class:`Interrupted` for a rollout stopped by a signal: ``result`` its partial
    figures, the message says how to continue it (``again``: the command, without the
    --resume and --save this adds)."""
    import shlex

    if args.save:
        how = f"saved to {args.save}; continue with: {shlex.join(again + ['--resume', args.save])}"
    else:
        how = "not saved (with --save FILE a stopped rollout can be resumed)"
    raise Interrupted(
        result,
        f"{what} stopped after {snap.trials_done} of {target} trials; {how}",
        128 + (signum or 2),
    )


def cmd_rollout(args, query: list[str], an):
    from bgtui.analysis.notation import format_dice

    if len(query) not in (1, 2):
        raise UserError("rollout takes POSITION [DICE]")
    state = _parse_state(query[0], args, an)
    job, state, candidates = _rollout_job(args, query, state, an)
    _use_scheduler(args, an)
    target = job.settings.trials

    def describe(snap):
        best = snap.rows[0]
        return (
            f"{best.move or 'equity'} {eq(best.equity.cubeless)}"
            f"{_sp(se(best.equity_se.cubeless))}  {snap.games_per_second:.0f} games/s"
        )

    snap, signum = _run_job(
        args, job, lambda cancel: job.run(an.ev, cancel, executor=an.rollout_executor()), describe
    )
    data = _rollout_data(snap, state, candidates)
    result = data if args.json else _rollout_text(data, snap, candidates, state)
    if snap.cancelled:
        again = ["bgtui", "rollout", query[0]]
        if candidates:
            again += ["--dice", format_dice(state.dice)]
        _stopped(args, result, "rollout", snap, target, again, signum)
    return result


def _rollout_job(args, query: list[str], state, an):
    """``(job, state, candidates)``: the rollout the command asks for, a new one or one
    resumed from ``--resume``; ``candidates`` is true for candidate plays of a roll."""
    dice_text = query[1] if len(query) == 2 else args.dice
    settings = _rollout_settings(args)
    _check_save_options(args, state)
    if args.resume:
        job, state = _resume_job(args, state, settings, dice_text)
        from bgtui.analysis import match

        why = match.resume_mismatch(job, state, an.met)
        if why is not None:
            raise UserError(f"cannot resume {args.resume}: {why}")
        if not state.is_money:
            try:
                match.score_rollout(job, state, an.met)
            except ValueError as exc:
                raise UserError(str(exc)) from None
        candidates = job.mover_view
        if candidates and state.dice is None:
            raise UserError("the saved rollout is of candidate plays: give their --dice")
        return job, state, candidates
    candidates = bool(dice_text or args.moves or args.top)
    if candidates:
        if dice_text:
            state = replace(state, dice=_parse_dice(dice_text))
        elif state.dice is None:
            raise UserError("rolling out candidate plays needs --dice (e.g. --dice 31)")
        moves = args.moves or None
        top = None if moves else (args.top or 4)
    else:
        moves = top = None
    try:
        job = an.make_rollout_job(state, settings, moves=moves, top=top)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    return job, state, candidates


def _probs_dict(p):
    return p.to_dict() if p is not None else None


def _rollout_row_dict(r) -> dict:
    """One candidate play's rollout figures (conventions.md's JSON)."""
    row = {
        "move": r.move,
        "position_id": r.position_id,
        "probabilities": _probs_dict(r.probabilities),
        "probabilities_se": _probs_dict(r.probabilities_se),
        "equity": r.equity.to_dict(),
        "equity_se": r.equity_se.to_dict(),
        "equity_diff": r.equity_diff,
        "equity_diff_se": r.equity_diff_se,
        "trials": r.trials,
        "pruned": r.pruned,
    }
    if r.mwc is not None:
        row.update(mwc=r.mwc, mwc_se=r.mwc_se, mwc_diff=r.mwc_diff, mwc_diff_se=r.mwc_diff_se)
    return row


def _rollout_data(snap, state, candidates: bool) -> dict:
    """The rollout's JSON (conventions.md): settings, trials, and the position's or each
    candidate play's figures."""
    from dataclasses import asdict

    from bgtui.analysis.formats import format_position_id
    from bgtui.analysis.notation import format_dice

    data = {
        "position_id": format_position_id(state),
        "settings": asdict(snap.settings),
        "trials": snap.trials_done,
        "games_per_second": round(snap.games_per_second, 1),
    }
    if snap.variance_reduction_factor:
        data["variance_reduction_factor"] = snap.variance_reduction_factor
    if candidates:
        data["dice"] = format_dice(state.dice)
        data["moves"] = [_rollout_row_dict(r) for r in snap.rows]
    else:
        r = snap.rows[0]
        data.update(
            probabilities=_probs_dict(r.probabilities),
            probabilities_se=_probs_dict(r.probabilities_se),
            equity=r.equity.to_dict(),
            equity_se=r.equity_se.to_dict(),
        )
        if r.mwc is not None:
            data.update(mwc=r.mwc, mwc_se=r.mwc_se)
    if not state.is_money:
        from bgtui.analysis.match import match_dict

        data["match"] = match_dict(state)
    return data


def _rollout_text(data, snap, candidates, state) -> str:
    lines = [
        f"{data['position_id']}{_match_text(state)}  rollout: {snap.trials_done} trials, "
        f"{snap.games_per_second:.0f} games/s"
        + (
            f", variance reduction x{snap.variance_reduction_factor:.1f}"
            + (
                f" (filter: best {snap.settings.vr_filter} plays a roll)"
                if snap.settings.vr_filter
                else ""
            )
            if snap.variance_reduction_factor
            else ""
        )
    ]
    for i, r in enumerate(snap.rows, 1):
        e = r.equity
        cube = ""
        if e.centred is not None:
            es = r.equity_se
            cube = (
                f"  centred {eq(e.centred)}{_sp(se(es.centred))} owned {eq(e.owned)}"
                f"{_sp(se(es.owned))} opp-owned {eq(e.opponent_owned)}"
                f"{_sp(se(es.opponent_owned))}"
            )
        head = f"{i:3d}. {r.move:28s} " if candidates else ""
        if r.mwc is not None:
            diff = (
                f" ({mwc_diff(r.mwc_diff)}{_sp(mwc_se(r.mwc_diff_se))})"
                if candidates and i > 1
                else ""
            )
            live = e.cubeful is not None  # the cube live in the trials: cubeful figures
            emg, emg_se = (
                (e.cubeful, r.equity_se.cubeful) if live else (e.cubeless, r.equity_se.cubeless)
            )
            lines.append(
                f"{head}MWC {mwc(r.mwc, 6)}{_sp(mwc_se(r.mwc_se))}{diff}  EMG "
                f"{eq(emg)}{_sp(se(emg_se))}"
                + (" (cubeful, live cube)" if live else "")
                + f"\n     {_probs_line(r.probabilities)}"
            )
            continue
        diff = f" ({eq(r.equity_diff)}{_sp(se(r.equity_diff_se))})" if candidates and i > 1 else ""
        lines.append(
            f"{head}{eq(e.cubeless)}{_sp(se(r.equity_se.cubeless))}{diff}{cube}\n"
            f"     {_probs_line(r.probabilities)}"
        )
    return "\n".join(lines)


def cmd_app(args, query, an=None):
    position = getattr(args, "position", None) or EXAMPLE_POSITION
    state = _parse_state(position)
    from bgtui.analysis.service import Analyzer
    from bgtui.ui.app import run_app

    if getattr(args, "fake", False):
        from bgtui.analysis.fake import FakeAnalyzer

        analyzer = FakeAnalyzer()
    else:
        analyzer = Analyzer(weights=args.weights)
    return run_app(analyzer, state, args.theme)


# -- argument parsing -----------------------------------------------------------------------
class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one clear line and exit status 2, never a traceback
        message = " ".join(str(message).split())  # one line, whatever the argument held
        if len(message) > 300:
            message = message[:300] + "..."
        self.exit(2, f"{self.prog}: error: {message}\n")


def _add_common(p, *, batch=True, ply=True):
    p.add_argument("--json", action="store_true", help="print JSON (conventions.md contract)")
    if batch:
        p.add_argument(
            "--batch",
            metavar="FILE",
            help="read one query per line from FILE ('-' = stdin); one JSON line each",
        )
    if ply:
        p.add_argument(
            "--ply",
            type=whole(0, 3),
            default=0,
            metavar="N",
            help="lookahead, 0-3, as GNU Backgammon counts (default 0)",
        )
        p.add_argument(
            "--prune",
            type=whole(0, MAX_VR_FILTER),
            default=DEFAULT_PRUNE,
            metavar="K",
            help="inside the lookahead, each roll's play is the best of the K plays a filter "
            f"net ranks highest, 0-{MAX_VR_FILTER} (default {DEFAULT_PRUNE}; 0: of every play)",
        )
    p.add_argument("--weights", default=None, help="weights file (default: the shipped one)")
    g = p.add_argument_group("match play (default: the position's own context; money if none)")
    g.add_argument(
        "--match",
        type=whole(0, 32767),
        default=None,
        metavar="N",
        help="match length in points (0: money)",
    )
    g.add_argument(
        "--score",
        default=None,
        metavar="A-B",
        help="score: points of the player on roll, then of the opponent (e.g. 4-2)",
    )
    g.add_argument("--crawford", action="store_true", help="this game is the Crawford game")
    g.add_argument(
        "--met",
        default=None,
        metavar="FILE",
        help="match equity table in GNU Backgammon's XML format (default: Kazaross-XG2)",
    )


def _add_rollout_options(p, checker_ply=True):
    """Rollout settings shared by `rollout` and `cube --rollout` (where --ply is shared), in
    the order of the help text."""
    _add_trial_options(p, checker_ply)
    _add_variance_options(p)
    _add_settlement_options(p)
    _add_stopping_options(p)
    _add_run_options(p)


def _add_trial_options(p, checker_ply: bool) -> None:
    """How many trials, their dice seed, where they stop and the checker play's ply."""
    p.add_argument(
        "--trials",
        type=whole(1, R.MAX_TRIALS),
        default=1296,
        help="number of trials (default 1296)",
    )
    p.add_argument(
        "--seed", type=whole(0, R.MAX_SEED), default=1, help="rollout seed (same seed, same dice)"
    )
    p.add_argument(
        "--truncate",
        type=whole(0, R.MAX_ROLLS),
        default=0,
        help="stop each trial after H rolls (0 = play to the end)",
    )
    if checker_ply:
        p.add_argument(
            "--ply",
            dest="rollout_ply",
            type=whole(0, 2),
            default=0,
            metavar="P",
            help="checker-play ply inside the rollout, 0-2",
        )
    p.add_argument(
        "--late-ply",
        type=whole(0, 2),
        default=None,
        metavar="P",
        help="cheaper checker-play ply after --late-after rolls",
    )
    p.add_argument("--late-after", type=whole(0, R.MAX_ROLLS), default=None, metavar="N")


def _add_variance_options(p) -> None:
    """Variance reduction, the dice scheme and the bear-off databases' truncation."""
    p.add_argument("--no-vr", action="store_true", help="no variance reduction")
    p.add_argument(
        "--vr-filter",
        type=whole(0, MAX_VR_FILTER),
        default=RolloutSettings.vr_filter,
        metavar="K",
        help="variance reduction values only the K plays of each roll that the "
        "filter net ranks highest, at the checker-play ply (default 2: about "
        "1.9x as fast as 0, every play, at 0-ply and 3x at 1-ply, still "
        "unbiased, a little less reduction)",
    )
    p.add_argument(
        "--no-quasi", action="store_true", help="pseudo-random dice instead of quasi-random"
    )
    p.add_argument(
        "--stratify-all", action="store_true", help="stratify every roll, not only the first three"
    )
    p.add_argument("--no-bearoff", action="store_true", help="no bearoff-database truncation")
    p.add_argument(
        "--one-sided",
        action="store_true",
        help="also truncate with the one-sided bear-off approximation (home-board bear-offs, "
        "and races where each side has at most one checker outside its home board "
        "or at most 6 checkers left)",
    )
    p.add_argument(
        "--initial-position", action="store_true", help="first roll of each trial is not a double"
    )


def _add_settlement_options(p) -> None:
    """Full cubeful games with a settlement limit (the four cube states)."""
    p.add_argument(
        "--cubeful",
        action="store_true",
        help="full games with a settlement limit; equities for the four cube states",
    )
    p.add_argument(
        "--settlement",
        type=real(-3, 3),
        default=0.5,
        help="settlement limit, cubeless equity (default 0.5)",
    )
    p.add_argument(
        "--play-on",
        type=real(-3, 3),
        default=0.9,
        help="play on for the gammon above this equity (default 0.9)",
    )


def _add_stopping_options(p) -> None:
    """When the rollout stops before its trials are done."""
    p.add_argument(
        "--stop-se",
        type=real(0, 3, positive=True),
        default=None,
        help="stop when the equity's standard error is below this",
    )
    p.add_argument(
        "--time-limit",
        type=real(0, R.MAX_SECONDS, positive=True),
        default=None,
        help="stop after this many seconds",
    )
    p.add_argument(
        "--prune-sigma",
        type=real(0, 1000, positive=True),
        default=None,
        help="stop candidates worse than the best by this many paired standard errors",
    )


def _add_run_options(p) -> None:
    """Where the trials run (local workers or a Dask cluster) and saving and resuming."""
    p.add_argument(
        "--workers",
        type=whole(0, R.MAX_WORKERS),
        default=0,
        help="parallel workers (default: all cores)",
    )
    p.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        default=None,
        help="run the trials on the Dask cluster of this scheduler (host:8786; "
        "pip install 'bgtui[cluster]'); same numbers as a local run",
    )
    p.add_argument(
        "--save",
        metavar="FILE",
        help="save the rollout to FILE (JSON) as it runs, every --checkpoint-every "
        "seconds, when stopped (ctrl+c, SIGTERM) and at the end; resume it "
        "with --resume FILE",
    )
    p.add_argument(
        "--resume",
        metavar="FILE",
        help="continue a saved rollout of this POSITION (--trials to extend it; its "
        "saved settings are used, options that differ from them are refused)",
    )
    p.add_argument(
        "--checkpoint-every",
        type=real(0, R.MAX_SECONDS, positive=True),
        default=None,
        metavar="SECONDS",
        help="with --save: seconds between checkpoints (default 5)",
    )


def add_parsers(add) -> None:
    """The user commands' subparsers, in the order of the help text; ``add(name, help,
    example)`` makes one."""
    for add_command in (
        _add_app,
        _add_show,
        _add_eval,
        _add_moves,
        _add_cube,
        _add_rollout,
        _add_serve,
    ):
        add_command(add)


def _add_app(add) -> None:
    """the app: a position to open, a theme, weights."""
    p = add("app", "start the app (default command)", "bgtui app 4HPwATDgc/ABMA")
    p.add_argument("position", nargs="?", default=None, help="position to open (default: opening)")
    p.add_argument("--theme", default=None)
    p.add_argument("--weights", default=None)
    p.add_argument("--fake", action="store_true", help=argparse.SUPPRESS)
    p.set_defaults(func=cmd_app)


def _add_show(add) -> None:
    """`show`: a position drawn with its IDs (no engine)."""
    p = add(
        "show",
        "show a position: board, pip counts, Position ID, Match ID, XGID",
        "bgtui show 4HPwATDgc/ABMA",
    )
    p.add_argument("position", nargs="?", help="Position ID, POSID:MATCHID or XGID")
    _add_common(p, ply=False)
    p.set_defaults(func=cmd_show, needs_engine=False)


def _add_eval(add) -> None:
    """`eval`: the five probabilities and equities of a position."""
    p = add(
        "eval",
        "evaluate a position for the player on roll (before rolling)",
        "bgtui eval 4HPwATDgc/ABMA --ply 2 --json",
    )
    p.add_argument("position", nargs="?", help="Position ID, POSID:MATCHID or XGID")
    _add_common(p)
    p.set_defaults(func=cmd_eval, needs_engine=True)


def _add_moves(add) -> None:
    """`moves`: the ranked plays of a roll."""
    p = add(
        "moves",
        "every legal play of a roll, ranked best first",
        "bgtui moves 4HPwATDgc/ABMA 31 --ply 1",
    )
    p.add_argument("position", nargs="?", help="Position ID, POSID:MATCHID or XGID")
    p.add_argument("dice", nargs="?", help="two digits, higher first: 31, 66")
    p.add_argument(
        "--top", type=whole(0, 1000), default=0, help="show only the best N plays (text output)"
    )
    _add_common(p)
    p.set_defaults(func=cmd_moves, needs_engine=True)


def _add_cube(add) -> None:
    """`cube`: the cube action, by evaluation or by rollout (four cube states or live cube)."""
    p = add(
        "cube",
        "cube action for the player on roll (money play, or at the match score "
        "of the position or of --match/--score)",
        "bgtui cube 4HPwATDgc/ABMA --ply 2",
    )
    p.add_argument(
        "position", nargs="?", help="Position ID, POSID:MATCHID or XGID (Match ID carries the cube)"
    )
    p.add_argument(
        "--rollout",
        action="store_true",
        help="decide from a rollout: full games with a settlement limit (Dahl's four "
        "cube states), or with --live the cube live inside the trials",
    )
    p.add_argument(
        "--live",
        action="store_true",
        help="with --rollout: roll out no double and double/take on identical dice, "
        "both players using the cube inside the trials",
    )
    p.add_argument(
        "--zehr",
        action="store_true",
        help="with --rollout --live: Zehr split: after a take, play two games "
        "at the undoubled cube instead of one at the doubled cube (at most "
        "8 games a trial); same expectation, smaller standard error",
    )
    p.add_argument(
        "--no-jacoby",
        action="store_true",
        help="money play without the Jacoby rule: gammons count with the cube centred",
    )
    p.add_argument(
        "--no-beavers",
        action="store_true",
        help="money play without beavers: a doubled player cannot redouble at once "
        "keeping the cube",
    )
    _add_rollout_options(p, checker_ply=False)
    _add_common(p)
    p.set_defaults(func=cmd_cube, needs_engine=True)


def _add_rollout(add) -> None:
    """`rollout`: a position or candidate plays rolled out."""
    p = add(
        "rollout",
        "roll out a position (player on roll about to roll) or candidate plays",
        "bgtui rollout 4HPwATDgc/ABMA --dice 31 --top 3 --trials 1296 --truncate 7",
    )
    p.add_argument("position", nargs="?", help="Position ID, POSID:MATCHID or XGID")
    p.add_argument("--dice", help="roll out the candidate plays of these dice (e.g. 31)")
    p.add_argument(
        "--moves", nargs="+", metavar="MOVE", help='candidate plays, e.g. "8/5 6/5" "24/23 13/10"'
    )
    p.add_argument(
        "--top",
        type=whole(0, 1000),
        default=0,
        help="roll out the best K plays at 0-ply (default 4 with --dice)",
    )
    _add_rollout_options(p)
    _add_common(p, ply=False)
    p.set_defaults(func=cmd_rollout, needs_engine=True)


def _add_serve(add) -> None:
    """`serve`: the resident engine that answers queries at once."""
    p = add(
        "serve",
        "keep the engine loaded and answer eval, moves and cube queries at once",
        "bgtui serve &   # then: bgtui cube 4HPwATDgc/ABMA --ply 2",
    )
    p.add_argument(
        "--socket",
        default=None,
        help="Unix socket path (default $BGTUI_SOCKET or a private runtime dir; "
        "clients look at $BGTUI_SOCKET, then the default)",
    )
    p.add_argument(
        "--idle-exit",
        type=real(0, R.MAX_SECONDS, positive=True),
        default=None,
        metavar="SECONDS",
        help="stop after SECONDS without a query (default: run until stopped; the "
        "server a query starts by itself uses $BGTUI_SERVER_IDLE, 600)",
    )
    p.set_defaults(func=cmd_serve, needs_engine=False)


def cmd_serve(args, query, an=None) -> int:
    from bgtui.analysis.server import default_socket, serve
    from bgtui.cli import _main_here

    path = args.socket or default_socket()  # serve() stops cleanly on SIGTERM and SIGINT

    def prepare():
        print("bgtui serve: loading the engine ...", file=sys.stderr, flush=True)
        _analyzer(args).warm_up()

    try:
        return serve(
            _main_here,
            path,
            prepare=prepare,
            idle_exit=args.idle_exit,
            ready=lambda p: print(
                f"bgtui serve: answering eval, moves and cube queries at {p} (ctrl+c stops)",
                file=sys.stderr,
                flush=True,
            ),
        )
    except OSError as exc:
        raise UserError(f"cannot serve at {path}: {exc}") from None
