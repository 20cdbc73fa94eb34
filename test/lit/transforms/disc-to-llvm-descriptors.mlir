// RUN: disc-opt -split-input-file -disc-to-llvm %s | FileCheck %s

// The lowering makes a memref descriptor as one op over its fields and reads
// the fields straight from it: a descriptor only read field by field is never
// built as a struct.
// CHECK-LABEL: llvm.func @read_only
// CHECK-NOT: llvm.insertvalue
// CHECK-NOT: llvm.mlir.undef
// CHECK-NOT: builtin.unrealized_conversion_cast
// CHECK: %[[P:.*]] = llvm.alloca %{{.*}} x f32
// CHECK: %[[V:.*]] = llvm.load %[[P]] : !llvm.ptr -> f32
// CHECK: llvm.return %[[V]]
func.func @read_only(%n: index) -> f32 {
  %c0 = arith.constant 0 : index
  %a = memref.alloca(%n) : memref<?xf32>
  %v = memref.load %a[%c0] : memref<?xf32>
  return %v : f32
}

// -----

// A descriptor that leaves as a struct is built field by field.
// CHECK-LABEL: llvm.func @returned
// CHECK-SAME: (%[[N:.*]]: i64)
// CHECK: %[[ONE:.*]] = llvm.mlir.constant(1) : i64
// CHECK: %[[P:.*]] = llvm.alloca %[[N]] x f32
// CHECK: %[[ZERO:.*]] = llvm.mlir.constant(0) : i64
// CHECK: %[[U:.*]] = llvm.mlir.undef : !llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<1 x i64>, !llvm.array<1 x i64>)>
// CHECK: %[[D0:.*]] = llvm.insertvalue %[[P]], %[[U]][0]
// CHECK: %[[D1:.*]] = llvm.insertvalue %[[P]], %[[D0]][1]
// CHECK: %[[D2:.*]] = llvm.insertvalue %[[ZERO]], %[[D1]][2]
// CHECK: %[[D3:.*]] = llvm.insertvalue %[[N]], %[[D2]][3, 0]
// CHECK: %[[D4:.*]] = llvm.insertvalue %[[ONE]], %[[D3]][4, 0]
// CHECK: llvm.return %[[D4]]
func.func @returned(%n: index) -> memref<?xf32> {
  %a = memref.alloca(%n) : memref<?xf32>
  return %a : memref<?xf32>
}

// -----

// A size picked by a dynamic index reads the sizes array of the struct.
// CHECK-LABEL: llvm.func @dynamic_dim
// CHECK-SAME: (%[[N:.*]]: i64, %[[M:.*]]: i64, %[[I:.*]]: i64)
// CHECK: %[[D1:.*]] = llvm.insertvalue %[[N]], %{{.*}}[3, 0]
// CHECK: %[[D2:.*]] = llvm.insertvalue %[[M]], %[[D1]][3, 1]
// CHECK: %[[D:.*]] = llvm.insertvalue %{{.*}}, %{{.*}}[4, 1]
// CHECK: %[[SIZES:.*]] = llvm.extractvalue %[[D]][3]
// CHECK: llvm.store %[[SIZES]], %[[SLOT:.*]] : !llvm.array<2 x i64>, !llvm.ptr
// CHECK: %[[AT:.*]] = llvm.getelementptr %[[SLOT]][0, %[[I]]]
// CHECK: %[[SIZE:.*]] = llvm.load %[[AT]] : !llvm.ptr -> i64
// CHECK: llvm.return %[[SIZE]]
func.func @dynamic_dim(%n: index, %m: index, %i: index) -> index {
  %a = memref.alloca(%n, %m) : memref<?x?xf32>
  %d = memref.dim %a, %i : memref<?x?xf32>
  return %d : index
}
