"""What a GPU target is, as data: the types every target description is made of.

A `TargetDescription` holds everything the passes, the simulator and the backends need
to know about one vendor's GPUs: how the IR contract's memory spaces map to the
target's address spaces, the chips (shared bytes a block may use, warp or wavefront
size, bank model, ISA version), the static-shared limit where one exists, how the ids,
the barrier and the fences are spelled in LLVM IR, the kernel calling convention, the
math library, the LLVM triple and the MLIR pipeline. Nothing here imports anything but
the standard library, so every layer of the project can read it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

KIB = 1024


class TargetOptionError(ValueError):
    """An unknown target, chip or ISA version; the message is one line listing the known ones."""


@dataclass(frozen=True)
class BankModel:
    """How a block's shared memory is split into banks.

    `banks` banks of `bank_bytes` bytes each; the threads of one access are served
    `lanes` at a time (a warp, or a half wavefront): bank conflicts are counted within
    each group of `lanes` consecutive linear thread ids."""

    banks: int
    bank_bytes: int
    lanes: int


@dataclass(frozen=True)
class Chip:
    """One chip (architecture) of a target."""

    name: str
    shared_bytes_per_block: int
    """The most shared memory (LDS, Workgroup memory) one block may use."""
    wave_size: int | None
    """Threads of a warp or wavefront; None where the target leaves it to the device."""
    bank_model: BankModel | None
    """None where the target leaves it to the device."""
    isa: str
    """The ISA the chip implements, as its vendor names it (`GFX9.4.2`, `sm_90`)."""
    min_isa_version: int = 0
    """The oldest ISA version option (`ptx_version`) that knows the chip; 0 if any."""
    llvm_features: str = ""
    """LLVM target features the chip is compiled with (besides the target's)."""
    llvm_cpu: str | None = None
    """The LLVM processor to compile for: the chip's name unless given ("" for none)."""

    @property
    def cpu(self) -> str:
        return self.name if self.llvm_cpu is None else self.llvm_cpu


@dataclass(frozen=True)
class AddressSpaces:
    """The target's LLVM address space of each memory space of the IR contract."""

    generic: int
    """A memref without a memory space (kernel arguments)."""
    global_: int
    """Space 1: global memory, the heap."""
    shared: int
    """Space 3: shared memory (NVIDIA), LDS (AMD), Workgroup storage (SPIR-V)."""
    private: int
    """Space 5: per-thread memory."""
    alloca: int
    """Where LLVM IR places `alloca`s on this target."""
    shared_name: str
    """What the target's tools call shared memory, for messages."""

    def llvm_space(self, contract_space: int) -> int | None:
        """The LLVM address space of IR contract space `contract_space` (0: none given)."""
        return {0: self.generic, 1: self.global_, 3: self.shared, 5: self.private}.get(
            contract_space
        )


@dataclass(frozen=True)
class Intrinsic:
    """A call returning an integer id: an LLVM intrinsic or a builtin function.

    `name` may hold `{dim}` (x, y or z); with `dimension_argument` the dimension is
    passed instead, as an `i32` 0, 1 or 2 (OpenCL's `get_local_id(dim)`)."""

    name: str
    bits: int
    dimension_argument: bool = False


@dataclass(frozen=True)
class ImplicitArgument:
    """An integer the runtime passes in the kernel's implicit arguments: loaded from
    the pointer `pointer` returns (in `pointer_space`), `offset + stride * dim` bytes in,
    `bits` wide, unsigned."""

    pointer: str
    pointer_space: int
    offset: int
    stride: int
    bits: int


@dataclass(frozen=True)
class MaskedLaneCount:
    """A lane id counted from an all-ones mask: `steps[-1](-1, ... steps[0](-1, 0))`,
    one step per 32 lanes of the wave (AMD's `mbcnt.lo`, `mbcnt.hi`)."""

    steps: tuple[str, ...]
    bits: int = 32


IdSource = Intrinsic | ImplicitArgument | MaskedLaneCount


@dataclass(frozen=True)
class Ids:
    """How each `gpu` id op is read on the target."""

    thread_id: IdSource
    block_id: IdSource
    block_dim: IdSource
    grid_dim: IdSource
    lane_id: IdSource
    subgroup_size: IdSource


@dataclass(frozen=True)
class Fence:
    """An LLVM `fence syncscope(scope) ordering`."""

    ordering: str
    scope: str


@dataclass(frozen=True)
class Call:
    """A call of a void intrinsic or builtin with constant `i32` arguments."""

    name: str
    arguments: tuple[int, ...] = ()


@dataclass(frozen=True)
class KernelAbi:
    """How kernels and device functions are declared in LLVM IR."""

    kernel_calling_convention: str
    function_calling_convention: str
    """Of device functions and declared builtins; "" for LLVM's default (`ccc`)."""
    function_linkage: str = "external"
    """Of device functions (`internal` where LLVM lowers shared memory only in functions
    it sees every caller of: AMDGPU's LDS)."""


@dataclass(frozen=True)
class MathLibrary:
    """The device library that `math` ops call.

    `naming` is `suffix` (`{prefix}{name}{suffix}`, `suffixes` by element type) or
    `itanium` (OpenCL builtins: `_Z<len><name><codes>`, a code per argument, from
    `suffixes`); `renamed` maps a `math` op's name to the library's where they differ.
    `files` are the bitcode files linked in (empty: resolved by the device's runtime)."""

    naming: str
    prefix: str
    suffixes: dict[str, str]
    renamed: dict[str, str] = field(default_factory=dict[str, str])
    files: tuple[str, ...] = ()
    chip_files: tuple[str, ...] = ()
    """Files that depend on the chip: `{isa}` is its number (`942`), `{wave}` `on` for
    wave64 and `off` for wave32."""
    finder: str = ""
    """Where `toolchain.find_math_library` looks for `files`: `cuda` (a CUDA toolkit's
    `nvvm/libdevice`) or `rocm` (ROCm's `amdgcn/bitcode`)."""
    needs: str = ""
    """What to install when `files` cannot be found."""


@dataclass(frozen=True)
class MlirPipeline:
    """How MLIR 22 compiles a `gpu.module` for the target (see `lowering/llvm/mlir_backend.py`).

    `passes` are `mlir-opt-22` options; `{chip}`, `{isa_version}` and `{wave}` are
    filled in. The last one serialises each `gpu.module` into a `gpu.binary` holding
    the assembly (`format=isa`) or LLVM bitcode (`format=llvm`, which LLVM's own target
    then compiles)."""

    passes: tuple[str, ...]
    library_option: str = ""
    """The option linking the math library, `{library}` its path; "" if none is linked."""
    wave_options: dict[int, str] = field(default_factory=dict[int, str])
    """What `{wave}` in `passes` stands for, per wave size of the chip."""
    prelowered_ids: tuple[str, ...] = ()
    """Ids (fields of `Ids`) the MLIR backend reads as the description says before the
    pipeline runs, because MLIR's own lowering of them needs a device library."""
    numbered_spaces: bool = False
    """Hand MLIR the contract's numbers for spelled memory spaces (its lowering reads
    numbers only)."""
    attributions_as_buffers: bool = False
    """Hand MLIR a `gpu.func`'s attributions as the buffers they stand for (shared
    globals, allocas): its own lowering of them differs from the embedded backend's."""
    renumbered_spaces: dict[int, int] = field(default_factory=dict[int, int])
    """Address spaces to renumber in the LLVM IR MLIR made (contract number: target's)."""
    device_code_only: bool = False
    """Hand MLIR only the `gpu.module`s: the pipeline lowers no host code."""
    kernel_attribute: str = ""
    """The attribute that makes an `llvm.func` a kernel entry point in MLIR's translation
    to LLVM IR (`nvvm.kernel`, `rocdl.kernel`); "" where there is none."""


@dataclass(frozen=True)
class TargetDescription:
    """Everything the project knows about one target."""

    name: str
    """The `-t` name: `ptx`, `amdgcn`, `spirv`."""
    vendor: str
    backend_name: str
    """How messages name the target's backends: `the llvmlite PTX backend`."""
    output: str
    """What the target prints: `PTX`, `AMDGPU assembly`, `SPIR-V assembly`."""
    triple: str
    """The LLVM triple; `{isa_version}` is filled in where the version is part of it."""
    llvm_features: str
    """LLVM target features of every chip; `{isa_version}` is filled in."""
    chips: tuple[Chip, ...]
    default_chip: str
    """The chip the backends compile for unless told."""
    spaces: AddressSpaces
    static_shared_limit: int | None
    """Shared bytes a kernel may declare statically; above it, only dynamic shared memory
    (sized at the launch) may hold them. None: every byte may be static."""
    ids: Ids
    barrier: tuple[Fence | Call, ...]
    abi: KernelAbi
    math: MathLibrary
    mlir: MlirPipeline
    isa_versions: tuple[int, ...] = ()
    """Versions (times ten) the `isa_version` option may take; empty: no such option."""
    default_isa_version: int = 0
    isa_version_option: str = ""
    """The target's name for that option (`ptx_version`, `spirv_version`)."""
    isa_version_unit: str = ""
    """What the option's number is, for messages (`PTX ISA x10`)."""
    symbol_pattern: str = r"[A-Za-z_$][A-Za-z0-9_$.]*"
    """What the target's assembler accepts as a symbol name."""
    comment: str = ";"
    """What starts a comment line in the target's assembly."""
    dynamic_shared_opt_in: str = ""
    """The launch attribute the host raises for dynamic shared memory above the
    static-shared limit (`cudaFuncAttributeMaxDynamicSharedMemorySize`)."""
    no_dynamic_shared: str = ""
    """Why a kernel may not have shared memory sized at its launch ("" where it may)."""
    isolated_codegen: bool = False
    """Whether LLVM's target must compile each module in a fresh process (it keeps state
    between compilations: `lowering/llvm/isolated.py`)."""
    refused_types: dict[str, str] = field(default_factory=dict[str, str])
    """Element types (`bf16`) no op may use on the target, and why."""
    chip_only_ops: dict[str, tuple[str, ...]] = field(default_factory=dict[str, tuple[str, ...]])
    """Ops that only some of the target's chips have: op name → those chips."""
    driver: str = ""
    """The target's `-t` driver, an xDSL `Target`, as `module:attribute`
    (`gpu_alloc.lowering.ptx.target:PtxTarget`): `gpu_alloc.universe` registers it as `name`."""
    tool_check: str = ""
    """Its own tools' check of its assembly, as `module:function` (text, device, ISA
    version -> static shared bytes per kernel: `lowering/tool_checks.py`)."""
    mlir_target_attributes: tuple[str, ...] = ()
    """MLIR's target attributes that put a `gpu.module` on this target (`nvvm.target`),
    in its `targets` list; the first is the one this project attaches for a chip."""
    mlir_default_chip: str = ""
    """The chip such an attribute means when it names none (MLIR's default)."""
    mlir_shared_limit_key: str = ""
    """The attribute parameter that gives a block's shared bytes instead of a chip
    (`max_compute_shared_memory_size` of `#spirv.resource_limits`); "" if none."""
    mlir_shared_limit_default: int = 0
    """What MLIR takes for that parameter when the attribute leaves it out."""
    backends: tuple[str, ...] = ("llvmlite", "mlir")
    """The `backend=` names the target has (its coverage columns): LLVM's targets have
    the embedded llvmlite backend and MLIR's; OpenCL C has its own source emitter (`c`)."""

    def chip(self, name: str) -> Chip:
        """The chip called `name`, or a `TargetOptionError` listing the known ones."""
        for chip in self.chips:
            if chip.name == name:
                return chip
        known = ", ".join(chip.name for chip in self.chips)
        raise TargetOptionError(f"unknown chip '{name}' (choose from {known})")

    def check_isa_version(self, chip: Chip, version: int) -> None:
        """Raise `TargetOptionError` unless `version` is one the target emits for `chip`."""
        if not self.isa_versions:
            return
        option = self.isa_version_option
        if version not in self.isa_versions:
            raise TargetOptionError(
                f"unknown {option} {version} ({self.isa_version_unit}; choose from "
                f"{', '.join(map(str, self.isa_versions))})"
            )
        if version < chip.min_isa_version:
            newer = [str(v) for v in self.isa_versions if v >= chip.min_isa_version]
            raise TargetOptionError(
                f"{option} {version} is older than {chip.name} allows "
                f"(choose from {', '.join(newer)})"
            )
