"""The structures the kernels share: ``typing.NamedTuple``s of arrays (and, for the rollout
settings, of typed scalars).

Numba types a NamedTuple from its fields and its class, and caches kernels that take one
(``cache=True``), so a kernel reads ``ev.contact.w1`` or ``settings.truncate`` at the cost of
a positional tuple. The classes live here, one module a newcomer reads to learn what every
workspace holds; each is built by a ``make_*`` function beside the kernels that use it
(``evaluate.make_eval_workspace``, ``rollout.make_rollout_workspace``...), which allocates
the arrays with the right shapes and dtypes. A field holds scratch unless its comment says
it carries data from one call to the next.

Every field of a structure passed to a kernel must keep its type from call to call (an
``int8`` array stays ``int8``, C-contiguous): a different type compiles the kernel again.
"""

from typing import NamedTuple

import numpy as np


class Net(NamedTuple):
    """One net of the evaluator: a hidden layer (sigmoids, or their piecewise quadratic
    approximation: ``act``), five sigmoid outputs."""

    w1: np.ndarray  #: float32[NUM_INPUTS, H]
    b1: np.ndarray  #: float32[H]
    w2: np.ndarray  #: float32[5, H]
    b2: np.ndarray  #: float32[5]
    act: int = 0  #: the hidden layer's function: ``nn.SIGMOID`` (0) or ``nn.QUADRATIC`` (1)


class SideNet(NamedTuple):
    """The race side net (``side``): one side's checkers to its distributions of rolls."""

    tab: np.ndarray  #: float32[SIDE_ROWS, H + SIDE_OUTPUTS] first and skip layers, biases
    w2: np.ndarray  #: float32[H, SIDE_OUTPUTS]; 0 rows: no side net (the race net values races)
    w1: np.ndarray  #: float32[SIDE_INPUTS, H] the dense weights the table is built from
    b1: np.ndarray  #: float32[H]
    b2: np.ndarray  #: float32[SIDE_OUTPUTS]
    skip: np.ndarray  #: float32[SIDE_INPUTS, SIDE_OUTPUTS]
    ident: np.ndarray  #: int64[1] this net's identity in a workspace's side cache: a random
    #: number drawn when the net is built (0: no net), never read as a weight


class Evaluator(NamedTuple):
    """What a 0-ply evaluation reads: the nets, the bear-off databases and the nets'
    first-layer tables (``nn.make_tables``). An array of size 0 switches a database off; a
    table of size 0 means "evaluate with dense inputs" (as training does while it changes
    the weights). ``nets(ev)`` and ``ev.tables`` are in ``nn.net_class`` order, so
    ``ev.tables[net_class(pos)]`` is the table of the net that values ``pos``."""

    contact: Net
    race: Net
    two_sided: np.ndarray  #: float32[rows, rows], ``bearoff`` two-sided win probabilities
    one_sided: np.ndarray  #: float32[rows, 2, turns], ``bearoff`` one-sided distributions
    tables: tuple  #: (contact, race, crashed, early, holding, trailing, mutual,
    #: mutual_trailing, anchor, mutual_anchor, trailing_anchor, mutual_trailing_anchor,
    #: early_trailing, early_bar, early_trailing_bar, contact_bar, trailing_bar, mutual_bar,
    #: mutual_trailing_bar, anchor_bar, mutual_anchor_bar, trailing_anchor_bar,
    #: mutual_trailing_anchor_bar) float32[rows, H] first-layer tables
    crashed: Net
    side: SideNet  #: values the races the bear-off databases do not, instead of ``race``
    early: Net  #: values contact from ``EARLY_PIPS`` pips up where the side on roll is not
    #: behind in the race, no checker on either bar (may be the contact net)
    holding: Net  #: values contact where only the side not on roll has borne off (may be
    #: the crashed net)
    trailing: Net  #: values contact below ``EARLY_PIPS`` where the side on roll is behind
    #: in the race, no checker on either bar (may be the contact net)
    mutual: Net  #: values contact below ``EARLY_PIPS`` where both sides have a checker back
    #: (``nn.is_mutual``) and the side on roll is not behind in the race, no checker on
    #: either bar (may be the contact net)
    mutual_trailing: Net  #: the same where the side on roll is behind (may be the trailing
    #: net)
    anchor: Net  #: values the contact net's positions where a side has an anchor in the
    #: other side's home board (``nn.has_anchor``; may be the contact net)
    mutual_anchor: Net  #: the mutual net's positions where a side has an anchor (may be the
    #: mutual net)
    trailing_anchor: Net  #: the trailing net's positions where a side has an anchor (may be
    #: the trailing net)
    mutual_trailing_anchor: Net  #: the mutual trailing net's positions where a side has an
    #: anchor (may be the mutual trailing net)
    early_trailing: Net  #: values contact from ``EARLY_PIPS`` pips up where the side on roll
    #: is behind in the race, no checker on either bar (may be the early net)
    early_bar: Net  #: the early net's positions with a checker on either bar (``nn.on_bar``;
    #: may be the early net)
    early_trailing_bar: Net  #: the early trailing net's positions with a checker on either
    #: bar (may be the early trailing net)
    contact_bar: Net  #: the contact net's positions below ``EARLY_PIPS`` with a checker on
    #: either bar (may be the contact net)
    trailing_bar: Net  #: the trailing net's positions with a checker on either bar (may be
    #: the trailing net)
    mutual_bar: Net  #: the mutual net's positions with a checker on either bar (may be the
    #: mutual net)
    mutual_trailing_bar: Net  #: the mutual trailing net's positions with a checker on
    #: either bar (may be the mutual trailing net)
    anchor_bar: Net  #: the anchor net's positions with a checker on either bar (may be the
    #: anchor net)
    mutual_anchor_bar: Net  #: the mutual anchor net's positions with a checker on either
    #: bar (may be the mutual anchor net)
    trailing_anchor_bar: Net  #: the trailing anchor net's positions with a checker on
    #: either bar (may be the trailing anchor net)
    mutual_trailing_anchor_bar: Net  #: the mutual trailing anchor net's positions with a
    #: checker on either bar (may be the mutual trailing anchor net)


