"""Kinds of contact position a training set can be drawn from (``train dataset --theme``).

Each theme is a test of a board from either side (a position has the theme when one of the
two sides has it), vectorised over ``int8[N, 26]`` positions in the layout of
``engine.constants``: slots 1..24 the points from the side on roll's view (his home board 1..6,
the opponent's 19..24), slot 25 his bar, slot 0 the opponent's bar (negative counts).

- ``blitz``: the side attacks checkers on the bar: the other side has a checker on the bar
  against 4 or more of the side's home points made, or two on the bar against 3 or more.
- ``prime``: the side has 5 or more consecutive points made with an opposing checker behind
  them (on the bar or on a point below the prime's lowest point, from the side's view).
- ``backgame``: the side holds 2 or more points in the opponent's home board and trails
  the race by 40 pips or more.
- ``holding``: the side's only checkers on the opponent's side of the board (its points 18..24
  and the bar) are on one point it holds among 18..21 (the opponent's bar, 6, 5 and 4 points),
  with 3 or more of the opponent's checkers outside his home board still to come past it.
- ``late``: contact where a side has 12 or more of its checkers home or borne off.
"""

from __future__ import annotations

import numpy as np

THEMES = ("blitz", "prime", "backgame", "holding", "late")


def _swapped(positions: np.ndarray) -> np.ndarray:
    """The boards seen from the other side (``position.swap_sides`` row by row)."""
    return -positions[:, ::-1]


def _pips(positions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Pip counts of the side on roll and of the opponent."""
    p = positions.astype(np.int64)
    idx = np.arange(26)
    mine = (np.clip(p, 0, None) * idx).sum(axis=1)
    theirs = (np.clip(-p, 0, None) * (25 - idx)).sum(axis=1)
    return mine, theirs


def contact(positions: np.ndarray) -> np.ndarray:
    """Whether some checker of the side on roll has an opposing checker still to pass."""
    p = positions
    idx = np.arange(26)
    my_back = np.where(p > 0, idx, -1).max(axis=1)
    their_back = np.where(p < 0, idx, 26).min(axis=1)
    return my_back > their_back


def _blitz(p: np.ndarray) -> np.ndarray:
    home = (p[:, 1:7] >= 2).sum(axis=1)
    on_bar = -p[:, 0]
    return ((on_bar >= 1) & (home >= 4)) | ((on_bar >= 2) & (home >= 3))


def _prime(p: np.ndarray) -> np.ndarray:
    made = p[:, 1:25] >= 2  # made[:, j]: point j + 1
    run = np.zeros(len(p), dtype=np.int64)
    found = np.zeros(len(p), dtype=bool)
    idx = np.arange(26)
    their_back = np.where(p < 0, idx, 26).min(axis=1)  # 0: on the bar
    for j in range(24):
        run = np.where(made[:, j], run + 1, 0)
        low = j + 2 - run  # the prime's lowest point, when run >= 5
        found |= (run >= 5) & (their_back < low)
    return found


def _backgame(p: np.ndarray) -> np.ndarray:
    held = (p[:, 19:25] >= 2).sum(axis=1)
    mine, theirs = _pips(p)
    return (held >= 2) & (mine - theirs >= 40)


def _holding(p: np.ndarray) -> np.ndarray:
    back = p[:, 18:26] > 0  # points 18..24 and the bar
    anchor = (p[:, 18:22] >= 2).any(axis=1)
    outside = np.clip(-p[:, 0:19], 0, None).sum(axis=1)  # his bar and points 18..24 of his own
    return (back.sum(axis=1) == 1) & anchor & (outside >= 3)


def _late(p: np.ndarray) -> np.ndarray:
    mine = np.clip(p, 0, None)
    home_or_off = mine[:, 1:7].sum(axis=1) + 15 - mine.sum(axis=1)
    return home_or_off >= 12


_TESTS = {
    "blitz": _blitz,
    "prime": _prime,
    "backgame": _backgame,
    "holding": _holding,
    "late": _late,
}


def theme_sides(positions, name: str) -> tuple[np.ndarray, np.ndarray]:
    """Whether each of ``positions`` (``int8[N, 26]``, in contact or not) is a contact
    position where the side on roll has theme ``name``, and one where the other side has it."""
    if name not in _TESTS:
        raise ValueError(f"unknown theme {name!r}: choose from {', '.join(THEMES)}")
    p = np.asarray(positions, dtype=np.int64).reshape(-1, 26)
    test, c = _TESTS[name], contact(p)
    return c & test(p), c & test(_swapped(p))


def theme_mask(positions, name: str) -> np.ndarray:
    """Whether each of ``positions`` is a contact position with theme ``name`` for one side or
    the other (:func:`theme_sides`)."""
    on_roll, other = theme_sides(positions, name)
    return on_roll | other


def themes_mask(positions, names) -> np.ndarray:
    """Whether each of ``positions`` has one of the themes ``names`` (:func:`theme_mask`)."""
    p = np.asarray(positions, dtype=np.int64).reshape(-1, 26)
    hit = np.zeros(len(p), dtype=bool)
    for name in names:
        hit |= theme_mask(p, name)
    return hit


def parse_themes(text: str) -> tuple[str, ...]:
    """The theme names of a comma-separated ``--theme`` value, checked."""
    names = tuple(t.strip() for t in text.split(",") if t.strip())
    if not names:
        raise ValueError(f"--theme names one or more of {', '.join(THEMES)}")
    for name in names:
        if name not in _TESTS:
            raise ValueError(f"unknown theme {name!r}: choose from {', '.join(THEMES)}")
    return names
