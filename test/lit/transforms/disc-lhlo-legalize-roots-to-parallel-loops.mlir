// RUN: disc-opt %s -split-input-file -disc-lhlo-legalize-roots-to-parallel-loops=cpu-only=true | FileCheck %s
// RUN: disc-opt %s -split-input-file -disc-lhlo-legalize-roots-to-parallel-loops=cpu-only=false | FileCheck %s --check-prefix=HOST
// RUN: env DISC_REDUCTION_TILE_SIZE=0 disc-opt %s -split-input-file -disc-lhlo-legalize-roots-to-parallel-loops=cpu-only=true | FileCheck %s --check-prefix=NOTILE

// A CPU op outside any fusion: a multi-dimensional parallel loop over its
// output, linear index, 1-D view of the output; the op is erased. Without
// cpu-only (BladeDISC's GPU build: host shape code), a 1-D scf.for.
// CHECK-LABEL: func.func @non_fusion_cpu
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:     %[[C4:.*]] = arith.constant 4 : index
// CHECK:         %[[D0:.*]] = memref.dim %arg2, %[[C0]] : memref<?x4xf32>
// CHECK:         scf.parallel (%[[I:.*]], %[[J:.*]]) = (%[[C0]], %[[C0]]) to (%[[D0]], %[[C4]]) step (%[[C1]], %[[C1]]) {
// CHECK:           %[[LIN:.*]] = "disc_shape.linearize"(%[[I]], %[[J]], %[[D0]], %[[C4]])
// CHECK:           %[[FLAT:.*]] = memref.reinterpret_cast %arg2 to offset: [%[[C0]]], sizes: [%{{.*}}], strides: [%[[C1]]] : memref<?x4xf32> to memref<?xf32>
// CHECK:           %[[IDX:.*]]:2 = "disc_shape.delinearize"(%[[LIN]], %{{.*}}, %[[C4]])
// CHECK:           %[[A:.*]] = memref.load %arg0[%[[IDX]]#0, %[[IDX]]#1] : memref<?x4xf32>
// CHECK:           %[[B:.*]] = memref.load %arg1[%[[IDX]]#0, %[[IDX]]#1] : memref<?x4xf32>
// CHECK:           %[[S:.*]] = arith.addf %[[A]], %[[B]] : f32
// CHECK:           memref.store %[[S]], %[[FLAT]][%[[LIN]]] : memref<?xf32>
// CHECK:         }
// CHECK-NOT:     lmhlo.add
// CHECK:         return %arg2
// HOST-LABEL: func.func @non_fusion_cpu
// HOST:         %[[D:.*]] = memref.dim %arg2
// HOST-NEXT:    %[[N:.*]] = arith.muli %[[D]], %{{.*}} : index
// HOST-NEXT:    scf.for %[[IV:.*]] = %{{.*}} to %[[N]] step %{{.*}} {
// HOST:           "disc_shape.delinearize"(%[[IV]]
// HOST:           arith.addf
// HOST-NOT:     lmhlo.add
func.func @non_fusion_cpu(%a: memref<?x4xf32>, %b: memref<?x4xf32>, %out: memref<?x4xf32>) -> memref<?x4xf32> {
  "lmhlo.add"(%a, %b, %out) : (memref<?x4xf32>, memref<?x4xf32>, memref<?x4xf32>) -> ()
  return %out : memref<?x4xf32>
}

// -----

// kLoop with two roots: one loop nest over the dominant output, emitted
// before the last root; each root writes its output through a 1-D view. The
// non-root producer (abs) stays for disc-input-inline-fusion, the roots go.
// CHECK-LABEL: func.func @kloop_multi_output
// CHECK:         "lmhlo.fusion"() ({
// CHECK-NEXT:      "lmhlo.abs"(%arg0, %arg2)
// CHECK:           scf.parallel (%[[I:.*]], %[[J:.*]]) = (%[[C0:.*]], %[[C0]]) to (%[[D0:.*]], %[[D1:.*]]) step (%[[C1:.*]], %[[C1]]) {
// CHECK:             %[[LIN:.*]] = "disc_shape.linearize"(%[[I]], %[[J]], %[[D0]], %[[D1]])
// CHECK:             %[[F1:.*]] = memref.reinterpret_cast %arg3
// CHECK:             %[[X:.*]]:2 = "disc_shape.delinearize"(%[[LIN]]
// CHECK:             memref.load %arg2[%[[X]]#0, %[[X]]#1]
// CHECK:             memref.load %arg1[%[[X]]#0, %[[X]]#1]
// CHECK:             arith.addf
// CHECK:             memref.store %{{.*}}, %[[F1]][%[[LIN]]]
// CHECK:             %[[F2:.*]] = memref.reinterpret_cast %arg4
// CHECK:             arith.mulf
// CHECK:             memref.store %{{.*}}, %[[F2]][%[[LIN]]]
// CHECK:           }
// CHECK-NOT:       lmhlo.add
// CHECK-NOT:       lmhlo.multiply
// CHECK:           "lmhlo.terminator"() : () -> ()
// CHECK:         }) {disc.device = "cpu", disc.fusion.name = "kloop", disc.fusion_type = "kLoop"} : () -> ()
func.func @kloop_multi_output(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %t: memref<?x?xf32>, %o1: memref<?x?xf32>, %o2: memref<?x?xf32>) -> (memref<?x?xf32>, memref<?x?xf32>) {
  "lmhlo.fusion"() ({
    "lmhlo.abs"(%a, %t) : (memref<?x?xf32>, memref<?x?xf32>) -> ()
    "lmhlo.add"(%t, %b, %o1) : (memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) -> ()
    "lmhlo.multiply"(%t, %b, %o2) : (memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) -> ()
    "lmhlo.terminator"() : () -> ()
  }) {disc.device = "cpu", disc.fusion.name = "kloop", disc.fusion_type = "kLoop"} : () -> ()
  return %o1, %o2 : memref<?x?xf32>, memref<?x?xf32>
}

