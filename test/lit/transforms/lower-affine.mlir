// RUN: disc-opt -split-input-file -lower-affine %s | FileCheck %s

// affine.min / affine.max: compare-and-select over the map's results (dims, then symbols).
// CHECK-LABEL: func.func @min_max
// CHECK-SAME: (%[[I:.*]]: index, %[[N:.*]]: index)
// CHECK: %[[M1:.*]] = arith.constant -1 : index
// CHECK: %[[NEG:.*]] = arith.muli %[[I]], %[[M1]] : index
// CHECK: %[[REM:.*]] = arith.addi %[[NEG]], %[[N]] : index
// CHECK: %[[C4:.*]] = arith.constant 4 : index
// CHECK: %[[LT:.*]] = arith.cmpi slt, %[[C4]], %[[REM]] : index
// CHECK: %[[MIN:.*]] = arith.select %[[LT]], %[[C4]], %[[REM]] : index
// CHECK: arith.cmpi sgt
// CHECK: %[[MAX:.*]] = arith.select
// CHECK: %[[S:.*]] = arith.addi %[[MIN]], %[[MAX]] : index
// CHECK: return %[[S]] : index
#map = affine_map<(d0)[s0] -> (-d0 + s0, 4)>
func.func @min_max(%i: index, %n: index) -> index {
  %0 = affine.min #map(%i)[%n]
  %1 = affine.max #map(%i)[%n]
  %2 = arith.addi %0, %1 : index
  return %2 : index
}

// -----

// mod is non-negative; floordiv / ceildiv use the arith ops of the same rounding.
// CHECK-LABEL: func.func @apply
// CHECK-SAME: (%[[I:.*]]: index)
// CHECK: %[[C4:.*]] = arith.constant 4 : index
// CHECK: %[[R:.*]] = arith.remsi %[[I]], %[[C4]] : index
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK: %[[NEG:.*]] = arith.cmpi slt, %[[R]], %[[C0]] : index
// CHECK: %[[SH:.*]] = arith.addi %[[R]], %[[C4]] : index
// CHECK: %[[MOD:.*]] = arith.select %[[NEG]], %[[SH]], %[[R]] : index
// CHECK: arith.floordivsi %[[I]], %{{.*}} : index
// CHECK: arith.ceildivsi %[[I]], %{{.*}} : index
func.func @apply(%i: index) -> (index, index, index) {
  %0 = affine.apply affine_map<(d0) -> (d0 mod 4)>(%i)
  %1 = affine.apply affine_map<(d0) -> (d0 floordiv 4)>(%i)
  %2 = affine.apply affine_map<(d0) -> (d0 ceildiv 3)>(%i)
  return %0, %1, %2 : index, index, index
}
