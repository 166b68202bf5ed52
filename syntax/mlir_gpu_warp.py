"""`gpu` reductions and warp-level matrix ops (GPUOps.td in MLIR 22) with MLIR's syntax.

xDSL 0.75 reads `gpu.all_reduce` in generic form only, with five of MLIR's thirteen
reduction kinds, and lacks `gpu.subgroup_reduce` and the `gpu.subgroup_mma_*` ops (the
WMMA kernels of MLIR's integration tests). This module defines them:

    %r = gpu.all_reduce add %v uniform {} : (f32) -> f32
    %r = gpu.all_reduce %v { ^bb0(%a: i32, %b: i32): ... gpu.yield %x : i32 } : (i32) -> i32
    %s = gpu.subgroup_reduce maxnumf %v uniform cluster(size = 4) : (f32) -> f32
    %A = gpu.subgroup_mma_load_matrix %m[%i, %j] {leadDimension = 16 : index}
           : memref<16x16xf16, 3> -> !gpu.mma_matrix<16x16xf16, "AOp">

and prints MLIR's custom form (the formats of GPUOps.td). `!gpu.mma_matrix` keeps its parameters as text
(`mlir_syntax.OpaqueParametersType`). The loads and stores of matrices are accesses
(`transforms/memory_effects.py`); reductions touch no memory. Written to be proposed to
xDSL as it is.
"""

from __future__ import annotations

from typing import ClassVar

from gpu_alloc.syntax.mlir_directives import AllReduceOperation, ElementTypeOf
from gpu_alloc.syntax.mlir_syntax import OpaqueParametersType
from xdsl.context import Context
from xdsl.dialects.builtin import I32, IndexType, IntegerAttr, MemRefType, UnitAttr, i32
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import Attribute, Operation, SpacedOpaqueSyntaxAttribute
from xdsl.irdl import (
    IRDLOperation,
    ParsePropInAttrDict,
    VarConstraint,
    base,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    var_operand_def,
)
from xdsl.parser import Parser
from xdsl.utils.str_enum import StrEnum

_INDEX = IndexType()


class ReductionKind(StrEnum):
    """MLIR's `gpu::AllReduceOperation`."""

    ADD = "add"
    MUL = "mul"
    MINUI = "minui"
    MINSI = "minsi"
    MINNUMF = "minnumf"
    MAXUI = "maxui"
    MAXSI = "maxsi"
    MAXNUMF = "maxnumf"
    AND = "and"
    OR = "or"
    XOR = "xor"
    MINIMUMF = "minimumf"
    MAXIMUMF = "maximumf"


@irdl_attr_definition
class ReductionKindAttr(EnumAttribute[ReductionKind], SpacedOpaqueSyntaxAttribute):
    """`#gpu<all_reduce_op add>` (replaces xDSL's five-kind attribute)."""

    name = "gpu.all_reduce_op"


class ElementwiseKind(StrEnum):
    """MLIR's `gpu::MMAElementwiseOp`."""

    ADDF = "addf"
    MULF = "mulf"
    SUBF = "subf"
    MAXF = "maxf"
    MINF = "minf"
    DIVF = "divf"
    ADDI = "addi"
    MULI = "muli"
    SUBI = "subi"
    DIVS = "divs"
    DIVU = "divu"
    NEGATEF = "negatef"
    NEGATES = "negates"
    EXTF = "extf"


@irdl_attr_definition
class ElementwiseKindAttr(EnumAttribute[ElementwiseKind], SpacedOpaqueSyntaxAttribute):
    """`#gpu<mma_element_wise addf>`"""

    name = "gpu.mma_element_wise"


@irdl_attr_definition
class MMAMatrixType(OpaqueParametersType):
    """`!gpu.mma_matrix<16x16xf16, "AOp">`: a warp's fragment of a matrix."""

    name = "gpu.mma_matrix"

    @property
    def element_type(self) -> Attribute:
        """`f32` for `!gpu.mma_matrix<16x16xf32, "COp">`: a builtin type, read without
        any dialect."""
        shape_and_type = self.body.data.split(",")[0].strip()
        return Parser(Context(), shape_and_type.rsplit("x", 1)[-1]).parse_type()


@irdl_op_definition
class AllReduceOp(IRDLOperation):
    """`%r = gpu.all_reduce (kind)? %v (uniform)? region? attr-dict : (T) -> T`: the
    reduction over the block, by a kind or by the region's body."""

    name = "gpu.all_reduce"

    value = operand_def()
    op = opt_prop_def(ReductionKindAttr)
    uniform = opt_prop_def(UnitAttr)
    result = result_def()
    body = region_def()

    custom_directives = (AllReduceOperation,)
    assembly_format = (
        "custom<AllReduceOperation>($op) $value (`uniform` $uniform^)? $body attr-dict"
        " `:` functional-type(operands, results)"
    )


