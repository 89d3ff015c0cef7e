"""Load-or-build the bear-off databases, cached in the user cache directory.

The directory is ``$BGTUI_CACHE_DIR`` if set, else ``platformdirs.user_cache_path("bgtui")``.
A database is a set of uncompressed ``.npy`` files, memory-mapped when loaded (a process that
starts pays for the pages it reads, not for decompressing the whole set), and a ``.json``
beside them with the format version, the build parameters and a checksum of each array; all are
checked on load, and a set that does not match (damaged, older format, other parameters) is
rebuilt with a warning on the ``bgtui.analysis.bearoff_cache`` logger that says why. Files are
written atomically (temporary file in the same directory, then ``os.replace``, the description
last), so a crash or a second process never leaves half a set behind. If the directory cannot
be written the database is built in memory and used anyway.

``get_one_sided()`` / ``get_two_sided()`` return the arrays, memoised per process (thread-safe).
"""

from __future__ import annotations

import json
import logging
import os
import threading
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import NamedTuple

import numpy as np

from bgtui.analysis.atomic import atomic_write, atomic_write_text
from bgtui.engine import (
    FEW_CHECKERS,
    FULL_SIZE,
    MAX_ROLLS,
    ONE_SIDED_CHECKERS,
    STRAGGLER_HI,
    STRAGGLER_LO,
    TWO_SIDED_CHECKERS,
    build_full_one_sided,
    build_one_sided,
    build_two_sided,
    is_bearoff,
    is_two_sided,
    one_sided_race_probs,
    two_sided_cubeful,
    two_sided_no_double,
    two_sided_probs,
)

log = logging.getLogger(__name__)

#: bump when the file layout or the builders' results change
FORMAT_VERSION = 3  # 2: the two-sided file also holds the no-double table; 3: .npy + .json


class OneSided(NamedTuple):
    """``dist`` float32[54264, 2, 32]: P(exactly k rolls) to bear off all (``[:, 0]``) / to get
    a first checker off (``[:, 1]``); ``mean`` float64[54264, 2]: their expected values."""

    dist: np.ndarray
    mean: np.ndarray


class TwoSided(NamedTuple):
    """``win`` float32[924, 924]: cubeless P(player on roll wins)[x, y]; ``cubeful``
    float32[924, 924, 3]: money equities (centred, owned, opponent owned) on a 1-cube, before
    the cube decision of the player on roll; ``no_double`` float32[924, 924, 3]: the same
    states when he does not double now (see ``bgtui.engine.bearoff``)."""

    win: np.ndarray
    cubeful: np.ndarray
    no_double: np.ndarray


class BearoffCacheError(RuntimeError):
    """A cached database file does not match what this version of bgtui expects."""


def cache_dir() -> Path:
    """``$BGTUI_CACHE_DIR`` or ``platformdirs.user_cache_path("bgtui")``."""
    env = os.environ.get("BGTUI_CACHE_DIR")
    if env:
        return Path(env).expanduser()
    import platformdirs

    return Path(platformdirs.user_cache_path("bgtui"))


def _params_text(params: dict) -> str:
    return ";".join(f"{k}={params[k]}" for k in sorted(params))


def _sum64(a: np.ndarray) -> int:
    """A 64-bit wrap-around sum of the array's bytes (zero-padded to a multiple of 8): a check
    that reads 285 MB in about 20 ms from the page cache, where a SHA-256 of the 38 MB of the
    one- and two-sided databases took 30 ms and their zlib decompression 0.2 s, paid by every
    process that starts."""
    b = np.ascontiguousarray(a).reshape(-1).view(np.uint8)
    pad = (-b.size) % 8
    if pad:
        b = np.concatenate([b, np.zeros(pad, dtype=np.uint8)])
    return int(np.add.reduce(b.view(np.uint64), dtype=np.uint64))


def _array_path(meta_path: Path, name: str) -> Path:
    return meta_path.with_name(f"{meta_path.stem}.{name}.npy")


