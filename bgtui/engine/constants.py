"""Array layout and fixed tables of the engine.

A position is ``int8[26]`` seen from the side on roll (the "player"):

* index 1..24: points numbered from the player's view (24 = farthest, 1 = deepest home point);
  a positive count is the player's checkers, a negative count the opponent's;
* index 25 (``PLAYER_BAR``): the player's checkers on the bar (>= 0);
* index 0 (``OPPONENT_BAR``): the opponent's checkers on the bar, stored negative (<= 0);
* checkers borne off are not stored: 15 minus the checkers on the board.

The opponent moves from the player's point 1 towards point 24 and enters from index 0 into
points 1..6; the player enters from index 25 into points 24..19 and bears off from 1..6 to 0.
"""

import numpy as np

POSITION_DTYPE = np.int8
POSITION_SIZE = 26
NUM_POINTS = 24
PLAYER_BAR = 25
OPPONENT_BAR = 0
OFF = 0
NUM_CHECKERS = 15

#: a play is recorded as up to four (from, to) steps, each one die; -1 pads unused steps.
MOVE_SIZE = 8

#: upper bound on the number of distinct plays of one roll (the true maximum is far lower).
MAX_PLAYS = 4096

#: who owns the cube, relative to a reference player (the player on roll; in a rollout trial,
#: the root player): nobody, that player, his opponent
CENTRED, OWNED, OPP_OWNED = 0, 1, 2

#: the columns of a rollout root's cube, a row of float64 (``rollout._rollout_chunk``): the
#: cube's value, its owner (relative to the root player) and the hold flag (1.0: the root
#: player does not double before his first roll)
CUBE_VALUE, CUBE_OWNER, CUBE_HOLD = range(3)

#: contact positions (neither side has borne off) with at least this many pips of both sides
#: together are valued by the early contact net (``nn.net_class``): the median of the
#: rollout-labelled contact positions, where two nets of the shipped width value held-out
#: plays better than one (docs/lab-notes/2026-12-03-contact-experts.md)
EARLY_PIPS = 259

#: the move filter of every lookahead choice (the services' play ranking and the engine's
#: n-ply player): after 0-ply, the best ``FILTER_MAX_PLAYS`` plays within ``FILTER_MARGIN``
#: (cubeless equity) of the best are valued deeper
FILTER_MAX_PLAYS = 8
FILTER_MARGIN = 0.16

#: a play chosen at 1-ply is valued by a weight times its 0-ply probabilities plus the rest
#: times its 1-ply ones (the services' play ranking and the engine's 1-ply player): the 1-ply
#: value errs in the opponent's favour by play-dependent amounts, the 0-ply value otherwise,
#: and their blend chooses better than either (docs/lab-notes/2026-11-26-one-ply.md). The
#: weight is that of the class of the position before the roll (``nn.net_class``), in class
#: order: contact 0.25; race 0.5 (with the side net valuing some of the leaves and the race
#: net others, docs/lab-notes/2026-12-07-race-side-hybrid.md); crashed 0.5, where the 1-ply
#: gains least; early contact
#: and trailing (contact, the side on roll behind in the race) as contact; holding (only the
#: side not on roll has borne off) as crashed (docs/lab-notes/2026-12-04-trailing-split.md);
#: mutual (contact with a checker of each side back) as contact, mutual trailing (and the
#: side on roll behind) as trailing; the anchor classes (the same four with a side holding an
#: anchor in the other side's home board) as the classes they split: anchor as contact,
#: mutual anchor as mutual, trailing anchor as trailing, mutual trailing anchor as mutual
#: trailing; early trailing (early contact, the side on roll behind in the race) as early;
#: the early bar classes (the same two with a checker on either bar) as the classes they
#: split: early bar as early, early trailing bar as early trailing; the bar classes below
#: ``EARLY_PIPS`` (the eight classes there with a checker on either bar) likewise, each as the
#: class it splits. ``evaluate.one_ply_weight0`` looks it up (and gives 1 in the races where
#: only the side on roll has a row of the one-sided database).
ONE_PLY_WEIGHTS0 = (
    0.25,  # contact
    0.5,  # race
    0.5,  # crashed
    0.25,  # early
    0.5,  # holding
    0.25,  # trailing
    0.25,  # mutual
    0.25,  # mutual_trailing
    0.25,  # anchor
    0.25,  # mutual_anchor
    0.25,  # trailing_anchor
    0.25,  # mutual_trailing_anchor
    0.25,  # early_trailing
    0.25,  # early_bar
    0.25,  # early_trailing_bar
    0.25,  # contact_bar
    0.25,  # trailing_bar
    0.25,  # mutual_bar
    0.25,  # mutual_trailing_bar
    0.25,  # anchor_bar
    0.25,  # mutual_anchor_bar
    0.25,  # trailing_anchor_bar
    0.25,  # mutual_trailing_anchor_bar
)
#: the contact weight, the blend of most decisions
ONE_PLY_WEIGHT0 = ONE_PLY_WEIGHTS0[0]

#: in a race valued by a side net, the engine's 0-ply player (move selection in rollouts,
#: lookahead, duels) lets the race net rank a roll's plays and the side net value the best
#: ``RACE_SIDE_PLAYS`` of them within ``RACE_SIDE_MARGIN`` (cubeless equity) of the race net's
#: best; a single position, or a list of plays ranked by the services, is valued by the side net
RACE_SIDE_PLAYS = 3
RACE_SIDE_MARGIN = 0.1

NUM_OUTPUTS = 5
WIN, WIN_GAMMON, WIN_BACKGAMMON, LOSE_GAMMON, LOSE_BACKGAMMON = range(5)

#: the 21 distinct rolls (higher die first) and their weights out of 36.
ROLLS = np.array([(a, b) for a in range(1, 7) for b in range(1, a + 1)], dtype=np.int64)
ROLL_WEIGHTS = np.array([1 if a == b else 2 for a, b in ROLLS], dtype=np.float64)

OPENING_POSITION = np.zeros(POSITION_SIZE, dtype=POSITION_DTYPE)
for _p, _n in ((24, 2), (13, 5), (8, 3), (6, 5)):
    OPENING_POSITION[_p] = _n
    OPENING_POSITION[25 - _p] = -_n
OPENING_POSITION.setflags(write=False)

#: the opening position as the ``start`` of the self-play and duel kernels: a writable copy, as
#: numba compiles a kernel again for a read-only array (``OPENING_POSITION``'s type)
START = np.array(OPENING_POSITION, dtype=np.int8)
