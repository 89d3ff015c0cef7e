"""Rollouts never lose work: killed at random moments (SIGKILL) and resumed from the last
checkpoint, or stopped by SIGINT / SIGTERM and resumed, a rollout (``bgtui rollout``, and the
cube action by rollout, ``bgtui cube --rollout``) ends bit for bit where the uninterrupted one
does; resuming checks the file against the position, the cube and the settings."""

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
CONTACT = "zGbiIQgxH/AAWA"  # a middle game, cube centred


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
    return {
        k: result[k]
        for k in (
            "trials",
            "probabilities",
            "probabilities_se",
            "equity",
            "equity_se",
            "position_id",
        )
    }


@pytest.fixture(scope="module")
def uninterrupted():
    code, out, err = _main(["rollout", OPENING, *ARGS])
    assert code == 0, err
    return _figures(json.loads(out))


def _cube_args(trials: int) -> list[str]:
    return [
        "--rollout",
        "--live",
        "--trials",
        str(trials),
        "--truncate",
        "6",
        "--seed",
        "11",
        "--workers",
        "1",
        "--json",
    ]


def _spawn(args, command=("rollout", OPENING)):
    env = dict(os.environ, PYTHONPATH=os.getcwd(), BGTUI_NO_SERVER="1")
    return subprocess.Popen(
        [sys.executable, "-m", "bgtui", *command, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )


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


def _kill_at_random_moments(save, args, command, seed):
    """Run ``command`` with ``args`` and --save three times (resuming from the second on),
    SIGKILL at a random moment after the first checkpoint; returns how many were killed."""
    rng = random.Random(seed)
    kills = 0
    for _ in range(3):
        resume = ["--resume", str(save)] if save.exists() else []
        proc = _spawn([*args, "--save", str(save), "--checkpoint-every", "0.05", *resume], command)
        _wait_started(proc, save)
        time.sleep(rng.uniform(0.0, 1.5))
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            kills += 1
        proc.communicate(timeout=60)
    return kills


def test_sigkill_at_random_moments_then_resume_is_bit_for_bit(tmp_path, uninterrupted):
    save = tmp_path / "r.json"
    kills = _kill_at_random_moments(save, ARGS, ("rollout", OPENING), 25)
    code, out, err = _main(["rollout", OPENING, *ARGS, "--resume", str(save), "--save", str(save)])
    assert code == 0, err
    assert _figures(json.loads(out)) == uninterrupted
    assert kills >= 1
    # a save cut short by a kill leaves at most its own temporary file, removed by the next
    assert [p.name for p in tmp_path.iterdir()] == ["r.json"]


def test_cube_rollout_killed_at_random_moments_then_resumed_is_bit_for_bit(tmp_path):
    save = tmp_path / "c.json"
    args = _cube_args(400)
    kills = _kill_at_random_moments(save, args, ("cube", CONTACT), 26)
    code, out, err = _main(["cube", CONTACT, *args, "--resume", str(save), "--save", str(save)])
    assert code == 0, err
    code, want, err = _main(["cube", CONTACT, *args])
    assert code == 0, err
    assert json.loads(out) == json.loads(want)  # every figure and the decision
    assert json.loads(out)["evaluated_by"] == "rollout 400 trials (live cube)"
    assert kills >= 1
    assert [p.name for p in tmp_path.iterdir()] == ["c.json"]


@pytest.mark.parametrize("sig, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_stops_a_cube_rollout_with_its_partial_decision_and_how_to_resume(
    tmp_path, sig, code
):
    save = tmp_path / "c.json"
    proc = _spawn(
        [*_cube_args(1_000_000), "--save", str(save), "--checkpoint-every", "0.05"],
        ("cube", CONTACT),
    )
    _wait_started(proc, save)
    time.sleep(0.5)
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == code, err
    assert b"Traceback" not in err and len(err.splitlines()) == 1
    done = _trials_saved(save)
    assert err.decode().startswith(
        f"bgtui: cube rollout stopped after {done} of 1000000 trials; saved to "
    )
    how = err.decode().split("continue with: ", 1)[1].split()
    assert how[:5] == ["bgtui", "cube", CONTACT, "--rollout", "--live"]
    assert how[5:] == ["--resume", str(save)]
    partial = json.loads(out)
    if done >= 2:  # a decision from the trials done (each branch needs 2)
        assert partial["evaluated_by"] == f"rollout {done} trials (live cube)"
    else:
        assert partial["action"] is None and partial["trials"] == done
    total = done + 100
    c, resumed, err2 = _main(["cube", CONTACT, *_cube_args(total), "--resume", str(save)])
    assert c == 0, err2
    c, want, err3 = _main(["cube", CONTACT, *_cube_args(total)])
    assert c == 0, err3
    assert json.loads(resumed) == json.loads(want)


def test_cube_rollout_resume_refuses_another_cube_kind_or_settings(tmp_path):
    from dataclasses import replace

    from bgtui.analysis.formats import format_xgid, parse_position

    save = tmp_path / "c.json"
    code, out, err = _main(["cube", CONTACT, *_cube_args(4), "--save", str(save)])
    assert code == 0, err
    owned = format_xgid(replace(parse_position(CONTACT), cube_value=2, cube_owner="player"))
    for argv, words in (
        ([OPENING, *_cube_args(4)], "another position"),
        ([owned, *_cube_args(4)], "with this cube"),
        ([CONTACT, "--rollout", "--trials", "4"], "cubeful False"),
        ([CONTACT, *_cube_args(4), "--no-jacoby"], "jacoby True"),
        ([CONTACT, *_cube_args(4), "--seed", "5"], "seed 11"),
    ):
        code, out, err = _main(["cube", *argv, "--resume", str(save)])
        assert code == 2 and out == "" and words in err and len(err.splitlines()) == 1, err
    for argv, words in (
        (["--save", str(save)], "go with --rollout"),
        (["--resume", str(save)], "go with --rollout"),
        ([*_cube_args(4), "--checkpoint-every", "1"], "give --save"),
        ([*_cube_args(4), "--save", str(tmp_path / "no" / "c.json")], "no directory"),
    ):
        code, out, err = _main(["cube", CONTACT, *argv])
        assert code == 2 and out == "" and words in err and len(err.splitlines()) == 1, err


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
    code, out, err = _main(
        [
            "rollout",
            OPENING,
            "--trials",
            "4",
            "--truncate",
            "2",
            "--workers",
            "1",
            "--save",
            str(save),
            "--json",
        ]
    )
    assert code == 0, err
    other = "XGID=-CCCBBB------------cccbbb-:0:0:1:00:0:0:0:0:10"
    for argv, words in (
        ([other], "another position"),
        ([OPENING, "--truncate", "3"], "truncate 2"),
        ([OPENING, "--seed", "5"], "seed 1"),
    ):
        code, out, err = _main(["rollout", *argv, "--resume", str(save)])
        assert code == 2 and out == "" and words in err and len(err.splitlines()) == 1, err
    # options left at their defaults take the saved values; --trials extends
    code, out, err = _main(["rollout", OPENING, "--resume", str(save), "--trials", "8", "--json"])
    assert code == 0, err
    got = json.loads(out)
    assert got["trials"] == 8 and got["settings"]["truncate"] == 2


def test_a_cube_rollout_at_a_match_score_resumes_to_the_uninterrupted_result(tmp_path):
    save = tmp_path / "c.json"
    xgid = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:4:2:0:7:10"  # 7-point match, 4-2
    args = ["--rollout", "--truncate", "2", "--seed", "3", "--workers", "1", "--json"]
    code, _, err = _main(["cube", xgid, *args, "--trials", "8", "--save", str(save)])
    assert code == 0, err
    code, resumed, err = _main(["cube", xgid, *args, "--trials", "16", "--resume", str(save)])
    assert code == 0, err
    code, whole, err = _main(["cube", xgid, *args, "--trials", "16"])
    assert code == 0, err
    drop = ("seconds", "elapsed")
    a, b = json.loads(resumed), json.loads(whole)
    assert {k: v for k, v in a.items() if k not in drop} == {
        k: v for k, v in b.items() if k not in drop
    }
    # at another score the save is refused, in one line
    code, out, err = _main(
        ["cube", xgid, "--score", "3-2", *args, "--trials", "16", "--resume", str(save)]
    )
    assert code == 2 and out == "" and "rolled out at a 7-point match" in err
    assert len(err.splitlines()) == 1
