// RUN: disc-opt -disc-convert-gpu-to-nvvm %s | FileCheck %s
// RUN: disc-opt -disc-convert-gpu-to-nvvm %s | disc-opt | FileCheck %s

// memref.atomic_rmw kinds with an LLVM equivalent become llvm.atomicrmw
// (acq_rel, system scope, as MLIR's AtomicRMWOpLowering); maximumf is
// fmaximum (NaN-propagating, mhlo.maximum), which the NVPTX backend expands
// to a compare-and-swap loop itself.
// CHECK-LABEL: llvm.func @rmw
// CHECK:         %[[P0:.*]] = llvm.getelementptr inbounds %{{.*}}[%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:    llvm.atomicrmw fadd %[[P0]], %arg5 acq_rel : !llvm.ptr, f32
// CHECK:         llvm.atomicrmw fmaximum %{{.*}}, %arg5 acq_rel : !llvm.ptr, f32
// CHECK:         llvm.atomicrmw fminimum %{{.*}}, %arg5 acq_rel : !llvm.ptr, f32
// CHECK:         llvm.atomicrmw max %{{.*}}, %arg6 acq_rel : !llvm.ptr, i32
// CHECK:         llvm.atomicrmw umin %{{.*}}, %arg6 acq_rel : !llvm.ptr, i32
// CHECK:         llvm.return

// memref.generic_atomic_rmw becomes a CAS loop (BladeDISC's
// GenericAtomicRMWOpLoweringWithBitcast): load, then a loop block whose
// argument is the current value; the body computes the new value, f32 goes
// through i32 for llvm.cmpxchg (acq_rel / monotonic); on failure the loop
// runs again with the value read, on success the code after the op sees it.
// CHECK-LABEL: llvm.func @generic_f32
// CHECK:         %[[PTR:.*]] = llvm.getelementptr inbounds %{{.*}}[%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:    %[[INIT:.*]] = llvm.load %[[PTR]] : !llvm.ptr -> f32
// CHECK-NEXT:    llvm.br ^bb1(%[[INIT]] : f32)
// CHECK-NEXT:  ^bb1(%[[CUR:.*]]: f32):
// CHECK-NEXT:    %[[NEW:.*]] = llvm.fmul %[[CUR]], %arg5 : f32
// CHECK-NEXT:    %[[CUR_I:.*]] = llvm.bitcast %[[CUR]] : f32 to i32
// CHECK-NEXT:    %[[NEW_I:.*]] = llvm.bitcast %[[NEW]] : f32 to i32
// CHECK-NEXT:    %[[PAIR:.*]] = llvm.cmpxchg %[[PTR]], %[[CUR_I]], %[[NEW_I]] acq_rel monotonic : !llvm.ptr, i32
// CHECK-NEXT:    %[[READ_I:.*]] = llvm.extractvalue %[[PAIR]][0] : !llvm.struct<(i32, i1)>
// CHECK-NEXT:    %[[OK:.*]] = llvm.extractvalue %[[PAIR]][1] : !llvm.struct<(i32, i1)>
// CHECK-NEXT:    %[[READ:.*]] = llvm.bitcast %[[READ_I]] : i32 to f32
// CHECK-NEXT:    llvm.cond_br %[[OK]], ^bb2, ^bb1(%[[READ]] : f32)
// CHECK-NEXT:  ^bb2:
// CHECK:         llvm.store %[[READ]], %{{.*}} : f32, !llvm.ptr
// CHECK-NEXT:    llvm.return

// Integers are swapped as they are; the loop sits inside the function's CFG
// (the block after the op keeps its successor).
// CHECK-LABEL: llvm.func @generic_i64
// CHECK:         llvm.cond_br %{{.*}}, ^[[THEN:.*]], ^[[EXIT:.*]]
// CHECK-NEXT:  ^[[THEN]]:
// CHECK:         %[[INIT64:.*]] = llvm.load %{{.*}} : !llvm.ptr -> i64
// CHECK-NEXT:    llvm.br ^[[LOOP:.*]](%[[INIT64]] : i64)
// CHECK-NEXT:  ^[[LOOP]](%[[CUR64:.*]]: i64):
// CHECK-NEXT:    %[[NEW64:.*]] = llvm.mul %[[CUR64]], %arg5 : i64
// CHECK-NEXT:    %[[PAIR64:.*]] = llvm.cmpxchg %{{.*}}, %[[CUR64]], %[[NEW64]] acq_rel monotonic : !llvm.ptr, i64
// CHECK-NEXT:    %[[READ64:.*]] = llvm.extractvalue %[[PAIR64]][0] : !llvm.struct<(i64, i1)>
// CHECK-NEXT:    %[[OK64:.*]] = llvm.extractvalue %[[PAIR64]][1] : !llvm.struct<(i64, i1)>
// CHECK-NEXT:    llvm.cond_br %[[OK64]], ^[[END:.*]], ^[[LOOP]](%[[READ64]] : i64)
// CHECK-NEXT:  ^[[END]]:
// CHECK-NEXT:    llvm.br ^[[EXIT]]
// CHECK-NEXT:  ^[[EXIT]]:
// CHECK-NEXT:    llvm.return
// CHECK-NOT:     memref.
module attributes {gpu.container_module} {
  gpu.module @rmw {
    gpu.func @rmw(%out: memref<?xf32>, %v: f32, %w: i32, %iout: memref<?xi32>) kernel {
      %tx = gpu.thread_id x
      %0 = memref.atomic_rmw addf %v, %out[%tx] : (f32, memref<?xf32>) -> f32
      %1 = memref.atomic_rmw maximumf %v, %out[%tx] : (f32, memref<?xf32>) -> f32
      %2 = memref.atomic_rmw minimumf %v, %out[%tx] : (f32, memref<?xf32>) -> f32
      %3 = memref.atomic_rmw maxs %w, %iout[%tx] : (i32, memref<?xi32>) -> i32
      %4 = memref.atomic_rmw minu %w, %iout[%tx] : (i32, memref<?xi32>) -> i32
      gpu.return
    }
  }
  gpu.module @generic_f32 {
    gpu.func @generic_f32(%out: memref<?xf32>, %v: f32) kernel {
      %tx = gpu.thread_id x
      %old = memref.generic_atomic_rmw %out[%tx] : memref<?xf32> {
      ^bb0(%cur: f32):
        %new = arith.mulf %cur, %v : f32
        memref.atomic_yield %new : f32
      }
      %c0 = arith.constant 0 : index
      memref.store %old, %out[%c0] : memref<?xf32>
      gpu.return
    }
  }
  gpu.module @generic_i64 {
    gpu.func @generic_i64(%out: memref<?xi64>, %v: i64) kernel {
      %tx = gpu.thread_id x
      %c4 = arith.constant 4 : index
      %inside = arith.cmpi ult, %tx, %c4 : index
      cf.cond_br %inside, ^bb1, ^bb2
    ^bb1:
      %old = memref.generic_atomic_rmw %out[%tx] : memref<?xi64> {
      ^bb0(%cur: i64):
        %new = arith.muli %cur, %v : i64
        memref.atomic_yield %new : i64
      }
      cf.br ^bb2
    ^bb2:
      gpu.return
    }
  }
}