// -----

// disc_vectorize_or_tile_hint = 4 on a kLoop: a 1-D parallel loop over
// n / 4 with an inner scf.for over the tile, element i * 4 + k.
// CHECK-LABEL: func.func @kloop_tiled
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:     %[[C4:.*]] = arith.constant 4 : index
// CHECK:         %[[N:.*]] = arith.muli
// CHECK:         %[[T:.*]] = arith.divui %[[N]], %[[C4]] : index
// CHECK:         scf.parallel (%[[I:.*]]) = (%[[C0]]) to (%[[T]]) step (%[[C1]]) {
// CHECK-NEXT:      scf.for %[[K:.*]] = %[[C0]] to %[[C4]] step %[[C1]] {
// CHECK-NEXT:        %[[M:.*]] = arith.muli %[[I]], %[[C4]] : index
// CHECK-NEXT:        %[[LIN:.*]] = arith.addi %[[M]], %[[K]] : index
// CHECK:             math.exp
// CHECK:             memref.store %{{.*}}, %{{.*}}[%[[LIN]]] : memref<?xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:    scf.yield
// CHECK-NEXT:    }
func.func @kloop_tiled(%a: memref<?x?xf32>, %o: memref<?x?xf32>) -> memref<?x?xf32> {
  "lmhlo.fusion"() ({
    "lmhlo.exponential"(%a, %o) : (memref<?x?xf32>, memref<?x?xf32>) -> ()
    "lmhlo.terminator"() : () -> ()
  }) {disc.device = "cpu", disc.fusion.name = "kloop_vec", disc.fusion_type = "kLoop", disc_vectorize_or_tile_hint = 4 : i32} : () -> ()
  return %o : memref<?x?xf32>
}

// -----

// kRowReduction on CPU: a parallel loop over the rows; per row an scf.for over
// the reduced elements carrying the accumulator, started from the init value.
// CHECK-LABEL: func.func @row_reduction
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK:           "lmhlo.abs"(%arg0, %arg1)
// CHECK:           %[[ROWS:.*]] = memref.dim %arg3, %[[C0]] : memref<?xf32>
// CHECK:           scf.parallel (%[[I:.*]]) = (%[[C0]]) to (%[[ROWS]]) step (%[[C1]]) {
// CHECK:             %[[LIN:.*]] = "disc_shape.linearize"(%[[I]], %[[ROWS]])
// CHECK:             %[[ROW:.*]] = "disc_shape.delinearize"(%[[LIN]]
// CHECK:             %[[INIT:.*]] = memref.load %arg2[] : memref<f32>
// CHECK:             %[[COLS:.*]] = memref.dim %arg1, %[[C1]] : memref<?x?xf32>
// CHECK:             %[[RED:.*]] = scf.for %[[K:.*]] = %[[C0]] to %[[COLS]] step %[[C1]] iter_args(%[[ACC:.*]] = %[[INIT]]) -> (f32) {
// CHECK:               %[[COL:.*]] = "disc_shape.delinearize"(%[[K]], %[[COLS]])
// CHECK:               %[[X:.*]] = memref.load %arg1[%[[ROW]], %[[COL]]] : memref<?x?xf32>
// CHECK:               %[[S:.*]] = arith.addf %[[ACC]], %[[X]] fastmath<reassoc> : f32
// CHECK:               scf.yield %[[S]] : f32
// CHECK:             }
// CHECK:             memref.store %[[RED]], %arg3[%[[ROW]]] : memref<?xf32>
// CHECK:           }
// CHECK-NOT:       lmhlo.reduce
func.func @row_reduction(%a: memref<?x?xf32>, %t: memref<?x?xf32>, %init: memref<f32>, %o: memref<?xf32>) -> memref<?xf32> {
  "lmhlo.fusion"() ({
    "lmhlo.abs"(%a, %t) : (memref<?x?xf32>, memref<?x?xf32>) -> ()
    "lmhlo.reduce"(%t, %init, %o) ({
    ^bb0(%x: memref<f32>, %y: memref<f32>, %z: memref<f32>):
      "lmhlo.add"(%x, %y, %z) : (memref<f32>, memref<f32>, memref<f32>) -> ()
      "lmhlo.terminator"() : () -> ()
    }) {dimensions = dense<1> : tensor<1xi64>} : (memref<?x?xf32>, memref<f32>, memref<?xf32>) -> ()
    "lmhlo.terminator"() : () -> ()
  }) {disc.device = "cpu", disc.fusion.name = "row", disc.fusion_type = "kRowReduction"} : () -> ()
  return %o : memref<?xf32>
}

