"""The readers' strict rules, each against a hand-made case, and fuzzing of every reader with
strings and bytes: either a valid result that re-encodes to the same state, or
PositionFormatError and nothing else."""

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from bgtui.analysis.board import impossible_reason
from bgtui.analysis.formats import (
    PositionFormatError,
    decode_match_id,
    decode_position_id,
    decode_xgid,
    encode_match_id,
    encode_position_id,
    format_match_id,
    format_position_id,
    format_xgid,
    parse_position,
)
from bgtui.analysis.notation import NotationError, parse_dice
from bgtui.analysis.state import GameState
from bgtui.engine.constants import OPENING_POSITION
from bgtui.engine.position import make_position

OPENING = "4HPwATDgc/ABMA"
XGID = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"
MATCH = "cAkAAAAAAAAA"


def _rejects(text, *words):
    with pytest.raises(PositionFormatError) as e:
        parse_position(text)
    msg = str(e.value)
    for w in words:
        assert w in msg, msg
    return msg


def _with_field(i, value, base=XGID):
    parts = base.split(":")
    parts[i] = value
    return ":".join(parts)


# -- characters --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "text", ["4HPwATDgc/ABM\uff21", "4HPwATDgc/\x00BMA", "\u0664HPwATDgc/ABMA"]
)
def test_only_printable_ascii_is_read(text):
    _rejects(text, "ASCII")


def test_dice_in_other_scripts_digits_are_refused():
    assert parse_dice("31") == (3, 1)
    for text in ("\uff13\uff11", "\u0663\u0661", "3\u00b9"):
        with pytest.raises(NotationError):
            parse_dice(text)


def test_bytes_are_read_as_ascii():
    assert parse_position(OPENING.encode()) == parse_position(OPENING)
    _rejects(b"4HPwATDgc/ABM\xff", "not ASCII")


def test_error_messages_quote_a_short_prefix_of_a_long_input():
    for text in ("A" * 1_000_000, "XGID=" + "-" * 1_000_000, OPENING + ":" + "B" * 1_000_000):
        msg = _rejects(text)
        assert len(msg) < 300


# -- Position ID: one string per board ------------------------------------------------------------
def test_a_position_id_with_stray_bits_after_its_last_point_is_refused():
    # 30 checkers and 50 separators fill the opening's 80 key bits; the last character also
    # carries 4 bits past the key: any of them set changes nothing a reader sees
    for last in "BCDEFGHIJKLMNOP":
        _rejects(OPENING[:-1] + last, "bits set after its last point", OPENING)


def test_every_position_id_reads_back_to_itself():
    assert encode_position_id(decode_position_id(OPENING)) == OPENING


# -- positions that cannot arise -----------------------------------------------------------------
def _both_on_bar_closed():
    # each side: 2 checkers on every home point, 1 on the bar, the rest on its 13 point
    side = {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 25: 1, 13: 2}
    return make_position(side, side)


def test_both_sides_on_the_bar_against_closed_boards_cannot_arise():
    pos = _both_on_bar_closed()
    assert "bar" in impossible_reason(pos)
    _rejects(encode_position_id(pos), "cannot arise", "bar")
    st_ = GameState.from_position(pos)
    _rejects(format_xgid(st_), "cannot arise", "bar")


def test_one_open_point_makes_both_on_the_bar_possible():
    # the player on roll entered one checker hitting a blot (the 20 point he now holds): the
    # opponent's board is no longer closed there
    side = {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 25: 1, 13: 2}
    opp = dict(side)
    del opp[5]
    opp[13] = 4
    me = dict(side)
    me[20] = 1
    me[13] = 1
    pos = make_position(me, opp)
    assert impossible_reason(pos) is None
    assert np.array_equal(decode_position_id(encode_position_id(pos)), pos)


def test_the_player_on_roll_with_no_checker_left_cannot_arise():
    pos = make_position({}, {6: 3})
    _rejects(encode_position_id(pos), "cannot arise", "borne off all 15")
    # the opponent having borne off is a finished game, shown as it is
    done = make_position({6: 3}, {})
    assert np.array_equal(decode_position_id(encode_position_id(done)), done)


def test_too_many_checkers_are_refused():
    _rejects("XGID=-b----E-C---eE---c-e----BB:0:0:1:00:0:0:0:0:10", "17 checkers")


