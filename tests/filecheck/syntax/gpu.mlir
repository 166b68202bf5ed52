// The embedded parser reads MLIR's syntax of the `gpu` ops whose assemblyFormat
// syntax/mlir_gpu.py, mlir_gpu_lanes.py and mlir_gpu_warp.py declare (GPUOps.td:
// return, yield, terminator, host_register, host_unregister, the index ops with their
// optional `upper_bound`, wait and alloc with custom<AsyncDependencies>, shuffle,
// printf, all_reduce and subgroup_reduce with custom<AllReduceOperation>, the
// subgroup_mma ops) as mlir-opt-22 does: an attribute dictionary comes first in
// `gpu.return {tag} %x : f32` and in `gpu.printf "a" {tag}, %x : f32`, where MLIR's
// format puts it. gpu.dealloc and gpu.memcpy are in gpu-async.mlir.
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
  gpu.func @reduce(%x: f32, %v: vector<4xf32>) -> f32 {
    %r = gpu.all_reduce %x {
    ^bb0(%a: f32, %b: f32):
      %s = arith.addf %a, %b : f32
      gpu.yield {tag} %s : f32
    } {tag} : (f32) -> f32
    %u = gpu.all_reduce add %x uniform {} : (f32) -> f32
    %w = gpu.all_reduce maxnumf %x {} : (f32) -> f32
    %sr = gpu.subgroup_reduce maxnumf %x uniform cluster(size = 4) : (f32) -> f32
    %sr2 = gpu.subgroup_reduce add %x cluster(size = 4, stride = 2) {tag} : (f32) -> f32
    %sr3 = gpu.subgroup_reduce mul %v : (vector<4xf32>) -> vector<4xf32>
    gpu.return %r : f32
  }
  gpu.func @ids() kernel {
    %t = gpu.thread_id x
    %t2 = gpu.thread_id y upper_bound 128
    %b = gpu.block_id z {tag}
    %bd = gpu.block_dim x upper_bound 4 {tag}
    %gd = gpu.grid_dim y
    %gi = gpu.global_id x upper_bound 65536
    %l = gpu.lane_id
    %l2 = gpu.lane_id upper_bound 32 {tag}
    %s = gpu.subgroup_id : index
    %s2 = gpu.subgroup_id upper_bound 8 : index
    %n = gpu.num_subgroups : index
    %n2 = gpu.num_subgroups upper_bound 4 {tag} : index
    %z = gpu.subgroup_size : index
    %z2 = gpu.subgroup_size upper_bound 64 : index
    gpu.barrier
    gpu.barrier {tag}
    gpu.return
  }
  gpu.func @lanes(%x: f32, %i: i32, %v: vector<4xf32>) kernel {
    %sh, %ok = gpu.shuffle xor %x, %i, %i : f32
    %sh2, %ok2 = gpu.shuffle idx %v, %i, %i {tag} : vector<4xf32>
    gpu.printf "x = %f\n", %x : f32
    gpu.printf "hi" {tag}
    gpu.printf "two %d %f" {tag}, %i, %x : i32, f32
    gpu.return
  }
  gpu.func @mma(%m: memref<16x16xf16>, %j: index) kernel {
    %A = gpu.subgroup_mma_load_matrix %m[%j, %j] {leadDimension = 16 : index} : memref<16x16xf16> -> !gpu.mma_matrix<16x16xf16, "AOp">
    %B = gpu.subgroup_mma_load_matrix %m[%j, %j] {leadDimension = 16 : index, transpose, tag} : memref<16x16xf16> -> !gpu.mma_matrix<16x16xf16, "BOp">
    %h = arith.constant 0.0 : f16
    %C = gpu.subgroup_mma_constant_matrix %h : !gpu.mma_matrix<16x16xf16, "COp">
    %D = gpu.subgroup_mma_compute %A, %B, %C : !gpu.mma_matrix<16x16xf16, "AOp">, !gpu.mma_matrix<16x16xf16, "BOp"> -> !gpu.mma_matrix<16x16xf16, "COp">
    %D2 = gpu.subgroup_mma_compute %A, %B, %C {a_transpose, tag} : !gpu.mma_matrix<16x16xf16, "AOp">, !gpu.mma_matrix<16x16xf16, "BOp"> -> !gpu.mma_matrix<16x16xf16, "COp">
    %E = gpu.subgroup_mma_elementwise addf %D, %D2 : (!gpu.mma_matrix<16x16xf16, "COp">, !gpu.mma_matrix<16x16xf16, "COp">) -> !gpu.mma_matrix<16x16xf16, "COp">
    %E2 = gpu.subgroup_mma_elementwise negatef %D {tag} : (!gpu.mma_matrix<16x16xf16, "COp">) -> !gpu.mma_matrix<16x16xf16, "COp">
    gpu.subgroup_mma_store_matrix %E, %m[%j, %j] {leadDimension = 16 : index} : !gpu.mma_matrix<16x16xf16, "COp">, memref<16x16xf16>
    gpu.subgroup_mma_store_matrix %E2, %m[%j, %j] {leadDimension = 16 : index, transpose} : !gpu.mma_matrix<16x16xf16, "COp">, memref<16x16xf16>
    gpu.return
  }
}

func.func @host(%m: memref<*xf32>, %n: index) {
  gpu.host_register %m {tag} : memref<*xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %n, %gy = %n, %gz = %n) threads(%tx, %ty, %tz) in (%sx = %n, %sy = %n, %sz = %n) {
    gpu.terminator {tag}
  }
  gpu.host_unregister %m : memref<*xf32>
  %t0 = gpu.wait async
  %t1 = gpu.wait async [%t0]
  gpu.wait [%t1]
  gpu.wait
  gpu.wait {tag}
  %a = gpu.alloc (%n) : memref<?xf32>
  %a2, %ta = gpu.alloc async [%t0] host_shared (%n) {tag} : memref<?xf32>
  %a3, %tb = gpu.alloc async () : memref<4xf32>
  %a4 = gpu.alloc host_shared () : memref<4xf32>
  %a5 = gpu.alloc (%n) [%n] : memref<?xf32, affine_map<(d0)[s0] -> (d0 + s0)>>
  return
}
