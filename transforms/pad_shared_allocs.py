"""`pad-shared-allocs`: pad the innermost dimension of shared Funcs read across rows.

When the threads of a warp access a shared Func along an outer dimension (a column
of a tile, a transpose, a stencil's vertical neighbours), elements one row apart are
`row pitch` bytes apart; with a pitch that is a multiple of the banks' width (128 bytes
on NVIDIA) they all fall in one bank (`gpu_alloc.banks`). Padding the innermost dimension by a few elements
spreads them over the banks.

Guarantees, per kernel (every block-level region fuse fuses: `gpu.func` kernels,
`gpu.launch` bodies, workgroup `func.func`s), for every unfused static shared
`gpu_alloc.alloc` of rank >= 2
whose only uses are `memref.load`/`memref.store`/`gpu_alloc.dealloc` and which some
load or store indexes, in an outer dimension, with a value that varies across the
threads of a warp (it depends on the thread id along x, the lane id or memory; along y
or z only when `gpu.known_block_size` makes blocks narrower than a warp):

- the pad is the smallest number of elements that makes a warp-wide access along each
  such dimension as conflict-free as any pad below 128 bytes can (from the element
  size and the chip's bank model, `gpu_alloc.targets`; NVIDIA's 32 banks of 4 bytes:
  32x32 of f32, f64 or f16 becomes 32x33, 64x16 of f16 becomes 64x18, 16x64 of i8
  16x66); a Func already conflict-free along them, or that no such pad improves, is
  left alone;
- the padded alloc keeps its name and alignment, and every access goes through a
  `memref.subview` of the original shape (strided layout), so indices and bounds are
  unchanged and the values the kernel computes are the same;
- a pad is applied only while the kernel's shared Funcs, each rounded up to 16 bytes,
  still sum to at most `max-shared-bytes` (a bound on the fused backing), in program
  order.

It runs before `fuse-gpu-allocs` (padding changes sizes, which fusion packs). After
fusion the Funcs are aliases into a packed backing: a shared alias that padding would
help makes the pass fail with a diagnostic (and no change) instead of breaking the
packing; a kernel whose lone shared Func fusion kept as it is is padded as usual.
Running it twice changes nothing the second time.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpu_alloc.banks import strided_conflicts
from gpu_alloc.dialect import AliasOp, AllocOp, DeallocOp, MemorySpace
from gpu_alloc.errors import GpuAllocPassError
from gpu_alloc.memref_sizes import element_bytes, static_byte_size
from gpu_alloc.targets import BankModel, Device
from gpu_alloc.transforms.block_level_code import block_level_code, owned_by
from gpu_alloc.transforms.device_option import device_option
from gpu_alloc.transforms.kernel_ir import (
    LAUNCH_THREAD_IDS,
    Kernel,
    ThreadDependence,
    kernel_name,
    launch_thread_id,
    walk_ops,
)
from gpu_alloc.transforms.module_target import module_device
from xdsl.context import Context
from xdsl.dialects import gpu, memref
from xdsl.dialects.builtin import DYNAMIC_INDEX, MemRefType, ModuleOp
from xdsl.ir import BlockArgument, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import is_side_effect_free

ROUNDING = 16
"""Each Func's bytes are rounded up to this when checking the shared limit."""


