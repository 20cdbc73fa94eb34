// RUN: disc-opt -split-input-file -pass-pipeline='builtin.module(func.func(disc-fusion{gpu-enabled=false fusion-strategy=stitch}))' %s | FileCheck %s
// RUN: disc-opt -split-input-file -pass-pipeline='builtin.module(func.func(disc-fusion{gpu-enabled=false fusion-strategy=base}))' %s | FileCheck %s --check-prefix=BASE

// CPU stitch fusion (the CPU default): ops of different schedules (row
// reductions, broadcasts, elementwise ops of two ranks) become one kStitch
// kernel sharing per-row tile buffers. Scalar constants stay outside.

// A row softmax: max-reduce, subtract, exp, sum-reduce, divide.
// CHECK-LABEL: func.func @softmax
// CHECK-SAME: (%[[X:.*]]: memref<?x?xf32>)
// CHECK: "lmhlo.constant"(%[[NINF:.*]]) {value = dense<0xFF800000> : tensor<f32>}
// CHECK: "lmhlo.constant"(%[[ZERO:.*]]) {value = dense<0.000000e+00> : tensor<f32>}
// CHECK: "lmhlo.fusion"() ({
// CHECK-NEXT: "lmhlo.reduce"(%[[X]], %[[NINF]], %[[MAX:.*]]) ({
// CHECK: "lmhlo.maximum"
// CHECK: }) {dimensions = dense<1> : tensor<1xi64>}
// CHECK-NEXT: "lmhlo.dynamic_broadcast_in_dim"(%[[MAX]], %[[SHAPE:.*]], %[[MAXB:.*]]) {broadcast_dimensions = dense<0> : tensor<1xi64>}
// CHECK-NEXT: "lmhlo.subtract"(%[[X]], %[[MAXB]], %[[SUB:.*]]) :
// CHECK-NEXT: "lmhlo.exponential"(%[[SUB]], %[[EXP:.*]]) :
// CHECK-NEXT: "lmhlo.reduce"(%[[EXP]], %[[ZERO]], %[[SUM:.*]]) ({
// CHECK: "lmhlo.add"
// CHECK: }) {dimensions = dense<1> : tensor<1xi64>}
// CHECK-NEXT: "lmhlo.dynamic_broadcast_in_dim"(%[[SUM]], %[[SHAPE]], %[[SUMB:.*]]) {broadcast_dimensions = dense<0> : tensor<1xi64>}
// CHECK-NEXT: "lmhlo.divide"(%[[EXP]], %[[SUMB]], %[[OUT:.*]]) :
// CHECK-NEXT: "lmhlo.terminator"() : () -> ()
// CHECK-NEXT: }) {disc.device = "cpu", disc.fusion.name = "softmax_kStitch_divide__7_1_0", disc.fusion_type = "kStitch"} : () -> ()
// CHECK-NEXT: return %[[OUT]] : memref<?x?xf32>
// The base strategy needs two reductions plus two loop kernels.
// BASE-LABEL: func.func @softmax
// BASE: "lmhlo.reduce"
// BASE: disc.fusion_type = "kLoop"
// BASE: "lmhlo.reduce"
// BASE: disc.fusion_type = "kLoop"
// BASE-NEXT: return
func.func @softmax(%arg0: memref<?x?xf32>) -> memref<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d0 = memref.dim %arg0, %c0 : memref<?x?xf32>
  %d1 = memref.dim %arg0, %c1 : memref<?x?xf32>
  %ninf = memref.alloc() : memref<f32>
  "lmhlo.constant"(%ninf) {value = dense<0xFF800000> : tensor<f32>} : (memref<f32>) -> ()
  %max = memref.alloc(%d0) : memref<?xf32>
  "lmhlo.reduce"(%arg0, %ninf, %max) ({
  ^bb0(%a: memref<f32>, %b: memref<f32>, %r: memref<f32>):
    "lmhlo.maximum"(%a, %b, %r) : (memref<f32>, memref<f32>, memref<f32>) -> ()
    "lmhlo.terminator"() : () -> ()
  }) {dimensions = dense<1> : tensor<1xi64>} : (memref<?x?xf32>, memref<f32>, memref<?xf32>) -> ()
  %shape = memref.alloca() : memref<2xindex>
  memref.store %d0, %shape[%c0] : memref<2xindex>
  memref.store %d1, %shape[%c1] : memref<2xindex>
  %maxb = memref.alloc(%d0, %d1) : memref<?x?xf32>
  "lmhlo.dynamic_broadcast_in_dim"(%max, %shape, %maxb) {broadcast_dimensions = dense<0> : tensor<1xi64>} : (memref<?xf32>, memref<2xindex>, memref<?x?xf32>) -> ()
  %sub = memref.alloc(%d0, %d1) : memref<?x?xf32>
  "lmhlo.subtract"(%arg0, %maxb, %sub) : (memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) -> ()
  %exp = memref.alloc(%d0, %d1) : memref<?x?xf32>
  "lmhlo.exponential"(%sub, %exp) : (memref<?x?xf32>, memref<?x?xf32>) -> ()
  %zero = memref.alloc() : memref<f32>
  "lmhlo.constant"(%zero) {value = dense<0.0> : tensor<f32>} : (memref<f32>) -> ()
  %sum = memref.alloc(%d0) : memref<?xf32>
  "lmhlo.reduce"(%exp, %zero, %sum) ({
  ^bb0(%a: memref<f32>, %b: memref<f32>, %r: memref<f32>):
    "lmhlo.add"(%a, %b, %r) : (memref<f32>, memref<f32>, memref<f32>) -> ()
    "lmhlo.terminator"() : () -> ()
  }) {dimensions = dense<1> : tensor<1xi64>} : (memref<?x?xf32>, memref<f32>, memref<?xf32>) -> ()
  %sumb = memref.alloc(%d0, %d1) : memref<?x?xf32>
  "lmhlo.dynamic_broadcast_in_dim"(%sum, %shape, %sumb) {broadcast_dimensions = dense<0> : tensor<1xi64>} : (memref<?xf32>, memref<2xindex>, memref<?x?xf32>) -> ()
  %out = memref.alloc(%d0, %d1) : memref<?x?xf32>
  "lmhlo.divide"(%exp, %sumb, %out) : (memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) -> ()
  return %out : memref<?x?xf32>
}

