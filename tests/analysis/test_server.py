"""``bgtui serve``: queries answered by a resident engine equal the in-process answers; the
client falls back to answering itself when no server (or another version) answers."""

import json
import socket
import threading

import pytest

from bgtui import cli
from bgtui.analysis import server

POS = "4HPwATDgc/ABMA"


def _start(path, run, requests):
    up = threading.Event()
    t = threading.Thread(
        target=server.serve,
        args=(run, path),
        kwargs=dict(ready=lambda p: up.set(), max_requests=requests),
        daemon=True,
    )
    t.start()
    assert up.wait(10), "server did not start"
    return t


def test_queries_through_the_server_equal_the_in_process_answers(tmp_path, monkeypatch, capsys):
    path = tmp_path / "s.sock"
    seen = []

    def run(argv):
        seen.append(argv)
        return cli._main_here(argv)

    queries = [
        ["cube", POS, "--ply", "1", "--json"],
        ["moves", POS, "31", "--json"],
        ["eval", "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"],
        ["cube", "nonsense"],
    ]
    monkeypatch.setenv("BGTUI_NO_SERVER", "1")
    local = []
    for q in queries:
        code = cli.main(q)
        out, err = capsys.readouterr()
        local.append((code, out, err))
    monkeypatch.delenv("BGTUI_NO_SERVER")
    monkeypatch.setenv("BGTUI_SOCKET", str(path))
    t = _start(path, run, len(queries))
    for q, want in zip(queries, local):
        code = cli.main(q)
        out, err = capsys.readouterr()
        assert (code, out, err) == want
    t.join(10)
    assert seen == queries  # every one was answered by the server
    assert local[0][0] == 0 and json.loads(local[0][1])["action"]
    assert local[3][0] == 2 and "bad position" in local[3][2]
    assert not path.exists()  # the server removed its socket


def test_the_client_falls_back_without_a_server_of_its_version(tmp_path):
    path = tmp_path / "s.sock"
    assert server.request(["cube", POS], path) is None  # no socket at all
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale.bind(str(path))
    stale.close()  # a socket file with nobody behind it
    assert server.request(["cube", POS], path) is None
    t = _start(path, lambda argv: 0, 2)  # removes the stale file and serves
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:  # a client of another version
        s.connect(str(path))
        s.sendall(json.dumps({"argv": ["cube", POS], "version": "0.0.0-other"}).encode() + b"\n")
        reply = json.loads(server._read_line(s))
    assert "code" not in reply and "0.0.0-other" in reply["refused"]
    assert server.request(["rollout", POS], path) is None  # refused: not a quick query
    t.join(10)


def test_a_second_server_on_a_live_socket_is_refused(tmp_path):
    path = tmp_path / "s.sock"
    t = _start(path, lambda argv: 0, 1)
    with pytest.raises(OSError, match="already running"):
        server.serve(lambda argv: 0, path)
    assert server.request(["cube", POS], path) == (0, "", "")
    t.join(10)


def test_an_idle_server_stops_and_removes_its_socket(tmp_path):
    path = tmp_path / "s.sock"
    prepared = []
    assert (
        server.serve(
            lambda argv: 0, path, idle_exit=0.2, prepare=lambda: prepared.append(path.exists())
        )
        == 0
    )
    assert prepared == [True]  # the socket is claimed before the engine loads
    assert not path.exists()


def test_a_started_server_of_other_code_gives_way_to_the_client(tmp_path):
    path = tmp_path / "s.sock"
    t = threading.Thread(
        target=server.serve, args=(lambda argv: 0, path), kwargs=dict(idle_exit=30), daemon=True
    )
    t.start()
    for _ in range(100):
        if path.exists():
            break
        threading.Event().wait(0.05)
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.connect(str(path))
        s.sendall(json.dumps({"argv": ["cube", POS], "version": "0.0.0-other"}).encode() + b"\n")
        assert "refused" in json.loads(server._read_line(s))
    t.join(10)
    assert not t.is_alive() and not path.exists()  # stopped at once, not after 30 s idle


def test_a_query_without_a_server_starts_one_that_answers_the_next(tmp_path, monkeypatch, capsys):
    path = tmp_path / "s.sock"
    monkeypatch.delenv("BGTUI_NO_SERVER")
    monkeypatch.setenv("BGTUI_SOCKET", str(path))
    monkeypatch.setenv("BGTUI_SERVER_IDLE", "60")
    q = ["cube", POS, "--ply", "0", "--json"]
    assert cli.main(q) == 0  # answered in this process, a server started in the background
    first = capsys.readouterr().out
    try:
        got = None
        for _ in range(600):  # the server loads the engine (numba's cache is warm by now)
            got = server.request(q, path)
            if got is not None:
                break
            threading.Event().wait(0.1)
        assert got == (0, first, "")
    finally:
        # stop it: a client of other code makes a started server give way
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.connect(str(path))
            s.sendall(json.dumps({"argv": q, "version": "stop"}).encode() + b"\n")
            server._read_line(s)
    for _ in range(100):
        if not path.exists():
            break
        threading.Event().wait(0.05)
    assert not path.exists()


def test_no_server_is_started_when_told_not_to(tmp_path, monkeypatch, capsys):
    path = tmp_path / "s.sock"
    monkeypatch.setenv("BGTUI_SOCKET", str(path))
    for env in ({"BGTUI_NO_SERVER": "1"}, {"BGTUI_NO_SERVER": "", "BGTUI_SERVER_IDLE": "0"}):
        for k, v in env.items():
            monkeypatch.setenv(k, v)
        assert cli.main(["eval", POS]) == 0
        threading.Event().wait(1.0)
        assert not path.exists()
    capsys.readouterr()


