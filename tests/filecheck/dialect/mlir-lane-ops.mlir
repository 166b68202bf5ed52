// RUN: gpu-alloc-opt %s | filecheck %s
// RUN: gpu-alloc-opt %s | gpu-alloc-opt | filecheck %s
// RUN: gpu-alloc-opt %s | mlir-opt-22 --mlir-print-op-generic | gpu-alloc-opt | filecheck %s
// RUN: mlir-opt-22 --mlir-print-op-generic %s | gpu-alloc-opt | filecheck %s

// Ops of real kernels xDSL 0.75 cannot read in MLIR's custom form: `gpu.shuffle` and
// `gpu.printf` (syntax/mlir_gpu_lanes.py), `memref.atomic_rmw` (syntax/mlir_memref.py),
// `gpu.alloc host_shared` (syntax/mlir_gpu.py) and `scf.while` without loop-carried
// values (core/xdsl_fixes.py). The CHECK lines are what `mlir-opt-22
// --mlir-print-op-generic` prints for this file (the fourth RUN line checks that too),
// except for `gpu.shuffle` and `gpu.printf`, which print their declared custom form
// (GPUOps.td), as `mlir-opt-22` prints them.

gpu.module @m {
  gpu.func @k(%b: memref<4xi32>, %b2: memref<f32>, %v: f32) kernel {
    %c1 = arith.constant 1 : i32
    %c32 = arith.constant 32 : i32
    %c0 = arith.constant 0 : index
    %x, %ok = gpu.shuffle xor %v, %c1, %c32 : f32
    %y, %ok2 = gpu.shuffle down %v, %c1, %c32 : f32
    %r = memref.atomic_rmw addi %c1, %b[%c0] : (i32, memref<4xi32>) -> i32
    %f = memref.atomic_rmw minnumf %v, %b2[] : (f32, memref<f32>) -> f32
    gpu.printf "lane %d: %f\n", %c1, %x : i32, f32
    gpu.printf "done\n"
    scf.while : () -> () {
      %w = memref.atomic_rmw maxu %c1, %b[%c0] : (i32, memref<4xi32>) -> i32
      %go = arith.cmpi slt, %w, %c32 : i32
      scf.condition(%go)
    } do {
      scf.yield
    }
    gpu.return
  }
}

func.func @host() {
  %m = gpu.alloc host_shared () : memref<i32>
  return
}

// CHECK:      %{{.*}}, %{{.*}} = gpu.shuffle xor %{{.*}}, %{{.*}}, %{{.*}} : f32
// CHECK:      %{{.*}}, %{{.*}} = gpu.shuffle down %{{.*}}, %{{.*}}, %{{.*}} : f32
// CHECK:      "memref.atomic_rmw"(%{{.*}}, %{{.*}}, %{{.*}}) <{kind = 1 : i64}> : (i32, memref<4xi32>, index) -> i32
// CHECK:      "memref.atomic_rmw"(%{{.*}}, %{{.*}}) <{kind = 9 : i64}> : (f32, memref<f32>) -> f32
// CHECK:      gpu.printf "lane %d: %f\0A", %{{.*}}, %{{.*}} : i32, f32
// CHECK:      gpu.printf "done\0A"{{$}}
// CHECK:      "memref.atomic_rmw"(%{{.*}}, %{{.*}}, %{{.*}}) <{kind = 7 : i64}> : (i32, memref<4xi32>, index) -> i32
// CHECK:      "gpu.alloc"() <{hostShared, operandSegmentSizes = array<i32: 0, 0, 0>}> : () -> memref<i32>
