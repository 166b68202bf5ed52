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
  // expected-remark@below {{'k' has workgroup memory that fuse-gpu-allocs does not own}}
  gpu.func @k() kernel {
    // expected-remark@+1 {{memref.alloc %x stays as it is: its storage is passed to an unregistered op ('vendor.copy')}}
    %x = memref.alloc() : memref<4xf32, #gpu.address_space<workgroup>>
    "vendor.copy"(%x) : (memref<4xf32, #gpu.address_space<workgroup>>) -> ()
    gpu.return
  }
}