// -----

// Hinted row reduction: two rows per parallel iteration.
// CHECK-LABEL: func.func @row_reduction_vec2
// CHECK-DAG:     %[[C2:.*]] = arith.constant 2 : index
// CHECK:         %[[T:.*]] = arith.divui %{{.*}}, %[[C2]] : index
// CHECK:         scf.parallel (%[[I:.*]]) = (%{{.*}}) to (%[[T]]) step (%{{.*}}) {
// CHECK-NEXT:      scf.for %[[K:.*]] = %{{.*}} to %[[C2]] step %{{.*}} {
// CHECK:             scf.for {{.*}} iter_args
// CHECK:               arith.maximumf
// CHECK:             memref.store
// CHECK-NOT:     lmhlo.reduce
func.func @row_reduction_vec2(%a: memref<?x?xf32>, %init: memref<f32>, %o: memref<?xf32>) -> memref<?xf32> {
  "lmhlo.fusion"() ({
    "lmhlo.reduce"(%a, %init, %o) ({
    ^bb0(%x: memref<f32>, %y: memref<f32>, %z: memref<f32>):
      "lmhlo.maximum"(%x, %y, %z) : (memref<f32>, memref<f32>, memref<f32>) -> ()
      "lmhlo.terminator"() : () -> ()
    }) {dimensions = dense<1> : tensor<1xi64>} : (memref<?x?xf32>, memref<f32>, memref<?xf32>) -> ()
    "lmhlo.terminator"() : () -> ()
  }) {disc.device = "cpu", disc.fusion.name = "row2", disc.fusion_type = "kRowReduction", disc_row_reduction_schedule_hint = 2 : i32, disc_vectorize_or_tile_hint = 2 : i32} : () -> ()
  return %o : memref<?xf32>
}

// -----

// A root of another shape than the reduce output (abs, also returned) gets
// its own loop nest first; the reduction then reads its buffer.
// CHECK-LABEL: func.func @row_reduction_extra_root
// CHECK:         scf.parallel (%{{.*}}, %{{.*}}) = {{.*}} {
// CHECK:           math.absf
// CHECK:         }
// CHECK-NOT:     lmhlo.abs
// CHECK:         scf.parallel (%{{.*}}) = {{.*}} {
// CHECK:           scf.for
// CHECK:             memref.load %arg1
// CHECK-NOT:     lmhlo.reduce
// CHECK:         "lmhlo.terminator"
func.func @row_reduction_extra_root(%a: memref<?x?xf32>, %t: memref<?x?xf32>, %init: memref<f32>, %o: memref<?xf32>) -> (memref<?x?xf32>, memref<?xf32>) {
  "lmhlo.fusion"() ({
    "lmhlo.abs"(%a, %t) : (memref<?x?xf32>, memref<?x?xf32>) -> ()
    "lmhlo.reduce"(%t, %init, %o) ({
    ^bb0(%x: memref<f32>, %y: memref<f32>, %z: memref<f32>):
      "lmhlo.add"(%x, %y, %z) : (memref<f32>, memref<f32>, memref<f32>) -> ()
      "lmhlo.terminator"() : () -> ()
    }) {dimensions = dense<1> : tensor<1xi64>} : (memref<?x?xf32>, memref<f32>, memref<?xf32>) -> ()
    "lmhlo.terminator"() : () -> ()
  }) {disc.device = "cpu", disc.fusion.name = "row_extra", disc.fusion_type = "kRowReduction"} : () -> ()
  return %t, %o : memref<?x?xf32>, memref<?xf32>
}

