"""The golden set: fixed command-line runs whose JSON proves a change kept every number.

    python3 tools/golden.py OUT_DIR [--only money|match] [--jobs 1]
    python3 tools/golden.py --compare DIR_A DIR_B

The first form runs each command of :data:`MONEY` and :data:`MATCH` as
``python3 -m bgtui.cli ...`` with ``BGTUI_NO_SERVER=1`` and writes its JSON output, without
the fields of :func:`strip_varying`, to ``OUT_DIR/NAME.json``. The commands run the ``bgtui``
this interpreter imports (``PYTHONPATH`` first, then the installed one; the first line
printed names it), so the script can run another checkout: ``PYTHONPATH=/other/checkout``.
It exits 1 if a command failed or if two runs that must agree (:data:`SAME_OUTPUT`) do not.

``--compare`` prints each command whose output differs between two such directories, with
the first JSON path that differs and both values; it exits 1 if any differ, 0 if all are
identical. docs/golden.md says how to check a change with it.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shlex
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

# -- positions (player on roll first; see bgtui.analysis.formats) ------------------------------
OPENING = "4HPwATDgc/ABMA"
OPENING_XGID_31 = "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10"
#: a middle game: both sides have split or built a point, a back checker each
MIDDLE = "mOfgATDQ58gDIA"
#: a race beyond the bear-off databases (109 against 103 pips): the race net
RACE = "uDuzAQDYnTMDAA"
#: five checkers a side, all home: inside the two-sided bear-off database
BEAROFF = "ZgIAgLIAAAAAAA"
#: the player on roll holds the opponent's 1 and 3 points; the opponent has borne off three
BACKGAME = "5u4IAADtDA5gBg"
#: the player on roll has a checker on the bar
BAR = "sOfgATDE5+ABUA"
#: the opponent is on the bar against a three-point board: a strong double
BLITZ = "0OfgAUTYzsEBMA"
#: BLITZ in a 7-point match at 2-3, the player on roll owning a 2-cube
BLITZ_OWNED_7 = "XGID=a--aBBC-C---dC---c-ea---B-:1:1:1:00:2:3:0:7:10"
#: MIDDLE in a 7-point match at 2-3, the player on roll owning a 2-cube
MIDDLE_OWNED_7 = "XGID=-b---AE-C--AdD---c-d-b--A-:1:1:1:00:2:3:0:7:10"
#: BLITZ in a 7-point match at 3-2, the opponent owning a 2-cube (a Match ID)
BLITZ_OPP_OWNED_7 = "0OfgAUTYzsEBMA:QQngACAAGAAA"

#: the lines ``moves --batch -`` reads (the last is bad: it must get its error line)
BATCH_INPUT = f"""{OPENING} 31
{OPENING_XGID_31}
{MIDDLE} 64
{BAR} 61
{BEAROFF} 21
not-a-position 31
{RACE} 66
"""

#: the positions the commands name
POSITIONS = {
    "OPENING": OPENING,
    "OPENING_XGID_31": OPENING_XGID_31,
    "MIDDLE": MIDDLE,
    "RACE": RACE,
    "BEAROFF": BEAROFF,
    "BACKGAME": BACKGAME,
    "BAR": BAR,
    "BLITZ": BLITZ,
    "BLITZ_OWNED_7": BLITZ_OWNED_7,
    "MIDDLE_OWNED_7": MIDDLE_OWNED_7,
    "BLITZ_OPP_OWNED_7": BLITZ_OPP_OWNED_7,
}


def _read_commands(path: Path) -> dict[str, dict[str, list[str]]]:
    """The command sets of ``path``: ``[SET]`` lines start a set, then lines ``NAME ARGUMENTS``
    (the arguments after ``python3 -m bgtui.cli``, shell words; ``{OPENING}`` and the other
    names of :data:`POSITIONS` stand for their IDs); ``#`` starts a comment line."""
    sets: dict[str, dict[str, list[str]]] = {}
    commands: dict[str, list[str]] = {}
    for line in path.read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("["):
            commands = sets.setdefault(line.strip("[]"), {})
        else:
            name, arguments = line.split(None, 1)
            commands[name] = shlex.split(arguments.format(**POSITIONS))
    return sets


