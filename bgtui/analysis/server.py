"""A resident engine for the command line: ``bgtui serve`` keeps the kernels, weights and
bear-off databases loaded, and ``bgtui eval | moves | cube`` hand their query to it
instead of loading everything again (about 1 s a process; with the server a query takes the
time of its evaluation).

The protocol is one JSON line each way over a Unix socket that only the user can reach:
``{"argv": [...], "version": V}`` -> ``{"code": C, "stdout": "...", "stderr": "..."}`` (or
``{"refused": "why"}``). The client side imports nothing heavy (no numpy, no numba), and falls
back to answering in-process whenever no server answers, a server of another version answers, or
anything goes wrong: the server is an accelerator, never a dependency.

One server per socket: the server holds an exclusive ``flock`` on ``<socket>.lock`` for as long
as it runs, so a second server on the same path stops at once, whatever state the socket file is
in, and only the lock holder ever removes or binds the socket. Each connection is read on its
own thread (with a read timeout); the queries run on a pool of engine threads (the analyzer
keeps its workspaces per thread), cube rollouts on a pool of their own, so a quick query never
waits behind a long one. SIGTERM or SIGINT stops the server: it stops accepting, removes its
socket, lets the queries in flight finish for a moment and exits; a client whose query was cut
short answers it itself.

A query that found no server starts one in the background (:func:`spawn`) that stops after
``$BGTUI_SERVER_IDLE`` seconds without a query (default 600; 0 starts none), so that the next
query within that time answers at once; ``BGTUI_NO_SERVER=1`` neither asks nor starts one.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import signal
import socket
import stat
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path

#: commands a server may answer (quick queries; rollouts and training stay in-process, where
#: their progress output goes to the terminal)
SERVED = ("eval", "moves", "cube")
_MAX_REQUEST = 1 << 20
#: connections waiting to be accepted: a burst of clients queues instead of being refused
BACKLOG = 256
#: seconds a connection may take to send its request (and to take its answer)
READ_TIMEOUT = 10.0
#: connections served at once; more are closed at once (their clients answer themselves)
MAX_CONNECTIONS = 512
#: seconds the queries in flight get to finish after SIGTERM / SIGINT
SHUTDOWN_GRACE = 3.0
#: seconds a client waits for the answer to a quick query, and to a cube rollout
QUICK_TIMEOUT = 60.0
LONG_TIMEOUT = 24 * 3600.0


def default_socket() -> Path:
    """``$BGTUI_SOCKET``, else ``bgtui-<uid>/server.sock`` in ``$XDG_RUNTIME_DIR`` (or the
    temporary directory)."""
    env = os.environ.get("BGTUI_SOCKET")
    if env:
        return Path(env)
    base = os.environ.get("XDG_RUNTIME_DIR") or tempfile.gettempdir()
    uid = os.getuid() if hasattr(os, "getuid") else 0
    return Path(base) / f"bgtui-{uid}" / "server.sock"


def lock_path(path: Path) -> Path:
    """The lock file of the server at socket ``path``."""
    path = Path(path)
    return path.with_name(path.name + ".lock")


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


def _is_long(argv) -> bool:
    return "--rollout" in argv


def request(
    argv: list[str], path: Path | None = None, timeout: float | None = None
) -> tuple[int, str, str] | None:
    """Ask the server at ``path`` to run ``bgtui argv``; ``(code, stdout, stderr)``, or None
    when no server of this version answered (then the caller runs the command itself).
    ``timeout``: seconds to wait for the answer (default :data:`QUICK_TIMEOUT`, or
    :data:`LONG_TIMEOUT` for a cube rollout)."""
    path = Path(path) if path is not None else default_socket()
    if not hasattr(socket, "AF_UNIX") or not path.exists():
        return None
    if timeout is None:
        timeout = LONG_TIMEOUT if _is_long(argv) else QUICK_TIMEOUT
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(2.0)
            s.connect(str(path))
            s.settimeout(timeout)
            s.sendall((json.dumps({"argv": list(argv), "version": _version()}) + "\n").encode())
            reply = json.loads(_read_line(s).decode() or "{}")
    except (OSError, ValueError):
        return None
    if not isinstance(reply, dict) or not isinstance(reply.get("code"), int):
        return None  # refused (another version) or cut short
    return int(reply["code"]), str(reply.get("stdout", "")), str(reply.get("stderr", ""))


def _prepare_dir(directory: Path) -> None:
    """Create the socket's directory private (0700) if it is missing; an existing one keeps
    its mode, but must not be writable by others unless it is sticky (like /tmp), where
    others cannot remove or replace our files."""
    try:
        directory.mkdir(parents=True, mode=0o700)
        os.chmod(directory, 0o700)  # mkdir's mode goes through the umask
        return
    except FileExistsError:
        pass
    st = directory.stat()
    if not stat.S_ISDIR(st.st_mode):
        raise OSError(f"{directory} is not a directory")
    uid = os.getuid() if hasattr(os, "getuid") else 0
    sticky = bool(st.st_mode & stat.S_ISVTX)
    if st.st_uid != uid and not sticky:
        raise OSError(f"{directory} belongs to another user")
    if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH) and not sticky:
        raise OSError(f"{directory} is writable by other users")


def _lock(path: Path):
    """The open lock file of the server at ``path``, locked; OSError when another server holds
    it."""
    import fcntl

    fd = os.open(lock_path(path), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise OSError(f"a bgtui server is already running at {path}") from None
    except OSError:
        os.close(fd)
        raise
    return fd


class _ThreadStreams(io.TextIOBase):
    """``sys.stdout`` / ``sys.stderr`` while serving: what a query's thread writes goes to
    that query's buffer, everything else to the stream it replaced."""

    def __init__(self, fallback) -> None:
        self._fallback = fallback
        self._local = threading.local()

    def _target(self):
        return getattr(self._local, "buf", None) or self._fallback

    @contextlib.contextmanager
    def capture(self):
        buf = self._local.buf = io.StringIO()
        try:
            yield buf
        finally:
            self._local.buf = None

    def write(self, s) -> int:
        return self._target().write(s)

    def flush(self) -> None:
        with contextlib.suppress(Exception):
            self._target().flush()

    def isatty(self) -> bool:
        return getattr(self._local, "buf", None) is None and self._fallback.isatty()

    def fileno(self) -> int:
        if getattr(self._local, "buf", None) is not None:
            raise io.UnsupportedOperation("a query's output is captured")
        return self._fallback.fileno()

    @property
    def encoding(self):
        return getattr(self._fallback, "encoding", "utf-8")


