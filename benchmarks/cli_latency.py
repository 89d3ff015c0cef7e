"""Command-line latency: `bgtui cube` on a midgame position at 2-ply, a fresh process each time,
without and with a resident engine (`bgtui serve`).

    python3 benchmarks/cli_latency.py [--runs 7] [--ply 2]

Wall-clock time of whole `bgtui` processes (subprocess), median and range over ``--runs``, after
one untimed run that warms numba's cache. Without a server every process imports numba, loads
the cached kernels, the weights and the bear-off databases; with one, the process only sends the
query. Target: under 0.5 s with a warm cache. Also: a first query that finds no server
(it answers itself and starts one, ``$BGTUI_SERVER_IDLE``), then the queries after it.
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

MIDGAME = "bM7BQBHj8APAUA"  # a middle game from self-play: O on the bar, both sides with blots


def _time(cmd, env, runs):
    subprocess.run(cmd, env=env, check=True, capture_output=True)  # warm
    ts = []
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run(cmd, env=env, check=True, capture_output=True)
        ts.append(time.perf_counter() - t)
    return ts


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--ply", type=int, default=2)
    a = ap.parse_args()
    exe = shutil.which("bgtui") or sys.exit("bgtui is not installed (pip install -e .)")
    cmd = [exe, "cube", MIDGAME, "--ply", str(a.ply), "--json"]
    tmp = Path(tempfile.mkdtemp(prefix="bgtui-bench-"))
    env = dict(os.environ, BGTUI_SOCKET=str(tmp / "s.sock"))
    alone = _time(cmd, dict(env, BGTUI_NO_SERVER="1"), a.runs)
    srv = subprocess.Popen([exe, "serve"], env=env, stderr=subprocess.PIPE, text=True)
    try:
        for line in srv.stderr:  # wait until it listens
            if "answering" in line:
                break
        served = _time(cmd, env, a.runs)
    finally:
        srv.terminate()
        srv.wait(10)
    # the server a query starts by itself: the first query answers in-process, the next ones
    # (once the started server has loaded) go to it
    auto_env = dict(env, BGTUI_SOCKET=str(tmp / "auto.sock"), BGTUI_SERVER_IDLE="60")
    t = time.perf_counter()
    subprocess.run(cmd, env=auto_env, check=True, capture_output=True)
    first = time.perf_counter() - t
    time.sleep(3.0)  # the started server loads the engine
    auto = []
    for _ in range(a.runs):
        t = time.perf_counter()
        subprocess.run(cmd, env=auto_env, check=True, capture_output=True)
        auto.append(time.perf_counter() - t)
    import json
    import socket

    from bgtui.analysis import server

    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:  # make it give way
        s.connect(auto_env["BGTUI_SOCKET"])
        s.sendall(json.dumps({"argv": ["cube"], "version": "stop"}).encode() + b"\n")
        server._read_line(s)
    print(f"bgtui cube midgame --ply {a.ply}  first query, starting a server  {first:.3f} s")
    for name, ts in (
        ("fresh process, no server", alone),
        ("fresh process, bgtui serve", served),
        ("later queries, started server", auto),
    ):
        print(
            f"bgtui cube midgame --ply {a.ply}  {name:28s} median {statistics.median(ts):.3f} s "
            f"(min {min(ts):.3f}, max {max(ts):.3f}, {len(ts)} runs)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
