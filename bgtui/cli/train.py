"""``bgtui train``: the training subcommands (the training code is imported only when one runs)."""

from __future__ import annotations

from bgtui.analysis.options import MAX_ROLLS, MAX_SEED, MAX_TRIALS, MAX_WORKERS, real, whole
from bgtui.cli.commands import UserError
from bgtui.engine import EARLY_PIPS

#: the bound of counts (games, positions, passes, ...): far beyond any run, within 64 bits
MAX_COUNT = 10**12
#: the most hidden units of a net
MAX_HIDDEN = 4096
#: the most plays of a roll an option may ask for (no roll has that many)
MAX_PLAYS_A_ROLL = 1000


def _train_td(args) -> None:
    """``train td``: TD self-play into ``--checkpoint``."""
    from bgtui.training.train import TDSettings, td_train

    td_train(
        args.checkpoint,
        TDSettings(
            args.games,
            hidden=args.hidden or 128,
            race_hidden=args.race_hidden or 64,
            lam=args.lam,
            alpha=args.alpha or 0.1,
            seed=args.seed,
            chunk=args.chunk,
            save_every=args.save_every,
        ),
    )


def _train_dataset(args) -> None:
    """``train dataset``: grow the training set in ``--data`` from ``--checkpoint``'s play."""
    from bgtui.training.train import CodeChangedError, DatasetSpec, build_dataset

    if not args.data:
        raise UserError("train dataset needs --data DIR (where the shards go)")
    try:
        spec = DatasetSpec(
            args.positions,
            ply=_target_ply(args),
            seed=args.seed,
            workers=args.workers,
            children=args.children,
            race_rollouts=args.race_rollouts,
            shard=args.shard or 20_000,
            children_best=args.children_best,
            crashed_only=args.crashed_only,
            stragglers=args.stragglers,
            target_truncate=args.target_truncate,
            trials=args.trials,
            vs_pubeval=args.vs_pubeval,
            cube_region=args.cube_region,
            target_games=args.target_games,
            cousins=args.cousins,
            disagree=args.disagree,
            theme=args.theme or "",
            explore=0.1 if args.explore is None else args.explore,
        )
    except ValueError as exc:
        raise UserError(str(exc)) from None
    try:
        build_dataset(args.data, args.checkpoint, spec)
    except CodeChangedError as exc:
        raise UserError(str(exc)) from None


def _train_fit(args) -> None:
    """``train fit``: train ``--checkpoint`` on the training set in ``--data``."""
    from bgtui.training.train import FitSettings, fit

    if not args.data:
        raise UserError("train fit needs --data DIR (a training set made by train dataset)")
    try:
        adam = args.optimizer == "adam"
        settings = FitSettings(
            args.epochs,
            alpha=args.alpha or (0.001 if adam else 0.01),
            alpha_end=args.alpha_end or (0.00001 if adam else 0.0005),
            init=args.init,
            seed=args.seed,
            strength_pairs=args.strength_pairs,
            hidden=args.hidden or 0,
            race_hidden=args.race_hidden or 0,
            optimizer=args.optimizer,
            batch=args.batch_size,
            nets=args.nets,
            rank_weight=args.rank_weight,
            activation=args.activation or "",
        )
        fit(args.checkpoint, args.data, settings)
    except ValueError as exc:
        raise UserError(str(exc)) from None


def _train_game_rollouts(args) -> None:
    """``train game-rollouts``: positions labelled by full-game rollouts, in chunks in
    ``--data``; prints how many there are."""
    from bgtui.training.head_refit import build_game_rollouts

    if not args.data:
        raise UserError("train game-rollouts needs --data DIR (where the chunks go)")
    if args.trials < 1 or (args.shard or 500) < 1 or args.positions < 1:
        raise UserError("--trials, --shard and --positions must be at least 1")
    n = build_game_rollouts(
        args.data,
        args.checkpoint,
        args.positions,
        shard=args.shard or 500,
        seed=args.seed,
        trials=args.trials,
        workers=args.workers,
    )
    print(f"{n} positions in {args.data}")


