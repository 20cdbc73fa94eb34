// RUN: disc-opt %s -split-input-file -disc-lhlo-legalize-roots-to-parallel-loops=cpu-only=true | FileCheck %s

// Integer `power` is expanded as mlir-hlo does: six squaring steps over the
// exponent's low bits, then the negative-exponent cases (base 1 -> 1, base -1
// -> +-1 by parity, else 0); the last step's unused shift is dropped. No
// `math.ipowi` is left (the LLVM lowering has none).
// CHECK-LABEL: func.func @int_power
// CHECK:         scf.parallel
// CHECK:           %[[B:.*]] = memref.load %arg0
// CHECK:           %[[E:.*]] = memref.load %arg1
// CHECK-COUNT-5:   arith.shrui
// CHECK:           arith.cmpi slt, %[[E]]
// CHECK:           arith.cmpi eq, %[[B]]
// CHECK:           arith.select
// CHECK:           arith.select
// CHECK:           arith.select
// CHECK:           %[[R:.*]] = arith.select
// CHECK-NEXT:      memref.store %[[R]], %{{.*}}[%{{.*}}] : memref<?xi32>
// CHECK-NOT:     math.ipowi
func.func @int_power(%a: memref<?xi32>, %b: memref<?xi32>, %o: memref<?xi32>) -> memref<?xi32> {
  "lmhlo.power"(%a, %b, %o) : (memref<?xi32>, memref<?xi32>, memref<?xi32>) -> ()
  return %o : memref<?xi32>
}

// -----

// Unsigned exponents are never negative: only the squaring steps.
// CHECK-LABEL: func.func @uint_power
// CHECK-COUNT-5:   arith.shrui
// CHECK-NOT:       arith.cmpi slt
// CHECK-NOT:     math.ipowi
func.func @uint_power(%a: memref<?xui32>, %b: memref<?xui32>, %o: memref<?xui32>) -> memref<?xui32> {
  "lmhlo.power"(%a, %b, %o) : (memref<?xui32>, memref<?xui32>, memref<?xui32>) -> ()
  return %o : memref<?xui32>
}