// -----

// A layer norm over the last axis: mean, centred square, variance, rsqrt,
// scale and shift by per-column gamma / beta.
// CHECK-LABEL: func.func @layernorm
// CHECK-SAME: (%[[X:.*]]: memref<?x?xf32>, %[[GAMMA:.*]]: memref<?xf32>, %[[BETA:.*]]: memref<?xf32>)
// CHECK: "lmhlo.constant"(%[[ZERO:.*]]) {value = dense<0.000000e+00> : tensor<f32>}
// CHECK-NEXT: %[[NBUF:.*]] = memref.alloc() : memref<f32>
// CHECK-NEXT: "lmhlo.constant"(%[[NBUF]]) {value = dense<7.680000e+02> : tensor<f32>}
// CHECK-NEXT: %[[EBUF:.*]] = memref.alloc() : memref<f32>
// CHECK-NEXT: "lmhlo.constant"(%[[EBUF]]) {value = dense<1.000000e-05> : tensor<f32>}
// CHECK: "lmhlo.fusion"() ({
// CHECK-NEXT: "lmhlo.reduce"(%[[X]], %[[ZERO]], %[[SUM:.*]]) ({
// CHECK: }) {dimensions = dense<1> : tensor<1xi64>}
// CHECK-NEXT: "lmhlo.dynamic_broadcast_in_dim"(%[[NBUF]], %[[S1:.*]], %[[NB:.*]]) {broadcast_dimensions = dense<> : tensor<0xi64>}
// CHECK-NEXT: "lmhlo.divide"(%[[SUM]], %[[NB]], %[[MEAN:.*]]) :
// CHECK-NEXT: "lmhlo.dynamic_broadcast_in_dim"(%[[MEAN]], %[[S2:.*]], %[[MEANB:.*]]) {broadcast_dimensions = dense<0> : tensor<1xi64>}
// CHECK-NEXT: "lmhlo.subtract"(%[[X]], %[[MEANB]], %[[XC:.*]]) :
// CHECK-NEXT: "lmhlo.multiply"(%[[XC]], %[[XC]], %[[SQ:.*]]) :
// CHECK-NEXT: "lmhlo.reduce"(%[[SQ]], %[[ZERO]], %[[VSUM:.*]]) ({
// CHECK: }) {dimensions = dense<1> : tensor<1xi64>}
// CHECK-NEXT: "lmhlo.divide"(%[[VSUM]], %[[NB]], %[[VAR:.*]]) :
// CHECK-NEXT: "lmhlo.dynamic_broadcast_in_dim"(%[[EBUF]], %[[S1]], %[[EPSB:.*]]) {broadcast_dimensions = dense<> : tensor<0xi64>}
// CHECK-NEXT: "lmhlo.add"(%[[VAR]], %[[EPSB]], %[[VPE:.*]]) :
// CHECK-NEXT: "lmhlo.rsqrt"(%[[VPE]], %[[RSTD:.*]]) :
// CHECK-NEXT: "lmhlo.dynamic_broadcast_in_dim"(%[[RSTD]], %[[S2]], %[[RSTDB:.*]]) {broadcast_dimensions = dense<0> : tensor<1xi64>}
// CHECK-NEXT: "lmhlo.multiply"(%[[XC]], %[[RSTDB]], %[[NORM:.*]]) :
// CHECK-NEXT: "lmhlo.dynamic_broadcast_in_dim"(%[[GAMMA]], %[[S2]], %[[GB:.*]]) {broadcast_dimensions = dense<1> : tensor<1xi64>}
// CHECK-NEXT: "lmhlo.multiply"(%[[NORM]], %[[GB]], %[[SCALED:.*]]) :
// CHECK-NEXT: "lmhlo.dynamic_broadcast_in_dim"(%[[BETA]], %[[S2]], %[[BB:.*]]) {broadcast_dimensions = dense<1> : tensor<1xi64>}
// CHECK-NEXT: "lmhlo.add"(%[[SCALED]], %[[BB]], %[[OUT:.*]]) :
// CHECK-NEXT: "lmhlo.terminator"() : () -> ()
// CHECK-NEXT: }) {disc.device = "cpu", disc.fusion.name = "layernorm_kStitch_add__17_1_0", disc.fusion_type = "kStitch"} : () -> ()
// CHECK-NEXT: return %[[OUT]] : memref<?x?xf32>
// BASE-LABEL: func.func @layernorm
// BASE-COUNT-3: "lmhlo.fusion"
// BASE-NOT: "lmhlo.fusion"
// BASE: return
func.func @layernorm(%x: memref<?x?xf32>, %gamma: memref<?xf32>, %beta: memref<?xf32>) -> memref<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d0 = memref.dim %x, %c0 : memref<?x?xf32>
  %d1 = memref.dim %x, %c1 : memref<?x?xf32>
  %s1 = memref.alloca() : memref<1xindex>
  memref.store %d0, %s1[%c0] : memref<1xindex>
  %s2 = memref.alloca() : memref<2xindex>
  memref.store %d0, %s2[%c0] : memref<2xindex>
  memref.store %d1, %s2[%c1] : memref<2xindex>
  %zero = memref.alloc() : memref<f32>
  "lmhlo.constant"(%zero) {value = dense<0.0> : tensor<f32>} : (memref<f32>) -> ()
  %n = memref.alloc() : memref<f32>
  "lmhlo.constant"(%n) {value = dense<768.0> : tensor<f32>} : (memref<f32>) -> ()
  %eps = memref.alloc() : memref<f32>
  "lmhlo.constant"(%eps) {value = dense<1.0e-05> : tensor<f32>} : (memref<f32>) -> ()
  %sum = memref.alloc(%d0) : memref<?xf32>
  "lmhlo.reduce"(%x, %zero, %sum) ({
  ^bb0(%a: memref<f32>, %b: memref<f32>, %r: memref<f32>):
    "lmhlo.add"(%a, %b, %r) : (memref<f32>, memref<f32>, memref<f32>) -> ()
    "lmhlo.terminator"() : () -> ()
  }) {dimensions = dense<1> : tensor<1xi64>} : (memref<?x?xf32>, memref<f32>, memref<?xf32>) -> ()
  %nb = memref.alloc(%d0) : memref<?xf32>
  "lmhlo.dynamic_broadcast_in_dim"(%n, %s1, %nb) {broadcast_dimensions = dense<> : tensor<0xi64>} : (memref<f32>, memref<1xindex>, memref<?xf32>) -> ()
  %mean = memref.alloc(%d0) : memref<?xf32>
  "lmhlo.divide"(%sum, %nb, %mean) : (memref<?xf32>, memref<?xf32>, memref<?xf32>) -> ()
  %meanb = memref.alloc(%d0, %d1) : memref<?x?xf32>
  "lmhlo.dynamic_broadcast_in_dim"(%mean, %s2, %meanb) {broadcast_dimensions = dense<0> : tensor<1xi64>} : (memref<?xf32>, memref<2xindex>, memref<?x?xf32>) -> ()
  %xc = memref.alloc(%d0, %d1) : memref<?x?xf32>
  "lmhlo.subtract"(%x, %meanb, %xc) : (memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) -> ()
  %sq = memref.alloc(%d0, %d1) : memref<?x?xf32>
  "lmhlo.multiply"(%xc, %xc, %sq) : (memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) -> ()
  %vsum = memref.alloc(%d0) : memref<?xf32>
  "lmhlo.reduce"(%sq, %zero, %vsum) ({
  ^bb0(%a: memref<f32>, %b: memref<f32>, %r: memref<f32>):
    "lmhlo.add"(%a, %b, %r) : (memref<f32>, memref<f32>, memref<f32>) -> ()
    "lmhlo.terminator"() : () -> ()
  }) {dimensions = dense<1> : tensor<1xi64>} : (memref<?x?xf32>, memref<f32>, memref<?xf32>) -> ()
  %var = memref.alloc(%d0) : memref<?xf32>
  "lmhlo.divide"(%vsum, %nb, %var) : (memref<?xf32>, memref<?xf32>, memref<?xf32>) -> ()
  %epsb = memref.alloc(%d0) : memref<?xf32>
  "lmhlo.dynamic_broadcast_in_dim"(%eps, %s1, %epsb) {broadcast_dimensions = dense<> : tensor<0xi64>} : (memref<f32>, memref<1xindex>, memref<?xf32>) -> ()
  %vpe = memref.alloc(%d0) : memref<?xf32>
  "lmhlo.add"(%var, %epsb, %vpe) : (memref<?xf32>, memref<?xf32>, memref<?xf32>) -> ()
  %rstd = memref.alloc(%d0) : memref<?xf32>
  "lmhlo.rsqrt"(%vpe, %rstd) : (memref<?xf32>, memref<?xf32>) -> ()
  %rstdb = memref.alloc(%d0, %d1) : memref<?x?xf32>
  "lmhlo.dynamic_broadcast_in_dim"(%rstd, %s2, %rstdb) {broadcast_dimensions = dense<0> : tensor<1xi64>} : (memref<?xf32>, memref<2xindex>, memref<?x?xf32>) -> ()
  %norm = memref.alloc(%d0, %d1) : memref<?x?xf32>
  "lmhlo.multiply"(%xc, %rstdb, %norm) : (memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) -> ()
  %gb = memref.alloc(%d0, %d1) : memref<?x?xf32>
  "lmhlo.dynamic_broadcast_in_dim"(%gamma, %s2, %gb) {broadcast_dimensions = dense<1> : tensor<1xi64>} : (memref<?xf32>, memref<2xindex>, memref<?x?xf32>) -> ()
  %scaled = memref.alloc(%d0, %d1) : memref<?x?xf32>
  "lmhlo.multiply"(%norm, %gb, %scaled) : (memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) -> ()
  %bb = memref.alloc(%d0, %d1) : memref<?x?xf32>
  "lmhlo.dynamic_broadcast_in_dim"(%beta, %s2, %bb) {broadcast_dimensions = dense<1> : tensor<1xi64>} : (memref<?xf32>, memref<2xindex>, memref<?x?xf32>) -> ()
  %out = memref.alloc(%d0, %d1) : memref<?x?xf32>
  "lmhlo.add"(%scaled, %bb, %out) : (memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) -> ()
  return %out : memref<?x?xf32>
}

