"""Which ops are workgroup barriers: one classification for every rule that counts them.

- **A barrier** (`BarrierKind.BARRIER`): every thread of the block waits there and the
  shared memory accesses before it are visible after it. `gpu.barrier`,
  `amdgpu.lds_barrier`, `nvvm.barrier0` (and `nvvm.barrier` without operands: barrier
  0 for all threads), and a SPIR-V control barrier (`spirv.ControlBarrier`,
  `spirv.INTEL.ControlBarrierWait`) whose execution scope is the workgroup.
- **A possible barrier** (`BarrierKind.POSSIBLE`): an op that may hold or be one and
  that the model cannot see into: a call (`func.call`, its callee may hold a barrier),
  a barrier of another scope (a SPIR-V control barrier of a subgroup), a
  `nvvm` barrier the list above does not name, and any op xDSL does not
  register (its effects are unknown). A registered op that is none of these is not
  one: xDSL's dialects leave many pure GPU ops (`gpu.thread_id`) without an effect
  interface, so "no known effects" cannot mean "may be a barrier".
- Anything else is not a barrier.

Where a barrier buys something (it separates two stages in `lifetimes`, it closes a
loop's back edge in `loop_allocs`) only a barrier counts; where a barrier costs
something (an iteration of a loop that holds one is no longer "the same accesses on
every iteration"; a barrier under thread-dependent control breaks the stage structure)
a possible barrier counts as one too.
"""

from __future__ import annotations

from enum import Enum

from gpu_alloc.syntax.mlir_amdgpu import LdsBarrierOp
from xdsl.dialects import func, gpu
from xdsl.dialects.builtin import UnregisteredOp
from xdsl.ir import Attribute, Operation


class BarrierKind(Enum):
    NONE = 0
    POSSIBLE = 1
    BARRIER = 2


_BARRIER_NAMES = frozenset({"nvvm.barrier0"})
_SPIRV_CONTROL_BARRIERS = frozenset({"spirv.ControlBarrier", "spirv.INTEL.ControlBarrierWait"})
_MAYBE_PREFIXES = ("nvvm.barrier", "nvvm.bar.", "spirv.INTEL.ControlBarrier")


def op_name(op: Operation) -> str:
    """The op's name as written, also for an op xDSL does not register."""
    return op.op_name.data if isinstance(op, UnregisteredOp) else op.name


def _workgroup_scope(scope: Attribute | None) -> bool:
    """Whether a SPIR-V execution scope attribute names the workgroup."""
    return scope is not None and "workgroup" in str(scope).lower()


def barrier_kind(op: Operation) -> BarrierKind:
    """What `op` itself is (not the ops nested in it): see the module docstring."""
    if isinstance(op, gpu.BarrierOp | LdsBarrierOp):
        return BarrierKind.BARRIER
    name = op_name(op)
    if name in _BARRIER_NAMES or (name == "nvvm.barrier" and not op.operands):
        return BarrierKind.BARRIER
    if name in _SPIRV_CONTROL_BARRIERS:
        scope = op.properties.get("execution_scope") or op.attributes.get("execution_scope")
        if isinstance(op, UnregisteredOp) and scope is None:
            scope = _unregistered_scope(op)
        return BarrierKind.BARRIER if _workgroup_scope(scope) else BarrierKind.POSSIBLE
    if name.startswith(_MAYBE_PREFIXES) or isinstance(op, func.CallOp):
        return BarrierKind.POSSIBLE
    if isinstance(op, UnregisteredOp):
        return BarrierKind.POSSIBLE  # an op the model does not know may be anything
    return BarrierKind.NONE


def _unregistered_scope(op: UnregisteredOp) -> Attribute | None:
    for key in ("execution_scope", "scope"):
        value = op.attributes.get(key)
        if value is not None:
            return value
    return None


def is_barrier(op: Operation) -> bool:
    """`op` is a workgroup barrier (counts where a barrier buys something)."""
    return barrier_kind(op) is BarrierKind.BARRIER


def may_be_barrier(op: Operation) -> bool:
    """`op` is or may be a workgroup barrier (counts where a barrier costs something)."""
    return barrier_kind(op) is not BarrierKind.NONE
