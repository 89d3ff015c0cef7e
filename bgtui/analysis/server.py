"""A resident engine for the command line: ``bgtui serve`` keeps the kernels, weights and
bear-off databases loaded, and ``bgtui eval | moves | cube`` hand their query to it
instead of loading everything again (about 1 s a process; with the server a query takes the
time of its evaluation).

The protocol is one JSON line each way over a Unix socket that only the user can reach:
``{"argv": [...], "version": V}`` -> ``{"code": C, "stdout": "...", "stderr": "..."}`` (or
``{"refused": "why"}``). The client side imports nothing heavy (no numpy, no numba), and falls
back to answering in-process whenever no server answers, a server of another version answers, or
anything goes wrong: the server is an accelerator, never a dependency.

A query that found no server starts one in the background (:func:`spawn`) that stops after
``$BGTUI_SERVER_IDLE`` seconds without a query (default 600; 0 starts none), so that the next
query within that time answers at once; ``BGTUI_NO_SERVER=1`` neither asks nor starts one.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import socket
import sys
import tempfile
from pathlib import Path
from typing import Callable, Optional

#: commands a server may answer (quick queries; rollouts and training stay in-process, where
#: their progress output goes to the terminal)
SERVED = ("eval", "moves", "cube")
_MAX_REQUEST = 1 << 20


def default_socket() -> Path:
    """``$BGTUI_SOCKET``, else ``bgtui-<uid>/server.sock`` in ``$XDG_RUNTIME_DIR`` (or the
    temporary directory)."""
    env = os.environ.get("BGTUI_SOCKET")
    if env:
        return Path(env)
    base = os.environ.get("XDG_RUNTIME_DIR") or tempfile.gettempdir()
    uid = os.getuid() if hasattr(os, "getuid") else 0
    return Path(base) / f"bgtui-{uid}" / "server.sock"


_FINGERPRINT: list = []


def fingerprint(contents: bool = False) -> str:
    """The package version and a digest of its code, styles and weights (every ``.py``,
    ``.npz`` and ``.tcss`` file under ``bgtui/`` and ``weights/``).

    By default the digest is of each file's path, size and modification time (stat calls only,
    about a millisecond): enough to tell that this install changed. With ``contents`` it is of
    each file's path relative to the install and its bytes, the same on every machine that
    has the same install (a cluster's workers compare it with the client's)."""
    import hashlib

    import bgtui
    from bgtui import __version__

    h = hashlib.sha256()
    root = Path(bgtui.__file__).resolve().parent
    for d in (root, root.parent / "weights"):
        if not d.is_dir():
            continue
        for f in sorted(d.rglob("*")):
            if f.suffix in (".py", ".npz", ".tcss") and "__pycache__" not in f.parts:
                if contents:
                    h.update(f"{f.relative_to(root.parent).as_posix()}:".encode())
                    h.update(hashlib.sha256(f.read_bytes()).digest())
                else:
                    st = f.stat()
                    h.update(f"{f}:{st.st_size}:{st.st_mtime_ns};".encode())
    return f"{__version__}+{h.hexdigest()[:16]}"


def _version() -> str:
    """:func:`fingerprint` of this process's install, taken once: a server started before
    the code was edited or the weights replaced refuses, and the client answers itself."""
    if not _FINGERPRINT:
        _FINGERPRINT.append(fingerprint())
    return _FINGERPRINT[0]


def _read_line(conn: socket.socket) -> bytes:
    buf = bytearray()
    while not buf.endswith(b"\n"):
        chunk = conn.recv(65536)
        if not chunk:
            break
        buf += chunk
        if len(buf) > _MAX_REQUEST:
            raise ValueError("request too long")
    return bytes(buf)


def request(argv: list[str], path: Optional[Path] = None,
            timeout: float = 3600.0) -> Optional[tuple[int, str, str]]:
    """Ask the server at ``path`` to run ``bgtui argv``; ``(code, stdout, stderr)``, or None
    when no server of this version answered (then the caller runs the command itself)."""
    path = Path(path) if path is not None else default_socket()
    if not hasattr(socket, "AF_UNIX") or not path.exists():
        return None
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(0.5)
            s.connect(str(path))
            s.settimeout(timeout)
            s.sendall((json.dumps({"argv": list(argv), "version": _version()}) + "\n").encode())
            reply = json.loads(_read_line(s).decode() or "{}")
    except (OSError, ValueError):
        return None
    if "code" not in reply:
        return None  # refused (another version) or cut short
    return int(reply["code"]), str(reply.get("stdout", "")), str(reply.get("stderr", ""))


def _prepare(path: Path) -> None:
    """A private directory for the socket; a stale socket (no server behind it) is removed."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    if path.parent.stat().st_uid != (os.getuid() if hasattr(os, "getuid") else 0):
        raise OSError(f"{path.parent} belongs to another user")
    os.chmod(path.parent, 0o700)
    if path.exists():
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(0.5)
            try:
                s.connect(str(path))
            except OSError:
                path.unlink()  # stale
                return
        raise OSError(f"a bgtui server is already running at {path}")


