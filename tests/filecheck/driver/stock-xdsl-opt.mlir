// The stock xdsl-opt, with this package installed as its plugin, reports every user error
// as gpu-alloc-opt does: one located diagnostic (the source line and a caret), exit 1, no
// traceback; option and pass names as the user spells them, with the closest ones. An option
// given twice is the last one here (xDSL's parser; the plugin patches nothing):
// gpu-alloc-opt refuses it (docs/xdsl-upstream.md).
// RUN: not xdsl-opt %s -p fuse-gpu-allocs 2>&1 | filecheck %s --check-prefix LIMIT
// RUN: not xdsl-opt %s -p 'fuse-gpu-allocs{max-shared-byte=4096}' 2>&1 | filecheck %s --check-prefix OPTION
// RUN: not xdsl-opt %s -p 'fuse-gpu-allocs{alignment=abc}' 2>&1 | filecheck %s --check-prefix VALUE
// RUN: not xdsl-opt %s -p 'fuse-gpu-alocs' 2>&1 | filecheck %s --check-prefix PASS
// RUN: not xdsl-opt %s -t 'ptx{chip' 2>&1 | filecheck %s --check-prefix TARGET-SYNTAX
// RUN: not xdsl-opt %S/inputs/parse-error.mlir 2>&1 | filecheck %s --check-prefix PARSE
// RUN: not xdsl-opt -f mlir-gpu %S/inputs/mlir-syntax-over-limit.mlir -p import-gpu-allocs,fuse-gpu-allocs 2>&1 | filecheck %s --check-prefix MLIR
// RUN: xdsl-opt -f mlir-gpu %S/inputs/mlir-syntax-over-limit.mlir -p 'import-gpu-allocs,fuse-gpu-allocs{chip=sm_90}' | filecheck %s --check-prefix MLIR-OK
// RUN: env GPU_ALLOC_TRACEBACK=1 not xdsl-opt %s -p fuse-gpu-allocs 2>&1 | filecheck %s --check-prefix TRACEBACK

builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = () -> ()}> ({
      %a = "gpu_alloc.alloc"() <{name = "a"}> : () -> memref<60000xi8, 3 : i32>
      "gpu.return"() : () -> ()
    }) {sym_name = "k", gpu.kernel} : () -> ()
  }) : () -> ()
}

// LIMIT-NOT:  Traceback
// LIMIT:      stock-xdsl-opt.mlir:18:5: error: kernel 'k' needs 60000 bytes of shared memory, over the limit of 49152 (what one block of ptx (any sm_XX) may use); largest: 'a' (60000 B)
// LIMIT-NEXT: "gpu.func"() <{function_type = () -> ()}> ({
// LIMIT-NEXT: ^~~~~~~~~~
// LIMIT-NOT:  Traceback

// OPTION: xdsl-opt: error: -p 'fuse-gpu-allocs{max-shared-byte=4096}': pass 'fuse-gpu-allocs' has no option 'max-shared-byte' (did you mean 'max-shared-bytes'?) (its options: alignment, report, chip, max-shared-bytes, budget, time-limit, insert-barriers)
// OPTION-NOT: Traceback
// VALUE: xdsl-opt: error: -p 'fuse-gpu-allocs{alignment=abc}': option 'alignment' of pass 'fuse-gpu-allocs' needs an integer, got 'abc'
// PASS: xdsl-opt: error: -p 'fuse-gpu-alocs': unknown pass 'fuse-gpu-alocs' (did you mean 'fuse-gpu-allocs'?)
// TARGET-SYNTAX: xdsl-opt: error: -t 'ptx{chip': Error parsing pass pipeline specification: pass-pipeline:1:9 ptx{chip ^ Expected equals, space or end of arguments here
// TARGET-SYNTAX-NOT: Traceback

// PARSE-NOT:  Traceback
// PARSE:      parse-error.mlir:2:33: error: type expected
// PARSE-NOT:  Traceback

// MLIR-NOT: Traceback
// MLIR:     mlir-syntax-over-limit.mlir:3:3: error: kernel 'k' needs 65536 bytes of shared memory, over the limit of 49152 (what one block of ptx (any sm_XX) may use); largest: 'tile' (65536 B)
// MLIR-NEXT: gpu.func @k(%out: memref<16384xf32>) kernel {
// MLIR-OK: %tile = gpu_alloc.alloc "tile" : memref<16384xf32, #gpu.address_space<workgroup>>

// TRACEBACK: Traceback (most recent call last):
// TRACEBACK: gpu_alloc.errors.GpuAllocPassError: kernel 'k' needs 60000 bytes
