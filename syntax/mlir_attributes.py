"""Attributes and types of MLIR's own dialects that this project does not model.

Kernels carry attributes of MLIR dialects that xDSL 0.75 does not define:
`spirv.entry_point_abi = #spirv.entry_point_abi<workgroup_size = [32, 1, 1]>`,
`#spirv.target_env<...>`, `[#nvvm.target<chip = "sm_90">]`, `#rocdl.target<...>`,
`#xegpu.layout<...>`, `memref<..., #amdgpu.address_space<fat_raw_buffer>>`,
`!xegpu.tensor_desc<...>`, `#amdgpu<mfma_perm_b none>` (MLIR's opaque syntax). `mlir-opt` reads them without `--allow-unregistered-dialect`,
so this project does too: an attribute or type of one of MLIR's dialects (`MLIR_DIALECTS`)
that no loaded dialect defines is kept as its text and printed back as written
(`#name<text>`, or `#name` when it had no parameters). The passes never look inside one.
Attributes of dialects outside MLIR (IREE's `#hal...`) still need
`--allow-unregistered-dialect`, as in `mlir-opt`.

`opaque_attribute_type(ctx, name, is_type)` is the rule the parser applies
(`mlir_gpu.MlirNameParser`). Written to be proposed to xDSL as it is.
"""

from __future__ import annotations

from collections.abc import Sequence

from gpu_alloc.syntax.mlir_syntax import parse_balanced_body
from xdsl.context import Context
from xdsl.dialects.builtin import IntAttr, StringAttr
from xdsl.ir import Attribute, OpaqueSyntaxAttribute, TypeAttribute
from xdsl.irdl import ParametrizedAttribute, irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.lexer import Span
from xdsl.utils.mlir_lexer import MLIRTokenKind

MLIR_DIALECTS = frozenset(
    "acc affine amdgpu amx arith arm_neon arm_sme arm_sve async bufferization builtin cf "
    "complex dlti emitc func gpu index irdl linalg llvm math memref ml_program mpi nvgpu "
    "nvvm omp pdl pdl_interp polynomial ptr quant rocdl scf shape shard smt sparse_tensor "
    "spirv tensor tosa transform ub vcix vector wasmssa x86vector xegpu xevm".split()
)
"""The dialects of MLIR 22 (`mlir-opt-22` knows them all)."""


class _OpaqueBase(ParametrizedAttribute):
    """An attribute of an MLIR dialect kept as its text: `#name` or `#name<text>`."""

    text: StringAttr
    bracketed: IntAttr

    @classmethod  # no format: any attribute of the dialect, kept as its text
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        if parser._current_token.kind != MLIRTokenKind.LESS:  # pyright: ignore[reportPrivateUsage]
            return (StringAttr(""), IntAttr(0))
        return (StringAttr(parse_balanced_body(parser)), IntAttr(1))

    def print_parameters(self, printer: Printer) -> None:
        if self.bracketed.data:
            printer.print_string(f"<{self.text.data}>")


class _OpaqueTypeBase(_OpaqueBase, TypeAttribute):
    """A type of an MLIR dialect kept as its text: `!name` or `!name<text>`."""


class _OpaqueSyntaxBase(ParametrizedAttribute, OpaqueSyntaxAttribute):
    """An attribute of an MLIR dialect written in the opaque syntax,
    `#dialect<mnemonic text>`, kept as the text after the mnemonic."""

    text: StringAttr

    @classmethod  # no format: MLIR's opaque `#dialect<mnemonic ...>`, kept as its text
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        # the parser stands after the mnemonic; the caller consumes the closing `>`
        start = parser._current_token.span.start  # pyright: ignore[reportPrivateUsage]
        end = parser._raw_scan_balanced(start)  # pyright: ignore[reportPrivateUsage]
        text = Span(start, end, parser.lexer.input).text
        parser.lexer.pos = end
        parser._parser_state.current_token = parser.lexer.lex()  # pyright: ignore[reportPrivateUsage]
        return (StringAttr(text),)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(" " + self.text.data if self.text.data else "")


class _OpaqueSyntaxTypeBase(_OpaqueSyntaxBase, TypeAttribute):
    """A type of an MLIR dialect written in the opaque syntax, `!dialect<mnemonic ...>`."""


_DEFINED: dict[tuple[str, bool, bool], type[Attribute]] = {}


def opaque_attribute_type(
    ctx: Context, name: str, is_type: bool, opaque_syntax: bool = False
) -> type[Attribute] | None:
    """The class for `#name`/`!name` (`#dialect<mnemonic ...>` with `opaque_syntax`)
    when it belongs to one of MLIR's dialects and no loaded dialect defines it (it is
    then loaded into `ctx`); None otherwise."""
    if "." not in name or name.split(".", 1)[0] not in MLIR_DIALECTS:
        return None
    allow, ctx.allow_unregistered = ctx.allow_unregistered, False
    try:  # without the unregistered fallback: is it defined?
        known = ctx.get_optional_type(name) if is_type else ctx.get_optional_attr(name)
    finally:
        ctx.allow_unregistered = allow
    if known is not None:
        return None
    key = (name, is_type, opaque_syntax)
    if key not in _DEFINED:
        if opaque_syntax:
            base = _OpaqueSyntaxTypeBase if is_type else _OpaqueSyntaxBase
        else:
            base = _OpaqueTypeBase if is_type else _OpaqueBase
        namespace = {"name": name, "__doc__": base.__doc__}
        _DEFINED[key] = irdl_attr_definition(type("OpaqueAttr", (base,), namespace))  # pyright: ignore[reportArgumentType]
    ctx.load_attr_or_type(_DEFINED[key])
    return _DEFINED[key]