def serve(run: Callable[[list[str]], int], path: Optional[Path] = None,
          ready: Optional[Callable[[Path], None]] = None,
          max_requests: Optional[int] = None, idle_exit: Optional[float] = None,
          prepare: Optional[Callable[[], None]] = None) -> int:
    """Answer requests one at a time with ``run(argv)`` (its output captured) until killed
    (or after ``max_requests``, or after ``idle_exit`` seconds without a request).

    The socket is bound first, so that a second server started at the same moment finds it
    taken and stops; then ``prepare()`` (loading the engine: a client that connects meanwhile
    waits for it instead of loading its own), then ``ready(path)``, then the answers."""
    if not hasattr(socket, "AF_UNIX"):
        raise OSError("this system has no Unix sockets")
    path = Path(path) if path is not None else default_socket()
    _prepare(path)
    done = 0
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as srv:
        old = os.umask(0o177)
        try:
            srv.bind(str(path))
        finally:
            os.umask(old)
        try:
            srv.listen(16)
            _version()  # the fingerprint of the code this server runs, not of later edits
            if prepare is not None:
                prepare()
            if ready is not None:
                ready(path)
            srv.settimeout(idle_exit)
            while max_requests is None or done < max_requests:
                try:
                    conn, _ = srv.accept()
                except socket.timeout:
                    break  # idle for idle_exit seconds
                conn.settimeout(None)
                with conn:
                    outdated = _answer(conn, run)
                done += 1
                if outdated and idle_exit is not None:
                    break  # a started server of older code gives way to the client's
        finally:
            with contextlib.suppress(OSError):
                path.unlink()
    return 0


def _answer(conn: socket.socket, run: Callable[[list[str]], int]) -> bool:
    """Answer one request; True if it came from a client of other code than the server's."""
    outdated = False
    try:
        req = json.loads(_read_line(conn).decode() or "{}")
        argv = req.get("argv")
        if req.get("version") != _version():
            outdated = isinstance(req.get("version"), str)
            reply = {"refused": f"server runs bgtui {_version()}, client {req.get('version')}"}
        elif (not isinstance(argv, list) or not argv or argv[0] not in SERVED
              or not all(isinstance(a, str) for a in argv)):
            reply = {"refused": "not a query this server answers"}
        else:
            out, err = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                try:
                    code = run(argv)
                except SystemExit as exc:  # argparse's errors
                    code = exc.code if isinstance(exc.code, int) else 2
                except Exception as exc:  # a bug answers as an error; the server carries on
                    print(f"bgtui: error: {type(exc).__name__}: {exc}", file=sys.stderr)
                    code = 1
            reply = {"code": code, "stdout": out.getvalue(), "stderr": err.getvalue()}
        conn.sendall((json.dumps(reply) + "\n").encode())
    except (OSError, ValueError):
        pass  # the client went away or sent garbage: nothing to answer
    return outdated


#: seconds a server started by a query waits for the next one before it stops
DEFAULT_IDLE = 600.0


def auto_idle() -> float:
    """``$BGTUI_SERVER_IDLE`` (seconds; 0 or less: queries start no server), default
    :data:`DEFAULT_IDLE`; an unreadable value counts as the default."""
    try:
        return float(os.environ.get("BGTUI_SERVER_IDLE", DEFAULT_IDLE))
    except ValueError:
        return DEFAULT_IDLE


def spawn(idle: float, path: Optional[Path] = None) -> bool:
    """Start ``bgtui serve --idle-exit idle`` detached (its own session, no terminal, output
    discarded). A server already answering at ``path`` makes it stop at once (see
    :func:`_prepare`); one of older code has just stopped after refusing the client. True if
    a process was started; any failure is silent (the server is only an accelerator)."""
    import subprocess

    path = Path(path) if path is not None else default_socket()
    if not hasattr(socket, "AF_UNIX"):
        return False
    try:
        subprocess.Popen([sys.executable, "-m", "bgtui.cli", "serve", "--idle-exit", str(idle),
                          "--socket", str(path)],
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, start_new_session=True, close_fds=True)
    except OSError:
        return False
    return True
