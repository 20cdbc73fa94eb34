// RUN: disc-opt %s -split-input-file --buffer-deallocation | FileCheck %s

// A buffer is freed after its last use, a returned view keeps its buffer.
// CHECK-LABEL: func.func @basic
// CHECK: %[[A:.*]] = memref.alloc(%{{.*}}) : memref<?xf32>
// CHECK-NEXT: "lmhlo.abs"(%arg0, %[[A]])
// CHECK-NEXT: %[[B:.*]] = memref.alloc(%{{.*}}) : memref<?xf32>
// CHECK-NEXT: "lmhlo.abs"(%[[A]], %[[B]])
// CHECK-NEXT: memref.dealloc %[[A]] : memref<?xf32>
// CHECK-NEXT: %[[C:.*]] = memref.cast %[[B]]
// CHECK-NEXT: return %[[C]]
func.func @basic(%arg0: memref<?xf32>, %n: index) -> memref<?xf32> {
  %0 = memref.alloc(%n) : memref<?xf32>
  "lmhlo.abs"(%arg0, %0) : (memref<?xf32>, memref<?xf32>) -> ()
  %1 = memref.alloc(%n) : memref<?xf32>
  "lmhlo.abs"(%0, %1) : (memref<?xf32>, memref<?xf32>) -> ()
  %c = memref.cast %1 : memref<?xf32> to memref<?xf32>
  return %c : memref<?xf32>
}

// -----

// Uses inside a fusion count at the fusion; allocas are not freed; an
// existing dealloc is moved after the last use instead of duplicated.
// CHECK-LABEL: func.func @fusion
// CHECK: %[[S:.*]] = memref.alloca() : memref<1xindex>
// CHECK: %[[A:.*]] = memref.alloc() : memref<2xf32>
// CHECK: %[[B:.*]] = memref.alloc() : memref<2xf32>
// CHECK: "lmhlo.fusion"() ({
// CHECK: }) : () -> ()
// CHECK-NEXT: memref.dealloc %[[B]]
// CHECK-NEXT: memref.dealloc %[[A]]
// CHECK-NOT: memref.dealloc
// CHECK: return
func.func @fusion(%arg0: memref<2xf32>, %arg1: memref<2xf32>) {
  %s = memref.alloca() : memref<1xindex>
  %a = memref.alloc() : memref<2xf32>
  %b = memref.alloc() : memref<2xf32>
  memref.dealloc %b : memref<2xf32>
  "lmhlo.fusion"() ({
    "lmhlo.abs"(%arg0, %a) : (memref<2xf32>, memref<2xf32>) -> ()
    "lmhlo.abs"(%a, %b) : (memref<2xf32>, memref<2xf32>) -> ()
    "lmhlo.abs"(%b, %arg1) : (memref<2xf32>, memref<2xf32>) -> ()
    "lmhlo.terminator"() : () -> ()
  }) : () -> ()
  return
}

// -----

// A buffer yielded out of scf.if: both branches yield a clone, the if result
// is freed after its last use, the branch buffer inside the branch.
// CHECK-LABEL: func.func @if_yield
// CHECK: %[[R:.*]] = scf.if
// CHECK: %[[A:.*]] = memref.alloc() : memref<2xf32>
// CHECK: %[[C:.*]] = bufferization.clone %[[A]]
// CHECK-NEXT: memref.dealloc %[[A]]
// CHECK-NEXT: scf.yield %[[C]]
// CHECK: } else {
// CHECK-NEXT: %[[D:.*]] = bufferization.clone %arg1
// CHECK-NEXT: scf.yield %[[D]]
// CHECK: %[[O:.*]] = memref.alloc() : memref<2xf32>
// CHECK-NEXT: "lmhlo.abs"(%[[R]], %[[O]])
// CHECK-NEXT: memref.dealloc %[[R]]
// CHECK-NEXT: return %[[O]]
func.func @if_yield(%c: i1, %arg0: memref<2xf32>) -> memref<2xf32> {
  %r = scf.if %c -> (memref<2xf32>) {
    %a = memref.alloc() : memref<2xf32>
    "lmhlo.abs"(%arg0, %a) : (memref<2xf32>, memref<2xf32>) -> ()
    scf.yield %a : memref<2xf32>
  } else {
    scf.yield %arg0 : memref<2xf32>
  }
  %o = memref.alloc() : memref<2xf32>
  "lmhlo.abs"(%r, %o) : (memref<2xf32>, memref<2xf32>) -> ()
  return %o : memref<2xf32>
}

