// examples/heap_scratch.mlir in the flattened form that fuse-gpu-allocs + flatten-aliases
// emit (written by hand, see FUSED_FORM.md): one heap backing for the whole launch,
// each block owning 1024 bytes at linear_block_id * 1024 (h1 at +0, h2 at +512); the
// lone shared allocation `s` keeps its name. A host function launches the kernel on a
// 4x1x1 grid of 128x1x1 blocks.
builtin.module {
  "gpu.module"() <{sym_name = "heap"}> ({
    "gpu.func"() <{function_type = (memref<512xf32>, memref<512xf32>) -> (), kernel}> ({
    ^bb0(%in: memref<512xf32>, %out: memref<512xf32>):
      %gx = "gpu.grid_dim"() <{dimension = #gpu<dim x>}> : () -> index
      %gy = "gpu.grid_dim"() <{dimension = #gpu<dim y>}> : () -> index
      %gz = "gpu.grid_dim"() <{dimension = #gpu<dim z>}> : () -> index
      %gxy = arith.muli %gx, %gy : index
      %nblocks = arith.muli %gxy, %gz : index
      %per_block = arith.constant 1024 : index
      %total = arith.muli %per_block, %nblocks : index
      %global_alloc = gpu_alloc.alloc "global_alloc"(%total) backing align 16 : memref<?xi8, 1 : i32>
      %s = gpu_alloc.alloc "s" : memref<32xi32, 3 : i32>
      %bx0 = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
      %by0 = "gpu.block_id"() <{dimension = #gpu<dim y>}> : () -> index
      %bz0 = "gpu.block_id"() <{dimension = #gpu<dim z>}> : () -> index
      %t0 = arith.muli %gy, %bz0 : index
      %t1 = arith.addi %by0, %t0 : index
      %t2 = arith.muli %gx, %t1 : index
      %bid = arith.addi %bx0, %t2 : index
      %slice = arith.muli %bid, %per_block : index
      %h1 = memref.view %global_alloc[%slice][] : memref<?xi8, 1 : i32> to memref<128xf32, 1 : i32>
      %c512 = arith.constant 512 : index
      %off2 = arith.addi %slice, %c512 : index
      %h2 = memref.view %global_alloc[%off2][] : memref<?xi8, 1 : i32> to memref<128xf32, 1 : i32>
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
    }) {sym_name = "heap_scratch", gpu_alloc.heap_bytes_per_block = 1024 : i64} : () -> ()
  }) : () -> ()
  func.func @run(%in: memref<512xf32>, %out: memref<512xf32>) {
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c128 = arith.constant 128 : index
    "gpu.launch_func"(%c4, %c1, %c1, %c128, %c1, %c1, %in, %out) <{kernel = @heap::@heap_scratch, operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 2, 0>}> : (index, index, index, index, index, index, memref<512xf32>, memref<512xf32>) -> ()
    func.return
  }
}
