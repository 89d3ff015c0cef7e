"""Cube decisions for money play (the player on roll), from equities of the three options."""

from __future__ import annotations

from bgtui.engine import CENTRED, OPP_OWNED, OWNED

NO_DOUBLE, DOUBLE_TAKE, DOUBLE_PASS = "No double", "Double, take", "Double, pass"
TG_TAKE, TG_PASS = "Too good to double, take", "Too good to double, pass"
ACTIONS = (NO_DOUBLE, DOUBLE_TAKE, DOUBLE_PASS, TG_TAKE, TG_PASS)
#: equities closer than this are a tie (float rounding in a rollout's means, not a decision)
TIE = 1e-6


def cube_action(nd: float, dt: float, dp: float, redouble: bool = False) -> str:
    """The proper action given no-double, double/take and double/pass equities (doubler's view).

    The opponent takes when double/take is worse for the doubler than double/pass (dt < dp),
    else passes; the player doubles when what the opponent does next beats not doubling.
    "Too good" when playing on (no double) beats even the cash.

    Equities within ``TIE`` of each other are equal: a sure single win (no double 1, pass 1)
    is a double and pass, not "too good" when float rounding leaves a rollout's mean of no
    double a hair above 1.
    """
    take = dt < dp - TIE
    after_double = dt if take else dp
    if nd > after_double + TIE:
        if nd > dp + TIE:
            action = TG_TAKE if take else TG_PASS
        else:
            action = NO_DOUBLE
    else:
        action = DOUBLE_TAKE if take else DOUBLE_PASS
    if redouble:
        action = (
            action.replace("No double", "No redouble")
            .replace("Double,", "Redouble,")
            .replace("to double", "to redouble")
        )
    return action


def wrong_decision_percent(nd: float, dt: float, dp: float) -> tuple[float | None, float | None]:
    """GNU Backgammon's figures: the share of wrong passes needed to make a (wrong) double
    right, and the share of wrong takes needed to make doubling a too-good position right."""
    wrong_pass = wrong_take = None
    if dt < dp and nd > dt and dp > dt:  # no double; a double gains only if he wrongly passes
        wrong_pass = 100.0 * min(1.0, (nd - dt) / (dp - dt))
    if nd > dp and dt > dp:  # too good; doubling gains only if he wrongly takes
        wrong_take = 100.0 * min(1.0, (nd - dp) / (dt - dp))
    return wrong_pass, wrong_take


def model_equity(pw: float, W: float, L: float, x: float, state: int) -> float:
    """Janowski money equity (1-cube, no Jacoby) of the player at winning chance ``pw``, his
    average win ``W`` and loss ``L`` held fixed, cube efficiency ``x``, cube ``state``
    (``bgtui.engine.constants``: CENTRED, OWNED, OPP_OWNED): x * live + (1 - x) * dead."""
    from bgtui.engine import live_equity

    return x * float(live_equity(pw, W, L, state)) + (1.0 - x) * (pw * W - (1.0 - pw) * L)


def _break_even(f, target: float, iterations: int = 64) -> float | None:
    """The winning chance in [0, 1] where the non-decreasing ``f`` reaches ``target``, by
    bisection; None if ``f(1) < target`` (never reached)."""
    lo, hi = 0.0, 1.0
    if f(hi) < target:
        return None
    if f(lo) >= target:
        return 0.0
    for _ in range(iterations):
        mid = 0.5 * (lo + hi)
        if f(mid) < target:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def cube_points(
    W: float, L: float, x: float, cube_owner: str = "centred", jacoby: bool = True
) -> tuple[float | None, float | None, float | None]:
    """(take point, cash point, too-good point) as the player's winning chances, the exact
    break-even points of the Janowski model with the position's gammon sizes ``W``, ``L``
    (held fixed) and cube efficiency ``x``:

    * take point: doubled, he owns the cube at 2: ``2 E_owned(p) = -1`` (pass);
      Janowski's closed form (L - 1/2) / (W + L + x/2);
    * cash point: he doubles, the opponent owns the cube at 2: ``2 E_opp_owned(p) = +1``,
      above it the opponent should pass; closed form (L + 1/2 + x/2) / (W + L + x/2);
    * too-good point: playing on with the cube as it is equals cashing,
      ``E_no_double(p) = +1``; above it he plays for the gammon. None where it never happens:
      no gammons to play for (W = 1), or a centred cube under the Jacoby rule (gammons do not
      count before a double), or no access to the cube.

    Gammonless: take 1/2 / (2 + x/2), cash 1 - 1/2 / (2 + x/2) (25% / 75% dead, 20% / 80%
    live).
    """
    tp = _break_even(lambda q: 2.0 * model_equity(q, W, L, x, OWNED), -1.0)
    if cube_owner == "opponent":
        return tp, None, None
    cp = _break_even(lambda q: 2.0 * model_equity(q, W, L, x, OPP_OWNED), 1.0)
    tg = None
    if not (jacoby and cube_owner == "centred") and W > 1.0 + 1e-9:
        state = CENTRED if cube_owner == "centred" else OWNED
        tg = _break_even(lambda q: model_equity(q, W, L, x, state), 1.0)
    return tp, cp, tg


