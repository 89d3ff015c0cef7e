"""``--batch``: exactly one JSON line per input line whatever its bytes, the process never dies
on input; single commands: every numeric option range-checked, one line and exit 2."""

import contextlib
import io
import json
import os
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bgtui import cli
from bgtui.analysis.formats import parse_position

OPENING = "4HPwATDgc/ABMA"
XGID = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"


@pytest.fixture(autouse=True)
def _no_server(monkeypatch):
    monkeypatch.setenv("BGTUI_NO_SERVER", "1")


def _batch(tmp_path, command, data: bytes, *extra):
    f = tmp_path / "batch.txt"
    f.write_bytes(data)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main([command, "--batch", str(f), "--json", *extra])
    assert code == 0, err.getvalue()
    lines = out.getvalue().splitlines()
    return [json.loads(line) for line in lines]


def _n_lines(data: bytes) -> int:
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


def test_every_kind_of_line_gets_exactly_one_answer_in_order(tmp_path):
    data = (
        XGID.encode()
        + b"\n\n# a comment\n"
        + OPENING.encode()
        + b"\n\xff\xfe\n"
        + b"4HPw\x00ATDgc/ABMA\n"
        + b"A" * 1_000_000
        + b"\n"
        + "４HPwATDgc/ABMA".encode()
        + b"\r\n   \t\n"
        + OPENING.encode()
    )  # the last line has no newline
    got = _batch(tmp_path, "eval", data)
    assert len(got) == _n_lines(data) == 10
    ok = [i for i, g in enumerate(got) if "error" not in g]
    assert ok == [0, 3, 9]
    assert all(got[i]["position_id"] == OPENING for i in ok)
    errors = [g["error"] for g in got if "error" in g]
    assert all(len(e) < 300 for e in errors)  # the 1 MB line is quoted by a short prefix
    assert "blank" in got[1]["error"] and "comment" in got[2]["error"]
    assert "UTF-8" in got[4]["error"] and "U+0000" in got[5]["error"]
    assert "too long" in got[6]["error"] and "ASCII" in got[7]["error"]


def test_the_issues_batch_of_an_xgid_without_fields_answers_both_lines(tmp_path):
    got = _batch(tmp_path, "eval", b"XGID=-b----E-C---eE---c-e----B-\n4HPwATDgc/ABMA\n")
    assert "9 fields" in got[0]["error"] and got[1]["position_id"] == OPENING


_VALID_LINES = [OPENING, XGID, OPENING + " 31", XGID + " 66", OPENING + ":cAkAAAAAAAAA 52"]


def _line():
    return st.one_of(
        st.sampled_from(_VALID_LINES).map(str.encode),
        st.binary(max_size=40).map(lambda b: b.replace(b"\n", b"")),
        st.text(max_size=40).map(lambda s: s.replace("\n", "").encode("utf-8", "surrogatepass")),
        st.sampled_from(
            [b"", b"#", b"   ", b"\r", b"\x00", b"31 31 31", OPENING.encode() + b" 77"]
        ),
    )


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    command=st.sampled_from(["show", "eval", "moves", "cube"]),
    lines=st.lists(_line(), max_size=8),
    last_newline=st.booleans(),
)
def test_fuzz_batch_one_json_line_per_input_line(tmp_path, command, lines, last_newline):
    data = b"\n".join(lines) + (b"\n" if last_newline and lines else b"")
    got = _batch(tmp_path, command, data)
    assert len(got) == _n_lines(data)
    raw_lines = data.split(b"\n")
    for raw, g in zip(raw_lines, got):
        assert isinstance(g, dict)
        if "error" in g:
            assert isinstance(g["error"], str) and len(g["error"]) < 400
            continue
        words = raw.decode("ascii").split()  # only a well-formed query gets an answer
        state = parse_position(words[0])
        assert g["position_id"] == cli_format(state)


def cli_format(state):
    from bgtui.analysis.formats import format_position_id

    return format_position_id(state)


def test_rollout_batch_lines_each_get_an_answer(tmp_path):
    data = OPENING.encode() + b"\n\xff\n" + OPENING.encode() + b" 31\n"
    got = _batch(tmp_path, "rollout", data, "--trials", "2", "--truncate", "1", "--workers", "1")
    assert len(got) == 3 and got[0]["trials"] == 2 and "error" in got[1]
    assert len(got[2]["moves"]) == 4


def _bgtui(args, stdin=b"", timeout=300):
    env = dict(os.environ, PYTHONPATH=os.getcwd(), BGTUI_NO_SERVER="1")
    return subprocess.run(
        [sys.executable, "-m", "bgtui", *args],
        input=stdin,
        capture_output=True,
        env=env,
        timeout=timeout,
    )


def test_batch_from_standard_input_in_a_process(tmp_path):
    data = (
        b"XGID=-b----E-C---eE---c-e----B-\n4HPwATDgc/ABMA\n\xff\n\n#x\n"
        + b"B" * 1_000_000
        + b"\n"
        + OPENING.encode()
        + b" 31"
    )
    r = _bgtui(["moves", "--batch", "-", "--json"], data)
    assert r.returncode == 0 and b"Traceback" not in r.stderr
    got = [json.loads(x) for x in r.stdout.splitlines()]
    assert len(got) == 7
    assert ["error" in g for g in got] == [True, True, True, True, True, True, False]
    assert "no dice" in got[1]["error"]


@pytest.mark.parametrize(
    "argv, words",
    [
        (["moves", OPENING, "31", "--top", "-3"], "--top"),
        (["moves", OPENING, "\uff13\uff11"], "dice"),
        (["rollout", OPENING, "--play-on", "nan"], "--play-on"),
        (["rollout", OPENING, "--settlement", "inf"], "--settlement"),
        (["rollout", OPENING, "--seed", "99999999999999999999999"], "--seed"),
        (["rollout", OPENING, "--trials", "0"], "--trials"),
        (["rollout", OPENING, "--trials", "1e3"], "--trials"),
        (["rollout", OPENING, "--workers", "-1"], "--workers"),
        (["rollout", OPENING, "--stop-se", "-0.1"], "--stop-se"),
        (["rollout", OPENING, "--time-limit", "inf"], "--time-limit"),
        (["rollout", OPENING, "--truncate", "\u0663"], "--truncate"),
        (["rollout", OPENING, "--checkpoint-every", "0"], "--checkpoint-every"),
        (["eval", OPENING, "--ply", "9"], "--ply"),
        (["serve", "--idle-exit", "inf"], "--idle-exit"),
        (["serve", "--idle-exit", "nan"], "--idle-exit"),
        (["eval", "A" * 100_000], "bad position"),
        (["rollout", OPENING, "--resume", "/nonexistent/r.json"], "cannot read"),
        (["rollout", OPENING, "--save", "/nonexistent/dir/r.json", "--trials", "2"], "cannot save"),
    ],
)
def test_bad_options_get_one_line_and_exit_2(argv, words, capsys):
    try:
        code = cli.main(argv)
    except SystemExit as exc:
        code = exc.code
    err = capsys.readouterr().err
    assert code == 2
    lines = err.strip().splitlines()
    assert lines and words in lines[-1] and "Traceback" not in err and len(lines[-1]) < 400, err
