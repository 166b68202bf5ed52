"""One table of what each op does with a memref (or `!gpu_alloc.ptr`) operand.

Every pass that asks "does this op read, write or alias that buffer?" asks this
module: lifetimes (`lifetimes`), dead-allocation removal (`remove_dead_allocs`),
alias flattening (`flatten_aliases`), the import (`gpu_buffers`) and the use walks of
`memref_uses`. An op that is not in the table, an unregistered op, or an operand
position the table does not name is an `ESCAPE`: callers must assume the op may read
and write the whole storage at any time from then on (a call, a launch, an op this
project does not model). So is any use inside an op whose regions the analyses do not
understand (an unregistered op with a region, say): its region may run at any time.

Kinds, per operand position:

- `READ`, `WRITE`, `READ_WRITE`: element accesses whose effect ends with the op, or,
  for an `asynchronous` effect (`nvgpu.device_async_copy`), with the ops its token
  reaches (`nvgpu.device_async_create_group`, `nvgpu.device_async_wait`);
- `META`: reads only the shape or layout (`memref.dim`), never the contents;
- `FREE`: ends the lifetime (`gpu_alloc.dealloc`, `memref.dealloc`);
- `VIEW`: some results are memrefs over the same storage (a view op's result, the
  result of an `arith.select` between buffers, the result of the `scf.if` an
  `scf.yield` feeds): `aliased_values` names them, and their uses are uses of the
  storage. Making a view touches no contents (lifetimes start at the first access
  through it). A select or an if makes a view of *every* candidate;
- `POINTER`: a `gpu_alloc.offset_pointer` into a backing;
- `ALIAS`: a `gpu_alloc.alias` carved from a pointer.

Asynchronous copies whose completion the analyses cannot follow (TMA loads complete at
an mbarrier phase, `amdgpu.gather_to_lds` at a wait) are escapes of their destination.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import Enum, auto

from gpu_alloc.dialect.ops import AliasOp, DeallocOp, OffsetPointerOp
from gpu_alloc.syntax import (
    mlir_amdgpu,
    mlir_gpu_warp,
    mlir_memref,
    mlir_nvgpu,
    mlir_scf,
    mlir_vector,
)
from gpu_alloc.syntax.mlir_nvgpu_tma import WarpgroupMmaStoreOp
from xdsl.dialects import affine, arith, func, gpu, memref, scf, vector
from xdsl.dialects.builtin import MemRefType, ModuleOp
from xdsl.dialects.linalg.abstract_ops import LinalgStructuredOperation
from xdsl.dialects.linalg.ops import BroadcastOp as LinalgBroadcastOp
from xdsl.dialects.linalg.ops import ReduceOp as LinalgReduceOp
from xdsl.ir import Operation, SSAValue, Use


class UseKind(Enum):
    """What one use of a memref does with its storage."""

    READ = auto()
    WRITE = auto()
    READ_WRITE = auto()
    META = auto()
    FREE = auto()
    VIEW = auto()
    POINTER = auto()
    ALIAS = auto()
    ESCAPE = auto()

    @property
    def reads(self) -> bool:
        """Whether the contents may be observed through this use."""
        return self in (UseKind.READ, UseKind.READ_WRITE, UseKind.ESCAPE)

    @property
    def accesses(self) -> bool:
        """Whether this use touches the contents (or may, for an escape)."""
        return self in (UseKind.READ, UseKind.WRITE, UseKind.READ_WRITE, UseKind.ESCAPE)


@dataclass(frozen=True)
class Effect:
    """What an op does with its memref operand at position `operand`."""

    kind: UseKind
    operand: int
    """The operand index (a variadic operand's first index)."""
    alignment: bool = False
    """The op takes an `alignment` attribute that `flatten-aliases` keeps true."""
    asynchronous: bool = False
    """The access completes where the op's token results are waited for."""


_R, _W, _RW, _V = UseKind.READ, UseKind.WRITE, UseKind.READ_WRITE, UseKind.VIEW

Effects = tuple[Effect, ...]

EFFECTS: dict[type[Operation], Effects | Callable[[Operation], Effects]] = {
    memref.LoadOp: (Effect(_R, 0, alignment=True),),
    memref.StoreOp: (Effect(_W, 1, alignment=True),),
    memref.CopyOp: (Effect(_R, 0), Effect(_W, 1)),
    memref.AtomicRMWOp: (Effect(_RW, 1),),
    memref.DimOp: (Effect(UseKind.META, 0),),
    memref.RankOp: (Effect(UseKind.META, 0),),
    memref.DeallocOp: (Effect(UseKind.FREE, 0),),
    memref.ViewOp: (Effect(_V, 0),),
    memref.SubviewOp: (Effect(_V, 0),),
    memref.CastOp: (Effect(_V, 0),),
    memref.ReinterpretCastOp: (Effect(_V, 0),),
    memref.ExpandShapeOp: (Effect(_V, 0),),
    memref.CollapseShapeOp: (Effect(_V, 0),),
    memref.MemorySpaceCastOp: (Effect(_V, 0),),
    memref.ExtractStridedMetaDataOp: (Effect(_V, 0),),
    memref.AssumeAlignmentOp: (Effect(_V, 0),),
    mlir_memref.TransposeOp: (Effect(_V, 0),),
    affine.LoadOp: (Effect(_R, 0),),
    affine.StoreOp: (Effect(_W, 1),),
    vector.LoadOp: (Effect(_R, 0, alignment=True),),
    vector.StoreOp: (Effect(_W, 1, alignment=True),),
    vector.TransferReadOp: (Effect(_R, 0),),
    vector.TransferWriteOp: (Effect(_W, 1),),
    vector.MaskedLoadOp: (Effect(_R, 0),),
    vector.MaskedStoreOp: (Effect(_W, 0),),
    mlir_vector.GatherOp: (Effect(_R, 0),),
    mlir_vector.ScatterOp: (Effect(_W, 0),),
    mlir_gpu_warp.SubgroupMmaLoadMatrixOp: (Effect(_R, 0),),
    mlir_gpu_warp.SubgroupMmaStoreMatrixOp: (Effect(_W, 1),),
    mlir_nvgpu.DeviceAsyncCopyOp: lambda op: (
        Effect(_W, 0, asynchronous=True),
        Effect(_R, op.operands.index(op.src)),  # pyright: ignore[reportAttributeAccessIssue]
    ),
    mlir_nvgpu.LdMatrixOp: (Effect(_R, 0),),
    WarpgroupMmaStoreOp: (Effect(_W, 1),),
    mlir_amdgpu.RawBufferLoadOp: (Effect(_R, 0),),
    mlir_amdgpu.RawBufferStoreOp: (Effect(_W, 1),),
    mlir_amdgpu.TransposeLoadOp: (Effect(_R, 0),),
    mlir_amdgpu.FatRawBufferCastOp: (Effect(_V, 0),),
    mlir_amdgpu.GatherToLdsOp: (Effect(_R, 0),),  # its destination: see the docstring
    LinalgBroadcastOp: (Effect(_R, 0), Effect(_RW, 1)),
    LinalgReduceOp: (Effect(_R, 0), Effect(_RW, 1)),
    arith.SelectOp: (Effect(_V, 1), Effect(_V, 2)),
    DeallocOp: (Effect(UseKind.FREE, 0),),
    OffsetPointerOp: (Effect(UseKind.POINTER, 0),),
    AliasOp: (Effect(UseKind.ALIAS, 0),),
}
"""Per op class, the effect on each memref operand position it names (or a function
giving them, for ops with variadic operands before the memref). `linalg` structured
ops read their `ins` and read and write their `outs` (`effects_of`)."""

VIEW_OPS: tuple[type[Operation], ...] = tuple(
    op for op, effects in EFFECTS.items() if effects == (Effect(_V, 0),)
)
"""Ops whose memref results are views of their first operand."""

UNDERSTOOD_REGIONS: tuple[type[Operation], ...] = (
    scf.ForOp,
    scf.IfOp,
    scf.WhileOp,
    scf.IndexSwitchOp,
    scf.ExecuteRegionOp,
    scf.ParallelOp,
    scf.ReduceOp,
    affine.ForOp,
    affine.IfOp,
    affine.ParallelOp,
    LinalgStructuredOperation,
    LinalgBroadcastOp,
    LinalgReduceOp,
    mlir_gpu_warp.AllReduceOp,
    memref.AllocaScopeOp,
    mlir_scf.ForallOp,
    mlir_scf.InParallelOp,
)
"""Ops whose regions run where the op runs, once or a known number of times, which is
how the analyses treat every region they walk. A use inside any other op with regions
(below the function or launch that holds it) is an escape."""


def effects_of(op: Operation) -> Effects:
    """What `op` does with each memref operand the table names."""
    if isinstance(op, LinalgStructuredOperation):
        n_inputs = len(op.inputs)
        outputs = range(n_inputs, n_inputs + len(op.outputs))
        return (*(Effect(_R, i) for i in range(n_inputs)), *(Effect(_RW, i) for i in outputs))
    effects = EFFECTS.get(type(op), ())
    return effects(op) if callable(effects) else effects


def effect_of(use: Use) -> Effect:
    """The effect of one use; `ESCAPE` for anything the table does not name."""
    op = use.operation
    if opaque_ancestor(op) is not None:
        return Effect(UseKind.ESCAPE, use.index)
    if isinstance(op, scf.YieldOp) and isinstance(op.parent_op(), scf.IfOp):
        return Effect(_V, use.index)
    for effect in effects_of(op):
        if effect.operand == use.index:
            return effect
    return Effect(UseKind.ESCAPE, use.index)


_BOUNDARIES = (func.FuncOp, gpu.FuncOp, gpu.LaunchOp, ModuleOp, gpu.ModuleOp)


def opaque_ancestor(op: Operation) -> Operation | None:
    """The outermost op holding `op`, below its function or launch, whose regions the
    analyses do not understand (see `UNDERSTOOD_REGIONS`); None if there is none."""
    found: Operation | None = None
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, _BOUNDARIES):
        if not isinstance(parent, UNDERSTOOD_REGIONS):
            found = parent
        parent = parent.parent_op()
    return found


def use_kind(use: Use) -> UseKind:
    return effect_of(use).kind


def aliased_values(use: Use) -> Sequence[SSAValue]:
    """The memrefs that a `VIEW` use makes over the same storage."""
    op = use.operation
    if isinstance(op, scf.YieldOp):
        parent = op.parent_op()
        assert parent is not None
        return (parent.results[use.index],)
    return [r for r in op.results if isinstance(r.type, MemRefType)]


def takes_alignment(op: Operation) -> bool:
    """Whether `op` is an access whose `alignment` attribute `flatten-aliases` sets."""
    return any(e.alignment for e in effects_of(op))
