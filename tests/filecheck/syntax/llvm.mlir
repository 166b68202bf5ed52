// The embedded parser reads MLIR 22's calling conventions (syntax/mlir_llvm.py) as
// mlir-opt-22 does: in llvm.func's custom form (MLIR's LLVMFuncOp::parse, C++) and as
// the `#llvm.cconv<...>` attribute of its generic form (CConv's declared format, read
// by hand: xDSL 0.75's attribute formats take no parameters), including conventions
// xDSL's own list lacks.
// RUN: gpu-alloc-opt --mlir-bridge=never %s | mlir-opt-22 > %t.ours
// RUN: mlir-opt-22 %s > %t.mlir
// RUN: diff %t.ours %t.mlir
// RUN: gpu-alloc-opt --mlir-bridge=never %s | gpu-alloc-opt --mlir-bridge=never | mlir-opt-22 | diff - %t.mlir

llvm.func ptx_kernelcc @kernel() {
  llvm.return
}
llvm.func amdgpu_kernelcc @amd() {
  llvm.return
}
llvm.func fastcc @fast() {
  llvm.return
}
llvm.func cc_10 @ten() {
  llvm.return
}
"llvm.func"() <{CConv = #llvm.cconv<spir_kernelcc>, function_type = !llvm.func<void ()>, linkage = #llvm.linkage<external>, sym_name = "spir", visibility_ = 0 : i64}> ({
  llvm.return
}) : () -> ()
