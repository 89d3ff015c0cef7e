"""Rollout speed of two versions of bgtui, interleaved in one process: the ratio B / A.

    python benchmarks/ab.py REV_A REV_B [--case plain|opening|midvr] [--rounds 16]
                            [--trials N] [--workdir DIR]

Each revision (a git commit, branch or tag of this repository, or a directory holding a
``bgtui`` package) is copied into ``--workdir`` as a package of its own name (``ab_`` and the commit's hash or
a hash of the directory's sources, its ``bgtui`` imports renamed), so that both load side by side with their own compiled-kernel
caches. Each round runs the same rollout (the same trials, seed and settings, one worker) on
both, timing the CPU seconds of the process; the rounds alternate which version runs first.
Both versions must give the same mean equity in every round (the same games): the script
stops if they do not.

The version whose kernels a process loads first runs faster in it, by up to 5% (where each
one's machine code lands in memory), so the rounds run in two processes, one loading A first
and one B; the figure to quote is the geometric mean of the two processes' medians.

Cases: ``plain``, full-game 0-ply rollouts of a middle game without variance reduction
(1,500 trials a round); ``opening`` and ``midvr``, full-game 0-ply rollouts with variance
reduction (the default ``vr_filter``) from the opening and from the middle game (150 trials
a round). Printed: every round's ratio B / A (above 1: B is faster), the median of the
rounds, the ratio of the total times and how many rounds B won, for each load order, and the
geometric mean of the two medians. The nets only, no bear-off
databases; both versions load this checkout's weights.

Other processes on the machine change the figures: pause them or run it on an idle machine.
A new revision's kernels compile on its first round (minutes); the first round is a warm-up
and is not counted.
"""

import argparse
import hashlib
import importlib
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from rollout import MIDGAME

from bgtui.engine import OPENING_POSITION

ROOT = Path(__file__).resolve().parent.parent

CASES = {
    "plain": ("midgame", False, 1500),
    "opening": ("opening", True, 150),
    "midvr": ("midgame", True, 150),
}


def package_copy(rev: str, workdir: Path) -> str:
    """The name of an importable copy of ``rev``'s ``bgtui`` package in ``workdir``."""
    if Path(rev).is_dir():
        digest = hashlib.sha1()
        for path in sorted((Path(rev) / "bgtui").rglob("*.py")):
            digest.update(path.read_bytes())
        tag = digest.hexdigest()[:10]
    else:
        tag = subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "--short=10", rev],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
    name = "ab_" + tag
    dest = workdir / name
    src = workdir / (name + ".src")
    if not dest.exists():
        if src.exists():
            shutil.rmtree(src)
        src.mkdir(parents=True)
        if Path(rev).is_dir():
            shutil.copytree(
                Path(rev) / "bgtui", src / "bgtui", ignore=shutil.ignore_patterns("__pycache__")
            )
        else:
            tar = subprocess.run(
                ["git", "-C", str(ROOT), "archive", rev, "bgtui"], check=True, capture_output=True
            ).stdout
            subprocess.run(["tar", "-x", "-C", str(src)], input=tar, check=True)
        for path in (src / "bgtui").rglob("*.py"):
            text = path.read_text()
            text = re.sub(r"\bbgtui\.", name + ".", text)
            text = re.sub(r"^(\s*)(from|import) bgtui\b", r"\1\2 " + name, text, flags=re.M)
            path.write_text(text)
        (src / "bgtui").rename(dest)
        shutil.rmtree(src)
    return name


class Version:
    """One version's rollout on a root, with its own evaluator and settings."""

    def __init__(self, name: str, case: str):
        self.name = name
        where, vr, self.trials = CASES[case]
        self.models = importlib.import_module(name + ".analysis.models")
        self.rollout = importlib.import_module(name + ".analysis.rollout")
        weights = importlib.import_module(name + ".analysis.weights")
        self.root = MIDGAME if where == "midgame" else np.array(OPENING_POSITION, dtype=np.int8)
        self.vr = vr
        self.ev = weights.load_weights()[0]

    def run(self, seed: int) -> tuple[float, float]:
        """(CPU seconds, mean equity) of one rollout with ``seed``."""
        s = self.models.RolloutSettings(
            trials=self.trials, seed=seed, truncate=0, variance_reduction=self.vr, workers=1
        )
        job = self.rollout.RolloutJob(self.root[None], [""], ["root"], s, False)
        t0 = time.process_time()
        snap = None
        for snap in job.run(self.ev):
            pass
        return time.process_time() - t0, float(snap.rows[0].equity.cubeless)


def measure(args, first: str, a: Version, b: Version) -> list[float]:
    """The rounds of one process whose kernels were loaded ``first`` first: B/A speed ratios."""
    print(f"{first} loaded first:", flush=True)
    ratios, total_a, total_b = [], 0.0, 0.0
    for r in range(args.rounds):
        order = (a, b) if r % 2 == 0 else (b, a)
        times = {}
        means = {}
        for v in order:
            times[v.name], means[v.name] = v.run(r + 1)
        if means[a.name] != means[b.name]:
            raise SystemExit(f"round {r}: the versions differ: {means}")
        ratio = times[a.name] / times[b.name]
        ratios.append(ratio)
        total_a += times[a.name]
        total_b += times[b.name]
        print(
            f"round {r + 1:2d}: A {times[a.name]:7.3f} s  B {times[b.name]:7.3f} s  "
            f"B/A speed {ratio:.3f}",
            flush=True,
        )
    won = sum(x > 1 for x in ratios)
    print(
        f"speed B / A, {first} loaded first: median {statistics.median(ratios):.3f}, "
        f"total {total_a / total_b:.3f}, B faster in {won}/{len(ratios)} rounds",
        flush=True,
    )
    return ratios


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("rev_a")
    ap.add_argument("rev_b")
    ap.add_argument("--case", choices=sorted(CASES), default="plain")
    ap.add_argument("--rounds", type=int, default=12, help="rounds in each load order")
    ap.add_argument("--trials", type=int, default=0, help="trials a round (default: the case's)")
    ap.add_argument("--workdir", default="/tmp/bgtui-ab")
    ap.add_argument("--first", choices=("A", "B"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    # both versions load the same nets: this checkout's
    os.environ["BGTUI_WEIGHTS_DIR"] = str(ROOT / "weights")
    workdir = Path(args.workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    sys.path.insert(0, str(workdir))
    names = [package_copy(r, workdir) for r in (args.rev_a, args.rev_b)]
    if args.first is None:
        trials = args.trials or CASES[args.case][2]
        print(f"A = {args.rev_a}, B = {args.rev_b}, case {args.case}, {trials} trials a round")
        medians = []
        for first in ("A", "B"):
            out = subprocess.run(
                [sys.executable, __file__, *sys.argv[1:], "--first", first],
                check=True,
                capture_output=True,
                text=True,
            ).stdout
            print(out, end="", flush=True)
            ratios = [float(x) for x in re.findall(r"B/A speed (\d+\.\d+)", out)]
            medians.append(statistics.median(ratios))
        print(
            f"speed B / A: {medians[0]:.3f} (A loaded first), {medians[1]:.3f} (B first), "
            f"geometric mean {(medians[0] * medians[1]) ** 0.5:.3f}"
        )
        return
    order = names if args.first == "A" else names[::-1]
    loaded = {name: Version(name, args.case) for name in order}
    a, b = loaded[names[0]], loaded[names[1]]
    if args.trials:
        a.trials = b.trials = args.trials
    for v in loaded.values():
        v.run(1000)  # compile or load the kernels, in the load order
    measure(args, args.first, a, b)


if __name__ == "__main__":
    main()
