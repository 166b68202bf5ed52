"""One table of what each op does with a memref (or `!gpu_alloc.ptr`) operand.

Every pass that asks "does this op read, write or alias that buffer?" asks this
module: lifetimes (`lifetimes`), dead-allocation removal (`remove_dead_allocs`),
alias flattening (`flatten_aliases`) and the use walks of `memref_uses`. An op that
is not in the table, an unregistered op, or an operand position the table does not
name is an `ESCAPE`: callers must assume the op may read and write the storage at
any time (a call, a launch, an op this project does not model).

Kinds, per operand position:

- `READ`, `WRITE`, `READ_WRITE`: element accesses whose effect ends with the op;
- `META`: reads only the shape or layout (`memref.dim`), never the contents;
- `FREE`: ends the lifetime (`gpu_alloc.dealloc`, `memref.dealloc`);
- `VIEW`: some results are memrefs over the same storage (a view op's result, the
  result of an `arith.select` between buffers, the result of the `scf.if` an
  `scf.yield` feeds): `aliased_values` names them, and their uses are uses of the
  storage. Making a view touches no contents (lifetimes start at the first access
  through it). A select or an if makes a view of *every* candidate;
- `POINTER`: a `gpu_alloc.offset_pointer` into a backing;
- `ALIAS`: a `gpu_alloc.alias` carved from a pointer.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum, auto

from gpu_alloc.dialect.ops import AliasOp, DeallocOp, OffsetPointerOp
from xdsl.dialects import arith, memref, scf, vector
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


_R, _W, _RW, _V = UseKind.READ, UseKind.WRITE, UseKind.READ_WRITE, UseKind.VIEW

EFFECTS: dict[type[Operation], tuple[Effect, ...]] = {
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
    vector.LoadOp: (Effect(_R, 0, alignment=True),),
    vector.StoreOp: (Effect(_W, 1, alignment=True),),
    vector.TransferReadOp: (Effect(_R, 0),),
    vector.TransferWriteOp: (Effect(_W, 1),),
    vector.MaskedLoadOp: (Effect(_R, 0),),
    vector.MaskedStoreOp: (Effect(_W, 0),),
    arith.SelectOp: (Effect(_V, 1), Effect(_V, 2)),
    DeallocOp: (Effect(UseKind.FREE, 0),),
    OffsetPointerOp: (Effect(UseKind.POINTER, 0),),
    AliasOp: (Effect(UseKind.ALIAS, 0),),
}
"""Per op class, the effect on each memref operand position it names. xDSL 0.75
defines no `vector.gather`/`vector.scatter`; as unknown ops they are escapes."""

VIEW_OPS: tuple[type[Operation], ...] = tuple(
    op for op, effects in EFFECTS.items() if effects == (Effect(_V, 0),)
)
"""Ops whose (single) memref result is a view of their first operand."""


def effect_of(use: Use) -> Effect:
    """The effect of one use; `ESCAPE` for anything the table does not name."""
    op = use.operation
    if isinstance(op, scf.YieldOp) and isinstance(op.parent_op(), scf.IfOp):
        return Effect(_V, use.index)
    for effect in EFFECTS.get(type(op), ()):
        if effect.operand == use.index:
            return effect
    return Effect(UseKind.ESCAPE, use.index)


def use_kind(use: Use) -> UseKind:
    return effect_of(use).kind


def aliased_values(use: Use) -> Sequence[SSAValue]:
    """The memrefs that a `VIEW` use makes over the same storage."""
    op = use.operation
    if isinstance(op, scf.YieldOp):
        parent = op.parent_op()
        assert parent is not None
        return (parent.results[use.index],)
    return op.results


def takes_alignment(op: Operation) -> bool:
    """Whether `op` is an access whose `alignment` attribute `flatten-aliases` sets."""
    return any(e.alignment for e in EFFECTS.get(type(op), ()))
