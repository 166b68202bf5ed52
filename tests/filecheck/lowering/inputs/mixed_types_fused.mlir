// examples/mixed_types.mlir in a flattened form (written by hand, see docs/design.md):
// b at 0, w at 48, a and c both at 128 (a dies before c is written): 165 bytes.
// Mixed element types in shared memory (Halide pitfall 7.2's shape, plus an f32).
// Block size 64 threads (x); grid 4 (x). Per block:
//   stage 0: a (i8 x 37)  = in8[...];  b (i16 x 18) = in16[...]
//   stage 1: w (f32 x 20) = a + b      (a's last use)
//   stage 2: c (i16 x 17) = b + w      (c may reuse a's bytes, never b's or w's)
//   stage 3: out = c
// Lifetimes: a [0,1], b [0,2], w [1,2], c [2,3].
builtin.module {
  "gpu.module"() <{sym_name = "mixed"}> ({
    "gpu.func"() <{function_type = (memref<148xi8>, memref<72xi16>, memref<68xi16>) -> (), kernel}> ({
    ^bb0(%in8: memref<148xi8>, %in16: memref<72xi16>, %out: memref<68xi16>):
      %shared_alloc = gpu_alloc.alloc "shared_alloc" backing align 16 : memref<165xi8, 3 : i32>
      %c0 = arith.constant 0 : index
      %b = memref.view %shared_alloc[%c0][] : memref<165xi8, 3 : i32> to memref<18xi16, 3 : i32>
      %c48 = arith.constant 48 : index
      %w = memref.view %shared_alloc[%c48][] : memref<165xi8, 3 : i32> to memref<20xf32, 3 : i32>
      %c128 = arith.constant 128 : index
      %a = memref.view %shared_alloc[%c128][] : memref<165xi8, 3 : i32> to memref<37xi8, 3 : i32>
      %c = memref.view %shared_alloc[%c128][] : memref<165xi8, 3 : i32> to memref<17xi16, 3 : i32>
      %c17 = arith.constant 17 : index
      %c18 = arith.constant 18 : index
      %c20 = arith.constant 20 : index
      %c37 = arith.constant 37 : index
      %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
      // stage 0
      %ina = arith.cmpi ult, %t, %c37 : index
      scf.if %ina {
        %base = arith.muli %bx, %c37 : index
        %i = arith.addi %base, %t : index
        %v = memref.load %in8[%i] : memref<148xi8>
        memref.store %v, %a[%t] {alignment = 1 : i64} : memref<37xi8, 3 : i32>
      }
      %inb = arith.cmpi ult, %t, %c18 : index
      scf.if %inb {
        %base = arith.muli %bx, %c18 : index
        %i = arith.addi %base, %t : index
        %v = memref.load %in16[%i] : memref<72xi16>
        memref.store %v, %b[%t] {alignment = 2 : i64} : memref<18xi16, 3 : i32>
      }
      "gpu.barrier"() : () -> ()
      // stage 1: w[t] = a[t] + a[t + 17] + b[t % 18]
      %inw = arith.cmpi ult, %t, %c20 : index
      scf.if %inw {
        %t17 = arith.addi %t, %c17 : index
        %x = memref.load %a[%t] {alignment = 1 : i64} : memref<37xi8, 3 : i32>
        %y = memref.load %a[%t17] {alignment = 1 : i64} : memref<37xi8, 3 : i32>
        %tb = arith.remui %t, %c18 : index
        %z = memref.load %b[%tb] {alignment = 2 : i64} : memref<18xi16, 3 : i32>
        %xf = arith.sitofp %x : i8 to f32
        %yf = arith.sitofp %y : i8 to f32
        %zf = arith.sitofp %z : i16 to f32
        %s0 = arith.addf %xf, %yf : f32
        %s1 = arith.addf %s0, %zf : f32
        memref.store %s1, %w[%t] {alignment = 4 : i64} : memref<20xf32, 3 : i32>
      }
      "gpu.barrier"() : () -> ()
      // stage 2: c[t] = b[t] + int(w[t])
      %inc = arith.cmpi ult, %t, %c17 : index
      scf.if %inc {
        %x = memref.load %b[%t] {alignment = 2 : i64} : memref<18xi16, 3 : i32>
        %y = memref.load %w[%t] {alignment = 4 : i64} : memref<20xf32, 3 : i32>
        %yi = arith.fptosi %y : f32 to i16
        %s = arith.addi %x, %yi : i16
        memref.store %s, %c[%t] {alignment = 2 : i64} : memref<17xi16, 3 : i32>
      }
      "gpu.barrier"() : () -> ()
      // stage 3: out = c
      scf.if %inc {
        %base = arith.muli %bx, %c17 : index
        %i = arith.addi %base, %t : index
        %v = memref.load %c[%t] {alignment = 2 : i64} : memref<17xi16, 3 : i32>
        memref.store %v, %out[%i] : memref<68xi16>
      }
      "gpu.return"() : () -> ()
    }) {sym_name = "mixed_types"} : () -> ()
  }) : () -> ()
}
