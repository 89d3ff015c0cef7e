"""The one place where numba jit options live.

Every kernel in ``bgtui.engine`` is compiled with ``cache=True`` (so a second start does not
recompile) and ``nogil=True`` (so a thread worker in the UI does not hold the GIL while it runs).
``error_model="numpy"``: a float division does not test its divisor to raise Python's
ZeroDivisionError, a branch that stopped LLVM from vectorising loops with a division (the
hidden layer's sigmoids ran 9x slower).
"""

import hashlib
import os
from pathlib import Path

from numba import njit as _njit

def _drop_stale_cache(here=None) -> None:
    """Delete the engine's numba cache when any engine source file changed.

    numba keys a cached kernel on its own file only: a kernel that calls or inlines a kernel
    or a constant of another module (``NUM_FEATURES``, say) would load its old machine code
    after that module changed. A stamp of every engine file's size and time, kept beside the
    cache, clears it all when one changes (a one-off recompile instead of wrong numbers)."""
    if os.environ.get("NUMBA_CACHE_DIR") or os.environ.get("NUMBA_DISABLE_JIT"):
        return
    here = Path(here) if here is not None else Path(__file__).resolve().parent
    cache = here / "__pycache__"
    try:
        h = hashlib.sha256()
        for f in sorted(here.glob("*.py")):
            st = f.stat()
            h.update(f"{f.name}:{st.st_size}:{st.st_mtime_ns};".encode())
        stamp = cache / "bgtui-engine.stamp"
        digest = h.hexdigest()
        if stamp.is_file() and stamp.read_text() == digest:
            return
        cache.mkdir(exist_ok=True)
        for f in list(cache.glob("*.nbi")) + list(cache.glob("*.nbc")):
            try:
                f.unlink()
            except OSError:
                pass
        tmp = cache / f"bgtui-engine.stamp.{os.getpid()}"
        tmp.write_text(digest)
        tmp.replace(stamp)
    except OSError:  # a read-only install: numba then caches elsewhere or not at all
        pass


_drop_stale_cache()

JIT_OPTIONS = dict(cache=True, nogil=True, fastmath=False, boundscheck=False, error_model="numpy")


def kernel(fn=None, **extra):
    """``@kernel`` / ``@kernel(parallel=True)``: numba ``njit`` with the project's options."""
    opts = dict(JIT_OPTIONS)
    opts.update(extra)
    if fn is None:
        return lambda f: _njit(**opts)(f)
    return _njit(**opts)(fn)
