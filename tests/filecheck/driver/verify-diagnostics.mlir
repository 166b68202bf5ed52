// RUN: gpu-alloc-opt %s --split-input-file --verify-diagnostics --allow-unregistered-dialect -p 'import-gpu-allocs,fuse-gpu-allocs{insert-barriers=always},lower-gpu-allocs' | filecheck %s
// RUN: not gpu-alloc-opt %S/inputs/verify-diagnostics-mismatch.mlir --split-input-file --verify-diagnostics -p fuse-gpu-allocs 2>&1 | filecheck %s --check-prefix MISMATCH

// `--verify-diagnostics` as in mlir-opt: every diagnostic of the run (parse, verify, pass
// errors, pass remarks) must match an `expected-*` annotation on its line, and every
// annotation must be matched. Chunks without a diagnostic still print their output.

// expected-error@+1 {{type expected}}
%x = "arith.constant"() : () -> 42

// -----

// expected-error@+1 {{result must be a memref in memory space 1 (global), 3 (shared) or 5 (private), got memref<16xf32>}}
%a = "gpu_alloc.alloc"() <{name = "f"}> : () -> memref<16xf32>

// -----

gpu.module @m {
  // expected-error@below {{kernel 'k' needs 60000 bytes of shared memory, over the limit of 49152 (what one block of ptx (any sm_XX) may use); largest: 'a' (60000 B)}}
  gpu.func @k() kernel {
    %a = "gpu_alloc.alloc"() <{name = "a"}> : () -> memref<60000xi8, 3 : i32>
    gpu.return
  }
}

// -----

// As mlir-opt (issue 30): a space before `@`, and an `-re` message that runs to the last `}}`
// with `{{...}}` regex groups (it was cut at the first `}}`, so no group could match).
gpu.module @m {
  // expected-error-re @below {{kernel {{'k2'}} needs {{[0-9]+}} bytes of shared memory, over the limit of {{4[0-9]+}} (what one block of ptx (any sm_XX) may use)}}
  gpu.func @k2() kernel {
    %a = "gpu_alloc.alloc"() <{name = "a"}> : () -> memref<60000xi8, 3 : i32>
    gpu.return
  }
}

// -----

// An import remark at the buffer, and fuse's remark at the kernel.
gpu.module @m {
  // expected-remark@below {{'d' has workgroup memory that fuse-gpu-allocs does not own and leaves as it is (memref.alloc %x); run import-gpu-allocs first}}
  gpu.func @d() -> memref<4xf32, #gpu.address_space<workgroup>> {
    // expected-remark@below {{in 'd': memref.alloc %x stays as it is: its storage is returned or yielded ('gpu.return')}}
    %x = memref.alloc() : memref<4xf32, #gpu.address_space<workgroup>>
    gpu.return %x : memref<4xf32, #gpu.address_space<workgroup>>
  }
  gpu.func @k() kernel {
    gpu.return
  }
}

// -----

// An unknown op pins the buffer for the whole kernel (remarked at the buffer).
gpu.module @m {
  gpu.func @k() kernel {
    // expected-remark@below {{in 'k': memref.alloc %x is passed to an unregistered op ('test.use'), so it lives for the whole kernel}}
    %x = memref.alloc() : memref<4xf32, #gpu.address_space<workgroup>>
    "test.use"(%x) : (memref<4xf32, #gpu.address_space<workgroup>>) -> ()
    gpu.return
  }
}

// -----

// A barrier fuse inserts is remarked at the op it follows.
gpu.module @m {
  gpu.func @disjoint() kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    %cst = arith.constant 0.000000e+00 : f32
    %a = memref.alloc() : memref<128xf32, #gpu.address_space<workgroup>>
    %c = memref.alloc() : memref<32xf32, #gpu.address_space<workgroup>>
    // expected-remark@below {{inserted gpu.barrier in 'disjoint' after scf.for: shared backing 640 -> 512 B (128 B saved)}}
    scf.for %i = %c0 to %c128 step %c1 {
      memref.store %cst, %a[%i] : memref<128xf32, #gpu.address_space<workgroup>>
    }
    memref.store %cst, %c[%c0] : memref<32xf32, #gpu.address_space<workgroup>>
    gpu.return
  }
}
// CHECK: "memref.global"() <{sym_name = "disjoint__shared_alloc", type = memref<512xi8, #gpu.address_space<workgroup>>

// -----

// lower-gpu-allocs' error at the allocation.
gpu.module @m {
  gpu.func @k() kernel {
    %t = gpu.thread_id x
    // expected-error@+1 {{the size of allocation 'a' depends on the thread id ('gpu.thread_id'); a block-level allocation has one size for the whole block}}
    %a = "gpu_alloc.alloc"(%t) <{name = "a"}> : (index) -> memref<?xi32, 3 : i32>
    gpu.return
  }
}

// MISMATCH: verify-diagnostics-mismatch.mlir:5:3: error: unexpected error: kernel 'k' needs 60000 bytes of shared memory
// MISMATCH: verify-diagnostics-mismatch.mlir:4:6: error: expected error "needs 6000 bytes" was not produced
// MISMATCH: verify-diagnostics-mismatch.mlir:14:3: error: unexpected error: kernel 'k' needs 60000 bytes
// MISMATCH: verify-diagnostics-mismatch.mlir:15:8: error: expected error "needs 60000 bytes" was not produced
// MISMATCH: verify-diagnostics-mismatch.mlir: error: unexpected remark: no kernel
// MISMATCH: verify-diagnostics-mismatch.mlir:23:4: error: expected remark "never produced" was not produced
