"""Saved analyses round-trip; bad files get clear messages."""

import pytest

from bgtui.analysis.formats import parse_position
from bgtui.analysis.persist import export_markdown, load_analysis, save_analysis


def test_save_and_load_round_trip(tmp_path, monkeypatch):
    monkeypatch.setenv("BGTUI_DATA_DIR", str(tmp_path))
    s = parse_position("XGID=-b----E-C---eE---c-e----B-:1:1:1:31:0:0:0:0:10")
    path = save_analysis("x/y", s, rollout_state={"version": 1}, preset="Standard full")
    assert path.name == "x_y.json"
    d = load_analysis("x_y")
    assert d["state"] == s and d["rollout_state"] == {"version": 1}
    assert "# bgtui analysis" in export_markdown(s)


def test_bad_analysis_files(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(ValueError, match="not an analysis file"):
        load_analysis(bad)
    with pytest.raises(ValueError, match="cannot read"):
        load_analysis(tmp_path / "missing.json")
