// RUN: gpu-alloc-opt %s --split-input-file -p import-gpu-allocs,fuse-gpu-allocs,remove-dead-allocs,flatten-aliases | filecheck %s
// RUN: gpu-alloc-opt %s --split-input-file -p import-gpu-allocs,fuse-gpu-allocs,flatten-aliases | gpu-alloc-opt --split-input-file | filecheck %s --check-prefix READ

// Issue 27: every spelling of workgroup memory, every kernel marker and every block-uniform
// loop mapping fuses alike. Each case: two 64 x f32 Funcs (256 bytes each) that barriers
// keep apart share offset 0, so the backing is 256 bytes, in the user's spelling.

// A func.func allocating #spirv.storage_class<Workgroup> (the issue's reproducer).
func.func @spirv(%i: index, %v: f32) -> f32 {
  %a = memref.alloc() : memref<64xf32, #spirv.storage_class<Workgroup>>
  memref.store %v, %a[%i] : memref<64xf32, #spirv.storage_class<Workgroup>>
  gpu.barrier
  %x = memref.load %a[%i] : memref<64xf32, #spirv.storage_class<Workgroup>>
  gpu.barrier
  %b = memref.alloc() : memref<64xf32, #spirv.storage_class<Workgroup>>
  memref.store %x, %b[%i] : memref<64xf32, #spirv.storage_class<Workgroup>>
  gpu.barrier
  %y = memref.load %b[%i] : memref<64xf32, #spirv.storage_class<Workgroup>>
  return %y : f32
}
// CHECK-LABEL: func.func @spirv
// CHECK:       %shared_alloc = gpu_alloc.alloc "shared_alloc" backing align 16 {gpu_alloc.layout = [{name = "a", offset = 0 : i64, bytes = 256 : i64, {{.*}}}, {name = "b", offset = 0 : i64, bytes = 256 : i64, {{.*}}}]} : memref<256xi8, #spirv.storage_class<Workgroup>>
// CHECK:       %a = memref.view %shared_alloc[%c0][] : memref<256xi8, #spirv.storage_class<Workgroup>> to memref<64xf32, #spirv.storage_class<Workgroup>>
// READ-LABEL:  func.func @spirv
// READ:        memref<256xi8, #spirv.storage_class<Workgroup>>

// -----

// #nvvm.memory_space<shared> in a gpu.func kernel.
gpu.module @nvvm {
  gpu.func @k(%o: memref<64xf32>) kernel {
    %i = gpu.thread_id x
    %v = arith.constant 1.0 : f32
    %a = memref.alloc() : memref<64xf32, #nvvm.memory_space<shared>>
    memref.store %v, %a[%i] : memref<64xf32, #nvvm.memory_space<shared>>
    gpu.barrier
    %x = memref.load %a[%i] : memref<64xf32, #nvvm.memory_space<shared>>
    gpu.barrier
    %b = memref.alloc() : memref<64xf32, #nvvm.memory_space<shared>>
    memref.store %x, %b[%i] : memref<64xf32, #nvvm.memory_space<shared>>
    gpu.barrier
    %y = memref.load %b[%i] : memref<64xf32, #nvvm.memory_space<shared>>
    memref.store %y, %o[%i] : memref<64xf32>
    gpu.return
  }
}
// CHECK:       %shared_alloc = gpu_alloc.alloc "shared_alloc" backing align 16 {{.*}} : memref<256xi8, #nvvm.memory_space<shared>>
// READ:        memref<256xi8, #nvvm.memory_space<shared>>

// -----

// A func.func kernel (`gpu.kernel`, one ML compiler's form) using workgroup globals: both
// become Funcs of one backing, the globals go.
gpu.module @marked {
  memref.global "private" @s1 : memref<64xf32, #gpu.address_space<workgroup>>
  memref.global "private" @s2 : memref<64xf32, #gpu.address_space<workgroup>>
  func.func @k(%o: memref<64xf32>) attributes {gpu.kernel} {
    %i = gpu.thread_id x
    %v = arith.constant 1.0 : f32
    %a = memref.get_global @s1 : memref<64xf32, #gpu.address_space<workgroup>>
    memref.store %v, %a[%i] : memref<64xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %x = memref.load %a[%i] : memref<64xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %b = memref.get_global @s2 : memref<64xf32, #gpu.address_space<workgroup>>
    memref.store %x, %b[%i] : memref<64xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %y = memref.load %b[%i] : memref<64xf32, #gpu.address_space<workgroup>>
    memref.store %y, %o[%i] : memref<64xf32>
    return
  }
}
// CHECK-NOT:   memref.global
// CHECK:       func.func @k(%o: memref<64xf32>) attributes {gpu.kernel} {
// CHECK:       %shared_alloc = gpu_alloc.alloc "shared_alloc" backing align 16 {gpu_alloc.layout = [{name = "s1", offset = 0 : i64, bytes = 256 : i64, {{.*}}}, {name = "s2", offset = 0 : i64, bytes = 256 : i64, {{.*}}}]} : memref<256xi8, #gpu.address_space<workgroup>>

// -----

// An scf.forall mapped to blocks is uniform within a block: its allocations are the
// block's. Each lives for the whole loop (an iteration's `a` is live again after the
// back edge), so the two take 512 bytes.
gpu.module @forall {
  gpu.func @k(%o: memref<64xf32>) kernel {
    %i = gpu.thread_id x
    %v = arith.constant 1.0 : f32
    scf.forall (%bx, %by) in (4, 2) {
      %a = memref.alloc() : memref<64xf32, #gpu.address_space<workgroup>>
      memref.store %v, %a[%i] : memref<64xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %x = memref.load %a[%i] : memref<64xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %b = memref.alloc() : memref<64xf32, #gpu.address_space<workgroup>>
      memref.store %x, %b[%i] : memref<64xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %y = memref.load %b[%i] : memref<64xf32, #gpu.address_space<workgroup>>
      memref.store %y, %o[%i] : memref<64xf32>
    } {mapping = [#gpu.block<y>, #gpu.block<x>]}
    gpu.return
  }
}
// CHECK:       %shared_alloc = gpu_alloc.alloc "shared_alloc" backing align 16 {gpu_alloc.layout = [{name = "a", offset = 0 : i64, bytes = 256 : i64, {{.*}}}, {name = "b", offset = 256 : i64, bytes = 256 : i64, {{.*}}}]} : memref<512xi8, #gpu.address_space<workgroup>>
// CHECK:       "scf.forall"()
// CHECK-NOT:   memref.alloc
// CHECK:       mapping = [#gpu.block<y>, #gpu.block<x>]
