"""Number formats shared by every pane (conventions.md): 52.5%, +0.076, ±0.004."""

from __future__ import annotations

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


def se(x: Optional[float]) -> str:
    """A standard error of an equity: ``±0.004``."""
    return "" if x is None else f"±{abs(x):.3f}"


def pct_se(x: Optional[float]) -> str:
    """A standard error of a probability, in percent: ``±0.4%``."""
    return "" if x is None else f"±{100.0 * abs(x):.1f}%"


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
