// Input of stock-xdsl-opt.mlir's PARSE run.
%x = "arith.constant"() : () -> 42
