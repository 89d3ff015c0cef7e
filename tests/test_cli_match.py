"""The command line at a match score: the JSON of the conventions' "Match play" section, the
text, and bad match contexts as one-line errors."""

import json
import re
import subprocess
import sys

import pytest

from bgtui.analysis.met import get_met
from bgtui.cli import main

OPENING = "4HPwATDgc/ABMA"
XGID_4_2 = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:4:2:0:7:10"
# a short, truncated rollout on one worker
SHORT_ROLLOUT = ("--trials", "36", "--truncate", "2", "--workers", "1")


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def emg(m, a, b, cube=1):
    met = get_met()
    w, l = met.after(a, b, cube), met.after(a, b, -cube)
    return (2 * m - (w + l)) / (w - l)


def test_eval_json_at_a_score(capsys):
    code, out, _ = run(capsys, "eval", XGID_4_2, "--json")
    assert code == 0
    d = json.loads(out)
    assert d["match"] == {"length": 7, "score": [4, 2], "crawford": False, "away": [3, 5]}
    assert set(d["mwc"]) == {"cubeless", "cubeful"}
    for k in ("cubeless", "cubeful"):
        assert d["equity"][k] == pytest.approx(emg(d["mwc"][k], 3, 5))
    # the options give the same context as the XGID
    code, out2, _ = run(capsys, "eval", OPENING, "--match", "7", "--score", "4-2", "--json")
    assert json.loads(out2)["mwc"] == d["mwc"]


def test_money_output_is_unchanged(capsys):
    for cmd in (["eval", OPENING], ["cube", OPENING], ["moves", OPENING, "31"]):
        _, plain, _ = run(capsys, *cmd, "--json")
        _, money, _ = run(capsys, *cmd, "--match", "0", "--json")
        assert plain == money
        assert "match" not in json.loads(plain) and "mwc" not in plain


def test_cube_json_and_text_at_a_score(capsys):
    code, out, _ = run(capsys, "cube", XGID_4_2, "--json")
    d = json.loads(out)
    assert set(d["mwc"]) == {"no_double", "double_take", "double_pass"}
    assert d["mwc"]["double_pass"] == pytest.approx(get_met().after(3, 5, 1))
    assert d["double_pass"] == pytest.approx(1.0)
    assert d["no_double"] == pytest.approx(emg(d["mwc"]["no_double"], 3, 5))
    assert d["action"] in (
        "No double",
        "Double, take",
        "Double, pass",
        "Too good to double, take",
        "Too good to double, pass",
    )
    _, text, _ = run(capsys, "cube", XGID_4_2)
    assert "7-point match, 4-2 (-3a -5a)" in text
    assert re.search(r"No double +MWC +\d+\.\d\d%", text)
    assert "money" not in text


def test_crawford_game_has_no_cube_action(capsys):
    code, out, _ = run(
        capsys, "cube", OPENING, "--match", "5", "--score", "4-2", "--crawford", "--json"
    )
    d = json.loads(out)
    assert d["action"] == "No double" and d["cube_access"] is False
    assert d["double_take"] is None and d["mwc"]["double_take"] is None


def test_moves_json_at_a_score(capsys):
    code, out, _ = run(capsys, "moves", XGID_4_2, "31", "--json")
    d = json.loads(out)
    assert d["match"]["away"] == [3, 5]
    mwc = [m["mwc"] for m in d["moves"]]
    assert mwc == sorted(mwc, reverse=True)
    assert all(m["mwc_diff"] == pytest.approx(m["mwc"] - mwc[0]) for m in d["moves"])
    assert all(m["equity"]["cubeful"] == pytest.approx(emg(m["mwc"], 3, 5)) for m in d["moves"])


