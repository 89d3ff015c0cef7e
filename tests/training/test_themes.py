"""``train dataset --theme``: the kinds of contact position, on boards built by hand."""

import numpy as np
import pytest

from bgtui.engine.constants import START
from bgtui.engine.position import swap_sides, validate
from bgtui.training.themes import THEMES, contact, parse_themes, theme_mask, theme_sides


def board(mine: dict, theirs: dict) -> np.ndarray:
    """A position from the side on roll's view: ``mine`` his checkers by point (25: his bar),
    ``theirs`` the opponent's by the opponent's own point numbers (25: his bar); each side's
    unplaced checkers are borne off."""
    pos = np.zeros(26, dtype=np.int8)
    for point, n in mine.items():
        pos[point] += n
    for point, n in theirs.items():
        assert pos[25 - point] == 0, f"both sides on the opponent's {point} point"
        pos[25 - point] -= n
    return validate(pos)


def kinds(pos) -> set:
    return {t for t in THEMES if theme_mask(pos[None, :], t)[0]}


def test_a_checker_on_the_bar_against_four_closed_home_points_is_a_blitz():
    attack = {1: 2, 2: 2, 3: 2, 4: 2, 6: 3, 8: 2, 13: 2}
    assert "blitz" in kinds(board(attack, {25: 1, 20: 2, 13: 5, 8: 3, 6: 4}))
    three = {3: 2, 4: 2, 6: 3, 8: 4, 13: 4}
    assert "blitz" not in kinds(board(three, {25: 1, 24: 2, 13: 5, 8: 3, 6: 4}))
    assert "blitz" in kinds(board(three, {25: 2, 24: 1, 13: 5, 8: 3, 6: 4}))


def test_five_points_in_a_row_in_front_of_a_checker_are_a_prime():
    prime = {4: 2, 5: 3, 6: 3, 7: 2, 8: 3, 13: 2}
    assert "prime" in kinds(board(prime, {24: 2, 13: 5, 8: 4, 6: 4}))  # on my 1 point
    # the opponent's back checkers already past it (on my 9 point): no prime
    assert "prime" not in kinds(board(prime, {16: 2, 13: 5, 8: 4, 6: 4}))
    four = {5: 3, 6: 4, 7: 2, 8: 4, 13: 2}
    assert "prime" not in kinds(board(four, {24: 2, 13: 5, 8: 4, 6: 4}))


def test_two_deep_points_far_behind_in_the_race_are_a_backgame():
    mine = {22: 2, 20: 2, 13: 4, 8: 3, 6: 4}  # his 3 and 5 points
    theirs = {9: 2, 6: 5, 4: 4, 2: 3, 1: 1}
    pos = board(mine, theirs)
    assert "backgame" in kinds(pos)
    assert "backgame" in kinds(swap_sides(pos))  # either side: the other is on roll
    on_roll, other = theme_sides(np.array([pos, swap_sides(pos)]), "backgame")
    assert on_roll.tolist() == [True, False] and other.tolist() == [False, True]
    ahead = board({22: 2, 20: 2, 6: 5, 5: 4, 4: 2}, {13: 5, 8: 5, 6: 5})
    assert "backgame" not in kinds(ahead)


def test_one_advanced_anchor_with_checkers_to_come_past_it_is_a_holding_game():
    mine = {20: 2, 8: 4, 6: 5, 5: 4}
    assert "holding" in kinds(board(mine, {13: 4, 9: 2, 6: 5, 4: 4}))
    # a second checker back is not a holding game, nor an anchor with nothing to pass it
    assert "holding" not in kinds(board({20: 2, 24: 1, 8: 3, 6: 5, 5: 4}, {13: 4, 9: 2, 6: 9}))
    assert "holding" not in kinds(board(mine, {6: 6, 4: 5, 3: 4}))


def test_twelve_checkers_home_or_off_with_contact_is_late_contact():
    late = board({6: 4, 5: 4, 4: 2, 3: 1, 13: 2}, {24: 2, 13: 3, 6: 5, 5: 5})  # 2 off
    assert "late" in kinds(late)
    assert "late" not in kinds(START)


def test_no_theme_without_contact_and_each_theme_holds_for_both_views():
    race = board({6: 5, 5: 5, 4: 5}, {6: 5, 5: 5, 4: 5})
    assert not contact(race[None, :])[0] and kinds(race) == set()
    rng = np.random.default_rng(3)
    rows = []
    while len(rows) < 300:  # random legal boards: 15 checkers a side on random slots
        pos = np.zeros(26, dtype=np.int8)
        for p in rng.integers(1, 26, 15):
            pos[p] += 1
        free = [i for i in range(0, 25) if pos[i] == 0]
        for p in rng.choice(free, 15):
            pos[p] -= 1
        rows.append(pos)
    boards = np.array(rows)
    swapped = np.array([swap_sides(b) for b in boards])
    for t in THEMES:
        assert np.array_equal(theme_mask(boards, t), theme_mask(swapped, t))
    assert sum(theme_mask(boards, t).sum() for t in THEMES) > 0


def test_theme_names_are_checked():
    assert parse_themes("blitz, backgame") == ("blitz", "backgame")
    with pytest.raises(ValueError, match="unknown theme 'blits'"):
        parse_themes("blits")
    with pytest.raises(ValueError, match="--theme names"):
        parse_themes(" , ")


@pytest.mark.parametrize("children_best", [0, 3])
def test_a_theme_dataset_keeps_only_positions_of_its_themes(small_dataset, children_best):
    from bgtui.training.train import DatasetSpec

    spec = DatasetSpec(40, shard=20, theme="blitz,late", children_best=children_best)
    pos, tg, grp, meta = small_dataset(spec)
    assert pos.shape == (40, 26) and np.all((tg >= 0) & (tg <= 1))
    themed = theme_mask(pos, "blitz") | theme_mask(pos, "late")
    if children_best:  # the first play of every roll leads to a themed position
        first = np.r_[True, np.diff(grp) != 0]
        assert themed[first].all() and np.bincount(grp).max() <= 3
    else:
        assert themed.all()
    assert meta["theme"] == "blitz,late"
    with pytest.raises(ValueError, match="--theme"):
        DatasetSpec(20, shard=20, theme="blitz", cousins=True, children_best=2)