class MoveWorkspace(NamedTuple):
    """Scratch of ``movegen._generate_plays`` (one per thread)."""

    stack: np.ndarray  #: int8[5, 26] the position at each depth
    hstack: np.ndarray  #: uint64[5] its hash
    next_point: np.ndarray  #: int64[5] the next starting point to try at each depth
    n_children: np.ndarray  #: int64[5] children found at each depth
    steps: np.ndarray  #: int8[8] steps of the current line
    dice: np.ndarray  #: int64[4] dice in the order tried
    zobrist: np.ndarray  #: uint64[26, 32] hash keys, one per (slot, count + 16); constant
    ht_key: np.ndarray  #: uint64[HASH_SIZE] hash table of the plays found: keys,
    ht_idx: np.ndarray  #: int32[HASH_SIZE] their rows,
    ht_stamp: np.ndarray  #: int64[HASH_SIZE] and the call that wrote them
    counters: np.ndarray  #: int64[2]: [0] the hash-table stamp (carried between calls)
    own: np.ndarray  #: int64[5] the mover's checkers at each depth, a bit mask of slots


class EvalWorkspace(NamedTuple):
    """Scratch of the 0-ply evaluation and of best-play selection (``evaluate``)."""

    swapped: np.ndarray  #: int8[26] a position seen by the other side
    x: np.ndarray  #: float32[NUM_INPUTS] dense inputs
    h: np.ndarray  #: float32[H] hidden layer (pre-activation, then activation)
    dh: np.ndarray  #: float32[H] its gradient (training)
    probs5: np.ndarray  #: float32[5] a net's outputs
    child_swapped: np.ndarray  #: int8[26] a play's resulting position, opponent on roll
    child5: np.ndarray  #: float32[5] a play's probabilities (training: the target)
    feats: np.ndarray  #: float32[2 * NUM_NONLINEAR] a child's non-linear features
    parent_feats: np.ndarray  #: float32[2 * NUM_NONLINEAR] the parent's
    parent_h: np.ndarray  #: float32[H] the parent's pre-activation (kept while ``ready``)
    parent_swapped: np.ndarray  #: int8[26] the parent seen by the opponent
    escapes_memo: np.ndarray  #: float32[26] the mover's escapes by rearmost point
    term_rows: np.ndarray  #: int64[MAX_TERMS] table rows of a child's changed points
    term_coefs: np.ndarray  #: float32[MAX_TERMS] and their coefficients
    escapes_keys: np.ndarray  #: escapes cache (``inputs.make_escapes_cache``): keys
    escapes_values: np.ndarray  #: and values (carried between calls)
    group_ends: np.ndarray  #: int64[MAX_GROUPS] where each group of plays ends
    group_best: np.ndarray  #: int64[MAX_GROUPS] each group's best play (on entry: 1 if
    #: the group is a roll's only play)
    group_values: np.ndarray  #: float32[MAX_GROUPS, 5] each group's best play's value
    side_u: np.ndarray  #: float32[H + SIDE_OUTPUTS] the side net's layers
    side_d: np.ndarray  #: float32[3, SIDE_HEADS, SIDE_BUCKETS] both sides' distributions
    #: (player on roll, opponent), and the side not moving in a parent's children (carried
    #: between calls: see ``side_memo``)
    side_eq: (
        np.ndarray
    )  #: float64[MAX_PLAYS] the race net's equity of each play (side net's groups)
    stage_h: np.ndarray  #: float32[classes, H] the parent's pre-activation by the net of
    #: each contact stage (rows in ``nn.net_class`` order; only those of the contact-stage
    #: classes used)
    stage_rows: np.ndarray  #: int64[classes] for each contact stage class, where the
    #: parent's pre-activation by its net is, as a class (``evaluate._stage_row``; valid in a
    #: call of ``evaluate._contact_groups`` once that class is found there)
    side_memo: np.ndarray  #: int64[3] which side's distributions ``side_d[2]`` holds
    #: (``side._side_dists_memo``; carried between calls with ``side_d[2]``)


