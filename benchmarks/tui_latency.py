"""How responsive the TUI is with the real engine.

    python3 benchmarks/tui_latency.py [--trials N] [--seconds S] [--keys K]

Runs the app headless at 120x40 (Textual's run_test) on the REAL analysis service
(``bgtui.analysis.service.Analyzer``, built as ``bgtui`` builds it) and prints:

* time to first frame: from starting the app to the first frame the compositor produces
  (the engine is not needed for it: it warms up in a worker afterwards);
* evaluation ready: from start until the evaluation keys are enabled (JIT from the numba
  cache, weights); rollouts ready: until the rollout kernels are warm too;
* warm first evaluation on screen: ``e`` on the opening with 31 to play (evaluation, the 16
  plays ranked, cube action) until the frame showing the plays table, and that frame's time
  from the start when ``e`` is pressed as soon as it is enabled;
* results-table refresh rate during a rollout of two candidate plays (Hz: ResultsTable updates
  per second of rollout);
* key-press-to-screen latency during that rollout: a cursor key sent to the driver until the
  first frame produced after the table's cursor moved (median and p95 over ``--keys`` presses).

"Frame" is the compositor's update handed to the driver (App._display); the headless driver
does not write it to a terminal, so terminal time is not included. Every wait is bounded.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from dataclasses import replace

XGID_31 = "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10"


def _p95(xs):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(0.95 * (len(xs) - 1))))]


async def _measure(args) -> dict:
    from textual import events

    from bgtui.analysis.formats import parse_position
    from bgtui.analysis.service import Analyzer
    from bgtui.ui.app import BgTuiApp
    from bgtui.ui.widgets.rollout_form import PRESETS
    from bgtui.ui.widgets.tables import ResultsTable

    out: dict = {}
    frames: list[tuple[float, object]] = []  # (time, what probe() said as it was drawn)
    probe = [lambda: None]
    tmp = tempfile.mkdtemp(prefix="bgtui-latency-")
    t_start = time.perf_counter()
    app = BgTuiApp.for_tools(Analyzer(), parse_position(XGID_31), tmp)
    display = app._display

    def recorded(screen, renderable):
        if renderable is not None:
            frames.append((time.perf_counter(), probe[0]()))
        return display(screen, renderable)

    app._display = recorded
    loop = asyncio.get_running_loop()

    async def until(cond, what, timeout):
        end = loop.time() + timeout
        while not cond():
            if loop.time() > end:
                raise SystemExit(f"timed out after {timeout} s waiting for {what}")
            await asyncio.sleep(0.0005)

    def frame_showing(t: float, ok):
        """The time of the first frame after ``t`` drawn when the probe's value was ok."""
        return next((f for f, seen in frames if f > t and ok(seen)), None)

    def send(key: str) -> None:
        app._driver.send_message(events.Key(key, None))

    async with app.run_test(size=(120, 40)) as pilot:
        await until(lambda: frames, "the first frame", 60)
        out["first_frame_ms"] = (frames[0][0] - t_start) * 1e3
        await until(lambda: app.engine_ready, "the engine's warm-up", args.timeout)
        out["engine_ready_s"] = time.perf_counter() - t_start
        m = app.main_screen
        await pilot.pause()

        # warm first evaluation: e until the first frame drawn with the ranked plays
        probe[0] = lambda: m.evaluation is not None and m.query_one("PlaysTable").row_count > 0
        t0 = time.perf_counter()
        send("e")
        await until(lambda: frame_showing(t0, bool) is not None, "the evaluation's frame", 120)
        out["first_eval_ms"] = (frame_showing(t0, bool) - t0) * 1e3
        out["plays"] = len(m.plays)
        out["first_eval_from_start_s"] = frame_showing(t0, bool) - t_start
        probe[0] = lambda: None
        await until(lambda: app.rollouts_ready, "the rollouts' warm-up", args.timeout)
        out["rollouts_ready_s"] = time.perf_counter() - t_start

        # a long rollout of the two best plays
        settings = replace(PRESETS["Standard full"], trials=args.trials)
        m.query_one("RolloutForm").load(settings)
        m.rollout_settings = settings
        await pilot.press("space", "down", "space")
        updates: list[float] = []
        results = m.query_one(ResultsTable)
        show = results.show_snapshot

        def counted(run_id, snap):
            updates.append(time.perf_counter())
            return show(run_id, snap)

        results.show_snapshot = counted
        await pilot.press("r")
        await until(lambda: len(updates) >= 2, "rollout snapshots", 120)
        results.focus()
        await pilot.pause()

        # cursor keys on the results table while the rollout runs
        latencies = []
        probe[0] = lambda: results.cursor_row
        for i in range(args.keys):
            if not m.rollout_running:
                break
            before = results.cursor_row
            t0 = time.perf_counter()
            send("down" if before == 0 else "up")
            moved = lambda row, before=before: row is not None and row != before  # noqa: E731
            await until(
                lambda t0=t0, moved=moved: frame_showing(t0, moved) is not None,
                "the key's frame",
                10,
            )
            latencies.append((frame_showing(t0, moved) - t0) * 1e3)
            await asyncio.sleep(0.1)  # a typing pace, not a burst
        probe[0] = lambda: None
        # keep the rollout going for the refresh-rate window, then stop it
        window_end = updates[0] + args.seconds
        await until(
            lambda: time.perf_counter() >= window_end or not m.rollout_running,
            "the refresh-rate window",
            args.seconds + 10,
        )
        in_window = [u for u in updates if u <= window_end]
        span = in_window[-1] - in_window[0]
        out["refresh_hz"] = (len(in_window) - 1) / span if span > 0 else float("nan")
        out["refresh_window_s"] = span
        snap = m.last_snapshot
        out["rollout_trials"] = f"{snap.trials_done}/{snap.trials_total}"
        out["games_per_s"] = snap.games_per_second
        await pilot.press("s")
        await until(lambda: not m.rollout_running, "the rollout to stop", 60)
        out["key_ms"] = latencies
    return out


