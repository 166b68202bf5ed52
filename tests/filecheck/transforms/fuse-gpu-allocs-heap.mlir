// RUN: xdsl-opt %examples/heap_scratch.mlir -p 'fuse-gpu-allocs{report=true}' 2>&1 | filecheck %s
// Heap scratch: h1 [0,1] and h2 [1,2] are both live in stage 1, so each block's backing
// is 512 + 512 = 1024 bytes; the lone shared table s keeps its own allocation.

// CHECK:      kernel @heap_scratch: 3 barrier stage(s)
// CHECK-NEXT:   Func             space      bytes   offset  lifetime
// CHECK-NEXT:   s                shared       128        0  [1, 2]
// CHECK-NEXT:   shared backing 's': unfused 128 B, fused 128 B, lower bound 128 B
// CHECK-NEXT:   h1               heap         512 {{ *}}{{0|512}}  [0, 1]
// CHECK-NEXT:   h2               heap         512 {{ *}}{{512|0}}  [1, 2]
// CHECK-NEXT:   heap backing 'global_alloc': unfused 1024 B, fused 1024 B, lower bound 1024 B
// CHECK:      %s = gpu_alloc.alloc "s" : memref<32xi32, 3 : i32>
// CHECK:      %global_alloc = gpu_alloc.alloc "global_alloc" backing align 16 {gpu_alloc.layout = [{name = "{{h1|h2}}", offset = 0 : i64, bytes = 512 : i64, stages = array<i64: {{0, 1|1, 2}}>}, {name = "{{h2|h1}}", offset = 512 : i64, bytes = 512 : i64, stages = array<i64: {{1, 2|0, 1}}>}]} : memref<1024xi8, 1 : i32>
// CHECK:      %h1 = gpu_alloc.alias "h1"
// CHECK:      %h2 = gpu_alloc.alias "h2"
// The backing is per-block storage, like every space-1 allocation: a static size,
// and no heap contract yet (lower-gpu-allocs writes it).
// CHECK-NOT:  heap_bytes_per_block
// CHECK:      sym_name = "heap_scratch"
