// RUN: xdsl-opt %s --split-input-file -p 'fuse-gpu-allocs{report=true}' 2>&1 | filecheck %s
// RUN: xdsl-opt %s --split-input-file -p 'fuse-gpu-allocs{report=true alignment=1}' 2>&1 | filecheck %s --check-prefix=ALIGN1
// Regression tests for Halide's bugs 7.1 (loop-carried reuse) and 7.2 (floor division).

// 7.1: X is computed before a block-level loop with barriers and read inside it;
// Y is computed later in the same loop body. Halide gives X [0,1] and Y [2,3] and
// lets them share bytes; iteration 1 then reads a clobbered X. X must live for the
// whole loop (stages 1..3), so X and Y never share bytes.
builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (memref<64xf32>) -> (), kernel}> ({
    ^bb0(%out: memref<64xf32>):
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %one = arith.constant 1.0 : f32
      %X = "gpu_alloc.alloc"() <{name = "X"}> : () -> memref<64xf32, 3 : i32>
      %Z = "gpu_alloc.alloc"() <{name = "Z"}> : () -> memref<64xf32, 3 : i32>
      %Y = "gpu_alloc.alloc"() <{name = "Y"}> : () -> memref<64xf32, 3 : i32>
      memref.store %one, %X[%t] : memref<64xf32, 3 : i32>
      "gpu.barrier"() : () -> ()
      scf.for %i = %c0 to %c4 step %c1 {
        %x = memref.load %X[%t] : memref<64xf32, 3 : i32>
        memref.store %x, %Z[%t] : memref<64xf32, 3 : i32>
        "gpu.barrier"() : () -> ()
        %z = memref.load %Z[%t] : memref<64xf32, 3 : i32>
        memref.store %z, %Y[%t] : memref<64xf32, 3 : i32>
        "gpu.barrier"() : () -> ()
        %y = memref.load %Y[%t] : memref<64xf32, 3 : i32>
        memref.store %y, %out[%t] : memref<64xf32>
        "gpu.barrier"() : () -> ()
      }
      "gpu.return"() : () -> ()
    }) {sym_name = "serial_loop_reuse"} : () -> ()
  }) : () -> ()
}
// CHECK:      kernel @serial_loop_reuse: 5 barrier stage(s)
// CHECK-NEXT:   Func             space      bytes   offset  lifetime
// CHECK-NEXT:   X                shared       256 {{ *}}{{[0-9]+}}  [0, 3]
// CHECK-NEXT:   Z                shared       256 {{ *}}{{[0-9]+}}  [1, 3]
// CHECK-NEXT:   Y                shared       256 {{ *}}{{[0-9]+}}  [1, 3]
// CHECK-NEXT:   shared backing 'shared_alloc': unfused 768 B, fused 768 B, lower bound 768 B

// -----

// 7.1, the per-iteration form: Z, W and Y are allocated inside the loop body and a
// barrier closes the back edge, so one iteration's lifetimes are Z [1,2], W [2,3],
// Y [3,4]: Z and Y may share bytes. X (made before the loop, read in it) still
// spans the loop. 3 x 256 = 768 bytes instead of 1024.
builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (memref<64xf32>) -> (), kernel}> ({
    ^bb0(%out: memref<64xf32>):
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %one = arith.constant 1.0 : f32
      %X = "gpu_alloc.alloc"() <{name = "X"}> : () -> memref<64xf32, 3 : i32>
      memref.store %one, %X[%t] : memref<64xf32, 3 : i32>
      "gpu.barrier"() : () -> ()
      scf.for %i = %c0 to %c4 step %c1 {
        %Z = "gpu_alloc.alloc"() <{name = "Z"}> : () -> memref<64xf32, 3 : i32>
        %W = "gpu_alloc.alloc"() <{name = "W"}> : () -> memref<64xf32, 3 : i32>
        %Y = "gpu_alloc.alloc"() <{name = "Y"}> : () -> memref<64xf32, 3 : i32>
        %x = memref.load %X[%t] : memref<64xf32, 3 : i32>
        memref.store %x, %Z[%t] : memref<64xf32, 3 : i32>
        "gpu.barrier"() : () -> ()
        %z = memref.load %Z[%t] : memref<64xf32, 3 : i32>
        memref.store %z, %W[%t] : memref<64xf32, 3 : i32>
        "gpu.barrier"() : () -> ()
        %w = memref.load %W[%t] : memref<64xf32, 3 : i32>
        memref.store %w, %Y[%t] : memref<64xf32, 3 : i32>
        "gpu.barrier"() : () -> ()
        %y = memref.load %Y[%t] : memref<64xf32, 3 : i32>
        memref.store %y, %out[%t] : memref<64xf32>
        "gpu.barrier"() : () -> ()
      }
      "gpu.return"() : () -> ()
    }) {sym_name = "per_iteration"} : () -> ()
  }) : () -> ()
}
// CHECK:      kernel @per_iteration: 6 barrier stage(s)
// CHECK-NEXT:   Func             space      bytes   offset  lifetime
// CHECK-NEXT:   X                shared       256 {{ *}}{{[0-9]+}}  [0, 4]
// CHECK-NEXT:   Z                shared       256 {{ *}}[[ZOFF:[0-9]+]]  [1, 2]
// CHECK-NEXT:   W                shared       256 {{ *}}{{[0-9]+}}  [2, 3]
// CHECK-NEXT:   Y                shared       256 {{ *}}[[ZOFF]]  [3, 4]
// CHECK-NEXT:   shared backing 'shared_alloc': unfused 1024 B, fused 768 B, lower bound 768 B

