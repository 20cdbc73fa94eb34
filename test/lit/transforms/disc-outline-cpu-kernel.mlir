// RUN: disc-opt %s -split-input-file --disc-outline-cpu-kernel | FileCheck %s

// A fusion's loop: launch setting in stack buffers, cpu_launch of a kernel
// named after the fusion; the kernel reads its box from the buffers,
// specializes unit steps, hoists invariants and tile alloc/dealloc pairs;
// cheap values (constants, memref.dim) are recomputed in the kernel.
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[CTX:.*]]: !disc_ral.context, %[[A:.*]]: memref<?x?xf32>, %[[B:.*]]: memref<?x?xf32>)
// CHECK: "lmhlo.fusion"() ({
// CHECK: %[[LB:.*]] = memref.alloca() : memref<2xindex>
// CHECK: %[[UB:.*]] = memref.alloca() : memref<2xindex>
// CHECK: %[[ST:.*]] = memref.alloca() : memref<2xindex>
// CHECK: %[[I0:.*]] = arith.constant 0 : index
// CHECK: memref.store %c0, %[[LB]][%[[I0]]] : memref<2xindex>
// CHECK: memref.store %dim, %[[UB]][%[[I0]]] : memref<2xindex>
// CHECK: memref.store %c1, %[[ST]][%[[I0]]] : memref<2xindex>
// CHECK: memref.store %c2, %[[ST]][%{{.*}}] : memref<2xindex>
// CHECK-NOT: arith.constant true
// CHECK: %[[HINT:.*]] = arith.constant 1 : index
// CHECK: "disc_ral.cpu_launch"(%[[CTX]], %[[LB]], %[[UB]], %[[ST]], %[[HINT]], %[[A]], %[[B]]) {callee = @main_kLoop_copy__1_1_0___tag} : (!disc_ral.context, memref<2xindex>, memref<2xindex>, memref<2xindex>, index, memref<?x?xf32>, memref<?x?xf32>) -> ()
// CHECK: "lmhlo.terminator"() : () -> ()
// Small kernels stay inline.
// CHECK: scf.parallel
// CHECK: } {disc.cpu.small_kernel}
// The second kernel of the function, outside any fusion.
// CHECK: "disc_ral.cpu_launch"(%[[CTX]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[A]], %[[B]]) {callee = @main_gKernel__1} : (!disc_ral.context, memref<1xindex>, memref<1xindex>, memref<1xindex>, index, memref<?x?xf32>, memref<?x?xf32>) -> ()
// CHECK-NEXT: return

