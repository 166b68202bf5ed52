gpu.module @m {
  gpu.func @k() kernel {
    gpu.barrier memfence [#gpu.address_space<global>]
    gpu.return
  }
}
