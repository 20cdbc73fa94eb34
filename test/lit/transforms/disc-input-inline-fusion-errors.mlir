// RUN: not disc-opt %s -disc-input-inline-fusion 2>&1 | FileCheck %s

// An lmhlo op left in a (non-stitch) fusion after inlining is an error.
// CHECK: 'lmhlo.abs' op: unexpected remaining operation in a FusionOp
func.func @no_loops(%a: memref<?xf32>, %b: memref<?xf32>) -> memref<?xf32> {
  "lmhlo.fusion"() ({
    "lmhlo.abs"(%a, %b) : (memref<?xf32>, memref<?xf32>) -> ()
    "lmhlo.terminator"() : () -> ()
  }) {disc.device = "cpu", disc.fusion.name = "none", disc.fusion_type = "kLoop"} : () -> ()
  return %b : memref<?xf32>
}
