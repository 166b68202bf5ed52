// RUN: xdsl-opt %s -p 'fuse-gpu-allocs,remove-dead-allocs,flatten-aliases' | filecheck %s
// The offload pipeline: the write-only Func `dead` is fused, then removed with its
// store by remove-dead-allocs (its alias goes, the backing stays for `live`; `dead` had
// its top 128 bytes, so the backing shrinks to 128 and its record drops `dead`), then
// the remaining alias is flattened into a view with a re-derived alignment.

builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (memref<32xi32>) -> (), kernel}> ({
    ^bb0(%out: memref<32xi32>):
      %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %v = arith.constant 7 : i32
      %live = "gpu_alloc.alloc"() <{name = "live"}> : () -> memref<32xi32, 3 : i32>
      %dead = "gpu_alloc.alloc"() <{name = "dead"}> : () -> memref<32xi32, 3 : i32>
      memref.store %v, %live[%t] : memref<32xi32, 3 : i32>
      memref.store %v, %dead[%t] : memref<32xi32, 3 : i32>
      "gpu.barrier"() : () -> ()
      %x = memref.load %live[%t] : memref<32xi32, 3 : i32>
      memref.store %x, %out[%t] : memref<32xi32>
      "gpu.return"() : () -> ()
    }) {sym_name = "k"} : () -> ()
  }) : () -> ()
}

// CHECK:      %shared_alloc = gpu_alloc.alloc "shared_alloc" backing align 16 {gpu_alloc.layout = [{name = "live", offset = 0 : i64, bytes = 128 : i64, stages = array<i64: 0, 1>}]} : memref<128xi8, 3 : i32>
// CHECK-NEXT: %live = memref.view %shared_alloc[%{{.*}}][] : memref<128xi8, 3 : i32> to memref<32xi32, 3 : i32>
// CHECK-NOT:  "dead"
// CHECK:      memref.store %v, %live[%t] {alignment = 4 : i64} : memref<32xi32, 3 : i32>
// CHECK-NEXT: "gpu.barrier"() : () -> ()
// CHECK-NEXT: %x = memref.load %live[%t] {alignment = 4 : i64} : memref<32xi32, 3 : i32>
