// RUN: disc-opt %s | FileCheck %s
// RUN: disc-opt %s | disc-opt | FileCheck %s
// RUN: disc-opt --mlir-print-op-generic %s | disc-opt | FileCheck %s

// The disc_shape dialect prints in generic form; operand segments are the
// `operand_segment_sizes` attribute, as in BladeDISC's MLIR.

// CHECK: module {
// CHECK-NEXT: "disc_shape.SymbolicDim"() {knownNegativeOne = false, knownNonNegative = true, knownNonSizeOne = false, knownNonSizeZero = false, sym_name = "S0", value = -9223372036854775808 : i64} : () -> ()
"disc_shape.SymbolicDim"() {knownNegativeOne = false, knownNonNegative = true, knownNonSizeOne = false, knownNonSizeZero = false, sym_name = "S0", value = -9223372036854775808 : i64} : () -> ()
// CHECK-NEXT: "disc_shape.SymbolicDim"() {knownNegativeOne = false, knownNonNegative = true, knownNonSizeOne = true, knownNonSizeZero = true, sym_name = "C64", value = 64 : i64} : () -> ()
"disc_shape.SymbolicDim"() {knownNegativeOne = false, knownNonNegative = true, knownNonSizeOne = true, knownNonSizeZero = true, sym_name = "C64", value = 64 : i64} : () -> ()
// Default-valued attributes may be absent.
// CHECK-NEXT: "disc_shape.SymbolicDim"() {sym_name = "S1"} : () -> ()
"disc_shape.SymbolicDim"() {sym_name = "S1"} : () -> ()

// CHECK-LABEL: func.func @linearize(
func.func @linearize(%i: index, %j: index, %d0: index, %d1: index) -> (index, index) {
  // CHECK: %0 = "disc_shape.linearize"(%arg0, %arg1, %arg2, %arg3) {operand_segment_sizes = array<i32: 2, 2>} : (index, index, index, index) -> index
  %0 = "disc_shape.linearize"(%i, %j, %d0, %d1) {operand_segment_sizes = array<i32: 2, 2>} : (index, index, index, index) -> index
  // Today's `operandSegmentSizes` property is accepted and renamed.
  // CHECK: %1 = "disc_shape.linearize"(%arg0, %arg2) {operand_segment_sizes = array<i32: 1, 1>} : (index, index) -> index
  %1 = "disc_shape.linearize"(%i, %d0) <{operandSegmentSizes = array<i32: 1, 1>}> : (index, index) -> index
  // CHECK: %2:2 = "disc_shape.delinearize"(%0, %arg2, %arg3) : (index, index, index) -> (index, index)
  %2:2 = "disc_shape.delinearize"(%0, %d0, %d1) : (index, index, index) -> (index, index)
  return %2#0, %1 : index, index
}

// CHECK-LABEL: func.func @tie_shape(
func.func @tie_shape(%t: tensor<?x?xf32, [@S0, @C64]>, %d0: index, %d1: index) -> tensor<?x?xf32, [@S0, @C64]> {
  // CHECK: %0 = "disc_shape.tie_shape"(%arg0, %arg1, %arg2) : (tensor<?x?xf32, [@S0, @C64]>, index, index) -> tensor<?x?xf32, [@S0, @C64]>
  %0 = "disc_shape.tie_shape"(%t, %d0, %d1) : (tensor<?x?xf32, [@S0, @C64]>, index, index) -> tensor<?x?xf32, [@S0, @C64]>
  return %0 : tensor<?x?xf32, [@S0, @C64]>
}

// CHECK-LABEL: func.func @dims(
func.func @dims(%a: index, %b: index, %c: index) -> index {
  // CHECK: %0 = "disc_shape.dim"() {name = @S0} : () -> index
  %0 = "disc_shape.dim"() {name = @S0} : () -> index
  // CHECK: "disc_shape.tie_product_equal"(%arg0, %arg1, %0) {operand_segment_sizes = array<i32: 2, 1>} : (index, index, index) -> ()
  "disc_shape.tie_product_equal"(%a, %b, %0) {operand_segment_sizes = array<i32: 2, 1>} : (index, index, index) -> ()
  return %0 : index
}
