// examples/heap_scratch.mlir in the flattened form that fuse-gpu-allocs + flatten-aliases
// emit (written by hand, see docs/design.md): one per-block heap backing of 1024 bytes
// (h1 at +0, h2 at +512); the lone shared allocation `s` keeps its name. A host
// function launches the kernel on a 4x1x1 grid of 128x1x1 blocks.
builtin.module {
  "gpu.module"() <{sym_name = "heap"}> ({
    "gpu.func"() <{function_type = (memref<512xf32>, memref<512xf32>) -> (), kernel}> ({
    ^bb0(%in: memref<512xf32>, %out: memref<512xf32>):
      %c0 = arith.constant 0 : index
      %c512 = arith.constant 512 : index
      %global_alloc = gpu_alloc.alloc "global_alloc" backing align 16 : memref<1024xi8, 1 : i32>
      %s = gpu_alloc.alloc "s" : memref<32xi32, 3 : i32>
      %h1 = memref.view %global_alloc[%c0][] : memref<1024xi8, 1 : i32> to memref<128xf32, 1 : i32>
      %h2 = memref.view %global_alloc[%c512][] : memref<1024xi8, 1 : i32> to memref<128xf32, 1 : i32>
      %c32 = arith.constant 32 : index
      %c127 = arith.constant 127 : index
      %c128 = arith.constant 128 : index
      %two = arith.constant 2.0 : f32
      %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
      %base = arith.muli %bx, %c128 : index
      %gi = arith.addi %base, %t : index
      %v = memref.load %in[%gi] : memref<512xf32>
      %v2 = arith.mulf %v, %two : f32
      memref.store %v2, %h1[%t] {alignment = 4 : i64} : memref<128xf32, 1 : i32>
      "gpu.barrier"() : () -> ()
      %r = arith.subi %c127, %t : index
      %a = memref.load %h1[%t] {alignment = 4 : i64} : memref<128xf32, 1 : i32>
      %b = memref.load %h1[%r] {alignment = 4 : i64} : memref<128xf32, 1 : i32>
      %ab = arith.addf %a, %b : f32
      memref.store %ab, %h2[%t] {alignment = 4 : i64} : memref<128xf32, 1 : i32>
      %lane = arith.remui %t, %c32 : index
      %first_warp = arith.cmpi ult, %t, %c32 : index
      scf.if %first_warp {
        %ti = arith.index_cast %t : index to i32
        %ti3 = arith.muli %ti, %ti : i32
        memref.store %ti3, %s[%t] : memref<32xi32, 3 : i32>
      }
      "gpu.barrier"() : () -> ()
      %h = memref.load %h2[%t] {alignment = 4 : i64} : memref<128xf32, 1 : i32>
      %k = memref.load %s[%lane] : memref<32xi32, 3 : i32>
      %kf = arith.sitofp %k : i32 to f32
      %o = arith.addf %h, %kf : f32
      memref.store %o, %out[%gi] : memref<512xf32>
      "gpu.return"() : () -> ()
    }) {sym_name = "heap_scratch"} : () -> ()
  }) : () -> ()
  func.func @run(%in: memref<512xf32>, %out: memref<512xf32>) {
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c128 = arith.constant 128 : index
    "gpu.launch_func"(%c4, %c1, %c1, %c128, %c1, %c1, %in, %out) <{kernel = @heap::@heap_scratch, operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 2, 0>}> : (index, index, index, index, index, index, memref<512xf32>, memref<512xf32>) -> ()
    func.return
  }
}
