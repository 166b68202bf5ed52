// The 56 KiB kernel with a SPIR-V environment of 64 KiB as a module attribute (as IMEX
// writes it): SPIR-V's limits, but no target the module must be compiled for.
gpu.module @m attributes {spirv.target_env = #spirv.target_env<#spirv.vce<v1.0, [Kernel, Addresses], []>, #spirv.resource_limits<max_compute_shared_memory_size = 65536>>} {
  gpu.func @k(%out: memref<16xf32, 1>) kernel {
    %a = memref.alloc() : memref<7168xf32, 3>
    %b = memref.alloc() : memref<7168xf32, 3>
    %c0 = arith.constant 0 : index
    %t = gpu.thread_id x
    %f = arith.constant 1.0 : f32
    memref.store %f, %a[%t] : memref<7168xf32, 3>
    memref.store %f, %b[%t] : memref<7168xf32, 3>
    gpu.barrier
    %v = memref.load %a[%c0] : memref<7168xf32, 3>
    %w = memref.load %b[%c0] : memref<7168xf32, 3>
    %s = arith.addf %v, %w : f32
    memref.store %s, %out[%c0] : memref<16xf32, 1>
    gpu.return
  }
}
