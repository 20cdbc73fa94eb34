// RUN: disc-opt %s -split-input-file --disc-merge-identical-kernels | FileCheck %s

// @k_a and @k_b are identical but for their names and SSA names: @k_b is
// erased; its launch and the symbol references in attributes (arrays,
// dictionaries) name @k_a. @k_c differs (mulf) and is kept, as are
// @k_d / @k_e, identical but for the global each reads.
// CHECK-LABEL: func.func @main
// CHECK-SAME: attributes {kernels = [@k_a, @k_c], names = {first = @k_a}}
// CHECK: "disc_ral.cpu_launch"({{.*}}) {callee = @k_a}
// CHECK: "disc_ral.cpu_launch"({{.*}}) {callee = @k_a}
// CHECK: "disc_ral.cpu_launch"({{.*}}) {callee = @k_c}
// CHECK: "disc_ral.cpu_launch"({{.*}}) {callee = @k_d}
// CHECK: "disc_ral.cpu_launch"({{.*}}) {callee = @k_e}
// CHECK-NEXT: return
// CHECK: func.func @k_a(
// CHECK: arith.addf
// CHECK-NOT: func.func @k_b(
// CHECK: func.func @k_c(
// CHECK: arith.mulf
// CHECK: func.func @k_d(
// CHECK: memref.get_global @g1
// CHECK: func.func @k_e(
// CHECK: memref.get_global @g2
"memref.global"() <{sym_name = "g1", sym_visibility = "private", type = memref<4xf32>, initial_value = dense<1.0> : tensor<4xf32>, constant}> : () -> ()
"memref.global"() <{sym_name = "g2", sym_visibility = "private", type = memref<4xf32>, initial_value = dense<2.0> : tensor<4xf32>, constant}> : () -> ()
func.func @main(%ctx: !disc_ral.context, %A: memref<4xf32>, %B: memref<4xf32>) attributes {kernels = [@k_b, @k_c], names = {first = @k_b}} {
  %lb = memref.alloca() : memref<1xindex>
  %ub = memref.alloca() : memref<1xindex>
  %st = memref.alloca() : memref<1xindex>
  %c1 = arith.constant 1 : index
  "disc_ral.cpu_launch"(%ctx, %lb, %ub, %st, %c1, %A, %B) {callee = @k_a} : (!disc_ral.context, memref<1xindex>, memref<1xindex>, memref<1xindex>, index, memref<4xf32>, memref<4xf32>) -> ()
  "disc_ral.cpu_launch"(%ctx, %lb, %ub, %st, %c1, %B, %A) {callee = @k_b} : (!disc_ral.context, memref<1xindex>, memref<1xindex>, memref<1xindex>, index, memref<4xf32>, memref<4xf32>) -> ()
  "disc_ral.cpu_launch"(%ctx, %lb, %ub, %st, %c1, %A, %B) {callee = @k_c} : (!disc_ral.context, memref<1xindex>, memref<1xindex>, memref<1xindex>, index, memref<4xf32>, memref<4xf32>) -> ()
  "disc_ral.cpu_launch"(%ctx, %lb, %ub, %st, %c1, %A) {callee = @k_d} : (!disc_ral.context, memref<1xindex>, memref<1xindex>, memref<1xindex>, index, memref<4xf32>) -> ()
  "disc_ral.cpu_launch"(%ctx, %lb, %ub, %st, %c1, %A) {callee = @k_e} : (!disc_ral.context, memref<1xindex>, memref<1xindex>, memref<1xindex>, index, memref<4xf32>) -> ()
  return
}
func.func @k_a(%ctx: !disc_ral.context, %lb: memref<1xindex>, %ub: memref<1xindex>, %st: memref<1xindex>, %x: memref<4xf32>, %y: memref<4xf32>) attributes {disc_cpu_kernel_func} {
  %c0 = arith.constant 0 : index
  %l = memref.load %lb[%c0] : memref<1xindex>
  %u = memref.load %ub[%c0] : memref<1xindex>
  %s = memref.load %st[%c0] : memref<1xindex>
  scf.parallel (%i) = (%l) to (%u) step (%s) {
    %v = memref.load %x[%i] : memref<4xf32>
    %w = arith.addf %v, %v : f32
    memref.store %w, %y[%i] : memref<4xf32>
  }
  return
}
func.func @k_b(%0: !disc_ral.context, %1: memref<1xindex>, %2: memref<1xindex>, %3: memref<1xindex>, %4: memref<4xf32>, %5: memref<4xf32>) attributes {disc_cpu_kernel_func} {
  %zero = arith.constant 0 : index
  %lo = memref.load %1[%zero] : memref<1xindex>
  %hi = memref.load %2[%zero] : memref<1xindex>
  %step = memref.load %3[%zero] : memref<1xindex>
  scf.parallel (%j) = (%lo) to (%hi) step (%step) {
    %a = memref.load %4[%j] : memref<4xf32>
    %b = arith.addf %a, %a : f32
    memref.store %b, %5[%j] : memref<4xf32>
  }
  return
}
func.func @k_c(%ctx: !disc_ral.context, %lb: memref<1xindex>, %ub: memref<1xindex>, %st: memref<1xindex>, %x: memref<4xf32>, %y: memref<4xf32>) attributes {disc_cpu_kernel_func} {
  %c0 = arith.constant 0 : index
  %l = memref.load %lb[%c0] : memref<1xindex>
  %u = memref.load %ub[%c0] : memref<1xindex>
  %s = memref.load %st[%c0] : memref<1xindex>
  scf.parallel (%i) = (%l) to (%u) step (%s) {
    %v = memref.load %x[%i] : memref<4xf32>
    %w = arith.mulf %v, %v : f32
    memref.store %w, %y[%i] : memref<4xf32>
  }
  return
}
func.func @k_d(%ctx: !disc_ral.context, %lb: memref<1xindex>, %ub: memref<1xindex>, %st: memref<1xindex>, %y: memref<4xf32>) attributes {disc_cpu_kernel_func} {
  %c0 = arith.constant 0 : index
  %g = memref.get_global @g1 : memref<4xf32>
  %v = memref.load %g[%c0] : memref<4xf32>
  memref.store %v, %y[%c0] : memref<4xf32>
  return
}
func.func @k_e(%ctx: !disc_ral.context, %lb: memref<1xindex>, %ub: memref<1xindex>, %st: memref<1xindex>, %y: memref<4xf32>) attributes {disc_cpu_kernel_func} {
  %c0 = arith.constant 0 : index
  %g = memref.get_global @g2 : memref<4xf32>
  %v = memref.load %g[%c0] : memref<4xf32>
  memref.store %v, %y[%c0] : memref<4xf32>
  return
}

