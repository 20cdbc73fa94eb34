// RUN: disc-opt %s -mhlo-place-ops | FileCheck %s

// Convolutions run on the host: disc-ir's ral_conv is a host library call
// (BladeDISC calls cuDNN, which disc-ir does not bind). The GPU input is
// copied to the host for it, the result back for the GPU op after it.
// CHECK-LABEL: func.func @main
// CHECK:         %[[XH:.*]] = "mhlo_disc.d2h"(%arg0) {disc.device = "cpu"}
// CHECK:         %[[C:.*]] = mhlo.convolution(%[[XH]], %{{[0-9]+}})
// CHECK-SAME:      disc.device = "cpu"
// CHECK:         %[[CD:.*]] = "mhlo_disc.h2d"(%[[C]])
// CHECK:         mhlo.abs %[[CD]] {disc.device = "gpu"}
func.func @main(%x: tensor<1x8x16xf32>, %w: tensor<4x8x3xf32>) -> tensor<1x4x16xf32> attributes {tf.entry_function = {input_placements = "gpu,gpu", output_placements = "gpu"}} {
  %0 = mhlo.convolution(%x, %w) dim_numbers = [b, f, 0]x[o, i, 0]->[b, f, 0], window = {stride = [1], pad = [[1, 1]], rhs_dilate = [1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x8x16xf32>, tensor<4x8x3xf32>) -> tensor<1x4x16xf32>
  %1 = mhlo.abs %0 : tensor<1x4x16xf32>
  return %1 : tensor<1x4x16xf32>
}
