"""Separate kernels (``@kernel(separate=True)``): their
callers call their machine code by symbol instead of linking a copy of it, and load them first
when loaded from numba's cache."""

import subprocess
import sys
import textwrap
from pathlib import Path

import numba
import pytest

ROOT = Path(__file__).resolve().parents[2]

MODULE = textwrap.dedent(
    """
    import numpy as np
    from bgtui.engine._jit import kernel

    @kernel
    def leaf(a):
        s = 0.0
        for i in range(a.shape[0]):
            s += a[i] * 1.5
        return s

    @kernel(separate=True)
    def middle(a, k):
        t = 0.0
        for _ in range(k):
            t += leaf(a)
        return t

    @kernel
    def top(a):
        return middle(a, 3) + leaf(a)

    @kernel
    def upper(a):
        return top(a) + 1.0
    """
)

# prints top's value, whether top came from the cache, and whether top's own module holds
# middle's code (a definition) or only calls it (a declaration)
RUN = textwrap.dedent(
    """
    import numpy as np
    import sepmod
    print(sepmod.top(np.arange(4.0)))
    print(sum(sepmod.top.stats.cache_hits.values()))
    lib = next(iter(sepmod.top.overloads.values())).library
    declared = [bool(f.is_declaration) for f in lib._final_module.functions if "middle" in f.name]
    print(declared)
    """
)


def _run(tmp_path, code=RUN):
    r = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={
            "PYTHONPATH": f"{tmp_path}:{ROOT}",
            "PATH": "/usr/bin:/bin",
            "BGTUI_SEPARATE_KERNELS": "",
        },
        timeout=300,
    )
    assert r.returncode == 0, r.stderr
    if code is not RUN:
        return r.stdout
    value, hits, declared = r.stdout.split("\n")[:3]
    return float(value), int(hits), declared


@pytest.mark.skipif(
    not numba.__version__.startswith("0.68."), reason="separate linking follows numba 0.68"
)
def test_separate_kernel_is_called_not_copied_and_reloads_from_the_cache(tmp_path):
    (tmp_path / "sepmod.py").write_text(MODULE)
    # leaf([0, 1, 2, 3]) = 1.5 * 6 = 9; top = 3 * 9 + 9
    value, hits, declared = _run(tmp_path)
    assert (value, hits) == (36.0, 0)
    # compiled here: top's module declares middle (and has no copy of its body)
    assert declared == "[True]"
    # a new process loads top from the cache, middle first
    value, hits, _ = _run(tmp_path)
    assert (value, hits) == (36.0, 1)
    # middle's cache entry gone: middle is compiled again and top, cached against the old
    # compile of middle, is compiled again too (never left calling a symbol that is not there)
    for f in (tmp_path / "__pycache__").glob("sepmod.middle*"):
        f.unlink()
    value, hits, _ = _run(tmp_path)
    assert value == 36.0


@pytest.mark.skipif(
    not numba.__version__.startswith("0.68."), reason="separate linking follows numba 0.68"
)
def test_kernel_compiled_over_a_cached_caller_loads_the_separate_kernel_first(tmp_path):
    """upper is compiled in a process that loaded top from the cache: upper's code holds a
    copy of top's, which calls middle by symbol, so upper, loaded alone in a third process,
    must load middle first (a process that does not aborts or crashes)."""
    (tmp_path / "sepmod.py").write_text(MODULE)
    call = "import numpy as np, sepmod; print({})"
    assert _run(tmp_path, call.format("sepmod.top(np.arange(4.0))")) == "36.0\n"
    both = "sepmod.top(np.arange(4.0)), sepmod.upper(np.arange(4.0))"
    assert _run(tmp_path, call.format(both)) == "36.0 37.0\n"
    assert _run(tmp_path, call.format("sepmod.upper(np.arange(4.0))")) == "37.0\n"


# run with the per-kernel compile locks of a first start's processes; argv[1]: the kernel to
# call. Prints its value and how many times this process compiled middle
LOCKED = textwrap.dedent(
    """
    import sys
    import numpy as np
    from bgtui.analysis import warmup
    warmup.compile_one_at_a_time()
    import sepmod
    a = np.arange(4.0)
    print(sepmod.top(a) if sys.argv[1] == "top" else sepmod.middle(a, 3))
    print(sum(sepmod.middle.stats.cache_misses.values()))
    """
)


@pytest.mark.skipif(
    not numba.__version__.startswith("0.68."), reason="separate linking follows numba 0.68"
)
@pytest.mark.skipif(not Path("/proc/locks").is_file(), reason="needs Linux's /proc/locks")
def test_processes_needing_a_separate_kernel_at_once_compile_it_once(tmp_path):
    """Two processes of a first start reach the same separate kernel together (the app and
    the databases worker both begin with move generation): with the per-kernel locks one
    compiles it and the other loads that compile, so the kernels cached against it load in a
    third process. Compiled twice, it would have two symbols, and the process holding the
    other one would compile every such kernel again."""
    import fcntl
    import os
    import time

    from bgtui.analysis.warmup import lock_file

    (tmp_path / "sepmod.py").write_text(MODULE)
    (tmp_path / "locked.py").write_text(LOCKED)
    cache = tmp_path / "cache"
    held = lock_file("sepmod.middle", cache)
    held.parent.mkdir(parents=True)
    env = {
        "PYTHONPATH": f"{tmp_path}:{ROOT}",
        "PATH": "/usr/bin:/bin",
        "NUMBA_CACHE_DIR": str(cache),
        "BGTUI_SEPARATE_KERNELS": "",
    }
    fd = os.open(held, os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)  # both processes wait for middle's lock
    procs = [
        subprocess.Popen(
            [sys.executable, "locked.py", name],
            cwd=tmp_path,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name in ("top", "middle")
    ]
    inode = f":{os.stat(held).st_ino} "
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        waiting = [line for line in Path("/proc/locks").read_text().splitlines() if "->" in line]
        if sum(inode in line for line in waiting) == 2:
            break
        time.sleep(0.1)
    os.close(fd)
    outs = [p.communicate(timeout=300) for p in procs]
    for p, (_, err) in zip(procs, outs):
        assert p.returncode == 0, err
    values = [o.split() for o, _ in outs]
    assert [v[0] for v in values] == ["36.0", "27.0"]
    assert sum(int(v[1]) for v in values) == 1  # middle compiled by one process only
    r = subprocess.run(
        [sys.executable, "-c", RUN],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.split("\n")[:2] == ["36.0", "1"]  # top loaded from the cache