class _Stop(Exception):
    pass


class _Pool:
    """A fixed set of daemon threads running submitted calls (daemons: a query still running
    when the server stops never holds the process up)."""

    def __init__(self, n: int, name: str) -> None:
        import queue

        self._q: queue.SimpleQueue = queue.SimpleQueue()
        self._closed = False
        for i in range(n):
            threading.Thread(target=self._work, name=f"{name}-{i}", daemon=True).start()

    def _work(self) -> None:
        while True:
            item = self._q.get()
            if item is None:
                return
            fut, fn, args = item
            if fut.set_running_or_notify_cancel():
                try:
                    fut.set_result(fn(*args))
                except BaseException as exc:  # handed to the waiting connection
                    fut.set_exception(exc)

    def submit(self, fn, *args) -> Future:
        if self._closed:
            raise RuntimeError("the server is stopping")
        fut: Future = Future()
        self._q.put((fut, fn, args))
        return fut

    def shutdown(self, n: int) -> None:
        self._closed = True
        for _ in range(n):
            self._q.put(None)


def serve(
    run: Callable[[list[str]], int],
    path: Path | None = None,
    ready: Callable[[Path], None] | None = None,
    max_requests: int | None = None,
    idle_exit: float | None = None,
    prepare: Callable[[], None] | None = None,
    workers: int | None = None,
) -> int:
    """Answer requests with ``run(argv)`` (its output captured), many at once, until stopped by
    SIGTERM / SIGINT (when called from the main thread), after ``max_requests`` answers, or
    after ``idle_exit`` seconds without a request.

    The lock is taken and the socket bound first, so that a second server started at the same
    moment stops; then ``prepare()`` (loading the engine: a client that connects meanwhile
    waits for it instead of loading its own), then ``ready(path)``, then the answers.
    ``workers``: engine threads for quick queries (default: the number of cores, at least 2).
    """
    if not hasattr(socket, "AF_UNIX"):
        raise OSError("this system has no Unix sockets")
    path = Path(path) if path is not None else default_socket()
    _prepare_dir(path.parent)
    lock_fd = _lock(path)
    main = threading.current_thread() is threading.main_thread()
    old_handlers = {}
    streams = (_ThreadStreams(sys.stdout), _ThreadStreams(sys.stderr))
    old_streams = (sys.stdout, sys.stderr)
    n_quick = workers or max(2, os.cpu_count() or 1)
    quick = _Pool(n_quick, "bgtui-serve")
    long_ = _Pool(2, "bgtui-serve-long")
    # give_way: a server started by a query (idle_exit set) stops for a client of other code
    state = {
        "answered": 0,
        "open": 0,
        "last": time.monotonic(),
        "stop": False,
        "give_way": idle_exit is not None,
    }
    cond = threading.Condition()
    try:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()  # ours to remove: we hold the lock, no server is behind it
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as srv:
            old = os.umask(0o177)
            try:
                srv.bind(str(path))
            finally:
                os.umask(old)
            try:
                srv.listen(BACKLOG)
                _version()  # the fingerprint of the code this server runs, not of later edits
                if main:

                    def stop(signum, frame):
                        raise _Stop()

                    for sig in (signal.SIGTERM, signal.SIGINT):
                        old_handlers[sig] = signal.signal(sig, stop)
                sys.stdout, sys.stderr = streams
                if prepare is not None:
                    prepare()
                if ready is not None:
                    ready(path)
                srv.settimeout(0.25)
                _accept_loop(srv, run, streams, quick, long_, state, cond, max_requests, idle_exit)
            except _Stop:
                pass
            finally:
                with contextlib.suppress(OSError):
                    path.unlink()
    finally:
        for sig, h in old_handlers.items():
            signal.signal(sig, h)
        with cond:  # the queries in flight get a moment to finish
            deadline = time.monotonic() + SHUTDOWN_GRACE
            while state["open"] and time.monotonic() < deadline:
                cond.wait(0.05)
        quick.shutdown(n_quick)
        long_.shutdown(2)
        if sys.stdout is streams[0]:
            sys.stdout = old_streams[0]
        if sys.stderr is streams[1]:
            sys.stderr = old_streams[1]
        os.close(lock_fd)
    return 0


