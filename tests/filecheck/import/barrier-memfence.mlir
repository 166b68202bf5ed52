// RUN: gpu-alloc-opt %s --split-input-file | filecheck %s
// RUN: not gpu-alloc-opt %S/inputs/barrier-no-workgroup-fence.mlir 2>&1 | filecheck %s --check-prefix REFUSED

// `gpu.barrier memfence [...]` (MLIR after 22) is read when it fences workgroup memory,
// which the passes assume of every barrier; a barrier that leaves workgroup memory out is
// refused rather than misread.
gpu.module @m {
  gpu.func @k() kernel {
    gpu.barrier memfence [#gpu.address_space<workgroup>, #gpu.address_space<global>]
    gpu.return
  }
}
// CHECK: "gpu.barrier"() {address_spaces = [#gpu.address_space<workgroup>, #gpu.address_space<global>]} : () -> ()

// REFUSED: barrier-no-workgroup-fence.mlir:3:26: error: a gpu.barrier that does not fence workgroup memory is not supported
