"""Separate kernels (``@kernel(separate=True)``, with ``BGTUI_SEPARATE_KERNELS=1``): their
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


def _run(tmp_path):
    r = subprocess.run(
        [sys.executable, "-c", RUN],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={
            "PYTHONPATH": f"{tmp_path}:{ROOT}",
            "PATH": "/usr/bin:/bin",
            "BGTUI_SEPARATE_KERNELS": "1",
        },
        timeout=300,
    )
    assert r.returncode == 0, r.stderr
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
