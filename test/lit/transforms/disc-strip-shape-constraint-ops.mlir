// RUN: disc-opt %s -disc-strip-shape-constraint-ops | FileCheck %s

// CHECK-NOT: disc_shape.SymbolicDim
// CHECK-NOT: shape_constraint_graph
// CHECK: func.func @main(%arg0: tensor<?xf32, [@S0]>) -> tensor<?xf32, [@S0]>
// CHECK-NEXT: return %arg0
module {
  "disc_shape.SymbolicDim"() {knownNegativeOne = false, knownNonNegative = true, knownNonSizeOne = false, knownNonSizeZero = false, sym_name = "S0", value = -9223372036854775808 : i64} : () -> ()
  func.func @main(%arg0: tensor<?xf32, [@S0]>) -> tensor<?xf32, [@S0]> {
    return %arg0 : tensor<?xf32, [@S0]>
  }
  func.func @shape_constraint_graph() {
    %0 = "disc_shape.dim"() {name = @S0} : () -> index
    "disc_shape.tie_product_equal"(%0, %0) {operand_segment_sizes = array<i32: 1, 1>} : (index, index) -> ()
    return
  }
}
