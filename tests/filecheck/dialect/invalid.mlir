// RUN: xdsl-opt %s --verify-diagnostics --split-input-file | filecheck %s
// Every verifier of the gpu_alloc dialect, one case each.

%a = "gpu_alloc.alloc"() <{name = "f"}> : () -> memref<16xf32>
// CHECK: gpu_alloc.alloc result must be a memref in memory space 1 (global), 3 (shared) or 5 (private), got memref<16xf32>

// -----

%a = "gpu_alloc.alloc"() <{name = "f"}> : () -> memref<16xf32, 4 : i32>
// CHECK: gpu_alloc.alloc result must be a memref in memory space 1 (global), 3 (shared) or 5 (private), got memref<16xf32, 4 : i32>

// -----

%n = "arith.constant"() <{value = 4 : index}> : () -> index
%a = "gpu_alloc.alloc"(%n) <{name = "f"}> : (index) -> memref<16xf32, 3 : i32>
// CHECK: gpu_alloc.alloc has 1 dynamic size operand(s) but its type memref<16xf32, 3 : i32> has 0 '?' dimension(s)

// -----

%a = "gpu_alloc.alloc"() <{name = "f"}> : () -> memref<?x4xf32, 3 : i32>
// CHECK: gpu_alloc.alloc has 0 dynamic size operand(s) but its type memref<?x4xf32, 3 : i32> has 1 '?' dimension(s)

// -----

%a = "gpu_alloc.alloc"() <{name = ""}> : () -> memref<16xf32, 3 : i32>
// CHECK: gpu_alloc.alloc must have a non-empty 'name'

// -----

%a = "gpu_alloc.alloc"() <{name = "f", alignment = 12 : i64}> : () -> memref<16xf32, 3 : i32>
// CHECK: gpu_alloc.alloc alignment must be a positive power of two, got 12

// -----

%a = "gpu_alloc.alloc"() <{name = "f", alignment = 0 : i64}> : () -> memref<16xf32, 3 : i32>
// CHECK: gpu_alloc.alloc alignment must be a positive power of two, got 0

// -----

%b = "gpu_alloc.alloc"() <{name = "b"}> : () -> memref<64xi32, 3 : i32>
%o = "arith.constant"() <{value = 0 : index}> : () -> index
%p = "gpu_alloc.offset_pointer"(%b, %o) : (memref<64xi32, 3 : i32>, index) -> !gpu_alloc.ptr<3 : i32>
// CHECK: gpu_alloc.offset_pointer backing must be a 1-D memref of i8, got memref<64xi32, 3 : i32>

// -----

%b = "gpu_alloc.alloc"() <{name = "b"}> : () -> memref<8x8xi8, 3 : i32>
%o = "arith.constant"() <{value = 0 : index}> : () -> index
%p = "gpu_alloc.offset_pointer"(%b, %o) : (memref<8x8xi8, 3 : i32>, index) -> !gpu_alloc.ptr<3 : i32>
// CHECK: gpu_alloc.offset_pointer backing must be a 1-D memref of i8, got memref<8x8xi8, 3 : i32>

// -----

%b = "memref.alloca"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<64xi8, 3 : i32>
%o = "arith.constant"() <{value = 0 : index}> : () -> index
%p = "gpu_alloc.offset_pointer"(%b, %o) : (memref<64xi8, 3 : i32>, index) -> !gpu_alloc.ptr<3 : i32>
// CHECK: gpu_alloc.offset_pointer backing must be made by gpu_alloc.alloc, got a value made by memref.alloca

// -----

%b = "gpu_alloc.alloc"() <{name = "b"}> : () -> memref<64xi8, 3 : i32>
%o = "arith.constant"() <{value = 0 : index}> : () -> index
%p = "gpu_alloc.offset_pointer"(%b, %o) : (memref<64xi8, 3 : i32>, index) -> !gpu_alloc.ptr<1 : i32>
// CHECK: gpu_alloc.offset_pointer result space 1 differs from its backing's space 3

// -----

%b = "gpu_alloc.alloc"() <{name = "b"}> : () -> memref<64xi8, 3 : i32>
%o = "arith.constant"() <{value = 0 : index}> : () -> index
%p = "gpu_alloc.offset_pointer"(%b, %o) : (memref<64xi8, 3 : i32>, index) -> !gpu_alloc.ptr<3 : i32>
%f = "gpu_alloc.alias"(%p) <{name = "f"}> : (!gpu_alloc.ptr<3 : i32>) -> memref<4xf32, 1 : i32>
// CHECK: gpu_alloc.alias result space 1 differs from its pointer's space 3

