"""The `amdgcn` target: `target` (`emit_amdgcn`, `-t amdgcn`) and `amdgpu_tools` (llvm-mc
and ld.lld: the code object and its LDS bytes). Its backends are `lowering.llvm`'s."""