def main(argv=None) -> int:
    from bgtui.analysis.options import script_parser

    helps = {
        "trials": "rollout trials per candidate (large: the rollout must outlast the measurements)",
        "seconds": "seconds of rollout over which the refresh rate is measured",
        "keys": "key presses timed during the rollout",
        "timeout": "longest wait for the warm-up (a cold numba cache compiles)",
    }
    ap = script_parser(
        __doc__.splitlines()[0], helps, trials=46656, seconds=8.0, keys=40, timeout=900.0
    )
    args = ap.parse_args(argv)
    r = asyncio.run(_measure(args))
    keys = r["key_ms"]
    print("bgtui TUI latency (real engine, headless 120x40)")
    print(f"  time to first frame            {r['first_frame_ms']:8.0f} ms")
    print(f"  evaluation ready (warm-up)     {r['engine_ready_s']:8.2f} s")
    print(
        f"  warm first evaluation on screen{r['first_eval_ms']:8.0f} ms  "
        f"(opening, 31: {r['plays']} plays ranked, cube)"
    )
    print(
        f"  ... from the start             {r['first_eval_from_start_s']:8.2f} s  "
        "(e pressed as soon as the evaluation keys are enabled)"
    )
    print(f"  rollouts ready (warm-up)       {r['rollouts_ready_s']:8.2f} s")
    print(
        f"  results-table refresh rate     {r['refresh_hz']:8.1f} Hz  "
        f"(over {r['refresh_window_s']:.1f} s of rollout; {r['rollout_trials']} trials, "
        f"{r['games_per_s']:.0f} games/s)"
    )
    if keys:
        print(
            f"  key press to screen, rollout   {statistics.median(keys):8.1f} ms median, "
            f"{_p95(keys):.1f} ms p95  ({len(keys)} keys)"
        )
    else:
        print("  key press to screen: no key timed (the rollout ended first; raise --trials)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
