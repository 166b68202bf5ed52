// RUN: xdsl-opt %s -p pad-shared-allocs --verify-diagnostics | filecheck %s
// After fuse-gpu-allocs a Func is an alias into a packed backing: padding it would
// break the packing, so the pass refuses (one diagnostic, module unchanged).
builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = () -> (), kernel}> ({
      %c0 = arith.constant 0 : index
      %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %b = "gpu_alloc.alloc"() <{name = "shared_alloc", alignment = 16 : i64}> : () -> memref<4096xi8, 3 : i32>
      %p = "gpu_alloc.offset_pointer"(%b, %c0) : (memref<4096xi8, 3 : i32>, index) -> !gpu_alloc.ptr<3 : i32>
      %tile = "gpu_alloc.alias"(%p) <{name = "tile"}> : (!gpu_alloc.ptr<3 : i32>) -> memref<32x32xf32, 3 : i32>
      %x = memref.load %tile[%t, %c0] : memref<32x32xf32, 3 : i32>
      "gpu.return"() : () -> ()
    }) {sym_name = "fused"} : () -> ()
  }) : () -> ()
}
// CHECK: pad-shared-allocs: shared Func 'tile' of kernel 'fused' needs padding but is already fused; run pad-shared-allocs before fuse-gpu-allocs
