// ----- spirv
module attributes {spirv.target_env = #spirv.target_env<#spirv.vce<v1.0, [Shader], [SPV_KHR_storage_buffer_storage_class]>, #spirv.resource_limits<>>} {
  gpu.module @m {
    gpu.func @k() kernel attributes {spirv.entry_point_abi = #spirv.entry_point_abi<workgroup_size = [32, 1, 1]>} {
      gpu.return
    }
  }
}
// ----- spirvempty
gpu.module @m {
  gpu.func @k() kernel attributes {spirv.entry_point_abi = #spirv.entry_point_abi<>} {
    gpu.return
  }
}
// ----- nvvmtarget
gpu.module @m [#nvvm.target<chip = "sm_90">] {
  gpu.func @k() kernel {
    gpu.return
  }
}
// ----- rocdl
gpu.module @m [#rocdl.target<chip = "gfx942">] {
  gpu.func @k() kernel attributes {rocdl.flat_work_group_size = "1,256"} {
    gpu.return
  }
}
// ----- amdgpuspace
func.func @f(%a: memref<8xf16, #amdgpu.address_space<fat_raw_buffer>>) {
  return
}
// ----- gpumapping
func.func @f() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.parallel (%x) = (%c0) to (%c1) step (%c1) {
  } {mapping = [#gpu.loop_dim_map<processor = thread_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]}
  return
}
// ----- launchattr
func.func @f() {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%x = %c1, %y = %c1, %z = %c1) {
    gpu.terminator
  } {SCFToGPU_visited}
  return
}
// ----- cmpfstr
func.func @f(%a: f32) -> i1 {
  %r = arith.cmpf "oeq", %a, %a : f32
  return %r : i1
}
// ----- indexcastvec
func.func @f(%a: vector<4xindex>) -> vector<4xi32> {
  %r = arith.index_cast %a : vector<4xindex> to vector<4xi32>
  %s = arith.addi %r, %r : vector<4xi32>
  return %s : vector<4xi32>
}
// ----- semiaffine
#map = affine_map<(d0)[s0] -> (d0 ceildiv s0)>
func.func @f(%a: index, %b: index) -> index {
  %r = affine.apply #map(%a)[%b]
  return %r : index
}
// ----- assume
func.func @f(%m: memref<16x16xf16, 3>) {
  %a = memref.assume_alignment %m, 16 : memref<16x16xf16, 3>
  return
}
// ----- transform
module attributes {transform.with_named_sequence} {
  func.func @f(%a: memref<4xf32, 3>) {
    return
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %f {
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.yield
  }
}
// ----- empty
// ----- vectorcmpi
func.func @f(%a: vector<4xi32>, %b: vector<4xi32>, %x: vector<4xf32>) -> vector<4xf32> {
  %c = arith.cmpi "slt", %a, %b : vector<4xi32>
  %s = arith.select %c, %x, %x : vector<4xi1>, vector<4xf32>
  return %s : vector<4xf32>
}
