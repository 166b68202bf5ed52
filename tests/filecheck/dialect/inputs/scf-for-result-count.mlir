func.func @f(%v: vector<4xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %v, %b = %c0) -> vector<4xf32> {
    scf.yield %a : vector<4xf32>
  }
  return
}
