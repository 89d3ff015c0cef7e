"""The status line while the engine warms up: what it is doing and how long is left, the keys
greyed until the part they need is ready (an analyzer that reports the real service's texts,
held at each step by a gate)."""

import threading

from ui_helpers import GATE_TIMEOUT, XGID_31, ready, run, wait_for

from bgtui.analysis.fake import FakeAnalyzer


class _SteppedWarmup(FakeAnalyzer):
    """Reports the texts of a first start, one step per release of ``steps``."""

    TEXTS = (
        "compiling evaluator (first start): about 30 s to the first evaluation",
        "READY",
        "compiling lookahead (first start): about 20 s left",
        "building bear-off databases (extended one-sided): about 15 s left",
        "compiling rollouts (play rollouts): about 10 s left",
    )

    def __init__(self, steps: threading.Semaphore) -> None:
        super().__init__(gate_timeout=GATE_TIMEOUT)
        self.steps = steps

    def warm_up(self, progress=None, ready=None) -> None:
        for text in self.TEXTS:
            if not self.steps.acquire(timeout=GATE_TIMEOUT):
                raise TimeoutError("step not released")
            if text == "READY":
                ready("analysis")
            else:
                progress(text, 0.0)
        self.steps.acquire(timeout=GATE_TIMEOUT)


def _status(m) -> str:
    return str(m.query_one("#status").render())


@run
async def test_status_line_says_what_is_compiling_and_how_long_is_left(make_app, gates):
    steps = gates.steps()
    app = make_app(analyzer=_SteppedWarmup(steps), state=XGID_31, unicode=False)
    async with app.run_test(size=(200, 40)) as pilot:
        m = app.main_screen
        steps.release()
        await wait_for(
            pilot,
            lambda: "compiling evaluator" in _status(m),
            what="the evaluator's compile on the status line",
        )
        assert (
            "engine: compiling evaluator (first start): about 30 s to the first "
            "evaluation" in _status(m)
        )
        assert m.active_bindings["e"].enabled is False
        assert m.active_bindings["r"].enabled is False
        steps.release()  # ready for evaluation
        await wait_for(pilot, lambda: app.engine_ready, what="evaluation ready")
        assert m.active_bindings["e"].enabled is True
        assert m.active_bindings["r"].enabled is False
        for text in _SteppedWarmup.TEXTS[2:]:
            steps.release()
            await wait_for(pilot, lambda t=text: f"engine ready; {t}" in _status(m), what=text)
            assert m.active_bindings["r"].enabled is False
        steps.release()
        await ready(app, pilot)
        assert m.active_bindings["r"].enabled is True
        assert _status(m).startswith("engine ready |")


def test_warm_start_reports_no_estimates():
    from bgtui.analysis.service import _Ticker

    seen = []
    t = _Ticker(lambda text, f: seen.append(text), cold=False)
    t.stage("evaluator")
    t.close()
    assert seen == ["evaluator"]
