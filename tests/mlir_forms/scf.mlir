func.func @f(%m: memref<32xf32>, %n: index, %t: tensor<32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.forall (%i, %j) in (4, %n) {
    %v = memref.load %m[%i] : memref<32xf32>
  } {mapping = [#gpu.thread<y>, #gpu.thread<x>]}
  scf.forall (%i) = (%c0) to (%n) step (%c4) {
  }
  scf.parallel (%x, %y) = (%c0, %c0) to (%n, %n) step (%c1, %c1) {
    %v = memref.load %m[%x] : memref<32xf32>
  } {mapping = [#gpu.loop_dim_map<processor = thread_x, map = (d0) -> (d0), bound = (d0) -> (d0)>, #gpu.loop_dim_map<processor = thread_y, map = (d0) -> (d0), bound = (d0) -> (d0)>]}
  %z = arith.constant 0.0 : f32
  %sum = scf.parallel (%x) = (%c0) to (%n) step (%c1) init (%z) -> f32 {
    %v = memref.load %m[%x] : memref<32xf32>
    scf.reduce(%v : f32) {
    ^bb0(%a: f32, %b: f32):
      %c = arith.addf %a, %b : f32
      scf.reduce.return %c : f32
    }
  }
  return
}