@irdl_op_definition
class SubgroupReduceOp(IRDLOperation):
    """`%r = gpu.subgroup_reduce kind %v (uniform)? (cluster(size = N (, stride = S)?))?
    : (T) -> T`"""

    name = "gpu.subgroup_reduce"

    value = operand_def()
    op = prop_def(ReductionKindAttr)
    uniform = opt_prop_def(UnitAttr)
    cluster_size = opt_prop_def(IntegerAttr[I32])
    cluster_stride = prop_def(IntegerAttr[I32], default_value=IntegerAttr(1, i32))
    result = result_def()

    custom_directives = (AllReduceOperation,)
    assembly_format = (
        "custom<AllReduceOperation>($op) $value (`uniform` $uniform^)?"
        " (`cluster` `(` `size` `=` $cluster_size^ (`,` `stride` `=` $cluster_stride^)? `)`)?"
        " attr-dict `:` functional-type(operands, results)"
    )


@irdl_op_definition
class SubgroupMmaLoadMatrixOp(IRDLOperation):
    """`%f = gpu.subgroup_mma_load_matrix %m[%i, %j] {leadDimension = N : index,
    transpose?} : memref<...> -> !gpu.mma_matrix<...>`"""

    name = "gpu.subgroup_mma_load_matrix"

    srcMemref = operand_def(MemRefType)
    indices = var_operand_def(IndexType)
    leadDimension = prop_def(IntegerAttr)
    transpose = opt_prop_def(UnitAttr)
    res = result_def(MMAMatrixType)

    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$srcMemref `[` $indices `]` attr-dict `:` type($srcMemref) `->` type($res)"


@irdl_op_definition
class SubgroupMmaStoreMatrixOp(IRDLOperation):
    """`gpu.subgroup_mma_store_matrix %f, %m[%i, %j] {leadDimension = N : index} :
    !gpu.mma_matrix<...>, memref<...>`"""

    name = "gpu.subgroup_mma_store_matrix"

    src = operand_def(MMAMatrixType)
    dstMemref = operand_def(MemRefType)
    indices = var_operand_def(IndexType)
    leadDimension = prop_def(IntegerAttr)
    transpose = opt_prop_def(UnitAttr)

    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = (
        "$src `,` $dstMemref `[` $indices `]` attr-dict `:` type($src) `,` type($dstMemref)"
    )


@irdl_op_definition
class SubgroupMmaComputeOp(IRDLOperation):
    """`%d = gpu.subgroup_mma_compute %a, %b, %c (attrs)? : A, B -> C`"""

    name = "gpu.subgroup_mma_compute"

    opA = operand_def(MMAMatrixType)
    opB = operand_def(MMAMatrixType)
    C: ClassVar = VarConstraint("C", base(MMAMatrixType))  # AllTypesMatch<["opC", "res"]>

    opC = operand_def(C)
    a_transpose = opt_prop_def(UnitAttr)
    b_transpose = opt_prop_def(UnitAttr)
    res = result_def(C)

    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = (
        "$opA `,` $opB `,` $opC attr-dict `:` type($opA) `,` type($opB) `->` type($res)"
    )


@irdl_op_definition
class SubgroupMmaConstantMatrixOp(IRDLOperation):
    """`%c = gpu.subgroup_mma_constant_matrix %x : !gpu.mma_matrix<...>`"""

    name = "gpu.subgroup_mma_constant_matrix"

    _MATRIX: ClassVar = VarConstraint("MATRIX", base(MMAMatrixType))
    value = operand_def(ElementTypeOf("MATRIX"))  # MLIR's TypesMatchWith
    res = result_def(_MATRIX)

    assembly_format = "$value attr-dict `:` type($res)"  # GPUOps.td


@irdl_op_definition
class SubgroupMmaElementwiseOp(IRDLOperation):
    """`%r = gpu.subgroup_mma_elementwise kind %a, %b : (A, B) -> R`"""

    name = "gpu.subgroup_mma_elementwise"

    args = var_operand_def(MMAMatrixType)
    opType = prop_def(ElementwiseKindAttr)
    res = result_def(MMAMatrixType)

    assembly_format = "$opType $args attr-dict `:` functional-type($args, $res)"


WARP_OPS: tuple[type[Operation], ...] = (
    AllReduceOp,
    SubgroupReduceOp,
    SubgroupMmaLoadMatrixOp,
    SubgroupMmaStoreMatrixOp,
    SubgroupMmaComputeOp,
    SubgroupMmaConstantMatrixOp,
    SubgroupMmaElementwiseOp,
)
WARP_ATTRIBUTES = (ReductionKindAttr, ElementwiseKindAttr, MMAMatrixType)
