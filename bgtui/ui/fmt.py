"""Number formats shared by every pane (:mod:`bgtui.analysis.numbers`, the same as the command
line's): 52.5%, +0.076, ±0.004."""

from __future__ import annotations

from bgtui.analysis.numbers import duration, eq, mwc, mwc_diff, pct, pct_se, rate, se

__all__ = [
    "dice_text",
    "duration",
    "eq",
    "match_pair",
    "mwc",
    "mwc_diff",
    "mwc_first",
    "pct",
    "pct_se",
    "rate",
    "se",
]


def dice_text(dice) -> str:
    return "not rolled" if not dice else f"{max(dice)}{min(dice)}"


def mwc_first(widget) -> bool:
    """Whether the panes show MWC before EMG at a match score (the app's ``mwc_first``
    setting; True when there is none)."""
    return bool(getattr(getattr(widget.app, "settings", None), "mwc_first", True))


def match_pair(mwc_value: float, emg: float, first: bool = True) -> str:
    """ "57.32% +0.146" (MWC first) or "+0.146 57.32%" (EMG first)."""
    a, b = mwc(mwc_value), eq(emg)
    return f"{a} {b}" if first else f"{b} {a}"
