"""What the IR says about backings and the heap, asked by every pass and the simulator.

Two facts used to be guessed from the shape of the IR, each consumer with its own
rule; they are defined here, once.

A *backing* is a `gpu_alloc.alloc` that `gpu_alloc.offset_pointer`s carve Funcs out
of. It carries the `backing` unit property (verified: a 1-D `i8` memref in space 1 or
3). Legacy rule, for IR written before the property existed: an alloc that an
`offset_pointer` uses is a backing too. A backing is storage like any other
allocation of its space: per block in space 1 and 3.

The *heap contract* is the discardable kernel attribute
`gpu_alloc.heap_bytes_per_block = N : i64` (N > 0) that `lower-gpu-allocs` puts on a
kernel whose heap allocations became one `memref<?xi8, 1>` argument (the last one):
the caller passes a buffer of N bytes per thread block, and block `b` (linear id
`bx + gx * (by + gy * bz)`) owns bytes `[b * N, (b + 1) * N)`. Only `lower-gpu-allocs`
writes it; the simulator and `scripts/gpu_check.py` read it.

The *dynamic shared record* `gpu_alloc.dynamic_shared_bytes = N : i64` (N >= 0) on a
lowered kernel says that it needs N bytes of the block's dynamic shared memory (a
static backing above what a `.shared` array may hold): what a host outside the module
passes at each launch. `lower-gpu-allocs` writes it; the simulator reads it.
"""

from __future__ import annotations

from gpu_alloc.dialect.layout import layout_of
from gpu_alloc.dialect.ops import AliasOp, AllocOp, OffsetPointerOp, memory_space_of
from xdsl.dialects.builtin import DYNAMIC_INDEX, IntegerAttr, MemRefType, i8, i64
from xdsl.ir import Attribute, Operation
from xdsl.utils.exceptions import VerifyException

HEAP_BYTES_PER_BLOCK = "gpu_alloc.heap_bytes_per_block"
"""The heap contract's attribute name (on a lowered `gpu.func`)."""

DYNAMIC_SHARED_BYTES = "gpu_alloc.dynamic_shared_bytes"
"""The dynamic shared record's attribute name (on a lowered `gpu.func`)."""

DYNAMIC_SHARED_COMPUTED = "gpu_alloc.dynamic_shared_computed"
"""A unit attribute on a lowered `gpu.func` whose dynamic shared memory has a run-time size
the kernel computes itself (the byte size of its view of `gpu.dynamic_shared_memory`, from
its arguments): its launch must give at least that, which may be above 48 KiB."""

HEAP_ARGUMENT_TYPE = MemRefType(i8, [DYNAMIC_INDEX], memory_space=IntegerAttr(1, 32))
"""The type of the kernel argument that holds every block's heap slice after lowering."""


def is_backing(alloc: AllocOp) -> bool:
    """Whether `alloc` is a backing: it has the `backing` property, or (legacy IR
    without it) an `offset_pointer` uses it."""
    if alloc.backing is not None:
        return True
    return any(isinstance(use.operation, OffsetPointerOp) for use in alloc.memref.uses)


def func_names(backing: AllocOp) -> list[str]:
    """The names of the Funcs carved out of `backing` (its aliases'), each once, in the
    order of their pointers (once the aliases are folded into views: the Funcs of its
    `gpu_alloc.layout` record): what a diagnostic about the backing names for the user,
    who wrote those Funcs and not the backing."""
    names: dict[str, None] = {}
    for use in backing.memref.uses:
        if isinstance(use.operation, OffsetPointerOp):
            for alias in use.operation.pointer.uses:
                if isinstance(alias.operation, AliasOp):
                    names[alias.operation.alias_name.data] = None
    if not names and (record := layout_of(backing)):
        names = {s.name: None for s in record}
    return list(names)


def is_heap_argument_type(memref_type: Attribute) -> bool:
    """Whether a kernel argument of this type is a lowered heap buffer."""
    return (
        isinstance(memref_type, MemRefType)
        and memory_space_of(memref_type) == 1
        and memref_type.get_shape() == (DYNAMIC_INDEX,)
        and memref_type.element_type == i8
    )


def heap_bytes_per_block(kernel: Operation) -> int | None:
    """The kernel's heap contract (bytes per block), or None if it has none.

    Raises VerifyException when the attribute is there but malformed."""
    attr = kernel.attributes.get(HEAP_BYTES_PER_BLOCK)
    if attr is None:
        return None
    verify_heap_contract(kernel)
    assert isinstance(attr, IntegerAttr)
    return attr.value.data


def verify_heap_contract(kernel: Operation) -> None:
    """Checks the heap contract attribute of `kernel`, if any."""
    attr = kernel.attributes.get(HEAP_BYTES_PER_BLOCK)
    if attr is None:
        return
    if not isinstance(attr, IntegerAttr) or attr.type != i64 or attr.value.data <= 0:
        raise VerifyException(f"{HEAP_BYTES_PER_BLOCK} must be a positive i64 integer, got {attr}")
    entry = kernel.regions[0].blocks.first if kernel.regions else None
    arguments = entry.args if entry is not None else ()
    if not arguments or not is_heap_argument_type(arguments[-1].type):
        raise VerifyException(
            f"{HEAP_BYTES_PER_BLOCK} is set but the kernel's last argument is not a "
            f"heap buffer ({HEAP_ARGUMENT_TYPE})"
        )


def set_heap_bytes_per_block(kernel: Operation, per_block: int) -> None:
    """Records the heap contract on a lowered kernel."""
    kernel.attributes[HEAP_BYTES_PER_BLOCK] = IntegerAttr(per_block, 64)


def dynamic_shared_bytes(kernel: Operation) -> int | None:
    """The kernel's dynamic shared record (bytes), or None if it has none.

    Raises VerifyException when the attribute is there but malformed."""
    attr = kernel.attributes.get(DYNAMIC_SHARED_BYTES)
    if attr is None:
        return None
    if not isinstance(attr, IntegerAttr) or attr.type != i64 or attr.value.data < 0:
        raise VerifyException(
            f"{DYNAMIC_SHARED_BYTES} must be a non-negative i64 integer, got {attr}"
        )
    return attr.value.data