def settlement_cube_equities(equity, equity_se, cube_owner: str, beavers: bool):
    """No double, double/take, the beaver factor and their standard errors from Dahl's
    cube-state equities of a full-game rollout with a settlement limit: no double is the
    equity in the current cube state, double/take twice the opponent-owns equity, and, with
    ``beavers`` and a centred cube, a double/take worth less than 0 to the doubler is
    beavered (the branch on a 4-cube: factor 2). ``equity``, ``equity_se``: ``Equities``
    (``equity_se`` may be None). Returns (nd, dt, k, {"no_double", "double_take"} or None)."""
    centred = cube_owner == "centred"
    nd = equity.centred if centred else equity.owned
    dt = 2.0 * equity.opponent_owned
    k = 2.0 if (beavers and centred and dt < 0.0) else 1.0
    se = None
    if equity_se is not None:
        se = {
            "no_double": equity_se.centred if centred else equity_se.owned,
            "double_take": None
            if equity_se.opponent_owned is None
            else 2.0 * k * equity_se.opponent_owned,
        }
    return nd, k * dt, k, se


def dahl_cube_value(p_win: float, p_gammon: float) -> float:
    """Dahl's rule of thumb for the value of owning the cube: 0.35 (win + gammons / 2)."""
    return 0.35 * (p_win + p_gammon / 2.0)


def in_cube_region(p) -> bool:
    """Whether 0-ply probabilities ``p`` (player on roll) give him doubling chances: winning
    chances 60-95% or a cubeless equity above 0.25, the region where cube actions are decided
    (the positions of ``bgtui train dataset --cube-region`` and of
    ``evaluation/cube_agreement.py``)."""
    from bgtui.engine import equity

    return bool(0.60 <= p[0] <= 0.95 or equity(p) > 0.25)


def rolled_out_fields(nd: float, dt: float, cube_owner: str, p) -> dict:
    """The fields a rolled-out cube decision takes from its no-double and double/take
    equities ``nd``, ``dt`` (double/pass 1) and probabilities ``p``: the three equities, the
    proper action, Dahl's cube value and the wrong-decision percentages."""
    dp = 1.0
    wp, wt = wrong_decision_percent(nd, dt, dp)
    return {
        "no_double": nd,
        "double_take": dt,
        "double_pass": dp,
        "action": cube_action(nd, dt, dp, redouble=cube_owner == "player"),
        "probabilities": p,
        "dahl_cube_value": dahl_cube_value(p.win, p.win_gammon),
        "wrong_pass_percent": wp,
        "wrong_take_percent": wt,
    }


def state_values(nd3, beavers: bool = True) -> list[float]:
    """The values of the three cube states (centred, owned by the player on roll, owned by
    the opponent; 1-cube) after the player's best cube action, from his no-double values
    ``nd3``: where he has access he doubles when min(double/take, double/pass) beats playing
    on; double/take is twice the opponent-owned value, beavered (twice again) when it is
    negative with the cube centred. These are Dahl's cube-state equities."""
    dt = 2.0 * float(nd3[2])
    dt_centred = 2.0 * dt if (beavers and dt < 0.0) else dt
    return [
        max(float(nd3[0]), min(dt_centred, 1.0)),
        max(float(nd3[1]), min(dt, 1.0)),
        float(nd3[2]),
    ]