# -- Match ID fields -----------------------------------------------------------------------------
def _mid(**changes):
    f = decode_match_id(MATCH)
    f.update(changes)
    return OPENING + ":" + encode_match_id(f)


@pytest.mark.parametrize(
    "changes, words",
    [
        (dict(tail=2), "past bit 66"),
        (dict(tail=32), "past bit 66"),
        (dict(cube_owner=2), "cube owner"),
        (dict(game_state=5), "game state"),
        (dict(game_state=7), "game state"),
        (dict(die1=7, die2=1), "dice"),
        (dict(die1=3, die2=0), "dice"),
        (dict(turn=0), "turn"),
        (dict(double_offered=1), "turn"),
        (dict(double_offered=1, turn=0, die1=3, die2=1), "after the dice"),
        (dict(double_offered=1, resigned=1, turn=0), "at once"),
        (dict(match_length=5, score0=5), "not below the match length"),
        (dict(crawford=1), "money"),
        (dict(crawford=1, match_length=5, score0=3), "Crawford"),
        (dict(crawford=1, match_length=5, score0=4, score1=4), "Crawford"),
        (dict(crawford=1, match_length=5, score0=4, cube_log=1, cube_owner=0), "nobody may double"),
    ],
)
def test_match_id_fields_out_of_range_are_refused(changes, words):
    _rejects(_mid(**changes), words)


def test_match_id_fields_in_range_are_read():
    s = parse_position(_mid(crawford=1, match_length=5, score0=4, score1=2))
    assert s.crawford and s.match_length == 5
    s = parse_position(_mid(double_offered=1, turn=0, cube_log=1, cube_owner=1))
    assert s.double_offered
    for mid in ("cAkAAAAAAAAA", "8IhuACAACAAE"):  # bit 66 (GNU Backgammon's) is carried
        assert format_match_id(parse_position(OPENING + ":" + mid)) == mid


# -- XGID fields ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "text, words",
    [
        (_with_field(9, "-1"), "maximum cube exponent"),
        (_with_field(9, "99999"), "maximum cube exponent"),
        (_with_field(9, "3", _with_field(1, "4")), "cube exponent must be 0 to 3"),
        (_with_field(1, "16"), "cube exponent"),
        (_with_field(2, "2"), "cube position"),
        (_with_field(3, "0"), "turn"),
        (_with_field(4, "07"), "dice"),
        (_with_field(4, "\uff13\uff11"), "ASCII"),
        (_with_field(5, "-1"), "score of X"),
        (_with_field(6, "99999"), "score of O"),
        (_with_field(7, "4"), "Jacoby/beaver flags must be 0 to 3"),
        (_with_field(8, "5", _with_field(7, "2")), "Crawford flag must be 0 to 1"),
        (_with_field(8, "5", _with_field(5, "5")), "not below the match length"),
        (_with_field(8, "5", _with_field(7, "1")), "Crawford"),
        (_with_field(8, "5", _with_field(4, "B")), "money"),
        (_with_field(8, "40000"), "match length"),
        (_with_field(1, "+1"), "written plainly"),
        (_with_field(1, "01"), "written plainly"),
        (_with_field(1, " 1"), "written plainly"),
        (_with_field(1, "1_0"), "written plainly"),
        (XGID + ":0", "9 fields"),
        (XGID.rsplit(":", 1)[0], "9 fields"),
        ("XGID=-b----E-C---eE---c-e----B-", "9 fields"),
        ("XGID=-p----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10", "not '-'"),
    ],
)
def test_xgid_fields_out_of_range_are_refused(text, words):
    _rejects(text, words)


def test_a_match_id_cube_above_the_xgid_default_maximum_round_trips():
    s = parse_position("4HPwATDgc/ABMA:XAkAAAAAAAAA")  # a 4096-cube (exponent 12)
    assert s.cube_value == 4096
    x = parse_position(format_xgid(s))
    assert x.cube_value == 4096 and x.max_cube_log == 12


def test_xgid_in_range_reads_and_round_trips():
    s = parse_position(_with_field(8, "5", _with_field(7, "1", _with_field(5, "4"))))
    assert s.crawford and s.match_length == 5
    assert parse_position(format_xgid(s)) == s


