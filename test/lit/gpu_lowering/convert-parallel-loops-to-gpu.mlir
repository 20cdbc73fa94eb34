// RUN: disc-opt -split-input-file -convert-parallel-loops-to-gpu %s | FileCheck %s

// A tiled 1-D loop: blocks over ceildiv(n, 256), 256 threads, ids -> ivs.
// CHECK-LABEL: func.func @tiled
// CHECK-SAME:    (%[[N:.*]]: index, %[[A:.*]]: memref<?xf32>)
// CHECK:         %[[C256:.*]] = arith.constant 256 : index
// CHECK:         %[[GRID:.*]] = arith.ceildivsi %[[N]], %[[C256]] : index
// CHECK:         %[[ONE:.*]] = arith.constant 1 : index
// CHECK:         gpu.launch blocks(%[[BX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[GRID]], %{{.*}} = %[[ONE]], %{{.*}} = %[[ONE]]) threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[C256]], %{{.*}} = %[[ONE]], %{{.*}} = %[[ONE]]) {
// CHECK-NEXT:      %[[OFF:.*]] = arith.muli %[[BX]], %[[C256]] : index
// CHECK-NEXT:      %[[I:.*]] = arith.addi %[[TX]], %[[OFF]] : index
// CHECK-NEXT:      %[[IN:.*]] = arith.cmpi ult, %[[I]], %[[N]] : index
// CHECK-NEXT:      scf.if %[[IN]] {
// CHECK-NEXT:        %[[V:.*]] = memref.load %[[A]][%[[I]]] : memref<?xf32>
// CHECK-NEXT:        memref.store %[[V]], %[[A]][%[[I]]] : memref<?xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:      gpu.terminator
// CHECK-NEXT:    }
// CHECK-NEXT:    return
func.func @tiled(%n: index, %a: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  scf.parallel (%i) = (%c0) to (%n) step (%c256) {
    scf.parallel (%j) = (%c0) to (%c256) step (%c1) {
      %idx = arith.addi %j, %i : index
      %in = arith.cmpi ult, %idx, %n : index
      scf.if %in {
        %v = memref.load %a[%idx] : memref<?xf32>
        memref.store %v, %a[%idx] : memref<?xf32>
      }
    } {mapping = [#gpu.loop_dim_map<processor = thread_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]}
  } {mapping = [#gpu.loop_dim_map<processor = block_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]}
  return
}

// -----

// A thread loop bounded by an affine.min inside the block loop: the launch
// uses the constant bound (64) and guards the body with iv < bound.
// CHECK-LABEL: func.func @static_bound
// CHECK:         %[[GRID:.*]] = arith.ceildivsi
// CHECK-NEXT:    %[[C64:.*]] = arith.constant 64 : index
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT:    gpu.launch blocks({{.*}}) in (%{{.*}} = %[[GRID]], {{.*}}) threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[C64]], %{{.*}} = %[[ONE]], %{{.*}} = %[[ONE]]) {
// CHECK:           %[[M:.*]] = affine.min
// CHECK:           %[[G:.*]] = arith.cmpi slt, %[[TX]], %[[M]] : index
// CHECK-NEXT:      scf.if %[[G]] {
// CHECK-NEXT:        memref.store
func.func @static_bound(%n: index, %a: memref<?xf32>, %f: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  scf.parallel (%i) = (%c0) to (%n) step (%c64) {
    %m = affine.min affine_map<(d0)[s0] -> (64, s0 - d0)>(%i)[%n]
    scf.parallel (%j) = (%c0) to (%m) step (%c1) {
      memref.store %f, %a[%j] : memref<?xf32>
    } {mapping = [#gpu.loop_dim_map<processor = thread_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]}
  } {mapping = [#gpu.loop_dim_map<processor = block_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]}
  return
}

// -----

// Unmapped loops are left alone.
// CHECK-LABEL: func.func @unmapped
// CHECK-NOT:     gpu.launch
// CHECK:         scf.parallel
func.func @unmapped(%n: index, %a: memref<?xf32>, %f: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    memref.store %f, %a[%i] : memref<?xf32>
  }
  return
}