def _load(meta_path: Path, params: dict, names: tuple) -> dict:
    """Read and check the set described by ``meta_path``; raise :class:`BearoffCacheError`
    saying what is wrong. The arrays are memory-mapped (copy-on-write)."""
    try:
        meta = json.loads(meta_path.read_text())
        version = meta.get("format_version", -1)
    except Exception as e:  # not JSON, not a dict, unreadable ...
        raise BearoffCacheError(f"cannot be read ({type(e).__name__}: {e})") from None
    if version != FORMAT_VERSION:
        raise BearoffCacheError(f"has format version {version}, this bgtui writes {FORMAT_VERSION}")
    if meta.get("params") != _params_text(params):
        raise BearoffCacheError(
            f"was built with {meta.get('params')!r}, expected {_params_text(params)!r}"
        )
    sums = meta.get("sum64") or {}
    missing = [n for n in names if n not in sums]
    if missing:
        raise BearoffCacheError(f"lacks the array(s) {', '.join(missing)}")
    arrays = {}
    for n in names:
        try:
            a = np.load(_array_path(meta_path, n), mmap_mode="c", allow_pickle=False)
        except Exception as e:  # missing, truncated, not an .npy ...
            raise BearoffCacheError(f"cannot be read ({n}: {type(e).__name__}: {e})") from None
        if _sum64(a) != sums[n]:
            raise BearoffCacheError(f"fails its checksum ({n}: the file is damaged)")
        arrays[n] = np.asarray(a)  # a plain view of the mapping: pages are read as used
    return arrays


def _save(meta_path: Path, arrays: dict, params: dict) -> None:
    """Each array to ``<stem>.<name>.npy``, then the description (format, parameters,
    checksums) to ``meta_path``: every file written atomically, the description last, so that
    a description always names complete arrays."""
    for n, a in arrays.items():
        atomic_write(_array_path(meta_path, n), partial(np.save, arr=a, allow_pickle=False))
    atomic_write_text(
        meta_path,
        json.dumps(
            {
                "format_version": FORMAT_VERSION,
                "params": _params_text(params),
                "sum64": {n: _sum64(a) for n, a in arrays.items()},
            }
        ),
    )
    remove_superseded(meta_path.parent)


def load_or_build(name: str, builder: Callable[[], dict], params: dict, names: tuple) -> dict:
    """Return the arrays ``names`` of the set ``name`` (files ``name.json`` and
    ``name.<array>.npy`` in :func:`cache_dir`) or build, save and return them.

    ``builder()`` returns a dict holding at least ``names``; ``params`` (a flat dict) must
    match the file's. Any mismatch or damage is logged and the set rebuilt.
    """
    meta_path = cache_dir() / f"{name}.json"

    def build():
        built = builder()
        return {n: np.ascontiguousarray(built[n]) for n in names}

    return _load_or_build(
        meta_path,
        lambda: _load(meta_path, params, names),
        build,
        lambda arrays: _save(meta_path, arrays, params),
    )


def _load_or_build(path: Path, load: Callable, build: Callable, save: Callable):
    """``load()`` the file at ``path`` if it is there, else (or if it does not pass ``load``'s
    checks, logged) ``build()`` and ``save()`` what was built (a failure to write is logged and
    the database used from memory)."""
    if path.exists():
        try:
            return load()
        except BearoffCacheError as e:
            log.warning("bear-off database %s %s; rebuilding it", path, e)
    built = build()
    try:
        save(built)
    except OSError as e:
        log.warning("cannot write bear-off database %s (%s); using it from memory only", path, e)
    return built


# re-entrant: building the extended database asks for the home-board one under the lock
_lock = threading.RLock()
_memo: dict = {}


