// RUN: xdsl-opt %s --split-input-file -p 'fuse-gpu-allocs{report=true}' 2>&1 >/dev/null | filecheck %s
// A barrier separates X (last read before the construct) from Y (first written after
// it) only if every path through the block-uniform control flow crosses a barrier.
// 256 B: X and Y share bytes; 512 B: they do not.

// if_one_branch: a barrier in the then branch only: with %n <= 5 the read of X and the write
// of Y meet in one barrier interval, so X and Y must not share bytes (issue 10, 1).
builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (memref<64xi32>, index) -> (), kernel}> ({
    ^bb0(%out: memref<64xi32>, %n: index):
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c5 = arith.constant 5 : index
      %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %X = "gpu_alloc.alloc"() <{name = "X"}> : () -> memref<64xi32, 3 : i32>
      %Y = "gpu_alloc.alloc"() <{name = "Y"}> : () -> memref<64xi32, 3 : i32>
      %ti = arith.index_cast %t : index to i32
      memref.store %ti, %X[%t] : memref<64xi32, 3 : i32>
      "gpu.barrier"() : () -> ()
      %x = memref.load %X[%c0] : memref<64xi32, 3 : i32>
      %cond = arith.cmpi ugt, %n, %c5 : index
      scf.if %cond {
        "gpu.barrier"() : () -> ()
      } else {
        %unused = arith.addi %n, %c1 : index
      }
      memref.store %x, %Y[%t] : memref<64xi32, 3 : i32>
      "gpu.barrier"() : () -> ()
      %y = memref.load %Y[%c0] : memref<64xi32, 3 : i32>
      memref.store %y, %out[%t] : memref<64xi32>
      "gpu.return"() : () -> ()
    }) {sym_name = "if_one_branch"} : () -> ()
  }) : () -> ()
}
// CHECK-LABEL: kernel @if_one_branch:
// CHECK:       shared backing 'shared_alloc': unfused 512 B, fused 512 B

// -----

// if_no_else: a barrier in an scf.if without else: the path around it has no barrier.
builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (memref<64xi32>, index) -> (), kernel}> ({
    ^bb0(%out: memref<64xi32>, %n: index):
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c5 = arith.constant 5 : index
      %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %X = "gpu_alloc.alloc"() <{name = "X"}> : () -> memref<64xi32, 3 : i32>
      %Y = "gpu_alloc.alloc"() <{name = "Y"}> : () -> memref<64xi32, 3 : i32>
      %ti = arith.index_cast %t : index to i32
      memref.store %ti, %X[%t] : memref<64xi32, 3 : i32>
      "gpu.barrier"() : () -> ()
      %x = memref.load %X[%c0] : memref<64xi32, 3 : i32>
      %cond = arith.cmpi ugt, %n, %c5 : index
      scf.if %cond {
        "gpu.barrier"() : () -> ()
      }
      memref.store %x, %Y[%t] : memref<64xi32, 3 : i32>
      "gpu.barrier"() : () -> ()
      %y = memref.load %Y[%c0] : memref<64xi32, 3 : i32>
      memref.store %y, %out[%t] : memref<64xi32>
      "gpu.return"() : () -> ()
    }) {sym_name = "if_no_else"} : () -> ()
  }) : () -> ()
}
// CHECK-LABEL: kernel @if_no_else:
// CHECK:       shared backing 'shared_alloc': unfused 512 B, fused 512 B

// -----

// if_both_branches: a barrier in both branches: every path crosses one, so X and Y share bytes.
builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (memref<64xi32>, index) -> (), kernel}> ({
    ^bb0(%out: memref<64xi32>, %n: index):
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c5 = arith.constant 5 : index
      %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %X = "gpu_alloc.alloc"() <{name = "X"}> : () -> memref<64xi32, 3 : i32>
      %Y = "gpu_alloc.alloc"() <{name = "Y"}> : () -> memref<64xi32, 3 : i32>
      %ti = arith.index_cast %t : index to i32
      memref.store %ti, %X[%t] : memref<64xi32, 3 : i32>
      "gpu.barrier"() : () -> ()
      %x = memref.load %X[%c0] : memref<64xi32, 3 : i32>
      %cond = arith.cmpi ugt, %n, %c5 : index
      scf.if %cond {
        "gpu.barrier"() : () -> ()
      } else {
        "gpu.barrier"() : () -> ()
      }
      memref.store %x, %Y[%t] : memref<64xi32, 3 : i32>
      "gpu.barrier"() : () -> ()
      %y = memref.load %Y[%c0] : memref<64xi32, 3 : i32>
      memref.store %y, %out[%t] : memref<64xi32>
      "gpu.return"() : () -> ()
    }) {sym_name = "if_both_branches"} : () -> ()
  }) : () -> ()
}
// CHECK-LABEL: kernel @if_both_branches:
// CHECK:       shared backing 'shared_alloc': unfused 512 B, fused 256 B

