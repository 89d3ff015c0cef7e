"""First start from empty caches: seconds to each stage a new user waits for.

    python3 benchmarks/cold_start.py [--runs 2] [--keep] [--kernels 25]

Makes a temporary clone of the repository's HEAD (``git clone``; commit what you want
measured), so numba's on-disk cache (``__pycache__`` beside the clone's sources) starts
empty, and points ``BGTUI_CACHE_DIR`` (bear-off databases) and the app's settings and data
at empty temporary directories. Then it starts the app there in a fresh Python process, headless
through Textual's ``App.run_test()`` at 80x24 on the opening position (what ``bgtui`` with no
argument shows), presses ``e`` until an evaluation is on screen and then ``r`` until a rollout
with trials done is on screen, and prints for each stage the wall seconds from the
process's start and the CPU seconds used by then (this process and the compile workers it
started). ``--runs 2`` starts a second time on the caches the first one filled (the numba
cache should load in about a second).

It also lists what the first run did: every kernel that numba compiled (or loaded) in the app's
process, with its number of specialisations, the seconds each took (exclusive of the kernels it
compiled inside it) and whether it came from the cache, and the bear-off database builds. The
compile workers (``bgtui.engine.warmup``) report their own kernels on the status line only.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


# -- the measured process ------------------------------------------------------------------
def _cpu() -> float:
    import resource

    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def _worker_cpu() -> float:
    """CPU seconds of the compile workers still running (read from /proc; 0 where absent)."""
    total = 0.0
    try:
        from bgtui.analysis import warmup

        pids = warmup.worker_pids()
    except Exception:
        return 0.0
    tick = os.sysconf("SC_CLK_TCK")
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / tick
        except (OSError, IndexError, ValueError):
            pass
    return total


def _patch_compile_timing(records: dict) -> None:
    """Time every ``Dispatcher.compile`` (exclusive of nested compiles) in this process."""
    from numba.core import dispatcher

    original = dispatcher.Dispatcher.compile
    stack: list = []

    def timed(self, sig):
        name = f"{self.py_func.__module__}.{self.py_func.__qualname__}"
        before = len(self.overloads)
        hits = sum(self._cache_hits.values())
        t = time.perf_counter()
        stack.append(0.0)
        try:
            return original(self, sig)
        finally:
            inner = stack.pop()
            dt = time.perf_counter() - t
            if stack:
                stack[-1] += dt
            if len(self.overloads) > before:
                r = records.setdefault(
                    name, {"specialisations": 0, "seconds": 0.0, "from_cache": 0}
                )
                r["specialisations"] += 1
                r["seconds"] += dt - inner
                r["from_cache"] += sum(self._cache_hits.values()) > hits

    dispatcher.Dispatcher.compile = timed


def _patch_bearoff_timing(builds: list) -> None:
    # the analysis layer's bear-off cache is the one caller of the engine's builds; it calls
    # them through its module globals, so timing wrappers go there
    from bgtui.analysis import bearoff_cache

    for name in ("build_one_sided", "build_two_sided", "build_full_one_sided"):
        fn = getattr(bearoff_cache, name)

        def timed(*a, _fn=fn, _name=name, **k):
            t, c = time.perf_counter(), time.process_time()
            try:
                return _fn(*a, **k)
            finally:
                builds.append(
                    {
                        "build": _name,
                        "seconds": time.perf_counter() - t,
                        "cpu_seconds": time.process_time() - c,
                    }
                )

        setattr(bearoff_cache, name, timed)


def child(args) -> int:
    """Run in the clone: start the app, press the keys, print one JSON line of figures."""
    t_start = float(os.environ["COLD_START_T0"])
    stages: dict = {}

    def mark(stage: str) -> None:
        stages[stage] = {"wall": time.time() - t_start, "cpu": _cpu() + _worker_cpu()}

    records: dict = {}
    builds: list = []
    import asyncio

    _patch_compile_timing(records)
    from bgtui.analysis.service import Analyzer
    from bgtui.ui.app import BgTuiApp

    _patch_bearoff_timing(builds)
    mark("import")

    async def run() -> None:
        from bgtui.analysis.formats import parse_position

        tmp = os.environ["COLD_START_TMP"]
        frames: list = []
        probe = [lambda: False]
        app = BgTuiApp(
            Analyzer(),
            parse_position("4HPwATDgc/ABMA"),
            "bgtui-dark",
            unicode=True,
            config_path=os.path.join(tmp, "config", "tui.toml"),
            data_path=os.path.join(tmp, "data"),
            persist_settings=False,
        )
        app.animation_level = "none"
        display = app._display

        def recorded(screen, renderable):
            if renderable is not None:
                frames.append((time.time(), bool(probe[0]())))
            return display(screen, renderable)

        app._display = recorded
        loop = asyncio.get_running_loop()
        statuses: list = []

        async def until(cond, what, timeout=args.timeout, press=None):
            end = loop.time() + timeout
            next_press = 0.0
            while not cond():
                if loop.time() > end:
                    raise SystemExit(f"timed out after {timeout} s waiting for {what}")
                if press is not None and loop.time() >= next_press:
                    await pilot.press(press)
                    next_press = loop.time() + 0.5
                s = app.engine_status
                if not statuses or statuses[-1][1] != s:
                    statuses.append((round(time.time() - t_start, 1), s))
                await asyncio.sleep(0.01)

        def shown() -> bool:
            return any(ok for _, ok in frames)

        async with app.run_test(size=(80, 24)) as pilot:
            await until(lambda: frames, "the first frame")
            stages["first frame"] = {"wall": frames[0][0] - t_start, "cpu": _cpu()}
            m = app.main_screen
            probe[0] = lambda: m.evaluation is not None
            await until(shown, "an evaluation on screen", press="e")
            mark("evaluation on screen")
            frames.clear()
            # trials done on screen (a warm rollout of 1296 truncated trials may finish
            # between two frames)
            probe[0] = lambda: m.last_snapshot is not None and m.last_snapshot.trials_done > 0
            await until(shown, "a running rollout on screen", press="r")
            mark("running rollout on screen")
            if m.rollout_running:
                await pilot.press("s")
            await until(lambda: not m.rollout_running, "the rollout to stop", 120)
            await until(
                lambda: app.rollouts_ready and app.engine_status.startswith("engine ready"),
                "the warm-up to finish",
            )
            mark("warm-up finished")
        stages["_statuses"] = statuses

    asyncio.run(run())
    print(json.dumps({"stages": stages, "kernels": records, "builds": builds}))
    return 0


# -- the driver ----------------------------------------------------------------------------
def _run_once(clone: str, tmp: str, args, n: int) -> dict:
    env = dict(os.environ)
    env.pop("NUMBA_CACHE_DIR", None)  # numba caches beside the clone's sources
    env.pop("NUMBA_DISABLE_JIT", None)
    env.update(
        PYTHONPATH=clone,
        BGTUI_CACHE_DIR=os.path.join(tmp, "bgtui-cache"),
        # settings and data (an autosaved rollout would be offered for resuming) are
        # each start's own; the caches are shared
        BGTUI_CONFIG_DIR=os.path.join(tmp, f"config{n}"),
        BGTUI_DATA_DIR=os.path.join(tmp, f"data{n}"),
        COLD_START_TMP=os.path.join(tmp, f"app{n}"),
        COLD_START_T0=repr(time.time()),
    )
    p = subprocess.run(
        [
            sys.executable,
            os.path.join(clone, "benchmarks", "cold_start.py"),
            "--child",
            "--timeout",
            str(args.timeout),
        ],
        cwd=clone,
        env=env,
        capture_output=True,
        text=True,
    )
    if p.returncode != 0:
        sys.stderr.write(p.stderr[-4000:])
        raise SystemExit(f"the measured start failed (exit {p.returncode})")
    return json.loads(p.stdout.strip().splitlines()[-1])


def _report(n: int, r: dict, kernels: int) -> None:
    print(f"start {n}:")
    print(f"  {'stage':28s} {'wall s':>8s} {'CPU s':>8s}")
    for stage, v in r["stages"].items():
        if not stage.startswith("_"):
            print(f"  {stage:28s} {v['wall']:8.1f} {v['cpu']:8.1f}")
    if n == 1:
        print("  status line while waiting (s from start: text):")
        for t, s in r["stages"].get("_statuses", []):
            print(f"    {t:6.1f}  {s}")
    recs = sorted(r["kernels"].items(), key=lambda kv: -kv[1]["seconds"])
    compiled = [kv for kv in recs if kv[1]["from_cache"] < kv[1]["specialisations"]]
    total = sum(v["seconds"] for _, v in recs)
    print(
        f"  kernels in the app's process: {len(recs)} "
        f"({sum(v['specialisations'] for _, v in recs)} specialisations, "
        f"{len(compiled)} kernels compiled, the rest loaded from the cache), {total:.1f} s"
    )
    if kernels:
        for name, v in recs[:kernels]:
            print(
                f"    {v['seconds']:7.2f} s  x{v['specialisations']}"
                f"{' (cache)' if v['from_cache'] == v['specialisations'] else ''}  {name}"
            )
    for b in r["builds"]:
        print(
            f"  bear-off build {b['build']}: {b['seconds']:.1f} s "
            f"({b['cpu_seconds']:.1f} CPU s in the building thread)"
        )


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=2, help="starts (2: the second on warm caches)")
    ap.add_argument("--kernels", type=int, default=25, help="slowest kernels listed")
    ap.add_argument("--keep", action="store_true", help="keep the temporary directory")
    ap.add_argument("--timeout", type=float, default=900.0, help="longest wait for a stage")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        return child(args)
    tmp = tempfile.mkdtemp(prefix="bgtui-cold-")
    clone = os.path.join(tmp, "bgtui")
    try:
        head = subprocess.run(
            ["git", "-C", REPO, "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        subprocess.run(["git", "clone", "--quiet", "--no-hardlinks", REPO, clone], check=True)
        subprocess.run(["git", "-C", clone, "checkout", "--quiet", head], check=True)
        print(
            f"bgtui cold start: clone of {head} in {clone}, {os.cpu_count()} cores, "
            f"load average {os.getloadavg()[0]:.1f} at the start"
        )
        for n in range(1, args.runs + 1):
            _report(n, _run_once(clone, tmp, args, n), args.kernels if n == 1 else 0)
    finally:
        if args.keep:
            print(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