// -----

// The same without a barrier on the back edge: iteration i's Y (last stage) and
// iteration i+1's Z (first stage) run in one barrier interval, so nothing made
// in the loop may share bytes: every Func lives for the whole loop.
builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (memref<64xf32>) -> (), kernel}> ({
    ^bb0(%out: memref<64xf32>):
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      scf.for %i = %c0 to %c4 step %c1 {
        %Z = "gpu_alloc.alloc"() <{name = "Z"}> : () -> memref<64xf32, 3 : i32>
        %W = "gpu_alloc.alloc"() <{name = "W"}> : () -> memref<64xf32, 3 : i32>
        %Y = "gpu_alloc.alloc"() <{name = "Y"}> : () -> memref<64xf32, 3 : i32>
        %x = memref.load %out[%t] : memref<64xf32>
        memref.store %x, %Z[%t] : memref<64xf32, 3 : i32>
        "gpu.barrier"() : () -> ()
        %z = memref.load %Z[%t] : memref<64xf32, 3 : i32>
        memref.store %z, %W[%t] : memref<64xf32, 3 : i32>
        "gpu.barrier"() : () -> ()
        %w = memref.load %W[%t] : memref<64xf32, 3 : i32>
        memref.store %w, %Y[%t] : memref<64xf32, 3 : i32>
        "gpu.barrier"() : () -> ()
        %y = memref.load %Y[%t] : memref<64xf32, 3 : i32>
        memref.store %y, %out[%t] : memref<64xf32>
      }
      "gpu.return"() : () -> ()
    }) {sym_name = "no_back_edge_barrier"} : () -> ()
  }) : () -> ()
}
// CHECK:      kernel @no_back_edge_barrier: 4 barrier stage(s)
// CHECK-NEXT:   Func             space      bytes   offset  lifetime
// CHECK-NEXT:   Z                shared       256 {{ *}}{{[0-9]+}}  [0, 3]
// CHECK-NEXT:   W                shared       256 {{ *}}{{[0-9]+}}  [0, 3]
// CHECK-NEXT:   Y                shared       256 {{ *}}{{[0-9]+}}  [0, 3]
// CHECK-NEXT:   shared backing 'shared_alloc': unfused 768 B, fused 768 B, lower bound 768 B

// -----

// 7.2: a (i8 x 37) [0,1], b (i16 x 18) [1,2], c (i16 x 17) [2,3] reusing a's slot.
// Halide sizes the {a, c} slot as max(37/2, 17) = 18 i16 = 36 bytes and puts b at
// byte 36 while a still uses byte 36. Here sizes are exact bytes: a 37, b 36, c 34.
// With 16-byte alignment: a at 0 and b at 48 (or b at 0 and a at 48): 84 bytes is
// the smallest aligned layout (the max load 73 cannot be reached): the lower bound
// counts the padding (whichever of a and b is higher starts at 48 or above).
// With alignment=1 (element alignment only): b at 0..36, a at 36..73: 73 bytes.
builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = () -> (), kernel}> ({
      %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %v8 = arith.constant 1 : i8
      %v16 = arith.constant 2 : i16
      %a = "gpu_alloc.alloc"() <{name = "a"}> : () -> memref<37xi8, 3 : i32>
      %b = "gpu_alloc.alloc"() <{name = "b"}> : () -> memref<18xi16, 3 : i32>
      %c = "gpu_alloc.alloc"() <{name = "c"}> : () -> memref<17xi16, 3 : i32>
      memref.store %v8, %a[%t] : memref<37xi8, 3 : i32>
      "gpu.barrier"() : () -> ()
      %x = memref.load %a[%t] : memref<37xi8, 3 : i32>
      memref.store %v16, %b[%t] : memref<18xi16, 3 : i32>
      "gpu.barrier"() : () -> ()
      %y = memref.load %b[%t] : memref<18xi16, 3 : i32>
      memref.store %y, %c[%t] : memref<17xi16, 3 : i32>
      "gpu.barrier"() : () -> ()
      %z = memref.load %c[%t] : memref<17xi16, 3 : i32>
      "gpu.return"() : () -> ()
    }) {sym_name = "narrow_then_wide"} : () -> ()
  }) : () -> ()
}
// CHECK:      kernel @narrow_then_wide: 4 barrier stage(s)
// CHECK-NEXT:   Func             space      bytes   offset  lifetime
// CHECK-NEXT:   a                shared        37 {{ *}}{{0|48}}  [0, 1]
// CHECK-NEXT:   b                shared        36 {{ *}}{{48|0}}  [1, 2]
// CHECK-NEXT:   c                shared        34 {{ *}}{{[0-9]+}}  [2, 3]
// CHECK-NEXT:   shared backing 'shared_alloc': unfused 107 B, fused 84 B, lower bound 84 B
// ALIGN1:      kernel @narrow_then_wide: 4 barrier stage(s)
// ALIGN1-NEXT:   Func             space      bytes   offset  lifetime
// ALIGN1-NEXT:   a                shared        37       36  [0, 1]
// ALIGN1-NEXT:   b                shared        36        0  [1, 2]
// ALIGN1-NEXT:   c                shared        34       {{36|38}}  [2, 3]
// ALIGN1-NEXT:   shared backing 'shared_alloc': unfused 107 B, fused 73 B, lower bound 73 B, Halide grouping {{[0-9]+}} B (optimal)