def decide(
    probs,
    board,
    cube_owner: str = "centred",
    jacoby: bool = True,
    beavers: bool = True,
    x: float | None = None,
    nd3=None,
) -> dict:
    """Janowski cube decision for the player on roll of ``board`` with probabilities ``probs``
    (or, given ``nd3``, the no-double equities of the three cube states from cubeful
    lookahead, ``bgtui.engine.cubeful``: the decision compares them; the points stay the
    model's, from ``probs``).

    Returns ``{"no_double", "double_take", "double_pass", "action", "cubeful", "centred",
    "owned", "opponent_owned", "no_double_centred", "no_double_owned", "efficiency",
    "take_point", "cash_point", "too_good_point", "wrong_pass_percent",
    "wrong_take_percent", "dahl", "exact", "cube_access"}``; equities on a 1-cube, for the
    player on roll; ``centred``, ``owned``, ``opponent_owned`` the cube states' values after
    his best cube action (:func:`state_values`), ``no_double_*`` those of playing on; the
    points as his winning chances (:func:`cube_points`). When the opponent owns the cube
    (``cube_access`` False) the action is "No double" and the double/take and double/pass
    figures are what a double would give if he could double (the command line and the
    screens do not show them).
    """
    import numpy as np

    from bgtui.engine import cube_efficiency, cube_equities, win_loss_sizes

    p = np.asarray(probs, dtype=np.float64)
    board = np.ascontiguousarray(board, dtype=np.int8)
    if x is None:
        x = float(cube_efficiency(board))
    exact = exact_cube_equities(board)
    if exact is not None:
        # two-sided bear-off database: optimal cube play, no model; ``nd3`` the values of
        # not doubling now (the opponent rolls next with the cube as it is)
        nd3 = exact[1]
    elif nd3 is None:
        nd3 = np.zeros(3)
        cube_equities(p, x, jacoby, nd3)  # Janowski: the state's value of playing on
    states = state_values(nd3, beavers)
    W, L = win_loss_sizes(p)
    tp, cp, tg = cube_points(float(W), float(L), x, cube_owner, jacoby)
    dp = 1.0
    # the opponent-owned state counts gammons whatever the Jacoby rule (the cube has turned)
    dt = 2.0 * float(nd3[2])
    if beavers and dt < 0.0 and cube_owner == "centred":
        dt *= 2.0  # the taker beavers: cube on 4, owned by him
    if cube_owner == "opponent":
        nd = float(nd3[2])
        action = NO_DOUBLE
        cubeful = nd
    else:
        nd = float(nd3[0] if cube_owner == "centred" else nd3[1])
        action = cube_action(nd, dt, dp, redouble=cube_owner == "player")
        cubeful = max(nd, min(dt, dp))
    access = cube_owner != "opponent"
    # without access to the cube (the opponent owns it) there is no double to weigh: no
    # wrong-pass / wrong-take figures
    wp, wt = wrong_decision_percent(nd, dt, dp) if access else (None, None)
    return {
        "no_double": nd,
        "double_take": dt,
        "double_pass": dp,
        "action": action,
        "cubeful": cubeful,
        "centred": states[0],
        "owned": states[1],
        "opponent_owned": states[2],
        "no_double_centred": float(nd3[0]),
        "no_double_owned": float(nd3[1]),
        "efficiency": x,
        "take_point": tp,
        "cash_point": cp,
        "too_good_point": tg,
        "wrong_pass_percent": wp,
        "wrong_take_percent": wt,
        "dahl": dahl_cube_value(float(p[0]), float(p[1])),
        "exact": exact is not None,
        "cube_access": access,
    }


def exact_cube_equities(board):
    """``(cubeful, no_double)`` from the two-sided bear-off database, or None: each
    float64[3] (centred, owned, opponent owned); ``cubeful`` is the value before the player's
    cube decision (optimal), ``no_double`` the value of not doubling now."""
    import numpy as np

    from bgtui.engine import is_two_sided, two_sided_cubeful, two_sided_no_double

    if not is_two_sided(board):
        return None
    from bgtui.analysis.bearoff_cache import get_two_sided

    two = get_two_sided()
    out = np.zeros(3)
    nd = np.zeros(3)
    two_sided_cubeful(board, two.cubeful, out)
    two_sided_no_double(board, two.no_double, nd)
    return out, nd