#: money play (evaluations at 0- to 3-ply, plays, cube decisions, rollouts of every kind) and
#: match play (the same kinds at several scores of 5- and 7-point matches):
#: name -> the arguments after ``python3 -m bgtui.cli`` (``--json`` is added)
SETS = _read_commands(Path(__file__).with_name("golden_commands.txt"))
MONEY = SETS["money"]
MATCH = SETS["match"]

#: standard input of the commands that read it
STDIN = {"batch_moves_ply1": BATCH_INPUT}

#: pairs of commands whose outputs must be identical but for these settings' fields
SAME_OUTPUT = [
    ("rollout_middle_trunc11_workers1", "rollout_middle_trunc11_workers2", ("workers",)),
]


def strip_varying(obj):
    """``obj`` (one command's parsed JSON) without the fields that differ from run to run
    of the same code: the rollouts' speed, ``games_per_second``. No output holds a time, a
    date or a version; everything else is identical, byte for byte, run to run."""
    if isinstance(obj, dict):
        return {k: strip_varying(v) for k, v in obj.items() if k != "games_per_second"}
    if isinstance(obj, list):
        return [strip_varying(v) for v in obj]
    return obj


def _tree() -> Path:
    """The checkout whose ``bgtui`` the commands run: the one this interpreter imports."""
    spec = importlib.util.find_spec("bgtui")
    if spec is None or spec.origin is None:
        sys.exit("golden: bgtui is not importable (set PYTHONPATH to a checkout)")
    return Path(spec.origin).resolve().parent.parent


def _run_one(name: str, argv: list[str], tree: Path, out: Path):
    """Run one command; write its stripped output to ``out/NAME.json``. Returns
    ``(name, seconds, error or None)``."""
    env = dict(os.environ, BGTUI_NO_SERVER="1")
    # run from the checkout itself: ``-m`` puts the working directory first on sys.path
    cmd = [sys.executable, "-m", "bgtui.cli", *argv, "--json"]
    t0 = time.perf_counter()
    proc = subprocess.run(
        cmd, input=STDIN.get(name, ""), capture_output=True, text=True, env=env, cwd=tree
    )
    seconds = time.perf_counter() - t0
    error = None
    if proc.returncode != 0:
        error = f"exit {proc.returncode}: {proc.stderr.strip()[-400:]}"
        data = {"exit_status": proc.returncode, "stderr": proc.stderr.strip()[-400:]}
    else:
        try:
            lines = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
        except ValueError as exc:
            lines = [{"not_json": proc.stdout[-400:]}]
            error = f"output is not JSON: {exc}"
        data = lines if name in STDIN else (lines[0] if lines else None)
        if name not in STDIN and len(lines) != 1:
            error = f"{len(lines)} JSON lines, expected 1"
    text = json.dumps(strip_varying(data), indent=1, ensure_ascii=True) + "\n"
    (out / f"{name}.json").write_text(text, encoding="ascii")
    return name, seconds, error


def _first_difference(a, b, path="$"):
    """``(path, value in a, value in b)`` of the first place ``a`` and ``b`` differ, or None."""
    if type(a) is not type(b):
        return path, a, b
    if isinstance(a, dict):
        for k in list(a) + [k for k in b if k not in a]:
            if k not in a or k not in b:
                return f"{path}.{k}", a.get(k, "<missing>"), b.get(k, "<missing>")
            d = _first_difference(a[k], b[k], f"{path}.{k}")
            if d:
                return d
        if list(a) != list(b):
            return f"{path} (key order)", list(a), list(b)
        return None
    if isinstance(a, list):
        for i, (x, y) in enumerate(zip(a, b)):
            d = _first_difference(x, y, f"{path}[{i}]")
            if d:
                return d
        if len(a) != len(b):
            return f"{path} (length)", len(a), len(b)
        return None
    if a == b or (isinstance(a, float) and a != a and b != b):  # NaN: the same JSON
        return None
    return path, a, b


