"""Regenerate docs/screenshot.svg: the main screen at 120x40 with a real analysis.

    python3 tools/screenshot.py [--fake] [--out docs/screenshot.svg]

The real engine (``bgtui.analysis.service.Analyzer``, as ``bgtui`` builds it) evaluates the
opening position with 43 to play at 1-ply; the two best plays are marked for a rollout.
``--fake`` uses the deterministic fake service instead (no engine, for a quick look).
Nothing in the picture depends on time or paths; settings are not read from or written to the
user's config (a temporary config dir is used).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: the opening position, 43 to play (money, no Jacoby)
POSITION = "XGID=-b----E-C---eE---c-e----B-:0:0:1:43:0:0:0:0:10"
PLY = 1


async def _shoot(app, out: Path, timeout: float) -> None:
    async with app.run_test(size=(120, 40)) as pilot:
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        m = app.main_screen

        async def until(cond, what):
            while not cond():
                if loop.time() > end:
                    raise SystemExit(f"timed out waiting for {what}")
                await pilot.pause(0.05)

        await until(lambda: app.engine_ready, "the engine's warm-up")
        await pilot.press(str(PLY))
        await until(lambda: m.evaluation is not None and not m.evaluating, "the evaluation")
        await pilot.press("space", "down", "space", "up")
        await pilot.pause()
        out.parent.mkdir(parents=True, exist_ok=True)
        app.save_screenshot(filename=out.name, path=str(out.parent))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fake", action="store_true", help="use the fake analysis service")
    ap.add_argument("--out", default=str(ROOT / "docs" / "screenshot.svg"))
    ap.add_argument(
        "--timeout",
        type=float,
        default=600.0,
        help="give up after this many seconds (first run compiles the engine)",
    )
    args = ap.parse_args(argv)

    from bgtui.analysis.formats import parse_position
    from bgtui.ui.app import BgTuiApp

    if args.fake:
        from bgtui.analysis.fake import FakeAnalyzer

        analyzer = FakeAnalyzer()
    else:
        from bgtui.analysis.service import Analyzer

        analyzer = Analyzer()
    with tempfile.TemporaryDirectory() as tmp:
        os.environ.pop("NO_COLOR", None)
        app = BgTuiApp.for_tools(analyzer, parse_position(POSITION), tmp)
        asyncio.run(_shoot(app, Path(args.out), args.timeout))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
