"""Numbers as people read them (the command line and the app share them) and atomic writes."""

import os

import pytest

from bgtui.analysis.atomic import atomic_write, atomic_write_text
from bgtui.analysis.models import Probabilities
from bgtui.analysis.numbers import duration, eq, mwc, mwc_diff, pct, pct_se, percent, rate, se
from bgtui.cli.commands import _probs_line


def test_an_equity_that_rounds_to_zero_has_no_minus_sign():
    assert eq(-0.0) == "+0.000"
    assert eq(-0.0004) == "+0.000"  # rounds to zero: no loss to show
    assert eq(0.0) == "+0.000"
    assert eq(-0.0764) == "-0.076" and eq(0.0764) == "+0.076"
    assert eq(-1.0) == "-1.000" and eq(None) == ""


def test_a_probability_is_a_percentage_clamped_to_0_100():
    assert pct(0.525) == "52.5%"
    assert pct(-1e-12) == "0.0%" and pct(-0.0) == "0.0%"
    assert pct(1.0 + 1e-9) == "100.0%"
    assert pct(0.5, 5) == " 50.0%" and pct(1.0, 5) == "100.0%"
    assert pct(None) == ""


def test_a_percentage_that_rounds_to_zero_has_no_minus_sign():
    assert percent(0.273) == "27.3%"
    assert percent(-0.0001) == "0.0%"
    assert percent(-0.05) == "-5.0%" and percent(1.25) == "125.0%"


def test_a_match_winning_chance_has_two_decimals_and_no_minus_zero():
    assert mwc(0.5732) == "57.32%"
    assert mwc(0.5732, 6) == " 57.32%" and mwc(1.0, 6) == "100.00%"
    assert mwc(0.0) == "0.00%" and mwc(-0.0) == "0.00%"
    assert mwc(-0.00004) == "0.00%"  # -0.004 percentage points rounds to zero
    assert mwc(-0.00004, 6) == "  0.00%"
    assert mwc(None) == ""


def test_a_match_winning_chance_difference_has_a_sign_and_zero_is_plus():
    assert mwc_diff(-0.0125) == "-1.25%" and mwc_diff(0.0125) == "+1.25%"
    assert mwc_diff(0.0) == "+0.00%" and mwc_diff(-0.0) == "+0.00%"
    assert mwc_diff(-0.00004) == "+0.00%"  # a tiny negative difference is no loss
    assert mwc_diff(-0.00005001) == "-0.01%"  # -0.005001 points rounds to -0.01
    assert mwc_diff(None) == ""


def test_standard_errors_rates_and_durations():
    assert se(0.0041) == "±0.004" and se(-0.0041) == "±0.004"
    assert pct_se(0.004) == "±0.4%"
    assert rate(2434.4) == "2,434"
    assert duration(42.4) == "42 s" and duration(185) == "3 min 05 s"
    assert duration(3720) == "1 h 02 min" and duration(None) == "?"


def test_the_command_lines_probability_line_uses_the_shared_formats():
    p = Probabilities(1.0 + 1e-12, 0.125, 0.0, -1e-12, 0.0)  # rounding left them outside 0-1
    line = _probs_line(p)
    assert line == "W 100.0%  WG  12.5%  WBG   0.0%  L   0.0%  LG   0.0%  LBG   0.0%"


def test_an_atomic_write_replaces_the_whole_file_or_nothing(tmp_path):
    path = tmp_path / "sub" / "a.json"
    assert atomic_write_text(path, "old") == path
    assert path.read_text() == "old"

    def torn(f):
        f.write(b"half")
        raise RuntimeError("disk full")

    with pytest.raises(RuntimeError):
        atomic_write(path, torn)
    assert path.read_text() == "old"  # the old file stands
    assert sorted(os.listdir(path.parent)) == ["a.json"]  # no temporary left behind
    atomic_write(path, lambda f: f.write(b"new"), mode=0o644)
    assert path.read_bytes() == b"new"
    assert path.stat().st_mode & 0o777 == 0o644


def test_an_atomic_write_syncs_the_content_only_when_asked(tmp_path, monkeypatch):
    synced = []
    real_fsync = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: synced.append(fd) or real_fsync(fd))
    atomic_write_text(tmp_path / "a.txt", "plain")
    assert synced == []
    atomic_write_text(tmp_path / "a.txt", "synced", fsync=True)
    assert len(synced) == 1 and (tmp_path / "a.txt").read_text() == "synced"
