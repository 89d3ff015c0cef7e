"""The board editor's match context: the prompt's text and the checks on accepting."""

from dataclasses import replace

import pytest

from bgtui.analysis.formats import parse_position
from bgtui.ui.screens.editor import EditorScreen, parse_match_text


def test_match_text():
    assert parse_match_text("7 4-2") == (7, (4, 2), False)
    assert parse_match_text("5 4-2 c") == (5, (4, 2), True)
    assert parse_match_text("0") == (0, (0, 0), False)
    assert parse_match_text("money") == (0, (0, 0), False)
    for bad in ("seven", "7 4:2", "7 4-2 x"):
        with pytest.raises(ValueError):
            parse_match_text(bad)


def test_editor_result_carries_and_checks_the_match():
    scr = EditorScreen(parse_position("4HPwATDgc/ABMA"))
    scr.edit = replace(scr.edit, match_length=7, score=(4, 2))
    s = scr.result()
    assert (s.match_length, s.score, s.crawford) == (7, (4, 2), False)
    scr.edit = replace(scr.edit, crawford=True)
    with pytest.raises(ValueError, match="1-away"):
        scr.result()
    scr.edit = replace(scr.edit, match_length=3, score=(4, 2), crawford=False)
    with pytest.raises(ValueError, match="not below"):
        scr.result()
