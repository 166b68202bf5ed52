// The embedded parser reads MLIR's syntax of the `gpu` ops whose assemblyFormat
// dialect/mlir_gpu.py declares (GPUOps.td: return, yield, terminator, host_register,
// host_unregister) as mlir-opt-22 does: an attribute dictionary comes first in
// `gpu.return {tag} %x : f32`, where MLIR's format puts it.
// RUN: gpu-alloc-opt --mlir-bridge=never %s | mlir-opt-22 > %t.ours
// RUN: mlir-opt-22 %s > %t.mlir
// RUN: diff %t.ours %t.mlir
// RUN: gpu-alloc-opt --mlir-bridge=never %s | gpu-alloc-opt --mlir-bridge=never | mlir-opt-22 | diff - %t.mlir

gpu.module @m {
  gpu.func @values(%x: f32, %y: index) -> (f32, index) {
    gpu.return {tag} %x, %y : f32, index
  }
  gpu.func @empty() {
    gpu.return
  }
  gpu.func @reduce(%x: f32) -> f32 {
    %r = gpu.all_reduce %x {
    ^bb0(%a: f32, %b: f32):
      %s = arith.addf %a, %b : f32
      gpu.yield {tag} %s : f32
    } : (f32) -> f32
    gpu.return %r : f32
  }
}

func.func @host(%m: memref<*xf32>, %n: index) {
  gpu.host_register %m {tag} : memref<*xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %n, %gy = %n, %gz = %n) threads(%tx, %ty, %tz) in (%sx = %n, %sy = %n, %sz = %n) {
    gpu.terminator {tag}
  }
  gpu.host_unregister %m : memref<*xf32>
  return
}
