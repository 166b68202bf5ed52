// gpu.dealloc and gpu.memcpy read GPUOps.td's declared formats (custom<AsyncDependencies>,
// attribute dictionary before dealloc's type and after memcpy's types, as MLIR writes
// them). Not in gpu.mlir's exact comparison: xDSL 0.75 defines both ops with
// AttrSizedOperandSegments (MLIR's have none), so our generic form carries an
// `operandSegmentSizes` attribute that mlir-opt-22 keeps as a discardable attribute.
// RUN: gpu-alloc-opt --mlir-bridge=never %s | mlir-opt-22 | filecheck %s
// RUN: gpu-alloc-opt --mlir-bridge=never %s | gpu-alloc-opt --mlir-bridge=never | mlir-opt-22 | filecheck %s

func.func @host(%m: memref<4xf32>, %m2: memref<4xf32>) {
  %t0 = gpu.wait async
  %a, %ta = gpu.alloc async [%t0] () : memref<4xf32>
  gpu.dealloc %m : memref<4xf32>
  %td = gpu.dealloc async [%t0, %ta] %a {tag} : memref<4xf32>
  gpu.memcpy %m, %m2 : memref<4xf32>, memref<4xf32>
  %tm = gpu.memcpy async [%t0] %m, %m2 : memref<4xf32>, memref<4xf32> {tag}
  return
}
// CHECK:      gpu.dealloc %{{.*}} {operandSegmentSizes = array<i32: 0, 1>} : memref<4xf32>
// CHECK-NEXT: gpu.dealloc async [%{{.*}}, %{{.*}}] %{{.*}} {operandSegmentSizes = array<i32: 2, 1>, tag} : memref<4xf32>
// CHECK-NEXT: gpu.memcpy %{{.*}}, %{{.*}} : memref<4xf32>, memref<4xf32> {operandSegmentSizes = array<i32: 0, 1, 1>}
// CHECK-NEXT: gpu.memcpy async [%{{.*}}] %{{.*}}, %{{.*}} : memref<4xf32>, memref<4xf32> {operandSegmentSizes = array<i32: 1, 1, 1>, tag}
