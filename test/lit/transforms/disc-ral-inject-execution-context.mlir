// RUN: disc-opt -split-input-file -disc-ral-inject-execution-context %s | FileCheck %s

// Inputs are received right before their first use, outputs sent right
// after their last writer; the entry takes only the context.
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[CTX:.*]]: !disc_ral.context) {
// CHECK-NEXT: %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[A0:.*]] = "disc_ral.recv_input"(%[[CTX]], %[[C0]]) : (!disc_ral.context, index) -> memref<?x?xf32>
// CHECK-NEXT: %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT: %[[A1:.*]] = "disc_ral.recv_input"(%[[CTX]], %[[C1]]) : (!disc_ral.context, index) -> memref<?x?xf32>
// CHECK-NEXT: "lmhlo.abs"(%[[A0]], %[[A1]])
// CHECK-NEXT: %[[O0:.*]] = arith.constant 0 : index
// CHECK-NEXT: "disc_ral.send_output"(%[[CTX]], %[[O0]], %[[A1]]) : (!disc_ral.context, index, memref<?x?xf32>) -> ()
// CHECK-NEXT: %[[C2:.*]] = arith.constant 2 : index
// CHECK-NEXT: %[[A2:.*]] = "disc_ral.recv_input"(%[[CTX]], %[[C2]])
// CHECK-NEXT: %[[C3:.*]] = arith.constant 3 : index
// CHECK-NEXT: %[[A3:.*]] = "disc_ral.recv_input"(%[[CTX]], %[[C3]])
// CHECK-NEXT: "lmhlo.add"(%[[A1]], %[[A2]], %[[A3]])
// CHECK-NEXT: %[[O1:.*]] = arith.constant 1 : index
// CHECK-NEXT: "disc_ral.send_output"(%[[CTX]], %[[O1]], %[[A3]])
// CHECK-NEXT: return{{$}}
func.func @main(%arg0: memref<?x?xf32>, %arg1: memref<?x?xf32>,
                %arg2: memref<?x?xf32>, %arg3: memref<?x?xf32>) -> (memref<?x?xf32>, memref<?x?xf32>) {
  "lmhlo.abs"(%arg0, %arg1) : (memref<?x?xf32>, memref<?x?xf32>) -> ()
  "lmhlo.add"(%arg1, %arg2, %arg3) : (memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) -> ()
  return %arg1, %arg3 : memref<?x?xf32>, memref<?x?xf32>
}

// -----

// A buffer written through a view is sent after that write; an unused input
// is received at the start; sends at one place keep their order; a value
// returned twice is sent twice.
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[CTX:.*]]: !disc_ral.context) {
// CHECK-NEXT: %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT: "disc_ral.recv_input"(%[[CTX]], %[[C1]]) : (!disc_ral.context, index) -> memref<4xf32>
// CHECK-NEXT: %[[BUF:.*]] = memref.alloc() : memref<4xf32>
// CHECK-NEXT: %[[VIEW:.*]] = memref.cast %[[BUF]]
// CHECK-NEXT: %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[IN:.*]] = "disc_ral.recv_input"(%[[CTX]], %[[C0]]) : (!disc_ral.context, index) -> memref<4xf32>
// CHECK-NEXT: "lmhlo.exponential"(%[[IN]], %[[VIEW]])
// CHECK-NEXT: arith.constant 0 : index
// CHECK-NEXT: "disc_ral.send_output"(%[[CTX]], %{{.*}}, %[[BUF]])
// CHECK-NEXT: arith.constant 1 : index
// CHECK-NEXT: "disc_ral.send_output"(%[[CTX]], %{{.*}}, %[[BUF]])
// CHECK-NEXT: arith.constant 0 : index
// CHECK-NEXT: memref.dim %[[VIEW]]
// CHECK-NEXT: return{{$}}
func.func @main(%arg0: memref<4xf32>, %arg1: memref<4xf32>) -> (memref<4xf32>, memref<4xf32>) {
  %0 = memref.alloc() : memref<4xf32>
  %1 = memref.cast %0 : memref<4xf32> to memref<?xf32>
  "lmhlo.exponential"(%arg0, %1) : (memref<4xf32>, memref<?xf32>) -> ()
  %c0 = arith.constant 0 : index
  %2 = memref.dim %1, %c0 : memref<?xf32>
  return %0, %0 : memref<4xf32>, memref<4xf32>
}

// -----

// Other functions that need the context get it first; calls pass it on.
// Functions without runtime work are untouched.
// CHECK-LABEL: func.func @helper
// CHECK-SAME: (%[[HCTX:.*]]: !disc_ral.context, %{{.*}}: memref<?xf32>) -> memref<?xf32>
// CHECK: memref.alloc
// CHECK-LABEL: func.func @pure(%{{.*}}: index) -> index
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[CTX:.*]]: !disc_ral.context) {
// CHECK: %[[R:.*]] = call @helper(%[[CTX]], %{{.*}}) : (!disc_ral.context, memref<?xf32>) -> memref<?xf32>
// CHECK: "disc_ral.send_output"(%[[CTX]], %{{.*}}, %[[R]])
// CHECK: call @pure(%{{.*}}) : (index) -> index
func.func @helper(%arg0: memref<?xf32>) -> memref<?xf32> {
  %c0 = arith.constant 0 : index
  %d = memref.dim %arg0, %c0 : memref<?xf32>
  %0 = memref.alloc(%d) : memref<?xf32>
  "lmhlo.exponential"(%arg0, %0) : (memref<?xf32>, memref<?xf32>) -> ()
  return %0 : memref<?xf32>
}
func.func @pure(%arg0: index) -> index {
  return %arg0 : index
}
func.func @main(%arg0: memref<?xf32>) -> memref<?xf32> {
  %0 = call @helper(%arg0) : (memref<?xf32>) -> memref<?xf32>
  %c1 = arith.constant 1 : index
  %1 = call @pure(%c1) : (index) -> index
  return %0 : memref<?xf32>
}

// -----

// Several blocks: all inputs received at the start, outputs sent before each
// return; a write nested in scf.if counts in single-block bodies too.
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[CTX:.*]]: !disc_ral.context) {
// CHECK: %[[A:.*]] = "disc_ral.recv_input"(%[[CTX]], %{{.*}}) : (!disc_ral.context, index) -> memref<?xf32>
// CHECK: %[[P:.*]] = "disc_ral.recv_input"(%[[CTX]], %{{.*}}) : (!disc_ral.context, index) -> memref<i1>
// CHECK: cf.cond_br
// CHECK: ^bb1:
// CHECK: "disc_ral.send_output"(%[[CTX]], %{{.*}}, %[[A]])
// CHECK-NEXT: return{{$}}
// CHECK: ^bb2:
// CHECK: scf.if
// CHECK: "lmhlo.abs"
// CHECK: }
// CHECK: "disc_ral.send_output"(%[[CTX]], %{{.*}}, %{{.*}})
// CHECK-NEXT: return{{$}}
func.func @main(%arg0: memref<?xf32>, %pm: memref<i1>) -> memref<?xf32> {
  %p = memref.load %pm[] : memref<i1>
  cf.cond_br %p, ^bb1, ^bb2
^bb1:
  return %arg0 : memref<?xf32>
^bb2:
  %c0 = arith.constant 0 : index
  %d = memref.dim %arg0, %c0 : memref<?xf32>
  %0 = memref.alloc(%d) : memref<?xf32>
  scf.if %p {
    "lmhlo.abs"(%arg0, %0) : (memref<?xf32>, memref<?xf32>) -> ()
  }
  return %0 : memref<?xf32>
}
