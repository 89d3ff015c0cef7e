"""Match equity tables (MET): loading, and the match arithmetic built on them.

MWC (match winning chances) is the probability of winning the match. Scores are given as
"away" figures, the points each side still needs: ``a`` for the player on roll (or the side
asked about), ``b`` for the opponent.

The default table is Kazaross-XG2 (pre-Crawford up to 25-away and post-Crawford), shipped in
GNU Backgammon's XML MET format (``bgtui/data/met/kazaross-xg2.xml``); :func:`load_met` reads
another file in that format (explicit tables). The engine's kernels take the table as one
float64 array (:attr:`MatchEquityTable.array`, see ``bgtui.engine.match``).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

DEFAULT_MET = Path(__file__).resolve().parent.parent / "data" / "met" / "kazaross-xg2.xml"


class METError(ValueError):
    """A file that is not a usable match equity table."""


@dataclass(frozen=True)
class MatchEquityTable:
    """``pre[i, j]``: MWC of the side ``i + 1``-away against ``j + 1``-away before a game
    (row or column 0: the Crawford game); ``post[j]``: MWC of a ``j + 1``-away trailer against
    a 1-away leader after the Crawford game."""

    name: str
    pre: np.ndarray
    post: np.ndarray

    @property
    def length(self) -> int:
        """The longest match (in points still needed) the table covers."""
        return self.pre.shape[0]

    @property
    def array(self) -> np.ndarray:
        """float64[N + 1, N]: the pre-Crawford rows, then the post-Crawford row (the kernels'
        layout, ``bgtui.engine.match``)."""
        a = getattr(self, "_array", None)
        if a is None:
            a = np.ascontiguousarray(np.vstack([self.pre, self.post[None, :]]), dtype=np.float64)
            a.flags.writeable = False
            object.__setattr__(self, "_array", a)
        return a

    # -- the arithmetic (plain Python, the same rules as the kernels) --------------------------
    def mwc(self, a: int, b: int, crawford: bool = False) -> float:
        """MWC at the start of a game, ``a``-away against ``b``-away; ``crawford``: with a side
        1-away, whether this game is the Crawford game (else post-Crawford)."""
        self._check(a, b)
        if a <= 0:
            return 1.0
        if b <= 0:
            return 0.0
        if a == 1 and b == 1:
            return 0.5
        if a == 1:
            return float(self.pre[0, b - 1]) if crawford else 1.0 - float(self.post[b - 1])
        if b == 1:
            return float(self.pre[a - 1, 0]) if crawford else float(self.post[a - 1])
        return float(self.pre[a - 1, b - 1])

    def after(self, a: int, b: int, won: int) -> float:
        """MWC after the game ends with the side ``a``-away winning ``won`` points (negative:
        losing). The next game is the Crawford game when a side has just reached 1-away."""
        a2, b2 = (a - won, b) if won > 0 else (a, b + won)
        return self.mwc(a2, b2, crawford=(a2 == 1 and a > 1) or (b2 == 1 and b > 1))

    def outcomes(self, a: int, b: int, cube: int = 1) -> dict:
        """MWC after winning or losing 1, 2 or 3 times the cube: ``{"win": [w1, w2, w3],
        "lose": [l1, l2, l3]}`` (a side never gets more than the match)."""
        return {
            "win": [self.after(a, b, k * cube) for k in (1, 2, 3)],
            "lose": [self.after(a, b, -k * cube) for k in (1, 2, 3)],
        }

    def take_point(self, a: int, b: int, cube: int = 1, live: bool = False, gammons=None) -> float:
        """The winning chance the side ``a``-away needs to take a double from ``cube`` to
        ``2 cube`` (it then owns the cube). Dead cube: the MWC of passing against those of
        winning and losing at ``2 cube``; live: the model's fully live cube, the taker
        redoubling at his cash point (``bgtui.engine.match.match_points``). ``gammons``: the
        five probabilities whose gammon rates count (default none)."""
        tp, _ = self._points(a, b, cube, live, gammons)
        return tp

    def cash_point(self, a: int, b: int, cube: int = 1, live: bool = False, gammons=None) -> float:
        """The winning chance above which the side ``a``-away, doubling from ``cube`` to
        ``2 cube``, has the opponent pass (the opponent's take point, seen from the doubler)."""
        _, cp = self._points(a, b, cube, live, gammons)
        return cp

    def _points(self, a, b, cube, live, gammons):
        from bgtui.engine import POINT_ROWS, match_points, win_lose_mwc

        self._check(a, b)
        p = _rates(gammons)
        met = self.array
        if live:
            tp = np.zeros(POINT_ROWS)
            hi = np.zeros(POINT_ROWS)
            match_points(p, met, int(a), int(b), int(cube), tp, hi)
            return float(tp[1]), float(hi[1])
        v = 2 * cube
        win, lose = win_lose_mwc(p, met, int(a), int(b), int(v))
        tp = (self.after(a, b, -cube) - lose) / (win - lose)
        cp = (self.after(a, b, cube) - lose) / (win - lose)
        return float(tp), float(cp)

    def _check(self, a, b):
        n = self.length
        if a > n or b > n:
            raise ValueError(
                f"the match equity table {self.name!r} covers scores up to "
                f"{n}-away, not {max(a, b)}-away"
            )


def _rates(gammons) -> np.ndarray:
    if gammons is None:
        return np.array([0.5, 0.0, 0.0, 0.0, 0.0])
    return np.asarray(gammons, dtype=np.float64)


def _numbers(elem, what: str, path) -> list[float]:
    out = []
    for me in elem.iter("me"):
        try:
            out.append(float((me.text or "").strip()))
        except ValueError:
            raise METError(
                f"{path}: not a match equity table ({what}: {me.text!r} is not a number)"
            ) from None
    return out


def parse_met_xml(text: str, path="MET") -> MatchEquityTable:
    """A table from GNU Backgammon's XML MET format (``met.dtd``): explicit pre-Crawford rows
    (a square table) and an explicit post-Crawford row (``player="both"`` or the first
    player's)."""
    try:
        root = ET.fromstring(text)
    except ET.ParseError as exc:
        raise METError(f"{path}: not a match equity table (not XML: {exc})") from None
    if root.tag != "met":
        raise METError(
            f"{path}: not a match equity table (root element <{root.tag}>, expected <met>)"
        )
    name = (root.findtext("info/name") or Path(str(path)).stem).strip()
    pre_el = root.find("pre-crawford-table")
    if pre_el is None:
        raise METError(f"{path}: not a match equity table (no <pre-crawford-table>)")
    kind = pre_el.get("type", "explicit")
    if kind != "explicit":
        raise METError(
            f"{path}: pre-Crawford table of type {kind!r}: only explicit tables are read"
        )
    rows = [_numbers(r, "pre-Crawford", path) for r in pre_el.findall("row")]
    n = len(rows)
    if n < 2 or any(len(r) < n for r in rows):
        raise METError(
            f"{path}: not a match equity table (the pre-Crawford table must be "
            f"square, at least 2 x 2; got {n} rows)"
        )
    pre = np.array([r[:n] for r in rows], dtype=np.float64)
    posts = root.findall("post-crawford-table")
    if not posts:
        raise METError(f"{path}: not a match equity table (no <post-crawford-table>)")
    post_el = next((e for e in posts if e.get("player", "both") in ("both", "0")), posts[0])
    if post_el.get("type", "explicit") != "explicit":
        raise METError(
            f"{path}: post-Crawford table of type {post_el.get('type')!r}: only "
            "explicit tables are read"
        )
    rows = post_el.findall("row")
    post = _numbers(rows[0] if rows else post_el, "post-Crawford", path)
    if len(post) < n:
        raise METError(
            f"{path}: not a match equity table (post-Crawford row has {len(post)} "
            f"entries, the pre-Crawford table {n})"
        )
    t = MatchEquityTable(name=name, pre=pre, post=np.array(post[:n], dtype=np.float64))
    _validate(t, path)
    return t


def _validate(t: MatchEquityTable, path) -> None:
    pre, post = t.pre, t.post
    if not (
        np.all(np.isfinite(pre))
        and np.all((pre >= 0) & (pre <= 1))
        and np.all(np.isfinite(post))
        and np.all((post >= 0) & (post <= 1))
    ):
        raise METError(
            f"{path}: not a match equity table (entries must be probabilities between 0 and 1)"
        )
    if np.max(np.abs(pre + pre.T - 1.0)) > 2e-3:
        i, j = np.unravel_index(np.argmax(np.abs(pre + pre.T - 1.0)), pre.shape)
        raise METError(
            f"{path}: not a match equity table ({i + 1}-away {j + 1}-away and "
            f"{j + 1}-away {i + 1}-away do not add up to 1)"
        )


def load_met(path) -> MatchEquityTable:
    """Read a table in GNU Backgammon's XML MET format; :class:`METError` (one line) when the
    file is missing or is not one."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise METError(
            f"cannot read match equity table {str(path)!r}: {exc.strerror or exc}"
        ) from None
    return parse_met_xml(text, path)


@lru_cache(maxsize=8)
def _load_cached(path: str, mtime: float) -> MatchEquityTable:
    return load_met(path)


def get_met(path: str | None = None) -> MatchEquityTable:
    """The table of ``path`` (default: Kazaross-XG2), read once per process."""
    p = Path(path) if path else DEFAULT_MET
    try:
        mtime = p.stat().st_mtime
    except OSError:
        return load_met(p)  # raises the one-line error
    return _load_cached(str(p), mtime)
