// RUN: disc-opt -disc-to-llvm="outline-ral-calls=true" %s | FileCheck %s
// RUN: disc-opt -disc-to-llvm %s | FileCheck %s --check-prefix=INLINE

// disc-ir's `outline-ral-calls`: every RAL call of one signature calls one
// host-glue function that packs the argument slots and calls disc_ral_call;
// the entry passes the slots (a memref's descriptor fields) directly.

// CHECK-LABEL: llvm.func @main
// CHECK-SAME: (%[[CTX:.*]]: !llvm.ptr, %[[N:.*]]: i64, %[[M:.*]]: i64)
// CHECK: %[[A:.*]] = llvm.call @__disc_ral.call.alloc___cpu___pvoid_i64___pvoid(%[[CTX]], %{{.*}}) : (!llvm.ptr, i64) -> !llvm.ptr
// CHECK: %[[B:.*]] = llvm.call @__disc_ral.call.alloc___cpu___pvoid_i64___pvoid(%[[CTX]], %{{.*}}) : (!llvm.ptr, i64) -> !llvm.ptr
// The kernel's slots (context, then the buffer's allocated/aligned pointers,
// offset, size, stride), then lb / ub / step (5 slots each) and the hint.
// CHECK: llvm.call @__disc_ral.launch.kernel(%[[CTX]], %[[A]], %[[A]], %{{.*}}, %[[N]], %{{.*}}, %{{.*}}) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, i64, i64, i64, !llvm.ptr, !llvm.ptr, i64, i64, i64, !llvm.ptr, !llvm.ptr, i64, i64, i64, !llvm.ptr, !llvm.ptr, i64, i64, i64, i64) -> ()
// CHECK: llvm.call @__disc_ral.launch.kernel(%[[CTX]], %[[B]], %[[B]], %{{.*}}, %[[M]], %{{.*}}, %{{.*}})
// CHECK: llvm.call @__disc_ral.call.dealloc___cpu___pvoid_pvoid___void(%[[CTX]], %[[A]]) : (!llvm.ptr, !llvm.ptr) -> ()
// CHECK: llvm.call @__disc_ral.call.dealloc___cpu___pvoid_pvoid___void(%[[CTX]], %[[B]])
// CHECK-NOT: disc_ral_call
// CHECK: llvm.return

// One helper per signature, made once.
// CHECK-LABEL: llvm.func @__disc_ral.call.alloc___cpu___pvoid_i64___pvoid
// CHECK-SAME: (%[[HCTX:.*]]: !llvm.ptr, %[[BYTES:.*]]: i64) -> !llvm.ptr
// CHECK: %[[SLOTS:.*]] = llvm.alloca %{{.*}} x !llvm.struct<(!llvm.ptr, i64, !llvm.ptr)>
// CHECK: %[[ARGS:.*]] = llvm.alloca %{{.*}} x !llvm.ptr
// CHECK: llvm.store %[[HCTX]]
// CHECK: llvm.store %[[BYTES]]
// CHECK: %[[RES:.*]] = llvm.getelementptr %[[SLOTS]][0, 2]
// CHECK: llvm.call @disc_ral_call(%[[HCTX]], %{{.*}}, %[[ARGS]])
// CHECK: %[[PTR:.*]] = llvm.load %[[RES]] : !llvm.ptr -> !llvm.ptr
// CHECK: llvm.return %[[PTR]] : !llvm.ptr
// CHECK-LABEL: llvm.func @__disc_ral.launch.kernel
// CHECK: llvm.mlir.addressof @packed_kernel
// CHECK: llvm.mlir.addressof @ral_kernel_launch___cpu___pvoid_pvoid_m1di64_m1di64_m1di64_i64_pvoid_ppvoid___void
// CHECK: llvm.call @disc_ral_call
// CHECK: llvm.return
// CHECK-LABEL: llvm.func @packed_kernel
// CHECK: llvm.call @kernel
// CHECK-LABEL: llvm.func @__disc_ral.call.dealloc___cpu___pvoid_pvoid___void
// CHECK-NOT: llvm.func @__disc_ral.call.alloc

// Without the option: BladeDISC's packing inline, no helpers.
// INLINE-NOT: __disc_ral.
// INLINE-LABEL: llvm.func @main
// INLINE-COUNT-6: llvm.call @disc_ral_call
// INLINE-NOT: __disc_ral.

func.func private @kernel(%ctx: !disc_ral.context, %lb: memref<1xindex>, %ub: memref<1xindex>, %st: memref<1xindex>, %a: memref<?xf32>)

func.func @main(%ctx: !disc_ral.context, %n: index, %m: index) {
  %0 = memref.alloc(%n) : memref<?xf32>
  %1 = memref.alloc(%m) : memref<?xf32>
  %lb = memref.alloca() : memref<1xindex>
  %ub = memref.alloca() : memref<1xindex>
  %st = memref.alloca() : memref<1xindex>
  %c1 = arith.constant 1 : index
  "disc_ral.cpu_launch"(%ctx, %lb, %ub, %st, %c1, %0) {callee = @kernel} : (!disc_ral.context, memref<1xindex>, memref<1xindex>, memref<1xindex>, index, memref<?xf32>) -> ()
  "disc_ral.cpu_launch"(%ctx, %lb, %ub, %st, %c1, %1) {callee = @kernel} : (!disc_ral.context, memref<1xindex>, memref<1xindex>, memref<1xindex>, index, memref<?xf32>) -> ()
  memref.dealloc %0 : memref<?xf32>
  memref.dealloc %1 : memref<?xf32>
  return
}
