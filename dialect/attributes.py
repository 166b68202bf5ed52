"""Every discardable `gpu_alloc.*` attribute, declared once: its name, what carries it,
what it means and how its value is checked (`ATTRIBUTES`).

The `gpu_alloc` dialect's ops are defined in `ops`; what the passes leave on other ops
(the layout record on a backing, the heap contract on a lowered kernel, ...) is a
discardable attribute in the dialect's namespace, as MLIR's dialects do it. Each one's
name is written where its reader lives (`layout`, `backing`) or here, and this table
gathers them all. `attribute_error(op)` checks the `gpu_alloc.*` attributes of one op:
an unknown name, or a value of the wrong kind, is what is wrong with the op. Every tool
checks it when it reads a module (`gpu_alloc.tools.verification`), so a misspelt
`gpu_alloc.layuot` or a negative `gpu_alloc.lower_bound` is a located error, never
ignored. `docs/design.md` (section 3) documents each; a test keeps the two in step.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from gpu_alloc.dialect.backing import (
    DYNAMIC_SHARED_BYTES,
    DYNAMIC_SHARED_COMPUTED,
    HEAP_BYTES_PER_BLOCK,
    dynamic_shared_bytes,
    verify_heap_contract,
)
from gpu_alloc.dialect.layout import (
    HEAP_LAYOUT_ATTR,
    LAYOUT_ATTR,
    LOWER_BOUND_ATTR,
    PROVEN_OPTIMAL_ATTR,
    read_layout,
)
from xdsl.dialects.builtin import ArrayAttr, IntegerAttr, UnitAttr, i64
from xdsl.ir import Attribute, Operation
from xdsl.utils.exceptions import VerifyException

NAMESPACE = "gpu_alloc."

KERNEL_ATTRIBUTE = "gpu_alloc.kernel"
"""The unit attribute on an `llvm.func` that is a kernel; the backend gives it the
target's kernel calling convention (`ptx_kernel`, `amdgpu_kernel`, `spir_kernel`)."""

HOST_CODE_TARGET = "gpu_alloc.targets"
"""MLIR's target attributes on a `builtin.module`, for its block-level code outside any
`gpu.module` (`gpu.launch` bodies, workgroup `func.func`s), which MLIR gives none."""


def _unit(name: str) -> Callable[[Operation, Attribute], None]:
    def check(op: Operation, value: Attribute) -> None:
        if not isinstance(value, UnitAttr):
            raise VerifyException(f"{name} is a unit attribute, got {value}")

    return check


def _non_negative_i64(name: str) -> Callable[[Operation, Attribute], None]:
    def check(op: Operation, value: Attribute) -> None:
        if not isinstance(value, IntegerAttr) or value.type != i64 or value.value.data < 0:
            raise VerifyException(f"{name} must be a non-negative i64 integer, got {value}")

    return check


def _array(name: str) -> Callable[[Operation, Attribute], None]:
    def check(op: Operation, value: Attribute) -> None:
        if not isinstance(value, ArrayAttr):
            raise VerifyException(f"{name} must be an array of target attributes, got {value}")

    return check


def _layout_record(op: Operation, value: Attribute) -> None:
    read_layout(value)


def _heap_contract(op: Operation, value: Attribute) -> None:
    verify_heap_contract(op)


def _dynamic_shared_record(op: Operation, value: Attribute) -> None:
    dynamic_shared_bytes(op)


@dataclass(frozen=True)
class DiscardableAttribute:
    """One `gpu_alloc.*` attribute of the contract."""

    name: str
    carrier: str
    """What carries it, in words."""
    meaning: str
    check: Callable[[Operation, Attribute], None]
    """Raises `VerifyException` when the value (on that op) is not what the name means."""


ATTRIBUTES: tuple[DiscardableAttribute, ...] = (
    DiscardableAttribute(
        LAYOUT_ATTR,
        "a backing: `gpu_alloc.alloc`, then `memref.global`/`gpu.dynamic_shared_memory`/"
        "`memref.alloca`",
        "which byte range and barrier stages of the backing belong to which Func",
        _layout_record,
    ),
    DiscardableAttribute(
        HEAP_LAYOUT_ATTR,
        "a lowered kernel whose heap became its last argument",
        "the layout record of one block's heap slice",
        _layout_record,
    ),
    DiscardableAttribute(
        PROVEN_OPTIMAL_ATTR,
        "a fused backing",
        "no smaller layout exists (the packer's search proved it)",
        _unit(PROVEN_OPTIMAL_ATTR),
    ),
    DiscardableAttribute(
        LOWER_BOUND_ATTR,
        "a fused backing not proven optimal",
        "the packer's lower bound on the backing's bytes, above the max load",
        _non_negative_i64(LOWER_BOUND_ATTR),
    ),
    DiscardableAttribute(
        HEAP_BYTES_PER_BLOCK,
        "a lowered kernel",
        "the heap contract: bytes of the last argument each thread block owns",
        _heap_contract,
    ),
    DiscardableAttribute(
        DYNAMIC_SHARED_BYTES,
        "a lowered kernel",
        "bytes of dynamic shared memory each launch must give",
        _dynamic_shared_record,
    ),
    DiscardableAttribute(
        DYNAMIC_SHARED_COMPUTED,
        "a lowered kernel",
        "its dynamic shared memory has a run-time size the kernel computes from its arguments",
        _unit(DYNAMIC_SHARED_COMPUTED),
    ),
    DiscardableAttribute(
        KERNEL_ATTRIBUTE,
        "an `llvm.func` made by the embedded backends",
        "the function is a kernel (the backend gives it the target's calling convention)",
        _unit(KERNEL_ATTRIBUTE),
    ),
    DiscardableAttribute(
        HOST_CODE_TARGET,
        "a `builtin.module`",
        "the target of block-level code outside any `gpu.module`, as MLIR's target attributes",
        _array(HOST_CODE_TARGET),
    ),
)
"""Every discardable attribute of the dialect, by name."""

_BY_NAME = {a.name: a for a in ATTRIBUTES}


def attribute_error(op: Operation) -> str | None:
    """What is wrong with `op`'s `gpu_alloc.*` attributes, or None."""
    for name, value in op.attributes.items():
        if not name.startswith(NAMESPACE):
            continue
        declared = _BY_NAME.get(name)
        if declared is None:
            known = ", ".join(sorted(_BY_NAME))
            return f"unknown attribute '{name}' (the gpu_alloc dialect's attributes: {known})"
        try:
            declared.check(op, value)
        except VerifyException as error:
            return str(error)
    return None
