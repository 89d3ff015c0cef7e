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
    t = threading.Thread(target=server.serve, args=(run, path),
                         kwargs=dict(ready=lambda p: up.set(), max_requests=requests), daemon=True)
    t.start()
    assert up.wait(10), "server did not start"
    return t


def test_queries_through_the_server_equal_the_in_process_answers(tmp_path, monkeypatch, capsys):
    path = tmp_path / "s.sock"
    seen = []

    def run(argv):
        seen.append(argv)
        return cli._main_here(argv)

    queries = [["cube", POS, "--ply", "1", "--json"], ["moves", POS, "31", "--json"],
               ["eval", "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"],
               ["cube", "nonsense"]]
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
    t = _start(path, lambda argv: 0, 2)  # the second server's probe counts as a request
    with pytest.raises(OSError, match="already running"):
        server.serve(lambda argv: 0, path)
    assert server.request(["cube", POS], path) == (0, "", "")
    t.join(10)


def test_an_idle_server_stops_and_removes_its_socket(tmp_path):
    path = tmp_path / "s.sock"
    prepared = []
    assert server.serve(lambda argv: 0, path, idle_exit=0.2,
                        prepare=lambda: prepared.append(path.exists())) == 0
    assert prepared == [True]  # the socket is claimed before the engine loads
    assert not path.exists()


def test_a_started_server_of_other_code_gives_way_to_the_client(tmp_path):
    path = tmp_path / "s.sock"
    t = threading.Thread(target=server.serve, args=(lambda argv: 0, path),
                         kwargs=dict(idle_exit=30), daemon=True)
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


def test_a_query_without_a_server_starts_one_that_answers_the_next(tmp_path, monkeypatch,
                                                                    capsys):
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
