// RUN: disc-opt %s | FileCheck %s
// RUN: disc-opt %s | disc-opt | FileCheck %s
// RUN: disc-opt --mlir-print-op-generic %s | disc-opt | FileCheck %s

// The disc_ral dialect prints in generic form, inherent attributes in the
// attribute dictionary (sorted).

// CHECK-LABEL: func.func @recv_send(
// CHECK-SAME: %arg0: !disc_ral.context)
func.func @recv_send(%ctx: !disc_ral.context) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // CHECK: %0 = "disc_ral.recv_input"(%arg0, %c0) : (!disc_ral.context, index) -> memref<?x?xf32>
  %0 = "disc_ral.recv_input"(%ctx, %c0) : (!disc_ral.context, index) -> memref<?x?xf32>
  // CHECK: %1 = "disc_ral.recv_input"(%arg0, %c1) : (!disc_ral.context, index) -> memref<*xf32>
  %1 = "disc_ral.recv_input"(%ctx, %c1) : (!disc_ral.context, index) -> memref<*xf32>
  // CHECK: "disc_ral.send_output"(%arg0, %c0, %0) : (!disc_ral.context, index, memref<?x?xf32>) -> ()
  "disc_ral.send_output"(%ctx, %c0, %0) : (!disc_ral.context, index, memref<?x?xf32>) -> ()
  return
}

// CHECK-LABEL: func.func @dispatch(
func.func @dispatch(%ctx: !disc_ral.context, %m: memref<?x?xf32>) -> i64 {
  %c0 = arith.constant 0 : index
  // CHECK: %0 = "disc_ral.dispatch"(%arg0, %c0) {backend_config = "", call_target_name = "ral_recv_input", device = "cpu", has_side_effect = false} : (!disc_ral.context, index) -> memref<?x?xf32>
  %0 = "disc_ral.dispatch"(%ctx, %c0) {backend_config = "", call_target_name = "ral_recv_input", device = "cpu", has_side_effect = false} : (!disc_ral.context, index) -> memref<?x?xf32>
  // Default-valued attributes may be absent and stay absent.
  // CHECK: "disc_ral.dispatch"(%arg0) {call_target_name = "sync_on_stream"} : (!disc_ral.context) -> ()
  "disc_ral.dispatch"(%ctx) {call_target_name = "sync_on_stream"} : (!disc_ral.context) -> ()
  // Properties (today's MLIR) are read as attributes.
  // CHECK: %1:2 = "disc_ral.dispatch"(%arg0, %arg1) {call_target_name = "two", device = "gpu"} : (!disc_ral.context, memref<?x?xf32>) -> (index, i32)
  %1:2 = "disc_ral.dispatch"(%ctx, %m) <{call_target_name = "two", device = "gpu"}> : (!disc_ral.context, memref<?x?xf32>) -> (index, i32)
  // CHECK: %2 = "disc_ral.get_pointer"(%arg1) : (memref<?x?xf32>) -> i64
  %2 = "disc_ral.get_pointer"(%m) : (memref<?x?xf32>) -> i64
  return %2 : i64
}

// CHECK-LABEL: func.func @cpu_launch(
func.func @cpu_launch(%ctx: !disc_ral.context, %lb: memref<2xindex>, %ub: memref<2xindex>, %step: memref<2xindex>, %m: memref<?xf32>) {
  %c1 = arith.constant 1 : index
  // CHECK: "disc_ral.cpu_launch"(%arg0, %arg1, %arg2, %arg3, %c1, %arg4) {callee = @kernel} : (!disc_ral.context, memref<2xindex>, memref<2xindex>, memref<2xindex>, index, memref<?xf32>) -> ()
  "disc_ral.cpu_launch"(%ctx, %lb, %ub, %step, %c1, %m) {callee = @kernel} : (!disc_ral.context, memref<2xindex>, memref<2xindex>, memref<2xindex>, index, memref<?xf32>) -> ()
  return
}
