// RUN: disc-opt -disc-const-to-ral=metadata-file-name=%t.meta %s | FileCheck %s
// RUN: disc-opt '-disc-const-to-ral=metadata-file-name=""' %s | FileCheck %s --check-prefix=NOFILE
// (The metadata file contents are checked in test/unit/test_ral_metadata.py.)

// Each lmhlo.constant outside fusions becomes a ral_const dispatch keyed by
// the MD5 of its contents; the names live in module globals.
// CHECK-DAG: llvm.mlir.global internal constant @__global_const_0("[[SPLAT:[0-9a-f]{32}]]_f32_2x3\00")
// CHECK-DAG: llvm.mlir.global internal constant @__global_const_1("[[SPLAT]]_f32_2x3\00")
// CHECK-DAG: llvm.mlir.global internal constant @__global_const_2("{{[0-9a-f]+}}_i32_3\00")
// CHECK-DAG: llvm.mlir.global internal constant @__global_const_3("{{[0-9a-f]+}}_i1_\00")
// CHECK-DAG: llvm.mlir.global internal constant @__global_const_4("[[SPLAT]]_f32_2x3\00")
// CHECK-LABEL: func.func @consts
// CHECK-SAME: (%[[CTX:.*]]: !disc_ral.context)
// CHECK: %[[G0:.*]] = llvm.mlir.addressof @__global_const_0 : !llvm.ptr
// CHECK: %[[N0:.*]] = llvm.getelementptr %[[G0]][0, 0] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<41 x i8>
// CHECK: %[[Z0:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK: %[[S0:.*]] = llvm.inttoptr %[[Z0]] : i32 to !llvm.ptr<i8>
// CHECK: %[[I0:.*]] = arith.constant 0 : i32
// CHECK: %[[C0:.*]] = "disc_ral.dispatch"(%[[CTX]], %[[S0]], %[[N0]], %[[I0]]) {backend_config = "", call_target_name = "ral_const", device = "cpu", has_side_effect = false} : (!disc_ral.context, !llvm.ptr<i8>, !llvm.ptr, i32) -> memref<2x3xf32>
// The same contents on the device: index 0 among the device constants.
// CHECK: %[[I1:.*]] = arith.constant 0 : i32
// CHECK: %[[C1:.*]] = "disc_ral.dispatch"(%[[CTX]], %{{.*}}, %{{.*}}, %[[I1]]) {{.*}}call_target_name = "ral_const", device = "gpu"{{.*}} -> memref<2x3xf32, #gpu.address_space<global>>
// CHECK: arith.constant 1 : i32
// CHECK: %[[C2:.*]] = "disc_ral.dispatch"{{.*}}call_target_name = "ral_const", device = "cpu"{{.*}} -> memref<3xi32>
// CHECK: arith.constant 2 : i32
// CHECK: %[[C3:.*]] = "disc_ral.dispatch"{{.*}}call_target_name = "ral_const", device = "cpu"{{.*}} -> memref<i1>
// A repeated host constant reuses index 0.
// CHECK: %[[I4:.*]] = arith.constant 0 : i32
// CHECK: "disc_ral.dispatch"(%[[CTX]], %{{.*}}, %{{.*}}, %[[I4]]) {{.*}}device = "cpu"
// Constants in fusions stay.
// CHECK: "lmhlo.fusion"
// CHECK: "lmhlo.constant"
// CHECK: "lmhlo.add"(%[[C0]], %[[C1]]
// CHECK: "disc_ral.send_output"(%[[CTX]], %{{.*}}, %[[C2]])
// CHECK: "disc_ral.send_output"(%[[CTX]], %{{.*}}, %[[C3]])

// An empty metadata-file-name writes no file.
// NOFILE: call_target_name = "ral_const"
func.func @consts(%ctx: !disc_ral.context) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %0 = memref.alloc() : memref<2x3xf32>
  %1 = memref.alloc() : memref<2x3xf32, #gpu.address_space<global>>
  %2 = memref.alloc() : memref<3xi32>
  %3 = memref.alloc() : memref<i1>
  %4 = memref.alloc() : memref<2x3xf32>
  %5 = memref.alloc() : memref<2x3xf32>
  "lmhlo.constant"(%0) {value = dense<1.0> : tensor<2x3xf32>} : (memref<2x3xf32>) -> ()
  "lmhlo.constant"(%1) {disc.device = "gpu", value = dense<1.0> : tensor<2x3xf32>} : (memref<2x3xf32, #gpu.address_space<global>>) -> ()
  "lmhlo.constant"(%2) {value = dense<[1, 2, 3]> : tensor<3xi32>} : (memref<3xi32>) -> ()
  "lmhlo.constant"(%3) {value = dense<true> : tensor<i1>} : (memref<i1>) -> ()
  "lmhlo.constant"(%4) {value = dense<1.0> : tensor<2x3xf32>} : (memref<2x3xf32>) -> ()
  "lmhlo.fusion"() ({
    "lmhlo.constant"(%5) {value = dense<2.0> : tensor<2x3xf32>} : (memref<2x3xf32>) -> ()
    "lmhlo.add"(%0, %1, %5) : (memref<2x3xf32>, memref<2x3xf32, #gpu.address_space<global>>, memref<2x3xf32>) -> ()
    "lmhlo.terminator"() : () -> ()
  }) : () -> ()
  "disc_ral.send_output"(%ctx, %c0, %2) : (!disc_ral.context, index, memref<3xi32>) -> ()
  "disc_ral.send_output"(%ctx, %c1, %3) : (!disc_ral.context, index, memref<i1>) -> ()
  return
}
