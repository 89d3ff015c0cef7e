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
