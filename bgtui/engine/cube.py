"""Money-play cube model: Janowski's interpolation between a dead and a fully live cube.

All equities are for the player on roll, normalised to a 1-cube, from cubeless probabilities
``p`` (five cumulative outputs). With W the average cubeless win (win, gammon or backgammon
value) and L the average loss:

* dead cube: take point (L - 1/2) / (W + L), cash point (L + 1/2) / (W + L), equity
  p W - (1 - p) L whoever owns the cube;
* fully live cube (continuous model): take point TP = a (1 - b) / (1 - a b) and cash point
  CP = 1 - b (1 - a) / (1 - a b), with a = (L - 1/2)/(1 + L), b = (W - 1/2)/(1 + W)
  (gammonless: 20% and 80%); the equity is piecewise linear in p between the points where
  the cube is cashed: (0, -L), (TP, -1), (CP, +1), (1, W), each owner using only its own end;
* cubeful equity = x * live + (1 - x) * dead, x the cube efficiency (contact
  ``CONTACT_EFFICIENCY``, crashed 0.60, race 0.55 + 0.00125 * player's pips clamped to
  [0.60, 0.70]).

The contact efficiency is calibrated against bgtui's own live-cube rollouts: 0.78 is where the
0-ply model's double/take minus no-double difference is unbiased against 1296-trial live-cube
rollouts of 240 self-play positions with doubling chances (mean difference +0.002; at GNU
Backgammon's 0.68 it was +0.033: the model doubled too early). See the README's cube section
and ``benchmarks/cube_agreement.py``.

Jacoby rule: with the cube centred, gammons count only after a double. The centred state's dead
part counts the game single (2p - 1); its live part runs from -1 at the take point to +1 at the
cash point and is flat beyond them (nobody plays on for a gammon that would not count), the
points being those of the doubled game, where gammons count.
"""

import numpy as np

from bgtui.engine._jit import kernel
from bgtui.engine.constants import CENTRED, OPP_OWNED, OWNED  # noqa: F401 (cube states)
from bgtui.engine.position import is_race, pip_counts

#: Janowski's cube efficiency x in contact positions (not crashed, not a race)
CONTACT_EFFICIENCY = 0.78


@kernel
def win_loss_sizes(p):
    """(W, L): average size of a win and of a loss (1 when there are none)."""
    w = p[0]
    l = 1.0 - p[0]
    W = (p[0] + p[1] + p[2]) / w if w > 1e-9 else 1.0
    L = (l + p[3] + p[4]) / l if l > 1e-9 else 1.0
    return W, L


@kernel
def live_points(W, L):
    """(take point, cash point) of a fully live cube, as the player's winning probability."""
    a = (L - 0.5) / (1.0 + L)
    b = (W - 0.5) / (1.0 + W)
    d = 1.0 - a * b
    return a * (1.0 - b) / d, 1.0 - b * (1.0 - a) / d


@kernel
def live_equity(pw, W, L, state):
    """Fully live cube equity at winning probability ``pw`` for cube ``state``."""
    tp, cp = live_points(W, L)
    if state != OPP_OWNED and pw >= cp:  # we can cash: value rises from 1 at CP to W at 1
        if cp >= 1.0:
            return 1.0
        return 1.0 + (W - 1.0) * (pw - cp) / (1.0 - cp)
    if state != OWNED and pw <= tp:  # the opponent can cash
        if tp <= 0.0:
            return -1.0
        return -L + (L - 1.0) * pw / tp
    if state == CENTRED:
        return -1.0 + 2.0 * (pw - tp) / (cp - tp)
    if state == OWNED:  # from (0, -L) to (CP, 1)
        return -L + (1.0 + L) * pw / cp
    # opponent owns: from (TP, -1) to (1, W)
    return -1.0 + (W + 1.0) * (pw - tp) / (1.0 - tp)


@kernel
def cube_efficiency(pos):
    """Janowski's x for the position class of ``pos`` (player on roll)."""
    if is_race(pos):
        mine, theirs = pip_counts(pos)
        x = 0.55 + 0.00125 * mine
        if x < 0.60:
            x = 0.60
        if x > 0.70:
            x = 0.70
        return x
    # crashed: a side with many checkers dead on its lowest points or already off
    for side in range(2):
        dead = 0
        for i in range(1, 4):
            c = pos[i] if side == 0 else -pos[25 - i]
            if c > 0:
                dead += c
        total = 0
        for i in range(26):
            c = pos[i] if side == 0 else -pos[i]
            if c > 0:
                total += c
        dead += 15 - total
        if dead >= 8:
            return 0.60
    return CONTACT_EFFICIENCY


@kernel
def cubeful_equity(p, x, state, jacoby):
    """Janowski cubeful money equity (1-cube) of probabilities ``p`` in cube ``state``."""
    W, L = win_loss_sizes(p)
    if jacoby and state == CENTRED:
        # the cube never turned: the game counts single (dead part 2p - 1), and in the live
        # part a player beyond the cash point cashes (no gammon to play on for): the line runs
        # flat at -1 below the take point and at +1 above the cash point. The points
        # themselves are those of the game after a double, where gammons count (W, L).
        pw = p[0]
        tp, cp = live_points(W, L)
        if pw >= cp:
            live = 1.0
        elif pw <= tp:
            live = -1.0
        else:
            live = -1.0 + 2.0 * (pw - tp) / (cp - tp)
        return x * live + (1.0 - x) * (2.0 * pw - 1.0)
    dead = p[0] * W - (1.0 - p[0]) * L
    return x * live_equity(p[0], W, L, state) + (1.0 - x) * dead


@kernel
def cube_equities(p, x, jacoby, out3):
    """``out3`` = cubeful equities for cube centred, owned by the player, owned by the opponent."""
    out3[0] = cubeful_equity(p, x, CENTRED, jacoby)
    out3[1] = cubeful_equity(p, x, OWNED, jacoby)
    out3[2] = cubeful_equity(p, x, OPP_OWNED, jacoby)