def get_one_sided() -> OneSided:
    """The one-sided database (built on first use, ~2 s; then loaded from the cache)."""
    with _lock:
        if "one" not in _memo:
            params = dict(max_checkers=ONE_SIDED_CHECKERS, nrolls=MAX_ROLLS)

            def build():
                dist, mean = build_one_sided(**params)
                return dict(dist=dist, mean=mean)

            a = load_or_build(
                f"bearoff-one-sided-v{FORMAT_VERSION}", build, params, ("dist", "mean")
            )
            _memo["one"] = OneSided(a["dist"], a["mean"])
        return _memo["one"]


def get_two_sided() -> TwoSided:
    """The two-sided database (built on first use, about a second; then loaded from the cache)."""
    with _lock:
        if "two" not in _memo:
            params = dict(max_checkers=TWO_SIDED_CHECKERS)

            def build():
                win, cubeful, no_double = build_two_sided(**params)
                return dict(win=win, cubeful=cubeful, no_double=no_double)

            a = load_or_build(
                f"bearoff-two-sided-v{FORMAT_VERSION}",
                build,
                params,
                ("win", "cubeful", "no_double"),
            )
            _memo["two"] = TwoSided(a["win"], a["cubeful"], a["no_double"])
        return _memo["two"]


EXTENDED_VERSION = 2  # 2: the few-checker rows follow the straggler rows


def _load_extended(path: Path, meta_path: Path, params: dict) -> np.ndarray:
    try:
        meta = json.loads(meta_path.read_text())
        dist = np.load(path, mmap_mode="c", allow_pickle=False)
    except Exception as e:
        raise BearoffCacheError(f"cannot be read ({type(e).__name__}: {e})") from None
    if meta.get("format_version") != EXTENDED_VERSION:
        raise BearoffCacheError(
            f"has format version {meta.get('format_version')}, this bgtui writes {EXTENDED_VERSION}"
        )
    if meta.get("params") != _params_text(params):
        raise BearoffCacheError(
            f"was built with {meta.get('params')!r}, expected {_params_text(params)!r}"
        )
    want = (FULL_SIZE, 2, MAX_ROLLS)
    if dist.dtype != np.float32 or dist.shape != want or not dist.flags.c_contiguous:
        raise BearoffCacheError(f"holds {dist.dtype}{dist.shape}, expected float32{want}")
    if _sum64(dist) != meta.get("sum64"):
        raise BearoffCacheError("fails its checksum (the file is damaged)")
    # a plain (copy-on-write) view of the mapping: pages are read as they are used
    return np.asarray(dist)


def _save_extended(path: Path, meta_path: Path, dist: np.ndarray, params: dict) -> None:
    # the array first, its description last: a description always names a complete file
    atomic_write(path, partial(np.save, arr=dist, allow_pickle=False))
    atomic_write_text(
        meta_path,
        json.dumps(
            {
                "format_version": EXTENDED_VERSION,
                "params": _params_text(params),
                "sum64": _sum64(dist),
            }
        ),
    )
    remove_superseded(path.parent)


_SETS = {
    "bearoff-extended-v": EXTENDED_VERSION,
    "bearoff-one-sided-v": FORMAT_VERSION,
    "bearoff-two-sided-v": FORMAT_VERSION,
}


def remove_superseded(directory: Path) -> list:
    """Delete the databases of earlier formats from ``directory`` once a current one is
    written: ``bearoff-extended-vN.npy`` / ``.json`` (133 MB for format 1) and
    ``bearoff-{one,two}-sided-vN.*`` (``.npz`` up to format 2), N below the current version;
    an upgrade would otherwise leave them behind for good. Only these names are touched.
    Returns the paths removed."""
    gone = []
    for prefix, current in _SETS.items():
        for f in sorted(Path(directory).glob(prefix + "*")):
            version = f.name[len(prefix) :].split(".", 1)[0]
            if (
                f.suffix in (".npy", ".json", ".npz")
                and version.isdigit()
                and int(version) < current
            ):
                try:
                    f.unlink()
                    gone.append(f)
                except OSError as e:
                    log.warning("could not remove the superseded bear-off database %s: %s", f, e)
    if gone:
        log.info("removed superseded bear-off databases: %s", ", ".join(p.name for p in gone))
    return gone


