"""The command line: JSON contract of conventions.md, --batch streaming, clear errors."""

import json
import subprocess
import sys

import numpy as np
import pytest

from bgtui.cli import main
from bgtui.engine.cube import CONTACT_EFFICIENCY as X_CONTACT

OPENING = "4HPwATDgc/ABMA"
# a blitz far past the cash point (0-ply: 81% wins, 63% gammons; contact)
STRONG_GAMMONISH = "bDtgAHhbM8FBIA"
PROBS_ORDER = ("win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon")
PROBS = set(PROBS_ORDER)


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_eval_json_contract(capsys):
    code, out, _ = run(capsys, "eval", OPENING, "--json")
    assert code == 0
    d = json.loads(out)
    assert d["position_id"] == OPENING and d["ply"] == 0
    assert set(d["probabilities"]) == PROBS
    p = d["probabilities"]
    assert p["win"] >= p["win_gammon"] >= p["win_backgammon"] >= 0
    eq = (
        2 * p["win"]
        - 1
        + p["win_gammon"]
        - p["lose_gammon"]
        + p["win_backgammon"]
        - p["lose_backgammon"]
    )
    assert d["equity"]["cubeless"] == pytest.approx(eq, abs=1e-6)
    assert "cubeful" in d["equity"]


def test_eval_says_which_database_values_a_race(capsys):
    # a race with a straggler: the one-sided database; a small bear-off: the exact two-sided;
    # the opening: the nets (nothing said); the JSON contract stays as conventions.md fixes it
    lines = {
        pid: run(capsys, "eval", pid)[1].splitlines()[0]
        for pid in ("7wABAG4bAAAAAA", "AwAAEAAAAAAAAA", OPENING)
    }
    assert lines["7wABAG4bAAAAAA"].endswith("0-ply, one-sided bear-off database, player on roll")
    assert lines["AwAAEAAAAAAAAA"].endswith(
        "0-ply, two-sided bear-off database (exact), player on roll"
    )
    assert lines[OPENING] == f"{OPENING}  0-ply, player on roll"
    d = json.loads(run(capsys, "eval", "7wABAG4bAAAAAA", "--json")[1])
    assert set(d) == {"position_id", "ply", "probabilities", "equity"}


def test_moves_json_lists_every_legal_play_once_best_first(capsys):
    code, out, _ = run(capsys, "moves", OPENING, "31", "--json")
    d = json.loads(out)
    assert d["dice"] == "31" and len(d["moves"]) == 16
    assert len({m["move"] for m in d["moves"]}) == 16
    eqs = [m["equity"]["cubeless"] for m in d["moves"]]
    assert eqs == sorted(eqs, reverse=True)
    assert d["moves"][0]["equity_diff"] == 0.0
    assert all(m["equity_diff"] <= 0 for m in d["moves"])
    # each resulting position is given with the opponent on roll
    import numpy as np

    from bgtui.analysis.formats import parse_position
    from bgtui.analysis.notation import parse_play
    from bgtui.engine.constants import OPENING_POSITION
    from bgtui.engine.position import swap_sides

    for m in d["moves"]:
        child = parse_play(np.array(OPENING_POSITION), m["move"], (3, 1))
        assert np.array_equal(parse_position(m["position_id"]).position, swap_sides(child))


def test_moves_with_no_legal_play(capsys):
    # the player on roll has a checker on the bar against a closed board: one empty play
    from bgtui.analysis.formats import format_position_id
    from bgtui.engine.position import make_position

    pos = make_position({25: 1, 6: 14}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 13: 3})
    pid = format_position_id(pos)
    code, out, _ = run(capsys, "moves", pid, "64", "--json")
    d = json.loads(out)
    assert len(d["moves"]) == 1 and d["moves"][0]["move"] == ""


def test_bad_input_gives_one_line_and_status_2(capsys):
    for argv in (
        ["moves", OPENING, "07"],
        ["moves", OPENING, "3"],
        ["moves", OPENING, "x1"],
        ["eval", "4HPwATDgc/ABM"],
        ["eval", "nonsense-id-xx"],
        ["cube", "XGID=junk"],
    ):
        code, out, err = run(capsys, *argv)
        assert code == 2, argv
        assert err.startswith("bgtui: error: ") and err.count("\n") == 1, err
        assert "Traceback" not in err