# -- fuzzing -------------------------------------------------------------------------------------
def _check(result):
    """A state that was read must re-encode to itself through every format."""
    assert isinstance(result, GameState)
    back = parse_position(format_position_id(result) + ":" + format_match_id(result))
    # a Match ID does not carry the money-play options (Jacoby, beavers)
    assert replace(back, jacoby=result.jacoby, beavers=result.beavers) == result
    x = parse_position(format_xgid(result))
    assert np.array_equal(x.position, result.position)
    assert (x.cube_value, x.cube_owner, x.dice, x.match_length, x.score, x.crawford) == (
        result.cube_value,
        result.cube_owner,
        result.dice,
        result.match_length,
        result.score,
        result.crawford,
    )


def _read(reader, value):
    try:
        return reader(value)
    except PositionFormatError:
        return None


_VALID = [
    OPENING,
    OPENING + ":" + MATCH,
    "4HPwATDgc/ABMA:8IhuACAACAAE",
    XGID,
    "XGID=-CCCBBB------------cccbbb-:1:1:-1:63:2:4:0:7:10",
    "zGbiIQgxH/AAWA",
]
_ALPHABET = st.sampled_from(
    list("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnop0123456789+/:=-Xx \x00\uff11\u0663\xff")
)


@st.composite
def _mutated(draw):
    s = list(draw(st.sampled_from(_VALID)))
    for _ in range(draw(st.integers(0, 4))):
        op = draw(st.integers(0, 2))
        i = draw(st.integers(0, len(s)))
        if op == 0 and s:
            s[min(i, len(s) - 1)] = draw(_ALPHABET)
        elif op == 1:
            s.insert(i, draw(_ALPHABET))
        elif s:
            del s[min(i, len(s) - 1)]
    return "".join(s)


_SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@_SETTINGS
@given(st.one_of(st.text(max_size=80), _mutated()))
@example("XGID=-b----E-C---eE---c-e----B-")
@example("")
@example(":")
def test_fuzz_parse_position_text(text):
    r = _read(parse_position, text)
    if r is not None:
        _check(r)


@_SETTINGS
@given(st.one_of(st.binary(max_size=80), _mutated().map(lambda s: s.encode("utf-8"))))
@example(b"4HPwATDgc/ABMA\xff")
def test_fuzz_parse_position_bytes(data):
    r = _read(parse_position, data)
    if r is not None:
        _check(r)


@_SETTINGS
@given(
    st.one_of(
        st.text(alphabet=_ALPHABET, min_size=12, max_size=16),
        st.binary(min_size=12, max_size=16),
        st.binary(min_size=10, max_size=10).map(
            lambda b: __import__("base64").b64encode(b).decode()[:14]
        ),
    )
)
def test_fuzz_position_id_reader(value):
    pos = _read(decode_position_id, value)
    if pos is not None:
        text = value.decode() if isinstance(value, bytes) else value
        assert encode_position_id(pos) == text.strip(" \t\r\n")


@_SETTINGS
@given(
    st.one_of(
        st.binary(min_size=9, max_size=9).map(lambda b: __import__("base64").b64encode(b).decode()),
        st.binary(max_size=14),
        st.text(max_size=14),
    )
)
def test_fuzz_match_id_reader(value):
    f = _read(decode_match_id, value)
    if f is not None:
        text = value.decode() if isinstance(value, bytes) else value
        assert encode_match_id(f) == text.strip(" \t\r\n")
        r = _read(parse_position, OPENING + ":" + encode_match_id(f))
        if r is not None:
            assert format_match_id(r) == encode_match_id(f)


@st.composite
def _xgids(draw):
    board = "".join(draw(st.lists(st.sampled_from(list("-aAbBcCoO")), min_size=26, max_size=26)))
    fields = [
        draw(
            st.sampled_from(
                [
                    "0",
                    "1",
                    "-1",
                    "2",
                    "15",
                    "16",
                    "00",
                    "31",
                    "66",
                    "D",
                    "B",
                    "07",
                    "+1",
                    "",
                    "99999",
                    "\uff11",
                ]
            )
        )
        for _ in range(9)
    ]
    return "XGID=" + board + ":" + ":".join(fields)


@_SETTINGS
@given(st.one_of(_xgids(), _xgids().map(lambda s: s.encode("utf-8"))))
def test_fuzz_xgid_reader(value):
    r = _read(decode_xgid, value)
    if r is not None:
        _check(r)


def test_opening_is_possible():
    assert impossible_reason(OPENING_POSITION) is None
