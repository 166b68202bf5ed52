// RUN: xdsl-opt %s -p partition-loops --split-input-file | filecheck %s

// 1-D, constant bounds: the edge tests iv >= 1 and iv < 15 split [0, 16) into
// [0, 1), [1, 15), [15, 16); each part stores its constant with no test left.
// The second loop has a dynamic bound: the split point min(max(n, 0), 15) is
// clamped to the loop range, and the select is folded in each part.
func.func @f(%out: memref<16xi32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c15 = arith.constant 15 : index
  scf.for %i = %c0 to %c16 step %c1 {
    %lo = arith.cmpi sge, %i, %c1 : index
    %hi = arith.cmpi slt, %i, %c15 : index
    %in = arith.andi %lo, %hi : i1
    %v = scf.if %in -> (i32) {
      %a = arith.constant 1 : i32
      scf.yield %a : i32
    } else {
      %b = arith.constant 0 : i32
      scf.yield %b : i32
    }
    memref.store %v, %out[%i] : memref<16xi32>
  }
  scf.for %i = %c0 to %n step %c1 {
    %lt = arith.cmpi slt, %i, %c15 : index
    %z = arith.constant 7 : i32
    %y = arith.constant 9 : i32
    %s = arith.select %lt, %z, %y : i32
    memref.store %s, %out[%i] : memref<16xi32>
  }
  func.return
}

// CHECK:      func.func @f(%out: memref<16xi32>, %n: index) {
// CHECK-NEXT: %c0 = arith.constant 0 : index
// CHECK-NEXT: %c1 = arith.constant 1 : index
// CHECK-NEXT: %c16 = arith.constant 16 : index
// CHECK-NEXT: %c15 = arith.constant 15 : index
// CHECK-NEXT: scf.for %i = %c0 to %c1 step %c1 {
// CHECK-NEXT: %b = arith.constant 0 : i32
// CHECK-NEXT: memref.store %b, %out[%i] : memref<16xi32>
// CHECK-NEXT: }
// CHECK-NEXT: scf.for %i_1 = %c1 to %c15 step %c1 {
// CHECK-NEXT: %a = arith.constant 1 : i32
// CHECK-NEXT: memref.store %a, %out[%i_1] : memref<16xi32>
// CHECK-NEXT: }
// CHECK-NEXT: scf.for %i_2 = %c15 to %c16 step %c1 {
// CHECK-NEXT: %b_1 = arith.constant 0 : i32
// CHECK-NEXT: memref.store %b_1, %out[%i_2] : memref<16xi32>
// CHECK-NEXT: }
// CHECK-NEXT: %0 = arith.maxsi %c0, %n : index
// CHECK-NEXT: %1 = arith.minsi %0, %c15 : index
// CHECK-NEXT: %2 = arith.maxsi %c0, %1 : index
// CHECK-NEXT: scf.for %i_3 = %c0 to %2 step %c1 {
// CHECK-NEXT: %z = arith.constant 7 : i32
// CHECK-NEXT: memref.store %z, %out[%i_3] : memref<16xi32>
// CHECK-NEXT: }
// CHECK-NEXT: scf.for %i_4 = %2 to %n step %c1 {
// CHECK-NEXT: %y = arith.constant 9 : i32
// CHECK-NEXT: memref.store %y, %out[%i_4] : memref<16xi32>
// CHECK-NEXT: }
// CHECK-NEXT: func.return

// -----

// 2-D: the outer loop splits on y, then each copy of the inner loop splits on x;
// only the interior copy stores %inner.
func.func @two_d(%out: memref<8x8xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  %edge = arith.constant 0 : i32
  %inner = arith.constant 1 : i32
  scf.for %y = %c0 to %c8 step %c1 {
    scf.for %x = %c0 to %c8 step %c1 {
      %y0 = arith.cmpi sge, %y, %c1 : index
      %y1 = arith.cmpi slt, %y, %c7 : index
      %x0 = arith.cmpi sge, %x, %c1 : index
      %x1 = arith.cmpi slt, %x, %c7 : index
      %iny = arith.andi %y0, %y1 : i1
      %inx = arith.andi %x0, %x1 : i1
      %in = arith.andi %iny, %inx : i1
      %v = arith.select %in, %inner, %edge : i32
      memref.store %v, %out[%y, %x] : memref<8x8xi32>
    }
  }
  func.return
}

