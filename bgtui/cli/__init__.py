"""The ``bgtui`` command line: one entry point, subcommands over the analysis services.

Every analysis command prints JSON with ``--json`` and reads ``--batch FILE`` (``-`` for
standard input): one query per line (``POSITION [DICE]``), one JSON object per output line,
flushed at once; a bad line gets ``{"error": "..."}`` and the batch goes on.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable

from bgtui.cli import train
from bgtui.cli.client import _served
from bgtui.cli.commands import (
    EXAMPLE_POSITION,
    UserError,
    _analyzer,
    _Parser,
    add_parsers,
    cmd_app,
    cmd_cube,
    cmd_eval,
    cmd_moves,
    cmd_rollout,
    cmd_show,
)

EXAMPLE_TEXT = """examples:
  bgtui                                   start the app on the opening position
  bgtui show 4HPwATDgc/ABMA               the board, pip counts and both IDs
  bgtui moves 4HPwATDgc/ABMA 31 --ply 1   every legal play of 31, ranked
  bgtui eval 'XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10' --json
  echo '4HPwATDgc/ABMA 31' | bgtui moves --batch - --json
  bgtui rollout 4HPwATDgc/ABMA --dice 31 --top 3 --truncate 7 --trials 1296

Positions may be a GNU Backgammon Position ID, POSID:MATCHID, or an XGID.
Ply counts as GNU Backgammon counts (0-ply = static evaluation; XG calls it 1-ply).
"""


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="bgtui",
        description="bgtui: a backgammon position analyser for the terminal. "
        "With no command, starts the app on the opening position.",
        epilog=EXAMPLE_TEXT,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=_version())
    parser.add_argument("--theme", default=None,
                        help="app theme (bgtui-dark, bgtui-light, bgtui-16)")
    parser.add_argument("--weights", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--fake", action="store_true", help=argparse.SUPPRESS)
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)

    def add(name, help_, example):
        return sub.add_parser(name, help=help_, description=help_, epilog=f"example:\n  {example}",
                              formatter_class=argparse.RawDescriptionHelpFormatter)

    add_parsers(add)
    train.add_parser(add)
    return parser


def _version() -> str:
    from bgtui import __version__

    return f"bgtui {__version__}"


def _run_batch(args, func, an, out) -> int:
    src = sys.stdin if args.batch == "-" else None
    try:
        f = src or open(args.batch, encoding="utf-8")
    except OSError as exc:
        raise UserError(f"cannot read batch file {args.batch!r}: {exc.strerror}") from None
    args.json = True
    with f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            try:
                result = func(args, line.split(), an)
            except (UserError, ValueError) as exc:
                result = {"error": str(exc)}
            out.write(json.dumps(result) + "\n")
            out.flush()
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    args = build_parser().parse_args(argv)
    code = _served(args, argv)
    return code if code is not None else _run(args)


def _main_here(argv: list[str]) -> int:
    """``main`` without asking a server (what the server itself runs)."""
    return _run(build_parser().parse_args(argv))


def _run(args) -> int:
    func: Callable = getattr(args, "func", cmd_app)
    out = sys.stdout
    try:
        an = _analyzer(args) if getattr(args, "needs_engine", False) else None
        if getattr(args, "batch", None):
            return _run_batch(args, func, an, out)
        query = [q for q in (getattr(args, "position", None), getattr(args, "dice", None)) if q]
        if func in (cmd_show, cmd_eval, cmd_moves, cmd_cube, cmd_rollout) and not query:
            raise UserError("give a POSITION (or --batch FILE)")
        result = func(args, query, an)
    except UserError as exc:
        print(f"bgtui: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    if isinstance(result, int):
        return result
    if result is not None:
        out.write((json.dumps(result) if isinstance(result, dict) else str(result)) + "\n")
    return 0


__all__ = ["EXAMPLE_POSITION", "UserError", "build_parser", "main"]
