// RUN: disc-opt -disc-convert-gpu-to-nvvm %s | FileCheck %s

// Thread/block ids and sizes read the PTX special registers (i32, widened to
// index = i64), gpu.barrier is bar.sync 0, shuffles use shfl.sync with the
// mask -1 >> (32 - width) and clamp width - 1; memref arguments are expanded
// into descriptor fields (the aligned pointer carrying llvm.align = 16: the
// RAL's CUDA driver launches kernels with 16-byte aligned buffers only) and
// the kernel is marked nvvm.kernel.
// CHECK:      gpu.module @main_kernel {
// CHECK-NEXT:   llvm.func @main_kernel(%[[ALLOC:.*]]: !llvm.ptr, %[[ALIGNED:.*]]: !llvm.ptr {llvm.align = 16 : i64}, %[[OFF:.*]]: i64, %[[SIZE:.*]]: i64, %[[STRIDE:.*]]: i64, %[[N:.*]]: i64) attributes {gpu.kernel, nvvm.kernel} {
// CHECK:          %[[TID:.*]] = llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.tid.x"() : () -> i32
// CHECK-NEXT:     %[[TX:.*]] = llvm.zext %[[TID]] : i32 to i64
// CHECK-NEXT:     %[[CTAID:.*]] = llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.ctaid.y"() : () -> i32
// CHECK-NEXT:     %[[BY:.*]] = llvm.zext %[[CTAID]] : i32 to i64
// CHECK-NEXT:     llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.ntid.x"() : () -> i32
// CHECK-NEXT:     llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.nctaid.z"() : () -> i32
// CHECK:          %[[PTR:.*]] = llvm.getelementptr inbounds %{{.*}}[%[[TX]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:     %[[V:.*]] = llvm.load %[[PTR]] : !llvm.ptr -> f32
// CHECK-NEXT:     llvm.call_intrinsic "llvm.nvvm.barrier0"() : () -> ()
// CHECK-NEXT:     %[[ONE:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT:     %[[WIDTH:.*]] = llvm.mlir.constant(32 : i32) : i32
// CHECK-NEXT:     %[[C32:.*]] = llvm.mlir.constant(32 : i32) : i32
// CHECK-NEXT:     %[[LEAD:.*]] = llvm.sub %[[C32]], %[[WIDTH]] : i32
// CHECK-NEXT:     %[[M1:.*]] = llvm.mlir.constant(-1 : i32) : i32
// CHECK-NEXT:     %[[MASK:.*]] = llvm.lshr %[[M1]], %[[LEAD]] : i32
// CHECK-NEXT:     %[[C1:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT:     %[[CLAMP:.*]] = llvm.sub %[[WIDTH]], %[[C1]] : i32
// CHECK-NEXT:     %[[PAIR:.*]] = llvm.call_intrinsic "llvm.nvvm.shfl.sync.bfly.f32p"(%[[MASK]], %[[V]], %[[ONE]], %[[CLAMP]]) : (i32, f32, i32, i32) -> !llvm.struct<(f32, i1)>
// CHECK-NEXT:     %[[R:.*]] = llvm.extractvalue %[[PAIR]][0] : !llvm.struct<(f32, i1)>
// CHECK:          llvm.call_intrinsic "llvm.nvvm.shfl.sync.down.f32p"(%{{.*}}, %[[R]], %[[ONE]], %{{.*}}) : (i32, f32, i32, i32) -> !llvm.struct<(f32, i1)>
// CHECK:          llvm.intr.sqrt
// CHECK:          llvm.getelementptr inbounds %{{.*}}[%[[BY]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:     llvm.store
// CHECK-NEXT:     llvm.return
module attributes {gpu.container_module} {
  gpu.module @main_kernel {
    gpu.func @main_kernel(%a: memref<?xf32>, %n: index) kernel {
      %tx = gpu.thread_id x
      %bx = gpu.block_id y
      %bd = gpu.block_dim x
      %gd = gpu.grid_dim z
      %v = memref.load %a[%tx] : memref<?xf32>
      gpu.barrier
      %c1 = arith.constant 1 : i32
      %c32 = arith.constant 32 : i32
      %r, %ok = gpu.shuffle xor %v, %c1, %c32 : f32
      %d, %ok2 = gpu.shuffle down %r, %c1, %c32 : f32
      %s = math.sqrt %d : f32
      memref.store %s, %a[%bx] : memref<?xf32>
      gpu.return
    }
  }
}
