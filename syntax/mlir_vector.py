"""The `vector` ops GPU kernels use that xDSL 0.75 does not define.

IREE's and IMEX's kernels reshape and reduce vectors with `vector.shape_cast`,
`transpose`, `extract_strided_slice`, `insert_strided_slice`, `step`,
`multi_reduction`, `from_elements`, `to_elements`, `constant_mask`, `interleave`,
`deinterleave`, `contract`, `outerproduct`, and touch memory with `vector.gather` and
`vector.scatter`. This module adds them; each declares the `assemblyFormat` of MLIR
22's VectorOps.td, which it reads and prints (a dense array property such as
`transpose`'s permutation is the bare `[1, 0]`; the element types of `from_elements`
and `to_elements` follow from the vector's, `mlir_directives.VectorElements`).
The reductions and contractions are in `mlir_vector_contract`. Only `gather` (reads
its base) and `scatter` (writes it) touch a memref (`transforms/memory_effects.py`).
`MLIR_VECTOR` is xDSL's `vector` with these. Written to be proposed to xDSL as it is.
"""

from __future__ import annotations

from typing import ClassVar

from gpu_alloc.syntax.mlir_directives import VectorElements
from gpu_alloc.syntax.mlir_vector_contract import CONTRACTION_OPS, IteratorTypeAttr
from gpu_alloc.syntax.mlir_vector_print import PrintOp, PrintPunctuationAttr
from xdsl.dialects import vector
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    IndexType,
    MemRefType,
    VectorType,
    i64,
)
from xdsl.ir import Attribute, Dialect
from xdsl.irdl import (
    IRDLOperation,
    ParsePropInAttrDict,
    VarConstraint,
    base,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.traits import Pure


@irdl_op_definition
class ShapeCastOp(IRDLOperation):
    """`%r = vector.shape_cast %v : vector<4x8xf32> to vector<32xf32>`"""

    name = "vector.shape_cast"

    source = operand_def(VectorType)
    result = result_def(VectorType)
    traits = traits_def(Pure())

    assembly_format = "$source attr-dict `:` type($source) `to` type($result)"  # VectorOps.td


@irdl_op_definition
class TransposeOp(IRDLOperation):
    """`%r = vector.transpose %v, [1, 0] : vector<4x8xf32> to vector<8x4xf32>`"""

    name = "vector.transpose"

    vector = operand_def(VectorType)
    permutation = prop_def(DenseArrayBase.constr(i64))
    result = result_def(VectorType)
    traits = traits_def(Pure())

    assembly_format = (  # VectorOps.td
        "$vector `,` $permutation attr-dict `:` type($vector) `to` type($result)"
    )


@irdl_op_definition
class ExtractStridedSliceOp(IRDLOperation):
    """`%r = vector.extract_strided_slice %v {offsets, sizes, strides} : T to T`"""

    name = "vector.extract_strided_slice"

    source = operand_def(VectorType)
    offsets = prop_def(ArrayAttr)
    sizes = prop_def(ArrayAttr)
    strides = prop_def(ArrayAttr)
    result = result_def(VectorType)
    traits = traits_def(Pure())

    irdl_options = (ParsePropInAttrDict(),)  # MLIR's inherent attributes sit there
    assembly_format = "$source attr-dict `:` type($source) `to` type($result)"  # VectorOps.td


@irdl_op_definition
class InsertStridedSliceOp(IRDLOperation):
    """`%r = vector.insert_strided_slice %s, %d {offsets, strides} : T into T`"""

    name = "vector.insert_strided_slice"

    _DEST: ClassVar = VarConstraint("DEST", base(VectorType))

    valueToStore = operand_def(VectorType)
    dest = operand_def(_DEST)
    offsets = prop_def(ArrayAttr)
    strides = prop_def(ArrayAttr)
    result = result_def(_DEST)
    traits = traits_def(Pure())

    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = (  # VectorOps.td
        "$valueToStore `,` $dest attr-dict `:` type($valueToStore) `into` type($dest)"
    )


@irdl_op_definition
class StepOp(IRDLOperation):
    """`%r = vector.step : vector<4xindex>`: [0, 1, 2, 3]."""

    name = "vector.step"

    result = result_def(VectorType)
    traits = traits_def(Pure())

    assembly_format = "attr-dict `:` type($result)"  # VectorOps.td


@irdl_op_definition
class FromElementsOp(IRDLOperation):
    """`%v = vector.from_elements %a, %b : vector<2xf32>`"""

    name = "vector.from_elements"

    _VECTOR: ClassVar = VarConstraint("VECTOR", base(VectorType))

    elements = var_operand_def(VectorElements("VECTOR"))
    result = result_def(_VECTOR)
    traits = traits_def(Pure())

    assembly_format = "$elements attr-dict `:` type($result)"  # VectorOps.td


@irdl_op_definition
class ToElementsOp(IRDLOperation):
    """`%a:N = vector.to_elements %v : vector<Nxf32>`"""

    name = "vector.to_elements"

    _VECTOR: ClassVar = VarConstraint("VECTOR", base(VectorType))

    source = operand_def(_VECTOR)
    elements = var_result_def(VectorElements("VECTOR"))
    traits = traits_def(Pure())

    assembly_format = "$source attr-dict `:` type($source)"  # VectorOps.td


@irdl_op_definition
class ConstantMaskOp(IRDLOperation):
    """`%m = vector.constant_mask [2] : vector<4xi1>`"""

    name = "vector.constant_mask"

    mask_dim_sizes = prop_def(DenseArrayBase.constr(i64))
    result = result_def(VectorType)
    traits = traits_def(Pure())

    assembly_format = "$mask_dim_sizes attr-dict `:` type(results)"  # VectorOps.td


@irdl_op_definition
class GatherOp(IRDLOperation):
    """`%r = vector.gather %base[%i] [%idx], %mask, %pass : memref, vec, vec, vec into vec`:
    reads `base[i + idx[k]]` where `mask[k]`."""

    name = "vector.gather"

    base = operand_def(MemRefType)
    indices = var_operand_def(IndexType())
    index_vec = operand_def(VectorType)
    mask = operand_def(VectorType)
    pass_thru = operand_def(VectorType)
    alignment = opt_prop_def(Attribute)
    result = result_def(VectorType)

    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = (  # VectorOps.td
        "$base `[` $indices `]` `[` $index_vec `]` `,` $mask `,` $pass_thru attr-dict `:` "
        "type($base) `,` type($index_vec) `,` type($mask) `,` type($pass_thru) "
        "`into` type($result)"
    )


@irdl_op_definition
class ScatterOp(IRDLOperation):
    """`vector.scatter %base[%i] [%idx], %mask, %value : memref, vec, vec, vec`: writes
    `base[i + idx[k]]` where `mask[k]`."""

    name = "vector.scatter"

    base = operand_def(MemRefType)
    indices = var_operand_def(IndexType())
    index_vec = operand_def(VectorType)
    mask = operand_def(VectorType)
    valueToStore = operand_def(VectorType)
    alignment = opt_prop_def(Attribute)

    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = (  # VectorOps.td
        "$base `[` $indices `]` `[` $index_vec `]` `,` $mask `,` $valueToStore attr-dict `:` "
        "type($base) `,` type($index_vec) `,` type($mask) `,` type($valueToStore)"
    )


@irdl_op_definition
class InterleaveOp(IRDLOperation):
    """`%r = vector.interleave %a, %b : vector<4xf32> -> vector<8xf32>`"""

    name = "vector.interleave"

    _SOURCE: ClassVar = VarConstraint("SOURCE", base(VectorType))

    lhs = operand_def(_SOURCE)
    rhs = operand_def(_SOURCE)
    result = result_def(VectorType)
    traits = traits_def(Pure())

    assembly_format = "$lhs `,` $rhs attr-dict `:` type($lhs) `->` type($result)"  # VectorOps.td


@irdl_op_definition
class DeinterleaveOp(IRDLOperation):
    """`%a, %b = vector.deinterleave %v : vector<8xf32> -> vector<4xf32>`"""

    name = "vector.deinterleave"

    _HALF: ClassVar = VarConstraint("HALF", base(VectorType))

    source = operand_def(VectorType)
    res1 = result_def(_HALF)
    res2 = result_def(_HALF)
    traits = traits_def(Pure())

    assembly_format = "$source attr-dict `:` type($source) `->` type($res1)"  # VectorOps.td


NEW_OPS = (
    ShapeCastOp,
    TransposeOp,
    ExtractStridedSliceOp,
    InsertStridedSliceOp,
    StepOp,
    FromElementsOp,
    ToElementsOp,
    ConstantMaskOp,
    GatherOp,
    ScatterOp,
    InterleaveOp,
    DeinterleaveOp,
    *CONTRACTION_OPS,
)

MLIR_VECTOR = Dialect(
    "vector",
    [
        *(PrintOp if op is vector.PrintOp else op for op in vector.Vector.operations),
        *NEW_OPS,
    ],
    [*vector.Vector.attributes, IteratorTypeAttr, PrintPunctuationAttr],
)
"""xDSL's `vector` dialect with the ops above, and `vector.print` as MLIR defines it (in
place of xDSL 0.75's, which reads nothing MLIR prints: docs/xdsl-upstream.md)."""
