"""Play mode against the (fake) engine: a play with the equity it lost, a cube action, back to
the analysis screen (Pilot)."""

import contextlib

from ui_helpers import fake, is_screen, run, running, wait_for

from bgtui.ui.game import MoneyGame, engine_takes, natural_key


def _human_starts_seed() -> int:
    """The first seed whose opening roll goes to the human (the game's dice are seeded)."""
    return next(s for s in range(1, 100) if MoneyGame(s).start()[0] > MoneyGame(s).start()[1])


@contextlib.asynccontextmanager
async def _playing(app):
    """``app`` in play mode, in a game whose opening roll goes to the human, until the human
    has plays to choose from: yields (pilot, the play screen, the game's seed)."""
    seed = _human_starts_seed()
    async with running(app) as pilot:
        app.remember(play_seed=seed)
        await pilot.press("P")
        await wait_for(pilot, lambda: is_screen(app, "PlayScreen"), what="play mode")
        # mounted: the screen writes its first line when it mounts, a little after it is pushed
        await wait_for(pilot, lambda: app.screen.transcript, what="play mode's first line")
        ps = app.screen
        moves = ps.query_one("#play-moves")
        await wait_for(
            pilot,
            lambda: ps.game.phase == "human_move" and moves.option_count,
            what="your plays listed",
        )
        yield pilot, ps, seed


def _log(ps) -> str:
    return "\n".join(ps.transcript)


@run
async def test_play_a_move_and_see_the_equity_it_lost(make_app):
    async with _playing(make_app()) as (pilot, ps, seed):
        assert f"seed {seed}" in _log(ps) and "you start" in _log(ps)
        moves = ps.query_one("#play-moves")
        # the list is in reading order; pick the worst play to lose some equity
        listed = sorted((r.move for r in ps.rows), key=natural_key)
        assert [moves.get_option_at_index(i).id for i in range(moves.option_count)] == listed
        worst, best = ps.rows[-1], ps.rows[0]
        loss = best.equity.cubeless - worst.equity.cubeless
        assert loss > 0
        await pilot.press(*["down"] * listed.index(worst.move), "enter")
        await wait_for(pilot, lambda: "The engine rolls" in _log(ps), what="engine moved")
        assert f"You play {worst.move}: lost {loss:.3f} versus {best.move}" in _log(ps)
        assert ps.losses == [loss]
        await wait_for(pilot, lambda: ps.game.phase == "human_cube", what="your turn again")
        info = str(ps.query_one("#play-info").render())
        assert f"equity lost so far {loss:.3f} in 1 decisions" in info
        assert "r roll" in str(ps.query_one("#play-prompt").render())


@run
async def test_double_in_play_mode_and_the_engine_answers(make_app):
    app = make_app()
    async with _playing(app) as (pilot, ps, _seed):
        await pilot.press("enter")
        await wait_for(pilot, lambda: ps.game.phase == "human_cube", what="your cube turn")
        assert ps.check_action("double", ()) and not ps.check_action("take", ())
        state = ps.game.state
        dec = fake().cube(state, 0)
        await pilot.press("d")
        await wait_for(
            pilot,
            lambda: "The engine takes." in _log(ps) or "The engine passes." in _log(ps),
            what="engine answered",
        )
        assert "You double to 2." in _log(ps)
        await wait_for(pilot, lambda: "Your double" in _log(ps), what="feedback on the double")
        if engine_takes(dec):
            await wait_for(
                pilot, lambda: ps.game.phase == "human_move", what="you roll after the take"
            )
            assert ps.game.state.cube_value == 2
            assert ps.game.state.cube_owner == "opponent"  # the engine owns it
        else:
            assert ps.game.phase == "over" and ps.game.score == [1, 0]
        # a back to the analysis screen with the game's position (no dice)
        await pilot.press("a")
        await wait_for(pilot, lambda: is_screen(app, "MainScreen"), what="back to analysis")
        assert app.main_screen.state.dice is None
        assert app.main_screen.state.board == ps.game.state.board
