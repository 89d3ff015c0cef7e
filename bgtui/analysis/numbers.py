"""How numbers are written for people, in the command line's text output and in the app
(docs/conventions.md): 52.5%, +0.076, ±0.004, match winning chances 57.32%.

A value that rounds to zero is written without a minus sign: ``+0.000``, ``0.0%``, ``0.00%``
and ``+0.00%``, never ``-0.000``, ``-0.0%`` or ``-0.00%`` (a tiny negative difference, or a
negative zero, is no loss).
"""

from __future__ import annotations

import math


def eq(x: float | None) -> str:
    """An equity with sign and three decimals: ``+0.076``; zero is ``+0.000``."""
    if x is None:
        return ""
    s = f"{x:+.3f}"
    return "+0.000" if s == "-0.000" else s


def pct(x: float | None, width: int = 0) -> str:
    """A probability as a percentage with one decimal, ``52.5%``, the number right-aligned in
    ``width`` characters; clamped to 0-100% (rounding can leave a probability a hair outside)."""
    if x is None:
        return ""
    return f"{100.0 * min(1.0, max(0.0, x)):{width}.1f}%"


def percent(x: float) -> str:
    """A fraction as a percentage with one decimal, not clamped: ``27.3%``."""
    s = f"{100.0 * x:.1f}"
    return ("0.0" if s == "-0.0" else s) + "%"


def mwc(x: float | None, width: int = 0) -> str:
    """A match winning chance as a percentage with two decimals, ``57.32%``, the number
    right-aligned in ``width`` characters; not clamped, and zero is ``0.00%``."""
    if x is None:
        return ""
    v = 100.0 * x
    if f"{v:.2f}" == "-0.00":
        v = 0.0
    return f"{v:{width}.2f}%"


def mwc_diff(x: float | None) -> str:
    """A difference of match winning chances, in percent with sign and two decimals:
    ``-1.25%``; zero is ``+0.00%``."""
    if x is None:
        return ""
    s = f"{100.0 * x:+.2f}"
    return ("+0.00" if s == "-0.00" else s) + "%"


def _small(v: float, decimals: int) -> str:
    """``v`` (>= 0) with ``decimals`` decimals, or with two significant digits when it would
    round to zero: a standard error of 0.00043 is "0.00043", not "0.000"."""
    if v == 0.0 or v >= 0.5 * 10.0**-decimals:
        return f"{v:.{decimals}f}"
    digits = min(8, 1 - math.floor(math.log10(v)))
    return f"{v:.{digits}f}"


def _pm(x: float | None, scale: float, decimals: int, unit: str) -> str:
    """``±`` and ``|x| * scale`` as :func:`_small` writes it, then ``unit``; empty when there
    is no standard error yet (``None``, or NaN: fewer than two trials)."""
    if x is None or not math.isfinite(x):
        return ""
    return f"±{_small(scale * abs(x), decimals)}{unit}"


def se(x: float | None) -> str:
    """A standard error of an equity: ``±0.004`` (``±0.00043`` when it is that small); empty
    when there is none yet."""
    return _pm(x, 1.0, 3, "")


def pct_se(x: float | None) -> str:
    """A standard error of a probability, in percent: ``±0.4%`` (``±0.043%`` when it is that
    small; ``±0.0%`` only when it is zero); empty when there is none yet."""
    return _pm(x, 100.0, 1, "%")


def mwc_se(x: float | None) -> str:
    """A standard error of a match winning chance, in percent with two decimals as the
    chances are written: ``±0.45%``; empty when there is none yet."""
    return _pm(x, 100.0, 2, "%")


def rate(x: float) -> str:
    """A count per second with thousands separators: ``2,434``."""
    return f"{x:,.0f}"


def duration(seconds: float | None) -> str:
    """A duration rounded to the second: ``42 s``, ``3 min 05 s``, ``1 h 02 min``."""
    if seconds is None:
        return "?"
    s = int(round(seconds))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60:02d} s"
    return f"{s // 3600} h {(s % 3600) // 60:02d} min"