// -----

// A column reduction is not a stitch op: the last (base) stage of the
// pipeline gives it a kInput fusion with its producer; its consumer stays out.
// CHECK-LABEL: func.func @col_reduce_not_stitched
// CHECK-NEXT: "lmhlo.fusion"() ({
// CHECK-NEXT: "lmhlo.exponential"
// CHECK-NEXT: "lmhlo.reduce"
// CHECK: }) {dimensions = dense<0> : tensor<1xi64>}
// CHECK-NEXT: "lmhlo.terminator"
// CHECK-NEXT: }) {disc.device = "cpu", disc.fusion.name = "col_reduce_not_stitched_kInput_reduce__2_1_0", disc.fusion_type = "kInput"}
// CHECK-NEXT: "lmhlo.negate"
// CHECK-NEXT: return
func.func @col_reduce_not_stitched(%x: memref<?x?xf32>, %init: memref<f32>, %t: memref<?x?xf32>, %r: memref<?xf32>, %o: memref<?xf32>) -> memref<?xf32> {
  "lmhlo.exponential"(%x, %t) : (memref<?x?xf32>, memref<?x?xf32>) -> ()
  "lmhlo.reduce"(%t, %init, %r) ({
  ^bb0(%a: memref<f32>, %b: memref<f32>, %c: memref<f32>):
    "lmhlo.add"(%a, %b, %c) : (memref<f32>, memref<f32>, memref<f32>) -> ()
    "lmhlo.terminator"() : () -> ()
  }) {dimensions = dense<0> : tensor<1xi64>} : (memref<?x?xf32>, memref<f32>, memref<?xf32>) -> ()
  "lmhlo.negate"(%r, %o) : (memref<?xf32>, memref<?xf32>) -> ()
  return %o : memref<?xf32>
}
