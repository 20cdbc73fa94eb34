// RUN: disc-opt -split-input-file -gpu-map-parallel-loops %s | FileCheck %s

// The outer loop maps to blocks, the loop in its body to threads, a third
// level and dimensions past z are sequential.
// CHECK-LABEL: func.func @nest
func.func @nest(%n: index, %a: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  scf.parallel (%i) = (%c0) to (%n) step (%c256) {
    scf.parallel (%j) = (%c0) to (%c256) step (%c1) {
      scf.parallel (%k) = (%c0) to (%c1) step (%c1) {
        %v = memref.load %a[%k] : memref<?xf32>
        memref.store %v, %a[%k] : memref<?xf32>
      }
    }
  }
  return
}
// CHECK:      } {mapping = [#gpu.loop_dim_map<processor = sequential, map = (d0) -> (d0), bound = (d0) -> (d0)>]}
// CHECK:      } {mapping = [#gpu.loop_dim_map<processor = thread_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]}
// CHECK:      } {mapping = [#gpu.loop_dim_map<processor = block_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]}

// -----

// CHECK-LABEL: func.func @four_dims
func.func @four_dims(%n: index, %a: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.parallel (%i, %j, %k, %l) = (%c0, %c0, %c0, %c0) to (%n, %n, %n, %n) step (%c1, %c1, %c1, %c1) {
    %v = memref.load %a[%i] : memref<?xf32>
    memref.store %v, %a[%l] : memref<?xf32>
  }
  return
}
// CHECK: {mapping = [#gpu.loop_dim_map<processor = block_x, map = (d0) -> (d0), bound = (d0) -> (d0)>, #gpu.loop_dim_map<processor = block_y, map = (d0) -> (d0), bound = (d0) -> (d0)>, #gpu.loop_dim_map<processor = block_z, map = (d0) -> (d0), bound = (d0) -> (d0)>, #gpu.loop_dim_map<processor = sequential, map = (d0) -> (d0), bound = (d0) -> (d0)>]}
