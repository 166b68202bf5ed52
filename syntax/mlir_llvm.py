"""MLIR 22's LLVM calling conventions, which xDSL 0.75's `llvm` dialect lacks.

xDSL's `#llvm.cconv<...>` knows the CPU conventions only, so what `mlir-opt-22` prints
for a GPU kernel, `<{CConv = #llvm.cconv<ptx_kernelcc>, ...}>` (also `amdgpu_kernelcc`,
`spir_kernelcc`, ...), stopped the reader at "Unknown calling convention".
`parse_calling_convention` reads every convention of MLIR 22's `CConv` enum
(`MLIR_CALLING_CONVENTIONS`) into xDSL's own `llvm.CallingConventionAttr` (so
`llvm.func`'s `CConv` property holds it and it prints as `#llvm.cconv<ptx_kernelcc>`);
an unknown name is a located parse error naming it. The parser (`MlirNameParser`) calls
it for `#llvm.cconv`; `MLIR_LLVM`'s `llvm.func` reads the conventions in custom form too
(`llvm.func ptx_kernelcc @k`). xDSL itself is not changed.
"""

from __future__ import annotations

from xdsl.dialects import llvm
from xdsl.dialects.builtin import StringAttr
from xdsl.ir import Dialect
from xdsl.parser import AttrParser, Parser

MLIR_CALLING_CONVENTIONS: frozenset[str] = frozenset(
    (
        "ccc fastcc coldcc cc_10 cc_11 anyregcc preserve_mostcc preserve_allcc swiftcc "
        "cxx_fast_tlscc tailcc cfguard_checkcc swifttailcc x86_stdcallcc x86_fastcallcc "
        "arm_apcscc arm_aapcscc arm_aapcs_vfpcc msp430_intrcc x86_thiscallcc ptx_kernelcc "
        "ptx_devicecc spir_funccc spir_kernelcc intel_ocl_bicc x86_64_sysvcc win64cc "
        "x86_vectorcallcc hhvmcc hhvm_ccc x86_intrcc avr_intrcc avr_builtincc amdgpu_vscc "
        "amdgpu_gscc amdgpu_cscc amdgpu_kernelcc x86_regcallcc amdgpu_hscc msp430_builtincc "
        "amdgpu_lscc amdgpu_escc aarch64_vectorcallcc aarch64_sve_vectorcallcc "
        "wasm_emscripten_invokecc amdgpu_gfxcc m68k_intrcc"
    ).split()
)
"""The keywords of MLIR 22's `LLVM::CConv` (what `mlir-opt-22` reads and prints)."""

CALLING_CONVENTION_ATTRIBUTE = llvm.CallingConventionAttr.name  # "llvm.cconv"


def calling_convention(name: str) -> llvm.CallingConventionAttr:
    """xDSL's attribute for `name`, one of MLIR 22's conventions or xDSL's own.

    xDSL's constructor checks `name` against its shorter list; for the conventions only
    MLIR 22 has, the attribute is built as xDSL's `new` builds it, without that check."""
    if name in llvm.LLVM_CALLING_CONVS:
        return llvm.CallingConventionAttr(name)
    if name not in MLIR_CALLING_CONVENTIONS:
        raise ValueError(f"unknown LLVM calling convention '{name}'")
    attr = llvm.CallingConventionAttr.__new__(llvm.CallingConventionAttr)
    object.__setattr__(attr, "convention", StringAttr(name))
    return attr


# MLIR declares CConv's `<$CallingConv>` format, but xDSL 0.75's attribute formats take no
# parameters and the attribute is xDSL's own (not redefinable): read by hand
def parse_calling_convention(parser: AttrParser) -> llvm.CallingConventionAttr:
    """The parameters of `#llvm.cconv<name>`, after the attribute's name."""
    parser.parse_punctuation("<")
    start = parser.pos
    for spelled in sorted(llvm.LLVM_CALLING_CONVS - MLIR_CALLING_CONVENTIONS):
        if parser.parse_optional_characters(spelled) is not None:  # xDSL's `cc 10`
            parser.parse_punctuation(">")
            return calling_convention(spelled)
    name = parser.parse_optional_identifier()
    if name is None or name not in MLIR_CALLING_CONVENTIONS:
        shown = f" '{name}'" if name is not None else ""
        parser.raise_error(
            f"unknown LLVM calling convention{shown} (MLIR 22's are "
            "ccc, ptx_kernelcc, amdgpu_kernelcc, spir_kernelcc, ...)",
            start,
            parser.pos,
        )
    parser.parse_punctuation(">")
    return calling_convention(name)


class FuncOp(llvm.FuncOp):
    """`llvm.func` whose custom form reads MLIR 22's conventions too
    (`llvm.func ptx_kernelcc @k(...)`, as xDSL and MLIR print it). A plain subclass, as
    `mlir_memref.GlobalOp`: the op keeps xDSL's definition and printed form."""

    @staticmethod  # xDSL's hook in llvm.func's parser (MLIR: LLVMFuncOp::parse, C++)
    def _parse_cconv(parser: Parser) -> llvm.CallingConventionAttr:
        for name in sorted(MLIR_CALLING_CONVENTIONS - llvm.LLVM_CALLING_CONVS):
            if parser.parse_optional_keyword(name):
                return calling_convention(name)
        return llvm.FuncOp._parse_cconv(parser)  # pyright: ignore[reportPrivateUsage]


MLIR_LLVM = Dialect(
    "llvm",
    [FuncOp if op is llvm.FuncOp else op for op in llvm.LLVM.operations],
    list(llvm.LLVM.attributes),
)
"""xDSL's `llvm` dialect with `llvm.func` reading MLIR 22's calling conventions."""
