"""Helpers for the UI tests (imported by the test modules; fixtures are in conftest.py).

Every wait here has a timeout. State posted from a worker thread is only asserted after
``wait_for`` has seen it (never after a single pause), and every gate a test closes is opened
again in ``finally`` (the ``gates`` fixture), so a failing test fails quickly instead of
hanging CI.
"""

import asyncio
import contextlib
import functools

from bgtui.analysis.fake import FakeAnalyzer

OPENING = "4HPwATDgc/ABMA"
#: the opening position with 31 to play (XGID, money, no Jacoby)
XGID_31 = "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10"
#: the longest a test body may run (a hang becomes a failure long before pytest-timeout)
TEST_TIMEOUT = 60.0
#: the longest a fake gate waits before the fake raises (a forgotten gate fails the worker)
GATE_TIMEOUT = 20.0
#: the default bound for one wait_for
WAIT = 10.0


def run(coro_fn):
    """Run an async test (or a part of one) to the end, bounded by TEST_TIMEOUT (no
    pytest-asyncio needed); the fixtures a decorated test asks for are passed on."""

    @functools.wraps(coro_fn)
    def wrapper(*args, **kwargs):
        async def bounded():
            return await asyncio.wait_for(coro_fn(*args, **kwargs), TEST_TIMEOUT)

        return asyncio.run(bounded())

    return wrapper


def fake(**kw) -> FakeAnalyzer:
    """A FakeAnalyzer whose gates give up after GATE_TIMEOUT."""
    kw.setdefault("gate_timeout", GATE_TIMEOUT)
    return FakeAnalyzer(**kw)


async def settle(app, pilot, timeout=WAIT):
    """Wait (bounded) for every worker and for the messages they posted."""
    for _ in range(2):
        await asyncio.wait_for(app.workers.wait_for_complete(), timeout)
        await pilot.pause()


async def ready(app, pilot):
    """Wait until the engine's warm-up has finished."""
    await wait_for(pilot, lambda: app.rollouts_ready, what="engine ready")


@contextlib.asynccontextmanager
async def running(app, size=(120, 40), warm=True):
    """``app`` run under a pilot (yielded) at ``size``, once its engine has warmed up (with
    ``warm`` False: at once)."""
    async with app.run_test(size=size) as pilot:
        if warm:
            await ready(app, pilot)
        yield pilot


def is_screen(app, name: str) -> bool:
    """The app's current screen is of the class named ``name``."""
    return type(app.screen).__name__ == name


async def start_rollout(pilot, steps=None, release=0):
    """Evaluate, mark the first two plays, roll them out and wait until the rollout shows a
    snapshot; then let the fake whose gate is ``steps`` run ``release`` steps, and wait for
    some trials."""
    m = pilot.app.main_screen
    await evaluated(pilot)
    await pilot.press("space", "down", "space", "r")
    await wait_for(
        pilot, lambda: m.rollout_running and m.last_snapshot is not None, what="rollout running"
    )
    if release:
        steps.release(release)
        await wait_for(pilot, lambda: m.last_snapshot.trials_done > 0, what="some trials")


async def type_text(pilot, text):
    """Type ``text`` key by key (about 60 ms a key: keep it for short text)."""
    for ch in text:
        await pilot.press("space" if ch == " " else ch)


async def paste(pilot, text):
    """Paste ``text`` into the focused widget, as a terminal's bracketed paste does."""
    from textual import events

    focused = pilot.app.screen.focused
    assert focused is not None, "nothing focused to paste into"
    focused.post_message(events.Paste(text))
    await pilot.pause()


async def wait_for(pilot, cond, timeout=WAIT, what=""):
    """Poll ``cond`` while the app runs (for states reached from worker threads)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not cond():
        if loop.time() > end:
            raise AssertionError(f"not reached in {timeout} s: {what or cond}")
        await pilot.pause(0.01)


def notes(app) -> list[str]:
    """The texts of the notifications the app has raised (and not yet expired)."""
    return [n.message for n in app._notifications]


def main_screen(app):
    return app.main_screen


async def prompt_open(pilot, what="prompt"):
    """Wait until a TextPrompt is on screen with its input focused (ready for keys)."""
    app = pilot.app
    await wait_for(
        pilot,
        lambda: is_screen(app, "TextPrompt") and app.screen.focused is not None,
        what=f"{what}, its input focused",
    )


async def load(pilot, text):
    """Load a position through the load prompt (l, paste, enter)."""
    await pilot.press("l")
    await prompt_open(pilot, "load prompt")
    await paste(pilot, text)
    await pilot.press("enter")


async def evaluated(pilot, key="e"):
    """Press ``key`` and wait for the evaluation of the current position."""
    m = pilot.app.main_screen
    before = m.eval_run
    await pilot.press(key)
    await wait_for(
        pilot,
        lambda: m.eval_run > before and not m.evaluating and m.evaluation is not None,
        what="evaluation shown",
    )
