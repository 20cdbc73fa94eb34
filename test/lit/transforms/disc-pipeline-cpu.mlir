// RUN: disc-opt '--disc-pipeline{target=cpu until=ral}' %s | FileCheck %s --check-prefix=RAL
// RUN: disc-opt '--disc-pipeline{target=cpu until=codegen}' %s | FileCheck %s --check-prefix=CODEGEN
// RUN: disc-opt --disc-pipeline %s | FileCheck %s --check-prefix=LLVM

// The whole CPU pipeline on a graph whose entry placements say "gpu": in CPU
// mode they are host placements, so no device buffers and no copies appear.
// RAL-LABEL: func.func @main(%arg0: !disc_ral.context)
// RAL-SAME: input_placements = "cpu,cpu"
// RAL-NOT: gpu
// RAL: "lmhlo.fusion"
// RAL: call_target_name = "ral_send_output"

// The fusion becomes a multi-threaded CPU kernel launched from @main.
// CODEGEN: func.func @main(
// CODEGEN-NOT: lmhlo.
// CODEGEN: "disc_ral.cpu_launch"({{.*}}) {callee = @main_kLoop
// CODEGEN: func.func @main_kLoop{{.*}} attributes {disc_cpu_kernel_func}
// CODEGEN: scf.parallel

// Only llvm.func / llvm.mlir.global remain, calling the runtime through disc_ral_call.
// LLVM-NOT: func.func
// LLVM: llvm.func @disc_ral_call(!llvm.ptr, !llvm.ptr, !llvm.ptr)
// LLVM: llvm.func @main(%arg0: !llvm.ptr)
// LLVM: llvm.call @disc_ral_call
// LLVM: llvm.func @packed_main_kLoop

func.func @main(%x: tensor<?x?xf32>, %b: tensor<?xf32>) -> tensor<?x?xf32>
    attributes {tf.entry_function = {inputs = "x,b", outputs = "z", input_placements = "gpu,gpu", output_placements = "gpu"}} {
  %s = shape.shape_of %x : tensor<?x?xf32> -> tensor<2xindex>
  %bb = "mhlo.dynamic_broadcast_in_dim"(%b, %s) {broadcast_dimensions = dense<1> : tensor<1xi64>} : (tensor<?xf32>, tensor<2xindex>) -> tensor<?x?xf32>
  %y = mhlo.add %x, %bb : tensor<?x?xf32>
  %z = mhlo.exponential %y : tensor<?x?xf32>
  return %z : tensor<?x?xf32>
}