// -----

// kColReduction on CPU: tiles of 128 output columns; initialise the tile,
// then accumulate row by row into it (DISC_REDUCTION_TILE_SIZE=0: the whole
// row is one tile).
// CHECK-LABEL: func.func @col_reduction
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:     %[[C128:.*]] = arith.constant 128 : index
// CHECK:           %[[N:.*]] = memref.dim %arg3, %[[C0]] : memref<?xf32>
// CHECK:           scf.parallel (%[[T:.*]]) = (%[[C0]]) to (%[[N]]) step (%[[C128]]) {
// CHECK-NEXT:        %[[E:.*]] = arith.addi %[[T]], %[[C128]] : index
// CHECK-NEXT:        %[[P:.*]] = arith.cmpi slt, %[[E]], %[[N]] : index
// CHECK-NEXT:        %[[UB:.*]] = arith.select %[[P]], %[[E]], %[[N]] : index
// CHECK-NEXT:        %[[INIT:.*]] = memref.load %arg2[] : memref<f32>
// CHECK-NEXT:        scf.for %[[J:.*]] = %[[T]] to %[[UB]] step %[[C1]] {
// CHECK-NEXT:          memref.store %[[INIT]], %arg3[%[[J]]] : memref<?xf32>
// CHECK-NEXT:        }
// CHECK-NEXT:        %[[ROWS:.*]] = memref.dim %arg1, %[[C0]] : memref<?x?xf32>
// CHECK-NEXT:        scf.for %[[R:.*]] = %[[C0]] to %[[ROWS]] step %[[C1]] {
// CHECK-NEXT:          %[[RI:.*]] = "disc_shape.delinearize"(%[[R]], %[[ROWS]])
// CHECK-NEXT:          scf.for %[[J2:.*]] = %[[T]] to %[[UB]] step %[[C1]] {
// CHECK-NEXT:            %[[X:.*]] = memref.load %arg1[%[[RI]], %[[J2]]] : memref<?x?xf32>
// CHECK-NEXT:            %[[Y:.*]] = memref.load %arg3[%[[J2]]] : memref<?xf32>
// CHECK-NEXT:            %[[S:.*]] = arith.addf %[[X]], %[[Y]] : f32
// CHECK-NEXT:            memref.store %[[S]], %arg3[%[[J2]]] : memref<?xf32>
// CHECK-NEXT:          }
// CHECK-NEXT:        }
// CHECK-NEXT:      scf.yield
// CHECK-NEXT:      }
// NOTILE-LABEL: func.func @col_reduction
// NOTILE:         %[[N:.*]] = memref.dim %arg3
// NOTILE:         scf.parallel (%{{.*}}) = (%{{.*}}) to (%[[N]]) step (%[[N]]) {
func.func @col_reduction(%a: memref<?x?xf32>, %t: memref<?x?xf32>, %init: memref<f32>, %o: memref<?xf32>) -> memref<?xf32> {
  "lmhlo.fusion"() ({
    "lmhlo.abs"(%a, %t) : (memref<?x?xf32>, memref<?x?xf32>) -> ()
    "lmhlo.reduce"(%t, %init, %o) ({
    ^bb0(%x: memref<f32>, %y: memref<f32>, %z: memref<f32>):
      "lmhlo.add"(%x, %y, %z) : (memref<f32>, memref<f32>, memref<f32>) -> ()
      "lmhlo.terminator"() : () -> ()
    }) {dimensions = dense<0> : tensor<1xi64>} : (memref<?x?xf32>, memref<f32>, memref<?xf32>) -> ()
    "lmhlo.terminator"() : () -> ()
  }) {disc.device = "cpu", disc.fusion.name = "col", disc.fusion_type = "kColReduction"} : () -> ()
  return %o : memref<?xf32>
}

// -----

