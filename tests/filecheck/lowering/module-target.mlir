// The target is a fact of the module (issue 28): MLIR's target attributes on a
// gpu.module, or -t X{chip=...}, give every pass its device; a chip a module was fused
// for is recorded; chips that disagree are one located error naming both.
//
// 56 KiB fuses for gfx942 from #rocdl.target alone, and from -t amdgcn{chip=gfx942} alone:
// RUN: gpu-alloc-opt %S/inputs/target/two_buffers_56k_gfx942.mlir -p import-gpu-allocs,fuse-gpu-allocs -t amdgcn | filecheck %s --check-prefix GFX942
// RUN: gpu-alloc-opt %S/inputs/target/two_buffers_56k.mlir -p import-gpu-allocs,fuse-gpu-allocs -t 'amdgcn{chip=gfx942}' | filecheck %s --check-prefix GFX942
// Without a target, the 48 KiB baseline refuses it, saying where the limit comes from:
// RUN: not gpu-alloc-opt %S/inputs/target/two_buffers_56k.mlir -p import-gpu-allocs,fuse-gpu-allocs 2>&1 | filecheck %s --check-prefix BASELINE
// sm_75 refuses 80 KiB at its 64 KiB; sm_90 (#nvvm.target) fuses it, into dynamic shared memory:
// RUN: not gpu-alloc-opt %S/inputs/target/two_buffers_80k.mlir -p import-gpu-allocs,fuse-gpu-allocs -t 'ptx{chip=sm_75}' 2>&1 | filecheck %s --check-prefix SM75
// RUN: gpu-alloc-opt %S/inputs/target/two_buffers_80k_sm90.mlir -p import-gpu-allocs,fuse-gpu-allocs -t ptx 2>%t.remarks | filecheck %s --check-prefix SM90
// RUN: filecheck %s --check-prefix REMARK < %t.remarks
// A module fused for sm_90 records it; emitting it for sm_75 is refused, at the module:
// RUN: gpu-alloc-opt %S/inputs/target/two_buffers_80k.mlir -p 'import-gpu-allocs,fuse-gpu-allocs{chip=sm_90}' > %t.fused.mlir
// RUN: filecheck %s --check-prefix RECORDED < %t.fused.mlir
// RUN: not gpu-alloc-opt %t.fused.mlir -t 'ptx{chip=sm_75}' 2>&1 | filecheck %s --check-prefix EMIT75
// Dynamic shared memory counts against the chip too (a module fused without a chip):
// RUN: gpu-alloc-opt %S/inputs/target/two_buffers_80k.mlir -p 'import-gpu-allocs,fuse-gpu-allocs{max-shared-bytes=100000}' > %t.unrecorded.mlir
// RUN: not gpu-alloc-opt %t.unrecorded.mlir -t 'ptx{chip=sm_75}' 2>&1 | filecheck %s --check-prefix DYNAMIC75
// A pass option naming another chip than the module's attribute, or than -t:
// RUN: not gpu-alloc-opt %S/inputs/target/two_buffers_56k_gfx942.mlir -p 'import-gpu-allocs,fuse-gpu-allocs{chip=sm_90}' 2>&1 | filecheck %s --check-prefix CONFLICT
// RUN: not gpu-alloc-opt %S/inputs/target/two_buffers_56k.mlir -t 'amdgcn{chip=gfx942}' -p 'import-gpu-allocs,fuse-gpu-allocs{chip=sm_90}' 2>&1 | filecheck %s --check-prefix CONFLICT-T
// RUN: not gpu-alloc-opt %S/inputs/target/two_buffers_56k_gfx942.mlir -p import-gpu-allocs,fuse-gpu-allocs -t ptx 2>&1 | filecheck %s --check-prefix OTHER-TARGET
// Host code (a gpu.launch body) has no gpu.module: its chip is recorded on the module:
// RUN: gpu-alloc-opt %S/inputs/target/launch_56k.mlir -p 'import-gpu-allocs,fuse-gpu-allocs{chip=gfx942}' > %t.launch.mlir
// RUN: filecheck %s --check-prefix LAUNCH < %t.launch.mlir
// RUN: not gpu-alloc-opt %t.launch.mlir -p 'lower-gpu-allocs{chip=sm_90}' 2>&1 | filecheck %s --check-prefix LAUNCH-CONFLICT
// With -t's chip the 56 KiB fuse (then there is no gpu.module to emit):
// RUN: not gpu-alloc-opt %S/inputs/target/launch_56k.mlir -t 'amdgcn{chip=gfx942}' -p 'import-gpu-allocs,fuse-gpu-allocs' 2>&1 | filecheck %s --check-prefix LAUNCH-T
// A SPIR-V environment allowing 64 KiB lets 56 KiB fuse and emit:
// RUN: gpu-alloc-opt %S/inputs/target/two_buffers_56k_spirv64k.mlir -p import-gpu-allocs,fuse-gpu-allocs -t spirv | filecheck %s --check-prefix SPIRV64
// The environment as a module attribute: SPIR-V's limit, and another -t may still be named:
// RUN: gpu-alloc-opt %S/inputs/target/two_buffers_56k_spirv_env_attribute.mlir -p import-gpu-allocs,fuse-gpu-allocs -t spirv | filecheck %s --check-prefix SPIRV64
// RUN: gpu-alloc-opt %S/inputs/target/two_buffers_56k_spirv_env_attribute.mlir -p import-gpu-allocs,fuse-gpu-allocs -t 'amdgcn{chip=gfx942}' | filecheck %s --check-prefix GFX942
// An environment without the limit has MLIR's default, 16 KiB; #xevm.target is SPIR-V:
// RUN: not gpu-alloc-opt %S/inputs/target/two_buffers_56k_spirv_default.mlir -p import-gpu-allocs,fuse-gpu-allocs 2>&1 | filecheck %s --check-prefix SPIRV-DEFAULT
// RUN: not gpu-alloc-opt %S/inputs/target/two_buffers_56k_xevm.mlir -p import-gpu-allocs,fuse-gpu-allocs 2>&1 | filecheck %s --check-prefix XEVM

