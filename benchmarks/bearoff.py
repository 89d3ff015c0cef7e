"""Bear-off databases: build times, sizes, cache load time and lookup rates.

    python benchmarks/bearoff.py

Builds the databases twice (the first run includes numba compilation, or loading compiled
code from numba's cache), the extended one-sided database (straggler rows) twice, the
few-checker rows (one thread) twice, times
loading them from a fresh cache directory, and measures
lookups per second from a jitted loop and from Python (one call per position).
"""

import os
import sys
import tempfile
import time

import numpy as np

from bgtui.engine import (
    FEW_CHECKERS,
    build_extended_one_sided,
    build_few_checker_rows,
    build_one_sided,
    build_two_sided,
    is_bearoff,
    is_two_sided,
    kernel,
    one_sided_race_probs,
    two_sided_cubeful,
    two_sided_probs,
)


@kernel
def _lookup_loop(positions, win, cubeful, dist, out):
    out5 = np.zeros(5)
    out3 = np.zeros(3)
    acc = 0.0
    for i in range(positions.shape[0]):
        p = positions[i]
        if is_two_sided(p):
            two_sided_probs(p, win, out5)
            two_sided_cubeful(p, cubeful, out3)
            acc += out5[0] + out3[0]
        elif is_bearoff(p):
            one_sided_race_probs(p, dist, out5)
            acc += out5[0]
    out[0] = acc


def _random_positions(n, min_checkers, max_checkers, rng):
    pos = np.zeros((n, 26), dtype=np.int8)
    for i in range(n):
        for side in (0, 1):
            k = rng.integers(min_checkers, max_checkers + 1)
            pts = rng.integers(1, 7, size=k)
            for p in pts:
                if side == 0:
                    pos[i, p] += 1
                else:
                    pos[i, 25 - p] -= 1
    return pos


def main():
    timings = {}
    for run in ("first (incl. compile)", "second"):
        t = time.perf_counter()
        dist, mean = build_one_sided()
        t1 = time.perf_counter() - t
        t = time.perf_counter()
        win, cubeful, _ = build_two_sided()
        t2 = time.perf_counter() - t
        timings[run] = (t1, t2)
        print(f"build, {run}: one-sided {t1:.2f} s, two-sided {t2:.2f} s")

    for run in ("first (incl. compile)", "second"):
        t = time.perf_counter()
        ext, _ = build_extended_one_sided(dist, mean)
        print(f"build, {run}: extended one-sided (straggler rows) {time.perf_counter() - t:.2f} s")
    for run in ("first (incl. compile)", "second"):
        t = time.perf_counter()
        few, _ = build_few_checker_rows()
        print(
            f"build, {run}: few-checker rows (K = {FEW_CHECKERS}, {len(few):,} rows) "
            f"{time.perf_counter() - t:.2f} s"
        )

    mb = lambda *arrs: sum(a.nbytes for a in arrs) / 1e6  # noqa: E731
    print(
        f"extended one-sided: dist {ext.shape} {ext.dtype}: {mb(ext):.1f} MB; few-checker "
        f"rows {few.shape}: {mb(few):.1f} MB"
    )
    print(f"one-sided: dist {dist.shape} {dist.dtype} + mean {mean.shape}: {mb(dist, mean):.1f} MB")
    print(f"two-sided: win {win.shape} + cubeful {cubeful.shape}: {mb(win, cubeful):.1f} MB")

    with tempfile.TemporaryDirectory() as d:
        os.environ["BGTUI_CACHE_DIR"] = d
        from bgtui.analysis import bearoff_cache

        t = time.perf_counter()
        bearoff_cache.get_one_sided()
        bearoff_cache.get_two_sided()
        tb = time.perf_counter() - t
        files = {f: os.path.getsize(os.path.join(d, f)) / 1e6 for f in sorted(os.listdir(d))}
        t = time.perf_counter()
        bearoff_cache.get_extended_one_sided()
        te = time.perf_counter() - t
        files = {f: os.path.getsize(os.path.join(d, f)) / 1e6 for f in sorted(os.listdir(d))}
        bearoff_cache.clear_memo()
        t = time.perf_counter()
        one = bearoff_cache.get_one_sided()
        two = bearoff_cache.get_two_sided()
        tl = time.perf_counter() - t
        t = time.perf_counter()
        bearoff_cache.get_extended_one_sided()
        tel = time.perf_counter() - t
        print(
            f"cache: build+write {tb:.2f} s, load+verify {tl:.2f} s; extended (straggler and "
            f"few-checker rows, on every core): build+write "
            f"{te:.2f} s, map+verify {tel:.2f} s; files "
            + ", ".join(f"{f} {s:.1f} MB" for f, s in files.items())
        )

    rng = np.random.default_rng(1)
    for label, minc, maxc in (
        ("two-sided (1-6 checkers a side)", 1, 6),
        ("one-sided race (7-15 a side)", 7, 15),
    ):
        positions = _random_positions(200_000, minc, maxc, rng)
        out = np.zeros(1)
        _lookup_loop(positions[:10], two.win, two.cubeful, one.dist, out)
        t = time.perf_counter()
        _lookup_loop(positions, two.win, two.cubeful, one.dist, out)
        dt = time.perf_counter() - t
        print(f"lookups, {label}, jitted loop: {positions.shape[0] / dt / 1e6:.2f} M/s")
        out5 = np.zeros(5)
        n = 20_000
        t = time.perf_counter()
        if maxc == 6:
            for p in positions[:n]:
                two_sided_probs(p, two.win, out5)
        else:
            for p in positions[:n]:
                one_sided_race_probs(p, one.dist, out5)
        dt = time.perf_counter() - t
        print(f"lookups, {label}, one Python call each: {n / dt / 1e3:.0f} k/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