// -----

// for_two_trips: a loop with constant bounds 0 to 2 runs at least once: its barrier separates.
builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (memref<64xi32>, index) -> (), kernel}> ({
    ^bb0(%out: memref<64xi32>, %n: index):
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c5 = arith.constant 5 : index
      %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %X = "gpu_alloc.alloc"() <{name = "X"}> : () -> memref<64xi32, 3 : i32>
      %Y = "gpu_alloc.alloc"() <{name = "Y"}> : () -> memref<64xi32, 3 : i32>
      %ti = arith.index_cast %t : index to i32
      memref.store %ti, %X[%t] : memref<64xi32, 3 : i32>
      "gpu.barrier"() : () -> ()
      %x = memref.load %X[%c0] : memref<64xi32, 3 : i32>
      %cond = arith.cmpi ugt, %n, %c5 : index
      scf.for %i = %c0 to %c2 step %c1 {
        "gpu.barrier"() : () -> ()
      }
      memref.store %x, %Y[%t] : memref<64xi32, 3 : i32>
      "gpu.barrier"() : () -> ()
      %y = memref.load %Y[%c0] : memref<64xi32, 3 : i32>
      memref.store %y, %out[%t] : memref<64xi32>
      "gpu.return"() : () -> ()
    }) {sym_name = "for_two_trips"} : () -> ()
  }) : () -> ()
}
// CHECK-LABEL: kernel @for_two_trips:
// CHECK:       shared backing 'shared_alloc': unfused 512 B, fused 256 B

// -----

// for_zero_trips: constant bounds 0 to 0: the loop never runs, its barrier never separates.
builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (memref<64xi32>, index) -> (), kernel}> ({
    ^bb0(%out: memref<64xi32>, %n: index):
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c5 = arith.constant 5 : index
      %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %X = "gpu_alloc.alloc"() <{name = "X"}> : () -> memref<64xi32, 3 : i32>
      %Y = "gpu_alloc.alloc"() <{name = "Y"}> : () -> memref<64xi32, 3 : i32>
      %ti = arith.index_cast %t : index to i32
      memref.store %ti, %X[%t] : memref<64xi32, 3 : i32>
      "gpu.barrier"() : () -> ()
      %x = memref.load %X[%c0] : memref<64xi32, 3 : i32>
      %cond = arith.cmpi ugt, %n, %c5 : index
      scf.for %i = %c0 to %c0 step %c1 {
        "gpu.barrier"() : () -> ()
      }
      memref.store %x, %Y[%t] : memref<64xi32, 3 : i32>
      "gpu.barrier"() : () -> ()
      %y = memref.load %Y[%c0] : memref<64xi32, 3 : i32>
      memref.store %y, %out[%t] : memref<64xi32>
      "gpu.return"() : () -> ()
    }) {sym_name = "for_zero_trips"} : () -> ()
  }) : () -> ()
}
// CHECK-LABEL: kernel @for_zero_trips:
// CHECK:       shared backing 'shared_alloc': unfused 512 B, fused 512 B

// -----

// for_dynamic_trips: bounds from a kernel argument: with %n = 0 no barrier runs (issue 10, 2).
builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (memref<64xi32>, index) -> (), kernel}> ({
    ^bb0(%out: memref<64xi32>, %n: index):
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c5 = arith.constant 5 : index
      %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %X = "gpu_alloc.alloc"() <{name = "X"}> : () -> memref<64xi32, 3 : i32>
      %Y = "gpu_alloc.alloc"() <{name = "Y"}> : () -> memref<64xi32, 3 : i32>
      %ti = arith.index_cast %t : index to i32
      memref.store %ti, %X[%t] : memref<64xi32, 3 : i32>
      "gpu.barrier"() : () -> ()
      %x = memref.load %X[%c0] : memref<64xi32, 3 : i32>
      %cond = arith.cmpi ugt, %n, %c5 : index
      scf.for %i = %c0 to %n step %c1 {
        "gpu.barrier"() : () -> ()
      }
      memref.store %x, %Y[%t] : memref<64xi32, 3 : i32>
      "gpu.barrier"() : () -> ()
      %y = memref.load %Y[%c0] : memref<64xi32, 3 : i32>
      memref.store %y, %out[%t] : memref<64xi32>
      "gpu.return"() : () -> ()
    }) {sym_name = "for_dynamic_trips"} : () -> ()
  }) : () -> ()
}
// CHECK-LABEL: kernel @for_dynamic_trips:
// CHECK:       shared backing 'shared_alloc': unfused 512 B, fused 512 B

// -----

