func.func @f(%a: index, %b: index, %x: i32) -> index {
  %0 = index.add %a, %b
  %1 = index.mul %0, %b
  %2 = index.castu %x : i32 to index
  %3 = index.casts %1 : index to i64
  %4 = index.constant 42
  %5 = index.maxs %4, %2
  %6 = index.floordivs %5, %a
  return %6 : index
}
