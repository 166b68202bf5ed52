// arith.remf (unregistered in xDSL 0.75): the embedded backend lowers it, MLIR 22 does
// not, and says which backend can.
// RUN: not xdsl-opt --allow-unregistered-dialect %s -t 'ptx{backend=mlir}' 2>&1 | filecheck %s --check-prefix REMF
// RUN: xdsl-opt --allow-unregistered-dialect %s -t ptx | filecheck %s --check-prefix REMF-OK
// REMF:      error: the mlir PTX backend cannot lower 'arith.remf' in kernel 'modulo' (MLIR 22's NVVM pipeline refuses llvm.frem; use backend=llvmlite)
// REMF-NOT:  Traceback
// REMF-OK:   .visible .entry modulo(
// REMF-OK:   cvt.rzi.f32.f32
builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (memref<64xf32, 1>) -> (), kernel}> ({
    ^bb0(%out: memref<64xf32, 1>):
      %c1 = arith.constant 1 : index
      %v = memref.load %out[%c1] : memref<64xf32, 1>
      %r = "arith.remf"(%v, %v) : (f32, f32) -> f32
      memref.store %r, %out[%c1] : memref<64xf32, 1>
      "gpu.return"() : () -> ()
    }) {sym_name = "modulo"} : () -> ()
  }) : () -> ()
}
