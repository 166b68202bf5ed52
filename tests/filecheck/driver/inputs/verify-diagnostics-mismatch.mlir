// Input of verify-diagnostics.mlir's MISMATCH run: a wrong message, a wrong line, and an
// annotation nothing produces.
gpu.module @m {
  // expected-error@below {{needs 6000 bytes}}
  gpu.func @k() kernel {
    %a = "gpu_alloc.alloc"() <{name = "a"}> : () -> memref<60000xi8, 3 : i32>
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @k() kernel {
    // expected-error@+2 {{needs 60000 bytes}}
    %a = "gpu_alloc.alloc"() <{name = "a"}> : () -> memref<60000xi8, 3 : i32>
    gpu.return
  }
}

// -----

// expected-remark {{never produced}}
gpu.module @m {
}