def _extended_params() -> dict:
    return dict(
        max_checkers=ONE_SIDED_CHECKERS,
        nrolls=MAX_ROLLS,
        straggler=f"{STRAGGLER_LO}-{STRAGGLER_HI}",
        few=FEW_CHECKERS,
    )


def _extended_paths() -> tuple[Path, Path]:
    path = cache_dir() / f"bearoff-extended-v{EXTENDED_VERSION}.npy"
    return path, path.with_suffix(".json")


def all_cached() -> bool:
    """Are all the databases in the cache directory (else the next start builds some: the
    extended one-sided database takes about 45 s on one core, see
    :func:`get_extended_one_sided`)?"""
    d = cache_dir()
    return all(
        p.exists()
        for p in (
            d / f"bearoff-one-sided-v{FORMAT_VERSION}.json",
            d / f"bearoff-two-sided-v{FORMAT_VERSION}.json",
            *_extended_paths(),
        )
    )


def _build_extended() -> np.ndarray:
    """The extended database, built on every core (threads: the kernel releases the GIL)."""
    from concurrent.futures import ThreadPoolExecutor

    one = get_one_sided()
    workers = max(1, os.cpu_count() or 1)
    with ThreadPoolExecutor(workers) as pool:

        def run(tasks):
            for f in [pool.submit(t) for t in tasks]:
                f.result()

        return build_full_one_sided(one.dist, one.mean, parts=workers, run=run)


def get_extended_one_sided() -> np.ndarray:
    """The extended one-sided database ``float32[FULL_SIZE, 2, 32]``: the home-board rows
    of :func:`get_one_sided`, the straggler rows and the few-checker rows
    (``bearoff.side_row``). Built on first use on every core (one core: 13.5 s for the
    straggler rows and 30 s for the few-checker rows; two threads split each pip count's rows),
    then memory-mapped from an uncompressed ``.npy`` of 285 MB in the cache directory (a
    ``.json`` beside it holds the format, parameters and checksum)."""
    with _lock:
        if "extended" not in _memo:
            params = _extended_params()
            path, meta_path = _extended_paths()
            _memo["extended"] = _load_or_build(
                path,
                lambda: _load_extended(path, meta_path, params),
                _build_extended,
                lambda dist: _save_extended(path, meta_path, dist, params),
            )
        return _memo["extended"]


def clear_memo() -> None:
    """Forget the in-process copies (the next ``get_*`` reloads from the cache directory)."""
    with _lock:
        _memo.clear()


def lookup(pos) -> dict | None:
    """Database answer for a no-contact home-board position, or None if it is not one.

    Returns ``{"probabilities": float64[5], "cubeful": float64[3] or None, "no_double":
    float64[3] or None, "exact": bool}``: exact two-sided values (with the three cubeful money
    equities before the cube decision, and the three no-double ones) when both sides have at
    most 6 checkers, else the one-sided approximation (no cubeful values).
    """
    from bgtui.engine import validate

    p = validate(pos)
    out5 = np.zeros(5, dtype=np.float64)
    if is_two_sided(p):
        two = get_two_sided()
        out3 = np.zeros(3, dtype=np.float64)
        nd3 = np.zeros(3, dtype=np.float64)
        two_sided_probs(p, two.win, out5)
        two_sided_cubeful(p, two.cubeful, out3)
        two_sided_no_double(p, two.no_double, nd3)
        return {"probabilities": out5, "cubeful": out3, "no_double": nd3, "exact": True}
    if is_bearoff(p):
        one_sided_race_probs(p, get_one_sided().dist, out5)
        return {"probabilities": out5, "cubeful": None, "no_double": None, "exact": False}
    return None
