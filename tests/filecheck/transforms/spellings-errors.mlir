// RUN: gpu-alloc-opt %s --split-input-file --verify-diagnostics -p import-gpu-allocs,fuse-gpu-allocs | filecheck %s
// RUN: gpu-alloc-opt %s --split-input-file --verify-diagnostics -p lower-gpu-allocs | filecheck %s --check-prefix LOWER
// Issue 27: a memory space no spelling classifies, and a loop whose mapping gives its
// iterations to threads, are one-line refusals naming the attribute or the mapping.

gpu.module @m {
  gpu.func @k(%o: memref<64xf32>) kernel {
    %i = gpu.thread_id x
    %a = memref.alloc() : memref<64xf32, #spirv.storage_class<Input>>
    %x = memref.load %a[%i] : memref<64xf32, #spirv.storage_class<Input>>
    memref.store %x, %o[%i] : memref<64xf32>
    gpu.return
  }
}
// CHECK: import-gpu-allocs: memref.alloc allocates a memref in memory space #spirv.storage_class<Input>, which is none of the spellings read as global, workgroup or private memory (see gpu_alloc.dialect.spellings)
// LOWER: lower-gpu-allocs: memref.alloc allocates a memref in memory space #spirv.storage_class<Input>, which is none

// -----

gpu.module @m {
  gpu.func @k(%o: memref<64xf32>) kernel {
    %i = gpu.thread_id x
    %a = memref.alloc() : memref<64xf32, #nvvm.memory_space<shared_cluster>>
    %x = memref.load %a[%i] : memref<64xf32, #nvvm.memory_space<shared_cluster>>
    memref.store %x, %o[%i] : memref<64xf32>
    gpu.return
  }
}
// CHECK: import-gpu-allocs: memref.alloc allocates a memref in memory space #nvvm.memory_space<shared_cluster>, which is none
// LOWER: lower-gpu-allocs: memref.alloc allocates a memref in memory space #nvvm.memory_space<shared_cluster>, which is none

// -----

gpu.module @m {
  gpu.func @k(%o: memref<64xf32>) kernel {
    %i = gpu.thread_id x
    %v = arith.constant 1.0 : f32
    scf.forall (%t) in (4) {
      %a = memref.alloc() : memref<64xf32, #gpu.address_space<workgroup>>
      memref.store %v, %a[%i] : memref<64xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %x = memref.load %a[%i] : memref<64xf32, #gpu.address_space<workgroup>>
      memref.store %x, %o[%i] : memref<64xf32>
    } {mapping = [#gpu.thread<x>]}
    gpu.return
  }
}
// CHECK: shared allocation 'a' is under thread-dependent control flow ('scf.forall', mapped to #gpu.thread<x>: its iterations are spread over the threads of a block); block-level allocations must be made by every thread of the block

// -----

gpu.module @m {
  gpu.func @k(%o: memref<64xf32>) kernel {
    %i = gpu.thread_id x
    %v = arith.constant 1.0 : f32
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    scf.parallel (%t) = (%c0) to (%c4) step (%c1) {
      %a = memref.alloc() : memref<64xf32, #gpu.address_space<workgroup>>
      memref.store %v, %a[%i] : memref<64xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %x = memref.load %a[%i] : memref<64xf32, #gpu.address_space<workgroup>>
      memref.store %x, %o[%i] : memref<64xf32>
      scf.reduce
    } {mapping = [#gpu.loop_dim_map<processor = thread_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]}
    gpu.return
  }
}
// CHECK: shared allocation 'a' is under thread-dependent control flow ('scf.parallel', mapped to processor thread_x: its iterations are spread over the threads of a block)