// while_before: a barrier in an scf.while's "before" region, which always runs once.
builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (memref<64xi32>, index) -> (), kernel}> ({
    ^bb0(%out: memref<64xi32>, %n: index):
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c5 = arith.constant 5 : index
      %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %X = "gpu_alloc.alloc"() <{name = "X"}> : () -> memref<64xi32, 3 : i32>
      %Y = "gpu_alloc.alloc"() <{name = "Y"}> : () -> memref<64xi32, 3 : i32>
      %ti = arith.index_cast %t : index to i32
      memref.store %ti, %X[%t] : memref<64xi32, 3 : i32>
      "gpu.barrier"() : () -> ()
      %x = memref.load %X[%c0] : memref<64xi32, 3 : i32>
      %cond = arith.cmpi ugt, %n, %c5 : index
      %w = scf.while (%k = %c0) : (index) -> index {
        "gpu.barrier"() : () -> ()
        %more = arith.cmpi ult, %k, %n : index
        scf.condition(%more) %k : index
      } do {
      ^bb0(%k2: index):
        %next = arith.addi %k2, %c1 : index
        scf.yield %next : index
      }
      memref.store %x, %Y[%t] : memref<64xi32, 3 : i32>
      "gpu.barrier"() : () -> ()
      %y = memref.load %Y[%c0] : memref<64xi32, 3 : i32>
      memref.store %y, %out[%t] : memref<64xi32>
      "gpu.return"() : () -> ()
    }) {sym_name = "while_before"} : () -> ()
  }) : () -> ()
}
// CHECK-LABEL: kernel @while_before:
// CHECK:       shared backing 'shared_alloc': unfused 512 B, fused 256 B

// -----

// while_after: a barrier in the "after" region only, which may run zero times.
builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (memref<64xi32>, index) -> (), kernel}> ({
    ^bb0(%out: memref<64xi32>, %n: index):
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c5 = arith.constant 5 : index
      %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %X = "gpu_alloc.alloc"() <{name = "X"}> : () -> memref<64xi32, 3 : i32>
      %Y = "gpu_alloc.alloc"() <{name = "Y"}> : () -> memref<64xi32, 3 : i32>
      %ti = arith.index_cast %t : index to i32
      memref.store %ti, %X[%t] : memref<64xi32, 3 : i32>
      "gpu.barrier"() : () -> ()
      %x = memref.load %X[%c0] : memref<64xi32, 3 : i32>
      %cond = arith.cmpi ugt, %n, %c5 : index
      %w = scf.while (%k = %c0) : (index) -> index {
        %more = arith.cmpi ult, %k, %n : index
        scf.condition(%more) %k : index
      } do {
      ^bb0(%k2: index):
        "gpu.barrier"() : () -> ()
        %next = arith.addi %k2, %c1 : index
        scf.yield %next : index
      }
      memref.store %x, %Y[%t] : memref<64xi32, 3 : i32>
      "gpu.barrier"() : () -> ()
      %y = memref.load %Y[%c0] : memref<64xi32, 3 : i32>
      memref.store %y, %out[%t] : memref<64xi32>
      "gpu.return"() : () -> ()
    }) {sym_name = "while_after"} : () -> ()
  }) : () -> ()
}
// CHECK-LABEL: kernel @while_after:
// CHECK:       shared backing 'shared_alloc': unfused 512 B, fused 512 B

// -----

// nested_both: an scf.if whose branches each hold a loop that runs at least once and
// ends with a barrier: every path crosses a barrier.
builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (memref<64xi32>, index) -> (), kernel}> ({
    ^bb0(%out: memref<64xi32>, %n: index):
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c5 = arith.constant 5 : index
      %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %X = "gpu_alloc.alloc"() <{name = "X"}> : () -> memref<64xi32, 3 : i32>
      %Y = "gpu_alloc.alloc"() <{name = "Y"}> : () -> memref<64xi32, 3 : i32>
      %ti = arith.index_cast %t : index to i32
      memref.store %ti, %X[%t] : memref<64xi32, 3 : i32>
      "gpu.barrier"() : () -> ()
      %x = memref.load %X[%c0] : memref<64xi32, 3 : i32>
      %cond = arith.cmpi ugt, %n, %c5 : index
      scf.if %cond {
        scf.for %i = %c0 to %c2 step %c1 {
          "gpu.barrier"() : () -> ()
        }
      } else {
        scf.for %i = %c1 to %c2 step %c1 {
          "gpu.barrier"() : () -> ()
        }
      }
      memref.store %x, %Y[%t] : memref<64xi32, 3 : i32>
      "gpu.barrier"() : () -> ()
      %y = memref.load %Y[%c0] : memref<64xi32, 3 : i32>
      memref.store %y, %out[%t] : memref<64xi32>
      "gpu.return"() : () -> ()
    }) {sym_name = "nested_both"} : () -> ()
  }) : () -> ()
}
// CHECK-LABEL: kernel @nested_both:
// CHECK:       shared backing 'shared_alloc': unfused 512 B, fused 256 B
