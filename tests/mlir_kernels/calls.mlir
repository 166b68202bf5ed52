// sim-launch: --grid 2 --block 64
// Calls, as MLIR writes device code: @reverse is workgroup-level code (a func.func that
// allocates workgroup memory and has a barrier, called by every thread of the block);
// @clamp is a device function called under a thread-dependent branch, with two returns
// that different threads take. Block b, thread t, i = 64 b + t, r = 63 - t:
//   y = @reverse(in, i, t) = in[64 b + r]
//   out[i] = t < 32 ? clamp(y) : y,  clamp(y) = y < 0 ? 0 : y
gpu.module @calls {
  func.func @reverse(%in: memref<128xf32>, %i: index, %t: index) -> f32 {
    %c63 = arith.constant 63 : index
    %w = memref.alloc() : memref<64xf32, #gpu.address_space<workgroup>>
    %x = memref.load %in[%i] : memref<128xf32>
    memref.store %x, %w[%t] : memref<64xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %r = arith.subi %c63, %t : index
    %y = memref.load %w[%r] : memref<64xf32, #gpu.address_space<workgroup>>
    return %y : f32
  }
  func.func @clamp(%y: f32) -> f32 {
    %zero = arith.constant 0.0 : f32
    %negative = arith.cmpf olt, %y, %zero : f32
    cf.cond_br %negative, ^low, ^high
  ^low:
    return %zero : f32
  ^high:
    return %y : f32
  }
  gpu.func @calls(%in: memref<128xf32>, %out: memref<128xf32>) kernel {
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %t = gpu.thread_id x
    %bid = gpu.block_id x
    %base = arith.muli %bid, %c64 : index
    %i = arith.addi %base, %t : index
    %y = func.call @reverse(%in, %i, %t) : (memref<128xf32>, index, index) -> f32
    %low = arith.cmpi ult, %t, %c32 : index
    %z = scf.if %low -> (f32) {
      %c = func.call @clamp(%y) : (f32) -> f32
      scf.yield %c : f32
    } else {
      scf.yield %y : f32
    }
    memref.store %z, %out[%i] : memref<128xf32>
    gpu.return
  }
}
