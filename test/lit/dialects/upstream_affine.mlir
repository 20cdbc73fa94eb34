// RUN: disc-opt %s | FileCheck %s
// RUN: disc-opt %s | disc-opt | FileCheck %s
// RUN: disc-opt --mlir-print-op-generic %s | disc-opt | FileCheck %s

// Affine maps printed as attributes get aliases, as mlir-opt prints them.
// CHECK: #map = affine_map<(d0)[s0, s1] -> ((d0 - s0) ceildiv s1)>
// CHECK: #map1 = affine_map<(d0)[s0, s1] -> (d0 * s0 + s1)>
// CHECK: #map2 = affine_map<(d0)[s0] -> (d0 floordiv s0)>
// CHECK: #map3 = affine_map<(d0)[s0] -> (d0 mod s0)>
// CHECK: #map4 = affine_map<(d0)[s0] -> (d0 * s0)>
// CHECK: #map5 = affine_map<(d0)[s0] -> (d0 ceildiv (s0 * 2))>
// CHECK: #map6 = affine_map<(d0, d1) -> (d0 * 4 + d1 - 3)>
// CHECK: #map7 = affine_map<(d0) -> (-d0 + 2)>
// CHECK: #map8 = affine_map<(d0, d1) -> ((d0 + 2) mod 3 - d1 * 2)>
// CHECK: #map9 = affine_map<() -> (0)>
// CHECK: #map10 = affine_map<(d0)[s0] -> (d0, s0, 4)>
// CHECK: #map11 = affine_map<(d0) -> (d0 floordiv 2, 1)>

// Semi-affine maps (symbolic ceildiv/floordiv/mod/mul) parse and print as MLIR.
// CHECK-LABEL: func.func @semi_affine(
// CHECK: affine.apply #map(%arg0)[%arg1, %arg2]
// CHECK-NEXT: affine.apply #map1(%arg0)[%arg1, %arg2]
// CHECK-NEXT: affine.apply #map2(%arg0)[%arg1]
// CHECK-NEXT: affine.apply #map3(%arg0)[%arg1]
// CHECK-NEXT: affine.apply #map4(%arg0)[%arg1]
// CHECK-NEXT: affine.apply #map5(%arg0)[%arg1]
#map0 = affine_map<(d0)[s0, s1] -> ((d0 - s0) ceildiv s1)>
#map1 = affine_map<(d0)[s0, s1] -> (d0 * s0 + s1)>
func.func @semi_affine(%a: index, %b: index, %c: index) {
  %0 = affine.apply #map0(%a)[%b, %c]
  %1 = affine.apply #map1(%a)[%b, %c]
  %2 = affine.apply affine_map<(d0)[s0] -> (d0 floordiv s0)>(%a)[%b]
  %3 = affine.apply affine_map<(d0)[s0] -> (d0 mod s0)>(%a)[%b]
  %4 = affine.apply affine_map<(d0)[s0] -> (s0 * d0)>(%a)[%b]
  %5 = affine.apply affine_map<(d0)[s0] -> (d0 ceildiv (s0 * 2))>(%a)[%b]
  return
}

// Pure affine expressions print MLIR's spelling (no extra parentheses,
// subtraction and negation).
// CHECK-LABEL: func.func @pretty(
// CHECK: affine.apply #map6(%arg0, %arg1)
// CHECK-NEXT: affine.apply #map7(%arg0)
// CHECK-NEXT: affine.apply #map8(%arg0, %arg1)
// CHECK-NEXT: affine.apply #map9()
// CHECK-NEXT: affine.min #map10(%arg0)[%arg1]
// CHECK-NEXT: affine.max #map11(%arg0) {tag}
func.func @pretty(%a: index, %b: index) {
  %0 = affine.apply affine_map<(d0, d1) -> (d0 * 4 + d1 - 3)>(%a, %b)
  %1 = affine.apply affine_map<(d0) -> (2 - d0)>(%a)
  %2 = affine.apply affine_map<(d0, d1) -> ((d0 + 2) mod 3 - d1 * 2)>(%a, %b)
  %3 = affine.apply affine_map<() -> (0)>()
  %4 = affine.min affine_map<(d0)[s0] -> (d0, s0, 4)>(%a)[%b]
  %5 = affine.max affine_map<(d0) -> (d0 floordiv 2, 1)>(%a) {tag}
  return
}