class PlayWorkspace(NamedTuple):
    """Scratch of 0-ply play of whole games (``evaluate.make_play_workspace``): training's
    self-play and sampling kernels, which generate a roll's plays and pick among them."""

    moves: MoveWorkspace
    eval: EvalWorkspace
    play_pos: np.ndarray  #: int8[MAX_PLAYS, 26] the plays of a roll
    play_moves: np.ndarray  #: int8[MAX_PLAYS, 8]


class PlayBuffers(NamedTuple):
    """One roll's plays as move generation (``movegen._generate_plays``) writes them
    (``evaluate.make_play_buffers``)."""

    play_pos: np.ndarray  #: int8[MAX_PLAYS, 26] the positions after the plays
    play_moves: np.ndarray  #: int8[MAX_PLAYS, 8] their steps


class SuccessorScratch(NamedTuple):
    """Scratch of ``bearoff._successors``, the positions a roll reaches from one side of a
    bear-off (``bearoff._successor_scratch``)."""

    moves: MoveWorkspace
    board: np.ndarray  #: int8[26] the side on a board of its own
    play_pos: np.ndarray  #: int8[MAX_PLAYS, 26] the plays of the roll
    play_moves: np.ndarray  #: int8[MAX_PLAYS, 8]
    rows: np.ndarray  #: int64[MAX_PLAYS] the one-sided indices of the plays' positions


class FilterNet(NamedTuple):
    """The filter net that ranks a roll's plays for variance reduction (``filter_net``)."""

    w1: np.ndarray  #: float32[2 * FILTER_ROWS, H]
    b1: np.ndarray  #: float32[H]
    w2: np.ndarray  #: float32[H + 1]


class FilterScratch(NamedTuple):
    """Scratch of ``filter_net``'s kernels."""

    h: np.ndarray  #: float32[H]
    term_rows: np.ndarray  #: int64[60]
    term_coefs: np.ndarray  #: float32[60]
    kept_scores: np.ndarray  #: float64[MAX_FILTER_K + 1] the best scores, best first
    kept_idx: np.ndarray  #: int64[MAX_FILTER_K + 1] their plays
    picked: np.ndarray  #: int8[MAX_FILTER_K, 26] the plays picked
    parent_h: np.ndarray  #: float32[H] the parent's pre-activation (``level_h[0]``)
    scores: np.ndarray  #: float32[MAX_PLAYS] the scores of a roll's plays
    level_h: np.ndarray  #: float32[5, H] pre-activations at each depth of move generation
    level_off: np.ndarray  #: int64[5] the mover's checkers borne off at each depth


