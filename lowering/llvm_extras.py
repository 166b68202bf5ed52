"""LLVM dialect casts that xDSL 0.75's `llvm` dialect lacks (`arith.fptosi` needs one).

They subclass xDSL's own `GenericCastOp`, so they print like the other casts; the
llvmlite translation in `llvmlite_backend` knows them.

Upstream fix: add `FPToSIOp`, `FPToUIOp` and `UIToFPOp` to `xdsl.dialects.llvm` and to
the `_CAST_OP_NAMES` table of `xdsl.backend.llvm.convert_op`.
"""

from __future__ import annotations

from xdsl.dialects.llvm import GenericCastOp
from xdsl.irdl import irdl_op_definition


@irdl_op_definition
class FPToSIOp(GenericCastOp):
    name = "llvm.fptosi"


@irdl_op_definition
class FPToUIOp(GenericCastOp):
    name = "llvm.fptoui"


@irdl_op_definition
class UIToFPOp(GenericCastOp):
    name = "llvm.uitofp"


EXTRA_CASTS: dict[type[GenericCastOp], str] = {
    FPToSIOp: "fptosi",
    FPToUIOp: "fptoui",
    UIToFPOp: "uitofp",
}
"""Each extra cast and the llvmlite `IRBuilder` method that emits it."""