def test_unknown_option_is_a_clear_error():
    r = subprocess.run(
        [sys.executable, "-m", "bgtui", "eval", OPENING, "--plyy", "2"],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 2 and "unrecognized arguments: --plyy" in r.stderr
    assert "Traceback" not in r.stderr


def test_batch_streams_one_json_line_per_query_and_survives_bad_lines():
    lines = f"{OPENING} 31\nnot-a-position 31\n{OPENING} 66\n"
    p = subprocess.Popen(
        [sys.executable, "-m", "bgtui", "moves", "--batch", "-", "--json"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    # one query, one answer, before more input arrives (lines are flushed)
    p.stdin.write(f"{OPENING} 21\n")
    p.stdin.flush()
    first = json.loads(p.stdout.readline())
    assert first["dice"] == "21"
    out, _ = p.communicate(lines, timeout=300)
    rows = [json.loads(x) for x in out.splitlines()]
    assert [r.get("dice") for r in rows] == ["31", None, "66"]
    assert "error" in rows[1] and "position" in rows[1]["error"]


def test_cube_json_contract(capsys):
    code, out, _ = run(capsys, "cube", OPENING, "--json")
    d = json.loads(out)
    for k in ("no_double", "double_take", "double_pass", "action", "probabilities", "equity"):
        assert k in d
    assert d["double_pass"] == 1.0 and d["action"] == "No double"


def test_rollout_json_contract_for_candidates(capsys):
    code, out, _ = run(
        capsys,
        "rollout",
        OPENING,
        "--dice",
        "31",
        "--moves",
        "8/5 6/5",
        "24/23 13/10",
        "--trials",
        "72",
        "--truncate",
        "2",
        "--workers",
        "1",
        "--json",
    )
    d = json.loads(out)
    assert d["trials"] == 72 and d["dice"] == "31" and d["settings"]["truncate"] == 2
    assert [m["move"] for m in d["moves"]][0] in ("8/5 6/5", "24/23 13/10")
    for m in d["moves"]:
        assert set(m["probabilities"]) == PROBS and set(m["probabilities_se"]) == PROBS
        assert "cubeless" in m["equity"] and "cubeless" in m["equity_se"]
        assert "equity_diff" in m and "equity_diff_se" in m


def test_cube_from_a_live_cube_rollout_reports_paired_standard_errors(capsys):
    code, out, _ = run(
        capsys,
        "cube",
        OPENING,
        "--rollout",
        "--live",
        "--trials",
        "36",
        "--truncate",
        "4",
        "--workers",
        "1",
        "--json",
    )
    d = json.loads(out)
    assert code == 0 and d["double_pass"] == 1.0
    se = d["standard_errors"]
    assert {"no_double", "double_take", "double_take_minus_no_double"} <= set(se)
    # identical dice in both branches: the difference is known better than either value
    assert se["double_take_minus_no_double"] < se["double_take"]
    assert "live cube" in d["evaluated_by"]


def _dataset(capsys, data, *options):
    """``bgtui train dataset`` from the shipped weights into ``data``, with ``options``."""
    return run(capsys, "train", "dataset", "--checkpoint", "bgtui-0.npz", "--data", data, *options)


def test_train_dataset_and_an_adam_fit_from_the_command_line(capsys, tmp_path):
    from bgtui.analysis.weights import load_weights

    d, ck = str(tmp_path / "d"), str(tmp_path / "fit.npz")
    code, out, _ = _dataset(capsys, d, "--positions", "200", "--shard", "200")
    assert code in (0, None) and json.loads(out.splitlines()[-1])["positions"] == 200
    code, out, _ = run(
        capsys,
        "train",
        "fit",
        "--checkpoint",
        ck,
        "--data",
        d,
        "--epochs",
        "2",
        "--optimizer",
        "adam",
        "--batch-size",
        "16",
        "--nets",
        "contact",
        "--init",
        "random",
        "--hidden",
        "8",
    )
    assert code in (0, None)
    recs = [json.loads(x) for x in out.splitlines()]
    assert [r["epoch"] for r in recs] == [1, 2] and recs[0]["alpha"] == 0.001  # adam's default
    nets, meta = load_weights(ck)
    assert nets[0][1].shape == (8,) and meta["fit"]["optimizer"] == "adam"
    code, _, err = run(
        capsys,
        "train",
        "fit",
        "--checkpoint",
        str(tmp_path / "x.npz"),
        "--data",
        d,
        "--nets",
        "bogus",
    )
    assert code == 2 and "--nets" in err
    code, _, err = run(
        capsys,
        "train",
        "fit",
        "--checkpoint",
        str(tmp_path / "y.npz"),
        "--data",
        d,
        "--rank-weight",
        "4",
    )  # the sibling term needs Adam
    assert code == 2 and "rank_weight" in err and "Adam" in err
    assert not (tmp_path / "y.npz").exists()


def test_train_dataset_anchor_targets_are_the_weights_own_static_values(capsys, tmp_path):
    # --target-ply 0: each position's target is exactly what the weights say of it at 0-ply
    # (checked against the Analyzer); train supervised refuses 0 (nothing to learn); the
    # dataset options that need a partner say which
    from bgtui.analysis.service import Analyzer
    from bgtui.training.train import load_dataset

    d = str(tmp_path / "a")
    code, out, _ = _dataset(
        capsys, d, "--positions", "60", "--shard", "60", "--target-ply", "0", "--children-best", "2"
    )
    assert code in (0, None) and json.loads(out.splitlines()[-1])["ply"] == 0
    pos, tg = load_dataset(d)
    an = Analyzer()
    for p, t in zip(pos, tg):
        np.testing.assert_allclose(t, an.probabilities(p, 0), atol=1e-6)
    code, _, err = run(
        capsys, "train", "supervised", "--checkpoint", str(tmp_path / "s.npz"), "--target-ply", "0"
    )
    assert code == 2 and "--target-ply 1 to 3" in err
    code, _, err = _dataset(capsys, d, "--vs-pubeval")
    assert code == 2 and "--children-best" in err
    code, _, err = _dataset(capsys, d, "--cube-region", "--children-best", "2")
    assert code == 2 and "--cube-region" in err


# ------------------------------------------------------------------------------------------
# cube: the Janowski model by hand from the command's own probabilities (published formulas:
# live take point TP = (L - 1/2) / (W + L + 1/2), cash point CP = (L + 1) / (W + L + 1/2);
# cubeful = x * live + (1 - x) * dead; contact x = CONTACT_EFFICIENCY)


def _sizes(p):
    W = (p["win"] + p["win_gammon"] + p["win_backgammon"]) / p["win"]
    L = (1 - p["win"] + p["lose_gammon"] + p["lose_backgammon"]) / (1 - p["win"])
    return W, L


def _janowski(p, x, owner, W, L):
    """Money equity on a 1-cube of a player with winning chance p < CP; the live equity is
    linear between the cash points: (0, -L), (TP, -1), (CP, +1), each owner using only
    its own end."""
    tp, cp = (L - 0.5) / (W + L + 0.5), (L + 1) / (W + L + 0.5)
    assert p < cp
    if p <= tp and owner != "owned":  # the opponent cashes
        live = -L + (L - 1) * p / tp
    else:
        live = {
            "centred": -1 + 2 * (p - tp) / (cp - tp),
            "owned": -L + (1 + L) * p / cp,
            "opponent": -1 + (W + 1) * (p - tp) / (1 - tp),
        }[owner]
    return x * live + (1 - x) * (p * W - (1 - p) * L)


def test_cube_opponent_owns_the_cube_shows_no_cube_access(capsys):
    from dataclasses import replace

    from bgtui.analysis.formats import format_match_id, format_position_id, parse_position

    st = replace(parse_position(OPENING), cube_value=2, cube_owner="opponent")
    arg = f"{format_position_id(st)}:{format_match_id(st)}"
    code, out, _ = run(capsys, "cube", arg, "--json")
    d = json.loads(out)
    assert code == 0 and d["cube_access"] is False and d["action"] == "No double"
    assert d["double_take"] is None and d["double_pass"] is None
    assert d["wrong_pass_percent"] is None and d["wrong_take_percent"] is None
    p = d["probabilities"]
    W, L = _sizes(p)
    assert d["no_double"] == pytest.approx(
        _janowski(p["win"], X_CONTACT, "opponent", W, L), abs=1e-5
    )
    code, out, _ = run(capsys, "cube", arg)
    assert "no cube access" in out and "Double, take" not in out and "wrong passes" not in out
    # with the cube centred the same command shows the double
    code, out, _ = run(capsys, "cube", OPENING)
    assert "Double, take" in out and "too good point" in out


def test_cube_no_jacoby_counts_gammons_with_the_cube_centred(capsys):
    # Jacoby: with the cube centred a gammon counts only once the cube is turned. The live
    # part runs from -1 at the take point to +1 at the cash point (the points of the doubled
    # game, where gammons count) and is flat beyond them (a cash instead of playing on for a
    # gammon that would not count); the dead part is the cubeless equity limited to one
    # point. Inside the window (the opening position) that is the value without the rule; a
    # taken double is unaffected (gammons count after a double either way).
    d_j = json.loads(run(capsys, "cube", OPENING, "--json")[1])
    d_n = json.loads(run(capsys, "cube", OPENING, "--no-jacoby", "--json")[1])
    p = d_j["probabilities"]
    W, L = _sizes(p)
    assert W > 1.05 and L > 1.05  # the opening position has gammons both ways
    tp, cp = (L - 0.5) / (W + L + 0.5), (L + 1) / (W + L + 0.5)
    pw = p["win"]
    cubeless = pw * W - (1 - pw) * L
    jacoby = X_CONTACT * (-1 + 2 * (pw - tp) / (cp - tp)) + (1 - X_CONTACT) * cubeless
    assert tp < pw < cp and abs(cubeless) < 1
    assert d_j["no_double"] == pytest.approx(jacoby, abs=1e-5)
    assert d_n["no_double"] == pytest.approx(
        _janowski(p["win"], X_CONTACT, "centred", W, L), abs=1e-5
    )
    assert d_n["no_double"] == pytest.approx(d_j["no_double"], abs=1e-6)
    assert d_n["double_take"] == pytest.approx(d_j["double_take"], abs=1e-12)
    # the opening player is behind after a taken double (opponent owns the cube): beavered,
    # so the cube goes to 4: 4 * E_opponent_owns
    e_x = _janowski(p["win"], X_CONTACT, "opponent", W, L)
    assert e_x < 0 and d_j["double_take"] == pytest.approx(4 * e_x, abs=1e-5)
    # past the cash point the rule bites: the player cashes (+1) instead of playing on for a
    # gammon, so the centred no-double value is at most 1 under the rule and higher without
    d_j = json.loads(run(capsys, "cube", STRONG_GAMMONISH, "--json")[1])
    d_n = json.loads(run(capsys, "cube", STRONG_GAMMONISH, "--no-jacoby", "--json")[1])
    assert d_j["probabilities"]["win"] > d_j["cash_point"]
    assert d_j["no_double"] <= 1.0 < d_n["no_double"]


# an underdog race: player 5 checkers each on his 8, 7, 6 points (105 pips), opponent 5 each
# on his 6, 5, 4 points (75 pips): race x = 0.55 + 0.00125 * 105 = 0.68125
def _underdog_race_id():
    import numpy as np

    from bgtui.analysis.formats import format_position_id
    from bgtui.analysis.state import GameState

    pos = np.zeros(26, dtype=np.int8)
    pos[6] = pos[7] = pos[8] = 5
    pos[19] = pos[20] = pos[21] = -5
    return format_position_id(GameState.from_position(pos))


def test_cube_no_beavers_halves_a_beavered_double_take(capsys):
    # the underdog's double would be beavered: cube on 4 owned by the taker, worth
    # 4 * E_opponent_owns; without beavers 2 * E_opponent_owns (< 0)
    pid = _underdog_race_id()
    d_b = json.loads(run(capsys, "cube", pid, "--json")[1])
    d_n = json.loads(run(capsys, "cube", pid, "--no-beavers", "--json")[1])
    p = d_b["probabilities"]
    assert d_n["double_take"] < 0
    assert d_b["double_take"] == pytest.approx(2 * d_n["double_take"], abs=1e-12)
    assert d_n["no_double"] == d_b["no_double"] and d_b["action"] == d_n["action"] == "No double"
    W, L = _sizes(p)
    assert d_n["double_take"] == pytest.approx(
        2 * _janowski(p["win"], 0.68125, "opponent", W, L), abs=1e-5
    )


def test_cube_settlement_rollout_applies_beavers_and_pairs_the_difference(capsys, monkeypatch):
    # the settlement-limit rollout applies the beaver as the model does (same trials, so the
    # beavered double/take is exactly twice the other); the paired standard error of
    # double/take - no double equals the one computed by brute force from every trial's
    # outputs (captured as they are merged)
    import numpy as np

    from bgtui.analysis.rollout import RolloutJob
    from bgtui.engine.rollout import O_CENTRED, O_OPP_OWNED

    seen = []
    orig = RolloutJob._merge

    def spy(self, out, done, idx):
        seen.append(np.array(out[:, :done]))
        return orig(self, out, done, idx)

    monkeypatch.setattr(RolloutJob, "_merge", spy)
    pid = _underdog_race_id()
    args = ("cube", pid, "--rollout", "--trials", "72", "--workers", "1", "--json")
    d_b = json.loads(run(capsys, *args)[1])
    trials = np.concatenate(seen, axis=1)[0]
    seen.clear()
    d_n = json.loads(run(capsys, *args, "--no-beavers")[1])
    assert d_n["double_take"] < 0
    assert d_b["double_take"] == pytest.approx(2 * d_n["double_take"], abs=1e-12)
    assert d_b["no_double"] == pytest.approx(d_n["no_double"], abs=1e-12)
    assert trials.shape[0] == 72
    diff = 4.0 * trials[:, O_OPP_OWNED] - trials[:, O_CENTRED]  # beaver: 2 * 2 * opp-owned
    assert d_b["double_take"] - d_b["no_double"] == pytest.approx(diff.mean(), abs=1e-9)
    se = diff.std(ddof=1) / np.sqrt(len(diff))
    assert d_b["standard_errors"]["double_take_minus_no_double"] == pytest.approx(se, rel=1e-6)
    diff = 2.0 * trials[:, O_OPP_OWNED] - trials[:, O_CENTRED]
    se = diff.std(ddof=1) / np.sqrt(len(diff))
    assert d_n["standard_errors"]["double_take_minus_no_double"] == pytest.approx(se, rel=1e-6)


def test_rollout_json_probabilities_are_clamped_to_0_1(capsys):
    from bgtui.analysis.models import Probabilities

    d = Probabilities(0.5, -9e-11, -1e-12, 1.0000001, 0.2).to_dict()
    assert d == {
        "win": 0.5,
        "win_gammon": 0.0,
        "win_backgammon": 0.0,
        "lose_gammon": 1.0,
        "lose_backgammon": 0.2,
    }
    # a race (no backgammons possible) rolled out with variance reduction: every
    # probability in [0, 1]
    code, out, _ = run(
        capsys, "rollout", _underdog_race_id(), "--trials", "36", "--workers", "1", "--json"
    )
    p = json.loads(out)["probabilities"]
    assert all(0.0 <= v <= 1.0 for v in p.values())


def test_rollout_with_a_missing_filter_net_is_a_clear_error(capsys, monkeypatch):
    import bgtui.analysis.weights as W

    def missing(name=W.DEFAULT_FILTER):
        raise W.WeightsError(f"weights file {name!r} not found (looked in: nowhere)")

    monkeypatch.setattr(W, "load_filter_net", missing)
    code, out, err = run(
        capsys, "rollout", OPENING, "--trials", "36", "--truncate", "1", "--vr-filter", "2"
    )
    assert code == 2 and out == ""
    assert err.startswith("bgtui: error: weights file 'filter-0.npz' not found")
    assert "Traceback" not in err
    with pytest.raises(SystemExit) as e:  # refused by the option's own range
        run(capsys, "rollout", OPENING, "--vr-filter", "9")
    err = capsys.readouterr().err
    assert e.value.code == 2 and "--vr-filter: must be a whole number from 0 to 8" in err


def test_cubeful_rollout_text_shows_the_standard_error_of_every_cube_state(capsys):
    code, out, _ = run(capsys, "rollout", OPENING, "--cubeful", "--trials", "36", "--workers", "1")
    _, out_json, _ = run(
        capsys, "rollout", OPENING, "--cubeful", "--trials", "36", "--workers", "1", "--json"
    )
    se = json.loads(out_json)["equity_se"]
    line = next(x for x in out.splitlines() if "centred" in x)
    for name, label in (
        ("centred", "centred"),
        ("owned", "owned"),
        ("opponent_owned", "opp-owned"),
    ):
        # each state's equity followed by its standard error, as the JSON gives it
        after = line.split(f" {label} ", 1)[1].split()
        assert after[1].startswith("±") and abs(float(after[1][1:]) - se[name]) <= 6e-4, after
    assert code == 0


def test_cube_shows_the_cube_states_and_the_model(capsys):
    # the three cube states after the player's best cube action, from the decision's own
    # figures: centred = max(no double, min(double/take, double/pass)) with the cube centred;
    # owned: the redouble is 2 x the opponent-owned value, not beavered
    for ply, model in ((0, "janowski"), (1, "cubeful lookahead")):
        d = json.loads(run(capsys, "cube", "4OfgBSBmrsQANA", "--ply", str(ply), "--json")[1])
        e = d["equity"]
        assert d["model"] == model and d["ply"] == ply
        assert d["cube_efficiency"] == pytest.approx(X_CONTACT)
        assert e["centred"] == pytest.approx(
            max(d["no_double"], min(d["double_take"], d["double_pass"])), abs=1e-12
        )
        assert e["owned"] >= min(2 * e["opponent_owned"], 1.0) - 1e-12
        assert e["owned"] >= e["centred"] - 1e-12 >= e["opponent_owned"] - 1e-12
        out = run(capsys, "cube", "4OfgBSBmrsQANA", "--ply", str(ply))[1]
        assert (
            f"Cube states (1-cube): centred {e['centred']:+.3f}  player owns "
            f"{e['owned']:+.3f}  opponent owns {e['opponent_owned']:+.3f}"
        ) in out


def test_rollout_text_of_one_trial_leaves_the_unknown_standard_errors_out(capsys):
    # one trial: no standard error yet (NaN); the text shows none rather than "±nan"
    code, out, _ = run(
        capsys, "rollout", OPENING, "--trials", "1", "--truncate", "2", "--dice", "31", "--top", "2"
    )
    assert code == 0
    assert "nan" not in out and "±" not in out
    assert not any(line.endswith(" ") for line in out.splitlines())
    code, out, _ = run(
        capsys,
        "rollout",
        OPENING,
        "--match",
        "7",
        "--score",
        "2-3",
        "--trials",
        "1",
        "--truncate",
        "2",
        "--dice",
        "31",
        "--top",
        "2",
    )
    assert code == 0 and "MWC" in out and "nan" not in out and "±" not in out
    code, out, _ = run(capsys, "rollout", OPENING, "--trials", "3", "--truncate", "2")
    assert code == 0 and "±" in out and "nan" not in out


@pytest.mark.parametrize("k", [0, 1])
def test_eval_prune_sets_the_lookaheads_pruning(capsys, k):
    """``--prune K``: the 1-ply evaluation the engine's lookahead gives with the filter net's
    best K plays a roll (0: every play); K = 1 changes this position's value."""
    from bgtui.analysis.formats import parse_position
    from bgtui.analysis.weights import load_filter_net, load_weights, with_databases
    from bgtui.engine import evaluate_plied, hidden_size, make_lookahead_workspace

    pid = "zGbiIQgxH/AAWA"
    d = json.loads(run(capsys, "eval", pid, "--ply", "1", "--prune", str(k), "--json")[1])
    ev = with_databases(load_weights("bgtui-0.npz")[0], bearoff=True)
    pos = parse_position(pid).position
    want, exact = np.zeros(5, dtype=np.float32), np.zeros(5, dtype=np.float32)
    fn = load_filter_net() if k else None
    evaluate_plied(pos, 1, ev, make_lookahead_workspace(hidden_size(ev), fn, k), want)
    evaluate_plied(pos, 1, ev, make_lookahead_workspace(hidden_size(ev)), exact)
    got = [d["probabilities"][name] for name in PROBS_ORDER]
    assert np.allclose(got, want, atol=1e-6)
    assert np.allclose(got, exact, atol=1e-6) == (k == 0)
    with pytest.raises(SystemExit) as exc:
        run(capsys, "eval", pid, "--ply", "1", "--prune", "9")
    err = capsys.readouterr().err
    assert exc.value.code == 2 and "--prune" in err and "from 0 to 8" in err


def test_lookahead_without_its_filter_net_is_a_clear_error(capsys, monkeypatch):
    """1-ply and deeper prune with the filter net: a missing one is one line and status 2,
    and ``--prune 0`` (every play) does without it."""
    import bgtui.analysis.weights as W

    def missing(name=W.DEFAULT_FILTER):
        raise W.WeightsError(f"weights file {name!r} not found (looked in: nowhere)")

    monkeypatch.setattr(W, "load_filter_net", missing)
    code, out, err = run(capsys, "eval", OPENING, "--ply", "1")
    assert code == 2 and out == ""
    assert err.startswith("bgtui: error: weights file 'filter-0.npz' not found")
    assert run(capsys, "eval", OPENING, "--ply", "1", "--prune", "0")[0] == 0
    code, out, err = run(
        capsys,
        "rollout",
        OPENING,
        "--trials",
        "36",
        "--truncate",
        "1",
        "--ply",
        "1",
        "--vr-filter",
        "0",
    )
    assert code == 2 and err.startswith("bgtui: error: weights file 'filter-0.npz' not found")
