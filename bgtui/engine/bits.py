"""Bit counting on int64 masks through LLVM's own intrinsics (one instruction each here).

bgtui first counted bits with the usual multiply-and-shift ("SWAR") popcount. LLVM recognised
that pattern as its ``ctpop`` intrinsic in some uses and not in others within one kernel, and
then miscompiled an array index derived from the count (``child[25 - i]`` read the wrong slot
while ``i`` itself was right: seen with numba 0.68 when the mask came from a function
argument). The intrinsics leave nothing for the optimiser to re-derive, and are faster.
"""

from llvmlite import ir
from numba.core import types
from numba.extending import intrinsic


def _unary_intrinsic(name, extra_false=False):
    @intrinsic
    def call(typingctx, x):
        if not isinstance(x, types.Integer):
            return None
        sig = types.int64(x)

        def codegen(context, builder, signature, args):
            (v,) = args
            v = context.cast(builder, v, x, types.int64)
            i64 = ir.IntType(64)
            if extra_false:  # ctlz: (value, is_zero_poison = false)
                fn = builder.module.declare_intrinsic(name, [i64, ir.IntType(1)])
                return builder.call(fn, [v, ir.Constant(ir.IntType(1), 0)])
            fn = builder.module.declare_intrinsic(name, [i64])
            return builder.call(fn, [v])

        return sig, codegen

    return call


#: popcount(x): the number of set bits of an int64
popcount = _unary_intrinsic("llvm.ctpop")
#: the number of leading zero bits of an int64 (64 for zero)
leading_zeros = _unary_intrinsic("llvm.ctlz", extra_false=True)
