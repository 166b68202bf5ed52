"""What xDSL's declarative assembly formats need to read MLIR's `vector` formats as
MLIR's ODS files declare them: xDSL-only, written so that it could be proposed to xDSL.

- `VectorElements`: the range constraint of MLIR's `TypesMatchWith` that gives
  `vector.from_elements` one operand, and `vector.to_elements` one result, per element
  of the vector, all of its element type. With it the formats write the vector's type
  only (`$elements attr-dict : type($result)`, `$source attr-dict : type($source)`),
  as MLIR's do, and xDSL infers the element types (and, for `to_elements`, how many
  results there are) from it.
- `ElementTypeOf`: the attribute constraint of MLIR's `TypesMatchWith` that makes an
  operand's type the element type of another's (`gpu.subgroup_mma_constant_matrix`'s
  value and its `!gpu.mma_matrix`): any type with an `element_type`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence, Set
from dataclasses import dataclass
from math import prod
from typing import TypeVar

from xdsl.dialects.builtin import VectorType
from xdsl.ir import Attribute
from xdsl.irdl import (
    AttrConstraint,
    InferenceContext,
    IntConstraint,
    RangeConstraint,
    VerificationContext,
)
from xdsl.utils.exceptions import VerifyException


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
