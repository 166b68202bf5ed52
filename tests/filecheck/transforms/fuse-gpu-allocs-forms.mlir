// RUN: xdsl-opt %s --split-input-file -p 'fuse-gpu-allocs{report=true}' 2>&1 | filecheck %s
// Dynamic sizes, repeated same-name allocations, register collisions, and the
// no-reuse fallback.

// Dynamic sizes: the static allocation b (64 B) comes first at the constant offset
// 0; the dynamic a (n x f32) follows at align_up(64, 16) = 64, computed with arith;
// the backing's size is 64 + 4n bytes. The size computation (%n2 = n * 2) is
// hoisted to the kernel entry with the allocation.
builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (index) -> (), kernel}> ({
    ^bb0(%n: index):
      %c0 = arith.constant 0 : index
      %v = arith.constant 1.0 : f32
      %w = arith.constant 1 : i32
      %b = "gpu_alloc.alloc"() <{name = "b"}> : () -> memref<16xi32, 3 : i32>
      memref.store %w, %b[%c0] : memref<16xi32, 3 : i32>
      %c2 = arith.constant 2 : index
      %n2 = arith.muli %n, %c2 : index
      %a = "gpu_alloc.alloc"(%n2) <{name = "a"}> : (index) -> memref<?xf32, 3 : i32>
      memref.store %v, %a[%c0] : memref<?xf32, 3 : i32>
      "gpu.return"() : () -> ()
    }) {sym_name = "dynamic"} : () -> ()
  }) : () -> ()
}
// CHECK:      kernel @dynamic: 1 barrier stage(s)
// CHECK-NEXT:   Func             space      bytes   offset  lifetime
// CHECK-NEXT:   b                shared        64        0  [0, 0]
// CHECK-NEXT:   a                shared   dynamic  dynamic  [0, 0]
// CHECK-NEXT:   shared backing 'shared_alloc': unfused 64 B, fused 64 B + dynamic
// CHECK:      ^bb0(%n: index):
// CHECK-NEXT:   %c2 = arith.constant 2 : index
// CHECK-NEXT:   %n2 = arith.muli %n, %c2 : index
// CHECK-NEXT:   %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:   %c64 = arith.constant 64 : index
// CHECK-NEXT:   %c15 = arith.constant 15 : index
// CHECK-NEXT:   %[[BUMP:.*]] = arith.addi %c64, %c15 : index
// CHECK-NEXT:   %c16 = arith.constant 16 : index
// CHECK-NEXT:   %[[Q:.*]] = arith.divui %[[BUMP]], %c16 : index
// CHECK-NEXT:   %c16_1 = arith.constant 16 : index
// CHECK-NEXT:   %[[AOFF:.*]] = arith.muli %[[Q]], %c16_1 : index
// CHECK-NEXT:   %c4 = arith.constant 4 : index
// CHECK-NEXT:   %[[ABYTES:.*]] = arith.muli %c4, %n2 : index
// CHECK-NEXT:   %[[TOTAL:.*]] = arith.addi %[[AOFF]], %[[ABYTES]] : index
// CHECK-NEXT:   %shared_alloc = gpu_alloc.alloc "shared_alloc"(%[[TOTAL]]) backing align 16 {gpu_alloc.layout = [{name = "b", offset = 0 : i64, bytes = 64 : i64, stages = array<i64: 0, 0>}]} : memref<?xi8, 3 : i32>
// CHECK-NEXT:   %[[PB:.*]] = gpu_alloc.offset_pointer %shared_alloc[%[[C0]]] : memref<?xi8, 3 : i32> -> !gpu_alloc.ptr<3 : i32>
// CHECK-NEXT:   %b = gpu_alloc.alias "b" %[[PB]] : !gpu_alloc.ptr<3 : i32> -> memref<16xi32, 3 : i32>
// CHECK-NEXT:   %[[PA:.*]] = gpu_alloc.offset_pointer %shared_alloc[%[[AOFF]]] : memref<?xi8, 3 : i32> -> !gpu_alloc.ptr<3 : i32>
// CHECK-NEXT:   %a = gpu_alloc.alias "a" %[[PA]](%n2) : !gpu_alloc.ptr<3 : i32> -> memref<?xf32, 3 : i32>

// -----

// Repeated same-name allocations (an unrolled loop) with disjoint lifetimes merge
// into one slot of the larger size, with one alias per distinct type.
builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = () -> (), kernel}> ({
      %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %v = arith.constant 1 : i32
      %g = "gpu_alloc.alloc"() <{name = "g"}> : () -> memref<8xi32, 3 : i32>
      %p0 = "gpu_alloc.alloc"() <{name = "p"}> : () -> memref<32xi32, 3 : i32>
      memref.store %v, %p0[%t] : memref<32xi32, 3 : i32>
      "gpu.barrier"() : () -> ()
      %x = memref.load %p0[%t] : memref<32xi32, 3 : i32>
      memref.store %x, %g[%t] : memref<8xi32, 3 : i32>
      "gpu.barrier"() : () -> ()
      %p1 = "gpu_alloc.alloc"() <{name = "p"}> : () -> memref<32xi32, 3 : i32>
      memref.store %v, %p1[%t] : memref<32xi32, 3 : i32>
      "gpu.barrier"() : () -> ()
      %y = memref.load %p1[%t] : memref<32xi32, 3 : i32>
      %z = memref.load %g[%t] : memref<8xi32, 3 : i32>
      "gpu.return"() : () -> ()
    }) {sym_name = "repeated"} : () -> ()
  }) : () -> ()
}
// CHECK:      kernel @repeated: 4 barrier stage(s)
// CHECK-NEXT:   Func             space      bytes   offset  lifetime
// CHECK-NEXT:   g                shared        32 {{ *}}{{[0-9]+}}  [1, 3]
// CHECK-NEXT:   p                shared       128 {{ *}}{{[0-9]+}}  [0, 3]
// CHECK-NEXT:   shared backing 'shared_alloc': unfused 160 B, fused 160 B
// CHECK:        %p0 = gpu_alloc.alias "p" %{{.*}} : !gpu_alloc.ptr<3 : i32> -> memref<32xi32, 3 : i32>
// CHECK-NOT:    gpu_alloc.alias "p"
// CHECK:        memref.store %v, %p0[%t] : memref<32xi32, 3 : i32>
// CHECK:        memref.store %v, %p0[%t] : memref<32xi32, 3 : i32>