// GFX942:      .amdgcn_target "amdgcn-amd-amdhsa--gfx942"
// GFX942:      .amdhsa_group_segment_fixed_size 57344

// BASELINE:    two_buffers_56k.mlir:4:3: error: kernel 'k' needs 57344 bytes of shared memory, over the limit of 49152 (what one block of ptx (any sm_XX) may use); largest: 'a' (28672 B), 'b' (28672 B)

// SM75:        two_buffers_80k.mlir:3:3: error: kernel 'k' needs 81920 bytes of shared memory, over the limit of 65536 (what one block of ptx sm_75 may use)
// SM75-NOT:    .version

// SM90:        .target sm_90
// SM90:        .extern .shared .align 16 .b8 __dynamic_shared_memory[];
// SM90:        [__dynamic_shared_memory+40960]
// REMARK:      lower-gpu-allocs: remark: 'shared_alloc' (81920 B) in kernel 'k' is placed in dynamic shared memory, above the 49152 B NVIDIA kernels may declare statically: each launch sets dynamic_shared_memory_size, the kernel records gpu_alloc.dynamic_shared_bytes = 81920, and the host must raise cudaFuncAttributeMaxDynamicSharedMemorySize to 81920

// RECORDED:    {targets = [#nvvm.target<chip = "sm_90">]}
// EMIT75:      fused.mlir:2:3: error: gpu.module @m is for ptx sm_90 (#nvvm.target<chip = "sm_90">), but -t ptx{chip=sm_75} is for ptx sm_75
// EMIT75-NOT:  .version

// DYNAMIC75:   unrecorded.mlir:3:5: error: kernel 'k' uses 81920 bytes (0 static, 81920 dynamic) of shared memory; one block of sm_75 may use 65536
// DYNAMIC75-NOT: .version

// CONFLICT:    two_buffers_56k_gfx942.mlir:2:1: error: gpu.module @m is for amdgcn gfx942 (#rocdl.target<chip = "gfx942">), but fuse-gpu-allocs{chip=sm_90} is for ptx sm_90
// CONFLICT-T:  two_buffers_56k.mlir:3:1: error: gpu.module @m is for amdgcn gfx942 (#rocdl.target<chip = "gfx942">), but fuse-gpu-allocs{chip=sm_90} is for ptx sm_90
// OTHER-TARGET: two_buffers_56k_gfx942.mlir:2:1: error: gpu.module @m is for amdgcn gfx942 (#rocdl.target<chip = "gfx942">), but -t ptx is for ptx
// OTHER-TARGET-NOT: .version

// LAUNCH:      builtin.module attributes {gpu_alloc.targets = [#rocdl.target<chip = "gfx942">]}
// LAUNCH:      gpu_alloc.alloc "shared_alloc" backing align 16 {{.*}} : memref<57344xi8, 3 : i64>
// LAUNCH-CONFLICT: launch.mlir:1:1: error: the module is for amdgcn gfx942 (#rocdl.target<chip = "gfx942">), but lower-gpu-allocs{chip=sm_90} is for ptx sm_90
// LAUNCH-T-NOT: over the limit
// LAUNCH-T:    error: nothing to emit as AMDGPU assembly: the module has no gpu.module

// SPIRV-DEFAULT: two_buffers_56k_spirv_default.mlir:4:3: error: kernel 'k' needs 57344 bytes of shared memory, over the limit of 16384 (what one block of spirv generic may use)
// XEVM:        two_buffers_56k_xevm.mlir:3:3: error: kernel 'k' needs 57344 bytes of shared memory, over the limit of 32768 (what one block of spirv generic may use)

// SPIRV64:     OpEntryPoint Kernel
// SPIRV64:     OpTypeInt 8 0
// SPIRV64:     %[[#]] = OpConstant %[[#]] 57344
