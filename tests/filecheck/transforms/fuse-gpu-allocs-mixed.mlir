// RUN: xdsl-opt %examples/mixed_types.mlir -p 'fuse-gpu-allocs{report=true}' 2>&1 | filecheck %s
// Mixed element types (i8, i16, f32): exact byte sizes, every offset 16-aligned.
// By hand: a 37 B [0,1], b 36 B [0,2], w 80 B [1,2], c 34 B [2,3]. Live together:
// stage 1 a+b+w = 153 B (the max load), stage 2 b+w+c = 150 B. Only a and c may
// share bytes. With 16-byte aligned offsets three Funcs live at stage 1 need at least
// 80 + 48 + 36 = 164 B (the two smaller ones padded), which the packer proves optimal:
// its lower bound is then 164 B.

// CHECK:      kernel @mixed_types: 4 barrier stage(s)
// CHECK-NEXT:   Func             space      bytes   offset  lifetime
// CHECK-NEXT:   a                shared        37 {{ *}}{{[0-9]*(0|16|32|48|64|80|96|112|128|144)}}  [0, 1]
// CHECK-NEXT:   b                shared        36 {{ *}}{{[0-9]*(0|16|32|48|64|80|96|112|128|144)}}  [0, 2]
// CHECK-NEXT:   w                shared        80 {{ *}}{{[0-9]*(0|16|32|48|64|80|96|112|128|144)}}  [1, 2]
// CHECK-NEXT:   c                shared        34 {{ *}}{{[0-9]*(0|16|32|48|64|80|96|112|128|144)}}  [2, 3]
// CHECK-NEXT:   shared backing 'shared_alloc': unfused 187 B, fused 164 B, lower bound 164 B, Halide grouping 176 B (optimal)
// The record gives each Func its bytes and the lifetime above; only a and c share.
// CHECK:      %shared_alloc = gpu_alloc.alloc "shared_alloc" backing align 16 {gpu_alloc.layout = [{name = "w", offset = 0 : i64, bytes = 80 : i64, stages = array<i64: 1, 2>}, {name = "a", offset = 80 : i64, bytes = 37 : i64, stages = array<i64: 0, 1>}, {name = "c", offset = 80 : i64, bytes = 34 : i64, stages = array<i64: 2, 3>}, {name = "b", offset = 128 : i64, bytes = 36 : i64, stages = array<i64: 0, 2>}], gpu_alloc.proven_optimal} : memref<164xi8, 3 : i32>
// CHECK:      %a = gpu_alloc.alias "a" %{{.*}} : !gpu_alloc.ptr<3 : i32> -> memref<37xi8, 3 : i32>
// CHECK:      %b = gpu_alloc.alias "b" %{{.*}} : !gpu_alloc.ptr<3 : i32> -> memref<18xi16, 3 : i32>
// CHECK:      %w = gpu_alloc.alias "w" %{{.*}} : !gpu_alloc.ptr<3 : i32> -> memref<20xf32, 3 : i32>
// CHECK:      %c = gpu_alloc.alias "c" %{{.*}} : !gpu_alloc.ptr<3 : i32> -> memref<17xi16, 3 : i32>
