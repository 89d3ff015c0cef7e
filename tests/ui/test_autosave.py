"""A running rollout is autosaved; after bgtui dies the next start offers to resume it, and
the resumed rollout continues from the saved trials (Pilot, fake service)."""

import shutil
import subprocess

from ui_helpers import (
    XGID_31,
    fake,
    is_screen,
    ready,
    run,
    running,
    start_rollout,
    wait_for,
)

from bgtui.ui import persist


def _saved_trials(path):
    try:
        return persist.load(path).rollout.trials_done
    except (ValueError, AttributeError):
        return -1


def test_a_rollout_cut_short_by_a_crash_is_offered_and_resumed(
    make_app, gates, tmp_path, monkeypatch
):
    from bgtui.analysis import rollout

    monkeypatch.setattr(rollout, "CHECKPOINT_EVERY", 0.0)  # autosave at every snapshot
    data = tmp_path / "data"
    dead = subprocess.Popen(["true"])
    dead.wait()
    crashed = persist.autosave_path(data, dead.pid)

    @run
    async def first():
        steps = gates.steps()
        app = make_app(analyzer=fake(gate=steps), state=XGID_31)
        async with running(app) as pilot:
            m = app.main_screen
            await start_rollout(pilot, steps, release=3)
            own = persist.autosave_path(data)
            await wait_for(pilot, lambda: _saved_trials(own) > 0, what="autosave written")
            # what a crash leaves: the autosave of a process that is gone
            shutil.copy(own, crashed)
            steps.release(1000)
            await wait_for(pilot, lambda: not m.rollout_running, what="rollout ended")
            assert not own.exists()  # ended normally: nothing of this process to resume
        return persist.load(crashed)

    saved = first()
    assert saved.rollout.trials_done > 0 and saved.rollout_state is not None

    @run
    async def second():
        app = make_app(analyzer=fake(), state="4HPwATDgc/ABMA")
        async with app.run_test(size=(120, 40)) as pilot:
            m = app.main_screen
            await wait_for(pilot, lambda: is_screen(app, "ChoiceScreen"), what="resume offer")
            assert "Resume" in app.screen.question
            await pilot.press("r")
            await wait_for(pilot, lambda: is_screen(app, "MainScreen"), what="offer closed")
            assert m.last_snapshot.trials_done == saved.rollout.trials_done
            assert not crashed.exists()  # taken over by this session
            await ready(app, pilot)
            await pilot.press("c")  # continue
            await wait_for(
                pilot,
                lambda: (
                    m.last_snapshot is not None
                    and m.last_snapshot.finished
                    and not m.rollout_running
                ),
                what="resumed rollout finished",
            )
            assert m.last_snapshot.trials_done == m.last_snapshot.trials_total

    second()