def _train_heads(args) -> None:
    """``train heads``: refit the gammon and backgammon outputs of ``--init`` to the
    game rollouts in ``--data``."""
    from bgtui.training.head_refit import refit_heads

    if not args.data:
        raise UserError("train heads needs --data DIR (chunks made by train game-rollouts)")
    try:
        heads = tuple(int(h) for h in args.heads.split(","))
    except ValueError:
        raise UserError(
            f"--heads takes output rows 0-4, comma-separated, got {args.heads!r}"
        ) from None
    if args.ridge < 0:
        raise UserError(f"--ridge must be >= 0, got {args.ridge}")
    try:
        refit_heads(
            args.checkpoint,
            args.init or "bgtui-0.npz",
            args.data,
            ridge=args.ridge,
            heads=heads,
            holdout=args.holdout,
        )
    except ValueError as exc:
        raise UserError(str(exc)) from None


def _train_average(args) -> None:
    """``train average``: the mean of the nets of ``--of``'s weights files."""
    from bgtui.analysis.weights import WeightsError
    from bgtui.training.train import average_weights

    files = [f for f in (args.of or "").split(",") if f]
    if len(files) < 2:
        raise UserError("train average needs --of A.npz,B.npz (two or more weights files)")
    try:
        average_weights(args.checkpoint, files)
    except (ValueError, WeightsError) as exc:
        raise UserError(str(exc)) from None


def _train_filter(args) -> None:
    """``train filter``: distil the rollouts' filter net from the ``--weights`` evaluator."""
    from bgtui.training.filter import train_filter

    if args.samples < 1000 or args.positions < 10:
        raise UserError("train filter needs --positions >= 10 and --samples >= 1000")
    if not 1 <= (args.hidden or 32) <= 256:
        raise UserError(f"--hidden for the filter net must be 1 to 256, got {args.hidden}")
    train_filter(
        args.checkpoint,
        getattr(args, "weights", None) or "bgtui-0.npz",
        args.positions,
        hidden=args.hidden or 32,
        epochs=args.epochs,
        seed=args.seed,
        cap=args.samples,
    )


def _train_supervised(args) -> None:
    """``train supervised``: rounds toward the nets' own n-ply evaluations."""
    from bgtui.training.train import SupervisedSettings, supervised_train

    if _target_ply(args) < 1:
        raise UserError(
            "train supervised needs --target-ply 1 to 3: 0-ply targets are the "
            "nets' own values, nothing to learn"
        )
    supervised_train(
        args.checkpoint,
        SupervisedSettings(
            args.rounds,
            positions=args.positions,
            ply=_target_ply(args),
            epochs=args.epochs,
            alpha=args.alpha or 0.1,
            seed=args.seed,
            workers=args.workers,
            hidden=args.hidden or 0,
            race_hidden=args.race_hidden or 0,
        ),
    )


def _train_side(args) -> None:
    """``train side``: fit the race side net of ``--init``'s weights into ``--checkpoint``."""
    from bgtui.analysis.weights import WeightsError
    from bgtui.training.side import SideSettings, fit_side

    data = [d for d in (args.data or "").split(",") if d]
    if not data:
        raise UserError("train side needs --data DIR[,DIR...] (race sets with rollouts)")
    holdout = [d for d in (args.judge or "").split(",") if d]
    settings = SideSettings(
        hidden=args.hidden or 128,
        passes=args.epochs,
        alpha=args.alpha or 0.001,
        seed=args.seed,
        rank_weight=args.rank_weight,
    )
    try:
        fit_side(args.checkpoint, args.init or "bgtui-0.npz", data, holdout, settings)
    except (ValueError, WeightsError) as exc:
        raise UserError(str(exc)) from None