class LookaheadWorkspace(NamedTuple):
    """Scratch of the n-ply lookahead: one row per level of the tree (``MAX_PLY`` + 2)."""

    moves: MoveWorkspace
    eval: EvalWorkspace
    play_pos: np.ndarray  #: int8[L, LOOKAHEAD_ROWS, 26] each level's plays
    play_moves: np.ndarray  #: int8[L, LOOKAHEAD_ROWS, 8]
    swapped: np.ndarray  #: int8[L, 26] each level's chosen play, opponent on roll
    acc: np.ndarray  #: float64[L, 5] each level's sum over the rolls
    probs5: np.ndarray  #: float32[L, 5] each level's child value
    filter_net: FilterNet  #: ranks a roll's plays for ``prune``
    filter_scratch: FilterScratch
    prune: np.ndarray  #: int64[1] how many of a roll's plays the lookahead values at 0-ply:
    #: the filter net's best k (a roll with no more plays: all of them); 0: every play


class CubeContext(NamedTuple):
    """The rules the cube kernels of ``cubeful`` apply: money (``cubeful.make_cube_context``)
    or a match score (``cubeful.make_match_context``). Money reads ``jacoby`` and
    ``beavers``, a match score the fields after them."""

    match: bool  #: a match score (False: money)
    jacoby: bool  #: money: the Jacoby rule
    beavers: bool  #: money: beavers allowed
    away: int  #: match: the points the root player on roll still needs
    opp_away: int  #: and his opponent
    cube: int  #: match: the cube value
    crawford: bool  #: match: the Crawford game
    met: np.ndarray  #: float64[N + 1, N] the match equity table (``match``); money: [1, 1]
    points: np.ndarray  #: float64[2, match.POINT_ROWS] the match cube model's scratch


class PlayScratch(NamedTuple):
    """Scratch of ``match.play_values`` (``match.make_play_scratch``)."""

    swapped: np.ndarray  #: int8[26] a play's position, the opponent on roll
    probs5: np.ndarray  #: float64[5] its probabilities, the opponent's view
    values: np.ndarray  #: float64[6] the match cube model's values at the cube and twice it


class CubefulWorkspace(NamedTuple):
    """Scratch of ``cubeful``'s lookahead tree (``cubeful.make_cubeful_workspace``): one row
    per level of the tree (``MAX_PLY`` + 2), the level's node."""

    sums: np.ndarray  #: float64[L, values] the sum of the node's values over its rolls so far
    child: np.ndarray  #: float64[L, values] the values of its latest child
    next_roll: np.ndarray  #: int64[L] the index in ``ROLLS`` of its next roll


class PlayCache(NamedTuple):
    """The plays of a rollout's first turns, by (position, roll) (``rollout.make_play_cache``);
    carried between calls within one rollout run."""

    keys: np.ndarray  #: uint64[S] hash of (position, roll code)
    codes: np.ndarray  #: int64[S] roll code (-1: empty)
    parents: np.ndarray  #: int8[S, 26] the position before the play
    children: np.ndarray  #: int8[S, 26] after it
    values: np.ndarray  #: float32[S, 5] the play's value
    actual: np.ndarray  #: float32[S, 5] the roll's f (variance reduction)
    roll_sums: np.ndarray  #: float64[S, 5] the sum of the 36 rolls' f
    epoch: np.ndarray  #: int64[1] the run it was filled in


class CubeStates(NamedTuple):
    """The cube states of a ``cubeful`` rollout trial (``rollout.make_cube_states``), each
    array indexed by the state: ``constants.CENTRED``, ``OWNED`` by the root player,
    ``OPP_OWNED``."""

    settled: np.ndarray  #: bool[3] the state is settled
    value: np.ndarray  #: float64[3] its value at settlement (root player's view)
    luck: np.ndarray  #: float64[3] the luck (equity) summed up to its settlement


