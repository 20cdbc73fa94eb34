// RUN: disc-opt %s -split-input-file -disc-lhlo-legalize-roots-to-parallel-loops=cpu-only=true | FileCheck %s

// lmhlo.scatter: the operand copied into the output (a parallel loop), then
// one scf.for over the update elements in order (repeated indices combine
// one after the other); the start index is read from the indices, cast to
// index and bounds-checked against the operand dim minus the window size
// (a window that does not fit is skipped, as XLA does); the update
// computation is evaluated on scalars: output[I] = body(output[I], update[U]).
// CHECK-LABEL: func.func @scatter_add_rows
// CHECK-SAME:    (%[[X:.*]]: memref<?x?xf32>, %[[IDX:.*]]: memref<?x1xi32>, %[[UPD:.*]]: memref<?x?xf32>, %[[OUT:.*]]: memref<?x?xf32>)
// CHECK:         %[[D0:.*]] = memref.dim %[[OUT]], %c0
// CHECK:         %[[U0:.*]] = memref.dim %[[UPD]], %c0
// CHECK:         %[[U1:.*]] = memref.dim %[[UPD]], %c1
// CHECK:         scf.parallel (%[[I:.*]], %[[J:.*]]) =
// CHECK:           %[[V:.*]] = memref.load %[[X]][%[[I]], %[[J]]]
// CHECK:           memref.store %[[V]], %[[OUT]][%[[I]], %[[J]]]
// CHECK:         %[[N:.*]] = arith.muli %[[U0]], %[[U1]] : index
// CHECK:         scf.for %[[L:.*]] = %c0 to %[[N]] step %c1 {
// CHECK:           %[[U:.*]]:2 = "disc_shape.delinearize"(%[[L]], %[[U0]], %[[U1]])
// CHECK:           %[[S32:.*]] = memref.load %[[IDX]][%[[U]]#0, %c0] : memref<?x1xi32>
// CHECK:           %[[S:.*]] = arith.index_cast %[[S32]] : i32 to index
// CHECK:           %[[LIMIT:.*]] = arith.subi %[[D0]], %c1 : index
// CHECK:           %[[GE:.*]] = arith.cmpi sge, %[[S]], %c0 : index
// CHECK:           %[[LE:.*]] = arith.cmpi sle, %[[S]], %[[LIMIT]] : index
// CHECK:           %[[OK:.*]] = arith.andi %[[GE]], %[[LE]] : i1
// CHECK:           scf.if %[[OK]] {
// CHECK:             %[[CUR:.*]] = memref.load %[[OUT]][%[[S]], %[[U]]#1]
// CHECK:             %[[NEW:.*]] = memref.load %[[UPD]][%[[U]]#0, %[[U]]#1]
// CHECK:             %[[SUM:.*]] = arith.addf %[[CUR]], %[[NEW]] : f32
// CHECK:             memref.store %[[SUM]], %[[OUT]][%[[S]], %[[U]]#1]
// CHECK-NOT:     lmhlo.scatter
func.func @scatter_add_rows(%x: memref<?x?xf32>, %idx: memref<?x1xi32>, %upd: memref<?x?xf32>, %out: memref<?x?xf32>) {
  "lmhlo.scatter"(%x, %idx, %upd, %out) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %0 = mhlo.add %a, %b : tensor<f32>
    mhlo.return %0 : tensor<f32>
  }) {scatter_dimension_numbers = #mhlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>} : (memref<?x?xf32>, memref<?x1xi32>, memref<?x?xf32>, memref<?x?xf32>) -> ()
  return
}

// -----

// In place (the operand is the output): no copy. index_vector_dim equal to
// the indices' rank: each index element is a start index of its own.
// CHECK-LABEL: func.func @scatter_set_in_place
// CHECK-SAME:    (%[[X:.*]]: memref<8xf32>, %[[IDX:.*]]: memref<3xi64>, %[[UPD:.*]]: memref<3xf32>)
// CHECK-NOT:     scf.parallel
// CHECK:         scf.for %[[L:.*]] = %c0 to %c3 step %c1 {
// CHECK:           %[[U:.*]] = "disc_shape.delinearize"(%[[L]], %c3)
// CHECK:           %[[S64:.*]] = memref.load %[[IDX]][%[[U]]] : memref<3xi64>
// CHECK:           %[[S:.*]] = arith.index_cast %[[S64]] : i64 to index
// CHECK:           arith.cmpi sle, %[[S]], %c7 : index
// CHECK:           scf.if
// CHECK:             %[[V:.*]] = memref.load %[[UPD]][%[[U]]] : memref<3xf32>
// CHECK:             memref.store %[[V]], %[[X]][%[[S]]] : memref<8xf32>

func.func @scatter_set_in_place(%x: memref<8xf32>, %idx: memref<3xi64>, %upd: memref<3xf32>) {
  "lmhlo.scatter"(%x, %idx, %upd, %x) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    mhlo.return %b : tensor<f32>
  }) {scatter_dimension_numbers = #mhlo.scatter<update_window_dims = [], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>} : (memref<8xf32>, memref<3xi64>, memref<3xf32>, memref<8xf32>) -> ()
  return
}
