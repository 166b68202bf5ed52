// A device function's shared memory is static: on NVIDIA at most 48 KiB of it (ptxas
// refuses more, and only a kernel's launch can size dynamic shared memory), on AMD as much
// as the chip's LDS. 64 KiB in device function @tile: refused before any output on
// NVIDIA and SPIR-V (32 KiB for a generic OpenCL device), 65536 LDS bytes on gfx942.
// RUN: not gpu-alloc-opt %s -p lower-gpu-allocs 2>&1 | filecheck %s --check-prefix NVIDIA
// RUN: not gpu-alloc-opt %s -t ptx 2>&1 | filecheck %s --check-prefix NVIDIA
// RUN: gpu-alloc-opt %s -p 'lower-gpu-allocs{chip=gfx942}' | filecheck %s --check-prefix LOWERED
// RUN: gpu-alloc-opt %s -t amdgcn | filecheck %s --check-prefix AMD
// RUN: gpu-alloc-opt %s -t 'amdgcn{backend=mlir}' | filecheck %s --check-prefix AMD
// -t's chip is the passes' target too: a pass option naming another chip is refused.
// RUN: not gpu-alloc-opt %s -t 'amdgcn{chip=gfx942}' -p 'lower-gpu-allocs{chip=sm_90}' 2>&1 | filecheck %s --check-prefix CONFLICT
// RUN: not gpu-alloc-opt %s -t spirv 2>&1 | filecheck %s --check-prefix SPIRV

// NVIDIA: device-function-shared.mlir:[[# @LINE + 16]]:7: error: shared allocation 'big' of 65536 bytes (above the 49152 NVIDIA kernels may declare statically) in device function 'tile' cannot be lowered: only a kernel's launch can size dynamic shared memory
// NVIDIA-NOT: .version
// LOWERED:     "memref.global"() <{sym_name = "tile__big", type = memref<16384xf32, 3 : i32>, initial_value, sym_visibility = "private", alignment = 16 : i64}>
// LOWERED:     func.func @tile
// LOWERED:       memref.get_global @tile__big
// AMD:         .amdhsa_kernel k
// AMD:         .amdhsa_group_segment_fixed_size 65536
// CONFLICT: device-function-shared.mlir:[[# @LINE + 6]]:3: error: gpu.module @m is for amdgcn gfx942 (#rocdl.target<chip = "gfx942">), but lower-gpu-allocs{chip=sm_90} is for ptx sm_90
// CONFLICT-NOT: .amdgcn_target
// SPIRV: device-function-shared.mlir:[[# @LINE + 13]]:5: error: kernel 'k' uses 65536 bytes of static Workgroup memory; one block of generic may use 32768
// SPIRV-NOT: OpCapability

builtin.module {
  gpu.module @m {
    func.func @tile(%i: index, %v: f32) -> f32 {
      %c0 = arith.constant 0 : index
      %big = gpu_alloc.alloc "big" : memref<16384xf32, 3 : i32>
      memref.store %v, %big[%i] : memref<16384xf32, 3 : i32>
      gpu.barrier
      %w = memref.load %big[%c0] : memref<16384xf32, 3 : i32>
      func.return %w : f32
    }
    gpu.func @k(%out: memref<64xf32>) kernel {
      %t = gpu.thread_id x
      %c0 = arith.constant 0 : index
      %x = memref.load %out[%t] : memref<64xf32>
      %y = func.call @tile(%t, %x) : (index, f32) -> f32
      memref.store %y, %out[%t] : memref<64xf32>
      gpu.return
    }
  }
}