def _round(size: int) -> int:
    return -(-size // ROUNDING) * ROUNDING


class WarpVariation:
    """Whether a value may differ between the threads of one warp: it depends on the
    thread id along x (or on the lane id, or on something the analysis cannot trace,
    such as memory); a value depending on y or z only does when the kernel's
    `gpu.known_block_size` says blocks are narrower than a warp along x."""

    def __init__(self, kernel: Kernel, lanes: int):
        self.depends_on_thread = ThreadDependence(kernel)
        known = kernel.known_block_size if isinstance(kernel, gpu.FuncOp) else None
        self.narrow_x = known is not None and int(known.get_values()[0]) < lanes
        self._dims: dict[SSAValue, set[str]] = {}

    def __call__(self, value: SSAValue) -> bool:
        if not self.depends_on_thread(value):
            return False
        dims = self.thread_dims(value)
        return bool(dims & {"x", "?"}) or (self.narrow_x and bool(dims))

    def thread_dims(self, value: SSAValue) -> set[str]:
        if value in self._dims:
            return self._dims[value]
        self._dims[value] = {"?"}  # cycles: unknown
        owner = value.owner
        if not self.depends_on_thread(value):
            dims: set[str] = set()
        elif isinstance(owner, gpu.ThreadIdOp | gpu.GlobalIdOp):
            dims = {str(owner.dimension.data)}
        elif isinstance(value, BlockArgument) and launch_thread_id(value):
            dims = {"xyz"[value.index - LAUNCH_THREAD_IDS.start]}
        elif not isinstance(owner, Operation) or isinstance(owner, gpu.LaneIdOp):
            dims = {"x"} if isinstance(owner, gpu.LaneIdOp) else {"?"}
        elif owner.regions or not is_side_effect_free(owner):
            dims = {"?"}
        else:
            dims = set().union(*(self.thread_dims(o) for o in owner.operands))
        self._dims[value] = dims
        return dims


def _outer_dims_varying(value: SSAValue, varies: WarpVariation) -> set[int]:
    """Outer dimensions (not the innermost) that some load/store indexes with a value
    varying across the threads of a warp."""
    dims: set[int] = set()
    for use in value.uses:
        op = use.operation
        if isinstance(op, memref.LoadOp | memref.StoreOp):
            indices = list(op.indices)
            dims |= {d for d, i in enumerate(indices[:-1]) if varies(i)}
    return dims


def _strides(shape: list[int]) -> list[int]:
    strides, running = [], 1
    for size in reversed(shape):
        strides.append(running)
        running *= size
    return list(reversed(strides))


def _conflicts(shape: list[int], itemsize: int, dims: set[int], model: BankModel) -> int:
    strides = _strides(shape)
    return sum(strided_conflicts(strides[d] * itemsize, itemsize, shape[d], model) for d in dims)


def best_pad(shape: list[int], itemsize: int, dims: set[int], model: BankModel) -> int:
    """The smallest innermost pad (elements) with the fewest conflicts along `dims`,
    for the banks of `model`."""
    limit = max(1, model.banks * model.bank_bytes // itemsize)
    best, best_conflicts = 0, _conflicts(shape, itemsize, dims, model)
    for pad in range(1, limit + 1):
        if best_conflicts == 0:
            break
        conflicts = _conflicts([*shape[:-1], shape[-1] + pad], itemsize, dims, model)
        if conflicts < best_conflicts:
            best, best_conflicts = pad, conflicts
    return best


@dataclass(frozen=True)
class _Candidate:
    op: AllocOp | AliasOp
    shape: list[int]
    itemsize: int
    pad: int


def _candidate(op: AllocOp | AliasOp, varies: WarpVariation, model: BankModel) -> _Candidate | None:
    memref_type = op.memref.type
    if not isinstance(memref_type, MemRefType) or op.space != MemorySpace.SHARED:
        return None
    shape = list(memref_type.get_shape())
    itemsize = element_bytes(memref_type.get_element_type())
    if len(shape) < 2 or DYNAMIC_INDEX in shape or itemsize is None or 0 in shape:
        return None
    users = [use.operation for use in op.memref.uses]
    if not all(isinstance(u, memref.LoadOp | memref.StoreOp | DeallocOp) for u in users):
        return None
    if any(isinstance(u, memref.StoreOp) and u.value == op.memref for u in users):
        return None  # the memref itself is stored somewhere: it escapes
    dims = _outer_dims_varying(op.memref, varies)
    pad = best_pad(shape, itemsize, dims, model) if dims else 0
    return _Candidate(op, shape, itemsize, pad) if pad else None


def _pad(candidate: _Candidate) -> None:
    alloc = candidate.op
    assert isinstance(alloc, AllocOp)
    memref_type = alloc.memref.type
    assert isinstance(memref_type, MemRefType)
    shape = candidate.shape
    padded_type = MemRefType(
        memref_type.get_element_type(),
        [*shape[:-1], shape[-1] + candidate.pad],
        memory_space=memref_type.memory_space,
    )
    alignment = None if alloc.alignment is None else alloc.alignment.value.data
    padded = AllocOp(alloc.alloc_name, padded_type, [], alignment=alignment)
    padded.memref.name_hint = alloc.memref.name_hint
    rank = len(shape)
    view_type = memref.SubviewOp.infer_result_type(padded_type, [0] * rank, shape, [1] * rank)
    view = memref.SubviewOp.get(padded.memref, [0] * rank, shape, [1] * rank, view_type)
    Rewriter.insert_op([padded, view], InsertPoint.before(alloc))
    for use in list(alloc.memref.uses):
        if isinstance(use.operation, DeallocOp):
            use.operation.operands[use.index] = padded.memref
    alloc.memref.replace_all_uses_with(view.result)
    # No name hint: a view's users (the simulator, its profile) then see the Func's name.
    view.result.name_hint = None
    Rewriter.erase_op(alloc)


def _shared_bytes(op: Operation) -> int:
    assert isinstance(op, AllocOp | AliasOp)
    assert isinstance(op.memref.type, MemRefType)
    return _round(static_byte_size(op.memref.type) or 0)


@dataclass(frozen=True)
class PadSharedAllocsPass(ModulePass):
    """Pad shared Funcs whose shape makes row-crossing accesses conflict; see the
    module docstring."""

    name = "pad-shared-allocs"

    chip: str = ""
    """The chip to pad for (`sm_90`, `gfx942`, ...): its bank model, its warp or wavefront
    width, and the default `max-shared-bytes`; without one NVIDIA's (32 banks of 4 bytes,
    warps of 32, 48 KiB)."""

    max_shared_bytes: int | None = None
    """Static shared bytes a kernel may use after padding (as `fuse-gpu-allocs`); by
    default what one block of `chip` may use."""

    def device(self, module: ModuleOp | None = None) -> tuple[Device, BankModel]:
        """The device of `module` (its `gpu.module`s' target attribute or the `chip`
        option: `module_target`) and its bank model."""
        if module is None:
            device = device_option(self.name, self.chip)
        else:
            device = module_device(module, self.name, self.chip)
        if device.bank_model is None:
            raise GpuAllocPassError(
                f"pad-shared-allocs: {device.describe()} has no bank model (the device "
                "decides), so no pad can be chosen"
            )
        return device, device.bank_model

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.max_shared_bytes is not None and self.max_shared_bytes < 0:
            raise GpuAllocPassError(
                f"pad-shared-allocs: option max-shared-bytes must be a non-negative number of "
                f"bytes, got {self.max_shared_bytes}"
            )
        device, model = self.device(op)
        limit = self.max_shared_bytes
        if limit is None:
            limit = device.shared_bytes_per_block
        plans: list[list[_Candidate]] = []
        for kernel in block_level_code(op):
            varies = WarpVariation(kernel, model.lanes)
            shared = [
                o
                for o in walk_ops(kernel)
                if isinstance(o, AllocOp | AliasOp)
                and o.space == MemorySpace.SHARED
                and owned_by(o, kernel)
            ]
            found = [c for o in shared if (c := _candidate(o, varies, model))]
            for c in found:
                if isinstance(c.op, AliasOp):
                    raise GpuAllocPassError(
                        f"pad-shared-allocs: shared Func '{c.op.alias_name.data}' of kernel "
                        f"'{kernel_name(kernel)}' needs padding but is already fused; run "
                        "pad-shared-allocs before fuse-gpu-allocs",
                        c.op,
                    )
            total = sum(_shared_bytes(o) for o in shared if isinstance(o, AllocOp))
            chosen: list[_Candidate] = []
            for c in found:
                extra = _padded_bytes(c) - _shared_bytes(c.op)
                if total + extra <= limit:
                    total += extra
                    chosen.append(c)
            plans.append(chosen)
        for chosen in plans:  # every check passed: now rewrite
            for candidate in chosen:
                _pad(candidate)


def _padded_bytes(candidate: _Candidate) -> int:
    size = candidate.itemsize * (candidate.shape[-1] + candidate.pad)
    for dim in candidate.shape[:-1]:
        size *= dim
    return _round(size)
