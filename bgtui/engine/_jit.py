"""The one place where numba jit options live.

Every kernel in ``bgtui.engine`` is compiled with ``cache=True`` (so a second start does not
recompile) and ``nogil=True`` (so a thread worker in the UI does not hold the GIL while it runs).
``error_model="numpy"``: a float division does not test its divisor to raise Python's
ZeroDivisionError, a branch that stopped LLVM from vectorising loops with a division (the
hidden layer's sigmoids ran 9x slower).
"""

from numba import njit as _njit

JIT_OPTIONS = dict(cache=True, nogil=True, fastmath=False, boundscheck=False, error_model="numpy")


def kernel(fn=None, **extra):
    """``@kernel`` / ``@kernel(parallel=True)``: numba ``njit`` with the project's options."""
    opts = dict(JIT_OPTIONS)
    opts.update(extra)
    if fn is None:
        return lambda f: _njit(**opts)(f)
    return _njit(**opts)(fn)
