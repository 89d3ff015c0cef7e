"""Immutable results that the services hand to the TUI and the command line.

Every figure follows the project's conventions: probabilities are from the point of view of the
player on roll before the dice are rolled (a play's figures: the mover's view after making it);
the five probabilities are cumulative (win >= win gammon >= win backgammon); equities are on a
1-cube.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

PROBABILITY_NAMES = ("win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon")
#: the largest ``RolloutSettings.vr_filter``: the engine keeps room for this many plays a roll
#: (``engine.filter_net.MAX_FILTER_K``, which a test holds equal; the UI does not import the engine)
MAX_VR_FILTER = 8
#: inside 1- to 3-ply lookahead (``eval``, ``moves``, ``cube`` and the app), each roll's play
#: is the 0-ply best of this many plays, those the filter net ranks highest (the engine's
#: ``make_lookahead_workspace(prune=...)``; at most ``MAX_VR_FILTER``); 0: of every play
DEFAULT_PRUNE = 8


@dataclass(frozen=True)
class Probabilities:
    win: float
    win_gammon: float
    win_backgammon: float
    lose_gammon: float
    lose_backgammon: float

    @classmethod
    def from_array(cls, a) -> Probabilities:
        return cls(*(float(x) for x in a[:5]))

    def as_tuple(self) -> tuple[float, float, float, float, float]:
        return (
            self.win,
            self.win_gammon,
            self.win_backgammon,
            self.lose_gammon,
            self.lose_backgammon,
        )

    @property
    def lose(self) -> float:
        return 1.0 - self.win

    @property
    def cubeless_equity(self) -> float:
        return (
            2.0 * self.win
            - 1.0
            + self.win_gammon
            - self.lose_gammon
            + self.win_backgammon
            - self.lose_backgammon
        )

    def flipped(self) -> Probabilities:
        """The same outcome seen from the other side."""
        return Probabilities(
            1.0 - self.win,
            self.lose_gammon,
            self.lose_backgammon,
            self.win_gammon,
            self.win_backgammon,
        )

    def to_dict(self) -> dict:
        """For output: each value clamped to [0, 1]. Rollout means with variance reduction
        can stray a rounding error outside (a win gammon of -9e-11 where none is possible)."""
        return {k: min(1.0, max(0.0, v)) for k, v in asdict(self).items()}


@dataclass(frozen=True)
class Equities:
    """Equities on a 1-cube. ``cubeless`` is always present; the others where computed.

    ``centred``, ``owned`` (player on roll owns the cube) and ``opponent_owned`` are the cube
    states of Dahl's cube-state model; ``cubeful`` is the equity in the actual cube state.
    """

    cubeless: float
    cubeful: float | None = None
    centred: float | None = None
    owned: float | None = None
    opponent_owned: float | None = None

    def to_dict(self) -> dict:
        return {k: v for k, v in asdict(self).items() if v is not None}


@dataclass(frozen=True)
class Evaluation:
    """A position's value for the player on roll, before rolling."""

    position_id: str
    ply: int
    probabilities: Probabilities
    equity: Equities
    evaluated_by: str = ""  # e.g. "2-ply", "bearoff database", "rollout 1296"
    #: at a match score: {"cubeless", "cubeful"} match winning chances (``equity`` is EMG)
    mwc: dict | None = None


@dataclass(frozen=True)
class PlayRow:
    """One candidate play: figures from the mover's view after the play."""

    move: str  # GNU Backgammon notation, "" when there is no legal play
    position_id: str  # resulting position, opponent on roll
    probabilities: Probabilities
    equity: Equities
    equity_diff: float = 0.0  # this play's equity minus the best play's (<= 0)
    evaluated_by: str = ""  # "0-ply", "2-ply", "rollout 1296 trials", ...
    probabilities_se: Probabilities | None = None
    equity_se: Equities | None = None
    equity_diff_se: float | None = None  # paired standard error of the difference
    trials: int = 0
    pruned: bool = False  # rollout stopped early: clearly worse than the best
    #: at a match score: the play's MWC (cubeful when evaluated cubeful) and its difference
    #: from the best play's (``equity`` then holds EMG)
    mwc: float | None = None
    mwc_diff: float | None = None
    mwc_se: float | None = None  # rollouts at a match score
    mwc_diff_se: float | None = None


@dataclass(frozen=True)
class CubeDecision:
    """Cube action for the player on roll, cubeful equities on a 1-cube (money) or EMG (at a
    match score, with ``mwc``)."""

    no_double: float
    double_take: float
    double_pass: float
    action: str  # "No double", "Double, take", "Too good to double, pass", "No redouble", ...
    probabilities: Probabilities
    equity: Equities
    ply: int = 0
    evaluated_by: str = ""
    dahl_cube_value: float | None = None  # Dahl's rule of thumb: 0.35 * (P(W) + P(G)/2)
    take_point: float | None = None
    cash_point: float | None = None
    too_good_point: float | None = None  # None: never too good (no gammons, Jacoby, ...)
    wrong_pass_percent: float | None = None  # gnubg's "percentage of wrong passes needed"
    wrong_take_percent: float | None = None
    standard_errors: dict | None = None  # for rollout-based decisions
    cube_access: bool = True  # False: the opponent owns the cube, the player cannot double
    #: at a match score: {"no_double", "double_take", "double_pass"} MWC (the equities above
    #: are then EMG at the current cube)
    mwc: dict | None = None
    #: what produced the equities: "janowski" (0-ply model), "cubeful lookahead" (n-ply tree,
    #: Janowski at the leaves), "bear-off database" (exact), "live-cube rollout",
    #: "settlement rollout"; "" where not said
    model: str = ""
    #: Janowski's cube efficiency x of the position (0-ply model; the lookahead's leaves use
    #: their own)
    cube_efficiency: float | None = None


