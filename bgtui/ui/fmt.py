"""Number formats shared by every pane (:mod:`bgtui.analysis.numbers`, the same as the command
line's): 52.5%, +0.076, ±0.004."""

from __future__ import annotations

from bgtui.analysis.numbers import duration, eq, pct, pct_se, rate, se

__all__ = ["dice_text", "duration", "eq", "pct", "pct_se", "rate", "se"]



def dice_text(dice) -> str:
    return "not rolled" if not dice else f"{max(dice)}{min(dice)}"
