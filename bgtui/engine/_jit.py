"""The one place where numba jit options live.

Every kernel in ``bgtui.engine`` is compiled with ``cache=True`` (so a second start does not
recompile) and ``nogil=True`` (so a thread worker in the UI does not hold the GIL while it runs).
``error_model="numpy"``: a float division does not test its divisor to raise Python's
ZeroDivisionError, a branch that stops LLVM from vectorising loops with a division (the
hidden layer's sigmoids). ``fastmath`` is off except in the kernels that ask for it (the
dense layers' sums in ``nn`` and ``filter_net``; fused multiply-adds only in the race side
net's ``side._side_dists``): the rest compute IEEE floats in source order.

Small kernels on the hot path of move selection are ``@kernel(inline="always")``: numba then
inlines them in its own IR. A call to a kernel that is not inlined passes every array as a
struct of seven fields and checks an error status on return. numba links the code of every
kernel a kernel calls into the kernel's own module, so LLVM can still inline and optimise
across such a call, and does: that matters on the hot path (evaluation calls its kernels'
code several times faster with the callees' bodies in view than through opaque calls). The
price is compile time: a kernel's compile optimises and generates machine code for its whole
call tree again. Kernels at the top of large trees whose every call does a lot of work (a
rollout trial, a turn's variance reduction, a 1- to 3-ply lookahead, the plays of a roll
valued together), and the valuing of one play, which many of them call, are therefore
``@kernel(separate=True)``: they are compiled once and called through their entry point
(:func:`_link_separate_kernels_by_symbol`); ``benchmarks/rollout.py`` and ``eval.py`` run as
fast as with them linked in, and a first start compiles less. Large kernels are not inlined:
each inlined copy is compiled again.

Inlining is not always safe in numba 0.68: ``nn._point_terms`` inlined into the contact loop
of ``evaluate._contact_groups`` computes wrong terms when the kernel's ``ready`` argument is a
run-time value (right when it is the constant 0), so that loop calls a kernel
(``evaluate._child_slot_terms``). Every fast path is checked against evaluating each position
alone (``tests/engine/test_nn_fast.py``), the reused-parent path included.
"""

import hashlib
import importlib
import os
import weakref
from pathlib import Path

from numba import njit as _njit
from numba.core import types as _types

ENGINE_DIR = Path(__file__).resolve().parent


def source_stamp(*dirs) -> str:
    """A digest of every source file (``*.py``) of the directories ``dirs``: its path, size and
    modification time. It moves when any of them is edited, added or removed."""
    h = hashlib.sha256()
    for d in dirs:
        for f in sorted(Path(d).glob("*.py")):
            st = f.stat()
            h.update(f"{f}:{st.st_size}:{st.st_mtime_ns};".encode())
    return h.hexdigest()


def _drop_stale_cache(here=None, also=()) -> None:
    """Delete the numba cache of directory ``here`` (default: the engine's) when any source
    file of ``here`` or of the directories ``also`` changed.

    numba keys a cached kernel on its own file only: a kernel that calls or inlines a kernel
    or a constant of another module (``NUM_FEATURES``, say) would load its old machine code
    after that module changed. A stamp of every source file's size and time, kept beside the
    cache, clears it all when one changes (a one-off recompile instead of wrong numbers, or,
    where an array's size changed, writes out of bounds)."""
    if os.environ.get("NUMBA_CACHE_DIR") or os.environ.get("NUMBA_DISABLE_JIT"):
        return
    here = Path(here) if here is not None else ENGINE_DIR
    cache = here / "__pycache__"
    try:
        stamp = cache / "bgtui-engine.stamp"
        digest = source_stamp(here, *also)
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


class _CalleeChanged(Exception):
    """A cached kernel was compiled against another compile of a separate kernel it calls."""


class _LoadSeparate(tuple):
    """A reload hook numba runs before it loads a cached kernel from disk: load (or compile)
    the separate kernel ``(module, name, argument types, symbol)`` it calls, whose machine
    code it calls by ``symbol``. Equal hooks are one in a library's set of hooks."""

    def __call__(self) -> None:
        module, name, argtypes, symbol = self
        dispatcher = getattr(importlib.import_module(module), name)
        dispatcher.compile(argtypes)
        if not dispatcher.targetctx.codegen()._engine.is_symbol_defined(symbol):
            raise _CalleeChanged(f"{module}.{name}: {symbol} is not loaded")

    def __reduce__(self):
        return (_LoadSeparate, (tuple(self),))


#: the numba versions whose ``CPUCodeLibrary.finalize`` the separate kernels' linking follows
_NUMBA_LINKING = ("0.68.",)

#: the code library of each compiled specialisation of a separate kernel -> its reload hook
_SEPARATE = weakref.WeakKeyDictionary()


