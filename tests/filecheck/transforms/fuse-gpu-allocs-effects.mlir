// RUN: xdsl-opt %s --split-input-file -p 'fuse-gpu-allocs{report=true}' 2>&1 >/dev/null | filecheck %s
// What counts as a use of a Func comes from one table (transforms/memory_effects.py).

// Issue 11: two shared Funcs used only through vector.load/vector.store in separate
// barrier stages share bytes (256 B, not 512 B).
builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (memref<64xi32>) -> (), kernel}> ({
    ^bb0(%out: memref<64xi32>):
      %c0 = arith.constant 0 : index
      %c4 = arith.constant 4 : index
      %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %i = arith.muli %t, %c4 : index
      %A = "gpu_alloc.alloc"() <{name = "A"}> : () -> memref<64xi32, 3 : i32>
      %B = "gpu_alloc.alloc"() <{name = "B"}> : () -> memref<64xi32, 3 : i32>
      %v = vector.load %out[%i] : memref<64xi32>, vector<4xi32>
      vector.store %v, %A[%i] : memref<64xi32, 3 : i32>, vector<4xi32>
      "gpu.barrier"() : () -> ()
      %a = vector.load %A[%c0] : memref<64xi32, 3 : i32>, vector<4xi32>
      "gpu.barrier"() : () -> ()
      vector.store %a, %B[%i] : memref<64xi32, 3 : i32>, vector<4xi32>
      "gpu.barrier"() : () -> ()
      %b = vector.load %B[%c0] : memref<64xi32, 3 : i32>, vector<4xi32>
      vector.store %b, %out[%i] : memref<64xi32>, vector<4xi32>
      "gpu.return"() : () -> ()
    }) {sym_name = "vector_stages"} : () -> ()
  }) : () -> ()
}
// CHECK-LABEL: kernel @vector_stages:
// CHECK:         A                shared       256        0  [0, 1]
// CHECK-NEXT:    B                shared       256        0  [2, 3]
// CHECK-NEXT:    shared backing 'shared_alloc': unfused 512 B, fused 256 B

// -----

// An arith.select between two shared buffers is a view of both: A and B live until
// the read through %s in stage 2, so C (stage 1) cannot take their bytes; D (stage 3,
// 512 B) can. If the select were an escape, A and B would live for the whole kernel
// (1024 B); if its result's uses were not followed, C would overlap A (512 B).
builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (memref<64xi32>, i1) -> (), kernel}> ({
    ^bb0(%out: memref<64xi32>, %p: i1):
      %c0 = arith.constant 0 : index
      %one = arith.constant 1 : i32
      %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %A = "gpu_alloc.alloc"() <{name = "A"}> : () -> memref<64xi32, 3 : i32>
      %B = "gpu_alloc.alloc"() <{name = "B"}> : () -> memref<64xi32, 3 : i32>
      %C = "gpu_alloc.alloc"() <{name = "C"}> : () -> memref<64xi32, 3 : i32>
      %D = "gpu_alloc.alloc"() <{name = "D"}> : () -> memref<128xi32, 3 : i32>
      memref.store %one, %A[%t] : memref<64xi32, 3 : i32>
      memref.store %one, %B[%t] : memref<64xi32, 3 : i32>
      %s = arith.select %p, %A, %B : memref<64xi32, 3 : i32>
      "gpu.barrier"() : () -> ()
      memref.store %one, %C[%t] : memref<64xi32, 3 : i32>
      %c = memref.load %C[%t] : memref<64xi32, 3 : i32>
      "gpu.barrier"() : () -> ()
      %x = memref.load %s[%c0] : memref<64xi32, 3 : i32>
      %y = arith.addi %x, %c : i32
      "gpu.barrier"() : () -> ()
      memref.store %y, %D[%t] : memref<128xi32, 3 : i32>
      %d = memref.load %D[%t] : memref<128xi32, 3 : i32>
      memref.store %d, %out[%t] : memref<64xi32>
      "gpu.return"() : () -> ()
    }) {sym_name = "select_of_buffers"} : () -> ()
  }) : () -> ()
}
// CHECK-LABEL: kernel @select_of_buffers:
// CHECK:         A                shared       256 {{ *}}{{[0-9]+}}  [0, 2]
// CHECK-NEXT:    B                shared       256 {{ *}}{{[0-9]+}}  [0, 2]
// CHECK-NEXT:    C                shared       256 {{ *}}{{[0-9]+}}  [1, 1]
// CHECK-NEXT:    D                shared       512 {{ *}}{{[0-9]+}}  [3, 3]
// CHECK-NEXT:    shared backing 'shared_alloc': unfused 1280 B, fused 768 B