def _target_ply(args, default=1) -> int:
    """``--target-ply``, or the method's ``default`` when not given (supervised and dataset 1,
    side-labels 0)."""
    return default if args.target_ply is None else args.target_ply


def _train_side_labels(args) -> None:
    """``train side-labels``: the race sets of ``--races`` labelled by ``--checkpoint``'s side
    net into ``--data``."""
    from bgtui.analysis.weights import WeightsError
    from bgtui.training.side import label_races

    races = [d for d in (args.races or "").split(",") if d]
    if not args.data or not races:
        raise UserError(
            "train side-labels needs --data DIR (where the shards go) and --races DIR[,DIR...]"
        )
    try:
        label_races(
            args.data,
            args.checkpoint,
            races,
            children=args.children,
            seed=args.seed,
            cousins=args.cousins,
            ply=_target_ply(args, default=0),
            workers=args.workers,
        )
    except (ValueError, WeightsError, OSError) as exc:
        raise UserError(str(exc)) from None


#: the function of each ``train`` method (any other runs :func:`_train_supervised`)
_METHODS = {
    "td": _train_td,
    "supervised": _train_supervised,
    "dataset": _train_dataset,
    "fit": _train_fit,
    "filter": _train_filter,
    "game-rollouts": _train_game_rollouts,
    "heads": _train_heads,
    "average": _train_average,
    "side": _train_side,
    "side-labels": _train_side_labels,
}


def cmd_train(args, query, an=None):
    """Run the ``train`` method ``args.method`` (``query`` and ``an`` are unused: training
    needs no analysis service)."""
    _METHODS.get(args.method, _train_supervised)(args)
    return None


def _add_method_and_files(p) -> None:
    """The method, the weights file (``--checkpoint``) and the training set's directory
    (``--data``)."""
    p.add_argument(
        "method",
        choices=list(_METHODS),
        help="td: TD(0) self-play from random weights; supervised: improve the nets "
        "toward their own n-ply evaluations of self-play positions, round by "
        "round; dataset: grow a training set (--data) of self-play positions of "
        "the --checkpoint weights with their n-ply evaluations; fit: train "
        "--checkpoint on a whole training set for --epochs passes; filter: distil "
        "the filter net of rollouts' --vr-filter from the --weights evaluator "
        "into --checkpoint (self-play positions: --positions); game-rollouts: "
        "contact positions of --checkpoint's self-play labelled by full-game "
        "rollouts of --trials trials, in chunks of --shard (500) in --data; "
        "heads: refit the gammon and backgammon outputs of --init's contact and "
        "crashed nets to those rollouts into --checkpoint; average: the mean of "
        "the nets of --of's weights files into --checkpoint; side: fit the race side net "
        "of --init's weights on the rolled-out races of --data (--epochs passes; "
        "--judge: races judged after each pass) into --checkpoint; side-labels: the race "
        "sets of --races and, for --children positions a shard, a random roll's every play, "
        "labelled by --checkpoint's side net, into --data (a training set for the race net)",
    )
    p.add_argument(
        "--checkpoint",
        required=True,
        help="weights file to resume from and write (dataset: the weights that play and evaluate)",
    )
    p.add_argument(
        "--data",
        help="dataset/fit: the training set's directory; fit also reads several, separated "
        "by commas, and slices of their sorted shards (DIR:first:last, from 0)",
    )
    p.add_argument(
        "--judge", help="side: race sets (directories) judged after each pass, comma-separated"
    )
    p.add_argument("--races", help="side-labels: the race sets (directories), comma-separated")