class RolloutWorkspace(NamedTuple):
    """Everything one rollout worker writes (``rollout.make_rollout_workspace``)."""

    moves: MoveWorkspace
    eval: EvalWorkspace
    lookahead: LookaheadWorkspace
    play_pos: np.ndarray  #: int8[MAX_PLAYS, 26] the plays of a roll
    play_moves: np.ndarray  #: int8[MAX_PLAYS, 8]
    cur: np.ndarray  #: int8[26] the position on roll in the main line
    nxt: np.ndarray  #: int8[26] the play made, mover's view
    play5: np.ndarray  #: float32[5] its value (mover's view after the play)
    best5: np.ndarray  #: float32[5] a roll's best play's value
    luck: np.ndarray  #: float64[5] the trial's summed luck, root player's view
    roll_sum5: np.ndarray  #: float64[5] the sum over the 36 rolls of f(roll)
    choice5: np.ndarray  #: float32[5] scratch of the play choice
    blend5: np.ndarray  #: float32[5] scratch of a play's 0-ply value at 1-ply (the blend)
    before5: np.ndarray  #: float32[5] 0-ply probabilities of the position before the roll
    play_equities: np.ndarray  #: float64[MAX_PLAYS] the plays' 0-ply equities
    play_flags: np.ndarray  #: int8[MAX_PLAYS] the plays picked for a deeper look
    split_pos: np.ndarray  #: int8[MAX_SPLITS, 26] Zehr splits waiting: the position
    split_side: np.ndarray  #: int64[MAX_SPLITS] its side on roll (0: the root player),
    split_turn: np.ndarray  #: int64[MAX_SPLITS] the turn it is about to roll,
    split_owner: np.ndarray  #: int64[MAX_SPLITS] the cube's owner (the taker),
    split_cube: np.ndarray  #: float64[MAX_SPLITS] the undoubled cube's value
    line_cur: np.ndarray  #: int8[26] the position on roll in a split's line
    line_nxt: np.ndarray  #: int8[26] the play made there
    filter_net: FilterNet
    filter_scratch: FilterScratch
    actual5: np.ndarray  #: float32[5] f of the roll that came
    cache: PlayCache
    picks: np.ndarray  #: int8[21 * MAX_FILTER_K, 26] the filter's picks of the 21 rolls
    pick_ends: np.ndarray  #: int64[21] where each roll's picks end
    pick_single: np.ndarray  #: int64[21] 1 for a roll with one play
    cube_states: CubeStates  #: a trial's cube states
    match_points: np.ndarray  #: float64[2, match.POINT_ROWS] the match cube model's scratch
    match_values: np.ndarray  #: float64[6] its values at the cube and at twice it


class Trial(NamedTuple):
    """One trial's scores, all from the root player's view (the player on roll at the root),
    as ``rollout._rollout_trial`` returns them. ``rollout._rollout_chunk`` stores a trial as a
    row of float64[``rollout.NUM_OUT``] in field order, so a row's columns are these fields
    (``rollout.O_CUBELESS`` is the index of ``cubeless``) and ``Trial(*row)`` names them."""

    win: float  #: the outcome minus the luck (variance reduction): win,
    win_gammon: float  #: win gammon,
    win_backgammon: float  #: win backgammon,
    lose_gammon: float  #: lose gammon,
    lose_backgammon: float  #: lose backgammon
    cubeless: float  #: cubeless equity minus the luck
    centred: float  #: cube state scores (``cubeful`` settings): the cube centred,
    owned: float  #: owned by the root player,
    opp_owned: float  #: owned by his opponent (0 without ``cubeful``)
    raw: float  #: cubeless equity of the outcome, the luck not taken away
    turns: float  #: rolls played in the main line
    live: float  #: live-cube score in 1-cube units, or MWC at a match score (0 without it)


class RolloutSettings(NamedTuple):
    """How the trials are played, with the defaults ``rollout.make_settings`` starts from
    (it also converts every field to the type the kernels are compiled for)."""

    truncate: int = 0  #: stop after this many rolls (0: play to the end)
    ply: int = 0  #: checker-play ply
    late_ply: int = 0  #: the ply after ``late_after`` rolls (``make_settings``: ``ply``)
    late_after: int = -1  #: -1: never
    vr: bool = True  #: variance reduction
    quasi: bool = True  #: quasi-random dice
    stratify_all: bool = False  #: every turn stratified, not only the first three
    bearoff: bool = True  #: truncate at the two-sided bear-off database
    one_sided: bool = False  #: truncate at the one-sided bear-off approximation
    initial: bool = False  #: rollout as initial position (no double first roll)
    cubeful: bool = False  #: the four cube states with a settlement limit
    settle: float = 0.5  #: settlement limit (cubeless equity)
    play_on: float = 0.9  #: play on for the gammon above this equity
    live_cube: bool = False  #: the cube live inside the trials (Janowski model)
    jacoby: bool = True  #: Jacoby rule
    zehr: bool = False  #: Zehr split after a take (live cube)
    vr_filter: int = 0  #: variance reduction values the filter's best k plays of a roll (0: all)
    match: bool = False  #: the live cube at a match score: decisions and scores in MWC
    away: int = 0  #: at a match score, the points the root player still needs
    opp_away: int = 0  #: and his opponent
    crawford: bool = False  #: the Crawford game (nobody doubles)
    met: np.ndarray = None  #: float64[N + 1, N] the match equity table (``match``); money: [1, 1]
