"""Rollouts never lose work: killed at random moments (SIGKILL) and resumed from the last
checkpoint, or stopped by SIGINT / SIGTERM and resumed, a rollout ends bit for bit where the
uninterrupted one does; resuming checks the file against the position and settings."""

import contextlib
import io
import json
import os
import random
import signal
import subprocess
import sys
import time

import pytest

from bgtui import cli

OPENING = "4HPwATDgc/ABMA"


def _args(trials: int) -> list[str]:
    return ["--trials", str(trials), "--truncate", "8", "--seed", "11", "--workers", "1", "--json"]


ARGS = _args(1500)


@pytest.fixture(autouse=True)
def _no_server(monkeypatch):
    monkeypatch.setenv("BGTUI_NO_SERVER", "1")


def _main(argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(argv)
    return code, out.getvalue(), err.getvalue()


def _figures(result: dict) -> dict:
    return {k: result[k] for k in ("trials", "probabilities", "probabilities_se", "equity",
                                   "equity_se", "position_id")}


@pytest.fixture(scope="module")
def uninterrupted():
    code, out, err = _main(["rollout", OPENING, *ARGS])
    assert code == 0, err
    return _figures(json.loads(out))


def _spawn(args):
    env = dict(os.environ, PYTHONPATH=os.getcwd(), BGTUI_NO_SERVER="1")
    return subprocess.Popen([sys.executable, "-m", "bgtui", "rollout", OPENING, *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)


def _trials_saved(path) -> int:
    try:
        with open(path) as f:
            return int(min(json.load(f)["n"]))
    except (OSError, ValueError, KeyError):
        return -1


def _wait_started(proc, path, timeout=240):
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout and proc.poll() is None:
        if _trials_saved(path) >= 0:
            return
        time.sleep(0.02)


def test_sigkill_at_random_moments_then_resume_is_bit_for_bit(tmp_path, uninterrupted):
    save = tmp_path / "r.json"
    rng = random.Random(25)
    kills = 0
    for _ in range(3):
        resume = ["--resume", str(save)] if save.exists() else []
        proc = _spawn([*ARGS, "--save", str(save), "--checkpoint-every", "0.05", *resume])
        _wait_started(proc, save)
        time.sleep(rng.uniform(0.0, 1.5))
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            kills += 1
        proc.communicate(timeout=60)
    code, out, err = _main(["rollout", OPENING, *ARGS, "--resume", str(save)])
    assert code == 0, err
    assert _figures(json.loads(out)) == uninterrupted
    assert kills >= 1
    # a save cut short by a kill leaves at most its own temporary file, removed by the next
    assert [p.name for p in tmp_path.iterdir()] == ["r.json"]


@pytest.mark.parametrize("sig, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_stops_cleanly_prints_the_partial_result_and_how_to_resume(tmp_path, sig, code):
    """A rollout far too long to finish here is stopped by the signal; resumed to a few hundred
    trials more, it equals an uninterrupted rollout of that length."""
    save = tmp_path / "r.json"
    proc = _spawn([*_args(1_000_000), "--save", str(save), "--checkpoint-every", "0.05"])
    _wait_started(proc, save)
    time.sleep(0.3)
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == code, err
    partial = json.loads(out)
    assert 0 <= partial["trials"] < 1_000_000
    assert b"Traceback" not in err and b"--resume" in err
    assert _trials_saved(save) == partial["trials"]
    total = partial["trials"] + 300
    c, out2, err2 = _main(["rollout", OPENING, *_args(total), "--resume", str(save)])
    assert c == 0, err2
    c, out3, err3 = _main(["rollout", OPENING, *_args(total)])
    assert c == 0, err3
    assert _figures(json.loads(out2)) == _figures(json.loads(out3))


def test_resume_refuses_another_position_and_other_settings(tmp_path):
    save = tmp_path / "r.json"
    code, out, err = _main(["rollout", OPENING, "--trials", "4", "--truncate", "2",
                            "--workers", "1", "--save", str(save), "--json"])
    assert code == 0, err
    other = "XGID=-CCCBBB------------cccbbb-:0:0:1:00:0:0:0:0:10"
    for argv, words in (([other], "another position"),
                        ([OPENING, "--truncate", "3"], "truncate 2"),
                        ([OPENING, "--seed", "5"], "seed 1")):
        code, out, err = _main(["rollout", *argv, "--resume", str(save)])
        assert code == 2 and out == "" and words in err and len(err.splitlines()) == 1, err
    # options left at their defaults take the saved values; --trials extends
    code, out, err = _main(["rollout", OPENING, "--resume", str(save), "--trials", "8", "--json"])
    assert code == 0, err
    got = json.loads(out)
    assert got["trials"] == 8 and got["settings"]["truncate"] == 2