// -----

// Loop-carried buffers: the initial value and each iteration's buffer are
// cloned, the region argument freed after its last use in the body.
// CHECK-LABEL: func.func @loop
// CHECK: %[[I:.*]] = memref.alloc() : memref<2xf32>
// CHECK-NEXT: %[[IC:.*]] = bufferization.clone %[[I]]
// CHECK-NEXT: memref.dealloc %[[I]]
// CHECK-NEXT: %[[R:.*]] = scf.for {{.*}} iter_args(%[[IT:.*]] = %[[IC]])
// CHECK-NEXT: %[[A:.*]] = memref.alloc() : memref<2xf32>
// CHECK-NEXT: "lmhlo.abs"(%[[IT]], %[[A]])
// CHECK-NEXT: memref.dealloc %[[IT]]
// CHECK-NEXT: %[[AC:.*]] = bufferization.clone %[[A]]
// CHECK-NEXT: memref.dealloc %[[A]]
// CHECK-NEXT: scf.yield %[[AC]]
// CHECK: "lmhlo.copy"(%[[R]], %arg3)
// CHECK-NEXT: memref.dealloc %[[R]]
func.func @loop(%lb: index, %ub: index, %s: index, %arg0: memref<2xf32>) {
  %init = memref.alloc() : memref<2xf32>
  %r = scf.for %i = %lb to %ub step %s iter_args(%it = %init) -> (memref<2xf32>) {
    %a = memref.alloc() : memref<2xf32>
    "lmhlo.abs"(%it, %a) : (memref<2xf32>, memref<2xf32>) -> ()
    scf.yield %a : memref<2xf32>
  }
  "lmhlo.copy"(%r, %arg0) : (memref<2xf32>, memref<2xf32>) -> ()
  return
}

// -----

// A buffer used only inside a loop body is freed in the body; one defined
// outside and used in the loop is freed after the loop.
// CHECK-LABEL: func.func @nested
// CHECK: %[[O:.*]] = memref.alloc() : memref<2xf32>
// CHECK: scf.parallel
// CHECK: %[[T:.*]] = memref.alloc() : memref<2xf32>
// CHECK-NEXT: "lmhlo.abs"(%[[O]], %[[T]])
// CHECK-NEXT: "lmhlo.abs"(%[[T]], %arg1)
// CHECK-NEXT: memref.dealloc %[[T]]
// CHECK: }
// CHECK-NEXT: memref.dealloc %[[O]]
// CHECK-NEXT: return
func.func @nested(%n: index, %arg1: memref<2xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %o = memref.alloc() : memref<2xf32>
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    %t = memref.alloc() : memref<2xf32>
    "lmhlo.abs"(%o, %t) : (memref<2xf32>, memref<2xf32>) -> ()
    "lmhlo.abs"(%t, %arg1) : (memref<2xf32>, memref<2xf32>) -> ()
    scf.reduce
  }
  return
}

// -----

// Nothing to do: no heap buffer, or a declaration.
// CHECK-LABEL: func.func private @decl(memref<2xf32>)
// CHECK-LABEL: func.func @none
// CHECK-NEXT: memref.alloca
// CHECK-NEXT: return
func.func private @decl(memref<2xf32>)
func.func @none() {
  %a = memref.alloca() : memref<2xf32>
  return
}