// kStitch on CPU (softmax), row schedule: one scf.parallel over the rows; per
// row, exp (a sub-root: reduce input read twice) goes to a row tile on the
// stack in the same pass as the sum over it (a reassociable scalar
// reduction: one exp per element), and the
// broadcast of the sum is replaced by the row's scalar; the fusion's other
// lmhlo ops are inlined right away.
// CHECK-LABEL: func.func @stitch_softmax
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK:         "lmhlo.fusion"() ({
// CHECK-NEXT:      %[[ROWS:.*]] = memref.dim %arg1, %[[C0]] : memref<?x?xf32>
// CHECK-NEXT:      %[[COLS:.*]] = memref.dim %arg1, %[[C1]] : memref<?x?xf32>
// CHECK-NEXT:      scf.parallel (%[[I:.*]]) = (%[[C0]]) to (%[[ROWS]]) step (%[[C1]]) {
// CHECK-NEXT:        %[[TILE:.*]] = memref.alloca(%[[COLS]]) : memref<?xf32>
// CHECK-NEXT:        %[[INIT:.*]] = memref.load %arg2[] : memref<f32>
// CHECK-NEXT:        %[[SUM:.*]] = scf.for %[[J:.*]] = %[[C0]] to %[[COLS]] step %[[C1]] iter_args(%[[ACC:.*]] = %[[INIT]]) -> (f32) {
// CHECK-NEXT:          %[[A:.*]] = memref.load %arg0[%[[I]], %[[J]]] : memref<?x?xf32>
// CHECK-NEXT:          %[[E:.*]] = math.exp %[[A]] : f32
// CHECK-NEXT:          memref.store %[[E]], %[[TILE]][%[[J]]] : memref<?xf32>
// CHECK-NEXT:          %[[S:.*]] = arith.addf %[[ACC]], %[[E]] fastmath<reassoc> : f32
// CHECK-NEXT:          scf.yield %[[S]] : f32
// CHECK-NEXT:        }
// CHECK-NEXT:        scf.for %[[L:.*]] = %[[C0]] to %[[COLS]] step %[[C1]] {
// CHECK-NEXT:          %[[T2:.*]] = memref.load %[[TILE]][%[[L]]] : memref<?xf32>
// CHECK-NEXT:          %[[D:.*]] = arith.divf %[[T2]], %[[SUM]] : f32
// CHECK-NEXT:          memref.store %[[D]], %arg6[%[[I]], %[[L]]] : memref<?x?xf32>
// CHECK-NEXT:        }
// CHECK-NEXT:      scf.yield
// CHECK-NEXT:      }
// CHECK-NEXT:      "lmhlo.terminator"() : () -> ()
func.func @stitch_softmax(%a: memref<?x?xf32>, %e: memref<?x?xf32>, %init: memref<f32>, %s: memref<?xf32>, %shape: memref<2xindex>, %bs: memref<?x?xf32>, %o: memref<?x?xf32>) -> memref<?x?xf32> {
  "lmhlo.fusion"() ({
    "lmhlo.exponential"(%a, %e) : (memref<?x?xf32>, memref<?x?xf32>) -> ()
    "lmhlo.reduce"(%e, %init, %s) ({
    ^bb0(%x: memref<f32>, %y: memref<f32>, %z: memref<f32>):
      "lmhlo.add"(%x, %y, %z) : (memref<f32>, memref<f32>, memref<f32>) -> ()
      "lmhlo.terminator"() : () -> ()
    }) {dimensions = dense<1> : tensor<1xi64>} : (memref<?x?xf32>, memref<f32>, memref<?xf32>) -> ()
    "lmhlo.dynamic_broadcast_in_dim"(%s, %shape, %bs) {broadcast_dimensions = dense<0> : tensor<1xi64>} : (memref<?xf32>, memref<2xindex>, memref<?x?xf32>) -> ()
    "lmhlo.divide"(%e, %bs, %o) : (memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) -> ()
    "lmhlo.terminator"() : () -> ()
  }) {disc.device = "cpu", disc.fusion.name = "softmax", disc.fusion_type = "kStitch"} : () -> ()
  return %o : memref<?x?xf32>
}

// -----

// A rank-0 root: a 1-D loop of one iteration over a 1-element view.
// CHECK-LABEL: func.func @scalar_root
// CHECK:         scf.parallel (%[[I:.*]]) = (%[[C0:.*]]) to (%[[C1:.*]]) step (%[[C1]]) {
// CHECK-NEXT:      %[[F:.*]] = memref.reinterpret_cast %arg1 to offset: [0], sizes: [1], strides: [1] : memref<f32> to memref<1xf32>
// CHECK-NEXT:      %[[X:.*]] = memref.load %arg0[] : memref<f32>
// CHECK-NEXT:      %[[Y:.*]] = arith.negf %[[X]] : f32
// CHECK-NEXT:      memref.store %[[Y]], %[[F]][%[[I]]] : memref<1xf32>
func.func @scalar_root(%a: memref<f32>, %o: memref<f32>) -> memref<f32> {
  "lmhlo.fusion"() ({
    "lmhlo.negate"(%a, %o) : (memref<f32>, memref<f32>) -> ()
    "lmhlo.terminator"() : () -> ()
  }) {disc.device = "cpu", disc.fusion.name = "scalar", disc.fusion_type = "kLoop"} : () -> ()
  return %o : memref<f32>
}

// -----

// Static shapes: constant bounds; misc roots (transpose) store at the
// multi-dimensional index; the shape constraint graph is left alone.
// CHECK-LABEL: func.func @static_transpose
// CHECK-DAG:     %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG:     %[[C3:.*]] = arith.constant 3 : index
// CHECK:         scf.parallel (%[[I:.*]], %[[J:.*]]) = (%{{.*}}, %{{.*}}) to (%[[C3]], %[[C2]])
// CHECK:           %[[X:.*]]:2 = "disc_shape.delinearize"
// CHECK:           %[[V:.*]] = memref.load %arg0[%[[X]]#1, %[[X]]#0] : memref<2x3xf32>
// CHECK:           memref.store %[[V]], %arg1[%[[X]]#0, %[[X]]#1] : memref<3x2xf32>
// CHECK-LABEL: func.func @shape_constraint_graph
// CHECK-NEXT:    "lmhlo.abs"
func.func @static_transpose(%a: memref<2x3xf32>, %o: memref<3x2xf32>) -> memref<3x2xf32> {
  "lmhlo.transpose"(%a, %o) {permutation = dense<[1, 0]> : tensor<2xi64>} : (memref<2x3xf32>, memref<3x2xf32>) -> ()
  return %o : memref<3x2xf32>
}
func.func @shape_constraint_graph(%a: memref<2xf32>, %o: memref<2xf32>) {
  "lmhlo.abs"(%a, %o) : (memref<2xf32>, memref<2xf32>) -> ()
  return
}

// -----

// CPU stitch, row schedule, a column-invariant sub-root: rsqrt of the
// broadcast row sum is constant along the row, so it is computed once per row
// (at column 0) as a scalar instead of once per element.
// CHECK-LABEL: func.func @stitch_row_invariant
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK:         "lmhlo.fusion"() ({
// CHECK-NEXT:      %[[ROWS:.*]] = memref.dim %arg0, %[[C0]] : memref<?x?xf32>
// CHECK-NEXT:      %[[COLS:.*]] = memref.dim %arg0, %[[C1]] : memref<?x?xf32>
// CHECK-NEXT:      scf.parallel (%[[I:.*]]) = (%[[C0]]) to (%[[ROWS]]) step (%[[C1]]) {
// CHECK-NEXT:        %[[INIT:.*]] = memref.load %arg1[] : memref<f32>
// CHECK-NEXT:        %[[SUM:.*]] = scf.for %[[K:.*]] = %[[C0]] to %[[COLS]] step %[[C1]] iter_args(%[[ACC:.*]] = %[[INIT]]) -> (f32) {
// CHECK-NEXT:          %[[A:.*]] = memref.load %arg0[%[[I]], %[[K]]] : memref<?x?xf32>
// CHECK-NEXT:          %[[S:.*]] = arith.addf %[[ACC]], %[[A]] fastmath<reassoc> : f32
// CHECK-NEXT:          scf.yield %[[S]] : f32
// CHECK-NEXT:        }
// CHECK-NEXT:        %[[R:.*]] = math.rsqrt %[[SUM]] : f32
// CHECK-NEXT:        scf.for %[[J:.*]] = %[[C0]] to %[[COLS]] step %[[C1]] {
// CHECK-NEXT:          %[[B:.*]] = memref.load %arg0[%[[I]], %[[J]]] : memref<?x?xf32>
// CHECK-NEXT:          %[[M:.*]] = arith.mulf %[[B]], %[[R]] : f32
// CHECK-NEXT:          memref.store %[[M]], %arg6[%[[I]], %[[J]]] : memref<?x?xf32>
// CHECK-NEXT:        }
// CHECK-NEXT:      scf.yield
// CHECK-NEXT:      }
// CHECK-NEXT:      "lmhlo.terminator"() : () -> ()
func.func @stitch_row_invariant(%a: memref<?x?xf32>, %init: memref<f32>, %s: memref<?xf32>, %shape: memref<2xindex>, %bs: memref<?x?xf32>, %r: memref<?x?xf32>, %o: memref<?x?xf32>) -> memref<?x?xf32> {
  "lmhlo.fusion"() ({
    "lmhlo.reduce"(%a, %init, %s) ({
    ^bb0(%x: memref<f32>, %y: memref<f32>, %z: memref<f32>):
      "lmhlo.add"(%x, %y, %z) : (memref<f32>, memref<f32>, memref<f32>) -> ()
      "lmhlo.terminator"() : () -> ()
    }) {dimensions = dense<1> : tensor<1xi64>} : (memref<?x?xf32>, memref<f32>, memref<?xf32>) -> ()
    "lmhlo.dynamic_broadcast_in_dim"(%s, %shape, %bs) {broadcast_dimensions = dense<0> : tensor<1xi64>} : (memref<?xf32>, memref<2xindex>, memref<?x?xf32>) -> ()
    "lmhlo.rsqrt"(%bs, %r) : (memref<?x?xf32>, memref<?x?xf32>) -> ()
    "lmhlo.multiply"(%a, %r, %o) : (memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) -> ()
    "lmhlo.terminator"() : () -> ()
  }) {disc.device = "cpu", disc.fusion.name = "ln", disc.fusion_type = "kStitch"} : () -> ()
  return %o : memref<?x?xf32>
}

// -----

// CPU stitch whose ops do not all stay within a row (a reverse over the rows
// reads another row's value): the per-sub-root fallback, a loop nest per
// sub-root over its whole buffer (the reduction still reassociable).
// CHECK-LABEL: func.func @stitch_fallback
// CHECK:         "lmhlo.fusion"() ({
// CHECK-NEXT:      "lmhlo.exponential"(%arg0, %arg1)
// CHECK:           scf.parallel (%{{.*}}) = {{.*}} {
// CHECK:             scf.for {{.*}} iter_args
// CHECK:               memref.load %arg1
// CHECK:               arith.addf %{{.*}}, %{{.*}} fastmath<reassoc> : f32
// CHECK:             memref.store %{{.*}}, %arg3
// CHECK:           }
// CHECK-NEXT:      "lmhlo.dynamic_broadcast_in_dim"(%arg3, %arg4, %arg5)
// CHECK-NEXT:      "lmhlo.reverse"(%arg5, %arg6)
// CHECK:           scf.parallel (%{{.*}}, %{{.*}}) = {{.*}} {
// CHECK:             memref.load %arg1
// CHECK:             memref.load %arg6
// CHECK:             arith.divf
// CHECK:           }
// CHECK-NEXT:      "lmhlo.terminator"() : () -> ()
func.func @stitch_fallback(%a: memref<?x?xf32>, %e: memref<?x?xf32>, %init: memref<f32>, %s: memref<?xf32>, %shape: memref<2xindex>, %bs: memref<?x?xf32>, %rv: memref<?x?xf32>, %o: memref<?x?xf32>) -> memref<?x?xf32> {
  "lmhlo.fusion"() ({
    "lmhlo.exponential"(%a, %e) : (memref<?x?xf32>, memref<?x?xf32>) -> ()
    "lmhlo.reduce"(%e, %init, %s) ({
    ^bb0(%x: memref<f32>, %y: memref<f32>, %z: memref<f32>):
      "lmhlo.add"(%x, %y, %z) : (memref<f32>, memref<f32>, memref<f32>) -> ()
      "lmhlo.terminator"() : () -> ()
    }) {dimensions = dense<1> : tensor<1xi64>} : (memref<?x?xf32>, memref<f32>, memref<?xf32>) -> ()
    "lmhlo.dynamic_broadcast_in_dim"(%s, %shape, %bs) {broadcast_dimensions = dense<0> : tensor<1xi64>} : (memref<?xf32>, memref<2xindex>, memref<?x?xf32>) -> ()
    "lmhlo.reverse"(%bs, %rv) {dimensions = dense<0> : tensor<1xi64>} : (memref<?x?xf32>, memref<?x?xf32>) -> ()
    "lmhlo.divide"(%e, %rv, %o) : (memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) -> ()
    "lmhlo.terminator"() : () -> ()
  }) {disc.device = "cpu", disc.fusion.name = "rev", disc.fusion_type = "kStitch"} : () -> ()
  return %o : memref<?x?xf32>
}

// -----

// kStitch on CPU with keepdims row values (jax mean: reduce -> ?x1 -> ?xN),
// the shape operands assembled on the host from memref.dim: the row schedule
// applies; the mean is one SSA value per row, no ?x1 buffer is written.
// CHECK-LABEL: func.func @stitch_keepdims_mean
// CHECK:         "lmhlo.fusion"() ({
// CHECK-NEXT:      %[[ROWS:.*]] = memref.dim %arg0, %[[C0:.*]] : memref<?x768xf32>
// CHECK-NEXT:      scf.parallel (%[[I:.*]]) = (%[[C0]]) to (%[[ROWS]]) step (%[[C1:.*]]) {
// CHECK-NEXT:        %[[INIT:.*]] = memref.load %arg1[] : memref<f32>
// CHECK-NEXT:        %[[SUM:.*]] = scf.for %[[K:.*]] = %[[C0]] to %[[C768:.*]] step %[[C1]] iter_args(%[[ACC:.*]] = %[[INIT]]) -> (f32) {
// CHECK-NEXT:          %[[A:.*]] = memref.load %arg0[%[[I]], %[[K]]] : memref<?x768xf32>
// CHECK-NEXT:          %[[S:.*]] = arith.addf %[[ACC]], %[[A]] fastmath<reassoc> : f32
// CHECK-NEXT:          scf.yield %[[S]] : f32
// CHECK-NEXT:        }
// CHECK-NEXT:        %[[N:.*]] = memref.load %arg2[] : memref<f32>
// CHECK-NEXT:        %[[MEAN:.*]] = arith.divf %[[SUM]], %[[N]] : f32
// CHECK-NEXT:        scf.for %[[J:.*]] = %[[C0]] to %[[C768]] step %[[C1]] {
// CHECK-NEXT:          %[[B:.*]] = memref.load %arg0[%[[I]], %[[J]]] : memref<?x768xf32>
// CHECK-NEXT:          %[[D:.*]] = arith.subf %[[B]], %[[MEAN]] : f32
// CHECK-NEXT:          memref.store %[[D]], %arg8[%[[I]], %[[J]]] : memref<?x768xf32>
// CHECK-NEXT:        }
// CHECK-NEXT:        scf.yield
// CHECK-NEXT:      }
// CHECK-NEXT:      "lmhlo.terminator"() : () -> ()
func.func @stitch_keepdims_mean(%x: memref<?x768xf32>, %init: memref<f32>, %n: memref<f32>, %s: memref<?xf32>, %s1: memref<?x1xf32>, %n1: memref<?x1xf32>, %m1: memref<?x1xf32>, %mb: memref<?x768xf32>, %o: memref<?x768xf32>) -> memref<?x768xf32> {
  %c0 = arith.constant 0 : index
  %rows = memref.dim %x, %c0 : memref<?x768xf32>
  %rows_i32 = arith.index_cast %rows : index to i32
  %r0 = memref.alloca() : memref<i32>
  memref.store %rows_i32, %r0[] : memref<i32>
  %r1 = memref.alloca() : memref<1xi32>
  "lmhlo.reshape"(%r0, %r1) {disc.shape_op = true} : (memref<i32>, memref<1xi32>) -> ()
  %one = memref.alloca() : memref<1xi32>
  "lmhlo.constant"(%one) {disc.shape_op = true, value = dense<1> : tensor<1xi32>} : (memref<1xi32>) -> ()
  %cols = memref.alloca() : memref<1xi32>
  "lmhlo.constant"(%cols) {disc.shape_op = true, value = dense<768> : tensor<1xi32>} : (memref<1xi32>) -> ()
  %keep = memref.alloca() : memref<2xi32>
  "lmhlo.concatenate"(%r1, %one, %keep) {dimension = 0 : i64, disc.shape_op = true} : (memref<1xi32>, memref<1xi32>, memref<2xi32>) -> ()
  %full = memref.alloca() : memref<2xi32>
  "lmhlo.concatenate"(%r1, %cols, %full) {dimension = 0 : i64, disc.shape_op = true} : (memref<1xi32>, memref<1xi32>, memref<2xi32>) -> ()
  "lmhlo.fusion"() ({
    "lmhlo.reduce"(%x, %init, %s) ({
    ^bb0(%a: memref<f32>, %b: memref<f32>, %c: memref<f32>):
      "lmhlo.add"(%a, %b, %c) : (memref<f32>, memref<f32>, memref<f32>) -> ()
      "lmhlo.terminator"() : () -> ()
    }) {dimensions = dense<1> : tensor<1xi64>} : (memref<?x768xf32>, memref<f32>, memref<?xf32>) -> ()
    "lmhlo.dynamic_broadcast_in_dim"(%s, %keep, %s1) {broadcast_dimensions = dense<0> : tensor<1xi64>} : (memref<?xf32>, memref<2xi32>, memref<?x1xf32>) -> ()
    "lmhlo.dynamic_broadcast_in_dim"(%n, %keep, %n1) {broadcast_dimensions = dense<> : tensor<0xi64>} : (memref<f32>, memref<2xi32>, memref<?x1xf32>) -> ()
    "lmhlo.divide"(%s1, %n1, %m1) : (memref<?x1xf32>, memref<?x1xf32>, memref<?x1xf32>) -> ()
    "lmhlo.dynamic_broadcast_in_dim"(%m1, %full, %mb) {broadcast_dimensions = dense<[0, 1]> : tensor<2xi64>} : (memref<?x1xf32>, memref<2xi32>, memref<?x768xf32>) -> ()
    "lmhlo.subtract"(%x, %mb, %o) : (memref<?x768xf32>, memref<?x768xf32>, memref<?x768xf32>) -> ()
    "lmhlo.terminator"() : () -> ()
  }) {disc.device = "cpu", disc.fusion.name = "center", disc.fusion_type = "kStitch"} : () -> ()
  return %o : memref<?x768xf32>
}
