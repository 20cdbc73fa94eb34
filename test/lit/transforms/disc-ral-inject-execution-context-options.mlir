// RUN: disc-opt -disc-ral-inject-execution-context=entry-func-name=entry %s | FileCheck %s
// RUN: not disc-opt -disc-ral-inject-execution-context=entry-func-name=nope %s 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not disc-opt -disc-ral-inject-execution-context=entry-func-name=caller %s 2>&1 | FileCheck %s --check-prefix=CALLED

// entry-func-name picks the entry; functions without runtime work stay as they are.
// CHECK-LABEL: func.func @other(%{{.*}}: memref<2xf32>) -> memref<2xf32>
// CHECK-LABEL: func.func @entry
// CHECK-SAME: (%[[CTX:.*]]: !disc_ral.context) {
// CHECK: %[[IN:.*]] = "disc_ral.recv_input"(%[[CTX]], %{{.*}}) : (!disc_ral.context, index) -> memref<2xf32>
// CHECK: "disc_ral.send_output"(%[[CTX]], %{{.*}}, %[[IN]])
// CHECK: return{{$}}
// CHECK-LABEL: func.func @main(%{{.*}}: index) -> index
// CHECK: call @caller(%{{.*}}) : (index) -> index

// MISSING: entry func: nope not found
// CALLED: entry func caller is called by main; the entry function must not be called from the module
func.func @other(%arg0: memref<2xf32>) -> memref<2xf32> {
  return %arg0 : memref<2xf32>
}
func.func @entry(%arg0: memref<2xf32>) -> memref<2xf32> {
  return %arg0 : memref<2xf32>
}
func.func @caller(%arg0: index) -> index {
  return %arg0 : index
}
func.func @main(%arg0: index) -> index {
  %0 = call @caller(%arg0) : (index) -> index
  return %0 : index
}