// CHECK: func.func @main_kLoop_copy__1_1_0___tag(%[[KCTX:.*]]: !disc_ral.context, %[[KLB:.*]]: memref<2xindex>, %[[KUB:.*]]: memref<2xindex>, %[[KST:.*]]: memref<2xindex>, %[[KA:.*]]: memref<?x?xf32>, %[[KB:.*]]: memref<?x?xf32>) attributes {disc_cpu_kernel_func} {
// CHECK: %[[KDIM:.*]] = memref.dim %[[KA]], %{{.*}} : memref<?x?xf32>
// CHECK: %[[ONE:.*]] = arith.constant 1 : index
// CHECK: %[[TRUE:.*]] = arith.constant true
// CHECK: %[[L0:.*]] = memref.load %[[KLB]][%{{.*}}] : memref<2xindex>
// CHECK: %[[U0:.*]] = memref.load %[[KUB]][%{{.*}}] : memref<2xindex>
// CHECK: %[[S0:.*]] = memref.load %[[KST]][%{{.*}}] : memref<2xindex>
// CHECK: %[[E0:.*]] = arith.cmpi eq, %[[S0]], %[[ONE]] : index
// CHECK: %[[A0:.*]] = arith.andi %[[TRUE]], %[[E0]] : i1
// CHECK: %[[L1:.*]] = memref.load %[[KLB]]
// CHECK: %[[U1:.*]] = memref.load %[[KUB]]
// CHECK: %[[S1:.*]] = memref.load %[[KST]]
// CHECK: %[[E1:.*]] = arith.cmpi eq, %[[S1]], %[[ONE]] : index
// CHECK: %[[A1:.*]] = arith.andi %[[A0]], %[[E1]] : i1
// CHECK: scf.if %[[A1]] {
// CHECK: arith.addi %[[KDIM]]
// CHECK: %[[T:.*]] = memref.alloc() : memref<4xf32>
// CHECK: scf.parallel (%{{.*}}, %{{.*}}) = (%[[L0]], %[[L1]]) to (%[[U0]], %[[U1]]) step (%[[ONE]], %[[ONE]]) {
// CHECK-NOT: memref.alloc
// CHECK: memref.load %[[KA]]
// CHECK: memref.store %{{.*}}, %[[T]]
// CHECK: memref.store %{{.*}}, %[[KB]]
// CHECK: }
// CHECK: memref.dealloc %[[T]] : memref<4xf32>
// CHECK: } else {
// CHECK: scf.parallel (%{{.*}}, %{{.*}}) = (%[[L0]], %[[L1]]) to (%[[U0]], %[[U1]]) step (%[[S0]], %[[S1]]) {
// CHECK: memref.dealloc
// CHECK: }
// CHECK: return
// CHECK: func.func @main_gKernel__1(%{{.*}}: !disc_ral.context, %{{.*}}: memref<1xindex>, %{{.*}}: memref<1xindex>, %{{.*}}: memref<1xindex>, %{{.*}}: memref<?x?xf32>, %{{.*}}: memref<?x?xf32>) attributes {disc_cpu_kernel_func}
// CHECK: func.func @other()
func.func @main(%ctx: !disc_ral.context, %A: memref<?x?xf32>, %B: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %d0 = memref.dim %A, %c0 : memref<?x?xf32>
  %d1 = memref.dim %A, %c1 : memref<?x?xf32>
  "lmhlo.fusion"() ({
    scf.parallel (%i, %j) = (%c0, %c0) to (%d0, %d1) step (%c1, %c2) {
      %t = memref.alloc() : memref<4xf32>
      %v = memref.load %A[%i, %j] : memref<?x?xf32>
      %k = arith.addi %d1, %c4 : index
      memref.store %v, %t[%k] : memref<4xf32>
      %w = memref.load %t[%c0] : memref<4xf32>
      memref.store %w, %B[%i, %j] : memref<?x?xf32>
      memref.dealloc %t : memref<4xf32>
    }
    "lmhlo.terminator"() : () -> ()
  }) {disc.device = "cpu", disc.fusion.name = "main_kLoop_copy__1_1_0", disc.fusion.tag = "tag", disc.fusion_type = "kLoop"} : () -> ()
  scf.parallel (%i) = (%c0) to (%c2) step (%c1) {
    %v = memref.load %A[%i, %i] : memref<?x?xf32>
    memref.store %v, %B[%i, %i] : memref<?x?xf32>
  } {disc.cpu.small_kernel}
  scf.parallel (%i) = (%c0) to (%d0) step (%c1) {
    %v = memref.load %A[%i, %i] : memref<?x?xf32>
    memref.store %v, %B[%i, %i] : memref<?x?xf32>
  }
  return
}
func.func @other() {
  return
}

// -----

// Nothing to outline: unchanged, no context needed.
// CHECK-LABEL: func.func @no_kernel
// CHECK-NOT: disc_ral.cpu_launch
// CHECK: scf.parallel
// CHECK: } {disc.cpu.small_kernel}
func.func @no_kernel(%A: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    %v = memref.load %A[%i] : memref<4xf32>
    memref.store %v, %A[%i] : memref<4xf32>
  } {disc.cpu.small_kernel}
  return
}


// -----

// A stack tile of invariant size in the loop body (the CPU stitch schedule's
// row tile): allocated once per task, before the kernel's loop, in both
// step specializations.
// CHECK-LABEL: func.func @row_tile_gKernel_
// CHECK:         %[[COLS:.*]] = memref.dim %arg4, %{{.*}} : memref<?x?xf32>
// CHECK:         scf.if
// CHECK-NEXT:      %[[T1:.*]] = memref.alloca(%[[COLS]]) : memref<?xf32>
// CHECK-NEXT:      scf.parallel
// CHECK-NOT:         memref.alloca
// CHECK:             memref.store %{{.*}}, %[[T1]][%{{.*}}] : memref<?xf32>
// CHECK:             memref.load %[[T1]][%{{.*}}] : memref<?xf32>
// CHECK:         } else {
// CHECK-NEXT:      %[[T2:.*]] = memref.alloca(%[[COLS]]) : memref<?xf32>
// CHECK-NEXT:      scf.parallel
// CHECK-NOT:         memref.alloca
// CHECK:             memref.store %{{.*}}, %[[T2]][%{{.*}}] : memref<?xf32>
// CHECK:         return
func.func @row_tile(%ctx: !disc_ral.context, %a: memref<?x?xf32>, %o: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %rows = memref.dim %a, %c0 : memref<?x?xf32>
  %cols = memref.dim %a, %c1 : memref<?x?xf32>
  scf.parallel (%i) = (%c0) to (%rows) step (%c1) {
    %tile = memref.alloca(%cols) : memref<?xf32>
    scf.for %j = %c0 to %cols step %c1 {
      %x = memref.load %a[%i, %j] : memref<?x?xf32>
      memref.store %x, %tile[%j] : memref<?xf32>
    }
    scf.for %j = %c0 to %cols step %c1 {
      %y = memref.load %tile[%j] : memref<?xf32>
      memref.store %y, %o[%i, %j] : memref<?x?xf32>
    }
    scf.reduce
  }
  return
}
