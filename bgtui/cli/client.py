"""The client side of the resident server: a quick query goes to a running ``bgtui serve``."""

from __future__ import annotations

import os
import sys

from bgtui.cli.commands import cmd_cube, cmd_eval, cmd_moves


def _servable(args) -> bool:
    """Quick queries only: a cube rollout runs here, where ctrl+c stops it and --save's path
    is the caller's."""
    return (
        getattr(args, "func", None) in (cmd_eval, cmd_moves, cmd_cube)
        and not getattr(args, "rollout", False)
        and not getattr(args, "batch", None)
        and not getattr(args, "weights", None)
        and not getattr(args, "scheduler", None)
        and not getattr(args, "met", None)  # a relative path is the client's
        and not os.environ.get("BGTUI_NO_SERVER")
    )


def _served(args, argv: list[str]) -> int | None:
    """Hand a quick query to a running ``bgtui serve``; None if none answered (then, unless
    ``$BGTUI_SERVER_IDLE`` is 0, start one in the background for the next query)."""
    if not _servable(args):
        return None
    from bgtui.analysis import server

    got = server.request(argv)
    if got is None:
        idle = server.auto_idle()
        if idle > 0:
            server.spawn(idle)
        return None
    code, out, err = got
    sys.stdout.write(out)
    sys.stderr.write(err)
    sys.stdout.flush()
    return code
