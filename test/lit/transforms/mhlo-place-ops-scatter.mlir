// RUN: disc-opt %s -mhlo-place-ops | FileCheck %s

// mhlo.scatter runs on the host (disc-ir's scatter schedule is a host loop),
// its update computation with it, even with i64 indices (an i32 index would
// put it there anyway): its GPU operands are copied to the host before it and
// its result back to the GPU for the op that reads it there.
// CHECK-LABEL: func.func @main
// CHECK:         %[[E:.*]] = mhlo.exponential %{{.*}} {disc.device = "gpu"}
// CHECK:         %[[EH:.*]] = "mhlo_disc.d2h"(%[[E]]) {disc.device = "cpu"}
// CHECK:         %[[S:.*]] = "mhlo.scatter"(%[[EH]], %{{.*}}, %{{.*}}) ({
// CHECK:           mhlo.add %{{.*}}, %{{.*}} {disc.device = "cpu"}
// CHECK:         }) {disc.device = "cpu", scatter_dimension_numbers
// CHECK:         %[[SD:.*]] = "mhlo_disc.h2d"(%[[S]])
// CHECK:         mhlo.abs %[[SD]] {disc.device = "gpu"}
func.func @main(%x: tensor<?x4xf32>, %idx: tensor<?x1xi64>, %upd: tensor<?x4xf32>) -> tensor<?x4xf32> attributes {tf.entry_function = {input_placements = "gpu,cpu,cpu", output_placements = "gpu"}} {
  %e = mhlo.exponential %x : tensor<?x4xf32>
  %0 = "mhlo.scatter"(%e, %idx, %upd) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %1 = mhlo.add %a, %b : tensor<f32>
    mhlo.return %1 : tensor<f32>
  }) {scatter_dimension_numbers = #mhlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>} : (tensor<?x4xf32>, tensor<?x1xi64>, tensor<?x4xf32>) -> tensor<?x4xf32>
  %2 = mhlo.abs %0 : tensor<?x4xf32>
  return %2 : tensor<?x4xf32>
}