@pytest.mark.parametrize(
    "argv, msg",
    [
        (["--match", "7", "--score", "7-2"], "not below the match length"),
        (["--match", "7", "--score", "4-2", "--crawford"], "only when a side is 1-away"),
        (["--score", "4-2"], "needs a match"),
        (["--match", "40"], "covers scores up to 25-away"),
    ],
)
def test_bad_match_context_one_line_status_2(capsys, argv, msg):
    code, out, err = run(capsys, "cube", OPENING, *argv)
    assert code == 2 and msg in err and err.count("\n") == 1 and out == ""


def test_cube_above_what_the_match_allows(capsys):
    # 8-cube at 2-away 2-away (XGID: cube log 3, owned by the bottom player, 3-point match)
    x = "XGID=-b----E-C---eE---c-e----B-:3:1:1:00:1:1:0:3:10"
    code, _, err = run(capsys, "cube", x)
    assert code == 2 and "above what the match allows" in err


def test_met_file_that_is_not_one(capsys, tmp_path):
    f = tmp_path / "met.xml"
    f.write_text("<met><info/></met>")
    code, out, err = run(capsys, "eval", OPENING, "--match", "5", "--met", str(f))
    assert code == 2 and "not a match equity table" in err and err.count("\n") == 1


def test_batch_bad_match_line_gets_an_error_and_goes_on():
    p = subprocess.run(
        [sys.executable, "-m", "bgtui", "cube", "--batch", "-", "--json"],
        input=f"{XGID_4_2}\nXGID=-b----E-C---eE---c-e----B-:0:0:1:00:1:2:1:7:10\n{OPENING}\n",
        capture_output=True,
        text=True,
        env={**__import__("os").environ, "BGTUI_NO_SERVER": "1"},
    )
    lines = [json.loads(x) for x in p.stdout.splitlines()]
    assert len(lines) == 3
    assert "mwc" in lines[0] and "Crawford" in lines[1]["error"]
    assert "mwc" not in lines[2]


def test_cubeful_rollout_at_a_score_saves_and_resumes_only_there(capsys, tmp_path):
    """``rollout --cubeful`` at a score: the live cube's MWC and EMG in JSON; a saved rollout
    resumes at its own score and is refused, in one line with status 2, at another."""
    path = str(tmp_path / "r.json")
    args = [
        "rollout",
        XGID_4_2,
        "--cubeful",
        *SHORT_ROLLOUT,
        "--seed",
        "3",
    ]
    code, out, _ = run(capsys, *args, "--save", path, "--json")
    assert code == 0
    d = json.loads(out)
    assert d["match"]["away"] == [3, 5] and 0 < d["mwc"] < 1
    assert d["equity"]["cubeful"] == pytest.approx(emg(d["mwc"], 3, 5))
    code, out, _ = run(capsys, *args[:2], "--resume", path, "--trials", "72", "--json")
    assert code == 0 and json.loads(out)["trials"] == 72
    code, out, err = run(capsys, *args[:2], "--resume", path, "--score", "4-4", "--trials", "72")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "it was rolled out at a 7-point match, 3-away 5-away" in err


def test_cube_rollout_at_a_score(capsys):
    """``cube --rollout`` at a score: MWC of the three actions (double/pass from the table),
    EMG in the equities; in the Crawford game one line, status 2."""
    code, out, _ = run(
        capsys,
        "cube",
        XGID_4_2,
        "--rollout",
        *SHORT_ROLLOUT,
        "--json",
    )
    assert code == 0
    d = json.loads(out)
    assert d["model"] == "live-cube rollout" and d["match"]["away"] == [3, 5]
    met = get_met()
    assert d["mwc"]["double_pass"] == pytest.approx(met.after(3, 5, 1))
    assert d["no_double"] == pytest.approx(emg(d["mwc"]["no_double"], 3, 5))
    code, out, err = run(
        capsys,
        "cube",
        OPENING,
        "--match",
        "7",
        "--score",
        "6-3",
        "--crawford",
        "--rollout",
        "--trials",
        "36",
    )
    assert code == 2 and err.count("\n") == 1 and "no cube action to roll out" in err