def _accept_loop(srv, run, streams, quick, long_, state, cond, max_requests, idle_exit):
    with cond:
        state["last"] = time.monotonic()  # idle from now: loading the engine is not idling
    while not state["stop"]:
        with cond:
            if max_requests is not None and state["answered"] >= max_requests:
                return
        try:
            conn, _ = srv.accept()
        except TimeoutError:  # nobody waiting to connect: idle long enough to stop?
            with cond:
                idle = time.monotonic() - state["last"]
                if idle_exit is not None and state["open"] == 0 and idle >= idle_exit:
                    return
            continue
        with cond:
            state["last"] = time.monotonic()
            if state["open"] >= MAX_CONNECTIONS:
                conn.close()  # its client answers itself
                continue
            state["open"] += 1
        threading.Thread(
            target=_connection, args=(conn, run, streams, quick, long_, state, cond), daemon=True
        ).start()


def _connection(conn, run, streams, quick, long_, state, cond) -> None:
    outdated = False
    try:
        with conn:
            conn.settimeout(READ_TIMEOUT)
            outdated = _answer(conn, run, streams, quick, long_)
    finally:
        with cond:
            state["open"] -= 1
            state["answered"] += 1
            state["last"] = time.monotonic()
            if outdated and state["give_way"]:
                state["stop"] = True
            cond.notify_all()


def _run_captured(run, argv, streams):
    out_s, err_s = streams
    with out_s.capture() as out, err_s.capture() as err:
        try:
            code = run(argv)
        except SystemExit as exc:  # argparse's errors
            code = exc.code if isinstance(exc.code, int) else 2
        except Exception as exc:  # a bug answers as an error; the server carries on
            print(f"bgtui: error: {type(exc).__name__}: {exc}", file=sys.stderr)
            code = 1
        return {
            "code": code if isinstance(code, int) else 0,
            "stdout": out.getvalue(),
            "stderr": err.getvalue(),
        }


def _answer(conn: socket.socket, run, streams, quick, long_) -> bool:
    """Answer one request; True if it came from a client of other code than the server's."""
    outdated = False
    try:
        req = json.loads(_read_line(conn).decode() or "{}")
        if not isinstance(req, dict):
            raise ValueError("not a request")
        argv = req.get("argv")
        if req.get("version") != _version():
            outdated = isinstance(req.get("version"), str)
            reply = {"refused": f"server runs bgtui {_version()}, client {req.get('version')}"}
        elif (
            not isinstance(argv, list)
            or not argv
            or argv[0] not in SERVED
            or not all(isinstance(a, str) for a in argv)
        ):
            reply = {"refused": "not a query this server answers"}
        else:
            pool = long_ if _is_long(argv) else quick
            try:
                reply = pool.submit(_run_captured, run, argv, streams).result()
            except RuntimeError:  # the server is stopping: the client answers itself
                return outdated
        conn.settimeout(READ_TIMEOUT)
        conn.sendall((json.dumps(reply) + "\n").encode())
    except (OSError, ValueError, UnicodeDecodeError):
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


def spawn(idle: float, path: Path | None = None) -> bool:
    """Start ``bgtui serve --idle-exit idle`` detached (its own session, no terminal, output
    discarded). A server already answering at ``path`` makes it stop at once (see
    :func:`_prepare`); one of older code has just stopped after refusing the client. True if
    a process was started; any failure is silent (the server is only an accelerator)."""
    import subprocess

    path = Path(path) if path is not None else default_socket()
    if not hasattr(socket, "AF_UNIX"):
        return False
    try:
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "bgtui.cli",
                "serve",
                "--idle-exit",
                str(idle),
                "--socket",
                str(path),
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            close_fds=True,
        )
    except OSError:
        return False
    return True