def _link_separate_kernels_by_symbol() -> None:
    """Make a kernel call the machine code of the separate kernels it calls instead of
    linking a copy of their code (and of their callees', down the tree) into its own.

    numba links the optimised code of every kernel a kernel calls into the kernel's module
    and optimises and generates machine code for the whole again, so a chain of kernels
    costs the sum of its call trees' sizes. A kernel declared ``@kernel(separate=True)`` is
    compiled once: its callers declare it and call its entry point, resolved when they are
    loaded. Before a caller is loaded from numba's cache, its separate callees are loaded
    first (``_LoadSeparate``, one of numba's reload hooks); a caller cached against a
    different compile of a callee (the callee was recompiled meanwhile) is compiled again."""
    import numba
    from numba.core import caching, codegen, compiler
    from numba.core.compiler_lock import require_global_compiler_lock

    cls = codegen.CPUCodeLibrary
    if getattr(cls, "_bgtui_separate", False) or not numba.__version__.startswith(_NUMBA_LINKING):
        return  # another numba: separate kernels are linked in as any other (slower compile)

    def finalize(self):  # numba's CPUCodeLibrary.finalize, but for the separate kernels
        require_global_compiler_lock()
        self._codegen._check_llvm_bugs()
        self._raise_if_finalized()
        seen = set()
        for library in self._linking_libraries:
            if library in seen:
                continue
            seen.add(library)
            self._reload_init.update(library._reload_init)
            separate = _SEPARATE.get(library)
            if separate is not None:
                self._reload_init.add(separate)
            else:
                self._final_module.link_in(library._get_module_for_linking(), preserve=True)
        self._optimize_final_module()
        self._final_module.verify()
        self._finalize_final_module()

    load = caching.Cache._load_overload

    def load_overload(self, sig, target_context):
        try:
            return load(self, sig, target_context)
        except _CalleeChanged:
            return None

    numba_rebuild = compiler.CompileResult._rebuild.__func__

    @classmethod
    def rebuild(cls_, target_context, libdata, fndesc, env, signature, *rest):
        # a kernel loaded from the cache keeps its reload hooks on its library, as a compiled
        # one does: a kernel compiled later links this library's code in, and so calls the
        # separate kernels this code calls; the hooks that load them first must go with it
        cres = numba_rebuild(cls_, target_context, libdata, fndesc, env, signature, *rest)
        cres.library._reload_init.update(cres.reload_init or ())
        return cres

    magic_tuple = codegen.CPUCodegen.magic_tuple

    def separate_magic_tuple(self):
        # part of every cached kernel's key: code linked this way and code linked as numba
        # does never load each other from one cache
        return (*magic_tuple(self), "bgtui-separate-kernels")

    cls.finalize = finalize
    cls._bgtui_separate = True
    caching.Cache._load_overload = load_overload
    compiler.CompileResult._rebuild = rebuild
    codegen.CPUCodegen.magic_tuple = separate_magic_tuple


def _register_separate(dispatcher, fn) -> None:
    add = dispatcher.add_overload

    def add_overload(cres):
        _SEPARATE[cres.library] = _LoadSeparate(
            (fn.__module__, fn.__name__, tuple(cres.signature.args), cres.fndesc.mangled_name)
        )
        return add(cres)

    dispatcher.add_overload = add_overload


#: ``BGTUI_SEPARATE_KERNELS=0`` links separate kernels in as any other (a longer first start)
if os.environ.get("BGTUI_SEPARATE_KERNELS") != "0":
    _link_separate_kernels_by_symbol()

_checked = {ENGINE_DIR}
_drop_stale_cache()

#: ``_nrt=False``: kernels run without numba's reference counting. A call to a kernel that is
#: not inlined otherwise costs an atomic increment and decrement of every array argument's
#: count (through a function pointer): about 50 ns for the five arrays of nn._accumulate,
#: against 10 ns for its work on a 128-unit layer with no rows to add. Numba refuses, at
#: compile time, a kernel without it that allocates an array or returns a view, so the few
#: kernels that allocate say ``@kernel(_nrt=True)``. Kernels defined outside the engine (tests',
#: benchmarks') keep the counting unless they ask otherwise.
JIT_OPTIONS = dict(cache=True, nogil=True, fastmath=False, boundscheck=False, error_model="numpy")


def kernel(fn=None, **extra):
    """``@kernel`` / ``@kernel(parallel=True)``: numba ``njit`` with the project's options.

    A kernel defined outside the engine (a benchmark's, say) calls engine kernels, so its
    directory's cache is dropped when the engine's sources change, as the engine's is."""
    opts = dict(JIT_OPTIONS)
    separate = extra.pop("separate", False)
    opts.update(extra)

    def wrap(f):
        where = Path(f.__code__.co_filename).resolve().parent
        if where not in _checked:
            _checked.add(where)
            _drop_stale_cache(where, also=(ENGINE_DIR,))
        dispatcher = _typed_by_kind(_njit(**{"_nrt": where != ENGINE_DIR, **opts})(f))
        if separate and hasattr(dispatcher, "add_overload"):
            _register_separate(dispatcher, f)
        return dispatcher

    return wrap if fn is None else wrap(fn)


def _typed_by_kind(dispatcher):
    """A kernel called from another kernel is compiled for its arguments' types, never for
    their constant values.

    numba types a constant argument (``0``, ``True``) as a literal and compiles the callee
    once per literal: ``_plain_group(..., 0, ...)`` and ``_plain_group(..., level, ...)``
    were two specialisations, each compiled in full on a first start. Every kernel is
    instead compiled once for ``int64``, ``bool``..., whatever its callers pass."""
    if not hasattr(dispatcher, "get_call_template"):
        return dispatcher  # NUMBA_DISABLE_JIT: a plain function
    typed = dispatcher.get_call_template

    def get_call_template(args, kws):
        return typed(
            tuple(_types.unliteral(a) for a in args),
            {k: _types.unliteral(v) for k, v in kws.items()},
        )

    dispatcher.get_call_template = get_call_template
    return dispatcher
