"""The custom directives and constraints xDSL's declarative assembly formats need to
read MLIR's formats as MLIR's ODS files declare them. xDSL-only imports; each written so
that it could be proposed to xDSL as it is.

Directives (`custom<Name>(...)` in a format, listed in the op's `custom_directives`):

- `AsyncDependencies`: GPUOps.td's `custom<AsyncDependencies>(type($asyncToken),
  $asyncDependencies)`, `async`? (`[` %token, ... `]`)? (`gpu.wait`, `gpu.alloc`,
  `gpu.dealloc`, `gpu.memcpy`, and MLIR's other asynchronous `gpu` ops);
- `AllReduceOperation`: `custom<AllReduceOperation>($op)`, an optional bare reduction
  kind (`add`, `maxnumf`, ...) (`gpu.all_reduce`, `gpu.subgroup_reduce`);
- `StrippedType`: `custom<StrippedType>(type($x))`, a dialect type written without its
  `!dialect.name` prefix, as MLIR's `type($x)` prints an operand that ODS declares with a
  single type definition (`printStrippedAttrOrType` / `parseCustomTypeWithFallback` in
  MLIR's generated code): `nvgpu.mbarrier.init` writes `: <memorySpace = ...>` for
  `!nvgpu.mbarrier.group<memorySpace = ...>`. It reads both spellings and prints MLIR's;
- `ParenDynamicIndexList`: `custom<DynamicIndexList>(..., "{}",
  "::mlir::AsmParser::Delimiter::Paren")`, a mixed static/dynamic list in parentheses,
  `(4, %n, 32)` (xDSL's `DynamicIndexList` writes square brackets only; its format
  language has no string arguments to choose);
- `UnitProperty`: the anchor of `(`keyword` $prop^)?` for a `UnitProp`, which MLIR's
  generic form writes `prop` when set and `prop = false` when not, so a `false` reads as
  absent (xDSL's unit-attribute variable takes any value as present);
- `AtomicRMWKindKeyword`: `arith::AtomicRMWKind` (an `I64EnumAttr`) as its keyword,
  `addf`, stored as MLIR's generic form holds it, `kind = 0 : i64`.

Constraints (MLIR's `TypesMatchWith`, so that a format writes one type and xDSL infers
the others from it):

- `VectorElements`: one type per element of a vector, each its element type
  (`vector.from_elements`' operands, `vector.to_elements`' results);
- `ElementTypeOf`: the element type of another operand's or result's type, any type with
  an `element_type` (`gpu.subgroup_mma_constant_matrix`'s value and its
  `!gpu.mma_matrix`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence, Set
from dataclasses import dataclass
from math import prod
from typing import ClassVar, TypeVar

from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    DenseArrayBase,
    IntegerAttr,
    UnitAttr,
    VectorType,
    i64,
)
from xdsl.dialects.gpu import AsyncTokenType
from xdsl.dialects.utils import EnumAttribute
from xdsl.dialects.utils.dynamic_index_list import (
    parse_dynamic_index_list_without_types,
    print_dynamic_index_list,
)
from xdsl.ir import Attribute
from xdsl.irdl import (
    AttrConstraint,
    InferenceContext,
    IntConstraint,
    IRDLOperation,
    ParametrizedAttribute,
    RangeConstraint,
    RangeLengthConstraint,
    RangeOf,
    VerificationContext,
)
from xdsl.irdl.declarative_assembly_format import (
    AttributeVariable,
    CustomDirective,
    OperandDirective,
    ParsingState,
    PrintingState,
    TypeDirective,
    UniqueBaseAttributeVariable,
    VariableDirective,
    VariadicOperandVariable,
    irdl_custom_directive,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.mlir_lexer import MLIRTokenKind


@irdl_custom_directive
class AsyncDependencies(CustomDirective):
    """`async`? (`[` %dep, ... `]`)?: `async` gives the op its `!gpu.async.token`
    result (MLIR's parseAsyncDependencies / printAsyncDependencies, GPUDialect.cpp)."""

    async_token: TypeDirective
    dependencies: VariadicOperandVariable

    def parse(self, parser: Parser, state: ParsingState) -> None:
        is_async = parser.parse_optional_keyword("async") is not None
        self.async_token.set(state, [AsyncTokenType()] if is_async else [])
        deps = parser.parse_optional_comma_separated_list(
            parser.Delimiter.SQUARE, parser.parse_unresolved_operand
        )
        self.dependencies.set(state, deps or [])
        self.dependencies.set_types(state, [AsyncTokenType()] * len(deps or []))

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        state.print_whitespace(printer)
        is_async = bool(self.async_token.get(op))
        if is_async:
            printer.print_string("async")
        if deps := self.dependencies.get(op):
            if is_async:
                printer.print_string(" ")
            with printer.in_square_brackets():
                printer.print_list(deps, printer.print_ssa_value)


@irdl_custom_directive
class AllReduceOperation(CustomDirective):
    """An optional bare keyword of an optional enum property, `add` for
    `#gpu<all_reduce_op add>` (MLIR's parseAllReduceOperation, GPUDialect.cpp)."""

    kind: UniqueBaseAttributeVariable

    def parse(self, parser: Parser, state: ParsingState) -> None:
        enum_attr = self.kind.unique_base
        assert issubclass(enum_attr, EnumAttribute)
        members = enum_attr.enum_type  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
        words = tuple(str(member.value) for member in members)  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
        if (word := parser.parse_optional_keyword_in(words)) is not None:
            self.kind.set(state, enum_attr(members(word)))  # pyright: ignore[reportUnknownArgumentType]

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        if (attr := self.kind.get(op)) is not None:
            state.print_whitespace(printer)
            self.kind.print_attr(printer, attr)


@irdl_custom_directive
class StrippedType(CustomDirective):
    """`custom<StrippedType>(type($x))`: one type, `<params>` for `$x`'s unique base
    type (whose parameters must not print empty), any type in full otherwise."""

    variable: TypeDirective

    def _base(self, op_type: type[IRDLOperation]) -> type[ParametrizedAttribute]:
        inner = self.variable.inner
        assert isinstance(inner, VariableDirective), "StrippedType takes type($variable)"
        op_def = op_type.get_irdl_definition()
        defs = op_def.operands if isinstance(inner, OperandDirective) else op_def.results
        constr = defs[inner.index][1].constr
        if isinstance(constr, RangeLengthConstraint):  # a single operand or result
            constr = constr.constraint
        bases = constr.constr.get_bases() if isinstance(constr, RangeOf) else None
        if bases is None or len(bases) != 1:
            raise ValueError(f"StrippedType: ${inner.name} has no unique base type")
        (base,) = bases
        assert issubclass(base, ParametrizedAttribute)
        return base

    def parse(self, parser: Parser, state: ParsingState) -> None:
        if parser._current_token.kind != MLIRTokenKind.LESS:  # pyright: ignore[reportPrivateUsage]
            self.variable.inner.parse_single_type(parser, state)
            return
        base = self._base(state.op_type)
        self.variable.inner.set_types(state, (base.new(base.parse_parameters(parser)),))

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        (type_,) = self.variable.inner.get_types(op)
        state.print_whitespace(printer)
        if isinstance(type_, self._base(type(op))):
            type_.print_parameters(printer)
        else:
            printer.print_attribute(type_)

    def is_present(self, op: IRDLOperation) -> bool:
        return self.variable.is_present(op)


@irdl_custom_directive
class ParenDynamicIndexList(CustomDirective):
    """`(4, %n, 32)`: the constants in `static_values` (`DYNAMIC_INDEX` where an operand
    of `dynamic_values` gives the value)."""

    dynamic_values: VariadicOperandVariable
    static_values: AttributeVariable

    def parse(self, parser: Parser, state: ParsingState) -> None:
        dynamic, static = parse_dynamic_index_list_without_types(
            parser, DYNAMIC_INDEX, delimiter=Parser.Delimiter.PAREN
        )
        self.dynamic_values.set(state, dynamic)
        self.static_values.set(state, DenseArrayBase.from_list(i64, static))

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        state.print_whitespace(printer)
        static = self.static_values.get(op)
        assert isinstance(static, DenseArrayBase)
        values = static.get_values()
        print_dynamic_index_list(
            printer,
            DYNAMIC_INDEX,
            self.dynamic_values.get(op),
            (int(v) for v in values),
            delimiter=Parser.Delimiter.PAREN,
        )


@irdl_custom_directive
class UnitProperty(CustomDirective):
    """MLIR's `UnitProp`: set by the keyword that precedes it in an optional group
    (`(`disjoint` custom<UnitProperty>($disjoint)^)?`); present when it holds `unit` or
    `true`, so the `prop = false` of MLIR's generic form prints no keyword."""

    prop: AttributeVariable

    def parse(self, parser: Parser, state: ParsingState) -> None:
        self.prop.set(state, UnitAttr())

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        return

    def is_present(self, op: IRDLOperation) -> bool:
        value = self.prop.get(op)
        return isinstance(value, UnitAttr) or (
            isinstance(value, IntegerAttr) and bool(value.value.data)
        )

    def is_anchorable(self) -> bool:
        return True


@irdl_custom_directive
class AtomicRMWKindKeyword(CustomDirective):
    """`arith::AtomicRMWKind` as its keyword (`addf`, `maxs`, ...); the property holds
    the case's number as an `i64`, as MLIR's generic form prints it."""

    KINDS: ClassVar[tuple[str, ...]] = tuple(
        "addf addi andi assign maximumf maxnumf maxs maxu minimumf minnumf mins minu mulf "
        "muli ori xori".split()
    )
    """The cases of MLIR 22's `AtomicRMWKind`, in the order of their numbers."""

    kind: AttributeVariable

    def parse(self, parser: Parser, state: ParsingState) -> None:
        at = parser.pos
        name = parser.parse_identifier()
        if name not in self.KINDS:
            parser.raise_error(
                f"unknown {state.op_type.name} kind '{name}' (one of {', '.join(self.KINDS)})",
                at,
                parser.pos,
            )
        self.kind.set(state, IntegerAttr(self.KINDS.index(name), i64))

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        state.print_whitespace(printer)
        kind = self.kind.get(op)
        assert isinstance(kind, IntegerAttr)
        printer.print_string(self.KINDS[kind.value.data])


@dataclass(frozen=True)
class VectorElements(RangeConstraint[Attribute]):
    """One type per element of the vector type held by constraint variable `vector`
    (a `VarConstraint`), each its element type."""

    vector: str
    """The name of the `VarConstraint` on the vector's type."""

    @staticmethod
    def _types(vector: Attribute) -> tuple[Attribute, ...]:
        if not isinstance(vector, VectorType):
            raise VerifyException(f"expected a vector type, got {vector}")
        return (vector.element_type,) * prod(vector.get_shape())

    def verify(self, attrs: Sequence[Attribute], constraint_context: VerificationContext) -> None:
        # the vector's type may be verified after the range (an operand range before the
        # result holding the vector): then there is nothing to compare with yet
        vector = constraint_context.get_variable(self.vector)
        if vector is not None and tuple(attrs) != (expected := self._types(vector)):
            raise VerifyException(
                f"expected the {len(expected)} element types of {vector}, "
                f"got ({', '.join(map(str, attrs))})"
            )

    def verify_length(self, length: int, constraint_context: VerificationContext) -> None:
        return

    def can_infer(self, var_constraint_names: Set[str], *, length_known: bool) -> bool:
        return self.vector in var_constraint_names

    def infer(self, context: InferenceContext, *, length: int | None) -> Sequence[Attribute]:
        vector = context.get_variable(self.vector)
        assert vector is not None
        return self._types(vector)

    def mapping_type_vars(
        self, type_var_mapping: Mapping[TypeVar, AttrConstraint | IntConstraint]
    ) -> VectorElements:
        return self


@dataclass(frozen=True)
class ElementTypeOf(AttrConstraint[Attribute]):
    """The element type of the shaped type held by constraint variable `shaped` (a
    `VarConstraint`): its `element_type`."""

    shaped: str
    """The name of the `VarConstraint` on the shaped type."""

    @staticmethod
    def _element(shaped: Attribute) -> Attribute:
        element = getattr(shaped, "element_type", None)
        if not isinstance(element, Attribute):
            raise VerifyException(f"expected a type with elements, got {shaped}")
        return element

    def verify(self, attr: Attribute, constraint_context: VerificationContext) -> None:
        shaped = constraint_context.get_variable(self.shaped)
        if shaped is not None and attr != (expected := self._element(shaped)):
            raise VerifyException(f"expected {expected}, the element type of {shaped}, got {attr}")

    def can_infer(self, var_constraint_names: Set[str]) -> bool:
        return self.shaped in var_constraint_names

    def infer(self, context: InferenceContext) -> Attribute:
        shaped = context.get_variable(self.shaped)
        assert shaped is not None
        return self._element(shaped)

    def mapping_type_vars(
        self, type_var_mapping: Mapping[TypeVar, AttrConstraint | IntConstraint]
    ) -> ElementTypeOf:
        return self
