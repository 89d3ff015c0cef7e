"""``tools/golden.py``: its command file parses to the commands it names, and ``--compare``
finds every kind of difference between two output directories."""

import json
from pathlib import Path

from tests.reference.scripts import load_script


def _golden():
    return load_script("tools/golden.py")


def test_the_command_file_names_positions_and_quoted_arguments():
    g = _golden()
    assert len(g.MONEY) > 40 and len(g.MATCH) > 20
    assert g.MONEY["eval_opening_ply0"] == ["eval", g.OPENING, "--ply", "0"]
    # a quoted shell word stays one argument
    moves = g.MONEY["rollout_middle_64_moves_full"]
    assert "24/18 13/9" in moves and moves[:2] == ["rollout", g.MIDDLE]
    assert all(not any("{" in a for a in argv) for argv in [*g.MONEY.values(), *g.MATCH.values()])


def _write(d: Path, name: str, obj) -> None:
    d.mkdir(exist_ok=True)
    (d / f"{name}.json").write_text(json.dumps(obj))


def test_compare_reports_a_changed_number_a_missing_output_and_identity(tmp_path, capsys):
    g = _golden()
    a, b = tmp_path / "a", tmp_path / "b"
    out = {"equity": {"cubeless": 0.125}, "moves": [{"move": "8/5 6/5", "e": 0.1}]}
    for d in (a, b):
        _write(d, "one", out)
        _write(d, "two", {"x": [1, 2, 3]})
    assert g.compare(a, b) == 0
    assert "2 of 2 outputs identical" in capsys.readouterr().out

    _write(
        b, "one", {"equity": {"cubeless": 0.125}, "moves": [{"move": "8/5 6/5", "e": 0.1 + 1e-12}]}
    )
    _write(a, "three", {"y": 1})
    assert g.compare(a, b) == 1
    text = capsys.readouterr().out
    assert f"one: $.moves[0].e: 0.1 != {0.1 + 1e-12!r}" in text
    assert f"three: only in {a}" in text
    assert "1 of 3 outputs identical, 2 differ" in text


def test_strip_varying_drops_only_the_speed():
    g = _golden()
    got = g.strip_varying(
        {"games_per_second": 12.5, "trials": 36, "rows": [{"games_per_second": 1}]}
    )
    assert got == {"trials": 36, "rows": [{}]}