// CHECK:      func.func @two_d(%out: memref<8x8xi32>) {
// CHECK-NEXT: %c0 = arith.constant 0 : index
// CHECK-NEXT: %c1 = arith.constant 1 : index
// CHECK-NEXT: %c7 = arith.constant 7 : index
// CHECK-NEXT: %c8 = arith.constant 8 : index
// CHECK-NEXT: %edge = arith.constant 0 : i32
// CHECK-NEXT: %inner = arith.constant 1 : i32
// CHECK-NEXT: scf.for %y = %c0 to %c1 step %c1 {
// CHECK-NEXT: scf.for %x = %c0 to %c8 step %c1 {
// CHECK-NEXT: memref.store %edge, %out[%y, %x] : memref<8x8xi32>
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: scf.for %y_1 = %c1 to %c7 step %c1 {
// CHECK-NEXT: scf.for %x_1 = %c0 to %c1 step %c1 {
// CHECK-NEXT: memref.store %edge, %out[%y_1, %x_1] : memref<8x8xi32>
// CHECK-NEXT: }
// CHECK-NEXT: scf.for %x_2 = %c1 to %c7 step %c1 {
// CHECK-NEXT: memref.store %inner, %out[%y_1, %x_2] : memref<8x8xi32>
// CHECK-NEXT: }
// CHECK-NEXT: scf.for %x_3 = %c7 to %c8 step %c1 {
// CHECK-NEXT: memref.store %edge, %out[%y_1, %x_3] : memref<8x8xi32>
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: scf.for %y_2 = %c7 to %c8 step %c1 {
// CHECK-NEXT: scf.for %x_4 = %c0 to %c8 step %c1 {
// CHECK-NEXT: memref.store %edge, %out[%y_2, %x_4] : memref<8x8xi32>
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: func.return

// -----

// Dynamic bound and a loop-carried value: i + 1 >= n holds from n - 1 on; the
// prologue reads out[i + 1], the epilogue uses 100, and the sum flows through.
func.func @dynamic(%out: memref<?xi32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0 : i32
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (i32) {
    %i1 = arith.addi %i, %c1 : index
    %last = arith.cmpi sge, %i1, %n : index
    %v = scf.if %last -> (i32) {
      %e = arith.constant 100 : i32
      scf.yield %e : i32
    } else {
      %x = memref.load %out[%i1] : memref<?xi32>
      scf.yield %x : i32
    }
    %s = arith.addi %acc, %v : i32
    memref.store %s, %out[%i] : memref<?xi32>
    scf.yield %s : i32
  }
  func.return
}

// CHECK:      func.func @dynamic(%out: memref<?xi32>, %n: index) {
// CHECK-NEXT: %c0 = arith.constant 0 : index
// CHECK-NEXT: %c1 = arith.constant 1 : index
// CHECK-NEXT: %zero = arith.constant 0 : i32
// CHECK-NEXT: %0 = arith.maxsi %c0, %n : index
// CHECK-NEXT: %1 = arith.constant -1 : index
// CHECK-NEXT: %2 = arith.addi %n, %1 : index
// CHECK-NEXT: %3 = arith.minsi %0, %2 : index
// CHECK-NEXT: %4 = arith.maxsi %c0, %3 : index
// CHECK-NEXT: %r = scf.for %i = %c0 to %4 step %c1 iter_args(%acc = %zero) -> (i32) {
// CHECK-NEXT: %i1 = arith.addi %i, %c1 : index
// CHECK-NEXT: %x = memref.load %out[%i1] : memref<?xi32>
// CHECK-NEXT: %s = arith.addi %acc, %x : i32
// CHECK-NEXT: memref.store %s, %out[%i] : memref<?xi32>
// CHECK-NEXT: scf.yield %s : i32
// CHECK-NEXT: }
// CHECK-NEXT: %r_1 = scf.for %i_1 = %4 to %n step %c1 iter_args(%acc_1 = %r) -> (i32) {
// CHECK-NEXT: %e = arith.constant 100 : i32
// CHECK-NEXT: %s_1 = arith.addi %acc_1, %e : i32
// CHECK-NEXT: memref.store %s_1, %out[%i_1] : memref<?xi32>
// CHECK-NEXT: scf.yield %s_1 : i32
// CHECK-NEXT: }
// CHECK-NEXT: func.return

// -----

// Two dynamic split points with step 2: each is clamped to [0, max(0, n)] and
// rounded up to the step; their order is only known at run time, so the middle
// part is versioned on it (lo <= hi: inside, else: outside both tests).
func.func @two_dynamic_splits(%out: memref<?xi32>, %lo: index, %hi: index, %n: index) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %a = arith.constant 1 : i32
  %b = arith.constant 2 : i32
  scf.for %i = %c0 to %n step %c2 {
    %ge = arith.cmpi sge, %i, %lo : index
    %lt = arith.cmpi slt, %i, %hi : index
    %in = arith.andi %ge, %lt : i1
    %v = arith.select %in, %a, %b : i32
    memref.store %v, %out[%i] : memref<?xi32>
  }
  func.return
}

// CHECK:      func.func @two_dynamic_splits(%out: memref<?xi32>, %lo: index, %hi: index, %n: index) {
// CHECK-NEXT: %c0 = arith.constant 0 : index
// CHECK-NEXT: %c2 = arith.constant 2 : index
// CHECK-NEXT: %a = arith.constant 1 : i32
// CHECK-NEXT: %b = arith.constant 2 : i32
// CHECK-NEXT: %0 = arith.maxsi %c0, %n : index
// CHECK-NEXT: %1 = arith.minsi %0, %lo : index
// CHECK-NEXT: %2 = arith.maxsi %c0, %1 : index
// CHECK-NEXT: %3 = arith.ceildivui %2, %c2 : index
// CHECK-NEXT: %4 = arith.muli %3, %c2 : index
// CHECK-NEXT: %5 = arith.minsi %0, %4 : index
// CHECK-NEXT: %6 = arith.minsi %0, %hi : index
// CHECK-NEXT: %7 = arith.maxsi %c0, %6 : index
// CHECK-NEXT: %8 = arith.ceildivui %7, %c2 : index
// CHECK-NEXT: %9 = arith.muli %8, %c2 : index
// CHECK-NEXT: %10 = arith.minsi %0, %9 : index
// CHECK-NEXT: %11 = arith.minsi %5, %10 : index
// CHECK-NEXT: %12 = arith.maxsi %5, %10 : index
// CHECK-NEXT: %13 = arith.cmpi sle, %5, %10 : index
// CHECK-NEXT: scf.for %i = %c0 to %11 step %c2 {
// CHECK-NEXT: memref.store %b, %out[%i] : memref<?xi32>
// CHECK-NEXT: }
// CHECK-NEXT: scf.if %13 {
// CHECK-NEXT: scf.for %i_1 = %11 to %12 step %c2 {
// CHECK-NEXT: memref.store %a, %out[%i_1] : memref<?xi32>
// CHECK-NEXT: }
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.for %i_2 = %11 to %12 step %c2 {
// CHECK-NEXT: memref.store %b, %out[%i_2] : memref<?xi32>
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: scf.for %i_3 = %12 to %n step %c2 {
// CHECK-NEXT: memref.store %b, %out[%i_3] : memref<?xi32>
// CHECK-NEXT: }
// CHECK-NEXT: func.return

// -----

// iv <= INT64_MAX would split at INT64_MAX + 1, which index cannot hold: the loop is
// left alone rather than split at a wrapped bound.
func.func @unrepresentable_split(%out: memref<16xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %max = arith.constant 9223372036854775807 : index
  scf.for %i = %c0 to %c16 step %c1 {
    %le = arith.cmpi sle, %i, %max : index
    %z = arith.constant 7 : i32
    %y = arith.constant 9 : i32
    %s = arith.select %le, %z, %y : i32
    memref.store %s, %out[%i] : memref<16xi32>
  }
  func.return
}

// CHECK:      %max = arith.constant 9223372036854775807 : index
// CHECK-NEXT: scf.for %i = %c0 to %c16 step %c1 {
// CHECK-NEXT:   %le = arith.cmpi sle, %i, %max : index
// CHECK:      }
// CHECK-NEXT: func.return
