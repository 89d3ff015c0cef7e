"""Number formats shared by every pane (conventions.md): 52.5%, +0.076, ±0.004."""

from __future__ import annotations

import math
from typing import Optional

OWNER_TEXT = {
    "centred": "centred",
    "player": "owned by the player on roll",
    "opponent": "owned by the opponent",
}


def pct(x: Optional[float]) -> str:
    """A probability as a percentage with one decimal: ``52.5%``."""
    return "" if x is None else f"{100.0 * x:.1f}%"


def eq(x: Optional[float]) -> str:
    """An equity with sign and three decimals: ``+0.076``."""
    if x is None:
        return ""
    s = f"{x:+.3f}"
    return "+0.000" if s == "-0.000" else s


def _small(v: float, decimals: int) -> str:
    """``v`` (>= 0) with ``decimals`` decimals, or with two significant digits when it would
    round to zero: a standard error of 0.00043 is "0.00043", not "0.000"."""
    if v == 0.0 or v >= 0.5 * 10.0 ** -decimals:
        return f"{v:.{decimals}f}"
    digits = min(8, 1 - math.floor(math.log10(v)))
    return f"{v:.{digits}f}"


def se(x: Optional[float]) -> str:
    """A standard error of an equity: ``±0.004`` (``±0.00043`` when it is that small)."""
    return "" if x is None else f"±{_small(abs(x), 3)}"


def pct_se(x: Optional[float]) -> str:
    """A standard error of a probability, in percent: ``±0.4%`` (``±0.043%`` when it is that
    small; ``±0.0%`` only when it is zero)."""
    return "" if x is None else f"±{_small(100.0 * abs(x), 1)}%"


def dice_text(dice) -> str:
    return "not rolled" if not dice else f"{max(dice)}{min(dice)}"


def rate(x: float) -> str:
    return f"{x:,.0f}"


def duration(seconds: Optional[float]) -> str:
    if seconds is None:
        return "?"
    s = int(round(seconds))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60:02d} s"
    return f"{s // 3600} h {(s % 3600) // 60:02d} min"