// -----

// The same through an scf.if that yields one of two buffers.
builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (memref<64xi32>, i1) -> (), kernel}> ({
    ^bb0(%out: memref<64xi32>, %p: i1):
      %c0 = arith.constant 0 : index
      %one = arith.constant 1 : i32
      %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %A = "gpu_alloc.alloc"() <{name = "A"}> : () -> memref<64xi32, 3 : i32>
      %B = "gpu_alloc.alloc"() <{name = "B"}> : () -> memref<64xi32, 3 : i32>
      %C = "gpu_alloc.alloc"() <{name = "C"}> : () -> memref<64xi32, 3 : i32>
      memref.store %one, %A[%t] : memref<64xi32, 3 : i32>
      memref.store %one, %B[%t] : memref<64xi32, 3 : i32>
      %s = scf.if %p -> (memref<64xi32, 3 : i32>) {
        scf.yield %A : memref<64xi32, 3 : i32>
      } else {
        scf.yield %B : memref<64xi32, 3 : i32>
      }
      "gpu.barrier"() : () -> ()
      memref.store %one, %C[%t] : memref<64xi32, 3 : i32>
      %c = memref.load %C[%t] : memref<64xi32, 3 : i32>
      "gpu.barrier"() : () -> ()
      %x = memref.load %s[%c0] : memref<64xi32, 3 : i32>
      %y = arith.addi %x, %c : i32
      memref.store %y, %out[%t] : memref<64xi32>
      "gpu.return"() : () -> ()
    }) {sym_name = "if_of_buffers"} : () -> ()
  }) : () -> ()
}
// CHECK-LABEL: kernel @if_of_buffers:
// CHECK:         A                shared       256 {{ *}}{{[0-9]+}}  [0, 2]
// CHECK-NEXT:    B                shared       256 {{ *}}{{[0-9]+}}  [0, 2]
// CHECK-NEXT:    C                shared       256 {{ *}}{{[0-9]+}}  [1, 1]
// CHECK-NEXT:    shared backing 'shared_alloc': unfused 768 B, fused 768 B

// -----

// A memref passed to a call escapes: it lives for the whole kernel.
builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    func.func private @use(memref<64xi32, 3 : i32>) -> ()
    "gpu.func"() <{function_type = (memref<64xi32>) -> (), kernel}> ({
    ^bb0(%out: memref<64xi32>):
      %one = arith.constant 1 : i32
      %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %A = "gpu_alloc.alloc"() <{name = "A"}> : () -> memref<64xi32, 3 : i32>
      %B = "gpu_alloc.alloc"() <{name = "B"}> : () -> memref<64xi32, 3 : i32>
      func.call @use(%A) : (memref<64xi32, 3 : i32>) -> ()
      "gpu.barrier"() : () -> ()
      memref.store %one, %B[%t] : memref<64xi32, 3 : i32>
      %b = memref.load %B[%t] : memref<64xi32, 3 : i32>
      memref.store %b, %out[%t] : memref<64xi32>
      "gpu.return"() : () -> ()
    }) {sym_name = "call_escapes"} : () -> ()
  }) : () -> ()
}
// CHECK-LABEL: kernel @call_escapes:
// CHECK:         A                shared       256 {{ *}}{{[0-9]+}}  [0, 1]
// CHECK-NEXT:    B                shared       256 {{ *}}{{[0-9]+}}  [1, 1]
// CHECK-NEXT:    shared backing 'shared_alloc': unfused 512 B, fused 512 B
