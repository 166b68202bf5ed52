// A gpu.func kernel spelling workgroup memory #spirv.storage_class<Workgroup> (an
// allocation and an attribution) and a func.func kernel marked gpu.kernel using a
// workgroup global; each pair of 64 x f32 Funcs shares offset 0 after fusion.
module attributes {gpu.container_module} {
gpu.module @m {
  gpu.func @spelled(%o: memref<64xf32>) workgroup(%w: memref<64xf32, #spirv.storage_class<Workgroup>>) kernel {
    %i = gpu.thread_id x
    %v = arith.constant 1.0 : f32
    %a = memref.alloc() : memref<64xf32, #spirv.storage_class<Workgroup>>
    memref.store %v, %a[%i] : memref<64xf32, #spirv.storage_class<Workgroup>>
    gpu.barrier
    %x = memref.load %a[%i] : memref<64xf32, #spirv.storage_class<Workgroup>>
    gpu.barrier
    memref.store %x, %w[%i] : memref<64xf32, #spirv.storage_class<Workgroup>>
    gpu.barrier
    %y = memref.load %w[%i] : memref<64xf32, #spirv.storage_class<Workgroup>>
    memref.store %y, %o[%i] : memref<64xf32>
    gpu.return
  }
  memref.global "private" @s1 : memref<64xf32, #gpu.address_space<workgroup>>
  memref.global "private" @s2 : memref<64xf32, #gpu.address_space<workgroup>>
  func.func @marked(%o: memref<64xf32>) attributes {gpu.kernel} {
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
}