# -- under load ----------------------------------------------------------------------------------
def _echo(argv):
    """A stand-in engine: prints its query's second word on stdout and the first on stderr."""
    import time

    time.sleep(0.005)
    print(argv[1])
    print(argv[0], file=__import__("sys").stderr)
    return 3 if argv[1] == "7" else 0


def _expected(n):
    return [(3 if i == 7 else 0, f"{i}\n", "eval\n") for i in range(n)]


def _burst(path, n):
    results = [None] * n

    def client(i):
        results[i] = server.request(["eval", str(i)], path, timeout=30)

    threads = [threading.Thread(target=client, args=(i,)) for i in range(n)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(60)
    return results


def test_a_burst_of_clients_is_answered_each_with_its_own_output(tmp_path):
    path = tmp_path / "s.sock"
    n = 200
    t = _start(path, _echo, n)
    results = _burst(path, n)
    assert results == _expected(n)
    t.join(10)
    assert not t.is_alive() and not path.exists()


def test_quick_queries_do_not_wait_behind_a_long_one_or_an_idle_client(tmp_path):
    path = tmp_path / "s.sock"
    release = threading.Event()

    def run(argv):
        if "--rollout" in argv:
            assert release.wait(30)
        return _echo(argv)

    t = _start(path, run, 12)
    long_result = []
    lt = threading.Thread(
        target=lambda: long_result.append(server.request(["cube", "long", "--rollout"], path))
    )
    lt.start()
    idle = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    idle.connect(str(path))  # connects and sends nothing
    try:
        assert _burst(path, 10) == _expected(10)
        assert not long_result  # still running: the quick ones went past it
    finally:
        release.set()
        lt.join(30)
        idle.close()
    assert long_result == [(0, "long\n", "cube\n")]
    t.join(10)


def test_a_second_server_while_the_first_is_busy_leaves_it_reachable(tmp_path):
    path = tmp_path / "s.sock"
    release = threading.Event()

    def run(argv):
        release.wait(30)
        return _echo(argv)

    t = _start(path, run, 2)
    busy = []
    bt = threading.Thread(target=lambda: busy.append(server.request(["eval", "1"], path)))
    bt.start()
    with pytest.raises(OSError, match="already running"):
        server.serve(lambda argv: 0, path, idle_exit=1)
    assert path.exists()  # the second server neither took nor removed the socket
    release.set()
    bt.join(30)
    assert busy == [(0, "1\n", "eval\n")]
    assert server.request(["eval", "2"], path) == (0, "2\n", "eval\n")
    t.join(10)


def test_the_server_creates_its_directory_private_and_leaves_others_alone(tmp_path):
    import os
    import stat

    made = tmp_path / "new" / "s.sock"
    server.serve(lambda argv: 0, made, idle_exit=0.1)
    assert stat.S_IMODE(os.stat(made.parent).st_mode) == 0o700
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o755)
    server.serve(lambda argv: 0, shared / "s.sock", idle_exit=0.1)
    assert stat.S_IMODE(os.stat(shared).st_mode) == 0o755
    os.chmod(shared, 0o777)  # writable by others, not sticky: someone could swap the socket
    with pytest.raises(OSError, match="writable by other users"):
        server.serve(lambda argv: 0, shared / "s.sock", idle_exit=0.1)


_SLOW_SERVER = """
import sys, time
from bgtui.analysis import server
def run(argv):
    print("started", flush=True, file=sys.__stdout__)
    time.sleep(float(argv[1]))
    print("done")
    return 0
print("ready" if server.serve(run, sys.argv[1], ready=lambda p: print("up", flush=True)) == 0
      else "?", flush=True)
"""


def _line(proc, timeout=60.0):
    """The next line the subprocess prints, or "" if none comes within ``timeout`` seconds (a
    server that refused the request never prints "started": the test fails, it does not hang)."""
    import select

    ready, _, _ = select.select([proc.stdout], [], [], timeout)
    return proc.stdout.readline().strip() if ready else ""


@pytest.mark.parametrize("sleep, answered", [(60, False), (0.5, True)])
def test_sigterm_mid_request_never_answers_exit_0_without_output(tmp_path, sleep, answered):
    """SIGTERM while a query runs: a query that finishes within the grace period is answered,
    one that does not gets no answer (its client answers itself); the server removes its
    socket and exits 0."""
    import os
    import signal
    import subprocess
    import sys

    path = tmp_path / "s.sock"
    env = dict(os.environ, PYTHONPATH=os.getcwd())
    proc = subprocess.Popen(
        [sys.executable, "-c", _SLOW_SERVER, str(path)], env=env, stdout=subprocess.PIPE, text=True
    )
    try:
        assert _line(proc) == "up"
        got = []
        ct = threading.Thread(target=lambda: got.append(server.request(["eval", str(sleep)], path)))
        ct.start()
        assert _line(proc) == "started", "the server did not run the request"
        proc.send_signal(signal.SIGTERM)
        ct.join(30)  # a 60 s query the server waited for would still be running here
        assert not ct.is_alive()
        assert got == [(0, "done\n", "")] if answered else got == [None]
        assert proc.wait(10) == 0
    finally:
        proc.kill()
    assert not path.exists()
