func.func @f(%v: vector<4xf32>) {
  vector.print %v : vector<4xf32> str "a" str "b"
  return
}