def _add_dataset_positions(p) -> None:
    """``dataset`` (and ``game-rollouts``): which positions a set stores, how many a shard
    and how they are labelled."""
    p.add_argument(
        "--children",
        type=whole(0, MAX_PLAYS_A_ROLL),
        default=0,
        help="dataset: store this many random plays of every roll (the positions "
        "move selection compares) instead of the positions played; side-labels: the "
        "positions of a shard whose roll's every play is added",
    )
    p.add_argument(
        "--children-best",
        type=whole(0, MAX_PLAYS_A_ROLL),
        default=0,
        metavar="K",
        help="dataset: store the positions after the K best plays (0-ply) of every "
        "roll of greedy self-play instead: the near-best alternatives that move "
        "selection ranks",
    )
    p.add_argument(
        "--race-rollouts",
        type=whole(0, MAX_TRIALS),
        default=0,
        metavar="TRIALS",
        help="dataset: only the races the race net values (outside the bear-off "
        "databases), labelled by rollouts of TRIALS trials; with --children-best K, "
        "the K best plays of a roll in such races, rolled out with the same dice",
    )
    p.add_argument(
        "--shard",
        type=whole(1, MAX_COUNT),
        default=None,
        help="dataset: positions per shard (20000); game-rollouts: per chunk (500)",
    )
    p.add_argument(
        "--trials",
        type=whole(1, MAX_TRIALS),
        default=36,
        help="game-rollouts, dataset with --target-truncate: trials a position",
    )
    p.add_argument(
        "--target-truncate",
        type=whole(0, MAX_ROLLS),
        default=0,
        metavar="ROLLS",
        help="dataset: label each position by a rollout of --trials trials truncated "
        "after ROLLS rolls (0-ply play, variance reduction) instead of "
        "--target-ply",
    )


def _add_heads_options(p) -> None:
    """``heads``: the refit's penalty, output rows and held-out chunks."""
    p.add_argument(
        "--ridge",
        type=real(0.0, 1e9),
        default=1.0,
        help="heads: penalty pulling the refitted outputs toward --init's",
    )
    p.add_argument(
        "--heads",
        default="1,2,3,4",
        help="heads: output rows to refit (1 win gammon, 2 win backgammon, 3 lose "
        "gammon, 4 lose backgammon)",
    )
    p.add_argument(
        "--holdout",
        type=whole(0, MAX_COUNT),
        default=5,
        help="heads: leave every N-th chunk out to measure the fit (0: none)",
    )


def _add_fit_optimizer(p) -> None:
    """``fit``: the starting weights and the optimiser."""
    p.add_argument(
        "--init",
        help="fit: weights a new checkpoint starts from (default: shipped; "
        "'random': fresh nets of --hidden / --race-hidden units for "
        "the nets trained)",
    )
    p.add_argument(
        "--activation",
        choices=["sigmoid", "quadratic"],
        help="fit: the hidden function of the nets trained by a new fit (fresh ones, or the "
        "starting weights' computing it of the same weights; default: as they are, fresh "
        "ones sigmoid); a resumed fit must name its own",
    )
    p.add_argument(
        "--optimizer",
        choices=["sgd", "adam"],
        default="sgd",
        help="fit: sgd (position by position, squared error) or adam (minibatches, "
        "cross-entropy; try --alpha 0.001 --alpha-end 0.00001)",
    )
    p.add_argument(
        "--batch-size", type=whole(1, MAX_COUNT), default=256, help="fit: adam's minibatch size"
    )
    p.add_argument(
        "--rank-weight",
        type=real(0.0, 1e9),
        default=0.0,
        help="fit, adam: weight of the squared error in the equity differences "
        "between the plays of a roll (sets made with --children-best), on top "
        "of the cross-entropy (default 0: none)",
    )


def _add_dataset_classes(p) -> None:
    """``dataset``: keep only the positions of one class."""
    p.add_argument(
        "--crashed-only",
        action="store_true",
        help="dataset: keep only the positions the crashed net values (contact "
        "after a side has borne off)",
    )
    p.add_argument(
        "--theme",
        metavar="A,B",
        default=None,
        help="dataset: keep only contact positions of these kinds, comma-separated: "
        "blitz, prime, backgame, holding, late (with --children-best K: the rolls whose "
        "best play leads to one)",
    )
    p.add_argument(
        "--stragglers",
        action="store_true",
        help="dataset, with --race-rollouts: keep only straggler races (a side with "
        "5 or more checkers off and 2 or more outside its home board)",
    )


