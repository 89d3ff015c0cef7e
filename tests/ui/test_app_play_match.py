"""Play mode as a match to N points (the Crawford rule, the score carried into every position,
errors in EMG and MWC, the match's result), and the MWC-first / EMG-first setting in the panes
(Pilot, fake engine)."""

from dataclasses import replace

from ui_helpers import ready, run, wait_for

from bgtui.analysis.formats import parse_position
from bgtui.ui.game import MoneyGame, take_loss
from bgtui.ui.widgets.tables import PlaysTable


def test_a_match_to_three_with_the_crawford_rule():
    """3-point match: the first side to reach 2 (N - 1) makes the next game the Crawford game
    (no doubling), the one after is post-Crawford; a side reaching 3 wins the match, and the
    next game starts a new match."""
    g = MoneyGame(1, match_length=3)
    g.start()
    assert not g.jacoby and g.state.match_length == 3 and g.state.score == (0, 0)
    assert g.may_double() is (g.state.dice is None)
    text = g.finish(True, 2, "a gammon")
    assert g.score == [2, 0] and g.crawford_game
    assert "Match to 3: you 2, engine 0 (Crawford game next: no doubling)" in text
    g.start()
    assert g.state.crawford and g.state.score in ((2, 0), (0, 2))
    g.state = replace(g.state, dice=None)
    assert not g.may_double()
    g.finish(False, 1, "a single game")
    assert not g.crawford_game and g.crawford_done and g.score == [2, 1]
    g.start()
    g.state = replace(g.state, dice=None)
    assert not g.state.crawford and g.may_double()  # post-Crawford: the trailer may double
    text = g.finish(False, 2, "a single game")
    assert g.winner == "engine" and "The engine wins the 3-point match 3-2" in text
    g.start()
    assert g.score == [0, 0] and g.games == 1 and not g.crawford_done


def test_cube_losses_in_mwc_are_the_taker_view():
    """Taking a double the taker should pass loses, in MWC, what passing would have kept:
    (1 - double/pass) - (1 - double/take) for him."""
    from bgtui.analysis.models import CubeDecision, Equities, Probabilities

    c = CubeDecision(
        0.5,
        1.2,
        1.0,
        "Double, pass",
        Probabilities(0.7, 0.2, 0, 0.1, 0),
        Equities(0.5),
        0,
        mwc={"no_double": 0.62, "double_take": 0.71, "double_pass": 0.68},
    )
    assert take_loss(c) == 1.2 - 1.0
    assert abs(take_loss(c, mwc=True) - ((1 - 0.68) - (1 - 0.71))) < 1e-12


def _human_starts_seed(n) -> int:
    return next(
        s
        for s in range(1, 100)
        if MoneyGame(s, match_length=n).start()[0] > MoneyGame(s, match_length=n).start()[1]
    )


def test_play_mode_plays_a_match_and_reports_mwc(make_app):
    @run
    async def body():
        app = make_app()
        async with app.run_test(size=(120, 40)) as pilot:
            await ready(app, pilot)
            app.remember(play_seed=_human_starts_seed(5), play_match=5)
            await pilot.press("P")
            await wait_for(
                pilot,
                lambda: type(app.screen).__name__ == "PlayScreen" and app.screen.transcript,
                what="play mode",
            )
            ps = app.screen
            assert "5-point match against the engine" in ps.transcript[0]
            moves = ps.query_one("#play-moves")
            await wait_for(
                pilot,
                lambda: ps.game.phase == "human_move" and moves.option_count,
                what="your plays listed",
            )
            assert all(r.mwc is not None for r in ps.rows)  # ranked at the match score
            worst, best = ps.rows[-1], ps.rows[0]
            listed = [moves.get_option_at_index(i).id for i in range(moves.option_count)]
            await pilot.press(*["down"] * listed.index(worst.move), "enter")
            await wait_for(
                pilot,
                lambda: any("The engine rolls" in x for x in ps.transcript),
                what="engine moved",
            )
            mloss = best.mwc - worst.mwc
            line = next(x for x in ps.transcript if x.startswith(f"You play {worst.move}"))
            assert f"({100 * mloss:.2f}% MWC) versus {best.move}" in line and "EMG" in line
            assert ps.mwc_losses == [mloss]
            await wait_for(pilot, lambda: ps.game.phase == "human_cube", what="your turn")
            g = ps.game
            assert g.state.match_length == 5 and g.state.score == (0, 0)
            info = str(ps.query_one("#play-info").render())
            assert "5-point match: you 0, engine 0" in info and "% MWC" in info

    body()


def test_mwc_first_setting_orders_the_plays_table(make_app):
    @run
    async def body():
        state = replace(parse_position("4HPwATDgc/ABMA"), match_length=7, score=(4, 2), dice=(3, 1))
        app = make_app(state=state)
        async with app.run_test(size=(120, 40)) as pilot:
            await ready(app, pilot)
            main = app.main_screen
            await pilot.press("e")
            await wait_for(pilot, lambda: main.plays, what="plays ranked")
            table = main.query_one(PlaysTable)
            best = main.plays[0]

            def value_cell():
                return str(table.get_row_at(0)[3]).strip()

            emg = best.equity.cubeful
            assert value_cell() == f"{100 * best.mwc:.2f}% {emg:+.3f}"
            app.settings.mwc_first = False
            main.refresh_match_figures()
            await pilot.pause()
            assert value_cell() == f"{emg:+.3f} {100 * best.mwc:.2f}%"

    body()


def test_rollout_table_shows_mwc_and_emg_at_a_score(make_app):
    """A rollout of two plays at a match score: the live table has an MWC column (with its
    standard error) beside EMG, MWC first by default, and the difference in MWC."""
    from ui_helpers import XGID_31

    from bgtui.ui.widgets.tables import ResultsTable

    @run
    async def body():
        state = replace(parse_position(XGID_31), match_length=7, score=(4, 2))
        app = make_app(state=state)
        async with app.run_test(size=(140, 40)) as pilot:
            m = app.main_screen
            await ready(app, pilot)
            await pilot.press("e")
            await wait_for(pilot, lambda: m.plays, what="plays ranked")
            await pilot.press("space", "down", "space", "r")
            await wait_for(
                pilot,
                lambda: m.last_snapshot is not None and m.last_snapshot.finished,
                what="rollout finished",
            )
            results = m.query_one(ResultsTable)
            labels = [str(c.label).strip() for c in results.columns.values()]
            assert labels[1:3] == ["MWC", "EMG"]
            snap = m.last_snapshot
            best, other = snap.rows[0], snap.rows[1]
            row = [str(c).strip() for c in results.get_row(other.move)]
            assert row[1].startswith(f"{100 * other.mwc:.2f}%")
            assert f"±{100 * other.mwc_se:.2f}%" in row[1]
            assert row[3].startswith(f"{100 * other.mwc_diff:+.2f}%")
            emg = str(results.get_row(best.move)[2]).strip()
            assert emg.startswith(f"{best.equity.cubeless:+.3f}")

    body()
