"""Position ID, Match ID and XGID against published strings, round trips and bad input."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bgtui.analysis.board import impossible_reason
from bgtui.analysis.formats import (
    PositionFormatError,
    decode_match_id,
    decode_position_id,
    encode_position_id,
    format_match_id,
    format_position_id,
    format_xgid,
    parse_position,
)
from bgtui.analysis.state import GameState
from bgtui.engine.constants import OPENING_POSITION


def test_opening_position_id_is_the_published_one():
    # GNU Backgammon manual: the starting position is 4HPwATDgc/ABMA
    assert encode_position_id(OPENING_POSITION) == "4HPwATDgc/ABMA"
    assert np.array_equal(decode_position_id("4HPwATDgc/ABMA"), OPENING_POSITION)


def test_position_id_puts_the_player_on_rolls_bar_checker_on_our_bar():
    # "zGbiIQgxH/AAWA" is a published test ID of a position where the player on roll has a
    # checker on the bar (wildbg's position-ID tests, made to match GNU Backgammon): GNU
    # Backgammon encodes the player NOT on roll first, so that checker lands on slot 25.
    pos = decode_position_id("zGbiIQgxH/AAWA")
    assert pos[25] == 1 and pos[0] == 0
    assert encode_position_id(pos) == "zGbiIQgxH/AAWA"


@pytest.mark.parametrize(
    "pid", ["4HPwATDgc/ABMA", "jGfkASjg8wcBMA", "zGbiIQgxH/AAWA", "zGbiIYCYD3gALA"]
)
def test_published_position_ids_round_trip_byte_for_byte(pid):
    assert encode_position_id(decode_position_id(pid)) == pid


def test_match_id_of_a_money_game_start():
    # "4HPwATDgc/ABMA:cAkAAAAAAAAA": cube 1 centred, player 1 on roll, game playing, money
    f = decode_match_id("cAkAAAAAAAAA")
    assert f["cube_log"] == 0 and f["cube_owner"] == 3 and f["on_roll"] == 1
    assert f["game_state"] == 1 and f["match_length"] == 0 and f["die1"] == 0
    s = parse_position("4HPwATDgc/ABMA:cAkAAAAAAAAA")
    assert s.cube_owner == "centred" and s.is_money and s.dice is None
    assert format_match_id(s) == "cAkAAAAAAAAA"


@pytest.mark.parametrize("mid", ["cAkAAAAAAAAA", "8IhuACAACAAE"])
def test_published_match_ids_round_trip_byte_for_byte(mid):
    s = parse_position("4HPwATDgc/ABMA:" + mid)
    assert format_match_id(s) == mid


def test_match_id_with_dice_score_and_cube():
    s = GameState.from_position(
        OPENING_POSITION,
        cube_value=4,
        cube_owner="opponent",
        dice=(5, 2),
        match_length=7,
        score=(3, 5),
        on_roll=0,
    )
    back = parse_position(format_position_id(s) + ":" + format_match_id(s))
    assert back == s
    f = decode_match_id(format_match_id(s))
    assert f["cube_log"] == 2 and f["cube_owner"] == 1 and f["on_roll"] == 0
    assert (f["score0"], f["score1"]) == (3, 5) and f["match_length"] == 7


def test_conventions_xgid_is_the_opening_position():
    s = parse_position("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10")
    assert np.array_equal(s.position, OPENING_POSITION)
    assert format_xgid(s) == "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"
    assert format_position_id(s) == "4HPwATDgc/ABMA"


def test_xgid_with_o_on_roll_is_seen_from_o():
    # turn -1: the top player O is on roll; our state is from O's side
    s = parse_position("XGID=-CCCBBB------------cccbbb-:1:1:-1:63:2:4:0:7:10")
    assert s.on_roll == 0
    # O's checkers (lowercase) become the player's: 3, 3, 3, 2, 2, 2 on his points 6..1
    assert s.position[6] == 3 and s.position[1] == 2
    assert s.dice == (6, 3) and s.cube_value == 2 and s.cube_owner == "opponent"
    assert s.score == (4, 2) and s.match_length == 7
    assert format_xgid(s) == "XGID=-CCCBBB------------cccbbb-:1:1:-1:63:2:4:0:7:10"


def test_xgid_letters_on_the_bar_slots_put_checkers_on_both_bars():
    s = parse_position("XGID=b-----B------------c-----C:0:0:1:00:0:0:0:0:8")
    assert s.position[25] == 3 and s.position[0] == -2


@pytest.mark.parametrize(
    "text, words",
    [
        ("", "empty"),
        ("4HPwATDgc/ABM", "14 characters"),
        ("4HPwATDgc/AB#A", "not a base64"),
        ("////////////AA", "runs out of bits"),
        ("4HPwATDgc/ABMA:cAkAAAAAAAA", "12 characters"),
        ("XGID=-b----E-C---eE---c-e----B:0:0:1:00:0:0:0:0:10", "26 characters"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:2:00:0:0:0:0:10", "turn"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:1:07:0:0:0:0:10", "dice"),
        ("XGID=-p----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10", "not '-'"),
        ("XGID=-b----E-C---eE---c-e----BB:0:0:1:00:0:0:0:0:10", "17 checkers"),
    ],
)
def test_bad_positions_get_clear_messages(text, words):
    with pytest.raises(PositionFormatError) as e:
        parse_position(text)
    assert words in str(e.value)


def _positions():
    """Random legal positions: 15 or fewer checkers a side on distinct points and bars."""

    @st.composite
    def build(draw):
        pos = np.zeros(26, dtype=np.int64)
        free = list(range(1, 25))
        for sign, bar in ((1, 25), (-1, 0)):
            n = draw(st.integers(1, 15))
            for _ in range(n):
                if draw(st.integers(0, 9)) == 0:
                    pos[bar] += sign
                    continue
                choices = [i for i in free if pos[i] * sign >= 0]
                i = draw(st.sampled_from(choices))
                pos[i] += sign
        return pos.astype(np.int8)

    return build().filter(lambda p: impossible_reason(p) is None)


@settings(max_examples=200, deadline=None)
@given(_positions())
def test_position_id_round_trip(pos):
    assert np.array_equal(decode_position_id(encode_position_id(pos)), pos)


@settings(max_examples=200, deadline=None)
@given(
    _positions(),
    st.fixed_dictionaries(
        {
            "cube_value": st.sampled_from([1, 2, 8, 64]),
            "cube_owner": st.sampled_from(["centred", "player", "opponent"]),
            "dice": st.one_of(st.none(), st.tuples(st.integers(1, 6), st.integers(1, 6))),
            "on_roll": st.integers(0, 1),
            "match_length": st.integers(0, 11),
        }
    ),
)
def test_match_id_and_xgid_round_trip(pos, fields):
    length = fields["match_length"]
    score = (0, 0) if length == 0 else (length - 1, 0)
    s = GameState.from_position(pos, score=score, **fields)
    assert parse_position(format_position_id(s) + ":" + format_match_id(s)) == s
    x = parse_position(format_xgid(s))
    assert np.array_equal(x.position, s.position)
    assert (x.cube_value, x.cube_owner, x.dice, x.match_length, x.score) == (
        s.cube_value,
        s.cube_owner,
        s.dice,
        s.match_length,
        s.score,
    )