def _add_average_options(p) -> None:
    """``average``: the weights files averaged."""
    p.add_argument(
        "--of",
        metavar="A.npz,B.npz",
        help="average: the weights files whose nets --checkpoint is the mean of",
    )


def _add_dataset_games(p) -> None:
    """``dataset``: the games that make the positions and the targets from whole games."""
    p.add_argument(
        "--cube-region",
        action="store_true",
        help="dataset: keep only contact positions where the player on roll has "
        "doubling chances by 0-ply (winning chances 60-95%% or equity > 0.25)",
    )
    p.add_argument(
        "--target-games",
        action="store_true",
        help="dataset: targets from full-game rollouts of --trials trials",
    )
    p.add_argument(
        "--vs-pubeval",
        action="store_true",
        help="dataset, with --children-best K: the games are the evaluator's against "
        "PubEval, the positions the K best plays of the evaluator's rolls",
    )
    p.add_argument(
        "--cousins",
        action="store_true",
        help="dataset, with --children-best K: for each of the K best plays of a roll, "
        "the position after the opponent's best reply to one roll drawn for it (the "
        "leaves 1-ply compares); side-labels: the same leaves of the race sets' sibling "
        "groups, instead of their positions and --children",
    )
    p.add_argument(
        "--disagree",
        action="store_true",
        help="dataset, with --children-best K and --target-truncate or --target-games: "
        "only the rolls where 0-ply and 2-ply choose different plays, their K best plays "
        "labelled by rollouts on shared dice",
    )
    p.add_argument(
        "--explore",
        type=real(0.0, 1.0),
        default=None,
        help="dataset: the chance of a random play instead of the best in the "
        "self-play that makes the positions (default 0.1; --children-best games are "
        "greedy)",
    )


def _add_fit_schedule(p) -> None:
    """``fit``: the nets trained, the last step size and the strength measured after a pass."""
    p.add_argument(
        "--nets",
        default="contact,race,crashed,early,holding,trailing,mutual,mutual_trailing,"
        "anchor,mutual_anchor,trailing_anchor,mutual_trailing_anchor,early_trailing,"
        "early_bar,early_trailing_bar,contact_bar,trailing_bar,mutual_bar,mutual_trailing_bar,"
        "anchor_bar,mutual_anchor_bar,trailing_anchor_bar,mutual_trailing_anchor_bar",
        help="fit: which nets to train, comma-separated: contact, race, crashed "
        "(contact once the side on roll has borne off), early (contact from "
        f"{EARLY_PIPS} pips of both sides together up, the side on roll not behind in the "
        "race), holding (contact once only the "
        "side not on roll has borne off), trailing (contact below "
        f"{EARLY_PIPS} pips, the side on roll behind in the race), mutual and "
        "mutual_trailing (the contact and trailing positions where each side has a checker "
        "back, on his bar or in the other side's home board), anchor, mutual_anchor, "
        "trailing_anchor and mutual_trailing_anchor (the contact, mutual, trailing and "
        "mutual trailing positions where a side has two checkers or more on a point of the "
        "other side's home board), early_trailing (the early positions where the side on "
        "roll is behind in the race), early_bar and early_trailing_bar (the early and early "
        "trailing positions with a checker on either bar), contact_bar, trailing_bar, "
        "mutual_bar, mutual_trailing_bar, anchor_bar, mutual_anchor_bar, trailing_anchor_bar "
        f"and mutual_trailing_anchor_bar (the positions below {EARLY_PIPS} pips of each of "
        "the contact, trailing, mutual, mutual trailing and four anchor classes with a "
        "checker on either bar); default all twenty-three",
    )
    p.add_argument(
        "--alpha-end",
        type=real(0.0, 10.0, positive=True),
        default=None,
        help="fit: the step size of the last pass (decaying from --alpha; default "
        "0.0005 for sgd, 0.00001 for adam)",
    )
    p.add_argument(
        "--strength-pairs",
        type=whole(0, MAX_COUNT),
        default=0,
        help="fit: game pairs against PubEval after each pass (0: none)",
    )