// -----

%b = "gpu_alloc.alloc"() <{name = "b"}> : () -> memref<64xi8, 3 : i32>
%o = "arith.constant"() <{value = 0 : index}> : () -> index
%p = "gpu_alloc.offset_pointer"(%b, %o) : (memref<64xi8, 3 : i32>, index) -> !gpu_alloc.ptr<3 : i32>
%f = "gpu_alloc.alias"(%p) <{name = ""}> : (!gpu_alloc.ptr<3 : i32>) -> memref<4xf32, 3 : i32>
// CHECK: gpu_alloc.alias must have a non-empty 'name'

// -----

%b = "gpu_alloc.alloc"() <{name = "b"}> : () -> memref<64xi8, 3 : i32>
%o = "arith.constant"() <{value = 0 : index}> : () -> index
%p = "gpu_alloc.offset_pointer"(%b, %o) : (memref<64xi8, 3 : i32>, index) -> !gpu_alloc.ptr<3 : i32>
%f = "gpu_alloc.alias"(%p) <{name = "f"}> : (!gpu_alloc.ptr<3 : i32>) -> memref<?xf32, 3 : i32>
// CHECK: gpu_alloc.alias has 0 dynamic size operand(s) but its type memref<?xf32, 3 : i32> has 1 '?' dimension(s)

// -----

%m = "memref.alloca"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<4xf32, 3 : i32>
"gpu_alloc.dealloc"(%m) : (memref<4xf32, 3 : i32>) -> ()
// CHECK: gpu_alloc.dealloc operand must be made by gpu_alloc.alloc or gpu_alloc.alias, got a value made by memref.alloca

// -----

"test.op"() ({
^bb0(%m: memref<4xf32, 3 : i32>):
  "gpu_alloc.dealloc"(%m) : (memref<4xf32, 3 : i32>) -> ()
  "test.termop"() : () -> ()
}) : () -> ()
// CHECK: gpu_alloc.dealloc operand must be made by gpu_alloc.alloc or gpu_alloc.alias, got a value made by a block argument

// -----

%b = "test.op"() : () -> !gpu_alloc.ptr<4 : i32>
// CHECK: !gpu_alloc.ptr memory space must be 1, 3 or 5, got 4

// -----

%b = "gpu_alloc.alloc"() <{name = "b", backing}> : () -> memref<16xi32, 3 : i32>
// CHECK: gpu_alloc.alloc with 'backing' must be a 1-D memref of i8 in memory space 1 (global) or 3 (shared), got memref<16xi32, 3 : i32>

// -----

%b = "gpu_alloc.alloc"() <{name = "b", backing}> : () -> memref<64xi8, 5 : i32>
// CHECK: gpu_alloc.alloc with 'backing' must be a 1-D memref of i8 in memory space 1 (global) or 3 (shared), got memref<64xi8, 5 : i32>

// -----

%a = "gpu_alloc.alloc"() <{name = "b"}> {gpu_alloc.layout = [{name = "f", offset = 60 : i64, bytes = 8 : i64, stages = array<i64: 0, 1>}]} : () -> memref<64xi8, 3 : i32>
// CHECK: gpu_alloc.layout: 'f' covers bytes [60, 68) of a 64-byte backing

// -----

%a = "gpu_alloc.alloc"() <{name = "b"}> {gpu_alloc.layout = [{name = "f", offset = 0 : i64, bytes = 8 : i64, stages = array<i64: 2, 1>}]} : () -> memref<64xi8, 3 : i32>
// CHECK: gpu_alloc.layout entry 0 ('f') has an empty stage interval [2, 1]

// -----

%a = "gpu_alloc.alloc"() <{name = "b"}> {gpu_alloc.layout = [{offset = 0 : i64, bytes = 8 : i64, stages = array<i64: 0, 0>}]} : () -> memref<64xi8, 3 : i32>
// CHECK: gpu_alloc.layout entry 0 needs a non-empty string 'name'

// -----

%a = "gpu_alloc.alloc"() <{name = "b"}> {gpu_alloc.layout = {name = "f"}} : () -> memref<64xi8, 3 : i32>
// CHECK: gpu_alloc.layout must be an array of dictionaries
