// RUN: not disc-opt %s -disc-mhlo-mark-shape-calc 2>&1 | FileCheck %s

// The pass needs the entry function @main.
// CHECK: entry function 'main' not found
func.func @not_main(%arg0: tensor<2xi32>) -> tensor<2xi32> {
  return %arg0 : tensor<2xi32>
}