def _add_sizes(p) -> None:
    """How much each method does: games, rounds, positions, samples, target ply, passes and
    threads."""
    p.add_argument(
        "--games", type=whole(1, MAX_COUNT), default=1_000_000, help="td: total games to reach"
    )
    p.add_argument(
        "--rounds", type=whole(1, MAX_COUNT), default=10, help="supervised: rounds to run"
    )
    p.add_argument(
        "--positions",
        type=whole(1, MAX_COUNT),
        default=50_000,
        help="supervised: positions per round; dataset: size of the set to reach; "
        "filter: self-play positions sampled (a tenth held out)",
    )
    p.add_argument(
        "--samples",
        type=whole(1, MAX_COUNT),
        default=4_000_000,
        help="filter: at most this many plays to fit on (56 bytes each in memory)",
    )
    p.add_argument(
        "--target-ply",
        type=whole(0, 3),
        default=None,
        metavar="N",
        help="supervised / dataset: ply of the targets (1-3, default 1; dataset also 0: "
        "the weights' own static values, an anchor that keeps a fine-tune close to "
        "them where other sets say nothing); side-labels: label by the teacher's N-ply "
        "(default 0, its side net; above 0 the teacher need not have one)",
    )
    p.add_argument(
        "--epochs", type=whole(1, MAX_COUNT), default=2, help="supervised: passes per round"
    )
    p.add_argument(
        "--workers",
        type=whole(1, MAX_WORKERS),
        default=1,
        help="supervised, side-labels: threads for the targets",
    )


def _add_nets_and_steps(p) -> None:
    """The nets' hidden units, TD's lambda and the first step size."""
    p.add_argument(
        "--hidden",
        type=whole(1, MAX_HIDDEN),
        default=None,
        help="contact net hidden units (td: of a new net, default 128; supervised, fit: "
        "widen the checkpoint's net to this many)",
    )
    p.add_argument(
        "--race-hidden",
        type=whole(1, MAX_HIDDEN),
        default=None,
        help="race net hidden units (td default 64; supervised: widen)",
    )
    p.add_argument(
        "--lambda",
        dest="lam",
        type=real(0.0, 1.0),
        default=0.0,
        help="td: TD(lambda) with offline lambda-returns (default 0: TD(0))",
    )
    p.add_argument(
        "--alpha",
        type=real(0.0, 10.0, positive=True),
        default=None,
        help="step size (td, supervised: default 0.1; fit: of the first pass, "
        "default 0.01 for sgd, 0.001 for adam)",
    )


def _add_run_control(p) -> None:
    """The seed, and TD's chunk of games and games between checkpoints."""
    p.add_argument("--seed", type=whole(0, MAX_SEED), default=1)
    p.add_argument("--chunk", type=whole(1, MAX_COUNT), default=2000)
    p.add_argument("--save-every", type=whole(1, MAX_COUNT), default=20000)


def add_parser(add) -> None:
    """The ``train`` subparser; ``add(name, help, example)`` makes it. Every numeric option is
    range-checked by its ``type`` (:mod:`bgtui.analysis.options`): a bad value is one line
    and exit status 2."""
    p = add(
        "train",
        "train the evaluator (TD self-play), resumable from its checkpoint",
        "bgtui train td --checkpoint runs/td.npz --games 1000000",
    )
    _add_method_and_files(p)
    _add_dataset_positions(p)
    _add_heads_options(p)
    _add_fit_optimizer(p)
    _add_dataset_classes(p)
    _add_average_options(p)
    _add_dataset_games(p)
    _add_fit_schedule(p)
    _add_sizes(p)
    _add_nets_and_steps(p)
    _add_run_control(p)
    p.set_defaults(func=cmd_train, needs_engine=False)