// -----

// Functions not marked disc_cpu_kernel_func are never merged.
// CHECK-LABEL: func.func @f(
// CHECK: func.func @g(
func.func @f(%x: index) -> index {
  return %x : index
}
func.func @g(%x: index) -> index {
  return %x : index
}

// -----

// Kernels calling identical kernels become identical once those are merged:
// @w2 (calls @k2, a copy of @k1) goes too.
// CHECK-LABEL: func.func @entry
// CHECK: "disc_ral.cpu_launch"({{.*}}) {callee = @w1}
// CHECK: "disc_ral.cpu_launch"({{.*}}) {callee = @w1}
// CHECK: func.func @w1(
// CHECK: call @k1(
// CHECK: func.func @k1(
// CHECK-NOT: func.func @w2(
// CHECK-NOT: func.func @k2(
func.func @entry(%ctx: !disc_ral.context, %A: memref<4xf32>) {
  %b = memref.alloca() : memref<1xindex>
  %c1 = arith.constant 1 : index
  "disc_ral.cpu_launch"(%ctx, %b, %b, %b, %c1, %A) {callee = @w1} : (!disc_ral.context, memref<1xindex>, memref<1xindex>, memref<1xindex>, index, memref<4xf32>) -> ()
  "disc_ral.cpu_launch"(%ctx, %b, %b, %b, %c1, %A) {callee = @w2} : (!disc_ral.context, memref<1xindex>, memref<1xindex>, memref<1xindex>, index, memref<4xf32>) -> ()
  return
}
func.func @w1(%ctx: !disc_ral.context, %lb: memref<1xindex>, %ub: memref<1xindex>, %st: memref<1xindex>, %y: memref<4xf32>) attributes {disc_cpu_kernel_func} {
  func.call @k1(%y) : (memref<4xf32>) -> ()
  return
}
func.func @k1(%y: memref<4xf32>) attributes {disc_cpu_kernel_func} {
  %c0 = arith.constant 0 : index
  %f = arith.constant 1.0 : f32
  memref.store %f, %y[%c0] : memref<4xf32>
  return
}
func.func @w2(%ctx: !disc_ral.context, %lb: memref<1xindex>, %ub: memref<1xindex>, %st: memref<1xindex>, %y: memref<4xf32>) attributes {disc_cpu_kernel_func} {
  func.call @k2(%y) : (memref<4xf32>) -> ()
  return
}
func.func @k2(%y: memref<4xf32>) attributes {disc_cpu_kernel_func} {
  %c0 = arith.constant 0 : index
  %f = arith.constant 1.0 : f32
  memref.store %f, %y[%c0] : memref<4xf32>
  return
}

// -----

// -0.0 and 0.0 are different constants: not merged.
// CHECK-LABEL: func.func @pz(
// CHECK: func.func @nz(
func.func @pz(%y: memref<4xf32>) attributes {disc_cpu_kernel_func} {
  %c0 = arith.constant 0 : index
  %f = arith.constant 0.0 : f32
  memref.store %f, %y[%c0] : memref<4xf32>
  return
}
func.func @nz(%y: memref<4xf32>) attributes {disc_cpu_kernel_func} {
  %c0 = arith.constant 0 : index
  %f = arith.constant -0.0 : f32
  memref.store %f, %y[%c0] : memref<4xf32>
  return
}
