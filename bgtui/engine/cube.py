"""Money-play cube model: Janowski's interpolation between a dead and a fully live cube.

All equities are for the player on roll, normalised to a 1-cube, from cubeless probabilities
``p`` (five cumulative outputs). With W the average cubeless win (win, gammon or backgammon
value) and L the average loss:

* dead cube: take point (L - 1/2) / (W + L), cash point (L + 1/2) / (W + L), equity
  p W - (1 - p) L whoever owns the cube;
* fully live cube (continuous model): take point TP = (L - 1/2) / (W + L + 1/2) and cash point
  CP = (L + 1) / (W + L + 1/2) (gammonless: 20% and 80%); the equity is piecewise linear in p
  between the points where the cube is cashed: (0, -L), (TP, -1), (CP, +1), (1, W), each
  owner using only its own end;
* cubeful equity = x * live + (1 - x) * dead, x the cube efficiency (contact
  ``CONTACT_EFFICIENCY``, crashed 0.60, race 0.55 + 0.00125 * player's pips clamped to
  [0.60, 0.70]).

In closed form, below the cash point and above the take point: owned p (W + L + x/2) - L,
opponent owns p (W + L + x/2) - L - x/2 (Janowski's equations).

Jacoby rule (money default): with the cube centred a gammon counts only once the cube has been
turned. The fully live cube never lets the game be played out with the cube centred (it is
cashed at TP or CP), so between the points the live line is the same as without the rule;
beyond them the player cashes instead of playing on for a gammon that would not count, so the
line is flat at -1 below TP and at +1 above CP. The dead part counts the gammons (a game that
goes on is won or lost with the cube turned in the part the model calls dead: the jumps past the
points), limited to [-1, +1]: a side whose dead-cube equity is beyond one point doubles and
the other passes.

The contact efficiency 0.78 is calibrated against bgtui's own live-cube rollouts
(``evaluation/cube_agreement.py`` with the references in ``evaluation/data``): with it the
model's double/take minus no-double difference is unbiased in the doubling window, and the
no-double and owned-cube levels are within 0.01 of the rollouts on average at 0- to 2-ply
(``docs/cube-model.md`` has the figures).
"""

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
def jacoby_centred_equity(p, x):
    """Janowski money equity (1-cube) of ``p`` with the cube centred under the Jacoby rule:
    the live line flat at -1 / +1 beyond the take and cash points of the doubled game, the
    dead part the cubeless equity (gammons counting) limited to [-1, +1]."""
    W, L = win_loss_sizes(p)
    pw = p[0]
    tp, cp = live_points(W, L)
    if pw >= cp:
        live = 1.0
    elif pw <= tp:
        live = -1.0
    else:
        live = -1.0 + 2.0 * (pw - tp) / (cp - tp)
    dead = pw * W - (1.0 - pw) * L
    if dead > 1.0:
        dead = 1.0
    elif dead < -1.0:
        dead = -1.0
    return x * live + (1.0 - x) * dead


@kernel
def cubeful_equity(p, x, state, jacoby):
    """Janowski cubeful money equity (1-cube) of probabilities ``p`` in cube ``state``."""
    if jacoby and state == CENTRED:
        return jacoby_centred_equity(p, x)
    W, L = win_loss_sizes(p)
    dead = p[0] * W - (1.0 - p[0]) * L
    return x * live_equity(p[0], W, L, state) + (1.0 - x) * dead


@kernel
def cube_equities(p, x, jacoby, out3):
    """``out3`` = cubeful equities by cube state: centred, owned by the player, owned by the
    opponent (``out3[CENTRED]``...)."""
    out3[CENTRED] = cubeful_equity(p, x, CENTRED, jacoby)
    out3[OWNED] = cubeful_equity(p, x, OWNED, jacoby)
    out3[OPP_OWNED] = cubeful_equity(p, x, OPP_OWNED, jacoby)