// -----

// A private allocation named like a block-level one is renamed <name>_reg, and
// private allocations are hoisted out of loops to the kernel entry, never packed.
builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = () -> (), kernel}> ({
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %v = arith.constant 1 : i32
      %f = "gpu_alloc.alloc"() <{name = "f"}> : () -> memref<4xi32, 3 : i32>
      memref.store %v, %f[%c0] : memref<4xi32, 3 : i32>
      scf.for %i = %c0 to %c4 step %c1 {
        %r = "gpu_alloc.alloc"() <{name = "f"}> : () -> memref<4xi32, 5 : i32>
        memref.store %v, %r[%i] : memref<4xi32, 5 : i32>
      }
      "gpu.return"() : () -> ()
    }) {sym_name = "collision"} : () -> ()
  }) : () -> ()
}
// CHECK:      "gpu.func"() <{function_type = () -> (), kernel}> ({
// CHECK-NEXT:   %f = gpu_alloc.alloc "f" : memref<4xi32, 3 : i32>
// CHECK-NEXT:   %r = gpu_alloc.alloc "f_reg" : memref<4xi32, 5 : i32>
// CHECK:        scf.for %i = %c0 to %c4 step %c1 {
// CHECK-NEXT:     memref.store %v, %r[%i] : memref<4xi32, 5 : i32>
// CHECK-NEXT:   }

// -----

// A barrier under thread-dependent control flow: the barrier structure is not
// intact, so nothing is reused, and the report says why.
builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = () -> (), kernel}> ({
      %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %c16 = arith.constant 16 : index
      %v = arith.constant 1 : i32
      %a = "gpu_alloc.alloc"() <{name = "a"}> : () -> memref<8xi32, 3 : i32>
      %b = "gpu_alloc.alloc"() <{name = "b"}> : () -> memref<8xi32, 3 : i32>
      memref.store %v, %a[%t] : memref<8xi32, 3 : i32>
      %lo = arith.cmpi ult, %t, %c16 : index
      scf.if %lo {
        "gpu.barrier"() : () -> ()
      }
      "gpu.barrier"() : () -> ()
      memref.store %v, %b[%t] : memref<8xi32, 3 : i32>
      "gpu.return"() : () -> ()
    }) {sym_name = "broken_barriers"} : () -> ()
  }) : () -> ()
}
// CHECK:      kernel @broken_barriers: 2 barrier stage(s)
// CHECK-NEXT:   no reuse: a gpu.barrier is under thread-dependent control flow (scf.if); every allocation lives for the whole kernel
// CHECK-NEXT:   Func             space      bytes   offset  lifetime
// CHECK-NEXT:   a                shared        32 {{ *}}{{[0-9]+}}  [0, 1]
// CHECK-NEXT:   b                shared        32 {{ *}}{{[0-9]+}}  [0, 1]
// CHECK-NEXT:   shared backing 'shared_alloc': unfused 64 B, fused 64 B

// -----

// A private allocation whose size grows with the loop variable is hoisted to the
// kernel entry and sized for the largest trip: (i + 1) at i = max(n - 1, 0) = n.
builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (index) -> (), kernel}> ({
    ^bb0(%n: index):
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %v = arith.constant 1 : i32
      scf.for %i = %c0 to %n step %c1 {
        %size = arith.addi %i, %c1 : index
        %r = "gpu_alloc.alloc"(%size) <{name = "r"}> : (index) -> memref<?xi32, 5 : i32>
        memref.store %v, %r[%i] : memref<?xi32, 5 : i32>
      }
      "gpu.return"() : () -> ()
    }) {sym_name = "largest_trip"} : () -> ()
  }) : () -> ()
}
// CHECK:      ^bb0(%n: index):
// CHECK-NEXT:   %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT:   %[[UB1:.*]] = arith.subi %n, %[[ONE]] : index
// CHECK-NEXT:   %c0 = arith.constant 0 : index
// CHECK-NEXT:   %[[LAST:.*]] = arith.maxsi %[[UB1]], %c0 : index
// CHECK-NEXT:   %c1 = arith.constant 1 : index
// CHECK-NEXT:   %[[SIZE:.*]] = arith.addi %[[LAST]], %c1 : index
// CHECK-NEXT:   %r = gpu_alloc.alloc "r"(%[[SIZE]]) : memref<?xi32, 5 : i32>
// CHECK-NEXT:   %v = arith.constant 1 : i32
// CHECK-NEXT:   scf.for %i = %c0 to %n step %c1 {
// CHECK-NEXT:     %{{.*}} = arith.addi %i, %c1 : index
// CHECK-NEXT:     memref.store %v, %r[%i] : memref<?xi32, 5 : i32>
// CHECK-NEXT:   }
