"""The engine's public face: the functions and constants the rest of bgtui (analysis, the
command line, benchmarks, tests) uses, under public names.

Kernels are ``@kernel`` functions over typed arrays (numba, ``cache=True``); the structures they
share are the NamedTuples of :mod:`bgtui.engine.structs`. Inside the engine a kernel keeps its
leading underscore; here it gets a public name (``evaluate_plied`` is
``evaluate._evaluate_plied``). ``kernel`` is the decorator itself, for the kernels written
outside the engine (training, research). Names are resolved on first use, so ``import bgtui.engine``
imports neither numba nor any kernel module.
"""

from importlib import import_module

#: public name -> (module, name in the module)
_API = {}


def _export(module: str, *names: str, **renamed: str) -> None:
    for name in names:
        _API[name] = (module, name)
    for public, private in renamed.items():
        _API[public] = (module, private)


_export(
    "constants",
    "OPENING_POSITION",
    "START",
    "ROLLS",
    "ROLL_WEIGHTS",
    "CENTRED",
    "OWNED",
    "OPP_OWNED",
    "CUBE_VALUE",
    "CUBE_OWNER",
    "CUBE_HOLD",
    "NUM_OUTPUTS",
    "ONE_PLY_WEIGHT0",
    "ONE_PLY_WEIGHTS0",
    "RACE_SIDE_PLAYS",
    "RACE_SIDE_MARGIN",
    "EARLY_PIPS",
    "FILTER_MAX_PLAYS",
    "FILTER_MARGIN",
    "POSITION_SIZE",
    "MAX_PLAYS",
    "MOVE_SIZE",
)
_export(
    "position",
    "InvalidPosition",
    "validate",
    "make_position",
    "swap_sides",
    "swap_sides_into",
    "checkers_off",
    "pip_counts",
    "game_result",
    "is_race",
)
_export(
    "movegen",
    "generate_plays",
    make_move_workspace="make_workspace",
    generate_plays_into="_generate_plays",
    generate_scored_plays_into="_generate_scored_plays",
)
_export(
    "inputs",
    "NUM_INPUTS",
    "INPUT_VERSION",
    "NUM_FEATURES",
    "PER_SIDE",
    "RAW_PER_SIDE",
    "FEATURE_NAMES",
    fill_inputs="_fill_inputs",
    escapes="_escapes",
)
_export(
    "nn",
    "CONTACT",
    "RACE",
    "CRASHED",
    "EARLY",
    "HOLDING",
    "TRAILING",
    "MUTUAL",
    "MUTUAL_TRAILING",
    "ANCHOR",
    "MUTUAL_ANCHOR",
    "TRAILING_ANCHOR",
    "MUTUAL_TRAILING_ANCHOR",
    "EARLY_TRAILING",
    "EARLY_BAR",
    "EARLY_TRAILING_BAR",
    "CONTACT_BAR",
    "TRAILING_BAR",
    "MUTUAL_BAR",
    "MUTUAL_TRAILING_BAR",
    "ANCHOR_BAR",
    "MUTUAL_ANCHOR_BAR",
    "TRAILING_ANCHOR_BAR",
    "MUTUAL_TRAILING_ANCHOR_BAR",
    "CONTACT_CLASSES",
    "CRASHED_CLASSES",
    "NET_NAMES",
    "net_class",
    "is_mutual",
    "has_anchor",
    "on_bar",
    "init_net",
    "SIGMOID",
    "QUADRATIC",
    "ACTIVATIONS",
    "make_tables",
    "aligned",
    "TABLE_ROWS",
    forward="_forward",
    backward="_backward",
    sigmoid_inplace="_sigmoid_inplace",
    finish_outputs="_finish",
    sum_table_rows="_accumulate",
)
_export(
    "structs",
    "Net",
    "SideNet",
    "Evaluator",
    "MoveWorkspace",
    "EvalWorkspace",
    "LookaheadWorkspace",
    "PlayWorkspace",
    "FilterNet",
    "FilterScratch",
    "PlayCache",
    "RolloutWorkspace",
    "RolloutSettings",
    "Trial",
)
_export(
    "side",
    "SIDE_BUCKETS",
    "SIDE_HEADS",
    "SIDE_INPUTS",
    "SIDE_OUTPUTS",
    "encode_sides",
    "fixed_heads",
    "make_side_net",
    "no_side_net",
    side_dists="_side_dists",
    side_race_probs="_side_race_probs",
)
_export(
    "evaluate",
    "one_ply_weight0",
    "make_evaluator",
    "TIED_CLASSES",
    "as_net",
    "net_copy",
    "hidden_size",
    "evaluate0",
    "equity",
    "equities",
    "EQUITY_COEF",
    "database_kind",
    "NO_DATABASE",
    "TWO_SIDED_DB",
    "ONE_SIDED_DB",
    "MAX_PLY",
    "make_eval_workspace",
    "make_lookahead_workspace",
    "make_play_buffers",
    "make_play_workspace",
    evaluate0_into="_evaluate0",
    evaluate_plied="_evaluate_plied",
    evaluate_after="_evaluate_after",
    evaluate_after_plied="_evaluate_after_plied",
    best_play0="_best_play0",
    evaluate_net="_evaluate_net",
    eval_nets="_nets",
    flip_into="_flip_into",
)
_export(
    "rollout",
    "make_settings",
    "make_permutations",
    "make_rollout_workspace",
    "score_game",
    "NUM_OUT",
    "O_WIN",
    "O_WG",
    "O_WBG",
    "O_LG",
    "O_LBG",
    "O_CUBELESS",
    "O_CENTRED",
    "O_OWNED",
    "O_OPP_OWNED",
    "O_RAW",
    "O_TURNS",
    "O_LIVE",
    "PAIRED",
    "CACHE_TURNS",
    rollout_chunk="_rollout_chunk",
    accumulate="_accumulate",
    accumulate_states="_accumulate_states",
    choose_play="_choose",
)
_export(
    "cube", "cube_efficiency", "cube_equities", "cubeful_equity", "live_equity", "win_loss_sizes"
)
_export(
    "cubeful",
    "cubeful_no_double",
    "make_cubeful_workspace",
    "make_match_context",
    "match_no_double",
    "MATCH_VALUES",
)
_export(
    "match",
    "POINT_ROWS",
    "cubeless_mwc",
    "emg_to_mwc",
    "mwc_to_emg",
    "mwc_coefficients",
    "match_cube_values",
    "match_points",
    "play_values",
    "make_play_scratch",
    win_lose_mwc="_win_lose",
)
_export(
    "bearoff",
    "EXTENDED_SIZE",
    "ONE_SIDED_SIZE",
    "STRAGGLER_HOME",
    "bearoff_index",
    "bearoff_position",
    "FEW_CHECKERS",
    "FULL_SIZE",
    "MAX_ROLLS",
    "ONE_SIDED_CHECKERS",
    "TWO_SIDED_CHECKERS",
    "STRAGGLER_LO",
    "STRAGGLER_HI",
    "build_one_sided",
    "build_extended_one_sided",
    "build_full_one_sided",
    "build_few_checker_rows",
    "build_two_sided",
    "is_bearoff",
    "is_two_sided",
    "one_sided_applies",
    "one_sided_race_probs",
    "side_row",
    "two_sided_probs",
    "two_sided_cubeful",
    "two_sided_no_double",
    one_sided_solve_row="_solve_row",
    one_sided_rows_race_probs="_rows_race_probs",
)
_export("filter_net", "extend_filter_table")
_export("filter_terms", "FILTER_ROWS", "FILTER_ACTIVE", filter_rows="_filter_rows")
_export("pubeval", "WC", "WR", "pubeval_score", best_play_pubeval="_best_play_pubeval")
_export("duel", duel_pairs="_duel_pairs")
_export(
    "selfplay",
    roll_dice="_roll",
    store_child="_store_child",
    sample_positions="_sample_positions",
    sample_children="_sample_children",
    contact_positions="contact_positions",
)
_export("rng", "make_rng", "uniform", "roll_index")
_export("warmup", "compile_all", "compile_rollout_parts")
_export("_jit", "kernel", "source_stamp")

__all__ = sorted(_API)


def __getattr__(name):
    try:
        module, attr = _API[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    value = getattr(import_module(f"{__name__}.{module}"), attr)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_API))
