"""The ``bgtui`` command line: one entry point, subcommands over the analysis services.

Every analysis command prints JSON with ``--json`` and reads ``--batch FILE`` (``-`` for
standard input): one query per line (``POSITION [DICE]``), one JSON object per output line,
flushed at once; a bad line gets ``{"error": "..."}`` and the batch goes on.
"""

from __future__ import annotations

import argparse
import io
import os
import sys
from collections.abc import Callable

from bgtui.cli import train
from bgtui.cli.client import _served
from bgtui.cli.commands import (
    EXAMPLE_POSITION,
    Interrupted,
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
    parser.add_argument(
        "--theme", default=None, help="app theme (bgtui-dark, bgtui-light, bgtui-16)"
    )
    parser.add_argument("--weights", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--fake", action="store_true", help=argparse.SUPPRESS)
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)

    def add(name, help_, example):
        return sub.add_parser(
            name,
            help=help_,
            description=help_,
            epilog=f"example:\n  {example}",
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )

    add_parsers(add)
    train.add_parser(add)
    return parser


def _version() -> str:
    from bgtui import __version__

    return f"bgtui {__version__}"


def _run_batch(args, func, an, out) -> int:
    """One JSON line per input line, whatever its bytes (``bgtui.analysis.batch``); a line
    that fails for any reason gets ``{"error": ...}`` and the batch goes on."""
    from bgtui.analysis.batch import json_line, parse_line, read_lines

    if args.batch == "-":
        src = getattr(sys.stdin, "buffer", None)
        if src is None:  # a text stream standing in for standard input
            src = io.BytesIO(sys.stdin.read().encode("utf-8", "surrogateescape"))
        close = False
    else:
        try:
            src = open(args.batch, "rb")
        except OSError as exc:
            raise UserError(f"cannot read batch file {args.batch!r}: {exc.strerror}") from None
        close = True
    args.json = True
    try:
        for raw, length in read_lines(src):
            fields, error = parse_line(raw, length)
            if error is None:
                try:
                    result = func(args, fields, an)
                except UserError as exc:
                    result = {"error": str(exc)}
                except Interrupted as exc:
                    out.write(json_line(exc.result) + "\n")
                    out.flush()
                    print(f"bgtui: {exc.message}", file=sys.stderr)
                    return exc.code
                except (KeyboardInterrupt, SystemExit):
                    raise
                except Exception as exc:  # noqa: BLE001 - a line never ends the batch
                    result = {
                        "error": f"cannot answer this line: {type(exc).__name__}: {str(exc)[:200]}"
                    }
            else:
                result = {"error": error}
            out.write(json_line(result) + "\n")
            out.flush()
    except BrokenPipeError:
        raise  # the output's reader went away (see _run)
    except OSError as exc:
        raise UserError(f"cannot read batch file {args.batch!r}: {exc.strerror}") from None
    finally:
        if close:
            src.close()
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
    try:
        return _run_command(args)
    except BrokenPipeError:  # the reader went away: stop quietly, as a Unix filter does
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError, io.UnsupportedOperation):
            pass
        return 141


def _run_command(args) -> int:
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
    except Interrupted as exc:
        _print_result(out, exc.result)
        print(f"bgtui: {exc.message}", file=sys.stderr)
        return exc.code
    except KeyboardInterrupt:
        return 130
    if isinstance(result, int):
        return result
    _print_result(out, result)
    return 0


def _print_result(out, result) -> None:
    from bgtui.analysis.batch import json_line

    if result is not None:
        out.write((json_line(result) if isinstance(result, dict) else str(result)) + "\n")
        out.flush()


__all__ = ["EXAMPLE_POSITION", "UserError", "build_parser", "main"]