def _short(value, limit: int = 200) -> str:
    text = json.dumps(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _text(path: Path) -> str | None:
    return path.read_text(encoding="ascii") if path.is_file() else None


def _load(path: Path):
    text = _text(path)
    return None if text is None else json.loads(text)


def compare(dir_a: Path, dir_b: Path) -> int:
    """Print every command whose output differs between the two directories; 0 if none."""
    names = sorted({p.stem for d in (dir_a, dir_b) for p in d.glob("*.json")})
    if not names:
        print(f"no outputs in {dir_a} or {dir_b}")
        return 1
    differ = 0
    for name in names:
        ta, tb = _text(dir_a / f"{name}.json"), _text(dir_b / f"{name}.json")
        if ta is not None and ta == tb:
            continue
        differ += 1
        if ta is None or tb is None:
            print(f"{name}: only in {dir_a if tb is None else dir_b}")
            continue
        d = _first_difference(json.loads(ta), json.loads(tb))
        if d is None:  # equal values written differently (1 and 1.0)
            d = ("$", "(the same values, written differently)", "")
        path, x, y = d
        print(f"{name}: {path}: {_short(x)} != {_short(y)}")
    print(f"{len(names) - differ} of {len(names)} outputs identical, {differ} differ")
    return 1 if differ else 0


def _check_same(out: Path, names) -> list[str]:
    """The :data:`SAME_OUTPUT` pairs (both run) whose outputs differ, as messages."""
    bad = []
    for a, b, settings in SAME_OUTPUT:
        if a not in names or b not in names:
            continue
        da, db = _load(out / f"{a}.json"), _load(out / f"{b}.json")
        for d in (da, db):
            for key in settings:
                if isinstance(d, dict) and isinstance(d.get("settings"), dict):
                    d["settings"].pop(key, None)
        diff = _first_difference(da, db)
        if diff:
            bad.append(f"{a} and {b} differ at {diff[0]}: {diff[1]!r} != {diff[2]!r}")
    return bad


def run(out: Path, only: str | None, jobs: int) -> int:
    commands = {n: a for s, cmds in SETS.items() if only in (None, s) for n, a in cmds.items()}
    tree = _tree()
    out.mkdir(parents=True, exist_ok=True)
    print(f"golden: {len(commands)} commands on {tree} -> {out}", flush=True)
    t0 = time.perf_counter()
    failed = []
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = [pool.submit(_run_one, n, a, tree, out) for n, a in commands.items()]
        for f in futures:
            name, seconds, error = f.result()
            print(f"{seconds:7.1f} s  {name}" + (f"  FAILED: {error}" if error else ""), flush=True)
            if error:
                failed.append(name)
    bad = _check_same(out, commands)
    for msg in bad:
        print(f"not the same: {msg}")
    print(
        f"golden: {len(commands)} commands in {time.perf_counter() - t0:.0f} s, "
        f"{len(failed)} failed, {len(bad)} pairs not the same"
    )
    return 1 if failed or bad else 0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(
        description="Run the golden set of bgtui commands, or compare two of its outputs.",
        usage="%(prog)s OUT_DIR [--only money|match] [--jobs N]\n"
        "       %(prog)s --compare DIR_A DIR_B",
    )
    p.add_argument("out", nargs="?", type=Path, help="directory for the outputs")
    p.add_argument("--only", choices=sorted(SETS), help="run only this part of the set")
    p.add_argument("--jobs", type=int, default=1, help="commands run at once (default 1)")
    p.add_argument("--compare", nargs=2, type=Path, metavar="DIR", help="compare two outputs")
    args = p.parse_args(argv)
    if args.compare:
        if args.out is not None:
            p.error("--compare takes two directories and no OUT_DIR")
        return compare(*args.compare)
    if args.out is None:
        p.error("give OUT_DIR (or --compare DIR_A DIR_B)")
    if args.jobs < 1:
        p.error("--jobs must be at least 1")
    return run(args.out, args.only, args.jobs)


if __name__ == "__main__":
    sys.exit(main())