@dataclass(frozen=True)
class RolloutSettings:
    """Everything a rollout can be told. Defaults: a standard full rollout."""

    trials: int = 1296
    seed: int = 1
    truncate: int = 0  # 0 = play to the end; else number of rolls (plies)
    ply: int = 0  # checker-play ply inside the rollout (0..2)
    late_ply: int | None = None  # cheaper ply after move `late_after`
    late_after: int | None = None
    variance_reduction: bool = True
    # variance reduction values only the best `vr_filter` plays of each roll by the filter
    # net, at the checker-play ply (0 = every play of every roll). Default 2: still unbiased
    # (the luck of the roll played and the average over the 36 rolls use the same rule), with
    # most of the exact reduction at a fraction of its cost (benchmarks/rollout.py measures
    # both)
    vr_filter: int = 2
    quasi_random: bool = True
    stratify_all: bool = False  # stratify every roll, not only the first three
    bearoff_truncation: bool = True
    one_sided_truncation: bool = False
    initial_position: bool = False  # first roll of each trial is not a double
    cubeful: bool = False  # full-game with settlement limit and four cube-state equities
    settlement_limit: float = 0.5
    gammon_play_on: float = 0.9
    live_cube: bool = False  # cube decisions made inside the trials (Janowski, 0-ply)
    jacoby: bool = True
    zehr_split: bool = False
    stop_se: float | None = None  # stop when the equity's standard error is below this
    time_limit: float | None = None  # seconds
    prune_sigma: float | None = None  # stop candidates worse than best by this many SE
    workers: int = 0  # 0 = all cores

    def to_dict(self) -> dict:
        return asdict(self)


#: the most points a snapshot's history keeps
HISTORY_POINTS = 240


def extend_history(history: tuple, trials: int, rows) -> tuple:
    """``history`` with this snapshot's point added (a later trial count than the last, or it
    replaces the last); every other point is dropped once there are more than
    ``HISTORY_POINTS``, so the points stay spread over the whole run."""
    point = (
        int(trials),
        tuple(
            (
                r.move,
                float(r.equity.cubeless),
                float(r.equity_se.cubeless)
                if r.equity_se is not None and r.equity_se.cubeless is not None
                else 0.0,
            )
            for r in rows
            if r.trials
        ),
    )
    if not point[1] or trials <= 0:
        return history
    if history and history[-1][0] >= trials:
        return history[:-1] + (point,)
    out = history + (point,)
    if len(out) > HISTORY_POINTS:
        out = out[-1::-2][::-1]  # every other point, the latest kept
    return out


@dataclass(frozen=True)
class RolloutSnapshot:
    """Immutable progress of a rollout job, posted at least 5 times a second."""

    analysis_id: int
    trials_done: int
    trials_total: int
    elapsed: float
    games_per_second: float
    time_left: float | None
    rows: tuple[PlayRow, ...]  # candidates best first, or one row for a position rollout
    settings: RolloutSettings = field(default_factory=RolloutSettings)
    finished: bool = False
    cancelled: bool = False
    variance_reduction_factor: float | None = None  # "equivalent to N plain trials" / N
    #: on a Dask cluster: (workers running a chunk of this rollout, worker threads); else None
    cluster_workers: tuple[int, int] | None = None
    #: the figures at the earlier snapshots of this run, oldest first (at most
    #: HISTORY_POINTS, thinned evenly): ``((trials_done, ((move, equity, se), ...)), ...)``,
    #: the cubeless equity and its standard error of each candidate (a convergence plot)
    history: tuple = ()


#: the fields of the results above that hold other results: field -> (class, a sequence of them)
_NESTED = {
    "probabilities": (Probabilities, False),
    "probabilities_se": (Probabilities, False),
    "equity": (Equities, False),
    "equity_se": (Equities, False),
    "settings": (RolloutSettings, False),
    "rows": (PlayRow, True),
}


def result_from_dict(cls, d: dict):
    """The ``cls`` (a result class of this module) whose ``dataclasses.asdict`` is ``d``, its
    nested results rebuilt from their dicts. A missing or unknown field raises TypeError."""
    kw = dict(d)
    for name, (kind, many) in _NESTED.items():
        if kw.get(name) is not None:
            v = kw[name]
            kw[name] = (
                tuple(result_from_dict(kind, x) for x in v) if many else result_from_dict(kind, v)
            )
    return cls(**kw)
