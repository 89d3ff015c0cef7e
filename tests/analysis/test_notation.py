"""Move notation: GNU Backgammon forms on hand-made positions, and parse(format) round trips."""

import numpy as np
import pytest

from bgtui.analysis.notation import NotationError, format_dice, format_play, parse_dice, parse_play
from bgtui.engine.constants import OPENING_POSITION
from bgtui.engine.movegen import generate_plays
from bgtui.engine.position import make_position, swap_sides


def _texts(pos, d1, d2):
    children, moves = generate_plays(pos, d1, d2)
    return {format_play(pos, m): c for c, m in zip(children, moves)}


def test_opening_31_plays_in_gnu_notation():
    t = _texts(np.array(OPENING_POSITION), 3, 1)
    assert {"8/5 6/5", "24/20", "13/9", "24/23 24/21", "13/10 6/5"} <= set(t)
    assert len(t) == 16


def test_one_checker_with_both_dice_and_repeats():
    t = _texts(np.array(OPENING_POSITION), 6, 5)
    assert "24/13" in t  # lover's leap: one checker, both dice
    t = _texts(np.array(OPENING_POSITION), 6, 6)
    assert "24/18(2) 13/7(2)" in t and "13/7(4)" in t


def test_hits_marked_at_the_hit_point_and_en_route():
    #  player: 24 (2 checkers), 13 (5) ...; opponent blots on our 18 and 21
    pos = make_position({24: 2, 13: 5, 8: 3, 6: 5}, {7: 1, 4: 1, 13: 5, 8: 3, 6: 3, 2: 2})
    # opponent's 7 point = our 18, his 4 point = our 21
    t = _texts(pos, 6, 5)
    assert "24/18*/13" in t  # hit en route with the 6, then on with the 5
    assert "24/18* 13/8" in t
    t = _texts(pos, 3, 1)
    assert "24/21*(2)" not in t and any(s.startswith("24/21*") for s in t)


def test_plays_from_the_bar_and_bearing_off_are_written_bar_and_off():
    # player on the bar against an open board; bear-off position for 'off'
    pos = make_position({25: 1, 13: 14}, {6: 15})
    t = _texts(pos, 3, 1)
    assert any(s.startswith("bar/22") for s in t) and any(s.startswith("bar/24") for s in t)
    home = make_position({6: 2, 5: 3}, {6: 15})
    t = _texts(home, 6, 5)
    assert "6/off 5/off" in t


def test_parse_accepts_25_and_0_and_chains():
    pos = make_position({25: 1, 13: 14}, {6: 15})
    a = parse_play(pos, "bar/22 13/12", (3, 1))
    b = parse_play(pos, "25/22 13/12", (3, 1))
    assert np.array_equal(a, b)
    home = make_position({6: 2, 5: 3}, {6: 15})
    assert np.array_equal(
        parse_play(home, "6/0 5/0", (6, 5)), parse_play(home, "6/off 5/off", (6, 5))
    )
    op = np.array(OPENING_POSITION)
    assert np.array_equal(parse_play(op, "24/18 18/13", (6, 5)), parse_play(op, "24/13", (6, 5)))


def test_parse_rejects_illegal_and_unreadable_moves():
    op = np.array(OPENING_POSITION)
    with pytest.raises(NotationError, match="not a legal play"):
        parse_play(op, "8/5 6/4", (3, 1))
    with pytest.raises(NotationError, match="cannot read"):
        parse_play(op, "eight/five", (3, 1))
    with pytest.raises(NotationError, match="backwards"):
        parse_play(op, "5/8 6/5", (3, 1))


def test_dice_parse_either_order_reject_bad_text_and_format_higher_first():
    assert parse_dice("31") == (3, 1) and parse_dice("13") == (3, 1) and parse_dice("66") == (6, 6)
    for bad in ("07", "3", "x1", "77", "312"):
        with pytest.raises(NotationError):
            parse_dice(bad)
    assert format_dice((1, 3)) == "31"


def test_parse_of_format_round_trips_on_positions_from_games():
    rng = np.random.default_rng(11)
    checked = 0
    for game in range(5):
        pos = np.array(OPENING_POSITION)
        for turn in range(200):
            d1, d2 = rng.integers(1, 7, size=2)
            children, moves = generate_plays(pos, int(d1), int(d2))
            texts = [format_play(pos, m) for m in moves]
            # the same resulting position always prints the same text: texts are distinct
            assert len(set(texts)) == len(texts)
            for c, t in zip(children, texts):
                assert np.array_equal(parse_play(pos, t, (int(d1), int(d2))), c), t
                checked += 1
            k = int(rng.integers(len(children)))
            child = children[k]
            if (child > 0).sum() == 0:
                break
            pos = swap_sides(child)
    assert checked > 800
