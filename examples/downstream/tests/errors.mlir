// RUN: %gpu-alloc-opt %s --split-input-file --verify-diagnostics --allow-unregistered-dialect -p import-gpu-allocs,fuse-gpu-allocs

gpu.module @m {
  // expected-error@below {{kernel 'k' needs 65536 bytes of shared memory, over the limit of 49152}}
  gpu.func @k() kernel {
    %a = memref.alloc() : memref<16384xf32, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @k() kernel {
    // expected-remark@+1 {{memref.alloc %x is passed to an unregistered op ('vendor.copy'), so it lives for the whole kernel}}
    %x = memref.alloc() : memref<4xf32, #gpu.address_space<workgroup>>
    "vendor.copy"(%x) : (memref<4xf32, #gpu.address_space<workgroup>>) -> ()
    gpu.return
  }
}
