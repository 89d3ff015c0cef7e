"""Validation of numeric options, shared by every command's options (``type=`` of argparse).

A value is read from ASCII digits only (``int`` and ``float`` would take other scripts' digits,
``_`` separators, ``inf`` and ``nan``), must be finite and lie in the option's range, and a
count must be a whole number. A bad value gets one line naming the option's range, e.g.
``argument --top: must be a whole number from 0 to 1000, got '-3'``.
"""

from __future__ import annotations

import argparse
import math
import re

#: bounds of rollout settings (inclusive): trials, the seed (a 63-bit number), rolls of a
#: trial, worker threads, seconds
MAX_TRIALS = 1_000_000_000
MAX_SEED = 2**63 - 1
MAX_ROLLS = 100_000
MAX_WORKERS = 1024
MAX_SECONDS = 10.0 * 365 * 86400

_WHOLE = re.compile(r"[+-]?[0-9]{1,19}")
_REAL = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]{1,3})?")


def _quote(text: str) -> str:
    return repr(text[:40]) + ("..." if len(text) > 40 else "")


def whole(lo: int, hi: int):
    """An argparse type: a whole number from ``lo`` to ``hi``."""

    def parse(text: str) -> int:
        t = str(text).strip()
        if not _WHOLE.fullmatch(t) or not lo <= int(t) <= hi:
            raise argparse.ArgumentTypeError(
                f"must be a whole number from {lo} to {hi}, got {_quote(str(text))}"
            )
        return int(t)

    parse.__name__ = f"whole number {lo}-{hi}"
    return parse


def real(lo: float, hi: float, positive: bool = False):
    """An argparse type: a finite number from ``lo`` to ``hi`` (above 0 if ``positive``)."""

    def parse(text: str) -> float:
        t = str(text).strip()
        v = float(t) if _REAL.fullmatch(t) else math.nan
        if not math.isfinite(v) or not lo <= v <= hi or (positive and v <= 0):
            rng = f"above 0 and at most {hi:g}" if positive else f"from {lo:g} to {hi:g}"
            raise argparse.ArgumentTypeError(
                f"must be a finite number {rng}, got {_quote(str(text))}"
            )
        return v

    parse.__name__ = f"number {lo:g}-{hi:g}"
    return parse


def script_parser(
    description: str | None = None, helps: dict | None = None, **defaults
) -> argparse.ArgumentParser:
    """The argument parser of a script beside the package (benchmarks, evaluation, research):
    an option ``--name`` (underscores written as dashes) for each keyword, read as its default
    is typed, with the checks above: a whole number from 0 (an int default), a finite number
    from 0 (a float), a flag (False), text (a str or None); ``helps`` maps names to their help
    texts. Other options are added to the parser as usual."""
    ap = argparse.ArgumentParser(description=description)
    helps = helps or {}
    for name, default in defaults.items():
        flag, kw = "--" + name.replace("_", "-"), {"help": helps.get(name)}
        if isinstance(default, bool):
            ap.add_argument(flag, action="store_true", **kw)
        elif isinstance(default, int):
            ap.add_argument(flag, type=whole(0, MAX_SEED), default=default, **kw)
        elif isinstance(default, float):
            ap.add_argument(flag, type=real(0.0, 1e300), default=default, **kw)
        else:
            ap.add_argument(flag, default=default, **kw)
    return ap
